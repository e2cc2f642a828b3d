#!/usr/bin/python3
# Tests of afet.lhotse across processes: lhotse's compute_and_store_features
# on a Dask LocalCluster of worker processes and on its own process pool.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet.lhotse's extractors in lhotse's parallel feature extraction.

  test_lhotse_dask.py [EXAMPLE_WAV] [-v]

CutSet.compute_and_store_features(extractor=AfetFbank(...), num_jobs=2,
executor=distributed.Client(LocalCluster(processes=True, n_workers=2)))
stores, for every cut, the bytes one local run (num_jobs=1) stores, with
the same manifest fields; each of the two worker processes ran afet
itself (its own device context: the extractor travels as its config, the
pipelines are built in the worker); lhotse's own pool of spawned
processes (num_jobs=2, no executor) gives the same bytes too. The cluster
listens on the loopback only.

Needs lhotse, torch, dask and distributed (see test_lhotse.py: the venv
of tools/install-deps.sh); exits 77 without them, or fails when CI is
set. AFET_TEST_DEVICE picks afet's device.
"""

import logging
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from lhotse_env import need_lhotse  # noqa: E402

need_lhotse(__file__, dask=True)

# the worker processes import afet.lhotse to unpickle the extractor
os.environ["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(TOP, "python")] +
    [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
sys.path.insert(0, os.path.join(TOP, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from lhotse import CutSet, NumpyFilesWriter  # noqa: E402

from afet.lhotse import AfetFbank, AfetFbankConfig  # noqa: E402
from test_lhotse import DEVICE, cutset  # noqa: E402


def worker_state():
    """In a worker: its pid and whether afet ran pipelines there."""
    import afet._setup
    return os.getpid(), afet._setup._ran


def stored(cuts):
    """cut id -> (the manifest's numbers, the stored matrix's bytes)."""
    out = {}
    for cut in cuts:
        f = cut.features
        m = cut.load_features()
        out[cut.id] = ((f.start, f.duration, f.num_frames, f.num_features,
                        f.frame_shift, f.sampling_rate, f.type),
                       m.dtype.str, m.shape, m.tobytes())
    return out


class Parallel(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.extractor = AfetFbank(AfetFbankConfig(device=DEVICE))
        cls.cuts = cutset()
        cls.local = stored(cls.cuts.compute_and_store_features(
            extractor=cls.extractor,
            storage_path=os.path.join(cls.tmp.name, "local"),
            storage_type=NumpyFilesWriter, num_jobs=1, progress_bar=False))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_same(self, cuts):
        got = stored(cuts)
        self.assertEqual(sorted(got), sorted(self.local))
        for cid in self.local:
            self.assertEqual(got[cid], self.local[cid], cid)

    def test_dask_local_cluster(self):
        with LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                          host="127.0.0.1", dashboard_address=None,
                          silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            client.wait_for_workers(2, timeout=120)
            cuts = self.cuts.compute_and_store_features(
                extractor=self.extractor,
                storage_path=os.path.join(self.tmp.name, "dask"),
                storage_type=NumpyFilesWriter, num_jobs=2, executor=client,
                progress_bar=False)
            states = client.run(worker_state)
        # two worker processes, neither this one, each ran afet itself
        pids = {pid for pid, _ in states.values()}
        self.assertEqual(len(pids), 2)
        self.assertNotIn(os.getpid(), pids)
        self.assertEqual([ran for _, ran in states.values()], [True, True],
                         states)
        self.assertEqual(len(cuts), len(self.local))
        self.check_same(cuts)

    def test_lhotse_process_pool(self):
        # lhotse's own executor: spawned processes (num_jobs=2)
        cuts = self.cuts.compute_and_store_features(
            extractor=self.extractor,
            storage_path=os.path.join(self.tmp.name, "pool"),
            storage_type=NumpyFilesWriter, num_jobs=2, progress_bar=False)
        self.check_same(cuts)


if __name__ == "__main__":
    torch.set_num_threads(1)
    argv = [sys.argv[0]] + [a for a in sys.argv[1:] if a.startswith("-")]
    result = unittest.main(argv=argv, exit=False,
                           verbosity=2 if "-v" in argv else 1).result
    sys.exit(0 if result.wasSuccessful() else 1)
