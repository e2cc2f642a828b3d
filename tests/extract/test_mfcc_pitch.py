#!/usr/bin/python3
# make_mfcc_pitch.sh's chain through afet-extract (--paste, and the same
# branches written out in -p) against Kaldi's paste-feats output
# (tests/data/kaldi-pitch/mfcc_pitch.ark; docs/kaldi-recipe.md).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   test_mfcc_pitch.py AFET_EXTRACT DATA_DIR
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
REF = os.path.join(DATA, "kaldi-pitch", "mfcc_pitch.ark")
KEYS = ["s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k"]
MFCC = "afetmfcc preset=kaldi"
PITCH = "afetpitch delta-pitch-noise-stddev=0"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args):
    p = subprocess.run(args, capture_output=True, timeout=600)
    return p.returncode, p.stdout.decode(), p.stderr.decode("utf-8", "replace")


def same_numbers(out, what, tol=1e-4):
    """Every key of mfcc_pitch.ark in out, its shape, within tol rel L2."""
    a, b = dict(kaldiio.load_ark(out)), dict(kaldiio.load_ark(REF))
    check(sorted(a) == sorted(b), "%s: keys %s" % (what, sorted(a)))
    worst = 0.0
    for k in b:
        if k not in a or a[k].shape != b[k].shape:
            check(False, "%s: %s has shape %s, Kaldi's %s" % (
                what, k, a[k].shape if k in a else None, b[k].shape))
            continue
        d = a[k].astype(np.float64) - b[k]
        worst = max(worst, float(np.linalg.norm(d) / np.linalg.norm(b[k])))
    check(worst <= tol, "%s: worst rel L2 vs paste-feats %.3g <= %g" % (
        what, worst, tol))


tmp = tempfile.mkdtemp(prefix="afet-mfcc-pitch-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
wav_scp = os.path.join(tmp, "wav.scp")
with open(wav_scp, "w") as f:
    for k in KEYS:
        f.write("%s %s\n" % (k, os.path.join(AUDIO, k + ".wav")))

# --paste: the tee, the branches and afetpaste length-tolerance=2 (the
# default, as make_mfcc_pitch.sh's --paste-length-tolerance)
for jobs in ("1", "2"):
    out = os.path.join(tmp, "paste-j%s.ark" % jobs)
    rc, _, err = run([X, "-q", "-j", jobs, "--wav-scp", wav_scp, "--ark", out,
                      "-p", MFCC, "--paste", PITCH])
    check(rc == 0, "--paste, -j %s: exit %d %s" % (jobs, rc, err))
    if rc == 0:
        same_numbers(out, "-p '%s' --paste '%s' -j %s" % (MFCC, PITCH, jobs))

# the same branches written out in -p, as gst-launch-1.0 takes them
out = os.path.join(tmp, "branched.ark")
chain = ("tee name=t ! queue ! %s ! p.sink_0 t. ! queue ! %s ! p.sink_1 "
         "afetpaste name=p length-tolerance=2" % (MFCC, PITCH))
rc, _, err = run([X, "-q", "--wav-scp", wav_scp, "--ark", out, "-p", chain])
check(rc == 0, "branched -p: exit %d %s" % (rc, err))
if rc == 0:
    same_numbers(out, "-p '%s'" % chain)

# --print-pipeline shows the branches
rc, text, err = run([X, "--wav-scp", wav_scp, "--ark", out, "-p", MFCC,
                     "--paste", PITCH, "--paste-length-tolerance", "1",
                     "--print-pipeline"])
check(rc == 0 and "afetx_tee. ! queue ! " + PITCH in text and
      "afetpaste name=afetx_paste length-tolerance=1" in text,
      "--print-pipeline: %s" % text.strip())

# --paste-length-tolerance 0: s02_16k (463 MFCC frames, 464 of pitch) fails
# with paste-feats' reason and its key; the others are written
out = os.path.join(tmp, "strict.ark")
rc, _, err = run([X, "-q", "--wav-scp", wav_scp, "--ark", out, "-p", MFCC,
                  "--paste", PITCH, "--paste-length-tolerance", "0"])
check(rc == 1 and "s02_16k" in err and "Length mismatch" in err and
      "length-tolerance=0" in err,
      "--paste-length-tolerance 0: exit %d, %s" % (rc, err.strip()))
got = sorted(k for k, _ in kaldiio.load_ark(out)) if os.path.exists(out) \
    else []
check(got == sorted(k for k in KEYS if k != "s02_16k"),
      "--paste-length-tolerance 0: the other keys written: %s" % got)

# usage errors
for args, what in (([ "--paste", ""], "--paste needs a chain"),
                   (["--paste", PITCH, "--paste-length-tolerance", "-1"],
                    "--paste-length-tolerance takes frames")):
    rc, _, err = run([X, "--wav-scp", wav_scp, "--ark", out, "-p", MFCC] +
                     args)
    check(rc == 2 and what in err, "%s: exit %d %s" % (args, rc, err.strip()))

if failures:
    print("%d failed" % len(failures))
    sys.exit(1)
