// SPDX-License-Identifier: GPL-2.0
/*
 * The report engine (report.h): one pass over a recording through the
 * analyses asked for, then their sections into a report model.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "event/callsite.h"
#include "event/pipeline.h"
#include "event/session.h"
#include "render/parallel.h"
#include "render/render.h"
#include "report/report.h"
#include "report/sort.h"
#include "run/report.h"
#include "source/source.h"
#include "util/duration.h"
#include "util/hash.h"

const struct kmt_run_analysis kmt_run_analyses[] = {
	{ &kmt_analysis_slab, offsetof(struct kmt_run_want, slab), KMT_RUN_SLAB },
	{ &kmt_analysis_page, offsetof(struct kmt_run_want, page), KMT_RUN_PAGE },
	{ &kmt_analysis_leaks, offsetof(struct kmt_run_want, leaks), KMT_RUN_VIEW },
	{ &kmt_analysis_errors, offsetof(struct kmt_run_want, errors),
	  KMT_RUN_VIEW },
	{ &kmt_analysis_procs, offsetof(struct kmt_run_want, procs), KMT_RUN_VIEW },
	{ &kmt_analysis_pcpu, offsetof(struct kmt_run_want, pcpu), KMT_RUN_VIEW },
	{ &kmt_analysis_extfrag, offsetof(struct kmt_run_want, extfrag),
	  KMT_RUN_VIEW },
	{ &kmt_analysis_caches, offsetof(struct kmt_run_want, caches),
	  KMT_RUN_VIEW },
	{ &kmt_analysis_sizes, offsetof(struct kmt_run_want, sizes), KMT_RUN_VIEW },
	{ &kmt_analysis_lifetimes, offsetof(struct kmt_run_want, lifetimes),
	  KMT_RUN_VIEW },
	{ &kmt_analysis_timeline, offsetof(struct kmt_run_want, timeline),
	  KMT_RUN_VIEW },
	{ &kmt_analysis_profile, offsetof(struct kmt_run_want, profile),
	  KMT_RUN_VIEW },
	{ &kmt_analysis_percpu, offsetof(struct kmt_run_want, percpu),
	  KMT_RUN_PERCPU },
	{ &kmt_analysis_vmalloc, offsetof(struct kmt_run_want, vmalloc),
	  KMT_RUN_VMALLOC },
};

#define NR_ANALYSES (sizeof(kmt_run_analyses) / sizeof(kmt_run_analyses[0]))

const size_t kmt_run_nr_analyses = NR_ANALYSES;


/* what the second thread finishes: every analysis from the second on */
struct second_part {
	struct kmt_run *run;
	const int *drawn;
	size_t first;
};

struct kmt_run {
	struct kmt_run_spec spec;
	void *ctx[NR_ANALYSES];
	int on[NR_ANALYSES];
	/* the analyses on, in table order: what feed() calls per event */
	size_t active[NR_ANALYSES];
	size_t nr_active;
	/*
	 * Fed every event before the analyses, when views run or a
	 * --pid/--comm/--cpu filter is given: it tells the views what each
	 * event did and decides which events pass (live.h).
	 */
	struct kmt_live *live;
	struct kmt_live live_store;
	/* the session read into: the caller's (spec.session) or own */
	struct kmt_session *s;
	struct kmt_session own;
	/*
	 * With no tracker, the analyses run on a second thread (pipe) while
	 * this one reads: failed is the analysis that stopped it.
	 */
	struct kmt_pipeline pipe;
	size_t failed;
	int piped;
	int need_comm;		/* --by comm: events carry their pid's name */
	struct kmt_filter filter;
	struct kmt_filter *active_filter;
	struct kmt_callsite_cache callsites;
	/* a filter or window that matched no event: said, and in the report */
	char warning[1024];
	/* finish's: the report, the analyses drawn, the second thread */
	struct kmt_report r;
	int drawn[NR_ANALYSES];
	struct second_part sp;
	struct kmt_par *par;
	const struct kmt_renderer *rd;
	const char *input;
	int read_err;
	char errmsg[1024];
};

/*
 * What the analyses would look up in the session's tables, which the
 * reader fills as it goes, found where the event is read and written
 * into it: the pid's command name; with the analyses on another thread,
 * also the page callsite from the stack and the filter's decision.
 */
static void prepare_event(struct kmt_run *run, struct kmt_event *ev)
{
	struct kmt_session *s = run->s;

	if (run->need_comm) {
		const uint32_t *comm = kmt_hash_u32_get(&s->comms,
							(uint32_t)ev->pid);

		ev->comm = comm ? *comm : 0;
		ev->flags |= KMT_EVF_COMM;
	}
	if (!run->piped)
		return;
	if (ev->stack && kmt_callsite_rule_of(ev) != KMT_CALLSITE_OWN) {
		ev->call_site = kmt_stack_callsite(&run->callsites, s, ev->stack,
						   kmt_callsite_rule_of(ev));
		ev->flags |= KMT_EVF_CALLSITE;
	}
	if (run->active_filter) {
		ev->flags |= KMT_EVF_FILTERED;
		if (kmt_filter_pass(run->active_filter, s, ev->pid, ev->cpu))
			ev->flags |= KMT_EVF_PASSES;
	}
}

/*
 * One event through the tracker and the analyses, on whichever thread
 * runs them; on failure, run->failed names what failed.
 */
static int feed(struct kmt_run *run, const struct kmt_event *ev)
{
	size_t k;
	int ret;

	if (run->live) {
		ret = kmt_live_feed(run->live, ev);
		if (ret) {
			run->failed = NR_ANALYSES;
			return ret;
		}
		if (!run->live->step.pass)
			return 0;
	}
	for (k = 0; k < run->nr_active; k++) {
		size_t i = run->active[k];

		ret = kmt_run_analyses[i].ops->on_event(run->ctx[i], ev);
		if (ret) {
			run->failed = i;
			return ret < 0 ? ret : -EINVAL;
		}
	}
	return 0;
}

/* the message of what feed() failed in */
static int feed_error(struct kmt_run *run, int err)
{
	if (run->failed >= NR_ANALYSES)
		return kmt_session_error(run->s, err,
					 "out of memory tracking live objects");
	return kmt_session_error(run->s, err, "out of memory in the %s analysis",
				 kmt_run_analyses[run->failed].ops->name);
}

static int dispatch(void *arg, const struct kmt_event *ev)
{
	struct kmt_run *run = arg;
	struct kmt_event copy;
	int ret;

	if (run->need_comm) {
		copy = *ev;
		prepare_event(run, &copy);
		ev = &copy;
	}
	ret = feed(run, ev);
	return ret ? feed_error(run, ret) : 0;
}

/* the reader's side of the pipeline: a copy of each event, prepared */
static int pipe_feed(void *arg, const struct kmt_event *ev)
{
	struct kmt_run *run = arg;
	struct kmt_event *copy = kmt_pipeline_slot(&run->pipe);
	int ret;

	*copy = *ev;
	prepare_event(run, copy);
	ret = kmt_pipeline_commit(&run->pipe);
	return ret ? feed_error(run, ret) : 0;
}

/*
 * The analyses' side: a batch.  Loading the table slots of events a few
 * ahead (prefetching) was measured to cost more than it saved: the
 * processor overlaps the misses of consecutive events by itself.
 */
static int pipe_consume(void *arg, const struct kmt_event *ev, size_t n)
{
	struct kmt_run *run = arg;
	size_t k;
	int ret;

	for (k = 0; k < n; k++) {
		ret = feed(run, &ev[k]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * --time start,end: seconds as the recording stamps them, or relative to
 * its first event when a side starts with '+' (relative sides in *rel,
 * KMT_TIME_REL_*).  Either side may be empty.
 */
int kmt_run_parse_time(const char *arg, uint64_t *start, uint64_t *end,
		       unsigned int *rel)
{
	const char *comma = strchr(arg, ','), *a = arg, *b;

	*start = *end = 0;
	*rel = 0;
	if (!comma)
		return -1;
	b = comma + 1;
	if (*a == '+') {
		*rel |= KMT_TIME_REL_START;
		a++;
	}
	if (*b == '+') {
		*rel |= KMT_TIME_REL_END;
		b++;
	}
	if (comma > a && kmt_parse_seconds(a, comma - a, start))
		return -1;
	if (*b && kmt_parse_seconds(b, strlen(b), end))
		return -1;
	if ((*rel & KMT_TIME_REL_END) && !*end)
		return -1;	/* "+0" would read as an open end */
	/* a relative end after an absolute start cannot be checked yet */
	if (*end && *start > *end &&
	    (*rel & KMT_TIME_REL_START) == (*rel & KMT_TIME_REL_END) >> 1)
		return -1;
	return 0;
}

/* "6.18.3", "5.10.0-28-amd64": a major and a minor number first */
int kmt_run_valid_release(const char *r)
{
	int major, minor, end = 0;

	return strlen(r) < 64 &&
	       sscanf(r, "%d.%d%n", &major, &minor, &end) == 2 && end > 0 &&
	       major > 0 && minor >= 0 && r[0] >= '0' && r[0] <= '9' &&
	       (!r[end] || r[end] == '.' || r[end] == '-' || r[end] == '+');
}

/*
 * Whether the report would show nothing, and why.  A recording with no
 * kmem event, a --cpu the recording does not have and a --time window
 * outside the recording are errors (1, msg says why); a filter or window
 * that matches no event of the recording is a warning (2, msg says
 * which), said in the report too: an empty result is still a result.
 */
static int nothing_to_report(const struct kmt_session *s,
			     const struct kmt_live *live,
			     const struct kmt_filter *filter,
			     const char *time_arg, const struct kmt_run_spec *va,
			     char *msg, size_t len)
{
	uint64_t total = kmt_session_total_events(s);
	size_t o;
	int cpu;

	if (!total) {
		snprintf(msg, len, "'%s' has no kmem events (%llu event%s of "
			 "other kinds): record them with 'kmemtrace record' or "
			 "'perf kmem record'", s->input,
			 (unsigned long long)s->nr_other,
			 s->nr_other == 1 ? "" : "s");
		return 1;
	}
	if (time_arg && !s->nr_emitted) {
		int outside = (s->time_end && s->time_end < s->first_ts) ||
			      s->time_start > s->last_ts;

		snprintf(msg, len, "--time %s %s: the recording spans "
			 "%llu.%06llu .. %llu.%06llu (+0 .. +%.6f s from its "
			 "start)", time_arg, outside ? "is outside the recording" :
			 "matches no event",
			 (unsigned long long)(s->first_ts / 1000000000),
			 (unsigned long long)(s->first_ts / 1000 % 1000000),
			 (unsigned long long)(s->last_ts / 1000000000),
			 (unsigned long long)(s->last_ts / 1000 % 1000000),
			 (s->last_ts - s->first_ts) / 1e9);
		return outside ? 1 : 2;
	}
	cpu = kmt_filter_max_cpu(filter);
	if (s->nr_cpus && cpu >= s->nr_cpus) {
		snprintf(msg, len, "--cpu %s: the recording has CPUs 0-%d",
			 va->cpus, s->nr_cpus - 1);
		return 1;
	}
	if (!filter->active || !live || live->nr_passed)
		return 0;
	o = 0;
	if (va->pids)
		o += snprintf(msg + o, len - o, "--pid %s ", va->pids);
	if (va->comms && o < len)
		o += snprintf(msg + o, len - o, "--comm %s ", va->comms);
	if (va->cpus && o < len)
		o += snprintf(msg + o, len - o, "--cpu %s ", va->cpus);
	if (o < len)
		snprintf(msg + o, len - o, "matches no event of the recording");
	return 2;
}

static int of_class(unsigned int type, enum kmt_run_class kind)
{
	switch (kind) {
	case KMT_RUN_SLAB:
		return kmt_ev_is_slab(type);
	case KMT_RUN_PAGE:
		return kmt_ev_is_page(type);
	case KMT_RUN_PERCPU:
		return kmt_ev_is_percpu(type);
	case KMT_RUN_VMALLOC:
		return kmt_ev_is_vmalloc(type);
	default:
		return 0;
	}
}

static int has_class(const struct kmt_session *s, enum kmt_run_class kind)
{
	int i;

	for (i = 1; i < KMT_EV_NR; i++) {
		if (s->nr_events[i] && of_class((unsigned int)i, kind))
			return 1;
	}
	return 0;
}

/* the allocators' own tables, which run by default, not the views */
static int is_table(size_t i)
{
	return kmt_run_analyses[i].kind != KMT_RUN_VIEW;
}

/* the name of analysis i's tables: slab, page, --leaks, ... */
const char *kmt_run_table_name(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s",
		 kmt_run_analyses[i].kind > KMT_RUN_PAGE ? "--" : "",
		 kmt_run_analyses[i].ops->name);
	return buf;
}

/* the keys of analysis i, "a, b, c", in buf */
void kmt_run_key_names(size_t i, char *buf, size_t len)
{
	const struct kmt_analysis_ops *ops = kmt_run_analyses[i].ops;
	size_t k, o = 0;

	buf[0] = '\0';
	for (k = 0; k < ops->nr_sort_keys && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "",
				      ops->sort_keys[k].name);
}

/*
 * Every -s key must be known to some analysis that runs; else the
 * message lists the keys of those that run.
 */
static int check_sort_keys(const char *spec, const struct kmt_run *run,
			   char *msg, size_t len)
{
	const char *p = spec;
	char names[512], table[32];
	size_t i, o, nr;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		int known = 0;

		for (i = 0; i < NR_ANALYSES; i++)
			known |= run->on[i] &&
				 kmt_sort_has_key(kmt_run_analyses[i].ops->sort_keys,
						  kmt_run_analyses[i].ops->nr_sort_keys,
						  p, n);
		if (known) {
			p = end ? end + 1 : NULL;
			continue;
		}
		o = (size_t)snprintf(msg, len, "unknown sort key '%.*s'", (int)n, p);
		for (i = 0, nr = 0; i < NR_ANALYSES && o < len; i++) {
			if (!run->on[i] || !kmt_run_analyses[i].ops->nr_sort_keys)
				continue;
			kmt_run_key_names(i, names, sizeof(names));
			o += (size_t)snprintf(msg + o, len - o, "%s %s keys: %s",
					      nr++ ? ";" : ":",
					      kmt_run_table_name(i, table, sizeof(table)),
					      names);
		}
		if (!nr && o < len)
			snprintf(msg + o, len - o, ": the tables asked for take none");
		return -1;
	}
	return 0;
}

static int errno_or_eio(void)
{
	return errno ? -errno : -EIO;
}

/*
 * The analyses [from, to) that are on let go of their lookup tables:
 * done before any of them sorts, the memory makes room for the sorting.
 * 0, or -ENOMEM.
 */
static int seal_analyses(struct kmt_run *run, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		if (run->on[i] && kmt_run_analyses[i].ops->seal &&
		    kmt_run_analyses[i].ops->seal(run->ctx[i]))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Analysis i was asked for but the recording holds none of the events
 * it reads: its tables would be zeros that say "none happened".
 */
static int unrecorded(const struct kmt_session *s, size_t i)
{
	uint32_t needs = kmt_run_analyses[i].ops->needs;

	return needs && !(needs & kmt_session_types(s));
}

/*
 * Analysis i's sections into r, or "--pcpu: not recorded: ..." in their
 * place.  0, or -ENOMEM.
 */
static int finish_one(struct kmt_run *run, size_t i, struct kmt_report *r)
{
	char name[64];

	if (!unrecorded(run->s, i))
		return kmt_run_analyses[i].ops->finish(run->ctx[i], r) ? -ENOMEM : 0;
	/* asked for by its option: --page, --pcpu */
	snprintf(name, sizeof(name), "--%s", kmt_run_analyses[i].ops->name);
	return kmt_report_add_missing(r, kmt_run_analyses[i].ops->name,
				      kmt_report_strdup(r, name),
				      kmt_run_analyses[i].ops->needs &
				      ~kmt_session_types(run->s),
				      run->s->types_known);
}

static int make_second(void *ctx, struct kmt_report *r)
{
	struct second_part *sp = ctx;
	size_t i;

	if (seal_analyses(sp->run, sp->first, NR_ANALYSES))
		return -ENOMEM;
	for (i = sp->first; i < NR_ANALYSES; i++) {
		if (sp->drawn[i] && finish_one(sp->run, i, r))
			return -ENOMEM;
	}
	return 0;
}

static struct kmt_par *start_second(struct kmt_run *run,
				    const struct kmt_renderer *rd)
{
	const struct kmt_run_spec *spec = &run->spec;

	run->sp.run = run;
	run->sp.drawn = run->drawn;
	/* both threads look symbols up from here on */
	kmt_symtab_prepare(&run->s->syms);
	return kmt_par_start(rd, make_second, &run->sp, spec->piece_rows,
			     spec->spool_given ? spec->spool_max :
						 KMT_PAR_SPOOL_MAX);
}

static struct kmt_run *run_fail(struct kmt_run *run,
				enum kmt_run_status *status,
				enum kmt_run_status why, const char *msg,
				char *buf, size_t len)
{
	*status = why;
	if (msg != buf)
		snprintf(buf, len, "%s", msg);
	kmt_run_free(run);
	return NULL;
}

struct kmt_run *kmt_run_create(const struct kmt_run_spec *spec,
			       enum kmt_run_status *status, char *msg,
			       size_t len)
{
	struct kmt_run *run = calloc(1, sizeof(*run));
	int any_view = 0, any = 0, rd;
	size_t i;

	if (!run) {
		*status = KMT_RUN_E_NOMEM;
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	run->spec = *spec;
	if (run->spec.threads < 1)
		run->spec.threads = 1;
	kmt_callsite_cache_init(&run->callsites);
	kmt_report_init(&run->r);
	run->s = spec->session;
	if (!run->s) {
		if (kmt_session_init(&run->own)) {
			free(run);
			*status = KMT_RUN_E_NOMEM;
			snprintf(msg, len, "out of memory");
			return NULL;
		}
		run->s = &run->own;
	}
	for (i = 0; i < NR_ANALYSES; i++) {
		any_view |= !is_table(i) && kmt_run_wanted(&spec->want, i);
		any |= kmt_run_wanted(&spec->want, i);
	}
	for (i = 0; i < NR_ANALYSES; i++)
		run->on[i] = kmt_run_wanted(&spec->want, i) ||
			     (is_table(i) && !any);
	if (spec->kernel && !kmt_run_valid_release(spec->kernel)) {
		snprintf(run->errmsg, sizeof(run->errmsg),
			 "option '--kernel' needs a release such as 6.18.3 or "
			 "5.10.0-28-amd64, not '%s'", spec->kernel);
		return run_fail(run, status, KMT_RUN_E_SPEC, run->errmsg,
				msg, len);
	}
	if (spec->opts.sort &&
	    check_sort_keys(spec->opts.sort, run, msg, len))
		return run_fail(run, status, KMT_RUN_E_SPEC, msg, msg, len);
	rd = kmt_filter_init(&run->filter, spec->pids, spec->comms, spec->cpus,
			     msg, len);
	if (rd)
		return run_fail(run, status, rd == -ENOMEM ? KMT_RUN_E_NOMEM :
				KMT_RUN_E_SPEC, msg, msg, len);
	run->s->time_start = spec->time_start;
	run->s->time_end = spec->time_end;
	run->s->time_relative = spec->time_relative;
	if (any_view || run->filter.active) {
		kmt_live_init(&run->live_store, run->s);
		if (run->filter.active)
			run->live_store.filter = &run->filter;
		run->live = &run->live_store;
		run->spec.opts.tracker = run->live;
	} else {
		run->spec.opts.tracker = NULL;
	}
	for (i = 0; i < NR_ANALYSES; i++) {
		if (!run->on[i])
			continue;
		run->ctx[i] = kmt_run_analyses[i].ops->create(run->s, &run->spec.opts);
		if (!run->ctx[i])
			return run_fail(run, status, KMT_RUN_E_NOMEM,
					run->s->errmsg[0] ? run->s->errmsg :
							   "out of memory",
					msg, len);
		run->active[run->nr_active++] = i;
	}
	/* the slab and page analyses need no slab stacks or names, views do */
	run->s->no_slab_stacks = !run->live;
	run->s->no_cache_names = !run->live;
	run->s->consumer_ctx = run;
	run->need_comm = run->spec.opts.by_comm;
	run->active_filter = run->filter.active ? &run->filter : NULL;
	*status = KMT_RUN_OK;
	return run;
}

static enum kmt_run_status run_error(struct kmt_run *run,
				     enum kmt_run_status why, const char *msg)
{
	snprintf(run->errmsg, sizeof(run->errmsg), "%s", msg);
	return why;
}

enum kmt_run_status kmt_run_read(struct kmt_run *run, const char *input)
{
	const struct kmt_run_spec *spec = &run->spec;
	struct kmt_session *s = run->s;
	char msg[1024];
	int rd;

	if (spec->threads > 1 &&
	    !kmt_pipeline_start(&run->pipe, pipe_consume, run)) {
		run->piped = 1;
		s->consumer = pipe_feed;
	} else {
		s->consumer = dispatch;
	}
	run->input = input;
	rd = kmt_source_read_file(s, input);
	if (run->piped) {
		int err = kmt_pipeline_finish(&run->pipe);

		if (err && !rd)
			rd = feed_error(run, err < 0 ? err : -EINVAL);
	}
	if (rd) {
		run->read_err = rd;
		return run_error(run, KMT_RUN_E_READ,
				 s->errmsg[0] ? s->errmsg : "cannot read the input");
	}
	/* what the user knows of the traced kernel wins over the recording */
	if (spec->kernel)
		snprintf(s->kernel_release, sizeof(s->kernel_release), "%s",
			 spec->kernel);
	switch (nothing_to_report(s, run->live, &run->filter, spec->time_arg,
				  spec, msg, sizeof(msg))) {
	case 1:
		return run_error(run, KMT_RUN_E_INPUT, msg);
	case 2:
		snprintf(run->warning, sizeof(run->warning), "%s", msg);
		break;
	}
	/* a damaged map is said, and the view says "not recorded" */
	if (spec->opts.by_cgroup && spec->want.procs && s->cgroups.damaged[0] &&
	    !run->warning[0])
		snprintf(run->warning, sizeof(run->warning),
			 "'%s': %s: the task-to-cgroup map is left out", input,
			 s->cgroups.damaged);
	/* tasks are not put in processes by guess */
	if (spec->opts.by_tgid && (spec->want.procs || spec->want.extfrag) &&
	    !kmt_hash_i32_count(&s->tgids)) {
		snprintf(msg, sizeof(msg),
			 "--by tgid: '%s' does not say which process each task belongs to "
			 "(kmemtrace record and perf record do; ftrace text with the tgid "
			 "column of options/record-tgid)", input);
		return run_error(run, KMT_RUN_E_INPUT, msg);
	}
	return KMT_RUN_OK;
}

int kmt_run_feed(struct kmt_run *run, const struct kmt_event *ev)
{
	run->s->consumer = dispatch;
	return kmt_session_emit(run->s, ev);
}

enum kmt_run_status kmt_run_finish(struct kmt_run *run,
				   const struct kmt_renderer *rd)
{
	const struct kmt_run_want *want = &run->spec.want;
	size_t i, second = NR_ANALYSES, nr = 0;
	struct kmt_report *r = &run->r;
	int split;

	for (i = 0; i < NR_ANALYSES; i++) {
		/* unasked analyses without events would print only zeros */
		run->drawn[i] = run->on[i] &&
				(!is_table(i) || kmt_run_wanted(want, i) ||
				 want->slab || want->page ||
				 has_class(run->s, kmt_run_analyses[i].kind));
		if (run->drawn[i] && nr++ == 1)
			second = i;
	}
	run->rd = rd;
	kmt_analysis_meta(r, run->s);
	if (run->spec.host)
		r->meta.host = run->spec.host;
	r->meta.matches_nothing = kmt_run_warning(run);
	run->sp.first = second;
	if (rd && run->spec.threads > 1 && nr && rd->layout)
		run->par = start_second(run, rd);
	split = run->par != NULL;
	/* the second part's are sealed on the other thread (make_second) */
	if (seal_analyses(run, 0, split ? second : NR_ANALYSES))
		goto oom;
	for (i = 0; i < (split ? second : NR_ANALYSES); i++) {
		if (run->drawn[i] && finish_one(run, i, r))
			goto oom;
	}
	/* a name the report had no memory for: it would print blank */
	if (r->oom)
		goto oom;
	/* nothing is written until every part is ready to be */
	if (split && kmt_par_first(run->par, r))
		goto oom;
	return KMT_RUN_OK;
oom:
	return run_error(run, KMT_RUN_E_NOMEM, "out of memory");
}

const struct kmt_report *kmt_run_report(const struct kmt_run *run)
{
	return &run->r;
}

int kmt_run_draw(struct kmt_run *run, FILE *out)
{
	if (run->par)
		return kmt_par_draw(run->par, out);
	errno = 0;
	return run->rd->render(&run->r, out) ? errno_or_eio() : 0;
}

void kmt_run_free(struct kmt_run *run)
{
	size_t i;

	if (!run)
		return;
	kmt_par_free(run->par);
	kmt_report_free(&run->r);
	for (i = 0; i < NR_ANALYSES; i++) {
		if (run->ctx[i])
			kmt_run_analyses[i].ops->destroy(run->ctx[i]);
	}
	if (run->live)
		kmt_live_free(run->live);
	kmt_callsite_cache_free(&run->callsites);
	kmt_filter_free(&run->filter);
	if (run->s == &run->own)
		kmt_session_free(&run->own);
	free(run);
}

const char *kmt_run_error(const struct kmt_run *run)
{
	return run->errmsg;
}

const char *kmt_run_warning(const struct kmt_run *run)
{
	return run->warning[0] ? run->warning : NULL;
}

int kmt_run_read_error(const struct kmt_run *run)
{
	return run->read_err;
}

void *kmt_run_context(const struct kmt_run *run,
		      const struct kmt_analysis_ops *ops)
{
	size_t i;

	for (i = 0; i < NR_ANALYSES; i++) {
		if (kmt_run_analyses[i].ops == ops)
			return run->ctx[i];
	}
	return NULL;
}

const struct kmt_session *kmt_run_session(const struct kmt_run *run)
{
	return run->s;
}

uint64_t kmt_run_unreadable(const struct kmt_run *run, char *buf, size_t len)
{
	const struct kmt_session *s = run->s;
	uint64_t n = kmt_session_unreadable(s);
	char first[160] = "";
	unsigned int i;

	for (i = 0; i < s->nr_notes; i++) {
		const struct kmt_anomaly_note *note = &s->notes[i];

		if (note->kind == KMT_ANOM_OUT_OF_ORDER)
			continue;
		if (note->unit == KMT_AT_NOWHERE)
			snprintf(first, sizeof(first), "; the first: %s",
				 note->why);
		else
			snprintf(first, sizeof(first), "; the first at %s %llu: %s",
				 note->unit == KMT_AT_LINE ? "line" : "byte",
				 (unsigned long long)note->where, note->why);
		break;
	}
	snprintf(buf, len, "'%s': %llu record%s could not be read, left out of "
		 "the report%s", run->input, (unsigned long long)n,
		 n == 1 ? "" : "s", first);
	return n;
}
