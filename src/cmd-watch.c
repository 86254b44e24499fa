// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace watch: a leak hunt that can run for hours.  The kernel keeps
 * the live objects (a sampled share of addresses) and per-stack counts
 * in BPF maps of fixed size; every interval this reads them and prints
 * what is outstanding and old, by stack and by callsite, with the trend
 * that tells a leak from a big cache.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf-run.h"
#include "bpf/cgroups.h"
#include "bpf/names.h"
#include "bpf/watch.h"
#include "builtin.h"
#include "live-out.h"
#include "options.h"
#include "report/report.h"

static const char *const watch_usage[] = {
	"kmemtrace watch [<options>] [-a | -p <pid>,... | [--follow] -- <command> [<args>...]]",
	NULL
};

/* an interval's report, drawn; 0, or -1 (errno) */
static int print_interval(struct live_out *lo, struct kmt_watch *w,
			  const struct kmt_watch_show *sh)
{
	struct kmt_report r;
	int ret;

	live_out_report(lo, &r);
	ret = kmt_watch_report(w, sh, &r);
	if (ret)
		errno = ENOMEM;
	else
		ret = live_out_draw(lo, &r);
	kmt_report_free(&r);
	return ret ? -1 : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int cmd_watch(int argc, char **argv)
{
	const char *output = NULL, *format = NULL, *host = NULL, *by = NULL;
	uint64_t interval = 10000000000ULL, older = 5000000000ULL;
	int sample = 16, live_max = 262144, stacks_max = 16384, agg_max = 0;
	int json = 0, limit = 10, no_stacks = 0, frames = 0;
	struct bpf_run run = { .name = "watch" };
	const struct kmt_option options[] = {
		OPT_DURATION_MIN('I', "interval", &interval, "duration", 50000000,
				 "print every <duration> (default 10s, at least 50ms)"),
		OPT_DURATION(0, "older-than", &older, "duration", 0,
			     "only objects at least this old: 500ms, 5s (default), 2m, 1h"),
		OPT_INT('l', "limit", &limit, "n", 0, INT_MAX, "stacks and callsites printed (default 10; 0: all)"),
		OPT_STRING(0, "by", &by, "what", "cgroup: also outstanding objects by memory cgroup and kind"),
		OPT_INT(0, "frames", &frames, "n", 0, INT_MAX, "frames of each stack printed (default all)"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats, "output format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "one JSON object an interval (--format json)"),
		OPT_OUTPUT('o', "output", &output, "file", "write the reports to <file> ('-': stdout)"),
		OPT_STRING(0, "host", &host, "name", "ndjson: the host name every row carries (default: this machine's)"),
		OPT_GROUP("what to trace"),
		OPT_BOOL('a', "all-cpus", &run.t.all, "the whole system (the default without a command)"),
		OPT_STRING('p', "pid", &run.t.pid_list, "pid,...", "only allocations of these processes (frees: anyone's)"),
		OPT_STRING(0, "comm", &run.comm, "name", "only allocations of tasks of this name"),
		OPT_BOOL(0, "follow", &run.t.follow, "with a command: only it and its children"),
		TARGET_OPT_DURATION(&run.t),
		OPT_GROUP("the in-kernel maps"),
		OPT_INT(0, "sample", &sample, "n", 1, 1 << 30, "follow 1 address in <n> (power of two, default 16; 1: every object)"),
		OPT_BOOL(0, "no-stacks", &no_stacks, "take no stacks: by callsite only, cheaper"),
		OPT_INT(0, "live-max", &live_max, "n", 1, 1 << 30, "live objects followed (default 262144)"),
		OPT_INT(0, "stacks-max", &stacks_max, "n", 1, 1 << 30, "stacks kept (default 16384)"),
		OPT_INT(0, "stack-aggs-max", &agg_max, "n", 1, 1 << 30, "per-stack counts kept (default 2 x stacks-max)"),
		OPT_END()
	};
	struct kmt_bpf_config cfg;
	struct kmt_bpf bpf;
	struct kmt_bpf_names names;
	struct kmt_cgroups cgroups;
	struct kmt_watch w;
	struct kmt_watch_show sh;
	struct live_out lo;
	char target[256], pinned[32];
	int nargs, code, done = 0;
	unsigned int stacks;

	nargs = kmt_parse_options(argc, argv, options, watch_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	code = bpf_run_check(&run, nargs, argv);
	if (code)
		return code;
	if (sample & (sample - 1))
		return kmt_usage_error("option '--sample' needs a power of two, not '%d'",
				       sample);
	if (by && strcmp(by, "cgroup"))
		return kmt_usage_error("option '--by' takes 'cgroup', not '%s'",
				       by);
	code = live_out_format(&lo, format, json);
	if (code)
		return code;

	memset(&cfg, 0, sizeof(cfg));
	cfg.track_live = 1;
	cfg.take_stacks = !no_stacks;
	cfg.free_context = 1;
	cfg.sample = (uint32_t)sample;
	cfg.live_max = (uint32_t)live_max;
	cfg.stacks_max = (uint32_t)stacks_max;
	cfg.stack_agg_max = agg_max ? (uint32_t)agg_max : 2 * (uint32_t)stacks_max;
	memset(&cgroups, 0, sizeof(cgroups));
	if (by) {
		if (kmt_cgroups_init(&cgroups)) {
			kmt_cgroups_free(&cgroups);
			kmt_error(KMT_EXIT_RUNTIME, "cannot watch by cgroup: %s",
				  cgroups.errmsg);
			return 2;
		}
		cfg.cgroup_mode = cgroups.mode;
	}
	code = bpf_run_prepare(&run, &cfg);
	if (code)
		goto out_run;
	code = bpf_run_open(&bpf, &cfg);
	if (code)
		goto out_run;
	if (kmt_bpf_names_init(&names)) {
		kmt_error(KMT_EXIT_RUNTIME, "%s", names.sess.errmsg);
		code = 2;
		goto out_bpf;
	}
	code = live_out_open(&lo, output, host);
	if (code)
		goto out_names;
	bpf_run_target(&run, target, sizeof(target));
	code = bpf_run_start(&run, &bpf);
	if (code)
		goto out_file;
	/* once attached: what a script may wait for */
	stacks = bpf.cfg.take_stacks ? bpf.cfg.stacks_max : 0;
	fprintf(stderr, "kmemtrace watch: %s, 1 address in %u followed%s, up to %u object%s and %u stack%s; the maps pin %s of kernel memory\n",
		target, bpf.cfg.sample, bpf.cfg.take_stacks ? " with its stack" : "",
		bpf.cfg.live_max, bpf.cfg.live_max == 1 ? "" : "s",
		stacks, stacks == 1 ? "" : "s",
		bpf_run_size(pinned, sizeof(pinned),
			     (double)kmt_bpf_pinned_bytes(&bpf.cfg, bpf.nr_cpus)));
	kmt_watch_init(&w, &bpf, &names, older, now_ns());
	if (by)
		kmt_watch_set_cgroups(&w, &cgroups);
	live_out_start(&lo);
	sh.target = target;
	sh.limit = (size_t)limit;
	sh.frames = frames;

	while (!done) {
		uint64_t next = target_now() + interval;

		while (!(done = target_done(&run.t))) {
			uint64_t now = target_now();
			struct timespec ts = { 0, 50 * 1000000L };

			if (now >= next)
				break;
			if (next - now < 50000000)
				ts.tv_nsec = (long)(next - now);
			nanosleep(&ts, NULL);
		}
		if (kmt_watch_update(&w, now_ns())) {
			kmt_error(KMT_EXIT_RUNTIME, "%s", w.errmsg);
			code = 2;
			break;
		}
		sh.final = done;
		if (print_interval(&lo, &w, &sh)) {
			if (errno == ENOMEM)
				kmt_error(KMT_EXIT_RUNTIME, "out of memory");
			else
				kmt_error(KMT_EXIT_RUNTIME, "cannot write the report: %s",
					  strerror(errno));
			code = 2;
			break;
		}
	}
	kmt_watch_free(&w);
out_file:
	kmt_bpf_detach(&bpf);
	code = live_out_close(&lo, code);
out_names:
	kmt_bpf_names_free(&names);
out_bpf:
	kmt_bpf_close(&bpf);
out_run:
	code = bpf_run_finish(&run, code);
	bpf_run_free(&run);
	if (by)
		kmt_cgroups_free(&cgroups);
	return code;
}
