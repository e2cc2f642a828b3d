# Features of audio files and arrays and of feature files: afet.extract,
# extract_batch, Extractor, run, read and read_archive.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files and arrays in, afet.Features out: extract, extract_batch,
Extractor, run, read, read_archive, file_pipeline."""

import bisect
import os
import stat
import struct
import threading

import numpy as np

from gi.repository import GLib, GObject, Gst

from . import arrays
from ._errors import Error, NoFramesError, _Abandoned, _parse_error
from ._running import (_appsink, _Collector, _one, _parse, _run_pipeline,
                       _Session, _sink_desc)
from ._setup import (FEATURES_MEDIA_TYPE, _CLOCK_NONE, _POLL_NS, _SRC,
                     _make, init)
from .results import Features


def file_pipeline(pipeline="afetmfcc", rate=None, location="IN"):
    """The gst-launch-1.0 description that :func:`extract` runs (with the
    appsink as the last element), e.g. to reproduce a result on the command
    line."""
    caps = "audio/x-raw,channels=1" + (",rate=%d" % rate if rate else "")
    return ('filesrc location="%s" ! decodebin ! audioconvert ! '
            'audioresample ! %s ! %s ! %s' % (location, caps, pipeline,
                                              _sink_desc()))


class _Closing:
    """A context manager whose exit, and whose collection, call close()."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _check_regular(path):
    """Refuses what is not a regular file: filesrc would block opening a
    FIFO until a writer comes, and read a device without end."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return          # missing or unreadable: filesrc's error says so
    if stat.S_ISREG(mode):
        return
    what = ("a directory" if stat.S_ISDIR(mode) else
            "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
            "a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise Error("%s is %s: afet.extract() and Extractor read regular files "
                "(a pipe or a device would block or never end); for live "
                "data use afet.stream() with a source, e.g. "
                "afet.stream('filesrc location=%s ! decodebin', timeout=...)"
                % (path, what, path), source=_SRC)


def _check_wav_length(path):
    """Refuses a WAV file shorter than its header says (a copy cut short,
    a recorder killed before it closed the file): decodebin would read
    what is there and say nothing.  A data chunk of length 0xFFFFFFFF (a
    writer that could not seek back: "to the end") is not truncation."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(12)
            if len(head) < 12 or head[:4] != b"RIFF" or head[8:] != b"WAVE":
                return
            at, per_s = 12, 0
            while at + 8 <= size:
                f.seek(at)
                chunk = f.read(8)
                if len(chunk) < 8:
                    return
                n = struct.unpack("<I", chunk[4:])[0]
                if chunk[:4] == b"fmt ":
                    fmt = f.read(16)
                    if len(fmt) == 16:
                        rate, align = struct.unpack("<I", fmt[4:8])[0], \
                            struct.unpack("<H", fmt[12:14])[0]
                        per_s = rate * align
                elif chunk[:4] == b"data":
                    held = size - (at + 8)
                    if n == 0xFFFFFFFF or n <= held:
                        return
                    amount = ((lambda b: "%.3f s" % (b / per_s)) if per_s
                              else (lambda b: "%d bytes" % b))
                    raise Error(
                        "%s is a truncated WAV file: its header gives %s of "
                        "audio, the file holds %s (%d of %d bytes); copy it "
                        "again, or read what it holds as an array (e.g. "
                        "soundfile.read) and pass that" % (
                            path, amount(n), amount(held), held, n),
                        source=_SRC)
                at += 8 + n + (n & 1)
    except OSError:
        return          # filesrc's error says what is wrong


def _link_audio(dec, pad, conv):
    """decodebin's pad-added: links the audio pad to audioconvert.  A
    plain function given the element, not a bound method: a handler that
    holds the Extractor keeps it, its pipeline and the bus's two fds alive
    for ever (the cycle runs through the GObject side, where Python's
    collector cannot see it)."""
    sinkpad = conv.get_static_pad("sink")
    if sinkpad.is_linked():
        return
    caps = pad.get_current_caps() or pad.query_caps(None)
    if caps is not None and caps.get_size() and \
            not caps.get_structure(0).get_name().startswith("audio/"):
        return
    pad.link(sinkpad)


class Extractor(_Closing):
    """Extracts features from audio files and NumPy arrays with pipelines
    built once and reused from call to call (afet-extract's way).  Files
    go through::

        filesrc ! decodebin ! audioconvert ! audioresample !
            audio/x-raw,channels=1[,rate=R] ! PIPELINE ! appsink

    and arrays through the same chain with an ``appsrc`` (caps of the
    array's format and rate) in place of ``filesrc ! decodebin``; a batch
    runs up to ``streams`` such array pipelines at once.

    ``ex = Extractor("afetmfcc ! afetdelta"); feats = ex("a.wav")``,
    ``ex(samples, rate=16000)``, ``ex.extract_batch(list_of_arrays,
    16000)``.  ``rate`` given here resamples files and arrays to it;
    ``rate=`` of :meth:`extract` is an array's own sampling rate.  Calls
    return :class:`Features`; they raise :class:`Error` for a file or an
    array that fails (the next call starts afresh).  Calls from several
    threads are safe and take turns (a lock): for files in parallel, make
    one per thread or worker process, or give arrays to
    :meth:`extract_batch`.  :meth:`close` (or leaving a ``with`` block,
    or dropping the last reference) frees the pipelines.
    """

    def __init__(self, pipeline="afetmfcc", rate=None, timeout=None,
                 streams=8):
        init()
        self.description = pipeline
        self.rate = rate
        self.timeout = timeout
        if isinstance(streams, bool) or not isinstance(streams, int) or \
                streams < 1:
            raise Error("streams=%r: give the number of arrays computed at "
                        "once as a whole number >= 1" % (streams,))
        self.streams = streams
        self._lock = threading.Lock()
        self._closed = False
        self._pipeline = None
        self._lanes = []          # array pipelines (arrays.Lane), kept
        self._builds = 0          # pipelines built so far (tests: reuse)
        self._back_to_back = None  # _ends_runs_at_discont of the chain
        self._keeps_runs = None   # _ends_utterances_at_drain of the chain
        self._build()

    def _tail(self, p):
        """Adds audioconvert ! audioresample ! capsfilter ! PIPELINE !
        appsink to p, linked; returns (audioconvert, appsink)."""
        pipeline = self.description
        try:
            chain = Gst.parse_bin_from_description(pipeline, True)
        except GLib.Error as e:
            raise _parse_error(e, pipeline) from None
        if self._back_to_back is None:
            self._back_to_back = _ends_runs_at_discont(chain)
            self._keeps_runs = self._back_to_back and \
                _ends_utterances_at_drain(chain)
        conv = _make("audioconvert")
        res = _make("audioresample")
        cf = _make("capsfilter")
        cf.set_property("caps", Gst.Caps.from_string(
            "audio/x-raw,channels=1" + (",rate=%d" % self.rate
                                        if self.rate else "")))
        sink = _appsink()
        for e in (conv, res, cf, chain, sink):
            p.add(e)
        if not (conv.link(res) and res.link(cf)):
            raise Error("could not link the audio front")
        if not cf.link(chain):
            raise Error("'%s' does not take audio" % pipeline)
        if not chain.link(sink):
            raise Error("'%s' does not end in a feature stream (%s): "
                        "its last element cannot link to the appsink" %
                        (pipeline, FEATURES_MEDIA_TYPE))
        self._builds += 1
        return conv, sink

    def _build(self):
        p = Gst.Pipeline.new("afet-extractor")
        src = _make("filesrc", _SRC)
        dec = _make("decodebin")
        p.add(src)
        p.add(dec)
        if not src.link(dec):
            raise Error("could not link the audio front")
        conv, sink = self._tail(p)
        dec.connect("pad-added", _link_audio, conv)
        self._pipeline, self._src, self._sink = p, src, sink

    def _build_lane(self, lane=None):
        p = Gst.Pipeline.new("afet-extractor-array")
        src = arrays.make_appsrc()
        p.add(src)
        conv, sink = self._tail(p)
        if not src.link(conv):
            raise Error("could not link the appsrc to audioconvert")
        if lane is None:
            return arrays.Lane(p, src, sink, conv)
        lane.pipeline, lane.src, lane.sink, lane.conv = p, src, sink, conv
        lane.failed = False
        return lane

    def _check_open(self):
        if self._closed:
            raise Error("the Extractor is closed")

    def __call__(self, source, rate=None, allow_empty=False):
        """The same as :meth:`extract`."""
        return self.extract(source, rate=rate, allow_empty=allow_empty)

    def extract(self, source, rate=None, allow_empty=False):
        """Features of ``source``: a path (``rate`` None or the
        Extractor's own) or a 1-D NumPy array of samples at ``rate`` Hz
        (int16 as it is; float32 or float64 at full scale +-1), mono.
        Returns :class:`Features`."""
        arrays.check_source(source)
        if arrays.is_array(source):
            item = arrays.ArrayInput(source, rate)
            with self._lock:
                self._check_open()
                lane = self._lanes_for(1)[0]
                if self._keeps_runs and self.timeout is None and \
                        (self.rate is None or self.rate == item.rate):
                    got = self._run_kept(lane, item, allow_empty,
                                         "the array")
                    if got is not None:
                        return got
                return self._run_array(lane, item, allow_empty,
                                       "the array")
        if rate is not None and rate != self.rate:
            raise Error("rate=%r with a file: rate= of extract() is an "
                        "array's own sampling rate; a file's rate is read "
                        "from it, and Extractor(rate=...) resamples" %
                        (rate,))
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        _check_regular(path)
        _check_wav_length(path)
        # two threads on one pipeline got each other's frames: one call at
        # a time
        with self._lock:
            self._check_open()
            if self._pipeline is None:      # left to a blocked thread
                self._build()
            # READY between files: the elements keep their device work
            # (queue, kernels, buffers) for the next file of the same format
            self._pipeline.set_state(Gst.State.READY)
            _drain_bus(self._pipeline)
            self._src.set_property("location", path)
            try:
                results, info = _run_pipeline(
                    self._pipeline, self._sink, path, timeout=self.timeout,
                    stop_state=Gst.State.READY)
            except _Abandoned:
                # a thread still blocks in its state change: the next call
                # builds a new pipeline
                self._pipeline = self._src = self._sink = None
                raise
        return _one(results, path, allow_empty, info)

    def extract_batch(self, arrays_in, rate, allow_empty=False):
        """Features of each array of the list (1-D, at ``rate`` Hz, of any
        lengths), computed ``streams`` at a time, concurrently; returns a
        list of :class:`Features` in the input's order, each what
        :meth:`extract` gives for that array alone.  Every array is
        checked before any runs; if some fail, the others still run and
        the first failure (in input order) is raised, its message naming
        the array (``arrays[3] of 10: ...``, also as ``.index``)."""
        arrays.check_rate(rate, "the batch")
        if arrays.is_array(arrays_in) and arrays_in.dtype != object and \
                arrays_in.ndim < 2:
            raise Error("extract_batch() takes a list of 1-D arrays, got "
                        "one array: use extract(samples, rate=...) for "
                        "one")
        items = []
        for i, a in enumerate(arrays_in):
            what = "arrays[%d]" % i
            if not arrays.is_array(a):
                raise Error("%s is %s: extract_batch() takes a list of 1-D "
                            "NumPy arrays (numpy.asarray(x) converts)" %
                            (what, type(a).__name__))
            items.append(arrays.ArrayInput(a, rate, what))
        n = len(items)
        if n == 0:
            return []
        results = [None] * n
        errors = {}
        order = iter(range(n))
        order_lock = threading.Lock()

        def work(lane):
            while True:
                with order_lock:
                    i = next(order, None)
                if i is None:
                    return
                try:
                    results[i] = self._run_array(
                        lane, items[i], allow_empty, "arrays[%d]" % i)
                except Exception as e:      # raised in the caller's thread
                    errors[i] = e

        def run_lanes(lanes, target, args):
            # one thread per lane pulls its pipeline's samples; the
            # pipelines run at once, so the elements see several streams
            threads = [threading.Thread(target=target, args=(lane,) + a,
                                        name="afet-batch-%d" % k,
                                        daemon=True)
                       for k, (lane, a) in enumerate(zip(lanes[1:],
                                                         args[1:]), 1)]
            for t in threads:
                t.start()
            target(lanes[0], *args[0])
            for t in threads:
                t.join()

        with self._lock:
            self._check_open()
            lanes = self._lanes_for(min(self.streams, n))
            if self._back_to_back and (self.rate is None or
                                       self.rate == int(rate)):
                # each lane's arrays in one run of its pipeline: no state
                # change, no end-of-stream per array.  A format a run
                # each (audioconvert's caps stay those of the run)
                formats = {}
                for i, item in enumerate(items):
                    formats.setdefault(item.format, []).append(i)
                for idx in formats.values():
                    plan = _share(idx, items, len(lanes))
                    run_lanes(lanes[:len(plan)], self._run_back_to_back,
                              [(p, items, allow_empty, results, errors)
                               for p in plan])
            else:
                run_lanes(lanes, work, [()] * len(lanes))
        if errors:
            i = min(errors)
            e = errors[i]
            if isinstance(e, Error):
                e.index = i
                e.args = ("arrays[%d] of %d: %s" % (i, n, e.args[0]),) + \
                    e.args[1:]
            raise e
        return results

    def _lanes_for(self, n):
        while len(self._lanes) < n:
            self._lanes.append(self._build_lane())
        return self._lanes[:n]

    def _run_kept(self, lane, item, allow_empty, what):
        """item through the lane's kept run (arrays.KeptRun), started or
        started again for another format, with the warnings posted while
        it went through; None when the run failed, which then ends (the
        caller runs the array alone, for its own error), and when the run
        would not give the array's own frames (audioconvert or
        audioresample converting: they end their work only at
        end-of-stream).  A format that fell back once is not kept again
        on this lane."""
        what = "%s (%d samples at %d Hz)" % (what, item.samples, item.rate)
        caps = item.caps.to_string()
        if caps in lane.unkept:
            return None
        k = lane.kept
        try:
            if k is None or k.caps != caps or k.next_pts > k.MAX_PTS:
                self._ready_for_stream(lane, item.caps)
                k = lane.kept = arrays.KeptRun(lane.sink, caps)
                k.session = _Session(lane.pipeline, lane.sink,
                                     stop_state=Gst.State.READY)
                k.session.start()
            if lane.parser is None:
                lane.parser = _Collector()
            index, start, ok = k.feed(lane.src, item)
            if not ok:
                raise Error("appsrc refused the array")
            parts = []
            while True:
                # the probe at the appsink counts the buffers and notes
                # the drain: pull only what is there or coming
                more, want = k.wait(index, _POLL_NS / Gst.SECOND)
                done = want is not None and k.pulled >= want
                # what the elements posted for this array is on the bus
                # before its drain reaches the sink: read after it too
                k.session._check_bus()
                if done:
                    k.consumed(index)
                    break
                if not more:
                    if lane.sink.get_property("eos"):
                        # an element ended the stream: no drain will come
                        raise Error("end of stream in a kept run")
                    continue
                sample = lane.sink.emit("try-pull-sample", _POLL_NS)
                if sample is None:
                    if lane.sink.get_property("eos"):
                        raise Error("end of stream in a kept run")
                    continue
                k.pulled += 1
                pts = sample.get_buffer().pts
                if pts == _CLOCK_NONE or pts < start:
                    raise Error("a buffer came without its array's time")
                info, data, times, _, _ = lane.parser.frames_of(sample)
                parts.append((info, data, (pts - start) / Gst.SECOND +
                              times))
            if not k.checked:
                if not _passes_through(lane):
                    raise Error("the audio front converts")
                k.checked = True
            if any(x[0] != parts[0][0] for x in parts[1:]):
                raise Error("the stream's layout changed")
        except Error:
            lane.unkept.add(caps)
            self._end_kept(lane, failed=True)
            return None
        except BaseException:
            # a KeyboardInterrupt between the buffer and its drain: the
            # run is left, so that no later call takes this array's frames
            self._end_kept(lane, failed=True)
            raise
        # what the elements warned of while this array went through (the
        # drain follows it on the bus), as a run of its own reports it
        warnings, k.session.warnings = k.session.warnings, []
        if not parts:
            got = _one([], what, allow_empty, k.session.current_info())
            got.warnings = warnings
            return got
        data = np.concatenate([x[1] for x in parts]) if len(parts) != 1 \
            else parts[0][1].copy()
        return Features(data, parts[0][0],
                        np.concatenate([x[2] for x in parts]), None,
                        warnings)

    def _end_kept(self, lane, failed=False):
        """Stops the lane's kept run, if any (READY; NULL after a
        failure, and a new appsrc next time)."""
        k = lane.kept
        if k is None:
            return
        lane.kept = None
        k.remove_probe()
        if k.session is not None:
            k.session.stop(failed=failed)
        if failed:
            lane.failed = True

    def _run_array(self, lane, item, allow_empty, what):
        self._end_kept(lane)
        what = "%s (%d samples at %d Hz)" % (what, item.samples, item.rate)
        if lane.pipeline is None:           # left to a blocked thread
            self._build_lane(lane)
        lane.pipeline.set_state(Gst.State.READY)
        if lane.failed:
            lane.renew_src()
        _drain_bus(lane.pipeline)
        arrays.prepare(lane.src, item)
        src = lane.src
        try:
            results, info = _run_pipeline(
                lane.pipeline, lane.sink, what, timeout=self.timeout,
                stop_state=Gst.State.READY,
                feed=lambda: arrays.feed(src, item))
        except _Abandoned:
            lane.pipeline = lane.src = lane.sink = lane.conv = None
            raise
        except BaseException:
            lane.failed = True
            raise
        return _one(results, what, allow_empty, info)

    def _run_back_to_back(self, lane, idx, items, allow_empty, results,
                          errors):
        """The arrays items[i] for i in idx through one run of the lane,
        back to back (arrays.feed_all), into results[i] or errors[i].  A
        run that fails or warns goes again an array a run, so that each
        array gets its own error or warnings, as extract gives them."""
        try:
            got = self._stream_lane(lane, [items[i] for i in idx])
        except _Abandoned as e:
            for i in idx:
                errors[i] = e
            return
        except Error:
            got = None
        for k, i in enumerate(idx):
            what = "arrays[%d]" % i
            try:
                if got is None:
                    results[i] = self._run_array(lane, items[i],
                                                 allow_empty, what)
                    continue
                item = items[i]
                results[i] = _one(got[0][k], "%s (%d samples at %d Hz)" % (
                    what, item.samples, item.rate), allow_empty, got[1])
            except Exception as e:      # raised in the caller's thread
                errors[i] = e

    def _ready_for_stream(self, lane, caps):
        """The lane in READY, any kept run ended, its appsrc set for a
        stream of arrays of caps (no size or duration: several go
        through one run)."""
        self._end_kept(lane)
        if lane.pipeline is None:           # left to a blocked thread
            self._build_lane(lane)
        lane.pipeline.set_state(Gst.State.READY)
        if lane.failed:
            lane.renew_src()
        _drain_bus(lane.pipeline)
        lane.src.set_property("caps", caps)
        lane.src.set_property("size", -1)
        lane.src.set_property("duration", _CLOCK_NONE)

    def _stream_lane(self, lane, its):
        """([results of each item], info): the items fed back to back
        into one run of the lane; raises Error for a run that failed or
        warned."""
        self._ready_for_stream(lane, its[0].caps)
        src = lane.src
        session = _Session(lane.pipeline, lane.sink, timeout=self.timeout *
                           len(its) if self.timeout else None,
                           stop_state=Gst.State.READY)
        parts = [[] for _ in its]   # (info, frames, times) of each item
        if lane.parser is None:
            lane.parser = _Collector()  # the caps parsed once a lane
        parser = lane.parser
        info = None
        try:
            session.start()
            try:
                starts = arrays.feed_all(src, its)
                for sample, _ in session.samples():
                    # a buffer that no array's times name fails the run,
                    # which then goes again an array a run
                    pts = sample.get_buffer().pts
                    k = bisect.bisect_right(starts, pts) - 1
                    if pts == _CLOCK_NONE or k < 0:
                        raise Error("a buffer came without a timestamp "
                                    "of the arrays")
                    info, data, times, _, _ = parser.frames_of(sample)
                    # each item's times from its own start, as alone
                    parts[k].append((info, data, (pts - starts[k]) /
                                     Gst.SECOND + times))
                if info is None:            # no frame in this run
                    info = session.current_info()
            finally:
                session.stop()
        except _Abandoned:
            lane.pipeline = lane.src = lane.sink = lane.conv = None
            raise
        except BaseException:
            lane.failed = True
            raise
        if session.warnings:
            raise Error("warned: " + "; ".join(session.warnings))
        out = []
        for p in parts:
            if not p:
                out.append([])
                continue
            if any(x[0] != p[0][0] for x in p[1:]):
                raise Error("the stream's layout changed")
            data = np.concatenate([x[1] for x in p]) if len(p) != 1 \
                else p[0][1].copy()
            out.append([Features(data, p[0][0], np.concatenate(
                [x[2] for x in p]))])
        return out, info

    def close(self):
        """Stops and frees the pipelines; later calls raise Error."""
        lock = getattr(self, "_lock", None)
        if lock is None:             # __init__ failed before it
            return
        with lock:
            self._closed = True
            for lane in self._lanes:
                k, lane.kept = lane.kept, None
                if k is not None:
                    k.remove_probe()
            ps = [self._pipeline] + [lane.pipeline for lane in self._lanes]
            self._pipeline = self._src = self._sink = None
            self._lanes = []
        for p in ps:
            if p is not None:
                p.set_state(Gst.State.NULL)


def _share(idx, items, lanes):
    """idx shared out among at most `lanes` lanes, the longest array first
    to the lane with the fewest samples so far; each lane's in input
    order.  Empty lanes are left out."""
    plan = [[] for _ in range(min(lanes, len(idx)))]
    load = [0] * len(plan)
    for i in sorted(idx, key=lambda i: -items[i].samples):
        k = load.index(min(load))
        plan[k].append(i)
        load[k] += items[i].samples
    return [sorted(p) for p in plan]


# elements that end a run of frames at a DISCONT as at end-of-stream, so
# that arrays fed back to back through one run give what each gives
# alone: afet's (GstAfetBase drains and restarts its framing, dither,
# context and statistics; afetpitch ends its utterance), and those that
# keep nothing from buffer to buffer
# (identity sync=true waits for each buffer's time on the clock: arrays
# 60 s apart in stream time would wait a minute each, so it is not)
_STATELESS = ("capsfilter", "queue", "identity")


def _set(element, prop):
    """Whether element has the property prop set (a non-empty string,
    True)."""
    return element.find_property(prop) is not None and \
        bool(element.get_property(prop))


def _ends_runs_at_discont(chain):
    """True when every element of the chain (a bin) is afet's or keeps no
    state, and none writes at end-of-stream (afetcmvn write-stats): then
    a lane may take arrays back to back."""
    it = chain.iterate_recurse()
    while True:
        ok, e = it.next()
        if ok != Gst.IteratorResult.OK:
            return ok == Gst.IteratorResult.DONE
        f = e.get_factory()
        name = f.get_name() if f is not None else ""
        if name in _STATELESS and not _set(e, "sync"):
            continue
        if not name.startswith("afet"):
            return False
        if _set(e, "write-stats"):
            return False


def _ends_utterances_at_drain(chain):
    """True when every afet element of the chain (a bin) ends an utterance
    at afet's drain event (GstAfetBase's elements: not afetpitch, afetpaste,
    afetparse or afetenc), the others keeping nothing: then extract() may
    keep a lane's run going from array to array (arrays.KeptRun)."""
    base = GObject.type_from_name("GstAfetBase")
    if base == GObject.TYPE_INVALID:
        return False
    it = chain.iterate_recurse()
    while True:
        ok, e = it.next()
        if ok != Gst.IteratorResult.OK:
            return ok == Gst.IteratorResult.DONE
        f = e.get_factory()
        if f is not None and f.get_name() in _STATELESS:
            continue
        if not GObject.type_is_a(e.__gtype__, base):
            return False
        # read at each start: a kept run would keep the file's old numbers
        if _set(e, "stats-archive") or _set(e, "utt2spk"):
            return False


def _passes_through(lane):
    """Whether the lane's audioconvert and audioresample hand on what they
    take unchanged (the caps they negotiated in and out are equal): then
    an utterance's end needs no end-of-stream before the chain."""
    pad = lane.conv.get_static_pad("sink")
    for _ in range(2):                   # audioconvert, then audioresample
        e = pad.get_parent_element()
        into = pad.get_current_caps()
        out = e.get_static_pad("src").get_current_caps()
        if into is None or out is None or not into.is_equal(out):
            return False
        pad = e.get_static_pad("src").get_peer()
        if pad is None:
            return False
    return True


def _drain_bus(pipeline):
    """Drops what the last run left on the bus."""
    bus = pipeline.get_bus()
    while bus.pop() is not None:
        pass


def extract(source, pipeline="afetmfcc", rate=None, allow_empty=False,
            timeout=None):
    """Features of an audio file or of a NumPy array of samples, through
    ``pipeline`` (afet elements in gst-launch-1.0 syntax).  Returns
    :class:`Features`.

    A file: any format decodebin decodes, mixed to mono, resampled to
    ``rate`` if given.  An array (``numpy.ndarray``): mono, 1-D, int16 as
    it is or float32/float64 at full scale +-1 (as soundfile and lhotse
    give it); ``rate`` is then required and is the array's own sampling
    rate (nothing is resampled).  The frames are those of the same chain
    on a WAV file of the same samples, bit for bit.

    Raises :class:`Error` with GStreamer's message when the pipeline fails
    (:class:`NotFoundError` for a missing file), or naming the cause and
    the fix for an array it does not take, and :class:`NoFramesError`
    when it produces no frame, unless ``allow_empty`` (then an empty array
    with the stream's info, when the stream got that far).  ``timeout``
    (seconds) bounds the whole run.
    """
    arrays.check_source(source)
    if arrays.is_array(source):
        arrays.check_rate(rate)
        with Extractor(pipeline, timeout=timeout) as ex:
            return ex.extract(source, rate=rate, allow_empty=allow_empty)
    with Extractor(pipeline, rate=rate, timeout=timeout) as ex:
        return ex(source, allow_empty=allow_empty)


def extract_batch(arrays_in, rate, pipeline="afetmfcc", allow_empty=False,
                  timeout=None, streams=8):
    """Features of each 1-D array of a list (lengths may differ), all at
    ``rate`` Hz, through ``pipeline``: up to ``streams`` pipelines run at
    once in this process, so the device computes them concurrently.
    Returns a list of :class:`Features` in the input's order, each bit for
    bit what :func:`extract` gives for that array alone.  See
    :meth:`Extractor.extract_batch`."""
    with Extractor(pipeline, timeout=timeout, streams=streams) as ex:
        return ex.extract_batch(arrays_in, rate, allow_empty=allow_empty)


def run(description, allow_empty=False, timeout=None):
    """Runs a whole pipeline description whose last element gives a feature
    stream (``"audiotestsrc num-buffers=50 ! afetmfcc"``), to its end, and
    returns its :class:`Features`."""
    pipeline, sink = _parse("%s ! %s" % (description, _sink_desc()),
                            description)
    results, info = _run_pipeline(pipeline, sink, "'%s'" % description,
                                  track_keys=True, timeout=timeout)
    return _one(results, "'%s'" % description, allow_empty, info)


def _parse_props(props):
    out = []
    for k, v in props.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        out.append("%s=%s" % (k.replace("_", "-"), v))
    return " ".join(out)


def _read_runs(path, props, timeout):
    path = os.fspath(path)
    parse = ("afetparse " + _parse_props(props)).strip()
    pipeline, sink = _parse("filesrc name=%s ! %s ! %s" % (
        _SRC, parse, _sink_desc()), parse)
    pipeline.get_by_name(_SRC).set_property("location", path)
    return _run_pipeline(pipeline, sink, path, track_keys=True,
                         timeout=timeout)


def read(path, timeout=None, **afetparse_props):
    """A feature file (HTK, NumPy .npy, Kaldi archive with one entry, or
    raw float32 with ``format="raw", dims=N``) read through afetparse.
    Properties the file does not record go as keywords: ``rate=8000``,
    ``frame_shift=...``, ``kind="fbank"`` (see ``gst-inspect-1.0
    afetparse``).  Returns :class:`Features`."""
    results, info = _read_runs(path, afetparse_props, timeout)
    return _one(results, os.fspath(path), False, info)


def read_archive(path, timeout=None, **afetparse_props):
    """Every entry of a Kaldi archive (or the one of another feature file),
    as an ordered dict of key -> :class:`Features`."""
    results, _ = _read_runs(path, afetparse_props, timeout)
    if not results:
        raise NoFramesError("%s holds no frames" % os.fspath(path))
    out = {}
    for r in results:
        if r.key in out:          # Kaldi keys name one utterance each
            raise Error("%s holds the key %r twice" % (path, r.key))
        out[r.key] = r
    return out
