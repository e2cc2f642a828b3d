#!/usr/bin/env python3
# Writes docs/elements.md from the plugin itself, or with --check fails when
# the page differs from what the plugin gives now.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes docs/elements.md from the plugin itself: every element of the
afet plugin with its description, pad templates, properties (type, range
or values, default, flags, blurb) and a launch line. With --check FILE it
writes nothing and fails (exit 1, with a diff) when FILE is not what the
plugin gives now, so that the reference cannot go stale.

    GST_PLUGIN_PATH=build/gst python3 tools/gen-elements-doc.py > docs/elements.md
    GST_PLUGIN_PATH=build/gst python3 tools/gen-elements-doc.py --check docs/elements.md
"""
import difflib
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GObject, Gst
except (ImportError, ValueError) as e:
    print("gen-elements-doc: PyGObject with GStreamer's introspection data "
          "is needed (python3-gi, gir1.2-gstreamer-1.0): %s" % e)
    sys.exit(77)

# One launch line an element: what it is typically used for.
LAUNCH = {
    "afetframer": "gst-launch-1.0 filesrc location=speech.wav ! wavparse ! "
                  "afetframer energy=true ! afetmfcc energy=true ! fakesink",
    "afetmfcc": "gst-launch-1.0 filesrc location=speech.wav ! wavparse ! "
                "audioconvert ! audioresample ! afetmfcc ! afetenc ! "
                "filesink location=speech.mfc",
    "afetplp": "gst-launch-1.0 filesrc location=speech.wav ! wavparse ! "
               "afetplp ! afetdelta ! afetenc ! filesink location=speech.plp",
    "afetdelta": "gst-launch-1.0 filesrc location=speech.wav ! wavparse ! "
                 "afetmfcc ! afetdelta delta-window=3 accel-window=3 ! "
                 "fakesink",
    "afettraps": "gst-launch-1.0 filesrc location=speech.wav ! wavparse ! "
                 "afettraps num-filters=15 ! fakesink",
    "afetspectrogram": "gst-launch-1.0 filesrc location=speech.wav ! "
                       "wavparse ! afetspectrogram preset=kaldi ! fakesink",
    "afetcmvn": "gst-launch-1.0 autoaudiosrc ! audioconvert ! audioresample "
                "! afetmfcc ! afetdelta ! afetcmvn scope=sliding ! fakesink",
    "afetenc": "gst-launch-1.0 filesrc location=speech.wav ! wavparse ! "
               "afetmfcc preset=kaldi ! afetenc format=npy ! "
               "filesink location=speech.npy",
    "afetparse": "gst-launch-1.0 filesrc location=speech.mfc ! afetparse ! "
                 "afetdelta ! afetenc ! filesink location=speech_d.mfc",
}

FLAG_NAMES = [
    (GObject.ParamFlags.READABLE, "readable"),
    (GObject.ParamFlags.WRITABLE, "writable"),
    (Gst.PARAM_MUTABLE_READY, "changeable only in NULL or READY"),
    (Gst.PARAM_MUTABLE_PLAYING, "changeable in PLAYING"),
]


def fmt_number(v):
    if isinstance(v, float):
        r = "%.9g" % v
        return r
    return str(v)


def describe_type(spec):
    """(type text, range text, default text) of a property."""
    t = spec.value_type
    name = GObject.type_name(t)
    default = spec.default_value
    if GObject.type_is_a(t, GObject.TYPE_ENUM):
        values = spec.enum_class.__enum_values__
        vals = ["`%s` (%d)" % (values[k].value_nick, k) for k in sorted(values)]
        d = values[int(default)].value_nick
        return "enum %s" % name, ", ".join(vals), "`%s`" % d
    if t in (GObject.TYPE_BOOLEAN,):
        return "boolean", "", "`%s`" % ("true" if default else "false")
    if t == GObject.TYPE_STRING:
        return "string", "", "`%s`" % default if default else "(none)"
    if t in (GObject.TYPE_INT, GObject.TYPE_UINT, GObject.TYPE_INT64,
             GObject.TYPE_UINT64, GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT,
             GObject.TYPE_LONG, GObject.TYPE_ULONG):
        rng = "%s .. %s" % (fmt_number(spec.minimum), fmt_number(spec.maximum))
        return name, rng, "`%s`" % fmt_number(default)
    return name, "", "`%s`" % default


def flags_text(spec):
    return ", ".join(n for f, n in FLAG_NAMES if spec.flags & f)


def element_doc(factory):
    name = factory.get_name()
    out = ["## %s" % name, ""]
    out.append("%s — %s" % (
        factory.get_metadata(Gst.ELEMENT_METADATA_LONGNAME),
        factory.get_metadata(Gst.ELEMENT_METADATA_DESCRIPTION)))
    out.append("")
    out.append("Class: %s" % factory.get_metadata(Gst.ELEMENT_METADATA_KLASS))
    out.append("")
    if name in LAUNCH:
        out += ["```sh", LAUNCH[name], "```", ""]
    out += ["### Pads", ""]
    for tmpl in sorted(factory.get_static_pad_templates(),
                       key=lambda t: t.name_template):
        direction = "sink" if tmpl.direction == Gst.PadDirection.SINK else "src"
        caps = tmpl.get_caps().to_string()
        caps = caps.replace("; ", ";\n")
        out += ["`%s` (%s, %s):" % (tmpl.name_template, direction,
                                    tmpl.presence.value_nick), "",
                "```", caps, "```", ""]
    element = factory.create(None)
    specs = [s for s in GObject.list_properties(element)
             if s.owner_type != GObject.TYPE_OBJECT
             and GObject.type_name(s.owner_type) not in ("GstObject",
                                                         "GstElement",
                                                         "GstBaseTransform")]
    out += ["### Properties", ""]
    if not specs:
        out += ["(none of its own)", ""]
    else:
        out += ["| property | type | range or values | default | flags | "
                "what it does |", "|---|---|---|---|---|---|"]
        for s in sorted(specs, key=lambda s: s.name):
            t, rng, d = describe_type(s)
            blurb = s.blurb.replace("|", "\\|")
            out.append("| `%s` | %s | %s | %s | %s | %s |" % (
                s.name, t, rng.replace("|", "\\|"), d, flags_text(s), blurb))
        out.append("")
    return out


def document():
    Gst.init(None)
    plugin = Gst.Registry.get().find_plugin("afet")
    if plugin is None:
        sys.exit("gen-elements-doc: the afet plugin is not found: set "
                 "GST_PLUGIN_PATH to the build's gst folder")
    factories = sorted(
        (f for f in Gst.Registry.get().get_feature_list_by_plugin("afet")
         if isinstance(f, Gst.ElementFactory)), key=lambda f: f.get_name())
    out = ["# afet's elements", "",
           "<!-- generated by tools/gen-elements-doc.py from the plugin; "
           "the elements-doc test fails when it is stale -->", "",
           "Every element of the `afet` plugin (%s), as the plugin describes "
           "itself: pads, properties with their ranges, defaults and flags, "
           "and a launch line. `gst-inspect-1.0 NAME` prints the same "
           "live." % plugin.get_version(), ""]
    for f in factories:
        out.append("- [%s](#%s)" % (f.get_name(), f.get_name()))
    out.append("")
    for f in factories:
        out += element_doc(f)
    return "\n".join(out) + "\n"


def main():
    text = document()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2], encoding="utf-8") as f:
            have = f.read()
        if have != text:
            sys.stdout.writelines(difflib.unified_diff(
                have.splitlines(True), text.splitlines(True), sys.argv[2],
                "the plugin now"))
            print("%s is stale: run tools/gen-elements-doc.py (see its "
                  "header)" % sys.argv[2])
            return 1
        print("%s matches the plugin" % sys.argv[2])
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
