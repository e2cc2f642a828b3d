# The afet module's exceptions (afet.Error and its kinds) and how a bus
# message or a parse failure becomes one.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""afet.Error and its kinds, made from GStreamer's errors."""

import re

from gi.repository import GLib, Gst


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
    from ._setup import plugin_missing_hint
    message = exc.message
    if 'no element "afet' in message and \
            Gst.ElementFactory.find("afetmfcc") is None:
        message += " (%s)" % plugin_missing_hint()
    return Error("could not build the pipeline '%s': %s" % (description,
                                                          message),
                 domain="gst-parse-error-quark", code=exc.code)
