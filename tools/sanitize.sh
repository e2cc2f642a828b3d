#!/bin/bash
# afet — CI's sanitizer job: builds afet with AddressSanitizer and
# UndefinedBehaviorSanitizer in ./build-asan and runs the test suite there,
# with GStreamer's leaks tracer on (as in every element test) and
# LeakSanitizer reporting every leak but those of other projects' code listed
# in tools/lsan.supp. Any report fails the job.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh || exit 1
if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debug || exit 1
fi
ninja -C build-asan || exit 1

# gst-plugin-scanner is not instrumented and cannot load an ASan plugin:
# scan in the (instrumented) test process instead.
export GST_REGISTRY_FORK=no
# full stacks: GLib and PoCL have no frame pointers, and the suppressions
# match frames below them
export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:halt_on_error=1:detect_odr_violation=0
export LSAN_OPTIONS=suppressions=$PWD/tools/lsan.supp:print_suppressions=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# every test but the example, which runs the system's gst-launch-1.0
# (not instrumented)
tests=$(meson test -C build-asan --list 2>/dev/null | grep -v '^example$')
meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 \
  $tests
status=$?
reports=$(grep -cE 'ERROR: (Address|Leak)Sanitizer|runtime error:' \
  build-asan/meson-logs/testlog.txt)
echo "sanitizers: $reports reports (AddressSanitizer, LeakSanitizer, UBSan)"
[ "$reports" -eq 0 ] || status=1
exit $status
