# Running a pipeline that ends in afet's appsink: state changes with a
# deadline, the session that pulls samples and the collector of arrays.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Sessions, collectors and _run_pipeline: one run of a pipeline."""

import threading
import time

import numpy as np

from gi.repository import GLib, Gst

from . import _setup
from ._errors import (Error, NoFramesError, _Abandoned, _describe,
                      _error_from_message, _parse_error)
from ._setup import (FEATURES_MEDIA_TYPE, _CLOCK_NONE, _POLL_NS, _SINK,
                     _STOP_GRACE, _make, init)
from .layout import FeatureInfo
from .results import Features


def _set_state(pipeline, state, deadline):
    """pipeline.set_state(state), waited for until deadline (time.monotonic;
    None: as long as it takes).  A state change can block in the calling
    thread (filesrc opens a FIFO that no process writes to): with a
    deadline it runs in a thread of its own, and when the deadline passes
    first that thread keeps the pipeline, takes it to NULL once the change
    returns, and None is returned."""
    if deadline is None:
        return pipeline.set_state(state)
    lock = threading.Lock()
    result = []
    abandoned = []

    def change():
        ret = pipeline.set_state(state)
        with lock:
            if not abandoned:
                result.append(ret)
                return
        pipeline.set_state(Gst.State.NULL)

    t = threading.Thread(target=change, name="afet-set-state", daemon=True)
    t.start()
    t.join(max(0.0, deadline - time.monotonic()))
    with lock:
        if result:
            return result[0]
        abandoned.append(True)
    return None


class _Session:
    """One run of a built pipeline ending in our appsink: start it, pull
    its samples in order while reading the bus, stop it."""

    def __init__(self, pipeline, sink, track_keys=False, timeout=None,
                 stop_state=Gst.State.NULL):
        self.pipeline = pipeline
        self.stop_state = stop_state
        self.sink = sink
        self.bus = pipeline.get_bus()
        self.warnings = []
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout if timeout else None
        self.drain_deadline = None     # set by Stream.stop: end quietly
        self.abandoned = False         # left to _set_state's thread
        self._keys = []           # (buffers seen before it, key)
        self._key_next = 0
        self._key = None
        self._seen = 0
        self._pulled = 0
        self._probe = None
        if track_keys:
            pad = sink.get_static_pad("sink")
            self._probe = (pad, pad.add_probe(
                Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM,
                self._on_probe))

    # afet-key tags travel as events, which appsink does not queue with
    # the samples: note the buffer count at which each arrives.  Both
    # probes run in the streaming thread in stream order.
    def _on_probe(self, pad, info):
        if info.type & Gst.PadProbeType.BUFFER:
            self._seen += 1
        else:
            ev = info.get_event()
            if ev is not None and ev.type == Gst.EventType.TAG:
                ok, key = ev.parse_tag().get_string("afet-key")
                if ok:
                    self._keys.append((self._seen, key))
        return Gst.PadProbeReturn.OK

    def key_of_next(self):
        """(entry, key): the afet-key of the sample about to be handed out
        and the number of such tags so far (each starts an entry); samples
        come out in the order the probe saw them."""
        while self._key_next < len(self._keys) and \
                self._keys[self._key_next][0] <= self._pulled:
            self._key = self._keys[self._key_next][1]
            self._key_next += 1
        return self._key_next, self._key

    def _check_bus(self):
        while True:
            msg = self.bus.pop_filtered(Gst.MessageType.ERROR |
                                        Gst.MessageType.WARNING)
            if msg is None:
                return
            if msg.type == Gst.MessageType.WARNING:
                w, debug = msg.parse_warning()
                src = msg.src.get_name() if msg.src else None
                self.warnings.append(_describe(w.message, src, debug))
                continue
            others = []
            while True:
                m = self.bus.pop_filtered(Gst.MessageType.ERROR)
                if m is None:
                    break
                e, d = m.parse_error()
                others.append((m.src.get_name() if m.src else None,
                               e.message, d))
            self.stop(failed=True)
            raise _error_from_message(msg, others)

    def start(self):
        _setup._mark_run()
        ret = _set_state(self.pipeline, Gst.State.PLAYING, self.deadline)
        if ret is None:
            self.abandoned = True
            self._remove_probe()
            raise _Abandoned(
                "timed out: the pipeline did not start within the %g s "
                "given (an element blocked in its state change, e.g. "
                "filesrc opening a FIFO that no process writes to)" %
                self.timeout)
        if ret == Gst.StateChangeReturn.FAILURE:
            msg = self.bus.timed_pop_filtered(2 * Gst.SECOND,
                                              Gst.MessageType.ERROR)
            self.stop(failed=True)
            if msg is not None:
                raise _error_from_message(msg)
            raise Error("the pipeline could not be started")

    def samples(self):
        """Yields the samples in order until the appsink is EOS; raises
        afet.Error for an error on the bus."""
        while True:
            self._check_bus()
            if self.drain_deadline is not None and \
                    time.monotonic() > self.drain_deadline:
                return
            sample = self.sink.emit("try-pull-sample", _POLL_NS)
            if sample is not None:
                entry = self.key_of_next()
                self._pulled += 1
                yield sample, entry
                continue
            if self.sink.get_property("eos"):
                self._check_bus()
                return
            if self.deadline is not None and \
                    time.monotonic() > self.deadline:
                # the streaming thread may be blocked too (a read from a
                # pipe): the stop gets a grace, not forever
                if not self.stop(failed=True, deadline=time.monotonic() +
                                 _STOP_GRACE):
                    raise _Abandoned("timed out: no end of stream within "
                                     "the %g s given, and the pipeline did "
                                     "not stop" % self.timeout)
                raise Error("timed out: no end of stream within the %g s "
                            "given" % self.timeout)

    def send_eos(self):
        self.pipeline.send_event(Gst.Event.new_eos())

    def current_info(self):
        """The negotiated stream's info, also when no buffer came."""
        caps = self.sink.get_static_pad("sink").get_current_caps()
        try:
            return FeatureInfo.from_caps(caps) if caps is not None else None
        except Error:
            return None

    def stop(self, failed=False, deadline=None):
        """False when the state change did not end by deadline (the
        pipeline is then left to _set_state's thread)."""
        if self.abandoned:
            return False
        # after a failure everything goes (NULL), the next run builds afresh
        if _set_state(self.pipeline, Gst.State.NULL if failed else
                      self.stop_state, deadline) is None:
            self.abandoned = True
            self._remove_probe()
            return False
        if not failed and self.stop_state != Gst.State.NULL:
            # appsink keeps its end of stream through READY: only NULL
            # starts it afresh (GStreamer 1.22)
            self.sink.set_state(Gst.State.NULL)
        self._remove_probe()
        return True

    def _remove_probe(self):
        if self._probe is not None:
            pad, pid = self._probe
            pad.remove_probe(pid)
            self._probe = None


def _appsink(max_buffers=0):
    sink = _make("appsink", _SINK)
    sink.set_property("caps", Gst.Caps.from_string(FEATURES_MEDIA_TYPE))
    sink.set_property("sync", False)
    sink.set_property("emit-signals", False)
    sink.set_property("enable-last-sample", False)
    sink.set_property("max-buffers", max_buffers)
    return sink


def _sink_desc():
    return ("appsink name=%s caps=%s sync=false emit-signals=false "
            "enable-last-sample=false" % (_SINK, FEATURES_MEDIA_TYPE))


class _Collector:
    """Turns samples into arrays, one info per run; the frames of runs with
    the same key and layout are concatenated."""

    def __init__(self):
        self.runs = []            # [key, info, [arrays], [times]]
        self._caps = None
        self._info = None

    def info_of(self, sample):
        caps = sample.get_caps()
        if caps is None:
            raise Error("a buffer came without caps")
        if self._caps is None or not caps.is_equal(self._caps):
            self._info = FeatureInfo.from_caps(caps)
            self._caps = caps
        return self._info

    def frames_of(self, sample):
        """(info, frames array, times array, discont) of one sample."""
        info = self.info_of(sample)
        buf = sample.get_buffer()
        size = buf.get_size()
        if size % info.frame_bytes:
            raise Error("a buffer of %d bytes is not a whole number of "
                        "%d-byte frames" % (size, info.frame_bytes))
        data = np.frombuffer(buf.extract_dup(0, size), dtype="<f4").reshape(
            -1, info.dims)
        if data.dtype != np.float32:             # a big-endian host
            data = data.astype(np.float32)
        t0 = buf.pts / Gst.SECOND if buf.pts != _CLOCK_NONE else None
        n = len(data)
        times = np.arange(n) * info.frame_period
        return info, data, times, t0, buf.has_flags(Gst.BufferFlags.DISCONT)

    def add(self, sample, entry):
        """Adds a sample; entry is (entry number, key) from the session."""
        info, data, times, t0, _ = self.frames_of(sample)
        if self.runs and self.runs[-1][5] == entry and \
                self.runs[-1][1] == info:
            run = self.runs[-1]
        else:
            if self.runs and self.runs[-1][5] == entry:
                raise Error("the stream's layout changed: %r, then %r" %
                            (self.runs[-1][1], info))
            run = [entry[1], info, [], [], 0, entry]
            self.runs.append(run)
        if t0 is None:           # no timestamps: count from the run's start
            t0 = run[4] * info.frame_period
        run[2].append(data)
        run[3].append(t0 + times)
        run[4] += len(data)

    def results(self, warnings=()):
        out = []
        for key, info, arrays, times, _, _ in self.runs:
            data = np.concatenate(arrays) if len(arrays) != 1 else \
                arrays[0].copy()
            out.append(Features(data, info, np.concatenate(times), key,
                                warnings))
        return out


def _one(results, what, allow_empty, info=None):
    if not results:
        if allow_empty and info is not None:
            return Features(np.zeros((0, info.dims), np.float32), info)
        raise NoFramesError("%s produced no frames" % what)
    if len(results) > 1:
        keys = [r.key for r in results]
        raise Error("%s holds %d entries (%s): use afet.read_archive()" %
                    (what, len(results), ", ".join(map(str, keys[:5]))))
    return results[0]


def _run_pipeline(pipeline, sink, what, track_keys=False, timeout=None,
                  stop_state=Gst.State.NULL, feed=None):
    """Runs the pipeline to its end; feed(), if given, is called once it
    started (an appsrc takes buffers only then)."""
    session = _Session(pipeline, sink, track_keys, timeout, stop_state)
    collector = _Collector()
    session.start()
    try:
        if feed is not None:
            feed()
        for sample, entry in session.samples():
            collector.add(sample, entry)
        info = collector._info or session.current_info()
    finally:
        session.stop()
    return collector.results(session.warnings), info


def _parse(description, shown):
    """Builds a pipeline; `shown` is what errors quote (the user's part)."""
    init()
    try:
        pipeline = Gst.parse_launch(description)
    except GLib.Error as e:
        raise _parse_error(e, shown) from None
    if not isinstance(pipeline, Gst.Pipeline):    # a single element
        p = Gst.Pipeline.new(None)
        p.add(pipeline)
        pipeline = p
    sink = pipeline.get_by_name(_SINK)
    if sink is None:
        raise Error("the pipeline has no appsink named %s" % _SINK)
    return pipeline, sink
