#!/usr/bin/env python3
"""Writes a kallsyms for the kernel that made the committed perf.data
files, from what `perf script -g` printed of them on that kernel.

    make-kallsyms.py SCRIPT.txt... >kallsyms

perf 6.1 stores no kallsyms in a perf.data: perf and kmemtrace take them
from perf's build-id cache or from the running kernel when it is the one
recorded.  Neither is on a test machine, so the tests give both tools a
build-id cache (PERF_BUILDID_DIR) holding this file.  Each frame line
"ADDR NAME+0xOFF ([kernel.kallsyms])" gives a symbol's start, ADDR - OFF:
the symbols of every frame in the stacks are right, and an address past
them (a slab call_site no stack went through) may be named after the
symbol before it, so tests look only at names from stacks.  The kernel
was not randomised (its map starts at 0xffffffff81000000, _text).
"""
import re
import sys

FRAME = re.compile(r"^\s+([0-9a-f]{16}) ([^\s+]+)\+0x([0-9a-f]+) \(\[kernel\.kallsyms\]\)$")
TEXT = 0xffffffff81000000

syms = {TEXT: "_text"}
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            m = FRAME.match(line)
            if m:
                start = int(m.group(1), 16) - int(m.group(3), 16)
                syms.setdefault(start, m.group(2))
if len(syms) < 2:
    sys.exit("make-kallsyms.py: no kernel frames in " + " ".join(sys.argv[1:]))
for addr in sorted(syms):
    print("%016x T %s" % (addr, syms[addr]))
