#!/bin/bash
# Benchmarks two builds of the plugin side by side in one run: the same
# pipelines over SECONDS of 16 kHz audio, each build in turn.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Best of REPEATS, warm caches (one untimed run of each first). For checking
# that a change leaves pipeline speed alone.
#   bash bench/ab.sh OLD_BUILD NEW_BUILD [SECONDS] [REPEATS]
# (OLD_BUILD / NEW_BUILD: meson build folders; their gst/ is the plugin.)
set -u
old=$1
new=$2
secs=${3:-600}
reps=${4:-5}
src="audiotestsrc wave=white-noise volume=0.3 num-buffers=$secs samplesperbuffer=16000 ! audio/x-raw,format=S16LE,rate=16000,channels=1"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export AFET_CACHE_DIR=$cache/programs

use () {  # use BUILD: the plugin gst-launch-1.0 loads from now on
  export GST_PLUGIN_PATH=$1/gst GST_PLUGIN_SYSTEM_PATH_1_0= \
    GST_PLUGIN_PATH_1_0=$1/gst:$(pkg-config --variable=pluginsdir gstreamer-1.0) \
    GST_REGISTRY_1_0=$cache/$(basename "$1").registry
}

echo "audio: $secs s of 16 kHz; best of $reps; gst-launch-1.0 wall time"
echo "old: $old ($(git -C "$old/.." log --oneline -1 2>/dev/null | cut -c1-60))"
echo "new: $new ($(git -C "$new/.." log --oneline -1 2>/dev/null | cut -c1-60))"
echo
echo "| pipeline | old s | new s | new / old |"
echo "|---|--:|--:|--:|"
for chain in "afetmfcc" "afetplp" \
    "afetmfcc ! afetdelta ! afetcmvn" \
    "afetmfcc ! afetdelta ! afetcmvn scope=sliding"; do
  keep=$reps; reps=1
  # shellcheck disable=SC2086
  { use "$old"; best $chain > /dev/null; use "$new"; best $chain > /dev/null; } 2>/dev/null
  reps=$keep
  use "$old"
  # shellcheck disable=SC2086
  a=$(best $chain)
  use "$new"
  # shellcheck disable=SC2086
  b=$(best $chain)
  echo "| \`$chain\` | $a | $b | $(echo "$a $b" | awk '{printf "%.2f", $2 / $1}') |"
done
