#!/usr/bin/env python3
# Times one cut at a time through FeatureExtractor.extract, the call lhotse's
# compute_and_store_features makes for every cut: afet's AfetFbank against
# lhotse's own Fbank (torch), in one process.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""extract() a cut at a time: afet's AfetFbank against lhotse's Fbank.

--cuts float32 arrays of 10-20 s at 16 kHz (random, seeded) go through
``AfetFbank(AfetFbankConfig(num_filters=80, device=--afet-device))
.extract`` twice (the second pass: every length seen before), then 10 s
arrays and 0.5 s arrays (whose time is the fixed cost of a call), then
through ``Fbank(FbankConfig(num_filters=80, device=--lhotse-device))
.extract`` twice, each after three untimed calls.  Prints milliseconds a
cut; with --profile, cProfile's busiest functions of afet's second pass.
Needs lhotse, torch and afet's python/ on the path.
"""

import argparse
import cProfile
import os
import pstats
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "python"))


def timed(name, fn, arrays):
    t = time.perf_counter()
    for a in arrays:
        fn(a, 16000)
    ms = (time.perf_counter() - t) / len(arrays) * 1e3
    print("%-38s %6.2f ms a cut" % (name, ms), flush=True)
    return ms


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cuts", type=int, default=200)
    p.add_argument("--afet-device", default="auto")
    p.add_argument("--lhotse-device", default="cuda")
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    import torch
    torch.set_num_threads(1)
    from lhotse import Fbank, FbankConfig
    from afet.lhotse import AfetFbank, AfetFbankConfig
    rng = np.random.default_rng(0)
    cuts = [(rng.standard_normal(int(16000 * rng.uniform(10, 20))) *
             0.1).astype(np.float32) for _ in range(args.cuts)]
    afet = AfetFbank(AfetFbankConfig(num_filters=80,
                                     device=args.afet_device))
    for a in cuts[:3]:
        afet.extract(a, 16000)
    timed("afet, 10-20 s, first pass", afet.extract, cuts)
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
    timed("afet, 10-20 s, second pass", afet.extract, cuts)
    if args.profile:
        prof.disable()
    timed("afet, 10 s each", afet.extract, [a[:160000] for a in cuts])
    timed("afet, 0.5 s each", afet.extract, [a[:8000] for a in cuts])
    fbank = Fbank(FbankConfig(num_filters=80, device=args.lhotse_device))
    for a in cuts[:3]:
        fbank.extract(a, 16000)
    timed("lhotse (%s), 10-20 s" % args.lhotse_device, fbank.extract, cuts)
    timed("lhotse (%s), 10-20 s again" % args.lhotse_device, fbank.extract,
          cuts)
    if args.profile:
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
