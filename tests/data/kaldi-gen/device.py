#!/usr/bin/env python3
# Makes the torchaudio and lhotse reference sets of this directory (run where
# torch is; checked here with NumPy alone).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Makes the torchaudio and lhotse reference sets of this directory.

On a machine with torch and torchaudio (CPU is enough):

    python3 device.py run LHOTSE_WHEEL OUT.npz

runs torchaudio.compliance.kaldi (in float64) and lhotse's own extractor
layers (lhotse/features/kaldi/layers.py taken unchanged from the wheel,
imported through a two-line stand-in for lhotse.utils so that lhotse's other
dependencies are not needed; float32, as lhotse runs) on the inputs of
generate.py, and writes every result into one .npz.  Then, where the data
live (numpy only):

    python3 device.py unpack OUT.npz

writes <set>/<name>.npy here.  README.md lists the options of every set.
"""

import os
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

ALL = ["s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k",
       "noise_8k", "noise_16k"]
FEW = ["s01_8k", "s01_16k", "noise_8k", "noise_16k"]


def lhotse_layers(wheel):
    """Imports lhotse/features/kaldi/layers.py from the wheel."""
    import types
    src = zipfile.ZipFile(wheel).read("lhotse/features/kaldi/layers.py")
    utils = types.ModuleType("lhotse.utils")
    utils.EPSILON = 1e-10        # lhotse.utils.EPSILON (1.33)
    utils.Seconds = float
    for name in ("lhotse", "lhotse.features", "lhotse.features.kaldi"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["lhotse.utils"] = utils
    mod = types.ModuleType("lhotse.features.kaldi.layers")
    exec(compile(src, "lhotse/features/kaldi/layers.py", "exec"), mod.__dict__)
    return mod


def run(wheel, out_path):
    import torch
    import torchaudio
    import torchaudio.compliance.kaldi as tk
    from generate import load

    print("torch", torch.__version__, "torchaudio", torchaudio.__version__)
    L = lhotse_layers(wheel)
    res = {}

    def ta(fn, x, rate, **kw):
        w = torch.from_numpy(x.astype(np.float64)).unsqueeze(0)
        return fn(w, sample_frequency=float(rate), dither=0.0, **kw).numpy()

    def lh(cls, x, rate, **kw):
        m = cls(sampling_rate=rate, **kw).eval()
        w = torch.from_numpy((x / 32768.0).astype(np.float32)).unsqueeze(0)
        with torch.no_grad():
            return m(w)[0].numpy()

    for name in ALL:
        rate, x = load(name)
        few = name in FEW
        # Kaldi's compute-spectrogram-feats defaults (energy floor 0)
        if few:
            res["ta_spectrogram/" + name] = ta(tk.spectrogram, x, rate,
                                               energy_floor=0.0)
        if few and name != "s01_16k":
            res["ta_spectrogram_nosnip_nonraw/" + name] = ta(
                tk.spectrogram, x, rate, energy_floor=1.0, snip_edges=False,
                raw_energy=False, window_type="hamming")
        res["ta_fbank23_vtln0.9/" + name] = ta(
            tk.fbank, x, rate, num_mel_bins=23, energy_floor=0.0,
            use_energy=True, vtln_warp=0.9, vtln_low=100.0, vtln_high=-500.0)
        res["ta_mfcc_blackman_htk/" + name] = ta(
            tk.mfcc, x, rate, num_mel_bins=23, num_ceps=13, energy_floor=0.0,
            use_energy=False, htk_compat=True, window_type="blackman",
            snip_edges=False)
        res["ta_fbank40_mag_hanning_nopow2/" + name] = ta(
            tk.fbank, x, rate, num_mel_bins=40, energy_floor=0.0,
            use_power=False, window_type="hanning",
            round_to_power_of_two=False, remove_dc_offset=False,
            preemphasis_coefficient=0.0)
        # lhotse's own extractors: FbankConfig() / MfccConfig() defaults
        res["lhotse_ref_fbank/" + name] = lh(L.Wav2LogFilterBank, x, rate)
        res["lhotse_ref_mfcc/" + name] = lh(L.Wav2MFCC, x, rate)
        if few:
            res["lhotse_ref_fbank_energy/" + name] = lh(
                L.Wav2LogFilterBank, x, rate, use_energy=True)
            # (Wav2MFCC with use_energy=True raises in lhotse 1.33: its
            # "mfcc[:, 0] = log_e" indexes frames, not cepstra, of the
            # batched (1, frames, ceps) tensor)
    for k, v in res.items():
        print(k, v.shape, v.dtype)
    np.savez(out_path, **{k: v.astype(np.float32) for k, v in res.items()})


def unpack(npz):
    z = np.load(npz)
    for k in z.files:
        d, name = k.split("/")
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
        np.save(os.path.join(HERE, d, name + ".npy"), z[k])
        print(k, z[k].shape)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "unpack":
        unpack(sys.argv[2])
    else:
        sys.exit(__doc__)
