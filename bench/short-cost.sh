#!/bin/bash
# The host's cost per short file in afet-extract: instructions (callgrind,
# 4 against 24 files), system calls (strace -c, 4 against 100 files) and CPU
# seconds and wall time over 400 files, for one build or two side by side.
# Run from the project root on a machine with valgrind and strace:
#   bash bench/short-cost.sh [X [X_OLD]]     (X: an afet-extract binary)
# 400 x 15 s files (make_corpus.py), HTK MFCC_0_D_A_Z (bench/extract.py's
# chain at 16 kHz), -j 1 for the counts, -j 2 for the timings.
set -eu
X=${1:-build/tools/afet-extract/afet-extract}
OLD=${2:-}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$PWD/build/gst}
export LD_LIBRARY_PATH=$PWD/build/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
CH="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
d=${CORPUS:-/tmp/afet-short-cost}
python3 bench/make_corpus.py "$d" --short-files 400 --short-min 15 \
    --short-max 15 --long-files 0 >&2
t=$(mktemp -d)
ls "$d"/short/*.wav > "$t/l400"
for n in 4 24 100; do head -$n "$t/l400" > "$t/l$n"; done
run() { rm -rf "$t/o"; "$@" -o "$t/o" -p "$CH" -q; }
for b in $X $OLD; do
  # the programs in afet's cache, so that valgrind's run compiles nothing
  AFET_CACHE_PROGRAMS=always run "$b" --scp "$t/l4"
  for n in 4 24; do
    AFET_CACHE_PROGRAMS=always run valgrind --tool=callgrind \
        --callgrind-out-file="$t/cg$n" "$b" --scp "$t/l$n" -j 1 2> /dev/null
  done
  for n in 4 100; do
    run strace -f -c -o "$t/st$n" "$b" --scp "$t/l$n" -j 1
  done
  python3 - "$t" "$b" <<'PY'
import re, subprocess, sys
t, b = sys.argv[1:3]
def ir(f):
    out = subprocess.run(["callgrind_annotate", f], capture_output=True,
                         text=True).stdout
    return int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", out)
               .group(1).replace(",", ""))
def calls(f):
    d = {}
    for l in open(f):
        p = l.split()
        if len(p) >= 5 and p[0][0].isdigit() and p[-1] != "total":
            d[p[-1]] = int(p[3])
    return d
a, c = calls(t + "/st4"), calls(t + "/st100")
per = {k: (c[k] - a.get(k, 0)) / 96 for k in c}
print("| %s | %.2f M instructions a file | %.0f system calls a file (%s) |"
      % (b, (ir(t + "/cg24") - ir(t + "/cg4")) / 20e6, sum(per.values()),
         ", ".join("%s %.0f" % kv for kv in sorted(
             per.items(), key=lambda kv: -kv[1])[:4])))
PY
done
cat "$t/l400" | xargs cat > /dev/null
for r in 1 2 3; do
  for b in $X $OLD; do
    /usr/bin/time -f "| $b | round $r | 400 files -j 2: wall %e s, user %U s, sys %S s |" \
        "$b" --scp "$t/l400" -o "$t/o$r" -p "$CH" -j 2 -q
    rm -rf "$t/o$r"
  done
done 2>&1
rm -rf "$t"
