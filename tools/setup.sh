#!/bin/bash
# Installs the dependencies (Debian 12, as root), builds afet and runs the main
# job, MFCC of the bundled example, on the default OpenCL device (PoCL on the
# CPU when there is no GPU): the first README command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
bash examples/mfcc.sh
