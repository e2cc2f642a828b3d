#!/usr/bin/env python3
# Generates the benchmark corpus (16 kHz mono S16 WAV) from the synthetic
# utterances of tests/data/audio.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Generate the benchmark corpus (16 kHz mono S16 WAV) into a folder.

The audio is built from the synthetic speech utterances in
tests/data/audio/s0*_16k.wav: utterances are picked at random, played at a
slightly different speed (0.92-1.08), scaled by a random gain, separated by
short pauses, and a low noise floor is added, so that the result looks like
continuous speech to a feature extractor. Everything is derived from --seed
and the file index, so the same options always give the same bytes.

Two sets are written:
  long/   --long-files files of --long-minutes minutes each
  short/  --short-files files of --short-min to --short-max seconds each
plus corpus.json, which bench.py reads (file list, samples, total seconds).

Sizes:
  (defaults)        2 x 5 min + 100 x 10-20 s  (~35 min of audio, quick)
  --preset gpu      60 x 10 min + 2400 x 10-20 s (~10 h per set)
  --hours H         H hours in each set (overrides --long-files/--short-files)

Only the Python standard library and NumPy are used.
"""

import argparse
import glob
import json
import os
import sys
import wave

import numpy as np

RATE = 16000
FORMAT_VERSION = 1
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SOURCES_FOR = {8000: "s0*_8k.wav", 16000: "s0*_16k.wav", 44100: "s0*_44k.wav"}
DEFAULT_SOURCES = os.path.join(REPO, "tests", "data", "audio", "s0*_16k.wav")
SPEEDS = (0.92, 0.94, 0.96, 0.98, 1.0, 1.02, 1.04, 1.06, 1.08)


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise SystemExit("%s: need mono 16-bit PCM" % path)
        if w.getframerate() != RATE:
            raise SystemExit("%s: need %d Hz, got %d" % (path, RATE,
                                                         w.getframerate()))
        data = w.readframes(w.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32)


def write_wav(path, samples):
    tmp = path + ".part"
    with wave.open(tmp, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.astype("<i2").tobytes())
    os.replace(tmp, path)


def trim_silence(x, threshold=64.0):
    """Drop leading and trailing near-silence so pauses are ours to choose."""
    idx = np.flatnonzero(np.abs(x) > threshold)
    if idx.size == 0:
        return x
    return x[idx[0]:idx[-1] + 1]


def build_variants(sources):
    """Each utterance at each speed, peak-normalised to 1.0."""
    variants = []
    for x in sources:
        x = trim_silence(x)
        x = x / max(1.0, float(np.max(np.abs(x))))
        n = len(x)
        per_speed = []
        for s in SPEEDS:
            m = int(round(n / s))
            t = np.arange(m, dtype=np.float64) * s
            per_speed.append(np.interp(t, np.arange(n), x).astype(np.float32))
        variants.append(per_speed)
    return variants


def synthesize(n_samples, variants, rng):
    """n_samples of speech-like audio as int16."""
    out = np.empty(n_samples, dtype=np.float32)
    pos = 0
    # leading pause
    lead = int(rng.uniform(0.05, 0.4) * RATE)
    out[:min(lead, n_samples)] = 0.0
    pos = min(lead, n_samples)
    while pos < n_samples:
        utt = variants[rng.integers(len(variants))]
        seg = utt[rng.integers(len(utt))]
        # sometimes only a part of the utterance (a phrase)
        if rng.random() < 0.3:
            a = int(rng.integers(0, len(seg) // 2))
            b = int(rng.integers(a + len(seg) // 4, len(seg) + 1))
            seg = seg[a:b]
        gain_db = rng.uniform(-8.0, 0.0)
        peak = 26000.0 * 10.0 ** (gain_db / 20.0)
        n = min(len(seg), n_samples - pos)
        out[pos:pos + n] = seg[:n] * peak
        pos += n
        gap = int(rng.uniform(0.08, 0.7) * RATE)
        g = min(gap, n_samples - pos)
        out[pos:pos + g] = 0.0
        pos += g
    # noise floor: white noise, lightly low-passed, 40-60 dB below full scale
    level = 32768.0 * 10.0 ** (rng.uniform(-60.0, -40.0) / 20.0)
    noise = rng.standard_normal(n_samples + 2).astype(np.float32)
    noise = (noise[2:] + noise[1:-1] + noise[:-2]) * (level / np.sqrt(3.0))
    out += noise
    # a small DC offset, as real recordings have
    out += rng.uniform(-20.0, 20.0)
    return np.clip(np.rint(out), -32768, 32767).astype(np.int16)


def plan(args):
    """List of (set, relative path, samples, seed) to generate."""
    files = []
    n_long = int(round(args.long_minutes * 60 * RATE))
    for i in range(args.long_files):
        files.append(("long", "long/long_%04d.wav" % i, n_long,
                      (args.seed, 0, i)))
    rng = np.random.default_rng([args.seed, 2])
    lengths = rng.uniform(args.short_min, args.short_max, args.short_files)
    for i, sec in enumerate(lengths):
        n = int(round(sec * 100)) * (RATE // 100)   # whole 10 ms steps
        files.append(("short", "short/short_%05d.wav" % i, n,
                      (args.seed, 1, i)))
    return files


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Generate the afet benchmark corpus (16 kHz mono S16 "
        "WAV) deterministically from the test utterances.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("outdir", help="folder to write long/, short/ and "
                   "corpus.json into (created if missing)")
    p.add_argument("--preset", choices=("quick", "gpu"), default="quick",
                   help="quick: 2 x 5 min + 100 short files; gpu: 10 h per "
                   "set (60 x 10 min + 2400 short files); explicit options "
                   "below override the preset")
    p.add_argument("--long-files", type=int, default=None,
                   help="number of long files (quick 2, gpu 60)")
    p.add_argument("--long-minutes", type=float, default=None,
                   help="length of each long file in minutes (quick 5, "
                   "gpu 10)")
    p.add_argument("--short-files", type=int, default=None,
                   help="number of short files (quick 100, gpu 2400)")
    p.add_argument("--short-min", type=float, default=10.0,
                   help="shortest short file, seconds")
    p.add_argument("--short-max", type=float, default=20.0,
                   help="longest short file, seconds")
    p.add_argument("--hours", type=float, default=None,
                   help="hours of audio in EACH set; sets --long-files and "
                   "--short-files from --long-minutes and the mean short "
                   "length")
    p.add_argument("--rate", type=int, default=16000, choices=sorted(
                   SOURCES_FOR), help="sample rate; the sources are the test "
                   "utterances at that rate unless --sources is given")
    p.add_argument("--seed", type=int, default=20260101)
    p.add_argument("--sources", default=DEFAULT_SOURCES,
                   help="glob of 16 kHz mono S16 WAV utterances to build "
                   "from")
    p.add_argument("--force", action="store_true",
                   help="regenerate even if corpus.json says the folder is "
                   "up to date")
    args = p.parse_args(argv)
    global RATE
    RATE = args.rate
    if args.sources == DEFAULT_SOURCES:
        args.sources = os.path.join(REPO, "tests", "data", "audio",
                                    SOURCES_FOR[RATE])

    preset = {"quick": (2, 5.0, 100), "gpu": (60, 10.0, 2400)}[args.preset]
    if args.long_minutes is None:
        args.long_minutes = preset[1]
    if args.hours is not None:
        mean_short = (args.short_min + args.short_max) / 2.0
        args.long_files = max(1, int(round(args.hours * 60.0 /
                                           args.long_minutes)))
        args.short_files = max(1, int(round(args.hours * 3600.0 /
                                            mean_short)))
    if args.long_files is None:
        args.long_files = preset[0]
    if args.short_files is None:
        args.short_files = preset[2]
    if args.short_min <= 0.1 or args.short_max < args.short_min:
        p.error("need 0.1 < --short-min <= --short-max")
    if args.long_files < 0 or args.short_files < 0 or args.long_minutes <= 0:
        p.error("sizes must be positive")

    src_paths = sorted(glob.glob(args.sources))
    if not src_paths:
        p.error("no source WAV matches %s" % args.sources)

    params = {
        "format_version": FORMAT_VERSION,
        "seed": args.seed,
        "rate": RATE,
        "long_files": args.long_files,
        "long_minutes": args.long_minutes,
        "short_files": args.short_files,
        "short_min": args.short_min,
        "short_max": args.short_max,
        "sources": [os.path.basename(s) for s in src_paths],
    }
    outdir = os.path.abspath(args.outdir)
    manifest_path = os.path.join(outdir, "corpus.json")
    files = plan(args)

    if not args.force and os.path.exists(manifest_path):
        try:
            with open(manifest_path) as f:
                old = json.load(f)
            if old.get("params") == params and all(
                    os.path.getsize(os.path.join(outdir, rel)) == 44 + 2 * n
                    for _, rel, n, _ in files):
                print("%s is up to date (use --force to regenerate)" % outdir)
                return 0
        except (OSError, ValueError, KeyError):
            pass

    variants = build_variants([read_wav(s) for s in src_paths])
    for sub in ("long", "short"):
        os.makedirs(os.path.join(outdir, sub), exist_ok=True)
    # a previous, larger corpus may have left files behind: remove them so
    # the folder holds exactly what corpus.json lists
    wanted = {rel for _, rel, _, _ in files}
    for sub in ("long", "short"):
        for name in os.listdir(os.path.join(outdir, sub)):
            rel = sub + "/" + name
            if name.endswith(".wav") and rel not in wanted:
                os.remove(os.path.join(outdir, sub, name))

    sets = {"long": {"files": [], "samples": 0},
            "short": {"files": [], "samples": 0}}
    total = len(files)
    for k, (setname, rel, n, seed) in enumerate(files):
        rng = np.random.default_rng(list(seed))
        write_wav(os.path.join(outdir, rel), synthesize(n, variants, rng))
        sets[setname]["files"].append({"path": rel, "samples": n})
        sets[setname]["samples"] += n
        if (k + 1) % 200 == 0 or k + 1 == total:
            sys.stderr.write("\r%d/%d files" % (k + 1, total))
            sys.stderr.flush()
    sys.stderr.write("\n")
    for s in sets.values():
        s["seconds"] = s["samples"] / float(RATE)
        s["count"] = len(s["files"])

    manifest = {"rate": RATE, "channels": 1, "format": "S16LE",
                "params": params, "sets": sets}
    tmp = manifest_path + ".part"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, manifest_path)
    print("wrote %s: long %d files, %.1f min; short %d files, %.1f min" % (
        outdir, sets["long"]["count"], sets["long"]["seconds"] / 60.0,
        sets["short"]["count"], sets["short"]["seconds"] / 60.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
