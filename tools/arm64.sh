#!/bin/bash
# Builds and checks afet on arm64 (aarch64) from an x86-64 Debian 12 host (as
# root): a Debian 12 arm64 chroot run through qemu-user-static, made once and
# reused, gets a copy of the tree (HEAD plus the uncommitted changes, never
# build folders), installs the packages (tools/install-deps.sh), builds
# (tools/build.sh), runs the main job (examples/mfcc.sh) and a set of tests,
# then prints a summary: device, frames, tests, time of each phase. Everything
# runs emulated, so it is slow (an hour or more on a fresh chroot) and its
# timings say nothing about the speed of a real arm64 machine.
#
# Usage: bash tools/arm64.sh [CHROOT]
#   CHROOT             the chroot's folder ($AFET_ARM64_ROOT, /var/tmp/afet-arm64)
#   AFET_ARM64_TESTS   the meson tests to run, space-separated, or "all"
#   AFET_ARM64_KEEP_BUILD=1   keep the chroot's arm64 build folder from the
#                      last run (ninja rebuilds what changed) instead of a
#                      fresh build
#   AFET_ARM64_TIMEOUT_MULTIPLIER   meson's and check's timeouts times this (10)
#   AFET_REFDATA       HTK's real-speech reference files (../shared/refdata),
#                      copied into the chroot for golden-real and the others
#   AFET_ARM64_CPUINFO=pi4 (default) or host: what /proc/cpuinfo says in the
#                      chroot. qemu-user (7.2) shows the x86 host's file, in
#                      which LLVM finds no aarch64 CPU or NEON, so PoCL says
#                      "pthread" with float vector width 1; pi4 bind-mounts a
#                      Raspberry Pi 4's (Cortex-A72, NEON) over it, as PoCL
#                      sees on the Pi: float vector width 4
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-${AFET_ARM64_ROOT:-/var/tmp/afet-arm64}}
suite=bookworm
mirror=${AFET_ARM64_MIRROR:-http://deb.debian.org/debian}
multiplier=${AFET_ARM64_TIMEOUT_MULTIPLIER:-10}
tests=${AFET_ARM64_TESTS:-reference reference-kaldi features engine plp vframes \
stream lanes afetmfcc golden golden-real budget presets example}
refdata=${AFET_REFDATA:-$repo/../shared/refdata}
cpuinfo=${AFET_ARM64_CPUINFO:-pi4}
# inside the chroot: the copy of the tree, and the refdata where
# AFET_SOURCE_DIR/../shared/refdata finds it
copy=/work/afet
shared=/work/shared

[ "$(id -u)" -eq 0 ] || { echo "afet: run tools/arm64.sh as root" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || echo "afet: warning: host is $(uname -m), not x86_64" >&2

# ---- phases, their times, the summary (printed on any exit) ----
phases=()
times=()
current=""
t_phase=0
t_start=$(date +%s)
device="" frames="" vector="" test_results="" test_counts="" result=""
log_dir=$root/var/log/afet-arm64

phase() {
  end_phase
  current=$1
  t_phase=$(date +%s)
  echo
  echo "==== afet arm64: $1 ($(date +%H:%M:%S))"
}
end_phase() {
  if [ -n "$current" ]; then
    phases+=("$current")
    times+=($(($(date +%s) - t_phase)))
    current=""
  fi
}
fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

summary() {
  local rc=$?
  local failed_phase=$current
  end_phase
  umount_all
  echo
  echo "==== afet arm64 summary (Debian 12 arm64 chroot $root, qemu-user emulation)"
  [ -n "$device" ] && echo "device: $device"
  [ -n "$vector" ] && echo "$vector"
  [ -n "$frames" ] && echo "$frames"
  if [ -n "$test_results" ]; then
    echo "tests:"
    echo "$test_results"
    echo "$test_counts"
  fi
  echo "phases (wall time, emulated):"
  local i
  for i in "${!phases[@]}"; do
    printf '  %-8s %s\n' "${phases[$i]}" "$(fmt_time "${times[$i]}")"
  done
  printf '  %-8s %s\n' total "$(fmt_time $(($(date +%s) - t_start)))"
  if [ "$rc" -ne 0 ]; then
    echo "afet arm64: FAILED in phase '${failed_phase:-?}' (exit $rc); logs: $log_dir"
  else
    echo "afet arm64: ${result:-done}"
  fi
}

# ---- mounts inside the chroot, undone on exit ----
mounted=()
mount_all() {
  local d
  for d in proc sys dev; do
    mkdir -p "$root/$d"
    mountpoint -q "$root/$d" && continue
    case $d in
      proc) mount -t proc proc "$root/proc" ;;
      # PoCL (hwloc) reads the CPU topology from /sys; /dev with /dev/pts, shm
      *) mount --rbind "/$d" "$root/$d"; mount --make-rslave "$root/$d" ;;
    esac
    mounted+=("$root/$d")
  done
  if [ "$cpuinfo" = pi4 ] && ! mountpoint -q "$root/proc/cpuinfo"; then
    pi4_cpuinfo >"$root/run/afet-arm64-cpuinfo"
    mount --bind "$root/run/afet-arm64-cpuinfo" "$root/proc/cpuinfo"
    mounted+=("$root/proc/cpuinfo")
  fi
}
# /proc/cpuinfo of a Raspberry Pi 4 (64-bit kernel), one entry a host core
pi4_cpuinfo() {
  local i
  for ((i = 0; i < $(nproc); i++)); do
    printf 'processor\t: %d\nBogoMIPS\t: 108.00\n' "$i"
    printf 'Features\t: fp asimd evtstrm crc32 cpuid\n'
    printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n'
    printf 'CPU part\t: 0xd08\nCPU revision\t: 3\n\n'
  done
  printf 'Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B (emulated)\n'
}
umount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -R -l "${mounted[$i]}" || true
  done
  mounted=()
}
trap summary EXIT

# a command in the chroot, as root, in the copy of the tree, with a clean
# environment; its output also goes to $log_dir/NAME.log
in_chroot() {
  local name=$1
  shift
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    CK_TIMEOUT_MULTIPLIER="$multiplier" \
    /bin/bash -c "cd $copy && $*" 2>&1 | tee "$log_dir/$name.log"
  return "${PIPESTATUS[0]}"
}

# ---- host: debootstrap, qemu-user-static, binfmt-support; aarch64 binfmt ----
phase host
bash "$repo/tools/install-deps.sh" --only debootstrap qemu-user-static \
  binfmt-support
binfmt=/proc/sys/fs/binfmt_misc
# in a container without systemd nobody mounts binfmt_misc
mountpoint -q "$binfmt" || mount -t binfmt_misc binfmt_misc "$binfmt"
if [ ! -e "$binfmt/qemu-aarch64" ]; then
  update-binfmts --import qemu-aarch64 || true
  update-binfmts --enable qemu-aarch64 || true
fi
grep -q '^enabled' "$binfmt/qemu-aarch64" 2>/dev/null || {
  echo "afet: no binfmt_misc entry for aarch64 (update-binfmts --enable qemu-aarch64)" >&2
  exit 1
}
# with the F flag the kernel holds the interpreter open, so the chroot needs
# no copy of it; copied anyway below for kernels or setups without it
echo "binfmt: $(grep -E '^(interpreter|flags)' "$binfmt/qemu-aarch64" | tr '\n' ' ')"

# ---- the chroot: debootstrap once, reused while $root/.afet-arm64 says ready ----
phase chroot
marker=$root/.afet-arm64
if [ -f "$marker" ] && [ "$(cat "$marker")" = ready ]; then
  echo "afet: reusing the arm64 chroot in $root"
else
  if [ -e "$root" ] && [ -n "$(ls -A "$root" 2>/dev/null)" ]; then
    if [ -f "$marker" ]; then
      # ours, from an interrupted run: nothing may be mounted inside
      if grep -q " $root/" /proc/mounts; then
        echo "afet: $root has mounts under it; unmount them first" >&2
        exit 1
      fi
      echo "afet: removing the unfinished chroot in $root"
      rm -rf --one-file-system "$root"
    else
      echo "afet: $root exists and is not an afet arm64 chroot; give another folder" >&2
      exit 1
    fi
  fi
  mkdir -p "$root"
  echo started >"$marker"
  echo "afet: debootstrap --arch=arm64 --foreign $suite $root (first stage)"
  debootstrap --arch=arm64 --foreign --variant=minbase "$suite" "$root" "$mirror"
  install -m 755 /usr/bin/qemu-aarch64-static "$root/usr/bin/qemu-aarch64-static"
  echo "afet: second stage, emulated"
  chroot "$root" /debootstrap/debootstrap --second-stage
  cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main
EOF
  # no services start in the chroot; no man pages or translations to unpack
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  cat >"$root/etc/dpkg/dpkg.cfg.d/afet-nodoc" <<'EOF'
path-exclude /usr/share/man/*
path-exclude /usr/share/locale/*/LC_MESSAGES/*.mo
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
EOF
  echo ready >"$marker"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$log_dir"
echo "chroot: $(chroot "$root" uname -m), Debian $(cat "$root/etc/debian_version"), /proc/cpuinfo: $cpuinfo"

# ---- the tree: tracked and untracked files that git does not ignore ----
phase copy
keep_build=${AFET_ARM64_KEEP_BUILD:-0}
old=$root$copy.old
rm -rf "$old"
if [ "$keep_build" = 1 ] && [ -d "$root$copy/build" ]; then
  mv "$root$copy" "$old"
else
  rm -rf "$root$copy"
fi
mkdir -p "$root$copy"
# the files get the time of the copy (tar -m), so that ninja rebuilds from
# any file that changed since the last build
git -C "$repo" ls-files -z --cached --others --exclude-standard |
  (cd "$repo" && while IFS= read -r -d '' f; do
    # a tracked file deleted in the working tree is not copied
    if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
  done) |
  sort -zu | tar -C "$repo" --null -T - -c | tar -x -m -C "$root$copy"
if [ -d "$old" ]; then
  # kept build: a file equal to the last copy's keeps its time, the others
  # are newer than the build
  (cd "$root$copy" && find . -type f -print0) |
    while IFS= read -r -d '' f; do
      if cmp -s "$root$copy/$f" "$old/$f"; then touch -r "$old/$f" "$root$copy/$f"; fi
    done
  mv "$old/build" "$root$copy/build"
  rm -rf "$old"
fi
echo "copied $(find "$root$copy" -type f | wc -l) files of $repo at" \
  "$(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')"
rm -rf "$root$shared/refdata"
if [ -d "$refdata" ]; then
  mkdir -p "$root$shared"
  cp -a "$refdata" "$root$shared/refdata"
  echo "refdata: $refdata -> $shared/refdata (in the chroot)"
else
  echo "refdata: none at $refdata; golden-real and the others skip their real recordings"
fi

mount_all

# ---- inside the chroot ----
phase deps
in_chroot deps bash tools/install-deps.sh

phase build
in_chroot build bash tools/build.sh

phase example
in_chroot clinfo 'clinfo 2>/dev/null | grep -E "^ *(Platform Name|Device Name|Device Version|Preferred / native vector sizes|  *float )" | head -8' || true
vector=$(grep -E '^ +float ' "$log_dir/clinfo.log" | head -1 |
  sed 's/^ *float *\([0-9]*\) *\/ *\([0-9]*\).*/preferred \/ native float vector width: \1 \/ \2/') || true
in_chroot example bash examples/mfcc.sh
device=$(sed -n 's/^device: //p' "$log_dir/example.log" | head -1)
frames=$(grep -E '^frames:' "$log_dir/example.log" | head -1)
# a live source, as a microphone would be: 2 s of pink noise at 48 kHz
rm -f "$root/tmp/afet-live.mfcc"
in_chroot live 'GST_PLUGIN_PATH=$PWD/build/gst gst-launch-1.0 \
  audiotestsrc is-live=true wave=pink-noise samplesperbuffer=960 num-buffers=100 ! \
  audio/x-raw,rate=48000,channels=1 ! audioconvert ! audioresample ! afetmfcc ! \
  filesink location=/tmp/afet-live.mfcc'
dims=$(sed -n 's/.*dims: *\([0-9]*\).*/\1/p' "$log_dir/example.log" | head -1)
frames="$frames
live: audiotestsrc is-live=true, 2 s at 48 kHz ! afetmfcc -> $(($(stat -c %s "$root/tmp/afet-live.mfcc") / (4 * ${dims:-13}))) frames"

phase tests
if [ "$tests" = all ]; then tests=""; fi
set +e
in_chroot tests meson test -C build --print-errorlogs --num-processes 2 \
  --timeout-multiplier "$multiplier" $tests
status=$?
set -e
test_results=$(python3 - "$root$copy/build/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r.get("result", "")
    if res in ("OK", "EXPECTEDFAIL"):
        counts["passed"] += 1
    elif res == "SKIP":
        counts["skipped"] += 1
    else:
        counts["failed"] += 1
    print("  %-22s %-8s %7.1f s" % (r["name"], res, r.get("duration", 0)))
print("{passed} passed, {failed} failed, {skipped} skipped".format(**counts))
PY
) || true
test_counts=$(echo "$test_results" | tail -1)
test_results=$(echo "$test_results" | sed '$d')
end_phase
[ "$status" -eq 0 ] || exit "$status"
result="all phases passed"
