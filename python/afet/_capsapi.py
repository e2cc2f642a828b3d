# The names of a feature stream's layout (HTK-style, and column by column)
# from afet's caps library, libgstafetfeatures-1.0, called through ctypes.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet_features_info_htk_name() and afet_features_info_column_name()
through ctypes: the naming exists once, in C, and FeatureInfo wraps it."""

import ctypes
import functools
import threading

from gi.repository import Gst

from ._errors import Error
from ._setup import init

# the caps library's soname: the afet plugin links it, so once the plugin
# is loaded, dlopen() by soname finds the very copy the plugin uses (a
# build tree's or the installed one)
FEATURES_LIB = "libgstafetfeatures-1.0.so.0"
_GST_LIB = "libgstreamer-1.0.so.0"
_GLIB_LIB = "libglib-2.0.so.0"

_lock = threading.Lock()
_api = None


class _Api:
    """The three libraries with the argument and result types of the
    functions used here set (without them ctypes would cut pointers to
    ints)."""

    def __init__(self, features, gst, glib):
        f = features
        f.afet_features_info_new.restype = ctypes.c_void_p
        f.afet_features_info_new.argtypes = []
        f.afet_features_info_free.restype = None
        f.afet_features_info_free.argtypes = [ctypes.c_void_p]
        f.afet_features_info_from_caps.restype = ctypes.c_int
        f.afet_features_info_from_caps.argtypes = [ctypes.c_void_p,
                                                   ctypes.c_void_p]
        # the names are g_malloc'ed: kept as pointers to be freed
        f.afet_features_info_htk_name.restype = ctypes.c_void_p
        f.afet_features_info_htk_name.argtypes = [ctypes.c_void_p]
        f.afet_features_info_column_name.restype = ctypes.c_void_p
        f.afet_features_info_column_name.argtypes = [ctypes.c_void_p,
                                                     ctypes.c_uint]
        gst.gst_caps_from_string.restype = ctypes.c_void_p
        gst.gst_caps_from_string.argtypes = [ctypes.c_char_p]
        gst.gst_caps_unref.restype = None
        gst.gst_caps_unref.argtypes = [ctypes.c_void_p]
        glib.g_free.restype = None
        glib.g_free.argtypes = [ctypes.c_void_p]
        self.features, self.gst, self.glib = f, gst, glib

    def take_string(self, ptr):
        """The text of a g_malloc'ed string, which is then freed."""
        if not ptr:
            return None
        try:
            return ctypes.string_at(ptr).decode("utf-8")
        finally:
            self.glib.g_free(ptr)


def _load(soname=FEATURES_LIB):
    """The caps library, found in the process once the afet plugin is
    loaded; afet.Error when it cannot be found."""
    init()
    factory = Gst.ElementFactory.find("afetenc")
    if factory is not None:
        factory.load()
    try:
        features = ctypes.CDLL(soname)
        features.afet_features_info_column_name
        gst = ctypes.CDLL(_GST_LIB)
        glib = ctypes.CDLL(_GLIB_LIB)
    except (OSError, AttributeError) as e:
        raise Error("could not load afet's caps library %s, which names "
                    "the columns (%s)%s: install afet, set GST_PLUGIN_PATH "
                    "to afet's build/gst directory or call "
                    "afet.init(plugin_path=...)" % (
                        soname, e, "" if factory is not None else
                        "; the afet plugin was not found either")) from None
    return _Api(features, gst, glib)


def _get_api():
    global _api
    with _lock:
        if _api is None:
            _api = _load()
        return _api


@functools.lru_cache(maxsize=256)
def layout_names(caps, dims):
    """(HTK-style name, tuple of the dims column names) of the layout that
    caps (an application/x-afet-features caps string) describe."""
    api = _get_api()
    c = api.gst.gst_caps_from_string(caps.encode("utf-8"))
    if not c:
        raise Error("could not parse caps: %s" % caps)
    info = api.features.afet_features_info_new()
    try:
        if not api.features.afet_features_info_from_caps(info, c):
            raise Error("afet's caps library refuses the layout %s (run "
                        "with GST_DEBUG=afetfeatures:4 to see why)" % caps)
        htk = api.take_string(api.features.afet_features_info_htk_name(info))
        columns = tuple(api.take_string(
            api.features.afet_features_info_column_name(info, j))
            for j in range(dims))
    finally:
        api.features.afet_features_info_free(info)
        api.gst.gst_caps_unref(c)
    if htk is None or None in columns:
        raise Error("afet's caps library gave no names for %s" % caps)
    return htk, columns
