#!/usr/bin/python3
# Tests of afet-extract's input side: the lists (blank lines, segment times,
# --max-overshoot), recordings cut into segments, files that are not regular,
# the WAV reader's memory, and errors that name their cause.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: test_extract_inputs.py AFET_EXTRACT DATA_DIR
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

X, DATA = sys.argv[1], sys.argv[2]
AUDIO = os.path.join(DATA, "audio")
CHAIN = "afetmfcc frame-length=20 ! afetdelta order=2 ! afetcmvn columns=htk"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args, timeout=120, **kw):
    """(exit status, stdout, stderr); status None when it hung."""
    try:
        p = subprocess.run([X] + args, capture_output=True, text=True,
                           timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return None, "", "(hung: killed after %d s)" % timeout
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def ark_entries(path):
    """An independent Kaldi binary archive reader: {key: float bytes}."""
    d = read(path)
    i, out = 0, {}
    while i < len(d):
        sp = d.index(b" ", i)
        key = d[i:sp].decode()
        assert d[sp + 1:sp + 6] == b"\0BFM ", d[sp + 1:sp + 6]
        rows = struct.unpack("<i", d[sp + 7:sp + 11])[0]
        cols = struct.unpack("<i", d[sp + 12:sp + 16])[0]
        end = sp + 16 + 4 * rows * cols
        out[key] = d[sp + 16:end]
        i = end
    return out


def keys(path):
    return sorted(ark_entries(path)) if os.path.exists(path) else None


def last(err):
    return err.strip().splitlines()[-3:]


tmp = tempfile.mkdtemp(prefix="afet-extract-inputs-")
os.chdir(tmp)
wavs = sorted(os.path.join(AUDIO, f) for f in os.listdir(AUDIO)
              if f.endswith(".wav"))
w16 = [w for w in wavs if w.endswith("_16k.wav")]

# 1. segments of several recordings: the reused decoder once kept its
# appsink's EOS through READY and hung at a job's second recording
recs = w16 + [w for w in wavs if not w.endswith("_16k.wav")][:2]
with open("wav.scp", "w") as f:
    for i, w in enumerate(recs):
        f.write("r%d %s\n" % (i, w))
segs = {}
for i in range(len(recs)):
    segs["r%d" % i] = ["r%d-a r%d 0.2 1.2" % (i, i), "r%d-b r%d 1.0 -1" % (i, i)]
with open("segments", "w") as f:
    f.write("".join(l + "\n" for r in segs for l in segs[r]))
ref = {}
for i, w in enumerate(recs):
    with open("one.scp", "w") as f:
        f.write("r%d %s\n" % (i, w))
    with open("one.seg", "w") as f:
        f.write("".join(l + "\n" for l in segs["r%d" % i]))
    rc, _, err = run(["--wav-scp", "one.scp", "--segments", "one.seg",
                      "--ark", "ref%d/f.ark" % i, "-p", CHAIN, "-j", "1"])
    ref.update(ark_entries("ref%d/f.ark" % i) if rc == 0 else {})
check(len(ref) == 2 * len(recs), "segments: a reference per recording")
for j in (1, 2):
    rc, _, err = run(["--wav-scp", "wav.scp", "--segments", "segments",
                      "--ark", "all%d/f.ark" % j, "-p", CHAIN, "-j", str(j)],
                     timeout=120)
    check(rc == 0, "segments of %d recordings at -j %d: exit 0, no hang (%s)"
          % (len(recs), j, last(err)))
    got = ark_entries("all%d/f.ark" % j) if rc == 0 else {}
    check(sorted(got) == sorted(ref) and
          all(got[k] == ref[k] for k in ref),
          "segments at -j %d: every segment equals its recording cut alone"
          % j)
# files and commands in one list: the decoder reused for a command after a
# file kept filesrc (no fd property) and decoded the last file again
with open("mixed.scp", "w") as f:
    for i, w in enumerate(recs):
        f.write("r%d %s\n" % (i, w) if i % 2 == 0 else
                "r%d cat %s |\n" % (i, w))
rc, _, err = run(["--wav-scp", "mixed.scp", "--segments", "segments",
                  "--ark", "mixed/f.ark", "-p", CHAIN, "-j", "1"])
got = ark_entries("mixed/f.ark") if rc == 0 else {}
check(rc == 0 and sorted(got) == sorted(ref) and
      all(got[k] == ref[k] for k in ref),
      "segments of files and commands alternating in one job: every segment "
      "equals its recording cut alone (%s)" % last(err))

# 2. lines of white space only (\f, \v, \r\r, ...) are skipped in every
# list; they once crashed --scp and added an input named "" with --ark
for n, ws in enumerate(["\f", "\v", "\r\r", " \t\v\f\r"]):
    name = repr(ws)
    with open("b.scp", "w") as f:
        f.write("%s\n%s\n%s\n" % (w16[0], ws, w16[1]))
    rc, _, err = run(["--scp", "b.scp", "-o", "bl%d" % n, "-f", "raw",
                      "-p", "afetmfcc"])
    made = sorted(os.listdir("bl%d" % n)) if os.path.isdir("bl%d" % n) else []
    check(rc == 0 and made == sorted(
        os.path.splitext(os.path.basename(w))[0] + ".f32" for w in w16[:2]),
        "--scp: a line of %s is skipped (%s, %s)" % (name, rc, last(err)))
    rc, _, err = run(["--scp", "b.scp", "--ark", "bk%d/f.ark" % n,
                      "-p", "afetmfcc"])
    check(rc == 0 and keys("bk%d/f.ark" % n) == sorted(
        os.path.splitext(os.path.basename(w))[0] for w in w16[:2]),
        "--scp --ark: a line of %s adds no input (%s, %s)" %
        (name, rc, last(err)))
    with open("b.wav.scp", "w") as f:
        f.write("u1 %s\n%s\nu2 %s\n" % (w16[0], ws, w16[1]))
    rc, _, err = run(["--wav-scp", "b.wav.scp", "--ark", "bw%d/f.ark" % n,
                      "-p", "afetmfcc"])
    check(rc == 0 and keys("bw%d/f.ark" % n) == ["u1", "u2"],
          "wav.scp: a line of %s is skipped (%s, %s)" % (name, rc, last(err)))
    with open("b.seg", "w") as f:
        f.write("s1 u1 0 1\n%s\ns2 u2 0 1\n" % ws)
    rc, _, err = run(["--wav-scp", "b.wav.scp", "--segments", "b.seg",
                      "--ark", "bs%d/f.ark" % n, "-p", "afetmfcc"])
    check(rc == 0 and keys("bs%d/f.ark" % n) == ["s1", "s2"],
          "segments: a line of %s is skipped (%s, %s)" % (name, rc, last(err)))

# 3. a FIFO, a directory or a device in a list: refused at once, never
# opened for reading (the WAV reader's open() of a FIFO once blocked)
os.mkfifo("fifo.wav")
os.makedirs("dir.wav")
for path in ("fifo.wav", "dir.wav", "/dev/zero"):
    for extra in ([], ["--no-wav-reader"]):
        with open("n.scp", "w") as f:
            f.write("%s\n%s\n" % (path, w16[0]))
        rc, _, err = run(["--scp", "n.scp", "-o", "nr", "-p", "afetmfcc"] +
                         extra, timeout=60)
        check(rc == 1 and "cannot read %s: not a regular file" % path in err
              and os.path.exists("nr/" + os.path.splitext(
                  os.path.basename(w16[0]))[0] + ".htk"),
              "%s %s: refused as not a regular file, the rest written (%s)" %
              (path, " ".join(extra), last(err)))
    with open("n.wav.scp", "w") as f:
        f.write("r1 %s\n" % path)
    with open("n.seg", "w") as f:
        f.write("s1 r1 0 1\n")
    rc, _, err = run(["--wav-scp", "n.wav.scp", "--segments", "n.seg",
                      "--ark", "ns/f.ark", "-p", "afetmfcc"], timeout=60)
    check(rc == 1 and "not a regular file" in err,
          "%s with --segments: refused (%s)" % (path, last(err)))

# 4. segment times: non-finite or absurd ones are usage errors naming the
# line; an end past the recording is clipped within --max-overshoot, else
# the segment fails (Kaldi's extract-segments)
with wave.open(w16[0]) as w:
    rate, n = w.getframerate(), w.getnframes()
length = n / rate
with open("t.scp", "w") as f:
    f.write("r1 %s\n" % w16[0])
for bad in ("nan 1", "inf -1", "1e300 -1", "-inf 1", "0 nan", "0 inf",
            "0 1e300", "0 -2", "1 0.5", "x 1"):
    with open("t.seg", "w") as f:
        f.write("ok r1 0 1\nbad r1 %s\n" % bad)
    rc, _, err = run(["--wav-scp", "t.scp", "--segments", "t.seg", "--ark",
                      "tb/f.ark", "-p", "afetmfcc"])
    check(rc == 2 and "t.seg:2:" in err and not os.path.exists("tb"),
          "segment times '%s': usage error naming t.seg:2 (%s)" %
          (bad, last(err)))
with open("t.seg", "w") as f:
    f.write("near r1 1.0 %.4f\n" % (length + 0.3))
    f.write("far r1 1.0 %.4f\n" % (length + 0.7))
    f.write("whole r1 1.0 -1\n")
    f.write("late r1 %.4f %.4f\n" % (length + 0.1, length + 0.2))
rc, _, err = run(["--wav-scp", "t.scp", "--segments", "t.seg", "--ark",
                  "to/f.ark", "-p", "afetmfcc"])
got = ark_entries("to/f.ark") if os.path.exists("to/f.ark") else {}
check(rc == 1 and sorted(got) == ["near", "whole"] and
      got["near"] == got["whole"],
      "an end 0.3 s past the recording is clipped (%s)" % last(err))
far = [l for l in err.splitlines() if "far (r1)" in l]
check(far and "%.6f" % float("%.4f" % (length + 0.7)) in far[0] and
      "%.6f" % length in far[0] and "max-overshoot" in far[0],
      "an end 0.7 s past it fails, naming the segment, its end and the "
      "recording's length (%s)" % far[:1])
check("late (r1)" in err and "outside" in err,
      "a start past the end is an error")
rc, _, err = run(["--wav-scp", "t.scp", "--segments", "t.seg", "--ark",
                  "to2/f.ark", "-p", "afetmfcc", "--max-overshoot", "1"])
got = ark_entries("to2/f.ark") if os.path.exists("to2/f.ark") else {}
check(rc == 1 and sorted(got) == ["far", "near", "whole"] and
      got["far"] == got["whole"], "--max-overshoot 1 clips it (%s)" %
      last(err))
for v in ("-1", "nan", "inf"):
    check(run(["--wav-scp", "t.scp", "--segments", "t.seg", "--ark",
               "to3/f.ark", "--max-overshoot", v])[0] == 2,
          "--max-overshoot %s is refused" % v)


# 5. the WAV reader streams a long file in blocks: the same bytes as
# decodebin's, and memory that does not grow with the file
def wav16(path, pcm, rate=16000, width=2):
    with wave.open(path, "wb") as o:
        o.setnchannels(1)
        o.setsampwidth(width)
        o.setframerate(rate)
        o.writeframes(pcm)


def peak_rss_kb(args):
    """afet-extract's peak RSS, in a fresh process of its own."""
    p = subprocess.run([sys.executable, "-c", """
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(p.stderr)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
""", X] + args, capture_output=True, text=True, timeout=600)
    rc, kb = p.stdout.split()
    return int(rc), int(kb), p.stderr


noise = os.urandom(32000)
wav16("long.wav", noise * 1200)           # 20 min, 38.4 MB
wav16("short.wav", noise)                 # 1 s
size_kb = os.path.getsize("long.wav") // 1024
for name in ("short", "long"):
    with open("m.scp", "w") as f:
        f.write("%s.wav\n" % name)
    # (afetmfcc alone: afetcmvn's utterance scope holds the features)
    rc, kb, err = peak_rss_kb(["--scp", "m.scp", "-o", "m", "-f", "raw",
                               "-p", "afetmfcc", "-j", "1"])
    check(rc == 0 and "1 plain WAV read directly" in err,
          "%s.wav read directly (%s)" % (name, last(err)))
    if name == "short":
        base = kb
    grow = kb - base
rc, _, err = run(["--scp", "m.scp", "-o", "m2", "-f", "raw", "-p",
                  "afetmfcc", "-j", "1", "--no-wav-reader"], timeout=600)
check(rc == 0 and read("m/long.f32") == read("m2/long.f32"),
      "a 20-minute WAV read in blocks: bytes as --no-wav-reader's")
check(grow < size_kb // 2, "peak RSS grows by %d KB for a %d KB file over a "
      "1 s one (< half the file)" % (grow, size_kb))
# 8-bit files are read too (widened as audioconvert widens them), and an
# odd-length data chunk with its pad byte, which wavparse cannot read
wav16("u8.wav", bytes((i * 37) % 256 for i in range(16000)), width=1)
odd = bytes((i * 37) % 256 for i in range(8001))
fmt = struct.pack("<HHIIHH", 1, 1, 16000, 16000, 1, 8)
body = b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + \
    struct.pack("<I", len(odd)) + odd + b"\0"
with open("odd.wav", "wb") as f:
    f.write(b"RIFF" + struct.pack("<I", len(body)) + body)
with open("u.scp", "w") as f:
    f.write("u8.wav\nodd.wav\n")
rc, _, err = run(["--scp", "u.scp", "-o", "u", "-p", CHAIN, "-j", "1"])
check(rc == 0 and "2 plain WAV read directly" in err,
      "8-bit WAV files, one with an odd-length data chunk, read directly "
      "(%s)" % last(err))
rc, _, err = run(["--scp", "u.scp", "-o", "u2", "-p", CHAIN, "-j", "1",
                  "--no-wav-reader"])
check(os.path.exists("u2/u8.htk") and os.path.exists("u/u8.htk") and
      read("u/u8.htk") == read("u2/u8.htk"),
      "8-bit WAV: the reader's bytes are decodebin's")
check(rc == 1 and "odd length (8001 bytes)" in err and
      "too short" not in err,
      "--no-wav-reader: the odd-length 8-bit WAV's cause is named (%s)" %
      [l for l in err.splitlines() if "odd" in l][:1])

# 6. inputs that are not audio say so; a chain --format htk cannot hold is
# one usage error before any input runs
made = []
for name, desc in (("img.png", "videotestsrc num-buffers=1 ! pngenc"),
                   ("vid.ogg", "videotestsrc num-buffers=10 ! theoraenc ! "
                    "oggmux")):
    p = subprocess.run(["gst-launch-1.0", "-q"] + desc.split() +
                       ["!", "filesink", "location=" + name],
                       capture_output=True, timeout=120)
    if p.returncode == 0:
        made.append(name)
    else:
        print("skip %s: gst-launch-1.0 cannot make it" % name)
with open("v.scp", "w") as f:
    f.write("".join(m + "\n" for m in made) + w16[0] + "\n")
rc, _, err = run(["--scp", "v.scp", "-o", "v", "-p", "afetmfcc"])
for m in made:
    line = [l for l in err.splitlines() if l.startswith("afet-extract: " +
                                                          m.split(".")[0])]
    check(rc == 1 and line and "no audio stream, only video/" in line[0] and
          "Internal data stream error" not in err,
          "%s: 'not audio: it holds no audio stream' (%s)" % (m, line[:1]))
with open("h.scp", "w") as f:
    f.write("".join(w + "\n" for w in w16))
rc, _, err = run(["--scp", "h.scp", "-o", "h", "-p",
                  "afetmfcc preset=kaldi energy=true"])
check(rc == 2 and err.count("afet-extract:") == 1 and "--format htk" in err
      and
      not os.path.exists("h"),
      "a chain HTK cannot describe: one usage error, nothing run (%s)" %
      last(err))
rc, _, err = run(["--scp", "h.scp", "-o", "h", "-f", "npy", "-p",
                  "afetmfcc preset=kaldi energy=true"])
check(rc == 0, "the same chain with --format npy runs (%s)" % last(err))

# 7. an archive's writer may lag behind the jobs by 4 inputs a job (and 4):
# with -j's default that bound was once 4 inputs in all, whatever the
# jobs, so that a slow first input held every job back (afetpitch's 32
# default jobs on a GPU ran 4 utterances at a time). Input 0 waits until
# input 9 has started: it must not hang with the default -j (2 jobs on a
# CPU device, a bound of 12)
one = os.path.abspath(w16[0])
go = os.path.join(tmp, "go")
with open("slow.scp", "w") as f:
    # (its wait ends by itself after 90 s, should afet-extract hang)
    f.write("u00 sh -c 'i=0; while [ ! -e %s ] && [ $i -lt 1800 ]; do "
            "sleep 0.05; i=$((i+1)); done; cat %s' |\n" % (go, one))
    for i in range(1, 10):
        f.write("u%02d %scat %s |\n" % (i, "touch %s; " % go if i == 9 else
                                         "", one))
rc, _, err = run(["--wav-scp", "slow.scp", "--ark", "slow/a.ark", "-p",
                  "afetmfcc"], timeout=90)
check(rc == 0 and keys("slow/a.ark") == ["u%02d" % i for i in range(10)],
      "--ark with -j's default: a slow first input does not hold back the "
      "inputs the writer's bound allows (%s)" % last(err))

# 8. a WAV file shorter than its header says (a copy cut short) was read
# to its end by decodebin with exit 0: it now fails with the seconds the
# header gives and the file holds, whichever way it is read (the WAV
# reader, --no-wav-reader, --segments), and the other inputs are whole;
# --keep-truncated computes what it holds, with a warning, the bytes of a
# file that holds just those samples.  A "to the end" length (0xFFFFFFFF,
# from a writer that cannot seek back) is no truncation.
with wave.open(w16[0], "rb") as w:
    pcm = w.readframes(32000)          # 2 s
wav16("t-whole.wav", pcm)
wav16("t-held.wav", pcm[:31998])
with open("t-whole.wav", "rb") as f:
    data = f.read()
with open("t-cut.wav", "wb") as f:
    f.write(data[:44 + 31999])         # an odd byte: half a sample
at = data.index(b"data") + 4
with open("t-stream.wav", "wb") as f:
    f.write(data[:at] + struct.pack("<I", 0xFFFFFFFF) + data[at + 4:])
with open("t.scp", "w") as f:
    f.write("cut %s\nwhole %s\nstream %s\nheld %s\n" % tuple(
        os.path.abspath(n) for n in ("t-cut.wav", "t-whole.wav",
                                     "t-stream.wav", "t-held.wav")))
for extra in ([], ["--no-wav-reader"]):
    d = "t" + "".join(extra)
    rc, _, err = run(["--wav-scp", "t.scp", "-o", d, "-p", CHAIN] + extra)
    line = [l for l in err.splitlines() if l.startswith("afet-extract: cut")]
    check(rc == 1 and line and "truncated WAV file: its header gives 2.000 s"
          " of audio, the file holds 1.000 s (31999 of 64000 bytes)" in
          line[0] and "--keep-truncated" in line[0] and
          sorted(os.listdir(d)) == ["held.htk", "stream.htk", "whole.htk"] and
          read(d + "/stream.htk") == read(d + "/whole.htk"),
          "%s: a truncated WAV fails with its numbers, the others are whole, "
          "a 'to the end' length is read (%s)" % (extra, line[:1]))
    rc, _, err = run(["--wav-scp", "t.scp", "-o", d + "k", "-p", CHAIN,
                      "--keep-truncated"] + extra)
    check(rc == 0 and "warning: cut" in err and err.count("warning") == 1 and
          read(d + "k/cut.htk") == read(d + "/held.htk"),
          "%s --keep-truncated: a warning, and the features of the samples "
          "it holds (%s)" % (extra, last(err)))
with open("t.segments", "w") as f:
    f.write("cut-a cut 0 0.5\nwhole-a whole 0 0.5\n")
rc, _, err = run(["--wav-scp", "t.scp", "--segments", "t.segments", "--ark",
                  "ts/a.ark", "-p", CHAIN])
check(rc == 1 and "cut-a (cut): truncated WAV file" in err and
      keys("ts/a.ark") == ["whole-a"],
      "--segments: the truncated recording's segments fail (%s)" % last(err))
rc, _, err = run(["--wav-scp", "t.scp", "--segments", "t.segments", "--ark",
                  "tsk/a.ark", "-p", CHAIN, "--keep-truncated"])
check(rc == 0 and keys("tsk/a.ark") == ["cut-a", "whole-a"],
      "--segments --keep-truncated (%s)" % last(err))

# 9. an element that cannot start names its cause: a missing stats-archive
# said only "the pipeline did not start"
for env in ({}, {"AFET_EXTRACT_DIRECT": "0"}):
    rc, _, err = run(["--wav-scp", "t.scp", "--ark", "sa/a.ark", "-p",
                      "afetmfcc ! afetcmvn stats-archive=/no/such/cmvn.ark"],
                     env=dict(os.environ, **env))
    check(rc == 1 and "stats-archive: /no/such/cmvn.ark" in err and
          "does not exist" in err,
          "%s a missing stats-archive is named (%s)" % (env, last(err)))

shutil.rmtree(tmp)
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
