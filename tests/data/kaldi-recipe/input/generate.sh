#!/bin/bash
# Makes input/mfcc.ark, the Kaldi MFCC (compute-mfcc-feats defaults, dither 0) of
# tests/data/audio's s01..s03 at 8 and 16 kHz that every Kaldi recipe-step reference
# here starts from. KALDI_BIN: the featbin programs of a Kaldi build
# (../shared/notes/kaldi-oracle.md), outside the repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
A=$(cd ../../audio && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in s01 s02 s03; do echo "${s}_8k $A/${s}_8k.wav"; done > "$tmp/wav8.scp"
for s in s01 s02 s03; do echo "${s}_16k $A/${s}_16k.wav"; done > "$tmp/wav16.scp"
"$B/compute-mfcc-feats" --dither=0 --sample-frequency=8000 scp:"$tmp/wav8.scp" ark:"$tmp/m8.ark"
"$B/compute-mfcc-feats" --dither=0 scp:"$tmp/wav16.scp" ark:"$tmp/m16.ark"
cat "$tmp/m8.ark" "$tmp/m16.ark" > mfcc.ark
