# torchaudio's version of afet-extract with HTK's MFCC_0_D_A_Z on CUDA, timed
# for bench/extract.py.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""torchaudio's nearest equivalent of `afet-extract` with HTK's
MFCC_0_D_A_Z on CUDA: per file, read the WAV (8 reader threads), MFCC (13
with c0, F mel filters, 20 ms window, 10 ms shift), deltas and
accelerations (window 3 = torchaudio's win_length 7), the mean removed
from the statics, written as an HTK file.  Prints the import + CUDA start-up
and the time of the file loop; the caller times the whole process.
    python3 extract_torch.py LIST OUTDIR RATE FILTERS [THREADS]"""
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
threads = int(sys.argv[5]) if len(sys.argv) > 5 else 8
dev = torch.device("cuda")
torch.zeros(1, device=dev)
startup = time.time() - t0
win, hop = rate // 50, rate // 100
nfft = 1 << (win - 1).bit_length()
mfcc = torchaudio.transforms.MFCC(
    sample_rate=rate, n_mfcc=13,
    melkwargs=dict(n_fft=nfft, win_length=win, hop_length=hop, n_mels=filters,
                   center=False)).to(dev)
files = [l.strip() for l in open(lst) if l.strip()]
os.makedirs(outdir, exist_ok=True)


def read(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), "<i2")


def write(path, f):
    n, d = f.shape
    with open(path, "wb") as o:
        o.write(np.array([n, hop * 10000000 // rate], ">i4").tobytes())
        o.write(np.array([d * 4, 6 | 0x2000 | 0x100 | 0x200 | 0x800],
                         ">i2").tobytes())
        o.write(f.astype(">f4").tobytes())


def one(x):
    s = torch.from_numpy(x).to(dev, non_blocking=True).float()
    m = mfcc(s)                                         # 13 x frames
    m = m - m.mean(dim=1, keepdim=True)
    d = torchaudio.functional.compute_deltas(m, win_length=7)
    a = torchaudio.functional.compute_deltas(d, win_length=7)
    return torch.cat([m, d, a]).T.contiguous().cpu().numpy()


t1 = time.time()
with ThreadPoolExecutor(threads) as pool:
    outs = []
    for path, x in zip(files, pool.map(read, files)):
        f = one(x)
        base = os.path.splitext(os.path.basename(path))[0]
        outs.append(pool.submit(write, os.path.join(outdir, base + ".htk"), f))
    for o in outs:
        o.result()
torch.cuda.synchronize()
print("torch startup %.3f loop %.3f files %d" % (startup, time.time() - t1,
                                                  len(files)))
