#!/bin/bash
# Benchmarks two builds of the plugin side by side on the GPU machine, files
# to files in one process (afet-batch).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The long set (LONG files of 10 min) and a short set (SHORT files of 10-20
# s), MFCC_0 (afetmfcc) with 16-bit WAV input, best of REPEATS after a warm-up
# run of each. Run from the project root:
#   bash bench/gpu-ab.sh DIR [LONG] [SHORT] [REPEATS]
# DIR holds old/gst, new/gst (the two plugins) and afet-batch, built on the
# development machine. Prints one AFET_BATCH line per run, prefixed with
# the build, the set and the run.
set -eu
dir=$1
long=${2:-60}
short=${3:-600}
reps=${4:-3}
if [ -f .devrt/env.sh ] && ! command -v gst-inspect-1.0 >/dev/null; then
  # shellcheck disable=SC1091
  . .devrt/env.sh
fi
corpus=${CORPUS:-/tmp/afet-ab-corpus}
python3 bench/make_corpus.py "$corpus" --long-files "$long" \
  --long-minutes 10 --short-files "$short" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for set in long short; do
  find "$corpus/$set" -name '*.wav' | sort |
    awk -v o="$out" '{ n = split ($0, p, "/"); print $0 "\t" o "/" p[n] ".f32" }' \
    > "$out/$set.list"
done
for rep in $(seq 0 "$reps"); do
  for build in old new; do
    for set in long short; do
      jobs=8
      [ "$set" = short ] && jobs=16
      line=$(GST_PLUGIN_PATH=$dir/$build/gst \
        GST_REGISTRY_1_0=$out/$build.registry \
        LD_LIBRARY_PATH=$dir/$build/gst-libs/features:${LD_LIBRARY_PATH:-} \
        "$dir/afet-batch" -j "$jobs" "$out/$set.list" | grep AFET_BATCH)
      [ "$rep" = 0 ] && continue   # warm-up
      echo "$build $set run $rep: $line"
      rm -f "$out"/*.f32
    done
  done
done
