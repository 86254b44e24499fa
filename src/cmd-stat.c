// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace stat: how many of each kmem event, and how fast, like
 * `perf stat -e 'kmem:*'`.  Counting only: exact, and nothing on disk.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "options.h"
#include "record/counter.h"
#include "record/recorder.h"
#include "target.h"
#include "util/json.h"
#include "util/strbuf.h"

static const char *const stat_usage[] = {
	"kmemtrace stat [<options>] [-a | -p <pid>,... | -- <command> [<args>...]]",
	NULL
};

static double now(void)
{
	return target_now() / 1e9;
}

struct stat_out {
	const struct kmt_counters *c;
	FILE *out;
	int json;
	int width;		/* of the event name column */
	const char *target;
};

/* "617.283 K/sec", as perf stat writes rates */
static void fmt_rate(char *buf, size_t size, double rate)
{
	if (rate >= 1e6)
		snprintf(buf, size, "%8.3f M/sec", rate / 1e6);
	else if (rate >= 1e3)
		snprintf(buf, size, "%8.3f K/sec", rate / 1e3);
	else
		snprintf(buf, size, "%8.3f /sec", rate);
}

static void print_counts(const struct stat_out *o, const uint64_t *v,
			 double secs, double at)
{
	const struct kmt_counters *c = o->c;
	char num[32], rate[32], name[80];
	int e;

	if (o->json) {
		struct kmt_json j;

		kmt_json_init(&j, o->out, 0);
		kmt_json_obj_open(&j, NULL);
		kmt_json_str(&j, "target", o->target);
		if (at >= 0)
			kmt_json_double(&j, "time", at);
		kmt_json_double(&j, "seconds", secs);
		kmt_json_arr_open(&j, "events");
		for (e = 0; e < c->nr_events; e++) {
			snprintf(name, sizeof(name), "kmem:%s", c->names[e]);
			kmt_json_obj_open(&j, NULL);
			kmt_json_str(&j, "event", name);
			kmt_json_u64(&j, "count", v[e]);
			kmt_json_double(&j, "rate", secs > 0 ? v[e] / secs : 0);
			kmt_json_obj_close(&j);
		}
		kmt_json_arr_close(&j);
		kmt_json_obj_close(&j);
		kmt_json_finish(&j);
		fflush(o->out);
		return;
	}
	for (e = 0; e < c->nr_events; e++) {
		snprintf(name, sizeof(name), "kmem:%s", c->names[e]);
		kmt_fmt_thousands(num, sizeof(num), v[e]);
		fmt_rate(rate, sizeof(rate), secs > 0 ? v[e] / secs : 0);
		if (at >= 0)
			fprintf(o->out, "%15.9f %18s      %-*s #  %s\n", at, num,
				o->width, name, rate);
		else
			fprintf(o->out, "%18s      %-*s #  %s\n", num, o->width,
				name, rate);
	}
	fflush(o->out);
}

int cmd_stat(int argc, char **argv)
{
	const char *output = NULL;
	int json = 0, interval_ms = 0;
	struct target t = { .flags = TARGET_THREADS };
	const struct kmt_option options[] = {
		OPT_BOOL('a', "all-cpus", &t.all, "count on every CPU (the default without a command)"),
		OPT_LIST('p', "pid", &t.pid_list, "pid,...", "count these processes (and their threads)"),
		TARGET_OPT_DURATION(&t),
		OPT_INT('I', "interval", &interval_ms, "ms", 10, INT_MAX,
			"print the counts of every interval"),
		OPT_BOOL(0, "json", &json, "JSON output (one object per interval with -I)"),
		OPT_STRING('o', "output", &output, "file",
			   "write the counts to <file> ('-': stdout; default: stderr, as perf stat)"),
		OPT_END()
	};
	struct kmt_counters counters;
	struct stat_out out;
	enum kmt_counter_target target;
	uint64_t *cur = NULL, *prev = NULL, *delta = NULL;
	double start, last, next_tick;
	struct kmt_sb what = KMT_SB_INIT;
	int nargs, ret, code = 0, e;

	nargs = kmt_parse_options(argc, argv, options, stat_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	code = target_check(&t, nargs, argv);
	if (code)
		return code;

	{
		char err[512];

		if (kmt_rec_check_access(err, sizeof(err)))
			return kmt_error(KMT_EXIT_RUNTIME, "%s", err);
	}
	out.out = output ? kmt_open_output(output) : stderr;
	if (!out.out)
		return kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 output, strerror(errno));
	ret = kmt_counters_init(&counters);
	if (ret) {
		kmt_error(KMT_EXIT_RUNTIME, "%s", counters.errmsg);
		if (output)
			kmt_close_output(out.out, output, 0);
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
	start = last = t.start / 1e9;

	out.c = &counters;
	out.json = json;
	out.target = kmt_sb_str(&what);
	out.width = 0;
	for (e = 0; e < counters.nr_events; e++) {
		int w = (int)strlen(counters.names[e]) + 5;

		if (w > out.width)
			out.width = w;
	}
	if (interval_ms && !json)
		fprintf(out.out, "#%14s %18s      %s\n", "time", "counts",
			"event");
	next_tick = start + interval_ms / 1e3;
	while (!target_done(&t)) {
		struct timespec tick = { 0, 20 * 1000 * 1000 };
		double now_s = now();

		if (interval_ms && now_s >= next_tick) {
			if (kmt_counters_read(&counters, cur)) {
				code = kmt_error(KMT_EXIT_RUNTIME, "%s",
						 counters.errmsg);
				goto out;
			}
			for (e = 0; e < counters.nr_events; e++)
				delta[e] = cur[e] - prev[e];
			print_counts(&out, delta, now_s - last, now_s - start);
			memcpy(prev, cur, sizeof(*cur) * counters.nr_events);
			last = now_s;
			next_tick += interval_ms / 1e3;
			if (next_tick < now_s)
				next_tick = now_s + interval_ms / 1e3;
			continue;
		}
		nanosleep(&tick, NULL);
	}
	if (kmt_counters_read(&counters, cur)) {
		code = kmt_error(KMT_EXIT_RUNTIME, "%s", counters.errmsg);
		goto out;
	}
	if (interval_ms) {
		double now_s = now();

		for (e = 0; e < counters.nr_events; e++)
			delta[e] = cur[e] - prev[e];
		if (now_s - last > 1e-3)
			print_counts(&out, delta, now_s - last, now_s - start);
	} else {
		double secs = now() - start;

		if (!json)
			fprintf(out.out, "\n Kmem event counts for '%s':\n\n",
				out.target);
		print_counts(&out, cur, secs, -1);
		if (!json)
			fprintf(out.out, "\n%18.9f seconds time elapsed\n\n",
				secs);
	}
	code = target_finish(&t, 0);
out:
	if (output && kmt_close_output(out.out, output, 0) && !code)
		code = KMT_EXIT_RUNTIME;
	if (code)
		target_abort(&t);
	kmt_counters_free(&counters);
	kmt_sb_release(&what);
	target_free(&t);
	free(cur);
	free(prev);
	free(delta);
	return code;
}
