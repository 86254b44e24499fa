// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader: sample parsing, call chains and the round
 * ordering on their own, then whole files built here byte by byte, where
 * every answer is known: LOST counts, COMM names, ordering across
 * rounds, unknown ids, truncation and corruption at exact offsets, the
 * pipe form.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "event/session.h"
#include "source/mapview.h"
#include "source/perfdata.h"
#include "source/source.h"

/* ---- a byte buffer to build records and files in ---- */

struct buf {
	unsigned char *p;
	size_t len, alloc;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->alloc) {
		b->alloc = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->alloc);
		if (!b->p)
			abort();
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void puts0(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void set64(struct buf *b, size_t off, uint64_t v)
{
	memcpy(b->p + off, &v, 8);
}

static void align8(struct buf *b)
{
	while (b->len % 8)
		put(b, NULL, 1);
}

static size_t rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t start = b->len;

	put32(b, type);
	put16(b, misc);
	put16(b, 0);
	return start;
}

static void rec_end(struct buf *b, size_t start)
{
	uint16_t size;

	align8(b);
	size = (uint16_t)(b->len - start);
	memcpy(b->p + start + 6, &size, 2);
}

/* ---- the events of the synthetic recordings ---- */

#define ID_KMALLOC	658
#define ID_KFREE	657
#define ID_OTHER	300

static const char kmalloc_format[] =
	"name: kmalloc\n"
	"ID: 658\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu "
	"gfp_flags=%s node=%d\", (void *)REC->call_site, REC->ptr, "
	"REC->bytes_req, REC->bytes_alloc, (REC->gfp_flags) ? "
	"__print_flags(REC->gfp_flags, \"|\", {0xcc0UL, \"GFP_KERNEL\"}, "
	"{0x20UL, \"__GFP_HIGH\"}) : \"none\", REC->node\n";

static const char kfree_format[] =
	"name: kfree\n"
	"ID: 657\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"call_site=%pS ptr=%p\", (void *)REC->call_site, REC->ptr\n";

static const char other_format[] =
	"name: sched_thing\n"
	"ID: 300\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"value=%d\", REC->value\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81100000 T alloc_caller\n"
	"ffffffff81200000 T free_caller\n";

static void tracing_data(struct buf *b, int with_kallsyms)
{
	put(b, "\027\010\104tracing", 10);
	puts0(b, "0.6");
	put(b, "\0\010", 2);		/* little endian, long size 8 */
	put32(b, 4096);
	puts0(b, "header_page");
	put64(b, strlen(header_page));
	put(b, header_page, strlen(header_page));
	puts0(b, "header_event");
	put64(b, 4);
	put(b, "none", 4);
	put32(b, 0);			/* no ftrace formats */
	put32(b, 2);			/* two systems */
	puts0(b, "kmem");
	put32(b, 2);
	put64(b, strlen(kmalloc_format));
	put(b, kmalloc_format, strlen(kmalloc_format));
	put64(b, strlen(kfree_format));
	put(b, kfree_format, strlen(kfree_format));
	puts0(b, "sched");
	put32(b, 1);
	put64(b, strlen(other_format));
	put(b, other_format, strlen(other_format));
	if (with_kallsyms) {
		put32(b, strlen(kallsyms));
		put(b, kallsyms, strlen(kallsyms));
	} else {
		put32(b, 0);
	}
	put32(b, 0);			/* printk formats */
	put64(b, 0);			/* saved cmdlines */
}

#define ST_KMEM	(KMT_PERF_SAMPLE_IDENTIFIER | KMT_PERF_SAMPLE_IP | \
		 KMT_PERF_SAMPLE_TID | KMT_PERF_SAMPLE_TIME | \
		 KMT_PERF_SAMPLE_CPU | KMT_PERF_SAMPLE_PERIOD | \
		 KMT_PERF_SAMPLE_RAW)

struct ev_spec {
	uint16_t id;		/* tracepoint id */
	int32_t pid;
	uint64_t call_site, ptr, req, alloc, gfp;
};

/* the raw tracepoint record for spec */
static void raw_record(struct buf *r, const struct ev_spec *e)
{
	put16(r, e->id);
	put16(r, 0);
	put32(r, (uint32_t)e->pid);
	if (e->id == ID_OTHER) {
		put32(r, 7);
		return;
	}
	put64(r, e->call_site);
	put64(r, e->ptr);
	if (e->id == ID_KFREE)
		return;
	put64(r, e->req);
	put64(r, e->alloc);
	put64(r, e->gfp);
	put32(r, (uint32_t)-1);
}

static void sample(struct buf *b, uint64_t st, uint64_t id,
		   const struct ev_spec *e, uint64_t ts, uint32_t cpu,
		   const uint64_t *chain, uint64_t nr)
{
	size_t start = rec_begin(b, 9, 1);
	struct buf raw = { 0 };
	uint64_t i;

	raw_record(&raw, e);
	if (st & KMT_PERF_SAMPLE_IDENTIFIER)
		put64(b, id);
	put64(b, e->call_site);			/* IP */
	put32(b, (uint32_t)e->pid);		/* TID */
	put32(b, (uint32_t)e->pid);
	put64(b, ts);
	if (st & KMT_PERF_SAMPLE_ID)
		put64(b, id);
	put32(b, cpu);
	put32(b, 0);
	put64(b, 1);				/* PERIOD */
	if (st & KMT_PERF_SAMPLE_CALLCHAIN) {
		put64(b, nr);
		for (i = 0; i < nr; i++)
			put64(b, chain[i]);
	}
	/* perf pads the raw data so the sample stays 8-byte aligned */
	put32(b, (uint32_t)((raw.len + 4 + 7) / 8 * 8 - 4));
	put(b, raw.p, raw.len);
	rec_end(b, start);
	free(raw.p);
}

static void comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name)
{
	size_t start = rec_begin(b, 3, 0);

	put32(b, pid);
	put32(b, tid);
	puts0(b, name);
	rec_end(b, start);
}

static void lost(struct buf *b, uint64_t n)
{
	size_t start = rec_begin(b, 2, 0);

	put64(b, 1);
	put64(b, n);
	rec_end(b, start);
}

static void lost_samples(struct buf *b, uint64_t n)
{
	size_t start = rec_begin(b, 13, 0);

	put64(b, n);
	rec_end(b, start);
}

static void round_marker(struct buf *b)
{
	size_t start = rec_begin(b, 68, 0);

	rec_end(b, start);
}

static const struct ev_spec kmalloc_a = {
	ID_KMALLOC, 100, 0xffffffff81100010ULL, 0xffff888100001000ULL,
	24, 32, 0xcc0
};
static const struct ev_spec kmalloc_b = {
	ID_KMALLOC, 101, 0xffffffff81100020ULL, 0xffff888100002000ULL,
	100, 128, 0x20
};
static const struct ev_spec kfree_a = {
	ID_KFREE, 100, 0xffffffff81200008ULL, 0xffff888100001000ULL, 0, 0, 0
};
static const struct ev_spec other_ev = { ID_OTHER, 100, 0, 0, 0, 0, 0 };
static const struct ev_spec unknown_ev = { 999, 100, 0, 0, 0, 0, 0 };

/*
 * The data records of the standard recording: events out of order
 * across two CPUs and rounds, a LOST and a LOST_SAMPLES record, a COMM,
 * an event of another subsystem and one of an id without a format.
 * Samples name attr 0 (kmalloc, ids 10 and 11) or 1 (kfree, 12 and 13).
 */
/*
 * pad bytes of records the reader skips (THROTTLE, as big as records
 * go): they put the samples megabytes after the names.
 */
static void padding(struct buf *b, size_t pad)
{
	while (pad >= 8) {
		size_t n = pad < 65528 ? pad - pad % 8 : 65528;
		size_t start = rec_begin(b, 5, 0);

		put(b, NULL, n - 8);
		rec_end(b, start);
		pad -= n;
	}
}

static void data_records(struct buf *b, uint64_t st_malloc, uint64_t st_free,
			 size_t pad)
{
	static const uint64_t chain[] = {
		KMT_PERF_CONTEXT_KERNEL, 0xffffffff81100010ULL,
		0xffffffff81000100ULL, KMT_PERF_CONTEXT_USER, 0x401000,
	};

	comm(b, 100, 100, "worker");
	comm(b, 100, 101, "worker-thread");
	padding(b, pad);
	sample(b, st_malloc, 10, &kmalloc_a, 3000, 0, chain, 5);
	sample(b, st_malloc, 11, &kmalloc_b, 1000, 1, chain, 5);
	round_marker(b);
	sample(b, st_free, 12, &kfree_a, 2000, 0, NULL, 0);
	lost(b, 5);
	lost_samples(b, 3);
	sample(b, st_free, 12, &other_ev, 2500, 0, NULL, 0);
	round_marker(b);
	sample(b, st_free, 13, &kfree_a, 4000, 1, NULL, 0);
	sample(b, st_free, 13, &unknown_ev, 5000, 1, NULL, 0);
	round_marker(b);
}

static void attr(struct buf *b, uint32_t type, uint64_t config, uint64_t st,
		 uint64_t rf)
{
	size_t start = b->len;

	put32(b, type);
	put32(b, 128);			/* attr.size */
	put64(b, config);
	put64(b, 1);			/* sample_period */
	put64(b, st);
	put64(b, rf);			/* read_format */
	put64(b, 1ULL << 18);		/* sample_id_all */
	put(b, NULL, 128 - (b->len - start));
}

struct file_opts {
	uint64_t st_malloc, st_free;
	int no_tracing;
	int with_kallsyms;
	uint64_t read_format;
	size_t pad;		/* bytes of records skipped, after the names */
};

/* a whole perf.data file: header, attrs, ids, data, features */
static void build_file(struct buf *b, const struct file_opts *o)
{
	size_t ids_at, attrs_at, data_at, data_end, table, i;
	const uint64_t sts[2] = { o->st_malloc, o->st_free };
	const uint64_t configs[2] = { ID_KMALLOC, ID_KFREE };
	unsigned char bits[32] = { 0 };
	struct buf feat[3] = { { 0 }, { 0 }, { 0 } };

	memset(b, 0, sizeof(*b));
	put(b, "PERFILE2", 8);
	put64(b, 104);
	put64(b, 128 + 16);
	put(b, NULL, 104 - b->len);	/* sections and bitmap: patched */

	attrs_at = b->len;
	for (i = 0; i < 2; i++) {
		attr(b, 2, configs[i], sts[i], o->read_format);
		put64(b, 0);		/* ids section: patched */
		put64(b, 16);
	}
	ids_at = b->len;
	for (i = 0; i < 4; i++)
		put64(b, 10 + i);
	for (i = 0; i < 2; i++)
		set64(b, attrs_at + i * 144 + 128, ids_at + 16 * i);
	set64(b, 24, attrs_at);
	set64(b, 32, 2 * 144);

	data_at = b->len;
	data_records(b, o->st_malloc, o->st_free, o->pad);
	data_end = b->len;
	set64(b, 40, data_at);
	set64(b, 48, data_end - data_at);

	/* features 1 (tracing data), 4 (osrelease), 7 (nrcpus) */
	if (!o->no_tracing) {
		bits[0] |= 1 << 1;
		tracing_data(&feat[0], o->with_kallsyms);
	}
	bits[0] |= 1 << 4 | 1 << 7;
	put32(&feat[1], 16);
	put(&feat[1], "6.99.0-test\0\0\0\0\0", 16);
	put32(&feat[2], 4);
	put32(&feat[2], 3);
	memcpy(b->p + 72, bits, sizeof(bits));
	table = b->len;
	for (i = o->no_tracing ? 1 : 0; i < 3; i++) {
		put64(b, 0);
		put64(b, feat[i].len);
	}
	for (i = o->no_tracing ? 1 : 0; i < 3; i++) {
		set64(b, table + 16 * (i - (o->no_tracing ? 1 : 0)), b->len);
		put(b, feat[i].p, feat[i].len);
		free(feat[i].p);
	}
}

/* the same recording in the pipe form */
static void build_pipe(struct buf *b, const struct file_opts *o)
{
	const uint64_t sts[2] = { o->st_malloc, o->st_free };
	const uint64_t configs[2] = { ID_KMALLOC, ID_KFREE };
	struct buf td = { 0 };
	size_t start, i;

	memset(b, 0, sizeof(*b));
	put(b, "PERFILE2", 8);
	put64(b, 16);
	for (i = 0; i < 2; i++) {
		start = rec_begin(b, 64, 0);
		attr(b, 2, configs[i], sts[i], o->read_format);
		put64(b, 10 + 2 * i);
		put64(b, 11 + 2 * i);
		rec_end(b, start);
	}
	start = rec_begin(b, 80, 0);		/* HEADER_FEATURE osrelease */
	put64(b, 4);
	put32(b, 16);
	put(b, "6.99.0-test\0\0\0\0\0", 16);
	rec_end(b, start);
	tracing_data(&td, o->with_kallsyms);
	while (td.len % 8)
		put(&td, NULL, 1);
	start = rec_begin(b, 66, 0);		/* HEADER_TRACING_DATA */
	put32(b, (uint32_t)td.len);
	rec_end(b, start);
	put(b, td.p, td.len);
	free(td.p);
	data_records(b, o->st_malloc, o->st_free, o->pad);
}

/* ---- reading what was built ---- */

#define MAX_SEEN 16

struct seen {
	struct kmt_event ev[MAX_SEEN];
	size_t nr;
};

static int collect(void *ctx, const struct kmt_event *ev)
{
	struct seen *seen = ctx;

	if (seen->nr < MAX_SEEN)
		seen->ev[seen->nr] = *ev;
	seen->nr++;
	return 0;
}

static char tmp_path[64];

static const char *write_tmp(const unsigned char *p, size_t len)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/kmt-test-perfdata.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0 || write(fd, p, len) != (ssize_t)len)
		abort();
	close(fd);
	return tmp_path;
}

static int read_bytes(struct kmt_session *s, struct seen *seen,
		      const unsigned char *p, size_t len)
{
	int ret;

	memset(seen, 0, sizeof(*seen));
	if (kmt_session_init(s))
		abort();
	s->consumer = collect;
	s->consumer_ctx = seen;
	ret = kmt_source_read_file(s, write_tmp(p, len));
	unlink(tmp_path);
	return ret;
}

/* ---- the tests ---- */

static void test_parse_sample(void)
{
	const uint64_t st = ST_KMEM | KMT_PERF_SAMPLE_CALLCHAIN;
	const uint64_t chain[] = { KMT_PERF_CONTEXT_KERNEL, 0xffffffff81000001ULL };
	struct kmt_perfdata_sample smp;
	struct buf b = { 0 };

	sample(&b, st, 42, &kfree_a, 123456789, 3, chain, 2);
	CHECK_EQ_U64(kmt_perfdata_parse_sample(b.p + 8, b.len - 8, st, 0, &smp),
		     0);
	CHECK_EQ_U64(smp.id, 42);
	CHECK_EQ_U64(smp.time, 123456789);
	CHECK_EQ_U64(smp.cpu, 3);
	CHECK_EQ_U64(smp.pid, 100);
	CHECK_EQ_U64(smp.tid, 100);
	CHECK_EQ_U64(smp.nr_ips, 2);
	CHECK_EQ_U64(smp.raw_size, 28);
	CHECK(smp.raw && smp.raw[0] == (ID_KFREE & 0xff));
	/* one byte short of the raw data: refused, not read past */
	CHECK_EQ_U64(kmt_perfdata_parse_sample(b.p + 8, b.len - 8 - 5, st, 0,
					       &smp), (uint64_t)-EINVAL);
	/* a call chain claiming more entries than the record holds */
	memset(b.p + 8 + 48, 0xff, 4);
	CHECK_EQ_U64(kmt_perfdata_parse_sample(b.p + 8, b.len - 8, st, 0, &smp),
		     (uint64_t)-EINVAL);
	free(b.p);
}

static void test_parse_read_format(void)
{
	const uint64_t st = KMT_PERF_SAMPLE_TIME | KMT_PERF_SAMPLE_READ |
			    KMT_PERF_SAMPLE_RAW;
	struct kmt_perfdata_sample smp;
	struct buf b = { 0 };

	/* a group of 2 with time enabled and ids: 8 + 8 + 2 * 16 bytes */
	put64(&b, 777);
	put64(&b, 2);
	put64(&b, 1000);
	put64(&b, 1);
	put64(&b, 11);
	put64(&b, 2);
	put64(&b, 12);
	put32(&b, 4);
	put32(&b, 0xabcd);
	CHECK_EQ_U64(kmt_perfdata_parse_sample(b.p, b.len, st,
		KMT_PERF_FORMAT_GROUP | KMT_PERF_FORMAT_ID |
		KMT_PERF_FORMAT_TOTAL_TIME_ENABLED, &smp), 0);
	CHECK_EQ_U64(smp.time, 777);
	CHECK_EQ_U64(smp.raw_size, 4);
	CHECK(smp.raw == b.p + 60);
	/* not a group: value, running, id, lost = 32 bytes */
	b.len = 0;
	put64(&b, 5);
	put64(&b, 1);
	put64(&b, 2);
	put64(&b, 3);
	put64(&b, 4);
	put32(&b, 4);
	put32(&b, 0xabcd);
	CHECK_EQ_U64(kmt_perfdata_parse_sample(b.p, b.len, st,
		KMT_PERF_FORMAT_TOTAL_TIME_RUNNING | KMT_PERF_FORMAT_ID |
		KMT_PERF_FORMAT_LOST, &smp), 0);
	CHECK(smp.raw == b.p + 44);
	free(b.p);
}

/*
 * Every fixed-size field at once, each holding its own index: the layout
 * worked out once per attr must find each where the per-sample walk of
 * the sample_type bits would.
 */
static void test_parse_fixed_fields(void)
{
	const uint64_t st = KMT_PERF_SAMPLE_IDENTIFIER | KMT_PERF_SAMPLE_IP |
			    KMT_PERF_SAMPLE_TID | KMT_PERF_SAMPLE_TIME |
			    KMT_PERF_SAMPLE_ADDR | KMT_PERF_SAMPLE_ID |
			    KMT_PERF_SAMPLE_STREAM_ID | KMT_PERF_SAMPLE_CPU |
			    KMT_PERF_SAMPLE_PERIOD | KMT_PERF_SAMPLE_RAW;
	struct kmt_perfdata_layout l;
	struct kmt_perfdata_sample smp;
	struct buf b = { 0 };
	uint64_t i;

	for (i = 0; i < 9; i++)
		put64(&b, i == 2 ? (7ULL << 32 | 6) : 100 + i);
	put32(&b, 2);
	put32(&b, 0x1122);
	kmt_perfdata_layout_init(&l, st, 0);
	CHECK_EQ_U64(l.prefix, 72);
	CHECK_EQ_U64(kmt_perfdata_parse_laid(b.p, b.len, &l, &smp), 0);
	CHECK_EQ_U64(smp.id, 105);	/* ID, the later of the two */
	CHECK_EQ_U64(smp.pid, 6);
	CHECK_EQ_U64(smp.tid, 7);
	CHECK_EQ_U64(smp.time, 103);
	CHECK_EQ_U64(smp.cpu, 107);
	CHECK_EQ_U64(smp.raw_size, 2);
	CHECK(smp.raw == b.p + 76);
	CHECK_EQ_U64(smp.nr_ips, 0);
	/* IDENTIFIER alone names the sample */
	kmt_perfdata_layout_init(&l, KMT_PERF_SAMPLE_IDENTIFIER |
				 KMT_PERF_SAMPLE_TIME, 0);
	CHECK_EQ_U64(kmt_perfdata_parse_laid(b.p, 16, &l, &smp), 0);
	CHECK_EQ_U64(smp.id, 100);
	CHECK_EQ_U64(smp.time, 101);
	CHECK_EQ_U64(smp.cpu, 0);
	CHECK(smp.raw == NULL);
	/* a record that ends inside the fixed fields is refused */
	kmt_perfdata_layout_init(&l, st, 0);
	CHECK_EQ_U64(kmt_perfdata_parse_laid(b.p, 71, &l, &smp),
		     (uint64_t)-EINVAL);
	free(b.p);
}

static void test_kernel_chain(void)
{
	const uint64_t k = KMT_PERF_CONTEXT_KERNEL, u = KMT_PERF_CONTEXT_USER;
	const uint64_t a[] = { k, 0xa1, 0xa2, 0xa3, u, 0x10, 0x20 };
	const uint64_t b[] = { 0xb1, 0xb2 };
	const uint64_t c[] = { u, 0x10 };
	const uint64_t d[] = { k };
	uint64_t start = 99;

	CHECK_EQ_U64(kmt_perfdata_kernel_chain((const void *)a, 7, &start), 3);
	CHECK_EQ_U64(start, 1);
	CHECK_EQ_U64(kmt_perfdata_kernel_chain((const void *)b, 2, &start), 2);
	CHECK_EQ_U64(start, 0);
	CHECK_EQ_U64(kmt_perfdata_kernel_chain((const void *)c, 2, &start), 0);
	CHECK_EQ_U64(kmt_perfdata_kernel_chain((const void *)d, 1, &start), 0);
	CHECK_EQ_U64(kmt_perfdata_kernel_chain((const void *)a, 0, &start), 0);
}

static void queue_add(struct kmt_perfdata_queue *q, uint64_t ts, int tag)
{
	struct kmt_event *ev = kmt_perfdata_queue_slot(q, tag);

	CHECK(ev != NULL);
	if (!ev)
		return;
	kmt_event_init(ev);
	ev->type = KMT_EV_KMALLOC;
	ev->ts = ts;
	ev->cpu = tag;
	kmt_perfdata_queue_commit(q);
}

/* a session whose events land in seen */
static void collecting(struct kmt_session *s, struct seen *seen)
{
	kmt_session_init(s);
	s->consumer = collect;
	s->consumer_ctx = seen;
}

/* an empty queue that holds slack ns back and merges batch at a time */
static void queue_start(struct kmt_perfdata_queue *q, uint64_t slack,
			size_t batch)
{
	kmt_perfdata_queue_init(q);
	q->slack = slack;
	q->batch = batch;
}

static void test_queue_rounds(void)
{
	struct kmt_perfdata_queue q;
	struct kmt_session s;
	struct seen seen = { .nr = 0 };

	collecting(&s, &seen);
	queue_start(&q, 0, 0);
	queue_add(&q, 5, 0);
	queue_add(&q, 3, 1);
	CHECK_EQ_U64(kmt_perfdata_queue_round(&q, &s), 0);
	CHECK_EQ_U64(seen.nr, 0);	/* the first marker: nothing is safe */
	queue_add(&q, 4, 2);
	queue_add(&q, 8, 3);
	queue_add(&q, 5, 4);		/* a tie: after the earlier 5 */
	CHECK_EQ_U64(kmt_perfdata_queue_round(&q, &s), 0);
	/* safe: up to 5, the highest time before the previous marker */
	CHECK_EQ_U64(seen.nr, 4);
	CHECK_EQ_U64(seen.ev[0].ts, 3);
	CHECK_EQ_U64(seen.ev[1].ts, 4);
	CHECK_EQ_U64(seen.ev[2].ts, 5);
	CHECK_EQ_U64(seen.ev[2].cpu, 0);
	CHECK_EQ_U64(seen.ev[3].ts, 5);
	CHECK_EQ_U64(seen.ev[3].cpu, 4);
	queue_add(&q, 9, 5);
	queue_add(&q, 6, 6);
	queue_add(&q, 2, 7);		/* too late: 5 went out already */
	CHECK_EQ_U64(q.nr_late, 1);
	CHECK_EQ_U64(kmt_perfdata_queue_round(&q, &s), 0);
	CHECK_EQ_U64(seen.nr, 7);	/* 2, 6, 8 */
	CHECK_EQ_U64(seen.ev[4].ts, 2);
	CHECK_EQ_U64(seen.ev[5].ts, 6);
	CHECK_EQ_U64(seen.ev[6].ts, 8);
	CHECK_EQ_U64(kmt_perfdata_queue_flush(&q, &s), 0);
	CHECK_EQ_U64(seen.nr, 8);
	CHECK_EQ_U64(seen.ev[7].ts, 9);
	CHECK_EQ_U64(q.nr, 0);
	kmt_perfdata_queue_free(&q);
	kmt_session_free(&s);
}

static void test_queue_slack_and_batch(void)
{
	struct kmt_perfdata_queue q;
	struct kmt_session s;
	struct seen seen = { .nr = 0 };

	collecting(&s, &seen);
	queue_start(&q, 10, 0);
	queue_add(&q, 100, 0);
	queue_add(&q, 50, 1);
	kmt_perfdata_queue_round(&q, &s);
	queue_add(&q, 105, 2);
	kmt_perfdata_queue_round(&q, &s);
	/* the bound is min(100, 105 - 10): 95 */
	CHECK_EQ_U64(seen.nr, 1);
	CHECK_EQ_U64(seen.ev[0].ts, 50);
	kmt_perfdata_queue_free(&q);

	/* a batch of 4: nothing goes out until 4 wait */
	seen.nr = 0;
	queue_start(&q, 0, 4);
	queue_add(&q, 1, 0);
	kmt_perfdata_queue_round(&q, &s);
	queue_add(&q, 2, 0);
	kmt_perfdata_queue_round(&q, &s);
	CHECK_EQ_U64(seen.nr, 0);
	queue_add(&q, 3, 0);
	queue_add(&q, 4, 0);
	kmt_perfdata_queue_round(&q, &s);
	CHECK_EQ_U64(seen.nr, 2);	/* 1 and 2: the bound is 2 */
	kmt_perfdata_queue_flush(&q, &s);
	CHECK_EQ_U64(seen.nr, 4);
	CHECK_EQ_U64(seen.ev[3].ts, 4);
	kmt_perfdata_queue_free(&q);
	kmt_session_free(&s);
}

/* two CPUs, the merge without a heap: order, ties, the bound */
static void test_queue_two_streams(void)
{
	static const uint64_t ts[] = { 10, 20, 20, 30, 40, 50, 60, 70 };
	static const int cpu[] = { 0, 1, 0, 1, 1, 0, 0, 1 };
	struct kmt_perfdata_queue q;
	struct kmt_session s;
	struct seen seen = { .nr = 0 };
	size_t i;

	collecting(&s, &seen);
	queue_start(&q, 0, 0);
	/* CPU 1 written first: file order decides the tie at 20 */
	for (i = 0; i < 8; i++)
		if (cpu[i] == 1)
			queue_add(&q, ts[i], 1);
	for (i = 0; i < 8; i++)
		if (cpu[i] == 0)
			queue_add(&q, ts[i], 0);
	kmt_perfdata_queue_round(&q, &s);
	kmt_perfdata_queue_round(&q, &s);
	/* the bound is the newest time at the first marker: everything */
	CHECK_EQ_U64(seen.nr, 8);
	for (i = 0; i < seen.nr && i < MAX_SEEN; i++)
		CHECK_EQ_U64(seen.ev[i].ts, ts[i]);
	CHECK_EQ_U64(seen.ev[1].cpu, 1);	/* the tie: CPU 1's came first */
	CHECK_EQ_U64(seen.ev[2].cpu, 0);
	CHECK_EQ_U64(q.nr, 0);
	kmt_perfdata_queue_free(&q);

	/* a bound inside both streams: what is past it stays queued */
	seen.nr = 0;
	queue_start(&q, 0, 0);
	queue_add(&q, 10, 0);
	queue_add(&q, 15, 1);
	kmt_perfdata_queue_round(&q, &s);
	queue_add(&q, 30, 0);
	queue_add(&q, 25, 1);
	kmt_perfdata_queue_round(&q, &s);
	CHECK_EQ_U64(seen.nr, 2);	/* up to 15 */
	CHECK_EQ_U64(seen.ev[1].ts, 15);
	CHECK_EQ_U64(q.nr, 2);
	kmt_perfdata_queue_flush(&q, &s);
	CHECK_EQ_U64(seen.nr, 4);
	CHECK_EQ_U64(seen.ev[2].ts, 25);
	CHECK_EQ_U64(seen.ev[3].ts, 30);
	kmt_perfdata_queue_free(&q);
	kmt_session_free(&s);
}

static void test_queue_streams(void)
{
	struct kmt_perfdata_queue q;
	struct kmt_session s;
	struct seen seen = { .nr = 0 };
	size_t i;

	collecting(&s, &seen);
	kmt_perfdata_queue_init(&q);
	/* one CPU's event written after the interrupt that cut into it */
	queue_add(&q, 10, 1);
	queue_add(&q, 30, 1);
	queue_add(&q, 20, 1);
	/* events without a CPU: one stream, sorted as they come */
	queue_add(&q, 25, -1);
	queue_add(&q, 5, -1);
	queue_add(&q, 15, 0);
	queue_add(&q, 25, 0);	/* ties: in file order */
	CHECK_EQ_U64(kmt_perfdata_queue_flush(&q, &s), 0);
	CHECK_EQ_U64(seen.nr, 7);
	for (i = 1; i < seen.nr && i < MAX_SEEN; i++)
		CHECK(seen.ev[i - 1].ts <= seen.ev[i].ts);
	CHECK_EQ_U64(seen.ev[0].ts, 5);
	CHECK_EQ_U64(seen.ev[4].ts, 25);
	CHECK_EQ_U64(seen.ev[4].cpu, (uint64_t)-1);
	CHECK_EQ_U64(seen.ev[5].ts, 25);
	CHECK_EQ_U64(seen.ev[5].cpu, 0);
	CHECK_EQ_U64(q.nr_late, 0);
	CHECK_EQ_U64(q.peak, 7);
	kmt_perfdata_queue_free(&q);
	kmt_session_free(&s);
}

/* what the standard recording must give, whatever its form */
static void check_standard(struct kmt_session *s, struct seen *seen)
{
	CHECK_STR(s->format, "perf.data");
	CHECK_STR(s->kernel_release, "6.99.0-test");
	CHECK_EQ_U64(seen->nr, 4);
	CHECK_EQ_U64(seen->ev[0].ts, 1000);
	CHECK_EQ_U64(seen->ev[0].cpu, 1);
	CHECK_EQ_U64(seen->ev[0].pid, 101);
	CHECK_EQ_U64(seen->ev[0].type, KMT_EV_KMALLOC);
	CHECK_EQ_U64(seen->ev[0].call_site, 0xffffffff81100020ULL);
	CHECK_EQ_U64(seen->ev[0].bytes_req, 100);
	CHECK_EQ_U64(seen->ev[0].bytes_alloc, 128);
	CHECK_EQ_U64(seen->ev[0].gfp, 0x20);
	CHECK_EQ_U64(seen->ev[1].ts, 2000);
	CHECK_EQ_U64(seen->ev[1].type, KMT_EV_KFREE);
	CHECK_EQ_U64(seen->ev[1].ptr, 0xffff888100001000ULL);
	CHECK_EQ_U64(seen->ev[2].ts, 3000);
	CHECK_EQ_U64(seen->ev[2].ptr, 0xffff888100001000ULL);
	CHECK_EQ_U64(seen->ev[3].ts, 4000);
	CHECK_EQ_U64(s->nr_events[KMT_EV_KMALLOC], 2);
	CHECK_EQ_U64(s->nr_events[KMT_EV_KFREE], 2);
	CHECK_EQ_U64(s->nr_other, 1);
	CHECK_EQ_U64(s->nr_lost, 8);
	CHECK_EQ_U64(s->nr_lost_records, 2);
	CHECK_EQ_U64(s->anomalies[KMT_ANOM_UNKNOWN_ID], 1);
	CHECK_EQ_U64(s->anomalies[KMT_ANOM_BAD_RECORD], 0);
	CHECK_EQ_U64(s->anomalies[KMT_ANOM_OUT_OF_ORDER], 0);
	CHECK_STR(kmt_session_comm(s, 100), "worker");
	CHECK_STR(kmt_session_comm(s, 101), "worker-thread");
}

static void test_file(void)
{
	const struct file_opts o = { ST_KMEM, ST_KMEM, 0, 1, 0, 0 };
	struct kmt_session s;
	struct seen seen;
	uint64_t off = 0;
	struct buf b;

	build_file(&b, &o);
	CHECK_EQ_U64(read_bytes(&s, &seen, b.p, b.len), 0);
	check_standard(&s, &seen);
	CHECK_EQ_U64(s.nr_cpus, 4);
	CHECK_EQ_U64(s.has_stacks, 0);
	/* the kallsyms of the tracing data name the call sites */
	CHECK_STR(kmt_symtab_lookup(&s.syms, 0xffffffff81100020ULL, &off),
		  "alloc_caller");
	CHECK_EQ_U64(off, 0x20);
	kmt_session_free(&s);
	free(b.p);
}

/*
 * A data section of several mapping chunks: the pages read are dropped
 * as the reader passes them, and what was read from them (the names)
 * stays; the samples megabytes on are all there.
 */
static void test_file_big(void)
{
	struct file_opts o = { ST_KMEM, ST_KMEM, 0, 1, 0, 0 };
	struct kmt_session s;
	struct seen seen;
	struct buf b;

	o.pad = 3 * KMT_MAPVIEW_CHUNK + 4104;
	build_file(&b, &o);
	CHECK(b.len > 3 * KMT_MAPVIEW_CHUNK);
	CHECK_EQ_U64(read_bytes(&s, &seen, b.p, b.len), 0);
	check_standard(&s, &seen);
	kmt_session_free(&s);
	free(b.p);
}

/*
 * Events that count their own losses (read_format LOST) make perf write
 * the totals as LOST_SAMPLES records at the end, for the samples the LOST
 * records already reported: counted once, the larger of the two.
 */
static void test_lost_counted_once(void)
{
	const struct file_opts o = {
		ST_KMEM, ST_KMEM, 0, 1, KMT_PERF_FORMAT_ID | KMT_PERF_FORMAT_LOST, 0
	};
	struct kmt_session s;
	struct seen seen;
	struct buf b;

	build_file(&b, &o);
	CHECK_EQ_U64(read_bytes(&s, &seen, b.p, b.len), 0);
	CHECK_EQ_U64(seen.nr, 4);
	CHECK_EQ_U64(s.nr_lost, 5);
	CHECK_EQ_U64(s.nr_lost_records, 2);
	kmt_session_free(&s);
	free(b.p);
}

static void test_file_ids_and_stacks(void)
{
	/* kmalloc samples carry a call chain, kfree ones do not */
	const struct file_opts o = {
		ST_KMEM | KMT_PERF_SAMPLE_CALLCHAIN, ST_KMEM, 0, 1, 0, 0
	};
	const struct kmt_stack *st;
	struct kmt_session s;
	struct seen seen;
	struct buf b;

	build_file(&b, &o);
	CHECK_EQ_U64(read_bytes(&s, &seen, b.p, b.len), 0);
	check_standard(&s, &seen);
	CHECK_EQ_U64(s.has_stacks, 1);
	st = kmt_stacks_get(&s.stacks, seen.ev[0].stack);
	CHECK(st && st->nr == 2);
	if (st && st->nr == 2) {
		CHECK_EQ_U64(st->ips[0], 0xffffffff81100010ULL);
		CHECK_EQ_U64(st->ips[1], 0xffffffff81000100ULL);
	}
	CHECK_EQ_U64(seen.ev[2].stack, seen.ev[0].stack);
	CHECK_EQ_U64(seen.ev[1].stack, 0);
	kmt_session_free(&s);
	free(b.p);
}

/* with no_slab_stacks (a report without views) kmalloc's chain is left out */
static void test_no_slab_stacks(void)
{
	const struct file_opts o = {
		ST_KMEM | KMT_PERF_SAMPLE_CALLCHAIN, ST_KMEM, 0, 1, 0, 0
	};
	struct kmt_session s;
	struct seen seen;
	struct buf b;
	size_t i;

	build_file(&b, &o);
	memset(&seen, 0, sizeof(seen));
	CHECK(!kmt_session_init(&s));
	s.consumer = collect;
	s.consumer_ctx = &seen;
	s.no_slab_stacks = 1;
	CHECK_EQ_U64(kmt_source_read_file(&s, write_tmp(b.p, b.len)), 0);
	unlink(tmp_path);
	check_standard(&s, &seen);
	CHECK_EQ_U64(s.has_stacks, 1);
	for (i = 0; i < seen.nr && i < MAX_SEEN; i++)
		CHECK_EQ_U64(seen.ev[i].stack, 0);
	CHECK(kmt_stacks_get(&s.stacks, 1) == NULL);
	kmt_session_free(&s);
	free(b.p);
}

static void test_pipe(void)
{
	const struct file_opts o = { ST_KMEM, ST_KMEM, 0, 1, 0, 0 };
	struct kmt_session s;
	struct seen seen;
	struct buf b;

	build_pipe(&b, &o);
	CHECK_EQ_U64(read_bytes(&s, &seen, b.p, b.len), 0);
	check_standard(&s, &seen);
	kmt_session_free(&s);
	/* cut inside the last record: the stream is truncated there */
	CHECK(read_bytes(&s, &seen, b.p, b.len - 12) < 0);
	CHECK(strstr(s.errmsg, "is truncated at byte"));
	kmt_session_free(&s);
	free(b.p);
}

static void test_truncated(void)
{
	const struct file_opts o = { ST_KMEM, ST_KMEM, 0, 1, 0, 0 };
	struct kmt_session s;
	struct seen seen;
	char want[128];
	uint64_t data_end;
	struct buf b;

	build_file(&b, &o);
	memcpy(&data_end, b.p + 40, 8);
	data_end += *(uint64_t *)(b.p + 48);
	/* cut inside the data: named with the offset, nothing passed on */
	CHECK(read_bytes(&s, &seen, b.p, data_end - 20) < 0);
	snprintf(want, sizeof(want),
		 "is truncated at byte %llu: its data section ends at byte %llu",
		 (unsigned long long)data_end - 20,
		 (unsigned long long)data_end);
	CHECK(strstr(s.errmsg, want));
	CHECK_EQ_U64(seen.nr, 0);
	kmt_session_free(&s);
	/* cut in the features after the data */
	CHECK(read_bytes(&s, &seen, b.p, data_end + 40) < 0);
	CHECK(strstr(s.errmsg, "is truncated at byte"));
	CHECK_EQ_U64(seen.nr, 0);
	kmt_session_free(&s);
	/* cut in the header */
	CHECK(read_bytes(&s, &seen, b.p, 12) < 0);
	CHECK(strstr(s.errmsg, "is truncated at byte 12"));
	kmt_session_free(&s);
	free(b.p);
}

static void test_corrupt(void)
{
	const struct file_opts o = { ST_KMEM, ST_KMEM, 0, 1, 0, 0 };
	struct kmt_session s;
	struct seen seen;
	uint64_t data_at;
	char want[96];
	struct buf b;
	uint16_t four = 4;

	build_file(&b, &o);
	memcpy(&data_at, b.p + 40, 8);
	/* the second COMM record claims 4 bytes */
	memcpy(b.p + data_at + 24 + 6, &four, 2);
	CHECK(read_bytes(&s, &seen, b.p, b.len) < 0);
	snprintf(want, sizeof(want), "is corrupt at byte %llu",
		 (unsigned long long)data_at + 24);
	CHECK(strstr(s.errmsg, want));
	kmt_session_free(&s);
	free(b.p);

	/* a header size no perf writes */
	build_file(&b, &o);
	b.p[8] = 99;
	CHECK(read_bytes(&s, &seen, b.p, b.len) < 0);
	CHECK(strstr(s.errmsg, "header of 99 bytes"));
	kmt_session_free(&s);
	/* written on a machine of the other byte order */
	memcpy(b.p, "2ELIFREP", 8);
	CHECK(read_bytes(&s, &seen, b.p, b.len) < 0);
	CHECK(strstr(s.errmsg, "other byte order"));
	kmt_session_free(&s);
	free(b.p);
}

static void test_no_tracing_data(void)
{
	const struct file_opts o = { ST_KMEM, ST_KMEM, 1, 1, 0, 0 };
	struct kmt_session s;
	struct seen seen;
	struct buf b;

	build_file(&b, &o);
	CHECK(read_bytes(&s, &seen, b.p, b.len) < 0);
	CHECK(strstr(s.errmsg, "has no tracing data"));
	CHECK_EQ_U64(seen.nr, 0);
	kmt_session_free(&s);
	free(b.p);
}

KMT_TESTS(
	KMT_TEST(test_parse_sample),
	KMT_TEST(test_parse_fixed_fields),
	KMT_TEST(test_parse_read_format),
	KMT_TEST(test_kernel_chain),
	KMT_TEST(test_queue_rounds),
	KMT_TEST(test_queue_two_streams),
	KMT_TEST(test_queue_slack_and_batch),
	KMT_TEST(test_queue_streams),
	KMT_TEST(test_file),
	KMT_TEST(test_file_big),
	KMT_TEST(test_file_ids_and_stacks),
	KMT_TEST(test_no_slab_stacks),
	KMT_TEST(test_lost_counted_once),
	KMT_TEST(test_pipe),
	KMT_TEST(test_truncated),
	KMT_TEST(test_corrupt),
	KMT_TEST(test_no_tracing_data),
)
