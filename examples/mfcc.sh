#!/bin/bash
# The main job on the bundled example: MFCC of a 16 kHz WAV through
# gst-launch-1.0, written as raw float32 frames; prints the frame count, the
# dimension and the OpenCL device used. Usage: examples/mfcc.sh [WAV] [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
wav=${1:-$here/data/speech-16k.wav}
out=${2:-${TMPDIR:-/tmp}/afet-example.mfcc}
export GST_PLUGIN_PATH=$top/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}

log=$(GST_DEBUG=afetbase:4,afetdevice:4 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -v \
  filesrc location="$wav" ! wavparse ! audioconvert ! audioresample ! \
  afetmfcc ! filesink location="$out" 2>&1) || { echo "$log"; exit 1; }

dims=$(echo "$log" | grep -o 'filesink0.GstPad:sink: caps = .*' | head -1 |
  sed -n 's/.*dims=(int)\([0-9]*\).*/\1/p')
device=$(echo "$log" | sed -n 's/.*OpenCL device on \(.*\) (request.*/\1/p' | head -1)
if [ -z "$dims" ] || [ -z "$device" ]; then
  echo "afet: could not read the output dimension or the device from the log:" >&2
  echo "$log" | tail -20 >&2
  exit 1
fi
bytes=$(stat -c %s "$out")
echo "afet: $(basename "$wav") -> $out"
echo "device: ${device:-unknown}"
echo "frames: $((bytes / (4 * dims)))  dims: $dims"
