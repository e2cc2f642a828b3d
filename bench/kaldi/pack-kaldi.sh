#!/bin/bash
# Carries Kaldi's front-end and pitch programs to the GPU machine for
# bench/kaldi/chain.sh and bench/pitch/bench.sh: the binaries of a Kaldi
# build (stripped) and the Debian packages of the libraries they load (OpenBLAS, gfortran), in
# .kaldirt/ (git-ignored); there, `. .kaldirt/env.sh` unpacks them and sets
# KALDI_BIN and LD_LIBRARY_PATH. Nothing of Kaldi is committed.
#   bash bench/kaldi/pack-kaldi.sh KALDI_BIN
set -euo pipefail
kb=${1:?the bin folder of a Kaldi build (../shared/notes/kaldi-oracle.md)}
cd "$(dirname "$0")/../.."
grep -qx '/.kaldirt/' .git/info/exclude 2>/dev/null ||
  echo '/.kaldirt/' >> "$(git rev-parse --git-common-dir)/info/exclude"
rm -rf .kaldirt
mkdir -p .kaldirt/bin
for p in compute-mfcc-feats add-deltas splice-feats transform-feats copy-feats \
    compute-kaldi-pitch-feats process-kaldi-pitch-feats \
    compute-and-process-kaldi-pitch-feats paste-feats; do
  cp "$kb/$p" .kaldirt/bin/
  strip --strip-unneeded .kaldirt/bin/$p
done
( cd .kaldirt && apt-get download libopenblas0-pthread libgfortran5 \
    libquadmath0 >/dev/null 2>&1 )
cat > .kaldirt/env.sh <<'SH'
# Sourced on the GPU machine from the project's root: Kaldi's programs and
# their libraries (unpacked once into /tmp/kaldi-rt).
_k=$PWD/.kaldirt
if [ ! -d /tmp/kaldi-rt/usr ]; then
  mkdir -p /tmp/kaldi-rt
  for f in "$_k"/*.deb; do dpkg -x "$f" /tmp/kaldi-rt; done
fi
_l=/tmp/kaldi-rt/usr/lib/x86_64-linux-gnu
export KALDI_BIN=$_k/bin
export KALDI_LD_LIBRARY_PATH=$_l/openblas-pthread:$_l
SH
du -sh .kaldirt
