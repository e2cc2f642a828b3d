#!/bin/bash
# Makes the whole-front-end references (docs/kaldi-recipe.md, "The whole
# front end"): Kaldi's own programs in a pipe, from tests/data/audio's
# s01..s03 at 16 kHz, as a GMM recipe's LDA+MLLT decoding front end runs
# them (steps/make_mfcc.sh's MFCC, steps/compute_cmvn_stats.sh's per-speaker
# statistics, apply-cmvn --utt2spk | splice-feats 3/3 | transform-feats, and
# copy-feats --compress), and the delta front end (apply-cmvn | add-deltas).
# The MFCC is not compressed between the steps here (a recipe's training
# features are: see the page). final.mat is a NumPy-made 40 x 91 matrix
# (fixed seed) standing for an LDA+MLLT estimate. KALDI_BIN: the featbin
# programs of a Kaldi build (../shared/notes/kaldi-oracle.md), outside the
# repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
A=$(cd ../../audio && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for s in s01 s02 s03; do echo "${s}_16k $A/${s}_16k.wav"; done > "$tmp/wav.scp"
printf 's01_16k spkA\ns02_16k spkA\ns03_16k spkB\n' > utt2spk
printf 'spkA s01_16k s02_16k\nspkB s03_16k\n' > spk2utt
python3 - "$tmp" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(20261129)
m = (rng.standard_normal((40, 92)) / np.sqrt(91)).astype(np.float32)
rows = ["  " + " ".join("%.9g" % v for v in r) for r in m]
open(sys.argv[1] + "/final.txt", "w").write(" [\n" + "\n".join(rows) + " ]\n")
PY
"$B/copy-matrix" --binary=true "$tmp/final.txt" final.mat

mfcc="$B/compute-mfcc-feats --dither=0 scp:$tmp/wav.scp ark:-"
$mfcc | "$B/compute-cmvn-stats" --spk2utt=ark:spk2utt ark:- ark:cmvn.ark
$mfcc | "$B/apply-cmvn" --utt2spk=ark:utt2spk ark:cmvn.ark ark:- ark:- |
  "$B/splice-feats" --left-context=3 --right-context=3 ark:- ark:- |
  "$B/transform-feats" final.mat ark:- ark:lda.ark
"$B/copy-feats" --compress=true ark:lda.ark ark:lda.cm.ark
$mfcc | "$B/apply-cmvn" --utt2spk=ark:utt2spk ark:cmvn.ark ark:- ark:- |
  "$B/add-deltas" ark:- ark:deltas.ark
