#!/bin/bash
# The cuts of the lhotse benchmarks on the GPU machine (lhotse-bench.sh,
# lhotse-gpus.sh): 8 bench/make_corpus.py folders of 300 short files
# (10-20 s, 16 kHz) in /tmp/afet-lhotse-corpus, made in parallel once a
# machine (seeds 20260101 + k). Prints their paths, comma-separated, as
# bench/lhotse/*.py take them with --corpus. Run from the project root.
corp=
for k in 0 1 2 3 4 5 6 7; do
  c=/tmp/afet-lhotse-corpus/c$k
  corp=${corp:+$corp,}$c
  [ -n "$(ls $c/short 2>/dev/null)" ] ||
    python3 bench/make_corpus.py $c --long-files 0 --short-files 300 \
      --seed $((20260101 + k)) > /tmp/afet-lhotse-make-$k.log 2>&1 &
done
wait
echo "$corp"
