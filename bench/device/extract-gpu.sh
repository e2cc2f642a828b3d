#!/bin/bash
# The afet-extract benchmark on the GPU machine (docs/benchmarks.md). Run from
# the project root with .devrt and .devbuild carried:
#   bash bench/device/extract-gpu.sh [RATES] [TOOLS] [JOBS]
# makes 10 h of short and 10 h of long files at each rate (once, in
# parallel; make_corpus.py skips a corpus that is up to date), then runs
# bench/extract.py; results under $OUT.
rates=${1:-16000}
tools=${2:-read,afet,torch}
jobs=${3:-8}
. .devrt/env.sh
export GST_PLUGIN_PATH=$PWD/.devbuild/gst
export LD_LIBRARY_PATH=$PWD/.devbuild/gst-libs/features:$LD_LIBRARY_PATH
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/gpu.txt
x=$PWD/.devbuild/tools/afet-extract/afet-extract
$x --help > /dev/null || exit 3
t=$(date +%s)
for r in ${rates//,/ }; do
  python3 bench/make_corpus.py /tmp/xc/r$r --rate $r --hours 10 > $out/make-$r.log 2>&1 &
done
wait
echo "corpus: $(( $(date +%s) - t )) s" >> $out/gpu.txt
du -sh /tmp/xc/* >> $out/gpu.txt
python3 bench/extract.py /tmp/xc --rates $rates --tools $tools --jobs $jobs \
    --repeats 2 --extract $x --python python3 > $out/extract-${rates//,/-}.md \
    2> $out/extract-${rates//,/-}.log
cat $out/gpu.txt $out/extract-${rates//,/-}.md
tail -5 $out/extract-${rates//,/-}.log
