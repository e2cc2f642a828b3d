#!/bin/bash
# The carried Python pieces for the GPU machine: a PyGObject wheel built here
# for the device's CPython, the Debian 12 packages of the introspection
# runtime that .devrt lacks, lhotse, lilcom, dask and distributed with their
# dependencies as wheels (not torch or NumPy: the device's python has them),
# and python-env.sh as .devpy/env.sh (git-ignored). Run here, in the
# project's root, after /work/shared/device/pack-runtime.sh; then carry
# .devpy with .devrt and the build, and start the remote command with
#   . .devrt/env.sh; . .devpy/env.sh
#   bash tests/device/pack-python.sh [OUT]
# PY: a python of the device's minor version that builds the PyGObject wheel
# (default: pyenv's 3.12.1); PYVER: that version as the wheels' tag (3.12).
# Needs libgirepository1.0-dev (apt-get install it once) and the registries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
out=${1:-.devpy}
py=${PY:-/root/.pyenv/versions/3.12.1/bin/python3}
pyver=${PYVER:-3.12}
# PyGObject 3.48 is the last series on girepository-1.0 (gobject-introspection
# 1.74 in Debian 12's runtime); 3.50 needs GLib 2.80's girepository-2.0
pygobject=PyGObject==3.48.2
# the versions tools/install-deps.sh puts in its venv, and their dependencies
# but torch's own (filelock, fsspec, jinja2, typing_extensions, ...: the
# device's torch has them, and a second copy first on the path could shadow it)
wheels="lhotse==1.33.0 lilcom==1.8.2 audioread==3.1.0 soundfile==0.14.0
  cffi==2.1.1 pycparser click==8.5.1 cytoolz==1.2.0 toolz==1.2.0
  intervaltree==3.2.1 sortedcontainers==2.4.0 packaging pyyaml tabulate==0.10.0
  tqdm==4.70.1 urllib3==2.8.0 dask==2026.8.0 distributed==2026.8.0
  cloudpickle==3.1.3 partd==1.4.2 locket==1.0.0 msgpack==1.2.4 psutil==7.2.2
  tblib==3.2.2 tornado==6.6.1 zict==3.0.0"
debs="libgirepository-1.0-1 gir1.2-glib-2.0 gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0"

[ -x "$py" ] || { echo "pack-python: no python at $py: set PY to a python$pyver" >&2; exit 1; }
pkg-config --exists gobject-introspection-1.0 ||
  { echo "pack-python: gobject-introspection-1.0 not found: apt-get install libgirepository1.0-dev" >&2; exit 1; }
common=$(git rev-parse --git-common-dir)
grep -qx "/$out/" "$common/info/exclude" 2>/dev/null || echo "/$out/" >> "$common/info/exclude"
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# PyGObject: meson-python without build isolation (its pyproject asks for
# pycairo, which afet does not use: -Dpycairo=disabled)
"$py" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q meson-python meson ninja
PATH=$tmp/venv/bin:$PATH "$tmp/venv/bin/pip" wheel -q --no-deps \
  --no-build-isolation --no-binary PyGObject "$pygobject" \
  --config-settings=setup-args=-Dpycairo=disabled -w "$out"

# the others as the registry has them for the device's python
"$py" -m pip download -q --no-deps -d "$out" --only-binary=:all: \
  --python-version "$pyver" --implementation cp --abi "cp${pyver/./}" \
  --abi abi3 --abi none --platform manylinux_2_28_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any $wheels

( cd "$out"
  apt-get download $debs >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get download $debs >/dev/null; } )
cp "$here/python-env.sh" "$out/env.sh"
echo "packed $(ls "$out"/*.whl | wc -l) wheels and $(ls "$out"/*.deb | wc -l) packages into $out ($(du -sh "$out" | cut -f1))"
