# The afet Python module: speech features from afet's GStreamer elements
# as NumPy arrays.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Speech features from afet's GStreamer elements, as NumPy arrays.

A pure-Python layer over PyGObject (``gi.repository.Gst``) and NumPy: it
builds a pipeline, pulls the ``application/x-afet-features`` buffers out of
an ``appsink`` and turns them into float32 arrays of frames x dims, with the
caps' description of the columns beside them::

    import afet
    feats = afet.extract("speech.flac", pipeline="afetmfcc preset=kaldi")
    feats.data              # numpy.ndarray, float32, (frames, dims)
    feats.info.dims, feats.info.energy_index, feats.info.preset
    feats.times             # start of each frame's window, in seconds

    for block in afet.stream("autoaudiosrc", pipeline="afetmfcc"):
        ...                 # arrays as the buffers arrive

Errors posted on the pipeline's bus (a missing file, a stream an element
refuses, an unknown element) raise :class:`afet.Error` with GStreamer's
message; a run that ends without a single frame raises
:class:`afet.NoFramesError` unless ``allow_empty=True``.

The afet plugin is found as GStreamer finds any plugin: installed, or
through ``GST_PLUGIN_PATH`` (a build tree's ``build/gst``), or with
``afet.init(plugin_path=...)``.  See docs/python.md.
"""

import fractions
import math
import os
import re
import stat
import threading
import time

import numpy as np

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Error", "NotFoundError", "NoFramesError", "FeatureInfo", "Features",
    "Block", "Extractor", "Stream", "init", "extract", "read",
    "read_archive", "run", "stream", "file_pipeline", "mel_centres",
]

FEATURES_MEDIA_TYPE = "application/x-afet-features"
_SINK = "afet_sink"
_SRC = "filesrc"
_POLL_NS = 50 * Gst.MSECOND      # how long one pull waits before the bus is read
_STOP_GRACE = 2.0   # seconds a stop after a timeout may take before it is left
_CLOCK_NONE = Gst.CLOCK_TIME_NONE


# ---------------------------------------------------------------- errors

class Error(RuntimeError):
    """A pipeline failed: an ERROR message on its bus, a description that
    does not parse, or a stream this module cannot read.

    ``str(error)`` is GStreamer's message with the element that posted it
    and, where the message alone says little ("Resource not found."), the
    detail from the debug text.  The parts are kept as attributes:

    - ``message``: GStreamer's (translated) message
    - ``source``: the name of the element that posted it, or None
    - ``debug``: GStreamer's debug text, or None
    - ``domain``, ``code``: the GError's domain (e.g.
      ``"gst-resource-error-quark"``) and code, or None
    - ``errors``: every error message that was on the bus, the first one
      first, as ``(source, message, debug)`` tuples
    """

    def __init__(self, message, source=None, debug=None, domain=None,
                 code=None, errors=()):
        self.message = message
        self.source = source
        self.debug = debug
        self.domain = domain
        self.code = code
        self.errors = list(errors) or [(source, message, debug)]
        super().__init__(_describe(message, source, debug))


class NotFoundError(Error, FileNotFoundError):
    """A source could not find what it was asked to read (a missing file):
    an :class:`Error` that is also a :class:`FileNotFoundError`."""


class NoFramesError(Error):
    """The pipeline ran to its end without producing a single frame (e.g.
    a recording shorter than one analysis window)."""


class _Abandoned(Error):
    """Timed out in a state change that is still blocked: the pipeline was
    left to a thread of its own (_set_state) and must not be used again."""


def _detail(debug):
    """The human part of a GStreamer debug string: what follows the first
    line when that line is a source location ('file.c(12): func (): obj:')."""
    if not debug:
        return None
    lines = debug.strip().split("\n")
    if re.match(r"^\S+\(\d+\): \S+ \(\): ", lines[0]):
        lines = lines[1:]
    text = "\n".join(lines).strip()
    return text or None


def _describe(message, source, debug):
    text = "%s: %s" % (source, message) if source else message
    detail = _detail(debug)
    # the message of a source's error ("Resource not found.") rarely names
    # the file; the debug text does.  Elements of afet put everything in
    # the message.
    if detail and detail not in text and len(message) < 80:
        text += " (%s)" % detail
    return text


def _error_from_message(msg, others=()):
    err, debug = msg.parse_error()
    source = msg.src.get_name() if msg.src is not None else None
    domain = GLib.quark_to_string(err.domain) if isinstance(
        err.domain, int) else err.domain
    errors = [(source, err.message, debug)] + list(others)
    cls = Error
    if (domain == "gst-resource-error-quark" and err.code in (
            int(Gst.ResourceError.NOT_FOUND),
            int(Gst.ResourceError.OPEN_READ)) and debug and
            "No such file" in debug):
        cls = NotFoundError
    e = cls(err.message, source=source, debug=debug, domain=domain,
            code=err.code, errors=errors)
    return e


def _parse_error(exc, description):
    """A GLib.Error from gst_parse_* as an afet.Error, with a hint when the
    missing element is one of afet's."""
    message = exc.message
    if 'no element "afet' in message and \
            Gst.ElementFactory.find("afetmfcc") is None:
        message += (" (the afet plugin was not found: install it, set "
                    "GST_PLUGIN_PATH to afet's build/gst directory or call "
                    "afet.init(plugin_path=...))")
    return Error("could not build the pipeline '%s': %s" % (description,
                                                          message),
                 domain="gst-parse-error-quark", code=exc.code)


# ---------------------------------------------------------------- set-up

_init_lock = threading.Lock()

# afet's OpenCL context and its driver threads do not survive fork(): a
# child forked after the parent ran a pipeline hangs in its first one.
# Say so instead.
_ran = False
_forked_after_run = False


def _after_fork_in_child():
    global _forked_after_run
    if _ran:
        _forked_after_run = True


os.register_at_fork(after_in_child=_after_fork_in_child)


def init(plugin_path=None):
    """Initialises GStreamer (done for you by every function here) and,
    with ``plugin_path`` (a directory, or several joined with os.pathsep),
    loads the plugins found there, e.g. afet's ``build/gst``."""
    with _init_lock:
        if not Gst.is_initialized():
            Gst.init(None)
    if plugin_path:
        registry = Gst.Registry.get()
        for d in str(plugin_path).split(os.pathsep):
            if d:
                registry.scan_path(d)


def _make(factory, name=None):
    e = Gst.ElementFactory.make(factory, name)
    if e is None:
        raise Error("GStreamer has no element '%s' (is the plugin that "
                    "provides it installed?)" % factory)
    return e


# ---------------------------------------------------------------- layout

def _field_value(s, name):
    t = s.get_field_type(name)
    if t.name == "GstFraction":
        ok, num, den = s.get_fraction(name)
        return fractions.Fraction(num, den) if ok and den else None
    try:
        return s.get_value(name)
    except TypeError:         # a type PyGObject cannot convert: keep text
        return None


class FeatureInfo:
    """The layout and analysis settings of a feature stream, read from its
    caps (docs/caps.md).

    Attributes (caps field in brackets): ``kind``, ``dims``, ``rate``,
    ``frame_length`` and ``frame_shift`` (samples), ``framerate`` (a
    Fraction), ``statics``, ``c0_index``, ``energy_index`` (-1: none),
    ``delta_order``, ``normalization``, ``normalization_columns``,
    ``preset``, ``window`` (None when the caps leave them out); ``fields``:
    every caps field as a dict (the analysis contract's ``num-filters``,
    ``low-freq``, ``filter-bank``, ``lifter``, ...); ``caps``: the caps as
    a string.
    """

    __slots__ = ("kind", "dims", "rate", "frame_length", "frame_shift",
                 "framerate", "statics", "c0_index", "energy_index",
                 "delta_order", "normalization", "normalization_columns",
                 "preset", "window", "fields", "caps")

    def __init__(self, fields, caps=None):
        f = dict(fields)
        missing = [k for k in ("kind", "dims", "rate", "frame-length",
                               "frame-shift") if f.get(k) is None]
        if missing:
            raise Error("not an afet feature stream: the caps lack %s (%s)" %
                        (", ".join(missing), caps))
        self.fields = f
        self.caps = caps
        self.kind = f["kind"]
        self.dims = int(f["dims"])
        self.rate = int(f["rate"])
        self.frame_length = int(f["frame-length"])
        self.frame_shift = int(f["frame-shift"])
        self.framerate = f.get("framerate") or fractions.Fraction(
            self.rate, self.frame_shift)
        self.statics = int(f.get("statics", self.dims))
        self.c0_index = int(f.get("c0-index", -1))
        self.energy_index = int(f.get("energy-index", -1))
        self.delta_order = int(f.get("delta-order", 0))
        self.normalization = f.get("normalization", "none")
        self.normalization_columns = f.get(
            "normalization-columns",
            "all" if self.normalization != "none" else None)
        self.preset = f.get("preset")
        self.window = f.get("window")
        if self.dims != self.statics * (self.delta_order + 1):
            raise Error("inconsistent feature caps: dims %d is not statics "
                        "%d x (delta-order %d + 1)" % (
                            self.dims, self.statics, self.delta_order))

    @classmethod
    def from_caps(cls, caps):
        """From a Gst.Caps or a caps string (e.g. a line of
        ``gst-launch-1.0 -v``)."""
        init()
        if isinstance(caps, str):
            text = caps.split("caps = ", 1)[-1].strip()
            parsed = Gst.Caps.from_string(text)
            if parsed is None:
                raise Error("could not parse caps: %s" % caps)
            caps = parsed
        if caps.get_size() < 1:
            raise Error("empty caps")
        s = caps.get_structure(0)
        if s.get_name() != FEATURES_MEDIA_TYPE:
            raise Error("not an afet feature stream: %s" % s.get_name())
        fields = {}
        for i in range(s.n_fields()):
            name = s.nth_field_name(i)
            fields[name] = _field_value(s, name)
        return cls(fields, caps.to_string())

    @classmethod
    def make(cls, dims, kind="user", rate=16000, frame_shift=160,
             frame_length=None, delta_order=0, c0_index=-1,
             energy_index=-1, **fields):
        """An info for features that did not come with caps (a .npy file
        read with NumPy): the same defaults as afetparse's."""
        d = {"kind": kind, "dims": dims, "rate": rate,
             "frame-length": frame_length or frame_shift,
             "frame-shift": frame_shift, "delta-order": delta_order,
             "statics": dims // (delta_order + 1), "c0-index": c0_index,
             "energy-index": energy_index}
        d.update({k.replace("_", "-"): v for k, v in fields.items()})
        return cls(d)

    # -- time
    @property
    def frame_period(self):
        """Seconds between frames (frame-shift / rate)."""
        return self.frame_shift / self.rate

    @property
    def window_seconds(self):
        """The analysis window in seconds (frame-length / rate)."""
        return self.frame_length / self.rate

    @property
    def frame_bytes(self):
        return 4 * self.dims

    # -- columns
    def block(self, k):
        """The columns of dynamic block k (0 statics, 1 deltas, 2
        accelerations, 3 third differences), as a slice."""
        if not 0 <= k <= self.delta_order:
            raise IndexError("block %d of a stream with delta-order %d" %
                             (k, self.delta_order))
        return slice(k * self.statics, (k + 1) * self.statics)

    def static_names(self):
        """Names of the static columns: ``c1``.. for cepstra (with ``c0``
        at c0-index), ``ch1``.. for filter-bank channels, ``bin0``.. for
        spectrogram bins, ``x0``.. otherwise; ``E`` at energy-index."""
        names = []
        n = 0
        for j in range(self.statics):
            if j == self.energy_index:
                names.append("E")
                continue
            if j == self.c0_index:
                names.append("c0")
                continue
            if self.kind in ("mfcc", "plp"):
                n += 1
                names.append("c%d" % n)
            elif self.kind == "fbank":
                n += 1
                names.append("ch%d" % n)
            elif self.kind == "spectrogram":
                names.append("bin%d" % j)
            else:
                names.append("x%d" % j)
        return names

    def column_names(self):
        """Names of all ``dims`` columns: the statics' names, then
        ``d(...)``, ``dd(...)``, ``ddd(...)`` for the dynamic blocks."""
        st = self.static_names()
        out = list(st)
        for k in range(1, self.delta_order + 1):
            out += ["%s(%s)" % ("d" * k, n) for n in st]
        return out

    def band_frequencies(self):
        """Centre frequency in Hz of each static column for a filter bank
        (``kind`` fbank whose caps carry ``filter-bank``, ``num-filters``,
        ``low-freq`` and ``high-freq``) or a spectrogram (bin k at k x
        rate / N); NaN for the energy column.  None when the caps do not
        say (other kinds, a warped bank, features read from a file)."""
        f = self.fields
        if self.kind == "spectrogram":
            n_fft = 2 * (self.statics - 1)
            if n_fft < 2:
                return None
            hz = np.arange(self.statics) * self.rate / n_fft
        elif self.kind == "fbank":
            try:
                n = int(f["num-filters"])
                lo, hi = float(f["low-freq"]), float(f["high-freq"])
                bank = f["filter-bank"]
            except (KeyError, TypeError, ValueError):
                return None
            if abs(float(f.get("warp", 1.0) or 1.0) - 1.0) > 1e-9:
                return None
            channels = [j for j in range(self.statics)
                        if j != self.energy_index]
            if n != len(channels):
                return None
            centres = mel_centres(n, lo, hi, bank)
            if centres is None:
                return None
            hz = np.full(self.statics, np.nan)
            hz[channels] = centres
        else:
            return None
        if 0 <= self.energy_index < self.statics:
            hz = hz.astype(float)
            hz[self.energy_index] = np.nan
        return hz

    def htk_name(self):
        """An HTK-style name of the layout (``MFCC_0_D_A_Z``): the kind with
        ``_E``, ``_0``, ``_D``/``_A``/``_T`` as the caps say, and ``_Z`` for
        what HTK means by it (the mean removed from the statics but the
        energy: afetcmvn ``columns=htk``, as afetenc's header says); other
        normalisations follow in words, e.g. ``MFCC_0_D_A (mean over
        all)``."""
        name = {"mfcc": "MFCC", "plp": "PLP", "fbank": "FBANK"}.get(
            self.kind, self.kind.upper())
        if self.energy_index >= 0:
            name += "_E"
        if self.c0_index >= 0:
            name += "_0"
        name += "".join(["_D", "_A", "_T"][:self.delta_order])
        cols = self.normalization_columns
        if self.normalization == "mean" and (cols == "htk" or (
                cols == "statics" and self.energy_index < 0)):
            name += "_Z"
        elif self.normalization not in (None, "none"):
            name += " (%s over %s)" % (self.normalization, cols or "all")
        return name

    def __eq__(self, other):
        return isinstance(other, FeatureInfo) and self.fields == other.fields

    def __hash__(self):
        return hash(tuple(sorted((k, str(v)) for k, v in
                                 self.fields.items())))

    def __repr__(self):
        return ("FeatureInfo(kind=%r, dims=%d, statics=%d, c0_index=%d, "
                "energy_index=%d, delta_order=%d, rate=%d, frame_shift=%d, "
                "frame_length=%d, normalization=%r, preset=%r)" % (
                    self.kind, self.dims, self.statics, self.c0_index,
                    self.energy_index, self.delta_order, self.rate,
                    self.frame_shift, self.frame_length, self.normalization,
                    self.preset))


def mel_centres(n, low, high, bank="htk"):
    """Centre frequencies (Hz) of an n-filter mel bank between low and high
    Hz, as afet's banks place them: ``htk`` and ``kaldi`` on HTK's mel scale
    (1127 ln(1 + f/700)), ``slaney`` on the Slaney scale (linear below 1 kHz,
    logarithmic above: librosa's default, Whisper's); None for another
    bank."""
    if bank in ("htk", "kaldi"):
        def to_mel(f):
            return 1127.0 * np.log1p(np.asarray(f, float) / 700.0)

        def to_hz(m):
            return 700.0 * np.expm1(np.asarray(m, float) / 1127.0)
    elif bank == "slaney":
        f_sp = 200.0 / 3.0
        log_step = math.log(6.4) / 27.0
        min_log_mel = 1000.0 / f_sp

        def to_mel(f):
            f = np.asarray(f, float)
            return np.where(f < 1000.0, f / f_sp, min_log_mel +
                            np.log(np.maximum(f, 1e-9) / 1000.0) / log_step)

        def to_hz(m):
            m = np.asarray(m, float)
            return np.where(m < min_log_mel, m * f_sp,
                            1000.0 * np.exp(log_step * (m - min_log_mel)))
    else:
        return None
    edges = np.linspace(to_mel(low), to_mel(high), n + 2)
    return to_hz(edges[1:-1])


# ---------------------------------------------------------------- results

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


# ---------------------------------------------------------------- running

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
        global _ran
        if _forked_after_run:
            raise Error("this process was forked from one that had already "
                        "run afet, whose OpenCL context does not survive "
                        "fork(): start worker processes with the 'spawn' or "
                        "'forkserver' method (multiprocessing.get_context"
                        "('spawn'), DataLoader(multiprocessing_context="
                        "'spawn')), or use afet only in the workers")
        _ran = True
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
                  stop_state=Gst.State.NULL):
    session = _Session(pipeline, sink, track_keys, timeout, stop_state)
    collector = _Collector()
    session.start()
    try:
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


# ---------------------------------------------------------------- files

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


# ---------------------------------------------------------------- live

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
