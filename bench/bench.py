#!/usr/bin/env python3
# The MFCC benchmark: afetmfcc side by side with sphinx_fe, kaldi-native-fbank
# and torchaudio on the same corpus, in the same run.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Benchmark afetmfcc side by side with sphinx_fe, kaldi-native-fbank and
torchaudio on the same corpus, in the same run.

Every tool turns the same WAV files (made by make_corpus.py) into MFCC
feature files, once over the long files and once over the short files:

  afetmfcc            bench/afet-batch: one process, one GStreamer pipeline
                      (filesrc ! wavparse ! afetmfcc ! filesink) per file
  sphinx_fe           batch mode with a control file (sphinxbase-utils)
  kaldi-native-fbank  peers.py knf: one Python process, OnlineMfcc per file
  torchaudio          peers.py torch: one Python process, CUDA by default

Runs of each tool on each set:
  cold   fresh process with every on-disk cache empty: PoCL's kernel cache
         (POCL_CACHE_DIR), the NVIDIA JIT cache (CUDA_CACHE_PATH) and the
         GStreamer registry (GST_REGISTRY) point into a new, empty folder.
         It is the first run on a freshly installed machine.
  prime  one file, with the persistent bench caches, untimed: fills them.
  warm   --repeats fresh processes with the filled caches; best and median.
The input files are in the OS page cache in all runs (the corpus was just
written or read).

Results: a Markdown report on stdout and all runs in a JSON file.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from report import markdown, merge_reports, summarize

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PEERS = os.path.join(HERE, "peers.py")
BATCH_SRC = os.path.join(HERE, "afet-batch.c")
BATCH_BIN = os.path.join(HERE, "build", "afet-batch")
VENV_PY = os.path.join(HERE, ".venv", "bin", "python")
RATE = 16000

# sphinx_fe options as close to afetmfcc's HTK defaults as sphinx_fe goes:
# 25 ms Hamming window, 10 ms shift, 512-point FFT, pre-emphasis 0.97,
# 23 filters 0-8000 Hz (not unit area, not rounded to FFT bins), HTK DCT
# (12 cepstra + c0), lifter 22, no dither, no noise removal, no VAD.
SPHINX_OPTS = [
    "-mswav", "yes", "-samprate", "16000", "-frate", "100",
    "-wlen", "0.025", "-nfft", "512", "-alpha", "0.97",
    "-nfilt", "23", "-lowerf", "0", "-upperf", "8000",
    "-unit_area", "no", "-round_filters", "no",
    "-ncep", "13", "-transform", "htk", "-lifter", "22",
    "-dither", "no", "-remove_noise", "no", "-remove_silence", "no",
    "-remove_dc", "no", "-ofmt", "htk",
]


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def capture(argv, timeout=30, env=None):
    """stdout of argv, or "" when it cannot run."""
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=timeout,
                           env=env, text=True)
        return r.stdout if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def shell_join(argv):
    return " ".join(shlex.quote(a) for a in argv)


# ---- machine --------------------------------------------------------------

def machine_info():
    info = {"nproc": len(os.sched_getaffinity(0)),
            "cpu_count": os.cpu_count(),
            "kernel": platform.release(),
            "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    kb = int(line.split()[1])
                    info["memory_gib"] = round(kb / 1024.0 / 1024.0, 1)
    except (OSError, ValueError):
        pass
    cl = capture(["clinfo", "-l"])
    if cl:
        info["opencl_devices"] = cl.strip()
    smi = capture(["nvidia-smi", "--query-gpu=name,driver_version,"
                   "memory.total", "--format=csv,noheader"])
    if smi:
        info["nvidia_gpus"] = smi.strip()
    pkgs = capture(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n",
                    "libgstreamer1.0-0", "sphinxbase-utils",
                    "pocl-opencl-icd", "libclblast1", "libvkfft-dev",
                    "nvidia-opencl-icd"])
    if pkgs:
        info["packages"] = pkgs.strip().splitlines()
    rev = capture(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    if rev:
        dirty = capture(["git", "-C", REPO, "status", "--porcelain",
                         "--untracked-files=no"])
        info["afet_git"] = rev.strip() + (" (modified)" if dirty else "")
    return info


# ---- tools ----------------------------------------------------------------

class Tool:
    """One benchmarked program with fixed options."""
    key = "tool"
    name = "tool"
    ext = ".out"
    reports = False          # prints a line with startup / steady timings

    def availability(self):
        """(ok, reason)"""
        return True, ""

    def processes(self, jobs_list, outdir, tmp):
        """[(argv, env additions)] to run at once for these (in, out)."""
        raise NotImplementedError

    def parse(self, stdouts):
        """Dict of internal figures from the processes' stdout."""
        return {}

    def count_frames(self, outputs):
        return None

    def command_line(self):
        """The command as documented (LIST = the file list)."""
        raise NotImplementedError


def parse_tagged(stdouts, tag):
    found = []
    for text in stdouts:
        for line in text.splitlines():
            if line.startswith(tag + " "):
                found.append(json.loads(line[len(tag) + 1:]))
    if not found:
        return {}
    out = dict(found[0])
    if len(found) > 1:       # several worker processes: they ran at once
        for k in ("import_s", "init_s", "first_s", "total_s", "rest_s"):
            if k in out:
                out[k] = max(f[k] for f in found)
        for k in ("frames", "files"):
            if k in out:
                out[k] = sum(f[k] for f in found)
    return out


def write_list(path, jobs):
    with open(path, "w") as f:
        for src, dst in jobs:
            f.write("%s\t%s\n" % (src, dst))


def split(jobs, n):
    n = max(1, min(n, len(jobs)))
    return [jobs[i::n] for i in range(n)]


class Afet(Tool):
    ext = ".f32"
    reports = True

    def __init__(self, binary, dct, max_batch, jobs, device, plugin_path):
        self.binary = binary
        self.props = ["dct-method=" + dct]
        if max_batch:
            self.props.append("max-batch=%d" % max_batch)
        if device:
            self.props.append("device=" + device)
        self.jobs = jobs
        self.plugin_path = plugin_path
        self.key = "afet-" + dct + ("-mb%d" % max_batch if max_batch else "")
        self.name = "afetmfcc " + " ".join(self.props)
        if jobs > 1:
            self.name += " (-j %d)" % jobs
            self.key += "-j%d" % jobs
        self.why = ""

    def availability(self):
        if not self.binary or not os.access(self.binary, os.X_OK):
            return False, self.why or "afet-batch binary not found"
        return True, ""

    def argv(self, listfile):
        a = [self.binary]
        for p in self.props:
            a += ["-s", p]
        if self.jobs > 1:
            a += ["-j", str(self.jobs)]
        return a + [listfile]

    def processes(self, jobs, outdir, tmp):
        lst = os.path.join(tmp, "list.tsv")
        write_list(lst, jobs)
        env = {}
        if self.plugin_path:
            env["GST_PLUGIN_PATH"] = self.plugin_path
            env["GST_PLUGIN_PATH_1_0"] = self.plugin_path
        return [(self.argv(lst), env)]

    def parse(self, stdouts):
        return parse_tagged(stdouts, "AFET_BATCH")

    def command_line(self):
        pre = ("GST_PLUGIN_PATH=%s " % shlex.quote(self.plugin_path)
               if self.plugin_path else "")
        return pre + shell_join(self.argv("LIST"))


class Sphinx(Tool):
    key = "sphinx_fe"
    ext = ".mfc"

    def __init__(self, jobs):
        self.exe = shutil.which("sphinx_fe")
        self.jobs = jobs
        self.name = "sphinx_fe" + (" (%d processes)" % jobs if jobs > 1
                                   else "")

    def availability(self):
        if not self.exe:
            return False, ("sphinx_fe not found on PATH (Debian package "
                           "sphinxbase-utils)")
        return True, ""

    def processes(self, jobs, outdir, tmp):
        # sphinx_fe takes a control file of paths relative to -di / -do,
        # without extension; ours are all under one corpus folder
        procs = []
        for i, part in enumerate(split(jobs, self.jobs)):
            ctl = os.path.join(tmp, "ctl%d" % i)
            with open(ctl, "w") as f:
                for src, dst in part:
                    f.write(os.path.splitext(os.path.relpath(
                        dst, outdir))[0] + "\n")
            procs.append(([self.exe, "-c", ctl, "-di", self._corpus_root,
                           "-do", outdir, "-ei", "wav", "-eo", "mfc"] +
                          SPHINX_OPTS, {}))
        return procs

    def count_frames(self, outputs):
        total = 0
        for path in outputs:
            total += (os.path.getsize(path) - 12) // (13 * 4)
        return total

    def command_line(self):
        return shell_join([self.exe or "sphinx_fe", "-c", "CTL", "-di",
                           "CORPUS", "-do", "OUT", "-ei", "wav", "-eo",
                           "mfc"] + SPHINX_OPTS)


class Knf(Tool):
    key = "knf"
    ext = ".npy"
    reports = True

    def __init__(self, python, why, jobs):
        self.python = python
        self.why = why
        self.jobs = jobs
        self.name = "kaldi-native-fbank" + (" (%d processes)" % jobs
                                            if jobs > 1 else "")

    def availability(self):
        return (bool(self.python), self.why)

    def processes(self, jobs, outdir, tmp):
        procs = []
        for i, part in enumerate(split(jobs, self.jobs)):
            lst = os.path.join(tmp, "list%d.tsv" % i)
            write_list(lst, part)
            procs.append(([self.python, PEERS, "knf", lst], {}))
        return procs

    def parse(self, stdouts):
        return parse_tagged(stdouts, "PEER_RESULT")

    def command_line(self):
        return shell_join([self.python or "python3", PEERS, "knf", "LIST"])


class Torch(Tool):
    ext = ".npy"
    reports = True

    def __init__(self, python, why, device, method, batch):
        self.python = python
        self.why = why
        self.device = device
        self.method = method
        self.batch = batch if method == "transforms" else 1
        self.key = "torch-%s-%s" % (method, device.replace(":", ""))
        self.name = "torchaudio %s on %s" % (
            "compliance.kaldi.mfcc" if method == "compliance"
            else "transforms.MFCC", device)
        if self.batch > 1:
            self.name += " (batch %d)" % self.batch
            self.key += "-b%d" % self.batch

    def availability(self):
        return (bool(self.python), self.why)

    def argv(self, lst):
        return [self.python or "python3", PEERS, "torch", lst, "--device",
                self.device, "--method", self.method, "--batch",
                str(self.batch)]

    def processes(self, jobs, outdir, tmp):
        lst = os.path.join(tmp, "list.tsv")
        write_list(lst, jobs)
        return [(self.argv(lst), {})]

    def parse(self, stdouts):
        return parse_tagged(stdouts, "PEER_RESULT")

    def command_line(self):
        return shell_join(self.argv("LIST"))


# ---- setup ----------------------------------------------------------------

def build_afet_batch(path):
    """Builds bench/build/afet-batch when it is missing or stale.
    Returns (path or None, why)."""
    if path != BATCH_BIN:
        return (path, "") if os.access(path, os.X_OK) else (
            None, "%s is not an executable file" % path)
    fresh = (os.access(path, os.X_OK) and
             os.path.getmtime(path) >= os.path.getmtime(BATCH_SRC))
    if fresh:
        return path, ""
    cc = shutil.which(os.environ.get("CC", "cc"))
    flags = capture(["pkg-config", "--cflags", "--libs", "gstreamer-1.0"])
    if not cc or not flags:
        if os.access(path, os.X_OK):
            return path, ""          # stale but usable: a carried binary
        return None, ("bench/build/afet-batch is missing and cannot be "
                      "built here (needs cc and pkg-config gstreamer-1.0); "
                      "build it where they are and carry it, or pass "
                      "--afet-batch")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    argv = [cc, "-O2", "-o", path, BATCH_SRC] + flags.split()
    log("building afet-batch: " + shell_join(argv))
    r = subprocess.run(argv)
    if r.returncode != 0:
        return None, "building afet-batch failed"
    return path, ""


def find_python(kind, explicit, device="cuda"):
    """First interpreter that can import the peer: (python, why)."""
    cands = [explicit] if explicit else [sys.executable, VENV_PY]
    reasons = []
    seen = set()
    for py in cands:
        if not py or py in seen or not os.access(py, os.X_OK):
            continue
        seen.add(py)
        out = capture([py, PEERS, "probe", kind, "--device", device],
                      timeout=120)
        try:
            res = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            res = {"ok": False, "why": "probe failed"}
        if res.get("ok"):
            return py, ""
        reasons.append("%s: %s" % (py, res.get("why")))
    return None, "; ".join(reasons) or "no Python interpreter to try"


def setup_venv():
    """bench/.venv with kaldi-native-fbank (numpy from the system site)."""
    if not os.path.exists(VENV_PY):
        subprocess.check_call([sys.executable, "-m", "venv",
                               "--system-site-packages",
                               os.path.join(HERE, ".venv")])
    subprocess.check_call([VENV_PY, "-m", "pip", "install", "-q",
                           "kaldi-native-fbank"])


# ---- running ----------------------------------------------------------------

def rusage_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(tool, jobs, work, mode, corpus_dir, persistent):
    """Runs tool over jobs = [(src, rel)], returns a dict."""
    outdir = os.path.join(work, "out", tool.key)
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    tmp = tempfile.mkdtemp(prefix="run-", dir=work)
    full = []
    for src, rel in jobs:
        dst = os.path.join(outdir, os.path.splitext(rel)[0] + tool.ext)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        full.append((src, dst))
    tool._corpus_root = corpus_dir
    procs = tool.processes(full, outdir, tmp)

    env = dict(os.environ)
    caches = persistent if mode != "cold" else os.path.join(tmp, "cache")
    os.makedirs(os.path.join(caches, "pocl"), exist_ok=True)
    os.makedirs(os.path.join(caches, "cuda"), exist_ok=True)
    env["POCL_CACHE_DIR"] = os.path.join(caches, "pocl")
    env["CUDA_CACHE_PATH"] = os.path.join(caches, "cuda")
    # GStreamer reads the _1_0 names first: set both
    env["GST_REGISTRY"] = os.path.join(caches, "gst-registry.bin")
    env["GST_REGISTRY_1_0"] = env["GST_REGISTRY"]

    files = []
    running = []
    ru0 = rusage_children()
    t0 = time.perf_counter()
    for i, (argv, extra) in enumerate(procs):
        e = dict(env)
        e.update(extra)
        so = open(os.path.join(tmp, "stdout%d" % i), "w+")
        se = open(os.path.join(tmp, "stderr%d" % i), "w+")
        files.append((so, se))
        running.append(subprocess.Popen(argv, stdout=so, stderr=se, env=e,
                                        cwd=tmp))
    rcs = [p.wait() for p in running]
    wall = time.perf_counter() - t0
    cpu = rusage_children() - ru0

    stdouts, errs = [], []
    for so, se in files:
        so.seek(0)
        se.seek(0)
        stdouts.append(so.read())
        errs.append(se.read())
        so.close()
        se.close()
    res = {"mode": mode, "wall_s": wall, "cpu_s": cpu, "rc": rcs,
           "files": len(jobs)}
    if any(rcs):
        tail = "\n".join(e.strip()[-1500:] for e in errs if e.strip())
        res["error"] = tail or "exit status %s" % rcs
    else:
        internal = tool.parse(stdouts)
        if internal:
            res["internal"] = internal
        frames = internal.get("frames") if internal else None
        if frames is None:
            frames = tool.count_frames([d for _, d in full])
        res["frames"] = frames
    shutil.rmtree(tmp, ignore_errors=True)
    return res


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only when there is one worth showing."""

    def _get_help_string(self, action):
        if action.default in (None, "", False):
            return action.help
        return super()._get_help_string(action)


def parse_csv(text, conv=str):
    return [conv(x) for x in text.split(",") if x.strip()]


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0] + " " + __doc__.split("\n")[1],
        epilog="Example: python3 bench/make_corpus.py /tmp/afet-corpus && "
        "python3 bench/bench.py /tmp/afet-corpus --json results.json",
        formatter_class=HelpFormatter)
    p.add_argument("corpus", nargs="?",
                   help="folder written by make_corpus.py")
    p.add_argument("--report", nargs="+", metavar="JSON",
                   help="run nothing: print one Markdown report from the "
                   "JSON files of earlier runs (e.g. one per --sets)")
    p.add_argument("--sets", default="long,short",
                   help="comma list of corpus sets to run")
    p.add_argument("--tools", default="afet,sphinx,knf,torch",
                   help="comma list from afet, sphinx, knf, torch; a tool "
                   "that is not installed is skipped with a line saying why")
    p.add_argument("--repeats", type=int, default=3,
                   help="warm runs per tool and set (best and median)")
    p.add_argument("--no-cold", action="store_true",
                   help="leave out the cold runs")
    p.add_argument("--json", default=None,
                   help="write all runs here (default: WORK/results.json)")
    p.add_argument("--work", default=None,
                   help="folder for feature outputs and caches (default: "
                   "CORPUS/_bench); outputs are deleted after each run")
    p.add_argument("--keep-outputs", action="store_true",
                   help="keep each tool's last outputs in WORK/out")
    g = p.add_argument_group("afetmfcc")
    g.add_argument("--dct-method", default="fused",
                   help="comma list of afetmfcc dct-method values (fused, "
                   "gemm); each is a separate row")
    g.add_argument("--max-batch", default="",
                   help="comma list of afetmfcc max-batch values (empty: "
                   "the element default); each is a separate row")
    g.add_argument("--device", default="",
                   help="afetmfcc device property (empty: auto = "
                   "AFET_DEVICE, else first GPU, else CPU)")
    g.add_argument("--jobs", type=int, default=1,
                   help="pipelines afet-batch runs at once after the first "
                   "file")
    g.add_argument("--afet-batch", default=BATCH_BIN,
                   help="afet-batch binary (built from bench/afet-batch.c "
                   "when it is the default path and cc is available)")
    g.add_argument("--plugin-path", default=None,
                   help="GST_PLUGIN_PATH for afet (default: build/gst of "
                   "this checkout if present, else the environment's)")
    g = p.add_argument_group("peers")
    g.add_argument("--cpu-jobs", type=int, default=1,
                   help="processes for sphinx_fe and kaldi-native-fbank "
                   "(each is single-threaded); the files are split among "
                   "them")
    g.add_argument("--knf-python", default=None,
                   help="Python with kaldi_native_fbank (default: this "
                   "Python, then bench/.venv/bin/python)")
    g.add_argument("--setup-venv", action="store_true",
                   help="first create bench/.venv and pip install "
                   "kaldi-native-fbank into it")
    g.add_argument("--torch-python", default=None,
                   help="Python with torch and torchaudio (default: this "
                   "Python, then bench/.venv/bin/python)")
    g.add_argument("--torch-device", default="cuda",
                   help="torch device; with cuda the peer is skipped when "
                   "torch.cuda.is_available() is False")
    g.add_argument("--torch-method", default="compliance",
                   help="comma list: compliance "
                   "(torchaudio.compliance.kaldi.mfcc, per file), "
                   "transforms (torchaudio.transforms.MFCC)")
    g.add_argument("--torch-batch", type=int, default=1,
                   help="files per batch for --torch-method transforms "
                   "(padded; each file's own frames are written)")
    args = p.parse_args(argv)
    if args.report:
        sys.stdout.write(markdown(merge_reports(args.report)))
        return 0
    if not args.corpus:
        p.error("give the corpus folder (or --report)")

    corpus_dir = os.path.abspath(args.corpus)
    try:
        with open(os.path.join(corpus_dir, "corpus.json")) as f:
            corpus = json.load(f)
    except OSError as e:
        p.error("%s (make it with bench/make_corpus.py)" % e)
    sets = parse_csv(args.sets)
    for s in sets:
        if s not in corpus["sets"]:
            p.error("the corpus has no set %r" % s)
    tool_keys = parse_csv(args.tools)
    for t in tool_keys:
        if t not in ("afet", "sphinx", "knf", "torch"):
            p.error("unknown tool %r" % t)
    if args.repeats < 1:
        p.error("--repeats must be at least 1")

    work = os.path.abspath(args.work or os.path.join(corpus_dir, "_bench"))
    os.makedirs(work, exist_ok=True)
    persistent = os.path.join(work, "cache")
    json_path = args.json or os.path.join(work, "results.json")

    if args.setup_venv:
        setup_venv()

    # the tools run in a scratch folder: make every path absolute
    plugin_path = (os.pathsep.join(os.path.abspath(x) for x in
                                   args.plugin_path.split(os.pathsep))
                   if args.plugin_path else None)
    for attr in ("knf_python", "torch_python"):
        v = getattr(args, attr)
        if v and os.sep in v:
            setattr(args, attr, os.path.abspath(v))
    if plugin_path is None and os.path.isdir(os.path.join(REPO, "build",
                                                          "gst")):
        plugin_path = os.path.join(REPO, "build", "gst")

    tools, skipped = [], []
    if "afet" in tool_keys:
        binary, why = build_afet_batch(os.path.abspath(args.afet_batch))
        mbs = parse_csv(args.max_batch, int) or [0]
        for dct in parse_csv(args.dct_method):
            if dct not in ("fused", "gemm"):
                p.error("unknown dct-method %r" % dct)
            for mb in mbs:
                t = Afet(binary, dct, mb, args.jobs, args.device,
                         plugin_path)
                t.why = why
                tools.append(t)
    if "sphinx" in tool_keys:
        tools.append(Sphinx(args.cpu_jobs))
    peer_versions = {}
    if "knf" in tool_keys:
        py, why = find_python("knf", args.knf_python)
        if not py:
            why = ("kaldi_native_fbank is not importable (%s); install it "
                   "with: bench/bench.py --setup-venv ..., or python3 -m "
                   "venv --system-site-packages bench/.venv && "
                   "bench/.venv/bin/pip install kaldi-native-fbank" % why)
        tools.append(Knf(py, why, args.cpu_jobs))
    if "torch" in tool_keys:
        py, why = find_python("torch", args.torch_python, args.torch_device)
        for method in parse_csv(args.torch_method):
            if method not in ("compliance", "transforms"):
                p.error("unknown torch method %r" % method)
            tools.append(Torch(py, "torchaudio on %s unavailable: %s" % (
                args.torch_device, why), args.torch_device, method,
                args.torch_batch))

    runnable = []
    for t in tools:
        ok, why = t.availability()
        if ok:
            runnable.append(t)
        else:
            log("SKIP %s: %s" % (t.name, why))
            skipped.append((t.name, why))

    machine = machine_info()
    report = {
        "date": datetime.datetime.now().astimezone().isoformat(
            timespec="seconds"),
        "command": shell_join([os.path.relpath(sys.argv[0])] +
                              (argv if argv is not None else sys.argv[1:])),
        "machine": machine,
        "corpus": {"dir": corpus_dir, "params": corpus.get("params"),
                   "sets": {k: {"count": v["count"], "seconds": v["seconds"],
                                "files": v["files"]}
                            for k, v in corpus["sets"].items()}},
        "sets": sets,
        "repeats": args.repeats,
        "sphinx_options": SPHINX_OPTS,
        "commands": [(t.name, t.command_line()) for t in runnable],
        "skipped": skipped,
        "runs": [],
        "summary": [],
        "peer_versions": peer_versions,
        "afet_plugin_path": plugin_path if "afet" in tool_keys else None,
    }

    started = time.perf_counter()
    for setname in sets:
        s = corpus["sets"][setname]
        jobs = [(os.path.join(corpus_dir, f["path"]), f["path"])
                for f in s["files"]]
        if not jobs:
            continue
        audio_s = s["seconds"]
        first_audio_s = s["files"][0]["samples"] / float(RATE)
        for t in runnable:
            runs = []
            modes = ([] if args.no_cold else ["cold"]) + ["prime"] + \
                ["warm"] * args.repeats
            for i, mode in enumerate(modes):
                r = run_once(t, jobs[:1] if mode == "prime" else jobs, work,
                             mode, corpus_dir, persistent)
                r.update({"tool": t.name, "set": setname})
                report["runs"].append(r)
                if mode != "prime":
                    runs.append(r)
                if "error" in r:
                    log("[%s] %s %s FAILED:\n%s" % (setname, t.name, mode,
                                                     r["error"]))
                    break
                it = r.get("internal", {})
                if it.get("device") and isinstance(t, Afet):
                    report["afet_device"] = it["device"]
                if it.get("library") and not isinstance(t, Afet):
                    peer_versions[t.name] = "%s on %s" % (
                        it["library"], it.get("device", "?"))
                log("[%s] %-45s %-5s %8.2f s  (%.0f x RT)" % (
                    setname, t.name, mode, r["wall_s"],
                    (audio_s if mode != "prime" else first_audio_s) /
                    max(r["wall_s"], 1e-9)))
            report["summary"].append(summarize(
                t, setname, runs, audio_s,
                [f["samples"] / float(RATE) for f in s["files"]]))
            if not args.keep_outputs:
                shutil.rmtree(os.path.join(work, "out", t.key),
                              ignore_errors=True)
    report["elapsed_s"] = time.perf_counter() - started

    with open(json_path, "w") as f:
        json.dump(report, f, indent=1)
    sys.stdout.write(markdown(report))
    log("JSON: " + json_path)
    failed = [s for s in report["summary"] if "error" in s]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
