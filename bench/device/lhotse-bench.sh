#!/bin/bash
# lhotse's compute_and_store_features_batch on the GPU machine: lhotse's Fbank
# on CUDA against afet's AfetFbank (bench/lhotse/bench.py). Run from the
# project root with .devrt, .devpy (tests/device/pack-python.sh) and .devbuild
# carried:
#   bash bench/device/lhotse-bench.sh [HOURS] [WHICH] [WORKERS] [STORAGE]
# HOURS of 10-20 s cuts (default 100: 10 h of short files, made once in /tmp
# by 8 make_corpus.py runs in parallel, each file taken 10 times), WHICH both,
# lhotse or afet, WORKERS data loader workers (8), STORAGE lilcom or numpy;
# BENCH_ARGS: more options for bench.py (e.g. --compare 10, --streams 16,
# --floor: the loading and storage floor of the call, timed beside them).
# Results: $OUT/lhotse-bench-HOURS-WHICH.{json,log}.
hours=${1:-100}
which=${2:-both}
workers=${3:-8}
storage=${4:-lilcom}
. .devrt/env.sh
. .devpy/env.sh
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/gpu.txt 2>&1
t=$(date +%s)
corp=$(bash bench/device/lhotse-corpus.sh)
echo "corpus: $(( $(date +%s) - t )) s, $(du -sh /tmp/afet-lhotse-corpus | cut -f1)" >> $out/gpu.txt
name=lhotse-bench-$hours-$which
python3 bench/lhotse/bench.py --hours $hours --which $which --corpus $corp \
  --num-workers $workers --storage $storage --json $out/$name.json \
  ${BENCH_ARGS:-} \
  2>&1 | tee $out/$name.log
rc=${PIPESTATUS[0]}
cat $out/gpu.txt
exit $rc
