#!/bin/bash
# Runs the afet.lhotse tests (python-lhotse, python-lhotse-dask) on the GPU
# machine, on the device AFET_DEVICE selects (default here: gpu), and keeps
# their output. Run from the project root with a carried build
# (tests/device/pack-build.sh; BUILD, default build) and a python3 that has
# PyGObject, NumPy and torch; lhotse, dask and distributed come from
# WHEELS (a folder of wheels made here with
#   pip download -d .devwheels --python-version X.Y --only-binary=:all: \
#     lhotse==1.33.0 urllib3 lilcom==1.8.2 dask==2026.8.0 distributed==2026.8.0
# for the device's Python X.Y) when that python lacks them: the GPU
# machine reaches no registry. There, whose python3 lacks PyGObject too,
# . .devrt/env.sh; . .devpy/env.sh (tests/device/pack-python.sh) first gives
# it PyGObject and all of those, without WHEELS. Output:
# ${OUT:-.}/lhotse-device.log, and "N passed, N failed, N skipped" last.
set -u
top=$(pwd)
build=${BUILD:-build}
out=${OUT:-.}
py=${PYTHON:-python3}
export AFET_DEVICE=${AFET_DEVICE:-gpu}
export AFET_TEST_DEVICE=$AFET_DEVICE
export LD_LIBRARY_PATH=$top/$build/gst-libs/features${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_PLUGIN_PATH_1_0=$top/$build/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}
export GST_PLUGIN_PATH=$top/$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
export GST_REGISTRY_1_0=${TMPDIR:-/tmp}/afet-device-lhotse.registry
export AFET_CACHE_DIR=${AFET_CACHE_DIR:-${TMPDIR:-/tmp}/afet-device-test-cache}
export PYTHONPATH=$top/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
# the tests use this python3 as it is (no venv of install-deps.sh there)
export AFET_LHOTSE_VENV=/nonexistent CI=${CI:-true}
mkdir -p "$out"
log=$out/lhotse-device.log
: > "$log"
if ! "$py" -c 'import lhotse, lilcom, distributed' 2>/dev/null && [ -n "${WHEELS:-}" ]; then
  "$py" -m pip install -q --no-index --find-links "$WHEELS" \
    lhotse urllib3 lilcom dask distributed 2>&1 | tee -a "$log"
fi
{
  echo "device: AFET_DEVICE=$AFET_DEVICE"
  "$py" -c 'import torch, lhotse; print("torch", torch.__version__, "lhotse", lhotse.__version__)'
  command -v nvidia-smi >/dev/null && nvidia-smi -L
} 2>&1 | tee -a "$log"
pass=0 fail=0 skip=0
for t in test_lhotse test_lhotse_dask; do
  echo "=== $t" | tee -a "$log"
  "$py" "tests/python/$t.py" -v 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) pass=$((pass + 1)); echo "--- $t: OK" | tee -a "$log" ;;
    77) skip=$((skip + 1)); echo "--- $t: SKIPPED" | tee -a "$log" ;;
    *) fail=$((fail + 1)); echo "--- $t: FAIL ($rc)" | tee -a "$log" ;;
  esac
done
echo "$pass passed, $fail failed, $skip skipped" | tee -a "$log"
[ $fail -eq 0 ]
