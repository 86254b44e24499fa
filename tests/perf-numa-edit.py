#!/usr/bin/env python3
# Makes test copies of a little-endian perf.data file (perf record's file
# form, such as tests/data/numa-slab.data) with a NUMA topology of our
# choosing, which the one-node machines that record them cannot give:
#
#   perf-numa-edit.py IN OUT NODE:CPULIST...
#       HEADER_NUMA_TOPOLOGY replaced by one with these nodes, in this
#       order ("0:0 1:1", "0:0-3,8 2:4-7"; the CPU list is written as
#       given, so "1:x" makes a damaged one); mem_total and mem_free are
#       made up
#   perf-numa-edit.py IN OUT
#       no HEADER_NUMA_TOPOLOGY at all (the feature bit cleared)
#
# The new section is appended to the file and the feature table points
# at it; the old one stays where it was, unreferenced, as perf's readers
# take each section from the table.
import struct
import sys

FEAT_NUMA_TOPOLOGY = 14
BITMAP_AT = 72		# the header's 256-bit feature bitmap


def perf_string(s):
    """perf's do_write_string: u32 length, then the text NUL-padded to 64"""
    b = s.encode() + b'\0'
    n = (len(b) + 63) // 64 * 64
    return struct.pack('<I', n) + b + b'\0' * (n - len(b))


def topology(nodes):
    out = struct.pack('<I', len(nodes))
    for node, cpus in nodes:
        out += struct.pack('<IQQ', node, 1 << 20, 1 << 19) + perf_string(cpus)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: perf-numa-edit.py IN OUT [NODE:CPULIST...]')
    d = bytearray(open(sys.argv[1], 'rb').read())
    if d[:8] != b'PERFILE2' or struct.unpack_from('<Q', d, 8)[0] != 104:
        sys.exit('perf-numa-edit: %s is not a little-endian perf.data file'
                 % sys.argv[1])
    nodes = []
    for arg in sys.argv[3:]:
        node, _, cpus = arg.partition(':')
        nodes.append((int(node), cpus))
    data_off, data_size = struct.unpack_from('<QQ', d, 40)
    table = data_off + data_size
    bits = int.from_bytes(d[BITMAP_AT:BITMAP_AT + 32], 'little')
    feats = [b for b in range(256) if bits >> b & 1]
    entries = [struct.unpack_from('<QQ', d, table + 16 * i)
               for i in range(len(feats))]
    sections = dict(zip(feats, entries))
    if nodes:
        sections[FEAT_NUMA_TOPOLOGY] = (len(d), len(topology(nodes)))
        d += topology(nodes)
        bits |= 1 << FEAT_NUMA_TOPOLOGY
    else:
        sections.pop(FEAT_NUMA_TOPOLOGY, None)
        bits &= ~(1 << FEAT_NUMA_TOPOLOGY)
    d[BITMAP_AT:BITMAP_AT + 32] = bits.to_bytes(32, 'little')
    # the table has one entry per bit set, in bit order, right after the
    # data: one fewer fits where it was, one more would overwrite the
    # first section
    new = b''.join(struct.pack('<QQ', *sections[b]) for b in sorted(sections))
    if len(new) > 16 * len(entries):
        sys.exit('perf-numa-edit: %s has no NUMA topology to replace'
                 % sys.argv[1])
    d[table:table + len(new)] = new
    open(sys.argv[2], 'wb').write(d)


if __name__ == '__main__':
    main()
