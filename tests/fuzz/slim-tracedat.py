#!/usr/bin/env python3
"""Makes a small trace.dat v6 fuzz seed from a recording: slim-tracedat.py
IN OUT [EVENT...].  Keeps the ring-buffer headers, the named event formats
(every kmem one when none is named; ftrace's kernel_stack only when
named), the saved cmdlines, the options, the
trace clock and the first page of each CPU; drops the other formats,
kallsyms and printk formats, which trace-cmd writes but kmem events do
not use.  Every input then costs the fuzz target a few formats to parse
instead of twenty-five, so it runs several times more inputs a second.
The events of formats left out stay in the pages and read as unknown
ids (`check` says "damaged"), a path worth fuzzing too.  Little-endian v6
files only, as `kmemtrace record` writes them."""
import struct
import sys


def fmt_name(fmt):
    return fmt.split(b'\n', 1)[0].split(b': ', 1)[-1].decode()


def main():
    src, dst, keep = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    d = open(src, 'rb').read()
    assert d[:10] == b'\x17\x08\x44tracing' and d[10:12] == b'6\0', \
        'not a trace.dat v6'
    p = 12 + 2 + 4
    page = struct.unpack_from('<I', d, 14)[0]
    out = bytearray(d[:p])

    def take(n):
        nonlocal p
        b = d[p:p + n]
        p += n
        return b

    def num(size):
        return int.from_bytes(take(size), 'little')

    for name in (b'header_page\0', b'header_event\0'):
        assert take(len(name)) == name
        n = num(8)
        out += name + struct.pack('<Q', n) + take(n)
    ftrace = []
    for _ in range(num(4)):		# ftrace formats: those named
        fmt = take(num(8))
        if fmt_name(fmt) in keep:
            ftrace.append(fmt)
    out += struct.pack('<I', len(ftrace))
    for fmt in ftrace:
        out += struct.pack('<Q', len(fmt)) + fmt
    systems = []
    for _ in range(num(4)):
        end = d.index(b'\0', p)
        system = take(end - p + 1)
        formats = []
        for _ in range(num(4)):
            fmt = take(num(8))
            if not keep or fmt_name(fmt) in keep:
                formats.append(fmt)
        systems.append((system, formats))
    out += struct.pack('<I', len(systems))
    for system, formats in systems:
        out += system + struct.pack('<I', len(formats))
        for fmt in formats:
            out += struct.pack('<Q', len(fmt)) + fmt
    take(num(4))			# kallsyms
    take(num(4))			# printk formats
    out += struct.pack('<I', 0) + struct.pack('<I', 0)
    n = num(8)
    out += struct.pack('<Q', n) + take(n)
    cpus = num(4)
    out += struct.pack('<I', cpus)
    assert take(10) == b'options  \0'
    out += b'options  \0'
    while True:
        opt = num(2)
        out += struct.pack('<H', opt)
        if not opt:
            break
        n = num(4)
        out += struct.pack('<I', n) + take(n)
    assert take(10) == b'flyrecord\0'
    out += b'flyrecord\0'
    table = [(num(8), num(8)) for _ in range(cpus)]
    n = num(8)
    clock = struct.pack('<Q', n) + take(n)
    start = -(-(len(out) + 16 * cpus + len(clock)) // page) * page
    pages = [d[off:off + min(size, page)] for off, size in table]
    off = start
    for data in pages:
        out += struct.pack('<QQ', off if data else 0, len(data))
        off += len(data)
    out += clock
    out += bytes(start - len(out))
    for data in pages:
        out += data
    open(dst, 'wb').write(out)


if __name__ == '__main__':
    main()
