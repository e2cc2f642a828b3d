#!/bin/bash
# Benchmarks the MFCC stage alone (afet-engine-bench, host to host) over a
# matrix of upload paths, sample formats and batch sizes.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The MFCC stage alone (afet-engine-bench, host to host) over SECONDS of
# 16 kHz audio: staged uploads through pinned memory or not, float or 16-bit
# host samples, three batch sizes; best of 3 each; then, where the build
# has it, the samples already on the device and the features left there
# (--input device: the kernels alone, checked bit for bit against the host
# run). Run from the project root; BUILD names the build folder (default
# build).
#   bash bench/engine/stage-matrix.sh [SECONDS]
set -u
build=${BUILD:-build}
secs=${1:-36000}
bench=$build/bench/engine/afet-engine-bench
for staging in never gpu; do
  for samples in f32 s16; do
    for batch in 4096 32768 131072; do
      AFET_STAGING=$staging "$bench" --seconds "$secs" --batch "$batch" \
        --dct fused --samples "$samples" --repeat 3 | tail -1 |
        sed "s/^/staging=$staging /"
    done
  done
done
"$bench" --seconds 1 --input device --repeat 1 > /dev/null 2>&1 || exit 0
for samples in f32 s16; do
  for batch in 4096 32768 131072; do
    "$bench" --seconds "$secs" --batch "$batch" --dct fused \
      --samples "$samples" --repeat 3 --input device | tail -1
  done
done
