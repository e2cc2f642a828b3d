#!/usr/bin/env python3
# Times lhotse's CutSet.compute_and_store_features through a Dask cluster of
# worker processes on one GPU and on several, afet's AfetFbank and lhotse's
# own Fbank (torch), the recipe docs/lhotse.md gives for clusters.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The lhotse path across GPUs: Dask workers, each with its own device.

Each run starts a Dask cluster of --workers worker processes on this
machine (distributed's SpecCluster, a Nanny a worker, one thread each) and
calls::

    cuts.compute_and_store_features(extractor, storage_path,
        num_jobs=--workers, executor=client, storage_type=...)

as docs/lhotse.md's "Across processes and machines: Dask" does for a
cluster, every worker taking its device from its environment, set when it
is started: ``AFET_DEVICE=0:K`` for afet's ``AfetFbank(AfetFbankConfig(
num_filters=80))`` (device ``auto``), ``CUDA_VISIBLE_DEVICES=K`` for
lhotse's ``Fbank(FbankConfig(num_filters=80, device="cuda"))``.  "one GPU":
every worker on GPU 0; "N GPUs": worker i on GPU i mod N.  Each
configuration runs first on a few cuts (start-up: CUDA, OpenCL, afet's
pipelines in every worker), then on all of them, timed; a fresh cluster
each time.  The stored matrices of every afet run are compared with the
first afet run's (the same bytes on every GPU of one model), and so are
lhotse's.

Prints one line a run and writes them as JSON (--json).  Needs lhotse,
distributed, torch and afet's python/ on the path (the GPU machine:
. .devrt/env.sh; . .devpy/env.sh).
"""

import argparse
import json
import logging
import os
import platform
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, HERE)

from bench import corpus_files, make_cuts  # noqa: E402


def cluster(workers, devices, var):
    """A SpecCluster of `workers` Nanny processes, worker i with
    var=devices[i % len(devices)] in its environment."""
    from distributed import Nanny, Scheduler, SpecCluster
    spec = {"w%d" % i: {"cls": Nanny, "options": {
        "nthreads": 1, "host": "127.0.0.1", "silence_logs": logging.ERROR,
        "env": {var: devices[i % len(devices)], "OMP_NUM_THREADS": "1"}}}
        for i in range(workers)}
    return SpecCluster(workers=spec, scheduler={
        "cls": Scheduler, "options": {"host": "127.0.0.1",
                                      "dashboard_address": None}},
        silence_logs=logging.ERROR)


def worker_device():
    """In a worker: the device its environment names."""
    return os.environ.get("AFET_DEVICE") or \
        os.environ.get("CUDA_VISIBLE_DEVICES")


def run(name, extractor, cuts, warm, workers, devices, var, args,
        storage_type):
    from distributed import Client
    path = os.path.join(args.work, name)
    shutil.rmtree(path, ignore_errors=True)
    t = time.perf_counter()
    with cluster(workers, devices, var) as c, Client(c) as client:
        client.wait_for_workers(workers, timeout=300)
        start_s = time.perf_counter() - t
        t = time.perf_counter()
        # start-up in every worker: a few cuts a worker
        warm.compute_and_store_features(
            extractor=extractor, storage_path=path + "-warm",
            num_jobs=workers, executor=client, storage_type=storage_type,
            progress_bar=False)
        warm_s = time.perf_counter() - t
        t = time.perf_counter()
        stored = cuts.compute_and_store_features(
            extractor=extractor, storage_path=path, num_jobs=workers,
            executor=client, storage_type=storage_type, progress_bar=False)
        wall = time.perf_counter() - t
        seen = sorted(set(client.run(worker_device).values()))
    shutil.rmtree(path + "-warm", ignore_errors=True)
    return stored.to_eager(), {
        "run": name, "workers": workers, "devices": seen,
        "wall_s": round(wall, 3), "warmup_s": round(warm_s, 3),
        "cluster_start_s": round(start_s, 3)}


def same(a, b, n):
    """The largest absolute difference of the first n cuts' stored
    matrices (inf: another shape or another set of cuts)."""
    worst = 0.0
    bb = {c.id: c for c in b}
    for cut in list(a)[:n]:
        if cut.id not in bb:
            return float("inf")
        x, y = cut.load_features(), bb[cut.id].load_features()
        if x.shape != y.shape:
            return float("inf")
        worst = max(worst, float(np.max(np.abs(
            x.astype(np.float64) - y.astype(np.float64)))))
    return worst


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--hours", type=float, default=20.0)
    p.add_argument("--corpus", default="/tmp/afet-lhotse-corpus",
                   help="make_corpus.py folders, comma-separated")
    p.add_argument("--short-files", type=int, default=300)
    p.add_argument("--work", default="/tmp/afet-lhotse-gpus")
    p.add_argument("--workers", default="2,4",
                   help="worker counts to run, comma-separated")
    p.add_argument("--gpus", type=int, default=2,
                   help="GPUs of the spread runs")
    p.add_argument("--which", choices=("both", "afet", "lhotse"),
                   default="both")
    p.add_argument("--storage", choices=("lilcom", "numpy"),
                   default="numpy")
    p.add_argument("--compare", type=int, default=50,
                   help="cuts whose stored matrices are compared")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)

    import torch
    torch.set_num_threads(1)
    import lhotse
    from lhotse import Fbank, FbankConfig, LilcomChunkyWriter, \
        NumpyFilesWriter
    from afet.lhotse import AfetFbank, AfetFbankConfig

    files = corpus_files(args.corpus, args.short_files)
    cuts, total, _ = make_cuts(files, args.hours)
    cuts = cuts.to_eager()
    os.makedirs(args.work, exist_ok=True)
    storage_type = (LilcomChunkyWriter if args.storage == "lilcom"
                    else NumpyFilesWriter)
    kinds = []
    if args.which in ("both", "afet"):
        kinds.append(("afet", AfetFbank(AfetFbankConfig(num_filters=80)),
                      "AFET_DEVICE", ["0:%d" % g for g in range(args.gpus)]))
    if args.which in ("both", "lhotse"):
        kinds.append(("lhotse", Fbank(FbankConfig(num_filters=80,
                                                  device="cuda")),
                      "CUDA_VISIBLE_DEVICES",
                      [str(g) for g in range(args.gpus)]))
    res = {"hours": round(total / 3600.0, 4), "cuts": len(cuts),
           "storage": args.storage, "runs": [],
           "versions": {"python": platform.python_version(),
                        "torch": torch.__version__,
                        "lhotse": lhotse.__version__}}
    for workers in [int(w) for w in args.workers.split(",")]:
        warm = cuts.subset(first=min(len(cuts), 4 * workers)).to_eager()
        for kind, extractor, var, devs in kinds:
            first = None
            for label, use in (("1gpu", devs[:1]),
                               ("%dgpu" % len(devs), devs)):
                name = "%s-%dw-%s" % (kind, workers, label)
                stored, r = run(name, extractor, cuts, warm, workers, use,
                                var, args, storage_type)
                r["hours_per_s"] = round(total / 3600.0 / r["wall_s"], 3)
                if first is None:
                    first = stored
                else:
                    r["max_abs_diff_vs_1gpu"] = same(first, stored,
                                                     args.compare)
                res["runs"].append(r)
                print("%-16s %d workers on %-12s %7.2f s (%.2f h/s; start-up "
                      "%.2f s, cluster %.2f s)%s" % (
                          name, workers, ",".join(r["devices"]), r["wall_s"],
                          r["hours_per_s"], r["warmup_s"],
                          r["cluster_start_s"],
                          "" if "max_abs_diff_vs_1gpu" not in r else
                          "; stored vs one GPU: max |diff| %g"
                          % r["max_abs_diff_vs_1gpu"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
