#!/bin/bash
# Kaldi's offline pitch on a corpus, afet against Kaldi's own program on the
# same machine (docs/benchmarks.md, "Kaldi pitch"):
#   Kaldi: compute-kaldi-pitch-feats (defaults) scp -> ark, one process
#          of one thread (OPENBLAS_NUM_THREADS=1; on the first KALDI1_FILES
#          files of the list, default all, its time also given per hour of
#          audio), and the list split over PROCS such processes at once
#          (default: every core);
#   afet:  afet-extract --ark -p 'afetpitch process=false' with default -j,
#          then -j JOBS.
# afet's kernels are built once before (a program cache of its own, unless
# AFET_CACHE_DIR is set; that first run's time is printed apart). Each run
# is the whole process (or all processes), wall clock and CPU
# time, REPEATS times, the tools taking turns in alternating order; afet's archive is
# then checked against Kaldi's: the same keys and row counts, the fraction
# of frames with the same lag and the NCCF where it agrees
# (bench/pitch/agree.py).
#
#   bash bench/pitch/bench.sh CORPUS_DIR KALDI_BIN AFET_EXTRACT [SET] [JOBS] \
#       [REPEATS] [PROCS]
# CORPUS_DIR: made by bench/make_corpus.py (SET: long or short, default
# long); KALDI_BIN: a folder with compute-kaldi-pitch-feats (a Kaldi build's
# src/featbin; on the GPU machine bench/kaldi/pack-kaldi.sh carries it).
# Prints a Markdown table; work files in $TMPDIR (KEEP=1 keeps them).
set -euo pipefail
shopt -s inherit_errexit
corpus=$1 kb=$2 x=$3 set=${4:-long} jobs=${5:-8} repeats=${6:-2}
procs=${7:-$(nproc)}
# the plugin beside a build tree's afet-extract, unless one is given
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(cd "$(dirname "$x")/../.." && pwd)/gst}
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$w"' EXIT

# the list, its first KALDI1_FILES for the one-process run, and its split
# into procs pieces (file i to piece i mod procs)
ls "$corpus/$set"/*.wav | sort | awk '{n=$0; sub(".*/","",n); sub("[.]wav$","",n); print n, $0}' > "$w/wav.scp"
files=$(wc -l < "$w/wav.scp")
k1=${KALDI1_FILES:-$files}
head -n "$k1" "$w/wav.scp" > "$w/one.scp"
seconds () {  # the audio's seconds in a list, from the WAV headers
  python3 - "$1" <<'PY'
import sys, wave
s = 0.0
for line in open(sys.argv[1]):
    with wave.open(line.split()[1]) as f:
        s += f.getnframes() / f.getframerate()
print("%.1f" % s)
PY
}
all_s=$(seconds "$w/wav.scp") one_s=$(seconds "$w/one.scp")
for ((p = 0; p < procs; p++)); do
  awk -v p=$p -v n=$procs 'NR % n == p' "$w/wav.scp" > "$w/piece$p.scp"
done

# one thread a Kaldi process: its OpenBLAS would otherwise start a thread
# a core (and spin them), and "one process" would not be one core
kaldi_env () {
  [ -z "${KALDI_LD_LIBRARY_PATH:-}" ] ||
    export LD_LIBRARY_PATH=$KALDI_LD_LIBRARY_PATH:${LD_LIBRARY_PATH:-}
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
}
kaldi1 () {
  ( kaldi_env
    "$kb/compute-kaldi-pitch-feats" scp:"$w/one.scp" ark:"$w/one.ark" ) \
    2> "$w/kaldi1.log"
}
kaldip () {
  local p
  for ((p = 0; p < procs; p++)); do
    [ -s "$w/piece$p.scp" ] || continue
    ( kaldi_env
      "$kb/compute-kaldi-pitch-feats" scp:"$w/piece$p.scp" \
        ark:"$w/kaldi$p.ark" ) 2> "$w/kaldi$p.log" &
  done
  wait
}
afet () {
  "$x" "$@" --wav-scp "$w/wav.scp" --ark "$w/afet.ark" \
    -p 'afetpitch process=false' 2>> "$w/afet.log"
}

# the CPU seconds (user + system) of this shell's children between two
# outputs of bash's times (run in this shell: a subshell has its own)
cpu_between () {
  python3 - "$1" "$2" <<'PY'
import re, sys
def total(path):
    v = re.findall(r"(\d+)m([\d.]+)s", open(path).read().splitlines()[-1])
    return sum(int(m) * 60 + float(s) for m, s in v)
print("%.2f" % (total(sys.argv[2]) - total(sys.argv[1])))
PY
}
# runs KEY's command: its wall seconds into runs[KEY], its CPU seconds
# (user + system, every process) into cpus[KEY] (on a shared machine the
# CPU time is the steadier figure)
declare -A runs cpus
secs () {
  local key=$1 t0 t1
  shift
  times > "$w/times0"
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  times > "$w/times1"
  runs[$key]+="$(python3 -c "print('%.2f' % ($t1 - $t0))") "
  cpus[$key]+="$(cpu_between "$w/times0" "$w/times1") "
}

# afet's kernels built once before the timed runs (its program cache: a
# user's first run on a machine builds them, every later one reads them;
# that first run is timed apart, as "first run, program cache empty")
cold=""
if [ -z "${AFET_CACHE_DIR:-}" ]; then
  export AFET_CACHE_DIR=$w/program-cache
  head -n 1 "$w/wav.scp" > "$w/first.list"
  t0=$(date +%s.%N)
  "$x" --wav-scp "$w/first.list" --ark "$w/warm.ark" \
    -p 'afetpitch process=false' 2>> "$w/afet.log"
  t1=$(date +%s.%N)
  cold=$(python3 -c "print('%.2f' % ($t1 - $t0))")
fi

# the tools take turns, in a different order each round (a GPU left idle
# by the CPU tool's run clocks down)
for ((r = 0; r < repeats; r++)); do
  if ((r % 2 == 0)); then order="kaldi1 kaldip afet afetj"; else order="afetj afet kaldip kaldi1"; fi
  for t in $order; do
    case $t in
      kaldi1) secs kaldi1 kaldi1 ;;
      kaldip) secs kaldip kaldip ;;
      afet) secs afet afet ;;
      afetj) secs afetj afet -j "$jobs" ;;
    esac
  done
done
grep -h "jobs" "$w/afet.log" | sort | uniq -c >&2
grep -h "^ERROR\|^ASSERT" "$w"/kaldi*.log | head -3 >&2 || true
python3 "$here/agree.py" "$w/afet.ark" "$w"/kaldi[0-9]*.ark

cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
dev=$(command -v nvidia-smi >/dev/null &&
      nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "PoCL")
echo
echo "$files files, $(python3 -c "print('%.2f' % ($all_s / 3600))") h ($set); one Kaldi process on $k1 of them ($(python3 -c "print('%.2f' % ($one_s / 3600))") h); $(nproc) cores ($cpu), device: $dev"
echo
echo "| tool | audio (h) | runs (s, whole process) | best (s) | s per hour of audio | x real time | CPU s per hour of audio (best run's) |"
echo "| --- | --: | --- | --: | --: | --: | --: |"
for t in kaldi1 kaldip afet afetj; do
  s=$all_s
  case $t in
    kaldi1) name="compute-kaldi-pitch-feats, 1 process"; s=$one_s ;;
    kaldip) name="compute-kaldi-pitch-feats, $procs at once" ;;
    afet) name="afet-extract afetpitch process=false (default -j)" ;;
    afetj) name="afet-extract afetpitch process=false -j $jobs" ;;
  esac
  python3 - "$name" "$s" "${runs[$t]}" "${cpus[$t]}" <<'PY'
import sys
name, s = sys.argv[1], float(sys.argv[2])
runs = [float(v) for v in sys.argv[3].split()]
cpus = [float(v) for v in sys.argv[4].split()]
best = min(runs)
cpu = cpus[runs.index(best)]
print("| %s | %.2f | %s | %.2f | %.1f | %.0f | %.1f |" % (
    name, s / 3600, " ".join("%.2f" % v for v in runs), best,
    best * 3600 / s, s / best, cpu * 3600 / s))
PY
done
[ -z "$cold" ] || echo "
afet-extract's first run on the first file, the program cache empty (it builds the kernels; the runs above read them): $cold s"
