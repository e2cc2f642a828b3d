#!/bin/bash
# Live streams, old and new plugin interleaved in one call on the GPU machine,
# with GStreamer alone (identity x 3) in the same call: N live 16 kHz streams
# (10 ms buffers) of afetmfcc ! afetdelta ! afetcmvn scope=sliding with no
# property set, through afet-soak at real speed. From the project root with
# .devrt, .devbuild (new: its afet-soak runs every chain) and .devold (old:
# at least .devold/gst, the old plugin) carried:
#   bash bench/device/live-ab.sh [ROUNDS] [COUNTS] [SECONDS]
# Per round and stream count: identity, then the two builds (their order
# swapped every other round). Prints afet-soak's real time, added latency,
# CPU and result, and /usr/bin/time's; per stream above identity is
# (CPU - identity's CPU) / N. docs/results/h200-live-chain.txt was made so.
set -u
rounds=${1:-2}
counts=${2:-"1000 2500"}
seconds=${3:-12}
. .devrt/env.sh
new=.devbuild
soak=$new/bench/soak/afet-soak
lib=$PWD/$new/gst-libs/features
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "$(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
chain="afetmfcc ! afetdelta ! afetcmvn scope=sliding"
hours=$(python3 -c "print($seconds / 3600)")
run () {
  local label=$1 plug=$2 n=$3 ch=$4
  echo "=== $n streams, $seconds s, $label"
  # the chain's programs built before the timed run (afet's program cache)
  GST_PLUGIN_PATH=$PWD/$plug LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-} \
    "$soak" --streams 1 --hours 0.0003 --speed 10 --brief --chain "$ch" \
    > /dev/null 2>&1
  GST_PLUGIN_PATH=$PWD/$plug LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-} \
    /usr/bin/time -f "wall %e s, cpu %U user %S sys" "$soak" --streams "$n" \
    --hours "$hours" --speed 1 --brief --chain "$ch" 2>&1 |
    grep -E "^(clock|start-up|added latency|cpu|result|wall|ERROR)" |
    sed -E 's/^clock \(SoakClock\).*the sources/sources/;
      s/ \(wall ms[^)]*\)//; s/; the chain reports.*//'
}
for round in $(seq "$rounds"); do
  for n in $counts; do
    run identity $new/gst "$n" "identity ! identity ! identity"
    if [ $((round % 2)) = 1 ]; then
      run old .devold/gst "$n" "$chain"
      run new $new/gst "$n" "$chain"
    else
      run new $new/gst "$n" "$chain"
      run old .devold/gst "$n" "$chain"
    fi
  done
done
