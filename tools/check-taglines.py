#!/usr/bin/env python3
# Checks that every tracked source file opens with a sentence saying what it
# holds, not the project's bare tagline: the meson test `taglines`.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Source files: .c .cc .h .cl .py .sh and meson.build, as `git ls-files` in
# SOURCE_ROOT lists them. A file fails when its first line (after a #! line)
# is the bare tagline, or when none of its first 3 lines (after a #! line) is
# a descriptive comment: a comment (for Python also the module docstring)
# of at least three words that is not the tagline, a copyright or an SPDX
# line. Lists the failing files and exits 1; exits 77 (skipped) outside a
# git checkout.
#   check-taglines.py SOURCE_ROOT

import os
import re
import subprocess
import sys

# files allowed to open without a description (none now; a file edited
# elsewhere may stand here for a while)
ALLOWED = [
]

SOURCE = re.compile(r"(\.(c|cc|h|cl|py|sh)|(^|/)meson\.build)$")
TAGLINES = ("afet — speech features on OpenCL",
    "afet - speech feature extraction")
# what a comment line holds besides its text
C_MARKS = re.compile(r"^\s*(/\*+|\*+/?|//+)\s*|\s*\*+/\s*$")
HASH_MARKS = re.compile(r"^\s*#+\s*")
DOCSTRING = re.compile(r"^\s*[rRuU]?(\"\"\"|''')\s*|\s*(\"\"\"|''')\s*$")


def comment_texts(path, lines):
    """The text of each comment line among the first 3 (after a #! line);
    None for a line that is not a comment."""
    if lines and lines[0].startswith("#!"):
        lines = lines[1:]
    lines = lines[:3]
    c_like = re.search(r"\.(c|cc|h|cl)$", path) is not None
    texts = []
    in_block = False                # inside /* ... */ or a docstring
    for line in lines:
        s = line.strip()
        if c_like:
            if in_block or s.startswith("/*") or s.startswith("//"):
                texts.append(C_MARKS.sub("", s).strip())
                if s.startswith("/*"):
                    in_block = True
                if s.endswith("*/"):
                    in_block = False
            else:
                texts.append(None)
        else:
            if path.endswith(".py") and (in_block or DOCSTRING.match(s)):
                texts.append(DOCSTRING.sub("", s).strip())
                # an odd count of quotes opens or closes the docstring
                if (s.count('"""') + s.count("'''")) % 2 == 1:
                    in_block = not in_block
            elif s.startswith("#"):
                texts.append(HASH_MARKS.sub("", s).strip())
            else:
                texts.append(None)
    return texts


def problem(path, text):
    lines = text.split("\n")
    texts = comment_texts(path, lines)
    if texts and texts[0] and texts[0].startswith(TAGLINES):
        return "opens with the bare tagline"
    for t in texts:
        if t is None or t == "afet":
            continue
        if t.startswith(TAGLINES) or t.startswith("Copyright") or \
                "SPDX-License-Identifier" in t:
            continue
        if len(t.split()) >= 3:
            return None
    return "no descriptive comment in its first 3 lines"


def main():
    if len(sys.argv) != 2:
        print("usage: check-taglines.py SOURCE_ROOT", file=sys.stderr)
        return 2
    root = sys.argv[1]
    try:
        files = subprocess.run(["git", "-C", root, "ls-files", "-z"],
            check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError) as e:
        print("skipped: %s is not a git checkout (%s)" % (root, e))
        return 77
    failed = []
    checked = 0
    for path in sorted(f for f in files if SOURCE.search(f)):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue                # deleted in the work tree
        checked += 1
        with open(full, encoding="utf-8", errors="replace") as f:
            why = problem(path, f.read(4096))
        if path in ALLOWED:
            if why is None:
                print("note: %s is described now: take it off ALLOWED" % path)
            continue
        if why:
            failed.append("%s: %s" % (path, why))
    for line in failed:
        print(line)
    print("%d source files checked, %d without a sentence saying what they "
        "hold, %d allowed for now" % (checked, len(failed), len(ALLOWED)))
    if failed:
        print("Open each file with one sentence saying what it holds, in "
            "place of the tagline (the copyright and SPDX lines stay).")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
