// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader: files written by `perf record` (and so `perf kmem
 * record`), header "PERFILE2", and the pipe form of `perf record -o -`,
 * which the dispatcher spools to a file first.
 *
 * A file is a header naming the attrs and the data section; the attrs
 * (one perf_event_attr per event, with the ids of its instances); the
 * data section, a stream of records (samples, COMM, LOST, round markers
 * ...); after the data, one section per feature bit set in the header:
 * the tracing data (event formats), the kernel release, the CPU count.
 * The pipe form has none of the sections: attrs, tracing data and
 * features arrive as records in the stream.
 *
 * A file from a machine of the other byte order (s390x, ppc64 against
 * x86) has its magic turned around; every number perf or the kernel
 * wrote is then turned as it is read (a sample's u32 pairs, pid and tid,
 * cpu and reserved, each as a u32, as perf reads them), call chains
 * turned into a buffer of their own, and tracepoint data left to
 * libtraceevent, told the file's byte order by the tracing data.
 *
 * The data is mapped whole, its pages dropped behind the reader (a
 * mapview; read into a buffer where mapping fails), and each kmem sample
 * is decoded at once into a kmt_event; only the decoded events of the
 * last rounds wait for ordering, so memory does not grow with the file.
 *
 * `perf record -z` writes the records of the ring buffers as one zstd
 * stream cut into COMPRESSED records, a record of the stream running on
 * from one COMPRESSED record into the next.  They are uncompressed as
 * they come into a window of PD_ZBUF_SIZE, the whole records in it read
 * at once and a cut one kept for the next: memory is that window and
 * the zstd window the stream declares (512 KiB at perf's level 1, at
 * most zstd's limit of 128 MiB), not the uncompressed data, which perf
 * itself keeps whole.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <zstd.h>

#include "event/fmtcheck.h"
#include "event/session.h"
#include "event/tpdecode.h"
#include "source/mapview.h"
#include "source/perfdata.h"
#include "source/source.h"
#include "source/tracedat-format.h"
#include "util/array.h"

/* "PERFILE2" read as a native u64 on the machine that wrote it */
#define PD_MAGIC		0x32454c4946524550ULL
#define PD_FILE_HEADER		104	/* with the 256-bit feature bitmap */
#define PD_FILE_HEADER_OLD	72	/* before features existed */
#define PD_PIPE_HEADER		16
#define PD_ATTR_SIZE_VER0	64
#define PD_FEAT_BITS		256
#define PD_BUF_SIZE		(1U << 20)	/* > the largest record, 64 KiB */
#define PD_MAX_SECTION		(64U << 20)	/* loaded whole: attrs, features */
#define PD_ZBUF_SIZE		(256U << 10)	/* > 64 KiB: a cut record and more */
#define PD_COMP_ZSTD		1	/* HEADER_COMPRESSED's type for zstd */

/* perf_event_attr: offsets of what is read */
#define ATTR_TYPE		0
#define ATTR_SIZE		4
#define ATTR_SAMPLE_TYPE	24
#define ATTR_READ_FORMAT	32
#define PERF_TYPE_TRACEPOINT	2

/* record types: the kernel's, then perf's own from 64 */
enum {
	REC_MMAP			= 1,
	REC_LOST			= 2,
	REC_COMM			= 3,
	REC_FORK			= 7,
	REC_SAMPLE			= 9,
	REC_LOST_SAMPLES		= 13,
	REC_HEADER_ATTR			= 64,
	REC_HEADER_TRACING_DATA		= 66,
	REC_HEADER_BUILD_ID		= 67,
	REC_FINISHED_ROUND		= 68,
	REC_AUXTRACE			= 71,
	REC_HEADER_FEATURE		= 80,
	REC_COMPRESSED			= 81,
	REC_COMPRESSED2			= 83,
};

/* feature bits, each owning one section after the data */
enum {
	FEAT_TRACING_DATA	= 1,
	FEAT_BUILD_ID		= 2,
	FEAT_HOSTNAME		= 3,
	FEAT_OSRELEASE		= 4,
	FEAT_NRCPUS		= 7,
	FEAT_NUMA_TOPOLOGY	= 14,
	FEAT_COMPRESSED		= 27,
	FEAT_CLOCK_DATA		= 29,
};

#define MISC_CPUMODE_MASK	7
#define MISC_KERNEL		1
#define MISC_BUILD_ID_SIZE	(1U << 15)
#define MISC_LOST_SAMPLES_BPF	(1U << 15)

struct pd_attr {
	uint64_t sample_type;
	uint64_t read_format;
	uint32_t type;
	struct kmt_perfdata_layout layout;	/* of its samples */
};

/* how a sample names its attr */
enum pd_layout {
	PD_LAYOUT_UNKNOWN,	/* attrs changed: work it out again */
	PD_LAYOUT_ONE,		/* every attr lays samples out alike */
	PD_LAYOUT_ID,		/* the id is the u64 at id_pos */
};

/*
 * Small direct-mapped caches in front of the session's tables: most
 * samples repeat a call chain seen a moment ago, and sample ids are
 * small consecutive numbers.
 */
#define PD_STACK_CACHE	4096
#define PD_ID_CACHE	64

struct pd_stack_slot {
	uint64_t hash;
	uint32_t id;
};

struct pd_id_slot {
	uint64_t id;
	uint32_t attr;		/* index + 1, 0 for an empty slot */
};

struct pd {
	struct kmt_session *s;
	const char *name;
	int fd;
	int pipe;
	int swap;			/* written in the other byte order */
	uint64_t size;			/* of the file */

	struct pd_attr *attrs;
	size_t nr_attrs, attrs_alloc;
	struct kmt_hash_u32 ids;	/* sample id -> attr index */
	enum pd_layout layout;
	unsigned int id_pos;

	/*
	 * The record stream: cur is the offset of the next record, end of
	 * the records.  They are mapped (map set, view), or read into win,
	 * which holds len bytes of the file from byte off.
	 */
	uint64_t cur, end;
	struct kmt_mapview view;
	int map;
	unsigned char *win;
	size_t len;
	uint64_t off;

	struct kmt_tp_decoder dec;
	int have_dec;
	int have_tracing;
	struct kmt_perfdata_queue q;
	uint64_t *chain;
	size_t chain_alloc;
	uint64_t *ips;			/* a chain turned to this byte order */
	size_t ips_alloc;
	struct pd_stack_slot *stack_cache;	/* PD_STACK_CACHE of them */
	struct pd_id_slot id_cache[PD_ID_CACHE];

	/* the traced kernel, to find its symbols on this machine */
	unsigned char build_id[20];
	size_t build_id_len;
	char kmap_sym[64];		/* the kernel map's reference symbol */
	uint64_t kmap_addr;		/* and where it was when recorded */
	int host_syms;			/* kallsyms came from this machine */
	int by_release;			/* chosen by kernel release alone */
	int relocated;

	/* perf record -z: the stream and the records uncompressed from it */
	ZSTD_DStream *z;
	unsigned char *zbuf;		/* PD_ZBUF_SIZE */
	size_t zlen;			/* bytes in zbuf, a cut record at most */
	uint64_t zat;			/* the compressed record they came from */
	uint32_t comp_type;		/* HEADER_COMPRESSED's, 0 if absent */
	int syms_tried;			/* pd_host_kallsyms was called */

	uint64_t lost;			/* as LOST records count */
	uint64_t lost_samples;		/* as LOST_SAMPLES records count */
	int format_lost;		/* the events count their own losses */
};

static inline uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t get16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* numbers in the file's byte order */
#define RD64(swap, p)	((swap) ? bswap_64(get64(p)) : get64(p))
#define RD32(swap, p)	((swap) ? bswap_32(get32(p)) : get32(p))
#define RD16(swap, p)	((swap) ? bswap_16(get16(p)) : get16(p))

static int pd_nomem(struct pd *pd)
{
	return kmt_session_error(pd->s, ENOMEM, "out of memory reading '%s'",
				 pd->name);
}

static int pd_truncated(struct pd *pd, const char *what, uint64_t want)
{
	return kmt_session_error(pd->s, EINVAL,
		"'%s' is truncated at byte %llu: %s ends at byte %llu",
		pd->name, (unsigned long long)pd->size, what,
		(unsigned long long)want);
}

/* [off, off + len) lies inside the file */
static int pd_inside(const struct pd *pd, uint64_t off, uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

/* reads len bytes at off; the caller checked they are inside the file */
static int pd_pread(struct pd *pd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(pd->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kmt_session_error(pd->s, errno,
				"cannot read '%s': %s", pd->name,
				strerror(errno));
		if (n == 0)
			return kmt_session_error(pd->s, EINVAL,
				"'%s' is truncated at byte %llu: it shrank while being read",
				pd->name, (unsigned long long)off);
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* a section of the file in a buffer of its own, NUL-terminated */
static int pd_load(struct pd *pd, uint64_t off, uint64_t len,
		   const char *what, unsigned char **out)
{
	unsigned char *buf;
	int ret;

	*out = NULL;
	if (!pd_inside(pd, off, len))
		return pd_truncated(pd, what, off + len);
	if (len > PD_MAX_SECTION)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' is corrupt at byte %llu: %s of %llu bytes is beyond belief",
			pd->name, (unsigned long long)off, what,
			(unsigned long long)len);
	buf = malloc(len + 1);
	if (!buf)
		return pd_nomem(pd);
	ret = pd_pread(pd, buf, len, off);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* ---- samples, call chains, the time-order queue: pure parts ---- */

void kmt_perfdata_layout_init(struct kmt_perfdata_layout *l, uint64_t st,
			      uint64_t rf)
{
	/* the fixed fields in the order a sample carries them */
	static const uint64_t fixed[] = {
		KMT_PERF_SAMPLE_IDENTIFIER, KMT_PERF_SAMPLE_IP,
		KMT_PERF_SAMPLE_TID, KMT_PERF_SAMPLE_TIME,
		KMT_PERF_SAMPLE_ADDR, KMT_PERF_SAMPLE_ID,
		KMT_PERF_SAMPLE_STREAM_ID, KMT_PERF_SAMPLE_CPU,
		KMT_PERF_SAMPLE_PERIOD,
	};
	size_t i, off = 0;

	memset(l, 0, sizeof(*l));
	l->sample_type = st;
	l->read_format = rf;
	l->off_id = l->off_tid = l->off_time = l->off_cpu = -1;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!(st & fixed[i]))
			continue;
		/* with both, ID (the later) names the sample, as in perf */
		if (fixed[i] == KMT_PERF_SAMPLE_IDENTIFIER ||
		    fixed[i] == KMT_PERF_SAMPLE_ID)
			l->off_id = (int16_t)off;
		else if (fixed[i] == KMT_PERF_SAMPLE_TID)
			l->off_tid = (int16_t)off;
		else if (fixed[i] == KMT_PERF_SAMPLE_TIME)
			l->off_time = (int16_t)off;
		else if (fixed[i] == KMT_PERF_SAMPLE_CPU)
			l->off_cpu = (int16_t)off;
		off += 8;
	}
	l->prefix = (uint16_t)off;
}

int kmt_perfdata_parse_laid(const unsigned char *body, size_t size,
			    const struct kmt_perfdata_layout *l,
			    struct kmt_perfdata_sample *out)
{
	const unsigned char *p, *end = body + size;
	uint64_t st = l->sample_type, rf = l->read_format;

#define NEED(n)	do { if ((uint64_t)(end - p) < (uint64_t)(n)) return -EINVAL; } while (0)
	if (size < l->prefix)
		return -EINVAL;
	p = body + l->prefix;
	out->id = l->off_id >= 0 ? RD64(l->swap, body + l->off_id) : 0;
	out->pid = l->off_tid >= 0 ? RD32(l->swap, body + l->off_tid) : 0;
	out->tid = l->off_tid >= 0 ? RD32(l->swap, body + l->off_tid + 4) : 0;
	out->time = l->off_time >= 0 ? RD64(l->swap, body + l->off_time) : 0;
	out->cpu = l->off_cpu >= 0 ? RD32(l->swap, body + l->off_cpu) : 0;
	out->raw_size = 0;
	out->nr_ips = 0;
	out->ips = NULL;
	out->raw = NULL;
	if (st & KMT_PERF_SAMPLE_READ) {
		uint64_t times = !!(rf & KMT_PERF_FORMAT_TOTAL_TIME_ENABLED) +
				 !!(rf & KMT_PERF_FORMAT_TOTAL_TIME_RUNNING);
		uint64_t per = 1 + !!(rf & KMT_PERF_FORMAT_ID) +
			       !!(rf & KMT_PERF_FORMAT_LOST);

		if (rf & KMT_PERF_FORMAT_GROUP) {
			uint64_t nr;

			NEED(8);
			nr = RD64(l->swap, p);
			p += 8;
			NEED(8 * times);
			p += 8 * times;
			if (nr > (uint64_t)(end - p) / (8 * per))
				return -EINVAL;
			p += nr * 8 * per;
		} else {
			NEED(8 * (times + per));
			p += 8 * (times + per);
		}
	}
	if (st & KMT_PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		nr = RD64(l->swap, p);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return -EINVAL;
		out->nr_ips = nr;
		out->ips = p;
		p += nr * 8;
	}
	if (st & KMT_PERF_SAMPLE_RAW) {
		uint32_t n;

		NEED(4);
		n = RD32(l->swap, p);
		p += 4;
		NEED(n);
		out->raw_size = n;
		out->raw = p;
	}
#undef NEED
	/* what follows RAW (branch stack, registers, ...) is not needed */
	return 0;
}

int kmt_perfdata_parse_sample(const unsigned char *body, size_t size,
			      uint64_t st, uint64_t rf,
			      struct kmt_perfdata_sample *out)
{
	struct kmt_perfdata_layout l;

	kmt_perfdata_layout_init(&l, st, rf);
	return kmt_perfdata_parse_laid(body, size, &l, out);
}

size_t kmt_perfdata_kernel_chain(const unsigned char *ips, uint64_t nr,
				 uint64_t *start)
{
	uint64_t i, first = 0;
	int kernel = 1;

	for (i = 0; i < nr; i++) {
		uint64_t ip = get64(ips + 8 * i);

		if (ip < KMT_PERF_CONTEXT_MAX)
			continue;
		if (kernel && i > first)
			break;
		kernel = ip == KMT_PERF_CONTEXT_KERNEL;
		first = i + 1;
	}
	*start = first;
	return kernel ? i - first : 0;
}

void kmt_perfdata_queue_init(struct kmt_perfdata_queue *q)
{
	memset(q, 0, sizeof(*q));
	kmt_merge_init(&q->merge);
	q->slack = KMT_PERFDATA_SLACK_NS;
	q->batch = KMT_PERFDATA_BATCH;
}

void kmt_perfdata_queue_free(struct kmt_perfdata_queue *q)
{
	size_t i;

	for (i = 0; i < q->nr_streams; i++) {
		free(q->streams[i].ev);
		free(q->streams[i].seq);
	}
	free(q->streams);
	kmt_merge_free(&q->merge);
	memset(q, 0, sizeof(*q));
}

struct kmt_event *kmt_perfdata_queue_slot(struct kmt_perfdata_queue *q,
					  int32_t cpu)
{
	size_t idx = cpu >= 0 && cpu < KMT_MAX_CPUS ? (size_t)cpu + 1 : 0;
	struct kmt_perfdata_stream *st;

	if (idx >= q->nr_streams) {
		if (KMT_ARRAY_GROW(q->streams, idx + 1, q->streams_alloc) ||
		    kmt_merge_reserve(&q->merge, idx + 1))
			return NULL;
		memset(q->streams + q->nr_streams, 0,
		       (idx + 1 - q->nr_streams) * sizeof(*q->streams));
		q->nr_streams = idx + 1;
	}
	st = &q->streams[idx];
	if ((st->nr >= st->ev_alloc &&
	     KMT_ARRAY_GROW(st->ev, st->nr + 1, st->ev_alloc)) ||
	    (st->nr >= st->seq_alloc &&
	     KMT_ARRAY_GROW(st->seq, st->nr + 1, st->seq_alloc)))
		return NULL;
	q->slot_stream = idx;
	return &st->ev[st->nr];
}

void kmt_perfdata_queue_commit(struct kmt_perfdata_queue *q)
{
	struct kmt_perfdata_stream *st = &q->streams[q->slot_stream];
	uint64_t ts = st->ev[st->nr].ts;
	size_t i = st->nr;

	/* an interrupted event comes after the interrupt's: move it back */
	while (i > st->head && st->ev[i - 1].ts > ts)
		i--;
	if (i < st->nr) {
		struct kmt_event ev = st->ev[st->nr];

		memmove(st->ev + i + 1, st->ev + i,
			(st->nr - i) * sizeof(*st->ev));
		memmove(st->seq + i + 1, st->seq + i,
			(st->nr - i) * sizeof(*st->seq));
		st->ev[i] = ev;
	}
	st->seq[i] = q->seq++;
	st->nr++;
	q->nr++;
	if (ts > q->max_ts)
		q->max_ts = ts;
	if (q->emitted && ts < q->last_out)
		q->nr_late++;
	if (q->nr > q->peak)
		q->peak = q->nr;
}

/* passes on the head of st when it is within bound: 1 if it was */
static inline int emit_head(struct kmt_perfdata_queue *q, struct kmt_session *s,
			    struct kmt_perfdata_stream *st, uint64_t bound,
			    int all, int *ret)
{
	const struct kmt_event *ev = &st->ev[st->head];

	if (!all && ev->ts > bound)
		return 0;
	if (!q->emitted || ev->ts > q->last_out)
		q->last_out = ev->ts;
	q->emitted = 1;
	*ret = kmt_session_emit(s, ev);
	st->head++;
	q->nr--;
	return 1;
}

/* merges the streams up to bound (all of them when all is set) */
static int queue_emit(struct kmt_perfdata_queue *q, struct kmt_session *s,
		      uint64_t bound, int all)
{
	const struct kmt_merge_head *top;
	size_t i;
	int ret = 0;

	kmt_merge_clear(&q->merge);
	for (i = 0; i < q->nr_streams; i++) {
		struct kmt_perfdata_stream *st = &q->streams[i];

		if (st->head < st->nr)
			kmt_merge_add(&q->merge, i, st->ev[st->head].ts,
				      st->seq[st->head]);
	}
	while (!ret && (top = kmt_merge_top(&q->merge))) {
		struct kmt_perfdata_stream *st = &q->streams[top->stream];

		if (!emit_head(q, s, st, bound, all, &ret))
			break;
		if (st->head == st->nr)
			kmt_merge_pop(&q->merge);
		else
			kmt_merge_advance(&q->merge, st->ev[st->head].ts,
					  st->seq[st->head]);
	}
	/* what stays moves to the front of its stream */
	for (i = 0; i < q->nr_streams; i++) {
		struct kmt_perfdata_stream *st = &q->streams[i];
		size_t left = st->nr - st->head;

		if (!st->head)
			continue;
		if (left) {
			memmove(st->ev, st->ev + st->head, left * sizeof(*st->ev));
			memmove(st->seq, st->seq + st->head,
				left * sizeof(*st->seq));
		}
		st->head = 0;
		st->nr = left;
	}
	return ret;
}

int kmt_perfdata_queue_round(struct kmt_perfdata_queue *q,
			     struct kmt_session *s)
{
	uint64_t bound = q->prev_max;
	int ret;

	/* the first marker only starts the count: nothing is safe yet */
	if (q->rounds < 2)
		q->rounds++;
	if (q->rounds == 2) {
		if (q->max_ts < q->slack)
			bound = 0;
		else if (q->max_ts - q->slack < bound)
			bound = q->max_ts - q->slack;
		if (bound > q->bound)
			q->bound = bound;
	}
	q->prev_max = q->max_ts;
	if (q->rounds < 2 || !q->nr || q->nr < q->batch ||
	    q->nr < q->flush_at)
		return 0;
	ret = queue_emit(q, s, q->bound, 0);
	/* what stays waits for newer events: do not sort it every round */
	q->flush_at = q->nr * 2;
	return ret;
}

int kmt_perfdata_queue_flush(struct kmt_perfdata_queue *q,
			     struct kmt_session *s)
{
	return queue_emit(q, s, 0, 1);
}

/* ---- the tracing data: event formats for libtraceevent ---- */

struct pd_cur {
	unsigned char *p, *end;
	int big;
};

static unsigned char *cur_take(struct pd_cur *c, uint64_t n)
{
	unsigned char *p = c->p;

	if ((uint64_t)(c->end - c->p) < n)
		return NULL;
	c->p += n;
	return p;
}

static int cur_num(struct pd_cur *c, int n, uint64_t *v)
{
	const unsigned char *p = cur_take(c, n);
	int i;

	if (!p)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (c->big)
			*v = *v << 8 | p[i];
		else
			*v |= (uint64_t)p[i] << (8 * i);
	}
	return 0;
}

static const char *cur_str(struct pd_cur *c)
{
	unsigned char *nul = memchr(c->p, '\0', c->end - c->p);

	if (!nul)
		return NULL;
	return (const char *)cur_take(c, nul - c->p + 1);
}

/* a u32 (or u64) size and that many bytes */
static unsigned char *cur_blob(struct pd_cur *c, int size_len, uint64_t *len)
{
	if (cur_num(c, size_len, len))
		return NULL;
	return cur_take(c, *len);
}

/* one format of the tracing data: parsed, or left out as unusable */
static int use_format(struct pd *pd, struct tep_handle *tep, const char *sys,
		      unsigned char *blob, uint64_t size)
{
	const char *why;

	if (kmt_format_check((const char *)blob, size, &why))
		return kmt_session_unusable_format(pd->s, pd->name, sys,
						   (const char *)blob, size,
						   why);
	/* one it cannot parse shows as unknown ids */
	tep_parse_event(tep, (char *)blob, size, sys);
	return 0;
}

static int pd_tracing_data(struct pd *pd, unsigned char *data, size_t len,
			   uint64_t base)
{
	struct pd_cur c = { data, data + len, 0 };
	struct kmt_session *s = pd->s;
	int major = 0, minor = 0, long_size, ret;
	uint64_t n, i, k, nr, size, page_size;
	struct tep_handle *tep;
	const unsigned char *p;
	const char *version;
	unsigned char *blob;

	/* the formats events are already being decoded with stay */
	if (pd->have_tracing)
		return 0;
	pd->have_tracing = 1;
	p = cur_take(&c, KMT_TD_MAGIC_LEN);
	if (!p || memcmp(p, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN))
		return kmt_session_error(s, EINVAL,
			"'%s' is corrupt at byte %llu: its tracing data does not start with the tracing magic",
			pd->name, (unsigned long long)base);
	version = cur_str(&c);
	if (!version)
		goto short_data;
	if (sscanf(version, "%d.%d", &major, &minor) != 2)
		return kmt_session_error(s, ENOTSUP,
			"'%s': its tracing data has version \"%.16s\", which kmemtrace does not know",
			pd->name, version);
	p = cur_take(&c, 2);
	if (!p)
		goto short_data;
	c.big = p[0];
	long_size = p[1];
	if (cur_num(&c, 4, &page_size))
		goto short_data;

	tep = tep_alloc();
	if (!tep)
		return pd_nomem(pd);
	if (s->tep)
		tep_free(s->tep);
	s->tep = tep;		/* the session owns it from here */
	tep_set_file_bigendian(tep, c.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep,
		__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN :
							 TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)page_size);

	p = cur_take(&c, 12);
	if (!p || memcmp(p, "header_page", 12))
		goto corrupt;
	blob = cur_blob(&c, 8, &size);
	if (!blob)
		goto short_data;
	/* the page header's commit field is a kernel long: trust it */
	if (!tep_parse_header_page(tep, (char *)blob, size, long_size))
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	p = cur_take(&c, 13);
	if (!p || memcmp(p, "header_event", 13))
		goto corrupt;
	if (!cur_blob(&c, 8, &size))
		goto short_data;

	/* the ftrace formats, then the formats of each system */
	if (cur_num(&c, 4, &n))
		goto short_data;
	for (i = 0; i < n; i++) {
		blob = cur_blob(&c, 8, &size);
		if (!blob)
			goto short_data;
		ret = use_format(pd, tep, "ftrace", blob, size);
		if (ret)
			return ret;
	}
	if (cur_num(&c, 4, &n))
		goto short_data;
	for (i = 0; i < n; i++) {
		const char *sys = cur_str(&c);

		if (!sys || cur_num(&c, 4, &nr))
			goto short_data;
		for (k = 0; k < nr; k++) {
			blob = cur_blob(&c, 8, &size);
			if (!blob)
				goto short_data;
			ret = use_format(pd, tep, sys, blob, size);
			if (ret)
				return ret;
		}
	}

	/* kallsyms: newer perf writes none and keeps its own copy */
	blob = cur_blob(&c, 4, &size);
	if (!blob)
		goto short_data;
	if (size && kmt_symtab_load_kallsyms(&s->syms, (char *)blob, size) < 0)
		return pd_nomem(pd);
	/*
	 * printk formats: only trace_printk's events print with them, and
	 * libtraceevent reads past its buffer on a damaged one
	 */
	if (!cur_blob(&c, 4, &size))
		goto short_data;
	/*
	 * saved cmdlines: threads are named by perf's COMM records, and
	 * libtraceevent sorts its table again on every line it adds
	 */
	if ((major > 0 || minor >= 6) && !cur_blob(&c, 8, &size))
		goto short_data;
	return 0;

short_data:
	return kmt_session_error(s, EINVAL,
		"'%s' is corrupt at byte %llu: its tracing data (%zu bytes from byte %llu) is cut short",
		pd->name, (unsigned long long)(base + (c.p - data)), len,
		(unsigned long long)base);
corrupt:
	return kmt_session_error(s, EINVAL,
		"'%s' is corrupt at byte %llu: its tracing data has no page or event header",
		pd->name, (unsigned long long)(base + (c.p - data)));
}

/* ---- features ---- */

/* one build_id_event; notes the traced kernel's build id */
static void pd_build_id(struct pd *pd, const unsigned char *rec, size_t size)
{
	uint16_t misc = RD16(pd->swap, rec + 4);
	size_t idlen = 20;

	if (size <= 36 + 17 || (misc & MISC_CPUMODE_MASK) != MISC_KERNEL ||
	    pd->build_id_len)
		return;
	if (strncmp((const char *)rec + 36, "[kernel.kallsyms]", size - 36))
		return;
	if (misc & MISC_BUILD_ID_SIZE)
		idlen = rec[32] < 20 ? rec[32] : 20;
	memcpy(pd->build_id, rec + 12, idlen);
	pd->build_id_len = idlen;
}

/*
 * HEADER_NUMA_TOPOLOGY, the CPUs of each node: u32 nr, then per node u32
 * node id, u64 mem_total, u64 mem_free and a perf string (u32 length,
 * then the text, NUL-padded) of its CPU list.  Only a fact about the
 * traced machine: one that does not parse leaves no map at all (the NUMA
 * figure then says "not recorded"), never part of one.  -ENOMEM only.
 */
static int pd_numa_topology(struct pd *pd, const unsigned char *data,
			    size_t len)
{
	struct kmt_session *s = pd->s;
	size_t off = 4;
	uint32_t nr, i;
	int ret = 0;

	/* a second one (a pipe's feature record again) replaces the first */
	kmt_session_drop_nodes(s);
	nr = len >= 4 ? RD32(pd->swap, data) : 0;
	for (i = 0; i < nr && !ret; i++) {
		uint32_t node, n;

		if (len - off < 24) {
			ret = -EINVAL;
			break;
		}
		node = RD32(pd->swap, data + off);
		n = RD32(pd->swap, data + off + 20);
		off += 24;
		if (n > len - off || node > INT16_MAX) {
			ret = -EINVAL;
			break;
		}
		ret = kmt_session_set_node_cpus(s, (int)node,
						(const char *)data + off, n);
		off += n;
	}
	if (ret == -ENOMEM)
		return pd_nomem(pd);
	if (ret)
		kmt_session_drop_nodes(s);
	return 0;
}

/*
 * A feature other than the tracing data: what the traced machine was.
 * -ENOMEM only: a feature that does not parse is left out.
 */
static int pd_feature(struct pd *pd, uint64_t feat, const unsigned char *data,
		      size_t len)
{
	struct kmt_session *s = pd->s;
	size_t off, n;

	switch (feat) {
	case FEAT_NUMA_TOPOLOGY:
		return pd_numa_topology(pd, data, len);
	case FEAT_BUILD_ID:
		for (off = 0; off + 8 <= len; off += n) {
			n = RD16(pd->swap, data + off + 6);
			if (n < 8 || n > len - off)
				break;
			pd_build_id(pd, data + off, n);
		}
		break;
	case FEAT_OSRELEASE:
	case FEAT_HOSTNAME: {
		/* perf's string: a u32 length, then the text */
		char *dst = feat == FEAT_HOSTNAME ? s->hostname :
						    s->kernel_release;
		size_t max = feat == FEAT_HOSTNAME ? sizeof(s->hostname) :
						     sizeof(s->kernel_release);

		if (len < 4)
			break;
		n = RD32(pd->swap, data);
		if (n > len - 4)
			n = len - 4;
		n = strnlen((const char *)data + 4, n);
		if (n >= max)
			n = max - 1;
		memcpy(dst, data + 4, n);
		dst[n] = '\0';
		break;
	}
	case FEAT_NRCPUS:
		/* available (present) CPUs first, then online ones */
		if (len >= 4)
			s->nr_cpus = (int)RD32(pd->swap, data);
		break;
	case FEAT_COMPRESSED:
		/* version, type, level, ratio, mmap_len: u32 each */
		if (len >= 8)
			pd->comp_type = RD32(pd->swap, data + 4);
		break;
	case FEAT_CLOCK_DATA: {
		/*
		 * perf record -k/--clockid: u32 version (1), u32 clockid,
		 * then the wall clock and the sample clock read together,
		 * u64 ns each; the sample times are on that clock
		 */
		uint64_t wall, clk;

		if (len < 24 || RD32(pd->swap, data) != 1)
			break;
		wall = RD64(pd->swap, data + 8);
		clk = RD64(pd->swap, data + 16);
		if (!wall || wall > INT64_MAX || clk > INT64_MAX)
			break;
		s->has_wall = 1;
		s->wall_offset_ns = (int64_t)wall - (int64_t)clk;
		break;
	}
	}
	return 0;
}

static int pd_file_features(struct pd *pd, const unsigned char *bitmap,
			    uint64_t table)
{
	unsigned char *sec = NULL, *data;
	unsigned int bit, nr = 0, i = 0;
	int ret;

	for (bit = 0; bit < PD_FEAT_BITS; bit++)
		nr += bitmap[bit / 8] >> (bit % 8) & 1;
	if (!nr)
		return 0;
	ret = pd_load(pd, table, (uint64_t)nr * 16, "the feature table", &sec);
	if (ret)
		return ret;
	for (bit = 0; bit < PD_FEAT_BITS; bit++) {
		uint64_t off, len;

		if (!(bitmap[bit / 8] >> (bit % 8) & 1))
			continue;
		off = RD64(pd->swap, sec + 16 * i);
		len = RD64(pd->swap, sec + 16 * i + 8);
		i++;
		/* a cut file loses its last sections, used or not */
		if (!pd_inside(pd, off, len)) {
			ret = pd_truncated(pd, "a feature section", off + len);
			break;
		}
		if (bit != FEAT_TRACING_DATA && bit != FEAT_BUILD_ID &&
		    bit != FEAT_OSRELEASE && bit != FEAT_NRCPUS &&
		    bit != FEAT_HOSTNAME && bit != FEAT_CLOCK_DATA &&
		    bit != FEAT_COMPRESSED && bit != FEAT_NUMA_TOPOLOGY)
			continue;
		ret = pd_load(pd, off, len, "a feature section", &data);
		if (ret)
			break;
		if (bit == FEAT_TRACING_DATA)
			ret = pd_tracing_data(pd, data, len, off);
		else
			ret = pd_feature(pd, bit, data, len);
		free(data);
		if (ret)
			break;
	}
	free(sec);
	return ret;
}

/* ---- kernel symbols ---- */

/*
 * perf no longer stores kallsyms in the recording: it keeps a copy in
 * its build-id cache (~/.debug/[kernel.kallsyms]/<build id>/kallsyms)
 * and symbolises with that.  Do the same, and fall back to this
 * machine's /proc/kallsyms when it runs the traced kernel.  Addresses
 * are moved by the KASLR offset the kernel map record shows.
 */

/* what is left of fd, into memory: 0 or -ENOMEM */
static int read_fd(int fd, char **out, size_t *outlen)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len + 65536 > alloc &&
		    KMT_ARRAY_GROW(buf, len + 65536, alloc)) {
			free(buf);
			return -ENOMEM;
		}
		n = read(fd, buf + len, alloc - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static int pd_read_text(const char *path, char **out, size_t *outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = read_fd(fd, out, outlen);
	close(fd);
	return ret;
}

/* the build id of the running kernel from its ELF notes */
static size_t running_build_id(unsigned char *id)
{
	size_t len, off = 0, n = 0;
	char *notes;

	if (pd_read_text("/sys/kernel/notes", &notes, &len))
		return 0;
	while (off + 12 <= len) {
		uint32_t namesz = get32((unsigned char *)notes + off);
		uint32_t descsz = get32((unsigned char *)notes + off + 4);
		uint32_t type = get32((unsigned char *)notes + off + 8);
		size_t name = off + 12;
		size_t desc = name + ((namesz + 3) & ~3U);

		if (desc > len || descsz > len - desc)
			break;
		if (type == 3 && namesz == 4 && !memcmp(notes + name, "GNU", 4)) {
			n = descsz < 20 ? descsz : 20;
			memcpy(id, notes + desc, n);
			break;
		}
		off = desc + ((descsz + 3) & ~3U);
	}
	free(notes);
	return n;
}

/*
 * The text of path, mapped (*mapped set) when it is a regular file: the
 * build-id cache's kallsyms is 8 MB, which read would copy into memory
 * before the first event; /proc/kallsyms, which cannot be mapped, is
 * read.  0, or -errno.
 */
static int pd_open_text(const char *path, char **out, size_t *outlen,
			int *mapped)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	struct stat st;
	void *m = MAP_FAILED;

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size == (size_t)st.st_size)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	*mapped = m != MAP_FAILED;
	if (*mapped) {
		*out = m;
		*outlen = (size_t)st.st_size;
	} else {
		ret = read_fd(fd, out, outlen);
	}
	close(fd);
	return ret;
}

/* loads a kallsyms file unless its addresses are hidden */
static int pd_load_kallsyms(struct pd *pd, const char *path)
{
	const char *p;
	size_t len;
	char *buf;
	int n, hidden, mapped;

	if (pd_open_text(path, &buf, &len, &mapped))
		return 0;
	/* kptr_restrict shows every address as 0 */
	p = memmem(buf, len, " T _text\n", 9);
	hidden = !p || (p - buf >= 16 &&
			!memcmp(p - 16, "0000000000000000", 16));
	n = hidden ? 0 : kmt_symtab_load_kallsyms(&pd->s->syms, buf, len);
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	if (hidden)
		return 0;
	if (n < 0)
		return pd_nomem(pd);
	pd->host_syms = n > 0;
	return 0;
}

/* moves host symbols by the offset between recording and kallsyms */
static void pd_relocate(struct pd *pd)
{
	struct kmt_symtab *t = &pd->s->syms;
	uint64_t delta = 0;
	size_t i;
	int found = 0;

	if (!pd->host_syms || pd->relocated || !pd->kmap_sym[0])
		return;
	pd->relocated = 1;
	for (i = 0; i < t->nr; i++) {
		if (!t->syms[i].module &&
		    !strcmp(kmt_symtab_name(t, &t->syms[i]), pd->kmap_sym)) {
			delta = pd->kmap_addr - t->syms[i].addr;
			found = 1;
			break;
		}
	}
	if (!found || !delta)
		return;
	for (i = 0; i < t->nr; i++)
		t->syms[i].addr += delta;
}

static int pd_host_kallsyms(struct pd *pd)
{
	struct kmt_session *s = pd->s;
	unsigned char id[20];
	char path[PATH_MAX], hex[41];
	const char *dir = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");
	struct utsname uts;
	size_t i, n;
	int ret;

	if (!kmt_symtab_empty(&s->syms))
		return 0;
	if (pd->build_id_len) {
		for (i = 0; i < pd->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", pd->build_id[i]);
		if (dir && *dir)
			snprintf(path, sizeof(path),
				 "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex);
		else
			snprintf(path, sizeof(path),
				 "%s/.debug/[kernel.kallsyms]/%s/kallsyms",
				 home ? home : "", hex);
		ret = pd_load_kallsyms(pd, path);
		if (ret || pd->host_syms)
			goto out;
		n = running_build_id(id);
		if (n != pd->build_id_len || memcmp(id, pd->build_id, n))
			return 0;
	} else if (!s->kernel_release[0] || uname(&uts) ||
		   strcmp(uts.release, s->kernel_release)) {
		return 0;
	} else {
		pd->by_release = 1;
	}
	ret = pd_load_kallsyms(pd, "/proc/kallsyms");
out:
	pd_relocate(pd);
	return ret;
}

/*
 * At the end of the pipe form: symbols taken from this machine by kernel
 * release alone are dropped if the build id, now known, says the traced
 * kernel was another build; then the build-id cache is asked.
 */
static int pd_pipe_kallsyms_again(struct pd *pd)
{
	struct kmt_session *s = pd->s;
	unsigned char id[20];
	size_t n;

	if (pd->by_release && pd->build_id_len) {
		n = running_build_id(id);
		if (n == pd->build_id_len && !memcmp(id, pd->build_id, n))
			return 0;
		kmt_symtab_free(&s->syms);
		kmt_symtab_init(&s->syms, &s->strs);
		pd->host_syms = 0;
		pd->by_release = 0;
		pd->relocated = 0;
	}
	return pd_host_kallsyms(pd);
}

/* the kernel map, "[kernel.kallsyms]_text" at the address of _text */
static void pd_mmap(struct pd *pd, const unsigned char *body, size_t len)
{
	static const char prefix[] = "[kernel.kallsyms]";
	const char *file;
	size_t n;

	if (len < 32 || RD32(pd->swap, body) != UINT32_MAX || pd->kmap_sym[0])
		return;
	file = (const char *)body + 32;
	n = strnlen(file, len - 32);
	if (n <= sizeof(prefix) - 1 || strncmp(file, prefix, sizeof(prefix) - 1))
		return;
	file += sizeof(prefix) - 1;
	n -= sizeof(prefix) - 1;
	if (n >= sizeof(pd->kmap_sym))
		return;
	memcpy(pd->kmap_sym, file, n);
	pd->kmap_sym[n] = '\0';
	pd->kmap_addr = RD64(pd->swap, body + 24);	/* pgoff */
	pd_relocate(pd);
}

/* ---- attrs ---- */

static int pd_add_attr(struct pd *pd, const unsigned char *attr,
		       const unsigned char *ids, uint64_t nr_ids)
{
	struct pd_attr *a;
	uint64_t i;

	if (KMT_ARRAY_GROW(pd->attrs, pd->nr_attrs + 1, pd->attrs_alloc))
		return pd_nomem(pd);
	a = &pd->attrs[pd->nr_attrs];
	a->type = RD32(pd->swap, attr + ATTR_TYPE);
	a->sample_type = RD64(pd->swap, attr + ATTR_SAMPLE_TYPE);
	a->read_format = RD64(pd->swap, attr + ATTR_READ_FORMAT);
	kmt_perfdata_layout_init(&a->layout, a->sample_type, a->read_format);
	a->layout.swap = (uint8_t)pd->swap;
	if (a->read_format & KMT_PERF_FORMAT_LOST)
		pd->format_lost = 1;
	if (a->type == PERF_TYPE_TRACEPOINT &&
	    (a->sample_type & KMT_PERF_SAMPLE_CALLCHAIN))
		pd->s->has_stacks = 1;
	for (i = 0; i < nr_ids; i++) {
		uint32_t *slot = kmt_hash_u32_put(&pd->ids,
						  RD64(pd->swap, ids + 8 * i),
						  NULL);

		if (!slot)
			return pd_nomem(pd);
		*slot = (uint32_t)pd->nr_attrs;
	}
	pd->nr_attrs++;
	pd->layout = PD_LAYOUT_UNKNOWN;
	return 0;
}

/* the u64 index of the sample id in the sample body, -1 if none */
static int id_position(uint64_t st)
{
	int pos = 0;

	if (st & KMT_PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & KMT_PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & KMT_PERF_SAMPLE_IP);
	pos += !!(st & KMT_PERF_SAMPLE_TID);
	pos += !!(st & KMT_PERF_SAMPLE_TIME);
	pos += !!(st & KMT_PERF_SAMPLE_ADDR);
	return pos;
}

static int pd_layout(struct pd *pd)
{
	const struct pd_attr *a = pd->attrs;
	size_t i;
	int same = 1, pos;

	if (!pd->nr_attrs)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' is corrupt: it has samples but no event attributes",
			pd->name);
	/*
	 * one layout serves all only where the events are of one kind too:
	 * simpleperf lays its cycles samples out as its tracepoints', RAW
	 * included, and only the id tells them apart
	 */
	for (i = 1; i < pd->nr_attrs; i++) {
		if (a[i].sample_type != a[0].sample_type ||
		    (a[i].type == PERF_TYPE_TRACEPOINT) !=
		    (a[0].type == PERF_TYPE_TRACEPOINT) ||
		    ((a[0].sample_type & KMT_PERF_SAMPLE_READ) &&
		     a[i].read_format != a[0].read_format))
			same = 0;
	}
	if (same) {
		pd->layout = PD_LAYOUT_ONE;
		return 0;
	}
	pos = id_position(a[0].sample_type);
	for (i = 1; i < pd->nr_attrs && pos >= 0; i++) {
		if (id_position(a[i].sample_type) != pos)
			pos = -1;
	}
	if (pos < 0)
		return kmt_session_error(pd->s, EINVAL,
			"'%s': its events lay samples out differently and carry no common sample id",
			pd->name);
	pd->layout = PD_LAYOUT_ID;
	pd->id_pos = (unsigned int)pos;
	return 0;
}

static int pd_file_attrs(struct pd *pd, uint64_t off, uint64_t size,
			 uint64_t attr_size)
{
	unsigned char *sec, *ids;
	uint64_t i, nr;
	int ret = 0;

	if (attr_size < PD_ATTR_SIZE_VER0 + 16)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' is corrupt: its attr size %llu is too small",
			pd->name, (unsigned long long)attr_size);
	nr = size / attr_size;
	ret = pd_load(pd, off, size, "the attr section", &sec);
	if (ret)
		return ret;
	for (i = 0; i < nr && !ret; i++) {
		unsigned char *attr = sec + i * attr_size;
		uint64_t asize = RD32(pd->swap, attr + ATTR_SIZE), ids_off, ids_len;

		if (!asize)
			asize = PD_ATTR_SIZE_VER0;
		if (asize < PD_ATTR_SIZE_VER0 || asize + 16 > attr_size) {
			ret = kmt_session_error(pd->s, EINVAL,
				"'%s' is corrupt at byte %llu: an attr of %llu bytes does not fit its %llu-byte slot",
				pd->name, (unsigned long long)(off + i * attr_size),
				(unsigned long long)asize,
				(unsigned long long)attr_size);
			break;
		}
		ids_off = RD64(pd->swap, attr + asize);
		ids_len = RD64(pd->swap, attr + asize + 8);
		ret = pd_load(pd, ids_off, ids_len, "an attr's id list", &ids);
		if (ret)
			break;
		ret = pd_add_attr(pd, attr, ids, ids_len / 8);
		free(ids);
	}
	free(sec);
	return ret;
}

/* ---- the record stream ---- */

/* pd_need when the bytes are not in the window: reads them into it */
static int pd_need_read(struct pd *pd, size_t n, const unsigned char **p)
{
	uint64_t at = pd->cur;

	pd->off = at;
	pd->len = 0;
	while (pd->len < n) {
		size_t want = PD_BUF_SIZE - pd->len;
		ssize_t r;

		if (want > pd->end - at - pd->len)
			want = pd->end - at - pd->len;
		r = pread(pd->fd, pd->win + pd->len, want,
			  (off_t)(at + pd->len));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 1;
		pd->len += r;
	}
	*p = pd->win;
	return 0;
}

/*
 * Points *p at n bytes from offset cur.  Returns 0, 1 when the records
 * end first, or -errno.  Twice a record: the mapped and windowed cases
 * stay inline.
 */
static inline int pd_need(struct pd *pd, size_t n, const unsigned char **p)
{
	uint64_t at = pd->cur;

	if (at > pd->end || n > pd->end - at)
		return 1;
	if (pd->map) {
		*p = kmt_mapview_at(&pd->view, at);
		return 0;
	}
	if (at >= pd->off && at - pd->off + n <= pd->len) {
		*p = pd->win + (at - pd->off);
		return 0;
	}
	return pd_need_read(pd, n, p);
}

/* the stack id of the kernel part of a sample's call chain, 0 if none */
static int pd_intern_chain(struct pd *pd, const unsigned char *ips,
			   uint64_t nr, uint32_t *id)
{
	const struct kmt_stack *st;
	struct pd_stack_slot *slot;
	uint64_t i, start, h, h2;
	size_t n;

	*id = 0;
	n = kmt_perfdata_kernel_chain(ips, nr, &start);
	if (!n)
		return 0;
	ips += 8 * start;
	/*
	 * A quick hash, two lanes to halve the multiply chain; a hit is
	 * confirmed by comparing the whole chain.
	 */
	h = n;
	h2 = ~(uint64_t)n;
	for (i = 0; i + 1 < n; i += 2) {
		h = (h ^ get64(ips + 8 * i)) * 0x9e3779b97f4a7c15ULL;
		h2 = (h2 ^ get64(ips + 8 * i + 8)) * 0xc2b2ae3d27d4eb4fULL;
	}
	if (i < n)
		h = (h ^ get64(ips + 8 * i)) * 0x9e3779b97f4a7c15ULL;
	h ^= h2 ^ h >> 29;
	slot = &pd->stack_cache[h % PD_STACK_CACHE];
	if (slot->id && slot->hash == h) {
		st = kmt_stacks_get(&pd->s->stacks, slot->id);
		if (st && st->nr == n && !memcmp(st->ips, ips, 8 * n)) {
			*id = slot->id;
			return 0;
		}
	}
	if (n > pd->chain_alloc &&
	    KMT_ARRAY_GROW(pd->chain, n, pd->chain_alloc))
		return -ENOMEM;
	memcpy(pd->chain, ips, 8 * n);
	slot->hash = h;
	slot->id = kmt_stacks_intern(&pd->s->stacks, pd->chain, n);
	*id = slot->id;
	return slot->id ? 0 : -ENOMEM;
}

static int pd_start_decoding(struct pd *pd)
{
	int ret;

	/*
	 * The pipe form names the kernel's build id only at its end: go by
	 * its release until then (see pd_pipe_kallsyms_again).  A file whose
	 * formats came in a record (simpleperf's) has its symbols looked up
	 * now, as the header would have had them.
	 */
	if (pd->s->tep && (pd->pipe || !pd->syms_tried)) {
		ret = pd_host_kallsyms(pd);
		if (ret)
			return ret;
	}

	if (!pd->s->tep)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' has no tracing data (event formats): it was not recorded from tracepoints; record with 'perf kmem record'",
			pd->name);
	ret = kmt_tp_decoder_init(&pd->dec, pd->s->tep, pd->s);
	pd->have_dec = 1;
	if (ret)
		return kmt_session_error(pd->s, ret,
			"cannot prepare the event formats of '%s': %s",
			pd->name, strerror(-ret));
	return 0;
}

/*
 * A file of samples of other kinds only (perf record -- cmd: cycles) is
 * whole but holds no tracepoint: its samples are other events, and no
 * formats are needed to read it.
 */
static int pd_has_tracepoints(const struct pd *pd)
{
	size_t i;

	for (i = 0; i < pd->nr_attrs; i++) {
		if (pd->attrs[i].type == PERF_TYPE_TRACEPOINT)
			return 1;
	}
	return 0;
}

static int pd_sample(struct pd *pd, const unsigned char *body, size_t len,
		     uint64_t at)
{
	struct kmt_session *s = pd->s;
	const struct pd_attr *attr;
	struct kmt_perfdata_sample smp;
	struct kmt_event *ev;
	int32_t cpu;
	int ret;

	if (!pd->have_dec) {
		if (!s->tep && !pd_has_tracepoints(pd)) {
			s->nr_other++;
			return 0;
		}
		ret = pd_start_decoding(pd);
		if (ret)
			return ret;
	}
	if (pd->layout == PD_LAYOUT_UNKNOWN) {
		ret = pd_layout(pd);
		if (ret)
			return ret;
	}
	if (pd->layout == PD_LAYOUT_ONE) {
		attr = pd->attrs;
	} else {
		struct pd_id_slot *slot;
		const uint32_t *idx;
		uint64_t id;

		if (len < 8 * (pd->id_pos + 1)) {
			kmt_session_anomaly(s, KMT_ANOM_BAD_RECORD, KMT_AT_BYTE,
					    at, "a sample too short for its id");
			return 0;
		}
		id = RD64(pd->swap, body + 8 * pd->id_pos);
		slot = &pd->id_cache[id % PD_ID_CACHE];
		if (!slot->attr || slot->id != id) {
			idx = kmt_hash_u32_get(&pd->ids, id);
			if (!idx) {
				kmt_session_anomaly(s, KMT_ANOM_UNKNOWN_ID,
						    KMT_AT_BYTE, at,
						    "a sample of unknown id %llu",
						    (unsigned long long)id);
				return 0;
			}
			slot->id = id;
			slot->attr = *idx + 1;
		}
		attr = &pd->attrs[slot->attr - 1];
	}
	if (kmt_perfdata_parse_laid(body, len, &attr->layout, &smp)) {
		kmt_session_anomaly(s, KMT_ANOM_BAD_RECORD, KMT_AT_BYTE, at,
				    "a sample shorter than its fields");
		return 0;
	}
	/*
	 * raw data of a sample not of a tracepoint is not an event:
	 * simpleperf's cycles samples carry an empty one
	 */
	if (!smp.raw || attr->type != PERF_TYPE_TRACEPOINT) {
		s->nr_other++;
		return 0;
	}
	cpu = attr->sample_type & KMT_PERF_SAMPLE_CPU ? (int32_t)smp.cpu : -1;
	ev = kmt_perfdata_queue_slot(&pd->q, cpu);
	if (!ev)
		return pd_nomem(pd);
	ret = kmt_tp_decode(&pd->dec, s, smp.raw, smp.raw_size, ev);
	if (ret < 0) {
		int id = kmt_tp_event_id(&pd->dec, smp.raw, smp.raw_size);

		if (id >= 0 && kmt_session_unusable_record(s, id))
			;	/* its format was left out, and said so */
		else if (id >= 0 &&
			 !kmt_tp_formats_get(&pd->dec.by_id, (uint32_t)id))
			kmt_session_anomaly(s, KMT_ANOM_UNKNOWN_ID, KMT_AT_BYTE,
					    at, "an event of unknown id %d", id);
		else
			kmt_session_anomaly(s, KMT_ANOM_BAD_RECORD, KMT_AT_BYTE,
					    at, "a kmem event that does not decode");
		return 0;
	}
	if (ret == 0) {
		s->nr_other++;
		return 0;
	}
	ev->ts = smp.time;
	ev->cpu = cpu;
	if (smp.nr_ips && !(s->no_slab_stacks && kmt_ev_is_slab(ev->type))) {
		if (pd->swap) {
			uint64_t i;

			if (smp.nr_ips > pd->ips_alloc &&
			    KMT_ARRAY_GROW(pd->ips, smp.nr_ips, pd->ips_alloc))
				return pd_nomem(pd);
			for (i = 0; i < smp.nr_ips; i++)
				pd->ips[i] = bswap_64(get64(smp.ips + 8 * i));
			smp.ips = (const unsigned char *)pd->ips;
		}
		if (pd_intern_chain(pd, smp.ips, smp.nr_ips, &ev->stack))
			return pd_nomem(pd);
	}
	kmt_perfdata_queue_commit(&pd->q);
	return 0;
}

/* pipe mode: the tracing data follows its record, size bytes of it */
static int pd_pipe_tracing_data(struct pd *pd, const unsigned char *body,
				size_t len, uint64_t at, uint64_t rec_size)
{
	uint64_t off = at + rec_size, size;
	unsigned char *data;
	int ret;

	if (len < 4)
		return 0;
	size = RD32(pd->swap, body);
	/*
	 * simpleperf writes the tracing data inside the record (in file
	 * mode too, where perf has a feature section for it); perf after it
	 */
	if (size && len - 4 >= size) {
		data = malloc(size);
		if (!data)
			return pd_nomem(pd);
		memcpy(data, body + 4, size);
		ret = pd_tracing_data(pd, data, size, at + 12);
		free(data);
		return ret;
	}
	ret = pd_load(pd, off, size, "the tracing data", &data);
	if (ret)
		return ret;
	ret = pd_tracing_data(pd, data, size, off);
	free(data);
	pd->cur += size;
	return ret;
}

static int pd_compressed(struct pd *pd, const unsigned char *data,
			 size_t len, uint64_t at);

static int pd_record(struct pd *pd, uint32_t type, const unsigned char *rec,
		     size_t size, uint64_t at)
{
	const unsigned char *body = rec + 8;
	struct kmt_session *s = pd->s;
	size_t len = size - 8;
	uint64_t nr_ids, asize;
	size_t n;

	switch (type) {
	case REC_SAMPLE:
		return pd_sample(pd, body, len, at);
	case REC_FINISHED_ROUND:
		return kmt_perfdata_queue_round(&pd->q, s);
	case REC_COMM:
		if (len < 8)
			break;
		n = strnlen((const char *)body + 8, len - 8);
		if (kmt_session_set_comm(s, (int32_t)RD32(pd->swap, body + 4),
					 (const char *)body + 8, n) ||
		    kmt_session_set_tgid(s, (int32_t)RD32(pd->swap, body + 4),
					 (int32_t)RD32(pd->swap, body)))
			return pd_nomem(pd);
		break;
	case REC_FORK:
		if (len >= 12 &&
		    kmt_session_set_tgid(s, (int32_t)RD32(pd->swap, body + 8),
					 (int32_t)RD32(pd->swap, body)))
			return pd_nomem(pd);
		break;
	case REC_LOST:
		if (len >= 16) {
			pd->lost += RD64(pd->swap, body + 8);
			s->nr_lost_records++;
		}
		break;
	case REC_LOST_SAMPLES:
		/* samples a BPF filter dropped were not lost */
		if (len >= 8 &&
		    !(RD16(pd->swap, rec + 4) & MISC_LOST_SAMPLES_BPF)) {
			pd->lost_samples += RD64(pd->swap, body);
			s->nr_lost_records++;
		}
		break;
	case REC_MMAP:
		pd_mmap(pd, body, len);
		break;
	case REC_HEADER_ATTR:
		if (len < PD_ATTR_SIZE_VER0)
			goto bad;
		asize = RD32(pd->swap, body + ATTR_SIZE);
		if (!asize)
			asize = PD_ATTR_SIZE_VER0;
		if (asize < PD_ATTR_SIZE_VER0 || asize > len)
			goto bad;
		nr_ids = (len - asize) / 8;
		return pd_add_attr(pd, body, body + asize, nr_ids);
	case REC_HEADER_TRACING_DATA:
		return pd_pipe_tracing_data(pd, body, len, at, size);
	case REC_HEADER_FEATURE:
		if (len < 8)
			goto bad;
		return pd_feature(pd, RD64(pd->swap, body), body + 8,
				  len - 8);
	case REC_HEADER_BUILD_ID:
		pd_build_id(pd, rec, size);
		break;
	case REC_AUXTRACE:
		/* hardware trace data follows the record */
		if (len >= 8)
			pd->cur += RD64(pd->swap, body) < pd->end ?
				   RD64(pd->swap, body) : pd->end;
		break;
	case REC_COMPRESSED:
		return pd_compressed(pd, body, len, at);
	case REC_COMPRESSED2:
		/* the data's size, then the data, padded to 8 bytes */
		if (len < 8 || RD64(pd->swap, body) > len - 8)
			goto bad;
		return pd_compressed(pd, body + 8,
				     (size_t)RD64(pd->swap, body), at);
	}
	return 0;
bad:
	return kmt_session_error(s, EINVAL,
		"'%s' is corrupt at byte %llu: a record of type %u is too short (%zu bytes)",
		pd->name, (unsigned long long)at, type, size);
}

/*
 * The records uncompressed so far, each whole one read as if it stood in
 * the file at the compressed record it came from; one cut at the end
 * waits at the start of zbuf for the rest.
 */
static int pd_uncompressed(struct pd *pd, uint64_t at)
{
	size_t pos = 0;
	int ret;

	while (pd->zlen - pos >= 8) {
		const unsigned char *rec = pd->zbuf + pos;
		uint32_t type = RD32(pd->swap, rec);
		uint16_t size = RD16(pd->swap, rec + 6);

		if (size < 8)
			return kmt_session_error(pd->s, EINVAL,
				"'%s' is corrupt at byte %llu: a record uncompressed from there claims %u bytes, less than its own header",
				pd->name, (unsigned long long)at, size);
		if (size > pd->zlen - pos)
			break;
		/* records that point into the file cannot come from the stream */
		if (type == REC_HEADER_TRACING_DATA || type == REC_AUXTRACE ||
		    type == REC_COMPRESSED || type == REC_COMPRESSED2) {
			kmt_session_anomaly(pd->s, KMT_ANOM_BAD_RECORD,
					    KMT_AT_BYTE, at,
					    "a record of type %u in compressed data",
					    type);
		} else {
			ret = pd_record(pd, type, rec, size, at);
			if (ret)
				return ret;
		}
		pos += size;
	}
	pd->zlen -= pos;
	memmove(pd->zbuf, pd->zbuf + pos, pd->zlen);
	pd->zat = at;
	return 0;
}

/* one COMPRESSED record: its part of the zstd stream, uncompressed and read */
static int pd_compressed(struct pd *pd, const unsigned char *data,
			 size_t len, uint64_t at)
{
	ZSTD_inBuffer in = { data, len, 0 };
	int ret;

	if (pd->comp_type && pd->comp_type != PD_COMP_ZSTD)
		return kmt_session_error(pd->s, ENOTSUP,
			"'%s' is compressed with method %u, which kmemtrace does not know (zstd is 1)",
			pd->name, pd->comp_type);
	if (!pd->z) {
		pd->z = ZSTD_createDStream();
		pd->zbuf = malloc(PD_ZBUF_SIZE);
		if (!pd->z || !pd->zbuf)
			return pd_nomem(pd);
	}
	for (;;) {
		ZSTD_outBuffer out = { pd->zbuf, PD_ZBUF_SIZE, pd->zlen };
		size_t r = ZSTD_decompressStream(pd->z, &out, &in);

		if (ZSTD_isError(r))
			return kmt_session_error(pd->s, EINVAL,
				"'%s' is corrupt at byte %llu: its compressed data does not uncompress (zstd: %s)",
				pd->name, (unsigned long long)at,
				ZSTD_getErrorName(r));
		pd->zlen = out.pos;
		ret = pd_uncompressed(pd, at);
		if (ret)
			return ret;
		/* output room left over: zstd holds nothing more for now */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

static int pd_records(struct pd *pd)
{
	while (pd->cur < pd->end) {
		uint64_t at = pd->cur;
		const unsigned char *rec;
		uint32_t type;
		uint16_t size;
		int ret;

		ret = pd_need(pd, 8, &rec);
		if (ret < 0)
			goto io;
		if (ret > 0)
			goto cut;
		type = RD32(pd->swap, rec);
		size = RD16(pd->swap, rec + 6);
		if (size < 8)
			return kmt_session_error(pd->s, EINVAL,
				"'%s' is corrupt at byte %llu: a record claims %u bytes, less than its own header",
				pd->name, (unsigned long long)at, size);
		ret = pd_need(pd, size, &rec);
		if (ret < 0)
			goto io;
		if (ret > 0)
			goto cut;
		pd->cur += size;
		ret = pd_record(pd, type, rec, size, at);
		if (ret)
			return ret;
		if (pd->map)
			kmt_mapview_pass(&pd->view, pd->cur);
		continue;
cut:
		if (pd->pipe)
			return kmt_session_error(pd->s, EINVAL,
				"'%s' is truncated at byte %llu: the record at byte %llu is cut short",
				pd->name, (unsigned long long)pd->size,
				(unsigned long long)at);
		return kmt_session_error(pd->s, EINVAL,
			"'%s' is corrupt at byte %llu: the record there runs past the end of the data section at byte %llu",
			pd->name, (unsigned long long)at,
			(unsigned long long)pd->end);
io:
		return kmt_session_error(pd->s, -ret, "cannot read '%s': %s",
					 pd->name, strerror(-ret));
	}
	return 0;
}

/* ---- the file header ---- */

static int pd_header(struct pd *pd)
{
	unsigned char h[PD_FILE_HEADER];
	uint64_t hsize, attr_size, attrs_off, attrs_size, data_off, data_size;
	static const unsigned char no_features[PD_FEAT_BITS / 8];
	size_t n = pd->size < sizeof(h) ? pd->size : sizeof(h);
	int ret;

	memset(h, 0, sizeof(h));
	ret = pd_pread(pd, h, n, 0);
	if (ret)
		return ret;
	if (n < PD_PIPE_HEADER)
		return pd_truncated(pd, "the header", PD_PIPE_HEADER);
	pd->swap = get64(h) == bswap_64(PD_MAGIC);
	if (!memcmp(h, "PERFFILE", 8))
		return kmt_session_error(pd->s, ENOTSUP,
			"'%s' is a perf.data file of the first format (\"PERFFILE\"), which kmemtrace cannot read; 'perf inject -i OLD -o NEW' rewrites it",
			pd->name);
	if (RD64(pd->swap, h) != PD_MAGIC)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' is not a perf.data file", pd->name);
	if (pd->swap)
		pd->s->format = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				"perf.data, big-endian" :
				"perf.data, little-endian";
	hsize = RD64(pd->swap, h + 8);
	if (hsize == PD_PIPE_HEADER) {
		pd->pipe = 1;
		pd->cur = PD_PIPE_HEADER;
		pd->end = pd->size;
		return 0;
	}
	if (hsize != PD_FILE_HEADER && hsize != PD_FILE_HEADER_OLD)
		return kmt_session_error(pd->s, ENOTSUP,
			"'%s' has a perf.data header%s of %llu bytes, a layout kmemtrace does not know",
			pd->name, pd->swap ? " in the other byte order" : "",
			(unsigned long long)hsize);
	if (pd->size < hsize)
		return pd_truncated(pd, "the header", hsize);
	attr_size = RD64(pd->swap, h + 16);
	attrs_off = RD64(pd->swap, h + 24);
	attrs_size = RD64(pd->swap, h + 32);
	data_off = RD64(pd->swap, h + 40);
	data_size = RD64(pd->swap, h + 48);
	/* the feature bitmap is four u64 words */
	if (pd->swap) {
		int i;

		for (i = 72; i < PD_FILE_HEADER; i += 8) {
			uint64_t w = bswap_64(get64(h + i));

			memcpy(h + i, &w, 8);
		}
	}
	if (!attr_size || !data_size)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' was not finished by perf record (its %s size is 0)",
			pd->name, attr_size ? "data" : "attr");
	if (data_off < hsize || data_off > UINT64_MAX - data_size)
		return kmt_session_error(pd->s, EINVAL,
			"'%s' is corrupt: its data section at byte %llu overlaps the header",
			pd->name, (unsigned long long)data_off);
	/* a cut file loses the end of its data: say so before anything */
	if (!pd_inside(pd, data_off, data_size))
		return pd_truncated(pd, "its data section",
				    data_off + data_size);
	pd->cur = data_off;
	pd->end = data_off + data_size;
	ret = pd_file_attrs(pd, attrs_off, attrs_size, attr_size);
	if (ret)
		return ret;
	return pd_file_features(pd, hsize == PD_FILE_HEADER ? h + 72 :
				    no_features, pd->end);
}

static int probe(const unsigned char *head, size_t len)
{
	uint64_t magic;

	if (len < 8)
		return 0;
	magic = get64(head);
	/* the other byte order and the first version too, to say why not */
	return magic == PD_MAGIC || magic == bswap_64(PD_MAGIC) ||
	       !memcmp(head, "PERFFILE", 8);
}

static int read_all(struct kmt_session *s, struct kmt_input *in)
{
	struct stat st;
	struct pd pd;
	int ret;

	memset(&pd, 0, sizeof(pd));
	pd.s = s;
	pd.name = in->display;
	pd.fd = in->fd;
	pd.size = in->size >= 0 ? (uint64_t)in->size : 0;
	if (in->size < 0 && fstat(in->fd, &st) == 0)
		pd.size = st.st_size;
	kmt_hash_u32_init(&pd.ids);
	kmt_perfdata_queue_init(&pd.q);
	s->format = "perf.data";

	ret = pd_header(&pd);
	if (ret)
		goto out;
	/*
	 * a file without the tracing data feature may still hold it as a
	 * record, first in its data (simpleperf's): the first sample says
	 * when it does not
	 */
	if (!pd.pipe && s->tep) {
		ret = pd_host_kallsyms(&pd);
		if (ret)
			goto out;
		pd.syms_tried = 1;
	}
	pd.map = pd.cur < pd.end &&
		 !kmt_mapview_open(&pd.view, pd.fd, pd.cur, pd.end);
	if (!pd.map)
		pd.win = malloc(PD_BUF_SIZE);
	pd.stack_cache = calloc(PD_STACK_CACHE, sizeof(*pd.stack_cache));
	if (!pd.stack_cache || (!pd.map && !pd.win)) {
		ret = pd_nomem(&pd);
		goto out;
	}
	ret = pd_records(&pd);
	/* the stream ended inside a record: perf stopped in the middle */
	if (!ret && pd.zlen)
		kmt_session_anomaly(s, KMT_ANOM_BAD_RECORD, KMT_AT_BYTE, pd.zat,
				    "a record cut at the end of the compressed data");
	if (!ret)
		ret = kmt_perfdata_queue_flush(&pd.q, s);
	if (!ret && !pd.have_dec && !s->tep && pd_has_tracepoints(&pd))
		ret = pd_start_decoding(&pd);	/* the message */
	if (!ret && pd.pipe)
		ret = pd_pipe_kallsyms_again(&pd);
	s->anomalies[KMT_ANOM_OUT_OF_ORDER] += pd.q.nr_late;
	/*
	 * The kernel reports a full ring buffer with LOST records, lazily:
	 * the last losses may never get one.  Events that count their own
	 * losses (read_format LOST) also have them, and perf writes those
	 * totals as LOST_SAMPLES records at the end: the same samples twice.
	 */
	if (pd.format_lost)
		s->nr_lost += pd.lost > pd.lost_samples ? pd.lost :
							  pd.lost_samples;
	else
		s->nr_lost += pd.lost + pd.lost_samples;
out:
	if (pd.have_dec)
		kmt_tp_decoder_free(&pd.dec);
	kmt_perfdata_queue_free(&pd.q);
	kmt_hash_u32_free(&pd.ids);
	free(pd.attrs);
	free(pd.chain);
	free(pd.ips);
	free(pd.stack_cache);
	free(pd.zbuf);
	ZSTD_freeDStream(pd.z);
	if (pd.map)
		kmt_mapview_close(&pd.view);
	else
		free(pd.win);
	return ret;
}

const struct kmt_source_ops kmt_source_perfdata = {
	.name = "perfdata",
	.probe = probe,
	.read = read_all,
	.needs_seek = 1,
};
