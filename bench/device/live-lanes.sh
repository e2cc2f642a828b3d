#!/bin/bash
# Benchmarks live streams on the GPU machine: N live 16 kHz streams (10 ms
# buffers) in one process through MFCC + deltas + sliding CMVN, in system
# memory, with the context combiner's lanes (combine-streams, the default) and
# without (combine-streams=false on afetdelta and afetcmvn), at real speed.
# Prints afet-soak's brief summaries. Run from the project root after
# `. .devrt/env.sh`, with BUILD naming the carried build (default build).
#   bash bench/device/live-lanes.sh "100 300 1000" [SECONDS]
set -u
build=${BUILD:-build}
export GST_PLUGIN_PATH=$PWD/$build/gst
export LD_LIBRARY_PATH=$PWD/$build/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
counts=${1:-"100 300 1000"}
seconds=${2:-9}
hours=$(python3 -c "print($seconds / 3600)" 2>/dev/null || echo 0.0025)
sys="device-memory=false"
lanes="afetmfcc $sys ! afetdelta $sys ! afetcmvn scope=sliding $sys"
alone="afetmfcc $sys ! afetdelta $sys combine-streams=false ! afetcmvn scope=sliding $sys combine-streams=false"
for n in $counts; do
  for mode in lanes alone; do
    [ $mode = alone ] && [ "$n" -gt 300 ] && continue
    chain=$lanes
    [ $mode = alone ] && chain=$alone
    echo "=== $n streams, context elements $mode: $chain"
    time "$build/bench/soak/afet-soak" --streams "$n" --hours "$hours" \
      --speed 1 --brief --chain "$chain" 2>&1 | tail -25
  done
done
