#!/bin/bash
# Benchmarks the live CPU cost per stream, side by side in one run: afet
# chains through afet-live-cpu and kaldi-native-fbank's online fbank.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Live CPU cost per stream, side by side in one run: afet chains through
# afet-live-cpu (N live 16 kHz pipelines, 10 ms buffers, in one process,
# less the same with identity) and kaldi-native-fbank's online fbank fed
# 10 ms chunks (knf_live.py: its C++ through the Python package), for
# 1, 8 and 64 streams; optionally an older afet build first, for before /
# after. Default environment and properties (the automatic latency budget);
# REPEATS rounds of identity and the chains (default 3), their median;
# CHAINS="A;B" measures other chains, and SOAK=1 adds each chain's added
# latency (p50/p99/max) from bench/soak/afet-soak at real speed.
#   bash bench/live/live.sh [SECONDS] [STREAMS...]
#   BUILD=build OLD=/tmp/old/build PY=bench/.venv/bin/python bash bench/live/live.sh 20 1 8 64
#   CHAINS="afetmfcc device-memory=false ! afetdelta device-memory=false ! afetcmvn scope=sliding device-memory=false" SOAK=1 bash bench/live/live.sh 12 1 64
set -u
cd "$(dirname "$0")/../.."
secs=${1:-20}
shift || true
streams=${*:-1 8 64}
build=${BUILD:-build}
py=${PY:-bench/.venv/bin/python}
chains=("afetmfcc preset=kaldi num-ceps=0" "afetmfcc ! afetdelta ! afetcmvn scope=sliding")
if [ -n "${CHAINS:-}" ]; then
  IFS=';' read -r -a chains <<< "$CHAINS"
fi

run_afet () {  # run_afet BUILD N
  GST_PLUGIN_PATH=$1/gst "$build/bench/live/afet-live-cpu" --streams "$2" \
    --seconds "$secs" --repeats "${REPEATS:-3}" "${chains[@]}"
  if [ -n "${SOAK:-}" ]; then
    for c in "${chains[@]}"; do
      echo "soak: $c"
      GST_PLUGIN_PATH=$1/gst "$build/bench/soak/afet-soak" --streams "$2" \
        --hours "$(echo "$secs / 3600" | bc -l)" --speed 1 --brief \
        --interval 1000 --chain "$c" 2>&1 | grep -E '^(added latency|cpu:|result)'
    done
  fi
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); $(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -1)"
echo "afet: $(git log --oneline -1 | cut -c1-60)"
for n in $streams; do
  echo
  if [ -n "${OLD:-}" ]; then
    echo "-- before ($OLD)"
    run_afet "$OLD" "$n"
  fi
  echo "-- afet ($build)"
  run_afet "$build" "$n"
  echo "-- peer"
  "$py" bench/live/knf_live.py --streams "$n" --seconds "$secs"
done
