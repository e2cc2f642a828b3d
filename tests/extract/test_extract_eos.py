#!/usr/bin/python3
# afet-extract when its pipeline posts an input's EOS twice, as GStreamer 1.22's
# GstBin does at times: every input still gets its own end (test extract-eos).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A runner's pipeline is reused from input to input.  GstBin posts an EOS
# message from bin_do_eos, which both the streaming thread (the sink's EOS)
# and the state change to PLAYING call; when they meet, both pass its check
# and the same EOS (one seqnum) is posted twice.  afet-extract took the second
# copy, left on the bus, for the next input's end: that input stopped at
# once, "no audio came out of the decoder" (or "too short for one frame"
# when some of it had gone through), about one run of the Slurm test's
# 32 files in 10, one run of 300 short files at -j 4 in 100.
#
# The race cannot be forced from outside, so the shim dup-eos.so (LD_PRELOAD)
# posts every EOS twice, as the race does; afet-extract must give the same
# bytes as without it, on every path that reuses a pipeline: the WAV reader
# (appsrc), decodebin (--no-wav-reader), segments, into files and archives.
# Before the fix every input after a successful one failed.
#
# A chain whose elements all reset on a flush (this one) runs the WAV
# reader's inputs through afet-extract's direct pads, with no state change
# and no EOS message between inputs (tools/afet-extract/direct.h); the
# appsrc path is what other chains (afetpitch, afetpaste) take, and
# AFET_EXTRACT_DIRECT=0 makes this chain take it.  The reference runs are
# the default (direct), so the duplicated runs on the appsrc path are also
# compared with the direct pads' bytes.
#
# Usage: test_extract_eos.py AFET_EXTRACT DUP_EOS_SO
import os
import re
import shutil
import subprocess
import sys
import tempfile

from speechwav import write_wav

X, SHIM = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHAIN = "afetmfcc frame-length=20 ! afetdelta order=2"
FILES = 24
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args, shim, extra=None):
    """(exit status, stderr); the shim's count line is kept in stderr."""
    env = dict(os.environ)
    env.update(extra or {})
    if shim:
        env["LD_PRELOAD"] = SHIM
    try:
        p = subprocess.run([X] + args + ["-p", CHAIN, "-q"],
                           capture_output=True, text=True, timeout=300,
                           env=env)
    except subprocess.TimeoutExpired:
        return None, "(hung: killed after 300 s)"
    return p.returncode, p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def outputs(path):
    """A folder's files or an archive with its index: {name: bytes}."""
    if os.path.isdir(path):
        return {f: read(os.path.join(path, f)) for f in sorted(os.listdir(path))}
    return {"ark": read(path), "scp": read(path[:-4] + ".scp")}



tmp = tempfile.mkdtemp(prefix="afet-eos-")
try:
    os.chdir(tmp)
    os.mkdir("wavs")
    with open("wav.scp", "w") as scp, open("segments", "w") as seg:
        for i in range(FILES):
            path = os.path.abspath("wavs/utt%02d.wav" % i)
            write_wav(path, 3200 + 1000 * (i % 11), i)
            scp.write("utt%02d %s\n" % (i, path))
            if i < 4:
                # three segments a recording, through the reused appsrc
                for k in range(3):
                    seg.write("utt%02d-%d utt%02d %.2f %.2f\n"
                              % (i, k, i, 0.05 * k, 0.05 * k + 0.15))
    with open("rec.scp", "w") as f:
        f.writelines(line for n, line in enumerate(open("wav.scp")) if n < 4)

    appsrc = {"AFET_EXTRACT_DIRECT": "0"}
    cases = [
        ("the WAV reader (appsrc) into an archive, -j 1",
         ["--wav-scp", "wav.scp", "--ark", "%s/feats.ark", "-j", "1"], appsrc),
        ("the WAV reader (appsrc) into files, -j 2",
         ["--wav-scp", "wav.scp", "-o", "%s", "-j", "2"], appsrc),
        ("decodebin (--no-wav-reader) into an archive, -j 1",
         ["--wav-scp", "wav.scp", "--ark", "%s/feats.ark", "-j", "1",
          "--no-wav-reader"], None),
        ("segments (appsrc) into an archive, -j 1",
         ["--wav-scp", "rec.scp", "--segments", "segments", "--ark",
          "%s/feats.ark", "-j", "1"], appsrc),
    ]
    for n, (what, args, extra) in enumerate(cases):
        ref_dir, dup_dir = "ref%d" % n, "dup%d" % n
        rc, err = run([a.replace("%s", ref_dir) for a in args], False)
        check(rc == 0, "%s, as GStreamer posts it: exit %s %s"
              % (what, rc, err.strip()[-300:]))
        rc, err = run([a.replace("%s", dup_dir) for a in args], True, extra)
        m = re.search(r"dup-eos: (\d+) duplicates", err)
        dups = int(m.group(1)) if m else 0
        errors = [line for line in err.splitlines()
                  if not line.startswith("dup-eos:")]
        check(dups > 0, "%s: the shim posted %d EOS twice" % (what, dups))
        check(rc == 0, "%s, every EOS posted twice: exit %s %s"
              % (what, rc, "\n".join(errors[:4])))
        path = lambda d: d if "-o" in args else os.path.join(d, "feats.ark")
        if os.path.exists(path(ref_dir)) and os.path.exists(path(dup_dir)):
            ref, got = outputs(path(ref_dir)), outputs(path(dup_dir))
            if "scp" in ref:
                ref["scp"] = ref["scp"].replace(ref_dir.encode(),
                                                dup_dir.encode())
            check(got == ref, "%s, every EOS posted twice: the same bytes "
                  "as without (%d outputs)" % (what, len(ref)))
        else:
            check(False, "%s: outputs written" % what)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
