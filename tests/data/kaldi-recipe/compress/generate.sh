#!/bin/bash
# Makes the compressed-matrix references: Kaldi's copy-feats --compress=true
# --compression-method=N (N = 1..7) of ../input/mfcc.ark, of fbank.ark
# (compute-fbank-feats of s03_8k, whose values span another range), of
# short.txt (the first 1 to 9 rows of s01_8k: Kaldi's paths for few rows)
# and of hand.txt (constant matrices, values beyond the fixed ranges of
# methods 4, 6 and 7), and decompressed.sha256: the SHA-256 of copy-feats
# of each compressed archive back to a binary float archive, the
# decompression reference (a float archive is as large as its input, too
# large to keep 28 of).  short.txt (13 columns) and hand.txt (4) are
# apart: afetenc writes one frame width per archive.  KALDI_BIN: the
# featbin programs of a Kaldi build (../shared/notes/kaldi-oracle.md),
# outside the repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
A=$(cd ../../audio && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "s03_8k $A/s03_8k.wav" > "$tmp/wav.scp"
"$B/compute-fbank-feats" --dither=0 --sample-frequency=8000 \
    scp:"$tmp/wav.scp" ark:fbank.ark
# short matrices: rows 0..n-1 of s01_8k through Kaldi's row ranges, and
# hand-written ones (a constant matrix makes Kaldi widen its range)
"$B/copy-feats" ark:../input/mfcc.ark ark,scp:"$tmp/m.ark","$tmp/m.scp"
head -n 1 "$tmp/m.scp" | while read -r k loc; do
  for n in 1 2 3 4 5 8 9; do echo "rows$n $loc[0:$((n - 1))]"; done
done > "$tmp/rows.scp"
"$B/copy-feats" scp:"$tmp/rows.scp" ark,t:"$tmp/rows.txt"
cat > hand.txt <<'END'
const3x4  [
  2.5 2.5 2.5 2.5
  2.5 2.5 2.5 2.5
  2.5 2.5 2.5 2.5 ]
negconst  [
  -7 -7 -7 -7 ]
zeros10  [
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0
  0 0 0 0 ]
wide  [
  -40000 0.001 255.6 -0.4
  40000 -0.001 256 1.2
  12.25 0.5 -3 0.999
  -32768.5 32767.5 0.25 0.75
  1e-30 -1e-30 300 0.5
  7 8 9 10 ]
steps9  [
  1 1 1 -1
  1 1 2 -1
  1 1 3 -1
  1 1 4 -1
  1 1 5 -1
  1 1 6 -1
  1 1 7 -1
  1 1 8 -1
  1 2 9 -1 ]
END
cp "$tmp/rows.txt" short.txt
for n in 1 2 3 4 5 6 7; do
  for s in mfcc:../input/mfcc.ark fbank:fbank.ark short:short.txt hand:hand.txt; do
    name=${s%%:*}
    "$B/copy-feats" --compress=true --compression-method=$n ark:"${s#*:}" \
        ark:$name.cm$n.ark
    "$B/copy-feats" ark:$name.cm$n.ark ark:"$tmp/$name.cm$n.float.ark"
    (cd "$tmp" && sha256sum $name.cm$n.float.ark)
  done
done > decompressed.sha256
