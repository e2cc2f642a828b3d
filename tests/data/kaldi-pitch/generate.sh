#!/bin/bash
# Makes the pitch references here with Kaldi's own programs, from
# tests/data/audio's s01..s03 and this folder's glide (glide.py) at 8 and
# 16 kHz (keys s01_8k s02_8k s03_8k glide_8k s01_16k ... glide_16k; each
# archive holds the 8 kHz entries, then the 16 kHz ones). KALDI_BIN: the
# featbin programs of a Kaldi build (../shared/notes/kaldi-oracle.md), outside
# the repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
A=$(cd ../audio && pwd)
P=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 glide.py
for r in 8 16; do
  for s in s01 s02 s03; do echo "${s}_${r}k $A/${s}_${r}k.wav"; done > "$tmp/wav$r.scp"
  echo "glide_${r}k $P/glide_${r}k.wav" >> "$tmp/wav$r.scp"
done

# Runs Kaldi program $1 on both rates with the options after it, writing
# archive $2 (8 kHz entries, then 16 kHz).
both () {
  local prog=$1 out=$2
  shift 2
  "$B/$prog" --sample-frequency=8000 "$@" scp:"$tmp/wav8.scp" ark:"$tmp/a8.ark"
  "$B/$prog" --sample-frequency=16000 "$@" scp:"$tmp/wav16.scp" ark:"$tmp/a16.ark"
  cat "$tmp/a8.ark" "$tmp/a16.ark" > "$out"
}

# Raw pitch (nccf, pitch): offline; online in chunks of 10 frames (final
# features, and what the first decoding pass sees).
both compute-kaldi-pitch-feats raw.ark
both compute-kaldi-pitch-feats raw_chunk10.ark --frames-per-chunk=10
both compute-kaldi-pitch-feats raw_chunk10_first.ark --frames-per-chunk=10 \
  --simulate-first-pass-online=true

# Processed (pov feature, normalised log pitch, delta pitch) of raw.ark, with
# no delta-pitch noise (deterministic), and with the default noise (stddev
# 0.005, from rand () seeded by --srand, default 0: the same on every run of
# this build, but not a property of the algorithm).
"$B/process-kaldi-pitch-feats" --delta-pitch-noise-stddev=0 ark:raw.ark \
  ark:processed.ark
"$B/process-kaldi-pitch-feats" ark:raw.ark ark:processed_noise.ark

# Both in one program, offline and online (no delta-pitch noise).
both compute-and-process-kaldi-pitch-feats cap.ark --delta-pitch-noise-stddev=0
both compute-and-process-kaldi-pitch-feats cap_chunk10.ark \
  --delta-pitch-noise-stddev=0 --frames-per-chunk=10
both compute-and-process-kaldi-pitch-feats cap_chunk10_first.ark \
  --delta-pitch-noise-stddev=0 --frames-per-chunk=10 \
  --simulate-first-pass-online=true

# MFCC + pitch as make_mfcc_pitch.sh joins them: ../kaldi-recipe/input/mfcc.ark
# (13 columns) beside processed.ark's s01..s03 (3 columns).
"$B/paste-feats" --length-tolerance=2 ark:../kaldi-recipe/input/mfcc.ark \
  ark:processed.ark ark:mfcc_pitch.ark
