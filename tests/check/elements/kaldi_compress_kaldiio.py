#!/usr/bin/env python3
# Tests of Kaldi's compressed matrices between afet and kaldiio, a second
# reader and writer of Kaldi archives.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kaldi's compressed matrices between afet and kaldiio, a second reader
and writer of Kaldi archives.

  kaldi_compress_kaldiio.py GST_LAUNCH RECIPE_DIR

RECIPE_DIR is tests/data/kaldi-recipe.  For every compression method 1..7,
afetparse input/mfcc.ark ! afetenc format=kaldi compression-method=N must
give an archive kaldiio reads with the same keys and shapes and the same
values as kaldiio's reading of Kaldi's own compressed archive
(compress/mfcc.cmN.ark), near the input; and kaldiio's own compressed
archives (kaldiio.save_ark(..., compression_method=N)) must come out of
afetparse as kaldiio decompresses them (within float rounding: kaldiio's
NumPy arithmetic is not Kaldi's to the last bit, afetparse's is, which
afetenc-compress checks).

Exits 77 (skipped) when NumPy, kaldiio or gst-launch-1.0 is missing.
"""

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import kaldiio
except ImportError as e:
    print("skipped:", e, "for", sys.executable)
    sys.exit(77)

GST_LAUNCH, RECIPE = sys.argv[1], sys.argv[2]
if not os.path.exists(GST_LAUNCH):
    print("skipped: no gst-launch-1.0")
    sys.exit(77)

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def launch(line):
    r = subprocess.run([GST_LAUNCH, "-q"] + line, capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
    return r.returncode == 0


inp = os.path.join(RECIPE, "input", "mfcc.ark")
orig = dict(kaldiio.load_ark(inp))
tmp = tempfile.mkdtemp(prefix="afet-kaldiio-")

# 1. afet's compressed archives, read by kaldiio
for m in range(1, 8):
    out = os.path.join(tmp, "afet.cm%d.ark" % m)
    ok = launch(["filesrc", "location=" + inp, "!", "afetparse", "!",
                 "afetenc", "format=kaldi", "compression-method=%d" % m, "!",
                 "filesink", "location=" + out])
    ours = dict(kaldiio.load_ark(out)) if ok else {}
    theirs = dict(kaldiio.load_ark(os.path.join(RECIPE, "compress",
                                                "mfcc.cm%d.ark" % m)))
    same = ok and list(ours) == list(orig) and all(
        ours[k].shape == orig[k].shape and
        np.array_equal(ours[k], theirs[k]) for k in orig)
    # near the input where the range comes from the matrix
    err = max(float(np.abs(ours[k] - orig[k]).max() /
                    (orig[k].max() - orig[k].min())) for k in orig) \
        if same else 1.0
    near = m in (4, 6, 7) or err < 0.01
    check(same and near, "compression-method=%d: kaldiio reads afet's "
          "archive as Kaldi's (%d entries), max error %.2g of the range"
          % (m, len(ours), err))

# 2. kaldiio's compressed archives, read by afetparse
for m in range(1, 8):
    src = os.path.join(tmp, "kaldiio.cm%d.ark" % m)
    kaldiio.save_ark(src, orig, compression_method=m)
    raw = os.path.join(tmp, "kaldiio.cm%d.f32" % m)
    ok = launch(["filesrc", "location=" + src, "!", "afetparse", "!",
                 "afetenc", "format=raw", "!", "filesink",
                 "location=" + raw])
    ref = dict(kaldiio.load_ark(src))
    got = np.fromfile(raw, dtype="<f4") if ok else np.zeros(0, "<f4")
    want = np.concatenate([ref[k].astype(np.float32).ravel() for k in ref])
    scale = {4: 65535.0, 6: 255.0, 7: 1.0}.get(m, float(np.abs(want).max()))
    diff = float(np.abs(got - want).max()) if got.shape == want.shape \
        else float("inf")
    check(diff <= 1e-6 * scale, "kaldiio's compression-method=%d archive "
          "through afetparse: %d values, max |afet - kaldiio| %.3g"
          % (m, got.size, diff))

for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
