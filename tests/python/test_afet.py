#!/usr/bin/python3
# Tests of the Python module (python/afet) against gst-launch-1.0.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of the Python module (python/afet) against gst-launch-1.0.

  test_afet.py [EXAMPLE_WAV]

Extracts the bundled example with afet.extract() and compares the frames,
bit for bit, with what the equivalent gst-launch-1.0 line writes as raw
float32; checks the layout read from the caps, a preset, feature files read
back through afetparse (HTK, NumPy, a Kaldi archive of two entries), the
live generator on a live audiotestsrc (frames arrive as they are made, in
order, as many as the samples give; stop() and break), and that failures
raise afet.Error with GStreamer's message: a missing file, a file that is
not audio, an unknown element, a chain afet refuses, a chain that does not
end in features.

Exits 77 (skipped) when PyGObject's GStreamer bindings, NumPy or
gst-launch-1.0 are missing.  The plugin comes from the environment (meson
sets GST_PLUGIN_PATH_1_0 to the build's gst/ and PYTHONPATH to python/).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import numpy as np
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst  # noqa: F401
except (ImportError, ValueError) as e:
    print("skipped: %s (needs python3-gi, gir1.2-gstreamer-1.0, "
          "python3-numpy)" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))
import afet  # noqa: E402

GST_LAUNCH = shutil.which("gst-launch-1.0")
if GST_LAUNCH is None:
    print("skipped: gst-launch-1.0 not found")
    sys.exit(77)

WAV = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.join(TOP, "examples", "data", "speech-16k.wav")
# the example is 75914 samples at 16 kHz: 1 + (75914 - 400) // 160 frames
WAV_FRAMES = 472


def launch(*args):
    """Runs gst-launch-1.0 -q with the given arguments; fails the test with
    its output if it fails."""
    p = subprocess.run([GST_LAUNCH, "-q"] + list(args), capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("gst-launch-1.0 %s failed: %s%s" % (
            " ".join(args), p.stdout, p.stderr))


def raw_reference(tmp, chain, dims):
    """The chain over the example through gst-launch-1.0, written raw (as
    the README's main example does)."""
    out = os.path.join(tmp, "ref.f32")
    launch("filesrc", "location=" + WAV, "!", "wavparse", "!",
           "audioconvert", "!", "audioresample", "!", *chain.split(), "!",
           "filesink", "location=" + out)
    return np.fromfile(out, dtype="<f4").reshape(-1, dims)


def bits(a):
    return np.ascontiguousarray(a, dtype="<f4").view("<u4")


class Extract(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="afet-py-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_equal(self, feats, chain):
        ref = raw_reference(self.tmp, chain, feats.info.dims)
        self.assertEqual(feats.shape, ref.shape)
        self.assertEqual(feats.dtype, np.float32)
        self.assertTrue(np.array_equal(bits(feats.data), bits(ref)),
                        "frames differ from gst-launch-1.0's for " + chain)

    def test_mfcc_bit_equal(self):
        f = afet.extract(WAV, pipeline="afetmfcc")
        self.assertEqual(f.shape, (WAV_FRAMES, 13))
        self.check_equal(f, "afetmfcc")
        i = f.info
        self.assertEqual((i.kind, i.dims, i.statics, i.c0_index,
                          i.energy_index, i.delta_order),
                         ("mfcc", 13, 13, 12, -1, 0))
        self.assertEqual((i.rate, i.frame_length, i.frame_shift), (16000,
                                                                   400, 160))
        self.assertEqual(i.framerate, 100)
        self.assertEqual((i.preset, i.window, i.normalization), ("htk",
                                                                 "hamming",
                                                                 "none"))
        self.assertEqual(i.fields["num-filters"], 23)
        self.assertAlmostEqual(i.frame_period, 0.01)
        self.assertEqual(i.column_names()[-1], "c0")
        # frame n starts at n x 10 ms
        self.assertTrue(np.allclose(f.times, np.arange(WAV_FRAMES) * 0.01))
        self.assertIs(np.asarray(f), f.data)

    def test_deltas_and_cmvn(self):
        chain = "afetmfcc ! afetdelta ! afetcmvn"
        f = afet.extract(WAV, pipeline=chain)
        self.check_equal(f, chain)
        i = f.info
        self.assertEqual((i.dims, i.statics, i.delta_order, i.c0_index),
                         (39, 13, 2, 12))
        self.assertEqual(i.normalization, "mean")
        # every column's mean removed: not HTK's _Z (afetenc refuses to
        # call it that); columns=htk is
        self.assertEqual(i.htk_name(), "MFCC_0_D_A (mean over all)")
        z = afet.extract(WAV, pipeline=chain + " columns=htk")
        self.assertEqual(z.info.htk_name(), "MFCC_0_D_A_Z")
        self.assertEqual(f.block(2).shape, (WAV_FRAMES, 13))
        self.assertEqual(i.column_names()[13 + 12], "d(c0)")
        # mean removed over the whole stream
        self.assertLess(float(np.abs(f.data.mean(axis=0)).max()), 1e-3)

    def test_preset_kaldi(self):
        f = afet.extract(WAV, pipeline="afetmfcc preset=kaldi")
        self.check_equal(f, "afetmfcc preset=kaldi")
        i = f.info
        self.assertEqual((i.preset, i.window, i.energy_index, i.c0_index,
                          i.dims), ("kaldi", "povey", 0, -1, 13))
        self.assertEqual(i.fields["filter-bank"], "kaldi")
        self.assertEqual(i.static_names()[:2], ["E", "c1"])

    def test_fbank_frequencies(self):
        f = afet.extract(WAV, pipeline="afetmfcc num-ceps=0 num-filters=40 "
                         "low-freq=100 high-freq=7000")
        hz = f.info.band_frequencies()
        self.assertEqual(len(hz), 40)
        self.assertTrue(np.all(np.diff(hz) > 0))
        self.assertTrue(100 < hz[0] < 200 and 6500 < hz[-1] < 7000)

    def test_resample(self):
        f = afet.extract(WAV, pipeline="afetmfcc", rate=8000)
        self.assertEqual((f.info.rate, f.info.frame_shift), (8000, 80))
        self.assertTrue(abs(len(f) - WAV_FRAMES) <= 1)

    def test_extractor_reuse(self):
        with afet.Extractor("afetmfcc num-ceps=0") as ex:
            a = ex(WAV)
            with self.assertRaises(afet.Error):
                ex(os.path.join(self.tmp, "missing.wav"))
            b = ex(WAV)           # works again after a failure
        self.assertTrue(np.array_equal(bits(a.data), bits(b.data)))
        self.assertEqual(a.info.kind, "fbank")

    def test_feature_files(self):
        htk = os.path.join(self.tmp, "s.htk")
        launch("filesrc", "location=" + WAV, "!", "wavparse", "!",
               "afetmfcc", "!", "afetdelta", "!", "afetenc", "!", "filesink",
               "location=" + htk)
        f = afet.read(htk)
        g = afet.extract(WAV, "afetmfcc ! afetdelta")
        self.assertEqual(f.info.htk_name(), "MFCC_0_D_A")
        self.assertTrue(np.array_equal(bits(f.data), bits(g.data)))

        npy = os.path.join(self.tmp, "s.npy")
        np.save(npy, g.data[:100])
        n = afet.read(npy)
        self.assertTrue(np.array_equal(n.data, g.data[:100]))
        self.assertEqual(n.info.kind, "user")

        arks = []
        for key, src in (("one", ["filesrc", "location=" + WAV, "!",
                                  "wavparse"]),
                         ("two", ["audiotestsrc", "num-buffers=10", "!",
                                  "audio/x-raw,rate=16000"])):
            arks.append(os.path.join(self.tmp, key + ".ark"))
            launch(*src, "!", "afetmfcc", "!", "afetenc", "format=kaldi",
                   "key=" + key, "!", "filesink", "location=" + arks[-1])
        both = os.path.join(self.tmp, "both.ark")
        with open(both, "wb") as out:
            for a in arks:
                with open(a, "rb") as f_in:
                    out.write(f_in.read())
        entries = afet.read_archive(both)
        self.assertEqual(list(entries), ["one", "two"])
        self.assertTrue(np.array_equal(bits(entries["one"].data),
                                       bits(afet.extract(WAV).data)))
        self.assertEqual(entries["two"].key, "two")
        with self.assertRaises(afet.Error):
            afet.read(both)       # two entries: read_archive's job

    def test_archive_entries(self):
        # 200 entries of 1..40 frames, written here: every key with its
        # own frames, in order (keys travel as tags beside the buffers)
        import struct
        rng = np.random.default_rng(7)
        path = os.path.join(self.tmp, "many.ark")
        mats = {}
        with open(path, "wb") as out:
            for i in range(200):
                m = rng.normal(size=(int(rng.integers(1, 41)), 5)).astype(
                    "<f4")
                key = "utt%03d" % i
                mats[key] = m
                out.write(key.encode() + b" \0BFM \4" +
                          struct.pack("<i", len(m)) + b"\4" +
                          struct.pack("<i", 5) + m.tobytes())
        entries = afet.read_archive(path)
        self.assertEqual(list(entries), list(mats))
        for key, m in mats.items():
            self.assertTrue(np.array_equal(entries[key].data, m), key)
            self.assertEqual(entries[key].key, key)

    def test_run_description(self):
        f = afet.run("audiotestsrc num-buffers=10 samplesperbuffer=1600 ! "
                     "audio/x-raw,rate=16000 ! afetmfcc")
        self.assertEqual(len(f), 1 + (16000 - 400) // 160)


def _seq(fmt, a, b):
    return [fmt % k for k in range(a, b)]


class Names(unittest.TestCase):
    """FeatureInfo's names come from the caps library
    (afet_features_info_htk_name, afet_features_info_column_name) through
    ctypes: the same names as the module gave when it computed them, for
    infos from caps and from make()."""

    # (make() arguments, htk_name(), column_names())
    LAYOUTS = [
        (dict(dims=13, kind="mfcc", c0_index=12), "MFCC_0",
         _seq("c%d", 1, 13) + ["c0"]),
        (dict(dims=39, kind="mfcc", c0_index=12, delta_order=2),
         "MFCC_0_D_A", [n % k for n in ("%s", "d(%s)", "dd(%s)") for k in
                        ["c%d" % j for j in range(1, 13)] + ["c0"]]),
        (dict(dims=13, kind="mfcc", energy_index=0), "MFCC_E",
         ["E"] + _seq("c%d", 1, 13)),
        (dict(dims=6, kind="plp", c0_index=0, energy_index=2,
              delta_order=1), "PLP_E_0_D",
         ["c0", "c1", "E", "d(c0)", "d(c1)", "d(E)"]),
        (dict(dims=24, kind="fbank", energy_index=0), "FBANK_E",
         ["E"] + _seq("ch%d", 1, 24)),
        (dict(dims=5, kind="spectrogram", energy_index=0), "SPECTROGRAM_E",
         ["E"] + _seq("bin%d", 1, 5)),
        (dict(dims=8, kind="user", delta_order=3), "USER_D_A_T",
         ["x0", "x1", "d(x0)", "d(x1)", "dd(x0)", "dd(x1)", "ddd(x0)",
          "ddd(x1)"]),
        (dict(dims=3, kind="frames"), "FRAMES", ["x0", "x1", "x2"]),
        (dict(dims=2, kind="traps"), "TRAPS", ["x0", "x1"]),
        # HTK's _Z: the mean removed from the statics but the energy
        (dict(dims=26, kind="mfcc", c0_index=12, delta_order=1,
              normalization="mean", normalization_columns="htk"),
         "MFCC_0_D_Z", None),
        (dict(dims=26, kind="mfcc", c0_index=12, delta_order=1,
              normalization="mean", normalization_columns="statics"),
         "MFCC_0_D_Z", None),
        # normalisations HTK has no letter for, in words
        (dict(dims=26, kind="mfcc", energy_index=12, delta_order=1,
              normalization="mean", normalization_columns="statics"),
         "MFCC_E_D (mean over statics)", None),
        (dict(dims=39, kind="mfcc", c0_index=12, delta_order=2,
              normalization="meanvar", normalization_columns="all"),
         "MFCC_0_D_A (meanvar over all)", None),
        (dict(dims=40, kind="fbank", normalization="minmax"),
         "FBANK (minmax over all)", _seq("ch%d", 1, 41)),
    ]

    def test_layouts(self):
        for args, htk, columns in self.LAYOUTS:
            i = afet.FeatureInfo.make(**args)
            self.assertEqual(i.htk_name(), htk, args)
            if columns is not None:
                self.assertEqual(i.column_names(), columns, args)
                self.assertEqual(i.static_names(), columns[:i.statics],
                                 args)
            self.assertEqual(len(i.column_names()), i.dims)

    def test_from_caps(self):
        i = afet.FeatureInfo.from_caps(
            "application/x-afet-features, format=(string)F32LE, "
            "kind=(string)mfcc, dims=(int)39, rate=(int)16000, "
            "frame-length=(int)400, frame-shift=(int)160, "
            "framerate=(fraction)100/1, statics=(int)13, c0-index=(int)-1, "
            "energy-index=(int)12, delta-order=(int)2, "
            "normalization=(string)mean, "
            "normalization-columns=(string)htk")
        self.assertEqual(i.htk_name(), "MFCC_E_D_A_Z")
        names = i.column_names()
        self.assertEqual(names[:2] + names[12:14] + names[-1:],
                         ["c1", "c2", "E", "d(c1)", "dd(E)"])

    def test_refused_layout(self):
        # a layout the caps library refuses is an afet.Error, not a guess
        i = afet.FeatureInfo.make(4, kind="mfcc", c0_index=1, energy_index=1)
        with self.assertRaises(afet.Error):
            i.htk_name()

    def test_library_missing(self):
        from afet import _capsapi
        with self.assertRaisesRegex(afet.Error, "caps library"):
            _capsapi._load("libafet-no-such-library.so.0")


def _extract_in_child(path):
    try:
        return "ok: %r" % afet.extract(path)
    except afet.Error as e:
        return "Error: %s" % e


class Errors(unittest.TestCase):
    def test_missing_file(self):
        path = "/nonexistent/afet-test.wav"
        with self.assertRaises(afet.NotFoundError) as cm:
            afet.extract(path)
        self.assertIsInstance(cm.exception, FileNotFoundError)
        self.assertIn(path, str(cm.exception))
        self.assertEqual(cm.exception.domain, "gst-resource-error-quark")

    def test_not_audio(self):
        with self.assertRaises(afet.Error) as cm:
            afet.extract(os.path.join(TOP, "README.md"))
        self.assertIn("decodebin", str(cm.exception))

    def test_unknown_element(self):
        with self.assertRaises(afet.Error) as cm:
            afet.extract(WAV, pipeline="afetmfcc ! afetnosuchelement")
        self.assertIn("afetnosuchelement", str(cm.exception))

    def test_refused_chain(self):
        # afetdelta refuses a stream that already has deltas
        with self.assertRaises(afet.Error) as cm:
            afet.extract(WAV, pipeline="afetmfcc ! afetdelta ! afetdelta")
        self.assertIn("delta", str(cm.exception))
        self.assertTrue(cm.exception.source.startswith("afetdelta"))

    def test_not_features(self):
        with self.assertRaises(afet.Error):
            afet.extract(WAV, pipeline="afetmfcc ! afetenc")
        with self.assertRaises(afet.Error):
            afet.run("audiotestsrc num-buffers=2 ! afetmfcc ! afetenc")

    def test_no_frames(self):
        # 200 samples: shorter than one 400-sample window
        desc = ("audiotestsrc num-buffers=1 samplesperbuffer=200 ! "
                "audio/x-raw,rate=16000 ! afetmfcc")
        with self.assertRaises(afet.NoFramesError):
            afet.run(desc)
        empty = afet.run(desc, allow_empty=True)
        self.assertEqual(empty.shape, (0, 13))

    def test_fork_after_use(self):
        # a child forked after afet ran would hang in its first pipeline
        # (the OpenCL context does not survive fork): it raises instead
        import multiprocessing
        afet.extract(WAV)
        with multiprocessing.get_context("fork").Pool(1) as pool:
            result = pool.apply(_extract_in_child, (WAV,))
        self.assertTrue(result.startswith("Error: ") and "spawn" in result,
                        result)

    def test_stream_error(self):
        with self.assertRaises(afet.Error):
            for _ in afet.stream("audiotestsrc is-live=true",
                                 "afetmfcc ! afetdelta ! afetdelta",
                                 timeout=30):
                pass


def run_child(code, timeout=60):
    """Runs code in a fresh /usr/bin/python3 (the environment's plugin and
    module; WAV and TOP defined); fails the test if it has not ended within
    timeout seconds (a hang), returns (exit status, output)."""
    prologue = "import os, sys\nWAV = %r\nTOP = %r\n" % (WAV, TOP)
    try:
        p = subprocess.run([sys.executable, "-c", prologue + code],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("hung: no end after %d s\n%s%s" % (
            timeout, e.stdout or "", e.stderr or "")) from None
    return p.returncode, p.stdout + p.stderr


class Robustness(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="afet-py-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_fifo_refused(self):
        # filesrc opens a FIFO in set_state, which blocks until a writer
        # comes: extract() refuses what is not a regular file up front
        fifo = os.path.join(self.tmp, "in.fifo")
        os.mkfifo(fifo)
        rc, out = run_child(
            "import afet\n"
            "for p in (%r, TOP, '/dev/null'):\n"
            "    try:\n"
            "        afet.extract(p, timeout=3)\n"
            "        print('no error for', p)\n"
            "    except afet.Error as e:\n"
            "        print('Error:', e)\n" % fifo)
        self.assertEqual(rc, 0, out)
        lines = out.strip().split("\n")
        self.assertEqual(len(lines), 3, out)
        for line, what in zip(lines, ("a FIFO", "a directory",
                                      "a character device")):
            self.assertTrue(line.startswith("Error: "), out)
            self.assertIn(what, line)
            self.assertIn("regular file", line)
            self.assertIn("stream(", line)

    def test_truncated_wav_refused(self):
        # a WAV file shorter than its header says was read to its end by
        # decodebin, silently; it is refused with the numbers and the way
        # on; a "to the end" length (0xFFFFFFFF, a writer that cannot
        # seek) is read as before
        import struct
        import wave
        with wave.open(WAV, "rb") as w:
            params = w.getparams()
            pcm = w.readframes(w.getnframes())
        whole = os.path.join(self.tmp, "whole.wav")
        with wave.open(whole, "wb") as w:
            w.setparams(params)
            w.writeframes(pcm)
        with open(whole, "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmp, "cut.wav")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        at = data.index(b"data") + 4
        stream = os.path.join(self.tmp, "stream.wav")
        with open(stream, "wb") as f:
            f.write(data[:at] + struct.pack("<I", 0xFFFFFFFF) + data[at + 4:])
        with self.assertRaises(afet.Error) as e:
            afet.extract(cut)
        self.assertIn("truncated WAV file", str(e.exception))
        self.assertIn("copy it again", str(e.exception))
        with afet.Extractor() as ex:
            self.assertRaises(afet.Error, ex, cut)
            self.assertEqual(ex(whole).data.shape, ex(stream).data.shape)

    def test_timeout_bounds_start(self):
        # a source that blocks in its state change (a FIFO without a
        # writer) ends with the timeout, not never
        fifo = os.path.join(self.tmp, "run.fifo")
        os.mkfifo(fifo)
        rc, out = run_child(
            "import afet\n"
            "try:\n"
            "    afet.run('filesrc location=%s ! decodebin ! audioconvert ! "
            "audioresample ! audio/x-raw,channels=1 ! afetmfcc', timeout=3)\n"
            "    print('no error')\n"
            "except afet.Error as e:\n"
            "    print('Error:', e)\n"
            "sys.stdout.flush()\n"
            "os._exit(0)\n" % fifo)
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.startswith("Error: timed out"), out)

    def test_fork_after_gst_use(self):
        # afet run through Gst directly, not through the module, then
        # fork: the child's first pipeline gets an error, not a hang
        rc, out = run_child(
            "import afet\n"
            "from gi.repository import Gst\n"
            "afet.init()\n"
            "p = Gst.parse_launch('audiotestsrc num-buffers=10 ! afetmfcc ! "
            "fakesink')\n"
            "p.set_state(Gst.State.PLAYING)\n"
            "p.get_bus().timed_pop_filtered(30 * Gst.SECOND, "
            "Gst.MessageType.EOS | Gst.MessageType.ERROR)\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    try:\n"
            "        afet.extract(WAV)\n"
            "        print('child: ok')\n"
            "    except afet.Error as e:\n"
            "        print('child: Error:', e)\n"
            "    sys.stdout.flush()\n"
            "    os._exit(0)\n"
            "import time\n"
            "for _ in range(400):\n"
            "    if os.waitpid(pid, os.WNOHANG)[0]:\n"
            "        break\n"
            "    time.sleep(0.1)\n"
            "else:\n"
            "    os.kill(pid, 9)\n"
            "    os.waitpid(pid, 0)\n"
            "    print('child: hung')\n"
            "p.set_state(Gst.State.NULL)\n", timeout=60)
        self.assertEqual(rc, 0, out)
        self.assertIn("child: Error:", out)
        self.assertIn("fork", out)
        self.assertIn("spawn", out)

    def test_extractor_threads(self):
        # one Extractor from 8 threads: every result is the file's own
        # (before the fix: 2-4 of 8 wrong, a double free or a hang; so in
        # a child)
        import wave
        with wave.open(WAV, "rb") as w:
            params = w.getparams()
            pcm = w.readframes(w.getnframes())
        paths = []
        for i in range(6):           # six files of different lengths
            path = os.path.join(self.tmp, "part%d.wav" % i)
            n = (12000 + 9000 * i) * params.sampwidth
            with wave.open(path, "wb") as w:
                w.setparams(params)
                w.writeframes(pcm[i * 2000:i * 2000 + n])
            paths.append(path)
        rc, out = run_child(
            "import threading, afet, numpy as np\n"
            "paths = %r\n"
            "wrong, errors = [], []\n"
            "with afet.Extractor('afetmfcc ! afetdelta') as ex:\n"
            "    want = {p: ex(p).data for p in paths}\n"
            "    def work(k):\n"
            "        try:\n"
            "            for j in range(12):\n"
            "                p = paths[(k + j) %% len(paths)]\n"
            "                got = ex(p).data\n"
            "                if got.shape != want[p].shape or not "
            "np.array_equal(got.view('u4'), want[p].view('u4')):\n"
            "                    wrong.append((k, p, got.shape))\n"
            "        except Exception as e:\n"
            "            errors.append(repr(e))\n"
            "    threads = [threading.Thread(target=work, args=(k,)) "
            "for k in range(8)]\n"
            "    for t in threads:\n"
            "        t.start()\n"
            "    for t in threads:\n"
            "        t.join()\n"
            "print('wrong', len(wrong), 'errors', errors)\n" % paths,
            timeout=120)
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.startswith("wrong 0 errors []"), out)

    def test_no_leak(self):
        # extract() and Extractor free their pipeline (its bus holds two
        # fds): no fd or pipeline left behind
        import gc

        def fds():
            return len(os.listdir("/proc/self/fd"))

        finalized, refs = [], []
        afet.extract(WAV)
        gc.collect()
        before = fds()
        for _ in range(300):
            afet.extract(WAV)
        gc.collect()
        self.assertLessEqual(fds() - before, 4)
        before = fds()
        for i in range(50):
            ex = afet.Extractor("afetmfcc")
            refs.append(ex._pipeline.weak_ref(finalized.append, i))
            if i % 2:
                ex(WAV)
            if i % 3 == 0:
                ex.close()
            elif i % 3 == 1:
                with ex:
                    pass
            del ex
        gc.collect()
        self.assertLessEqual(fds() - before, 4)
        self.assertEqual(len(finalized), 50, "pipelines left alive")

    def test_fd_limit(self):
        # a training loop at a low fd limit: 600 files
        rc, out = run_child(
            "import resource, afet\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))\n"
            "for i in range(600):\n"
            "    afet.extract(WAV)\n"
            "print('done', len(os.listdir('/proc/self/fd')))\n",
            timeout=300)
        self.assertEqual(rc, 0, out)
        # before the fix it ran out of fds: GStreamer's bus polls failed
        # (CRITICALs), then sources could not open their files
        self.assertFalse("CRITICAL" in out, out[:1000])
        self.assertTrue(out.startswith("done "), out)
        self.assertLess(int(out.split()[1]), 64, out)


class Live(unittest.TestCase):
    # 20 buffers of 800 samples at 16 kHz: one second, live
    SOURCE = ("audiotestsrc is-live=true num-buffers=20 samplesperbuffer=800"
              " ! audio/x-raw,rate=16000")
    FRAMES = 1 + (16000 - 400) // 160

    def test_blocks_as_they_come(self):
        t0 = time.monotonic()
        arrivals, blocks = [], []
        for block in afet.stream(self.SOURCE, pipeline="afetmfcc",
                                 timeout=60):
            arrivals.append(time.monotonic() - t0)
            blocks.append(block)
        n = sum(len(b) for b in blocks)
        self.assertEqual(n, self.FRAMES)
        self.assertGreater(len(blocks), 3, "frames came in one piece")
        # the first block came well before the last (the source is live:
        # one second of audio takes one second)
        self.assertGreater(arrivals[-1] - arrivals[0], 0.5)
        # in order, contiguous: block indices and frame times
        index = 0
        for b in blocks:
            self.assertEqual(b.index, index)
            index += len(b)
            self.assertEqual(b.data.shape[1], 13)
        times = np.concatenate([b.times for b in blocks])
        self.assertTrue(np.allclose(np.diff(times), 0.01, atol=1e-6))
        self.assertTrue(blocks[0].discont)
        # the same frames as the whole stream at once
        whole = afet.run(self.SOURCE.replace("is-live=true ", "") +
                         " ! afetmfcc")
        self.assertTrue(np.array_equal(
            bits(np.concatenate([b.data for b in blocks])), bits(whole.data)))

    def test_stop_drains(self):
        s = afet.stream("audiotestsrc is-live=true samplesperbuffer=800",
                        pipeline="afetmfcc ! afetdelta", rate=16000,
                        timeout=60)
        blocks, stopped_at = [], None
        with s:
            for block in s:
                blocks.append(block)
                got = sum(len(b) for b in blocks)
                if got >= 20 and stopped_at is None:
                    stopped_at = got
                    s.stop()
        self.assertIsNotNone(stopped_at)
        got = sum(len(b) for b in blocks)
        # afetdelta holds its last frames back (its windows look ahead)
        # until the end of stream that stop() sends: they still come
        self.assertGreater(got, stopped_at)
        self.assertEqual(got, s.frames)
        times = np.concatenate([b.times for b in blocks])
        self.assertTrue(np.allclose(np.diff(times), 0.01, atol=1e-6))
        self.assertEqual(s.info.dims, 39)
        self.assertEqual(s.pipeline.get_state(0)[1], Gst.State.NULL)

    def test_break_closes(self):
        s = afet.stream("audiotestsrc is-live=true", pipeline="afetmfcc",
                        rate=16000, timeout=60)
        for block in s:
            break
        self.assertEqual(s.pipeline.get_state(0)[1], Gst.State.NULL)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
