// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat writer, checked by reading its output back with
 * libtracecmd (what `trace-cmd report` uses) and with kmemtrace's own
 * reader: hand-made formats and ring-buffer pages with known events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "check.h"
#include "event/session.h"
#include "event/symbols.h"
#include "record/tracedat-write.h"
#include "source/source.h"

#define PAGE 4096

/* as a 64-bit kernel describes its ring-buffer pages and events */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define KMALLOC_ID 300
static const char kmalloc_format[] =
	"name: kmalloc\n"
	"ID: 300\n"
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
	"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=0x%lx node=%d\", "
	"(void *)REC->call_site, REC->ptr, REC->bytes_req, REC->bytes_alloc, "
	"REC->gfp_flags, REC->node\n";

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81234560 T alloc_thing\n"
	"ffffffff81234600 T after_thing\n";

static const char cmdlines[] = "42 tester\n43 other\n";
static const char tgids[] = KMT_TD_TGIDS_MAGIC "42 42\n43 42\n";

struct ev {
	uint32_t delta;		/* ns after the previous event of the page */
	int32_t pid;
	uint64_t ptr;
	uint64_t bytes;
};

/* one ring-buffer page of kmalloc events, as trace_pipe_raw hands it out */
static void make_page(unsigned char *page, uint64_t ts, const struct ev *evs,
		      int n)
{
	size_t off = 16;
	uint64_t commit;
	int i;

	memset(page, 0, PAGE);
	memcpy(page, &ts, 8);
	for (i = 0; i < n; i++) {
		unsigned char data[52];
		uint16_t type = KMALLOC_ID;
		uint64_t call_site = 0xffffffff81234570ULL, gfp = 0xcc0;
		int32_t node = -1;
		/* 52 bytes of data: type_len 13 words, then the delta */
		uint32_t head = 13 | (evs[i].delta << 5);

		memset(data, 0, sizeof(data));
		memcpy(data, &type, 2);
		memcpy(data + 4, &evs[i].pid, 4);
		memcpy(data + 8, &call_site, 8);
		memcpy(data + 16, &evs[i].ptr, 8);
		memcpy(data + 24, &evs[i].bytes, 8);
		memcpy(data + 32, &evs[i].bytes, 8);
		memcpy(data + 40, &gfp, 8);
		memcpy(data + 48, &node, 4);
		memcpy(page + off, &head, 4);
		memcpy(page + off + 4, data, sizeof(data));
		off += 4 + sizeof(data);
	}
	commit = off - 16;
	memcpy(page + 8, &commit, 8);
}

static const struct ev cpu0_evs[] = {
	{ 0,   42, 0xffff888100001000ULL, 64 },
	{ 100, 42, 0xffff888100002000ULL, 128 },
};
static const struct ev cpu1_evs[] = {
	{ 50,  43, 0xffff888100003000ULL, 256 },
};

static char path[64];

static struct kmt_tdw_header make_header(struct kmt_tdw_option *opts,
					 struct kmt_tdw_system *sys,
					 struct kmt_blob *fmt)
{
	struct kmt_tdw_header h;

	memset(&h, 0, sizeof(h));
	h.page_size = PAGE;
	h.header_page.data = header_page;
	h.header_page.len = strlen(header_page);
	h.header_event.data = header_event;
	h.header_event.len = strlen(header_event);
	fmt->data = kmalloc_format;
	fmt->len = strlen(kmalloc_format);
	sys->name = "kmem";
	sys->formats = fmt;
	sys->nr_formats = 1;
	h.systems = sys;
	h.nr_systems = 1;
	h.kallsyms.data = kallsyms;
	h.kallsyms.len = strlen(kallsyms);
	h.cmdlines.data = cmdlines;
	h.cmdlines.len = strlen(cmdlines);
	opts[0].id = KMT_TD_OPT_CPUSTAT;
	opts[0].val.data = "CPU: 0\nentries: 0\noverrun: 0\n";
	opts[0].val.len = strlen(opts[0].val.data) + 1;
	opts[1].id = KMT_TD_OPT_CPUSTAT;
	opts[1].val.data = "CPU: 1\nentries: 0\noverrun: 7\n";
	opts[1].val.len = strlen(opts[1].val.data) + 1;
	opts[2].id = KMT_TD_OPT_TGIDS;
	opts[2].val.data = tgids;
	opts[2].val.len = sizeof(tgids);
	h.options = opts;
	h.nr_options = 3;
	h.nr_cpus = 2;
	return h;
}

/* writes the test file: header, then the pages through kmt_tdw_copy */
static int write_file(void)
{
	unsigned char page0[PAGE], page1[PAGE];
	struct kmt_tdw_option opts[3];
	struct kmt_tdw_system sys;
	struct kmt_blob fmt;
	struct kmt_tdw_header h = make_header(opts, &sys, &fmt);
	uint64_t sizes[2] = { PAGE, PAGE }, data_off, done;
	char err[256], tmp[64];
	int fd, src, e;

	snprintf(path, sizeof(path), "/tmp/kmt-tdw-%d.dat", (int)getpid());
	snprintf(tmp, sizeof(tmp), "/tmp/kmt-tdw-%d.cpu", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	src = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unlink(tmp);
	if (fd < 0 || src < 0)
		return -1;
	make_page(page0, 1000000, cpu0_evs, 2);
	make_page(page1, 1000000, cpu1_evs, 1);
	if (pwrite(src, page0, PAGE, 0) != PAGE ||
	    pwrite(src, page1, PAGE, PAGE) != PAGE)
		return -1;

	CHECK_EQ_U64(kmt_tdw_write_header(fd, &h, sizes, err, sizeof(err)), 0);
	data_off = kmt_tdw_data_offset(&h);
	CHECK(data_off % PAGE == 0);
	CHECK(data_off >= kmt_tdw_header_size(&h));
	done = kmt_tdw_copy(fd, data_off, src, 0, 2 * PAGE,
			    KMT_TDW_COPY_PUNCH, &e);
	CHECK_EQ_U64(done, 2 * PAGE);
	CHECK_EQ_U64(e, 0);
	close(src);
	close(fd);
	return 0;
}

static void test_header_layout(void)
{
	struct kmt_tdw_option opts[3];
	struct kmt_tdw_system sys;
	struct kmt_blob fmt;
	struct kmt_tdw_header h = make_header(opts, &sys, &fmt);
	uint64_t base = kmt_tdw_header_size(&h);
	char err[128];

	/* each CPU adds one (offset, size) pair */
	h.nr_cpus = 3;
	CHECK_EQ_U64(kmt_tdw_header_size(&h), base + 16);
	/* a page size that is not a power of two is refused */
	h.page_size = 3000;
	CHECK(kmt_tdw_write_header(-1, &h, NULL, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "3000") != NULL);
}

static void test_libtracecmd_reads_it(void)
{
	struct tracecmd_input *in;
	struct tep_handle *tep;
	struct tep_record *rec;
	unsigned long long val;
	struct tep_event *ev;
	int n[2] = { 0, 0 }, cpu;
	uint64_t last_ts = 0;

	CHECK(write_file() == 0);
	/* it would warn about the TGIDS option, which it does not know */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	CHECK(in != NULL);
	if (!in)
		return;
	tep = tracecmd_get_tep(in);
	ev = tep_find_event(tep, KMALLOC_ID);
	CHECK(ev != NULL);
	CHECK_STR(tep_data_comm_from_pid(tep, 42), "tester");
	for (cpu = 0; cpu < 2; cpu++) {
		while ((rec = tracecmd_read_data(in, cpu))) {
			const struct ev *want = cpu ? &cpu1_evs[n[cpu]] :
						      &cpu0_evs[n[cpu]];

			CHECK(rec->ts >= last_ts || cpu == 1);
			last_ts = rec->ts;
			if (ev && n[cpu] < (cpu ? 1 : 2)) {
				tep_read_number_field(tep_find_field(ev, "ptr"),
						      rec->data, &val);
				CHECK_EQ_U64(val, want->ptr);
				tep_read_number_field(tep_find_field(ev, "bytes_req"),
						      rec->data, &val);
				CHECK_EQ_U64(val, want->bytes);
				CHECK_EQ_U64(tep_data_pid(tep, rec), want->pid);
			}
			n[cpu]++;
			tracecmd_free_record(rec);
		}
	}
	CHECK_EQ_U64(n[0], 2);
	CHECK_EQ_U64(n[1], 1);
	/* the page's timestamp plus the event's delta */
	rec = tracecmd_read_cpu_first(in, 0);
	CHECK(rec != NULL);
	if (rec) {
		CHECK_EQ_U64(rec->ts, 1000000);
		tracecmd_free_record(rec);
	}
	tracecmd_close(in);
}

struct seen {
	int cpustats, tgids;
	char tgid_text[64];
};

static int on_option(void *ctx, uint16_t id, const char *data, size_t len)
{
	struct seen *s = ctx;

	if (id == KMT_TD_OPT_CPUSTAT)
		s->cpustats++;
	if (id == KMT_TD_OPT_TGIDS) {
		s->tgids++;
		snprintf(s->tgid_text, sizeof(s->tgid_text), "%.*s", (int)len,
			 data);
	}
	return 0;
}

static void test_options_read_back(void)
{
	struct seen s;
	int fd;

	memset(&s, 0, sizeof(s));
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ_U64(kmt_tdw_read_options(fd, on_option, &s), 0);
	CHECK_EQ_U64(s.cpustats, 2);
	CHECK_EQ_U64(s.tgids, 1);
	CHECK_STR(s.tgid_text, tgids);
	close(fd);
	/* not a trace.dat */
	fd = open("/proc/self/exe", O_RDONLY);
	CHECK(kmt_tdw_read_options(fd, on_option, &s) == -EINVAL);
	close(fd);
}

/* -o -: the same bytes, written in order into a pipe */
static void test_stream_into_a_pipe(void)
{
	static unsigned char want[1 << 16], got[1 << 16];
	unsigned char page0[PAGE], page1[PAGE];
	struct kmt_tdw_option opts[3];
	struct kmt_tdw_system sys;
	struct kmt_blob fmt;
	struct kmt_tdw_header h = make_header(opts, &sys, &fmt);
	uint64_t sizes[2] = { PAGE, PAGE }, done;
	ssize_t nwant, ngot = 0, n;
	char err[256], tmp[64];
	int fd, src, p[2], e;

	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	nwant = read(fd, want, sizeof(want));
	close(fd);
	CHECK(nwant > 2 * PAGE && nwant < (ssize_t)sizeof(want));
	snprintf(tmp, sizeof(tmp), "/tmp/kmt-tdw-%d.cpu", (int)getpid());
	src = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unlink(tmp);
	CHECK(src >= 0 && pipe(p) == 0);
	/* the whole file fits in the pipe: no reader needed meanwhile */
	fcntl(p[1], F_SETPIPE_SZ, 1 << 16);
	make_page(page0, 1000000, cpu0_evs, 2);
	make_page(page1, 1000000, cpu1_evs, 1);
	CHECK(pwrite(src, page0, PAGE, 0) == PAGE &&
	      pwrite(src, page1, PAGE, PAGE) == PAGE);
	CHECK_EQ_U64(kmt_tdw_stream_header(p[1], &h, sizes, err, sizeof(err)), 0);
	done = kmt_tdw_copy(p[1], kmt_tdw_data_offset(&h), src, 0, 2 * PAGE,
			    KMT_TDW_COPY_PUNCH | KMT_TDW_COPY_STREAM, &e);
	CHECK_EQ_U64(done, 2 * PAGE);
	CHECK_EQ_U64(e, 0);
	close(p[1]);
	while ((n = read(p[0], got + ngot, sizeof(got) - ngot)) > 0)
		ngot += n;
	close(p[0]);
	close(src);
	CHECK_EQ_U64(ngot, nwant);
	CHECK(!memcmp(got, want, nwant));
}

/* name read into a new session s, a failure checked and said */
static void read_ok(struct kmt_session *s, const char *name)
{
	int ret;

	CHECK(kmt_session_init(s) == 0);
	ret = kmt_source_read_file(s, name);
	if (ret)
		fprintf(stderr, "%s\n", s->errmsg);
	CHECK_EQ_U64(ret, 0);
}

static const char clock_text[] = "[local] global counter uptime perf\n";

/*
 * The writer's file with a TRACECLOCK option and command lines padded so
 * that the CPU table ends pad bytes before a page edge: the clock's copy
 * after the table is the walk's last piece.  Returns the table's end.
 */
static uint64_t write_clock_file(const char *name, int pad, char *lines,
				 size_t lines_size)
{
	unsigned char page0[PAGE], page1[PAGE];
	struct kmt_tdw_option opts[4];
	struct kmt_tdw_system sys;
	struct kmt_blob fmt;
	struct kmt_tdw_header h = make_header(opts, &sys, &fmt);
	uint64_t sizes[2] = { PAGE, PAGE }, end, want, n;
	char err[256];
	int fd;

	opts[3].id = KMT_TD_OPT_TRACECLOCK;
	opts[3].val.data = clock_text;
	opts[3].val.len = strlen(clock_text);
	h.nr_options = 4;
	end = kmt_tdw_header_size(&h) - 8 - strlen(clock_text);
	/* one more command line, long enough to move the end where wanted */
	want = (PAGE - pad - end % PAGE + 2 * PAGE) % PAGE;
	if (want < 8)
		want += PAGE;
	CHECK(strlen(cmdlines) + want < lines_size);
	n = (size_t)snprintf(lines, lines_size, "%s44 ", cmdlines);
	memset(lines + n, 'x', want - 4);
	lines[n + want - 4] = '\n';
	lines[n + want - 3] = '\0';
	h.cmdlines.data = lines;
	h.cmdlines.len = strlen(lines);
	end += want;
	CHECK_EQ_U64(end % PAGE, PAGE - pad);

	fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ_U64(kmt_tdw_write_header(fd, &h, sizes, err, sizeof(err)), 0);
	CHECK_EQ_U64(kmt_tdw_header_size(&h), end + 8 + strlen(clock_text));
	make_page(page0, 1000000, cpu0_evs, 2);
	make_page(page1, 1000000, cpu1_evs, 1);
	n = kmt_tdw_data_offset(&h);
	CHECK(pwrite(fd, page0, PAGE, (off_t)n) == PAGE &&
	      pwrite(fd, page1, PAGE, (off_t)(n + PAGE)) == PAGE);
	close(fd);
	return end;
}

/* as trace-cmd writes it: after the CPU table, the clock's size and text */
static void test_clock_after_the_table(void)
{
	char name[64], lines[3 * PAGE], got[64];
	uint64_t end, len = 0;
	struct tracecmd_input *in;
	int fd;

	snprintf(name, sizeof(name), "/tmp/kmt-tdw-clock-%d.dat", (int)getpid());
	end = write_clock_file(name, 4, lines, sizeof(lines));
	fd = open(name, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(pread(fd, &len, 8, (off_t)end) == 8);
	CHECK_EQ_U64(len, strlen(clock_text));
	CHECK(pread(fd, got, len, (off_t)(end + 8)) == (ssize_t)len);
	CHECK(!memcmp(got, clock_text, len));
	close(fd);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	in = tracecmd_open(name, TRACECMD_FL_LOAD_NO_PLUGINS);
	CHECK(in != NULL);
	if (in)
		tracecmd_close(in);
	unlink(name);
}

/*
 * kmemtrace record wrote no copy of the clock after the table before
 * 2026-12: where the table ended within 8 bytes of a page, the size
 * libtracecmd reads there is the first page's timestamp.  That file is
 * read, and libtracecmd never allocates that size (the sanitizer build
 * would stop at it).
 */
static void test_clock_copy_missing_at_a_page_edge(void)
{
	char name[64], lines[3 * PAGE];
	unsigned char page[PAGE];
	uint64_t end, data, off;
	struct kmt_session s;
	int fd, cpu;

	snprintf(name, sizeof(name), "/tmp/kmt-tdw-noclock-%d.dat", (int)getpid());
	end = write_clock_file(name, 4, lines, sizeof(lines));
	/* the old layout: no copy, the pages from the next page edge on */
	data = end + 4;
	fd = open(name, O_RDWR);
	CHECK(fd >= 0);
	for (cpu = 0; cpu < 2; cpu++) {
		off = data + (uint64_t)cpu * PAGE;
		CHECK(pwrite(fd, &off, 8, (off_t)(end - 32 + 16 * cpu)) == 8);
	}
	memset(page, 0, 4);
	CHECK(pwrite(fd, page, 4, (off_t)end) == 4);
	make_page(page, 1000000, cpu0_evs, 2);
	CHECK(pwrite(fd, page, PAGE, (off_t)data) == PAGE);
	make_page(page, 1000000, cpu1_evs, 1);
	CHECK(pwrite(fd, page, PAGE, (off_t)(data + PAGE)) == PAGE);
	CHECK(ftruncate(fd, (off_t)(data + 2 * PAGE)) == 0);
	close(fd);

	read_ok(&s, name);
	CHECK_EQ_U64(s.nr_events[KMT_EV_KMALLOC], 3);
	CHECK_STR(kmt_session_comm(&s, 42), "tester");
	kmt_session_free(&s);
	unlink(name);
}

static void test_kmemtrace_reads_it(void)
{
	struct kmt_session s;

	read_ok(&s, path);
	CHECK_EQ_U64(s.nr_events[KMT_EV_KMALLOC], 3);
	CHECK_EQ_U64(kmt_session_total_events(&s), 3);
	CHECK_EQ_U64(s.nr_cpus, 2);
	CHECK_STR(kmt_session_comm(&s, 42), "tester");
	kmt_session_free(&s);
	unlink(path);
}

/*
 * A v6 file's kallsyms are parsed by kmemtrace's own table, not by
 * libtraceevent as well (a malloc and an sscanf a line, an eighth of
 * the report of a large recording): libtracecmd reads them blank.
 * The names are what libtraceevent's gave, the last symbol naming its
 * own address only.
 */
static void test_own_kallsyms(void)
{
	struct kmt_session s;
	uint64_t off = 99;

	CHECK(write_file() == 0);
	read_ok(&s, path);
	CHECK_EQ_U64(s.nr_events[KMT_EV_KMALLOC], 3);
	CHECK(s.tep != NULL);
	if (s.tep)
		CHECK(!tep_find_function(s.tep, 0xffffffff81234570ULL));
	CHECK_STR(kmt_symtab_lookup(&s.syms, 0xffffffff81234570ULL, &off),
		  "alloc_thing");
	CHECK_EQ_U64(off, 0x10);
	CHECK_STR(kmt_symtab_lookup(&s.syms, 0xffffffff81234600ULL, &off),
		  "after_thing");
	CHECK_EQ_U64(off, 0);
	CHECK(!kmt_symtab_lookup(&s.syms, 0xffffffff81234610ULL, NULL));
	CHECK(!kmt_symtab_lookup(&s.syms, 0xffffffff80000000ULL, NULL));
	kmt_session_free(&s);
	unlink(path);
}

/*
 * The same in a compressed v7 file (trace-cmd convert's, zstd): the
 * kallsyms are taken from their uncompressed section, and libtracecmd
 * reads the block compressed again with them blank.
 */
static void test_own_kallsyms_v7(void)
{
	const char *dir = getenv("KMT_TEST_DATA");
	struct kmt_session s;
	char name[4096];
	uint64_t off = 99;

	snprintf(name, sizeof(name), "%s/capture.v7.dat",
		 dir && *dir ? dir : "tests/data");
	read_ok(&s, name);
	CHECK(s.tep != NULL);
	if (s.tep)
		CHECK(!tep_find_function(s.tep, 0xffffffff81249034ULL));
	CHECK_STR(kmt_symtab_lookup(&s.syms, 0xffffffff81249034ULL, &off),
		  "x64_sys_call");
	CHECK_EQ_U64(off, 4);
	kmt_session_free(&s);
}

KMT_TESTS(KMT_TEST(test_header_layout), KMT_TEST(test_libtracecmd_reads_it),
	  KMT_TEST(test_options_read_back), KMT_TEST(test_stream_into_a_pipe),
	  KMT_TEST(test_kmemtrace_reads_it), KMT_TEST(test_own_kallsyms),
	  KMT_TEST(test_own_kallsyms_v7),
	  KMT_TEST(test_clock_after_the_table),
	  KMT_TEST(test_clock_copy_missing_at_a_page_edge))
