#!/bin/bash
# The carried build for the GPU machine: the plugin, the features library, the
# test, benchmark and tool programs of a build folder (ELF files only, same
# paths) in .devbuild (git-ignored), small enough for the device tool's
# 64 MiB: without debug information, but with their symbol tables, so that
# perf on the GPU machine names afet's functions (a tenth more bytes). Then,
# there:
#   . .devrt/env.sh; BUILD=.devbuild bash tests/device/run-tests.sh
#   bash tests/device/pack-build.sh [BUILD] [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
src=${1:-build}
out=${2:-.devbuild}
rm -rf "$out"
mkdir -p "$out"
( cd "$src" && find . -path ./test-cache -prune -o -path ./meson-private -prune \
    -o -path '*.p' -prune -o \
    -type f \( -name '*.so' -o -name '*.so.*' -o -perm -u+x \) -print ) |
while read -r f; do
  case "$(head -c 4 "$src/$f" | od -An -c | tr -d ' ')" in
    177ELF) mkdir -p "$out/$(dirname "$f")"; cp -P "$src/$f" "$out/$f"
      strip --strip-debug "$out/$f" 2>/dev/null || true ;;
  esac
done
# the library's versioned links
( cd "$src" && find . -path ./test-cache -prune -o -type l -name '*.so*' -print ) |
while read -r l; do mkdir -p "$out/$(dirname "$l")"; cp -P "$src/$l" "$out/$l"; done
du -sh "$out"
