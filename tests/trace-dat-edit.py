#!/usr/bin/env python3
# Makes test copies of a little-endian trace.dat v6 (such as
# tests/data/capture.v6.dat) that trace-cmd cannot record here:
#
#   trace-dat-edit.py repeat IN OUT N
#       every CPU's ring-buffer pages N times over, appended to the file
#       and pointed at by its CPU tables: N times the events (the same
#       times again each time), N times the data to read
#   trace-dat-edit.py offset IN OUT NS
#       the UNAME option turned into an OFFSET option of NS nanoseconds
#       (same length, NUL padded), which libtracecmd adds to every time
import struct
import sys


def load(path):
    d = bytearray(open(path, 'rb').read())
    if d[:10] != b'\x17\x08Dtracing' or d[10:12] != b'6\x00' or d[12] != 0:
        sys.exit('trace-dat-edit: %s is not a little-endian trace.dat v6' % path)
    return d


def options_at(d):
    return d.index(b'options  \x00')


def repeat(d, n):
    page = struct.unpack_from('<I', d, 14)[0]
    opt = options_at(d)
    cpus = struct.unpack_from('<I', d, opt - 4)[0]
    end = (len(d) + page - 1) // page * page
    tail = bytearray()
    at = 0
    while True:
        at = d.find(b'flyrecord\x00', at)
        if at < 0:
            break
        at += 10
        for c in range(cpus):
            off, size = struct.unpack_from('<QQ', d, at + 16 * c)
            if not size:
                continue
            struct.pack_into('<QQ', d, at + 16 * c, end + len(tail), size * n)
            tail += d[off:off + size] * n
    return d + b'\0' * (end - len(d)) + tail


def offset(d, ns):
    pos = options_at(d) + 10
    while True:
        oid, size = struct.unpack_from('<HI', d, pos)
        if oid == 0:
            sys.exit('trace-dat-edit: no UNAME option')
        if oid == 5:
            text = b'%d' % ns
            if len(text) + 1 > size:
                sys.exit('trace-dat-edit: the UNAME option is too short')
            struct.pack_into('<H', d, pos, 7)
            d[pos + 6:pos + 6 + size] = text + b'\0' * (size - len(text))
            return d
        pos += 6 + size


if __name__ == '__main__':
    if len(sys.argv) != 5 or sys.argv[1] not in ('repeat', 'offset'):
        sys.exit('usage: trace-dat-edit.py repeat|offset IN OUT N')
    data = load(sys.argv[2])
    fn = repeat if sys.argv[1] == 'repeat' else offset
    open(sys.argv[3], 'wb').write(fn(data, int(sys.argv[4])))
