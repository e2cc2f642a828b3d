#!/bin/bash
# afet — configures (once) and builds afet in ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build
fi
ninja -C build
