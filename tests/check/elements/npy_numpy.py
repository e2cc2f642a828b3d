#!/usr/bin/env python3
# Test of NumPy files: afetenc format=npy read by NumPy, and NumPy's own .npy
# files read by afetparse.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afetenc format=npy read by NumPy, and NumPy's own .npy files read by
afetparse.

  npy_numpy.py GST_LAUNCH AUDIO_DIR

For a few chains over AUDIO_DIR/*.wav, gst-launch-1.0 writes the same
frames as .npy and as raw float32 (one run, a tee): numpy.load() must give
a C-ordered float32 (frames, dims) array, its header must be a valid NPY
1.0 header whose data starts 64-byte aligned, and the values must equal the
raw file's bit for bit.  Then numpy.save()'s own files (float32, float64,
big-endian, version 2.0) go through afetparse ! afetenc format=raw and
must come back as the array's float32 values.

Exits 77 (skipped) when NumPy or gst-launch-1.0 is missing.  The plugin is
found through the environment meson sets (GST_PLUGIN_PATH_1_0).
"""

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from numpy.lib import format as npformat
except ImportError:
    print("skipped: NumPy is not installed for", sys.executable)
    sys.exit(77)

# (name, wav, element and settings, dims)
CHAINS = [
    ("MFCC_0 16k", "s01_16k",
     "afetmfcc frame-length=20 frame-shift=10 num-ceps=12 c0=true "
     "num-filters=23", 13),
    ("FBANK 8k", "s02_8k",
     "afetmfcc frame-length=20 frame-shift=10 num-ceps=0 num-filters=15", 15),
    ("MFCC_E_D_A_Z 44k", "s03_44k",
     "afetmfcc frame-length=20 frame-shift=10 num-ceps=12 c0=false "
     "energy=true num-filters=25 ! afetdelta order=2 ! "
     "afetcmvn columns=htk", 39),
]

failures = []


def fail(msg):
    print("FAIL:", msg)
    failures.append(msg)


def launch(gst_launch, line):
    """Runs a gst-launch-1.0 line (a list of its arguments); True if it
    ended well."""
    try:
        r = subprocess.run([gst_launch, "-q"] + line, capture_output=True,
                           text=True, timeout=300)
    except subprocess.TimeoutExpired:
        fail("gst-launch-1.0 timed out: " + " ".join(line))
        return False
    if r.returncode != 0:
        fail("gst-launch-1.0 %s: exit %d\n%s%s" % (" ".join(line),
             r.returncode, r.stdout, r.stderr))
        return False
    return True


def check_written(gst_launch, audio, tmp):
    for name, wav, chain, dims in CHAINS:
        npy = os.path.join(tmp, "out.npy")
        raw = os.path.join(tmp, "out.raw")
        line = (["filesrc", "location=" + os.path.join(audio, wav + ".wav"),
                 "!", "wavparse", "!"] + chain.split() +
                ["!", "tee", "name=t",
                 "t.", "!", "queue", "!", "afetenc", "format=npy", "!",
                 "filesink", "location=" + npy,
                 "t.", "!", "queue", "!", "afetenc", "format=raw", "!",
                 "filesink", "location=" + raw])
        if not launch(gst_launch, line):
            continue

        with open(npy, "rb") as f:
            version = npformat.read_magic(f)
            if version != (1, 0):
                fail("%s: NPY version %s, not 1.0" % (name, version))
                continue
            shape, fortran, dtype = npformat.read_array_header_1_0(f)
            if f.tell() % 64 != 0:
                fail("%s: the data starts at byte %d, not 64-byte aligned"
                     % (name, f.tell()))
        if fortran:
            fail("%s: fortran_order is True" % name)

        a = np.load(npy)
        b = np.fromfile(raw, dtype="<f4")
        if a.dtype != np.dtype("<f4"):
            fail("%s: dtype %s, not <f4" % (name, a.dtype))
        if a.ndim != 2 or a.shape[1] != dims:
            fail("%s: shape %s, not (frames, %d)" % (name, a.shape, dims))
            continue
        if a.shape != shape:
            fail("%s: np.load gives %s, the header says %s"
                 % (name, a.shape, shape))
        if not a.flags["C_CONTIGUOUS"]:
            fail("%s: not C-ordered" % name)
        if b.size != a.size:
            fail("%s: %d values in the .npy, %d raw" % (name, a.size, b.size))
            continue
        if a.shape[0] < 300:
            fail("%s: only %d frames" % (name, a.shape[0]))
        same = np.array_equal(a.reshape(-1).view("<u4"), b.view("<u4"))
        if not same:
            bad = np.flatnonzero(a.reshape(-1).view("<u4") != b.view("<u4"))
            fail("%s: %d values differ from format=raw's, the first at %d"
                 % (name, bad.size, bad[0]))
        # the file is exactly header + data
        size = os.path.getsize(npy)
        with open(npy, "rb") as f:
            npformat.read_magic(f)
            npformat.read_array_header_1_0(f)
            start = f.tell()
        if size != start + a.size * 4:
            fail("%s: %d bytes, header %d + data %d"
                 % (name, size, start, a.size * 4))
        if same:
            print("%-18s np.load: %s %s, equal to format=raw"
                  % (name, a.shape, a.dtype))


def check_read(gst_launch, tmp):
    rng = np.random.default_rng(7)
    base = (rng.standard_normal((57, 11)) * 100).astype(np.float32)
    base[3, 4] = -0.0
    base[5, 0] = np.float32(1e-38)
    cases = [
        ("float32", base, {}),
        ("float64", base.astype(np.float64), {}),
        ("big-endian float32", base.astype(">f4"), {}),
        ("version 2.0", base, {"version": (2, 0)}),
        ("one frame", base[:1].copy(), {}),
    ]
    for name, arr, how in cases:
        src = os.path.join(tmp, "np.npy")
        raw = os.path.join(tmp, "np.raw")
        with open(src, "wb") as f:
            if "version" in how:
                npformat.write_array(f, arr, version=how["version"])
            else:
                np.save(f, arr)
        if not launch(gst_launch, ["filesrc", "location=" + src, "!",
                                   "afetparse", "!", "afetenc", "format=raw",
                                   "!", "filesink", "location=" + raw]):
            continue
        got = np.fromfile(raw, dtype="<f4")
        want = np.ascontiguousarray(arr, dtype="<f4").reshape(-1)
        if got.size != want.size or not np.array_equal(got.view("<u4"),
                                                       want.view("<u4")):
            fail("numpy.save %s: afetparse gave %d values, not the %d of "
                 "the array (or other ones)" % (name, got.size, want.size))
        else:
            print("numpy.save %-20s read back by afetparse: %s"
                  % (name, arr.shape))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    gst_launch, audio = sys.argv[1], sys.argv[2]
    if not os.access(gst_launch, os.X_OK):
        print("skipped: no gst-launch-1.0 (%s)" % gst_launch)
        return 77
    with tempfile.TemporaryDirectory(prefix="afet-npy-") as tmp:
        check_written(gst_launch, audio, tmp)
        check_read(gst_launch, tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
