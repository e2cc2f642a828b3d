#!/usr/bin/python3
# Tests of the Python module as pip installs it (python/pyproject.toml)
# and of the errors its import gives when the system lacks a piece.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of `pip install ./python` and of the import's checks.

  test_pip.py EXAMPLE_WAV BUILD_GST

Makes a fresh virtual environment (``python3 -m venv
--system-site-packages``, so Debian's gi is seen), installs a copy of
python/ into it offline (``pip install --no-deps --no-build-isolation
--no-index``: Debian's setuptools and wheel build it) and checks the
metadata (version = afet.__version__, NumPy required, PyGObject not), that
the installed module extracts a file and an array with the build tree's
plugin, bit-equal to the source tree's module, that ``python3 -m afet``
reports the plugin, and that without the plugin the first use raises an
afet.Error naming GST_PLUGIN_PATH and afet.init(plugin_path=...), which
then fixes it, and that the source tree's module finds the checkout's
build/gst by itself.  Then, with stub modules first on sys.path: a missing gi,
a gi without GStreamer's typelib and a missing NumPy each make ``import
afet`` fail with an ImportError naming the package to install.

Exits 77 (skipped) when PyGObject, NumPy, venv, pip, setuptools or wheel
is missing, unless CI is set (then it fails).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

CI = bool(os.environ.get("CI"))


def unavailable(why):
    print("%s: %s (needs python3-gi, python3-numpy, python3-venv, "
          "python3-pip, python3-setuptools, python3-wheel)" % (
              "failed" if CI else "skipped", why))
    sys.exit(1 if CI else 77)


try:
    import numpy as np
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst  # noqa: F401
    import setuptools  # noqa: F401
    import wheel  # noqa: F401
    import venv  # noqa: F401
    import ensurepip  # noqa: F401
except (ImportError, ValueError) as e:
    unavailable(e)

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.join(TOP, "python")
sys.path.insert(0, SRC)
import afet  # noqa: E402

WAV = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    TOP, "examples", "data", "speech-16k.wav")
BUILD_GST = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    TOP, "build", "gst")


def run(args, env=None, cwd=None, timeout=300):
    """Runs a command; returns (exit status, stdout + stderr); a hang fails
    the test."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, env=env,
                           cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("%s hung: no end after %d s\n%s%s" % (
            args[0], timeout, e.stdout or "", e.stderr or "")) from None
    return p.returncode, p.stdout + p.stderr


def child_env(**changes):
    """The environment without PYTHONPATH (the venv's module, not the
    source tree's), with changes (None removes)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    for k, v in changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def source_version():
    with open(os.path.join(SRC, "afet", "__init__.py")) as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


class Pip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="afet-pip-")
        # a copy: pip builds in the tree it is given (build/, egg-info)
        src = os.path.join(cls.tmp, "python")
        shutil.copytree(SRC, src, ignore=shutil.ignore_patterns(
            "__pycache__", "build", "*.egg-info"))
        cls.venv = os.path.join(cls.tmp, "venv")
        rc, out = run(["/usr/bin/python3", "-m", "venv",
                       "--system-site-packages", cls.venv])
        if rc != 0:
            raise AssertionError("python3 -m venv failed: " + out)
        cls.py = os.path.join(cls.venv, "bin", "python")
        rc, out = run([cls.py, "-m", "pip", "install", "--no-deps",
                       "--no-build-isolation", "--no-index",
                       "--disable-pip-version-check", src],
                      env=child_env(PIP_NO_INPUT="1"))
        if rc != 0:
            raise AssertionError("pip install ./python failed:\n" + out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def venv_python(self, code, env=None):
        return run([self.py, "-c", textwrap.dedent(code)],
                   env=env or child_env(), cwd=self.tmp)

    def test_metadata(self):
        rc, out = self.venv_python("""
            import importlib.metadata as m
            print(m.version("afet"))
            print(m.metadata("afet")["Summary"])
            print(sorted(r for r in m.requires("afet") if "extra" not in r))
            print(m.metadata("afet")["License"])
            """)
        self.assertEqual(rc, 0, out)
        lines = out.splitlines()
        self.assertEqual(lines[0], source_version())
        self.assertEqual(lines[0], afet.__version__)
        self.assertIn("Speech features", lines[1])
        self.assertEqual(lines[2], "['numpy']")
        self.assertEqual(lines[3], "LGPL-2.1-or-later")

    def test_extract_from_venv(self):
        out_npz = os.path.join(self.tmp, "venv-result.npz")
        rc, out = self.venv_python("""
            import sys, wave, numpy as np, afet
            assert afet.__file__.startswith(%r), afet.__file__
            w = wave.open(%r)
            x = np.frombuffer(w.readframes(w.getnframes()), "<i2")
            f = afet.extract(%r, pipeline="afetmfcc ! afetdelta")
            a = afet.extract(x, rate=16000, pipeline="afetmfcc ! afetdelta")
            b = afet.extract_batch([x, x[:9000]], 16000)
            np.savez(%r, f=f.data, a=a.data, b0=b[0].data, b1=b[1].data)
            print(afet.plugin_file())
            """ % (self.venv, WAV, WAV, out_npz))
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.strip().startswith(os.path.realpath(BUILD_GST))
                        or out.strip().startswith(BUILD_GST), out)
        got = np.load(out_npz)
        want = afet.extract(WAV, pipeline="afetmfcc ! afetdelta").data
        for k in ("f", "a"):
            self.assertTrue(np.array_equal(got[k].view("<u4"),
                                           want.view("<u4")), k)
        self.assertEqual(got["b0"].shape, (472, 13))
        self.assertEqual(got["b1"].shape, (54, 13))
        # the self-check
        rc, out = run([self.py, "-m", "afet"], env=child_env(),
                      cwd=self.tmp)
        self.assertEqual(rc, 0, out)
        self.assertIn("afet %s (%s" % (afet.__version__, self.venv), out)
        self.assertIn("plugin ", out)
        self.assertIn("MFCC_0 98x13", out)

    def test_plugin_missing(self):
        # GStreamer's own plugins only, a registry of its own, and none of
        # the module's fallbacks: the first use says what to do, and
        # afet.init(plugin_path=...) does it
        system = [d for d in os.environ.get("GST_PLUGIN_PATH_1_0",
                                            "").split(os.pathsep)
                  if d and not os.path.realpath(d).startswith(
                      os.path.realpath(BUILD_GST))]
        env = child_env(
            GST_PLUGIN_PATH_1_0=os.pathsep.join(system),
            GST_PLUGIN_PATH=None,
            GST_REGISTRY_1_0=os.path.join(self.tmp, "no-afet.registry"))
        rc, out = self.venv_python("""
            import afet
            afet._setup._PLUGIN_PREFIXES = ()
            try:
                afet.extract(%r)
            except afet.Error as e:
                print("Error:", e)
            print("found:", afet.plugin_file())
            afet.init(plugin_path=%r)
            print("then:", afet.extract(%r))
            """ % (WAV, BUILD_GST, WAV), env=env)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"Error: could not build the pipeline "
                         r"'afetmfcc': no element \"afetmfcc\" \(the afet "
                         r"plugin \(libgstafet.so\) was not found in "
                         r"GStreamer's plugin path .*: install it .*set "
                         r"GST_PLUGIN_PATH to afet's build/gst directory, "
                         r"or call afet.init\(plugin_path=...\) first\)")
        self.assertIn("found: None", out)
        self.assertIn("then: <afet.Features MFCC_0 472x13>", out)


    def test_checkout_build_tree_found(self):
        # the source tree's module, GStreamer without the build tree: the
        # module finds the checkout's build/gst itself
        if os.path.realpath(BUILD_GST) != os.path.realpath(
                os.path.join(TOP, "build", "gst")):
            self.skipTest("the build tree is not the checkout's build/")
        system = [d for d in os.environ.get("GST_PLUGIN_PATH_1_0",
                                            "").split(os.pathsep)
                  if d and not os.path.realpath(d).startswith(
                      os.path.realpath(BUILD_GST))]
        env = child_env(
            GST_PLUGIN_PATH_1_0=os.pathsep.join(system),
            GST_PLUGIN_PATH=None, PYTHONPATH=SRC,
            GST_REGISTRY_1_0=os.path.join(self.tmp, "checkout.registry"))
        rc, out = run([sys.executable, "-c", textwrap.dedent("""
            import afet
            print(afet.plugin_file())
            print(afet.extract(%r))
            """ % WAV)], env=env, cwd=self.tmp)
        self.assertEqual(rc, 0, out)
        self.assertEqual(os.path.realpath(out.splitlines()[0]),
                         os.path.realpath(os.path.join(
                             TOP, "build", "gst", "elements",
                             "libgstafet.so")))
        self.assertIn("<afet.Features MFCC_0 472x13>", out)


class ImportErrors(unittest.TestCase):
    """`import afet` with a piece of the system missing, simulated by a
    stub module first on sys.path."""

    def import_with_stubs(self, stubs):
        tmp = tempfile.mkdtemp(prefix="afet-stub-")
        try:
            for name, code in stubs.items():
                path = os.path.join(tmp, *name.split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(textwrap.dedent(code))
            env = child_env(PYTHONPATH=tmp + os.pathsep + SRC)
            return run([sys.executable, "-c", "import afet"], env=env,
                       timeout=60)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_missing_gi(self):
        rc, out = self.import_with_stubs({"gi.py": """
            raise ImportError("No module named 'gi' (simulated)")
            """})
        self.assertNotEqual(rc, 0)
        self.assertRegex(out, r"ImportError: afet needs PyGObject \(the 'gi' "
                         r"module\).*apt-get install python3-gi "
                         r"gir1.2-gstreamer-1.0.*--system-site-packages.*"
                         r"\(No module named 'gi' \(simulated\)\)")

    def test_missing_gst_typelib(self):
        rc, out = self.import_with_stubs({"gi/__init__.py": """
            def require_version(namespace, version):
                raise ValueError("Namespace %s not available" % namespace)
            """})
        self.assertNotEqual(rc, 0)
        self.assertRegex(out, r"ImportError: afet needs GStreamer 1.0 and "
                         r"its introspection data: on Debian apt-get "
                         r"install gir1.2-gstreamer-1.0 .*\(Namespace Gst "
                         r"not available\)")

    def test_missing_numpy(self):
        rc, out = self.import_with_stubs({"numpy.py": """
            raise ImportError("No module named 'numpy' (simulated)")
            """})
        self.assertNotEqual(rc, 0)
        self.assertIn("ImportError: afet needs NumPy: pip install numpy, or "
                      "on Debian apt-get install python3-numpy", out)

    def test_no_stub_imports(self):
        # the same child without stubs imports: the failures above are the
        # stubs'
        rc, out = self.import_with_stubs({})
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
