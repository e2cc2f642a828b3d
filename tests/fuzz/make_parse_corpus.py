#!/usr/bin/env python3
# Writes the seeds of the fuzz target fuzz_parse into corpus/parse/.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the seeds of fuzz_parse into corpus/parse/ (next to this script).

Each seed is two control bytes (see fuzz_parse.cc: forced format, size
known, how the file is cut into pieces, refusing callbacks, raw dims) and
then a tiny feature file made up here from small numbers: HTK (big- and
little-endian, several qualifiers), NumPy (float32, float64, big-endian,
version 2.0, a 3-D array), Kaldi binary archives (float and double
matrices, two entries, UTF-8 keys, equal keys; compressed matrices CM, CM2
and CM3), Kaldi text, HTK at 22050 Hz, headerless float32, and a few near misses.

    python3 tests/fuzz/make_parse_corpus.py
"""

import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus",
                   "parse")

# control byte 0
AUTO, HTK, NPY, KALDI, KALDI_TEXT, RAW = range(6)
SIZE = 0x08
WHOLE, BYTES, FIXED, RANDOM = (0x00, 0x10, 0x20, 0x30)
REFUSE_FRAMES, REFUSE_ENTRY = 0x40, 0x80


def values(n):
    return [((i * 37) % 23 - 11) / 8.0 for i in range(n)]


def htk(frames, dims, kind, big=True, period=100000):
    e = ">" if big else "<"
    head = struct.pack(e + "iihH", frames, period, dims * 4, kind)
    return head + struct.pack(e + "%df" % (frames * dims),
                              *values(frames * dims))


def npy(rows, cols, descr="<f4", version=1):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (
        descr, rows, cols)
    pre = 10 if version == 1 else 12
    hlen = len(d) + 1
    hlen += (64 - (pre + hlen) % 64) % 64
    d = d.ljust(hlen - 1) + "\n"
    head = b"\x93NUMPY" + bytes([version, 0])
    head += struct.pack("<H" if version == 1 else "<I", hlen) + d.encode()
    fmt = {"<f4": "<%df", ">f4": ">%df", "<f8": "<%dd"}[descr]
    return head + struct.pack(fmt % (rows * cols), *values(rows * cols))


def kaldi(key, rows, cols, double=False):
    tok = b"DM " if double else b"FM "
    head = key + b" \0B" + tok + b"\4" + struct.pack("<i", rows) + b"\4" + \
        struct.pack("<i", cols)
    return head + struct.pack("<%d%s" % (rows * cols, "d" if double else "f"),
                              *values(rows * cols))


def kaldi_cm(key, fmt, rows, cols, lo=-2.0, rng=4.0):
    """A Kaldi compressed matrix entry: fmt 1 (CM: per-column percentile
    headers, then the columns), 2 (CM2: uint16 a value) or 3 (CM3: a byte
    a value), with made-up but well-formed data."""
    tok = {1: b"CM ", 2: b"CM2 ", 3: b"CM3 "}[fmt]
    head = key + b" \0B" + tok + struct.pack("<ffii", lo, rng, rows, cols)
    n = rows * cols
    if fmt == 1:
        cols_h = b"".join(struct.pack("<4H", 100 * c, 20000 + c, 40000 + c,
                                      65000 + c) for c in range(cols))
        return head + cols_h + bytes((i * 53) % 256 for i in range(n))
    if fmt == 2:
        return head + struct.pack("<%dH" % n,
                                  *[(i * 7919) % 65536 for i in range(n)])
    return head + bytes((i * 53) % 256 for i in range(n))


def kaldi_text(key, rows, cols, close_on_row=False):
    v = values(rows * cols)
    s = key + "  [\n"
    for r in range(rows):
        s += "  " + " ".join("%.9g" % x for x in v[r * cols:(r + 1) * cols])
        s += " ]\n" if close_on_row and r == rows - 1 else " \n"
    if not close_on_row:
        s += " ]\n"
    return s.encode()


def raw(frames, dims):
    return struct.pack("<%df" % (frames * dims), *values(frames * dims))


SEEDS = {
    # HTK: MFCC_0, MFCC_E_D_A_Z, FBANK, PLP_0_D_A_T, USER little-endian
    "htk-mfcc-0": (AUTO | SIZE | WHOLE, 0, htk(4, 13, 0x2006)),
    "htk-mfcc-e-d-a-z-bytes": (AUTO | SIZE | BYTES, 0, htk(3, 6, 0x0B46)),
    "htk-fbank-nosize-fixed": (AUTO | FIXED, 6, htk(5, 4, 0x0007)),
    "htk-plp-0-d-a-t-forced": (HTK | SIZE | RANDOM, 3, htk(2, 8, 0xA30B)),
    "htk-user-le": (AUTO | SIZE | WHOLE, 0, htk(3, 3, 0x0009, big=False)),
    "htk-refuse-frames": (AUTO | SIZE | BYTES | REFUSE_FRAMES, 0,
                          htk(5, 2, 0x0006)),
    "htk-zero-frames": (AUTO | SIZE | WHOLE, 0, htk(0, 13, 0x2006)),
    "htk-cut": (AUTO | FIXED, 4, htk(4, 13, 0x2006)[:-5]),
    "htk-compressed": (HTK | SIZE | WHOLE, 0, htk(2, 3, 0x0406)),
    # 220 samples at 22050 Hz: 99773.24 x 100 ns, written 99773
    "htk-22050": (AUTO | SIZE | WHOLE, 0, htk(3, 13, 0x2006, period=99773)),
    # NumPy
    "npy-f4": (AUTO | SIZE | WHOLE, 0, npy(3, 4)),
    "npy-f8-v2-fixed": (AUTO | SIZE | FIXED, 5, npy(2, 5, "<f8", 2)),
    "npy-be-random": (AUTO | RANDOM, 17, npy(4, 3, ">f4")),
    "npy-forced-bytes": (NPY | BYTES, 0, npy(2, 2)),
    "npy-i4": (AUTO | SIZE | WHOLE, 0,
               npy(2, 2).replace(b"'<f4'", b"'<i4'")),
    # a 3-D array, refused as one
    "npy-3d": (AUTO | SIZE | WHOLE, 0,
               npy(2, 6).replace(b"(2, 6)", b"(2,2,3)")),
    # Kaldi binary
    "kaldi-two-entries-random": (AUTO | SIZE | RANDOM, 9,
                                 kaldi(b"utt1", 2, 3) + kaldi(b"utt2", 1, 3)),
    "kaldi-dm": (AUTO | SIZE | WHOLE, 0, kaldi(b"dbl", 2, 2, True)),
    "kaldi-refuse-entry": (KALDI | FIXED | REFUSE_ENTRY, 7,
                           kaldi(b"a", 1, 2) + kaldi(b"b", 2, 2)),
    "kaldi-empty-matrix": (AUTO | SIZE | WHOLE, 0,
                           kaldi(b"none", 0, 0) + kaldi(b"one", 1, 1)),
    # keys of UTF-8 bytes, and two entries under one key
    "kaldi-utf8-keys-bytes": (AUTO | SIZE | BYTES, 0,
                              kaldi("spk1_ünïcødé_001".encode(), 1, 2) +
                              kaldi("说话人_002".encode(), 2, 2)),
    "kaldi-equal-keys": (AUTO | SIZE | WHOLE, 0,
                         kaldi(b"k", 2, 2) + kaldi(b"k", 1, 2)),
    "kaldi-cm": (AUTO | SIZE | WHOLE, 0,
                 kaldi(b"c", 1, 2).replace(b"FM ", b"CM ")),
    # Kaldi's compressed matrices (afetcompress.h): CM whole at once, CM2
    # and CM3 row by row, mixed with float entries, empty, cut, absurd
    "kaldi-cm-speech-random": (AUTO | SIZE | RANDOM, 5,
                               kaldi_cm(b"cm", 1, 9, 3)),
    "kaldi-cm-speech-bytes": (KALDI | BYTES, 0, kaldi_cm(b"few", 1, 3, 2)),
    "kaldi-cm2-fixed": (AUTO | FIXED, 6, kaldi_cm(b"two", 2, 3, 4) +
                        kaldi(b"fm", 2, 4)),
    "kaldi-cm3-random": (AUTO | SIZE | RANDOM, 11,
                         kaldi_cm(b"one", 3, 5, 2) +
                         kaldi_cm(b"cm", 1, 6, 2, 10.0, 0.5)),
    "kaldi-cm-empty": (AUTO | SIZE | WHOLE, 0,
                       kaldi_cm(b"none", 1, 0, 0, 0.0, 0.0) +
                       kaldi_cm(b"one", 3, 1, 1)),
    "kaldi-cm-cut": (AUTO | WHOLE, 0, kaldi_cm(b"cut", 1, 8, 3)[:-5]),
    "kaldi-cm2-absurd": (AUTO | SIZE | WHOLE, 0,
                         kaldi_cm(b"big", 2, 2, 2).replace(
                             struct.pack("<ii", 2, 2),
                             struct.pack("<ii", 0x7fffffff, 2))),
    # Kaldi text
    "kaldi-text": (AUTO | SIZE | WHOLE, 0,
                   kaldi_text("utt1", 2, 3) + kaldi_text("utt2", 1, 3)),
    "kaldi-text-closed-on-row-bytes": (KALDI_TEXT | BYTES, 0,
                                       kaldi_text("k", 3, 2, True)),
    "kaldi-text-utf8-key": (AUTO | SIZE | FIXED, 3,
                            kaldi_text("spk1_ünïcødé_001", 2, 2)),
    "kaldi-text-ragged": (AUTO | FIXED, 2,
                          b"r  [\n  1 2 3\n  4 5\n ]\n"),
    # headerless float32, 3 values a frame (byte 1 & 31 = 2)
    "raw-3": (RAW | SIZE | FIXED, 2, raw(4, 3)),
    "raw-cut": (RAW | WHOLE, 2, raw(4, 3)[:-2]),
    # neither
    "empty": (AUTO | SIZE | WHOLE, 0, b""),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, (c0, c1, data) in sorted(SEEDS.items()):
        blob = bytes([c0, c1]) + data
        assert len(blob) < 2048, name
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(blob)
    print("%d seeds in %s" % (len(SEEDS), OUT))


if __name__ == "__main__":
    main()
