# The afet module's set-up: GStreamer's initialisation, the fork guard and
# the constants the other parts share.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer's initialisation, the fork guard, shared constants."""

import os
import sysconfig
import threading

from gi.repository import Gst

from ._errors import Error


FEATURES_MEDIA_TYPE = "application/x-afet-features"
_SINK = "afet_sink"
_SRC = "filesrc"
_POLL_NS = 50 * Gst.MSECOND      # how long one pull waits before the bus is read
_STOP_GRACE = 2.0   # seconds a stop after a timeout may take before it is left
_CLOCK_NONE = Gst.CLOCK_TIME_NONE


_init_lock = threading.Lock()

# Where afet's plugin is looked for when GStreamer has none (its own path,
# GST_PLUGIN_PATH and GST_PLUGIN_SYSTEM_PATH found nothing): the build tree
# beside this module in a source checkout (python/afet -> build/gst), and
# where `ninja install` puts it under meson's default prefix /usr/local,
# which GStreamer does not search.  A module attribute so that a test can
# empty it.
_PLUGIN_FILE = "libgstafet.so"
_PLUGIN_PREFIXES = ("/usr/local",)
_searched = None        # the directories looked in, for the error's text

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


def _mark_run():
    """Called as a pipeline starts: refuses to run in a child forked after
    afet ran (it would hang), else notes that afet ran.  The fork state
    lives here alone: other modules call this, never copy the flags."""
    global _ran
    if _forked_after_run:
        raise Error("this process was forked from one that had already "
                    "run afet, whose OpenCL context does not survive "
                    "fork(): start worker processes with the 'spawn' or "
                    "'forkserver' method (multiprocessing.get_context"
                    "('spawn'), DataLoader(multiprocessing_context="
                    "'spawn')), or use afet only in the workers")
    _ran = True


def init(plugin_path=None):
    """Initialises GStreamer (done for you by every function here) and,
    with ``plugin_path`` (a directory, or several joined with os.pathsep),
    loads the plugins found there, e.g. afet's ``build/gst``.

    When GStreamer finds no afet plugin (installed in the system's plugin
    directory, or through ``GST_PLUGIN_PATH``), the first call looks in a
    source checkout's ``build/gst`` beside this module and in
    ``/usr/local/lib/<arch>/gstreamer-1.0`` (``ninja install``'s default);
    :func:`plugin_file` says which one was loaded."""
    global _searched
    with _init_lock:
        if not Gst.is_initialized():
            Gst.init(None)
    if plugin_path:
        registry = Gst.Registry.get()
        for d in str(plugin_path).split(os.pathsep):
            if d:
                registry.scan_path(d)
    with _init_lock:
        if _searched is not None:         # looked once already
            return
        if Gst.ElementFactory.find("afetmfcc") is not None:
            _searched = []
        else:
            _searched = _fallback_dirs()
            for d in _searched:
                if os.path.isfile(os.path.join(d, _PLUGIN_FILE)):
                    Gst.Registry.get().scan_path(d)
                    if Gst.ElementFactory.find("afetmfcc") is not None:
                        break


def _fallback_dirs():
    top = os.path.normpath(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), os.pardir, os.pardir))
    dirs = []
    if os.path.isfile(os.path.join(top, "meson.build")):   # a checkout
        dirs.append(os.path.join(top, "build", "gst", "elements"))
    arch = sysconfig.get_config_var("MULTIARCH")
    for prefix in _PLUGIN_PREFIXES:
        if arch:
            dirs.append(os.path.join(prefix, "lib", arch, "gstreamer-1.0"))
        dirs.append(os.path.join(prefix, "lib64", "gstreamer-1.0"))
        dirs.append(os.path.join(prefix, "lib", "gstreamer-1.0"))
    return dirs


def plugin_file():
    """The file afet's plugin was loaded from, or None when GStreamer has
    not found it (see :func:`init`)."""
    init()
    f = Gst.ElementFactory.find("afetmfcc")
    plugin = f.get_plugin() if f is not None else None
    return plugin.get_filename() if plugin is not None else None


def plugin_missing_hint():
    """What to do when afet's plugin is not found, with where it was looked
    for."""
    where = ["GStreamer's plugin path (GST_PLUGIN_PATH=%s, "
             "GST_PLUGIN_SYSTEM_PATH=%s)" % (
                 os.environ.get("GST_PLUGIN_PATH_1_0",
                                os.environ.get("GST_PLUGIN_PATH", "")),
                 os.environ.get("GST_PLUGIN_SYSTEM_PATH_1_0",
                                os.environ.get("GST_PLUGIN_SYSTEM_PATH",
                                               "its default")))]
    where += _searched or []
    return ("the afet plugin (%s) was not found in %s: install it "
            "(ninja -C build install), set GST_PLUGIN_PATH to afet's "
            "build/gst directory, or call afet.init(plugin_path=...) first" %
            (_PLUGIN_FILE, ", ".join(where)))


# what provides the GStreamer elements the module builds its pipelines of
# (Debian's packages)
_PROVIDERS = {"appsrc": "gstreamer1.0-plugins-base",
              "appsink": "gstreamer1.0-plugins-base",
              "audioconvert": "gstreamer1.0-plugins-base",
              "audioresample": "gstreamer1.0-plugins-base",
              "decodebin": "gstreamer1.0-plugins-base",
              "capsfilter": "libgstreamer1.0-0",
              "filesrc": "libgstreamer1.0-0"}


def _make(factory, name=None):
    e = Gst.ElementFactory.make(factory, name)
    if e is None:
        if factory in _PROVIDERS:
            raise Error("GStreamer has no element '%s': install the plugins "
                        "that provide it (Debian: apt-get install %s)" %
                        (factory, _PROVIDERS[factory]))
        raise Error("GStreamer has no element '%s' (is the plugin that "
                    "provides it installed?)" % factory)
    return e
