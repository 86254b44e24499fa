// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader (versions 6 and 7, compressed or not), on libtracecmd.
 *
 * libtracecmd parses the file's headers and options.  The records of
 * each CPU are read here from its pages (struct td_pages, with
 * libtraceevent's kbuffer), a chunk at a time, where libtracecmd would
 * hold all the data; it still reads them when it changes their times
 * (DATE, OFFSET, TIME_SHIFT, TSC2NSEC).  The CPU streams of every
 * buffer in the file are merged by timestamp, each kmem event kept
 * together with the kernel stack the `stacktrace` trigger wrote right
 * after it on the same CPU, records decoded with tpdecode, and what the
 * ring buffer lost counted.
 *
 * libtracecmd 3.1 and libtraceevent 1.7 crash on cut or damaged files in
 * several places, so before they see a file its layout is walked here
 * (v6: the header blobs, options and CPU tables; v7: the options
 * sections and buffer descriptions) against the file's size, and every
 * ring-buffer page is checked.  What is left to them is the text of the
 * event formats, printk formats and command lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbuffer.h>
#include <zlib.h>
#include <trace-cmd.h>

#include "event/fmtcheck.h"
#include "event/kcounters.h"
#include "event/session.h"
#include "event/tpdecode.h"
#include "source/bootinfo.h"
#include "source/merge.h"
#include "source/source.h"
#include "source/tracedat-format.h"
#include "util/array.h"

/*
 * Exported by libtracecmd 3.1 but declared only in its private header,
 * which Debian does not ship.
 */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_peek_data(struct tracecmd_input *handle, int cpu);
struct tracecmd_compression;
struct tracecmd_compress_chunk {
	unsigned int size;
	unsigned int zsize;
	off64_t zoffset;
	off64_t offset;
};
struct tracecmd_compression *tracecmd_compress_alloc(const char *name,
	const char *version, int fd, struct tep_handle *tep, void *msg_handle);
void tracecmd_compress_destroy(struct tracecmd_compression *handle);
int tracecmd_load_chunks_info(struct tracecmd_compression *handle,
			      struct tracecmd_compress_chunk **chunks_info);
int tracecmd_uncompress_block(struct tracecmd_compression *handle);
int tracecmd_compress_block(struct tracecmd_compression *handle);
int tracecmd_compress_buffer_write(struct tracecmd_compression *handle,
				   const void *data, unsigned long long size);
int tracecmd_compress_buffer_read(struct tracecmd_compression *handle,
				  char *dst, int len);
void tracecmd_compress_reset(struct tracecmd_compression *handle);
bool tracecmd_compress_is_supported(const char *name, const char *version);
struct tracecmd_input *tracecmd_alloc_fd(int fd, int flags);
int tracecmd_read_headers(struct tracecmd_input *handle, int state);
int tracecmd_uncompress_chunk(struct tracecmd_compression *handle,
			      struct tracecmd_compress_chunk *chunk, char *data);

/*
 * Its codec table, from the same header (3.1's layout).  Debian builds
 * libtracecmd without zlib, which trace-cmd 3.x writes where it has no
 * libzstd (--compression zlib too): kmemtrace brings that codec itself.
 */
struct tracecmd_compression_proto {
	int weight;
	const char *name;
	const char *version;
	int (*compress)(void *ctx, const void *in, int in_bytes, void *out,
			int out_bytes);
	int (*uncompress)(void *ctx, const void *in, int in_bytes, void *out,
			  int out_bytes);
	unsigned int (*compress_size)(void *ctx, unsigned int bytes);
	bool (*is_supported)(const char *name, const char *version);
	void *(*new_context)(void);
	void (*free_context)(void *ctx);
};
int tracecmd_compress_proto_register(struct tracecmd_compression_proto *proto);

/*
 * The longest text options read: kmemtrace record's own (the pid -> tgid
 * map, the boot id and clocks of source/bootinfo.h, the NUMA nodes) and
 * the trace clock
 */
#define TD_MAX_TGIDS		(64U << 20)	/* 4 M tasks and more */
#define TD_MAX_BOOT		4096	/* far more than it writes */
#define TD_MAX_NODES		(1U << 20)	/* 1024 nodes of 4096 CPUs */
#define TD_MAX_COUNTERS		(64U << 20)	/* slabinfo: ~100 bytes a cache */
#define TD_MAX_CGROUPS		(256U << 20)	/* 4 M tasks, long paths */
#define TD_MAX_CLOCK		4096	/* the kernel's trace_clock file: ~100 bytes */
#define TD_MAX_STACK	512
#define TD_MAX_CHUNK	(64U << 20)	/* trace-cmd writes a few pages */
/* more metadata than a real file holds: a bigger block is damaged */
#define TD_MAX_META	(256U << 20)

struct td_region;

/*
 * One CPU's pages, read here rather than by libtracecmd: libtracecmd 3.1
 * keeps every chunk of compressed data it uncompresses until the file is
 * closed (its cache never finds the chunk a freed page came from), and
 * keeps plain data mapped, so reading a trace.dat through it takes the
 * memory of all its data.  Here one chunk (compressed) or TD_READ_PAGES
 * pages (plain) are held at a time, and the pages go through
 * libtraceevent's kbuffer as libtracecmd's own do.
 */
#define TD_READ_PAGES	64

/* a record of a page as kbuffer gives it (see walk_page) */
struct td_ev {
	uint64_t ts;
	uint32_t index;		/* of its data, from the page's data */
	int32_t size;
	int missed;
};

struct td_pages {
	const struct td_region *r;
	struct kbuffer *kbuf;
	int can_walk;			/* walk_page may read these pages */
	int long8;			/* the commit field is 8 bytes */
	int walked;			/* the page in evs, not in kbuf */
	const unsigned char *page_data;	/* its data, past the header */
	struct td_ev *evs;		/* its records, walked */
	size_t nr_evs, ev_at, evs_alloc;
	int next_chunk;			/* compressed: of r->chunks */
	uint64_t plain_at;		/* plain: bytes of the region read */
	unsigned char *chunk;		/* the pages being read */
	size_t chunk_len, chunk_alloc;
	size_t page_at;			/* the next page in chunk */
	int in_page;			/* kbuf holds a page with events left */
	struct tep_record own;		/* the current record, its data copied */
	unsigned char *data;
	size_t data_alloc;
	struct tep_record pend;		/* the record after it, when peeked */
	int have_pend;
};

/* one CPU of one buffer: its stream of records */
struct td_cursor {
	struct tracecmd_input *h;	/* not owned */
	struct td_pages *pg;		/* its pages, when read here */
	struct tep_record *rec;		/* the next event, NULL at the end */
	uint32_t stack;			/* its kernel stack id, 0 if none */
	int cpu;
	int buf;			/* index into td->bufs */
	int started;			/* last_ts is valid */
	uint64_t last_ts;
	uint64_t missed;		/* counted by missed-events flags */
	uint64_t nr_missed_records;
	uint64_t stat_overrun;		/* from the stats the file stores */
	uint64_t stat_other;		/* commit overruns, dropped events */
	/*
	 * The pid of the last event whose command name emit_record looked
	 * for, plus one (0: none yet).  A CPU runs one task for many
	 * events, and once a pid has a name in the session, or libtraceevent
	 * has none, neither changes: the next events of that pid skip both
	 * lookups.
	 */
	int64_t named_pid;
	/* the event id of the record peeked after rec, which is read next */
	int peek_id, have_peek_id;
};

/* one CPU's ring-buffer pages in the file */
struct td_region {
	uint64_t offset, size;
	unsigned int page_size;
	int compressed;			/* v7: chunks of compressed pages */
	int cpu;
	char *buffer;			/* its buffer's name, "" the top one */
	/* compressed: its chunks, as check_compressed found them */
	struct tracecmd_compress_chunk *chunks;
	int nr_chunks;
};

struct td_buffer {
	struct tracecmd_input *h;
	const char *name;		/* "" for the top-level buffer */
	int owned;			/* an instance handle we close */
};

/*
 * Where an unusable event format stands, to be blanked: at in the file,
 * or, in a compressed section, at in what the block at block holds.
 * zero: bytes libtracecmd must read as zeros instead (a size it would
 * allocate), never in a compressed section.
 */
struct td_blank {
	uint64_t block, at, len;
	int zero;
	int lines;	/* newlines instead: an empty kallsyms of that size */
};

struct td {
	struct kmt_session *s;
	struct kmt_input *in;
	/*
	 * pids libtraceevent has no command name for: its answer does not
	 * change during the read, and asking again cost a bsearch of its
	 * cmdlines for each of their events (8% of the instructions on
	 * bench.trace.dat)
	 */
	struct kmt_hash_set no_comm;
	/*
	 * The unusable formats (fmtcheck.h) libtracecmd must not see: it
	 * parses every format as it opens the file, so it reads a copy in
	 * which each is replaced by a harmless one of the same length
	 * (blanked_copy), and this reader its pages from the file itself.
	 */
	struct td_blank *blanks;
	size_t nr_blanks, alloc_blanks;
	struct tracecmd_input *h;
	struct tep_handle *tep;
	struct kmt_tp_decoder dec;
	int have_dec;
	struct td_buffer *bufs;
	size_t nr_bufs, alloc_bufs;
	struct td_cursor *cur;
	size_t nr_cur, alloc_cur;
	struct kmt_merge merge;		/* of the cursors, by time then index */
	int stack_id;			/* ftrace:kernel_stack, -1 if absent */
	int stack_size_off, stack_size_len;
	int stack_caller_off, stack_elem;
	uint64_t ips[TD_MAX_STACK];
	unsigned long version;
	int big_endian;
	/*
	 * libtracecmd shifts or scales record times (DATE, OFFSET,
	 * TIME_SHIFT, TSC2NSEC), or options it may read were not walked:
	 * then it reads the records, times and all, not struct td_pages.
	 */
	int lib_times;
	int has_clock;			/* a TRACECLOCK option was seen */
	unsigned int seen_opts;		/* 1 << id of options seen once */
	int err;			/* reading records failed: -errno */
	uint64_t err_at;		/* the region whose pages did */
	char zname[32], zversion[32];	/* v7 compression, "" none */
	/* the codec check_data uncompressed with, kept to read the pages */
	struct tracecmd_compression *z;
	/* the codec the walk uncompresses sections with, before the handle */
	struct tracecmd_compression *wz;
	struct tep_handle *wtep;
	unsigned int page_size;		/* of the file header */
	struct td_region *regions;	/* every CPU's data, to check */
	size_t nr_regions, alloc_regions;
	/*
	 * The file's kallsyms, where they lie (in the file, or at in the
	 * compressed block ksyms_block, whose text the walk kept), and
	 * whether this reader parses them (own_ksyms) rather than
	 * libtraceevent, which took an eighth of a report of a 228 MB
	 * recording of this machine's 121,000 symbols (sscanf and a malloc
	 * a line): libtracecmd then reads a copy with the section blanked
	 * (blanked_copy).
	 */
	uint64_t ksyms_at, ksyms_len;
	uint64_t ksyms_block;		/* v7: its compressed block, or 0 */
	char *ksyms_text;		/* v7 compressed: its text, kept */
	int own_ksyms;
	int sparse;			/* the copy without the CPU data */
};

static int probe(const unsigned char *head, size_t len)
{
	return len >= KMT_TD_MAGIC_LEN &&
	       !memcmp(head, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN);
}

static uint64_t rd_num(const struct td *td, const unsigned char *p, int size)
{
	uint64_t v = 0;
	int i;

	/*
	 * check_page reads every event header here: in the host's order,
	 * one load, not a loop of bytes
	 */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !td->big_endian &&
	    (size == 4 || size == 8)) {
		if (size == 4) {
			uint32_t v4;

			memcpy(&v4, p, 4);
			return v4;
		}
		memcpy(&v, p, 8);
		return v;
	}
	for (i = 0; i < size; i++) {
		int shift = td->big_endian ? (size - 1 - i) * 8 : i * 8;

		v |= (uint64_t)p[i] << shift;
	}
	return v;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got,
				  (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/*
 * The fixed start of the file: magic, version string, endianness, long
 * size, page size; v7 adds the compression names and the offset of the
 * first options section.  Read from the sniffed head, which holds it.
 */
static int parse_init(struct td *td, uint64_t *options_at, uint64_t *init_end)
{
	const unsigned char *h = td->in->head;
	size_t len = td->in->head_len, p = KMT_TD_MAGIC_LEN, v;
	char *end;

	*options_at = 0;
	*init_end = 0;
	v = p;
	while (p < len && p < v + 16 && h[p])
		p++;
	if (p >= len || h[p])
		return kmt_session_error(td->s, EINVAL,
			"'%s' is truncated at byte %zu: the trace.dat header is incomplete",
			td->in->display, len);
	td->version = strtoul((const char *)h + v, &end, 10);
	if (end == (const char *)h + v || *end)
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: bad version string",
			td->in->display);
	if (td->version != 6 && td->version != 7)
		return kmt_session_error(td->s, ENOTSUP,
			"'%s' is a trace.dat of version %lu; versions 6 and 7 are read",
			td->in->display, td->version);
	p++;
	if (p + 6 > len)
		return kmt_session_error(td->s, EINVAL,
			"'%s' is truncated at byte %zu: the trace.dat header is incomplete",
			td->in->display, len);
	/* endianness 0 or 1, long size 4 or 8: all numbers depend on them */
	if (h[p] > 1 || (h[p + 1] != 4 && h[p + 1] != 8))
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: bad endianness or long size byte",
			td->in->display);
	td->big_endian = h[p] == 1;
	td->page_size = (unsigned int)rd_num(td, h + p + 2, 4);
	/*
	 * a ring-buffer page (sub-buffer): a power of two from the kernel's
	 * PAGE_SIZE up; libtracecmd allocates and maps buffers of this size,
	 * and a size past INT_MAX turns negative on the way (found by fuzzing)
	 */
	if (td->page_size < 4096 || td->page_size > TD_MAX_CHUNK ||
	    (td->page_size & (td->page_size - 1)))
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: its page size at byte %zu is %u, not a power of two from 4096 to %u",
			td->in->display, p + 2, td->page_size, TD_MAX_CHUNK);
	p += 6;
	*init_end = p;
	if (td->version == 7) {
		size_t zat = p;
		int i;

		/* compression algorithm and its version, both strings */
		for (i = 0; i < 2; i++) {
			char *dst = i ? td->zversion : td->zname;
			size_t n = 0;

			while (p < len && h[p]) {
				if (n < sizeof(td->zname) - 1)
					dst[n++] = (char)h[p];
				p++;
			}
			dst[n] = '\0';
			p++;
		}
		/*
		 * libtracecmd leaks its handle's formats when it refuses the
		 * codec: ask it first (a name cut short here is not one, nor
		 * is an empty one)
		 */
		if (!strcmp(td->zname, "none"))
			td->zname[0] = '\0';
		else if (!td->zname[0] ||
			 strlen(td->zname) == sizeof(td->zname) - 1 ||
			 strlen(td->zversion) == sizeof(td->zversion) - 1 ||
			 !tracecmd_compress_is_supported(td->zname,
							 td->zversion))
			return kmt_session_error(td->s, ENOTSUP,
				"'%s' is not a trace.dat kmemtrace can read: byte %zu names its codec '%s' version '%s', which libtracecmd cannot uncompress",
				td->in->display, zat, td->zname, td->zversion);
		if (p + 8 > len)
			return kmt_session_error(td->s, EINVAL,
				"'%s' is truncated at byte %zu: the trace.dat header is incomplete",
				td->in->display, len);
		*options_at = rd_num(td, h + p, 8);
		*init_end = p + 8;	/* where libtracecmd looks for strings */
	}
	return 0;
}

/*
 * libtracecmd 3.1 crashes opening an instance buffer whose pages lie past
 * the end of a v6 file and reads short CPU data without complaint, so a
 * v6 file's layout is walked and checked against the file size first.
 * Every part of it is a length-prefixed blob in a fixed order.  (v7 keeps
 * its buffer descriptions at the end, which a cut file loses, and
 * libtracecmd then refuses to open it.)
 */
struct td_walk {
	struct td *td;
	uint64_t pos;
	uint64_t size;
	int cpus;
	/*
	 * A compressed section, uncompressed: [0, size) are in mem and
	 * offsets count from its start (base in the file, for messages).
	 */
	const unsigned char *mem;
	uint64_t base;
	uint64_t block;		/* where its compressed block is */
};

static int walk_read(struct td_walk *w, void *buf, size_t n, uint64_t off)
{
	if (!w->mem)
		return pread_all(w->td->in->fd, buf, n, off);
	if (off > w->size || n > w->size - off)
		return -1;
	memcpy(buf, w->mem + off, n);
	return 0;
}

static int walk_short(struct td_walk *w, uint64_t end, const char *what)
{
	if (w->mem)
		return kmt_session_error(w->td->s, EINVAL,
			"'%s' is not a valid trace.dat: %s in the compressed section at byte %llu runs past its end",
			w->td->in->display, what, (unsigned long long)w->base);
	return kmt_session_error(w->td->s, EINVAL,
		"'%s' is truncated at byte %llu: %s should end at byte %llu",
		w->td->in->display, (unsigned long long)w->size, what,
		(unsigned long long)end);
}

static int walk_damaged(struct td_walk *w, uint64_t at, const char *what)
{
	if (w->mem)
		return kmt_session_error(w->td->s, EINVAL,
			"'%s' is not a valid trace.dat: %s in the compressed section at byte %llu is damaged",
			w->td->in->display, what, (unsigned long long)w->base);
	return kmt_session_error(w->td->s, EINVAL,
		"'%s' is not a valid trace.dat: byte %llu (%s) is damaged",
		w->td->in->display, (unsigned long long)at, what);
}

/* reads an n-byte number at the walk position and moves past it */
static int walk_num(struct td_walk *w, int n, uint64_t *v, const char *what)
{
	unsigned char b[8];

	if (w->pos + n > w->size || walk_read(w, b, n, w->pos))
		return walk_short(w, w->pos + n, what);
	*v = rd_num(w->td, b, n);
	w->pos += n;
	return 0;
}

/*
 * A trace clock's text (the TRACECLOCK option, v6's copy after the CPU
 * table): libtracecmd splits it at blanks and, in the first word that
 * starts with '[', takes what lies between the brackets with sscanf,
 * which dereferences NULL when nothing does ("[", "[]").  The kernel
 * writes "[local] global ...": the marked word names a clock.
 */
static int walk_clock_text(struct td_walk *w, uint64_t at, uint64_t len)
{
	char buf[TD_MAX_CLOCK + 1];
	size_t i, n;

	if (len > TD_MAX_CLOCK)
		return walk_damaged(w, at, "a trace clock longer than any");
	n = (size_t)len;
	if (walk_read(w, buf, n, at))
		return walk_short(w, at + len, "the trace clock");
	buf[n] = '\0';
	n = strlen(buf);	/* libtracecmd reads it as a string */
	for (i = 0; i < n; i++) {
		size_t end = i;

		if (buf[i] == ' ')
			continue;
		while (end < n && buf[end] != ' ')
			end++;
		if (buf[i] == '[') {
			size_t j;

			for (j = i; j < end && (buf[j] == '[' || buf[j] == ']'); j++)
				;
			if (j == end)
				return walk_damaged(w, at, "a trace clock marked empty");
			return 0;
		}
		i = end;
	}
	return 0;
}

/* a blob: its size in lensize bytes, then that many bytes */
static int walk_blob(struct td_walk *w, int lensize, const char *what)
{
	uint64_t len;
	int ret = walk_num(w, lensize, &len, what);

	if (ret)
		return ret;
	if (len > w->size || w->pos + len > w->size)
		return walk_short(w, w->pos + len, what);
	w->pos += len;
	return 0;
}

/* a string with its NUL; copied to buf when buf is not NULL */
static int walk_string(struct td_walk *w, char *buf, size_t bufsize,
		       const char *what)
{
	char tmp[256];
	size_t n = sizeof(tmp), len;

	if (w->pos + n > w->size)
		n = (size_t)(w->size - w->pos);
	if (!n || walk_read(w, tmp, n, w->pos))
		return walk_short(w, w->pos + 1, what);
	len = strnlen(tmp, n);
	if (len == n)
		return walk_short(w, w->pos + n + 1, what);
	if (buf) {
		size_t c = len < bufsize ? len : bufsize - 1;

		memcpy(buf, tmp, c);
		buf[c] = '\0';
	}
	w->pos += len + 1;
	return 0;
}

static int add_region(struct td *td, uint64_t off, uint64_t size,
		      unsigned int page_size, int compressed, int cpu,
		      const char *buffer)
{
	struct td_region *r;

	if (!size)
		return 0;
	if (KMT_ARRAY_GROW(td->regions, td->nr_regions + 1, td->alloc_regions))
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	r = &td->regions[td->nr_regions];
	memset(r, 0, sizeof(*r));
	r->offset = off;
	r->size = size;
	r->page_size = page_size;
	r->compressed = compressed;
	r->cpu = cpu;
	r->buffer = strdup(buffer);
	if (!r->buffer)
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	td->nr_regions++;
	return 0;
}

/*
 * Options libtracecmd reads without looking at their size: strings it
 * strdup()s (so they must end in NUL) and numbers of a fixed size.
 */
static const struct {
	unsigned short id;
	unsigned char min;	/* bytes */
	unsigned char string;
} td_options[] = {
	{ KMT_TD_OPT_DATE, 1, 1 },
	/* CPUSTAT: libtracecmd writes a newline at size - 1 */
	{ KMT_TD_OPT_CPUSTAT, 1, 0 },
	{ KMT_TD_OPT_UNAME, 1, 1 },
	{ KMT_TD_OPT_HOOK, 1, 1 },
	{ KMT_TD_OPT_OFFSET, 1, 1 },
	{ KMT_TD_OPT_CPUCOUNT, 4, 0 },
	{ KMT_TD_OPT_VERSION, 1, 1 },
	{ KMT_TD_OPT_PROCMAPS, 1, 1 },
	{ KMT_TD_OPT_TRACEID, 8, 0 },
	{ KMT_TD_OPT_TSC2NSEC, 16, 0 },
	/* v7: offsets of the sections */
	{ KMT_TD_OPT_HEADER_INFO, 8, 0 },
	{ KMT_TD_OPT_FTRACE_EVENTS, 8, 0 },
	{ KMT_TD_OPT_EVENT_FORMATS, 8, 0 },
	{ KMT_TD_OPT_KALLSYMS, 8, 0 },
	{ KMT_TD_OPT_PRINTK, 8, 0 },
	{ KMT_TD_OPT_CMDLINES, 8, 0 },
};

/*
 * kmemtrace record's boot id and clocks.  Only a fact about the
 * recording, not needed to read it: a damaged one is left out, never
 * guessed at, and the file is read as if it had none.
 */
static void walk_boot(struct td_walk *w, uint64_t at, uint64_t len)
{
	struct kmt_session *s = w->td->s;
	struct kmt_bootinfo b;
	char buf[TD_MAX_BOOT];

	if (len > sizeof(buf) || walk_read(w, buf, (size_t)len, at) ||
	    kmt_bootinfo_parse(&b, buf, (size_t)len))
		return;
	memcpy(s->boot_id, b.boot_id, sizeof(s->boot_id));
	/*
	 * one of the two clocks wrapped or damaged, or the times read are
	 * libtracecmd's (moved by a DATE, OFFSET, TIME_SHIFT or TSC2NSEC
	 * option), not the trace clock's: no offset to trust
	 */
	s->has_wall = b.has_clock && b.realtime_ns <= INT64_MAX &&
		      b.trace_ns <= INT64_MAX && !w->td->lib_times;
	s->wall_offset_ns = s->has_wall ? (int64_t)b.realtime_ns -
					  (int64_t)b.trace_ns : 0;
}

/*
 * One of record's own text options: its len bytes at at, NUL-ended, in
 * *buf (freed by the caller) when they start with magic and are at most
 * max; else *buf NULL.  Where the text ends in *end.  -ENOMEM or 0.
 */
static int own_text(struct td_walk *w, uint64_t at, uint64_t len,
		    const char *magic, uint64_t max, char **buf, char **end)
{
	size_t n = strlen(magic);

	*buf = NULL;
	if (len <= n || len > max)
		return 0;
	*buf = malloc((size_t)len + 1);
	if (!*buf)
		return -ENOMEM;
	if (walk_read(w, *buf, (size_t)len, at) || memcmp(*buf, magic, n)) {
		free(*buf);
		*buf = NULL;
		return 0;
	}
	(*buf)[len] = 0;
	*end = *buf + strnlen(*buf, (size_t)len);
	return 0;
}

/*
 * kmemtrace record's thread groups, for --by tgid: like the boot id, a
 * fact about the recording; a damaged one is left out (the report then
 * says the recording has none), and a line that is not "pid tgid" ends
 * it.  -ENOMEM only.
 */
static int walk_tgids(struct td_walk *w, uint64_t at, uint64_t len)
{
	char *buf, *p, *end;
	int ret = own_text(w, at, len, KMT_TD_TGIDS_MAGIC, TD_MAX_TGIDS,
			   &buf, &end);

	if (ret || !buf)
		return ret;
	for (p = buf + strlen(KMT_TD_TGIDS_MAGIC); p < end && !ret;) {
		char *q;
		long pid = strtol(p, &q, 10), tgid;

		if (q == p || *q != ' ')
			break;
		p = q + 1;
		tgid = strtol(p, &q, 10);
		if (q == p || *q != '\n' || pid <= 0 || pid > INT32_MAX ||
		    tgid <= 0 || tgid > INT32_MAX)
			break;
		p = q + 1;
		ret = kmt_session_set_tgid(w->td->s, (int32_t)pid,
					   (int32_t)tgid);
	}
	free(buf);
	return ret;
}

/*
 * kmemtrace record's CPUs of each NUMA node, "node cpulist" lines, for
 * the NUMA figure: a fact about the recording like the thread groups,
 * but one that is damaged anywhere is dropped whole (the figure says
 * "not recorded"): part of a map would count remote asks as local.
 * -ENOMEM only.
 */
static int walk_nodes(struct td_walk *w, uint64_t at, uint64_t len)
{
	struct kmt_session *s = w->td->s;
	char *buf, *p, *end;
	int ret;

	kmt_session_drop_nodes(s);
	ret = own_text(w, at, len, KMT_TD_NODES_MAGIC, TD_MAX_NODES, &buf,
		       &end);
	if (ret || !buf)
		return ret;
	for (p = buf + strlen(KMT_TD_NODES_MAGIC); p < end && !ret;) {
		char *q, *eol = memchr(p, '\n', (size_t)(end - p));
		long node = strtol(p, &q, 10);

		if (q == p || *q != ' ' || !eol || node < 0 || node > INT16_MAX)
			ret = -EINVAL;
		else
			ret = kmt_session_set_node_cpus(s, (int)node, q + 1,
							(size_t)(eol - q - 1));
		p = eol + 1;
	}
	free(buf);
	if (ret == -EINVAL)
		kmt_session_drop_nodes(s);
	return ret == -ENOMEM ? ret : 0;
}

/*
 * kmemtrace record's snapshots of the kernel's counters: a fact about
 * the recording, not needed to read its events, so one that is damaged
 * is left out whole (the views say "not recorded") with a warning that
 * says where, never half-believed.  -ENOMEM only.
 */
static int walk_kcounters(struct td_walk *w, uint64_t at, uint64_t len)
{
	struct kmt_session *s = w->td->s;
	struct kmt_kcounters *c;
	char *buf = NULL, why[160];
	int ret = -EINVAL;

	kmt_session_drop_kcounters(s);
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	kmt_kcounters_init(c);
	snprintf(why, sizeof(why), "line 1: no \"kmemtrace counters\" line");
	if (len <= TD_MAX_COUNTERS) {
		buf = malloc((size_t)len + 1);
		if (!buf) {
			ret = -ENOMEM;
		} else if (walk_read(w, buf, (size_t)len, at)) {
			snprintf(why, sizeof(why), "it runs past the end of the file");
		} else {
			buf[len] = '\0';
			ret = kmt_kcounters_parse_option(c, buf, (size_t)len, why,
							 sizeof(why));
		}
	} else {
		snprintf(why, sizeof(why), "%llu bytes, more than any",
			 (unsigned long long)len);
	}
	free(buf);
	if (!ret) {
		s->kcounters = c;
		return 0;
	}
	kmt_kcounters_free(c);
	free(c);
	if (ret == -ENOMEM)
		return ret;
	if (w->mem)
		snprintf(s->kcounters_damaged, sizeof(s->kcounters_damaged),
			 "'%s': the kernel's counters in the compressed section at byte %llu are damaged (%s): left out",
			 w->td->in->display, (unsigned long long)w->base, why);
	else
		snprintf(s->kcounters_damaged, sizeof(s->kcounters_damaged),
			 "'%s': the kernel's counters at byte %llu are damaged (%s): left out",
			 w->td->in->display, (unsigned long long)(at - 6), why);
	return 0;
}

/*
 * kmemtrace record's task-to-cgroup map, for --procs --by cgroup: a fact
 * about the recording like the nodes, dropped whole when damaged
 * anywhere (a task put in the wrong cgroup is worse than none), and
 * then the session says where, for the report's warning.  -ENOMEM only.
 */
static int walk_cgroups(struct td_walk *w, uint64_t at, uint64_t len)
{
	struct kmt_cgmap *m = &w->td->s->cgroups;
	size_t bad_at = 0;
	char why[96];
	char *buf, *end;
	int ret;

	ret = own_text(w, at, len, KMT_CGMAP_MAGIC, TD_MAX_CGROUPS, &buf,
		       &end);
	if (ret)
		return ret;
	if (!buf) {
		kmt_cgmap_free(m);
		snprintf(m->damaged, sizeof(m->damaged),
			 "the cgroups option at byte %llu%s is not a task-to-cgroup map",
			 (unsigned long long)(w->mem ? w->base : at),
			 w->mem ? " (of the compressed section)" : "");
		return 0;
	}
	ret = kmt_cgmap_parse(m, &w->td->s->strs, buf, (size_t)(end - buf),
			      &bad_at, why, sizeof(why));
	free(buf);
	if (ret == -EINVAL)
		snprintf(m->damaged, sizeof(m->damaged),
			 "the cgroups option is damaged at byte %llu%s: %s",
			 (unsigned long long)(w->mem ? w->base : at + bad_at),
			 w->mem ? " (of the compressed section)" : "", why);
	return ret == -ENOMEM ? ret : 0;
}

static int walk_option(struct td_walk *w, uint64_t id, uint64_t at,
		       uint64_t len)
{
	size_t i;
	char c;

	/*
	 * libtracecmd 3.1 dereferences the NULL it gets for a HOOK it
	 * cannot parse; no trace-cmd of this decade writes one
	 */
	if (id == KMT_TD_OPT_HOOK)
		return walk_damaged(w, at - 6, "an obsolete HOOK option");
	if (id == KMT_TD_OPT_TRACECLOCK) {
		int ret = walk_clock_text(w, at, len);

		if (ret)
			return ret;
		w->td->has_clock = 1;
	}
	/* libtracecmd keeps the last of these and leaks the one before */
	if (id == KMT_TD_OPT_UNAME || id == KMT_TD_OPT_VERSION ||
	    id == KMT_TD_OPT_PROCMAPS) {
		if (w->td->seen_opts & (1U << id))
			return walk_damaged(w, at - 6, "a second UNAME, VERSION or PROCMAPS option");
		w->td->seen_opts |= 1U << id;
	}
	/* options that make libtracecmd shift or scale record times */
	if (id == KMT_TD_OPT_DATE || id == KMT_TD_OPT_OFFSET ||
	    id == KMT_TD_OPT_TIME_SHIFT || id == KMT_TD_OPT_TSC2NSEC) {
		w->td->lib_times = 1;
		w->td->s->has_wall = 0;
	}
	if (id == KMT_TD_OPT_BOOT)
		walk_boot(w, at, len);
	if (id == KMT_TD_OPT_TGIDS && walk_tgids(w, at, len))
		return kmt_session_error(w->td->s, ENOMEM, "out of memory");
	if (id == KMT_TD_OPT_NODES && walk_nodes(w, at, len))
		return kmt_session_error(w->td->s, ENOMEM, "out of memory");
	if (id == KMT_TD_OPT_COUNTERS && walk_kcounters(w, at, len))
		return kmt_session_error(w->td->s, ENOMEM, "out of memory");
	if (id == KMT_TD_OPT_CGROUPS && walk_cgroups(w, at, len))
		return kmt_session_error(w->td->s, ENOMEM, "out of memory");
	for (i = 0; i < sizeof(td_options) / sizeof(td_options[0]); i++) {
		if (td_options[i].id != id)
			continue;
		if (len < td_options[i].min ||
		    (td_options[i].string &&
		     (walk_read(w, &c, 1, at + len - 1) || c)))
			return walk_damaged(w, at - 6, "an option");
		return 0;
	}
	return 0;
}

/* "flyrecord\0" and per CPU the offset and size of its pages */
static int walk_cpu_table(struct td_walk *w, const char *buf)
{
	char what[320];
	char tag[KMT_TD_TAG_LEN];
	int cpu, ret;

	snprintf(what, sizeof(what), "the CPU table%s%s%s",
		 *buf ? " of buffer '" : "", buf, *buf ? "'" : "");
	if (w->pos + sizeof(tag) > w->size ||
	    walk_read(w, tag, sizeof(tag), w->pos))
		return walk_short(w, w->pos + sizeof(tag), what);
	w->pos += sizeof(tag);
	/* latency text has no records; instances are always flyrecord */
	if (!*buf && !memcmp(tag, KMT_TD_TAG_LATENCY, sizeof(tag)))
		return 0;
	if (memcmp(tag, KMT_TD_TAG_FLYRECORD, sizeof(tag)))
		return walk_damaged(w, w->pos - sizeof(tag), what);
	for (cpu = 0; cpu < w->cpus; cpu++) {
		uint64_t off, size;

		ret = walk_num(w, 8, &off, what);
		if (!ret)
			ret = walk_num(w, 8, &size, what);
		if (ret)
			return ret;
		snprintf(what, sizeof(what),
			 "the ring-buffer pages of CPU %d%s%s%s", cpu,
			 *buf ? " of buffer '" : "", buf, *buf ? "'" : "");
		if (off > w->size || size > w->size - off)
			return walk_short(w, off + size, what);
		/* whole pages follow the headers, page aligned */
		if (size && (off < w->pos || !w->td->page_size ||
			     off % w->td->page_size ||
			     size % w->td->page_size))
			return walk_damaged(w, w->pos - 16, what);
		ret = add_region(w->td, off, size, w->td->page_size, 0, cpu,
				 buf);
		if (ret)
			return ret;
	}
	return 0;
}

/* a v6 instance: its data table's offset, then its name */
static int walk_v6_buffer(struct td_walk *w, uint64_t at, uint64_t len)
{
	struct td_walk b = {
		.td = w->td, .pos = at, .size = at + len, .cpus = w->cpus
	};
	char name[256];
	uint64_t off;
	int ret;

	ret = walk_num(&b, 8, &off, "a buffer option");
	if (!ret)
		ret = walk_string(&b, name, sizeof(name), "a buffer option");
	if (ret)
		return walk_damaged(w, at, "a buffer option");
	b.pos = off;
	b.size = w->size;
	return walk_cpu_table(&b, name);
}

static int add_blank(struct td *td, uint64_t block, uint64_t at,
		     uint64_t len);

/*
 * v6's copy of the trace clock after the top buffer's table, which
 * libtracecmd reads with the size before it whenever a TRACECLOCK option
 * was seen; when it cannot read it, it warns and takes the local clock
 * (tracecmd_init_data).  kmemtrace record wrote no copy until 2026-12: the
 * size it finds is the padding's zeros, or, where the table ends within
 * 8 bytes of a page, the first page's timestamp.  Such a file is not
 * damaged, but libtracecmd would allocate that size, so it reads a copy
 * with the size zeroed (blanked_copy).  Not where libtracecmd reads the
 * records (lib_times): the page would change under it.
 */
static int walk_v6_clock(struct td_walk *w)
{
	uint64_t at = w->pos, len;
	int ret;

	if (at + 8 > w->size)
		return 0;	/* libtracecmd's read of the size fails */
	ret = walk_num(w, 8, &len, "the trace clock");
	if (ret)
		return ret;
	if (len <= TD_MAX_CLOCK && len <= w->size - w->pos) {
		ret = walk_clock_text(w, w->pos, len);
		w->pos += len;
		return ret;
	}
	if (w->mem || w->td->lib_times)
		return walk_short(w, w->pos + len, "the trace clock");
	ret = add_blank(w->td, 0, at, 8);
	if (!ret)
		w->td->blanks[w->td->nr_blanks - 1].zero = 1;
	return ret;
}

/*
 * The v6 options, then the top buffer's data table.  A CPUCOUNT option
 * sets how many CPUs every data table has, as it does for libtracecmd,
 * wherever it comes; so the buffer tables are checked after the options.
 */
static int walk_v6_options(struct td_walk *w)
{
	uint64_t *bufs = NULL, *lens = NULL, id, size, at;
	size_t nr = 0, alloc = 0, alloc2 = 0, i;
	int ret;

	for (;;) {
		ret = walk_num(w, 2, &id, "the options");
		if (ret || !id)
			break;
		ret = walk_num(w, 4, &size, "the options");
		if (ret)
			break;
		at = w->pos;
		if (size > w->size || at + size > w->size) {
			ret = walk_short(w, at + size, "the options");
			break;
		}
		ret = walk_option(w, id, at, size);
		if (ret)
			break;
		if (id == KMT_TD_OPT_CPUCOUNT && size >= 4) {
			uint64_t v;

			ret = walk_num(w, 4, &v, "the options");
			if (!ret && (!v || v > KMT_MAX_CPUS))
				ret = walk_damaged(w, at - 6, "the CPU count option");
			if (ret)
				break;
			w->cpus = (int)v;
		}
		if (id == KMT_TD_OPT_BUFFER) {
			if (KMT_ARRAY_GROW(bufs, nr + 1, alloc) ||
			    KMT_ARRAY_GROW(lens, nr + 1, alloc2)) {
				ret = kmt_session_error(w->td->s, ENOMEM,
							"out of memory");
				break;
			}
			bufs[nr] = at;
			lens[nr++] = size;
		}
		w->pos = at + size;
	}
	for (i = 0; !ret && i < nr; i++)
		ret = walk_v6_buffer(w, bufs[i], lens[i]);
	free(bufs);
	free(lens);
	if (!ret)
		ret = walk_cpu_table(w, "");
	/*
	 * A v6 file with a TRACECLOCK option has the clock's text after
	 * the top buffer's table, which libtracecmd reads with the size
	 * before it (tracecmd_init_data)
	 */
	if (!ret && w->td->has_clock)
		ret = walk_v6_clock(w);
	return ret;
}

/*
 * The metadata, as v6 has it in a row and v7 in sections, each named by
 * the option that points to it.  libtracecmd allocates every size it
 * reads there before reading what it sized: each is held to the bytes
 * that are there.
 */

/* one zlib stream a block, as trace-cmd writes them */
static int zlib_pack(void *ctx, const void *in, int in_bytes, void *out,
		     int out_bytes)
{
	uLongf n = (uLongf)out_bytes;

	(void)ctx;
	if (in_bytes < 0 || out_bytes < 0 ||
	    compress2(out, &n, in, (uLong)in_bytes, Z_DEFAULT_COMPRESSION) != Z_OK)
		return -1;
	return (int)n;
}

static int zlib_unpack(void *ctx, const void *in, int in_bytes, void *out,
		       int out_bytes)
{
	uLongf n = (uLongf)out_bytes;

	(void)ctx;
	if (in_bytes < 0 || out_bytes < 0 ||
	    uncompress(out, &n, in, (uLong)in_bytes) != Z_OK)
		return -1;
	return (int)n;
}

static unsigned int zlib_bound(void *ctx, unsigned int bytes)
{
	(void)ctx;
	return (unsigned int)compressBound(bytes);
}

/* the stream format has not changed since zlib 1.0: any version */
static bool zlib_known(const char *name, const char *version)
{
	(void)version;
	return name && !strcmp(name, "zlib");
}

/*
 * Registered once as the program loads, before any thread: libtracecmd
 * keeps its codecs in a list of its own, unlocked.  Where it has zlib
 * already, it keeps its own.
 */
__attribute__((constructor)) static void add_zlib_codec(void)
{
	struct tracecmd_compression_proto zlib = {
		.weight = 10, .name = "zlib", .version = zlibVersion(),
		.compress = zlib_pack, .uncompress = zlib_unpack,
		.compress_size = zlib_bound, .is_supported = zlib_known,
	};

	if (!tracecmd_compress_is_supported("zlib", NULL))
		tracecmd_compress_proto_register(&zlib);
}

static int add_blank(struct td *td, uint64_t block, uint64_t at,
		     uint64_t len)
{
	struct td_blank *b;

	if (KMT_ARRAY_GROW(td->blanks, td->nr_blanks + 1, td->alloc_blanks))
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	b = &td->blanks[td->nr_blanks++];
	b->block = block;
	b->at = at;
	b->len = len;
	b->zero = 0;
	b->lines = 0;
	return 0;
}

static int line_starts(const char *p, size_t len, const char *tag)
{
	size_t n = strlen(tag);

	return len >= n && !memcmp(p, tag, n);
}

/*
 * In place of an unusable format: its name, id and common fields, and
 * a print format of nothing, padded with spaces to its length (the file
 * gives the length apart).  The records of its id then read as an event
 * of no interest, counted by the session.  -1 where that does not fit.
 */
static int blank_format(char *text, size_t len)
{
	char *out = malloc(len + 1), *p = text, *end = text + len;
	size_t n = 0, l;
	const char *why;

	if (!out)
		return -1;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));

		eol = eol ? eol + 1 : end;
		l = (size_t)(eol - p);
		/* the lines before the fields, and the common fields */
		if ((line_starts(p, l, "name:") || line_starts(p, l, "ID:") ||
		     line_starts(p, l, "format:") ||
		     (l > 20 && memmem(p, l, "field:", 6) &&
		      memmem(p, l, " common_", 8))) && eol[-1] == '\n') {
			if (n + l > len)
				break;
			memcpy(out + n, p, l);
			n += l;
		}
		p = eol;
	}
	l = strlen("\nprint fmt: \"\"\n");
	if (n + l > len) {
		free(out);
		return -1;
	}
	memcpy(out + n, "\nprint fmt: \"\"\n", l);
	memset(out + n + l, ' ', len - n - l);
	out[len] = '\0';
	if (kmt_format_check(out, len, &why)) {
		free(out);
		return -1;
	}
	memcpy(text, out, len);
	free(out);
	return 0;
}

/*
 * The compressed block at block, with its unusable formats blanked,
 * compressed again with the file's codec into fd at its place: a blank
 * text compresses to less than the format it replaces, and what is left
 * of the old block's bytes is never read (libtracecmd reads a block by
 * its own sizes; the section keeps its size).  -ENOSPC where it does
 * not fit after all, -EINVAL, -ENOMEM.
 */
static int uncompress_at(struct td *td, uint64_t at, unsigned char **out,
			 uint64_t *len);

static int reblock(struct td *td, int fd, uint64_t block)
{
	struct tracecmd_compression *z = NULL;
	unsigned char *mem, old[4], *out = NULL;
	uint64_t len, have;
	off_t made;
	size_t i;
	int scratch, ret;

	ret = uncompress_at(td, block, &mem, &len);
	if (ret)
		return ret;
	for (i = 0; i < td->nr_blanks; i++) {
		const struct td_blank *b = &td->blanks[i];

		if (b->block != block)
			continue;
		if (b->at > len || b->len > len - b->at) {
			free(mem);
			return -ENOSPC;
		}
		if (b->lines) {
			memset(mem + b->at, '\n', b->len);
		} else if (blank_format((char *)mem + b->at, b->len)) {
			free(mem);
			return -ENOSPC;
		}
	}
	scratch = memfd_create("kmemtrace-block", 0);
	if (scratch >= 0)
		z = tracecmd_compress_alloc(td->zname, td->zversion, scratch,
					    td->wtep, NULL);
	ret = -EINVAL;
	if (z && !tracecmd_compress_buffer_write(z, mem, len) &&
	    !tracecmd_compress_block(z)) {
		made = lseek(scratch, 0, SEEK_END);
		have = pread_all(td->in->fd, old, 4, block) ? 0 :
		       8 + rd_num(td, old, 4);
		ret = made > 8 && (uint64_t)made <= have ? 0 : -ENOSPC;
		if (!ret) {
			out = malloc((size_t)made);
			if (!out)
				ret = -ENOMEM;
			else if (pread_all(scratch, out, (size_t)made, 0) ||
				 pwrite(fd, out, (size_t)made, (off_t)block) != made)
				ret = -EINVAL;
		}
	}
	free(out);
	if (z)
		tracecmd_compress_destroy(z);
	if (scratch >= 0)
		close(scratch);
	free(mem);
	return ret;
}

/* bytes [from, to) of the file into the copy at the same place */
static int copy_range(struct td *td, int fd, char *buf, uint64_t from,
		      uint64_t to)
{
	while (from < to) {
		size_t n = to - from < (1 << 20) ? to - from : (1 << 20);

		if (pread_all(td->in->fd, buf, n, from) ||
		    pwrite(fd, buf, n, (off_t)from) != (ssize_t)n)
			return -1;
		from += n;
	}
	return 0;
}

static int cmp_region_offset(const void *a, const void *b)
{
	const struct td_region *x = *(const struct td_region *const *)a;
	const struct td_region *y = *(const struct td_region *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * The copy without the CPU data, which this reader takes from the file
 * itself (struct td_pages): what libtracecmd reads there is each CPU's
 * first page, as it sets the CPUs up.  The rest stays a hole, so the
 * copy costs the headers, not the file.  Everything outside the CPU data
 * (headers, options, tables, an instance's tables) is copied whole.
 */
static int copy_sparse(struct td *td, int fd, char *buf, uint64_t size)
{
	const struct td_region **by_off;
	uint64_t at = 0;
	size_t i;
	int ret = 0;

	by_off = malloc(td->nr_regions * sizeof(*by_off));
	if (!by_off)
		return -1;
	for (i = 0; i < td->nr_regions; i++)
		by_off[i] = &td->regions[i];
	qsort(by_off, td->nr_regions, sizeof(*by_off), cmp_region_offset);
	for (i = 0; !ret && i < td->nr_regions; i++) {
		const struct td_region *r = by_off[i];
		uint64_t first = r->size < td->page_size ? r->size :
							   td->page_size;

		if (r->offset > at)
			ret = copy_range(td, fd, buf, at, r->offset);
		if (!ret && r->offset + first > at)
			ret = copy_range(td, fd, buf,
					 r->offset > at ? r->offset : at,
					 r->offset + first);
		if (r->offset + r->size > at)
			at = r->offset + r->size;
	}
	if (!ret && at < size)
		ret = copy_range(td, fd, buf, at, size);
	if (!ret && ftruncate(fd, (off_t)size))
		ret = -1;
	free(by_off);
	return ret;
}

/* a blank of newlines, which may be larger than buf */
static int write_lines(int fd, char *buf, uint64_t at, uint64_t len)
{
	memset(buf, '\n', len < (1 << 20) ? len : (1 << 20));
	while (len) {
		size_t n = len < (1 << 20) ? len : (1 << 20);

		if (pwrite(fd, buf, n, (off_t)at) != (ssize_t)n)
			return -1;
		at += n;
		len -= n;
	}
	return 0;
}

/*
 * The file as libtracecmd is to read it: a copy with the unusable
 * formats blanked, and the kallsyms where this reader parses them
 * (own_ksyms, whose copy is sparse: copy_sparse), in TMPDIR (it may be
 * large) or else in memory.
 * Returns the copy's fd, or -1 with the session's message.
 */
static int blanked_copy(struct td *td)
{
	const char *dir = getenv("TMPDIR");
	char *buf = NULL;
	uint64_t off = 0, size = (uint64_t)td->in->size;
	size_t i;
	int fd;

	fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR, 0600);
	if (fd < 0)
		fd = memfd_create("kmemtrace-formats", 0);
	if (fd < 0)
		return kmt_session_error(td->s, errno,
			"cannot make the copy of '%s' that libtracecmd reads (unusable formats or the kallsyms left out): %s",
			td->in->display, strerror(errno));
	buf = malloc(1 << 20);
	if (buf && !(td->sparse ? copy_sparse(td, fd, buf, size) :
				  copy_range(td, fd, buf, 0, size)))
		off = size;
	for (i = 0; buf && off == size && i < td->nr_blanks; i++) {
		const struct td_blank *b = &td->blanks[i];
		int r;

		if (b->lines && !b->block) {
			if (write_lines(fd, buf, b->at, b->len))
				break;
			continue;
		}

		if (b->block) {
			r = reblock(td, fd, b->block);
			if (r == -ENOSPC) {
				free(buf);
				close(fd);
				return kmt_session_error(td->s, EINVAL,
					"'%s' cannot be read: an event format in the compressed section at byte %llu cannot be parsed safely, and the section does not compress again into its place",
					td->in->display,
					(unsigned long long)b->block);
			}
			if (r)
				break;
			/* the block's other blanks went with it */
			while (i + 1 < td->nr_blanks &&
			       td->blanks[i + 1].block == b->block)
				i++;
			continue;
		}
		if (b->len > (1 << 20) || pread_all(td->in->fd, buf, b->len, b->at))
			break;
		if (b->zero) {
			memset(buf, 0, b->len);
		} else if (blank_format(buf, b->len)) {
			free(buf);
			close(fd);
			return kmt_session_error(td->s, EINVAL,
				"'%s' cannot be read: an event format at byte %llu cannot be parsed safely, and is too short to be left out",
				td->in->display, (unsigned long long)b->at);
		}
		if (pwrite(fd, buf, b->len, (off_t)b->at) != (ssize_t)b->len)
			break;
	}
	if (!buf || off != size || i != td->nr_blanks) {
		int err = buf ? errno : ENOMEM;

		free(buf);
		close(fd);
		return kmt_session_error(td->s, err,
			"cannot make the copy of '%s' that libtracecmd reads (unusable formats or the kallsyms left out): %s",
			td->in->display, strerror(err));
	}
	free(buf);
	return fd;
}

/*
 * An event format or the printk formats, checked before libtracecmd
 * hands them to libtraceevent (fmtcheck.h): a blob like walk_blob's.
 */
static int walk_text(struct td_walk *w, int lensize, const char *system,
		     const char *what)
{
	int printk = !system;
	uint64_t at = w->pos, len;
	unsigned long line;
	const char *why;
	char *buf;
	int ret = walk_num(w, lensize, &len, what);

	if (ret)
		return ret;
	if (len > w->size || w->pos + len > w->size)
		return walk_short(w, w->pos + len, what);
	if (len > TD_MAX_META)
		return walk_damaged(w, at, what);
	buf = malloc(len ? len : 1);
	if (!buf)
		return kmt_session_error(w->td->s, ENOMEM, "out of memory");
	if (walk_read(w, buf, len, w->pos)) {
		free(buf);
		return walk_short(w, w->pos + len, what);
	}
	ret = printk ? kmt_printk_check(buf, len, &line, &why) :
		       kmt_format_check(buf, len, &why);
	if (ret && printk) {
		free(buf);
		return kmt_session_error(w->td->s, EINVAL,
			"'%s' is not a valid trace.dat: line %lu of the printk formats at byte %llu is damaged: %s",
			w->td->in->display, line,
			(unsigned long long)(w->mem ? w->base : at), why);
	}
	/* one that is unusable costs its event (the session says so) */
	if (ret) {
		ret = kmt_session_unusable_format(w->td->s, w->td->in->display,
						  system, buf, len, why);
		if (!ret)
			ret = add_blank(w->td, w->mem ? w->block : 0, w->pos,
					len);
	}
	free(buf);
	if (ret)
		return ret;
	w->pos += len;
	return 0;
}

static int walk_meta(struct td_walk *w, unsigned int id)
{
	uint64_t n, i, j, v;
	int ret = 0;

	switch (id) {
	case KMT_TD_OPT_HEADER_INFO:
		/* "header_page\0" and "header_event\0", each with its blob */
		ret = walk_string(w, NULL, 0, "the page header");
		if (!ret)
			ret = walk_blob(w, 8, "the page header");
		if (!ret)
			ret = walk_string(w, NULL, 0, "the event header");
		if (!ret)
			ret = walk_blob(w, 8, "the event header");
		break;
	case KMT_TD_OPT_FTRACE_EVENTS:
		ret = walk_num(w, 4, &n, "the ftrace formats");
		for (i = 0; !ret && i < n; i++)
			ret = walk_text(w, 8, "ftrace", "the ftrace formats");
		break;
	case KMT_TD_OPT_EVENT_FORMATS:
		ret = walk_num(w, 4, &n, "the event formats");
		for (i = 0; !ret && i < n; i++) {
			char system[64];

			ret = walk_string(w, system, sizeof(system),
					  "the event formats");
			/* for a message: the name as text */
			for (j = 0; !ret && system[j]; j++) {
				if (system[j] < 0x20 || system[j] > 0x7e)
					system[j] = '?';
			}
			if (!ret)
				ret = walk_num(w, 4, &v, "the event formats");
			for (j = 0; !ret && j < v; j++)
				ret = walk_text(w, 8, system, "the event formats");
		}
		break;
	case KMT_TD_OPT_KALLSYMS: {
		struct td *td = w->td;
		uint64_t at = w->pos + 4;

		ret = walk_blob(w, 4, "the kallsyms");
		if (ret)
			break;
		/* where our own table can read them (open_file) */
		free(td->ksyms_text);
		td->ksyms_text = NULL;
		td->ksyms_at = at;
		td->ksyms_len = w->pos - at;
		td->ksyms_block = w->mem ? w->block : 0;
		if (w->mem && td->ksyms_len) {
			td->ksyms_text = malloc(td->ksyms_len);
			if (!td->ksyms_text)
				return kmt_session_error(td->s, ENOMEM,
							 "out of memory");
			memcpy(td->ksyms_text, w->mem + at, td->ksyms_len);
		}
		break;
	}
	case KMT_TD_OPT_PRINTK:
		ret = walk_text(w, 4, NULL, "the printk formats");
		break;
	case KMT_TD_OPT_CMDLINES:
		ret = walk_blob(w, 8, "the saved command lines");
		break;
	}
	return ret;
}

static int walk_v6(struct td *td, uint64_t start)
{
	struct td_walk w = {
		.td = td, .pos = start, .size = (uint64_t)td->in->size
	};
	uint64_t v;
	unsigned int id;
	char tag[16];
	int ret = 0;

	for (id = KMT_TD_OPT_HEADER_INFO; !ret && id <= KMT_TD_OPT_CMDLINES;
	     id++)
		ret = walk_meta(&w, id);
	if (!ret)
		ret = walk_num(&w, 4, &v, "the CPU count");
	if (ret)
		return ret;
	w.cpus = (int)v;
	if (v > KMT_MAX_CPUS)
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: it claims %llu CPUs",
			td->in->display, (unsigned long long)v);
	if (w.pos + KMT_TD_TAG_LEN > w.size ||
	    pread_all(td->in->fd, tag, KMT_TD_TAG_LEN, w.pos))
		return walk_short(&w, w.pos + KMT_TD_TAG_LEN, "the CPU table");
	if (memcmp(tag, KMT_TD_TAG_OPTIONS, KMT_TD_TAG_LEN))
		return walk_cpu_table(&w, "");
	w.pos += KMT_TD_TAG_LEN;
	return walk_v6_options(&w);
}

/*
 * v7: the same crash waits behind a damaged buffer description, so the
 * chain of options sections is followed to every BUFFER option, and its
 * section and CPU data (with their compressed chunks) are checked; so
 * are the metadata sections the options point to, and the STRINGS
 * sections libtracecmd looks for, section after section, from the end
 * of the file header.  Compressed sections are uncompressed here with
 * libtracecmd's codec and walked in memory.
 */
#define TD_SEC_OPTIONS		0
#define TD_SEC_BUFFER		3
#define TD_SEC_COMPRESSED	1
#define TD_MAX_SECTIONS		64

static int walk_section(struct td_walk *w, uint64_t at, unsigned int want,
			uint64_t *flags, uint64_t *size, const char *what)
{
	uint64_t id, str;
	int ret;

	w->pos = at;
	ret = walk_num(w, 2, &id, what);
	if (!ret)
		ret = walk_num(w, 2, flags, what);
	if (!ret)
		ret = walk_num(w, 4, &str, what);
	if (!ret)
		ret = walk_num(w, 8, size, what);
	if (ret)
		return ret;
	if (id != want)
		return walk_damaged(w, at, what);
	if (*size > w->size - w->pos)
		return walk_short(w, w->pos + *size, what);
	return 0;
}

/*
 * Compressed CPU data: a chunk count, then (size, raw size, bytes) per
 * chunk.  trace-cmd 3.1 records the CPU's size without the count, so the
 * chunks are held to the file's end only.
 */
static int walk_chunks(struct td_walk *w, uint64_t at, const char *what)
{
	struct td_walk c = {
		.td = w->td, .pos = at, .size = (uint64_t)w->td->in->size
	};
	uint64_t n, i, csize, usize;
	int ret;

	ret = walk_num(&c, 4, &n, what);
	for (i = 0; !ret && i < n; i++) {
		ret = walk_num(&c, 4, &csize, what);
		if (!ret)
			ret = walk_num(&c, 4, &usize, what);
		if (!ret && (csize > c.size - c.pos || usize > TD_MAX_CHUNK))
			ret = -EINVAL;
		c.pos += csize;
	}
	/* the CPU's data is inside the file: say "damaged", not "cut" */
	if (ret)
		return walk_damaged(w, at, what);
	return 0;
}

/* a BUFFER option: where its section and each CPU's data are */
static int walk_v7_buffer(struct td_walk *w, uint64_t at, uint64_t len)
{
	struct td_walk b = {
		.td = w->td, .pos = at, .size = at + len,
		.mem = w->mem, .base = w->base
	};
	struct td_walk f = {
		.td = w->td, .pos = 0, .size = (uint64_t)w->td->in->size
	};
	uint64_t off, page, ncpu, i, flags, size, prev = 0;
	char name[256], what[320];
	int ret;

	ret = walk_num(&b, 8, &off, "a buffer option");
	if (!ret)
		ret = walk_string(&b, name, sizeof(name), "a buffer option");
	if (!ret)
		ret = walk_string(&b, NULL, 0, "a buffer option");
	if (!ret)
		ret = walk_num(&b, 4, &page, "a buffer option");
	if (!ret)
		ret = walk_num(&b, 4, &ncpu, "a buffer option");
	/*
	 * libtracecmd allocates a table of ncpu, then one up to the highest
	 * CPU number, before it reads them
	 */
	if (ret || ncpu > KMT_MAX_CPUS || ncpu * 20 > b.size - b.pos ||
	    page < 4096 || page > TD_MAX_CHUNK || (page & (page - 1)))
		return walk_damaged(w, at, "a buffer option");
	snprintf(what, sizeof(what), "the data section of buffer '%s'", name);
	ret = walk_section(&f, off, TD_SEC_BUFFER, &flags, &size, what);
	if (ret)
		return ret;
	for (i = 0; i < ncpu; i++) {
		uint64_t cpu, coff, csize;

		ret = walk_num(&b, 4, &cpu, "a buffer option");
		if (!ret)
			ret = walk_num(&b, 8, &coff, "a buffer option");
		if (!ret)
			ret = walk_num(&b, 8, &csize, "a buffer option");
		/*
		 * each CPU once, in order, as trace-cmd writes them:
		 * libtracecmd leaks what it set up for a CPU named twice
		 */
		if (ret || cpu >= KMT_MAX_CPUS || (i && cpu <= prev))
			return walk_damaged(w, at, "a buffer option");
		prev = cpu;
		snprintf(what, sizeof(what),
			 "the ring-buffer pages of CPU %llu of buffer '%s'",
			 (unsigned long long)cpu, name);
		if (coff > f.size || csize > f.size - coff)
			return walk_short(&f, coff + csize, what);
		if (csize && !(flags & TD_SEC_COMPRESSED) &&
		    (!page || coff % page || csize % page))
			return walk_damaged(w, at, what);
		if ((flags & TD_SEC_COMPRESSED) && csize) {
			ret = walk_chunks(&f, coff, what);
			if (ret)
				return ret;
		}
		ret = add_region(w->td, coff, csize, (unsigned int)page,
				 !!(flags & TD_SEC_COMPRESSED), (int)cpu, name);
		if (ret)
			return ret;
	}
	return 0;
}


/*
 * The compressed block at byte at (its sizes, then its bytes), as
 * libtracecmd will uncompress it: the bytes in *out (freed by the
 * caller), their number in *len.  -EINVAL when its sizes are wrong or
 * it does not uncompress, -ENOMEM.
 */
static int uncompress_at(struct td *td, uint64_t at, unsigned char **out,
			 uint64_t *len)
{
	uint64_t size = (uint64_t)td->in->size, csize, usize;
	unsigned char b[8], *buf;
	int n;

	*out = NULL;
	if (at > size || size - at < 8 || pread_all(td->in->fd, b, 8, at))
		return -EINVAL;
	csize = rd_num(td, b, 4);
	usize = rd_num(td, b + 4, 4);
	if (csize > size - at - 8 || usize > TD_MAX_META)
		return -EINVAL;
	if (!td->wz) {
		/* its numbers are in the file's byte order */
		td->wtep = tep_alloc();
		if (!td->wtep)
			return -ENOMEM;
		tep_set_file_bigendian(td->wtep, td->big_endian ?
				       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		td->wz = tracecmd_compress_alloc(td->zname, td->zversion,
						 td->in->fd, td->wtep, NULL);
		if (!td->wz)
			return -EINVAL;
	}
	if (lseek(td->in->fd, (off_t)at, SEEK_SET) < 0 ||
	    tracecmd_uncompress_block(td->wz))
		return -EINVAL;
	buf = malloc(usize ? usize : 1);
	if (!buf) {
		tracecmd_compress_reset(td->wz);
		return -ENOMEM;
	}
	n = tracecmd_compress_buffer_read(td->wz, (char *)buf, (int)usize);
	tracecmd_compress_reset(td->wz);
	if (n < 0) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	*len = (uint64_t)n;
	return 0;
}

static int walk_uncompress_error(struct td_walk *w, int err, uint64_t at,
				 const char *what)
{
	if (err == -ENOMEM)
		return kmt_session_error(w->td->s, ENOMEM, "out of memory");
	return walk_damaged(w, at, what);
}

/* a metadata section an option points to */
static int walk_v7_meta(struct td *td, unsigned int id, uint64_t at)
{
	static const char *const what[] = {
		"the header section", "the ftrace formats section",
		"the event formats section", "the kallsyms section",
		"the printk formats section", "the command lines section",
	};
	const char *name = what[id - KMT_TD_OPT_HEADER_INFO];
	struct td_walk f = {
		.td = td, .pos = 0, .size = (uint64_t)td->in->size
	};
	struct td_walk m = { .td = td };
	unsigned char *mem;
	uint64_t flags, size, len;
	int ret;

	ret = walk_section(&f, at, id, &flags, &size, name);
	if (ret)
		return ret;
	if (!(flags & TD_SEC_COMPRESSED))
		return walk_meta(&f, id);
	ret = uncompress_at(td, f.pos, &mem, &len);
	if (ret)
		return walk_uncompress_error(&f, ret, at, name);
	m.mem = mem;
	m.size = len;
	m.base = at;
	m.block = f.pos;
	ret = walk_meta(&m, id);
	free(mem);
	return ret;
}

/*
 * The options of one section, read as libtracecmd reads them: up to the
 * DONE option, whatever size the section declares.  *next is the next
 * section's offset, 0 for none; sec[] the metadata sections' offsets.
 */
static int walk_v7_options(struct td_walk *w, uint64_t *next, uint64_t *sec)
{
	uint64_t id, len;
	int ret;

	for (;;) {
		ret = walk_num(w, 2, &id, "an options section");
		if (!ret)
			ret = walk_num(w, 4, &len, "an options section");
		if (ret)
			return ret;
		if (len > w->size - w->pos)
			return walk_short(w, w->pos + len, "an option");
		if (id == 0) {
			/* libtracecmd fails a DONE without its offset */
			if (len < 8)
				return walk_damaged(w, w->pos - 6,
						    "the end of an options section");
			return walk_num(w, 8, next, "an options section");
		}
		if (id == KMT_TD_OPT_BUFFER_TEXT)
			return kmt_session_error(w->td->s, ENOTSUP,
				"'%s' holds a latency tracer's text (option at byte %llu), not kmem events",
				w->td->in->display,
				(unsigned long long)(w->mem ? w->base : w->pos - 6));
		ret = walk_option(w, id, w->pos, len);
		if (!ret && id == KMT_TD_OPT_BUFFER)
			ret = walk_v7_buffer(w, w->pos, len);
		if (ret)
			return ret;
		if (id >= KMT_TD_OPT_HEADER_INFO && id <= KMT_TD_OPT_CMDLINES &&
		    len >= 8) {
			uint64_t at = w->pos;

			ret = walk_num(w, 8, &sec[id - KMT_TD_OPT_HEADER_INFO],
				       "an options section");
			if (ret)
				return ret;
			w->pos = at;
		}
		w->pos += len;
	}
}

/*
 * libtracecmd looks for STRINGS sections when it opens a v7 file: it
 * reads section headers one after another from the end of the file
 * header, skipping each by its size, until one cannot be read, and
 * allocates the size of each STRINGS section it meets.
 */
static int walk_v7_strings(struct td *td, uint64_t at)
{
	uint64_t size = (uint64_t)td->in->size, ssize, csize, usize;
	struct td_walk w = {
		.td = td, .pos = at, .size = size
	};
	unsigned char b[16];

	while (at <= size && size - at >= 16 &&
	       !pread_all(td->in->fd, b, 16, at)) {
		ssize = rd_num(td, b + 8, 8);
		at += 16;
		if (rd_num(td, b, 2) != KMT_TD_OPT_STRINGS) {
			/*
			 * libtracecmd seeks by the size as a signed number:
			 * one past 2^63 sends it back, round and round
			 * (found by fuzzing)
			 */
			if (ssize > INT64_MAX)
				return walk_damaged(&w, at - 16, "a section");
			if (ssize > size - at)
				break;	/* libtracecmd's next read fails */
			at += ssize;
			continue;
		}
		if (!(rd_num(td, b + 2, 2) & TD_SEC_COMPRESSED)) {
			/* read as an int: a size past 2 GiB is negative */
			if (ssize > size - at || ssize > INT_MAX)
				return walk_damaged(&w, at - 16,
						    "a strings section");
			at += ssize;
			continue;
		}
		if (size - at < 8 || pread_all(td->in->fd, b, 8, at))
			return walk_damaged(&w, at - 16, "a strings section");
		csize = rd_num(td, b, 4);
		usize = rd_num(td, b + 4, 4);
		if (csize > size - at - 8 || usize > TD_MAX_META)
			return walk_damaged(&w, at - 16, "a strings section");
		at += 8 + csize;
	}
	return 0;
}

static int walk_v7(struct td *td, uint64_t first)
{
	struct td_walk w = {
		.td = td, .pos = first, .size = (uint64_t)td->in->size
	};
	uint64_t sec[KMT_TD_OPT_CMDLINES - KMT_TD_OPT_HEADER_INFO + 1] = { 0 };
	uint64_t at = first, flags, size, len;
	unsigned char *mem;
	unsigned int i;
	int n, ret;

	for (n = 0; at; n++) {
		/* libtracecmd follows the chain by recursion: a loop kills it */
		if (n == TD_MAX_SECTIONS)
			return walk_damaged(&w, at,
				"the chain of options sections, which loops");
		ret = walk_section(&w, at, TD_SEC_OPTIONS, &flags, &size,
				   "an options section");
		if (ret)
			return ret;
		if (!(flags & TD_SEC_COMPRESSED)) {
			ret = walk_v7_options(&w, &at, sec);
		} else {
			struct td_walk m = { .td = td, .cpus = w.cpus };
			uint64_t here = at;

			ret = uncompress_at(td, w.pos, &mem, &len);
			if (ret)
				return walk_uncompress_error(&w, ret, here,
							     "an options section");
			m.mem = mem;
			m.size = len;
			m.base = here;
			ret = walk_v7_options(&m, &at, sec);
			free(mem);
		}
		if (ret)
			return ret;
	}
	for (i = 0; i < sizeof(sec) / sizeof(sec[0]); i++) {
		if (!sec[i])
			continue;
		ret = walk_v7_meta(td, KMT_TD_OPT_HEADER_INFO + i, sec[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * libtraceevent's kbuffer trusts the sizes inside ring-buffer pages, and
 * libtracecmd uncompresses CPU data when it opens a buffer and crashes
 * on the way out when that fails.  So before either sees the data, every
 * page is checked here (after uncompressing it with libtracecmd's own
 * codec): the committed size, the missed-events count after it, and each
 * event's length inside it (type_len 0: length word; 1-28: type_len * 4;
 * padding: length word, or the page's end; time extend/stamp: 8 bytes).
 */
#define TD_TYPE_PADDING		29
#define TD_TYPE_TIME_EXTEND	30
#define TD_COMMIT_MASK		((1ULL << 27) - 1)
#define TD_MISSED_STORED	(1ULL << 30)

static int check_page(struct td *td, const unsigned char *pg, size_t len)
{
	int lsize = tep_get_header_page_size(td->tep);
	int tsize = tep_get_header_timestamp_size(td->tep);
	size_t start = (size_t)tsize + lsize, pos, end;
	uint64_t commit;

	if (len < start)
		return -1;
	commit = rd_num(td, pg + tsize, lsize);
	end = start + (commit & TD_COMMIT_MASK);
	if (end > len || ((commit & TD_MISSED_STORED) && end + lsize > len))
		return -1;
	for (pos = start; pos < end;) {
		uint32_t hdr, type, size;

		if (pos + 4 > end)
			return -1;
		hdr = (uint32_t)rd_num(td, pg + pos, 4);
		type = td->big_endian ? hdr >> 27 : hdr & 0x1f;
		/*
		 * Padding is stepped over as kbuffer steps: the header and
		 * array[0] bytes, not rounded up, and with a time delta of
		 * 0 too; kbuffer stops where the step ends past the commit.
		 * Walking it any other way checks other events than the
		 * ones kbuffer then reads (a fuzzed page with array[0] = 5
		 * had kbuffer read an 835,580-byte event).
		 */
		if (type == TD_TYPE_PADDING) {
			if (pos + 8 > end)
				break;
			size = 4 + (uint32_t)rd_num(td, pg + pos + 4, 4);
			if (size >= end - pos)
				break;
			pos += size;
			continue;
		}
		if (type == 0) {
			if (pos + 8 > end)
				return -1;
			size = 4 + (uint32_t)rd_num(td, pg + pos + 4, 4);
			/* kbuffer rounds the data up to 4 bytes */
			if (size < 8 || size > UINT32_MAX - 3)
				return -1;
			size = (size + 3) & ~3U;
		} else if (type >= TD_TYPE_TIME_EXTEND) {
			size = 8;
		} else {
			size = 4 + type * 4;
		}
		if (size > end - pos)
			return -1;
		pos += (size + 3) & ~3U;
	}
	return 0;
}

static int check_pages(struct td *td, const unsigned char *buf, size_t len,
		       unsigned int page_size)
{
	size_t off;

	for (off = 0; off + page_size <= len; off += page_size) {
		if (check_page(td, buf + off, page_size))
			return -1;
	}
	return 0;
}

/* a region's chunk list, kept with it; each chunk whole pages */
static int load_chunks(struct td *td, struct tracecmd_compression *z,
		       struct td_region *r)
{
	struct tracecmd_compress_chunk *ch = NULL;
	int n, j;

	if (lseek(td->in->fd, (off_t)r->offset, SEEK_SET) < 0)
		return -EINVAL;
	n = tracecmd_load_chunks_info(z, &ch);
	if (n < 0)
		return -EINVAL;
	r->chunks = ch;
	r->nr_chunks = n;
	for (j = 0; j < n; j++) {
		if (ch[j].size > TD_MAX_CHUNK || !ch[j].size ||
		    ch[j].size % r->page_size)
			return -EINVAL;
	}
	return 0;
}

/* uncompresses a region's first n chunks and checks their pages */
static int check_compressed(struct td *td, struct tracecmd_compression *z,
			    struct td_region *r, char **buf, size_t *have,
			    int n)
{
	struct tracecmd_compress_chunk *ch;
	int j, ret = load_chunks(td, z, r);

	ch = r->chunks;
	for (j = 0; !ret && j < r->nr_chunks && j < n; j++) {
		if (KMT_ARRAY_GROW(*buf, ch[j].size, *have)) {
			ret = -ENOMEM;
			break;
		}
		if (tracecmd_uncompress_chunk(z, &ch[j], *buf) ||
		    check_pages(td, (unsigned char *)*buf, ch[j].size,
				r->page_size))
			ret = -EINVAL;
	}
	return ret;
}

/* the first n bytes of a plain region's pages (all: r->size) */
static int check_plain(struct td *td, const struct td_region *r, char **buf,
		       size_t *have, uint64_t n)
{
	uint64_t off;

	if (KMT_ARRAY_GROW(*buf, r->page_size, *have))
		return -ENOMEM;
	for (off = 0; off + r->page_size <= n && off + r->page_size <= r->size;
	     off += r->page_size) {
		if (pread_all(td->in->fd, *buf, r->page_size, r->offset + off) ||
		    check_page(td, (unsigned char *)*buf, r->page_size))
			return -EINVAL;
	}
	return 0;
}

/*
 * Pages libtracecmd will read are checked here, before it reads them.
 * It reads all of them when it reads the records (a file whose times it
 * changes); otherwise only each CPU's first page or chunk, when it opens
 * an instance's buffer, and struct td_pages checks the rest as it reads
 * them, which spares reading and uncompressing all the data twice.
 */
static int check_data(struct td *td)
{
	struct td_region *r = NULL;
	char *buf = NULL;
	size_t i, have = 0;
	int ret = 0;

	for (i = 0; !ret && i < td->nr_regions; i++) {
		r = &td->regions[i];
		if (r->page_size < 64 || r->page_size > TD_MAX_CHUNK) {
			ret = -EINVAL;
		} else if (!r->compressed) {
			ret = check_plain(td, r, &buf, &have,
					  td->lib_times ? r->size : r->page_size);
		} else {
			if (!td->z)
				td->z = tracecmd_compress_alloc(td->zname,
					td->zversion, td->in->fd, td->tep, NULL);
			/*
			 * libtracecmd has opened the file, so it knows the
			 * codec: what failed is memory
			 */
			ret = td->z ? check_compressed(td, td->z, r, &buf,
						       &have,
						       td->lib_times ? INT_MAX : 1) :
				      -ENOMEM;
		}
	}
	free(buf);
	if (ret == -ENOMEM)
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	if (ret)
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: the ring-buffer pages at byte %llu are damaged",
			td->in->display, (unsigned long long)r->offset);
	return 0;
}

/* --- lost events from the per-CPU stats the file stores --- */

static struct td_cursor *find_cursor(struct td *td, int buf, int cpu)
{
	size_t i;

	for (i = 0; i < td->nr_cur; i++) {
		if (td->cur[i].buf == buf && td->cur[i].cpu == cpu)
			return &td->cur[i];
	}
	return NULL;
}

static int buffer_index(struct td *td, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < td->nr_bufs; i++) {
		if (strlen(td->bufs[i].name) == len &&
		    !memcmp(td->bufs[i].name, name, len))
			return (int)i;
	}
	return -1;
}

/*
 * The stats text trace-cmd stores: "CPU: N" then "overrun: N" and others,
 * with "Buffer: NAME" lines before the stats of each instance.
 */
static void parse_cpustats(struct td *td, const char *text)
{
	const char *p = text;
	int buf = 0, cpu = -1;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		struct td_cursor *c;
		unsigned long long v;

		if (len > 8 && !strncmp(p, "Buffer: ", 8)) {
			buf = buffer_index(td, p + 8, len - 8);
			cpu = -1;
		} else if (sscanf(p, "CPU: %d", &cpu) == 1) {
			/* the CPU the next lines are about */
		} else if (buf >= 0 && cpu >= 0 &&
			   (c = find_cursor(td, buf, cpu))) {
			if (sscanf(p, "overrun: %llu", &v) == 1)
				c->stat_overrun = v;
			else if (sscanf(p, "commit overrun: %llu", &v) == 1 ||
				 sscanf(p, "dropped events: %llu", &v) == 1)
				c->stat_other += v;
		}
		p = eol ? eol + 1 : NULL;
	}
}

/*
 * A page's missed-events count and the overrun in the stats describe the
 * same overwritten events, so per CPU the larger of the two is taken;
 * commit overruns and dropped events (buffer full without overwrite) are
 * never flagged on pages and are added.
 */
static void account_lost(struct td *td)
{
	struct kmt_session *s = td->s;
	size_t i;

	for (i = 0; i < td->nr_cur; i++) {
		struct td_cursor *c = &td->cur[i];
		uint64_t lost = c->missed > c->stat_overrun ?
				c->missed : c->stat_overrun;

		lost += c->stat_other;
		s->nr_lost += lost;
		s->nr_lost_records += c->nr_missed_records;
		if (lost && !c->nr_missed_records)
			s->nr_lost_records++;
	}
}

/* --- records --- */

static int record_id(struct td *td, const struct tep_record *rec)
{
	return kmt_tp_event_id(&td->dec, rec->data, (size_t)rec->size);
}

static int record_pid(struct td *td, const struct tep_record *rec)
{
	const struct kmt_tp_field *f = &td->dec.common_pid;

	if (f->offset < 0 || f->offset + f->size > rec->size)
		return -1;
	return (int)tep_read_number(td->tep, (const char *)rec->data + f->offset,
				    f->size);
}

static uint32_t decode_stack(struct td *td, const struct tep_record *rec)
{
	const unsigned char *data = rec->data;
	size_t size = (size_t)rec->size, nr = 0, max;
	uint32_t id;
	uint64_t want = 0;

	if (td->stack_caller_off < 0 || (size_t)td->stack_caller_off > size)
		return 0;
	max = (size - td->stack_caller_off) / td->stack_elem;
	if (td->stack_size_off >= 0 &&
	    (size_t)(td->stack_size_off + td->stack_size_len) <= size)
		want = tep_read_number(td->tep, data + td->stack_size_off,
				       td->stack_size_len);
	/* "size" counts entries; kernels before 5.x stored a full array */
	if (want && want < max)
		max = want;
	if (max > TD_MAX_STACK)
		max = TD_MAX_STACK;
	while (nr < max) {
		uint64_t ip = tep_read_number(td->tep,
			data + td->stack_caller_off + nr * td->stack_elem,
			td->stack_elem);

		/* old kernels end a short stack with ULONG_MAX */
		if (ip == UINT64_MAX ||
		    (td->stack_elem == 4 && ip == UINT32_MAX))
			break;
		td->ips[nr++] = ip;
	}
	while (nr && !td->ips[nr - 1])
		nr--;
	if (!nr)
		return 0;
	id = kmt_stacks_intern(&td->s->stacks, td->ips, nr);
	/* a stack with frames gets an id: none is out of memory */
	if (!id && !td->err)
		td->err = -ENOMEM;
	return id;
}

static void count_missed(struct td_cursor *c, const struct tep_record *rec)
{
	if (!rec->missed_events)
		return;
	c->nr_missed_records++;
	/* negative: the page says events were lost, not how many */
	if (rec->missed_events > 0)
		c->missed += (uint64_t)rec->missed_events;
}

/*
 * The next pages of a CPU into pg->chunk: a compressed chunk, or up to
 * TD_READ_PAGES pages of plain data.  check_data has held them to whole
 * pages inside the file.  1, 0 at the end, -errno.
 */
static int pages_chunk(struct td *td, struct td_pages *pg)
{
	const struct td_region *r = pg->r;
	struct tracecmd_compress_chunk *ch = NULL;
	uint64_t len;

	if (r->compressed) {
		if (pg->next_chunk >= r->nr_chunks)
			return 0;
		ch = &r->chunks[pg->next_chunk++];
		len = ch->size;
	} else {
		len = r->size - pg->plain_at;
		if (len > (uint64_t)TD_READ_PAGES * r->page_size)
			len = (uint64_t)TD_READ_PAGES * r->page_size;
		len -= len % r->page_size;
		if (!len)
			return 0;
	}
	if (KMT_ARRAY_GROW(pg->chunk, (size_t)len, pg->chunk_alloc))
		return -ENOMEM;
	if (ch ? tracecmd_uncompress_chunk(td->z, ch, (char *)pg->chunk) :
		 pread_all(td->in->fd, pg->chunk, len, r->offset + pg->plain_at))
		return ch ? -EINVAL : -EIO;
	/* before kbuffer, which trusts the sizes in a page, reads them */
	if (check_pages(td, pg->chunk, len, r->page_size))
		return -EINVAL;
	pg->plain_at += ch ? 0 : len;
	pg->chunk_len = len;
	pg->page_at = 0;
	return 1;
}

static inline uint32_t walk_rd4(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t walk_rd8(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * A page's records into pg->evs, in one pass, where kbuffer took four
 * calls a record through function pointers (about 270 instructions a
 * record on bench/report's trace.dat).  The walk is kbuffer's own
 * (libtraceevent's kbuffer-parse.c: __next_event, update_pointers and
 * translate_data), with its integer types, so that the records, times
 * and missed counts are the ones it gives: the commit's 27 bits, the
 * header of 12 or 16 bytes by the kernel's long, time extends added,
 * padding stepped over by its length word alone, the lost events only
 * on a record at the very start of the page.  It takes only what it can
 * read inside the page and pages_read would accept; anything else
 * (absolute time stamps, a word past the page, a length going back, a
 * record pages_read refuses) gives -1 before a record went out, and
 * kbuffer reads that page, as before, whatever it then does with it.
 * Only for pages in the host's byte order and the current format
 * (pages_open).
 */
static int walk_page(struct td_pages *pg, const unsigned char *page,
		     unsigned int page_size)
{
	unsigned int start = pg->long8 ? 16 : 12, size, curr, next = 0, index;
	unsigned long long flags, ts, delta;
	const unsigned char *data = page + start;
	size_t avail, n = 0, max;
	long long lost;

	if (page_size < start)
		return -1;
	avail = page_size - start;
	max = avail / 4 + 1;
	if (max > pg->evs_alloc &&
	    KMT_ARRAY_GROW(pg->evs, max, pg->evs_alloc))
		return -1;
	ts = walk_rd8(page);
	flags = pg->long8 ? walk_rd8(page + 8) : walk_rd4(page + 8);
	size = (unsigned int)flags & (unsigned int)TD_COMMIT_MASK;
	lost = 0;
	if (flags & (1UL << 31)) {
		lost = -1;
		if (flags & TD_MISSED_STORED) {
			if ((size_t)size + (pg->long8 ? 8 : 4) > avail)
				return -1;
			lost = (long long)(pg->long8 ? walk_rd8(data + size) :
						       walk_rd4(data + size));
		}
	}
	for (;;) {
		unsigned int type_len;
		int length;
		int32_t esize;

		do {
			uint32_t tlt;
			size_t p;

			curr = next;
			if (next >= size)
				goto done;
			if ((size_t)curr + 4 > avail)
				return -1;
			tlt = walk_rd4(data + curr);
			type_len = tlt & 31;
			delta = tlt >> 5;
			p = (size_t)curr + 4;
			if (type_len == TD_TYPE_TIME_EXTEND + 1)
				return -1;	/* absolute: kbuffer's */
			if (type_len == TD_TYPE_PADDING ||
			    type_len == TD_TYPE_TIME_EXTEND || type_len == 0) {
				if (p + 4 > avail)
					return -1;
			}
			if (type_len == TD_TYPE_PADDING) {
				length = (int)walk_rd4(data + p);
			} else if (type_len == TD_TYPE_TIME_EXTEND) {
				unsigned long long extend = walk_rd4(data + p);

				p += 4;
				extend <<= 27;
				extend += delta;
				delta = extend;
				length = 0;
			} else if (type_len == 0) {
				length = (int)(walk_rd4(data + p) - 4);
				length = (int)(((unsigned int)length + 3) &
					       ~3U);
				p += 4;
			} else {
				length = (int)type_len * 4;
			}
			ts += delta;
			index = (unsigned int)p;
			next = index + length;
			/* a step back or in place: kbuffer's to follow */
			if (next <= curr)
				return -1;
		} while (type_len == TD_TYPE_PADDING ||
			 type_len == TD_TYPE_TIME_EXTEND);
		esize = (int32_t)(next - index);
		/* pages_read's test of what kbuffer gives */
		if ((size_t)start + index > page_size || esize < 0 ||
		    (size_t)esize > page_size - start - index)
			return -1;
		if (n >= max)
			return -1;
		pg->evs[n].ts = ts;
		pg->evs[n].index = index;
		pg->evs[n].size = esize;
		pg->evs[n].missed = curr ? 0 : (int)lost;
		n++;
	}
done:
	pg->page_data = data;
	pg->nr_evs = n;
	pg->ev_at = 0;
	return 0;
}

/*
 * The next record of a CPU, as libtracecmd makes it: the time kbuffer
 * gives, and the missed events of its page on the first.  Its data lies
 * in pg->chunk until the next chunk is read.  1, 0 at the end, -errno.
 */
static int pages_read(struct td *td, struct td_pages *pg,
		      struct tep_record *rec)
{
	unsigned int page = pg->r->page_size;
	unsigned long long ts;
	void *data;
	int ret;

	for (;;) {
		if (pg->in_page && pg->walked) {
			if (pg->ev_at < pg->nr_evs) {
				const struct td_ev *e = &pg->evs[pg->ev_at++];

				memset(rec, 0, sizeof(*rec));
				rec->ts = e->ts;
				rec->data = (void *)(pg->page_data + e->index);
				rec->size = e->size;
				rec->cpu = pg->r->cpu;
				rec->missed_events = e->missed;
				return 1;
			}
			pg->in_page = 0;
		}
		if (pg->in_page) {
			data = kbuffer_read_event(pg->kbuf, &ts);
			if (data) {
				const unsigned char *lo = pg->chunk +
							  pg->page_at - page;
				const unsigned char *d = data;
				int size = kbuffer_event_size(pg->kbuf);

				/*
				 * check_page walked this page as kbuffer
				 * does; should they ever differ, an event
				 * past its page is damage, not a read
				 */
				if (d < lo || d > lo + page || size < 0 ||
				    (size_t)size > (size_t)(lo + page - d))
					return -EINVAL;
				memset(rec, 0, sizeof(*rec));
				rec->ts = ts;
				rec->data = data;
				rec->size = size;
				rec->cpu = pg->r->cpu;
				rec->missed_events =
					kbuffer_missed_events(pg->kbuf);
				kbuffer_next_event(pg->kbuf, NULL);
				return 1;
			}
			pg->in_page = 0;
		}
		if (pg->page_at + page > pg->chunk_len) {
			ret = pages_chunk(td, pg);
			if (ret <= 0)
				return ret;
			continue;
		}
		pg->walked = pg->can_walk &&
			     !walk_page(pg, pg->chunk + pg->page_at, page);
		if (!pg->walked &&
		    kbuffer_load_subbuffer(pg->kbuf, pg->chunk + pg->page_at))
			return -EINVAL;
		pg->page_at += page;
		pg->in_page = 1;
	}
}

/* the record after the current one, read ahead; NULL at the end */
static struct tep_record *pages_peek(struct td *td, struct td_pages *pg)
{
	int ret;

	if (!pg->have_pend) {
		ret = pages_read(td, pg, &pg->pend);
		if (ret < 0 && !td->err) {
			td->err = ret;
			td->err_at = pg->r->offset;
		}
		if (ret <= 0)
			return NULL;
		pg->have_pend = 1;
	}
	return &pg->pend;
}

/*
 * The next record of a CPU, its data copied: reading ahead for its stack
 * may replace the chunk it is in.  NULL at the end.
 */
static struct tep_record *pages_next(struct td *td, struct td_pages *pg)
{
	struct tep_record *rec = pages_peek(td, pg);

	if (!rec)
		return NULL;
	pg->have_pend = 0;
	if (KMT_ARRAY_GROW(pg->data, (size_t)rec->size, pg->data_alloc)) {
		if (!td->err)
			td->err = -ENOMEM;
		return NULL;
	}
	if (rec->size)
		memcpy(pg->data, rec->data, rec->size);
	pg->own = *rec;
	pg->own.data = pg->data;
	return &pg->own;
}

static struct tep_record *read_rec(struct td *td, struct td_cursor *c)
{
	return c->pg ? pages_next(td, c->pg) : tracecmd_read_data(c->h, c->cpu);
}

static struct tep_record *peek_rec(struct td *td, struct td_cursor *c)
{
	return c->pg ? pages_peek(td, c->pg) : tracecmd_peek_data(c->h, c->cpu);
}

/*
 * Takes the record peek_rec gave.  One read here stays in place: its
 * data lies in the chunk until the next read, which comes after it is
 * decoded.
 */
static struct tep_record *take_peeked(struct td_cursor *c,
				      struct tep_record *peeked)
{
	if (!c->pg)
		return tracecmd_read_data(c->h, c->cpu);
	c->pg->have_pend = 0;
	return peeked;
}

static void free_rec(struct td_cursor *c, struct tep_record *rec)
{
	if (!c->pg)
		tracecmd_free_record(rec);
}

/*
 * Loads the next event of a cursor together with the kernel stack that
 * follows it on the same CPU, if any.
 */
static void cursor_next(struct td *td, struct td_cursor *c)
{
	struct tep_record *rec, *next;
	int id;

	c->rec = NULL;
	c->stack = 0;
	rec = read_rec(td, c);
	if (!rec)
		return;
	count_missed(c, rec);
	if (c->started && rec->ts < c->last_ts)
		td->s->anomalies[KMT_ANOM_OUT_OF_ORDER]++;
	c->started = 1;
	c->last_ts = rec->ts;
	c->rec = rec;
	if (td->stack_id < 0)
		return;
	/*
	 * A record peeked and found not to be a stack is the one read
	 * next: its id was read then, once a record, not twice
	 */
	id = c->have_peek_id ? c->peek_id : record_id(td, rec);
	c->have_peek_id = 0;
	if (id == td->stack_id)
		return;
	next = peek_rec(td, c);
	if (!next)
		return;
	id = record_id(td, next);
	if (id != td->stack_id) {
		c->peek_id = id;
		c->have_peek_id = 1;
		return;
	}
	next = take_peeked(c, next);
	if (!next)
		return;
	count_missed(c, next);
	/*
	 * A stack after a lost page, or of another task (a trigger fires
	 * for events a pid filter then drops), is not this event's.
	 */
	if (!next->missed_events && record_pid(td, next) == record_pid(td, rec))
		c->stack = decode_stack(td, next);
	free_rec(c, next);
}

static int emit_record(struct td *td, struct td_cursor *c)
{
	struct kmt_session *s = td->s;
	struct tep_record *rec = c->rec;
	struct kmt_event ev;
	int r;

	r = kmt_tp_decode(&td->dec, s, rec->data, (size_t)rec->size, &ev);
	/* a record of a format left out: counted as that format's */
	if (!r && s->nr_unusable)
		kmt_session_unusable_record(s, record_id(td, rec));
	if (r < 0) {
		int id = record_id(td, rec);

		if (id >= 0 && !tep_find_event(td->tep, id))
			kmt_session_anomaly(s, KMT_ANOM_UNKNOWN_ID, KMT_AT_BYTE,
					    rec->offset,
					    "an event of unknown id %d", id);
		else
			kmt_session_anomaly(s, KMT_ANOM_BAD_RECORD, KMT_AT_BYTE,
					    rec->offset,
					    "a kmem event that does not decode");
		return 0;
	}
	ev.ts = rec->ts;
	ev.cpu = rec->cpu;
	if (r > 0 && c->stack) {
		ev.stack = c->stack;
		s->has_stacks = 1;
	}
	if (r > 0 && ev.pid >= 0 && c->named_pid != (int64_t)ev.pid + 1 &&
	    !kmt_session_comm(s, ev.pid) &&
	    !kmt_hash_set_has(&td->no_comm, (uint64_t)ev.pid)) {
		const char *comm = tep_data_comm_from_pid(td->tep, ev.pid);

		if (comm && strcmp(comm, "<...>")) {
			if (kmt_session_set_comm(s, ev.pid, comm, strlen(comm)))
				return kmt_session_error(s, ENOMEM,
							 "out of memory");
		} else if (kmt_hash_set_add(&td->no_comm, (uint64_t)ev.pid)) {
			return kmt_session_error(s, ENOMEM, "out of memory");
		}
	}
	if (r > 0 && ev.pid >= 0)
		c->named_pid = (int64_t)ev.pid + 1;
	return kmt_session_emit(s, &ev);
}

/*
 * What reading the records failed with: memory (for a record or its
 * stack), damaged pages (as check_data says it), or the file.
 */
static int read_error(struct td *td)
{
	if (td->err == -ENOMEM)
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	if (td->err == -EINVAL)
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: the ring-buffer pages at byte %llu are damaged",
			td->in->display, (unsigned long long)td->err_at);
	return kmt_session_error(td->s, EIO, "cannot read '%s': %s",
				 td->in->display, strerror(EIO));
}

static int merge(struct td *td)
{
	const struct kmt_merge_head *top;
	size_t i;
	int ret;

	if (kmt_merge_reserve(&td->merge, td->nr_cur))
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	for (i = 0; i < td->nr_cur; i++) {
		cursor_next(td, &td->cur[i]);
		if (td->cur[i].rec)
			kmt_merge_add(&td->merge, i, td->cur[i].rec->ts, i);
	}
	if (td->err)
		return read_error(td);
	while ((top = kmt_merge_top(&td->merge))) {
		struct td_cursor *c;

		i = top->stream;
		c = &td->cur[i];
		ret = emit_record(td, c);
		free_rec(c, c->rec);
		c->rec = NULL;
		if (ret)
			return ret;
		cursor_next(td, c);
		if (td->err)
			break;
		if (!c->rec)
			kmt_merge_pop(&td->merge);
		else
			kmt_merge_advance(&td->merge, c->rec->ts, i);
	}
	return td->err ? read_error(td) : 0;
}

/* --- setup --- */

/*
 * A cursor reads its CPU's pages here (struct td_pages) unless
 * libtracecmd would change the records' times, or the pages were not
 * found where the walk looked.  0 or -errno.
 */
static int pages_open(struct td *td, struct td_cursor *c, const char *buffer)
{
	const struct td_region *r = NULL;
	enum kbuffer_long_size ls;
	enum kbuffer_endian en;
	struct td_pages *pg;
	size_t i;

	if (td->lib_times)
		return 0;
	for (i = 0; i < td->nr_regions && !r; i++) {
		if (td->regions[i].cpu == c->cpu &&
		    !strcmp(td->regions[i].buffer, buffer))
			r = &td->regions[i];
	}
	if (!r)
		return 0;
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	c->pg = pg;
	pg->r = r;
	/*
	 * As libtracecmd sets up its own, and as check_page read the
	 * pages: the commit field's size, which is the kernel's long.  The
	 * file header's long size is the recording trace-cmd's (4 from a
	 * 32-bit trace-cmd on a 64-bit kernel).
	 */
	ls = tep_get_header_page_size(td->tep) == 8 ? KBUFFER_LSIZE_8 :
						      KBUFFER_LSIZE_4;
	en = td->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE;
	pg->kbuf = kbuffer_alloc(ls, en);
	if (!pg->kbuf)
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	if (tep_is_old_format(td->tep))
		kbuffer_set_old_format(pg->kbuf);
	/* walk_page reads numbers as they lie: the host's order only */
	pg->long8 = ls == KBUFFER_LSIZE_8;
	pg->can_walk = !tep_is_old_format(td->tep) && !td->big_endian &&
		       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	return 0;
}

static void pages_free(struct td_pages *pg)
{
	if (!pg)
		return;
	if (pg->kbuf)
		kbuffer_free(pg->kbuf);
	free(pg->chunk);
	free(pg->data);
	free(pg->evs);
	free(pg);
}

static int add_buffer(struct td *td, struct tracecmd_input *h,
		      const char *name, int owned)
{
	struct td_buffer *b;
	int cpu, cpus, ret;

	if (KMT_ARRAY_GROW(td->bufs, td->nr_bufs + 1, td->alloc_bufs)) {
		if (owned)
			tracecmd_close(h);
		return kmt_session_error(td->s, ENOMEM, "out of memory");
	}
	b = &td->bufs[td->nr_bufs++];
	b->h = h;
	b->name = name ? name : "";
	b->owned = owned;
	cpus = tracecmd_cpus(h);
	if (cpus > KMT_MAX_CPUS)
		return kmt_session_error(td->s, EINVAL,
			"'%s' is not a valid trace.dat: it claims %d CPUs",
			td->in->display, cpus);
	if (cpus > td->s->nr_cpus)
		td->s->nr_cpus = cpus;
	for (cpu = 0; cpu < cpus; cpu++) {
		struct td_cursor *c;

		if (KMT_ARRAY_GROW(td->cur, td->nr_cur + 1, td->alloc_cur))
			return kmt_session_error(td->s, ENOMEM, "out of memory");
		c = &td->cur[td->nr_cur++];
		memset(c, 0, sizeof(*c));
		c->h = h;
		c->cpu = cpu;
		c->buf = (int)(td->nr_bufs - 1);
		ret = pages_open(td, c, b->name);
		if (ret)
			return ret;
	}
	return 0;
}

static void find_stack_event(struct td *td)
{
	struct tep_event *ev;
	struct tep_format_field *f;

	td->stack_id = -1;
	td->stack_size_off = td->stack_caller_off = -1;
	ev = tep_find_event_by_name(td->tep, "ftrace", "kernel_stack");
	if (!ev)
		return;
	f = tep_find_field(ev, "caller");
	if (!f)
		return;
	td->stack_id = ev->id;
	td->stack_caller_off = f->offset;
	td->stack_elem = f->elementsize > 0 ? (int)f->elementsize :
			 tep_get_long_size(td->tep);
	if (td->stack_elem != 4 && td->stack_elem != 8)
		td->stack_elem = 8;
	f = tep_find_field(ev, "size");
	if (f) {
		td->stack_size_off = f->offset;
		td->stack_size_len = f->size;
	}
}

static void set_release(struct kmt_session *s, const char *uname)
{
	const char *p = uname;
	size_t len;
	int i;

	/* "sysname nodename release machine": the second word is the host */
	p = strchr(uname, ' ');
	if (p) {
		len = strcspn(p + 1, " \n");
		if (len >= sizeof(s->hostname))
			len = sizeof(s->hostname) - 1;
		memcpy(s->hostname, p + 1, len);
		s->hostname[len] = '\0';
	}
	p = uname;

	/* "sysname nodename release machine": the third word */
	for (i = 0; i < 2 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return;
	len = strcspn(p, " \n");
	if (len >= sizeof(s->kernel_release))
		len = sizeof(s->kernel_release) - 1;
	memcpy(s->kernel_release, p, len);
	s->kernel_release[len] = '\0';
}

static int open_file(struct td *td)
{
	struct kmt_session *s = td->s;
	uint64_t options_at, init_end;
	int fd, ret;

	ret = parse_init(td, &options_at, &init_end);
	if (!ret && td->version == 6 && td->in->size >= 0)
		ret = walk_v6(td, init_end);
	/* libtracecmd looks for strings even where the options are not */
	if (!ret && td->version == 7 && td->in->size >= 0)
		ret = walk_v7_strings(td, init_end);
	if (!ret && td->version == 7 && td->in->size >= 0 &&
	    options_at < (uint64_t)td->in->size)
		ret = walk_v7(td, options_at);
	if (ret)
		return ret;
	/*
	 * A file whose records this reader reads itself: its kallsyms are
	 * parsed here (setup), and libtracecmd reads them as blank.  The
	 * copy leaves uncompressed CPU data out; compressed data it keeps
	 * (libtracecmd walks its chunks), which is small next to the parse.
	 */
	if (td->ksyms_len && td->nr_regions && !td->lib_times) {
		ret = add_blank(td, td->ksyms_block, td->ksyms_at,
				td->ksyms_len);
		if (ret)
			return ret;
		td->blanks[td->nr_blanks - 1].lines = 1;
		td->own_ksyms = 1;
		td->sparse = !td->zname[0];
	}
	if (td->nr_blanks) {
		fd = blanked_copy(td);
		if (fd < 0)
			return -EINVAL;
	} else {
		fd = dup(td->in->fd);
	}
	if (fd < 0)
		return kmt_session_error(s, errno, "cannot read '%s': %s",
					 td->in->display, strerror(errno));
	if (lseek(fd, 0, SEEK_SET) < 0) {
		ret = errno;
		close(fd);
		return kmt_session_error(s, ret, "cannot seek '%s': %s",
					 td->in->display, strerror(ret));
	}
	/* lib/ never prints: keep libtracecmd and libtraceevent quiet */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	/*
	 * In steps rather than with tracecmd_open_fd: that loads each CPU's
	 * first page (tracecmd_init_data) before the pages can be checked,
	 * and checking them needs the page header the headers hold.
	 */
	td->h = tracecmd_alloc_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS |
				  TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!td->h) {
		/* it keeps fd only when it succeeds */
		close(fd);
		return kmt_session_error(s, EINVAL,
			"'%s' is not a valid trace.dat: libtracecmd cannot read its headers (version %lu)",
			td->in->display, td->version);
	}
	if (tracecmd_read_headers(td->h, 0) < 0) {
		if (td->version == 7 && td->in->size >= 0 &&
		    options_at >= (uint64_t)td->in->size)
			return kmt_session_error(s, EINVAL,
				"'%s' is truncated at byte %lld: its options start at byte %llu",
				td->in->display, (long long)td->in->size,
				(unsigned long long)options_at);
		return kmt_session_error(s, EINVAL,
			"'%s' is not a valid trace.dat: libtracecmd cannot read its headers (version %lu)",
			td->in->display, td->version);
	}
	td->tep = tracecmd_get_tep(td->h);
	if (!td->tep)
		return kmt_session_error(s, EINVAL,
			"'%s' is not a valid trace.dat: no event formats",
			td->in->display);
	/* without the ring-buffer page header no page can be read */
	ret = tep_get_header_page_size(td->tep);
	if ((ret != 4 && ret != 8) ||
	    tep_get_header_timestamp_size(td->tep) != 8)
		return kmt_session_error(s, EINVAL,
			"'%s' is not a valid trace.dat: its ring-buffer page header is missing or damaged",
			td->in->display);
	ret = check_data(td);
	if (ret)
		return ret;
	if (tracecmd_init_data(td->h) < 0)
		return kmt_session_error(s, EINVAL,
			"'%s' is not a valid trace.dat: libtracecmd cannot read its CPU data",
			td->in->display);
	return 0;
}

/*
 * The file's kallsyms into the session's symbol table (own_ksyms): the
 * text the walk kept of a compressed section, or read from the file
 */
static int load_kallsyms(struct td *td)
{
	char *text = td->ksyms_text;
	int ret;

	td->ksyms_text = NULL;
	if (!text) {
		text = malloc(td->ksyms_len);
		if (!text)
			return kmt_session_error(td->s, ENOMEM, "out of memory");
		errno = 0;
		if (pread_all(td->in->fd, text, td->ksyms_len, td->ksyms_at)) {
			ret = errno ? errno : EIO;
			free(text);
			return kmt_session_error(td->s, ret, "cannot read '%s': %s",
						 td->in->display, strerror(ret));
		}
	}
	ret = kmt_symtab_load_kallsyms(&td->s->syms, text, td->ksyms_len);
	free(text);
	td->s->syms.end_at_last = 1;
	return ret < 0 ? kmt_session_error(td->s, -ret, "out of memory") : 0;
}

static int setup(struct td *td)
{
	struct kmt_session *s = td->s;
	const char *text;
	int i, n, ret;

	ret = open_file(td);
	if (ret)
		return ret;
	/* the machine it was recorded on, when its byte order is not ours */
	if (td->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		s->format = td->version == 6 ? "trace.dat v6" : "trace.dat v7";
	else if (td->big_endian)
		s->format = td->version == 6 ? "trace.dat v6, big-endian" :
					       "trace.dat v7, big-endian";
	else
		s->format = td->version == 6 ? "trace.dat v6, little-endian" :
					       "trace.dat v7, little-endian";
	text = tracecmd_get_uname(td->h);
	if (text)
		set_release(s, text);
	text = tracecmd_get_version(td->h);
	if (text)
		snprintf(s->recorder, sizeof(s->recorder), "%.*s",
			 (int)strcspn(text, "\n"), text);

	/* the session keeps the formats and kallsyms for symbol lookups */
	tep_ref(td->tep);
	if (s->tep)
		tep_free(s->tep);
	s->tep = td->tep;
	if (td->own_ksyms) {
		ret = load_kallsyms(td);
		if (ret)
			return ret;
	} else {
		s->syms.tep = td->tep;
	}

	ret = kmt_tp_decoder_init(&td->dec, td->tep, s);
	td->have_dec = 1;
	if (ret)
		return kmt_session_error(s, ret, "cannot decode '%s': %s",
					 td->in->display, strerror(-ret));
	find_stack_event(td);

	ret = add_buffer(td, td->h, "", 0);
	if (ret)
		return ret;
	n = tracecmd_buffer_instances(td->h);
	for (i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(td->h, i);

		if (!b)
			return kmt_session_error(s, EINVAL,
				"'%s' is not a valid trace.dat: cannot read buffer '%s'",
				td->in->display,
				tracecmd_buffer_instance_name(td->h, i));
		ret = add_buffer(td, b, tracecmd_buffer_instance_name(td->h, i), 1);
		if (ret)
			return ret;
	}
	text = tracecmd_get_cpustats(td->h);
	if (text)
		parse_cpustats(td, text);
	return 0;
}

static void cleanup(struct td *td)
{
	size_t i;

	for (i = 0; i < td->nr_cur; i++) {
		if (td->cur[i].rec)
			free_rec(&td->cur[i], td->cur[i].rec);
		pages_free(td->cur[i].pg);
	}
	if (td->z)
		tracecmd_compress_destroy(td->z);
	if (td->wz)
		tracecmd_compress_destroy(td->wz);
	if (td->wtep)
		tep_free(td->wtep);
	for (i = 0; i < td->nr_regions; i++) {
		free(td->regions[i].buffer);
		free(td->regions[i].chunks);
	}
	free(td->cur);
	free(td->ksyms_text);
	kmt_merge_free(&td->merge);
	kmt_hash_set_free(&td->no_comm);
	free(td->blanks);
	/* instances before the handle whose tep they share */
	for (i = td->nr_bufs; i-- > 0;) {
		if (td->bufs[i].owned)
			tracecmd_close(td->bufs[i].h);
	}
	free(td->bufs);
	free(td->regions);
	if (td->have_dec)
		kmt_tp_decoder_free(&td->dec);
	if (td->h)
		tracecmd_close(td->h);
}

static int read_all(struct kmt_session *s, struct kmt_input *in)
{
	struct td td;
	int ret;

	memset(&td, 0, sizeof(td));
	td.s = s;
	td.in = in;
	kmt_hash_set_init(&td.no_comm);
	ret = setup(&td);
	if (!ret)
		ret = merge(&td);
	if (ret >= 0)
		account_lost(&td);
	cleanup(&td);
	return ret;
}

const struct kmt_source_ops kmt_source_tracedat = {
	.name = "tracedat",
	.probe = probe,
	.read = read_all,
	.needs_seek = 1,
};
