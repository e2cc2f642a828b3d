#!/usr/bin/env python3
# Regenerates the kaldi-native-fbank reference features of this directory (and
# checks them with --check).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Regenerates the kaldi-native-fbank reference features in this directory.

    bench/.venv/bin/python tests/data/kaldi-gen/generate.py [--check]

Needs numpy and kaldi-native-fbank (PyPI `kaldi-native-fbank`; these files
were made with 1.23.0).  Inputs: tests/data/audio/s0{1,2,3}_{8k,16k}.wav and
two noise signals that tests/reference/afetref.c makes too (afetref_make_noise
(n, 8000, seed) rounded to integers: xorshift64*, reimplemented below).
Outputs: <set>/<name>.npy, float32, frames x dims; README.md lists the
options of every set.  --check recomputes everything and compares it with
the files here instead of writing (exit status 1 on a difference beyond
1e-6 relative L2).

The torchaudio/ and lhotse/ sets were made on another machine (torch is not
installed here) by device.py next to this script; see README.md.
"""

import argparse
import os
import sys
import wave

import numpy as np

knf = None  # kaldi_native_fbank, imported by main() (device.py uses load())

HERE = os.path.dirname(os.path.abspath(__file__))
AUDIO = os.path.join(HERE, "..", "audio")

SPEECH = ["s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k"]
# name: (rate, samples, seed) -- same as the C test's noise signals
NOISE = {"noise_8k": (8000, 8000, 8), "noise_16k": (16000, 16000, 16)}
NOISE_AMP = 8000.0


def xorshift_noise(n, amp, seed):
    """afetref_make_noise (n, amp, seed), then afetref_quantize_s16."""
    m64 = (1 << 64) - 1
    s = seed if seed else 0x9E3779B97F4A7C15
    out = np.empty(n)
    for i in range(n):
        s ^= s >> 12
        s ^= (s << 25) & m64
        s ^= s >> 27
        r = (s * 0x2545F4914F6CDD1D) & m64
        u = (r >> 11) * (1.0 / 9007199254740992.0)
        out[i] = amp * (2.0 * u - 1.0)
    # C's nearbyint (round half to even) == numpy.rint
    return np.clip(np.rint(out), -32768, 32767)


def load(name):
    if name in NOISE:
        rate, n, seed = NOISE[name]
        return rate, xorshift_noise(n, NOISE_AMP, seed)
    with wave.open(os.path.join(AUDIO, name + ".wav")) as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        return w.getframerate(), x.astype(np.float64)


def frame_opts(o, rate, snip, window="povey", dc=True):
    o.frame_opts.samp_freq = rate
    o.frame_opts.dither = 0.0
    o.frame_opts.snip_edges = snip
    o.frame_opts.frame_length_ms = 25.0
    o.frame_opts.frame_shift_ms = 10.0
    o.frame_opts.preemph_coeff = 0.97
    o.frame_opts.remove_dc_offset = dc
    o.frame_opts.window_type = window
    o.frame_opts.round_to_power_of_two = True


def mel_opts(o, bins, high):
    o.mel_opts.num_bins = bins
    o.mel_opts.low_freq = 20.0
    o.mel_opts.high_freq = high


def mfcc(rate, snip, use_energy, htk_compat=False, bins=23, high=0.0,
         **frame):
    o = knf.MfccOptions()
    frame_opts(o, rate, snip, **frame)
    mel_opts(o, bins, high)
    o.num_ceps = 13
    o.use_energy = use_energy
    o.energy_floor = 0.0
    o.raw_energy = True
    o.cepstral_lifter = 22.0
    o.htk_compat = htk_compat
    return knf.OnlineMfcc, o


def fbank(rate, snip, bins, use_energy=False, htk_compat=False, high=0.0,
          energy_floor=0.0, use_power=True, **frame):
    o = knf.FbankOptions()
    frame_opts(o, rate, snip, **frame)
    mel_opts(o, bins, high)
    o.use_energy = use_energy
    o.energy_floor = energy_floor
    o.raw_energy = True
    o.htk_compat = htk_compat
    o.use_log_fbank = True
    o.use_power = use_power
    return knf.OnlineFbank, o


# set name -> (function of rate giving (class, options), sample scale[,
# inputs]); inputs default to all of SPEECH and NOISE
SETS = {
    "mfcc": (lambda r: mfcc(r, True, True), 1.0),
    "mfcc_nosnip": (lambda r: mfcc(r, False, True), 1.0),
    "mfcc_c0": (lambda r: mfcc(r, True, False), 1.0),
    "mfcc_c0_nosnip": (lambda r: mfcc(r, False, False), 1.0),
    "mfcc_c0_htk": (lambda r: mfcc(r, True, False, htk_compat=True), 1.0),
    "fbank80": (lambda r: fbank(r, True, 80), 1.0),
    "fbank80_nosnip": (lambda r: fbank(r, False, 80), 1.0),
    "fbank23_energy": (lambda r: fbank(r, True, 23, use_energy=True), 1.0),
    "fbank23_energy_htk": (lambda r: fbank(r, True, 23, use_energy=True,
                                           htk_compat=True), 1.0),
    "mfcc_hamming_nodc": (lambda r: mfcc(r, True, True, window="hamming",
                                         dc=False), 1.0),
    "fbank23_rect_mag": (lambda r: fbank(r, False, 23, use_power=False,
                                         window="rectangular"), 1.0),
    # lhotse's Fbank() / Mfcc() defaults, through kaldi-native-fbank
    # (s01 and the noise only: lhotse_ref_fbank, lhotse's own, has them all)
    "lhotse_fbank": (lambda r: fbank(r, False, 80, high=-400.0,
                                     energy_floor=1e-10), 1.0 / 32768.0,
                     ["s01_8k", "s01_16k", "noise_8k", "noise_16k"]),
    "lhotse_mfcc": (lambda r: mfcc(r, False, False, high=-400.0),
                    1.0 / 32768.0),
}


# Kaldi itself (kaldi-drv/kaldi_drv, built by kaldi-drv/build.sh): set name ->
# (kind, options, inputs); --dither=0 always
FEW = ["s01_8k", "s01_16k", "noise_8k", "noise_16k"]
KALDI_SETS = {
    "kaldi_plp": ("plp", [], SPEECH + list(NOISE)),
    "kaldi_plp_c0_nosnip": ("plp", ["--use-energy=false", "--snip-edges=false"],
                            SPEECH + list(NOISE)),
    "kaldi_plp_opts": ("plp", ["--htk-compat=true", "--lpc-order=14",
                               "--num-ceps=15", "--compress-factor=0.5",
                               "--cepstral-scale=1.5", "--cepstral-lifter=0",
                               "--num-mel-bins=19", "--window-type=hamming",
                               "--raw-energy=false", "--energy-floor=1.0",
                               "--high-freq=-200", "--low-freq=60"], FEW),
    "kaldi_spectrogram": ("spectrogram", [], ["s01_8k", "noise_16k"]),
}


def kaldi(drv, kind, opts, rate, x):
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "x.f32"), os.path.join(d, "y.npy")
        x.astype("<f4").tofile(inp)
        subprocess.run([drv, kind, str(rate), inp, out] + opts, check=True,
                       stderr=subprocess.DEVNULL)
        return np.load(out)


def compute(cls_opts, rate, x):
    cls, opts = cls_opts
    f = cls(opts)
    f.accept_waveform(rate, x.astype(np.float32).tolist())
    f.input_finished()
    return np.array([f.get_frame(i) for i in range(f.num_frames_ready)],
                    dtype=np.float32)


def rel_l2(a, b):
    d = np.linalg.norm(a.astype(np.float64) - b)
    n = np.linalg.norm(b.astype(np.float64))
    return d / n if n else d


def main():
    global knf
    import kaldi_native_fbank
    knf = kaldi_native_fbank
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--kaldi-drv", metavar="PATH",
                    help="also make the kaldi_* sets with this kaldi_drv")
    args = ap.parse_args()
    bad = 0
    for set_name, (kind, opts, names) in (KALDI_SETS.items() if args.kaldi_drv
                                          else []):
        for name in names:
            rate, x = load(name)
            feats = kaldi(args.kaldi_drv, kind, opts, rate, x)
            path = os.path.join(HERE, set_name, name + ".npy")
            if args.check:
                old = np.load(path)
                e = rel_l2(feats, old) if old.shape == feats.shape else 1.0
                print("%-20s %-10s %s %.2e" % (set_name, name, feats.shape, e))
                bad += e > 1e-6
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                np.save(path, feats)
                print("%-20s %-10s %s" % (set_name, name, feats.shape))
    for name in SPEECH + list(NOISE):
        rate, x = load(name)
        for set_name, (make, scale, *only) in SETS.items():
            if only and name not in only[0]:
                continue
            feats = compute(make(rate), rate, x * scale)
            path = os.path.join(HERE, set_name, name + ".npy")
            if args.check:
                old = np.load(path)
                e = rel_l2(feats, old) if old.shape == feats.shape else 1.0
                print("%-20s %-10s %s %.2e" % (set_name, name, feats.shape, e))
                bad += e > 1e-6
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                np.save(path, feats)
                print("%-20s %-10s %s" % (set_name, name, feats.shape))
    # mel bank matrices (VTLN warps, 16 kHz, 23 bins, FFT 512; 8 kHz, 15
    # bins, FFT 256) and the librosa-style filters of knf at n_fft = 400
    for rate, bins in ((16000, 23), (8000, 15)):
        for warp in (0.85, 1.0, 1.15):
            mo = knf.MelBanksOptions()
            mo.num_bins = bins
            mo.low_freq = 20.0
            mo.high_freq = 0.0
            mo.vtln_low = 100.0
            mo.vtln_high = -500.0
            fo = knf.FrameExtractionOptions()
            fo.samp_freq = rate
            m = np.array(knf.MelBanks(mo, fo, warp).get_matrix(),
                         dtype=np.float32)
            path = os.path.join(HERE, "melbanks", "vtln%.2f_%dk.npy" %
                                (warp, rate // 1000))
            if args.check:
                e = rel_l2(m, np.load(path))
                print("melbanks %s %.2e" % (os.path.basename(path), e))
                bad += e > 1e-6
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                np.save(path, m)
    if args.check:
        print("%d differences" % bad)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
