// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace allocinfo: the always-on per-callsite counters of kernels
 * with allocation profiling (/proc/allocinfo, 6.10 on).  One snapshot:
 * its top tags, or totals per module, file or function.  Two (--diff A
 * B): the growth of each.  -I SECONDS: the input read again each
 * interval and the growth over it shown, the leak view.  The tables are
 * report model sections (lib/analysis/allocinfo.c), drawn by the
 * renderer --format names.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/allocinfo.h"
#include "builtin.h"
#include "event/session.h"
#include "options.h"
#include "render/render.h"
#include "report/report.h"
#include "source/allocinfo.h"
#include "source/source.h"
#include "util/strbuf.h"

#define ALLOCINFO_PATH "/proc/allocinfo"
#define MEM_PROFILING_SYSCTL "/proc/sys/vm/mem_profiling"
/* what a kernel without /proc/allocinfo needs, said in one line */
#define NO_PROFILING_HINT						\
	"this kernel has no allocation profiling: build it with "	\
	"CONFIG_MEM_ALLOC_PROFILING=y and turn it on with "		\
	"'sysctl vm.mem_profiling=1' or the boot parameter "		\
	"sysctl.vm.mem_profiling=1 (on from boot with "		\
	"CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT=y), or give -i FILE"

static const char *const allocinfo_usage[] = {
	"kmemtrace allocinfo [<options>] [--recording <rec>] [-i] [<file>]",
	"kmemtrace allocinfo [<options>] --diff <a> <b>",
	"kmemtrace allocinfo [<options>] -I <seconds> [-n <count>] [-i <file>]",
	NULL
};

static void list_words(FILE *out, int help, const char *head,
		       const char *(*name)(size_t))
{
	struct kmt_sb line = KMT_SB_INIT;
	const char *s;
	size_t i;

	for (i = 0; (s = name(i)); i++) {
		if (!help)
			fprintf(out, "%s\n", s);
		else
			kmt_sb_addf(&line, "%s%s", i ? ", " : "", s);
	}
	if (help) {
		fprintf(out, "%s", head);
		kmt_help_wrap(out, "", 4, line.oom ? "" : kmt_sb_str(&line));
	}
	kmt_sb_release(&line);
}

static void list_sort_keys(FILE *out, int help)
{
	list_words(out, help,
		   "\nsort keys (-s), bytes the default; growth, the default "
		   "of --diff and -I:\n",
		   kmt_ai_sort_name);
}

static void list_by(FILE *out, int help)
{
	list_words(out, help, "\ntables (--by), tag the default:\n",
		   kmt_ai_by_name);
}

/* the one-line words of a list: "bytes, calls, growth" */
static const char *words(char *buf, size_t len, const char *(*name)(size_t))
{
	const char *s;
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; (s = name(i)) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", s);
	return buf;
}

struct ai_cmd {
	struct kmt_strtab names;
	struct kmt_allocinfo snap[2];
	struct kmt_ai_opts o;
	const struct kmt_renderer *rd;
	/*
	 * Where every report's rows come from (ndjson, csv): this machine
	 * as the command starts, when it reads ALLOCINFO_PATH (here.meta),
	 * and the host --host names
	 */
	struct kmt_report here;
	int live;
	const char *host;
	uint64_t unreadable;	/* malformed lines of every snapshot read */
	uint64_t first_line;	/* and the first of them, with why and where */
	const char *first_why, *first_in;
};

/* reads path into snap i; 0, or the exit code after the message */
static int read_snapshot(struct ai_cmd *c, int i, const char *path)
{
	struct kmt_allocinfo *ai = &c->snap[i];
	int ret;

	kmt_allocinfo_reset(ai);
	ret = kmt_allocinfo_read(ai, path);
	if (ret == -ENOENT && !strcmp(path, ALLOCINFO_PATH))
		return kmt_error(KMT_EXIT_INPUT, "no %s: %s", ALLOCINFO_PATH,
				 NO_PROFILING_HINT);
	if (ret)
		return kmt_error(kmt_read_exit(ret), "%s", ai->errmsg);
	if (ai->nr_malformed && !c->unreadable) {
		c->first_line = ai->notes[0].line;
		c->first_why = ai->notes[0].why;
		c->first_in = path;
	}
	c->unreadable += ai->nr_malformed;
	return 0;
}

static const char *display(const char *path)
{
	return strcmp(path, "-") ? path : "the standard input";
}

static const char *format_of(struct kmt_report *r,
			     const struct kmt_allocinfo *ai)
{
	if (!ai->version[0])
		return "allocinfo, no header";
	return kmt_report_printf(r, "allocinfo %s", ai->version);
}

/* what every report says of its snapshots: which, and what was unread */
static void fill_meta(const struct ai_cmd *c, struct kmt_report *r,
		      const struct kmt_allocinfo *ai, size_t n,
		      const char *const *paths)
{
	struct kmt_report_meta *m = &r->meta;
	const struct kmt_report_meta *h = &c->here.meta;
	size_t i, k;

	/*
	 * A live read is of this machine, which the rows name.  Text's
	 * header of a snapshot names its input and format alone, as it
	 * always has: the kernel is for the rows.
	 */
	if (c->live) {
		m->host = h->host;
		m->boot_id = h->boot_id;
		m->has_start = h->has_start;
		m->start_unix_ns = h->start_unix_ns;
		if (strcmp(c->rd->name, "text"))
			m->kernel = h->kernel;
	}
	if (c->host)
		m->host = c->host;

	m->snapshot = 1;
	m->input = n == 1 ? kmt_report_strdup(r, display(paths[0])) :
		   kmt_report_printf(r, "A %s, B %s", display(paths[0]),
				     display(paths[1]));
	m->format = format_of(r, &ai[0]);
	if (n == 2 && strcmp(ai[0].version, ai[1].version))
		m->format = kmt_report_printf(r, "%s, %s", m->format,
					      format_of(r, &ai[1]));
	for (i = 0; i < n; i++) {
		m->unreadable += ai[i].nr_malformed;
		for (k = 0; k < ai[i].nr_notes && m->nr_notes < KMT_META_NOTES;
		     k++) {
			struct kmt_meta_note *note = &m->notes[m->nr_notes++];

			note->unit = "line";
			note->where = ai[i].notes[k].line;
			note->why = n == 1 ? ai[i].notes[k].why :
				    kmt_report_printf(r, "%s %s",
						      i ? "B" : "A",
						      ai[i].notes[k].why);
		}
	}
}

static void warn_unreadable(const struct ai_cmd *c)
{
	if (!c->unreadable)
		return;
	kmt_warning("'%s': %llu line%s could not be read, left out of the report; the first at line %llu: %s",
		    display(c->first_in), (unsigned long long)c->unreadable,
		    c->unreadable == 1 ? "" : "s",
		    (unsigned long long)c->first_line, c->first_why);
}

/* counters that do not move: profiling compiled in but turned off */
static void check_profiling_on(const char *path)
{
	char buf[32] = "";
	FILE *f;

	if (strcmp(path, ALLOCINFO_PATH))
		return;
	f = fopen(MEM_PROFILING_SYSCTL, "r");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && buf[0] == '0')
		kmt_warning("allocation profiling is off (vm.mem_profiling is 0): the counters do not move; 'sysctl vm.mem_profiling=1' turns it on");
	fclose(f);
}

/* more: r continues the report drawn before it (-I), where it can */
static int render(struct ai_cmd *c, struct kmt_report *r, FILE *out,
		  int more)
{
	if (r->oom)
		return -ENOMEM;
	if (more && c->rd->render_more)
		return c->rd->render_more(r, out);
	return c->rd->render(r, out);
}

/*
 * --recording: the slab allocations a recording traced, per function,
 * for the tags of those functions.  0, or the exit code after the
 * message.
 */
static int read_recording(struct ai_cmd *c, struct kmt_ai_join *j,
			  const char *path)
{
	struct kmt_session s;
	uint64_t n;
	int ret;

	if (kmt_session_init(&s))
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	s.consumer = kmt_ai_join_event;
	s.consumer_ctx = j;
	ret = kmt_source_read_file(&s, path);
	if (!ret && kmt_ai_join_resolve(j, &s, &c->names))
		ret = kmt_session_error(&s, ENOMEM, "out of memory");
	if (ret) {
		ret = kmt_error(kmt_read_exit(ret), "%s", s.errmsg);
		goto out;
	}
	n = kmt_session_unreadable(&s);
	if (n)
		kmt_warning("'%s': %llu record%s of the recording could not be read, left out of its figures",
			    path, (unsigned long long)n, n == 1 ? "" : "s");
out:
	kmt_session_free(&s);
	return ret;
}

/*
 * -I: the growth of every tag over each interval, count of them (0: on
 * and on).  0; an exit code after its message; or -1 when out could not
 * be written (errno says why), for the caller to say.
 */
static int sample(struct ai_cmd *c, const char *input, int seconds,
		  int count, FILE *out)
{
	/* one JSON document at the end; the other formats as they come */
	int json = !strcmp(c->rd->name, "json");
	struct kmt_report all, one;
	struct timespec ts = { .tv_sec = seconds };
	int k, prev = 0, code;
	const char *paths[1] = { input };

	code = read_snapshot(c, 0, input);
	if (code)
		return code;
	/* thousands of tags, few of which move in a second */
	c->o.changed_only = 1;
	kmt_report_init(&all);
	fill_meta(c, &all, &c->snap[0], 1, paths);
	for (k = 1; !count || k <= count; k++) {
		struct kmt_report *r = json ? &all : &one;
		const char *title;
		int oom;

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ts.tv_sec = seconds;
		code = read_snapshot(c, !prev, input);
		if (code)
			goto out;
		if (!json) {
			kmt_report_init(&one);
			fill_meta(c, &one, &c->snap[0], 1, paths);
		}
		title = kmt_report_printf(r, "Interval %d: growth over %d s",
					  k, seconds);
		oom = kmt_ai_report_diff(r, &c->snap[prev], &c->snap[!prev],
					 &c->o, "intervals",
					 kmt_report_printf(r, "%d", k), title, 1);
		if (!oom && !json && render(c, &one, out, k > 1))
			code = -1;
		if (!json)
			kmt_report_free(&one);
		if (oom)
			code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		if (!code && fflush(out))
			code = -1;
		if (code)
			goto out;
		prev = !prev;
	}
	/* the header counts what every snapshot had unreadable */
	all.meta.unreadable = c->unreadable;
	if (json && render(c, &all, out, 0))
		code = -1;
out:
	kmt_report_free(&all);
	return code;
}

int cmd_allocinfo(int argc, char **argv)
{
	const char *input = NULL, *output = NULL, *sort = NULL, *by = NULL;
	const char *module = NULL, *file = NULL, *func = NULL, *rec = NULL;
	const char *format = NULL, *host = NULL;
	int json = 0, diff = 0, limit = 0, interval = 0, count = -1;
	const struct kmt_option options[] = {
		OPT_STRING('i', "input", &input, "file",
			   "a /proc/allocinfo snapshot, '-' for stdin (default: "
			   ALLOCINFO_PATH ", or stdin when it is a pipe)"),
		OPT_OUTPUT('o', "output", &output, "file",
			   "write to <file> ('-': stdout, the default)"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats,
			  "output format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "print one JSON object (--format json)"),
		OPT_STRING(0, "host", &host, "name",
			   "ndjson: the host name every row carries (default: this "
			   "machine's when reading " ALLOCINFO_PATH ")"),
		OPT_GROUP("what to show"),
		OPT_WORDS(0, "by", &by, "table", list_by,
			  "tags (default), or totals per module, file or func"),
		OPT_WORDS('s', "sort", &sort, "key", list_sort_keys,
			  "sort by bytes, calls or growth (see below)"),
		OPT_INT('l', "limit", &limit, "n", 0, INT_MAX,
			"show the first <n> rows (0, the default: all)"),
		OPT_LIST(0, "module", &module, "globs",
			 "only tags of modules matching a glob ('*' built in too)"),
		OPT_LIST(0, "file", &file, "globs",
			 "only tags in source files matching a glob (mm/*)"),
		OPT_LIST(0, "func", &func, "globs",
			 "only tags in functions matching a glob"),
		OPT_STRING(0, "recording", &rec, "file",
			   "add a recording's slab allocations per function beside the tags"),
		OPT_GROUP("comparing snapshots"),
		OPT_BOOL(0, "diff", &diff,
			 "compare two snapshots <a> and <b>: growth per tag"),
		OPT_INT('I', "interval", &interval, "seconds", 1, 86400,
			"read the input again every <seconds>: growth per interval"),
		OPT_INT('n', "count", &count, "count", 1, INT_MAX,
			"with -I: stop after <count> intervals (default: never)"),
		OPT_END()
	};
	const char *paths[2];
	struct kmt_report r;
	struct kmt_ai_join join;
	struct ai_cmd c;
	char msg[512], keys[128];
	int nargs, code, v, i;
	FILE *out;

	nargs = kmt_parse_options(argc, argv, options, allocinfo_usage, 0);
	memset(&c, 0, sizeof(c));
	code = kmt_choose_section_format(format, json, &c.rd);
	if (code)
		return code;
	c.host = host;
	c.o.limit = (size_t)limit;
	c.o.module = module;
	c.o.file = file;
	c.o.func = func;
	c.o.sort = diff || interval ? KMT_AI_SORT_GROWTH : KMT_AI_SORT_BYTES;
	if (by) {
		v = kmt_ai_by_parse(by);
		if (v < 0)
			return kmt_usage_error("unknown table '%s' for --by (tables: %s)",
					       by, words(keys, sizeof(keys), kmt_ai_by_name));
		c.o.by = (enum kmt_ai_by)v;
	}
	if (sort) {
		v = kmt_ai_sort_parse(sort);
		if (v < 0)
			return kmt_usage_error("unknown sort key '%s' (keys: %s)",
					       sort, words(keys, sizeof(keys), kmt_ai_sort_name));
		if (v == KMT_AI_SORT_GROWTH && !diff && !interval)
			return kmt_usage_error("sort key 'growth' compares two snapshots: give --diff A B or -I SECONDS");
		c.o.sort = (enum kmt_ai_sort)v;
	}
	if (diff && interval)
		return kmt_usage_error("--diff and -I exclude each other");
	if (rec && (diff || interval))
		return kmt_usage_error("--recording joins one snapshot, not --diff or -I");
	if (count >= 0 && !interval)
		return kmt_usage_error("-n counts the intervals of -I: give -I SECONDS");
	if (interval && !strcmp(c.rd->name, "json") && count < 0)
		return kmt_usage_error("%s with -I makes one object at the end: give -n COUNT",
				       json ? "--json" : "--format json");
	if (diff) {
		if (input || nargs != 2)
			return kmt_usage_error("--diff compares two snapshots: give them as A B");
		paths[0] = argv[0];
		paths[1] = argv[1];
		if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-"))
			return kmt_usage_error("the standard input holds one snapshot, not A and B");
	} else {
		if (nargs > 1)
			return kmt_usage_error("one input at a time, not '%s' and '%s'",
					       argv[0], argv[1]);
		code = kmt_choose_input(input, nargs ? argv[0] : NULL,
					ALLOCINFO_PATH, NO_PROFILING_HINT,
					&input, msg, sizeof(msg));
		if (code == KMT_EXIT_INPUT)
			return kmt_error(code, "no %s: %s", ALLOCINFO_PATH,
					 NO_PROFILING_HINT);
		if (code)
			return code;
		if (interval && !strcmp(input, "-"))
			return kmt_usage_error("-I reads its input again each interval: give a file, not the standard input");
		paths[0] = input;
	}
	if (kmt_strtab_init(&c.names))
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	kmt_allocinfo_init(&c.snap[0], &c.names);
	kmt_allocinfo_init(&c.snap[1], &c.names);
	kmt_report_init(&r);
	kmt_report_init(&c.here);
	for (i = 0; i < (diff ? 2 : 1); i++)
		c.live |= !strcmp(paths[i], ALLOCINFO_PATH);
	if (c.live)
		kmt_report_meta_here(&c.here, ALLOCINFO_PATH, "allocinfo");
	if (c.here.oom) {
		code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	kmt_ai_join_init(&join);

	if (rec) {
		code = read_recording(&c, &join, rec);
		if (code)
			goto out;
		c.o.join = &join;
	}
	if (!interval) {
		for (i = 0; i < (diff ? 2 : 1); i++) {
			code = read_snapshot(&c, i, paths[i]);
			if (code)
				goto out;
		}
	}
	check_profiling_on(paths[0]);
	out = kmt_open_output(output);
	if (!out) {
		code = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 output, strerror(errno));
		goto out;
	}
	if (interval) {
		code = sample(&c, paths[0], interval, count < 0 ? 0 : count,
			      out);
		if (code < 0) {
			code = kmt_close_output(out, output, errno ? errno : EIO);
			goto out;
		}
		if (code) {
			if (out != stdout)
				fclose(out);
			goto out;
		}
	} else {
		fill_meta(&c, &r, c.snap, diff ? 2 : 1, paths);
		if (rec)
			r.meta.input = kmt_report_printf(&r, "%s, recording %s",
							 r.meta.input, rec);
		if (diff)
			code = kmt_ai_report_diff(&r, &c.snap[0], &c.snap[1],
						  &c.o, "allocinfo", "diff",
						  "Growth from A to B", 1);
		else
			code = kmt_ai_report(&r, &c.snap[0], &c.o);
		if (code || r.oom) {
			if (out != stdout)
				fclose(out);
			code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
			goto out;
		}
		if (render(&c, &r, out, 0)) {
			code = kmt_close_output(out, output, errno ? errno : EIO);
			goto out;
		}
	}
	code = kmt_close_output(out, output, 0);
	if (!code && c.unreadable) {
		warn_unreadable(&c);
		code = KMT_EXIT_PARTIAL;
	}
out:
	kmt_report_free(&r);
	kmt_report_free(&c.here);
	kmt_ai_join_free(&join);
	kmt_allocinfo_free(&c.snap[0]);
	kmt_allocinfo_free(&c.snap[1]);
	kmt_strtab_free(&c.names);
	return code;
}
