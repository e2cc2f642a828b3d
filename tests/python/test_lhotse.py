#!/usr/bin/python3
# Tests of afet.lhotse: afet's extractors against lhotse's own Fbank and
# Mfcc, and in lhotse's CutSet.compute_and_store_features(_batch).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of afet.lhotse (AfetFbank, AfetMfcc, AfetPlp, AfetWhisperFbank).

  test_lhotse.py [EXAMPLE_WAV] [-v]

- extract() of the recordings in tests/data/audio (8, 16, 44.1 kHz) and of
  synthetic audio of many lengths against lhotse's own Fbank (80 bins) and
  Mfcc (13) on the same samples: relative L2 <= 1e-4 over each matrix, the
  same number of frames (the measured worst is printed);
- AfetWhisperFbank on the recordings against Whisper's formula
  (tests/data/whisper, 80 and 128 mels), lhotse's zero frames after;
- extract_batch() of arrays of different lengths, of a padded tensor with
  lengths, of torch tensors: each item bit-equal to its own extract();
- frame_shift and feature_dim against what extract() gives, for every
  extractor and the options that change the columns;
- CutSet.compute_and_store_features and compute_and_store_features_batch
  (collated and not, data loader workers forked): cut.load_features() bit-equal to the extractor's
  extract() of cut.load_audio(), and lhotse's manifests valid (with
  LilcomChunkyWriter, icefall's, within lilcom's rounding); the same
  features from the config's chain on the WAV file (serving in
  GStreamer); lhotse's OnTheFlyFeatures (training without stored
  features) pads afet's batch;
- the config's round trip (to_dict / from_dict, pickling), registration
  with lhotse, and the refusals (several channels, Whisper off 16 kHz, a
  preset afet has not for the kind).

Runs under a python3 that has lhotse and torch: this one, or the venv
tools/install-deps.sh makes (AFET_LHOTSE_VENV, /opt/afet-lhotse), which
it re-runs itself in. Without them it exits 77 (skipped), or fails when CI
is set. AFET_TEST_DEVICE picks afet's device (tests/device/lhotse.sh).
"""

import os
import pickle
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from lhotse_env import need_lhotse  # noqa: E402

need_lhotse(__file__)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import lhotse  # noqa: E402
from lhotse import (CutSet, Fbank, FbankConfig, Mfcc, MfccConfig,  # noqa
                    NumpyFilesWriter, Recording, RecordingSet)
from lhotse.features.base import get_extractor_type  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "python"))
import afet  # noqa: E402
from afet.lhotse import (AfetFbank, AfetFbankConfig, AfetMfcc,  # noqa: E402
                         AfetMfccConfig, AfetPlp, AfetPlpConfig,
                         AfetWhisperConfig, AfetWhisperFbank)

AUDIO = os.path.join(TOP, "tests", "data", "audio")
DEVICE = os.environ.get("AFET_TEST_DEVICE", "auto")
TOLERANCE = 1e-4
worst = {}          # (kind, where) -> worst relative L2, printed at the end


def rel_l2(a, b):
    return float(np.linalg.norm(a.astype(np.float64) - b) /
                 np.linalg.norm(b.astype(np.float64)))


def note(key, err):
    worst[key] = max(worst.get(key, 0.0), err)


def synthetic(n, rate, seed):
    """Noise and a gliding tone at speech level, in [-1, 1)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / rate
    x = 0.3 * np.sin(2 * np.pi * (200 + 900 * t) * t) + \
        0.05 * rng.standard_normal(n)
    return np.clip(x, -1, 0.999).astype(np.float32)


def recording(name):
    return Recording.from_file(os.path.join(AUDIO, name))


def fbank(**kw):
    return AfetFbank(AfetFbankConfig(device=DEVICE, **kw))


def mfcc(**kw):
    return AfetMfcc(AfetMfccConfig(device=DEVICE, **kw))


class AgainstLhotse(unittest.TestCase):
    """afet's numbers against lhotse's own extractors."""

    def compare(self, ours, theirs, x, rate, kind, where):
        a = ours.extract(x, rate)
        b = theirs.extract(x, rate)
        self.assertEqual(a.shape, b.shape, "%s %s" % (kind, where))
        self.assertEqual(a.dtype, np.float32)
        err = rel_l2(a, b)
        note((kind, where), err)
        self.assertLessEqual(err, TOLERANCE, "%s %s: rel L2 %g" %
                             (kind, where, err))

    def test_recordings(self):
        for name in sorted(os.listdir(AUDIO)):
            if not name.endswith(".wav"):
                continue
            rec = recording(name)
            rate = rec.sampling_rate
            x = rec.load_audio()            # (1, samples) float32, lhotse's
            self.compare(fbank(num_filters=80),
                         Fbank(FbankConfig(num_filters=80,
                                           sampling_rate=rate)),
                         x, rate, "fbank 80", "tests/data/audio")
            self.compare(mfcc(), Mfcc(MfccConfig(sampling_rate=rate)),
                         x, rate, "mfcc 13", "tests/data/audio")

    def test_synthetic(self):
        theirs_f = Fbank(FbankConfig(num_filters=80))
        theirs_m = Mfcc(MfccConfig())
        ours_f, ours_m = fbank(), mfcc()
        for i, n in enumerate((400, 401, 1234, 4000, 16000, 16077, 48000)):
            x = synthetic(n, 16000, i)
            self.compare(ours_f, theirs_f, x, 16000, "fbank 80", "synthetic")
            self.compare(ours_m, theirs_m, x, 16000, "mfcc 13", "synthetic")

    def test_options(self):
        # the options a recipe changes, each against lhotse's same option
        x = synthetic(20000, 16000, 7)
        for kw in (dict(num_filters=40, low_freq=60.0, high_freq=-200.0),
                   dict(frame_length=0.032, frame_shift=0.02),
                   dict(window_type="hamming", preemph_coeff=0.9,
                        remove_dc_offset=False),
                   dict(use_fft_mag=True)):
            self.compare(fbank(**kw), Fbank(FbankConfig(**kw)), x, 16000,
                         "fbank options", "synthetic")
        # (lhotse 1.33's Mfcc fails with cepstral_lifter=0: an int where
        # its layer wants a tensor)
        self.compare(mfcc(num_ceps=20, num_filters=40, cepstral_lifter=30),
                     Mfcc(MfccConfig(num_ceps=20, num_filters=40,
                                     cepstral_lifter=30)),
                     x, 16000, "mfcc options", "synthetic")

    def test_mfcc_energy(self):
        # lhotse 1.33's Mfcc(use_energy=True) fails on its own (Wav2MFCC
        # writes the energy with mfcc[:, 0], the batch's axis): the
        # reference is its Fbank's energy column and its Mfcc's cepstra
        x = synthetic(16000, 16000, 3)
        energy = Fbank(FbankConfig(use_energy=True)).extract(x, 16000)[:, :1]
        ceps = Mfcc(MfccConfig()).extract(x, 16000)[:, 1:]
        b = np.concatenate([energy, ceps], axis=1)
        a = mfcc(use_energy=True).extract(x, 16000)
        self.assertEqual(a.shape, b.shape)
        err = rel_l2(a, b)
        note(("mfcc 13 energy", "synthetic"), err)
        self.assertLessEqual(err, TOLERANCE)


class Batches(unittest.TestCase):
    """extract_batch: variable lengths, padded tensors, tensors."""

    def test_list_of_lengths(self):
        ex = fbank()
        xs = [synthetic(n, 16000, n) for n in (16000, 3000, 777, 24011, 160)]
        got = ex.extract_batch(xs, 16000)
        self.assertIsInstance(got, list)
        for x, g in zip(xs, got):
            np.testing.assert_array_equal(g, ex.extract(x, 16000))
        # against lhotse's extract() of each: its extract_batch() zero-pads
        # the batch, so its shorter items' last frames differ from its own
        # extract() (1.8e-2 here); afet's batch is each item alone
        theirs = Fbank(FbankConfig(num_filters=80))
        for x, g in zip(xs, got):
            t = theirs.extract(x, 16000)
            self.assertEqual(g.shape, t.shape)
            err = rel_l2(g, t)
            note(("fbank 80 batch", "synthetic"), err)
            self.assertLessEqual(err, TOLERANCE)
        # a batch of one with lengths is a list too (stored per cut)
        one = ex.extract_batch(torch.from_numpy(xs[0])[None, :], 16000,
                               lengths=torch.tensor([16000]))
        self.assertEqual(len(one), 1)

    def test_padded_with_lengths(self):
        ex = mfcc()
        lens = [8000, 16000, 5000]
        xs = [synthetic(n, 16000, n) for n in lens]
        pad = torch.zeros(3, 16000)
        for i, x in enumerate(xs):
            pad[i, :len(x)] = torch.from_numpy(x)
        got = ex.extract_batch(pad, 16000, lengths=torch.tensor(lens))
        self.assertEqual(len(got), 3)
        for x, g in zip(xs, got):
            self.assertIsInstance(g, torch.Tensor)
            np.testing.assert_array_equal(g.numpy(), ex.extract(x, 16000))

    def test_tensors_and_channels_first(self):
        ex = fbank()
        x = synthetic(9000, 16000, 9)
        t = ex.extract(torch.from_numpy(x)[None, :], 16000)
        self.assertIsInstance(t, torch.Tensor)
        np.testing.assert_array_equal(t.numpy(), ex.extract(x, 16000))
        # equal lengths stack, as lhotse's extract_batch does
        same = ex.extract_batch(np.stack([x, x]), 16000)
        self.assertEqual(same.shape, (2,) + t.shape)

    def test_kept_pipelines(self):
        ex = fbank()
        ex.extract(synthetic(4000, 16000, 1), 16000)
        kept = ex._afet
        ex.extract_batch([synthetic(4000, 16000, 2)] * 3, 16000)
        self.assertIs(ex._afet, kept)


class Dimensions(unittest.TestCase):
    """frame_shift and feature_dim say what extract() gives."""

    def test_dims(self):
        x = synthetic(12345, 16000, 5)
        cases = [
            (fbank(), 80, 0.01),
            (fbank(num_filters=40, use_energy=True), 41, 0.01),
            (fbank(preset="kaldi"), 23, 0.01),
            (fbank(frame_shift=0.02, frame_length=0.05), 80, 0.02),
            (mfcc(), 13, 0.01),
            (mfcc(use_energy=True), 13, 0.01),
            (mfcc(num_ceps=20, num_filters=40), 20, 0.01),
            (mfcc(preset="kaldi"), 13, 0.01),
            (AfetPlp(AfetPlpConfig(device=DEVICE)), 13, 0.01),
            (AfetPlp(AfetPlpConfig(device=DEVICE, use_energy=False)), 13,
             0.01),
            (AfetWhisperFbank(AfetWhisperConfig(device=DEVICE)), 80, 0.01),
            (AfetWhisperFbank(AfetWhisperConfig(device=DEVICE,
                                                num_filters=128)), 128, 0.01),
        ]
        for ex, dim, shift in cases:
            what = ex.config.pipeline()
            self.assertEqual(ex.feature_dim(16000), dim, what)
            self.assertEqual(ex.frame_shift, shift, what)
            f = ex.extract(x, 16000)
            # lhotse's frame count for the cut: round(samples / shift)
            hop = round(shift * 16000)
            self.assertEqual(f.shape, ((12345 + hop // 2) // hop, dim), what)

    def test_short(self):
        # lhotse's count down to one sample (its own Fbank fails below 159
        # samples); no frame is a (0, dims) matrix, no audio is refused
        ex = fbank()
        for n in (1, 79, 80, 159, 240):
            self.assertEqual(ex.extract(synthetic(n, 16000, n), 16000).shape,
                             ((n + 80) // 160, 80), n)
        with self.assertRaisesRegex(afet.Error, "empty"):
            ex.extract(np.zeros(0, np.float32), 16000)

    def test_whisper_against_afet(self):
        # afet.lhotse's Whisper is afetmfcc preset=whisper, padded with
        # zero frames to lhotse's count as lhotse's WhisperFbank pads
        x = synthetic(16100, 16000, 11)
        a = AfetWhisperFbank(AfetWhisperConfig(device=DEVICE)).extract(
            x, 16000)
        b = afet.extract(x, rate=16000,
                         pipeline="afetmfcc preset=whisper device=" +
                         DEVICE).data
        self.assertEqual(b.shape[0], 100)       # 16100 // 160
        self.assertEqual(a.shape[0], 101)       # lhotse's (16100 + 80) // 160
        np.testing.assert_array_equal(a[:b.shape[0]], b)
        np.testing.assert_array_equal(a[b.shape[0]:], 0)

    def test_whisper_against_whisper(self):
        # Whisper's own formula (tests/data/whisper: openai-whisper's
        # log_mel_spectrogram, what lhotse's WhisperFbank computes before
        # its zero frames) on the recordings, 80 and 128 mels
        for mels in (80, 128):
            ex = AfetWhisperFbank(AfetWhisperConfig(device=DEVICE,
                                                    num_filters=mels))
            for n in (1, 2, 3):
                ref = np.load(os.path.join(TOP, "tests", "data", "whisper",
                                           str(mels), "s0%d_16k.npy" % n))
                x = recording("s0%d_16k.wav" % n).load_audio()
                a = ex.extract(x, 16000)
                self.assertEqual(a.shape[0], (x.shape[1] + 80) // 160)
                err = rel_l2(a[:ref.shape[0]], ref)
                note(("whisper %d" % mels, "tests/data/audio"), err)
                self.assertLessEqual(err, TOLERANCE)
                np.testing.assert_array_equal(a[ref.shape[0]:], 0)

    def test_plp_against_afet(self):
        x = synthetic(8000, 16000, 12)
        a = AfetPlp(AfetPlpConfig(device=DEVICE)).extract(x, 16000)
        b = afet.extract(x, rate=16000, pipeline="afetplp preset=kaldi "
                         "snip-edges=false device=" + DEVICE).data
        np.testing.assert_array_equal(a, b)


class Config(unittest.TestCase):

    def test_registered_and_round_trip(self):
        for ex in (fbank(num_filters=64), mfcc(num_ceps=20),
                   AfetPlp(AfetPlpConfig()),
                   AfetWhisperFbank(AfetWhisperConfig())):
            self.assertIs(get_extractor_type(ex.name), type(ex))
            cfg = type(ex.config).from_dict(ex.config.to_dict())
            self.assertEqual(cfg, ex.config)
            ex.extract(synthetic(3000, 16000, 1), 16000)
            back = pickle.loads(pickle.dumps(ex))
            self.assertEqual(back.config, ex.config)
            self.assertIsNone(back._afet)   # the pipelines stay behind
            np.testing.assert_array_equal(
                back.extract(synthetic(3000, 16000, 1), 16000),
                ex.extract(synthetic(3000, 16000, 1), 16000))

    def test_yaml(self):
        with tempfile.TemporaryDirectory() as d:
            ex = fbank(num_filters=40)
            ex.to_yaml(os.path.join(d, "f.yaml"))
            back = lhotse.FeatureExtractor.from_yaml(os.path.join(d, "f.yaml"))
            self.assertIsInstance(back, AfetFbank)
            self.assertEqual(back.config, ex.config)

    def test_refusals(self):
        with self.assertRaisesRegex(afet.Error, "2 channels.*with_channels"):
            fbank().extract(np.zeros((2, 1600), np.float32), 16000)
        with self.assertRaisesRegex(afet.Error, r"16000 Hz.*resample\(16000"):
            AfetWhisperFbank().extract(np.zeros(800, np.float32), 8000)
        with self.assertRaisesRegex(afet.Error, "preset='whisper'.*lhotse"):
            AfetFbankConfig(preset="whisper")
        with self.assertRaisesRegex(afet.Error, "preset='lhotse'.*kaldi"):
            AfetPlpConfig(preset="lhotse")
        with self.assertRaisesRegex(afet.Error, "num_ceps=1.*column 0"):
            AfetMfccConfig(num_ceps=1)
        # a value afet's property cannot take (GStreamer would only warn
        # and keep the default): refused when the extractor is made
        for kw, msg in ((dict(window_type="foo"), "window_type='foo'.*"
                         "takes one of hamming"),
                        (dict(num_filters=0), "num_filters=0.*outside 1"),
                        (dict(num_filters=80.0), "whole number"),
                        (dict(frame_shift=0.0), "frame_shift=0.0.*outside"),
                        (dict(remove_dc_offset=1), "True or False")):
            with self.assertRaisesRegex(afet.Error, msg):
                fbank(**kw)
        with self.assertRaisesRegex(afet.Error, "streams=0"):
            fbank(streams=0)
        with self.assertRaisesRegex(afet.Error, "lpc_order=0"):
            AfetPlp(AfetPlpConfig(lpc_order=0))
        with self.assertRaisesRegex(afet.Error, "samples\\[1\\] has 2"):
            fbank().extract_batch([np.zeros(800, np.float32),
                                   np.zeros((2, 800), np.float32)], 16000)


def _long_enough(cut):
    return cut.duration > 0.2


def cutset():
    recs = RecordingSet.from_recordings(
        recording(n) for n in ("s01_16k.wav", "s02_16k.wav", "s03_16k.wav"))
    cuts = CutSet.from_manifests(recordings=recs)
    # whole recordings and pieces of them (offsets inside the audio)
    return (cuts + cuts.cut_into_windows(1.37).filter(_long_enough)
            ).to_eager()


class Storage(unittest.TestCase):
    """lhotse's feature storage: what it reads back is what extract()
    gives."""

    def check(self, cuts, ex):
        self.assertGreater(len(cuts), 3)
        for cut in cuts:
            self.assertTrue(cut.has_features)
            self.assertEqual(cut.features.type, ex.name)
            self.assertEqual(cut.frame_shift, ex.frame_shift)
            stored = cut.load_features()
            direct = ex.extract(cut.load_audio(), cut.sampling_rate)
            np.testing.assert_array_equal(stored, direct, cut.id)
            self.assertEqual(stored.shape[1], ex.feature_dim(16000))
            self.assertEqual(stored.shape[0], cut.num_frames)

    def test_compute_and_store_features(self):
        ex = fbank()
        with tempfile.TemporaryDirectory() as d:
            cuts = cutset().compute_and_store_features(
                extractor=ex, storage_path=os.path.join(d, "feats"),
                storage_type=NumpyFilesWriter, num_jobs=1)
            self.check(cuts, ex)
            # lhotse's own Fbank on the same cuts, stored the same way
            theirs = cutset().compute_and_store_features(
                extractor=Fbank(FbankConfig(num_filters=80)),
                storage_path=os.path.join(d, "theirs"),
                storage_type=NumpyFilesWriter, num_jobs=1)
            for a, b in zip(cuts, theirs):
                self.assertEqual(a.id, b.id)
                fa, fb = a.load_features(), b.load_features()
                self.assertEqual(fa.shape, fb.shape, a.id)
                err = rel_l2(fa, fb)
                note(("fbank 80", "cuts, stored"), err)
                self.assertLessEqual(err, TOLERANCE, a.id)

    def test_lilcom_chunky(self):
        # icefall's storage: lilcom's lossy compression of log values (its
        # default tick 2^-5, so at most half of it off)
        from lhotse import LilcomChunkyWriter
        ex = fbank()
        with tempfile.TemporaryDirectory() as d:
            cuts = cutset().subset(first=4).compute_and_store_features(
                extractor=ex, storage_path=os.path.join(d, "feats"),
                storage_type=LilcomChunkyWriter, num_jobs=1)
            for cut in cuts:
                stored = cut.load_features()
                direct = ex.extract(cut.load_audio(), 16000)
                self.assertEqual(stored.shape, direct.shape)
                self.assertLessEqual(np.abs(stored - direct).max(), 2 ** -6)

    def test_same_as_the_file_in_gstreamer(self):
        # serving: the config's chain on the WAV file (decodebin, as a
        # GStreamer pipeline reads it) gives the stored features bit for
        # bit
        ex = fbank()
        with tempfile.TemporaryDirectory() as d:
            cuts = cutset().subset(first=3).compute_and_store_features(
                extractor=ex, storage_path=os.path.join(d, "feats"),
                storage_type=NumpyFilesWriter, num_jobs=1)
            for cut in cuts:
                live = afet.extract(cut.recording.sources[0].source,
                                    pipeline=ex.config.pipeline())
                np.testing.assert_array_equal(live.data,
                                              cut.load_features())
                self.assertEqual(live.info.preset, "lhotse")

    def test_on_the_fly(self):
        # training with features computed in the data loader: lhotse's
        # OnTheFlyFeatures pads afet's batch as it pads its own
        from lhotse.dataset import OnTheFlyFeatures
        ex = fbank()
        cuts = cutset().subset(first=6)
        feats, lens = OnTheFlyFeatures(ex)(cuts)
        self.assertEqual(feats.shape[0], 6)
        for i, cut in enumerate(cuts):
            direct = ex.extract(cut.load_audio(), 16000)
            self.assertEqual(int(lens[i]), direct.shape[0])
            np.testing.assert_array_equal(
                feats[i, :direct.shape[0]].numpy(), direct)

    def test_compute_and_store_features_batch(self):
        # collated or not; data loader workers forked after afet ran here
        # (they only read audio; afet runs in this process)
        for collate, workers in ((False, 0), (True, 0), (False, 2)):
            ex = mfcc()
            with tempfile.TemporaryDirectory() as d:
                cuts = cutset().compute_and_store_features_batch(
                    extractor=ex, storage_path=os.path.join(d, "feats"),
                    storage_type=NumpyFilesWriter, num_workers=workers,
                    batch_duration=8.0, collate=collate,
                    manifest_path=os.path.join(d, "cuts.jsonl.gz"))
                self.check(CutSet.from_file(os.path.join(d,
                                                         "cuts.jsonl.gz")),
                           ex)
                self.check(cuts, ex)


if __name__ == "__main__":
    # afet's pipelines and lhotse's cut manifests must not be slowed by
    # torch's threads on a small machine
    torch.set_num_threads(1)
    # meson passes the example's path: only the options go to unittest
    argv = [sys.argv[0]] + [a for a in sys.argv[1:] if a.startswith("-")]
    result = unittest.main(argv=argv, exit=False,
                           verbosity=2 if "-v" in argv else 1).result
    print("measured relative L2 against lhotse %s's extractors (whisper: "
          "Whisper's formula), bound %g, device %s:"
          % (lhotse.__version__, TOLERANCE, DEVICE))
    for (kind, where), err in sorted(worst.items()):
        print("  %-16s %-18s %.2e" % (kind, where, err))
    sys.exit(0 if result.wasSuccessful() else 1)
