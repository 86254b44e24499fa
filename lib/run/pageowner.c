// SPDX-License-Identifier: GPL-2.0
/*
 * A page_owner dump into its analysis (run/pageowner.h): the dump's
 * first bytes told from other inputs, a big file read in parts by
 * threads and folded in file order.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/pageowner.h"
#include "run/pageowner.h"
#include "source/pageowner.h"
#include "source/source.h"

/* what the reader's callbacks reach: the run and its analysis */
struct po_ctx {
	struct kmt_po_run *run;
	struct kmt_po_analysis *a;
};

/* "'dump' line 7: bad PFN; record skipped" */
static void skipped_text(char *buf, size_t len, const char *display,
			 uint64_t line, const char *why)
{
	snprintf(buf, len, "'%s' line %llu: %s; record skipped", display,
		 (unsigned long long)line, why);
}

static void on_malformed(void *arg, uint64_t line, const char *why)
{
	struct po_ctx *ctx = arg;
	char text[1024];

	if (ctx->run->on_malformed) {
		skipped_text(text, sizeof(text), ctx->run->display, line, why);
		ctx->run->on_malformed(ctx->run->ctx, text);
	}
	kmt_po_add_malformed(ctx->a, line, why);
}

static int on_record(void *arg, const struct kmt_po_record *r)
{
	struct po_ctx *ctx = arg;

	return kmt_po_add(ctx->a, r);
}

/* the message into run->errmsg; 1 */
__attribute__((format(printf, 2, 3)))
static int po_error(struct kmt_po_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->errmsg, sizeof(run->errmsg), fmt, ap);
	va_end(ap);
	return 1;
}

/* the message into run->errmsg; why */
__attribute__((format(printf, 3, 4)))
static enum kmt_run_status po_fail(struct kmt_po_run *run,
				   enum kmt_run_status why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->errmsg, sizeof(run->errmsg), fmt, ap);
	va_end(ap);
	return why;
}

/* below this, a file is read in one piece unless --threads says */
#define AUTO_SPLIT_BYTES (16ULL << 20)
#define AUTO_MAX_THREADS 4
#define MAX_THREADS KMT_PO_MAX_THREADS

struct po_part {
	struct kmt_po_part range;
	struct kmt_po_reader r;
	struct kmt_po_analysis a;
	const char *display;
	pthread_t thread;
	int fd, ret, started;
};

static void *read_part(void *arg)
{
	struct po_part *p = arg;

	p->ret = kmt_po_read_part(&p->r, p->fd, &p->range, p->display);
	return NULL;
}

/* the CPUs this process may run on */
static int usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

static int plan_threads(const struct kmt_po_run *c, uint64_t size)
{
	int n;

	/* -d reports malformed records as they come, in file order */
	if (c->in_order)
		return 1;
	if (c->threads)
		return c->threads;
	if (size < AUTO_SPLIT_BYTES)
		return 1;
	n = usable_cpus();
	return n < AUTO_MAX_THREADS ? n : AUTO_MAX_THREADS;
}

/*
 * Reads ranges[1..n-1] in threads, each into an analysis of its own, and
 * ranges[0] here into a with r; then folds the others into a in
 * file order.  r ends with the totals of all parts.
 */
static int read_parts(struct kmt_po_run *c, struct kmt_po_analysis *a, int fd,
		      const struct kmt_po_part *ranges, int n,
		      struct kmt_po_reader *r)
{
	struct po_part *parts = calloc((size_t)n, sizeof(*parts));
	uint64_t lines;
	int i, ret;

	if (!parts)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		struct po_part *p = &parts[i];

		p->range = ranges[i];
		p->fd = fd;
		p->display = c->display;
		if (kmt_po_analysis_init(&p->a, &a->opt)) {
			p->ret = -ENOMEM;
			continue;
		}
		kmt_po_reader_init(&p->r, kmt_po_add, kmt_po_add_malformed,
				   &p->a);
		/* without a thread the part is read here: slower, not wrong */
		if (pthread_create(&p->thread, NULL, read_part, p))
			read_part(p);
		else
			p->started = 1;
	}
	ret = kmt_po_read_part(r, fd, &ranges[0], c->display);
	for (i = 1; i < n; i++) {
		if (parts[i].started)
			pthread_join(parts[i].thread, NULL);
	}
	/* each part's lines come after those of the parts before it */
	lines = r->line - 1;
	for (i = 1; i < n; i++) {
		struct po_part *p = &parts[i];

		if (!ret && p->ret) {
			ret = p->ret;
			memcpy(r->errmsg, p->r.errmsg, sizeof(r->errmsg));
		}
		if (!ret)
			ret = kmt_po_analysis_merge(a, &p->a, lines);
		else
			kmt_po_analysis_free(&p->a);
		lines += p->r.line - 1;
		r->nr_records += p->r.nr_records;
		r->nr_malformed += p->r.nr_malformed;
		r->nr_bytes += p->r.nr_bytes;
		kmt_po_reader_free(&p->r);
	}
	free(parts);
	return ret;
}

/*
 * The first bytes of the input, to tell other inputs from a dump: read
 * with pread from a regular file, so nothing is consumed; otherwise read
 * (at least a page_owner record from debugfs, which hands out one record
 * a read) and left in *buf for the reader.  0 or -errno.
 */
#define HEAD_BUF (64 * 1024)

static int peek_head(int fd, const struct stat *st, char **buf, size_t *len,
		     int *consumed)
{
	*len = 0;
	*consumed = !(S_ISREG(st->st_mode) && st->st_size > 0);
	*buf = malloc(HEAD_BUF);
	if (!*buf)
		return -ENOMEM;
	while (*len < KMT_INPUT_HEAD) {
		ssize_t n = *consumed ?
			    read(fd, *buf + *len, HEAD_BUF - *len) :
			    pread(fd, *buf + *len, KMT_INPUT_HEAD - *len,
				  (off_t)*len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return *len ? 0 : -errno;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	return 0;
}

/* what the input is when it is no dump, in msg: 1, or 0 for a dump */
static int not_a_dump(struct kmt_po_run *c, const char *head, size_t len)
{
	const struct kmt_source_ops *ops;

	if (len > KMT_INPUT_HEAD)
		len = KMT_INPUT_HEAD;
	if (kmt_po_sniff(head, len) == KMT_PO_SNIFF_SORTED)
		return po_error(c, "'%s' is already sorted by page_owner_sort: give the page_owner dump it was made from",
				c->display);
	ops = kmt_source_probe((const unsigned char *)head, len);
	if (!ops)
		return 0;
	if (ops == &kmt_source_perfdata)
		return po_error(c, "'%s' is a perf.data recording of kmem events: read it with 'kmemtrace report'",
				c->display);
	if (ops == &kmt_source_tracedat)
		return po_error(c, "'%s' is a trace.dat recording: read it with 'kmemtrace report'",
				c->display);
	return po_error(c, "'%s' is ftrace text: read it with 'kmemtrace report'",
			c->display);
}

enum kmt_run_status kmt_po_run_read(struct kmt_po_run *c,
				    struct kmt_po_analysis *a)
{
	struct po_ctx ctx = { c, a };
	char *head = NULL;
	size_t head_len = 0;
	int consumed = 0;
	struct kmt_po_part ranges[MAX_THREADS];
	struct kmt_po_reader r;
	int fd, ret, nr_parts;
	struct stat st;

	memset(&st, 0, sizeof(st));

	if (!strcmp(c->input, "-")) {
		fd = STDIN_FILENO;
		c->display = "<stdin>";
	} else {
		c->display = c->input;
		fd = open(c->input, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			int err = errno;

			if (!strcmp(c->input, KMT_PO_PAGE_OWNER_PATH) ||
			    !strcmp(c->input, KMT_PO_SHOW_STACKS_PATH))
				return po_fail(c, KMT_RUN_E_INPUT, "cannot open '%s': %s (mount debugfs and boot with page_owner=on, or give -i FILE)",
					       c->input, strerror(err));
			return po_fail(c, KMT_RUN_E_INPUT, "cannot open '%s': %s",
				       c->input, strerror(err));
		}
		if (fstat(fd, &st))
			memset(&st, 0, sizeof(st));
		if (S_ISDIR(st.st_mode)) {
			close(fd);
			return po_fail(c, KMT_RUN_E_INPUT, "cannot read '%s': %s",
				       c->input, strerror(EISDIR));
		}
	}
	ret = peek_head(fd, &st, &head, &head_len, &consumed);
	/* a read that fails is tried again by the reader, which says why */
	if (ret == -ENOMEM || (!ret && not_a_dump(c, head, head_len))) {
		enum kmt_run_status code = ret ? po_fail(c, KMT_RUN_E_NOMEM,
							 "out of memory") :
						 KMT_RUN_E_INPUT;

		free(head);
		if (fd != STDIN_FILENO)
			close(fd);
		return code;
	}
	kmt_po_reader_init(&r, on_record, on_malformed, &ctx);
	nr_parts = 1;
	/* what was read to look at goes to the reader first */
	ret = !ret && consumed && head_len ? kmt_po_feed(&r, head, head_len) : 0;
	free(head);
	if (ret) {
		if (fd != STDIN_FILENO)
			close(fd);
		kmt_po_reader_free(&r);
		return po_fail(c, KMT_RUN_E_NOMEM, "out of memory reading '%s'",
			       c->display);
	}
	if (fd != STDIN_FILENO && S_ISREG(st.st_mode)) {
		int want = plan_threads(c, (uint64_t)st.st_size);

		if (want > 1)
			nr_parts = kmt_po_plan_parts(fd, (uint64_t)st.st_size,
						     ranges, want);
	}
	if (nr_parts > 1)
		ret = read_parts(c, a, fd, ranges, nr_parts, &r);
	else
		ret = kmt_po_read_fd(&r, fd, c->display);
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret < 0) {
		if (ret == -ENOMEM && !r.errmsg[0])
			snprintf(r.errmsg, sizeof(r.errmsg),
				 "out of memory reading '%s'", c->display);
		po_error(c, "%s", r.errmsg[0] ? r.errmsg : strerror(-ret));
		c->read_err = ret;
		kmt_po_reader_free(&r);
		return KMT_RUN_E_READ;
	}
	if (!r.nr_bytes) {
		kmt_po_reader_free(&r);
		return po_fail(c, KMT_RUN_E_INPUT, "'%s' is empty", c->display);
	}
	if (!r.nr_records) {
		kmt_po_reader_free(&r);
		if (a->nr_kept_malformed)
			return po_fail(c, KMT_RUN_E_INPUT,
				       "'%s' is not a page_owner dump: line %llu: %s",
				       c->display,
				       (unsigned long long)a->malformed[0].line,
				       a->malformed[0].why);
		return po_fail(c, KMT_RUN_E_INPUT, "'%s' holds no page_owner record",
			       c->display);
	}
	kmt_po_reader_free(&r);
	return KMT_RUN_OK;
}


/* the first malformed records told one by one; the rest counted */
#define TOLD_MALFORMED 5

void kmt_po_run_skipped(const struct kmt_po_analysis *a, const char *display,
			void (*say)(void *ctx, const char *text), void *ctx)
{
	char msg[1024];
	size_t i;

	if (!a->nr_malformed)
		return;
	for (i = 0; i < a->nr_kept_malformed && i < TOLD_MALFORMED; i++) {
		skipped_text(msg, sizeof(msg), display, a->malformed[i].line,
			     a->malformed[i].why);
		say(ctx, msg);
	}
	if (a->nr_malformed > TOLD_MALFORMED) {
		snprintf(msg, sizeof(msg), "'%s': %llu malformed records skipped "
			 "in all (-d lists each)", display,
			 (unsigned long long)a->nr_malformed);
		say(ctx, msg);
	}
}
