#!/usr/bin/env python3
# Times lhotse's CutSet.compute_and_store_features_batch over hours of 10-20 s
# cuts with lhotse's own Fbank (torch) and with afet's AfetFbank, 80 bins.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""lhotse's batched feature extraction, lhotse's Fbank against afet's.

The cuts are the short files (10-20 s, 16 kHz) of a corpus that
bench/make_corpus.py wrote (made here when --corpus has none), each file
taken as often as needed, under a new recording id each time, until the cuts
hold --hours of audio.  Both extractors go through the same call::

    cuts.compute_and_store_features_batch(extractor, storage_path,
        batch_duration=..., num_workers=..., storage_type=...)

lhotse: ``Fbank(FbankConfig(device=--lhotse-device))`` (80 mel bins,
torch; ``cuda`` on the GPU machine); afet: ``AfetFbank(AfetFbankConfig(
num_filters=80, device=--afet-device))`` (``preset=lhotse``, OpenCL).  Each
extractor first computes a few cuts untimed (CUDA and OpenCL start-up, afet's
pipelines), then the whole set, timed.  With --floor a third extractor that
computes nothing (``FloorFbank``: stored rows of random log-mel-like values
of the right shape, as costly to compress as features) goes through the same
call: its time is what lhotse's loading and storage cost alone, so
lhotse's time over it bounds the speed-up any extractor can give there.  The data loader's workers read the
audio for both.  Afterwards --compare cuts are computed again by both
extractors' ``extract`` (whichever ran: --which picks the timed runs only)
and compared (relative L2, max abs), and, when both ran, the stored features
of the same cuts too (lilcom's rounding included).

Prints one line per extractor and writes the numbers as JSON (--json).
Needs lhotse, torch and afet's python/ on the path (tests/device/pack-python.sh
carries them to the GPU machine; bench/device/lhotse-bench.sh runs this there).
"""

import argparse
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))


def corpus_files(corpora, short_files):
    """(recording id, path) of the short wav files of make_corpus.py
    folders (a comma-separated list; the k-th made with seed 20260101 + k
    when it has none)."""
    out = []
    for k, corpus in enumerate(corpora.split(",")):
        files = sorted(glob.glob(os.path.join(corpus, "short", "*.wav")))
        if not files:
            subprocess.run([sys.executable, os.path.join(
                REPO, "bench", "make_corpus.py"), corpus, "--long-files",
                "0", "--short-files", str(short_files), "--seed",
                str(20260101 + k)], check=True)
            files = sorted(glob.glob(os.path.join(corpus, "short", "*.wav")))
        if not files:
            raise SystemExit("no short/*.wav in %s" % corpus)
        tag = os.path.basename(os.path.normpath(corpus))
        out += [("%s-%s" % (tag, os.path.splitext(os.path.basename(f))[0]),
                 f) for f in files]
    return out


def make_cuts(files, hours):
    """Cuts of the files, repeated under new ids up to `hours` of audio."""
    from lhotse import CutSet, Recording, RecordingSet
    from lhotse.utils import fastcopy
    base = [Recording.from_file(f, recording_id=i) for i, f in files]
    want = hours * 3600.0
    recs, total, rep = [], 0.0, 0
    while total < want:
        for r in base:
            recs.append(fastcopy(r, id="%s-r%03d" % (r.id, rep)))
            total += r.duration
            if total >= want:
                break
        rep += 1
    return CutSet.from_manifests(recordings=RecordingSet.from_recordings(
        recs)), total, rep


def rel_l2(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf"), float("inf")
    return (float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30)),
            float(np.max(np.abs(a - b))))


def numpy_of(x):
    return x.cpu().numpy() if hasattr(x, "cpu") else np.asarray(x)


def floor_extractor():
    """A lhotse FeatureExtractor computing nothing: each cut gets the
    frame count lhotse expects (10 ms shift, lhotse's rounding) of rows cut
    from one fixed block of random values about as spread as log-mel
    energies, so storage (lilcom's compression included) costs what it
    costs for features."""
    from dataclasses import dataclass
    from lhotse.features.base import FeatureExtractor

    @dataclass
    class FloorConfig:
        num_filters: int = 80

    block = (np.random.default_rng(1).standard_normal((20000, 80)) * 3.0
             - 5.0).astype(np.float32)

    class FloorFbank(FeatureExtractor):
        name = "afet-bench-floor"
        config_type = FloorConfig

        def extract(self, samples, sampling_rate):
            from lhotse.utils import compute_num_frames
            n = int(np.asarray(samples).shape[-1])
            rows = compute_num_frames(n / sampling_rate, 0.010,
                                      sampling_rate)
            reps = rows // block.shape[0] + 1
            return np.tile(block, (reps, 1))[:rows].copy()

        def extract_batch(self, samples, sampling_rate, lengths=None):
            return [self.extract(s, sampling_rate) for s in samples]

        @property
        def frame_shift(self):
            return 0.010

        def feature_dim(self, sampling_rate):
            return 80

    return FloorFbank(FloorConfig())


def run_one(name, extractor, cuts, args, storage_type):
    """Warm-up on a few cuts, then the whole set through lhotse, timed."""
    # the warm-up goes through the timed call itself: lhotse's own Fbank on
    # cuda fails in extract_batch on NumPy arrays (it returns cuda tensors
    # and calls .numpy() on them)
    warm = cuts.subset(first=min(4, len(cuts))).to_eager()
    scratch = os.path.join(args.work, "warm-" + name)
    shutil.rmtree(scratch, ignore_errors=True)
    t = time.perf_counter()
    warm.compute_and_store_features_batch(
        extractor=extractor, storage_path=scratch,
        batch_duration=args.batch_duration, num_workers=0,
        storage_type=storage_type, overwrite=True)
    warm_s = time.perf_counter() - t
    path = os.path.join(args.work, "feats-" + name)
    shutil.rmtree(path, ignore_errors=True)
    t = time.perf_counter()
    stored = cuts.compute_and_store_features_batch(
        extractor=extractor, storage_path=path,
        batch_duration=args.batch_duration, num_workers=args.num_workers,
        storage_type=storage_type, overwrite=True)
    wall = time.perf_counter() - t
    stored = stored.to_eager()
    return stored, {"wall_s": round(wall, 3), "warmup_s": round(warm_s, 3),
                    "cuts": len(stored)}


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--hours", type=float, default=100.0,
                   help="hours of audio in the cuts")
    p.add_argument("--corpus", default="/tmp/afet-lhotse-corpus",
                   help="make_corpus.py folders, comma-separated (their "
                   "short/ files are the cuts; each made with --short-files "
                   "when empty)")
    p.add_argument("--short-files", type=int, default=2400,
                   help="short files to make in a --corpus folder that "
                   "has none (2400: about 10 h)")
    p.add_argument("--work", default="/tmp/afet-lhotse-bench",
                   help="folder for the stored features (emptied first)")
    p.add_argument("--batch-duration", type=float, default=600.0,
                   help="seconds of audio per batch (lhotse's default)")
    p.add_argument("--num-workers", type=int, default=4,
                   help="data loader workers reading audio")
    p.add_argument("--storage", choices=("lilcom", "numpy"),
                   default="lilcom", help="LilcomChunkyWriter (icefall's) "
                   "or NumpyFilesWriter")
    p.add_argument("--lhotse-device", default="cuda",
                   help="torch device of lhotse's Fbank")
    p.add_argument("--afet-device", default="gpu",
                   help="afet's OpenCL device (gpu, cpu, auto, P:D)")
    p.add_argument("--streams", type=int, default=8,
                   help="AfetFbankConfig.streams: arrays at once on the "
                   "device")
    p.add_argument("--which", choices=("both", "lhotse", "afet"),
                   default="both")
    p.add_argument("--compare", type=int, default=5,
                   help="cuts computed again by both and compared")
    p.add_argument("--floor", action="store_true",
                   help="also time an extractor that computes nothing: "
                   "the loading and storage floor of the call")
    p.add_argument("--json", default=None, help="write the results here")
    args = p.parse_args(argv)

    import torch
    import lhotse
    from lhotse import Fbank, FbankConfig, LilcomChunkyWriter, \
        NumpyFilesWriter
    import afet
    from afet.lhotse import AfetFbank, AfetFbankConfig

    files = corpus_files(args.corpus, args.short_files)
    cuts, total, reps = make_cuts(files, args.hours)
    os.makedirs(args.work, exist_ok=True)
    storage_type = (LilcomChunkyWriter if args.storage == "lilcom"
                    else NumpyFilesWriter)
    extractors = {}
    if args.which in ("both", "lhotse"):
        extractors["lhotse"] = Fbank(FbankConfig(num_filters=80,
                                                 device=args.lhotse_device))
    if args.which in ("both", "afet"):
        extractors["afet"] = AfetFbank(AfetFbankConfig(
            num_filters=80, device=args.afet_device, streams=args.streams))
    if args.floor:
        extractors["floor"] = floor_extractor()
    res = {
        "hours": round(total / 3600.0, 4), "cuts": len(cuts),
        "files": len(files), "repeats": reps,
        "batch_duration": args.batch_duration,
        "num_workers": args.num_workers, "storage": args.storage,
        "lhotse_device": args.lhotse_device,
        "afet_device": args.afet_device, "streams": args.streams,
        "versions": {"python": platform.python_version(),
                     "torch": torch.__version__,
                     "lhotse": lhotse.__version__,
                     "afet": getattr(afet, "__version__", "?")},
        "gpu": (torch.cuda.get_device_name(0)
                if torch.cuda.is_available() else None),
        "runs": {},
    }
    print("cuts: %d (%.2f h; %d files x %d), batch_duration %g s, "
          "%d workers, %s storage" % (len(cuts), total / 3600.0, len(files),
                                      reps, args.batch_duration,
                                      args.num_workers, args.storage),
          flush=True)
    stored = {}
    for name, ex in extractors.items():
        stored[name], r = run_one(name, ex, cuts, args, storage_type)
        r["x_realtime"] = round(total / r["wall_s"], 1)
        res["runs"][name] = r
        print("%-7s %9.1f s wall (%.0fx real time; warm-up %.2f s) %d cuts"
              % (name, r["wall_s"], r["x_realtime"], r["warmup_s"],
                 r["cuts"]), flush=True)

    if args.compare > 0:
        # both extractors on the same cuts, whichever ran; the stored
        # features too when both ran
        extractors.pop("floor", None)
        both = {"lhotse": lambda: Fbank(FbankConfig(
                    num_filters=80, device=args.lhotse_device)),
                "afet": lambda: AfetFbank(AfetFbankConfig(
                    num_filters=80, device=args.afet_device,
                    streams=args.streams))}
        for name, make in both.items():
            extractors.setdefault(name, make())
        some = list(cuts.subset(first=min(args.compare, len(cuts))))
        cmp = []
        for c in some:
            audio = c.load_audio()[0]
            a = numpy_of(extractors["afet"].extract(audio, 16000))
            # a tensor: lhotse's cuda path returns cuda tensors
            import torch
            b = numpy_of(extractors["lhotse"].extract(
                torch.from_numpy(audio), 16000))
            e, m = rel_l2(a, b)
            r = {"cut": c.id, "frames": [int(a.shape[0]), int(b.shape[0])],
                 "rel_l2": e, "max_abs": m}
            line = "compare %s: %s frames, rel L2 %.3g (max abs %.3g)" % (
                c.id, a.shape[0], e, m)
            if "afet" in stored and "lhotse" in stored:
                sa = stored["afet"][c.id].load_features()
                sb = stored["lhotse"][c.id].load_features()
                se, sm = rel_l2(sa, sb)
                # each stored matrix against its own extract(): lhotse's
                # batch zero-pads its shorter cuts (docs/lhotse.md)
                oa, ob = rel_l2(sa, a)[0], rel_l2(sb, b)[0]
                r.update(stored_rel_l2=se, stored_max_abs=sm,
                         afet_stored_vs_extract=oa,
                         lhotse_stored_vs_extract=ob)
                line += "; stored %.3g (vs own extract: afet %.3g, " \
                    "lhotse %.3g)" % (se, oa, ob)
            cmp.append(r)
            print(line, flush=True)
        res["compare"] = cmp
        res["max_rel_l2"] = max(x["rel_l2"] for x in cmp)
    if "afet" in stored and "lhotse" in stored:
        res["speedup"] = round(res["runs"]["lhotse"]["wall_s"] /
                               res["runs"]["afet"]["wall_s"], 2)
        print("afet/lhotse speed-up: %.2fx" % res["speedup"])
    if "floor" in res["runs"] and "lhotse" in res["runs"]:
        res["bound"] = round(res["runs"]["lhotse"]["wall_s"] /
                             res["runs"]["floor"]["wall_s"], 2)
        print("the most any extractor can gain over lhotse's in this call "
              "(lhotse / floor): %.2fx" % res["bound"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
