// SPDX-License-Identifier: GPL-2.0
/*
 * --extfrag: external fragmentation.  mm_page_alloc_extfrag fires when an
 * allocation falls back to a free block of another migratetype; the
 * fallback fragments memory when it splits a block smaller than a
 * pageblock ("fragmenting"), and may move the whole pageblock to the new
 * type ("change_ownership").  As in Mel Gorman's report, a fragmenting
 * fallback is severe when the fallback order is 3 or below, moderate
 * above.  Tables: by orders and migratetypes, by process, by callsite
 * when there are stacks, and over time in fixed steps (steps.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/extfrag.h"
#include "analysis/live.h"
#include "analysis/steps.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/array.h"
#include "util/rows.h"

struct fb_key {
	int32_t alloc_order;
	int32_t fallback_order;
	int32_t alloc_mt;
	int32_t fallback_mt;
};

struct fb_row {
	struct fb_key k;
	struct kmt_extfrag_counts n;
};

struct one_row {		/* by process or callsite */
	uint64_t key;
	struct kmt_extfrag_counts n;
};

struct extfrag_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_rows fallbacks;	/* struct fb_row */
	struct kmt_rows procs;		/* struct one_row by pid or comm id */
	struct kmt_rows sites;		/* struct one_row by callsite */
	struct kmt_steps steps;
	struct kmt_extfrag_counts *per_step;
	size_t nr_steps, alloc_steps;
	struct kmt_extfrag_counts total;
};

static void *extfrag_create(struct kmt_session *s,
			    const struct kmt_report_opts *opts)
{
	struct extfrag_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->fallbacks, sizeof(struct fb_row),
		      sizeof(struct fb_key));
	kmt_rows_init(&c->procs, sizeof(struct one_row), sizeof(uint64_t));
	kmt_rows_init(&c->sites, sizeof(struct one_row), sizeof(uint64_t));
	return c;
}

static void extfrag_destroy(void *ctx)
{
	struct extfrag_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->fallbacks);
	kmt_rows_free(&c->procs);
	kmt_rows_free(&c->sites);
	free(c->per_step);
	free(c);
}

static void add(struct kmt_extfrag_counts *to,
		const struct kmt_extfrag_counts *n)
{
	to->events += n->events;
	to->fragmenting += n->fragmenting;
	to->severe += n->severe;
	to->moderate += n->moderate;
	to->changed += n->changed;
}

/* old steps [k * merge, (k + 1) * merge) become step k */
static void merge_steps(struct extfrag_ctx *c, size_t merge)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr_steps; i++) {
		struct kmt_extfrag_counts v = c->per_step[i];

		if (i % merge == 0)
			memset(&c->per_step[n++], 0, sizeof(v));
		add(&c->per_step[n - 1], &v);
	}
	c->nr_steps = n;
}

/*
 * The steps start with what was read: the window, or the first event
 * read, filtered out or not.
 */
static void start_steps(struct extfrag_ctx *c, uint64_t ts)
{
	uint64_t first = c->live.l->nr_fed ? c->live.l->first_ts : ts;

	if (!c->steps.started)
		kmt_steps_init(&c->steps, c->opts.step, c->s->time_start ?
			       c->s->time_start : first);
}

/* step of ts, the steps kept growing to reach it; NULL out of memory */
static struct kmt_extfrag_counts *step_at(struct extfrag_ctx *c, uint64_t ts)
{
	size_t merge, idx;

	start_steps(c, ts);
	idx = kmt_steps_place(&c->steps, ts, &merge);
	if (merge > 1)
		merge_steps(c, merge);
	if (idx >= c->nr_steps) {
		if (KMT_ARRAY_GROW(c->per_step, idx + 1, c->alloc_steps))
			return NULL;
		memset(c->per_step + c->nr_steps, 0,
		       (idx + 1 - c->nr_steps) * sizeof(*c->per_step));
		c->nr_steps = idx + 1;
	}
	return &c->per_step[idx];
}

static int count_in(struct kmt_rows *rows, uint64_t key,
		    const struct kmt_extfrag_counts *n)
{
	struct one_row *row = kmt_rows_get(rows, &key, 1, NULL);

	if (!row)
		return -ENOMEM;
	row->key = key;
	add(&row->n, n);
	return 0;
}

static int extfrag_on_event(void *ctx, const struct kmt_event *ev)
{
	struct extfrag_ctx *c = ctx;
	struct kmt_extfrag_counts n, *at;
	struct fb_row *fb;
	struct fb_key k;
	uint64_t pkey;
	int ret = kmt_live_use_feed(&c->live, ev), frag;

	if (ret <= 0)
		return ret;
	start_steps(c, ev->ts);
	if (ev->type != KMT_EV_EXTFRAG)
		return 0;

	frag = ev->flags & KMT_EVF_HAS_FRAGMENTING ?
	       !!(ev->flags & KMT_EVF_FRAGMENTING) :
	       ev->fallback_order < KMT_PAGEBLOCK_ORDER_GUESS;
	memset(&n, 0, sizeof(n));
	n.events = 1;
	n.fragmenting = frag;
	n.severe = frag && ev->fallback_order <= 3;
	n.moderate = frag && ev->fallback_order > 3;
	n.changed = !!(ev->flags & KMT_EVF_CHANGE_OWNER);
	add(&c->total, &n);

	memset(&k, 0, sizeof(k));
	k.alloc_order = ev->order;
	k.fallback_order = ev->fallback_order;
	k.alloc_mt = ev->migratetype;
	k.fallback_mt = ev->fallback_migratetype;
	fb = kmt_rows_get(&c->fallbacks, &k, 1, NULL);
	if (!fb)
		return -ENOMEM;
	add(&fb->n, &n);

	if (c->opts.by_comm && (ev->flags & KMT_EVF_COMM)) {
		pkey = ev->comm;
	} else if (c->opts.by_comm) {
		const uint32_t *comm = kmt_hash_u32_get(&c->s->comms,
							(uint32_t)ev->pid);

		pkey = comm ? *comm : 0;
	} else {
		pkey = (uint32_t)ev->pid;
	}
	if (count_in(&c->procs, pkey, &n))
		return -ENOMEM;
	if (ev->stack && count_in(&c->sites, c->live.l->step.callsite, &n))
		return -ENOMEM;
	at = step_at(c, ev->ts);
	if (!at)
		return -ENOMEM;
	add(at, &n);
	return 0;
}

static int cmp_fb(const void *a, const void *b)
{
	const struct fb_row *x = a, *y = b;
	int c;

	if ((c = KMT_CMP_DESC(x->n.events, y->n.events)))
		return c;
	return memcmp(&x->k, &y->k, sizeof(x->k));
}

static int cmp_one(const void *a, const void *b)
{
	const struct one_row *x = a, *y = b;
	int c;

	if ((c = KMT_CMP_DESC(x->n.events, y->n.events)) ||
	    (c = KMT_CMP_DESC(x->n.fragmenting, y->n.fragmenting)))
		return c;
	return KMT_CMP_ASC(x->key, y->key);
}

#define COUNT_COLS							\
	{ "events", "Events", KMT_V_U64, 0 },				\
	{ "fragmenting", "Fragmenting", KMT_V_U64, 0 },		\
	{ "severe", "Severe", KMT_V_U64, 0 },				\
	{ "moderate", "Moderate", KMT_V_U64, 0 },			\
	{ "changed_owner", "Owner changed", KMT_V_U64, 0 }

static const struct kmt_col fb_cols[] = {
	{ "alloc_order", "Order", KMT_V_S64, 0 },
	{ "fallback_order", "Fallback order", KMT_V_S64, 0 },
	{ "alloc_migratetype", "Wanted", KMT_V_STR, KMT_COL_LEFT },
	{ "fallback_migratetype", "Took from", KMT_V_STR, KMT_COL_LEFT },
	COUNT_COLS,
};

static const struct kmt_col proc_cols[] = {
	{ "process", "Process", KMT_V_STR, KMT_COL_LEFT },
	{ "pid", "", KMT_V_S64, KMT_COL_NO_TEXT },
	COUNT_COLS,
};

static const struct kmt_col tgid_cols[] = {
	{ "process", "Process", KMT_V_STR, KMT_COL_LEFT },
	{ "tgid", "", KMT_V_S64, KMT_COL_NO_TEXT },
	COUNT_COLS,
};

static const struct kmt_col comm_cols[] = {
	{ "process", "Command", KMT_V_STR, KMT_COL_LEFT },
	COUNT_COLS,
};

static void add_one(void *to, const void *row)
{
	add(&((struct one_row *)to)->n, &((const struct one_row *)row)->n);
}

static const struct kmt_col site_cols[] = {
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "address", "", KMT_V_HEX, KMT_COL_NO_TEXT },
	COUNT_COLS,
};

static const struct kmt_col step_cols[] = {
	{ "offset_ns", "Time", KMT_V_DURATION, 0 },
	COUNT_COLS,
};

static void put_counts(union kmt_val *v, const struct kmt_extfrag_counts *n)
{
	v[0].u = n->events;
	v[1].u = n->fragmenting;
	v[2].u = n->severe;
	v[3].u = n->moderate;
	v[4].u = n->changed;
}

static size_t limit(const struct extfrag_ctx *c, size_t n)
{
	return c->opts.lines > 0 && n > (size_t)c->opts.lines ?
	       (size_t)c->opts.lines : n;
}

static int fallback_table(struct extfrag_ctx *c, struct kmt_report *r)
{
	struct kmt_sort_chain chain = { .tiebreak = cmp_fb };
	struct kmt_rows *rows = &c->fallbacks;
	struct kmt_table *t;
	size_t i, n;

	t = kmt_report_add_table(r, "extfrag", "fallbacks",
				 "EXTERNAL FRAGMENTATION: fallbacks by order and migratetype",
				 fb_cols, KMT_NCOLS(fb_cols), KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &chain);
	kmt_hash_u32_clear(&rows->index);
	n = limit(c, rows->nr);
	for (i = 0; i < n; i++) {
		const struct fb_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].s = row->k.alloc_order;
		v[1].s = row->k.fallback_order;
		v[2].str = kmt_view_migratetype(c->s, r, row->k.alloc_mt);
		v[3].str = kmt_view_migratetype(c->s, r, row->k.fallback_mt);
		put_counts(v + 4, &row->n);
	}
	t->total_rows = rows->nr;
	return 0;
}

static int one_table(struct extfrag_ctx *c, struct kmt_report *r,
		     struct kmt_rows *rows, int sites)
{
	struct kmt_sort_chain chain = { .tiebreak = cmp_one };
	int by_comm = !sites && c->opts.by_comm;
	int by_tgid = !sites && !by_comm && c->opts.by_tgid;
	const struct kmt_col *cols = sites ? site_cols :
				     by_comm ? comm_cols :
				     by_tgid ? tgid_cols : proc_cols;
	size_t ncols = sites ? KMT_NCOLS(site_cols) :
		       by_comm ? KMT_NCOLS(comm_cols) :
		       by_tgid ? KMT_NCOLS(tgid_cols) : KMT_NCOLS(proc_cols);
	uint64_t tasks, alone;
	struct kmt_table *t;
	size_t i, n;

	t = kmt_report_add_table(r, "extfrag", sites ? "callsites" :
				 "processes", sites ?
				 "EXTERNAL FRAGMENTATION: by callsite" :
				 by_comm ? "EXTERNAL FRAGMENTATION: by command name" :
				 by_tgid ? "EXTERNAL FRAGMENTATION: by process (tgid)" :
				 "EXTERNAL FRAGMENTATION: by task (pid)",
				 cols, ncols, KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	if (by_tgid && kmt_view_by_tgid(c->s, rows, add_one, &tasks, &alone))
		return -ENOMEM;
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &chain);
	kmt_hash_u32_clear(&rows->index);
	n = limit(c, rows->nr);
	for (i = 0; i < n; i++) {
		const struct one_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);
		const char *comm;

		if (!v)
			return -ENOMEM;
		if (sites) {
			v[0].str = kmt_analysis_sym(c->s, r, row->key,
						    c->opts.raw_ip);
			v[1].u = kmt_view_addr(row->key);
			put_counts(v + 2, &row->n);
		} else if (by_comm) {
			comm = row->key ? kmt_strtab_get(&c->s->strs,
							 (uint32_t)row->key) :
			       NULL;
			v[0].str = comm ? comm : "(unknown)";
			put_counts(v + 1, &row->n);
		} else {
			v[0].str = kmt_view_proc(c->s, r, (int32_t)row->key);
			v[1].s = (int32_t)row->key;
			put_counts(v + 2, &row->n);
		}
	}
	t->total_rows = rows->nr;
	return 0;
}

static int time_table(struct extfrag_ctx *c, struct kmt_report *r)
{
	struct kmt_table *t;
	size_t i, merge;

	if (!c->steps.started)
		return 0;
	/* the steps run to the end of the recording, events or not */
	if (!step_at(c, kmt_live_end_ts(c->live.l)))
		return -ENOMEM;
	merge = kmt_steps_finish(&c->steps, kmt_live_end_ts(c->live.l));
	if (merge > 1)
		merge_steps(c, merge);
	t = kmt_report_add_table(r, "extfrag", "timeline",
				 "EXTERNAL FRAGMENTATION: over time",
				 step_cols, KMT_NCOLS(step_cols),
				 KMT_TABLE_SERIES);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < c->nr_steps; i++) {
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].u = i * c->steps.step;
		put_counts(v + 1, &c->per_step[i]);
	}
	return 0;
}

static int extfrag_finish(void *ctx, struct kmt_report *r)
{
	struct extfrag_ctx *c = ctx;
	const struct kmt_extfrag_counts *n = &c->total;
	struct kmt_summary *s;
	int err = 0;

	if (fallback_table(c, r) || one_table(c, r, &c->procs, 0) ||
	    (c->sites.nr && one_table(c, r, &c->sites, 1)) ||
	    time_table(c, r))
		return -ENOMEM;
	s = kmt_report_add_summary(r, "extfrag", "summary",
				   "SUMMARY (external fragmentation)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, "Fallbacks (mm_page_alloc_extfrag):",
			       "events", n->events);
	err |= kmt_summary_u64(s, "Fragmenting (block split below a pageblock):",
			       "fragmenting", n->fragmenting);
	err |= kmt_summary_u64(s, "  severe (fallback order <= 3):", "severe",
			       n->severe);
	err |= kmt_summary_u64(s, "  moderate (fallback order > 3):",
			       "moderate", n->moderate);
	err |= kmt_summary_u64(s, "Not fragmenting:", "not_fragmenting",
			       n->events - n->fragmenting);
	err |= kmt_summary_u64(s, "Pageblock changed owner:", "changed_owner",
			       n->changed);
	if (c->steps.started) {
		struct kmt_sum_item st = {
			.kind = KMT_SUM_VALUE, .label = "Step:",
			.key = "step_ns", .type = KMT_V_DURATION,
			.v.u = c->steps.step,
		};
		struct kmt_sum_item t0 = {
			.kind = KMT_SUM_VALUE, .label = "From:",
			.key = "start_ns", .type = KMT_V_TIME,
			.v.u = c->steps.t0,
		};

		err |= kmt_summary_add(s, &st);
		err |= kmt_summary_add(s, &t0);
	}
	return err ? -ENOMEM : 0;
}

void kmt_extfrag_get_totals(const void *ctx, struct kmt_extfrag_counts *out)
{
	const struct extfrag_ctx *c = ctx;

	*out = c->total;
}

const struct kmt_analysis_ops kmt_analysis_extfrag = {
	.name = "extfrag",
	.needs = KMT_EV_BIT(KMT_EV_EXTFRAG),
	.create = extfrag_create,
	.on_event = extfrag_on_event,
	.finish = extfrag_finish,
	.destroy = extfrag_destroy,
};
