# torchaudio's version of afet's longest chain on CUDA, timed for
# bench/chain.sh.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""torchaudio's nearest equivalent of afet's longest chain on CUDA: MFCC
(13, 23 filters, 25/10 ms), deltas and accelerations, sliding CMN (600
frames), from host int16 samples to host float features. Best of N runs;
the import and CUDA start-up are timed separately."""
import sys
import time

t0 = time.time()
import numpy as np
import torch
import torchaudio

secs = int(sys.argv[1]) if len(sys.argv) > 1 else 3600
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
dev = torch.device("cuda")
torch.zeros(1, device=dev)
startup = time.time() - t0

rng = np.random.default_rng(1)
x = (rng.standard_normal(secs * 16000) * 3000).astype(np.int16)
mfcc = torchaudio.transforms.MFCC(
    sample_rate=16000, n_mfcc=13,
    melkwargs=dict(n_fft=512, win_length=400, hop_length=160, n_mels=23,
                   center=False)).to(dev)
cmn = torchaudio.transforms.SlidingWindowCmn(cmn_window=600).to(dev)


def run():
    torch.cuda.synchronize()
    t = time.time()
    s = torch.from_numpy(x).to(dev).float()
    m = mfcc(s)                                   # 13 x frames
    d = torchaudio.functional.compute_deltas(m)
    a = torchaudio.functional.compute_deltas(d)
    f = torch.cat([m, d, a]).T.contiguous()       # frames x 39
    f = cmn(f)
    out = f.cpu().numpy()
    torch.cuda.synchronize()
    return time.time() - t, out.shape


run()
best = min(run()[0] for _ in range(reps))
print()
print(f"| torchaudio MFCC + deltas + sliding CMN on CUDA (compute and "
      f"transfers; import + CUDA start {startup:.2f} s not included) | "
      f"{best:.3f} | {secs / best:.0f} |")
