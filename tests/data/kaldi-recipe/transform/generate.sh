#!/bin/bash
# Makes the transform-feats references: matrices made with NumPy (fixed
# seed), written by copy-matrix in binary and text form (and as .npy by NumPy
# from the same float32 values), and what Kaldi's transform-feats made with
# them. KALDI_BIN: the featbin programs of a Kaldi build
# (../shared/notes/kaldi-oracle.md), outside the repository.
set -euo pipefail
cd "$(dirname "$0")"
B=${KALDI_BIN:?set KALDI_BIN to a Kaldi build\'s featbin folder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The matrices as Kaldi text (float32 values printed so that they read back
# exactly), the per-speaker archive's text, the .npy files, utt2spk, and the
# first 100 frames of s01_8k and s03_16k (Kaldi's MFCC, cut: the spliced
# input, add-deltas then splice-feats +-3 = 273 columns, stays small).
python3 - "$tmp" <<'PY'
import sys
import numpy as np
import kaldiio
tmp = sys.argv[1]
rng = np.random.default_rng(20261128)
def mat(rows, cols, scale):
    return (rng.standard_normal((rows, cols)) * scale).astype(np.float32)
def text(m):
    rows = ["  " + " ".join("%.9g" % v for v in r) for r in m]
    return " [\n" + "\n".join(rows) + " ]\n"
lda = mat(40, 273, 1.0 / np.sqrt(273))
linear = mat(13, 13, 1.0 / np.sqrt(13))
affine = mat(13, 14, 1.0 / np.sqrt(13))
affine[:, 13] *= 10.0
spk = {"spkA": mat(13, 14, 1.0 / np.sqrt(13)),
       "spkB": mat(13, 14, 1.0 / np.sqrt(13))}
for name, m in (("lda", lda), ("linear", linear), ("affine", affine)):
    open("%s/%s.txt" % (tmp, name), "w").write(text(m))
np.save("linear.npy", linear)                    # float32
np.save("affine.npy", affine.astype(np.float64)) # float64, same values
with open("%s/trans.txt" % tmp, "w") as f:
    for k, m in spk.items():
        f.write(k + text(m))
with open("utt2spk", "w") as f:
    for u, s in (("s01_8k", "spkA"), ("s02_8k", "spkA"), ("s03_8k", "spkB"),
                 ("s01_16k", "spkA"), ("s02_16k", "spkB"),
                 ("s03_16k", "spkB")):
        f.write("%s %s\n" % (u, s))
feats = dict(kaldiio.load_ark("../input/mfcc.ark"))
kaldiio.save_ark("%s/cut.ark" % tmp, {k: feats[k][:100] for k in
                                      ("s01_8k", "s03_16k")})
PY

for m in lda linear affine; do
  "$B/copy-matrix" --binary=true "$tmp/$m.txt" "$m.mat"
  "$B/copy-matrix" --binary=false "$m.mat" "$m.txt"
done
"$B/copy-matrix" ark,t:"$tmp/trans.txt" ark:trans.ark

"$B/add-deltas" ark:"$tmp/cut.ark" ark:"$tmp/deltas.ark"
"$B/splice-feats" --left-context=3 --right-context=3 ark:"$tmp/deltas.ark" \
    ark:spliced.ark
"$B/transform-feats" lda.mat ark:spliced.ark ark:lda-out.ark
"$B/transform-feats" linear.mat ark:../input/mfcc.ark ark:linear-out.ark
"$B/transform-feats" affine.mat ark:../input/mfcc.ark ark:affine-out.ark
"$B/transform-feats" --utt2spk=ark:utt2spk ark:trans.ark \
    ark:../input/mfcc.ark ark:spk-out.ark
