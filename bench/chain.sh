#!/bin/bash
# Benchmarks the longest afet chain (afetframer ! afetmfcc ! afetdelta !
# afetcmvn) with device and system memory between the elements, beside
# torchaudio's equivalent.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The longest afet chain, afetframer ! afetmfcc ! afetdelta ! afetcmvn
# (sliding), over SECONDS of 16 kHz audio from audiotestsrc (not live),
# with device memory between the elements and with system memory forced
# (device-memory=false on all of them), and afetmfcc alone; then, where
# PyTorch with CUDA is there, torchaudio's MFCC + deltas + sliding CMN on
# the same amount of audio (bench/chain_torch.py). Best of REPEATS.
#   bash bench/chain.sh [SECONDS] [REPEATS]
set -u
secs=${1:-3600}
reps=${2:-3}
py=${PYTHON:-python3}
src="audiotestsrc wave=white-noise volume=0.3 num-buffers=$secs samplesperbuffer=16000 ! audio/x-raw,format=S16LE,rate=16000,channels=1"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
echo "audio: $secs s of 16 kHz; best of $reps; gst-launch-1.0 wall time, audiotestsrc included"
echo
echo "| pipeline | seconds | x real time |"
echo "|---|--:|--:|"
source_only=$(best identity)
echo "| audiotestsrc ! fakesink alone | $source_only | |"
chain="afetframer ! afetmfcc ! afetdelta ! afetcmvn scope=sliding"
sys="afetframer device-memory=false ! afetmfcc device-memory=false ! afetdelta device-memory=false ! afetcmvn scope=sliding"
row "afetmfcc" afetmfcc
row "$chain (device memory)" $chain
row "$chain (system memory)" $sys
if "$py" -c 'import torch, torchaudio; assert torch.cuda.is_available ()' 2>/dev/null; then
  "$py" "$(dirname "$0")/chain_torch.py" "$secs" "$reps"
else
  echo
  echo "torchaudio on CUDA: not available here"
fi
