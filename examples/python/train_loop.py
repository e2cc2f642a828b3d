#!/usr/bin/python3
# An example of afet features in a training loop: a dataset of feature arrays,
# padded batches and a small classifier (NumPy, PyTorch optional).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet features in a training loop: a dataset over (audio file, label)
pairs whose items are feature arrays, batches of padded frames, and a small
classifier trained on them, in NumPy alone (PyTorch optional).

  train_loop.py                 a toy corpus cut from the bundled example
  train_loop.py LIST            LIST: one 'path label' per line
  train_loop.py --torch [LIST]  the same through torch.utils.data

Options: --pipeline CHAIN (default HTK's MFCC_0_D_A_Z: 'afetmfcc !
afetdelta ! afetcmvn columns=htk'), --rate HZ, --batch N, --epochs N.  Run it from the build tree
with GST_PLUGIN_PATH=$PWD/build/gst and PYTHONPATH=$PWD/python (it finds
both next to itself too).
"""

import argparse
import os
import sys
import tempfile
import wave

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

try:
    import afet
except ImportError:
    sys.path.insert(0, os.path.join(TOP, "python"))
    import afet


class FeatureDataset:
    """Items (features, label): ``features`` a float32 array of frames x
    dims made by afet from the item's audio file.

    One afet.Extractor per process, made when first needed, so the dataset
    can go to worker processes (with the 'spawn' or 'forkserver' start
    method: an OpenCL context does not survive fork()).  ``cache=True``
    keeps each item's features after the first epoch.
    """

    def __init__(self, items,
                 pipeline="afetmfcc ! afetdelta ! afetcmvn columns=htk",
                 rate=None, cache=True):
        self.items = list(items)
        self.pipeline = pipeline
        self.rate = rate
        self.cache = {} if cache else None
        self._extractor = None
        self._pid = None
        self.info = None          # afet.FeatureInfo, once an item was made

    def extractor(self):
        if self._extractor is None or self._pid != os.getpid():
            self._extractor = afet.Extractor(self.pipeline, rate=self.rate)
            self._pid = os.getpid()
        return self._extractor

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        if self.cache is not None and i in self.cache:
            return self.cache[i], label
        feats = self.extractor()(path)      # afet.Error if the file fails
        self.info = feats.info
        if self.cache is not None:
            self.cache[i] = feats.data
        return feats.data, label

    def __getstate__(self):               # for worker processes
        state = dict(self.__dict__)
        state["_extractor"] = None
        return state


def pad_batch(pairs):
    """[(frames x dims, label)] -> x (batch, longest, dims) zero-padded,
    lengths (batch,), labels (batch,)."""
    lengths = np.array([len(f) for f, _ in pairs])
    dims = pairs[0][0].shape[1]
    x = np.zeros((len(pairs), lengths.max(), dims), np.float32)
    for b, (f, _) in enumerate(pairs):
        x[b, :len(f)] = f
    return x, lengths, np.array([lab for _, lab in pairs])


def batches(dataset, batch_size, rng=None):
    """Yields padded batches over the dataset once, shuffled with rng."""
    order = np.arange(len(dataset))
    if rng is not None:
        rng.shuffle(order)
    for start in range(0, len(order), batch_size):
        yield pad_batch([dataset[i] for i in order[start:start + batch_size]])


def pooled(x, lengths):
    """Mean and standard deviation over each utterance's real frames:
    (batch, 2 x dims), what the small model below sees."""
    mask = (np.arange(x.shape[1])[None, :] < lengths[:, None])[..., None]
    n = lengths[:, None].astype(np.float32)
    mean = (x * mask).sum(1) / n
    var = (((x - mean[:, None]) * mask) ** 2).sum(1) / n
    return np.concatenate([mean, np.sqrt(var)], axis=1)


class SoftmaxRegression:
    """A linear classifier on pooled features, trained by plain SGD."""

    def __init__(self, n_in, n_classes, lr=0.2, seed=0):
        r = np.random.default_rng(seed)
        self.w = r.normal(0, 0.01, (n_in, n_classes))
        self.b = np.zeros(n_classes)
        self.lr = lr
        self.mu = None
        self.sd = None

    def _norm(self, z):
        if self.mu is None:          # input scaling from the first batch
            self.mu, self.sd = z.mean(0), z.std(0) + 1e-3
        return (z - self.mu) / self.sd

    def step(self, z, y):
        z = self._norm(z)
        logits = z @ self.w + self.b
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
        g = p
        g[np.arange(len(y)), y] -= 1
        g /= len(y)
        self.w -= self.lr * (z.T @ g)
        self.b -= self.lr * g.sum(0)
        return loss, (logits.argmax(1) == y).mean()


# ---------------------------------------------------------------- corpus

def write_wav(path, samples, rate=16000):
    s = np.clip(samples, -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(s.tobytes())


def toy_corpus(directory, per_class=12, seed=1):
    """Three classes of one-second WAVs: 'speech' (slices of the bundled
    example), 'tone' (sine sweeps) and 'noise' (coloured noise), each with
    some noise of its own; returns [(path, label)], class names."""
    rng = np.random.default_rng(seed)
    with wave.open(os.path.join(TOP, "examples", "data",
                                "speech-16k.wav")) as w:
        speech = np.frombuffer(w.readframes(w.getnframes()), "<i2")
    rate, n = 16000, 16000
    items = []
    for i in range(per_class):
        start = rng.integers(0, len(speech) - n)
        s = speech[start:start + n] * rng.uniform(0.5, 1.5)
        items.append((s, 0))
        t = np.arange(n) / rate
        f0, f1 = rng.uniform(200, 3000, 2)
        phase = 2 * np.pi * (f0 * t + (f1 - f0) * t * t / 2)
        items.append((3000 * np.sin(phase), 1))
        white = rng.normal(0, 1, n + 1)
        items.append((2000 * (white[1:] + rng.uniform(-0.9, 0.9) *
                              white[:-1]), 2))
    out = []
    for j, (s, label) in enumerate(items):
        s = s + rng.normal(0, 30, n)
        path = os.path.join(directory, "utt%03d.wav" % j)
        write_wav(path, s, rate)
        out.append((path, label))
    return out, ["speech", "tone", "noise"]


def read_list(path):
    items, names = [], {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and not parts[0].startswith("#"):
                label = names.setdefault(parts[1], len(names))
                items.append((parts[0], label))
    return items, [n for n, _ in sorted(names.items(), key=lambda x: x[1])]


# ---------------------------------------------------------------- loops

def train_numpy(dataset, classes, epochs, batch_size):
    rng = np.random.default_rng(0)
    model = None
    for epoch in range(epochs):
        losses, accs, frames = [], [], 0
        for x, lengths, y in batches(dataset, batch_size, rng):
            z = pooled(x, lengths)
            if model is None:
                model = SoftmaxRegression(z.shape[1], len(classes))
            loss, acc = model.step(z, y)
            losses.append(loss)
            accs.append(acc)
            frames += int(lengths.sum())
        print("epoch %d: loss %.3f, accuracy %.2f (%d frames)" % (
            epoch + 1, np.mean(losses), np.mean(accs), frames))
    return model


def torch_collate(pairs):
    """pad_batch() as torch tensors, for DataLoader(collate_fn=...)."""
    import torch
    x, lengths, y = pad_batch(pairs)
    return torch.from_numpy(x), torch.from_numpy(lengths), \
        torch.from_numpy(y)


def train_torch(dataset, classes, epochs, batch_size, workers=0):
    import torch
    from torch.utils.data import DataLoader

    # FeatureDataset is a map-style dataset as it is (__len__,
    # __getitem__).  Worker processes are started with 'spawn': an OpenCL
    # context made before a fork() is not usable in the child.
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True,
                        collate_fn=torch_collate, num_workers=workers,
                        multiprocessing_context="spawn" if workers else None,
                        persistent_workers=workers > 0)
    model = opt = None
    for epoch in range(epochs):
        total, correct, n = 0.0, 0, 0
        for x, lengths, y in loader:
            # mean and standard deviation over the real frames, as above
            mask = (torch.arange(x.shape[1])[None, :] <
                    lengths[:, None]).unsqueeze(-1)
            count = lengths[:, None].float()
            mean = (x * mask).sum(1) / count
            sd = ((((x - mean[:, None]) * mask) ** 2).sum(1) / count).sqrt()
            z = torch.cat([mean, sd], 1)
            if model is None:
                dims = z.shape[1]
                model = torch.nn.Sequential(
                    torch.nn.BatchNorm1d(dims, affine=False),
                    torch.nn.Linear(dims, len(classes)))
                opt = torch.optim.SGD(model.parameters(), lr=0.2)
            logits = model(z)
            loss = torch.nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(y)
            correct += int((logits.argmax(1) == y).sum())
            n += len(y)
        print("epoch %d: loss %.3f, accuracy %.2f (torch)" % (
            epoch + 1, total / n, correct / n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("list", nargs="?", help="'path label' per line")
    ap.add_argument("--pipeline",
                    default="afetmfcc ! afetdelta ! afetcmvn columns=htk")
    ap.add_argument("--rate", type=int)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--torch", action="store_true",
                    help="train through torch.utils.data (needs torch)")
    ap.add_argument("--workers", type=int, default=0,
                    help="--torch: DataLoader worker processes")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="afet-toy-") as tmp:
        if args.list:
            items, classes = read_list(args.list)
        else:
            items, classes = toy_corpus(tmp)
        dataset = FeatureDataset(items, args.pipeline, rate=args.rate)
        x, label = dataset[0]
        info = dataset.info
        print("%d utterances, %d classes (%s); features %s: %d dims "
              "(%d statics, delta-order %d), %g frames/s" % (
                  len(dataset), len(classes), ", ".join(classes),
                  info.htk_name(), info.dims, info.statics,
                  info.delta_order, float(info.framerate)))
        if args.torch:
            try:
                import torch  # noqa: F401
            except ImportError:
                sys.exit("train_loop.py: --torch: PyTorch is not installed")
            train_torch(dataset, classes, args.epochs, args.batch,
                        args.workers)
        else:
            train_numpy(dataset, classes, args.epochs, args.batch)


if __name__ == "__main__":
    main()
