#!/bin/bash
# Benchmarks afet-extract before and after a change of the plugin, on the GPU
# machine, alternating, beside torchaudio in the same run
# (docs/results/history-2026-11.md "Files to files: the engine kept from file
# to file"). From the project root with .devrt, .devbuild (new) and .devold
# (old; `bash tests/device/pack-build.sh OLD_BUILD .devold`) carried:
#   bash bench/device/reuse-ab.sh [ROUNDS] [JOBS[,JOBS...]]
# Per round and build: bench/device/setup-cost.sh (per-file set-up) and
# bench/extract.py over 10 h of 16 kHz audio in short and long files to HTK
# MFCC_0_D_A_Z (whole process, and afet-extract's steady state where the
# build reports it); then torchaudio and the read floor once. Results on
# stdout and under $OUT.
set -u
rounds=${1:-2}
jobs=${2:-8}
. .devrt/env.sh
out=${OUT:-/tmp}
base_ld=${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $out/gpu.txt
t=$(date +%s)
python3 bench/make_corpus.py /tmp/xc/r16000 --rate 16000 --hours 10 \
  > $out/make.log 2>&1 || { tail $out/make.log; exit 3; }
echo "corpus: $(( $(date +%s) - t )) s"
use () {
  export GST_PLUGIN_PATH=$PWD/$1/gst PLUGIN=$PWD/$1/gst
  export LD_LIBRARY_PATH=$PWD/$1/gst-libs/features${base_ld:+:$base_ld}
  X=$PWD/$1/tools/afet-extract/afet-extract
}
for r in $(seq "$rounds"); do
  for b in .devold .devbuild; do
    [ -d "$b" ] || continue
    use "$b"
    echo "## round $r: $b"
    X=$X bash bench/device/setup-cost.sh 2>&1
    for j in ${jobs//,/ }; do
      python3 bench/extract.py /tmp/xc --rates 16000 --features MFCC_0_D_A_Z \
        --tools afet --jobs "$j" --repeats 2 --extract "$X" \
        --python python3 2>> $out/extract.log
    done
  done
done
use .devbuild
echo "## the peer and the read floor"
python3 bench/extract.py /tmp/xc --rates 16000 --features MFCC_0_D_A_Z \
  --tools read,torch --jobs 8 --repeats 2 --extract "$X" \
  --python python3 2>> $out/extract.log
