# Features of audio and feature files: afet.extract, afet.Extractor,
# afet.run, afet.read and afet.read_archive.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files in, afet.Features out: extract, Extractor, run, read,
read_archive, file_pipeline."""

import os
import stat
import threading

from gi.repository import GLib, Gst

from ._errors import Error, NoFramesError, _Abandoned, _parse_error
from ._running import (_appsink, _one, _parse, _run_pipeline, _sink_desc)
from ._setup import FEATURES_MEDIA_TYPE, _SRC, _make, init


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
    """Extracts features from audio files with one pipeline, built once and
    reused from file to file (afet-extract's way)::

        filesrc ! decodebin ! audioconvert ! audioresample !
            audio/x-raw,channels=1[,rate=R] ! PIPELINE ! appsink

    ``ex = Extractor("afetmfcc ! afetdelta"); feats = ex("a.wav")``.
    Calling it returns :class:`Features`; it raises :class:`Error` for a
    file that fails (the next call starts afresh).  Calls from several
    threads are safe and take turns (a lock): for files in parallel, make
    one per thread or worker process.  :meth:`close` (or leaving a
    ``with`` block, or dropping the last reference) frees the pipeline.
    """

    def __init__(self, pipeline="afetmfcc", rate=None, timeout=None):
        init()
        self.description = pipeline
        self.rate = rate
        self.timeout = timeout
        self._lock = threading.Lock()
        self._closed = False
        self._pipeline = None
        self._build()

    def _build(self):
        pipeline = self.description
        try:
            chain = Gst.parse_bin_from_description(pipeline, True)
        except GLib.Error as e:
            raise _parse_error(e, pipeline) from None
        p = Gst.Pipeline.new("afet-extractor")
        src = _make("filesrc", _SRC)
        dec = _make("decodebin")
        conv = _make("audioconvert")
        res = _make("audioresample")
        cf = _make("capsfilter")
        cf.set_property("caps", Gst.Caps.from_string(
            "audio/x-raw,channels=1" + (",rate=%d" % self.rate
                                        if self.rate else "")))
        sink = _appsink()
        for e in (src, dec, conv, res, cf, chain, sink):
            p.add(e)
        ok = src.link(dec) and conv.link(res) and res.link(cf)
        if not ok:
            raise Error("could not link the audio front")
        if not cf.link(chain):
            raise Error("'%s' does not take audio" % pipeline)
        if not chain.link(sink):
            raise Error("'%s' does not end in a feature stream (%s): "
                        "its last element cannot link to the appsink" %
                        (pipeline, FEATURES_MEDIA_TYPE))
        dec.connect("pad-added", _link_audio, conv)
        self._pipeline, self._src, self._sink = p, src, sink

    def __call__(self, path, allow_empty=False):
        path = os.fspath(path)
        _check_regular(path)
        # two threads on one pipeline got each other's frames: one call at
        # a time
        with self._lock:
            if self._closed:
                raise Error("the Extractor is closed")
            if self._pipeline is None:      # left to a blocked thread
                self._build()
            # READY between files: the elements keep their device work
            # (queue, kernels, buffers) for the next file of the same format
            self._pipeline.set_state(Gst.State.READY)
            bus = self._pipeline.get_bus()
            while bus.pop() is not None:      # what the last run left
                pass
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

    def close(self):
        """Stops and frees the pipeline; later calls raise Error."""
        lock = getattr(self, "_lock", None)
        if lock is None:             # __init__ failed before it
            return
        with lock:
            self._closed = True
            p = self._pipeline
            self._pipeline = self._src = self._sink = None
        if p is not None:
            p.set_state(Gst.State.NULL)


def extract(path, pipeline="afetmfcc", rate=None, allow_empty=False,
            timeout=None):
    """Features of an audio file: any format decodebin decodes, mixed to
    mono, resampled to ``rate`` if given, through ``pipeline`` (afet
    elements in gst-launch-1.0 syntax).  Returns :class:`Features`.

    Raises :class:`Error` with GStreamer's message when the pipeline fails
    (:class:`NotFoundError` for a missing file) and :class:`NoFramesError`
    when it produces no frame, unless ``allow_empty`` (then an empty array
    with the stream's info, when the stream got that far).  ``timeout``
    (seconds) bounds the whole run.
    """
    with Extractor(pipeline, rate=rate, timeout=timeout) as ex:
        return ex(path, allow_empty=allow_empty)


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
