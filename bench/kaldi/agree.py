#!/usr/bin/env python3
# bench/kaldi/chain.sh's helper: writes the benchmark's transform matrix, and
# checks that afet's archive and Kaldi's pieces hold the same keys and close
# numbers (NumPy only: the GPU machine has no kaldiio).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   agree.py --make-matrix PATH ROWS COLS     a seeded Kaldi binary FM matrix
#   agree.py AFET_ARK KALDI_ARK...            keys equal, first entries close
import struct
import sys

import numpy as np


def entries(path):
    """(key, matrix) of a Kaldi binary archive of FM, CM, CM2 or CM3
    entries, decompressed as Kaldi's CompressedMatrix::CopyToMat does."""
    d = open(path, "rb").read()
    i = 0
    while i < len(d):
        sp = d.index(b" ", i)
        key = d[i:sp].decode()
        assert d[sp + 1:sp + 3] == b"\0B", (path, key)
        tok_end = d.index(b" ", sp + 3)
        tok = d[sp + 3:tok_end]
        j = tok_end + 1
        if tok == b"FM":
            rows, cols = struct.unpack("<xixi", d[j:j + 10])
            j += 10
            m = np.frombuffer(d, "<f4", rows * cols, j).reshape(rows, cols)
            j += 4 * rows * cols
        else:
            mn, rng, rows, cols = struct.unpack("<ffii", d[j:j + 16])
            j += 16
            if tok == b"CM":
                h = np.frombuffer(d, "<u2", 4 * cols, j).reshape(cols, 4)
                j += 8 * cols
                p = mn + rng * np.float32(1.52590218966964e-05) * \
                    h.astype(np.float32)
                c = np.frombuffer(d, "u1", rows * cols, j).reshape(
                    cols, rows).astype(np.float32)
                j += rows * cols
                p0, p25, p75, p100 = (p[:, k:k + 1] for k in range(4))
                m = np.where(c <= 64, p0 + (p25 - p0) * c * (1 / 64.0),
                             np.where(c <= 192,
                                      p25 + (p75 - p25) * (c - 64) *
                                      (1 / 128.0),
                                      p75 + (p100 - p75) * (c - 192) *
                                      (1 / 63.0))).T
            elif tok == b"CM2":
                v = np.frombuffer(d, "<u2", rows * cols, j)
                j += 2 * rows * cols
                m = (mn + rng * (1 / 65535.0) * v).reshape(rows, cols)
            elif tok == b"CM3":
                v = np.frombuffer(d, "u1", rows * cols, j)
                j += rows * cols
                m = (mn + rng * (1 / 255.0) * v).reshape(rows, cols)
            else:
                raise ValueError("%s: entry %s is %r" % (path, key, tok))
        yield key, np.asarray(m, np.float32)
        i = j


def main():
    if sys.argv[1] == "--make-matrix":
        rows, cols = int(sys.argv[3]), int(sys.argv[4])
        m = (np.random.default_rng(20261128).standard_normal((rows, cols)) /
             np.sqrt(cols)).astype("<f4")
        with open(sys.argv[2], "wb") as f:
            f.write(b"\0BFM \4" + struct.pack("<i", rows) + b"\4" +
                    struct.pack("<i", cols) + m.tobytes())
        return 0
    ours = {}
    for k, m in entries(sys.argv[1]):
        ours[k] = m if len(ours) < 20 else m.shape
    theirs = {}
    for p in sys.argv[2:]:
        for k, m in entries(p):
            theirs[k] = m
    same = sorted(ours) == sorted(theirs)
    worst = 0.0
    for k, m in ours.items():
        if isinstance(m, np.ndarray) and k in theirs:
            t = theirs[k]
            if t.shape != m.shape:
                same = False
                continue
            worst = max(worst, float(np.linalg.norm(m - t) /
                                     np.linalg.norm(t)))
    print("agree: %d entries in afet's archive, %d in Kaldi's; keys %s; "
          "first 20 entries: worst rel L2 %.2g (both compressed)" % (
              len(ours), len(theirs), "equal" if same else "DIFFER", worst))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
