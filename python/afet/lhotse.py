# lhotse feature extractors computed by afet: AfetFbank, AfetMfcc, AfetPlp
# and AfetWhisperFbank with their config dataclasses, registered with lhotse.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet's features as lhotse ``FeatureExtractor`` s.

``import afet.lhotse`` registers four extractors with lhotse
(``@register_extractor``), usable wherever lhotse takes one::

    from afet.lhotse import AfetFbank, AfetFbankConfig
    cuts = cuts.compute_and_store_features(
        extractor=AfetFbank(AfetFbankConfig(num_filters=80)),
        storage_path="feats", num_jobs=1)

======================  ====================  ==========================
extractor (``name``)    config                afet chain
======================  ====================  ==========================
AfetFbank (afet-fbank)  AfetFbankConfig       afetmfcc num-ceps=0
AfetMfcc (afet-mfcc)    AfetMfccConfig        afetmfcc
AfetPlp (afet-plp)      AfetPlpConfig         afetplp preset=kaldi
AfetWhisperFbank        AfetWhisperConfig     afetmfcc preset=whisper
(afet-whisper-fbank)
======================  ====================  ==========================

A config's field names and units are those of lhotse's own config
(``FbankConfig``, ``MfccConfig``: seconds, Hz, ``num_ceps`` counting
column 0); ``preset`` picks the conventions (``lhotse``, the default:
lhotse's ``Fbank``/``Mfcc``; ``kaldi``: Kaldi's compute-*-feats on the
samples as 16-bit integers), and a field left ``None`` takes the
preset's value (docs/compat.md's table).  ``snip_edges`` is False
unless set: lhotse counts round(samples / shift) frames per cut and
refuses features of any other length.  ``device`` is afet's OpenCL
device (``auto``, ``gpu``, ``cpu``, ``P:D``), not torch's: the features
come back as NumPy arrays (torch tensors for tensors given).

Each extractor keeps one :class:`afet.Extractor` (its pipelines built
once, lazily, in the process that extracts); pickling sends the config
alone, so each worker process of lhotse's ``num_jobs`` or of a Dask
cluster opens its own afet device context.  ``extract_batch`` computes
the arrays concurrently on the device (``streams`` at a time).

See docs/lhotse.md.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

try:
    import torch
    from lhotse.features.base import FeatureExtractor, register_extractor
    from lhotse.features.kaldi.extractors import Fbank as _LhotseFbank
    from lhotse.utils import Seconds, compute_num_frames_from_samples
except ImportError as e:            # pragma: no cover - checked by the test
    raise ImportError(
        "afet.lhotse needs lhotse and torch (%s): pip install lhotse torch"
        % e) from e

from ._errors import Error
from .files import Extractor

__all__ = [
    "AfetFbank", "AfetFbankConfig", "AfetMfcc", "AfetMfccConfig",
    "AfetPlp", "AfetPlpConfig", "AfetWhisperFbank", "AfetWhisperConfig",
]

# the samples' scale of each preset (docs/compat.md): lhotse's floats as
# they are, or as 16-bit integers (Kaldi's wav files)
_PRESETS = ("lhotse", "kaldi")


def _value(v):
    """A config value as gst-launch syntax."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _seconds_to_ms(s):
    # 0.025 s -> 25.0 ms exactly; afet truncates ms x rate / 1000 to
    # samples, as lhotse rounds seconds x rate
    return round(s * 1000.0, 9)


def _common_props(c):
    """(field, afet property, value) of the framing and filter-bank
    fields the configs share."""
    props = [
        ("frame_length", "frame-length", None if c.frame_length is None
         else _seconds_to_ms(c.frame_length)),
        ("frame_shift", "frame-shift", None if c.frame_shift is None
         else _seconds_to_ms(c.frame_shift)),
        ("window_type", "window", c.window_type),
        ("preemph_coeff", "preemphasis", c.preemph_coeff),
        ("remove_dc_offset", "remove-dc", c.remove_dc_offset),
        ("dither", "dither", c.dither),
        ("dither_seed", "dither-seed", c.dither_seed),
        ("snip_edges", "snip-edges", c.snip_edges),
        ("energy_floor", "energy-floor", c.energy_floor),
        ("raw_energy", "raw-energy", c.raw_energy),
        ("use_energy", "energy", c.use_energy),
        ("low_freq", "low-freq", c.low_freq),
        ("high_freq", "high-freq", c.high_freq),
        ("num_filters", "num-filters", c.num_filters),
        ("vtln_warp", "warp-factor", c.vtln_warp),
        ("device", "device", c.device),
    ]
    if getattr(c, "use_fft_mag", None) is not None:
        props.append(("use_fft_mag", "use-power", not c.use_fft_mag))
    return props


class _ConfigBase:
    """What the configs share: the chain as text, made from their
    properties() (element, preset, [(field, afet property, value)]), and
    to_dict / from_dict as lhotse's configs have them."""

    def pipeline(self) -> str:
        """The afet chain that computes these features, as gst-launch-1.0
        text (what a server runs: docs/lhotse.md)."""
        element, preset, props = self.properties()
        parts = [element, "preset=%s" % preset]
        parts += ["%s=%s" % (prop, _value(v)) for _, prop, v in props
                  if v is not None]
        return " ".join(parts)

    def to_dict(self) -> Dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items()
                if v is not None}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]):
        return cls(**data)


def _configured(config):
    """The config's element, its properties set field by field, each
    value checked against the property's type, range or values and read
    back: a value afet cannot take raises Error naming the field (GStreamer
    itself would only warn and keep the default)."""
    from gi.repository import GObject, Gst
    from ._setup import _make, init
    init()
    element, preset, props = config.properties()
    kind = type(config).__name__
    e = _make(element)
    Gst.util_set_object_arg(e, "preset", preset)
    for field, prop, v in props:
        if v is None:
            continue
        pspec = e.find_property(prop)
        what = "%s: %s=%r (%s's %s=%s)" % (
            kind, field or prop, getattr(config, field, v), element, prop,
            _value(v))
        vtype = pspec.value_type
        if vtype.is_a(GObject.TYPE_ENUM):
            nicks = [x.value_nick for x in
                     pspec.enum_class.__enum_values__.values()]
            if v not in nicks:
                raise Error("%s: takes one of %s" % (what, ", ".join(nicks)))
        elif vtype == GObject.TYPE_BOOLEAN:
            if not isinstance(v, bool):
                raise Error("%s: give True or False" % what)
        elif vtype == GObject.TYPE_STRING:
            if not isinstance(v, str):
                raise Error("%s: give a string" % what)
        else:
            integral = vtype not in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT)
            if isinstance(v, bool) or not isinstance(
                    v, int if integral else (int, float)):
                raise Error("%s: give a %s" % (
                    what, "whole number" if integral else "number"))
            if not pspec.minimum <= v <= pspec.maximum:
                raise Error("%s: outside %s .. %s" % (
                    what, _value(pspec.minimum), _value(pspec.maximum)))
        Gst.util_set_object_arg(e, prop, _value(v))
        got = e.get_property(prop)
        got = getattr(got, "value_nick", got)
        if got != v:
            raise Error("%s: %s kept %r" % (what, element, got))
    return e


def _check_preset(preset, allowed, kind):
    if preset not in allowed:
        raise Error("%s: preset=%r is not one afet has for it: use one of %s "
                    "(docs/lhotse.md)" % (kind, preset, ", ".join(allowed)))


@dataclass
class AfetFbankConfig(_ConfigBase):
    """lhotse's ``FbankConfig`` fields that afet computes (``None``: the
    preset's value), ``preset``, afet's ``device`` and ``streams``."""
    preset: str = "lhotse"
    frame_length: Optional[Seconds] = None
    frame_shift: Optional[Seconds] = None
    window_type: Optional[str] = None
    preemph_coeff: Optional[float] = None
    remove_dc_offset: Optional[bool] = None
    dither: Optional[float] = None
    dither_seed: Optional[int] = None
    snip_edges: bool = False
    energy_floor: Optional[float] = None
    raw_energy: Optional[bool] = None
    use_energy: Optional[bool] = None
    use_fft_mag: Optional[bool] = None
    low_freq: Optional[float] = None
    high_freq: Optional[float] = None
    num_filters: Optional[int] = None
    vtln_warp: Optional[float] = None
    device: str = "auto"
    streams: int = 8

    def __post_init__(self):
        _check_preset(self.preset, _PRESETS, "AfetFbankConfig")

    def properties(self):
        return ("afetmfcc", self.preset,
                [("", "num-ceps", 0)] + _common_props(self))


@dataclass
class AfetMfccConfig(_ConfigBase):
    """lhotse's ``MfccConfig`` fields that afet computes; ``num_ceps``
    counts column 0 (c0, or the energy with ``use_energy``) as lhotse's
    and Kaldi's do: 13 is c0..c12."""
    preset: str = "lhotse"
    frame_length: Optional[Seconds] = None
    frame_shift: Optional[Seconds] = None
    window_type: Optional[str] = None
    preemph_coeff: Optional[float] = None
    remove_dc_offset: Optional[bool] = None
    dither: Optional[float] = None
    dither_seed: Optional[int] = None
    snip_edges: bool = False
    energy_floor: Optional[float] = None
    raw_energy: Optional[bool] = None
    use_energy: Optional[bool] = None
    use_fft_mag: Optional[bool] = None
    low_freq: Optional[float] = None
    high_freq: Optional[float] = None
    num_filters: Optional[int] = None
    num_ceps: int = 13
    cepstral_lifter: Optional[int] = None
    vtln_warp: Optional[float] = None
    device: str = "auto"
    streams: int = 8

    def __post_init__(self):
        _check_preset(self.preset, _PRESETS, "AfetMfccConfig")
        if isinstance(self.num_ceps, bool) or \
                not isinstance(self.num_ceps, int) or self.num_ceps < 2:
            raise Error("AfetMfccConfig: num_ceps=%r: give the number of "
                        "columns, column 0 included (13: c0..c12), at least "
                        "2; for the filter bank itself use AfetFbank"
                        % (self.num_ceps,))

    def properties(self):
        return ("afetmfcc", self.preset,
                [("num_ceps", "num-ceps", self.num_ceps - 1),
                 ("cepstral_lifter", "lifter", self.cepstral_lifter)] +
                _common_props(self))


@dataclass
class AfetPlpConfig(_ConfigBase):
    """Kaldi's compute-plp-feats options (lhotse has no PLP of its own);
    ``num_ceps`` counts column 0 as Kaldi's ``--num-ceps`` (13)."""
    preset: str = "kaldi"
    frame_length: Optional[Seconds] = None
    frame_shift: Optional[Seconds] = None
    window_type: Optional[str] = None
    preemph_coeff: Optional[float] = None
    remove_dc_offset: Optional[bool] = None
    dither: Optional[float] = None
    dither_seed: Optional[int] = None
    snip_edges: bool = False
    energy_floor: Optional[float] = None
    raw_energy: Optional[bool] = None
    use_energy: Optional[bool] = None
    low_freq: Optional[float] = None
    high_freq: Optional[float] = None
    num_filters: Optional[int] = None
    num_ceps: int = 13
    lpc_order: Optional[int] = None
    compress_factor: Optional[float] = None
    cepstral_lifter: Optional[int] = None
    cepstral_scale: Optional[float] = None
    vtln_warp: Optional[float] = None
    device: str = "auto"
    streams: int = 8

    def __post_init__(self):
        # lhotse and Whisper have no PLP: afetplp refuses those presets
        _check_preset(self.preset, ("kaldi",), "AfetPlpConfig")
        if isinstance(self.num_ceps, bool) or \
                not isinstance(self.num_ceps, int) or self.num_ceps < 2:
            raise Error("AfetPlpConfig: num_ceps=%r: give the number of "
                        "columns, column 0 included (13), at least 2"
                        % (self.num_ceps,))

    def properties(self):
        return ("afetplp", self.preset,
                [("num_ceps", "num-ceps", self.num_ceps - 1),
                 ("lpc_order", "lpc-order", self.lpc_order),
                 ("compress_factor", "compression", self.compress_factor),
                 ("cepstral_lifter", "lifter", self.cepstral_lifter),
                 ("cepstral_scale", "cepstral-scale", self.cepstral_scale)] +
                _common_props(self))


@dataclass
class AfetWhisperConfig(_ConfigBase):
    """Whisper's log-mel spectrogram as lhotse's ``WhisperFbankConfig``
    (``num_filters`` 80, or 128 for large-v3), 16 kHz audio."""
    num_filters: int = 80
    device: str = "auto"
    streams: int = 8

    def properties(self):
        return ("afetmfcc", "whisper",
                [("num_filters", "num-filters", self.num_filters),
                 ("device", "device", self.device)])


class _AfetExtractor(FeatureExtractor):
    """What the four extractors share: the kept afet.Extractor, the
    checks of lhotse's arrays and tensors, extract and extract_batch."""

    _rate = None        # a rate the features are defined for only (Whisper)

    def __init__(self, config=None):
        super().__init__(config=config)
        self._afet = None
        self._props = None
        streams = self.config.streams
        if isinstance(streams, bool) or not isinstance(streams, int) or \
                streams < 1:
            raise Error("%s: streams=%r: give the number of arrays computed "
                        "at once as a whole number >= 1" %
                        (type(self.config).__name__, streams))
        self._values()              # a value afet cannot take: refused now

    # pickling (lhotse's worker processes, Dask) sends the config: the
    # afet pipelines and their device context stay in the process that
    # made them, each worker builds its own
    def __getstate__(self):
        return {"config": self.config}

    def __setstate__(self, state):
        self.config = state["config"]
        self._afet = None
        self._props = None

    def _extractor(self):
        if self._afet is None:
            self._afet = Extractor(self.config.pipeline(),
                                   streams=self.config.streams)
        return self._afet

    def close(self):
        """Frees the afet pipelines (built again on the next call)."""
        if self._afet is not None:
            self._afet.close()
            self._afet = None

    def _values(self):
        """The properties that shape the output, read back from the
        configured element: the values in effect (the preset's where the
        config left None)."""
        if self._props is None:
            e = _configured(self.config)
            self._props = {k: e.get_property(k) for k in
                           ("frame-shift", "num-filters", "num-ceps", "c0",
                            "energy")}
        return self._props

    @property
    def frame_shift(self) -> Seconds:
        # afet's frame-shift in ms, as lhotse's seconds (10 -> 0.01)
        return round(self._values()["frame-shift"] / 1000.0, 12)

    def feature_dim(self, sampling_rate: int) -> int:
        p = self._values()
        if p["num-ceps"] == 0:
            return p["num-filters"] + (1 if p["energy"] else 0)
        return p["num-ceps"] + (1 if p["c0"] else 0) + \
            (1 if p["energy"] else 0)

    def _check_rate(self, sampling_rate):
        if self._rate is not None and sampling_rate != self._rate:
            raise Error("%s computes features of %d Hz audio, got %r Hz: "
                        "resample the cuts first (cuts.resample(%d))" %
                        (self.name, self._rate, sampling_rate, self._rate))

    def _mono(self, samples, what):
        """lhotse's (channels, samples) or (samples,) as one 1-D array;
        returns (array, was_tensor)."""
        tensor = isinstance(samples, torch.Tensor)
        if tensor:
            samples = samples.detach().cpu().numpy()
        a = np.asarray(samples)
        if a.ndim == 2:
            if a.shape[0] != 1:
                raise Error("%s has %d channels (shape %s): %s computes "
                            "mono audio; take one channel (cut.with_channels"
                            "(0) or recording.load_audio(channels=0)) or mix "
                            "them first" % (what, a.shape[0], a.shape,
                                            self.name))
            a = a[0]
        return np.ascontiguousarray(a), tensor

    def _finish(self, feats, num_samples, sampling_rate):
        return feats

    def _result(self, f, num_samples, sampling_rate):
        data = f.data
        if data.shape[0] == 0:
            data = np.zeros((0, self.feature_dim(sampling_rate)), np.float32)
        return self._finish(data, num_samples, sampling_rate)

    def extract(self, samples: Union[np.ndarray, "torch.Tensor"],
                sampling_rate: int) -> Union[np.ndarray, "torch.Tensor"]:
        self._check_rate(sampling_rate)
        a, tensor = self._mono(samples, "the audio")
        f = self._extractor().extract(a, rate=sampling_rate,
                                      allow_empty=True)
        out = self._result(f, a.shape[0], sampling_rate)
        return torch.from_numpy(out) if tensor else out

    def extract_batch(
            self,
            samples: Union[np.ndarray, "torch.Tensor", Sequence[np.ndarray],
                           Sequence["torch.Tensor"]],
            sampling_rate: int,
            lengths: Optional[Union[np.ndarray, "torch.Tensor"]] = None,
    ) -> Union[np.ndarray, "torch.Tensor", List[np.ndarray],
               List["torch.Tensor"]]:
        """Features of each item, computed concurrently on the device (the
        batch of a list, or of a padded (batch, samples) tensor with
        ``lengths``), each exactly what :meth:`extract` gives for it
        alone (lhotse's own Fbank zero-pads the batch, which changes the
        last frames of the shorter items).  A list in the input's order
        (always with ``lengths``), or one stacked array when all have the
        same shape, as lhotse's extract_batch gives."""
        self._check_rate(sampling_rate)
        is_list = isinstance(samples, (list, tuple))
        if lengths is not None:
            if isinstance(lengths, torch.Tensor):
                lengths = lengths.cpu().numpy()
            tensor = isinstance(samples, torch.Tensor)
            rows = samples.detach().cpu().numpy() if tensor \
                else np.asarray(samples)
            if rows.ndim != 2 or len(lengths) != rows.shape[0]:
                raise Error("extract_batch: with lengths, samples must be a "
                            "padded (batch, samples) array of as many rows "
                            "as lengths (got shape %s and %d lengths)" %
                            (rows.shape, len(lengths)))
            items = [np.ascontiguousarray(r[:int(n)])
                     for r, n in zip(rows, lengths)]
        else:
            if not is_list:
                if isinstance(samples, torch.Tensor) or \
                        getattr(samples, "ndim", 0) > 1:
                    samples = list(samples)
                else:
                    samples = [samples]
            items, tensor = [], False
            for i, s in enumerate(samples):
                a, t = self._mono(s, "samples[%d]" % i)
                items.append(a)
                tensor = tensor or t
        fs = self._extractor().extract_batch(items, sampling_rate,
                                             allow_empty=True)
        out = [self._result(f, a.shape[0], sampling_rate)
               for f, a in zip(fs, items)]
        if tensor:
            out = [torch.from_numpy(x) for x in out]
        if lengths is not None:
            # always a list: lhotse's own gives a batch of one as its
            # matrix, which compute_and_store_features_batch(collate=True)
            # then stores row by row
            return out
        if len(out) == 1 and not is_list:
            return out[0]
        if not is_list and len(out) > 1 and \
                all(x.shape == out[0].shape for x in out[1:]):
            return torch.stack(out) if tensor else np.stack(out)
        return out


@register_extractor
class AfetFbank(_AfetExtractor):
    """Log mel filter bank (lhotse's ``Fbank`` under preset lhotse, Kaldi's
    compute-fbank-feats under preset kaldi), computed by afet."""
    name = "afet-fbank"
    config_type = AfetFbankConfig

    # feature-domain mixing of log mel energies, as lhotse's Fbank
    mix = staticmethod(_LhotseFbank.mix)
    compute_energy = staticmethod(_LhotseFbank.compute_energy)
    scale = staticmethod(_LhotseFbank.scale)


@register_extractor
class AfetMfcc(_AfetExtractor):
    """MFCC (lhotse's ``Mfcc`` under preset lhotse, Kaldi's
    compute-mfcc-feats under preset kaldi), computed by afet."""
    name = "afet-mfcc"
    config_type = AfetMfccConfig


@register_extractor
class AfetPlp(_AfetExtractor):
    """Kaldi's PLP (compute-plp-feats), computed by afet."""
    name = "afet-plp"
    config_type = AfetPlpConfig


@register_extractor
class AfetWhisperFbank(_AfetExtractor):
    """Whisper's log-mel spectrogram (lhotse's ``WhisperFbank``), computed
    by afet; 16 kHz audio."""
    name = "afet-whisper-fbank"
    config_type = AfetWhisperConfig
    _rate = 16000

    def _finish(self, feats, num_samples, sampling_rate):
        # Whisper gives samples // 160 frames; lhotse's WhisperFbank pads
        # them with zeros to the round(samples / 160) lhotse counts per cut
        # (its manifests are checked against that)
        n = compute_num_frames_from_samples(
            num_samples, self.frame_shift, sampling_rate)
        if feats.shape[0] < n:
            pad = np.zeros((n - feats.shape[0], feats.shape[1]), np.float32)
            feats = np.concatenate([feats, pad])
        return feats
