#!/usr/bin/env python3
"""Compares every summary figure of `perf kmem stat` with kmemtrace's.

    compare-perf-kmem.py PERF_TEXT KMEMTRACE_JSON

PERF_TEXT is the output of `perf kmem --slab --page stat -i FILE` (either
section may be absent); KMEMTRACE_JSON is `kmemtrace report --slab --page
--json -i FILE`, with --alloc for perf's Total bytes freed: perf counts
again the frees of pointers freed before, which kmemtrace's bytes_freed
does not, and gives as perf_bytes_freed with --alloc.  Prints each figure
compared and exits 1 on any mismatch, 2 when perf printed nothing to
compare.
"""
import json
import re
import sys


def num(s):
    return int(s.replace(",", ""))


def main():
    perf = open(sys.argv[1]).read()
    kmt = json.load(open(sys.argv[2]))
    checks = []

    slab = kmt.get("slab", {}).get("summary")
    if "SUMMARY (SLAB allocator)" in perf:
        if slab is None:
            print("kmemtrace has no slab summary")
            return 1
        freed = "perf_bytes_freed" if "perf_bytes_freed" in slab else \
                "bytes_freed"
        for label, key in [
            ("Total bytes requested", "bytes_requested"),
            ("Total bytes allocated", "bytes_allocated"),
            ("Total bytes freed", freed),
            ("Total bytes wasted on internal fragmentation", "bytes_wasted"),
        ]:
            m = re.search(r"^%s:\s+([\d,]+)$" % re.escape(label), perf, re.M)
            checks.append((label, num(m.group(1)) if m else None, slab.get(key)))
        m = re.search(r"^Net total bytes allocated: ([\d,]+)$", perf, re.M)
        net = slab["bytes_allocated"] - slab[freed]
        checks.append(("Net total bytes allocated",
                       num(m.group(1)) if m else None,
                       net if net > 0 else None))
        m = re.search(r"^Internal fragmentation: ([\d.]+)%$", perf, re.M)
        checks.append(("Internal fragmentation",
                       round(float(m.group(1)), 4) if m else None,
                       round(slab["internal_fragmentation_pct"], 4)))
        m = re.search(r"^Cross CPU allocations: ([\d,]+)/([\d,]+)$", perf, re.M)
        cn = slab["cross_node_allocations"]
        # null: the recording has no CPU-to-node map, and perf's figure
        # is against the map of the machine it runs on: nothing to compare
        if cn is not None:
            checks.append(("Cross CPU allocations",
                           (num(m.group(1)), num(m.group(2))) if m else None,
                           (cn["count"], cn["of"])))
        else:
            print("skip Cross CPU allocations: not recorded")

    page = kmt.get("page", {}).get("summary")
    if "SUMMARY (page allocator)" in perf:
        if page is None:
            print("kmemtrace has no page summary")
            return 1
        for label, key in [
            ("Total allocation requests", "allocations"),
            ("Total free requests", "frees"),
            ("Total alloc+freed requests", "alloc_freed"),
            ("Total alloc-only requests", "alloc_only"),
            ("Total free-only requests", "free_only"),
            ("Total allocation failures", "failures"),
        ]:
            m = re.search(r"^%s\s*:\s+([\d,]+)\s+\[\s+([\d,]+) KB \]$"
                          % re.escape(label), perf, re.M)
            want = (num(m.group(1)), num(m.group(2))) if m else None
            got = (page[key]["requests"], page[key]["bytes"] // 1024)
            checks.append((label, want, got))
        matrix = {row["order"]: row for row in kmt["page"]["order_migratetype"]}
        keys = ["unmovable", "movable", "reclaimable", "highatomic",
                "cma_isolate"]
        for m in re.finditer(r"^\s+(\d+)((?:\s+(?:[\d,]+|\.))+)$", perf, re.M):
            order = int(m.group(1))
            cells = m.group(2).split()
            if len(cells) != 5:
                continue
            for i, cell in enumerate(cells):
                want = 0 if cell == "." else num(cell)
                got = matrix.get(order, {}).get(keys[i], 0)
                checks.append(("order %d migratetype %d" % (order, i),
                               want, got))

    if not checks:
        print("perf printed no summary")
        return 2
    bad = 0
    for label, want, got in checks:
        ok = want == got
        bad += not ok
        print("%s %s: perf %s, kmemtrace %s" % ("ok  " if ok else "DIFF",
                                               label, want, got))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
