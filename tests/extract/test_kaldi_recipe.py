#!/usr/bin/python3
# A Kaldi recipe's whole feature front end through afet-extract and
# gst-launch-1.0, against Kaldi's own programs in a pipe
# (tests/data/kaldi-recipe/chain, generate.sh there; docs/kaldi-recipe.md).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   test_kaldi_recipe.py AFET_EXTRACT DATA_DIR
import atexit
import os
import subprocess
import sys
import shutil
import tempfile

import kaldiio
import numpy as np

X, DATA = sys.argv[1], sys.argv[2]
AUDIO = os.path.join(DATA, "audio")
REF = os.path.join(DATA, "kaldi-recipe", "chain")
KEYS = ["s01_16k", "s02_16k", "s03_16k"]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args):
    p = subprocess.run(args, capture_output=True, timeout=600)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def ark(path):
    return dict(kaldiio.load_ark(path))


def rel(a, b):
    return float(np.linalg.norm(a.astype(np.float64) - b) / np.linalg.norm(b))


def same_numbers(out, ref, what, tol=1e-5):
    """Every key of ref in out, the same shape, within tol relative L2."""
    a, b = ark(out), ark(ref)
    check(sorted(a) == sorted(b), "%s: keys %s" % (what, sorted(a)))
    worst = 0.0
    for k in b:
        if k not in a or a[k].shape != b[k].shape:
            check(False, "%s: %s has shape %s, Kaldi's %s" % (
                what, k, a[k].shape if k in a else None, b[k].shape))
            continue
        worst = max(worst, rel(a[k], b[k]))
    check(worst <= tol, "%s: worst rel L2 %.3g <= %g" % (what, worst, tol))
    return a


tmp = tempfile.mkdtemp(prefix="afet-recipe-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
wav_scp = os.path.join(tmp, "wav.scp")
with open(wav_scp, "w") as f:
    for k in KEYS:
        f.write("%s %s\n" % (k, os.path.join(AUDIO, k + ".wav")))
cmvn = os.path.join(REF, "cmvn.ark")
u2s = os.path.join(REF, "utt2spk")
apply = ("afetmfcc preset=kaldi ! afetcmvn scope=archive stats-archive=%s "
         "utt2spk=%s" % (cmvn, u2s))
lda_chain = apply + (" ! afetsplice left-context=3 right-context=3 ! "
                     "afettransform matrix=%s" % os.path.join(REF, "final.mat"))

# apply-cmvn --utt2spk | splice-feats 3/3 | transform-feats final.mat: each
# entry's key reaches afetcmvn (its speaker's statistics) as an afet-key tag
for jobs in ("1", "2"):
    out = os.path.join(tmp, "lda-j%s.ark" % jobs)
    rc, err = run([X, "-q", "-j", jobs, "--wav-scp", wav_scp, "--ark", out,
                   "-p", lda_chain])
    check(rc == 0, "LDA front end, -j %s: exit %d %s" % (jobs, rc, err))
    if rc == 0:
        same_numbers(out, os.path.join(REF, "lda.ark"),
                     "LDA front end -j %s vs Kaldi's pipe" % jobs)

# ... | copy-feats --compress=true: afet's compressed archive is as far from
# Kaldi's floats as Kaldi's own compressed one is (the bytes differ where
# the floats before compression differ in their last bits)
out = os.path.join(tmp, "lda-cm.ark")
rc, err = run([X, "-q", "--wav-scp", wav_scp, "--ark", out, "--compress=1",
               "-p", lda_chain])
check(rc == 0, "compressed LDA front end: exit %d %s" % (rc, err))
if rc == 0:
    with open(out, "rb") as f:
        head = f.read(16)
    check(b"\0BCM " in head, "entries are Kaldi's CM matrices: %r" % head)
    a, b = ark(out), ark(os.path.join(REF, "lda.cm.ark"))
    floats = ark(os.path.join(REF, "lda.ark"))
    for k in KEYS:
        ours, kaldis = rel(a[k], floats[k]), rel(b[k], floats[k])
        check(ours <= 1.5 * kaldis, "%s compressed: rel L2 %.3g to Kaldi's "
              "floats, Kaldi's own compression %.3g" % (k, ours, kaldis))

# apply-cmvn --utt2spk | add-deltas
out = os.path.join(tmp, "deltas.ark")
rc, err = run([X, "-q", "--wav-scp", wav_scp, "--ark", out, "-p",
               apply + " ! afetdelta preset=kaldi"])
check(rc == 0, "delta front end: exit %d %s" % (rc, err))
if rc == 0:
    same_numbers(out, os.path.join(REF, "deltas.ark"),
                 "delta front end vs Kaldi's pipe")

# compute-cmvn-stats --spk2utt from afet's MFCC archive: what the recipe's
# statistics step does with afet's features
mfcc = os.path.join(tmp, "mfcc.ark")
stats = os.path.join(tmp, "cmvn.ark")
rc, err = run([X, "-q", "--wav-scp", wav_scp, "--ark", mfcc, "-p",
               "afetmfcc preset=kaldi"])
check(rc == 0, "MFCC archive: exit %d %s" % (rc, err))
rc, err = run(["gst-launch-1.0", "-q", "filesrc", "location=" + mfcc, "!",
               "afetparse", "!", "afetcmvn", "mode=none",
               "write-stats=" + stats, "utt2spk=" + u2s, "!", "fakesink"])
check(rc == 0, "write-stats from the archive: exit %d %s" % (rc, err))
if rc == 0:
    a, b = ark(stats), ark(cmvn)
    check(sorted(a) == ["spkA", "spkB"], "statistics per speaker: %s"
          % sorted(a))
    for s in b:
        if s in a:
            check(a[s][0, -1] == b[s][0, -1] and rel(a[s], b[s]) <= 1e-5,
                  "%s: count %g (Kaldi %g), rel L2 %.3g" % (
                      s, a[s][0, -1], b[s][0, -1], rel(a[s], b[s])))

# the same front end live, one utterance: gst-launch with the key set on
# afetcmvn (no archive gives it a tag), frames equal to the archive's
wav = os.path.join(AUDIO, "s03_16k.wav")
npy = os.path.join(tmp, "live.npy")
rc, err = run(["gst-launch-1.0", "-q", "filesrc", "location=" + wav, "!",
               "wavparse", "!", "audioconvert", "!", "audio/x-raw,channels=1",
               "!", "afetmfcc", "preset=kaldi", "!", "afetcmvn",
               "scope=archive", "stats-archive=" + cmvn, "utt2spk=" + u2s,
               "key=s03_16k", "!", "afetsplice", "left-context=3",
               "right-context=3", "!", "afettransform",
               "matrix=" + os.path.join(REF, "final.mat"), "!", "afetenc",
               "format=npy", "!", "filesink", "location=" + npy])
check(rc == 0, "gst-launch front end: exit %d %s" % (rc, err))
if rc == 0:
    got, want = np.load(npy), ark(os.path.join(REF, "lda.ark"))["s03_16k"]
    check(got.shape == want.shape and rel(got, want) <= 1e-5,
          "gst-launch front end: %s, rel L2 %.3g" % (
              got.shape, rel(got, want) if got.shape == want.shape else -1))

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
