#!/usr/bin/python3
# afet-extract's direct pads (test extract-direct): inputs run one after the
# other through a chain kept playing, with a flush between them instead of
# a state change, give every input the bytes it gets alone.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One job (-j 1) takes a list that mixes rates (8, 16 and 44.1 kHz: the caps
# change between inputs), 8- and 16-bit samples, lengths from one frame to
# seconds, an input too short for a frame and one that is not audio (it goes
# to the decoder's pipeline; both must fail alone, and the inputs after them
# must not change); each output is
# compared with afet-extract run on that input alone, and with the state
# changes kept (AFET_EXTRACT_DIRECT=0).  Chains: utterance CMVN (a chain that
# did not reset would normalise an input by the one before), sliding CMVN
# into a Kaldi archive (entries in memory), MFCC_0_D_A_Z into HTK files, and
# a chain with audioresample (which takes the state changes).  A short input
# first and longer ones after get larger batches; afetcmvn write-stats= is
# refused; --segments over a recording that is not audio fails, not hangs.
# Then a full disk (the shim fail-write.so: ENOSPC past a size) fails the
# inputs it stops, leaves no file of theirs, and the others are whole.
#
# Usage: test_extract_direct.py AFET_EXTRACT FAIL_WRITE_SO
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

X, SHIM = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def write_wav(path, n, rate, width, seed):
    rng = random.Random(seed)
    f0 = rng.uniform(90, 300)
    x = [8000 * math.sin(2 * math.pi * f0 * i / rate) + rng.gauss(0, 600)
         for i in range(n)]
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(rate)
        if width == 2:
            w.writeframes(struct.pack("<%dh" % n, *[int(v) for v in x]))
        else:
            w.writeframes(bytes(max(0, min(255, int(v / 256) + 128))
                                for v in x))


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([X] + args, capture_output=True, text=True,
                       timeout=600, env=e)
    return p.returncode, p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


tmp = tempfile.mkdtemp(prefix="afet-direct-")
try:
    os.chdir(tmp)
    os.mkdir("w")
    # (name, samples, rate, bytes a sample)
    inputs = [("a16", 16000, 16000, 2), ("b16", 4000, 16000, 2),
              ("c8", 12000, 8000, 2), ("d44", 30000, 44100, 2),
              ("e16", 9000, 16000, 1), ("f16", 400, 16000, 2),
              ("g16", 100, 16000, 2), ("h16", 21000, 16000, 2),
              ("i8", 6000, 8000, 2), ("j16", 16000, 16000, 2)]
    for n, (name, count, rate, width) in enumerate(inputs):
        write_wav("w/%s.wav" % name, count, rate, width, n)
    # k16: not audio
    with open("w/k16.wav", "wb") as f:
        f.write(bytes(random.Random(7).randrange(256) for _ in range(5000)))
    names = [i[0] for i in inputs]
    names.insert(7, "k16")
    too_short = {"g16"}         # 100 samples: less than one 25 ms frame
    junk = {"k16"}

    def scp(path, which):
        with open(path, "w") as f:
            for name in which:
                f.write("%s %s\n" % (name, os.path.abspath("w/%s.wav" % name)))

    scp("all.scp", names)
    chains = [
        ("utterance CMVN, NPY files", "afetmfcc ! afetdelta ! afetcmvn",
         ["--format", "npy"]),
        ("sliding CMVN, a Kaldi archive",
         "afetmfcc preset=kaldi ! afetcmvn scope=sliding", ["--ark", None]),
        ("MFCC_0_D_A_Z, HTK files", "afetmfcc frame-length=20 ! afetdelta "
         "order=2 ! afetcmvn columns=htk", ["--format", "htk"]),
        # audioresample keeps its phase through a flush (44.1 kHz inputs
        # differed by up to 0.03 after another input): the state changes
        ("resampled to 16 kHz, NPY files", "audioresample ! "
         "audio/x-raw,rate=16000 ! afetmfcc", ["--format", "npy"]),
    ]
    for c, (what, chain, fmt) in enumerate(chains):
        def outputs(folder, env=None, which=None, **kw):
            os.makedirs(folder)
            args = ["--wav-scp", "all.scp" if which is None else which,
                    "-p", chain, "-j", "1", "-q"]
            if fmt[0] == "--ark":
                args += ["--ark", folder + "/feats.ark"]
            else:
                args += ["-o", folder] + fmt
            rc, err = run(args, env)
            if fmt[0] == "--ark":
                from_ark = {}
                if os.path.exists(folder + "/feats.ark"):
                    data = read(folder + "/feats.ark")
                    for line in open(folder + "/feats.scp"):
                        key, where = line.split()
                        pos = int(where.rsplit(":", 1)[1])
                        from_ark[key] = pos
                    # each entry's bytes: from its offset to the next key
                    keys = sorted(from_ark, key=from_ark.get)
                    for k, key in enumerate(keys):
                        end = (from_ark[keys[k + 1]] - len(keys[k + 1]) - 1
                               if k + 1 < len(keys) else len(data))
                        from_ark[key] = data[from_ark[key]:end]
                return rc, err, from_ark
            return rc, err, {f.rsplit(".", 1)[0]: read(os.path.join(folder, f))
                             for f in os.listdir(folder)}

        rc, err, got = outputs("c%d-direct" % c)
        bad = too_short | junk
        check(rc == 1 and all(("%s (" % b) in err for b in bad),
              "%s: exit 1, naming the two bad inputs (%s)"
              % (what, err.strip()[-300:]))
        check("too short for one frame" in err and "not audio" in err,
              "%s: the bad inputs' causes said" % what)
        check(sorted(got) == sorted(set(names) - bad),
              "%s: every good input written, no bad one (%s)"
              % (what, sorted(got)))
        rc0, _, state = outputs("c%d-state" % c, {"AFET_EXTRACT_DIRECT": "0"})
        check(state == got, "%s: the same bytes with the state changes "
              "kept (%d outputs)" % (what, len(got)))
        alone_same = []
        for name in sorted(set(names) - bad):
            scp("one-%s.scp" % name, [name])
            _, _, one = outputs("c%d-one-%s" % (c, name),
                                which="one-%s.scp" % name)
            alone_same.append(one.get(name) == got.get(name) and
                              one.get(name) is not None)
        check(all(alone_same), "%s: each output as the input alone gives "
              "it (%d of %d)" % (what, sum(alone_same), len(alone_same)))

    # a short first input, then longer ones: the elements size their
    # batches by upstream's duration; a run longer than the one they were
    # built for builds larger batches at its start (GstAfetBase), with the
    # flush between inputs and no new caps
    scp("grow.scp", ["g16", "f16", "a16", "h16"])
    e = dict(os.environ, GST_DEBUG="afetbase:4")
    p = subprocess.run([X, "--wav-scp", "grow.scp", "-p", chains[2][1], "-j",
                        "1", "-q", "-o", "grow"], capture_output=True,
                       text=True, timeout=600, env=e)
    sizes = [int(x) for x in re.findall(r"batches of (\d+) frames", p.stderr)]
    # (the first sizes are the chain check's, on 0.1 s of noise)
    job = sizes[sizes.index(min(sizes)):] if sizes else []
    check(len(job) > 3 and max(job) > job[0],
          "a longer input after a short one: larger batches (%s)" % sizes)
    same = all(read("grow/%s.htk" % n) == read("c2-direct/%s.htk" % n)
               for n in ["f16", "a16", "h16"])
    check(same, "a longer input after a short one: the same bytes")

    # afetcmvn write-stats= sums one stream: refused, with the way to do it
    rc, err = run(["--wav-scp", "all.scp", "-p", "afetmfcc preset=kaldi ! "
                   "afetcmvn mode=none write-stats=st.ark", "-q", "--ark",
                   "ws.ark"])
    check(rc == 2 and "afetparse" in err and not os.path.exists("st.ark"),
          "write-stats refused (%s)" % err.strip()[-200:])
    # the same to HTK files: refused before the chain's check at start-up
    # runs the chain (which would write the file from its noise)
    rc, err = run(["--wav-scp", "all.scp", "-p", "afetmfcc ! afetcmvn "
                   "write-stats=st2.ark", "-q", "-o", "ws-htk"])
    outs = os.listdir("ws-htk") if os.path.isdir("ws-htk") else []
    check(rc == 2 and "afetparse" in err and not os.path.exists("st2.ark")
          and not outs, "write-stats refused before anything runs, HTK "
          "files (%s; outputs %s)" % (err.strip()[-200:], outs))

    # --segments over a recording that is not audio: an error, not a hang
    with open("junkrec.scp", "w") as f:
        f.write("r %s\n" % os.path.abspath("w/k16.wav"))
    with open("junk.seg", "w") as f:
        f.write("j r 0 0.1\n")
    try:
        p = subprocess.run([X, "--wav-scp", "junkrec.scp", "--segments",
                            "junk.seg", "--ark", "junk.ark", "-p",
                            "afetmfcc", "-q"], capture_output=True,
                           text=True, timeout=120)
        check(p.returncode == 1 and "not audio" in p.stderr,
              "segments of a non-audio recording: exit 1, said (%s)"
              % p.stderr.strip()[-200:])
    except subprocess.TimeoutExpired:
        check(False, "segments of a non-audio recording: hung (120 s)")

    # a full disk: outputs past 12 kB fail, the others are whole
    chain = chains[2][1]
    os.makedirs("lim")
    rc, err = run(["--wav-scp", "all.scp", "-p", chain, "-j", "1", "-q",
                   "-o", "lim", "--format", "htk"],
                  {"LD_PRELOAD": SHIM, "AFET_FAIL_WRITE_PAST": "12000"})
    ref = {f: read("c2-direct/" + f) for f in os.listdir("c2-direct")}
    big = {f for f, b in ref.items() if len(b) > 12000}
    small = set(ref) - big
    kept = set(os.listdir("lim"))
    check(rc == 1 and "cannot write the output: No space left on device"
          in err, "a full disk: exit 1, the cause said (%s)"
          % err.strip()[-300:])
    check(big and kept == small,
          "a full disk: no file for the %d inputs past the limit, "
          "the %d others written (%s)" % (len(big), len(small), sorted(kept)))
    check(all(read("lim/" + f) == ref[f] for f in kept),
          "a full disk: the files written are whole")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
