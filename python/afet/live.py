# Live feature streams: afet.stream and afet.Stream, block by block as
# the buffers arrive.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet.stream() and afet.Stream: feature blocks as they arrive."""

import time

from gi.repository import Gst

from ._errors import Error
from ._running import _Collector, _Session, _parse, _sink_desc
from .files import _Closing
from .results import Block


class Stream(_Closing):
    """A live (or any) feature stream, iterated block by block as the
    buffers arrive::

        with afet.stream("autoaudiosrc", pipeline="afetmfcc") as s:
            for block in s:          # afet.Block: .data, .times, .info
                ...
                if done:
                    s.stop()         # drains: the frames still in the
                                     # pipeline come, then the loop ends

    Leaving the loop (``break``, an exception) or :meth:`close` stops the
    pipeline at once.  :meth:`stop` may be called from another thread.
    ``info`` is the stream's :class:`FeatureInfo` once the first block
    came.
    """

    def __init__(self, source, pipeline="afetmfcc", rate=None,
                 max_buffers=0, convert=True, timeout=None,
                 drain_timeout=5.0):
        if convert and pipeline:
            caps = "audio/x-raw,channels=1" + (
                ",rate=%d" % rate if rate else "")
            front = "%s ! audioconvert ! audioresample ! %s" % (source,
                                                                caps)
        else:
            front = source
        desc = "%s ! %s" % (front, pipeline) if pipeline else front
        self.description = desc
        self._pipeline, self._sink = _parse("%s ! %s" % (desc,
                                                         _sink_desc()), desc)
        self._sink.set_property("max-buffers", max_buffers)
        self._timeout = timeout
        self._drain_timeout = drain_timeout
        self._stopping = None
        self._session = None
        self._closed = False
        self.info = None
        self.frames = 0

    @property
    def pipeline(self):
        """The Gst.Pipeline (e.g. to set properties of its elements)."""
        return self._pipeline

    def __iter__(self):
        if self._session is not None or self._closed:
            raise Error("a Stream can be iterated once")
        self._session = _Session(self._pipeline, self._sink,
                                 track_keys=True, timeout=self._timeout)
        collector = _Collector()
        self._session.start()
        if self._stopping is not None:      # stop() came before the start
            self._stopping = None
            self.stop()
        try:
            for sample, (_, key) in self._session.samples():
                info, data, times, t0, discont = collector.frames_of(sample)
                self.info = info
                if t0 is None:
                    t0 = self.frames * info.frame_period
                block = Block(data.copy(), info, t0 + times, key,
                              self.frames, discont)
                self.frames += len(data)
                yield block
        finally:
            self.close()

    def stop(self):
        """Ends the stream: the source is sent end-of-stream, the blocks
        still on their way are delivered, then iteration ends (or, after
        ``drain_timeout`` seconds, it ends anyway)."""
        if self._stopping is None:
            self._stopping = time.monotonic()
            if self._session is not None:
                self._session.drain_deadline = self._stopping + \
                    self._drain_timeout
            self._pipeline.send_event(Gst.Event.new_eos())

    def close(self):
        """Stops the pipeline now (NULL state), dropping what is in it."""
        if not self._closed:
            self._closed = True
            if self._session is not None:
                self._session.stop()
            else:
                self._pipeline.set_state(Gst.State.NULL)

    @property
    def warnings(self):
        return self._session.warnings if self._session else []


def stream(source="autoaudiosrc", pipeline="afetmfcc", rate=None,
           max_buffers=0, convert=True, timeout=None, drain_timeout=5.0):
    """A :class:`Stream` of feature blocks from ``source`` (a description:
    ``"autoaudiosrc"``, ``"pulsesrc device=..."``, ``"audiotestsrc
    is-live=true"``), converted to mono (``rate``: resampled) and put
    through ``pipeline``.  ``convert=False`` leaves out the
    audioconvert/audioresample front (a source that already gives what the
    pipeline takes); ``pipeline=None`` takes the source's output as it is
    (a source that gives features).  ``max_buffers`` > 0 bounds the blocks
    queued for a slow reader: the pipeline then waits for the reader (a
    live audio source drops what it cannot deliver).  ``timeout`` bounds
    the whole run in seconds."""
    return Stream(source, pipeline, rate=rate, max_buffers=max_buffers,
                  convert=convert, timeout=timeout,
                  drain_timeout=drain_timeout)
