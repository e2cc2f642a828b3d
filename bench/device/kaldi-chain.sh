#!/bin/bash
# A Kaldi recipe's front end on the GPU machine (bench/kaldi/chain.sh): 10 h
# in 60 ten-minute files, afet-extract on the GPU against Kaldi's programs
# split over every core of the host. Run from the project root with .devrt,
# .devbuild and .kaldirt (bench/kaldi/pack-kaldi.sh) carried; results under
# $OUT.
#   bash bench/device/kaldi-chain.sh [JOBS] [REPEATS]
set -euo pipefail
jobs=${1:-8} repeats=${2:-2}
. .devrt/env.sh
. .kaldirt/env.sh
export GST_PLUGIN_PATH=$PWD/.devbuild/gst
export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/kaldi-gpu.txt
python3 bench/make_corpus.py /tmp/kc10 --long-files 60 --long-minutes 10 \
    --short-files 1 > $out/kaldi-corpus.log 2>&1
bash bench/kaldi/chain.sh /tmp/kc10 "$KALDI_BIN" \
    .devbuild/tools/afet-extract/afet-extract long "$jobs" "$repeats" \
    > $out/kaldi-chain.md 2> $out/kaldi-chain.log
cat $out/kaldi-gpu.txt $out/kaldi-chain.md
