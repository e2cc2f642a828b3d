#!/bin/bash
# afet — CI's fuzzing smoke run: builds the libFuzzer target
# tests/fuzz/fuzz_caps (clang, ASan + UBSan) in ./build-fuzz and fuzzes
# afet_features_info_from_caps() for SECONDS (default 60) on a copy of
# tests/fuzz/corpus/caps.  Installs what it needs on Debian 12 (as root).
# Exits non-zero on any crash, leak, timeout or UB report; the failing
# inputs are kept in build-fuzz/fuzz-artifacts/.  Ends with
# "fuzz-caps: N runs, N crashes".
#
#   bash tools/fuzz.sh [SECONDS]
#
# FUZZ_ARGS adds libFuzzer flags.  The process grows by some 50 MB a
# minute (GStreamer interns every fuzzed field name and leaks the lists of
# strings it fails to parse), so runs longer than about half an hour
# should restart it with fork mode: FUZZ_ARGS=-fork=1 bash tools/fuzz.sh 7200
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
case $secs in
  '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

# what configuring afet needs (GStreamer, OpenCL, ...), then clang and
# libFuzzer (Debian 12's clang is clang-14; libFuzzer and the sanitizer
# runtimes are in libclang-rt-14-dev)
bash tools/install-deps.sh clang-14 libclang-rt-14-dev

# The whole build is sanitized, and the features library is instrumented
# for coverage (fuzzer-no-link) so that libFuzzer sees its branches.  Only
# the fuzz target and what it links (libgstafetfeatures) are built.
setup_args=(-Dfuzzing=true -Dtests=disabled -Dexamples=disabled
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
ninja -C build-fuzz -j "${NINJA_JOBS:-1}" tests/fuzz/fuzz_caps

# the seeds alone first: a seed that fails is reported as such
meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r tests/fuzz/corpus/caps "$work/corpus"
mkdir "$work/artifacts"

export G_SLICE=always-malloc GST_REGISTRY_DISABLE=yes \
  GST_PLUGIN_SYSTEM_PATH_1_0='' GST_PLUGIN_PATH_1_0=''
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

set +e
# shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
build-fuzz/tests/fuzz/fuzz_caps -max_len=4096 -timeout=10 \
  -max_total_time="$secs" -print_final_stats=1 ${FUZZ_ARGS:-} \
  -artifact_prefix="$work/artifacts/" "$work/corpus" 2>&1 |
  tee "$work/log" | awk '/^#[0-9]+[ \t]+(NEW|REDUCE)|^[ \t]*NEW_FUNC/ { next }
    /^###### Recommended dictionary/ { skip = 1 }
    !skip { print }
    /^###### End of recommended dictionary/ { skip = 0 }'
rc=${PIPESTATUS[0]}
set -e

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
if [ -z "$runs" ]; then
  runs=$(grep -o -E '^#[0-9]+' "$work/log" | tail -n 1 | tr -d '#')
fi
crashes=$(find "$work/artifacts" -type f | wc -l)
rm -rf build-fuzz/fuzz-artifacts
if [ "$crashes" -gt 0 ]; then
  mkdir -p build-fuzz/fuzz-artifacts
  cp "$work"/artifacts/* build-fuzz/fuzz-artifacts/
  echo "fuzz-caps: failing inputs kept in build-fuzz/fuzz-artifacts/:"
  ls build-fuzz/fuzz-artifacts/
  echo "fuzz-caps: replay one with full stacks (also for leaks):"
  echo "  G_SLICE=always-malloc GST_REGISTRY_DISABLE=yes" \
    "ASAN_OPTIONS=fast_unwind_on_malloc=0 build-fuzz/tests/fuzz/fuzz_caps FILE"
elif [ "$rc" -ne 0 ]; then
  crashes=1         # died without writing an input (e.g. a leak at exit)
fi
echo "fuzz-caps: ${runs:-0} runs, $crashes crashes"
[ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]
