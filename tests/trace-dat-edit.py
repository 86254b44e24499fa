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
#   trace-dat-edit.py longsize IN OUT N
#       the header's long size byte set to N, as a 32-bit trace-cmd on a
#       64-bit kernel writes it (any version)
#   trace-dat-edit.py shrink IN OUT N
#       every CPU's data N bytes shorter in the CPU tables: a partial
#       last page
#   trace-dat-edit.py breakfmt IN OUT NAME
#       the print format of event NAME made one libtraceevent would
#       crash on ("REC->x" becomes "REC=>x"), the same length: what a
#       damaged or foreign format is to the reader
#   trace-dat-edit.py counters IN OUT FILE
#       FILE's text added as kmemtrace record's counters option (0x4b58,
#       NUL-ended and padded so the pages move by whole pages): the
#       kernel's counters of a recording made before record kept them
#   trace-dat-edit.py emptyrec IN OUT 0
#       the first page of the first CPU with data holds one event with
#       no data at all (a length word of 4)
import struct
import sys


def load(path, any_version=False):
    d = bytearray(open(path, 'rb').read())
    if d[:10] != b'\x17\x08Dtracing' or d[12] != 0 or \
       (not any_version and d[10:12] != b'6\x00'):
        sys.exit('trace-dat-edit: %s is not a little-endian trace.dat v6' % path)
    return d


def options_at(d):
    return d.index(b'options  \x00')


def cpu_tables(d):
    """(position, offset, size) of every CPU's entry with data"""
    cpus = struct.unpack_from('<I', d, options_at(d) - 4)[0]
    at = 0
    while True:
        at = d.find(b'flyrecord\x00', at)
        if at < 0:
            return
        at += 10
        for c in range(cpus):
            off, size = struct.unpack_from('<QQ', d, at + 16 * c)
            if size:
                yield at + 16 * c, off, size


def repeat(d, n):
    page = struct.unpack_from('<I', d, 14)[0]
    end = (len(d) + page - 1) // page * page
    tail = bytearray()
    for pos, off, size in list(cpu_tables(d)):
        struct.pack_into('<QQ', d, pos, end + len(tail), size * n)
        tail += d[off:off + size] * n
    return d + b'\0' * (end - len(d)) + tail


def longsize(d, n):
    d[13] = n
    return d


def shrink(d, n):
    for pos, off, size in list(cpu_tables(d)):
        struct.pack_into('<QQ', d, pos, off, size - n)
    return d


def emptyrec(d, _):
    # page: timestamp (8), commit (8 here), events; event: a header word
    # (type_len 0: the length follows) and a length word counting itself
    pos, off, size = next(cpu_tables(d))
    struct.pack_into('<QII', d, off + 8, 8, 0, 4)
    return d


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


def breakfmt(d, name):
    at = d.index(b'name: %s\n' % name.encode())
    fmt = d.index(b'print fmt:', at)
    rec = d.index(b'REC->', fmt)
    if rec > d.index(b'\n', fmt):
        sys.exit('trace-dat-edit: %s prints no field' % name)
    d[rec + 3:rec + 4] = b'='
    return d


def counters(d, path):
    text = open(path, 'rb').read() + b'\0'
    page = struct.unpack_from('<I', d, 14)[0]
    pos = options_at(d) + 10
    while True:
        oid, size = struct.unpack_from('<HI', d, pos)
        if oid == 0:
            break
        pos += 6 + size
    shift = (6 + len(text) + page - 1) // page * page
    opt = struct.pack('<HI', 0x4b58, shift - 6) + text
    opt += b'\0' * (shift - len(opt))
    tables = [p + shift for p, _, _ in cpu_tables(d)]
    d[pos:pos] = opt
    for at in tables:
        off, size = struct.unpack_from('<QQ', d, at)
        struct.pack_into('<QQ', d, at, off + shift, size)
    return d


EDITS = {'repeat': repeat, 'offset': offset, 'longsize': longsize,
         'shrink': shrink, 'emptyrec': emptyrec, 'breakfmt': breakfmt,
         'counters': counters}

if __name__ == '__main__':
    if len(sys.argv) != 5 or sys.argv[1] not in EDITS:
        sys.exit('usage: trace-dat-edit.py %s IN OUT N' % '|'.join(EDITS))
    data = load(sys.argv[2], sys.argv[1] == 'longsize')
    arg = sys.argv[4] if sys.argv[1] in ('breakfmt', 'counters') else \
        int(sys.argv[4])
    out = EDITS[sys.argv[1]](data, arg)
    open(sys.argv[3], 'wb').write(out)
