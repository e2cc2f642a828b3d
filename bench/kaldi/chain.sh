#!/bin/bash
# A Kaldi recipe's front end on a corpus, afet against Kaldi's own programs
# on the same machine (docs/benchmarks.md, "A Kaldi recipe's front end"):
#   Kaldi: compute-mfcc-feats | add-deltas | splice-feats 3/3 |
#          transform-feats (40 x 273) | copy-feats --compress=true,
#          the list split over PROCS pipes at once (default: every core);
#   afet:  afet-extract --ark --compress=1 with afetmfcc preset=kaldi !
#          afetdelta preset=kaldi ! afetsplice ! afettransform, default
#          properties and -j (2), then -j JOBS.
# Each run is the whole process (or all pipes), wall clock, REPEATS times,
# the tools taking turns; the outputs are checked to hold the same keys, and
# afet's numbers against Kaldi's on the first entries (bench/kaldi/agree.py).
#
#   bash bench/kaldi/chain.sh CORPUS_DIR KALDI_BIN AFET_EXTRACT [SET] [JOBS] \
#       [REPEATS] [PROCS]
# CORPUS_DIR: made by bench/make_corpus.py (SET: long or short, default
# long); KALDI_BIN: a folder with compute-mfcc-feats, add-deltas,
# splice-feats, transform-feats and copy-feats (../shared/notes/kaldi-oracle.md;
# on the GPU machine bench/kaldi/pack-kaldi.sh carries them). Prints a
# Markdown table; work files in $TMPDIR.
set -euo pipefail
shopt -s inherit_errexit
corpus=$1 kb=$2 x=$3 set=${4:-long} jobs=${5:-8} repeats=${6:-2}
procs=${7:-$(nproc)}
# the plugin beside a build tree's afet-extract, unless one is given
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(cd "$(dirname "$x")/../.." && pwd)/gst}
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$w"' EXIT

# the list, and its split into procs pieces (file i to piece i mod procs)
ls "$corpus/$set"/*.wav | sort | awk '{n=$0; sub(".*/","",n); sub("[.]wav$","",n); print n, $0}' > "$w/wav.scp"
files=$(wc -l < "$w/wav.scp")
hours=$(python3 -c "import json; c=json.load(open('$corpus/corpus.json')); print('%.2f' % (c['sets']['$set']['seconds'] / 3600))" 2>/dev/null || echo "?")
for ((p = 0; p < procs; p++)); do
  awk -v p=$p -v n=$procs 'NR % n == p' "$w/wav.scp" > "$w/piece$p.scp"
done
python3 "$here/agree.py" --make-matrix "$w/lda.mat" 40 273

kaldi () {
  local p
  for ((p = 0; p < procs; p++)); do
    [ -s "$w/piece$p.scp" ] || continue
    ( [ -n "${KALDI_LD_LIBRARY_PATH:-}" ] &&
        export LD_LIBRARY_PATH=$KALDI_LD_LIBRARY_PATH:${LD_LIBRARY_PATH:-}
      "$kb/compute-mfcc-feats" --dither=0 scp:"$w/piece$p.scp" ark:- |
      "$kb/add-deltas" ark:- ark:- |
      "$kb/splice-feats" --left-context=3 --right-context=3 ark:- ark:- |
      "$kb/transform-feats" "$w/lda.mat" ark:- ark:- |
      "$kb/copy-feats" --compress=true ark:- ark:"$w/kaldi$p.ark" ) \
      2> "$w/kaldi$p.log" &
  done
  wait
}

chain="afetmfcc preset=kaldi ! afetdelta preset=kaldi ! afetsplice left-context=3 right-context=3 ! afettransform matrix=$w/lda.mat"
afet () {
  "$x" "$@" --wav-scp "$w/wav.scp" --ark "$w/afet.ark" --compress=1 \
    -p "$chain" 2>> "$w/afet.log"
}

secs () {
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  python3 -c "print('%.2f' % ($t1 - $t0))"
}

declare -A runs
# the tools take turns, in a different order each round (a GPU left idle
# by the CPU tool's run clocks down)
for ((r = 0; r < repeats; r++)); do
  if ((r % 2 == 0)); then order="kaldi afet afetj"; else order="afetj afet kaldi"; fi
  for t in $order; do
    case $t in
      kaldi) runs[kaldi]+="$(secs kaldi) " ;;
      afet) runs[afet]+="$(secs afet) " ;;
      afetj) runs[afetj]+="$(secs afet -j "$jobs") " ;;
    esac
  done
done
grep -h "jobs" "$w/afet.log" | sort | uniq -c >&2
grep -h "ERROR\|error" "$w"/kaldi*.log | head -3 >&2 || true
python3 "$here/agree.py" "$w/afet.ark" "$w"/kaldi*.ark

cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
dev=$("$x" --help >/dev/null 2>&1; command -v nvidia-smi >/dev/null &&
      nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "PoCL")
echo
echo "$files files, $hours h ($set), $(nproc) cores ($cpu), device: $dev"
echo
echo "| tool | runs (s, whole process) | best (s) | x real time |"
echo "| --- | --- | --: | --: |"
for t in kaldi afet afetj; do
  case $t in
    kaldi) name="Kaldi's pipe, $procs at once" ;;
    afet) name="afet-extract (default -j)" ;;
    afetj) name="afet-extract -j $jobs" ;;
  esac
  python3 - "$name" "$hours" ${runs[$t]} <<'PY'
import sys
name, hours, runs = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3:]]
best = min(runs)
rt = "%.0f" % (float(hours) * 3600 / best) if hours != "?" else "?"
print("| %s | %s | %.2f | %s |" % (name, " ".join("%.2f" % v for v in runs),
                                   best, rt))
PY
done
