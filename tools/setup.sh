#!/bin/bash
# afet — the first README command: installs the dependencies (Debian 12, as
# root), builds afet and runs the main job, MFCC of the bundled example, on
# the default OpenCL device (PoCL on the CPU when there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
bash examples/mfcc.sh
