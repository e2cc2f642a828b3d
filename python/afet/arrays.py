# In-memory audio for afet.extract and afet.Extractor: NumPy arrays
# checked, then fed through appsrc into the file chain's front.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""NumPy arrays in: the checks an array passes, its caps and buffer, and
the appsrc pipeline (a lane) that takes it where a file's decodebin would
give the same samples, one array a run, many back to back, or one call
after another in a run kept going (KeptRun)."""

import collections
import os
import threading

import numpy as np

from gi.repository import Gst

from ._errors import Error
from ._setup import _make

# sample formats the afet elements take as they are (audioconvert passes
# them through): int16 as it is, floats at full scale +-1
_FORMATS = {("i", 2): ("S16LE", "<i2"), ("f", 4): ("F32LE", "<f4"),
            ("f", 8): ("F64LE", "<f8")}
# float samples beyond this are int16-scale audio stored as float (a
# common slip: x.astype(np.float32) without / 32768), which would give
# features of audio 90 dB too loud
_FLOAT_LIMIT = 32.0
_APPSRC = "afet_appsrc"


def is_array(source):
    """True for what extract() takes as audio samples rather than a path."""
    return isinstance(source, np.ndarray)


def check_source(source):
    """Refuses what is neither a path nor a NumPy array, naming the fix."""
    if is_array(source) or isinstance(source, (str, bytes, os.PathLike)):
        return
    raise Error("afet takes a file path or a 1-D NumPy array of samples, "
                "not %s: convert it with numpy.asarray(x) (a torch tensor: "
                "x.numpy())" % type(source).__name__)


class ArrayInput:
    """One checked array: its samples as little-endian bytes, its caps and
    its length, ready for appsrc."""

    __slots__ = ("data", "caps", "samples", "rate", "format")

    def __init__(self, array, rate, what="the array"):
        self.rate = check_rate(rate, what)
        a = array
        if a.ndim != 1:
            if a.ndim == 0:
                raise Error("%s is a 0-d array (a single number): give a "
                            "1-D array of samples" % what)
            raise Error("%s has shape %s: afet takes mono audio as a 1-D "
                        "array of samples; take one channel (x[:, 0] for "
                        "(samples, channels), x[0] for (channels, samples)), "
                        "mix them (x.mean(axis=...)) or, for one channel, "
                        "x.reshape(-1)" % (what, a.shape))
        fmt = _FORMATS.get((a.dtype.kind, a.dtype.itemsize))
        if fmt is None:
            raise Error("%s has dtype %s: afet takes int16 samples, or "
                        "float32/float64 in [-1, 1); convert it, e.g. "
                        "(x / 2**31).astype(np.float32) for int32 or "
                        "x.astype(np.float32) for other floats" %
                        (what, a.dtype))
        if len(a) == 0:
            raise Error("%s is empty (0 samples): there is nothing to "
                        "extract" % what)
        if a.dtype.kind == "f":
            # one pass: the peak is NaN or infinite when a sample is
            peak = float(np.max(np.abs(a)))
            if not np.isfinite(peak):
                bad = np.flatnonzero(~np.isfinite(a))
                raise Error("%s holds %d NaN or infinite samples (the first "
                            "at index %d, %g s): clean them first, e.g. "
                            "np.nan_to_num(x, nan=0.0, posinf=0.0, "
                            "neginf=0.0)" % (what, len(bad), bad[0],
                                             bad[0] / self.rate))
            if peak > _FLOAT_LIMIT:
                raise Error("%s holds float samples up to %g, far beyond "
                            "full scale (+-1): int16-scale audio stored as "
                            "float? Divide by 32768 (or give the int16 "
                            "array as it is)" % (what, peak))
        self.format = fmt[0]
        # little-endian and contiguous, as bytes: Gst.Buffer.new_wrapped
        # copies bytes with one memcpy, but reads any other buffer (a
        # memoryview of the array) item by item, 10x the whole extraction
        self.data = np.ascontiguousarray(a, dtype=fmt[1]).tobytes()
        self.samples = len(a)
        self.caps = Gst.Caps.from_string(
            "audio/x-raw,format=%s,layout=interleaved,channels=1,rate=%d" %
            (fmt[0], self.rate))


def check_rate(rate, what="the array"):
    """The array's sampling rate as an int, or an Error naming the fix."""
    if rate is None:
        raise Error("rate= is missing: an array needs its own sampling "
                    "rate, e.g. afet.extract(samples, rate=16000)")
    if isinstance(rate, bool) or not isinstance(rate, (int, float,
                                                       np.integer,
                                                       np.floating)):
        raise Error("rate=%r for %s: give the sampling rate in Hz as a "
                    "number, e.g. rate=16000" % (rate, what))
    if rate != int(rate) or not 1 <= rate <= 2**31 - 1:
        raise Error("rate=%r for %s: give the sampling rate in Hz as a "
                    "positive whole number, e.g. rate=16000" % (rate, what))
    return int(rate)


class Lane:
    """A pipeline whose source is an appsrc, kept from array to array:
    appsrc ! audioconvert ! audioresample ! capsfilter ! CHAIN ! appsink.
    ``pipeline`` None: left to a thread blocked in a state change, built
    again on next use."""

    __slots__ = ("pipeline", "src", "sink", "conv", "failed", "parser",
                 "kept", "unkept")

    def __init__(self, pipeline, src, sink, conv):
        self.pipeline, self.src, self.sink, self.conv = (pipeline, src,
                                                         sink, conv)
        self.failed = False
        self.parser = None      # its caps parsed, kept from call to call
        self.kept = None        # KeptRun: the run extract() keeps going
        self.unkept = set()     # appsrc caps that fell back: a run each

    def renew_src(self):
        """A new appsrc in place of one whose run failed: appsrc 1.22
        keeps the caps of a run that failed to negotiate and sends them
        again before the next run's, so one refused rate would fail every
        later array (test: Kept.test_pipelines_reused)."""
        old = self.src
        old.unlink(self.conv)
        old.set_state(Gst.State.NULL)
        self.pipeline.remove(old)
        src = make_appsrc()
        self.pipeline.add(src)
        if not src.link(self.conv):
            raise Error("could not link the appsrc to audioconvert")
        self.src = src
        self.failed = False


# the custom downstream event after which afet's elements end an utterance
# and go on (AFET_FEATURES_DRAIN_EVENT in afetfeatures.h)
DRAIN_EVENT = "afet-drain"


class KeptRun:
    """A lane's run kept PLAYING from one extract() call to the next, for
    a chain whose every element ends an utterance at afet's drain event:
    each array goes in as a DISCONT buffer followed by the event (appsrc
    queues both in order) and is whole when the event reaches the appsink,
    where a probe notes how many buffers came before it.  No state change
    and no negotiation a call; the frames are those of a run of their own,
    bit for bit (the same path as a DISCONT)."""

    __slots__ = ("caps", "session", "next_pts", "sent", "pulled", "drains",
                 "first", "seen", "cond", "probe", "checked")

    # a run this long in stream time (about 36 years, arrays 60 s apart)
    # starts again rather than come near the clock's end
    MAX_PTS = 1 << 60

    def __init__(self, sink, caps):
        self.caps = caps          # the appsrc's caps, as a string
        self.session = None       # _running._Session, once started
        self.next_pts = 0         # where the next array starts
        self.sent = 0             # arrays pushed
        self.pulled = 0           # samples pulled
        self.drains = collections.deque()  # buffers seen before each
        self.first = 0            # drain not yet consumed: drains[0]'s index
        self.seen = 0
        self.checked = False      # the audio front seen passing through
        self.cond = threading.Condition()
        pad = sink.get_static_pad("sink")
        self.probe = (pad, pad.add_probe(
            Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM,
            self._on_probe))

    def _on_probe(self, pad, info):
        # the streaming thread, in stream order
        if info.type & Gst.PadProbeType.BUFFER:
            with self.cond:
                self.seen += 1
                self.cond.notify()
        else:
            ev = info.get_event()
            if ev is not None and ev.type == \
                    Gst.EventType.CUSTOM_DOWNSTREAM and \
                    ev.has_name(DRAIN_EVENT):
                with self.cond:
                    self.drains.append(self.seen)
                    self.cond.notify()
        return Gst.PadProbeReturn.OK

    def wait(self, index, timeout):
        """Waits up to timeout seconds for a buffer not pulled yet or the
        index-th array's drain event; returns (a buffer is there or
        coming, the buffers before that drain or None)."""
        with self.cond:
            i = index - self.first
            if self.seen <= self.pulled and i >= len(self.drains):
                self.cond.wait(timeout)
            return (self.seen > self.pulled, self.drains[i]
                    if i < len(self.drains) else None)

    def consumed(self, index):
        """The index-th array is done: its drain is forgotten (a kept run
        may take millions of arrays)."""
        with self.cond:
            while self.drains and self.first <= index:
                self.drains.popleft()
                self.first += 1

    def remove_probe(self):
        if self.probe is not None:
            pad, pid = self.probe
            pad.remove_probe(pid)
            self.probe = None

    def feed(self, src, item):
        """Pushes item as a DISCONT buffer at this run's next start, then
        the drain event; returns (its index, its start in ns, whether
        appsrc took both)."""
        start = self.next_pts
        d = _time_of(item.samples, item.rate)
        index = self.sent
        # counted before the push: an exception between the buffer and
        # its drain must not leave the next array this one's start
        self.sent += 1
        self.next_pts = start + d + _GAP
        flow = src.emit("push-buffer", _run_buffer(item, start, d))
        ok = flow == Gst.FlowReturn.OK and src.send_event(
            Gst.Event.new_custom(Gst.EventType.CUSTOM_DOWNSTREAM,
                                 Gst.Structure.new_empty(DRAIN_EVENT)))
        return index, start, ok


def make_appsrc():
    src = _make("appsrc", _APPSRC)
    src.set_property("format", Gst.Format.TIME)
    src.set_property("is-live", False)
    src.set_property("emit-signals", False)
    src.set_property("max-bytes", 0)       # the array goes in one push
    return src


def prepare(src, item):
    """Sets the appsrc's caps and length for item, in READY."""
    src.set_property("caps", item.caps)
    src.set_property("size", len(item.data))
    src.set_property("duration", _time_of(item.samples, item.rate))


def feed(src, item):
    """Pushes item's samples as one buffer from time 0 (as a decoded file
    starts), then end-of-stream.  A refused push (the pipeline failed
    already) is left to the bus's error."""
    buf = Gst.Buffer.new_wrapped(item.data)
    buf.pts = 0
    buf.dts = 0
    buf.duration = _time_of(item.samples, item.rate)
    buf.offset = 0
    buf.offset_end = item.samples
    src.emit("push-buffer", buf)
    src.emit("end-of-stream")


# arrays fed back to back through one run of a lane start this far apart
# beyond their own length: every frame of an array (its last window
# padded, afetpitch's 10 ms frames) is timestamped before the next
# array's start, so an output buffer's timestamp names its array
_GAP = 60 * Gst.SECOND


def _run_buffer(item, start, duration):
    """item's samples as a DISCONT buffer at start (ns): a run of its own
    from its first sample, as from a file's."""
    buf = Gst.Buffer.new_wrapped(item.data)
    buf.pts = start
    buf.dts = start
    buf.duration = duration
    buf.offset = 0
    buf.offset_end = item.samples
    buf.set_flags(Gst.BufferFlags.DISCONT)
    return buf


def feed_all(src, items):
    """Pushes the items (of one format) back to back, each its own run:
    a DISCONT buffer at a start of its own (the elements end the run
    before as at end-of-stream, and count the new one from its first
    sample as from a file's), then end-of-stream.  Returns the starts
    (ns), increasing, in the items' order."""
    starts = []
    t = 0
    for item in items:
        d = _time_of(item.samples, item.rate)
        starts.append(t)
        src.emit("push-buffer", _run_buffer(item, t, d))
        t += d + _GAP
    src.emit("end-of-stream")
    return starts


def _time_of(samples, rate):
    return Gst.util_uint64_scale_int(samples, Gst.SECOND, rate)
