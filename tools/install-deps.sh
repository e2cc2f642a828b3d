#!/bin/bash
# Installs what building, testing and running afet needs on Debian 12 (as
# root), and the packages named as arguments; with --only, just those
# (tools/arm64.sh: the emulation's tools). Safe to run again: apt-get skips
# what is already installed.
set -euo pipefail

packages=(
  # build
  git ca-certificates meson ninja-build g++ pkg-config python3
  # tests: NumPy reads the .npy files afetenc writes; PyGObject reads the
  # plugin's self-description for docs/elements.md and runs the Python
  # module (python/afet); Matplotlib draws afet-plot's pictures
  python3-numpy python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-matplotlib
  # tests: espeak-ng speaks the words afetdtw recognises (tests/dtw)
  espeak-ng
  # tests: a one-node Slurm cluster (munge, slurmctld, slurmd) runs
  # afet-extract --shard as a job array (tests/extract/test_slurm.py)
  munge slurmctld slurmd slurm-client
  # GStreamer 1.22: libraries, headers, gst-check, gst-launch, base plugins
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  # OpenCL: ICD loader and headers, PoCL as the CPU device, VkFFT, CLBlast
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libvkfft-dev libclblast-dev
  # and whatever the caller needs besides (tools/fuzz.sh: clang, libFuzzer)
  "$@"
)

only=no
if [ "${1:-}" = --only ]; then
  shift
  packages=("$@")
  only=yes
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "afet: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# tests: kaldiio (PyPI), a second reader and writer of Kaldi archives, for
# the python3 on the PATH (kaldi-compress-kaldiio; skipped without it)
if [ $only = no ] && ! python3 -c 'import kaldiio' 2>/dev/null &&
    python3 -m pip --version >/dev/null 2>&1; then
  echo "afet: installing kaldiio (pip)"
  python3 -m pip install -q kaldiio || echo "afet: kaldiio not installed: its test will skip"
fi
