# The afet module's set-up: GStreamer's initialisation, the fork guard and
# the constants the other parts share.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer's initialisation, the fork guard, shared constants."""

import os
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
