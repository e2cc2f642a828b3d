#!/bin/bash
# Live streams on the GPU machine with default properties (issue: defaults
# that scale): N live 16 kHz streams (10 ms buffers) in one process, at real
# speed, through GStreamer alone (identity x 3, the baseline), through the
# chain afetmfcc ! afetdelta ! afetcmvn scope=sliding with no property set
# (live input: system memory between the elements, the automatic latency
# budget), and tuned beside it: device memory between the elements
# (device-memory=true, the default before live input chose), and no budget
# (latency-budget=0); with the mode warm (not run by default), the default
# chain in a process that has run it once before the timed start (a server
# that has served a stream); with the mode identity1 (not run by default), through
# one identity (what two of GStreamer's own elements cost a stream); with
# the mode `pitch` (not run by default), Kaldi's
# pitch online (afetpitch with no property set: a live source gets the first
# pass in chunks of 10 frames). Each chain's kernels are built once before
# its timed run (one short stream). Prints afet-soak's brief summaries. Run from the
# project root after `. .devrt/env.sh`, with BUILD naming the carried build
# (default build).
#   bash bench/device/live-default.sh "1000 2500" [SECONDS] [MODES]
set -u
build=${BUILD:-build}
export GST_PLUGIN_PATH=$PWD/$build/gst
export LD_LIBRARY_PATH=$PWD/$build/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
counts=${1:-"1000 2500"}
seconds=${2:-12}
modes=${3:-"identity default device budget0"}
hours=$(python3 -c "print($seconds / 3600)" 2>/dev/null || echo 0.0033)
dev="device-memory=true"
b0="latency-budget=0"
for n in $counts; do
  for mode in $modes; do
    extra=
    case $mode in
      identity) chain="identity ! identity ! identity" ;;
      # one element instead of three: what GStreamer's own elements cost a
      # stream (the part a many-streams element would take off)
      identity1) chain="identity" ;;
      default) chain="afetmfcc ! afetdelta ! afetcmvn scope=sliding" ;;
      # the same in a process that has already run the chain once (afet-soak
      # --warm-start: the driver's start and the device's left out)
      warm) chain="afetmfcc ! afetdelta ! afetcmvn scope=sliding"; extra=--warm-start ;;
      device) chain="afetmfcc $dev ! afetdelta $dev ! afetcmvn scope=sliding $dev" ;;
      budget0) chain="afetmfcc $b0 ! afetdelta $b0 ! afetcmvn scope=sliding $b0" ;;
      pitch) chain="afetpitch" ;;
      *) echo "unknown mode $mode (identity identity1 default warm device budget0 pitch)"; exit 2 ;;
    esac
    echo "=== $n streams, $mode: $chain"
    # the chain's kernels built before the timed run (afet's program cache,
    # as a server's second start finds them; a first start on a machine
    # builds them: afetpitch's take seconds on a GPU)
    "$build/bench/soak/afet-soak" --streams 1 --hours 0.0003 --speed 10 \
      --brief --chain "$chain" > /dev/null 2>&1 || true
    /usr/bin/time -f "wall %e s, cpu %U user %S sys" \
      "$build/bench/soak/afet-soak" --streams "$n" --hours "$hours" \
      --speed 1 --brief --chain "$chain" $extra 2>&1 |
      grep -E "^(afet-soak: (warm|--warm)|clock|each stream|start-up|source pacing|added latency|cpu|result|wall|ERROR)" | head -15
    # (the identity chain gives no feature frames: its "result" is FAIL)
  done
done
