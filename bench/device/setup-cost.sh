#!/bin/bash
# Per-file set-up cost of afet-extract: 300 copies of a 0.1 s file (one
# frame's worth of work each), 1 and 8 jobs, MFCC alone and the MFCC_0_D_A_Z
# chain; minus the cost of a 10-file run. Run from the project root (on the
# GPU machine with .devrt/.devbuild carried, or here with
# X=build/tools/afet-extract/afet-extract and GST_PLUGIN_PATH set).
set -u
if [ -f .devrt/env.sh ] && ! command -v gst-inspect-1.0 >/dev/null; then
  . .devrt/env.sh
  export GST_PLUGIN_PATH=${PLUGIN:-$PWD/.devbuild/gst}
  export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
  X=${X:-$PWD/.devbuild/tools/afet-extract/afet-extract}
fi
X=${X:-build/tools/afet-extract/afet-extract}
d=$(mktemp -d)
python3 - "$d" <<'PY'
import sys, wave
w = wave.open("tests/data/audio/s01_8k.wav"); w.setpos(4000)
fr = w.readframes(800)
o = wave.open(sys.argv[1] + "/tiny.wav", "wb"); o.setnchannels(1)
o.setsampwidth(2); o.setframerate(8000); o.writeframes(fr); o.close()
PY
for n in 10 300; do
  for i in $(seq $n); do echo "$d/tiny.wav $d/o$n/t$i.htk"; done > $d/l$n
done
now() { date +%s.%N; }
for ch in "afetmfcc" "afetmfcc ! afetdelta ! afetcmvn columns=htk"; do
  for j in 1 8; do
    $X --scp $d/l10 -p "$ch" -j $j -q
    a=$(now); $X --scp $d/l10 -p "$ch" -j $j -q; b=$(now)
    $X --scp $d/l300 -p "$ch" -j $j -q; c=$(now)
    python3 -c "import sys; a,b,c=map(float,sys.argv[1:4]); print('| %s | -j %s | %.2f ms per file | 10 files: %.3f s |' % (sys.argv[4], sys.argv[5], ((c-b)-(b-a))/290*1e3, b-a))" $a $b $c "$ch" $j
  done
done
rm -rf "$d"
