#!/bin/bash
# Files, old and new build alternating in one call on the GPU machine
# (issue 29's corpus case): 10 h in 2400 files of 15 s and 10 h in 60 files
# of 10 min, to HTK MFCC_0_D_A_Z files on tmpfs with afet-extract at its
# default -j and at -j 4; steady state (afet-extract's own line) and the
# whole process (wall, user and system seconds). The two builds' outputs
# are compared byte for byte first; the batched torchaudio peer
# (bench/extract_torch_batched.py, 128 files a call) runs on the short
# files after the rounds. From the project root with .devrt, .devold (old)
# and .devbuild (new) carried (each needs gst/elements, gst-libs/features
# and tools/afet-extract):
#   bash bench/device/files-ab.sh [ROUNDS]
set -u
rounds=${1:-3}
. .devrt/env.sh
base_ld=${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc;
  grep -m1 "model name" /proc/cpuinfo; hostname; }
python3 bench/make_corpus.py /tmp/fab15 --short-files 2400 --short-min 15 \
    --short-max 15 --long-files 0 > /dev/null 2>&1 &
python3 bench/make_corpus.py /tmp/fablong --long-files 60 --long-minutes 10 \
    --short-files 0 > /dev/null 2>&1 &
wait
ls /tmp/fab15/short/*.wav > /tmp/fab-short
ls /tmp/fablong/long/*.wav > /tmp/fab-long
chain="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta \
order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
use () {
  export GST_PLUGIN_PATH=$PWD/$1/gst
  export LD_LIBRARY_PATH=$PWD/$1/gst-libs/features${base_ld:+:$base_ld}
  x=$PWD/$1/tools/afet-extract/afet-extract
}
run () {  # LIST OUT [ARGS]: one line, steady state and whole process
  local l=$1 d=$2; shift 2; rm -rf "$d"
  /usr/bin/time -f "whole %e s, user %U s, sys %S s" "$x" --scp "$l" -o "$d" \
    -p "$chain" "$@" 2>&1 | grep -E "steady|whole|rror" |
    sed 's/afet-extract: steady state (after each job.s first input): //' |
    tr '\n' ' '; echo; rm -rf "$d"; }
for b in .devold .devbuild; do
  use $b
  for set in short long; do
    rm -rf /dev/shm/fab$b-$set
    "$x" --scp /tmp/fab-$set -o /dev/shm/fab$b-$set -p "$chain" -q
  done
done
for set in short long; do
  n=$(ls /dev/shm/fab.devbuild-$set | wc -l)
  differ=$(cd /dev/shm/fab.devold-$set && for f in *; do
    cmp -s "$f" "../fab.devbuild-$set/$f" || echo "$f"; done | wc -l)
  echo "$set: $n files, $differ differ between the builds"
  rm -rf /dev/shm/fab.devold-$set /dev/shm/fab.devbuild-$set
done
for r in $(seq "$rounds"); do
  for set in short long; do
    for j in default 4; do
      [ $set = long ] && [ $j = 4 ] && continue
      a=(); [ $j = default ] || a=(-j $j)
      for b in .devold .devbuild; do
        use $b
        echo -n "round $r, $set, -j $j, $b: "
        run /tmp/fab-$set /dev/shm/fab "${a[@]}"
      done
    done
  done
done
echo -n "short, torchaudio batched: "
/usr/bin/time -f "whole %e s" python3 bench/extract_torch_batched.py \
  /tmp/fab-short /dev/shm/fabt 16000 23 2>&1 | tr '\n' ' '; echo
rm -rf /dev/shm/fabt
