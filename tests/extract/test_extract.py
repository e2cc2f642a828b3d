#!/usr/bin/python3
# Tests of the afet-extract corpus tool
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the installed-to-be program from the build tree over the synthetic
# recordings in tests/data/audio and checks what it writes against the
# equivalent gst-launch-1.0 pipelines, byte for byte.  Usage:
#   test_extract.py AFET_EXTRACT DATA_DIR
import os
import shlex
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


def run(args, **kw):
    p = subprocess.run([X] + args, capture_output=True, text=True,
                       timeout=600, **kw)
    return p.returncode, p.stdout, p.stderr


def launch(desc, timeout=300):
    p = subprocess.run(["gst-launch-1.0", "-q"] + desc, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode


def read(path):
    with open(path, "rb") as f:
        return f.read()


def reference(wav, out, fmt="htk", chain=CHAIN):
    """The pipeline afet-extract prints, run by gst-launch-1.0."""
    rc, text, _ = run(["--print-pipeline", "--scp", "/dev/null", "-o", "x",
                       "-p", chain, "-f", fmt])
    assert rc == 0, text
    desc = text.strip().replace("filesrc location=IN",
                                'filesrc location="%s"' % wav)
    desc = desc.replace("name=afetx_sink", 'location="%s"' % out)
    # as a shell splits it: gst-launch-1.0 escapes each argument
    return launch(shlex.split(desc)) == 0


def ark_entries(path):
    """An independent Kaldi binary archive reader."""
    d = read(path)
    i, out = 0, []
    while i < len(d):
        sp = d.index(b" ", i)
        key = d[i:sp].decode()
        assert d[sp + 1:sp + 6] == b"\0BFM ", d[sp + 1:sp + 6]
        assert d[sp + 6] == 4 and d[sp + 11] == 4
        rows = struct.unpack("<i", d[sp + 7:sp + 11])[0]
        cols = struct.unpack("<i", d[sp + 12:sp + 16])[0]
        end = sp + 16 + 4 * rows * cols
        out.append((key, sp + 1, rows, cols, d[sp + 16:end]))
        i = end
    return out


def write_wav(path, src, start, end):
    with wave.open(src) as w:
        rate, width = w.getframerate(), w.getsampwidth()
        w.setpos(start)
        frames = w.readframes(end - start)
    with wave.open(path, "wb") as o:
        o.setnchannels(1)
        o.setsampwidth(width)
        o.setframerate(rate)
        o.writeframes(frames)


tmp = tempfile.mkdtemp(prefix="afet-extract-")
os.chdir(tmp)
wavs = sorted(os.path.join(AUDIO, f) for f in os.listdir(AUDIO)
              if f.endswith(".wav"))
names = [os.path.splitext(os.path.basename(w))[0] for w in wavs]

# 1. HCopy-style list, two columns; the same as gst-launch-1.0, bytes
with open("two.scp", "w") as f:
    for w, n in zip(wavs, names):
        f.write("%s out2/%s.mfc\n" % (w, n))
rc, _, err = run(["--scp", "two.scp", "-p", CHAIN, "-j", "2"])
check(rc == 0, "two-column scp: exit 0 (%s)" % err.strip()[-200:])
for w, n in zip(wavs[:3], names[:3]):
    check(reference(w, "ref-%s.htk" % n), "gst-launch reference for " + n)
    check(read("out2/%s.mfc" % n) == read("ref-%s.htk" % n),
          "two-column scp: %s identical to gst-launch-1.0" % n)
check(not [f for f in os.listdir("out2") if ".afet-part" in f],
      "no temporary files left")

# 2. one column with --out-dir, every format; a broken file in the middle
os.makedirs("in", exist_ok=True)
with open("in/broken.wav", "wb") as f:
    f.write(b"RIFF\x10\x00\x00\x00WAVEjunkjunkjunk")
with open("in/short.wav", "wb") as f:
    pass
write_wav("in/tiny.wav", wavs[0], 0, 50)       # shorter than one frame
lst = wavs[:2] + ["in/broken.wav", "in/tiny.wav", "/no/such.wav"] + wavs[2:4]
with open("one.scp", "w") as f:
    f.write("\n".join(lst) + "\n")
for fmt, ext in (("htk", "htk"), ("npy", "npy"), ("raw", "f32"),
                 ("kaldi", "ark")):
    rc, _, err = run(["--scp", "one.scp", "-o", "od-" + fmt, "-f", fmt,
                      "-p", CHAIN, "-j", "3"])
    check(rc == 1, "%s: broken inputs give exit status 1" % fmt)
    for bad in ("broken", "tiny", "such"):
        check(err.count(bad) >= 2,
              "%s: %s reported and listed in the summary" % (fmt, bad))
    check("too short for one frame" in err, fmt + ": tiny file's reason")
    good = [os.path.splitext(os.path.basename(w))[0] for w in
            wavs[:2] + wavs[2:4]]
    made = sorted(os.listdir("od-" + fmt))
    check(made == sorted(g + "." + ext for g in good),
          "%s: every good input written, nothing else (%s)" % (fmt, made))
    n = good[-1]
    check(reference(lst[-1], "ref.%s" % ext, fmt),
          "%s: gst-launch reference" % fmt)
    check(read("od-%s/%s.%s" % (fmt, n, ext)) == read("ref.%s" % ext),
          "%s: output identical to gst-launch-1.0" % fmt)
    if fmt == "kaldi":
        e = ark_entries("od-kaldi/%s.ark" % n)
        check(len(e) == 1 and e[0][0] == n, "kaldi: key is the base name")
        check(e[0][4] == read("od-raw/%s.f32" % n),
              "kaldi: values equal the raw output")

# 3. Kaldi list with a command, --ark and its scp
with open("wav.scp", "w") as f:
    f.write("utt1 %s\n" % wavs[3])
    f.write("utt2 cat %s |\n" % wavs[4])
    f.write("utt3 %s\n" % wavs[5])
    f.write("bad1 exit 3 |\n")
rc, _, err = run(["--wav-scp", "wav.scp", "--ark", "a/feats.ark", "-p",
                  CHAIN, "-j", "2"])
check(rc == 1 and "bad1" in err and "exit status 3" in err,
      "failing command reported with its exit status")
e = ark_entries("a/feats.ark")
check([k for k, *_ in e] == ["utt1", "utt2", "utt3"],
      "archive entries in list order, keys are the uttids")
scp = [l.split() for l in open("a/feats.scp")]
ok = len(scp) == 3
arkdata = read("a/feats.ark")
for (key, loc), entry in zip(scp, e):
    off = int(loc.rsplit(":", 1)[1])
    ok = ok and key == entry[0] and off == entry[1] and \
        arkdata[off:off + 2] == b"\0B" and loc.startswith("a/feats.ark:")
check(ok, "scp offsets point at each entry's \\0B")
for i, w in ((0, wavs[3]), (1, wavs[4])):
    reference(w, "r%d.f32" % i, "raw")
    check(e[i][4] == read("r%d.f32" % i),
          "%s (%s) equals the raw pipeline" % (e[i][0],
                                               "command" if i else "file"))

# 4. segments: each cut alone, as Kaldi's extract-segments rounds
with open("segments", "w") as f:
    f.write("utt1-a utt1 0.5 1.5\n")
    f.write("utt1-b utt1 1.25 -1\n")
    f.write("utt3-a utt3 0.1 0.9\n")
    f.write("utt3-x utt3 99 100\n")
rc, _, err = run(["--wav-scp", "wav.scp", "--segments", "segments", "--ark",
                  "s/seg.ark", "-f", "ark", "-p", CHAIN])
check(rc == 1 and "utt3-x" in err and "outside" in err,
      "a segment outside its recording is reported")
seg = {k: v for k, _, _, _, v in ark_entries("s/seg.ark")}
check(sorted(seg) == ["utt1-a", "utt1-b", "utt3-a"], "segment keys")
for key, src, a, b in (("utt1-a", wavs[3], 0.5, 1.5),
                       ("utt1-b", wavs[3], 1.25, -1),
                       ("utt3-a", wavs[5], 0.1, 0.9)):
    with wave.open(src) as w:
        rate, n = w.getframerate(), w.getnframes()
    start = int(a * rate + 0.5)
    end = n if b < 0 else int(b * rate + 0.5)
    write_wav("cut.wav", src, start, end)
    reference(os.path.abspath("cut.wav"), "cut.f32", "raw")
    check(seg.get(key) == read("cut.f32"),
          key + " equals its cut recording through the same chain")

# 5. shards partition the list exactly: input i goes to share i % N + 1
good = {os.path.splitext(os.path.basename(w))[0] + ".f32"
        for w in wavs[:2] + wavs[2:4]}
shares = []
for k in (1, 2, 3):
    run(["--scp", "one.scp", "-o", "sh%d" % k, "-f", "raw", "-p", "afetmfcc",
         "--shard", "%d/3" % k])
    made = set(os.listdir("sh%d" % k)) if os.path.isdir("sh%d" % k) else set()
    want = {os.path.splitext(os.path.basename(w))[0] + ".f32"
            for i, w in enumerate(lst) if i % 3 == k - 1} & good
    check(made == want, "shard %d/3 holds exactly its inputs (%s)" %
          (k, sorted(made)))
    shares.append(made)
check(set().union(*shares) == good and
      sum(len(s) for s in shares) == len(good),
      "shards 1/3..3/3 partition the list")
rc, _, err = run(["--scp", "one.scp", "-o", "x", "--shard", "4/3"])
check(rc == 2, "--shard 4/3 is refused")

# 6. --skip-existing: per-file outputs and an interrupted archive
before = {f: read("od-htk/" + f) for f in os.listdir("od-htk")}
victim = sorted(before)[0]
with open("od-htk/" + victim, "wb") as f:
    f.write(b"kept")
rc, _, err = run(["--scp", "one.scp", "-o", "od-htk", "-p", CHAIN,
                  "--skip-existing"])
check(read("od-htk/" + victim) == b"kept", "existing output left alone")
check("4 skipped" in err, "summary counts the skipped inputs (%s)" %
      err.strip().splitlines()[-5:])
full = read("a/feats.ark")
fullscp = open("a/feats.scp").read()
# interrupt: the last entry half written, its scp line missing
lines = fullscp.splitlines(True)
cut = int(lines[-1].split(":")[-1]) + 100
with open("a/feats.ark", "r+b") as f:
    f.truncate(cut)
with open("a/feats.scp", "w") as f:
    f.write("".join(lines[:-1]))
rc, _, err = run(["--wav-scp", "wav.scp", "--ark", "a/feats.ark", "-p", CHAIN,
                  "--skip-existing"])
check(read("a/feats.ark") == full and open("a/feats.scp").read() == fullscp,
      "resumed archive equals the uninterrupted one")

# 7. two devices (PoCL twice): every file as one of the devices alone
# makes it (two PoCL devices in one process differ in the last bits:
# docs/limitations.md)
env = dict(os.environ, POCL_DEVICES="pthread pthread")
alone = []
for d in ("0:0", "0:1"):
    run(["--scp", "one.scp", "-o", "dev" + d[-1], "-p", CHAIN, "--device", d],
        env=dict(env))
    alone.append("dev" + d[-1])
rc, _, err = run(["--scp", "one.scp", "-o", "both", "-p", CHAIN, "--device",
                  "all", "-j", "4"], env=dict(env))
check(rc == 1 and "0:0, 0:1" in err, "--device all uses both devices (%s)" %
      err.strip().splitlines()[-1:])
made = sorted(os.listdir("both"))
check(made == sorted(os.listdir("dev0")) and len(made) == 4 and
      all(read("both/" + f) in (read("dev0/" + f), read("dev1/" + f))
          for f in made),
      "two devices: each output is what one device alone makes")

# -j's default: 2 on a CPU device (PoCL here), as many as asked otherwise;
# the summary gives the inputs' typical length, which sets it on GPUs (8
# jobs a GPU, 12 from three minutes): the median of the inputs' lengths
rc, _, err = run(["--scp", "two.scp", "-p", CHAIN])
lengths = []
for w in wavs:
    with wave.open(w) as f:
        lengths.append(f.getnframes() / f.getframerate())
median = sorted(lengths)[len(lengths) // 2]
check(rc == 0 and "2 jobs (-j's default for this device, inputs of about "
      "%.0f s)" % median in err,
      "default -j on a CPU device is 2, inputs of about %.0f s: %s"
      % (median, err.strip()[-200:]))
# a long input among short ones: still short by the median; long when most
# are (a WAV of 75 s of silence, at 8 kHz: the header's rate counts)
with wave.open("long8k.wav", "wb") as o:
    o.setnchannels(1)
    o.setsampwidth(2)
    o.setframerate(8000)
    o.writeframes(b"\0\0" * 8000 * 75)
with open("mixed.scp", "w") as f:
    f.write("long8k.wav mixed/long.mfc\n")
    for w, n in zip(wavs, names):
        f.write("%s mixed/%s.mfc\n" % (w, n))
rc, _, err = run(["--scp", "mixed.scp", "-p", CHAIN])
check(rc == 0 and "inputs of about %.0f s)" % sorted(lengths + [75.0])[
      (len(lengths) + 1) // 2] in err, "one long input among %d short ones: "
      "the median (%s)" % (len(lengths), err.strip()[-120:]))
with open("long.scp", "w") as f:
    for k in range(3):
        f.write("long8k.wav long/%d.mfc\n" % k)
rc, _, err = run(["--scp", "long.scp", "-p", CHAIN])
check(rc == 0 and "inputs of about 75 s)" in err,
      "long inputs: about 75 s (%s)" % err.strip()[-120:])
rc, _, err = run(["--scp", "two.scp", "-p", CHAIN, "-j", "3"])
check(rc == 0 and "3 jobs\n" in err, "-j 3 runs 3 jobs: %s" % err[-200:])
check(run(["--scp", "two.scp", "-j", "-1"])[0] == 2, "-j -1 is a usage error")

# 8. usage errors
check(run(["--scp", "two.scp", "-p", "afetnosuch"])[0] == 2,
      "a chain that does not build is a usage error")
check(run(["--wav-scp", "wav.scp"])[0] == 2, "--wav-scp without outputs")

# 9. -C: HCopy's own configs build the chain; the files are HCopy's
CONFIGS = os.path.join(DATA, "htk", "configs")


def htk_file(path):
    """(header bytes, frames, dims, floats) of an HTK parameter file."""
    d = read(path)
    n, period, size, kind = struct.unpack(">iihh", d[:12])
    return d[:12], n, size // 4, struct.unpack(">%df" % (n * size // 4),
                                               d[12:12 + n * size])


def worst_rel_l2(a, b, dims, groups):
    """The largest relative L2 error over the column groups."""
    worst = 0.0
    for g, start in enumerate(groups):
        end = groups[g + 1] if g + 1 < len(groups) else dims
        num = den = 0.0
        for i in range(0, len(b), dims):
            for c in range(start, end):
                num += (a[i + c] - b[i + c]) ** 2
                den += b[i + c] ** 2
        worst = max(worst, (num / den) ** 0.5 if den else num ** 0.5)
    return worst


for kind, rate, groups in (("MFCC_0_D_A_Z", "16k", [0, 13, 26]),
                           ("MFCC_E_D_A_enorm", "8k", [0, 13, 26]),
                           ("PLP_0", "44k", [0, 12]),
                           ("FBANK", "16k", [0])):
    cfg = os.path.join(CONFIGS, "%s_%s.cfg" % (kind, rate))
    srcs = [w for w in wavs if w.endswith("_%s.wav" % rate)]
    with open("c.scp", "w") as f:
        f.write("\n".join(srcs) + "\n")
    rc, _, err = run(["--scp", "c.scp", "-C", cfg, "-o", "C-" + kind, "-q"])
    check(rc == 0, "-C %s: exit 0 (%s)" % (os.path.basename(cfg),
                                         err.strip()[-300:]))
    for w in srcs:
        n = os.path.splitext(os.path.basename(w))[0]
        ours = "C-%s/%s.htk" % (kind, n)
        if not os.path.exists(ours):
            check(False, "-C %s: %s written" % (kind, n))
            continue
        h, frames, dims, got = htk_file(ours)
        rh, rframes, rdims, ref = htk_file(
            os.path.join(DATA, "htk", kind, n + ".htk"))
        check(h == rh, "-C %s %s: header equals HCopy's byte for byte "
              "(%s / %s)" % (kind, n, h.hex(), rh.hex()))
        e = worst_rel_l2(got, ref, dims, groups) if \
            (frames, dims) == (rframes, rdims) else 1.0
        check(e <= 1e-5, "-C %s %s: %d frames, rel L2 %.2e <= 1e-5 per "
              "column group" % (kind, n, frames, e))
# the chain it prints runs the same under gst-launch-1.0
rc, text, _ = run(["--print-pipeline", "--scp", "/dev/null", "-o", "x",
                   "-C", os.path.join(CONFIGS, "MFCC_0_D_A_Z_16k.cfg")])
w16 = [w for w in wavs if w.endswith("_16k.wav")][0]
desc = text.strip().replace("filesrc location=IN",
                            'filesrc location="%s"' % w16)
desc = desc.replace("name=afetx_sink", 'location="ref-C.htk"')
check(rc == 0 and "afetdelta order=2 delta-window=3 accel-window=3 ! "
      "afetcmvn mode=mean scope=utterance columns=htk" in text and
      launch(shlex.split(desc)) == 0 and read("ref-C.htk") ==
      read("C-MFCC_0_D_A_Z/%s.htk" %
           os.path.splitext(os.path.basename(w16))[0]),
      "-C --print-pipeline: the same bytes under gst-launch-1.0")

cfg16 = os.path.join(CONFIGS, "MFCC_0_16k.cfg")
rc, _, err = run(["--scp", "c.scp", "-o", "x", "-C", cfg16, "-p",
                  "afetmfcc"])
check(rc == 2 and "--config" in err and "--pipeline" in err,
      "-C with --pipeline is refused (%s)" % err.strip())
with open("unknown.cfg", "w") as f:
    f.write(open(cfg16).read() + "HPARM: NUMCHANELS = 23\n")
nlines = open("unknown.cfg").read().count("\n")
rc, _, err = run(["--scp", "c.scp", "-o", "x", "-C", "unknown.cfg"])
check(rc == 2 and "NUMCHANELS" in err and
      "unknown.cfg:%d:" % nlines in err,
      "-C: an unknown key is named with its line (%s)" % err.strip())
check(not os.path.exists("x"), "-C: nothing written after a bad config")
with open("sr.cfg", "w") as f:
    f.write(open(cfg16).read() + "SOURCERATE = 625\n")
w8 = [w for w in wavs if w.endswith("_8k.wav")][0]
with open("sr.scp", "w") as f:
    f.write("%s\n%s\n" % (w16, w8))
rc, _, err = run(["--scp", "sr.scp", "-o", "sr", "-C", "sr.cfg"])
check(rc == 1 and "SOURCERATE = 625" in err and "8000 Hz" in err and
      sorted(os.listdir("sr")) ==
      [os.path.splitext(os.path.basename(w16))[0] + ".htk"],
      "-C: an input at another rate than SOURCERATE fails, the others are "
      "written (%s)" % err.strip().splitlines()[:1])
rc, _, err = run(["--scp", "sr.scp", "-o", "sr2", "-C", "sr.cfg", "--rate",
                  "8000"])
check(rc == 2 and "SOURCERATE" in err, "-C: --rate against SOURCERATE is "
      "a usage error")


# 8. Plain WAV files are read by afet-extract itself (mono, 16-bit or float,
# no resampling); everything else goes through decodebin. Either way the
# bytes are those of the gst-launch-1.0 pipeline, and --no-wav-reader
# gives the same.
def wav_bytes(path, samples, fmt_tag=1, bits=16, channels=1, rate=16000,
              before_data=b"", data_len=None, extensible=False):
    """A WAV file written chunk by chunk (chunks the wave module cannot
    write: float, extensible, odd-sized chunks before the data, a data
    length that is not the file's)."""
    align = channels * bits // 8
    fmt = struct.pack("<HHIIHH", 0xFFFE if extensible else fmt_tag, channels,
                      rate, rate * align, align, bits)
    if extensible:
        fmt += struct.pack("<HHI", 22, bits, 0x4) + \
            struct.pack("<H", fmt_tag) + \
            b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + \
        before_data + b"data" + \
        struct.pack("<I", len(samples) if data_len is None else data_len) + \
        samples
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)


w16 = [w for w in wavs if w.endswith("_16k.wav")][0]
with wave.open(w16) as w:
    pcm = w.readframes(w.getnframes())
n16 = len(pcm) // 2
as_float = struct.pack("<%df" % n16, *[v / 32768.0 for v in
                                        struct.unpack("<%dh" % n16, pcm)])
stereo = b"".join(pcm[i:i + 2] * 2 for i in range(0, len(pcm), 2))
cases = [  # name, file bytes' arguments, read directly
    ("float", dict(samples=as_float, fmt_tag=3, bits=32), True),
    ("extensible", dict(samples=pcm, extensible=True), True),
    ("chunks", dict(samples=pcm, before_data=b"LIST" + struct.pack("<I", 5) +
                    b"INFOx\x00" + b"junk" + struct.pack("<I", 2) + b"ab"),
     True),
    ("stereo", dict(samples=stereo, channels=2), False),
    # (a truncated file fails unless --keep-truncated: extract-inputs)
    ("truncated", dict(samples=pcm[:len(pcm) // 2], data_len=len(pcm)), True,
     ["--keep-truncated"]),
    ("streamed", dict(samples=pcm, data_len=0xFFFFFFFF), False),
    ("rate", dict(samples=pcm, rate=22050), True),
]
os.makedirs("wv", exist_ok=True)
for name, kw, direct, *extra in cases:
    extra = extra[0] if extra else []
    src = os.path.join("wv", name + ".wav")
    wav_bytes(src, **kw)
    with open("wv.scp", "w") as f:
        f.write("%s wv/%s.htk\n" % (src, name))
    rc, _, err = run(["--scp", "wv.scp", "-p", CHAIN, "-j", "1"] + extra)
    said = "1 plain WAV read directly" in err
    ok = rc == 0 and said == direct
    ok = ok and reference(src, "wv/%s.ref" % name) and \
        read("wv/%s.htk" % name) == read("wv/%s.ref" % name)
    with open("wv.scp", "w") as f:
        f.write(src + "\n")
    rc2, _, err2 = run(["--scp", "wv.scp", "-p", CHAIN, "-j", "1",
                        "--no-wav-reader", "-o", "wv2"] + extra)
    ok = ok and rc2 == 0 and "0 plain WAV read directly" in err2 and \
        read("wv2/%s.htk" % name) == read("wv/%s.htk" % name)
    check(ok, "plain WAV reader: %s %s, bytes as gst-launch-1.0's and "
          "--no-wav-reader's (%s)" % (name, "read directly" if direct else
                                      "through decodebin",
                                      err.strip().splitlines()[-1:]))
# --rate other than the file's: decodebin resamples
with open("wv.scp", "w") as f:
    f.write("wv/rate.wav wv/rate8.htk\n")
rc, _, err = run(["--scp", "wv.scp", "-p", CHAIN, "-j", "1", "--rate",
                  "16000"])
check(rc == 0 and "0 plain WAV read directly" in err,
      "plain WAV reader: a file to resample goes through decodebin")

# 10. --compress[=METHOD]: Kaldi's compressed matrices, the bytes afetenc
# compression-method=N makes of the uncompressed archive (afetenc-compress
# checks those against copy-feats); --skip-existing reads them back
with open("cwav.scp", "w") as f:
    f.write("utt1 %s\nutt3 %s\n" % (wavs[3], wavs[5]))
rc, _, err = run(["--wav-scp", "cwav.scp", "--ark", "c/plain.ark", "-p",
                  "afetmfcc"])
check(rc == 0, "uncompressed archive for --compress: " + err.strip())
for m, tok in (("", b"CM "), ("=3", b"CM2 "), ("=7", b"CM3 ")):
    out = "c/cm%s.ark" % m[1:]
    rc, _, err = run(["--wav-scp", "cwav.scp", "--ark", out, "-p",
                      "afetmfcc", "--compress" + m])
    want = "c/want%s.ark" % m[1:]
    ok = rc == 0 and launch(["filesrc", "location=c/plain.ark", "!",
                             "afetparse", "!", "afetenc", "format=kaldi",
                             "compression-method=%s" % (m[1:] or "1"), "!",
                             "filesink", "location=" + want]) == 0
    data = read(out) if ok else b""
    check(ok and data == read(want) and data.startswith(b"utt1 \0B" + tok),
          "--compress%s: %s entries, the bytes of afetenc "
          "compression-method=%s" % (m, tok.decode().strip(), m[1:] or "1"))
    before = data
    rc, _, err = run(["--wav-scp", "cwav.scp", "--ark", out, "-p",
                      "afetmfcc", "--compress" + m, "--skip-existing"])
    check(rc == 0 and read(out) == before and "0 inputs" in err,
          "--compress%s --skip-existing keeps the compressed archive whole"
          % m)
rc, _, err = run(["--scp", "one.scp", "-o", "x", "-f", "npy", "--compress"])
check(rc == 2 and "--ark or --format kaldi" in err,
      "--compress without a Kaldi archive is a usage error")
rc, _, err = run(["--wav-scp", "cwav.scp", "--ark", "c/x.ark", "--compress=9"])
check(rc == 2 and "0 to 7" in err, "--compress=9 is a usage error")

shutil.rmtree(tmp)
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
