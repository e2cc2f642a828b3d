# The arrays a run gives: afet.Features (a whole run) and afet.Block (one
# buffer of a stream).
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet.Features and afet.Block: frames as NumPy arrays with their
layout and times."""

import numpy as np


class Features:
    """Frames of one run: ``data`` (float32 ndarray, frames x dims),
    ``info`` (:class:`FeatureInfo`), ``times`` (float64 ndarray: the start
    of each frame's window in seconds, from the buffers' timestamps),
    ``key`` (the ``afet-key`` tag: a Kaldi archive entry's name, else None)
    and ``warnings`` (warning messages from the bus).

    It converts to an array (``np.asarray(feats)``), and ``len()``,
    ``shape`` and indexing work on ``data``.
    """

    __slots__ = ("data", "info", "times", "key", "warnings")

    def __init__(self, data, info, times=None, key=None, warnings=()):
        self.data = data
        self.info = info
        if times is None:
            times = np.arange(len(data)) * info.frame_period
        self.times = times
        self.key = key
        self.warnings = list(warnings)

    def __array__(self, dtype=None, copy=None):
        if dtype is None:
            return self.data
        return self.data.astype(dtype)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.data[index]

    @property
    def shape(self):
        return self.data.shape

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def statics(self):
        """The static columns (a view)."""
        return self.data[:, self.info.block(0)]

    def block(self, k):
        """Dynamic block k (0 statics, 1 deltas, 2 accelerations, ...), a
        view of ``data``."""
        return self.data[:, self.info.block(k)]

    @property
    def duration(self):
        """Seconds from the first frame's start to the last frame's end."""
        if len(self.data) == 0:
            return 0.0
        return float(self.times[-1] - self.times[0]) + \
            self.info.window_seconds

    def __repr__(self):
        return "<afet.Features %s %dx%d%s>" % (
            self.info.htk_name(), self.data.shape[0], self.data.shape[1],
            " key=%r" % self.key if self.key else "")


class Block(Features):
    """The frames of one buffer of a stream: :class:`Features` plus
    ``index`` (the number of frames of the stream before this block) and
    ``discont`` (the buffer starts a new run: the first one, or after a
    gap)."""

    __slots__ = ("index", "discont")

    def __init__(self, data, info, times, key=None, index=0, discont=False):
        super().__init__(data, info, times, key)
        self.index = index
        self.discont = discont

    @property
    def pts(self):
        """The first frame's time in seconds (the buffer's PTS)."""
        return float(self.times[0]) if len(self.times) else None

    def __repr__(self):
        return "<afet.Block %d frames from %d at %.3f s%s>" % (
            len(self.data), self.index, self.pts or 0.0,
            " discont" if self.discont else "")
