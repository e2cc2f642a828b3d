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
  # tests: pip installs the Python module into a fresh venv, offline
  # (tests/python/test_pip.py)
  python3-venv python3-pip python3-setuptools python3-wheel
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

# tests: lhotse, torch (lhotse needs it), Dask and distributed (PyPI) for
# afet.lhotse (tests/python/test_lhotse*.py), in a venv of the system's
# python3 that sees its PyGObject and NumPy (AFET_LHOTSE_VENV, default
# /opt/afet-lhotse; the tests run themselves there). PyPI's torch is the
# CUDA build: about 3 GB to fetch, 5.4 GB installed, about 70 s here.
# urllib3: lhotse 1.33 imports it without requiring it; lilcom: the
# storage icefall's recipes use (LilcomChunkyWriter).
lhotse_venv=${AFET_LHOTSE_VENV:-/opt/afet-lhotse}
if [ $only = no ] &&
    ! "$lhotse_venv/bin/python3" -c 'import torch, lhotse, lilcom, distributed' 2>/dev/null; then
  echo "afet: installing torch, lhotse, dask, distributed (pip) in $lhotse_venv"
  { /usr/bin/python3 -m venv --system-site-packages "$lhotse_venv" &&
    "$lhotse_venv/bin/pip" install -q --no-cache-dir torch==2.15.0 \
      lhotse==1.33.0 urllib3 lilcom==1.8.2 dask==2026.8.0 \
      distributed==2026.8.0; } ||
    echo "afet: lhotse's packages not installed: the python-lhotse tests fail in CI"
fi
