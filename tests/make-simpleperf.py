#!/usr/bin/env python3
# Writes a small perf.data laid out as Android's simpleperf writes one,
# with the event formats of a committed kmemtrace recording:
#
#   make-simpleperf.py SOURCE.data OUT.data
#
# SOURCE is a perf.data made by perf, file form (its HEADER_TRACING_DATA
# feature section) or pipe form (its TRACING_DATA record, the data after
# it).  Its header page, event header and kmem:kmalloc format are taken;
# its OSRELEASE and ARCH features are copied when it has them.
#
# OUT is what simpleperf writes and perf does not (kmemtrace's reader
# takes it since two fixes; the tests in t0100-perfdata.sh hold them):
#   - file form (PERFILE2) without the HEADER_TRACING_DATA feature bit:
#     the tracing data (version 0.5, as simpleperf writes it: the one
#     kmalloc format, no kallsyms, printk formats or saved cmdlines) is
#     INSIDE the first record of the data section, a TRACING_DATA record
#     (type 66): the 8-byte header, a u32 size, the tracing data, zeros
#     to the record's size.  perf puts the data after a 16-byte record
#     (pipe form) or in the feature section (file form).
#   - two attrs, kmem:kmalloc (PERF_TYPE_TRACEPOINT, its id from the
#     format) and cycles (PERF_TYPE_HARDWARE, config 0), of one
#     sample_type IP|TID|TIME|ID|PERIOD|RAW: the cycles samples carry
#     RAW too, and only their ids tell them apart.
#   - then a COMM record of the task, the samples in time order: the
#     kmalloc samples below with their raw data built from the format's
#     field offsets and sizes, and cycles samples whose raw part is
#     empty, the u32 size 0 (then 4 bytes of padding to keep records
#     8-byte aligned), or as simpleperf's own are: size 4, all zeros.
#
# What is written is fixed (ids, times, addresses, sizes): the same
# SOURCE gives the same bytes.
import re
import struct
import sys

# the samples, whose counts and totals t0100-perfdata.sh checks
KMALLOC = [
	# call_site, ptr, bytes_req, bytes_alloc
	(0xffffffff81300010, 0xffff888100a00000, 100, 128),
	(0xffffffff81300010, 0xffff888100a00080, 100, 128),
	(0xffffffff81400020, 0xffff888100b00000, 200, 256),
	(0xffffffff81500030, 0xffff888100c00000, 1000, 1024),
]
CYCLES_RAW = [0, 0, 4]		# the raw size of each cycles sample
# so: 4 kmalloc, 3 other events, 1400 bytes requested, 1536 allocated

TD_MAGIC = b'\x17\x08Dtracing'
PERF_MAGIC = b'PERFILE2'
HEADER_SIZE = 104
ATTR_SIZE = 112			# PERF_ATTR_SIZE_VER5, simpleperf's
FEAT_TRACING_DATA, FEAT_OSRELEASE, FEAT_ARCH = 1, 4, 6

PERF_TYPE_HARDWARE, PERF_TYPE_TRACEPOINT = 0, 2
S_IP, S_TID, S_TIME, S_ID, S_PERIOD, S_RAW = 1, 2, 4, 0x40, 0x100, 0x400
SAMPLE_TYPE = S_IP | S_TID | S_TIME | S_ID | S_PERIOD | S_RAW
# TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, as simpleperf asks; no
# SAMPLE_READ, so nothing of it is in the samples
READ_FORMAT = 7
# disabled, inherit, mmap, comm, enable_on_exec, sample_id_all
FLAGS = 1 << 0 | 1 << 1 | 1 << 8 | 1 << 9 | 1 << 12 | 1 << 18
FLAG_FREQ = 1 << 10

REC_COMM, REC_SAMPLE, REC_TRACING_DATA = 3, 9, 66
MISC_KERNEL, MISC_USER = 1, 2

# the kmalloc attr's sample ids and the cycles attr's: one per CPU, as
# simpleperf opens its events; the samples use the first of each
KMALLOC_IDS = [101, 102]
CYCLES_IDS = [201, 202]
PID = TID = 4242
COMM = b'kmt-sperf'
T0 = 1000000000000		# ns, the first sample's time
GFP_KERNEL = 0xcc0


def die(msg):
	sys.exit('make-simpleperf: ' + msg)


def cstr(d, p):
	e = d.index(b'\0', p)
	return d[p:e], e + 1


def tracing_data(d):
	"""the source's tracing data: its bytes"""
	if d[:8] != PERF_MAGIC:
		die('the source is not a little-endian perf.data')
	hsize, = struct.unpack_from('<Q', d, 8)
	if hsize == 16:			# the pipe form: after its record
		at = 16
		while at + 8 <= len(d):
			t, _, size = struct.unpack_from('<IHH', d, at)
			if size < 8:
				die('a corrupt record at byte %d' % at)
			if t == REC_TRACING_DATA:
				n, = struct.unpack_from('<I', d, at + 8)
				return d[at + size:at + size + n]
			at += size
		die('the source has no TRACING_DATA record')
	if hsize != HEADER_SIZE:
		die('a perf.data header of %d bytes' % hsize)
	sec = feature(d, FEAT_TRACING_DATA)
	if sec is None:
		die('the source has no HEADER_TRACING_DATA feature')
	return sec


def feature(d, bit):
	"""the section of feature bit in a file-form perf.data, or None"""
	doff, dsize = struct.unpack_from('<QQ', d, 40)
	bits = int.from_bytes(d[72:104], 'little')
	if not bits >> bit & 1:
		return None
	i = bin(bits & ((1 << bit) - 1)).count('1')
	off, size = struct.unpack_from('<QQ', d, doff + dsize + 16 * i)
	return d[off:off + size]


def kmalloc_parts(td):
	"""header page, event header, the kmem:kmalloc format of tracing data"""
	if td[:10] != TD_MAGIC:
		die('the tracing data does not start with the tracing magic')
	_, p = cstr(td, 10)		# the version
	if td[p] != 0:
		die('the tracing data is big-endian')
	long_size = td[p + 1]
	p += 6				# endianness, long size, u32 page size
	blobs = {}
	for name in (b'header_page', b'header_event'):
		n, p = cstr(td, p)
		if n != name:
			die('no %s in the tracing data' % name.decode())
		size, = struct.unpack_from('<Q', td, p)
		blobs[name] = td[p + 8:p + 8 + size]
		p += 8 + size
	n, = struct.unpack_from('<I', td, p)
	p += 4
	for _ in range(n):		# the ftrace formats
		size, = struct.unpack_from('<Q', td, p)
		p += 8 + size
	n, = struct.unpack_from('<I', td, p)
	p += 4
	for _ in range(n):
		sys_name, p = cstr(td, p)
		k, = struct.unpack_from('<I', td, p)
		p += 4
		for _ in range(k):
			size, = struct.unpack_from('<Q', td, p)
			fmt = td[p + 8:p + 8 + size]
			p += 8 + size
			if sys_name == b'kmem' and fmt.startswith(b'name: kmalloc\n'):
				return (long_size, blobs[b'header_page'],
					blobs[b'header_event'], fmt)
	die('no kmem:kmalloc format in the tracing data')


def parse_format(fmt):
	"""the event id and {field: (offset, size, signed)}"""
	text = fmt.decode()
	m = re.search(r'^ID: (\d+)$', text, re.M)
	if not m:
		die('the kmalloc format has no ID')
	fields = {}
	for name, off, size, signed in re.findall(
			r'field:[^;]*?(\w+)(?:\[\d*\])?;\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);',
			text):
		fields[name] = (int(off), int(size), int(signed))
	for need in ('common_type', 'common_pid', 'call_site', 'ptr',
		     'bytes_req', 'bytes_alloc', 'gfp_flags'):
		if need not in fields:
			die('the kmalloc format has no field %s' % need)
	return int(m.group(1)), fields


def new_tracing_data(long_size, page, event, fmt):
	"""simpleperf's tracing data: version 0.5, the one kmem format"""
	out = bytearray(TD_MAGIC + b'0.5\0')
	out += struct.pack('<BBI', 0, long_size, 4096)
	out += b'header_page\0' + struct.pack('<Q', len(page)) + page
	out += b'header_event\0' + struct.pack('<Q', len(event)) + event
	out += struct.pack('<I', 0)				# ftrace formats
	out += struct.pack('<I', 1) + b'kmem\0' + struct.pack('<I', 1)
	out += struct.pack('<Q', len(fmt)) + fmt
	out += struct.pack('<I', 0)				# kallsyms
	out += struct.pack('<I', 0)				# printk formats
	return bytes(out)					# (0.5: no cmdlines)


def put(raw, fields, name, value):
	off, size, signed = fields[name]
	raw[off:off + size] = value.to_bytes(size, 'little', signed=bool(signed))


def kmalloc_raw(evid, fields, call_site, ptr, req, alloc):
	end = max(off + size for off, size, _ in fields.values())
	raw = bytearray(end + (-(end + 4)) % 8)	# u32 size + raw: u64-aligned
	put(raw, fields, 'common_type', evid)
	put(raw, fields, 'common_pid', TID)
	put(raw, fields, 'call_site', call_site)
	put(raw, fields, 'ptr', ptr)
	put(raw, fields, 'bytes_req', req)
	put(raw, fields, 'bytes_alloc', alloc)
	put(raw, fields, 'gfp_flags', GFP_KERNEL)
	if 'node' in fields:
		put(raw, fields, 'node', -1)
	return bytes(raw)


def record(rtype, misc, body):
	body += b'\0' * (-len(body) % 8)
	if len(body) + 8 > 0xffff:
		die('a record of %d bytes: more than a record holds' % len(body))
	return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def sample(misc, ip, t, sid, period, raw):
	body = struct.pack('<QIIQQQI', ip, PID, TID, t, sid, period, len(raw))
	return record(REC_SAMPLE, misc, body + raw)


def attr(atype, config, period, flags):
	a = struct.pack('<IIQQQQQ', atype, ATTR_SIZE, config, period,
			SAMPLE_TYPE, READ_FORMAT, flags)
	return a + b'\0' * (ATTR_SIZE - len(a))


def main():
	if len(sys.argv) != 3:
		sys.exit('usage: make-simpleperf.py SOURCE.data OUT.data')
	src = open(sys.argv[1], 'rb').read()
	long_size, page, event, fmt = kmalloc_parts(tracing_data(src))
	evid, fields = parse_format(fmt)
	td = new_tracing_data(long_size, page, event, fmt)

	# the data section: the tracing data record first, as simpleperf
	# writes it; the COMM's sample_id_all trailer is TID, TIME, ID
	data = record(REC_TRACING_DATA, 0, struct.pack('<I', len(td)) + td)
	data += record(REC_COMM, 0, struct.pack('<II', PID, TID) + COMM +
		       b'\0' * (8 - len(COMM) % 8) +
		       struct.pack('<IIQQ', PID, TID, T0 - 1000, KMALLOC_IDS[0]))
	t = T0
	cycles = list(CYCLES_RAW)
	for i, (cs, ptr, req, alloc) in enumerate(KMALLOC):
		data += sample(MISC_KERNEL, cs, t, KMALLOC_IDS[0], 1,
			       kmalloc_raw(evid, fields, cs, ptr, req, alloc))
		t += 1000
		if cycles and i % 2 == 0:
			n = cycles.pop(0)
			data += sample(MISC_USER, 0x5555555551a0 + 16 * i, t,
				       CYCLES_IDS[0], 250000, b'\0' * n)
			t += 1000
	for n in cycles:
		data += sample(MISC_USER, 0x5555555552a0, t, CYCLES_IDS[0],
			       250000, b'\0' * n)
		t += 1000

	# ids after the header, then the attrs (each with its id list's
	# file section), the data, the feature table, its sections
	ids = struct.pack('<%dQ' % len(KMALLOC_IDS), *KMALLOC_IDS)
	ids_c = struct.pack('<%dQ' % len(CYCLES_IDS), *CYCLES_IDS)
	ids_off = HEADER_SIZE
	attrs_off = ids_off + len(ids) + len(ids_c)
	attrs = attr(PERF_TYPE_TRACEPOINT, evid, 1, FLAGS)
	attrs += struct.pack('<QQ', ids_off, len(ids))
	attrs += attr(PERF_TYPE_HARDWARE, 0, 4000, FLAGS | FLAG_FREQ)
	attrs += struct.pack('<QQ', ids_off + len(ids), len(ids_c))
	data_off = attrs_off + len(attrs)

	feats = []
	for bit in (FEAT_OSRELEASE, FEAT_ARCH):
		sec = feature(src, bit) if src[8] == HEADER_SIZE else None
		if sec is not None:
			feats.append((bit, sec))
	table_off = data_off + len(data)
	at = table_off + 16 * len(feats)
	table = b''
	for _, sec in feats:
		table += struct.pack('<QQ', at, len(sec))
		at += len(sec)
	bits = 0
	for bit, _ in feats:
		bits |= 1 << bit

	header = PERF_MAGIC + struct.pack('<QQQQQQQQ', HEADER_SIZE,
					  ATTR_SIZE + 16, attrs_off, len(attrs),
					  data_off, len(data), 0, 0)
	header += bits.to_bytes(32, 'little')
	assert len(header) == HEADER_SIZE
	out = header + ids + ids_c + attrs + data + table
	out += b''.join(sec for _, sec in feats)
	with open(sys.argv[2], 'wb') as f:
		f.write(out)


main()
