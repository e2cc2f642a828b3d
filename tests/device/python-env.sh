# Sourced on the GPU machine from the project's root after . .devrt/env.sh:  . .devpy/env.sh
# (tests/device/pack-python.sh copies it there). Unpacks the carried introspection packages and
# wheels into /tmp/afet-py (once per machine; wheels are zip files: unpacked, no pip needed) and
# points python3 at them, at the project's python/ and at the carried build's plugin (BUILD,
# default .devbuild when there, else build).
_py=/tmp/afet-py
_d=$(cd "$(dirname "${BASH_SOURCE:-$0}")" 2>/dev/null && pwd)
[ -f "$_d/env.sh" ] && ls "$_d"/*.whl >/dev/null 2>&1 || _d=$PWD/.devpy
_top=$(cd "$_d/.." && pwd)
if [ ! -d $_py/site ]; then
  mkdir -p $_py
  for f in "$_d"/*.deb; do dpkg -x "$f" $_py; done
  python3 - "$_d" $_py/site <<'EOF'
import glob, os, shutil, sys, zipfile
src, site = sys.argv[1], sys.argv[2]
for whl in sorted(glob.glob(os.path.join(src, "*.whl"))):
    zipfile.ZipFile(whl).extractall(site)
# a wheel's NAME.data/{purelib,platlib} belong in site itself
for data in glob.glob(os.path.join(site, "*.data")):
    for part in ("purelib", "platlib"):
        p = os.path.join(data, part)
        if os.path.isdir(p):
            shutil.copytree(p, site, dirs_exist_ok=True)
    shutil.rmtree(data)
EOF
  [ $? -eq 0 ] || { echo "afet .devpy/env.sh: unpacking the wheels failed" >&2; rm -rf $_py/site; }
fi
_lib=$_py/usr/lib/x86_64-linux-gnu
export GI_TYPELIB_PATH=$_lib/girepository-1.0${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
export LD_LIBRARY_PATH=$_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$_py/site:$_top/python${PYTHONPATH:+:$PYTHONPATH}
_b=${BUILD:-.devbuild}
[ -d "$_top/$_b" ] || _b=build
if [ -d "$_top/$_b/gst" ]; then
  export GST_PLUGIN_PATH=$_top/$_b/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
  export LD_LIBRARY_PATH=$_top/$_b/gst-libs/features:$LD_LIBRARY_PATH
fi
unset _py _d _top _lib _b
