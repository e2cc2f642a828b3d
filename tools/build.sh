#!/bin/bash
# Configures (once) and builds afet in ./build, with the Debian packages of
# VkFFT and CLBlast (--wrap-mode=nodownload: the wraps in subprojects/ are for
# systems without them, and never fetched here).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup --wrap-mode=nodownload build
fi
ninja -C build
