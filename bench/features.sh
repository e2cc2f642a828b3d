#!/bin/bash
# Benchmarks the seeds' configurations side by side: MFCC_0_D_A_Z, PLP_0_D_A_Z
# and TRAPS, compared with afetmfcc's own cost on the same audio.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The seeds' configurations side by side (paper 001 section 3, thesis table
# 5.3): MFCC_0_D_A_Z and PLP_0_D_A_Z with 20 ms / 10 ms frames, 15 filters
# at 8 kHz and 25 at 44.1 kHz, LPC order 12, delta and acceleration windows
# 3; TRAPS with 25 ms / 10 ms frames, 15 bands, length 31, 11 DCT
# coefficients. No other tool computes PLP or TRAPS here (sphinx_fe has
# neither, HTK is not available), so PLP and TRAPS are compared with
# afetmfcc's own cost on the same audio in the same run.
#   bash bench/features.sh [SECONDS] [REPEATS]
set -u
secs=${1:-3600}
reps=${2:-3}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
echo "audio: $secs s per rate (audiotestsrc white noise, not live); best of $reps;"
echo "gst-launch-1.0 wall time, the source included"
for rate in 8000 44100; do
  filters=$([ $rate = 8000 ] && echo 15 || echo 25)
  src="audiotestsrc wave=white-noise volume=0.3 num-buffers=$secs samplesperbuffer=$rate ! audio/x-raw,format=S16LE,rate=$rate,channels=1"
  dyn="afetdelta delta-window=3 accel-window=3 ! afetcmvn columns=htk"
  echo
  echo "### $rate Hz"
  echo
  echo "| pipeline | seconds | x real time |"
  echo "|---|--:|--:|"
  row "source alone" identity
  row "afetmfcc (MFCC_0)" afetmfcc frame-length=20 num-filters=$filters
  row "afetmfcc ! afetdelta ! afetcmvn (MFCC_0_D_A_Z)" afetmfcc frame-length=20 num-filters=$filters ! $dyn
  row "afetplp (PLP_0)" afetplp frame-length=20 num-filters=$filters
  row "afetplp ! afetdelta ! afetcmvn (PLP_0_D_A_Z)" afetplp frame-length=20 num-filters=$filters ! $dyn
  row "afettraps (15 bands, 31 frames, 11 DCT)" afettraps num-filters=15
done
