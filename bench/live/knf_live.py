#!/usr/bin/env python3
# kaldi-native-fbank's online fbank on N live streams, the peer of
# afet-live-cpu in bench/live/live.sh.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live peer of afet-live-cpu: kaldi-native-fbank's online fbank (its
C++ through the Python package) fed N streams of 16 kHz white noise in
10 ms chunks at real speed, in one process; every frame a chunk completes
is taken out at once. The process' CPU time (user + sys) over the run,
minus the same loop without the feature calls (chunk making and pacing
only), per stream and second of audio, in % of one core.

    python3 knf_live.py --streams 8 --seconds 30 [--mfcc]

(kaldi-native-fbank from PyPI; bench/.venv has it, see bench/README.md.)
"""
import argparse
import os
import sys
import time

import numpy as np


def run(n, seconds, compute, mfcc):
    import kaldi_native_fbank as knf
    rng = np.random.default_rng(1)
    chunks = [rng.uniform(-0.3, 0.3, 160).astype(np.float32)
              for _ in range(64)]
    if mfcc:
        opts = knf.MfccOptions()
    else:
        opts = knf.FbankOptions()
    opts.frame_opts.dither = 0.0
    make = knf.OnlineMfcc if mfcc else knf.OnlineFbank
    streams = [make(opts) for _ in range(n)] if compute else []
    taken = [0] * n
    frames = 0
    c0 = os.times()
    t0 = time.monotonic()
    for k in range(int(seconds * 100)):
        # pace: chunk k is due at k x 10 ms
        wait = t0 + k * 0.01 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        x = chunks[k % len(chunks)]
        for s in range(n):
            if compute:
                streams[s].accept_waveform(16000, x)
                ready = streams[s].num_frames_ready
                while taken[s] < ready:
                    streams[s].get_frame(taken[s])
                    taken[s] += 1
                    frames += 1
            else:
                x.sum()
    late = time.monotonic() - t0
    c1 = os.times()
    return (c1.user + c1.system) - (c0.user + c0.system), late, frames


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--streams", type=int, default=1)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--mfcc", action="store_true",
                   help="OnlineMfcc (13 cepstra) instead of OnlineFbank")
    a = p.parse_args()
    base, _, _ = run(a.streams, a.seconds, False, a.mfcc)
    cpu, late, frames = run(a.streams, a.seconds, True, a.mfcc)
    kind = "OnlineMfcc" if a.mfcc else "OnlineFbank (23 bins)"
    rt = late <= a.seconds + 2.0
    print("kaldi-native-fbank %s, %d streams x %.0f s: %.2f s CPU "
          "(loop alone %.2f s), last chunk at %.2f s%s, %d frames: %.2f %% "
          "of a core per stream" % (
              kind, a.streams, a.seconds, cpu, base, late,
              "" if rt else " (behind real time)", frames,
              100.0 * (cpu - base) / (a.seconds * a.streams)))
    return 0 if rt else 1


if __name__ == "__main__":
    sys.exit(main())
