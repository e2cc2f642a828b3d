#!/usr/bin/env python3
# bench/pitch/bench.sh's helper: afet's raw pitch archive (nccf, pitch)
# against Kaldi's compute-kaldi-pitch-feats pieces: the keys, the fraction
# of frames with the same lag, and the NCCF where the lag agrees.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   agree.py AFET_ARK KALDI_ARK...
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "kaldi"))
from agree import entries  # noqa: E402  (bench/kaldi/agree.py)


def main():
    theirs = {}
    for p in sys.argv[2:]:
        for k, m in entries(p):
            theirs[k] = m
    keys = frames = same = bad_shape = 0
    nccf_worst = 0.0
    seen = set()
    for k, m in entries(sys.argv[1]):
        seen.add(k)
        t = theirs.get(k)
        if t is None:
            continue
        keys += 1
        if t.shape != m.shape:
            bad_shape += 1
            continue
        # neighbouring lags of the grid differ by delta-pitch (0.5 %) in
        # pitch: 1e-3 relative tells the same lag from the next
        lag = np.abs(m[:, 1] - t[:, 1]) <= 1e-3 * np.abs(t[:, 1])
        frames += len(lag)
        same += int(lag.sum())
        if lag.any():
            nccf_worst = max(nccf_worst,
                             float(np.abs(m[lag, 0] - t[lag, 0]).max()))
    equal = seen == set(theirs)
    print("agree: %d entries in afet's archive, %d in Kaldi's; keys %s; "
          "%d with other row counts; same lag on %d of %d frames (%.4f %%); "
          "NCCF where the lag agrees within %.2g" % (
              len(seen), len(theirs), "equal" if equal else "DIFFER",
              bad_shape, same, frames, 100.0 * same / max(frames, 1),
              nccf_worst))
    return 0 if equal and bad_shape == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
