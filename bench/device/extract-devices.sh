#!/bin/bash
# Benchmarks afet-extract on one GPU and on every GPU of the machine (--device
# all): HOURS (default 10) of 16 kHz short and long files, MFCC_0_D_A_Z, HTK
# out, whole process, best of REPEATS (default 2) after an untimed run, with
# the steady state and start-up afet-extract prints. Above 10 h the sets are
# the 10 h corpus's files linked HOURS/10 times under other names (the same
# audio again: reading comes from the page cache either way). The outputs go
# to OUTDIR (default /dev/shm/xo, tmpfs: on the disk, 24000 files created in
# one folder spread the runs by 2x; set OUTDIR=/tmp/xo for the disk).
# CONFIGS: afet-extract's options to compare, separated by | (default
# "|-j 8|--device all|--device all -j 16"; the empty one is the defaults).
# Run from the project root on a multi-GPU machine with .devrt/.devbuild.
#   bash bench/device/extract-devices.sh [HOURS]
set -u
hours=${1:-10}
out=${OUTDIR:-/dev/shm/xo}
repeats=${REPEATS:-2}
IFS="|" read -r -a configs <<< "${CONFIGS:-|-j 8|--device all|--device all -j 16}"
. .devrt/env.sh
export GST_PLUGIN_PATH=$PWD/.devbuild/gst
export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
x=$PWD/.devbuild/tools/afet-extract/afet-extract
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 bench/make_corpus.py /tmp/xc/r16000 --rate 16000 --hours 10 > /dev/null
chain="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
now() { date +%s.%N; }
copies=$(( (hours + 9) / 10 ))
for set in short long; do
  rm -f /tmp/list-$set
  for ((c = 0; c < copies; c++)); do
    # a copy: the folder's files hard-linked (one cp, 2400 links)
    mkdir -p /tmp/xc/copies/$set
    [ -d /tmp/xc/copies/$set/$c ] ||
      cp -al /tmp/xc/r16000/$set /tmp/xc/copies/$set/$c
    # two columns: the copies' outputs need names of their own
    ls /tmp/xc/copies/$set/$c/*.wav | awk -v c=$c -v o="$out" '{n=$0;
      sub(".*/","",n); sub("[.]wav$","",n); print $0, o "/" c "-" n ".htk"}' \
      >> /tmp/list-$set
  done
  echo "$set: $(wc -l < /tmp/list-$set) files, $((copies * 10)) h"
  for cfg in "${configs[@]}"; do
    best=
    for ((rep = 0; rep <= repeats; rep++)); do
      rm -rf "$out"; mkdir -p "$out"
      a=$(now)
      $x --scp /tmp/list-$set -p "$chain" $cfg 2> /tmp/err.txt || { tail -3 /tmp/err.txt; break; }
      b=$(now)
      t=$(python3 -c "print('%.3f' % ($b - $a))")
      [ $rep -gt 0 ] && { [ -z "$best" ] && best=$t || best=$(python3 -c "print(min($best, $t))"); }
    done
    echo "| $set | afet-extract ${cfg:-(defaults)} | $best | $(grep -h "jobs\|steady\|start-up" /tmp/err.txt | tr '\n' ' ') |"
  done
done
rm -rf "$out"
