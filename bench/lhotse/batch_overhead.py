#!/usr/bin/env python3
# Times afet.Extractor.extract_batch on lhotse-sized batches, arrays fed back
# to back in one run per lane against an array a run, in one process.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The host's cost per array of extract_batch, both ways, in one process.

  batch_overhead.py [--chain C] [--streams 8] [--repeat 3] [--afet-fbank]

Two batches of 200 float32 arrays at 16 kHz go through one kept
``afet.Extractor(chain, streams=...)`` (AfetFbank's chain by default):
0.5 s arrays (their time over 200 is the fixed cost per array: the 50
frames each are next to nothing) and 15 s arrays (lhotse's 10-20 s cuts).
Each batch runs ``--repeat`` times each way, alternating, after an untimed
warm-up: "one run" is what extract_batch does (a lane's arrays back to back
in one run of its pipeline), "a run each" the path a chain that may keep
state over a DISCONT takes (READY -> PLAYING -> end-of-stream -> READY per
array).  With --afet-fbank (lhotse and torch installed: the venv of
tools/install-deps.sh) the batches go through afet.lhotse's
``AfetFbank(AfetFbankConfig(num_filters=80, device="cpu"))
.extract_batch`` instead, the call lhotse makes.  Prints the best wall
time and the process's CPU time of each, per array.  The results of both
ways are checked bit for bit.
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import afet  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chain", default="afetmfcc preset=lhotse num-ceps=0 "
                    "num-filters=80 device=cpu")
    ap.add_argument("--streams", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--afet-fbank", action="store_true")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    if a.afet_fbank:
        from afet.lhotse import AfetFbank, AfetFbankConfig
        fbank = AfetFbank(AfetFbankConfig(num_filters=80, device="cpu",
                                          streams=a.streams))
        ex = fbank._extractor()
        extract_batch = fbank.extract_batch
    else:
        ex = afet.Extractor(a.chain, streams=a.streams)
        extract_batch = ex.extract_batch
    with ex:
        back_to_back = ex._back_to_back
        for secs in (0.5, 15.0):
            arrays = [(rng.standard_normal(int(16000 * secs)) *
                       0.1).astype(np.float32) for _ in range(a.count)]
            extract_batch(arrays[:a.streams], 16000)     # warm-up
            best = {}
            got = {}
            for _ in range(a.repeat):
                for way in (True, False):
                    ex._back_to_back = way and back_to_back
                    w, c = time.perf_counter(), time.process_time()
                    got[way] = extract_batch(arrays, 16000)
                    w = time.perf_counter() - w
                    c = time.process_time() - c
                    if way not in best or w < best[way][0]:
                        best[way] = (w, c)
            ex._back_to_back = back_to_back
            for x, y in zip(got[True], got[False]):
                x, y = getattr(x, "data", x), getattr(y, "data", y)
                if not np.array_equal(np.asarray(x).view("<u4"),
                                      np.asarray(y).view("<u4")):
                    sys.exit("the two ways differ")
            for way, name in ((True, "one run"), (False, "a run each")):
                w, c = best[way]
                print("%d x %4.1f s, %-10s: %6.3f s wall (%.2f ms/array), "
                      "CPU %6.3f s (%.2f ms/array)" % (
                          a.count, secs, name, w, 1000 * w / a.count, c,
                          1000 * c / a.count))


if __name__ == "__main__":
    main()
