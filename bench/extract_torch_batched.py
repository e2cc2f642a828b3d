# The batched torchaudio peer for short files (issue 29's): files of one
# length stacked 128 a call, read by 16 threads into page-locked memory,
# MFCC_0_D_A_Z on CUDA, each file's features written as an HTK file.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How a skilled user batches short files with torchaudio on CUDA: the list's
files in groups of BATCH (default 128) of equal length (make_corpus.py
--short-min 15 --short-max 15 makes such a corpus; a group of mixed lengths
is split by length), read by THREADS (default 16) reader threads into one
page-locked int16 array, copied to the GPU in one transfer, MFCC (13 with
c0, F mel filters, 20 ms window, 10 ms shift) + deltas + accelerations
(window 3: torchaudio's win_length 7) + the statics' mean removed, copied
back in one transfer (the page-locked array is reused: the copy back waits
for the transfer in), and written per file (HTK, by the same threads) while
the next group is read and computed.  Prints the import + CUDA start-up and the time
of the file loop (the steady state); the caller times the whole process.
    python3 extract_torch_batched.py LIST OUTDIR RATE FILTERS [BATCH [THREADS]]"""
import os
import sys
import time
import wave
from concurrent.futures import ThreadPoolExecutor

t0 = time.time()
import numpy as np
import torch
import torchaudio

lst, outdir, rate, filters = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
batch = int(sys.argv[5]) if len(sys.argv) > 5 else 128
threads = int(sys.argv[6]) if len(sys.argv) > 6 else 16
dev = torch.device("cuda")
torch.zeros(1, device=dev)
startup = time.time() - t0
win, hop = rate // 50, rate // 100
nfft = 1 << (win - 1).bit_length()
mfcc = torchaudio.transforms.MFCC(
    sample_rate=rate, n_mfcc=13,
    melkwargs=dict(n_fft=nfft, win_length=win, hop_length=hop, n_mels=filters,
                   center=False)).to(dev)
files = [l.split()[0] for l in open(lst) if l.strip()]
os.makedirs(outdir, exist_ok=True)


def samples(path):
    with wave.open(path) as w:
        return w.getnframes()


def read_into(args):
    path, row = args
    with wave.open(path) as w:
        row[:] = np.frombuffer(w.readframes(w.getnframes()), "<i2")


def write(args):
    path, f = args
    n, d = f.shape
    with open(path, "wb") as o:
        o.write(np.array([n, hop * 10000000 // rate], ">i4").tobytes())
        o.write(np.array([d * 4, 6 | 0x2000 | 0x100 | 0x200 | 0x800],
                         ">i2").tobytes())
        o.write(f.astype(">f4").tobytes())


t1 = time.time()
with ThreadPoolExecutor(threads) as pool:
    lengths = list(pool.map(samples, files))
    groups = {}
    for path, n in zip(files, lengths):
        groups.setdefault(n, []).append(path)
    writes = []
    pinned = {}                 # one page-locked array a shape, reused
    for n, paths in groups.items():
        for b in range(0, len(paths), batch):
            part = paths[b:b + batch]
            shape = (len(part), n)
            if shape not in pinned:
                pinned[shape] = torch.empty(shape, dtype=torch.int16,
                                            pin_memory=True)
            host = pinned[shape]
            rows = host.numpy()
            list(pool.map(read_into, [(p, rows[i])
                                      for i, p in enumerate(part)]))
            x = host.to(dev, non_blocking=True).float()
            m = mfcc(x)                                 # B x 13 x frames
            m = m - m.mean(dim=2, keepdim=True)
            d = torchaudio.functional.compute_deltas(m, win_length=7)
            a = torchaudio.functional.compute_deltas(d, win_length=7)
            out = torch.cat([m, d, a], dim=1).transpose(1, 2).contiguous()
            out = out.cpu().numpy()
            for i, p in enumerate(part):
                base = os.path.splitext(os.path.basename(p))[0]
                writes.append(pool.submit(write, (os.path.join(
                    outdir, base + ".htk"), out[i])))
    for w in writes:
        w.result()
torch.cuda.synchronize()
print("torch startup %.3f loop %.3f files %d groups %d" % (
    startup, time.time() - t1, len(files), len(groups)))
