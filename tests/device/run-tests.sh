#!/bin/bash
# Runs the built test programs without meson, e.g. on the GPU machine (which
# has no meson): the engine, element and golden tests, on the device
# AFET_DEVICE selects (default here: gpu). Run from the project root after
# `. .devrt/env.sh`; BUILD (default build) names the carried build folder. Set
# AFET_REFDATA to a copy of the shared refdata for the real recordings.
set -u
top=$(pwd)
build=${BUILD:-build}
export AFET_DEVICE=${AFET_DEVICE:-gpu}
export AFET_TESTDATA=${AFET_TESTDATA:-$top/tests/data}
export LD_LIBRARY_PATH=$top/$build/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_PLUGIN_PATH_1_0=$top/$build/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}
export GST_PLUGIN_PATH=$top/$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
export CK_DEFAULT_TIMEOUT=300
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/afet-device-tests.registry
pass=0 fail=0 skip=0
run () {
  local name=$1; shift
  echo "=== $name"
  "$@"
  local rc=$?
  case $rc in
    0) pass=$((pass + 1)); echo "--- $name: OK" ;;
    77) skip=$((skip + 1)); echo "--- $name: SKIPPED" ;;
    *) fail=$((fail + 1)); echo "--- $name: FAIL ($rc)" ;;
  esac
}
export AFET_CACHE_DIR=${AFET_CACHE_DIR:-${TMPDIR:-/tmp}/afet-device-test-cache}
run engine "$build/tests/engine/test_engine"
run plp "$build/tests/engine/test_plp"
run cache "$build/tests/engine/test_cache"
run stream "$build/tests/engine/test_stream"
run lanes "$build/tests/engine/test_lanes"
run chain "$build/tests/engine/test_chain"
run vframes "$build/tests/engine/test_vframes"
# device memory's waits between queues on the driver itself (held-back
# writes and reads: each would read the wrong values without its wait)
run clmemory "$build/tests/check/test_clmemory"
# the engine's checks on framing + VkFFT, the plan of FFT sizes the group
# front does not take (the default on GPUs is the group front for the
# others)
AFET_FRONT=vkfft run engine-vkfft "$build/tests/engine/test_engine"
for t in afetframer afetmfcc afetplp afetdelta afettraps afetspectrogram \
    afetcmvn afetsplice afettransform afetenc_compress devicememory reliability matrix afetfile presets \
    htkconfig \
    budget; do
  run $t "$build/tests/check/check_$t"
done
AFET_GOLDEN_SET=synthetic run golden "$build/tests/check/check_golden"
AFET_GOLDEN_SET=real run golden-real "$build/tests/check/check_golden"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
