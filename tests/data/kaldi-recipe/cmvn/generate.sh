#!/bin/bash
# Makes Kaldi's CMVN statistics of ../input/mfcc.ark and apply-cmvn's output
# with them, the references of afetcmvn scope=archive and write-stats:
#   cmvn_utt.ark       compute-cmvn-stats, per utterance (binary DM)
#   cmvn_spk.ark       compute-cmvn-stats --spk2utt (speakers spk8k, spk16k)
#   cmvn_spk_fm.ark    the same as float matrices (FM), by copy-feats
#   cmvn_spk_text.ark  the same as a text archive, by copy-matrix
#   apply_utt.ark, apply_utt_vars.ark: apply-cmvn [--norm-vars] with cmvn_utt.ark
#   apply_spk.ark, apply_spk_vars.ark: apply-cmvn [--norm-vars] --utt2spk with
#     cmvn_spk.ark
# apply-cmvn runs on three entries only (s01_8k, s03_8k, s02_16k: both
# speakers), to keep the files small. spk2utt / utt2spk: the two speakers.
# KALDI_BIN: the featbin programs of a Kaldi build (../shared/notes/kaldi-oracle.md).
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/compute-cmvn-stats" ark:../input/mfcc.ark ark:cmvn_utt.ark
"$B/compute-cmvn-stats" --spk2utt=ark:spk2utt ark:../input/mfcc.ark ark:cmvn_spk.ark
"$B/copy-feats" ark:cmvn_spk.ark ark:cmvn_spk_fm.ark
"$B/copy-matrix" ark:cmvn_spk.ark ark,t:cmvn_spk_text.ark
"$B/copy-feats" ark:../input/mfcc.ark ark,scp:"$tmp/f.ark","$tmp/f.scp"
grep -E '^(s01_8k|s03_8k|s02_16k) ' "$tmp/f.scp" > "$tmp/sub.scp"
"$B/apply-cmvn" ark:cmvn_utt.ark scp:"$tmp/sub.scp" ark:apply_utt.ark
"$B/apply-cmvn" --norm-vars=true ark:cmvn_utt.ark scp:"$tmp/sub.scp" ark:apply_utt_vars.ark
"$B/apply-cmvn" --utt2spk=ark:utt2spk ark:cmvn_spk.ark scp:"$tmp/sub.scp" ark:apply_spk.ark
"$B/apply-cmvn" --norm-vars=true --utt2spk=ark:utt2spk ark:cmvn_spk.ark scp:"$tmp/sub.scp" ark:apply_spk_vars.ark
