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

    feats = afet.extract(samples, rate=16000)   # a 1-D NumPy array
    batch = afet.extract_batch([a, b, c], 16000)  # concurrently, in order
    with afet.Extractor("afetmfcc ! afetdelta") as ex:  # kept across calls
        ex("a.wav"), ex(samples, rate=16000), ex.extract_batch(arrays, 16000)

    for block in afet.stream("autoaudiosrc", pipeline="afetmfcc"):
        ...                 # arrays as the buffers arrive

Errors posted on the pipeline's bus (a missing file, a stream an element
refuses, an unknown element) raise :class:`afet.Error` with GStreamer's
message; a run that ends without a single frame raises
:class:`afet.NoFramesError` unless ``allow_empty=True``.

The afet plugin is found as GStreamer finds any plugin: installed, or
through ``GST_PLUGIN_PATH`` (a build tree's ``build/gst``), or with
``afet.init(plugin_path=...)``; failing those, in a source checkout's
``build/gst`` and under /usr/local (``afet.plugin_file()`` says which).
Importing checks NumPy, PyGObject and GStreamer's introspection data and
names the package to install when one is missing; ``python3 -m afet``
checks the plugin too.  See docs/python.md.

The parts: _errors (the exceptions), _setup (GStreamer's initialisation,
the fork guard), layout (FeatureInfo), results (Features, Block), _running
(one run of a pipeline), files (extract, extract_batch, Extractor, run,
read), arrays (NumPy arrays in, through appsrc), live
(stream, Stream), _capsapi (the caps library's names through ctypes).
"""

# What the module needs from the system, checked here so that a missing
# piece says what to install (pip installs NumPy; PyGObject and GStreamer
# come from the system's packages).
try:
    import numpy as _numpy  # noqa: F401
except ImportError as e:
    raise ImportError("afet needs NumPy: pip install numpy, or on Debian "
                      "apt-get install python3-numpy (%s)" % e) from None
try:
    import gi
except ImportError as e:
    raise ImportError(
        "afet needs PyGObject (the 'gi' module), which comes from the "
        "system: on Debian apt-get install python3-gi "
        "gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0; in a virtual "
        "environment, make it with python3 -m venv --system-site-packages "
        "so that the system's gi is seen (or pip install PyGObject, which "
        "builds against the system's gobject-introspection) (%s)" % e) \
        from None
try:
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst as _Gst  # noqa: F401
except (ImportError, ValueError) as e:
    raise ImportError(
        "afet needs GStreamer 1.0 and its introspection data: on Debian "
        "apt-get install gir1.2-gstreamer-1.0 gstreamer1.0-plugins-base "
        "gstreamer1.0-plugins-good (%s)" % e) from None

from ._errors import Error, NoFramesError, NotFoundError  # noqa: E402
from ._setup import FEATURES_MEDIA_TYPE as _MEDIA_TYPE  # noqa: E402
from ._setup import init, plugin_file  # noqa: E402
from .files import (Extractor, extract, extract_batch,  # noqa: E402
                    file_pipeline, read, read_archive, run)
from .layout import FeatureInfo, mel_centres  # noqa: E402
from .live import Stream, stream  # noqa: E402
from .results import Block, Features  # noqa: E402

__version__ = "0.1.0"

# the media type of afet's feature caps, afet.FEATURES_MEDIA_TYPE as before
FEATURES_MEDIA_TYPE = _MEDIA_TYPE

__all__ = [
    "Error", "NotFoundError", "NoFramesError", "FeatureInfo", "Features",
    "Block", "Extractor", "Stream", "init", "extract", "extract_batch",
    "read",
    "read_archive", "run", "stream", "file_pipeline", "mel_centres",
    "plugin_file",
]
