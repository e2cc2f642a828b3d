#!/usr/bin/env python3
# Checks the docs against the tree: the file table of architecture.md and
# every relative link; a test (docs).
"""Checks the docs against the tree: (a) docs/architecture.md's file table
names every tracked source file outside tests/ (.c .cc .h .cl .py .sh) and
no file that does not exist; (b) every relative markdown link (file and
#anchor) in README.md and docs/**/*.md resolves. Exit 1 listing what is
wrong, 77 (skipped) where the tree is not a git checkout.

    check-docs.py [SOURCE_ROOT]
"""
import os
import re
import subprocess
import sys

# A file the table may name by a new name while a rename is in flight
# (new name -> the tracked name it stands for); none now.
ALIASES = {}

SOURCE_EXT = ('.c', '.cc', '.h', '.cl', '.py', '.sh')
FILE_TABLE = 'docs/architecture.md'
TABLE_HEADING = 'Files'


def expand(path):
    """`a/b.{h,cc}` -> a/b.h, a/b.cc (one brace group at most)."""
    m = re.match(r'^(.*)\{([^}]*)\}(.*)$', path)
    if not m:
        return [path]
    return [m.group(1) + part + m.group(3) for part in m.group(2).split(',')]


def table_paths(md):
    """The paths in backticks in the table rows of the section named
    TABLE_HEADING (and its subsections)."""
    out, inside, level = [], False, 0
    for line in open(md, encoding='utf-8'):
        h = re.match(r'^(#{1,6})\s+(.*?)\s*$', line)
        if h:
            if inside and len(h.group(1)) <= level:
                inside = False
            if h.group(2) == TABLE_HEADING:
                inside, level = True, len(h.group(1))
            continue
        if not inside or not line.startswith('|'):
            continue
        first = line.strip().strip('|').split('|')[0]
        for p in re.findall(r'`([^`\s]+)`', first):
            if '/' in p:
                out.extend(expand(p))
    return out


def check_file_table(root):
    try:
        tracked = subprocess.run(['git', 'ls-files'], cwd=root, check=True,
                                 capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as e:
        return None, ['not a git checkout (%s): the file table is not checked'
                      % e]
    tracked_set = set(tracked)
    sources = [f for f in tracked
               if not f.startswith('tests/') and f.endswith(SOURCE_EXT)]
    named = table_paths(os.path.join(root, FILE_TABLE))
    bad = []
    if not named:
        bad.append('%s: no section "%s" with a file table'
                   % (FILE_TABLE, TABLE_HEADING))
    covered = set()
    for p in named:
        real = p if p in tracked_set else ALIASES.get(p)
        if real is None or real not in tracked_set:
            bad.append('%s: the file table names %s, which is not tracked'
                       % (FILE_TABLE, p))
        else:
            covered.add(real)
    for f in sources:
        if f not in covered:
            bad.append('%s: the file table does not name %s: add a row'
                       % (FILE_TABLE, f))
    return len(named), bad


def slugs(path):
    """GitHub's anchors of the headings of a markdown file."""
    out, seen, fence = set(), {}, False
    for line in open(path, encoding='utf-8'):
        if line.lstrip().startswith('```'):
            fence = not fence
            continue
        m = None if fence else re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', m.group(2)).lower()
        t = re.sub(r'[^\w\- ]', '', t).replace(' ', '-')
        n = seen.get(t, 0)
        seen[t] = n + 1
        out.add(t if n == 0 else '%s-%d' % (t, n))
    return out


def check_links(root):
    mds = [os.path.join(root, 'README.md')]
    for d, _, files in os.walk(os.path.join(root, 'docs')):
        mds += [os.path.join(d, f) for f in sorted(files) if f.endswith('.md')]
    bad, n = [], 0
    for md in mds:
        text = open(md, encoding='utf-8').read()
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        text = re.sub(r'`[^`\n]*`', '', text)
        for m in re.finditer(r'\]\(([^)\s]+)\)', text):
            t = m.group(1)
            if re.match(r'[a-z]+:', t):
                continue
            n += 1
            f, _, a = t.partition('#')
            p = os.path.normpath(os.path.join(os.path.dirname(md), f)) \
                if f else md
            rel = os.path.relpath(md, root)
            if not os.path.exists(p):
                bad.append('%s: broken link %s (no such file)' % (rel, t))
            elif a and p.endswith('.md') and a not in slugs(p):
                bad.append('%s: broken link %s (no such heading)' % (rel, t))
    return n, bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    named, bad_files = check_file_table(root)
    links, bad_links = check_links(root)
    for line in bad_files + bad_links:
        print(line)
    if named is None:
        print('%d links checked' % links)
        return 1 if bad_links else 77
    print('%d paths in the file table, %d links checked, %d problems'
          % (named, links, len(bad_files) + len(bad_links)))
    return 1 if bad_files or bad_links else 0


if __name__ == '__main__':
    sys.exit(main())
