#!/bin/bash
# The lhotse path on the GPU machine's GPUs: bench/lhotse/gpus.py (lhotse's
# compute_and_store_features through a Dask cluster of workers, every worker
# on GPU 0, then spread over the GPUs; afet's AfetFbank and lhotse's Fbank on
# CUDA) and bench/lhotse/per_cut.py (extract a cut at a time, one process).
# Run from the project root with .devrt, .devpy (tests/device/pack-python.sh)
# and .devbuild carried, on the two-GPU kind:
#   bash bench/device/lhotse-gpus.sh [HOURS] [WORKERS]
# HOURS of 10-20 s cuts (default 20; 8 corpora of 300 files made in /tmp,
# each file taken as often as needed), WORKERS counts (default "4,8,16").
# Results: $OUT/lhotse-gpus.{json,log}, $OUT/lhotse-per-cut.log.
hours=${1:-20}
workers=${2:-4,8,16}
. .devrt/env.sh
. .devpy/env.sh
out=${OUT:-/tmp}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $out/lhotse-gpus.log
corp=$(bash bench/device/lhotse-corpus.sh)
python3 bench/lhotse/per_cut.py 2>&1 | grep -v WARNING | tee $out/lhotse-per-cut.log
# distributed logs a closed heartbeat at each cluster's end: kept in the
# log, left out of the terminal
python3 bench/lhotse/gpus.py --hours $hours --corpus $corp --workers $workers \
  --json $out/lhotse-gpus.json >> $out/lhotse-gpus.log 2>&1
rc=$?
grep -E "^(afet|lhotse)-" $out/lhotse-gpus.log
exit $rc
