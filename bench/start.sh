#!/bin/bash
# Benchmarks the start-up of a one-file pipeline, whole process, with cold and
# warm kernel caches, for this build and optionally an older one.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Start-up of a one-file pipeline, whole process (gst-launch-1.0 from exec
# to exit): cold (empty PoCL and afet kernel caches: a fresh
# XDG_CACHE_HOME and POCL_CACHE_DIR) and warm (the same caches again),
# for this build and optionally an older one, side by side in one run.
# The GStreamer registry is kept warm in its own file for both (a plugin
# scan is not afet's start-up).
#   bash bench/start.sh [REPEATS]
#   BUILD=build OLD=/tmp/old/build bash bench/start.sh 5
set -u
cd "$(dirname "$0")/.."
reps=${1:-5}
wav=$PWD/examples/data/speech-16k.wav
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GST_REGISTRY=$tmp/registry.bin

one () {  # one BUILD CACHE -> seconds of one whole-process run
  local t0 t1
  t0=$(date +%s.%N)
  XDG_CACHE_HOME=$2 POCL_CACHE_DIR=$2/pocl GST_PLUGIN_PATH=$1/gst \
    gst-launch-1.0 -q filesrc location="$wav" ! wavparse ! audioconvert ! \
    afetmfcc ! filesink location="$tmp/out.mfcc" || { echo "failed: $1" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

report () {  # report NAME BUILD
  local cold="" warm="" c i
  GST_PLUGIN_PATH=$2/gst gst-inspect-1.0 afetmfcc > /dev/null  # registry
  for i in $(seq "$reps"); do
    c=$tmp/cache-$1-$i
    rm -rf "$c"; mkdir -p "$c"
    cold="$cold $(one "$2" "$c")"
    warm="$warm $(one "$2" "$c")"
  done
  printf '%-8s cold: %s\n%-8s warm: %s\n' "$1" "$(summary $cold)" "$1" "$(summary $warm)"
}

summary () {  # best and median of the arguments, in seconds
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    printf "best %.3f s, median %.3f s (%d runs)", v[1], v[int((NR + 1) / 2)], NR }'
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); $(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -1)"
echo "afet: $(git log --oneline -1 | cut -c1-60)"
[ -n "${OLD:-}" ] && report before "$OLD"
report afet "${BUILD:-build}"
