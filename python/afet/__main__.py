# `python3 -m afet`: checks what the afet module needs and says where its
# plugin was found, with one short extraction.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3 -m afet [--plugin-path DIR]: the module's version and place,
GStreamer's version, the afet plugin's file and one extraction of a
second of a tone; exit 1 with what to do when something is missing (a
missing PyGObject or GStreamer already fails the import, naming the
package)."""

import argparse
import os
import sys

import numpy as np

import afet
from afet import _setup


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m afet",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--plugin-path", help="a directory to load plugins "
                    "from first, as afet.init(plugin_path=...)")
    args = ap.parse_args(argv)
    from gi.repository import Gst
    afet.init(plugin_path=args.plugin_path)
    print("afet %s (%s)" % (afet.__version__,
                            os.path.dirname(os.path.abspath(afet.__file__))))
    print(Gst.version_string())
    plugin = afet.plugin_file()
    if plugin is None:
        print("afet: %s" % _setup.plugin_missing_hint(), file=sys.stderr)
        return 1
    print("plugin %s" % plugin)
    t = np.arange(16000) / 16000.0
    try:
        feats = afet.extract((0.1 * np.sin(2 * np.pi * 440 * t)).astype(
            np.float32), rate=16000)
    except afet.Error as e:
        print("afet: extracting a tone failed: %s" % e, file=sys.stderr)
        return 1
    print("extract: %r (a second of a 440 Hz tone)" % feats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
