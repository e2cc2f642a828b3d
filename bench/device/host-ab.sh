#!/bin/bash
# The host's share of the work, old and new plugin alternating in one call on
# the GPU machine (docs/results/history-2026-11.md "Host copies"). From the
# project root with .devrt, .devbuild (new) and .devold (old) carried:
#   bash bench/device/host-ab.sh [ROUNDS] [JOBS]
# Per round and build: the MFCC stage alone from pageable host memory
# (afet-engine-bench, 10 h of 16 kHz 16-bit samples, best of 5), then
# afet-extract over 10 h of 16 kHz audio in long and short files to HTK
# MFCC_0_D_A_Z with JOBS jobs: wall, user and system seconds of the whole
# process (wait4) and afet-extract's steady state. The outputs of the two
# builds are compared byte for byte. Results on stdout.
set -u
rounds=${1:-3}
jobs=${2:-8}
. .devrt/env.sh
base_ld=${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 bench/make_corpus.py /tmp/xc/r16000 --rate 16000 --hours 10 \
  > /tmp/make.log 2>&1 || { tail /tmp/make.log; exit 3; }
for set in long short; do ls /tmp/xc/r16000/$set/*.wav > /tmp/l-$set; done
chain="afetmfcc frame-length=20 num-ceps=12 num-filters=23 ! afetdelta \
order=2 delta-window=3 accel-window=3 ! afetcmvn columns=htk"
stage="--seconds 36000 --batch 131072 --dct fused --repeat 5 --samples s16 \
--input host"
cat > /tmp/rusage.py <<'PY'
import os, subprocess, sys, time
t = time.time()
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, text=True)
err = p.stderr.read()
_, status, ru = os.wait4(p.pid, 0)
steady = [l.split(": ", 2)[-1] for l in err.splitlines() if "steady" in l]
print("rc %d, wall %.3f s, user %.2f s, sys %.2f s; steady state: %s" % (
    status, time.time() - t, ru.ru_utime, ru.ru_stime,
    steady[0] if steady else "-"))
PY
use () {
  export GST_PLUGIN_PATH=$PWD/$1/gst
  export LD_LIBRARY_PATH=$PWD/$1/gst-libs/features${base_ld:+:$base_ld}
  X=$PWD/$1/tools/afet-extract/afet-extract
  B=$PWD/$1/bench/engine/afet-engine-bench
}
for b in .devold .devbuild; do
  use $b
  for set in long short; do
    timeout 120 $X --scp /tmp/l-$set -o /tmp/ho$b-$set -p "$chain" -j "$jobs" -q
  done
done
for set in long short; do
  same=$(cd /tmp/ho.devold-$set && for f in *; do cmp -s $f ../ho.devbuild-$set/$f || echo $f; done | wc -l)
  echo "$set: $(ls /tmp/ho.devbuild-$set | wc -l) files, $same differ between the builds"
done
for r in $(seq "$rounds"); do
  for b in .devold .devbuild; do
    use $b
    echo "round $r $b stage, pageable host: $(timeout 120 $B $stage 2>&1 | grep -o 'best of 5 [0-9.]* s')"
    for set in long short; do
      echo "round $r $b $set -j $jobs: $(timeout 120 python3 /tmp/rusage.py $X --scp /tmp/l-$set -o /tmp/hx -p "$chain" -j "$jobs")"
    done
  done
done
