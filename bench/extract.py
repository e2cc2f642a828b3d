#!/usr/bin/env python3
# The afet-extract benchmark: afet-extract over the seed paper's corpus shapes
# beside the peers on this machine, a Markdown table on stdout.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet-extract over the seed paper's corpus shapes, side by side with the
peers that exist on this machine, in one run; a Markdown table on stdout.

For every rate (8, 16, 44.1 kHz) a corpus of H hours of 10-20 s files
(short) and H hours of 10 min files (long) is made with make_corpus.py
(once; --make), then, per set and feature (HTK's MFCC_0_D_A_Z and
PLP_0_D_A_Z: 20 ms window, 10 ms shift, 15/23/25 filters at 8/16/44.1 kHz,
12 cepstra + c0, deltas and accelerations with window 3, mean removed):

  read     every input file read once (the floor: they are in the page cache)
  afet     afet-extract --scp LIST -o DIR -p CHAIN -j JOBS (also MFCC_0
           alone with --features MFCC_0, beside sphinx_fe): whole process,
           HTK files out; best of --repeats after one untimed run
  torch    extract_torch.py (MFCC only: torchaudio has no PLP) on CUDA:
           whole process (import and CUDA start-up included), and its loop
  sphinx   sphinx_fe -c LIST (MFCC only, no deltas: it has none), one
           process, and the list split over --jobs processes
  knf      kaldi-native-fbank's MFCC per file (plus NumPy deltas and mean),
           --jobs processes

Also the fixed cost of afet-extract: the whole process for one 1 s file.
    python3 bench/extract.py CORPUS_ROOT [--make] [--hours 10] ...
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FILTERS = {8000: 15, 16000: 23, 44100: 25}
DYN = "afetdelta order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
CHAINS = {
    "MFCC_0": "afetmfcc frame-length=20 num-ceps=12 num-filters=%d",
    "MFCC_0_D_A_Z": "afetmfcc frame-length=20 num-ceps=12 num-filters=%d ! " +
    DYN,
    "PLP_0_D_A_Z": "afetplp frame-length=20 num-ceps=12 lpc-order=12 "
    "num-filters=%d ! " + DYN,
}


def log(m):
    print(m, file=sys.stderr, flush=True)


def timed(argv, env=None, cwd=None):
    t = time.time()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    return time.time() - t, p


def steady_seconds(stderr, audio):
    """afet-extract's steady state (after each job's first input), as
    seconds for `audio` seconds of audio at its rate; None if absent."""
    m = re.search(r"steady state .*?: ([0-9.]+) h of audio in ([0-9.]+) s",
                  stderr)
    if not m or float(m.group(1)) <= 0:
        return None
    return audio * float(m.group(2)) / (float(m.group(1)) * 3600)


def files_of(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(".wav"))


def audio_seconds(files):
    import wave
    s = 0.0
    for f in files:
        with wave.open(f) as w:
            s += w.getnframes() / w.getframerate()
    return s


def read_all(files):
    t = time.time()
    for f in files:
        with open(f, "rb") as h:
            while h.read(1 << 22):
                pass
    return time.time() - t


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("root")
    p.add_argument("--make", action="store_true", help="make the corpora")
    p.add_argument("--hours", type=float, default=10.0)
    p.add_argument("--rates", default="8000,16000,44100")
    p.add_argument("--sets", default="short,long")
    p.add_argument("--features", default="MFCC_0_D_A_Z,PLP_0_D_A_Z")
    p.add_argument("--tools", default="read,afet,torch,sphinx,knf")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--extract", default=os.path.join(
        REPO, "build", "tools", "afet-extract", "afet-extract"))
    p.add_argument("--python", default=sys.executable,
                   help="Python with torch (torch) or kaldi_native_fbank (knf)")
    p.add_argument("--out", default="/tmp/afet-extract-out")
    a = p.parse_args()
    rates = [int(r) for r in a.rates.split(",")]
    tools = a.tools.split(",")
    print("| rate | set | features | tool | seconds | x real time | notes |")
    print("|---|---|---|---|--:|--:|---|")

    def row(rate, st, feat, tool, secs, audio, note=""):
        print("| %g kHz | %s | %s | %s | %.3f | %.0f | %s |" % (
            rate / 1000, st, feat, tool, secs, audio / secs if secs else 0,
            note), flush=True)

    # the fixed cost of one afet-extract process
    one = os.path.join(a.out, "one")
    os.makedirs(one, exist_ok=True)
    src = os.path.join(REPO, "tests", "data", "audio", "s01_16k.wav")
    with open(os.path.join(one, "list"), "w") as f:
        f.write(src + "\n")
    for feat in a.features.split(","):
        chain = CHAINS[feat] % 23
        argv = [a.extract, "--scp", os.path.join(one, "list"), "-o", one,
                "-p", chain, "-q", "-j", "1"]
        timed(argv)
        best = min(timed(argv)[0] for _ in range(3))
        print("| 16 kHz | one 4.6 s file | %s | afet-extract start-up | "
              "%.3f | | whole process |" % (feat, best), flush=True)

    for rate in rates:
        root = os.path.join(a.root, "r%d" % rate)
        if a.make:
            log("making %s" % root)
            subprocess.run([sys.executable, os.path.join(HERE,
                            "make_corpus.py"), root, "--rate", str(rate),
                            "--hours", str(a.hours)], check=True)
        for st in a.sets.split(","):
            files = files_of(os.path.join(root, st))
            lst = os.path.join(a.out, "list-%d-%s" % (rate, st))
            with open(lst, "w") as f:
                f.write("\n".join(files) + "\n")
            audio = audio_seconds(files)
            note = "%d files, %.2f h" % (len(files), audio / 3600)
            if "read" in tools:
                read_all(files)
                row(rate, st, "-", "read the inputs", read_all(files), audio,
                    note)
            for feat in a.features.split(","):
                out = os.path.join(a.out, "o")
                if "afet" in tools:
                    chain = CHAINS[feat] % FILTERS[rate]
                    argv = [a.extract, "--scp", lst, "-o", out, "-p", chain,
                            "-j", str(a.jobs)]
                    runs, steady = [], []
                    for r in range(a.repeats + 1):
                        shutil.rmtree(out, ignore_errors=True)
                        s, pr = timed(argv)
                        if pr.returncode != 0:
                            log(pr.stderr[-2000:])
                            break
                        runs.append(s)
                        steady.append(steady_seconds(pr.stderr, audio))
                    if len(runs) == a.repeats + 1:
                        st_s = [x for x in steady[1:] if x]
                        row(rate, st, feat, "afet-extract -j %d" % a.jobs,
                            min(runs[1:]), audio, "whole process, best of %d"
                            % a.repeats + ("; steady state %.3f s" %
                                           min(st_s) if st_s else ""))
                if feat == "MFCC_0_D_A_Z" and "torch" in tools:
                    shutil.rmtree(out, ignore_errors=True)
                    s, pr = timed([a.python, os.path.join(
                        HERE, "extract_torch.py"), lst, out, str(rate),
                        str(FILTERS[rate])])
                    if pr.returncode == 0:
                        loop = pr.stdout.split("loop")[1].split()[0]
                        row(rate, st, feat, "torchaudio CUDA", s, audio,
                            "whole process; file loop %s s" % loop)
                    else:
                        log("torch: " + pr.stderr[-500:])
                if feat == "MFCC_0" and "sphinx" in tools and \
                        shutil.which("sphinx_fe"):
                    sphinx(a, rate, st, files, audio, row)
                if feat == "MFCC_0_D_A_Z" and "knf" in tools:
                    knf(a, rate, st, files, audio, row)


def sphinx(a, rate, st, files, audio, row):
    out = os.path.join(a.out, "sx")
    nfft = 1 << (rate // 50 - 1).bit_length()
    opts = ["-mswav", "yes", "-samprate", str(rate), "-frate", "100",
            "-wlen", "0.020", "-nfft", str(nfft), "-alpha", "0.97",
            "-nfilt", str(FILTERS[rate]), "-lowerf", "0", "-upperf",
            str(rate // 2), "-ncep", "13", "-transform", "htk", "-lifter",
            "22", "-dither", "no", "-remove_noise", "no", "-remove_silence",
            "no", "-ofmt", "htk", "-ei", "wav", "-eo", "mfc"]
    for n in (1, a.jobs):
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        procs, t = [], time.time()
        for k in range(n):
            ctl = os.path.join(a.out, "sx%d.ctl" % k)
            with open(ctl, "w") as f:
                for x in files[k::n]:
                    f.write(os.path.splitext(os.path.basename(x))[0] + "\n")
            procs.append(subprocess.Popen(
                ["sphinx_fe", "-c", ctl, "-di", os.path.dirname(files[0]),
                 "-do", out] + opts, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        ok = all(pr.wait() == 0 for pr in procs)
        if ok:
            row(rate, st, "MFCC_0 (no deltas)", "sphinx_fe x%d" % n,
                time.time() - t, audio, "%d process%s" % (n, "es" if n > 1
                                                          else ""))


KNF = r'''
import sys, wave, numpy as np, kaldi_native_fbank as knf
rate, filters, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
o = knf.MfccOptions()
o.frame_opts.samp_freq = rate; o.frame_opts.dither = 0
o.frame_opts.frame_length_ms = 20; o.mel_opts.num_bins = filters
o.num_ceps = 13; o.use_energy = False
def deltas(x):
    p = np.pad(x, ((3, 3), (0, 0)), mode="edge"); n = len(x)
    return sum(k * (p[3 + k:3 + k + n] - p[3 - k:3 - k + n])
               for k in (1, 2, 3)) / 28.0
for path in sys.stdin.read().split():
    with wave.open(path) as w:
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32)
    m = knf.OnlineMfcc(o); m.accept_waveform(rate, x.tolist()); m.input_finished()
    f = np.array([m.get_frame(i) for i in range(m.num_frames_ready)], np.float32)
    f -= f.mean(0); d = deltas(f)
    np.concatenate([f, d, deltas(d)], 1).astype(">f4").tofile(
        out + "/" + path.rsplit("/", 1)[1][:-4] + ".f32")
'''


def knf(a, rate, st, files, audio, row):
    out = os.path.join(a.out, "knf")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    chk = subprocess.run([a.python, "-c", "import kaldi_native_fbank"],
                         capture_output=True)
    if chk.returncode != 0:
        log("knf: kaldi_native_fbank not importable with " + a.python)
        return
    t = time.time()
    procs = []
    for k in range(a.jobs):
        pr = subprocess.Popen([a.python, "-c", KNF, str(rate),
                               str(FILTERS[rate]), out],
                              stdin=subprocess.PIPE, text=True)
        pr.stdin.write("\n".join(files[k::a.jobs]))
        pr.stdin.close()
        procs.append(pr)
    if all(pr.wait() == 0 for pr in procs):
        row(rate, st, "MFCC + deltas + CMN", "kaldi-native-fbank x%d" % a.jobs,
            time.time() - t, audio, "%d processes, C++ through Python" %
            a.jobs)


if __name__ == "__main__":
    main()
