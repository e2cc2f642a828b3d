#!/usr/bin/python3
# afet-extract --shard under a real Slurm scheduler: a one-node cluster on loopback
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Starts munged, slurmctld and slurmd from Debian's packages in a temporary
# folder (its own munge key, slurm.conf, free ports, state and spool
# folders; the daemons in the foreground, each in its own process group,
# killed at exit whatever happens), then runs docs/clusters.md's recipe,
# `sbatch --array=1-4 --wait` over `afet-extract --shard K/4`, on a corpus
# of short WAVs the test writes.  Checks:
#   - the shards' feature files are byte for byte those of one plain run,
#     and their archives (one per shard, indexes concatenated) hold every
#     key once with the plain run's bytes;
#   - a job cancelled while it runs (scancel), submitted again, ends with
#     the same bytes;
#   - an input that fails in one task makes `sbatch --wait` exit non-zero,
#     `scontrol show job` marks that task FAILED (the others COMPLETED) and
#     its output file names the input;
#   - the job run again with --skip-existing, once the input is mended,
#     writes only what is missing and ends with the plain run's bytes.
# Without the packages (or as non-root) it skips locally, and fails in CI
# (CI=true).  Usage: test_slurm.py AFET_EXTRACT
import atexit
import ctypes
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from speechwav import write_wav

X = os.path.abspath(sys.argv[1])
IN_CI = os.environ.get("CI", "") not in ("", "0", "false")
SHARDS = 4
FILES = 32
CHAIN = "afetmfcc frame-length=20 ! afetdelta order=2"
failures = []
T0 = time.monotonic()


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def unavailable(why):
    """Missing tools: a failure in CI, a skip elsewhere."""
    if IN_CI:
        print("FAIL %s (CI=true: tools/install-deps.sh installs them)" % why)
        sys.exit(1)
    print("skipped: %s" % why)
    sys.exit(77)


NEEDED = ["munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo",
          "squeue", "scancel"]
missing = [p for p in NEEDED if shutil.which(p) is None and
           not os.path.exists(os.path.join("/usr/sbin", p))]
if missing:
    unavailable("%s not found (Debian: apt-get install munge slurmctld "
                "slurmd slurm-client)" % ", ".join(missing))
if os.geteuid() != 0:
    unavailable("the test cluster runs its daemons and jobs as root")


def tool(name):
    return shutil.which(name) or os.path.join("/usr/sbin", name)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def tree(d):
    return sorted(os.path.relpath(os.path.join(r, f), d)
                  for r, _, fs in os.walk(d) for f in fs)


def ark_entries(path):
    """An independent Kaldi binary archive reader: {key: entry bytes}."""
    d = read(path)
    i, out = 0, {}
    while i < len(d):
        sp = d.index(b" ", i)
        out[d[i:sp].decode()] = matrix_at(d, sp + 1)
        i = sp + 1 + len(out[d[i:sp].decode()])
    return out


def matrix_at(d, off):
    assert d[off:off + 5] == b"\0BFM ", d[off:off + 5]
    rows = struct.unpack("<i", d[off + 6:off + 10])[0]
    cols = struct.unpack("<i", d[off + 11:off + 15])[0]
    end = off + 15 + 4 * rows * cols
    assert end <= len(d), "entry cut short"
    return d[off:end]


def scp_entries(lines):
    """What a Kaldi feats.scp resolves to: [(key, entry bytes)]."""
    out = []
    for line in lines:
        key, loc = line.split()
        path, off = loc.rsplit(":", 1)
        out.append((key, matrix_at(read(path), int(off))))
    return out


class Cluster:
    """munged + slurmctld + slurmd in TMP, each in its own process group."""

    def __init__(self, tmp):
        self.tmp = tmp
        os.mkdir(tmp, 0o700)
        self.procs = []
        self.conf = os.path.join(tmp, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for d in ("state", "spool", "log"):
            os.mkdir(os.path.join(tmp, d))
        key = os.path.join(tmp, "munge.key")
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, os.urandom(128))
        os.close(fd)
        self.sock = os.path.join(tmp, "munge.socket")
        self.start("munged", [tool("munged"), "--foreground", "--force",
                              "--key-file=" + key, "--socket=" + self.sock,
                              "--pid-file=" + os.path.join(tmp, "munged.pid"),
                              "--seed-file=" + os.path.join(tmp, "munged.seed"),
                              "--log-file=" + os.path.join(tmp, "log",
                                                           "munged.log")])
        self.wait_for(lambda: os.path.exists(self.sock), "munged's socket")
        ctld, slurmd = free_port(), free_port()
        while slurmd == ctld:
            slurmd = free_port()
        cpus = len(os.sched_getaffinity(0))
        t = tmp
        with open(self.conf, "w") as f:
            f.write("""\
ClusterName=afettest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%(ctld)d
SlurmdPort=%(slurmd)d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%(sock)s
CredType=cred/munge
StateSaveLocation=%(t)s/state
SlurmdSpoolDir=%(t)s/spool
SlurmctldPidFile=%(t)s/slurmctld.pid
SlurmdPidFile=%(t)s/slurmd.pid
SlurmctldLogFile=%(t)s/log/slurmctld.log
SlurmdLogFile=%(t)s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=%(cpus)d State=UNKNOWN
PartitionName=afet Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""" % dict(ctld=ctld, slurmd=slurmd, sock=self.sock, t=t, cpus=cpus))
        self.start("slurmctld", [tool("slurmctld"), "-D", "-i",
                                 "-f", self.conf])
        self.start("slurmd", [tool("slurmd"), "-D", "-N", "localhost",
                              "-f", self.conf])
        self.wait_for(lambda: self.node_state() == "idle",
                      "the node to be idle (sinfo)", 60)

    def start(self, name, argv):
        log = open(os.path.join(self.tmp, "log", name + ".out"), "wb")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=self.env,
                             cwd=self.tmp, start_new_session=True,
                             preexec_fn=die_with_parent)
        log.close()
        self.procs.append((name, p))

    def node_state(self):
        p = self.cmd(["sinfo", "-h", "-N", "-o", "%T"], check=False)
        return p.stdout.strip() if p.returncode == 0 else None

    def wait_for(self, ready, what, timeout=30):
        end = time.monotonic() + timeout
        while not ready():
            for name, p in self.procs:
                if p.poll() is not None:
                    self.fail("%s exited with status %d while waiting for %s"
                              % (name, p.returncode, what))
            if time.monotonic() > end:
                self.fail("no %s after %d s" % (what, timeout))
            time.sleep(0.2)

    def fail(self, why):
        print("FAIL " + why)
        self.dump_logs()
        sys.exit(1)

    def dump_logs(self):
        logs = os.path.join(self.tmp, "log")
        for f in sorted(os.listdir(logs)):
            text = read(os.path.join(logs, f)).decode("utf-8", "replace")
            print("---- %s (last lines)\n%s" % (
                f, "\n".join(text.splitlines()[-25:])))

    def cmd(self, argv, check=True, timeout=60, cwd=None):
        p = subprocess.run([tool(argv[0])] + argv[1:], capture_output=True,
                           text=True, env=self.env, timeout=timeout, cwd=cwd,
                           preexec_fn=die_with_parent)
        if check and p.returncode != 0:
            self.fail("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                          p.stderr.strip()))
        return p

    def jobs(self, job):
        """scontrol show job's records of an array: {task: fields}."""
        p = self.cmd(["scontrol", "show", "job", "-o", str(job)])
        out = {}
        for line in p.stdout.splitlines():
            f = dict(w.split("=", 1) for w in line.split() if "=" in w)
            out[f.get("ArrayTaskId")] = f
        return out

    def stop(self):
        """scancel what is left, then TERM and KILL each daemon's group,
        and any job process the daemons left (found by this cluster's
        SLURM_CONF in its environment)."""
        if not self.procs:
            return
        try:
            self.cmd(["scancel", "--full", "--user=root"], check=False,
                     timeout=10)
        except Exception:
            pass
        for name, p in reversed(self.procs):
            signal_group(p, signal.SIGTERM)
        end = time.monotonic() + 10
        for name, p in reversed(self.procs):
            try:
                p.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            signal_group(p, signal.SIGKILL)
            p.wait()
        self.procs = []
        marker = ("SLURM_CONF=" + self.conf).encode()
        for pid in os.listdir("/proc"):
            try:
                if pid.isdigit() and marker in read(
                        "/proc/%s/environ" % pid).split(b"\0"):
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def die_with_parent():
    """In the daemon's child before exec: SIGKILL when the test dies, even
    by SIGKILL, where atexit cannot run (PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


def signal_group(p, sig):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass



tmp = tempfile.mkdtemp(prefix="afet-slurm-")
cluster = None


def cleanup():
    if cluster is not None:
        cluster.stop()
    if failures and os.environ.get("AFET_KEEP"):
        print("kept", tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


atexit.register(cleanup)
# meson's timeout and ^C end the test through atexit too
signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
signal.signal(signal.SIGHUP, lambda *a: sys.exit(1))

# the corpus: 32 recordings of 0.2 to 0.7 s, one list of them
wavs = os.path.join(tmp, "wavs")
os.mkdir(wavs)
with open(os.path.join(tmp, "all.scp"), "w") as scp:
    for i in range(FILES):
        path = os.path.join(wavs, "utt%02d.wav" % i)
        write_wav(path, 3200 + 1000 * (i % 11), i)
        scp.write(path + "\n")
ALL = os.path.join(tmp, "all.scp")

# the plain run, the reference (it also builds the kernels and the
# registry the tasks then share)
p = subprocess.run([X, "--scp", ALL, "-o", os.path.join(tmp, "plain"), "-p",
                    CHAIN, "-q"], capture_output=True, text=True, timeout=300)
check(p.returncode == 0, "the plain run: exit %d %s" % (p.returncode,
                                                        p.stderr.strip()))
p = subprocess.run([X, "--scp", ALL, "--ark",
                    os.path.join(tmp, "plain-ark", "feats.ark"), "-p",
                    CHAIN, "-q"], capture_output=True, text=True, timeout=300)
check(p.returncode == 0, "the plain run into an archive: exit %d %s"
      % (p.returncode, p.stderr.strip()))
PLAIN = {f: read(os.path.join(tmp, "plain", f))
         for f in tree(os.path.join(tmp, "plain"))}
PLAIN_ARK = ark_entries(os.path.join(tmp, "plain-ark", "feats.ark"))
check(len(PLAIN) == FILES and len(PLAIN_ARK) == FILES,
      "the plain runs wrote %d files and %d entries" % (len(PLAIN),
                                                        len(PLAIN_ARK)))
if failures:
    sys.exit(1)

cluster = Cluster(os.path.join(tmp, "cluster"))
print("cluster up after %.1f s" % (time.monotonic() - T0), flush=True)


def array(name, wait=True):
    """docs/clusters.md's recipe, in files and into archives, one job array;
    returns (sbatch --wait's exit status, the job id); without WAIT, as
    soon as the job is queued."""
    out = os.path.join(tmp, name)
    os.makedirs(out, exist_ok=True)
    script = (
        "%(x)s --scp %(all)s -o %(out)s/feats -p '%(chain)s' -q "
        "--shard ${SLURM_ARRAY_TASK_ID}/%(n)d --skip-existing; a=$?\n"
        "%(x)s --scp %(all)s --ark %(out)s/ark/feats.${SLURM_ARRAY_TASK_ID}"
        ".ark -p '%(chain)s' -q --shard ${SLURM_ARRAY_TASK_ID}/%(n)d "
        "--skip-existing; b=$?\n"
        "exit $((a > b ? a : b))" % dict(x=X, all=ALL, out=out, chain=CHAIN,
                                         n=SHARDS))
    p = cluster.cmd(["sbatch", "--array=1-%d" % SHARDS, "--parsable",
                     "--output=%s/slurm-%%A_%%a.out" % out, "--wrap", script]
                    + (["--wait"] if wait else []),
                    check=False, timeout=240, cwd=out)
    job = p.stdout.strip().split(";")[0]
    if not job.isdigit():
        cluster.fail("sbatch: exit %d, %s %s" % (p.returncode, p.stdout,
                                                 p.stderr))
    return p.returncode, job


def compare(name, what):
    out = os.path.join(tmp, name)
    # a task killed by a signal may leave NAME.afet-part-XXXXXX behind,
    # never taken for an output (docs/clusters.md)
    got = {f: read(os.path.join(out, "feats", f))
           for f in tree(os.path.join(out, "feats"))
           if ".afet-part-" not in f}
    check(got == PLAIN, "%s: the shards' %d files are the plain run's %d, "
          "byte for byte" % (what, len(got), len(PLAIN)))
    # the shards' indexes, concatenated and sorted as Kaldi wants them
    lines = []
    for k in range(1, SHARDS + 1):
        with open(os.path.join(out, "ark", "feats.%d.scp" % k)) as f:
            lines += f.read().splitlines()
    entries = scp_entries(sorted(lines))
    keys = [k for k, _ in entries]
    check(len(keys) == len(set(keys)) and dict(entries) == PLAIN_ARK,
          "%s: the %d archives hold each of the %d keys once, with the "
          "plain archive's bytes" % (what, SHARDS, len(PLAIN_ARK)))


# 1. the whole job
rc, job = array("shards")
check(rc == 0, "sbatch --wait: exit %d for a job whose tasks all pass" % rc)
compare("shards", "a clean job")
states = {k: v.get("JobState") for k, v in cluster.jobs(job).items()}
check(sorted(states) == [str(k) for k in range(1, SHARDS + 1)] and
      set(states.values()) == {"COMPLETED"},
      "scontrol show job: every task COMPLETED: %s" % states)
print("clean job done after %.1f s" % (time.monotonic() - T0), flush=True)

# 2. the job cancelled while it runs (scancel: SIGTERM, then SIGKILL, as a
# time limit or a preemption gives it), then submitted again: with
# --skip-existing it goes on from what the first one wrote
rc, job = array("cancelled", wait=False)
feats = os.path.join(tmp, "cancelled", "feats")
end = time.monotonic() + 120
while len(tree(feats) if os.path.isdir(feats) else []) < 4 and \
        time.monotonic() < end and \
        cluster.cmd(["squeue", "-h", "-j", job]).stdout.strip():
    time.sleep(0.05)
cluster.cmd(["scancel", job])
at_cancel = len(tree(feats) if os.path.isdir(feats) else [])
end = time.monotonic() + 60
while cluster.cmd(["squeue", "-h", "-j", job]).stdout.strip():
    if time.monotonic() > end:
        cluster.fail("job %s still queued 60 s after scancel" % job)
    time.sleep(0.2)
states = {k: v.get("JobState") for k, v in cluster.jobs(job).items()}
parts = [f for f in tree(feats) if ".afet-part-" in f]
print("cancelled with %d of %d files written, %d parts left: %s"
      % (at_cancel, FILES, len(parts), states), flush=True)
# afet-extract stops on scancel's SIGTERM and removes its partial files
# (only a SIGKILL, KillWait after it, could leave them)
check(not parts, "scancel: no partial file left (%s)" % parts)
rc, job = array("cancelled")
check(rc == 0, "sbatch --wait: exit %d for the cancelled job run again" % rc)
compare("cancelled", "the cancelled job run again with --skip-existing")

# 3. one input of shard 2 is not audio: its task fails, the others finish
BAD = 5
bad = os.path.join(wavs, "utt%02d.wav" % BAD)
good = read(bad)
with open(bad, "wb") as f:
    f.write(b"this is not audio\n" * 64)
rc, job = array("failed")
bad_task = str(BAD % SHARDS + 1)
check(rc == 1, "sbatch --wait: exit %d (1: a task failed)" % rc)
tasks = cluster.jobs(job)
states = {k: (v.get("JobState"), v.get("ExitCode")) for k, v in tasks.items()}
check(states.get(bad_task) == ("FAILED", "1:0") and
      all(s == ("COMPLETED", "0:0") for k, s in states.items()
          if k != bad_task),
      "scontrol show job: task %s FAILED with exit 1, the others COMPLETED: "
      "%s" % (bad_task, states))
log = read(os.path.join(tmp, "failed", "slurm-%s_%s.out" % (job, bad_task)))
check(b"utt05.wav" in log and b"not audio" in log,
      "the failed task's output names the input and why: %r" % log[-300:])
done = tree(os.path.join(tmp, "failed", "feats"))
check(len(done) == FILES - 1 and "utt05.htk" not in done,
      "every other input was written (%d files)" % len(done))
before = {f: os.stat(os.path.join(tmp, "failed", "feats", f)).st_ino
          for f in done}

# 4. mended, the same job again with --skip-existing finishes it, writing
# only what is missing
with open(bad, "wb") as f:
    f.write(good)
rc, job = array("failed")
check(rc == 0, "sbatch --wait: exit %d for the job run again" % rc)
compare("failed", "the job run again with --skip-existing")
check(all(os.stat(os.path.join(tmp, "failed", "feats", f)).st_ino == ino
          for f, ino in before.items()),
      "the files the failed job wrote were kept, not written again")
print("done after %.1f s" % (time.monotonic() - T0), flush=True)

if failures:
    cluster.dump_logs()
    print("%d failure(s)" % len(failures))
    sys.exit(1)
