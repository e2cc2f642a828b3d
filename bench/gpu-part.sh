#!/bin/bash
# Runs one part of the 10 h benchmark on the GPU machine, small enough for its
# 10-minute limit per command.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run from the project root:
#
#   bash bench/gpu-part.sh long|short-fused|short-gemm|short-torch [bench.py options]
#
# Generates the corpus first if it is not there yet (make_corpus.py --preset
# gpu, ~2.3 GB). It sources .devrt/env.sh when the machine has no
# GStreamer of its own. Writes
# $OUT/bench-PART.json and .md, and prints the .md. Merge the parts with
#   python3 bench/bench.py --report bench-long.json bench-short-*.json
# Environment: CORPUS (default /tmp/afet-corpus), CORPUS_OPTS (default
# --preset gpu), PLUGIN_PATH (default bench/build/gst if present, else
# build/gst), OUT (default /tmp), PYTHON (default python3).
set -eu
part=${1:?usage: bench/gpu-part.sh long|short-fused|short-gemm|short-torch [options]}
shift
# the carried Debian run time, where the machine has no GStreamer of its own
if [ -f .devrt/env.sh ] && ! command -v gst-inspect-1.0 >/dev/null; then
  # shellcheck disable=SC1091
  . .devrt/env.sh
fi
py=${PYTHON:-python3}
corpus=${CORPUS:-/tmp/afet-corpus}
out=${OUT:-/tmp}
if [ -z "${PLUGIN_PATH:-}" ]; then
  if [ -f bench/build/gst/elements/libgstafet.so ]; then
    PLUGIN_PATH=$PWD/bench/build/gst
  else
    PLUGIN_PATH=$PWD/build/gst
  fi
fi
# shellcheck disable=SC2054  # the commas are bench.py's list syntax
case $part in
  long)        args=(--sets long --dct-method fused,gemm
                     --torch-method compliance,transforms --torch-batch 64) ;;
  short-fused) args=(--sets short --tools afet --dct-method fused) ;;
  short-gemm)  args=(--sets short --tools afet --dct-method gemm) ;;
  short-torch) args=(--sets short --tools torch
                     --torch-method compliance,transforms --torch-batch 64) ;;
  *) echo "unknown part: $part" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
"$py" bench/make_corpus.py "$corpus" ${CORPUS_OPTS:---preset gpu}
"$py" bench/bench.py "$corpus" --plugin-path "$PLUGIN_PATH" "${args[@]}" "$@" \
  --json "$out/bench-$part.json" > "$out/bench-$part.md"
cat "$out/bench-$part.md"
