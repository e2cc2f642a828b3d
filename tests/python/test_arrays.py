#!/usr/bin/python3
# Tests of the Python module's in-memory audio: afet.extract on NumPy
# arrays, afet.extract_batch and the kept Extractor, against files.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of afet.extract(array), afet.extract_batch and afet.Extractor
on arrays.

  test_arrays.py [EXAMPLE_WAV]

An int16 array gives, bit for bit, the frames of the same chain on a WAV
file holding the same samples (several chains, 8 kHz, resampled by an
Extractor); float32/float64 arrays those of a float WAV of the same
samples, and, on the int16 grid (x / 32768, what audioconvert makes of an
int16 file, checked here too), those of the int16 file.  A batch of arrays
of different lengths runs its pipelines at once (checked: one pipeline's
sink waits until another's has frames), in input order, each result equal
to the array's own extract(), also when a lane takes its arrays back to
back in one run (silence beside speech, through framing, dither, deltas,
CMVN, pitch: nothing leaks; a chain that may keep state, an array a
run); the Extractor keeps its pipelines from call
to call and across threads; every array it cannot take is refused with an
afet.Error naming the cause and the fix.

Exits 77 (skipped) when PyGObject's GStreamer bindings or NumPy are
missing, unless CI is set (then it fails).  The plugin comes from the
environment (meson sets GST_PLUGIN_PATH_1_0 to the build's gst/).
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import unittest
import wave

try:
    import numpy as np
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print("%s: %s (needs python3-gi, gir1.2-gstreamer-1.0, python3-numpy)"
          % ("failed" if os.environ.get("CI") else "skipped", e))
    sys.exit(1 if os.environ.get("CI") else 77)

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))
import afet  # noqa: E402

WAV = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") \
    else os.path.join(TOP, "examples", "data", "speech-16k.wav")


def read_int16(path):
    with wave.open(path) as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2
        return np.frombuffer(w.readframes(w.getnframes()), "<i2").copy()


def write_wav(path, samples, rate):
    """A mono WAV of the samples as they are: PCM for int16, IEEE float
    (format 3) for float32/float64."""
    a = np.asarray(samples)
    tag = 1 if a.dtype.kind == "i" else 3
    data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    fmt = struct.pack("<HHIIHH", tag, 1, rate, rate * a.itemsize,
                      a.itemsize, 8 * a.itemsize)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    if tag == 3:
        body += b"fact" + struct.pack("<II", 4, len(a))
    body += b"data" + struct.pack("<I", len(data)) + data
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)


def bits(a):
    return np.ascontiguousarray(np.asarray(a), dtype="<f4").view("<u4")


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="afet-arrays-")
        cls.x = read_int16(WAV)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assertBitEqual(self, a, b, what=""):
        self.assertEqual(a.shape, b.shape, what)
        self.assertTrue(np.array_equal(bits(a), bits(b)),
                        "frames differ%s: max |d| %g" % (
                            " (%s)" % what if what else "",
                            np.abs(np.asarray(a) - np.asarray(b)).max()))

    def wav(self, name, samples, rate):
        path = os.path.join(self.tmp, name)
        write_wav(path, samples, rate)
        return path


class Arrays(Base):
    def test_int16_bit_equal_file(self):
        for chain in ("afetmfcc", "afetmfcc ! afetdelta ! afetcmvn",
                      "afetmfcc preset=kaldi", "afetmfcc preset=lhotse",
                      "afetplp"):
            f = afet.extract(WAV, pipeline=chain)
            a = afet.extract(self.x, rate=16000, pipeline=chain)
            self.assertBitEqual(a, f, chain)
            self.assertEqual(a.info, f.info)
            self.assertTrue(np.array_equal(a.times, f.times))
        # another rate: the array's own, nothing resampled
        x8 = self.x[::2].copy()
        path = self.wav("x8.wav", x8, 8000)
        f = afet.extract(path, pipeline="afetmfcc preset=kaldi")
        a = afet.extract(x8, rate=8000, pipeline="afetmfcc preset=kaldi")
        self.assertEqual(a.info.rate, 8000)
        self.assertBitEqual(a, f, "8 kHz")
        # a big-endian array is the same samples
        self.assertBitEqual(afet.extract(self.x.astype(">i2"), rate=16000),
                            afet.extract(WAV), "big-endian")

    def test_audioconvert_int16_to_float(self):
        # what audioconvert makes of an int16 file as float is x / 32768,
        # exactly: the float arrays below are the samples a float stage of
        # the file's chain would see
        for fmt, dt in (("F32LE", "<f4"), ("F64LE", "<f8")):
            out = os.path.join(self.tmp, "conv." + fmt)
            subprocess.run(
                ["gst-launch-1.0", "-q", "filesrc", "location=" + WAV, "!",
                 "wavparse", "!", "audioconvert", "dithering=none", "!",
                 "audio/x-raw,format=" + fmt, "!", "filesink",
                 "location=" + out], check=True, timeout=60)
            got = np.fromfile(out, dtype=dt)
            want = self.x.astype(dt) / 32768
            self.assertTrue(np.array_equal(got, want), fmt)

    def test_float_on_int16_grid(self):
        # soundfile's and lhotse's float of a 16-bit file: x / 32768 gives
        # the int16 file's frames, bit for bit
        f = afet.extract(WAV, pipeline="afetmfcc ! afetdelta")
        for dt in (np.float32, np.float64):
            a = afet.extract(self.x.astype(dt) / 32768, rate=16000,
                             pipeline="afetmfcc ! afetdelta")
            self.assertBitEqual(a, f, np.dtype(dt).name)

    def test_float_wav_bit_equal(self):
        # floats off the int16 grid: the frames of a float WAV holding the
        # same samples
        r = np.random.RandomState(1)
        x = (self.x / 32768 + r.uniform(-1e-4, 1e-4, len(self.x))) * 0.9
        for dt in (np.float32, np.float64):
            s = x.astype(dt)
            path = self.wav("f%d.wav" % (8 * s.itemsize), s, 16000)
            f = afet.extract(path, pipeline="afetmfcc preset=lhotse")
            a = afet.extract(s, rate=16000, pipeline="afetmfcc preset=lhotse")
            self.assertBitEqual(a, f, np.dtype(dt).name)

    def test_extractor_rate_resamples(self):
        # Extractor(rate=R) resamples arrays as it resamples files
        with afet.Extractor("afetmfcc", rate=8000) as ex:
            a = ex(self.x, rate=16000)
            f = ex(WAV)
        self.assertEqual(a.info.rate, 8000)
        self.assertBitEqual(a, f, "resampled to 8 kHz")
        self.assertBitEqual(f, afet.extract(WAV, rate=8000))

    def test_no_frames(self):
        short = self.x[:300]          # shorter than the 400-sample window
        with self.assertRaises(afet.NoFramesError) as cm:
            afet.extract(short, rate=16000)
        self.assertIn("300 samples at 16000 Hz", str(cm.exception))
        empty = afet.extract(short, rate=16000, allow_empty=True)
        self.assertEqual(empty.shape, (0, 13))


class Refusals(Base):
    def refused(self, pattern, fn, *args, **kw):
        with self.assertRaisesRegex(afet.Error, pattern):
            fn(*args, **kw)

    def test_refusals(self):
        x = self.x.astype(np.float32) / 32768
        ex = afet.extract
        self.refused(r"shape \(75914, 2\).*mono.*x\[:, 0\]", ex,
                     np.stack([x, x], axis=1), rate=16000)
        self.refused(r"shape \(1, 75914\).*1-D", ex, x[None], rate=16000)
        self.refused(r"shape \(75914, 1\).*reshape", ex, x[:, None],
                     rate=16000)
        self.refused(r"0-d array", ex, np.array(0.5, np.float32), rate=16000)
        self.refused(r"not float32.*numpy.asarray", ex, np.float32(0.5),
                     rate=16000)
        self.refused(r"empty \(0 samples\)", ex, x[:0], rate=16000)
        bad = x.copy()
        bad[1600] = np.nan
        bad[2000] = np.inf
        self.refused(r"2 NaN or infinite samples \(the first at index "
                     r"1600, 0.1 s\).*nan_to_num", ex, bad, rate=16000)
        self.refused(r"rate= is missing.*rate=16000", ex, x)
        self.refused(r"rate= is missing", afet.extract_batch, [x], None)
        for r in (0, -8000, 16000.5, "16000", True):
            self.refused(r"rate=.*sampling rate in Hz", ex, x, rate=r)
        for dt in (np.int32, np.uint8, np.complex64, np.bool_, np.float16,
                   object):
            self.refused(r"dtype .*int16 samples, or float32/float64", ex,
                         np.zeros(16000, dtype=dt), rate=16000)
        self.refused(r"up to 28851.*int16-scale.*32768", ex,
                     self.x.astype(np.float32), rate=16000)
        self.refused(r"not list.*numpy.asarray", ex, list(x[:1000]),
                     rate=16000)
        self.refused(r"list of 1-D arrays, got one array", afet.extract_batch,
                     x, 16000)
        self.refused(r"arrays\[1\] is list", afet.extract_batch,
                     [x, [0.0] * 1000], 16000)
        self.refused(r"arrays\[2\] is empty", afet.extract_batch,
                     [x, x, x[:0]], 16000)
        with afet.Extractor() as e:
            self.refused(r"rate=8000 with a file.*Extractor\(rate=",
                         e.extract, WAV, rate=8000)
        self.refused(r"streams=0", afet.Extractor, streams=0)
        # a rate the chain cannot frame: the element's message
        self.refused(r"frame-shift 0.100 ms give 200 / 0 samples at 8000",
                     ex, x, rate=8000, pipeline="afetmfcc frame-shift=0.1")

    def test_rate_outside_elements_range(self):
        # below the elements' 8 kHz, audioresample brings it up, as it does
        # for a file; info.rate says so
        self.assertEqual(afet.extract(self.x[::4].copy(),
                                      rate=4000).info.rate, 8000)

    def test_float_range(self):
        # floats beyond +-1 but near it (clipping, augmentation) are taken
        # as they are
        x = self.x.astype(np.float64) / 32768 * 1.5
        self.assertEqual(len(afet.extract(x, rate=16000)), 472)


class Batch(Base):
    LENGTHS = (75914, 400, 1000, 30000, 5000, 399 + 160 * 63, 16000, 800,
               12345, 640, 48000, 3000)

    def arrays(self):
        out = []
        for i, n in enumerate(self.LENGTHS):
            a = self.x[i * 97:i * 97 + n] if i * 97 + n <= len(self.x) \
                else self.x[:n]
            out.append(a.astype(np.float32) / 32768 if i % 3 == 1 else a)
        return out

    def test_batch_bit_equal_alone(self):
        arrays = self.arrays()
        chain = "afetmfcc ! afetdelta"
        got = afet.extract_batch(arrays, 16000, pipeline=chain, streams=4)
        self.assertEqual(len(got), len(arrays))
        for i, (a, g) in enumerate(zip(arrays, got)):
            alone = afet.extract(a, rate=16000, pipeline=chain)
            self.assertBitEqual(g, alone, "arrays[%d], %d samples" %
                                (i, len(a)))
            self.assertTrue(np.array_equal(g.times, alone.times))
        self.assertEqual(afet.extract_batch([], 16000), [])

    def test_batch_concurrent(self):
        # lane 0's sink holds its first buffer until lane 1's sink has had
        # one: run one after the other, lane 0 would wait out the timeout
        arrays = [self.x, self.x[:40000]]
        seen = [threading.Event(), threading.Event()]
        waited = []
        with afet.Extractor("afetmfcc", streams=2) as ex:
            lanes = ex._lanes_for(2)

            def probe(k):
                def on_buffer(pad, info):
                    seen[k].set()
                    if k == 0 and not waited:
                        waited.append(seen[1].wait(60))
                    return Gst.PadProbeReturn.OK
                return on_buffer
            pads = []
            for k, lane in enumerate(lanes):
                pad = lane.sink.get_static_pad("sink")
                pads.append((pad, pad.add_probe(Gst.PadProbeType.BUFFER,
                                                probe(k))))
            got = ex.extract_batch(arrays, 16000)
            for pad, pid in pads:
                pad.remove_probe(pid)
        self.assertEqual(waited, [True], "the two pipelines did not run "
                         "at the same time")
        self.assertEqual([len(g) for g in got], [472, 248])

    def test_batch_failure_named(self):
        arrays = [self.x, self.x[:16000], self.x[:200], self.x[:8000]]
        with afet.Extractor(streams=2) as ex:
            with self.assertRaises(afet.NoFramesError) as cm:
                ex.extract_batch(arrays, 16000)
            self.assertEqual(cm.exception.index, 2)
            self.assertIn("arrays[2] of 4: arrays[2] (200 samples at "
                          "16000 Hz) produced no frames", str(cm.exception))
            # the Extractor goes on, with the same pipelines
            builds = ex._builds
            got = ex.extract_batch(arrays, 16000, allow_empty=True)
            self.assertEqual([len(g) for g in got], [472, 98, 0, 48])
            self.assertEqual(ex._builds, builds)


class BackToBack(Base):
    """A lane takes its arrays back to back in one run (a DISCONT buffer
    each): nothing of one array may reach the next one's frames."""

    CHAINS = ("afetmfcc", "afetmfcc preset=lhotse num-ceps=0 "
              "num-filters=80", "afetmfcc dither=1 ! afetdelta",
              "afetmfcc ! afetcmvn", "afetmfcc ! afetcmvn scope=running",
              "afetmfcc ! afetcmvn scope=sliding cmn-window=50",
              "afetplp preset=kaldi ! afetdelta", "afetmfcc preset=whisper",
              "afetpitch")

    def arrays(self):
        # silence, then loud, then silence...: a frame that reads the
        # array before it (a window, context, statistics, the dither's
        # position) differs from the array's own extract
        x = self.x
        out = []
        for k, n in enumerate((16000, 9000, 4000, 30000, 7000, 12345)):
            if k % 2 == 0:
                out.append(np.zeros(n, np.int16))
            else:
                out.append(x[:n].copy())
        out[2] = (out[2].astype(np.float32) + 3) / 32768     # a 2nd format
        return out

    def test_no_leak(self):
        arrays = self.arrays()
        for chain in self.CHAINS:
            with afet.Extractor(chain, streams=2) as ex:
                self.assertTrue(ex._back_to_back, chain)
                # the runs the lanes' sources began: one a lane and format
                runs = []

                def on_event(pad, info):
                    if info.get_event().type == Gst.EventType.STREAM_START:
                        runs.append(pad)
                    return Gst.PadProbeReturn.OK
                for lane in ex._lanes_for(2):
                    lane.conv.get_static_pad("sink").add_probe(
                        Gst.PadProbeType.EVENT_DOWNSTREAM, on_event)
                got = ex.extract_batch(arrays, 16000)
                self.assertEqual(len(runs), 3, chain)
                for i, (a, g) in enumerate(zip(arrays, got)):
                    alone = afet.extract(a, rate=16000, pipeline=chain)
                    self.assertBitEqual(g, alone, "%s: arrays[%d]" %
                                        (chain, i))
                    self.assertTrue(np.array_equal(g.times, alone.times),
                                    chain)

    def test_not_back_to_back(self):
        # a chain with an element that may keep state over a DISCONT, one
        # that writes at end-of-stream, and a resampling Extractor: an
        # array a run, as before
        x = self.x[:8000]
        for chain in ("audioamplify amplification=0.5 ! afetmfcc",
                      "afetmfcc ! afetcmvn key=u write-stats=%s" %
                      os.path.join(self.tmp, "stats.ark")):
            with afet.Extractor(chain) as ex:
                self.assertFalse(ex._back_to_back, chain)
                got = ex.extract_batch([x, x[:4000]], 16000)
                self.assertBitEqual(got[1], afet.extract(
                    x[:4000], rate=16000, pipeline=chain), chain)
        with afet.Extractor("afetmfcc", rate=8000) as ex:
            got = ex.extract_batch([x, x[:4000]], 16000)
            self.assertBitEqual(got[1], ex(x[:4000], rate=16000))


class Kept(Base):
    def test_pipelines_reused(self):
        x = self.x
        with afet.Extractor("afetmfcc ! afetdelta", streams=3) as ex:
            self.assertEqual(ex._builds, 1)         # the file pipeline
            first = ex(x, rate=16000)
            lane = ex._lanes[0]
            pipeline = lane.pipeline
            self.assertEqual(ex._builds, 2)
            file_pipeline = ex._pipeline
            for _ in range(3):
                self.assertBitEqual(ex(x, rate=16000), first)
                self.assertBitEqual(ex.extract(x.astype(np.float32) / 32768,
                                               rate=16000), first)
                self.assertBitEqual(ex(WAV), first)
            self.assertIs(ex._lanes[0], lane)
            self.assertIs(lane.pipeline, pipeline)
            self.assertIs(ex._pipeline, file_pipeline)
            self.assertEqual(ex._builds, 2)
            ex.extract_batch([x, x[:9000], x[:20000]], 16000)
            self.assertEqual(ex._builds, 4)         # two more lanes
            pipelines = [ln.pipeline for ln in ex._lanes]
            for _ in range(2):
                got = ex.extract_batch([x[:5000], x, x[:20000], x[:700]],
                                       16000)
                self.assertBitEqual(got[1], first)
            self.assertEqual([ln.pipeline for ln in ex._lanes], pipelines)
            self.assertEqual(ex._builds, 4)
        with self.assertRaisesRegex(afet.Error, "closed"):
            ex(x, rate=16000)
        with self.assertRaisesRegex(afet.Error, "closed"):
            ex.extract_batch([x], 16000)

    def test_after_failure(self):
        # an array the chain refuses (0.1 ms shift: no whole sample at
        # 8 kHz) fails, and the next array at a rate it takes works on the
        # same pipeline (appsrc kept the refused caps and failed it too)
        chain = "afetmfcc frame-shift=0.1"
        x = self.x[:16000]
        with afet.Extractor(chain) as ex:
            first = ex(x, rate=16000)
            pipeline = ex._lanes[0].pipeline
            for _ in range(2):
                with self.assertRaisesRegex(afet.Error, "at 8000 Hz"):
                    ex(x[::2].copy(), rate=8000)
                self.assertBitEqual(ex(x, rate=16000), first)
                with self.assertRaisesRegex(afet.Error, "at 8000 Hz"):
                    ex.extract_batch([x, x[::2].copy()], 8000)
                self.assertBitEqual(ex.extract_batch([x], 16000)[0], first)
            self.assertIs(ex._lanes[0].pipeline, pipeline)
            self.assertEqual(ex._builds, 3)

    def test_threads(self):
        # calls from several threads take turns, each result its own
        x = self.x
        inputs = [x[:n] for n in (75914, 20000, 5000, 1234, 48000)]
        want = [afet.extract(a, rate=16000).data for a in inputs]
        failures = []
        with afet.Extractor(streams=2) as ex:
            def worker(seed):
                r = np.random.RandomState(seed)
                try:
                    for _ in range(6):
                        if r.rand() < 0.5:
                            i = r.randint(len(inputs))
                            got = [ex(inputs[i], rate=16000)]
                            idx = [i]
                        else:
                            idx = list(r.permutation(len(inputs))[:3])
                            got = ex.extract_batch([inputs[i] for i in idx],
                                                   16000)
                        for i, g in zip(idx, got):
                            if not np.array_equal(bits(g), bits(want[i])):
                                failures.append((seed, i))
                except Exception as e:     # noqa: BLE001
                    failures.append((seed, repr(e)))
            ts = [threading.Thread(target=worker, args=(s,))
                  for s in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(120)
            self.assertFalse(any(t.is_alive() for t in ts), "hung")
            self.assertLessEqual(len(ex._lanes), 2)
        self.assertEqual(failures, [])


class KeptRuns(Base):
    """extract() of an array keeps its lane's run going from call to call
    (arrays.KeptRun: a DISCONT buffer and afet's drain event an array):
    each result bit for bit what a run of its own gives (an Extractor with
    a timeout runs an array a run, as before)."""

    def stream_starts(self, ex):
        runs = []

        def on_event(pad, info):
            if info.get_event().type == Gst.EventType.STREAM_START:
                runs.append(pad)
            return Gst.PadProbeReturn.OK
        ex._lanes_for(1)[0].conv.get_static_pad("sink").add_probe(
            Gst.PadProbeType.EVENT_DOWNSTREAM, on_event)
        return runs

    def test_bit_equal_alone(self):
        arrays = BackToBack.arrays(self)
        # formats int16, int16, float32, int16, int16, int16, twice over
        for chain in BackToBack.CHAINS:
            with afet.Extractor(chain) as ex, \
                    afet.Extractor(chain, timeout=600) as alone:
                self.assertEqual(ex._keeps_runs, chain != "afetpitch",
                                 chain)
                runs = self.stream_starts(ex)
                for rep in range(2):
                    for i, a in enumerate(arrays):
                        got = ex(a, rate=16000)
                        want = alone(a, rate=16000)
                        what = "%s: arrays[%d], pass %d" % (chain, i, rep)
                        self.assertBitEqual(got, want, what)
                        self.assertTrue(np.array_equal(got.times,
                                                       want.times), what)
                        self.assertEqual(got.info, want.info, what)
                # a run a format change: 5 runs for 12 arrays (afetpitch:
                # a run each)
                self.assertEqual(len(runs), 5 if ex._keeps_runs else 12,
                                 chain)
                self.assertIsNone(alone._lanes[0].kept, chain)
                if ex._keeps_runs:        # each drain forgotten once used
                    self.assertEqual(len(ex._lanes[0].kept.drains), 0)

    def test_no_frames_and_others_between(self):
        x = self.x
        with afet.Extractor("afetmfcc ! afetdelta") as ex:
            first = ex(x, rate=16000)
            lane = ex._lanes[0]
            self.assertIsNotNone(lane.kept)
            for _ in range(2):
                with self.assertRaises(afet.NoFramesError) as cm:
                    ex(x[:300], rate=16000)
                self.assertIn("the array (300 samples at 16000 Hz) "
                              "produced no frames", str(cm.exception))
                empty = ex(x[:300], rate=16000, allow_empty=True)
                self.assertEqual(empty.shape, (0, 39))
                self.assertBitEqual(ex(x, rate=16000), first)
                # a batch and a file between kept calls end the kept run
                got = ex.extract_batch([x[:9000], x], 16000)
                self.assertBitEqual(got[1], first)
                self.assertIsNone(lane.kept)
                self.assertBitEqual(ex(WAV), first)
                self.assertBitEqual(ex(x, rate=16000), first)
                self.assertIsNotNone(lane.kept)
            self.assertEqual(ex._builds, 3)      # the file's and 2 lanes


class KeptRunsFailures(Base):
    """What a kept run must not do: hide an error posted at an array's
    end, lose what a resampler holds back, or give a later call an
    interrupted array's frames (each found by a review of the change)."""

    def test_error_at_the_drain(self):
        # identity fails the chain's third buffer, which the drain pushes:
        # the error, as a run of its own gives it, never short frames
        chain = "afetmfcc max-batch=50 ! identity error-after=2"
        x = self.x[:16000]
        with afet.Extractor(chain) as ex:
            for _ in range(2):
                with self.assertRaisesRegex(afet.Error,
                                            "Failed after iterations"):
                    ex(x, rate=16000)
                with self.assertRaisesRegex(afet.Error,
                                            "Failed after iterations"):
                    ex(x, rate=16000, allow_empty=True)

    def test_resampling_chain_not_kept(self):
        # a capsfilter in the chain makes audioresample work, which ends
        # its work only at end-of-stream: such a format is run alone
        chain = "capsfilter caps=audio/x-raw,rate=8000 ! afetmfcc"
        x = self.x
        with afet.Extractor(chain) as ex, \
                afet.Extractor(chain, timeout=600) as alone:
            for n in (16000, 11520, 16000):
                self.assertBitEqual(ex(x[:n], rate=16000),
                                    alone(x[:n], rate=16000), chain)
            self.assertEqual(len(ex._lanes[0].unkept), 1)
            self.assertIsNone(ex._lanes[0].kept)

    def test_interrupted_between_buffer_and_drain(self):
        from afet import arrays
        x = self.x
        with afet.Extractor("afetmfcc") as ex:
            ex(x[:16000], rate=16000)
            feed = arrays.KeptRun.feed

            def interrupted(kept, src, item):
                feed(kept, src, item)
                raise KeyboardInterrupt     # as if Ctrl-C came just then
            arrays.KeptRun.feed = interrupted
            try:
                with self.assertRaises(KeyboardInterrupt):
                    ex(x[:16000], rate=16000)
            finally:
                arrays.KeptRun.feed = feed
            self.assertIsNone(ex._lanes[0].kept)
            got = ex(x[:8000], rate=16000)
            self.assertBitEqual(got, afet.extract(x[:8000], rate=16000,
                                                  timeout=600))


class KeptRunsLimits(Base):
    """Chains a kept run must leave alone or survive (a second review)."""

    def test_end_of_stream_in_the_chain(self):
        # identity ends the stream after its third buffer: the kept run
        # sees end-of-stream instead of a drain and the array runs alone
        # (it waited for ever)
        chain = "identity eos-after=3 ! afetmfcc"
        x = self.x
        with afet.Extractor(chain) as ex, \
                afet.Extractor(chain, timeout=600) as alone:
            for n in (16000, 12000, 16000, 9000, 16000):
                self.assertBitEqual(ex(x[:n], rate=16000),
                                    alone(x[:n], rate=16000), chain)

    def test_not_kept(self):
        # identity sync=true waits on the clock for arrays 60 s apart in
        # stream time; afetcmvn reads its statistics file at each start
        for chain in ("identity sync=true ! afetmfcc",
                      "afetmfcc ! afetcmvn scope=archive stats-archive=%s "
                      "key=spk" % os.path.join(self.tmp, "none.ark")):
            with afet.Extractor(chain) as ex:
                self.assertFalse(ex._keeps_runs, chain)
        with afet.Extractor("identity sync=true ! afetmfcc") as ex:
            self.assertFalse(ex._back_to_back)

    def test_warning_attached(self):
        # a warning posted while an array goes through comes with that
        # array's result, and the run goes on (the engine's warning about
        # a cache folder others can write comes once a process)
        cache = os.path.join(self.tmp, "open-cache")
        os.makedirs(cache, exist_ok=True)
        os.chmod(cache, 0o777)
        code = ("import sys; sys.path.insert(0, %r); import afet, numpy as np\n"
                "ex = afet.Extractor('afetmfcc')\n"
                "x = (np.arange(16000) %% 200 - 100).astype(np.int16)\n"
                "for i in range(3):\n"
                "    f = ex(x, rate=16000)\n"
                "    print(len(f.warnings), ex._lanes[0].kept is not None,"
                " len(ex._lanes[0].unkept))\n" % os.path.join(TOP, "python"))
        env = dict(os.environ, AFET_CACHE_DIR=cache)
        p = subprocess.run([sys.executable, "-c", code], env=env,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.stdout.split("\n")[:3],
                         ["1 True 0", "0 True 0", "0 True 0"],
                         p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + [a for a in sys.argv[1:]
                                         if a.startswith("-")])
