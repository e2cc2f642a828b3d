#!/bin/bash
# Makes splice/l{3r3,1r1,2r0}.ark: Kaldi's splice-feats with
# --left-context/--right-context 3/3, 1/1 and 2/0 of input/mfcc.ark's
# s03_16k (one entry, to keep the files small; the tests run every entry
# against tests/reference's splicing, which test_reference_kaldi checks
# against these files). KALDI_BIN: the featbin programs of a Kaldi build
# (../shared/notes/kaldi-oracle.md), outside the repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/copy-feats" ark:../input/mfcc.ark ark,scp:"$tmp/all.ark","$tmp/all.scp"
grep '^s03_16k ' "$tmp/all.scp" > "$tmp/one.scp"
for lr in 3:3 1:1 2:0; do
  l=${lr%:*}; r=${lr#*:}
  "$B/splice-feats" --left-context=$l --right-context=$r scp:"$tmp/one.scp" \
    ark:l${l}r${r}.ark
done
