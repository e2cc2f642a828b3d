#!/bin/bash
# Makes deltas/o{1,2,3}_w{2,3}.ark: Kaldi's add-deltas --delta-order=1..3
# --delta-window=2 and 3 of input/mfcc.ark's s03_8k (one entry, to keep the
# files small; the tests run every entry against tests/reference's Kaldi
# deltas, which test_reference_kaldi checks against these files).
# KALDI_BIN: the featbin programs of a Kaldi build
# (../shared/notes/kaldi-oracle.md), outside the repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/copy-feats" ark:../input/mfcc.ark ark,scp:"$tmp/all.ark","$tmp/all.scp"
grep '^s03_8k ' "$tmp/all.scp" > "$tmp/one.scp"
for o in 1 2 3; do
  for w in 2 3; do
    "$B/add-deltas" --delta-order=$o --delta-window=$w scp:"$tmp/one.scp" \
      ark:o${o}_w${w}.ark
  done
done
