#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compares the groupings of two page_owner_sort-style outputs.

    compare.py A B

Each output is a list of blocks "N times, M pages[, ...][:]" followed by
the record or stack text.  Two outputs group alike when they hold the
same multiset of (times, pages, fields, text); the order of blocks and
the "allocated by" label (page_owner_sort and kmemtrace classify
allocators differently) are left out.  Exit 0 when alike, 1 otherwise,
with the first differences on stdout.
"""
import collections
import re
import sys

HEAD = re.compile(r'^(\d+) times, (\d+) pages(.*)$')


def blocks(path):
    groups = collections.Counter()
    cur = None
    body = []

    def flush():
        if cur is not None:
            groups[(cur, '\n'.join(body).rstrip('\n'))] += 1

    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = HEAD.match(line)
            if m:
                flush()
                rest = re.sub(r',? ?allocated by [A-Z_ ]*', '', m.group(3))
                rest = rest.rstrip(' :')
                cur = (int(m.group(1)), int(m.group(2)), rest)
                body = []
            elif cur is not None and line:
                body.append(line)
    flush()
    return groups


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
    if a == b:
        print('same groupings: %d groups' % sum(a.values()))
        return 0
    only_a = a - b
    only_b = b - a
    print('groupings differ: %d groups only in %s, %d only in %s' %
          (sum(only_a.values()), sys.argv[1], sum(only_b.values()),
           sys.argv[2]))
    for name, d in ((sys.argv[1], only_a), (sys.argv[2], only_b)):
        for (head, text), _ in list(d.items())[:3]:
            print('-- only in %s: %s\n%s' % (name, head, text[:400]))
    return 1


if __name__ == '__main__':
    sys.exit(main())
