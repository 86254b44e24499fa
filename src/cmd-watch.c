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
#include "bpf/names.h"
#include "bpf/watch.h"
#include "builtin.h"
#include "options.h"
#include "util/json.h"

static const char *const watch_usage[] = {
	"kmemtrace watch [<options>] [-a | -p <pid>,... | [--follow] -- <command> [<args>...]]",
	NULL
};

struct watch_out {
	struct kmt_watch *w;
	FILE *out;
	int json;
	int limit;
	int frames;		/* of each stack printed; 0: all */
	const char *target;
};

/* the losses, each named, and "none" when there are none */
static const enum kmt_bpf_stat drops[] = {
	KMT_S_LIVE_FULL, KMT_S_STACK_FULL, KMT_S_STACK_FAILED,
	KMT_S_STACKS_AGG_FULL,
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const char *kind_name(int kind)
{
	return kind == KMT_K_PAGE_ALLOC ? "page" : "slab";
}

/* "slab", or "page" with its order: stacks differ by order too */
static const char *kind_order(char *buf, size_t size, int kind, int order)
{
	if (kind != KMT_K_PAGE_ALLOC)
		return "slab";
	snprintf(buf, size, "pg%d", order);
	return buf;
}

static void fmt_age(char *buf, size_t size, uint64_t ns)
{
	double s = ns / 1e9;

	if (s < 1)
		snprintf(buf, size, "%.0fms", s * 1e3);
	else if (s < 120)
		snprintf(buf, size, "%.1fs", s);
	else if (s < 7200)
		snprintf(buf, size, "%.1fm", s / 60);
	else
		snprintf(buf, size, "%.1fh", s / 3600);
}

/* "+12 +10 +11", the change of each interval */
static void fmt_trend(char *buf, size_t size, const int64_t *t, int n)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 1; i < n && used < size; i++)
		used += snprintf(buf + used, size - used, "%s%+lld",
				 i > 1 ? " " : "",
				 (long long)(t[i] - t[i - 1]));
	if (n < 2)
		snprintf(buf, size, "-");
}

static void print_text(const struct watch_out *o, int final)
{
	const struct kmt_watch *w = o->w;
	FILE *f = o->out;
	char age1[32], age2[32], trend[128], sym[256], stack[4096];
	const char *est = w->sample > 1 ? "~" : "";
	uint64_t events = 0;
	size_t i, n, used = 0;
	int k;

	for (k = KMT_S_EVENTS_KMALLOC; k <= KMT_S_EVENTS_PAGE_FREE; k++)
		events += w->stats[k];
	fprintf(f, "kmemtrace watch: %s%.1fs, %s, %llu event%s, sampling 1 in %u address%s%s\n",
		final ? "end, " : "", (w->now_ns - w->start_ns) / 1e9, o->target,
		(unsigned long long)events, events == 1 ? "" : "s", w->sample,
		w->sample == 1 ? "" : "es",
		w->sample > 1 ? " (counts are estimates, marked ~)" : "");
	fprintf(f, "outstanding: %s%lld object%s, %s%lld byte%s; older than %gs: %s%llu object%s, %s%llu byte%s\n",
		est, (long long)w->live, w->live == 1 ? "" : "s",
		est, (long long)w->live_bytes, w->live_bytes == 1 ? "" : "s",
		w->older_than_ns / 1e9, est,
		(unsigned long long)w->old_count, w->old_count == 1 ? "" : "s",
		est, (unsigned long long)w->old_bytes,
		w->old_bytes == 1 ? "" : "s");
	fprintf(f, "lost: ");
	for (i = 0; i < NR(drops); i++) {
		if (w->stats[drops[i]])
			used += fprintf(f, "%s%s %llu", used ? ", " : "",
					kmt_bpf_stat_name(drops[i]),
					(unsigned long long)w->stats[drops[i]]);
	}
	if (w->missed)
		used += fprintf(f, "%sevents the kernel skipped %llu",
				used ? ", " : "",
				(unsigned long long)w->missed);
	fprintf(f, "%s\n", used ? "" : "none");
	fprintf(f, "seen: %llu free%s of objects allocated before the start, %llu allocation%s over a live object, frees in task/softirq/hardirq context %llu/%llu/%llu, %llu stack%s given back\n",
		(unsigned long long)w->stats[KMT_S_UNKNOWN_FREE],
		w->stats[KMT_S_UNKNOWN_FREE] == 1 ? "" : "s",
		(unsigned long long)w->stats[KMT_S_REALLOC],
		w->stats[KMT_S_REALLOC] == 1 ? "" : "s",
		(unsigned long long)w->stats[KMT_S_FREE_TASK],
		(unsigned long long)w->stats[KMT_S_FREE_SOFTIRQ],
		(unsigned long long)w->stats[KMT_S_FREE_HARDIRQ],
		(unsigned long long)w->stacks_pruned,
		w->stacks_pruned == 1 ? "" : "s");

	fprintf(f, "\nOUTSTANDING by stack\n");
	fprintf(f, " Kind   Count      Bytes  Min age  Max age  Trend (per interval)      Callsite\n");
	n = w->nr_sorted;
	if (o->limit && n > (size_t)o->limit)
		n = o->limit;
	for (i = 0; i < n; i++) {
		const struct kmt_watch_group *g = w->sorted[i];
		char cnt[32], bytes[32], kb[16];

		fmt_age(age1, sizeof(age1), g->min_age);
		fmt_age(age2, sizeof(age2), g->max_age);
		fmt_trend(trend, sizeof(trend), g->trend, g->nr_trend);
		snprintf(cnt, sizeof(cnt), "%s%llu", est,
			 (unsigned long long)g->count);
		snprintf(bytes, sizeof(bytes), "%s%llu", est,
			 (unsigned long long)g->bytes);
		fprintf(f, " %-4s %7s %10s %8s %8s  %-24s  %s%s\n",
			kind_order(kb, sizeof(kb), g->key.kind, g->key.order),
			cnt, bytes, age1, age2, trend,
			kmt_bpf_names_sym(w->names, g->site, sym, sizeof(sym)),
			g->growing ? "  GROWING" : "");
		if (g->stack)
			fprintf(f, "      %s\n",
				kmt_bpf_names_stack_str(w->names, g->stack,
							o->frames, stack,
							sizeof(stack)));
		else if (g->key.stack_id > 0)
			fprintf(f, "      (no stack: not in the map when read)\n");
		else if (g->key.stack_id != -ENOENT)
			fprintf(f, "      (no stack: %s)\n",
				g->key.stack_id == -ENOMEM ? "stack map full" :
				"bpf_get_stack failed");
	}
	if (w->nr_sorted > n)
		fprintf(f, " ... %zu more stack%s\n", w->nr_sorted - n,
			w->nr_sorted - n == 1 ? "" : "s");

	fprintf(f, "\nOUTSTANDING by callsite\n");
	fprintf(f, " Kind   Count      Bytes  Min age  Max age  Trend (per interval)      Stacks  Callsite\n");
	for (i = 0, n = 0; i < w->nr_sites; i++) {
		const struct kmt_watch_site *s = &w->sites[i];
		char cnt[32], bytes[32];

		if (!s->count)
			continue;
		if (o->limit && n++ >= (size_t)o->limit)
			break;
		fmt_age(age1, sizeof(age1), s->min_age);
		fmt_age(age2, sizeof(age2), s->max_age);
		fmt_trend(trend, sizeof(trend), s->trend, s->nr_trend);
		snprintf(cnt, sizeof(cnt), "%s%llu", est,
			 (unsigned long long)s->count);
		snprintf(bytes, sizeof(bytes), "%s%llu", est,
			 (unsigned long long)s->bytes);
		fprintf(f, " %-4s %7s %10s %8s %8s  %-24s  %6u  %s%s\n",
			kind_name(s->kind), cnt, bytes, age1, age2, trend,
			s->nr_stacks,
			kmt_bpf_names_sym(w->names, s->site, sym, sizeof(sym)),
			s->growing ? "  GROWING" : "");
	}
	fputc('\n', f);
}

static void json_trend(struct kmt_json *j, const int64_t *t, int n)
{
	int i;

	kmt_json_arr_open(j, "trend");
	for (i = 0; i < n; i++)
		kmt_json_s64(j, NULL, t[i]);
	kmt_json_arr_close(j);
}

static void print_json(const struct watch_out *o, int final)
{
	const struct kmt_watch *w = o->w;
	struct kmt_json j;
	char sym[256], stack[8192], addr[32];
	size_t i, n;
	int k;

	kmt_json_init(&j, o->out, 0);
	kmt_json_obj_open(&j, NULL);
	kmt_json_bool(&j, "final", final);
	kmt_json_double(&j, "time", (w->now_ns - w->start_ns) / 1e9);
	kmt_json_str(&j, "target", o->target);
	kmt_json_u64(&j, "sample", w->sample);
	kmt_json_bool(&j, "estimated", w->sample > 1);
	kmt_json_double(&j, "older_than", w->older_than_ns / 1e9);
	kmt_json_s64(&j, "live", w->live);
	kmt_json_s64(&j, "live_bytes", w->live_bytes);
	kmt_json_u64(&j, "old", w->old_count);
	kmt_json_u64(&j, "old_bytes", w->old_bytes);
	kmt_json_obj_open(&j, "counters");
	for (k = 0; k < KMT_S_NR; k++)
		kmt_json_u64(&j, kmt_bpf_stat_name(k), w->stats[k]);
	kmt_json_u64(&j, "events the kernel skipped", w->missed);
	kmt_json_u64(&j, "stacks given back", w->stacks_pruned);
	kmt_json_obj_close(&j);
	n = w->nr_sorted;
	if (o->limit && n > (size_t)o->limit)
		n = o->limit;
	kmt_json_arr_open(&j, "stacks");
	for (i = 0; i < n; i++) {
		const struct kmt_watch_group *g = w->sorted[i];

		kmt_json_obj_open(&j, NULL);
		kmt_json_str(&j, "kind", kind_name(g->key.kind));
		if (g->key.kind == KMT_K_PAGE_ALLOC)
			kmt_json_u64(&j, "order", g->key.order);
		kmt_json_str(&j, "callsite",
			     kmt_bpf_names_sym(w->names, g->site, sym,
					       sizeof(sym)));
		snprintf(addr, sizeof(addr), "0x%llx",
			 (unsigned long long)g->site);
		kmt_json_str(&j, "address", addr);
		if (g->stack)
			kmt_json_str(&j, "stack",
				     kmt_bpf_names_stack_str(w->names, g->stack,
							     0, stack,
							     sizeof(stack)));
		else if (g->key.stack_id < 0)
			kmt_json_s64(&j, "stack_error", g->key.stack_id);
		kmt_json_u64(&j, "count", g->count);
		kmt_json_u64(&j, "bytes", g->bytes);
		kmt_json_u64(&j, "min_age_ns", g->min_age);
		kmt_json_u64(&j, "max_age_ns", g->max_age);
		kmt_json_s64(&j, "live", g->live);
		kmt_json_u64(&j, "allocs", g->allocs);
		kmt_json_u64(&j, "frees", g->frees);
		json_trend(&j, g->trend, g->nr_trend);
		kmt_json_bool(&j, "growing", g->growing);
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);
	kmt_json_u64(&j, "stacks_omitted", w->nr_sorted - n);
	kmt_json_arr_open(&j, "callsites");
	for (i = 0, n = 0; i < w->nr_sites; i++) {
		const struct kmt_watch_site *s = &w->sites[i];

		if (!s->count)
			continue;
		if (o->limit && n++ >= (size_t)o->limit)
			break;
		kmt_json_obj_open(&j, NULL);
		kmt_json_str(&j, "kind", kind_name(s->kind));
		kmt_json_str(&j, "callsite",
			     kmt_bpf_names_sym(w->names, s->site, sym,
					       sizeof(sym)));
		snprintf(addr, sizeof(addr), "0x%llx",
			 (unsigned long long)s->site);
		kmt_json_str(&j, "address", addr);
		kmt_json_u64(&j, "count", s->count);
		kmt_json_u64(&j, "bytes", s->bytes);
		kmt_json_u64(&j, "min_age_ns", s->min_age);
		kmt_json_u64(&j, "max_age_ns", s->max_age);
		kmt_json_s64(&j, "live", s->live);
		kmt_json_u64(&j, "stacks", s->nr_stacks);
		json_trend(&j, s->trend, s->nr_trend);
		kmt_json_bool(&j, "growing", s->growing);
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int cmd_watch(int argc, char **argv)
{
	const char *output = NULL;
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
		OPT_INT(0, "frames", &frames, "n", 0, INT_MAX, "frames of each stack printed (default all)"),
		OPT_BOOL(0, "json", &json, "one JSON object an interval"),
		OPT_STRING('o', "output", &output, "file", "write the reports to <file>"),
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
	struct kmt_watch w;
	struct watch_out o;
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

	memset(&cfg, 0, sizeof(cfg));
	cfg.track_live = 1;
	cfg.take_stacks = !no_stacks;
	cfg.free_context = 1;
	cfg.sample = (uint32_t)sample;
	cfg.live_max = (uint32_t)live_max;
	cfg.stacks_max = (uint32_t)stacks_max;
	cfg.stack_agg_max = agg_max ? (uint32_t)agg_max : 2 * (uint32_t)stacks_max;
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
	o.out = stdout;
	if (output) {
		o.out = fopen(output, "w");
		if (!o.out) {
			kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
				      strerror(errno));
			code = 2;
			goto out_names;
		}
	}
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
	o.w = &w;
	o.json = json;
	o.limit = limit;
	o.frames = frames;
	o.target = target;

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
		if (json)
			print_json(&o, done);
		else
			print_text(&o, done);
		if (fflush(o.out)) {
			kmt_error(KMT_EXIT_RUNTIME, "cannot write the report: %s",
				      strerror(errno));
			code = 2;
			break;
		}
	}
	kmt_watch_free(&w);
out_file:
	kmt_bpf_detach(&bpf);
	if (output && fclose(o.out) && !code) {
		kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
			      strerror(errno));
		code = 2;
	}
out_names:
	kmt_bpf_names_free(&names);
out_bpf:
	kmt_bpf_close(&bpf);
out_run:
	code = bpf_run_finish(&run, code);
	bpf_run_free(&run);
	return code;
}
