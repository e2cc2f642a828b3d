#!/usr/bin/python3
# Tests of afet-extract's outputs: nothing overwritten, nothing lost, nothing
# written outside the output folder (each case failed before its fix).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   test_extract_outputs.py AFET_EXTRACT DATA_DIR
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

X, DATA = sys.argv[1], sys.argv[2]
AUDIO = os.path.join(DATA, "audio")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args, env=None, preexec_fn=None):
    p = subprocess.run([X] + args, capture_output=True, timeout=600,
                       env=env, preexec_fn=preexec_fn)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace"), p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def ark_entries(path):
    """An independent Kaldi binary archive reader: (key, offset, bytes)."""
    d = read(path)
    i, out = 0, []
    while i < len(d):
        sp = d.index(b" ", i)
        assert d[sp + 1:sp + 6] == b"\0BFM ", d[sp + 1:sp + 6]
        rows = struct.unpack("<i", d[sp + 7:sp + 11])[0]
        cols = struct.unpack("<i", d[sp + 12:sp + 16])[0]
        end = sp + 16 + 4 * rows * cols
        assert end <= len(d), "entry cut short"
        out.append((d[i:sp].decode(), sp + 1, d[sp + 1:end]))
        i = end
    return out


def index_agrees(ark, scp):
    """Every line of the index names a whole entry of the archive, in
    order, and the archive holds nothing else."""
    e = ark_entries(ark)
    lines = [l.split() for l in open(scp)]
    return len(lines) == len(e) and all(
        k == key and int(loc.rsplit(":", 1)[1]) == off
        for (k, loc), (key, off, _) in zip(lines, e))


def tree(d):
    return sorted(os.path.relpath(os.path.join(r, f), d)
                  for r, _, fs in os.walk(d) for f in fs)


tmp = tempfile.mkdtemp(prefix="afet-extract-out-")
os.chdir(tmp)
wavs = sorted(os.path.join(AUDIO, f) for f in os.listdir(AUDIO)
              if f.endswith("_16k.wav"))

# 1. the same base name in different folders (TIMIT's dr1/fcjf0/sa1.wav):
#    refused before anything runs, at any -j, in files and in archives
for d, w in (("dr1/fcjf0", wavs[0]), ("dr2/mabc0", wavs[1]),
             ("dr3/fxyz0", wavs[2])):
    os.makedirs(d)
    os.symlink(w, d + "/sa1.wav")
with open("timit.scp", "w") as f:
    f.write("dr1/fcjf0/sa1.wav\ndr2/mabc0/sa1.wav\ndr3/fxyz0/sa1.wav\n")
for j in ("1", "3"):
    rc, _, err, _ = run(["--scp", "timit.scp", "-o", "t%s" % j, "-j", j])
    check(rc == 2 and "dr2/mabc0/sa1.wav" in err and "timit.scp:1" in err
          and "'IN OUT'" in err,
          "-j %s: same base names refused, both lines named (%s)" %
          (j, err.strip()[-160:]))
    check(not os.path.exists("t" + j), "-j %s: nothing written" % j)
rc, _, err, _ = run(["--scp", "timit.scp", "--ark", "ta/f.ark"])
check(rc == 2 and "the key sa1" in err and "--wav-scp" in err,
      "--ark: duplicate keys refused (%s)" % err.strip()[-160:])
with open("two.scp", "w") as f:
    f.write("%s o2/x.htk\n%s o2/./x.htk\n" % (wavs[0], wavs[1]))
rc, _, err, _ = run(["--scp", "two.scp"])
check(rc == 2 and "two.scp:2" in err and "two.scp:1" in err,
      "two lines writing one file (o2/x.htk, o2/./x.htk) refused")
# what a TIMIT user does instead: an output a line, all kept
with open("timit2.scp", "w") as f:
    for d in ("dr1/fcjf0", "dr2/mabc0", "dr3/fxyz0"):
        f.write("%s/sa1.wav feats/%s/sa1.htk\n" % (d, d))
rc, _, err, _ = run(["--scp", "timit2.scp", "-j", "3"])
check(rc == 0 and len(tree("feats")) == 3 and
      len({read("feats/" + f) for f in tree("feats")}) == 3,
      "two-column list: three distinct outputs")

# segment ids and uttids: each once
with open("w.scp", "w") as f:
    f.write("r1 %s\nr2 %s\n" % (wavs[0], wavs[1]))
with open("seg-dup", "w") as f:
    f.write("s1 r1 0.1 0.9\ns1 r2 0.2 0.8\n")
for out in (["-o", "sd"], ["--ark", "sd/s.ark"]):
    rc, _, err, _ = run(["--wav-scp", "w.scp", "--segments", "seg-dup"] + out)
    check(rc == 2 and "seg-dup:2" in err and "seg-dup:1" in err,
          "%s: a segment id twice refused (%s)" % (out[0],
                                                    err.strip()[-120:]))

# 2. an output that is an input: the list, the segments, the config, a
#    recording; by another path too
os.makedirs("data")
with open("data/wav.scp", "w") as f:
    f.write("u1 %s\nu2 %s\n" % (wavs[0], wavs[1]))
before = read("data/wav.scp")
rc, _, err, _ = run(["--wav-scp", "data/wav.scp", "--ark", "data/wav.ark"])
check(rc == 2 and "would overwrite the list --wav-scp" in err,
      "--ark's index over the input list refused (%s)" % err.strip()[-120:])
check(read("data/wav.scp") == before and not os.path.exists("data/wav.ark"),
      "the input list is untouched, no archive made")
os.symlink("data", "alias")
rc, _, err, _ = run(["--wav-scp", "alias/wav.scp", "--ark", "data/wav.ark"])
check(rc == 2 and read("data/wav.scp") == before,
      "the same list through a symbolic link refused")
with open("segs.ark", "w") as f:       # a list that happens to end in .ark
    f.write("s1 u1 0.1 0.5\n")
rc, _, err, _ = run(["--wav-scp", "data/wav.scp", "--segments", "segs.ark",
                     "--ark", "segs.ark"])
check(rc == 2 and "--segments" in err, "--ark over the segments refused")
os.symlink(wavs[0], "in.wav")
with open("self.scp", "w") as f:
    f.write("in.wav ./in.wav\n")
rc, _, err, _ = run(["--scp", "self.scp"])
check(rc == 2 and "would overwrite the input" in err and
      os.path.islink("in.wav"), "an output over its own input refused")

# 3. keys must name files inside --out-dir
os.makedirs("jail")
for key in ("../../escaped", "a/b/c", "/abs"):
    with open("k.scp", "w") as f:
        f.write("%s %s\n" % (key, wavs[0]))
    rc, _, err, _ = run(["--wav-scp", "k.scp", "-o", "jail/out"])
    check(rc == 2 and "holds a '/'" in err and "--ark" in err,
          "uttid %r refused (%s)" % (key, err.strip()[-100:]))
check(tree(".").count("escaped.htk") == 0 and
      not os.path.exists("jail/out") and not os.path.exists("escaped.htk"),
      "nothing written outside (or inside) the output folder")
with open("k.scp", "w") as f:
    f.write("spk/utt1 %s\n" % wavs[0])
rc, _, err, _ = run(["--wav-scp", "k.scp", "--ark", "kk/k.ark"])
check(rc == 0 and [k for k, _, _ in ark_entries("kk/k.ark")] ==
      ["spk/utt1"], "in an archive a key may hold '/'")
with open("seg-esc", "w") as f:
    f.write("../s1 u1 0.1 0.9\n")
rc, _, err, _ = run(["--wav-scp", "data/wav.scp", "--segments", "seg-esc",
                     "-o", "jail/segs"])
check(rc == 2 and "seg-esc:1" in err and not os.path.exists("jail/s1.htk"),
      "segment id '../s1' refused")
# a name longer than a file name may be: said up front (was "the pipeline
# did not start" for each input)
long_key = "u" * 252
with open("long.scp", "w") as f:
    f.write("%s %s\n" % (long_key, wavs[0]))
rc, _, err, _ = run(["--wav-scp", "long.scp", "-o", "lo"])
check(rc == 2 and "longer than the 255" in err,
      "a 256-byte name refused up front (%s)" % err.strip()[-120:])
with open("long.scp", "w") as f:
    f.write("%s %s\n" % ("u" * 251, wavs[0]))
rc, _, err, _ = run(["--wav-scp", "long.scp", "-o", "lo"])
check(rc == 0 and os.path.getsize("lo/" + "u" * 251 + ".htk") > 12,
      "a 255-byte name written (%s)" % err.strip()[-120:])
# a NUL in a list
with open("nul.scp", "wb") as f:
    f.write(b"u1 %s\nu2 x\0y\n" % wavs[0].encode())
rc, _, err, _ = run(["--wav-scp", "nul.scp", "-o", "nul"])
check(rc == 2 and "nul.scp:2" in err and "NUL" in err,
      "a NUL byte in a list refused with its line")

# 4. temporary files: created exclusively, never through a planted link
os.makedirs("shared")
with open("victim", "wb") as f:
    f.write(b"precious")
with open("v.scp", "w") as f:
    f.write("utt %s\nutt2 %s\n" % (wavs[0], wavs[1]))
for name in ("utt.htk.afet-part", "utt.htk.afet-part-000000"):
    os.symlink(os.path.abspath("victim"), "shared/" + name)
os.symlink(os.path.abspath("victim"), "shared/utt2.htk")   # the output's name
old = os.umask(0o022)
rc, _, err, _ = run(["--wav-scp", "v.scp", "-o", "shared"])
os.umask(old)
check(rc == 0 and read("victim") == b"precious",
      "planted links: the victim's file untouched (%s)" % err.strip()[-100:])
check(os.path.isfile("shared/utt.htk") and
      not os.path.islink("shared/utt2.htk") and
      read("shared/utt.htk")[:4] != b"prec",
      "the outputs are files of their own")
check(oct(os.stat("shared/utt.htk").st_mode & 0o777) == "0o644",
      "outputs get 0666 less the umask (%s)" %
      oct(os.stat("shared/utt.htk").st_mode & 0o777))
check(not [f for f in os.listdir("shared") if ".afet-part-" in f and
           not os.path.islink("shared/" + f)],
      "no temporary file left")

# 5. a full disk while writing an archive is a failure, and what is kept is
#    whole: both files cut back to the last whole entry; --skip-existing
#    then finishes the run into the same bytes as a clean one
# (megabytes of entries: the limit below must stay above what the OpenCL
# compiler writes)
N = 40
FB = ["-p", "afetmfcc num-ceps=0 num-filters=80"]
many = [("u%02d" % i, wavs[i % len(wavs)]) for i in range(N)]
with open("many.scp", "w") as f:
    for k, w in many:
        f.write("%s %s\n" % (k, w))
rc, _, err, _ = run(["--wav-scp", "many.scp", "--ark", "clean/f.ark"] + FB)
check(rc == 0, "a clean archive (%s)" % err.strip()[-100:])
os.symlink("/dev/full", "full.ark")
rc, _, err, _ = run(["--wav-scp", "many.scp", "--ark", "full.ark"] + FB)
check(rc == 1 and "No space left on device" in err and "failed" in err,
      "archive on a full disk: exit 1 (%s)" % err.strip()[-160:])
os.makedirs("fi")
os.symlink("/dev/full", "fi/f.scp")
rc, _, err, _ = run(["--wav-scp", "many.scp", "--ark", "fi/f.ark"] + FB)
check(rc == 1 and "cannot write fi/f.scp" in err,
      "index on a full disk: exit 1 (%s)" % err.strip()[-160:])
size = os.path.getsize("clean/f.ark")


def limit():
    # a disk that fills after about half the archive
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))


rc, _, err, _ = run(["--wav-scp", "many.scp", "--ark", "half/f.ark"] + FB,
                    preexec_fn=limit)
kept = ark_entries("half/f.ark") if os.path.exists("half/f.ark") else []
check(rc == 1 and "too large" in err.lower() and 0 < len(kept) < N,
      "a disk full halfway: exit 1, %d whole entries kept (%s)" %
      (len(kept), err.strip()[-160:]))
check(index_agrees("half/f.ark", "half/f.scp"),
      "the index names exactly the whole entries")
rc, _, err, _ = run(["--wav-scp", "many.scp", "--ark", "half/f.ark",
                     "--skip-existing"] + FB)
check(rc == 0 and read("half/f.ark") == read("clean/f.ark") and
      index_agrees("half/f.ark", "half/f.scp"),
      "--skip-existing finishes it into the clean run's bytes")

# an empty command
with open("empty-cmd.scp", "w") as f:
    f.write("u1 %s\nu2 |\n" % wavs[0])
rc, _, err, _ = run(["--wav-scp", "empty-cmd.scp", "-o", "ec"])
check(rc == 2 and "empty-cmd.scp:2" in err and "empty command" in err,
      "an empty command refused with its line (%s)" % err.strip()[-100:])

# 6. keys are bytes: a UTF-8 uttid is printed as it is, in any locale
with open("u.scp", "w", encoding="utf-8") as f:
    f.write("spk1_ünïcødé_001 /no/such.wav\n")
env = dict(os.environ, LC_ALL="C", LANG="C")
rc, _, _, raw = run(["--wav-scp", "u.scp", "-o", "uo"], env=env)
check(rc == 1 and "spk1_ünïcødé_001".encode() in raw,
      "a UTF-8 key printed as it is in the C locale")

# 7. SIGTERM (Slurm at a time limit) and SIGINT stop the run cleanly: exit
#    128 + the signal, what was done reported, every output under a final
#    name whole, no partial file left, and --skip-existing finishes the run
#    into the bytes of a run never stopped (commands sleep, so that the
#    signal comes while inputs are in flight)
with open("sig.scp", "w") as f:
    for i in range(40):
        w = wavs[i % len(wavs)]
        f.write("u%03d %s\n" % (i, w) if i % 2 else
                "u%03d sleep 0.1; cat %s |\n" % (i, w))


def interrupted_run(args, sig, started):
    """afet-extract started, signalled once started() holds (or after 60
    s), and waited for: (returncode, stderr)."""
    p = subprocess.Popen([X] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    for _ in range(600):
        if started() or p.poll() is not None:
            break
        subprocess.run(["sleep", "0.1"])
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    return p.returncode, err.decode("utf-8", "replace")


rc, _, err, _ = run(["--wav-scp", "sig.scp", "-o", "sig-ref", "-j", "2"])
check(rc == 0 and len(os.listdir("sig-ref")) == 40,
      "40 inputs, never stopped (%s)" % err.strip()[-100:])
rc, err = interrupted_run(
    ["--wav-scp", "sig.scp", "-o", "sig-out", "-j", "2"], signal.SIGTERM,
    lambda: os.path.isdir("sig-out") and len(
        [f for f in os.listdir("sig-out") if f.endswith(".htk")]) >= 4)
got = os.listdir("sig-out")
check(rc == 128 + signal.SIGTERM and "stopped by SIGTERM" in err and
      "--skip-existing" in err,
      "SIGTERM: exit %d, reported (%s)" % (rc, err.strip()[-200:]))
check(not [f for f in got if ".afet-part-" in f] and 0 < len(got) < 40 and
      all(read("sig-out/" + f) == read("sig-ref/" + f) for f in got),
      "SIGTERM: %d of 40 outputs, each whole, no partial file left" %
      len(got))
rc, _, err, _ = run(["--wav-scp", "sig.scp", "-o", "sig-out", "-j", "2",
                     "--skip-existing"])
check(rc == 0 and tree("sig-out") == tree("sig-ref") and
      all(read("sig-out/" + f) == read("sig-ref/" + f)
          for f in os.listdir("sig-ref")),
      "--skip-existing finishes the stopped run into the same bytes")

rc, _, err, _ = run(["--wav-scp", "sig.scp", "--ark", "sig-ref/a.ark"])
check(rc == 0, "40 inputs into an archive, never stopped (%s)" %
      err.strip()[-100:])
rc, err = interrupted_run(
    ["--wav-scp", "sig.scp", "--ark", "sig-ark/a.ark", "-j", "2"],
    signal.SIGINT, lambda: os.path.exists("sig-ark/a.ark") and
    os.path.getsize("sig-ark/a.ark") > 0)
kept = ark_entries("sig-ark/a.ark")
clean = ark_entries("sig-ref/a.ark")
check(rc == 128 + signal.SIGINT and "stopped by SIGINT" in err and
      index_agrees("sig-ark/a.ark", "sig-ark/a.scp") and
      len(kept) < len(clean) and
      [e[2] for e in kept] == [e[2] for e in clean[:len(kept)]],
      "SIGINT with --ark: exit %d, %d of %d whole entries, the index "
      "agrees (%s)" % (rc, len(kept), len(clean), err.strip()[-160:]))
rc, _, err, _ = run(["--wav-scp", "sig.scp", "--ark", "sig-ark/a.ark",
                     "--skip-existing"])
check(rc == 0 and read("sig-ark/a.ark") == read("sig-ref/a.ark"),
      "--skip-existing finishes the archive into the clean run's bytes")

# 8. a signal while a recording's segments run (--segments --ark): the
#    segments finished before it are written (they were all dropped, so
#    that a long recording started again from its first segment), the
#    archive stays whole and in list order, and --skip-existing finishes it
#    into the clean run's bytes.  r1's command touches a flag when all its
#    audio is out (the segments begin just after); the signal follows at a
#    delay, tried again shorter or longer until it lands among r1's 3000
#    segments.
import wave  # noqa: E402
pcm = b""
for w in wavs:
    with wave.open(w, "rb") as f:
        pcm += f.readframes(f.getnframes())
with wave.open("long.wav", "wb") as f:
    f.setnchannels(1)
    f.setsampwidth(2)
    f.setframerate(16000)
    f.writeframes((pcm * (300 * 32000 // len(pcm) + 1))[:300 * 32000])
flag = os.path.abspath("r1.out")
with open("seg.scp", "w") as f:
    f.write("r0 %s\nr1 cat %s; touch %s |\n" % (
        wavs[0], os.path.abspath("long.wav"), flag))
with open("seg.segments", "w") as f:
    f.write("a-0000 r0 0 1.5\n")
    for i in range(3000):
        f.write("b-%04d r1 %.2f %.2f\n" % (i, i * 0.1, i * 0.1 + 0.5))
SEG = ["--wav-scp", "seg.scp", "--segments", "seg.segments", "-j", "1", "-p",
       "afetmfcc ! afetdelta ! afetcmvn"]
rc, _, err, _ = run(SEG + ["--ark", "seg-ref/a.ark"])
clean = ark_entries("seg-ref/a.ark")
check(rc == 0 and len(clean) == 3001, "3001 segments, never stopped (%s)" %
      err.strip()[-100:])
landed = False
for attempt, delay in enumerate((0.3, 0.1, 0.8, 0.03, 1.5, 0.0)):
    out = "seg-sig%d" % attempt
    if os.path.exists(flag):
        os.unlink(flag)

    def started():
        if not os.path.exists(flag):
            return False
        subprocess.run(["sleep", str(delay)])
        return True
    rc, err = interrupted_run(SEG + ["--ark", out + "/a.ark"], signal.SIGTERM,
                              started)
    kept = ark_entries(out + "/a.ark")
    of_r1 = len([e for e in kept if e[0].startswith("b-")])
    check(rc in (0, 128 + signal.SIGTERM) and
          index_agrees(out + "/a.ark", out + "/a.scp") and
          [e[2] for e in kept] == [e[2] for e in clean[:len(kept)]],
          "SIGTERM %.2f s after r1's audio: exit %d, %d of r1's 3000 "
          "segments kept, whole and in order" % (delay, rc, of_r1))
    rc, _, err, _ = run(SEG + ["--ark", out + "/a.ark", "--skip-existing"])
    check(rc == 0 and read(out + "/a.ark") == read("seg-ref/a.ark"),
          "--skip-existing finishes it into the clean run's bytes (%s)" %
          err.strip()[-100:])
    if 0 < of_r1 < 3000:
        landed = True
        break
check(landed, "a signal among a recording's segments keeps those finished")

shutil.rmtree(tmp, ignore_errors=True)
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
