#!/bin/bash
# Live streams on the GPU machine with default properties (issue: defaults
# that scale): N live 16 kHz streams (10 ms buffers) in one process, at real
# speed, through GStreamer alone (identity x 3, the baseline), through the
# default chain afetmfcc ! afetdelta ! afetcmvn scope=sliding (device memory
# between the elements), and through the same chain in system memory. Prints
# afet-soak's brief summaries. Run from the project root after
# `. .devrt/env.sh`, with BUILD naming the carried build (default build).
#   bash bench/device/live-default.sh "1000 2500" [SECONDS]
set -u
build=${BUILD:-build}
export GST_PLUGIN_PATH=$PWD/$build/gst
export LD_LIBRARY_PATH=$PWD/$build/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
counts=${1:-"1000 2500"}
seconds=${2:-12}
hours=$(python3 -c "print($seconds / 3600)" 2>/dev/null || echo 0.0033)
sys="device-memory=false"
for n in $counts; do
  for mode in identity default system; do
    case $mode in
      identity) chain="identity ! identity ! identity" ;;
      default) chain="afetmfcc ! afetdelta ! afetcmvn scope=sliding" ;;
      system) chain="afetmfcc $sys ! afetdelta $sys ! afetcmvn scope=sliding $sys" ;;
    esac
    echo "=== $n streams, $mode: $chain"
    /usr/bin/time -f "wall %e s, cpu %U user %S sys" \
      "$build/bench/soak/afet-soak" --streams "$n" --hours "$hours" \
      --speed 1 --brief --chain "$chain" 2>&1 |
      grep -E "^(clock|source pacing|added latency|cpu|result|wall|ERROR)" | head -12
    # (the identity chain gives no feature frames: its "result" is FAIL)
  done
done
