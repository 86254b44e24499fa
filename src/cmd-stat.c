// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace stat: how many of each kmem event, and how fast, like
 * `perf stat -e 'kmem:*'`.  Counting only: exact, and nothing on disk.
 * The counts are a report (kmt_counters_report) drawn by lib/render.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "options.h"
#include "analysis/counts.h"
#include "record/counter.h"
#include "record/recorder.h"
#include "render/render.h"
#include "report/report.h"
#include "target.h"
#include "util/strbuf.h"

static const char *const stat_usage[] = {
	"kmemtrace stat [<options>] [-a | -p <pid>,... | -- <command> [<args>...]]",
	NULL
};

struct stat_out {
	const struct kmt_counters *c;
	const struct kmt_renderer *rd;
	int json;
	FILE *out;
	/* this machine and the run's start, what every ndjson row says */
	struct kmt_report base;
	size_t drawn;		/* reports drawn: the next continues them */
};

/*
 * One report, of the counts k (NULL: the heading of the intervals) over
 * [from, to] ns: the first drawn whole, the next ones continuing it
 * where the format can (text, CSV: one heading), else each whole (JSON
 * compact, an object a line, and ndjson).  0 or -ENOMEM.
 */
static int draw(struct stat_out *o, const struct kmt_counts *k,
		uint64_t from, uint64_t to)
{
	struct kmt_report r;
	int ret;

	kmt_report_init(&r);
	r.meta = o->base.meta;
	r.meta.first_ts = from;
	r.meta.last_ts = to;
	ret = k ? kmt_counters_report(&r, o->c, k) :
		  kmt_counters_report_heading(&r);
	if (!ret) {
		if (o->json)
			kmt_render_json_except(&r, o->out, NULL, 0);
		else if (o->drawn && o->rd->render_more)
			o->rd->render_more(&r, o->out);
		else
			o->rd->render(&r, o->out);
		o->drawn++;
		fflush(o->out);
	}
	kmt_report_free(&r);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	const char *output = NULL, *format = NULL, *host = NULL;
	int json = 0, interval_ms = 0;
	struct target t = { .flags = TARGET_THREADS };
	const struct kmt_option options[] = {
		OPT_BOOL('a', "all-cpus", &t.all, "count on every CPU (the default without a command)"),
		OPT_LIST('p', "pid", &t.pid_list, "pid,...", "count these processes (and their threads)"),
		TARGET_OPT_DURATION(&t),
		OPT_INT('I', "interval", &interval_ms, "ms", 10, INT_MAX,
			"print the counts of every interval"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats,
			  "output format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "JSON output, one object per interval with -I (--format json)"),
		OPT_OUTPUT('o', "output", &output, "file",
			   "write the counts to <file> ('-': stdout; default: stderr, as perf stat)"),
		OPT_STRING(0, "host", &host, "name",
			   "ndjson: the host name every row carries (default: this machine's)"),
		OPT_END()
	};
	struct kmt_counters counters;
	struct stat_out out = { .c = &counters };
	enum kmt_counter_target target;
	uint64_t *cur = NULL, *prev = NULL, *delta = NULL;
	uint64_t last, tick_ns, next_tick;
	struct kmt_sb what = KMT_SB_INIT;
	struct kmt_counts k = { .at = -1 };
	int nargs, ret, code = 0, e;

	nargs = kmt_parse_options(argc, argv, options, stat_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	code = target_check(&t, nargs, argv);
	if (code)
		return code;
	code = kmt_choose_section_format(format, json, &out.rd);
	if (code)
		return code;
	out.json = !strcmp(out.rd->name, "json");
	tick_ns = (uint64_t)interval_ms * 1000000;

	{
		char err[512];

		if (kmt_rec_check_access(err, sizeof(err)))
			return kmt_error(KMT_EXIT_RUNTIME, "%s", err);
	}
	out.out = output ? kmt_open_output(output) : stderr;
	if (!out.out)
		return kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 output, strerror(errno));
	kmt_report_init(&out.base);
	ret = kmt_counters_init(&counters);
	if (ret) {
		kmt_error(KMT_EXIT_RUNTIME, "%s", counters.errmsg);
		if (output)
			kmt_close_output(out.out, output, 0);
		kmt_report_free(&out.base);
		return KMT_EXIT_RUNTIME;
	}
	code = target_pids(&t);
	if (code)
		goto out;
	if (t.pid_list) {
		target = KMT_COUNT_TASKS;
		kmt_sb_addf(&what, "process %s", t.pid_list);
	} else if (t.have_cmd && !t.all) {
		target = KMT_COUNT_EXEC;
		kmt_sb_adds(&what, t.argv[0]);
		for (e = 1; e < nargs; e++)
			kmt_sb_addf(&what, " %s", t.argv[e]);
	} else {
		target = KMT_COUNT_SYSTEM;
		kmt_sb_adds(&what, "system wide");
	}

	target_signals();
	code = target_prepare(&t, 0);
	if (code)
		goto out;
	if (target == KMT_COUNT_EXEC)
		ret = kmt_counters_open(&counters, target, &t.wl.pid, 1);
	else
		ret = kmt_counters_open(&counters, target, t.pids, t.nr_pids);
	if (ret) {
		code = kmt_error(KMT_EXIT_RUNTIME, "%s", counters.errmsg);
		goto out;
	}
	cur = calloc(counters.nr_events, sizeof(*cur));
	prev = calloc(counters.nr_events, sizeof(*prev));
	delta = calloc(counters.nr_events, sizeof(*delta));
	if (!cur || !prev || !delta) {
		code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	code = target_start(&t);
	if (code)
		goto out;
	kmt_report_meta_here(&out.base, "live", "counters");
	out.base.meta.bare = 1;
	if (host)
		out.base.meta.host = host;
	if (out.base.oom) {
		code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	k.target = kmt_sb_str(&what);

	last = t.start;
	/* the heading, once, for the formats whose reports continue */
	if (interval_ms && out.rd->render_more &&
	    draw(&out, NULL, t.start, t.start)) {
		code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	next_tick = t.start + tick_ns;
	while (!target_done(&t)) {
		struct timespec tick = { 0, 20 * 1000 * 1000 };
		uint64_t now = target_now();

		if (interval_ms && now >= next_tick) {
			if (kmt_counters_read(&counters, cur)) {
				code = kmt_error(KMT_EXIT_RUNTIME, "%s",
						 counters.errmsg);
				goto out;
			}
			for (e = 0; e < counters.nr_events; e++)
				delta[e] = cur[e] - prev[e];
			k.values = delta;
			k.seconds = (now - last) / 1e9;
			k.at = (now - t.start) / 1e9;
			if (draw(&out, &k, last, now)) {
				code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
				goto out;
			}
			memcpy(prev, cur, sizeof(*cur) * counters.nr_events);
			last = now;
			next_tick += tick_ns;
			if (next_tick < now)
				next_tick = now + tick_ns;
			continue;
		}
		nanosleep(&tick, NULL);
	}
	if (kmt_counters_read(&counters, cur)) {
		code = kmt_error(KMT_EXIT_RUNTIME, "%s", counters.errmsg);
		goto out;
	}
	{
		uint64_t now = target_now();

		if (interval_ms) {
			for (e = 0; e < counters.nr_events; e++)
				delta[e] = cur[e] - prev[e];
			k.values = delta;
			k.seconds = (now - last) / 1e9;
			k.at = (now - t.start) / 1e9;
		} else {
			k.values = cur;
			k.seconds = (now - t.start) / 1e9;
			last = t.start;
		}
		/* the rest of an interval, unless it is nothing */
		if ((!interval_ms || now - last > 1000000) &&
		    draw(&out, &k, last, now)) {
			code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
			goto out;
		}
	}
	code = target_finish(&t, 0);
out:
	if (output && kmt_close_output(out.out, output, 0) && !code)
		code = KMT_EXIT_RUNTIME;
	if (code)
		target_abort(&t);
	kmt_counters_free(&counters);
	kmt_report_free(&out.base);
	kmt_sb_release(&what);
	target_free(&t);
	free(cur);
	free(prev);
	free(delta);
	return code;
}
