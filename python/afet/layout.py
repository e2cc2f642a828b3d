# The layout of a feature stream read from its caps (afet.FeatureInfo)
# and the centres of mel banks.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet.FeatureInfo (a feature stream's layout from its caps) and
mel_centres()."""

import fractions
import math

import numpy as np

from gi.repository import Gst

from . import _capsapi
from ._errors import Error
from ._setup import FEATURES_MEDIA_TYPE, init


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

    def _layout_caps(self):
        """The layout as caps for the caps library: built from the fields,
        so that an info made without caps (make()) or from caps that leave
        out format or framerate is named as well."""
        fields = ["format=(string)F32LE", 'kind=(string)"%s"' % self.kind,
                  "dims=(int)%d" % self.dims, "rate=(int)%d" % self.rate,
                  "frame-length=(int)%d" % self.frame_length,
                  "frame-shift=(int)%d" % self.frame_shift,
                  "framerate=(fraction)%d/%d" % (self.rate,
                                                 self.frame_shift),
                  "statics=(int)%d" % self.statics,
                  "c0-index=(int)%d" % self.c0_index,
                  "energy-index=(int)%d" % self.energy_index,
                  "delta-order=(int)%d" % self.delta_order]
        if self.normalization not in (None, "none"):
            fields.append('normalization=(string)"%s"' % self.normalization)
            if self.normalization_columns:
                fields.append('normalization-columns=(string)"%s"' %
                              self.normalization_columns)
        return "%s, %s" % (FEATURES_MEDIA_TYPE, ", ".join(fields))

    def static_names(self):
        """Names of the static columns: ``c1``.. for cepstra (with ``c0``
        at c0-index), ``ch1``.. for filter-bank channels, ``bin0``.. for
        spectrogram bins, ``x0``.. otherwise; ``E`` at energy-index (the
        caps library's afet_features_info_column_name())."""
        return self.column_names()[:self.statics]

    def column_names(self):
        """Names of all ``dims`` columns: the statics' names, then
        ``d(...)``, ``dd(...)``, ``ddd(...)`` for the dynamic blocks."""
        return list(_capsapi.layout_names(self._layout_caps(), self.dims)[1])

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
        all)`` (the caps library's afet_features_info_htk_name())."""
        return _capsapi.layout_names(self._layout_caps(), self.dims)[0]

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
