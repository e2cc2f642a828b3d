#!/bin/bash
# Renders the pictures of docs/pictures.md from the bundled example with
# tools/afet-plot.py (the build tree's plugin). Run from anywhere:
#   bash docs/images/render.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
export GST_PLUGIN_PATH=$top/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
export MPLBACKEND=Agg
wav=examples/data/speech-16k.wav
plot() { /usr/bin/python3 tools/afet-plot.py --audio "$wav" "$@"; }

plot --pipeline 'afetmfcc' -o docs/images/mfcc.png
plot --pipeline 'afetmfcc num-ceps=0' -o docs/images/fbank.png
plot --pipeline 'afetplp' -o docs/images/plp.png
plot --pipeline 'afettraps num-filters=15' --traps-dct 11 -o docs/images/traps.png
plot --pipeline 'afetmfcc ! afetdelta ! afetcmvn columns=htk' -o docs/images/mfcc_0_d_a_z.png
ls -l docs/images/*.png
