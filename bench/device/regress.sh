#!/bin/bash
# Checks a build on the GPU machine in one session: its device tests, then its
# pipelines and MFCC stage beside an older build's (nothing slower on the
# GPU).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# On the GPU machine, one session: the device tests of a build, then the
# same pipelines and the MFCC stage alone with an older build beside it
# (nothing slower on the GPU). Carry .devrt, the two builds
# (tests/device/pack-build.sh) and .devref (../shared/refdata's audio,
# htk, kaldi, whisper). Writes its logs into $OUT.
#   NEW=.devbuild OLD=.devold bash bench/device/regress.sh [SECONDS]
set -u
secs=${1:-3600}
new=${NEW:-.devbuild}
old=${OLD:-.devold}
out=${OUT:-/tmp/afet-regress}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  BUILD=$new AFET_REFDATA=$PWD/.devref bash tests/device/run-tests.sh \
    > "$out/device-tests.log" 2>&1
  tail -1 "$out/device-tests.log"
fi

# the MFCC stage alone, 16-bit samples, best of 5 (10 h at 36000)
for b in "$old" "$new"; do
  echo "== $b" >> "$out/engine.txt"
  "$b/bench/engine/afet-engine-bench" --seconds 36000 >> "$out/engine.txt" 2>&1
done
grep -E "^==|best" "$out/engine.txt"

# pipelines from audiotestsrc (not live), both builds in turn, best of 3
# after one untimed run (bench/ab.sh's table; its plugin set-up needs
# pkg-config, which this machine lacks)
src="audiotestsrc wave=white-noise volume=0.3 num-buffers=$secs samplesperbuffer=16000 ! audio/x-raw,format=S16LE,rate=16000,channels=1"
. bench/lib.sh
use () { export GST_PLUGIN_PATH=$PWD/$1/gst GST_REGISTRY_1_0=/tmp/regress-$(basename "$1").bin; }
{
  echo "audio: $secs s of 16 kHz, best of ${REPS:-3}, gst-launch-1.0 wall time"
  echo "| pipeline | old s | new s | new / old |"
  echo "|---|--:|--:|--:|"
  for chain in "afetmfcc" "afetplp" "afetmfcc ! afetdelta ! afetcmvn" \
      "afetmfcc ! afetdelta ! afetcmvn scope=sliding"; do
    reps=1
    # shellcheck disable=SC2086
    { use "$old"; best $chain; use "$new"; best $chain; } > /dev/null 2>&1
    reps=${REPS:-3}
    use "$old"
    # shellcheck disable=SC2086
    a=$(best $chain)
    use "$new"
    # shellcheck disable=SC2086
    b=$(best $chain)
    echo "| \`$chain\` | $a | $b | $(echo "$a $b" | awk '{printf "%.2f", $2 / $1}') |"
  done
} > "$out/pipelines.md" 2>&1
cat "$out/pipelines.md"
