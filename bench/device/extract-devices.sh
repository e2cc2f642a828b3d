#!/bin/bash
# Benchmarks afet-extract on one GPU and on every GPU of the machine (--device
# all): 10 h of 16 kHz short and long files, MFCC_0_D_A_Z, HTK out. Run from
# the project root on a multi-GPU machine with .devrt/.devbuild.
set -u
. .devrt/env.sh
export GST_PLUGIN_PATH=$PWD/.devbuild/gst
export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
x=$PWD/.devbuild/tools/afet-extract/afet-extract
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 bench/make_corpus.py /tmp/xc/r16000 --rate 16000 --hours 10 > /dev/null
chain="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
now() { date +%s.%N; }
for set in short long; do
  ls /tmp/xc/r16000/$set/*.wav > /tmp/list-$set
  for cfg in "-j 8" "--device all -j 8" "--device all -j 16"; do
    best=
    for rep in 0 1 2; do
      rm -rf /tmp/xo
      a=$(now)
      $x --scp /tmp/list-$set -o /tmp/xo -p "$chain" $cfg 2> /tmp/err.txt || { tail -3 /tmp/err.txt; break; }
      b=$(now)
      t=$(python3 -c "print('%.3f' % ($b - $a))")
      [ $rep -gt 0 ] && { [ -z "$best" ] && best=$t || best=$(python3 -c "print(min($best, $t))"); }
    done
    echo "| $set | afet-extract $cfg | $best | $(tail -1 /tmp/err.txt) |"
  done
done
