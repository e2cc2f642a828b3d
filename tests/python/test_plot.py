#!/usr/bin/python3
# Smoke test of tools/afet-plot.py: the bundled example drawn as a PNG.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Smoke test of tools/afet-plot.py: renders the bundled example's
MFCC_0_D_A (afetmfcc ! afetdelta) as a PNG and checks that the file is
there, is a PNG (signature, IHDR) of a sane size in pixels and bytes.

  test_plot.py [EXAMPLE_WAV]

Exits 77 (skipped) when Matplotlib, NumPy or PyGObject's GStreamer
bindings are missing for this Python.
"""

import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy  # noqa: F401
    import matplotlib  # noqa: F401
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst  # noqa: F401
except (ImportError, ValueError) as e:
    print("skipped: %s (needs python3-matplotlib, python3-numpy, "
          "python3-gi, gir1.2-gstreamer-1.0)" % e)
    sys.exit(77)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(TOP, "tools", "afet-plot.py")
WAV = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.join(TOP, "examples", "data", "speech-16k.wav")


def main():
    with tempfile.TemporaryDirectory(prefix="afet-plot-") as tmp:
        out = os.path.join(tmp, "mfcc_d_a.png")
        env = dict(os.environ, MPLBACKEND="Agg")
        env.setdefault("MPLCONFIGDIR", tmp)
        p = subprocess.run([sys.executable, TOOL, "--audio", WAV,
                            "--pipeline", "afetmfcc ! afetdelta", "-o", out],
                           capture_output=True, text=True, timeout=120,
                           env=env)
        print(p.stdout + p.stderr, end="")
        if p.returncode != 0:
            print("FAIL: afet-plot.py exited with %d" % p.returncode)
            return 1
        if not os.path.isfile(out):
            print("FAIL: no %s" % out)
            return 1
        with open(out, "rb") as f:
            head = f.read(33)
        size = os.path.getsize(out)
        failures = []
        if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
            failures.append("not a PNG: %r" % head[:16])
        else:
            w, h = struct.unpack(">II", head[16:24])
            print("png: %d x %d pixels, %d bytes" % (w, h, size))
            if not (400 <= w <= 3000 and 300 <= h <= 3000):
                failures.append("odd size in pixels: %d x %d" % (w, h))
        if not 5000 <= size <= 150 * 1024:
            failures.append("odd size in bytes: %d" % size)
        # the tool says what it drew
        if "MFCC_0_D_A" not in p.stdout or "472 frames x 39 dims" not in \
                p.stdout:
            failures.append("unexpected summary line: %r" % p.stdout)
        for f in failures:
            print("FAIL:", f)
        if not failures:
            print("ok")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
