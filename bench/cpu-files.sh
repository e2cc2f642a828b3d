#!/bin/bash
# Short files on the CPU, whole process: afet-extract -j J (HTK's
# MFCC_0_D_A_Z and MFCC_0, HTK files out) beside sphinx_fe (plain MFCC, no
# deltas: it has none) split over J processes, rounds alternating, and an
# older build's afet-extract in the same rounds (OLD=its build folder).
# Issue 29's CPU target: afet's MFCC_0_D_A_Z at least 2x sphinx_fe.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   bash bench/cpu-files.sh [FILES [ROUNDS [JOBS]]]
#   OLD=/tmp/old/build bash bench/cpu-files.sh 150 3 2
# FILES x 15 s files of make_corpus.py (default 150, 37.5 min), in CORPUS
# (default /tmp/afet-cpu-files); times from /usr/bin/time after one untimed
# run of each build (afet's and PoCL's program caches warm).
set -eu
cd "$(dirname "$0")/.."
files=${1:-150}
rounds=${2:-3}
jobs=${3:-2}
d=${CORPUS:-/tmp/afet-cpu-files}
python3 bench/make_corpus.py "$d" --short-files "$files" --short-min 15 \
    --short-max 15 --long-files 0 > /dev/null
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ls "$d"/short/*.wav | head -n "$files" > "$t/list"
sed 's#.*/##; s#\.wav$##' "$t/list" > "$t/all.ctl"
for k in $(seq 0 $((jobs - 1))); do
  awk -v k="$k" -v n="$jobs" '(NR - 1) % n == k' "$t/all.ctl" > "$t/s$k.ctl"
done
DAZ="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
M0="afetmfcc frame-length=20 num-ceps=12 num-filters=23"
SX="-mswav yes -samprate 16000 -frate 100 -wlen 0.020 -nfft 512 -alpha 0.97
 -nfilt 23 -lowerf 0 -upperf 8000 -ncep 13 -transform htk -lifter 22
 -dither no -remove_noise no -remove_silence no -ofmt htk -ei wav -eo mfc"
builds=(build ${OLD:-})
afet () {  # afet BUILD CHAIN: "wall user sys"
  rm -rf "$t/o"
  GST_PLUGIN_PATH=$1/gst GST_REGISTRY_1_0=$t/reg.$(echo "$1" | md5sum | cut -c1-8) \
    LD_LIBRARY_PATH=$1/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    /usr/bin/time -f "%e %U %S" -o "$t/time" "$1/tools/afet-extract/afet-extract" \
    --scp "$t/list" -o "$t/o" -p "$2" -j "$jobs" -q || { echo "FAILED"; return; }
  cat "$t/time"
}
sphinx () {
  if ! command -v sphinx_fe > /dev/null; then
    echo "not run: sphinx_fe is not installed (apt-get install sphinxbase-utils)"
    return
  fi
  rm -rf "$t/sx"; mkdir -p "$t/sx"
  local a b
  a=$(date +%s.%N)
  for k in $(seq 0 $((jobs - 1))); do
    # shellcheck disable=SC2086
    sphinx_fe -c "$t/s$k.ctl" -di "$d/short" -do "$t/sx" $SX > /dev/null 2>&1 &
  done
  wait
  b=$(date +%s.%N)
  echo "$(echo "$b - $a" | bc) s"
}
echo "# $files x 15 s, -j $jobs / $jobs sphinx_fe processes; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"
for b in "${builds[@]}"; do afet "$b" "$DAZ" > /dev/null; done
for r in $(seq "$rounds"); do
  for b in "${builds[@]}"; do
    echo "round $r $b: MFCC_0_D_A_Z wall/user/sys $(afet "$b" "$DAZ") s; MFCC_0 $(afet "$b" "$M0") s"
  done
  echo "round $r sphinx_fe x$jobs: $(sphinx)"
done
