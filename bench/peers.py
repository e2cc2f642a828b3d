#!/usr/bin/env python3
# Worker processes for bench.py: kaldi-native-fbank and torchaudio, the Python
# peers of afetmfcc.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Worker processes for bench.py: the Python peers of afetmfcc.

    peers.py knf   LIST            kaldi-native-fbank (CPU, one thread)
    peers.py torch LIST [options]  torchaudio (CUDA by default)
    peers.py probe knf|torch [--device D]   print what is available

LIST holds one "INPUT.wav<TAB>OUTPUT.npy" pair per line. Each file is read
with the wave module, its MFCCs are computed and written with numpy.save
(float32, frames x 13). The settings follow afetmfcc's defaults as closely
as each library allows: 16 kHz, 25 ms Hamming window, 10 ms shift, 512-point
FFT, pre-emphasis 0.97, 23 mel filters from 0 Hz to Nyquist, 12 cepstra plus
c0 last, lifter 22, no dither, no DC removal, no energy.

The last line on stdout is "PEER_RESULT {json}" with import_s (imports and,
for CUDA, device initialisation), first_s (the first file, or the first
batch of first_files files), rest_s (the other files) and total_s (from the
start of the process), all wall-clock seconds, and the frame count.
"""

import argparse
import json
import sys
import time

T_START = time.perf_counter()

import wave  # noqa: E402

import numpy as np  # noqa: E402

RATE = 16000


def read_list(path):
    jobs = []
    with (sys.stdin if path == "-" else open(path)) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            src, dst = line.split("\t", 1)
            jobs.append((src, dst))
    return jobs


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2 or \
                w.getframerate() != RATE:
            raise SystemExit("%s: need 16 kHz mono 16-bit PCM" % path)
        data = w.readframes(w.getnframes())
    # int16 values as float, as HTK, Kaldi and afet see them
    return np.frombuffer(data, dtype="<i2").astype(np.float32)


def result(info, t_import, t_first, t_end, frames, files, dims,
           first_files=1):
    out = dict(info)
    out.update({
        "first_files": first_files,
        "ok": True,
        "import_s": t_import - T_START,
        "first_s": t_first - t_import,
        "rest_s": t_end - t_first,
        "total_s": t_end - T_START,
        "files": files,
        "frames": frames,
        "dims": dims,
    })
    print("PEER_RESULT " + json.dumps(out))
    sys.stdout.flush()


# ---- kaldi-native-fbank ---------------------------------------------------

def knf_options(knf):
    o = knf.MfccOptions()
    fo = o.frame_opts
    fo.samp_freq = float(RATE)
    fo.frame_length_ms = 25.0
    fo.frame_shift_ms = 10.0
    fo.dither = 0.0
    fo.preemph_coeff = 0.97
    fo.remove_dc_offset = False
    fo.window_type = "hamming"
    fo.round_to_power_of_two = True
    fo.snip_edges = True
    o.mel_opts.num_bins = 23
    o.mel_opts.low_freq = 0.0
    o.mel_opts.high_freq = 0.0          # 0 = Nyquist
    o.num_ceps = 13
    o.use_energy = False
    o.cepstral_lifter = 22.0
    o.htk_compat = True                 # c0 last, as HTK's MFCC_0
    return o


def knf_version():
    try:
        from importlib.metadata import version
        return version("kaldi-native-fbank")
    except Exception:  # noqa: BLE001
        return "unknown"


def run_knf(args):
    import kaldi_native_fbank as knf
    opts = knf_options(knf)
    jobs = read_list(args.list)
    t_import = time.perf_counter()
    t_first = t_import
    frames = 0
    dims = 0
    for i, (src, dst) in enumerate(jobs):
        x = read_wav(src)
        m = knf.OnlineMfcc(opts)
        # a list converts to the C++ vector faster than an ndarray does
        m.accept_waveform(float(RATE), x.tolist())
        m.input_finished()
        n = m.num_frames_ready
        feats = np.array([m.get_frame(k) for k in range(n)],
                         dtype=np.float32).reshape(n, -1)
        np.save(dst, feats)
        frames += n
        dims = feats.shape[1]
        if i == 0:
            t_first = time.perf_counter()
    t_end = time.perf_counter()
    result({"library": "kaldi-native-fbank " + knf_version(),
            "device": "cpu"}, t_import, t_first, t_end, frames, len(jobs),
           dims)


# ---- torchaudio -------------------------------------------------------------

def run_torch(args):
    import torch
    import torchaudio
    dev = torch.device(args.device)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise SystemExit("CUDA is not available to torch")
        torch.cuda.init()
        torch.zeros(1, device=dev)      # create the context now
        torch.cuda.synchronize(dev)
        dev_name = torch.cuda.get_device_name(dev)
    else:
        dev_name = "cpu (%d threads)" % torch.get_num_threads()

    transform = None
    if args.method == "transforms":
        transform = torchaudio.transforms.MFCC(
            sample_rate=RATE, n_mfcc=13, dct_type=2, norm="ortho",
            log_mels=True,
            melkwargs={"n_fft": 512, "win_length": 400, "hop_length": 160,
                       "n_mels": 23, "f_min": 0.0, "f_max": RATE / 2.0,
                       "center": False, "power": 1.0, "mel_scale": "htk",
                       "window_fn": torch.hamming_window}).to(dev)

    def compliance(x):
        return torchaudio.compliance.kaldi.mfcc(
            x.unsqueeze(0), sample_frequency=float(RATE), frame_length=25.0,
            frame_shift=10.0, num_mel_bins=23, num_ceps=13, low_freq=0.0,
            high_freq=0.0, dither=0.0, window_type="hamming",
            preemphasis_coefficient=0.97, remove_dc_offset=False,
            round_to_power_of_two=True, snip_edges=True, use_energy=False,
            cepstral_lifter=22.0, htk_compat=True)

    jobs = read_list(args.list)
    t_import = time.perf_counter()
    t_first = t_import
    frames = 0
    dims = 0
    batch = max(1, args.batch) if args.method == "transforms" else 1
    done = 0
    with torch.inference_mode():
        for start in range(0, len(jobs), batch):
            group = jobs[start:start + batch]
            waves = [read_wav(src) for src, _ in group]
            if args.method == "compliance":
                x = torch.from_numpy(waves[0]).to(dev, non_blocking=True)
                outs = [compliance(x).cpu().numpy()]
            else:
                lens = [len(w) for w in waves]
                host = np.zeros((len(waves), max(lens)), dtype=np.float32)
                for k, w in enumerate(waves):
                    host[k, :len(w)] = w
                x = torch.from_numpy(host).to(dev, non_blocking=True)
                y = transform(x).transpose(1, 2).contiguous().cpu().numpy()
                # center=False, n_fft 512: frame t of a padded row reads
                # samples t*160 .. t*160+511, all the file's own while
                # t <= (n - 512) / 160
                outs = [y[k, :max(0, (n - 512) // 160 + 1)]
                        for k, n in enumerate(lens)]
            if dev.type == "cuda":
                torch.cuda.synchronize(dev)
            for (_, dst), feats in zip(group, outs):
                np.save(dst, np.ascontiguousarray(feats, dtype=np.float32))
                frames += feats.shape[0]
                dims = feats.shape[1]
            done += len(group)
            if start == 0:
                t_first = time.perf_counter()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    t_end = time.perf_counter()
    info = {"library": "torch %s, torchaudio %s%s" % (
        torch.__version__, torchaudio.__version__,
        (", CUDA " + torch.version.cuda) if torch.version.cuda else ""),
        "device": dev_name, "method": args.method, "batch": batch}
    result(info, t_import, t_first, t_end, frames, done, dims,
           first_files=min(batch, done))


# ---- probe --------------------------------------------------------------------

def probe(args):
    """Prints one JSON line: {"ok": bool, "why": str, "version": str}."""
    out = {"ok": False, "why": "", "version": ""}
    try:
        if args.what == "knf":
            import kaldi_native_fbank  # noqa: F401
            out.update(ok=True, version=knf_version())
        else:
            import torch
            import torchaudio
            out["version"] = "torch %s, torchaudio %s" % (
                torch.__version__, torchaudio.__version__)
            if args.device.startswith("cuda") and \
                    not torch.cuda.is_available():
                out["why"] = "torch.cuda.is_available() is False"
            else:
                out["ok"] = True
                if args.device.startswith("cuda"):
                    out["gpu"] = torch.cuda.get_device_name(0)
    except Exception as e:  # noqa: BLE001
        out["why"] = "%s: %s" % (type(e).__name__, e)
    print(json.dumps(out))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("knf", help="kaldi-native-fbank OnlineMfcc")
    k.add_argument("list")
    t = sub.add_parser("torch", help="torchaudio MFCC")
    t.add_argument("list")
    t.add_argument("--device", default="cuda")
    t.add_argument("--method", choices=("compliance", "transforms"),
                   default="compliance",
                   help="compliance: torchaudio.compliance.kaldi.mfcc, one "
                   "file at a time; transforms: torchaudio.transforms.MFCC, "
                   "--batch files padded into one tensor")
    t.add_argument("--batch", type=int, default=1)
    pr = sub.add_parser("probe")
    pr.add_argument("what", choices=("knf", "torch"))
    pr.add_argument("--device", default="cuda")
    args = p.parse_args(argv)
    if args.cmd == "knf":
        run_knf(args)
    elif args.cmd == "torch":
        run_torch(args)
    else:
        probe(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
