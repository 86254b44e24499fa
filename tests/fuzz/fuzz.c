// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer targets, one per reader and one for the whole report (the
 * engine, lib/run, with every analysis): this
 * file is compiled once per target with -DFUZZ_TARGET_<NAME> (fuzz.mk).
 *
 * The bytes reach the readers as a file does: written to a memfd, which
 * kmt_source_read_file (or a command) opens again by its /proc/self/fd
 * name, so that the size, the head sniffing and the mappings are those
 * of a real file.  The pipe target hands them to stdin through a pipe,
 * as `kmemtrace report -i -` reads `perf record -o -`.
 *
 * Each reader target keeps to the inputs its reader would be picked for
 * (libFuzzer drops the others, return -1): a mutation that turns a
 * trace.dat into text would otherwise spend the trace.dat target's time
 * on the text reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event/session.h"
#include "analysis/pageowner.h"
#include "render/render.h"
#include "run/pageowner.h"
#include "run/report.h"
#include "source/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * The perf.data reader looks for the traced kernel's symbols in perf's
 * build-id cache: not on this machine's, whose contents would make a
 * finding depend on where it was found.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("PERF_BUILDID_DIR", "/nonexistent/kmt-fuzz", 1);
	return 0;
}

static int write_all(int fd, const uint8_t *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

/* the bytes as a regular file: its fd, its name in path */
static int to_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("kmt-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (write_all(fd, data, size) || lseek(fd, 0, SEEK_SET))
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* reads what the events carry, so that a bad field is touched here */
static int consume(void *ctx, const struct kmt_event *ev)
{
	uint64_t *sum = ctx;

	*sum += ev->ts + ev->ptr + ev->bytes_req + ev->bytes_alloc +
		ev->gfp + ev->call_site + ev->order + ev->stack;
	return 0;
}

static void read_session(const char *path)
{
	struct kmt_session s;
	uint64_t sum = 0;

	if (kmt_session_init(&s))
		abort();
	s.consumer = consume;
	s.consumer_ctx = &sum;
	kmt_source_read_file(&s, path);
	kmt_session_free(&s);
}

#if defined(FUZZ_TARGET_REPORT)
/*
 * Every analysis through the report engine (lib/run), as `kmemtrace
 * report` runs it, in one of the three formats drawn to /dev/null, with
 * the reader and the analyses in one thread or two (a thread costs more
 * than a small input does: not every time), the processes by task,
 * thread group or name.
 */
static void run_report(const char *path, size_t size)
{
	static const char *const fmt[] = { "text", "json", "csv" };
	struct kmt_run_spec spec = { 0 };
	enum kmt_run_status st;
	struct kmt_run *run;
	char msg[256];
	size_t i;
	FILE *out;

	for (i = 0; i < kmt_run_nr_analyses; i++)
		*kmt_run_want_flag(&spec.want, i) = 1;
	spec.opts.caller = spec.opts.alloc = spec.opts.all_findings = 1;
	spec.opts.warmup = 1000000000ULL;
	spec.opts.by_tgid = size / 6 % 3 == 1;
	spec.opts.by_comm = size / 6 % 3 == 2;
	spec.threads = size / 3 % 2 ? 1 : 2;
	run = kmt_run_create(&spec, &st, msg, sizeof(msg));
	if (!run)
		abort();
	if (kmt_run_read(run, path) == KMT_RUN_OK &&
	    kmt_run_finish(run, kmt_renderer_find(fmt[size % 3])) == KMT_RUN_OK) {
		out = fopen("/dev/null", "we");
		if (!out)
			abort();
		kmt_run_draw(run, out);
		fclose(out);
	}
	kmt_run_free(run);
}
#endif

#if defined(FUZZ_TARGET_PAGEOWNER)
/*
 * A dump read as `kmemtrace pageowner` reads it (lib/run/pageowner.c,
 * one thread), grouped by record or by stack, and drawn as text or as
 * JSON with its totals to /dev/null.
 */
static void run_pageowner(const char *path, size_t size)
{
	static const struct kmt_po_sortkey key = { KMT_PO_KEY_TIMES, 1 };
	const struct kmt_renderer *rd = kmt_renderer_find(size % 2 ? "json" :
								       "text");
	struct kmt_po_run run = { .input = path, .threads = 1 };
	struct kmt_po_report_opts o = { 0 };
	struct kmt_po_options opt;
	struct kmt_po_analysis a;
	struct kmt_report r;
	FILE *out;

	memset(&opt, 0, sizeof(opt));
	opt.cull = size / 2 % 2 ? KMT_PO_CULL_STACK : 0;
	if (kmt_po_analysis_init(&a, &opt))
		abort();
	kmt_report_init(&r);
	if (kmt_po_run_read(&run, &a) == KMT_RUN_OK &&
	    !kmt_po_analysis_finish(&a)) {
		o.input = run.display;
		o.keys = &key;
		o.nr_keys = 1;
		o.totals = size % 2;
		r.meta.bare = 1;
		if (!kmt_po_report(&a, &r, &o)) {
			out = fopen("/dev/null", "we");
			if (!out)
				abort();
			rd->render(&r, out);
			fclose(out);
		}
	}
	kmt_report_free(&r);
	kmt_po_analysis_free(&a);
}
#endif

#ifdef FUZZ_TARGET_PERFPIPE
struct feeder {
	const uint8_t *data;
	size_t size;
	int fd;
};

static void *feed(void *arg)
{
	struct feeder *f = arg;

	/* EPIPE when the reader stops early: that is its right */
	write_all(f->fd, f->data, f->size);
	close(f->fd);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int saved = -1;
	struct feeder f = { data, size, -1 };
	pthread_t t;
	int p[2];

	if (size < 8 || memcmp(data, "PERFILE2", 8))
		return -1;
	if (saved < 0) {
		signal(SIGPIPE, SIG_IGN);
		saved = dup(STDIN_FILENO);
	}
	if (pipe2(p, O_CLOEXEC))
		abort();
	f.fd = p[1];
	if (dup2(p[0], STDIN_FILENO) < 0)
		abort();
	close(p[0]);
	if (pthread_create(&t, NULL, feed, &f))
		abort();
	read_session("-");
	/* the writer ends when the reader's end is gone */
	close(STDIN_FILENO);
	pthread_join(t, NULL);
	if (saved >= 0)
		dup2(saved, STDIN_FILENO);
	return 0;
}
#else

/* 1 if the target's reader would be chosen for these bytes */
static int ours(const uint8_t *data, size_t size)
{
	size_t len = size < KMT_INPUT_HEAD ? size : KMT_INPUT_HEAD;
	const struct kmt_source_ops *ops = kmt_source_probe(data, len);

	(void)ops;
#if defined(FUZZ_TARGET_PERFDATA)
	return ops == &kmt_source_perfdata;
#elif defined(FUZZ_TARGET_TRACEDAT6) || defined(FUZZ_TARGET_TRACEDAT7) || \
	defined(FUZZ_TARGET_TRACEDATZ)
	/* the codec name is read at bytes 18 to 22 */
	if (ops != &kmt_source_tracedat || size < 23)
		return 0;
#if defined(FUZZ_TARGET_TRACEDAT6)
	return data[10] == '6';
#else
	/* v7: "7\0", endianness, long size, page size, then the codec */
	if (data[10] != '7' || data[11])
		return 0;
#if defined(FUZZ_TARGET_TRACEDAT7)
	return !memcmp(data + 18, "none", 5);
#else
	return !!memcmp(data + 18, "none", 5);
#endif
#endif
#elif defined(FUZZ_TARGET_FTRACE) || defined(FUZZ_TARGET_PERFSCRIPT)
	return ops == &kmt_source_text;
#else
	return 1;
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (!ours(data, size))
		return -1;
	fd = to_memfd(data, size, path, sizeof(path));
#if defined(FUZZ_TARGET_REPORT)
	run_report(path, size);
#elif defined(FUZZ_TARGET_PAGEOWNER)
	run_pageowner(path, size);
#else
	read_session(path);
#endif
	close(fd);
	return 0;
}
#endif
