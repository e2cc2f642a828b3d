#!/bin/sh
# Builds kaldi_drv (Kaldi's own PLP / spectrogram / MFCC computers on raw
# float32 samples) against a Kaldi source tree, without OpenFst or a LAPACK.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
# Only the feature code, the matrix library over a CBLAS (Debian's
# libblas-dev), and stand-ins for the LAPACK routines that the features never
# call (they abort).
#   sh build.sh KALDI_SRC_DIR OUT_DIR      (KALDI_SRC_DIR = kaldi/src)
set -e
K=$1
O=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O/stub" "$O/obj"
F="dgesvd_ dgetrf_ dgetri_ dsptrf_ dsptri_ dtptri_ sgesvd_ sgetrf_ sgetri_ ssptrf_ ssptri_ stptri_"
{ echo '#pragma once'; echo '#ifdef __cplusplus'; echo 'extern "C" {'
  for f in $F; do echo "void $f(...);"; done; echo '}'; echo '#endif'; } > "$O/stub/lapacke.h"
{ echo '#include <cstdlib>'; echo 'extern "C" {'
  for f in $F; do echo "void $f(...) { abort(); }"; done; echo '}'; } > "$O/stub/lapack_stub.cc"
mkdir -p "$O/stub/base"
printf '#define KALDI_VERSION "afet-drv"\n#define KALDI_GIT_HEAD "afet-drv"\n' > "$O/stub/base/version.h"
SRCS="base/kaldi-error.cc base/kaldi-math.cc base/kaldi-utils.cc base/io-funcs.cc
 base/timer.cc matrix/kaldi-vector.cc matrix/kaldi-matrix.cc matrix/srfft.cc
 matrix/matrix-functions.cc matrix/packed-matrix.cc matrix/sp-matrix.cc
 matrix/tp-matrix.cc matrix/compressed-matrix.cc matrix/qr.cc
 matrix/optimization.cc matrix/sparse-matrix.cc util/parse-options.cc
 util/text-utils.cc util/kaldi-io.cc util/simple-options.cc
 util/kaldi-holder.cc util/kaldi-table.cc feat/feature-plp.cc
 feat/feature-spectrogram.cc feat/feature-mfcc.cc feat/feature-window.cc
 feat/feature-functions.cc feat/mel-computations.cc feat/resample.cc"
CXX="g++ -std=c++17 -O2 -DOPENFST_VER=10800 -DHAVE_OPENBLAS -I$O/stub -I/usr/include/x86_64-linux-gnu -I$K"
for s in $SRCS; do
  $CXX -c "$K/$s" -o "$O/obj/$(echo "$s" | tr / _).o" &
done
$CXX -c "$O/stub/lapack_stub.cc" -o "$O/obj/lapack_stub.o" &
$CXX -c "$HERE/kaldi_drv.cc" -o "$O/obj/kaldi_drv.o" &
wait
g++ -o "$O/kaldi_drv" "$O"/obj/*.o -lblas -lpthread
echo "$O/kaldi_drv"
