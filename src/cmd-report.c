// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report: read a recording of any format and print the slab and
 * page analyses (perf kmem stat's job, with its option names), and the
 * views beyond it: leaks, misuse, processes, per-CPU lists, external
 * fragmentation, caches, sizes, lifetimes, a timeline.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "builtin.h"
#include "event/callsite.h"
#include "event/pipeline.h"
#include "event/session.h"
#include "options.h"
#include "render/parallel.h"
#include "render/render.h"
#include "report/profile.h"
#include "report/report.h"
#include "report/sort.h"
#include "source/source.h"
#include "util/hash.h"
#include "util/duration.h"
#include "util/json.h"
#include "util/strbuf.h"

static const char *const report_usage[] = {
	"kmemtrace report [--slab] [--page] [--caller] [--alloc] [-s KEYS] [-l N] [--raw-ip]",
	"                 [--live] [--time A,B] [--json | --csv] [-o FILE] [--threads N] [[-i] FILE]",
	"kmemtrace report [--leaks [--older-than D]] [--errors [--all-findings]] [--procs [--by comm]] [--pcpu]",
	"                 [--extfrag] [--caches] [--sizes] [--lifetimes] [--timeline [--step D]]",
	"                 [--pid LIST] [--comm LIST] [--cpu LIST] [--time A,B] ... [[-i] FILE]",
	NULL,
};

/* what the command line asked for: one flag per analysis */
struct report_want {
	int slab, page;
	int leaks, errors, procs, pcpu, extfrag, caches, sizes, lifetimes;
	int timeline;
	int profile;
};

/* the option values that need parsing before the analyses start */
struct view_args {
	const char *by;
	const char *pids, *comms, *cpus;
};

enum analysis_kind { AN_SLAB, AN_PAGE, AN_VIEW };

/* the analyses report can run, in the order their sections print */
static const struct {
	const struct kmt_analysis_ops *ops;
	size_t want;		/* its flag in struct report_want */
	enum analysis_kind kind;
} analyses[] = {
	{ &kmt_analysis_slab, offsetof(struct report_want, slab), AN_SLAB },
	{ &kmt_analysis_page, offsetof(struct report_want, page), AN_PAGE },
	{ &kmt_analysis_leaks, offsetof(struct report_want, leaks), AN_VIEW },
	{ &kmt_analysis_errors, offsetof(struct report_want, errors), AN_VIEW },
	{ &kmt_analysis_procs, offsetof(struct report_want, procs), AN_VIEW },
	{ &kmt_analysis_pcpu, offsetof(struct report_want, pcpu), AN_VIEW },
	{ &kmt_analysis_extfrag, offsetof(struct report_want, extfrag), AN_VIEW },
	{ &kmt_analysis_caches, offsetof(struct report_want, caches), AN_VIEW },
	{ &kmt_analysis_sizes, offsetof(struct report_want, sizes), AN_VIEW },
	{ &kmt_analysis_lifetimes, offsetof(struct report_want, lifetimes),
	  AN_VIEW },
	{ &kmt_analysis_timeline, offsetof(struct report_want, timeline),
	  AN_VIEW },
	{ &kmt_analysis_profile, offsetof(struct report_want, profile),
	  AN_VIEW },
};

#define NR_ANALYSES (sizeof(analyses) / sizeof(analyses[0]))

static int wanted(const struct report_want *w, size_t i)
{
	return *(const int *)((const char *)w + analyses[i].want);
}

struct report_run {
	const char *host;	/* --host: the machine's name in ndjson rows */
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
	struct kmt_session *s;
	/*
	 * With no tracker, the analyses run on a second thread (pipe) while
	 * this one reads: failed is the analysis that stopped it.
	 */
	struct kmt_pipeline pipe;
	size_t failed;
	int piped;
	int need_comm;		/* --by comm: events carry their pid's name */
	struct kmt_filter *filter;
	struct kmt_callsite_cache callsites;
	const char *empty;	/* what matched no event, for the report */
};

/*
 * What the analyses would look up in the session's tables, which the
 * reader fills as it goes, found where the event is read and written
 * into it: the pid's command name; with the analyses on another thread,
 * also the page callsite from the stack and the filter's decision.
 */
static void prepare_event(struct report_run *run, struct kmt_event *ev)
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
	if (ev->stack && !kmt_ev_is_slab(ev->type)) {
		ev->call_site = kmt_page_callsite(&run->callsites, s, ev->stack);
		ev->flags |= KMT_EVF_CALLSITE;
	}
	if (run->filter && run->filter->active) {
		ev->flags |= KMT_EVF_FILTERED;
		if (kmt_filter_pass(run->filter, s, ev->pid, ev->cpu))
			ev->flags |= KMT_EVF_PASSES;
	}
}

/*
 * One event through the tracker and the analyses, on whichever thread
 * runs them; on failure, run->failed names what failed.
 */
static int feed(struct report_run *run, const struct kmt_event *ev)
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

		ret = analyses[i].ops->on_event(run->ctx[i], ev);
		if (ret) {
			run->failed = i;
			return ret < 0 ? ret : -EINVAL;
		}
	}
	return 0;
}

/* the message of what feed() failed in */
static int feed_error(struct report_run *run, int err)
{
	if (run->failed >= NR_ANALYSES)
		return kmt_session_error(run->s, err,
					 "out of memory tracking live objects");
	return kmt_session_error(run->s, err, "out of memory in the %s analysis",
				 analyses[run->failed].ops->name);
}

static int dispatch(void *arg, const struct kmt_event *ev)
{
	struct report_run *run = arg;
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
	struct report_run *run = arg;
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
	struct report_run *run = arg;
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
static int parse_time(const char *arg, uint64_t *start, uint64_t *end,
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
static int valid_release(const char *r)
{
	int major, minor, end = 0;

	return strlen(r) < 64 &&
	       sscanf(r, "%d.%d%n", &major, &minor, &end) == 2 && end > 0 &&
	       major > 0 && minor >= 0 && r[0] >= '0' && r[0] <= '9' &&
	       (!r[end] || r[end] == '.' || r[end] == '-' || r[end] == '+');
}

static void fill_meta(struct kmt_report *r, const struct kmt_session *s)
{
	struct kmt_report_meta *m = &r->meta;
	int i;

	m->input = s->input;
	m->format = s->format ? s->format : "unknown";
	m->kernel = s->kernel_release;
	m->host = s->hostname;
	m->boot_id = s->boot_id;
	m->nr_cpus = s->nr_cpus;
	m->first_ts = s->first_ts;
	m->last_ts = s->last_ts;
	m->has_start = kmt_session_wall_start(s, &m->start_unix_ns);
	m->time_start = s->time_start;
	m->time_end = s->time_end;
	for (i = 1; i < KMT_EV_NR; i++) {
		if (!s->nr_events[i])
			continue;
		m->events[m->nr_event_types].name = kmt_ev_type_name(i);
		m->events[m->nr_event_types].count = s->nr_events[i];
		m->nr_event_types++;
	}
	m->other_events = s->nr_other;
	m->nr_formats = s->nr_unusable;
	for (i = 0; i < (int)s->nr_unusable && i < KMT_META_FORMATS; i++) {
		m->formats[i].name = s->unusable[i].name;
		m->formats[i].why = s->unusable[i].why;
		m->formats[i].records = s->unusable[i].records;
	}
	m->lost_events = s->nr_lost;
	m->lost_records = s->nr_lost_records;
	m->unreadable = kmt_session_unreadable(s);
	for (i = 0; i < (int)s->nr_notes && i < KMT_META_NOTES; i++) {
		const struct kmt_anomaly_note *n = &s->notes[i];

		if (n->kind == KMT_ANOM_OUT_OF_ORDER)
			continue;
		m->notes[m->nr_notes].unit = n->unit == KMT_AT_LINE ? "line" :
					     n->unit == KMT_AT_BYTE ? "byte" :
					     NULL;
		m->notes[m->nr_notes].where = n->where;
		m->notes[m->nr_notes].why = n->why;
		m->nr_notes++;
	}
	m->out_of_order = s->anomalies[KMT_ANOM_OUT_OF_ORDER];
	m->has_stacks = s->has_stacks;
	m->types_known = s->types_known;
	for (i = 1; i < KMT_EV_NR && s->types_known; i++) {
		if (s->recorded_types & KMT_EV_BIT(i))
			m->recorded[m->nr_recorded++] = kmt_ev_type_name(i);
	}
}

/* the message, and {"error": ...} on stdout with --json; returns code */
/* one line on stderr for a report made without part of its input */
static void warn_unreadable(const struct kmt_session *s, const char *input)
{
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
	kmt_warning("'%s': %llu record%s could not be read, left out of the report%s",
		    input, (unsigned long long)n, n == 1 ? "" : "s", first);
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
			     const char *time_arg, const struct view_args *va,
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

static int fail(int code, const char *msg)
{
	return kmt_error(code, "%s", msg);
}

static int has_class(const struct kmt_session *s, enum analysis_kind kind)
{
	int i;

	for (i = 1; i < KMT_EV_NR; i++) {
		if (s->nr_events[i] && kmt_ev_is_slab(i) == (kind == AN_SLAB))
			return 1;
	}
	return 0;
}

/* the name of analysis i's tables: slab, page, --leaks, ... */
static const char *table_name(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", analyses[i].kind == AN_VIEW ? "--" : "",
		 analyses[i].ops->name);
	return buf;
}

/* the keys of analysis i, "a, b, c", in buf */
static void key_names(size_t i, char *buf, size_t len)
{
	const struct kmt_analysis_ops *ops = analyses[i].ops;
	size_t k, o = 0;

	buf[0] = '\0';
	for (k = 0; k < ops->nr_sort_keys && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "",
				      ops->sort_keys[k].name);
}

/* -s in -h (help) or one key a line (completion): each table's keys */
static void list_sort_keys(FILE *out, int help)
{
	char names[512], table[32];
	size_t i, j, k;

	if (help)
		fprintf(out, "\nsort keys (-s), each table by its own, larger first:\n");
	for (i = 0; i < NR_ANALYSES; i++) {
		const struct kmt_analysis_ops *ops = analyses[i].ops;

		if (!ops->nr_sort_keys)
			continue;
		if (help) {
			char head[48], line[700];

			key_names(i, names, sizeof(names));
			snprintf(head, sizeof(head), "    %s",
				 table_name(i, table, sizeof(table)));
			snprintf(line, sizeof(line), "%s (default %s)", names,
				 ops->default_sort);
			kmt_help_wrap(out, head, 14, line);
			continue;
		}
		for (k = 0; k < ops->nr_sort_keys; k++) {
			const char *name = ops->sort_keys[k].name;
			int dup = 0;

			for (j = 0; j < i && !dup; j++) {
				const struct kmt_analysis_ops *o = analyses[j].ops;

				dup = kmt_sort_has_key(o->sort_keys,
						       o->nr_sort_keys, name,
						       strlen(name));
			}
			if (!dup)
				fprintf(out, "%s\n", name);
		}
	}
}

/* --weight's values, for completion */
static void list_weights(FILE *out, int help)
{
	size_t i;

	for (i = 0; !help && i < KMT_PROFILE_NR_VALUES; i++)
		fprintf(out, "%s\n", kmt_profile_values[i][0]);
}

/* --by for completion */
static void list_by(FILE *out, int help)
{
	if (!help)
		fputs("pid\ntgid\ncomm\n", out);
}

/* --format: the renderers' names, from their table */
static void list_formats(FILE *out, int help)
{
	const struct kmt_renderer *rd;
	size_t i;

	if (help)
		fputs("\nformats (--format):", out);
	for (i = 0; (rd = kmt_renderer_at(i)); i++)
		fprintf(out, help ? " %s" : "%s\n", rd->name);
	if (help)
		fputc('\n', out);
}

/*
 * Every -s key must be known to some analysis that runs; else the
 * message lists the keys of those that run.
 */
static int check_sort_keys(const char *spec, const struct report_run *run,
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
				 kmt_sort_has_key(analyses[i].ops->sort_keys,
						  analyses[i].ops->nr_sort_keys,
						  p, n);
		if (known) {
			p = end ? end + 1 : NULL;
			continue;
		}
		o = (size_t)snprintf(msg, len, "unknown sort key '%.*s'", (int)n, p);
		for (i = 0, nr = 0; i < NR_ANALYSES && o < len; i++) {
			if (!run->on[i] || !analyses[i].ops->nr_sort_keys)
				continue;
			key_names(i, names, sizeof(names));
			o += (size_t)snprintf(msg + o, len - o, "%s %s keys: %s",
					      nr++ ? ";" : ":",
					      table_name(i, table, sizeof(table)),
					      names);
		}
		if (!nr && o < len)
			snprintf(msg + o, len - o, ": the tables asked for take none");
		return -1;
	}
	return 0;
}

static int view_options(const struct view_args *a, struct kmt_report_opts *opts,
			char *msg, size_t len)
{
	if (a->by && strcmp(a->by, "pid") && strcmp(a->by, "tgid") &&
	    strcmp(a->by, "comm")) {
		snprintf(msg, len, "option '--by' needs pid, tgid or comm, not '%s'",
			 a->by);
		return -1;
	}
	opts->by_comm = a->by && !strcmp(a->by, "comm");
	opts->by_tgid = a->by && !strcmp(a->by, "tgid");
	if (opts->top == INT_MIN)
		opts->top = 0;		/* the view's default */
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
static int seal_analyses(struct report_run *run, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		if (run->on[i] && analyses[i].ops->seal &&
		    analyses[i].ops->seal(run->ctx[i]))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The tests' recordings have tables of a few hundred rows: they set
 * smaller pieces and a smaller spool through these, so that the two
 * threads that draw a report take turns inside tables and the spool
 * fills (render/parallel.h).
 */
#define PIECE_ROWS_ENV "KMT_TEST_PIECE_ROWS"
#define SPOOL_MAX_ENV "KMT_TEST_SPOOL_MAX"

/*
 * Analysis i was asked for but the recording holds none of the events
 * it reads: its tables would be zeros that say "none happened".
 */
static int unrecorded(const struct kmt_session *s, size_t i)
{
	uint32_t needs = analyses[i].ops->needs;

	return needs && !(needs & kmt_session_types(s));
}

/*
 * Analysis i's sections into r, or "--pcpu: not recorded: ..." in their
 * place.  0, or -ENOMEM.
 */
static int finish_one(struct report_run *run, size_t i, struct kmt_report *r)
{
	char name[64];

	if (!unrecorded(run->s, i))
		return analyses[i].ops->finish(run->ctx[i], r) ? -ENOMEM : 0;
	/* asked for by its option: --page, --pcpu */
	snprintf(name, sizeof(name), "--%s", analyses[i].ops->name);
	return kmt_report_add_missing(r, analyses[i].ops->name,
				      kmt_report_strdup(r, name),
				      analyses[i].ops->needs &
				      ~kmt_session_types(run->s),
				      run->s->types_known);
}

/* what the second thread finishes: every analysis from the second on */
struct second_part {
	struct report_run *run;
	const int *drawn;
	size_t first;
};

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

static struct kmt_par *start_second(struct report_run *run, const int *drawn,
				    struct second_part *sp,
				    const struct kmt_renderer *rd)
{
	const char *rows = getenv(PIECE_ROWS_ENV), *spool = getenv(SPOOL_MAX_ENV);

	sp->run = run;
	sp->drawn = drawn;
	/* both threads look symbols up from here on */
	kmt_symtab_prepare(&run->s->syms);
	return kmt_par_start(rd, make_second, sp,
			     rows && atol(rows) > 0 ? (size_t)atol(rows) : 0,
			     spool && atol(spool) >= 0 ? (size_t)atol(spool) :
							 KMT_PAR_SPOOL_MAX);
}

/*
 * Seals, finishes and draws the analyses run has on, to output (stdout
 * when NULL); the exit status.  With two threads, a text or CSV report
 * is finished by both (render/parallel.h): the first analysis on this
 * thread, every later one on the other.
 */
static int make_report(struct report_run *run, const struct report_want *want,
		       const struct kmt_renderer *renderer, const char *output,
		       int threads)
{
	size_t i, second = NR_ANALYSES, nr = 0;
	int drawn[NR_ANALYSES];
	struct second_part sp = { 0 };
	struct kmt_par *par = NULL;
	struct kmt_report r;
	char tmp[4096];
	int split, ret = KMT_EXIT_RUNTIME, err, whole;
	FILE *out;

	for (i = 0; i < NR_ANALYSES; i++) {
		/* unasked analyses without events would print only zeros */
		drawn[i] = run->on[i] &&
			   (analyses[i].kind == AN_VIEW || want->slab ||
			    want->page || has_class(run->s, analyses[i].kind));
		if (drawn[i] && nr++ == 1)
			second = i;
	}
	kmt_report_init(&r);
	fill_meta(&r, run->s);
	if (run->host)
		r.meta.host = run->host;
	r.meta.matches_nothing = run->empty;
	sp.first = second;
	if (threads > 1 && nr && renderer->layout)
		par = start_second(run, drawn, &sp, renderer);
	split = par != NULL;
	/* the second part's are sealed on the other thread (make_second) */
	if (seal_analyses(run, 0, split ? second : NR_ANALYSES))
		goto oom;
	for (i = 0; i < (split ? second : NR_ANALYSES); i++) {
		if (!drawn[i])
			continue;
		if (finish_one(run, i, &r))
			goto oom;
	}
	/* a name the report had no memory for: it would print blank */
	if (r.oom)
		goto oom;
	/* nothing is written until every part is ready to be */
	if (split && kmt_par_first(par, &r))
		goto oom;
	/* a document others open whole is never left half written */
	whole = renderer->group || renderer->all_views;
	out = !whole ? kmt_open_output(output) :
		       kmt_open_output_whole(output, tmp, sizeof(tmp));
	if (!out) {
		kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
			  strerror(errno));
		goto done;
	}
	if (split) {
		err = kmt_par_draw(par, out);
	} else {
		errno = 0;
		err = renderer->render(&r, out) ? errno_or_eio() : 0;
	}
	ret = !whole ? kmt_close_output(out, output, err) :
		       kmt_close_output_whole(out, output, tmp, err);
	goto done;
oom:
	fail(KMT_EXIT_RUNTIME, "out of memory");
done:
	kmt_par_free(par);
	kmt_report_free(&r);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	const char *input = NULL, *time_arg = NULL, *output = NULL;
	const char *format = NULL;
	const char *kernel = NULL, *weight = NULL, *host = NULL, *html = NULL;
	int json = 0, csv = 0, any_view = 0, threads = 0;
	struct kmt_report_opts opts = { 0 };
	struct report_want want = { 0 };
	struct view_args va = { 0 };
	const struct kmt_option options[] = {
		OPT_GROUP("input"),
		OPT_STRING('i', "input", &input, "file",
			   "recording: perf.data, trace.dat or ftrace text, '-' for stdin "
			   "(default: kmemtrace.dat, or stdin when it is a pipe)"),
		OPT_STRING(0, "time", &time_arg, "start,end",
			   "only events in this window, in seconds as the recording "
			   "stamps them (either side may be empty)"),
		OPT_LIST(0, "pid", &va.pids, "list",
			 "only these processes (1234,5678): their allocations with "
			 "their frees, whoever frees, and their other events"),
		OPT_LIST(0, "comm", &va.comms, "list",
			 "only these command names, as --pid (patterns: kworker*)"),
		OPT_LIST(0, "cpu", &va.cpus, "list",
			 "only these CPUs (0,2-3), as --pid"),
		OPT_GROUP("analyses (default: slab and page, for the events present)"),
		OPT_BOOL(0, "slab", &want.slab, "slab allocator: kmalloc, kmem_cache_alloc, frees"),
		OPT_BOOL(0, "page", &want.page, "page allocator: mm_page_alloc, mm_page_free, ..."),
		OPT_GROUP("views (with any of them, only the views print, unless --slab or --page)"),
		OPT_BOOL(0, "leaks", &want.leaks,
			 "still allocated at the end, by callsite and stack, with ages"),
		OPT_DURATION(0, "older-than", &opts.older_than, "duration", 0,
			   "leaks: only objects alive at least this long (500ms, 2s, 1m)"),
		OPT_BOOL(0, "errors", &want.errors,
			 "misuse: wrong free function or cache, double and unknown frees, "
			 "bytes_alloc < bytes_req, failures"),
		OPT_DURATION(0, "warmup", &opts.warmup, "duration", 0,
			   "errors: frees of unknown pointers this early are expected "
			   "(default 1s)"),
		OPT_BOOL(0, "all-findings", &opts.all_findings,
			 "errors: list the findings legal on the traced kernel too"),
		OPT_STRING(0, "kernel", &kernel, "release",
			   "the traced kernel's release (uname -r) for inputs that do not "
			   "record it, such as ftrace text; it judges the errors' findings"),
		OPT_BOOL(0, "procs", &want.procs,
			 "per process: Mel Gorman's page allocator columns, slab bytes"),
		OPT_WORDS(0, "by", &va.by, "pid|tgid|comm", list_by,
			  "procs, extfrag: a row per task (pid, default), process (tgid) or command name"),
		OPT_BOOL(0, "pcpu", &want.pcpu,
			 "per CPU: per-CPU list refills and drains, imbalance"),
		OPT_BOOL(0, "extfrag", &want.extfrag,
			 "external fragmentation: fallbacks by order, migratetype, "
			 "process, over time"),
		OPT_BOOL(0, "caches", &want.caches,
			 "per slab cache: objects, bytes, waste, outstanding"),
		OPT_BOOL(0, "sizes", &want.sizes,
			 "histogram of requested sizes, powers of two, with waste"),
		OPT_BOOL(0, "lifetimes", &want.lifetimes,
			 "histogram of allocation-to-free times (per callsite with --caller)"),
		OPT_BOOL(0, "timeline", &want.timeline,
			 "outstanding slab and page memory over time, top callsites"),
		OPT_DURATION(0, "step", &opts.step, "duration", 1,
			   "timeline, extfrag: the step (default: the span / 50, rounded)"),
		OPT_INT(0, "top", &opts.top, "n", 1, INT_MAX,
			"timeline: callsites drawn (default 10)"),
		OPT_BOOL(0, "profile", &want.profile,
			 "allocations by stack, process and cache, with what is live "
			 "at the end: what --format pprof and folded draw"),
		OPT_WORDS(0, "weight", &weight, "value", list_weights,
			  "profile: the value folded draws and pprof shows first "
			  "(default alloc_space)"),
		OPT_GROUP("tables"),
		OPT_BOOL(0, "caller", &opts.caller, "per-callsite table (slab, page, lifetimes)"),
		OPT_BOOL(0, "alloc", &opts.alloc, "per-object (slab) and per-page table"),
		OPT_WORDS('s', "sort", &opts.sort, "keys", list_sort_keys,
			  "sort by these keys (key,key,...), each table by those "
			  "it knows (listed below)"),
		OPT_INT('l', "limit", &opts.lines, "n", 0, INT_MAX,
			"print at most n rows per table (0: all, the default)"),
		OPT_ALIAS("line", &opts.lines),	/* perf kmem's name */
		OPT_BOOL(0, "raw-ip", &opts.raw_ip, "print addresses, not symbols"),
		OPT_BOOL(0, "live", &opts.live, "page: only blocks still allocated at the end"),
		OPT_GROUP("output"),
		OPT_WORDS(0, "format", &format, "name", list_formats,
			  "output format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "JSON: every table and summary (--format json)"),
		OPT_BOOL(0, "csv", &csv, "CSV: one row a value, table,row,column,value (--format csv)"),
		OPT_STRING(0, "html", &html, "file",
			   "a page to open, mail or attach: every view, the flame graph "
			   "(--format html -o <file>)"),
		OPT_STRING('o', "output", &output, "file",
			   "write the report to <file> ('-': stdout, the default)"),
		OPT_STRING(0, "host", &host, "name",
			   "ndjson: the host name every row carries (default: the "
			   "recording's, where it says it)"),
		OPT_GROUP("running"),
		OPT_INT(0, "threads", &threads, "n", 0, 2,
			"threads to use (0, the default: 2 with 2 CPUs or more; "
			"2: analyse on a second thread)"),
		OPT_END(),
	};
	const struct kmt_renderer *renderer;
	struct kmt_filter filter;
	struct report_run run;
	struct kmt_live live;
	struct kmt_session s;
	uint64_t time_start = 0, time_end = 0;
	unsigned int time_relative = 0;
	char msg[1024];
	int ret = KMT_EXIT_RUNTIME, rd, nargs;
	size_t i;

	memset(&run, 0, sizeof(run));
	kmt_callsite_cache_init(&run.callsites);
	opts.top = INT_MIN;	/* not given */
	opts.warmup = 1000000000ULL;	/* 1 s */
	nargs = kmt_parse_options(argc, argv, options, report_usage, 0);
	if (nargs > 1)
		return kmt_usage_error("one input at a time, not '%s' and '%s'",
				       argv[0], argv[1]);
	if (json + csv + !!format + !!html > 1)
		return kmt_usage_error("--format, --json, --csv and --html exclude "
				       "each other");
	if (html) {
		if (output)
			return kmt_usage_error("--html names its file: no -o with it");
		format = "html";
		output = html;
	}
	if (!threads)
		threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	if (!format)
		format = json ? "json" : csv ? "csv" : "text";
	renderer = kmt_renderer_find(format);
	if (!renderer) {
		const struct kmt_renderer *known;
		size_t o = 0;

		for (i = 0; (known = kmt_renderer_at(i)) && o < sizeof(msg); i++)
			o += snprintf(msg + o, sizeof(msg) - o, "%s%s",
				      i ? ", " : "", known->name);
		return kmt_usage_error("unknown format '%s': the formats are %s",
				       format, msg);
	}
	if (!strcmp(format, "json"))
		kmt_errors_as_json(1);
	opts.weight = KMT_PROFILE_ALLOC_SPACE;
	if (weight) {
		opts.weight = kmt_profile_value(weight);
		if (opts.weight < 0)
			return kmt_usage_error("option '--weight' needs alloc_objects, "
					       "alloc_space, inuse_objects or "
					       "inuse_space, not '%s'", weight);
	}
	if (renderer->group) {
		/* pprof and folded draw the profile and nothing else */
		for (i = 0; i < NR_ANALYSES; i++) {
			if (analyses[i].ops != &kmt_analysis_profile &&
			    wanted(&want, i))
				return kmt_usage_error("--format %s draws the allocation "
						       "profile alone, not --%s",
						       format, analyses[i].ops->name);
		}
		if (opts.caller || opts.alloc || opts.live)
			return kmt_usage_error("--format %s draws the allocation "
					       "profile alone, not --%s", format,
					       opts.caller ? "caller" :
					       opts.alloc ? "alloc" : "live");
		if (opts.lines)
			return kmt_usage_error("--format %s draws the whole profile: "
					       "one cut short by -l would not add up",
					       format);
		want.profile = 1;
		/* a binary file on a terminal helps nobody */
		if (!strcmp(format, "pprof") && (!output || !strcmp(output, "-")) &&
		    isatty(STDOUT_FILENO))
			return kmt_usage_error("--format pprof writes a binary file: "
					       "give -o FILE (go tool pprof reads it)");
	} else if (renderer->all_views) {
		/* a page to look at: every view, and the tables in reason */
		if (opts.alloc)
			return kmt_usage_error("--format %s draws no per-object table: "
					       "leave out --alloc", format);
		for (i = 0; i < NR_ANALYSES; i++)
			*(int *)((char *)&want + analyses[i].want) = 1;
		opts.caller = 1;
		opts.profile_whole = 1;
		if (!opts.lines)
			opts.lines = 500;
	} else if (weight && !want.profile) {
		return kmt_usage_error("--weight goes with --profile or --format "
				       "pprof or folded");
	}
	if (view_options(&va, &opts, msg, sizeof(msg)))
		return kmt_usage_error("%s", msg);
	if (time_arg && parse_time(time_arg, &time_start, &time_end,
				   &time_relative))
		return kmt_usage_error("option '--time' needs start,end in seconds "
				       "as the recording stamps them, or from its "
				       "start as +S (+1.5,+3), start <= end, not '%s'",
				       time_arg);
	if (kernel && !valid_release(kernel))
		return kmt_usage_error("option '--kernel' needs a release such as "
				       "6.18.3 or 5.10.0-28-amd64, not '%s'", kernel);
	for (i = 0; i < NR_ANALYSES; i++)
		any_view |= analyses[i].kind == AN_VIEW && wanted(&want, i);
	for (i = 0; i < NR_ANALYSES; i++) {
		run.on[i] = wanted(&want, i) ||
			    (analyses[i].kind != AN_VIEW && !want.slab &&
			     !want.page && !any_view);
	}
	if (opts.sort && check_sort_keys(opts.sort, &run, msg, sizeof(msg)))
		return kmt_usage_error("%s", msg);
	rd = kmt_filter_init(&filter, va.pids, va.comms, va.cpus, msg,
			     sizeof(msg));
	if (rd) {
		kmt_filter_free(&filter);
		return rd == -ENOMEM ? fail(KMT_EXIT_RUNTIME, msg) :
				       kmt_usage_error("%s", msg);
	}
	/* the command line is sound: now the input */
	rd = kmt_choose_input(input, nargs ? argv[0] : NULL, "kmemtrace.dat",
			      "give -i FILE", &input, msg, sizeof(msg));
	if (rd) {
		kmt_filter_free(&filter);
		return rd == KMT_EXIT_INPUT ? fail(rd, msg) : rd;
	}
	if (kmt_session_init(&s)) {
		kmt_filter_free(&filter);
		return fail(KMT_EXIT_RUNTIME, "out of memory");
	}
	s.time_start = time_start;
	s.time_end = time_end;
	s.time_relative = time_relative;
	if (any_view || filter.active) {
		kmt_live_init(&live, &s);
		if (filter.active)
			live.filter = &filter;
		run.live = &live;
		opts.tracker = &live;
	}
	for (i = 0; i < NR_ANALYSES; i++) {
		if (!run.on[i])
			continue;
		run.ctx[i] = analyses[i].ops->create(&s, &opts);
		if (!run.ctx[i]) {
			fail(KMT_EXIT_RUNTIME, s.errmsg[0] ? s.errmsg : "out of memory");
			goto out;
		}
		run.active[run.nr_active++] = i;
	}
	run.s = &s;
	run.host = host;
	/* the slab and page analyses need no slab stacks or names, views do */
	s.no_slab_stacks = !run.live;
	s.no_cache_names = !run.live;
	s.consumer_ctx = &run;
	run.need_comm = opts.by_comm;
	run.filter = filter.active ? &filter : NULL;
	/*
	 * One malloc arena: the analyses' thread grows the big tables, and
	 * an arena of its own would keep what it freed out of reach of the
	 * sorting and rendering that follow on this one.
	 */
	if (threads > 1)
		mallopt(M_ARENA_MAX, 1);
	/*
	 * Big tables in mappings of their own: freed, they go back to the
	 * system at once, and grown, they move without a copy (mremap).
	 * Left to itself glibc raises this threshold as big blocks are
	 * freed, and keeps the next ones in the heap, where what is freed
	 * stays counted in the peak.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (threads > 1 &&
	    !kmt_pipeline_start(&run.pipe, pipe_consume, &run)) {
		run.piped = 1;
		s.consumer = pipe_feed;
	} else {
		s.consumer = dispatch;
	}
	rd = kmt_source_read_file(&s, input);
	if (run.piped) {
		int err = kmt_pipeline_finish(&run.pipe);

		if (err && !rd)
			rd = feed_error(&run, err < 0 ? err : -EINVAL);
	}
	if (rd) {
		ret = fail(kmt_read_exit(rd),
			   s.errmsg[0] ? s.errmsg : "cannot read the input");
		goto out;
	}
	/* what the user knows of the traced kernel wins over the recording */
	if (kernel)
		snprintf(s.kernel_release, sizeof(s.kernel_release), "%s",
			 kernel);
	switch (nothing_to_report(&s, run.live, &filter, time_arg, &va, msg,
				  sizeof(msg))) {
	case 1:
		ret = fail(KMT_EXIT_INPUT, msg);
		goto out;
	case 2:
		kmt_warning("%s", msg);
		run.empty = msg;
		break;
	}
	/* tasks are not put in processes by guess */
	if (opts.by_tgid && (want.procs || want.extfrag) &&
	    !kmt_hash_i32_count(&s.tgids)) {
		snprintf(msg, sizeof(msg),
			 "--by tgid: '%s' does not say which process each task belongs to "
			 "(kmemtrace record and perf record do; ftrace text with the tgid "
			 "column of options/record-tgid)", input);
		ret = fail(KMT_EXIT_INPUT, msg);
		goto out;
	}

	ret = make_report(&run, &want, renderer, output, threads);
	if (!ret && kmt_session_unreadable(&s)) {
		warn_unreadable(&s, input);
		ret = KMT_EXIT_PARTIAL;
	}
out:
	for (i = 0; i < NR_ANALYSES; i++) {
		if (run.ctx[i])
			analyses[i].ops->destroy(run.ctx[i]);
	}
	if (run.live)
		kmt_live_free(run.live);
	kmt_callsite_cache_free(&run.callsites);
	kmt_filter_free(&filter);
	kmt_session_free(&s);
	return ret;
}
