#!/bin/bash
# Kaldi's offline pitch on the GPU machine (bench/pitch/bench.sh): 10 h of
# 16 kHz in 60 ten-minute files and 1 h in 240 fifteen-second files,
# afet-extract 'afetpitch process=false' on the GPU against
# compute-kaldi-pitch-feats in one process (on the first KALDI1_FILES long
# files, default 6: 1 h, and on all the short ones: its seconds per hour of
# audio are the figure to compare; KALDI1_FILES=60 times all 10 h) and
# split over every core of the host. Run from the project root with .devrt,
# .devbuild and .kaldirt (bench/kaldi/pack-kaldi.sh) carried; results under
# $OUT.
#   bash bench/device/pitch.sh [JOBS] [REPEATS]    (default 24 2: the
# tuned -j beside the default's 32 on a 16-core host; 16-24 jobs were the
# fastest there, build f958005)
set -euo pipefail
jobs=${1:-24} repeats=${2:-2}
. .devrt/env.sh
. .kaldirt/env.sh
export GST_PLUGIN_PATH=$PWD/.devbuild/gst
export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
out=${OUT:-/tmp}
x=.devbuild/tools/afet-extract/afet-extract
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/pitch-gpu.txt
python3 bench/make_corpus.py /tmp/pc10 --long-files 60 --long-minutes 10 \
    --short-files 240 --short-min 15 --short-max 15 > $out/pitch-corpus.log 2>&1
KALDI1_FILES=${KALDI1_FILES:-6} bash bench/pitch/bench.sh /tmp/pc10 \
    "$KALDI_BIN" "$x" long "$jobs" "$repeats" > $out/pitch-long.md \
    2> $out/pitch-long.log
bash bench/pitch/bench.sh /tmp/pc10 "$KALDI_BIN" "$x" short "$jobs" \
    "$repeats" > $out/pitch-short.md 2> $out/pitch-short.log
cat $out/pitch-gpu.txt $out/pitch-long.md $out/pitch-short.md
