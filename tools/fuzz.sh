#!/bin/bash
# CI's fuzzing smoke run: builds the libFuzzer targets tests/fuzz/fuzz_caps,
# tests/fuzz/fuzz_parse and tests/fuzz/fuzz_lists (clang, ASan + UBSan) in
# ./build-fuzz and fuzzes them for SECONDS (default 60) in all, split among
# them: afet_features_info_from_caps() on a copy of tests/fuzz/corpus/caps,
# afetfile::Reader (the feature file reader behind afetparse) on a copy of
# tests/fuzz/corpus/parse, then afet-extract's list parsing (make_items) on a
# copy of tests/fuzz/corpus/lists.  Installs what it needs on Debian 12 (as
# root). Exits non-zero on any crash, leak, timeout or UB report in any; the
# failing inputs are kept in build-fuzz/fuzz-artifacts/, named after their
# target.  Ends with "fuzz-caps: N runs, N crashes", "fuzz-parse: N runs, N
# crashes" and "fuzz-lists: N runs, N crashes".
#
#   bash tools/fuzz.sh [SECONDS]
#
# FUZZ_ARGS adds libFuzzer flags (to all three).  The caps target grows by some
# 50 MB a minute (GStreamer interns every fuzzed field name and leaks the
# lists of strings it fails to parse), so runs longer than about an hour
# should restart it with fork mode: FUZZ_ARGS=-fork=1 bash tools/fuzz.sh 7200
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
case $secs in
  '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac
# the time of each target: a third each (the caps target the seconds left
# over), at least one second
parse_secs=$(( secs / 3 ))
lists_secs=$(( secs / 3 ))
caps_secs=$(( secs - parse_secs - lists_secs ))
[ "$caps_secs" -ge 1 ] || caps_secs=1
[ "$parse_secs" -ge 1 ] || parse_secs=1
[ "$lists_secs" -ge 1 ] || lists_secs=1

# what configuring afet needs (GStreamer, OpenCL, ...), then clang and
# libFuzzer (Debian 12's clang is clang-14; libFuzzer and the sanitizer
# runtimes are in libclang-rt-14-dev)
bash tools/install-deps.sh clang-14 libclang-rt-14-dev

# The whole build is sanitized, and the libraries are instrumented for
# coverage (fuzzer-no-link) so that libFuzzer sees their branches.  Only
# the fuzz targets and what they link (libgstafetfeatures, the static
# afetfileformat and afetx-lists libraries) are built.
setup_args=(--wrap-mode=nodownload -Dfuzzing=true -Dtests=disabled -Dexamples=disabled
  -Dbuildtype=debug '-Db_sanitize=address,undefined' -Db_lundef=false
  -Dc_args=-fsanitize=fuzzer-no-link -Dcpp_args=-fsanitize=fuzzer-no-link)
if [ -f build-fuzz/build.ninja ] &&
  ! grep -A1 '^rule c_COMPILER' build-fuzz/build.ninja | grep -q clang; then
  rm -rf build-fuzz             # configured with another compiler
fi
if [ -f build-fuzz/build.ninja ]; then
  meson setup --reconfigure build-fuzz "${setup_args[@]}" >/dev/null
else
  CC=clang-14 CXX=clang++-14 meson setup build-fuzz "${setup_args[@]}"
fi
ninja -C build-fuzz -j "${NINJA_JOBS:-1}" tests/fuzz/fuzz_caps \
  tests/fuzz/fuzz_parse tests/fuzz/fuzz_lists

# the seeds alone first: a seed that fails is reported as such
meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/artifacts"

export G_SLICE=always-malloc GST_REGISTRY_DISABLE=yes \
  GST_PLUGIN_SYSTEM_PATH_1_0='' GST_PLUGIN_PATH_1_0=''
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

rm -rf build-fuzz/fuzz-artifacts
failed=0

# fuzz NAME SECONDS MAX_LEN: fuzzes tests/fuzz/fuzz_NAME on a copy of
# tests/fuzz/corpus/NAME and prints "fuzz-NAME: N runs, N crashes"
fuzz() {
  local name=$1 time=$2 max_len=$3
  local corpus="$work/corpus-$name" log="$work/log-$name"
  local prefix="$work/artifacts/$name-"
  cp -r "tests/fuzz/corpus/$name" "$corpus"

  echo "fuzz-$name: fuzzing for $time s"
  set +e
  # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
  "build-fuzz/tests/fuzz/fuzz_$name" -max_len="$max_len" -timeout=10 \
    -max_total_time="$time" -print_final_stats=1 ${FUZZ_ARGS:-} \
    -artifact_prefix="$prefix" "$corpus" 2>&1 |
    tee "$log" | awk '/^#[0-9]+[ \t]+(NEW|REDUCE)|^[ \t]*NEW_FUNC/ { next }
      /^###### Recommended dictionary/ { skip = 1 }
      !skip { print }
      /^###### End of recommended dictionary/ { skip = 0 }'
  local rc=${PIPESTATUS[0]}
  set -e

  local runs crashes
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ -z "$runs" ]; then
    runs=$(grep -o -E '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
  fi
  crashes=$(find "$work/artifacts" -type f -name "$name-*" | wc -l)
  if [ "$crashes" -gt 0 ]; then
    mkdir -p build-fuzz/fuzz-artifacts
    cp "$prefix"* build-fuzz/fuzz-artifacts/
    echo "fuzz-$name: failing inputs kept in build-fuzz/fuzz-artifacts/:"
    (cd build-fuzz/fuzz-artifacts && ls "$name"-*)
    echo "fuzz-$name: replay one with full stacks (also for leaks):"
    echo "  G_SLICE=always-malloc GST_REGISTRY_DISABLE=yes" \
      "ASAN_OPTIONS=fast_unwind_on_malloc=0" \
      "build-fuzz/tests/fuzz/fuzz_$name FILE"
  elif [ "$rc" -ne 0 ]; then
    crashes=1       # died without writing an input (e.g. a leak at exit)
  fi
  echo "fuzz-$name: ${runs:-0} runs, $crashes crashes"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
  fi
}

# keep -max_len in step with FUZZ_MAX_LEN in the targets
fuzz caps "$caps_secs" 4096
fuzz parse "$parse_secs" 16384
fuzz lists "$lists_secs" 4096

[ "$failed" -eq 0 ]
