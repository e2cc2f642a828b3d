#!/bin/bash
# Short files on the GPU machine (issue 29's corpus case): 10 h in 2400 files
# of 15 s, and 10 h in 60 files of 10 min beside them, to HTK MFCC_0_D_A_Z
# files with afet-extract at its default -j and at -j 4, each input through
# the direct pads (the default) and with the state changes kept
# (AFET_EXTRACT_DIRECT=0), outputs on tmpfs (/dev/shm) and on the disk
# (/tmp); then the batched torchaudio peer (bench/extract_torch_batched.py,
# 128 files a call) on the short files.  ROUNDS rounds, the variants
# interleaved.  Run from the project root with .devrt and .devbuild carried:
#   bash bench/device/short-files.sh [ROUNDS]
set -u
rounds=${1:-2}
. .devrt/env.sh
export GST_PLUGIN_PATH=$PWD/.devbuild/gst
export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
x=$PWD/.devbuild/tools/afet-extract/afet-extract
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc;
  grep -m1 "model name" /proc/cpuinfo; df -T /tmp /dev/shm | tail -2; }
python3 bench/make_corpus.py /tmp/sf15 --short-files 2400 --short-min 15 \
    --short-max 15 --long-files 0 > /dev/null 2>&1 &
python3 bench/make_corpus.py /tmp/sflong --long-files 60 --long-minutes 10 \
    --short-files 0 > /dev/null 2>&1 &
wait
ls /tmp/sf15/short/*.wav > /tmp/sf-short; ls /tmp/sflong/long/*.wav > /tmp/sf-long
chain="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
run() {  # LIST OUT [ARGS]: one line, steady state and whole process
  local l=$1 d=$2; shift 2; rm -rf "$d"
  /usr/bin/time -f "whole %e s, user %U s, sys %S s" "$x" --scp "$l" -o "$d" \
    -p "$chain" "$@" 2>&1 | grep -E "steady|whole|rror" |
    sed 's/afet-extract: steady state (after each job.s first input): //' |
    tr '\n' ' '; echo; rm -rf "$d"; }
run /tmp/sf-short /dev/shm/sf > /dev/null     # programs and plans cached
for r in $(seq "$rounds"); do
  for set in short long; do
    for out in /dev/shm/sf /tmp/sf; do
      for j in default 4; do
        a=(); [ $j = default ] || a=(-j $j)
        echo -n "round $r, $set, $out, -j $j, direct: "
        run /tmp/sf-$set $out "${a[@]}"
        echo -n "round $r, $set, $out, -j $j, AFET_EXTRACT_DIRECT=0: "
        AFET_EXTRACT_DIRECT=0 run /tmp/sf-$set $out "${a[@]}"
      done
    done
  done
done
for r in $(seq "$rounds"); do
  echo -n "round $r, short, /tmp/sf, torchaudio batched: "
  /usr/bin/time -f "whole %e s" python3 bench/extract_torch_batched.py \
    /tmp/sf-short /tmp/sf 16000 23 2>&1 | tr '\n' ' '; echo; rm -rf /tmp/sf
done
