#!/usr/bin/env python3
# Rewrites a little-endian recording as the same recording made on a
# big-endian machine (s390x, ppc64 big-endian), which cannot be made
# here: every number in the byte order of such a machine, every text
# (event formats, kallsyms, printk formats, command lines, file names)
# as it was.  The layout does not move: each number is turned around in
# place, so offsets and sizes stay valid.
#
#   make-big-endian.py IN OUT
#
# IN is a trace.dat v6, an uncompressed trace.dat v7, or a perf.data,
# file or pipe form, without compressed records.  What is rewritten:
#
# trace.dat: the endianness byte, the page size, every length before a
#   blob (header page and event descriptions, ftrace and event formats,
#   kallsyms, printk formats, command lines, v6's trace clock after each
#   CPU table), the CPU count, the v7
#   section headers and the sections pointing to them, the options (ids,
#   sizes, numbers in CPUCOUNT, TRACEID, TSC2NSEC, BUFFER, DONE and the
#   v7 section offsets; texts as they are), the CPU tables; in each
#   ring-buffer page the timestamp and the commit word (as wide as the
#   header page says), the missed-events count stored after the data,
#   every event header (type_len and time_delta laid out as a big-endian
#   kernel's bitfield puts them: type_len in the top five bits), the
#   length words, time extends, and each event's fields by its format.
# perf.data: the magic, the header, the feature bitmap (as perf's u64
#   words), the attrs (every field by perf_event_attr's layout; the flag
#   bitfields bit-reversed in each byte, as perf reads them), the attr
#   id lists, the records (the header; the fields of samples by the
#   attr's sample_type: u32 pairs as two u32; the call chain; RAW's size
#   and the tracepoint data by the event's format; COMM, FORK, EXIT,
#   MMAP, MMAP2, LOST, LOST_SAMPLES, ID_INDEX, THREAD_MAP, CPU_MAP,
#   FINISHED_INIT and FINISHED_ROUND, with their sample_id_all
#   trailers; the pipe form's HEADER_ATTR, HEADER_TRACING_DATA,
#   HEADER_FEATURE and EVENT_UPDATE), and the feature sections (tracing
#   data, build ids, the string features, NRCPUS, TOTAL_MEM, CMDLINE,
#   EVENT_DESC, CPU_TOPOLOGY, NUMA_TOPOLOGY, PMU_MAPPINGS, CACHE,
#   SAMPLE_TIME, MEM_TOPOLOGY, COMPRESSED; BPF_PROG_INFO, BPF_BTF and
#   PMU_CAPS when they are empty).  A feature section of another layout
#   is dropped from the file form's feature table rather than left in
#   the wrong byte order; the pipe form refuses it.
#
# Event fields: a field of 2, 4 or 8 bytes is one number; an array of
# such numbers (unsigned long caller[8]) is turned element by element,
# and when it is the event's last field, on to the end of the record (a
# kernel stack holds as many entries as its size field says); a
# __data_loc word is one u32; strings and char arrays stay.
import re
import struct
import sys

TD_MAGIC = b'\x17\x08Dtracing'


def die(msg):
    sys.exit('make-big-endian: ' + msg)


class Buf:
    """the file, with little-endian reads and in-place turning"""

    def __init__(self, data):
        self.d = bytearray(data)

    def u(self, off, size):
        return int.from_bytes(self.d[off:off + size], 'little')

    def turn(self, off, size):
        if size > 1:
            self.d[off:off + size] = self.d[off:off + size][::-1]

    def num(self, off, size):
        """the number at off, then turned; its value"""
        v = self.u(off, size)
        self.turn(off, size)
        return v

    def cstr(self, off):
        end = self.d.index(b'\0', off)
        return bytes(self.d[off:end]), end + 1


# --- event formats ---

FIELD = re.compile(r'field:(.*?);\s*offset:(\d+);\s*size:(\d+);')


def parse_format(text):
    """(id, [(offset, size, element size)]) of one format text"""
    m = re.search(r'^ID: (\d+)', text, re.M)
    if not m:
        return None, []
    fields = []
    for decl, off, size in FIELD.findall(text):
        off, size = int(off), int(size)
        decl = decl.strip()
        if decl.startswith('__data_loc') or decl.startswith('__rel_loc'):
            fields.append((off, 4, 4))
            continue
        arr = re.search(r'\[(\d*)\]\s*$', decl)
        if arr:
            n = int(arr.group(1)) if arr.group(1) else 0
            elem = size // n if n else size
            if elem == 1 or 'char' in decl.split('[')[0].split():
                continue
            fields.append((off, size, elem))
        elif size in (2, 4, 8):
            fields.append((off, size, size))
    return int(m.group(1)), fields


class Formats:
    def __init__(self):
        self.by_id = {}

    def add(self, text):
        eid, fields = parse_format(text.decode('latin1'))
        if eid is not None:
            self.by_id[eid] = fields

    def turn_event(self, b, off, length):
        """the fields of the event record at off, length bytes"""
        if length < 2:
            return
        eid = b.u(off, 2)
        fields = self.by_id.get(eid)
        if fields is None:
            die('an event of id %d without a format at byte %d' % (eid, off))
        last = max((f[0] for f in fields), default=-1)
        for foff, size, elem in fields:
            end = foff + size
            if foff == last and elem != size:
                end = length - (length - foff) % elem
            for p in range(foff, min(end, length - elem + 1), elem):
                b.turn(off + p, elem)


# --- trace.dat ---

def td_blob(b, pos, lensize, formats=None):
    """a length in lensize bytes, then that many bytes"""
    n = b.num(pos, lensize)
    if formats is not None:
        formats.add(bytes(b.d[pos + lensize:pos + lensize + n]))
    return pos + lensize + n


def td_headers(b, pos):
    """header_page and header_event; the page header's commit size"""
    name, pos = b.cstr(pos)
    assert name == b'header_page', name
    size = b.u(pos, 8)
    text = bytes(b.d[pos + 8:pos + 8 + size]).decode('latin1')
    m = re.search(r'field: local_t commit;\s*offset:(\d+);\s*size:(\d+);', text)
    commit = (int(m.group(1)), int(m.group(2))) if m else (8, 8)
    d = re.search(r'field: char data;\s*offset:(\d+);', text)
    data = int(d.group(1)) if d else 16
    pos = td_blob(b, pos, 8)
    name, pos = b.cstr(pos)
    assert name == b'header_event', name
    return td_blob(b, pos, 8), (commit, data)


def td_ftrace_events(b, pos, formats):
    n = b.num(pos, 4)
    pos += 4
    for _ in range(n):
        pos = td_blob(b, pos, 8, formats)
    return pos


def td_event_formats(b, pos, formats):
    n = b.num(pos, 4)
    pos += 4
    for _ in range(n):
        _, pos = b.cstr(pos)
        k = b.num(pos, 4)
        pos += 4
        for _ in range(k):
            pos = td_blob(b, pos, 8, formats)
    return pos


TYPE_PADDING, TYPE_TIME_EXTEND = 29, 30
MISSED_STORED = 1 << 30


def td_page(b, off, page, hdr, formats):
    (coff, csize), data = hdr
    b.num(off, 8)
    commit = b.num(off + coff, csize)
    length = commit & ((1 << 27) - 1)
    end = off + data + length
    if commit & MISSED_STORED:
        b.turn(end, csize)
    pos = off + data
    while pos + 4 <= end:
        w = b.u(pos, 4)
        typ, delta = w & 0x1f, w >> 5
        b.d[pos:pos + 4] = ((typ << 27) | delta).to_bytes(4, 'big')
        if typ == TYPE_PADDING and delta == 0:
            break
        if typ == 0 or typ == TYPE_PADDING:
            n = b.num(pos + 4, 4)
            if typ == 0:
                formats.turn_event(b, pos + 8, n - 4)
            size = 4 + n
        elif typ >= TYPE_TIME_EXTEND:
            b.turn(pos + 4, 4)
            size = 8
        else:
            formats.turn_event(b, pos + 4, typ * 4)
            size = 4 + typ * 4
        pos += (size + 3) & ~3


def td_cpu_table(b, pos, cpus, regions, clock):
    """v6: "flyrecord", offset and size a CPU, then (with a TRACECLOCK
    option) the trace clock: a u64 length and its text"""
    tag = bytes(b.d[pos:pos + 10])
    if tag != b'flyrecord\0':
        die('no flyrecord table at byte %d' % pos)
    pos += 10
    for _ in range(cpus):
        off = b.num(pos, 8)
        size = b.num(pos + 8, 8)
        regions.append((off, size))
        pos += 16
    if clock:
        pos += 8 + b.num(pos, 8)
    return pos


def td_option(b, oid, pos, size, v7, regions, state):
    """an option's contents; v7 section offsets are noted in state"""
    if oid == 8:				# CPUCOUNT
        state['cpus'] = b.num(pos, 4)
    elif oid == 11:				# TRACEID
        b.turn(pos, 8)
    elif oid == 14:				# TSC2NSEC
        b.turn(pos, 4)
        b.turn(pos + 4, 4)
        b.turn(pos + 8, 8)
    elif oid == 3:				# BUFFER
        off = b.num(pos, 8)
        _, p = b.cstr(pos + 8)
        if not v7:
            state['buffers'].append(off)
            return
        _, p = b.cstr(p)			# clock
        page = b.num(p, 4)
        n = b.num(p + 4, 4)
        p += 8
        state['sections'].append(off)
        for _ in range(n):
            b.turn(p, 4)
            coff = b.num(p + 4, 8)
            csize = b.num(p + 12, 8)
            regions.append((coff, csize))
            p += 20
        state['page'] = page
    elif v7 and 15 <= oid <= 21:		# STRINGS .. CMDLINES: offsets
        state['sections'].append(b.num(pos, 8))
    elif oid in (1, 2, 4, 5, 6, 7, 9, 10, 22):	# texts
        state['clock'] |= oid == 4		# TRACECLOCK
    else:
        die('option %d: its layout is not known here' % oid)


def td_options_v6(b, pos, regions, state):
    while True:
        oid = b.num(pos, 2)
        if oid == 0:
            return pos + 2
        size = b.num(pos + 2, 4)
        td_option(b, oid, pos + 6, size, False, regions, state)
        pos += 6 + size


def trace_dat(b):
    version, pos = b.cstr(10)
    if b.d[pos] != 0:
        die('already big-endian')
    b.d[pos] = 1
    page = b.num(pos + 2, 4)
    pos += 6
    formats = Formats()
    regions = []
    state = {'cpus': 0, 'buffers': [], 'sections': [], 'page': page,
             'clock': False}
    if version == b'6':
        pos, hdr = td_headers(b, pos)
        pos = td_ftrace_events(b, pos, formats)
        pos = td_event_formats(b, pos, formats)
        pos = td_blob(b, pos, 4)		# kallsyms
        pos = td_blob(b, pos, 4)		# printk formats
        pos = td_blob(b, pos, 8)		# saved command lines
        state['cpus'] = b.num(pos, 4)
        pos += 4
        if bytes(b.d[pos:pos + 10]) == b'options  \0':
            pos = td_options_v6(b, pos + 10, regions, state)
        for off in state['buffers']:
            td_cpu_table(b, off, state['cpus'], regions, state['clock'])
        td_cpu_table(b, pos, state['cpus'], regions, state['clock'])
    elif version == b'7':
        comp, p = b.cstr(pos)
        _, p = b.cstr(p)
        if comp not in (b'', b'none'):
            die('a compressed trace.dat v7 (%s): convert it with trace-cmd convert --compression none first' % comp.decode())
        at = b.num(p, 8)
        hdr = None
        seen = set()
        # the chain of options sections, each naming the others
        while at and at not in seen:
            seen.add(at)
            sid = b.num(at, 2)
            flags = b.num(at + 2, 2)
            b.turn(at + 4, 4)
            size = b.num(at + 8, 8)
            if sid != 0 or flags:
                die('options section at byte %d: id %d, flags %d' % (at, sid, flags))
            p, end, at = at + 16, at + 16 + size, 0
            while p < end:
                oid = b.num(p, 2)
                osize = b.num(p + 2, 4)
                if oid == 0:
                    at = b.num(p + 6, 8) if osize >= 8 else 0
                    break
                td_option(b, oid, p + 6, osize, True, regions, state)
                p += 6 + osize
        for sec in state['sections']:
            sid = b.num(sec, 2)
            flags = b.num(sec + 2, 2)
            b.turn(sec + 4, 4)
            b.num(sec + 8, 8)
            body = sec + 16
            if flags:
                die('a compressed section at byte %d' % sec)
            if sid == 16:
                _, hdr = td_headers(b, body)
            elif sid == 17:
                td_ftrace_events(b, body, formats)
            elif sid == 18:
                td_event_formats(b, body, formats)
            elif sid in (19, 20):
                td_blob(b, body, 4)
            elif sid == 21:
                td_blob(b, body, 8)
            elif sid in (3, 15):		# flyrecord data, strings
                pass
            else:
                die('section %d at byte %d: its layout is not known here' % (sid, sec))
        page = state['page']
    else:
        die('trace.dat version %s' % version.decode())
    for off, size in regions:
        for p in range(off, off + size - page + 1, page):
            td_page(b, p, page, hdr, formats)


# --- perf.data ---

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1, 2, 4, 8
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 16, 32, 64, 128
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW = 256, 512, 1024
SAMPLE_IDENTIFIER = 1 << 16
KNOWN_SAMPLE = (SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ADDR |
                SAMPLE_READ | SAMPLE_CALLCHAIN | SAMPLE_ID | SAMPLE_CPU |
                SAMPLE_PERIOD | SAMPLE_STREAM_ID | SAMPLE_RAW |
                SAMPLE_IDENTIFIER)

# perf_event_attr after read_format (offset 32): (offset, size); the
# flags u64 at 40 is a bitfield
ATTR_NUMBERS = [(0, 4), (4, 4), (8, 8), (16, 8), (24, 8), (32, 8),
                (48, 4), (52, 4), (56, 8), (64, 8), (72, 8), (80, 8),
                (88, 4), (92, 4), (96, 8), (104, 4), (108, 2), (110, 2),
                (112, 4), (116, 4), (120, 8), (128, 8)]


def revbits(x):
    return int('{:08b}'.format(x)[::-1], 2)


def pd_attr(b, off):
    """one perf_event_attr; its (sample_type, read_format, sample_id_all)"""
    size = b.u(off + 4, 4) or 64
    st, rf = b.u(off + 24, 8), b.u(off + 32, 8)
    flags = b.u(off + 40, 8)
    for o, n in ATTR_NUMBERS:
        if o + n <= size:
            b.turn(off + o, n)
    for i in range(8):
        b.d[off + 40 + i] = revbits(b.d[off + 40 + i])
    if st & ~KNOWN_SAMPLE:
        die('an attr with sample_type 0x%x: fields not known here' % st)
    return size, (st, rf, bool(flags >> 18 & 1))


def read_size(rf):
    times = bool(rf & 1) + bool(rf & 2)
    per = 1 + bool(rf & 4) + bool(rf & 16)
    return times, per


def pd_turn_read(b, p, rf):
    times, per = read_size(rf)
    if rf & 8:				# GROUP
        nr = b.num(p, 8)
        n = 1 + times + nr * per
    else:
        n = times + per
    for i in range(n):
        b.turn(p + 8 * i, 8)
    return p + 8 * n


def pd_sample(b, p, end, attr, formats):
    st, rf, _ = attr
    for bit in (SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME,
                SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU,
                SAMPLE_PERIOD):
        if not st & bit:
            continue
        if bit in (SAMPLE_TID, SAMPLE_CPU):
            b.turn(p, 4)
            b.turn(p + 4, 4)
        else:
            b.turn(p, 8)
        p += 8
    if st & SAMPLE_READ:
        p = pd_turn_read(b, p, rf)
    if st & SAMPLE_CALLCHAIN:
        nr = b.num(p, 8)
        for i in range(nr):
            b.turn(p + 8 + 8 * i, 8)
        p += 8 + 8 * nr
    if st & SAMPLE_RAW:
        n = b.num(p, 4)
        formats.turn_event(b, p + 4, n)
        p += 4 + n
    # what follows RAW is not among the sample types allowed above
    assert p <= end


def pd_id_trailer(b, end, attr):
    """the sample_id_all fields at the end of a non-sample record"""
    st, _, id_all = attr
    if not id_all:
        return
    fields = [bit for bit in (SAMPLE_TID, SAMPLE_TIME, SAMPLE_ID,
                              SAMPLE_STREAM_ID, SAMPLE_CPU,
                              SAMPLE_IDENTIFIER) if st & bit]
    p = end - 8 * len(fields)
    for bit in fields:
        if bit in (SAMPLE_TID, SAMPLE_CPU):
            b.turn(p, 4)
            b.turn(p + 4, 4)
        else:
            b.turn(p, 8)
        p += 8


MISC_MMAP_BUILD_ID = 1 << 14


def pd_record(b, at, attrs, formats, by_id, id_pos, env):
    typ = b.num(at, 4)
    misc = b.num(at + 4, 2)
    size = b.num(at + 6, 2)
    body, end = at + 8, at + size
    attr = attrs[0] if attrs else None
    if typ == 9:				# SAMPLE
        if id_pos is None:
            id_pos = sample_id_pos(attrs)
        if id_pos >= 0:
            attr = by_id[b.u(body + 8 * id_pos, 8)]
        pd_sample(b, body, end, attr, formats)
        return size
    if typ == 1:				# MMAP
        b.turn(body, 4)
        b.turn(body + 4, 4)
        for i in range(3):
            b.turn(body + 8 + 8 * i, 8)
    elif typ == 10:				# MMAP2
        b.turn(body, 4)
        b.turn(body + 4, 4)
        for i in range(3):
            b.turn(body + 8 + 8 * i, 8)
        if not misc & MISC_MMAP_BUILD_ID:
            b.turn(body + 32, 4)
            b.turn(body + 36, 4)
            b.turn(body + 40, 8)
            b.turn(body + 48, 8)
        b.turn(body + 56, 4)
        b.turn(body + 60, 4)
    elif typ == 3:				# COMM
        b.turn(body, 4)
        b.turn(body + 4, 4)
    elif typ in (4, 7):			# EXIT, FORK
        for i in range(4):
            b.turn(body + 4 * i, 4)
        b.turn(body + 16, 8)
    elif typ == 2:				# LOST
        b.turn(body, 8)
        b.turn(body + 8, 8)
    elif typ == 13:				# LOST_SAMPLES
        b.turn(body, 8)
    elif typ == 69:				# ID_INDEX
        nr = b.num(body, 8)
        for i in range(4 * nr):
            b.turn(body + 8 + 8 * i, 8)
        return size
    elif typ == 73:				# THREAD_MAP: pid, comm[16]
        nr = b.num(body, 8)
        for i in range(nr):
            b.turn(body + 8 + 24 * i, 8)
        return size
    elif typ == 74:				# CPU_MAP
        kind = b.num(body, 2)
        if kind == 0:				# cpus: u16 nr, u16 cpu[]
            nr = b.num(body + 2, 2)
            for i in range(nr):
                b.turn(body + 4 + 2 * i, 2)
        elif kind == 1:				# mask: u16 nr, u16 long_size,
            nr = b.num(body + 2, 2)		# (u32 pad if 8), mask: packed
            long_size = b.num(body + 4, 2)
            start = body + (10 if long_size == 8 else 6)
            for i in range(nr):
                b.turn(start + long_size * i, long_size)
        elif kind == 2:				# range: u8 any, u8 pad, u16 start, end
            b.turn(body + 4, 2)
            b.turn(body + 6, 2)
        else:
            die('a CPU_MAP of kind %d at byte %d' % (kind, at))
        return size
    elif typ in (68, 82):			# FINISHED_ROUND, FINISHED_INIT
        return size
    elif typ == 64:				# HEADER_ATTR: attr, its ids
        asize, attr = pd_attr(b, body)
        for p in range(body + asize, end - 7, 8):
            by_id[b.num(p, 8)] = attr
        attrs.append(attr)
        return size
    elif typ == 66:				# HEADER_TRACING_DATA
        n = b.num(body, 4)
        pd_tracing_data(b, end, formats)
        return size + n
    elif typ == 80:				# HEADER_FEATURE: id, the section
        feat = b.num(body, 8)
        if feat != 32 and not pd_feature(b, feat, body + 8, size - 16,
                                         formats, env):
            die('feature %d at byte %d: its layout is not known here' % (feat, at))
        return size
    elif typ == 78:				# EVENT_UPDATE: type, id, data
        kind = b.num(body, 8)
        b.turn(body + 8, 8)
        if kind == 1:				# SCALE: a double
            b.turn(body + 16, 8)
        elif kind == 3:				# CPUS: a CPU map
            die('an EVENT_UPDATE of CPUs at byte %d' % at)
        return size
    else:
        die('a record of type %d at byte %d: its layout is not known here' % (typ, at))
    pd_id_trailer(b, end, attr)
    return size


def pd_tracing_data(b, off, formats):
    if bytes(b.d[off:off + 10]) != TD_MAGIC:
        die('the tracing data at byte %d has no magic' % off)
    _, pos = b.cstr(off + 10)
    b.d[pos] = 1
    b.num(pos + 2, 4)
    pos, _ = td_headers(b, pos + 6)
    pos = td_ftrace_events(b, pos, formats)
    pos = td_event_formats(b, pos, formats)
    pos = td_blob(b, pos, 4)			# kallsyms
    pos = td_blob(b, pos, 4)			# printk formats
    td_blob(b, pos, 8)				# saved command lines


def pd_string(b, p):
    n = b.num(p, 4)
    return p + 4 + n


def pd_strings(b, p):
    nr = b.num(p, 4)
    p += 4
    for _ in range(nr):
        p = pd_string(b, p)
    return p


def pd_feature(b, bit, off, size, formats, env):
    """turns a feature section; False for one dropped"""
    end = off + size
    if bit == 1:				# TRACING_DATA
        pd_tracing_data(b, off, formats)
    elif bit == 2:				# BUILD_ID: build_id_events
        p = off
        while p + 8 <= off + size:
            b.turn(p, 4)
            b.turn(p + 4, 2)
            n = b.num(p + 6, 2)
            b.turn(p + 8, 4)			# pid
            p += n
    elif bit in (3, 4, 5, 6, 8, 9):		# strings
        pd_string(b, off)
    elif bit == 7:				# NRCPUS: avail, online
        env['cpus'] = b.num(off, 4)
        b.turn(off + 4, 4)
    elif bit == 10:				# TOTAL_MEM
        b.turn(off, 8)
    elif bit == 11:				# CMDLINE
        pd_strings(b, off)
    elif bit == 13:				# CPU_TOPOLOGY
        # core and thread sibling lists, (core, socket) a CPU, then
        # die sibling lists and a die a CPU where the kernel has them
        p = pd_strings(b, pd_strings(b, off))
        for _ in range(2 * env.get('cpus', 0)):
            b.turn(p, 4)
            p += 4
        if p < end:
            p = pd_strings(b, p)
        while p + 4 <= end:
            b.turn(p, 4)
            p += 4
    elif bit == 20:				# CACHE
        b.turn(off, 4)
        nr = b.num(off + 4, 4)
        p = off + 8
        for _ in range(nr):
            for i in range(4):		# level, line size, sets, ways
                b.turn(p + 4 * i, 4)
            p += 16
            for _ in range(3):			# type, size, map
                p = pd_string(b, p)
    elif bit == 22:				# MEM_TOPOLOGY: u64s only
        for p in range(off, end - 7, 8):
            b.turn(p, 8)
    elif bit in (25, 26, 31) and b.u(off, 4) == 0:
        b.turn(off, 4)				# BPF_PROG_INFO, BPF_BTF,
        # PMU_CAPS: none of them here
    elif bit == 12:				# EVENT_DESC
        nr = b.num(off, 4)
        asize = b.num(off + 4, 4)
        p = off + 8
        for _ in range(nr):
            pd_attr(b, p)
            p += asize
            nids = b.num(p, 4)
            p = pd_string(b, p + 4)
            for i in range(nids):
                b.turn(p + 8 * i, 8)
            p += 8 * nids
    elif bit == 14:				# NUMA_TOPOLOGY
        nr = b.num(off, 4)
        p = off + 4
        for _ in range(nr):
            b.turn(p, 4)
            b.turn(p + 4, 8)
            b.turn(p + 12, 8)
            p = pd_string(b, p + 20)
    elif bit == 16:				# PMU_MAPPINGS
        nr = b.num(off, 4)
        p = off + 4
        for _ in range(nr):
            b.turn(p, 4)
            p = pd_string(b, p + 4)
    elif bit == 21:				# SAMPLE_TIME
        b.turn(off, 8)
        b.turn(off + 8, 8)
    elif bit == 27:				# COMPRESSED: five u32
        for i in range(5):
            b.turn(off + 4 * i, 4)
    else:
        return False
    return True


def sample_id_pos(attrs):
    """the u64 naming a sample's attr, when attrs lay samples out
    differently; -1 when they do not"""
    if len(set(attrs)) <= 1:
        return -1
    st = attrs[0][0]
    if st & SAMPLE_IDENTIFIER:
        return 0
    return sum(bool(st & f) for f in (SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME,
                                      SAMPLE_ADDR))


def perf_data(b):
    if bytes(b.d[:8]) != b'PERFILE2':
        die('not a little-endian perf.data')
    if b.u(8, 8) == 16:
        return perf_pipe(b)
    if b.u(8, 8) != 104:
        die('a perf.data of an old header')
    b.turn(0, 8)
    hsize = b.num(8, 8)
    attr_size = b.num(16, 8)
    attrs_off, attrs_size = b.num(24, 8), b.num(32, 8)
    data_off, data_size = b.num(40, 8), b.num(48, 8)
    b.turn(56, 8)
    b.turn(64, 8)
    bits = int.from_bytes(b.d[72:104], 'little')

    attrs, by_id = [], {}
    for a in range(attrs_off, attrs_off + attrs_size, attr_size):
        asize, attr = pd_attr(b, a)
        ids_off = b.num(a + asize, 8)
        ids_size = b.num(a + asize + 8, 8)
        for i in range(ids_size // 8):
            by_id[b.num(ids_off + 8 * i, 8)] = attr
        attrs.append(attr)
    id_pos = sample_id_pos(attrs)
    env = {}
    formats = Formats()
    table = data_off + data_size
    feats = [bit for bit in range(256) if bits >> bit & 1]
    entries = [(b.u(table + 16 * i, 8), b.u(table + 16 * i + 8, 8))
               for i in range(len(feats))]
    # the tracing data first: samples are turned by its formats
    kept = []
    for bit, (off, size) in sorted(zip(feats, entries),
                                   key=lambda e: e[0] != 1):
        if pd_feature(b, bit, off, size, formats, env):
            kept.append((bit, off, size))
    kept.sort()
    for i, (bit, off, size) in enumerate(kept):
        struct.pack_into('>QQ', b.d, table + 16 * i, off, size)
    bits = sum(1 << bit for bit, _, _ in kept)
    words = [(bits >> (64 * i)) & ((1 << 64) - 1) for i in range(4)]
    struct.pack_into('>4Q', b.d, 72, *words)

    at = data_off
    while at < data_off + data_size:
        at += pd_record(b, at, attrs, formats, by_id, id_pos, env)


def perf_pipe(b):
    """the pipe form: a short header, then records; attrs, tracing data
    and features among them"""
    b.turn(0, 8)
    b.num(8, 8)
    attrs, by_id, env, formats = [], {}, {}, Formats()
    at = 16
    while at < len(b.d):
        # the samples' layout is known once every attr has come
        at += pd_record(b, at, attrs, formats, by_id, None, env)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: make-big-endian.py IN OUT')
    b = Buf(open(sys.argv[1], 'rb').read())
    if bytes(b.d[:10]) == TD_MAGIC:
        trace_dat(b)
    elif bytes(b.d[:8]) == b'PERFILE2':
        perf_data(b)
    else:
        die('%s is neither a trace.dat nor a little-endian perf.data' % sys.argv[1])
    open(sys.argv[2], 'wb').write(b.d)


if __name__ == '__main__':
    main()
