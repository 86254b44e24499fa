// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace stat: how many of each kmem event, and how fast, like
 * `perf stat -e 'kmem:*'`.  Counting only: exact, and nothing on disk.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "options.h"
#include "record/counter.h"
#include "record/recorder.h"
#include "record/workload.h"
#include "util/array.h"
#include "util/json.h"
#include "util/strbuf.h"

static const char *const stat_usage[] = {
	"kmemtrace stat [<options>] [-a | -p <pid>,... | -- <command> [<args>...]]",
	NULL
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
	const char *pid_list = NULL, *duration_arg = NULL, *output = NULL;
	int all = 0, json = 0, interval_ms = 0;
	const struct kmt_option options[] = {
		OPT_BOOL('a', "all-cpus", &all, "count on every CPU (the default without a command)"),
		OPT_LIST('p', "pid", &pid_list, "pid,...", "count these processes (and their threads)"),
		OPT_STRING(0, "duration", &duration_arg, "seconds", "stop after this many seconds"),
		OPT_INT('I', "interval", &interval_ms, "ms", 10, INT_MAX,
			"print the counts of every interval"),
		OPT_BOOL(0, "json", &json, "JSON output (one object per interval with -I)"),
		OPT_STRING('o', "output", &output, "file",
			   "write the counts to <file> ('-': stdout; default: stderr, as perf stat)"),
		OPT_END()
	};
	struct kmt_workload wl = KMT_WORKLOAD_INIT;
	struct kmt_counters counters;
	struct stat_out out;
	enum kmt_counter_target target;
	uint64_t *cur = NULL, *prev = NULL, *delta = NULL;
	pid_t *tasks = NULL;
	size_t nr_tasks = 0, alloc_tasks = 0;
	double duration = 0, start, last, next_tick;
	struct kmt_sb what = KMT_SB_INIT;
	struct sigaction sa;
	int nargs, ret, code = 0, have_cmd, e;

	nargs = kmt_parse_options(argc, argv, options, stat_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	have_cmd = nargs > 0;
	argv[nargs] = NULL;
	if (duration_arg) {
		char *end;

		duration = strtod(duration_arg, &end);
		if (*end || end == duration_arg || !(duration > 0))
			return kmt_usage_error("option '--duration' needs a number of seconds above 0, not '%s'",
					       duration_arg);
	}
	if (pid_list && (all || have_cmd))
		return kmt_usage_error("-p goes with neither -a nor a command");

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
	if (pid_list) {
		const char *p = pid_list;

		target = KMT_COUNT_TASKS;
		while (*p) {
			char *end;
			long pid = strtol(p, &end, 10);

			if (end == p || pid <= 0 || pid > INT_MAX ||
			    (*end && *end != ',')) {
				code = kmt_usage_error("option '-p' needs a list of pids, not '%s'",
						       pid_list);
				goto out;
			}
			ret = kmt_workload_add_threads(&tasks, &nr_tasks, &alloc_tasks, pid);
			if (ret) {
				code = ret == -ENOMEM ?
				       kmt_error(KMT_EXIT_RUNTIME, "out of memory") :
				       kmt_error(KMT_EXIT_INPUT, "no process %ld: %s",
						 pid, strerror(-ret));
				goto out;
			}
			p = *end ? end + 1 : end;
		}
		kmt_sb_addf(&what, "process %s", pid_list);
	} else if (have_cmd && !all) {
		target = KMT_COUNT_EXEC;
		kmt_sb_adds(&what, argv[0]);
		for (e = 1; e < nargs; e++)
			kmt_sb_addf(&what, " %s", argv[e]);
	} else {
		target = KMT_COUNT_SYSTEM;
		kmt_sb_adds(&what, "system wide");
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);

	if (have_cmd) {
		ret = kmt_workload_prepare(&wl, argv, 0);
		if (ret) {
			code = kmt_error(KMT_EXIT_RUNTIME, "cannot start '%s': %s",
					 argv[0], strerror(-ret));
			goto out;
		}
		if (target == KMT_COUNT_EXEC) {
			tasks = malloc(sizeof(*tasks));
			if (!tasks) {
				code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
				goto out;
			}
			tasks[0] = wl.pid;
			nr_tasks = 1;
		}
	}
	ret = kmt_counters_open(&counters, target, tasks, nr_tasks);
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
	start = last = now();
	if (have_cmd) {
		ret = kmt_workload_start(&wl);
		if (ret) {
			code = kmt_error(KMT_EXIT_RUNTIME, "cannot run '%s': %s",
					 argv[0], strerror(-ret));
			goto out;
		}
	}

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
	while (!stop_signal) {
		struct timespec tick = { 0, 20 * 1000 * 1000 };
		double t = now();

		if (have_cmd && kmt_workload_poll(&wl))
			break;
		if (duration && t - start >= duration)
			break;
		if (target == KMT_COUNT_TASKS) {
			size_t i, alive = 0;

			for (i = 0; i < nr_tasks; i++)
				alive += kill(tasks[i], 0) == 0 || errno != ESRCH;
			if (!alive)
				break;
		}
		if (interval_ms && t >= next_tick) {
			if (kmt_counters_read(&counters, cur)) {
				code = kmt_error(KMT_EXIT_RUNTIME, "%s",
						 counters.errmsg);
				goto out;
			}
			for (e = 0; e < counters.nr_events; e++)
				delta[e] = cur[e] - prev[e];
			print_counts(&out, delta, t - last, t - start);
			memcpy(prev, cur, sizeof(*cur) * counters.nr_events);
			last = t;
			next_tick += interval_ms / 1e3;
			if (next_tick < t)
				next_tick = t + interval_ms / 1e3;
			continue;
		}
		nanosleep(&tick, NULL);
	}
	if (kmt_counters_read(&counters, cur)) {
		code = kmt_error(KMT_EXIT_RUNTIME, "%s", counters.errmsg);
		goto out;
	}
	if (interval_ms) {
		double t = now();

		for (e = 0; e < counters.nr_events; e++)
			delta[e] = cur[e] - prev[e];
		if (t - last > 1e-3)
			print_counts(&out, delta, t - last, t - start);
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
	if (have_cmd) {
		if (stop_signal && !kmt_workload_poll(&wl))
			kill(wl.pid, stop_signal);
		kmt_workload_wait(&wl);
		code = kmt_workload_exit_code(&wl);
	}
out:
	if (output && kmt_close_output(out.out, output, 0) && !code)
		code = KMT_EXIT_RUNTIME;
	if (code && have_cmd)
		kmt_workload_abort(&wl);
	kmt_counters_free(&counters);
	kmt_sb_release(&what);
	free(tasks);
	free(cur);
	free(prev);
	free(delta);
	return code;
}
