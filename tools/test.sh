#!/bin/bash
# Runs the whole test suite (the second README command): installs the
# packages, builds, and prints "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh || exit 1
bash tools/build.sh || exit 1
meson test -C build --print-errorlogs --num-processes 2
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in open(sys.argv[1]):
    r = json.loads(line).get("result", "")
    if r in ("OK", "EXPECTEDFAIL"):
        counts["passed"] += 1
    elif r == "SKIP":
        counts["skipped"] += 1
    else:
        counts["failed"] += 1
print("{passed} passed, {failed} failed, {skipped} skipped".format(**counts))
PY
exit $status
