// SPDX-License-Identifier: GPL-2.0
/*
 * --timeline: slab and page memory outstanding over time, in fixed steps
 * (steps.h), overall and for the top callsites: rows in text, series in
 * JSON, for pictures to be drawn from.  "Outstanding" counts from the
 * start of what was read: memory allocated before it is not known.
 *
 * The top callsites are known only at the end, so every callsite keeps
 * its value at the end of each step.  It writes them when it changes: a
 * callsite's samples after the last one written all hold its value now,
 * so a step ends at no cost and an idle callsite costs nothing.  The
 * steps grow (and the samples merge) so that the samples written stay
 * under SAMPLE_BUDGET: memory is bounded by that budget and the callsite
 * table, whatever the length of the recording.  Callsites are ranked by
 * their peak outstanding, the memory a callsite held at its worst, which
 * catches both leaks (peak at the end) and bursts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/steps.h"
#include "analysis/timeline.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/array.h"
#include "util/rows.h"

#define DEFAULT_TOP 10
#define SAMPLE_BUDGET (4u << 20)	/* callsite samples: 32 MiB */

struct site_row {
	uint64_t callsite;	/* the key */
	int page;		/* of the page table */
	int64_t now;
	int64_t peak;
	int64_t *samples;	/* at the end of each closed step ... */
	size_t written;		/* ... up to here; the later ones are now */
	size_t alloc;
};

struct timeline_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_steps steps;
	struct kmt_rows sites[2];	/* struct site_row: slab, page */
	size_t last[2];			/* the row last used, a cache */
	struct kmt_timeline_step *closed;
	size_t nr_closed, alloc_closed;
	struct kmt_timeline_step open;	/* the step events go to now */
	int64_t slab_now, page_now;
	int64_t slab_peak, page_peak;	/* over the whole recording */
	size_t nr_samples;		/* written, all callsites */
	struct site_row **ranked;	/* at the end: by peak */
	size_t nr_ranked;
};

static void *timeline_create(struct kmt_session *s,
			     const struct kmt_report_opts *opts)
{
	struct timeline_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->sites[0], sizeof(struct site_row), sizeof(uint64_t));
	kmt_rows_init(&c->sites[1], sizeof(struct site_row), sizeof(uint64_t));
	return c;
}

static void timeline_destroy(void *ctx)
{
	struct timeline_ctx *c = ctx;
	size_t i, p;

	if (!c)
		return;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < c->sites[p].nr; i++)
			free(((struct site_row *)kmt_rows_at(&c->sites[p],
							     i))->samples);
		kmt_rows_free(&c->sites[p]);
	}
	kmt_live_use_free(&c->live);
	free(c->closed);
	free(c->ranked);
	free(c);
}

static void open_step(struct timeline_ctx *c)
{
	memset(&c->open, 0, sizeof(c->open));
	c->open.slab_bytes = c->open.slab_peak = c->slab_now;
	c->open.page_bytes = c->open.page_peak = c->page_now;
}

static void fold(struct kmt_timeline_step *into,
		 const struct kmt_timeline_step *s)
{
	/* s comes later: its end value is the group's */
	into->slab_bytes = s->slab_bytes;
	into->page_bytes = s->page_bytes;
	if (s->slab_peak > into->slab_peak)
		into->slab_peak = s->slab_peak;
	if (s->page_peak > into->page_peak)
		into->page_peak = s->page_peak;
	into->slab_alloc += s->slab_alloc;
	into->slab_freed += s->slab_freed;
	into->page_alloc += s->page_alloc;
	into->page_freed += s->page_freed;
}

/*
 * Closed steps [k * m, (k + 1) * m) become step k.  With keep_open, a
 * last group that the open step will complete is folded into the open
 * step instead; without, it stays a (shorter) closed step.
 */
static void merge(struct timeline_ctx *c, size_t m, int keep_open)
{
	size_t n = c->nr_closed, full = keep_open ? n / m : (n + m - 1) / m;
	size_t i, j, p;

	for (j = 0; j < full; j++) {
		struct kmt_timeline_step g = c->closed[j * m];

		for (i = j * m + 1; i < (j + 1) * m && i < n; i++)
			fold(&g, &c->closed[i]);
		c->closed[j] = g;
	}
	if (keep_open && full * m < n) {
		struct kmt_timeline_step g = c->closed[full * m];

		for (i = full * m + 1; i < n; i++)
			fold(&g, &c->closed[i]);
		fold(&g, &c->open);
		c->open = g;
	}
	/* a group keeps its last sample; one not written is "now" still */
	c->nr_samples = 0;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < c->sites[p].nr; i++) {
			struct site_row *row = kmt_rows_at(&c->sites[p], i);

			for (j = 0; j < full; j++) {
				size_t last = (j + 1) * m - 1;

				if (last >= n)
					last = n - 1;
				if (last >= row->written)
					break;
				row->samples[j] = row->samples[last];
			}
			row->written = j;
			c->nr_samples += j;
		}
	}
	c->nr_closed = full;
}

static int close_step(struct timeline_ctx *c)
{
	if (KMT_ARRAY_GROW(c->closed, c->nr_closed + 1, c->alloc_closed))
		return -ENOMEM;
	c->open.slab_bytes = c->slab_now;
	c->open.page_bytes = c->page_now;
	c->closed[c->nr_closed] = c->open;
	c->nr_closed++;
	open_step(c);
	return 0;
}

/* writes out row's samples of the closed steps: it is about to change */
static int write_samples(struct timeline_ctx *c, struct site_row *row)
{
	size_t i;

	if (row->written == c->nr_closed)
		return 0;
	if (KMT_ARRAY_GROW(row->samples, c->nr_closed, row->alloc))
		return -ENOMEM;
	for (i = row->written; i < c->nr_closed; i++)
		row->samples[i] = row->now;
	c->nr_samples += c->nr_closed - row->written;
	row->written = c->nr_closed;
	return 0;
}

static int64_t sample(const struct site_row *row, size_t i)
{
	return i < row->written ? row->samples[i] : row->now;
}

/* closes the steps before the one ts falls in */
static int advance(struct timeline_ctx *c, uint64_t ts)
{
	size_t idx, m;

	if (!c->steps.started) {
		/* from the window, or the first event read, passed or not */
		kmt_steps_init(&c->steps, c->opts.step, c->s->time_start ?
			       c->s->time_start : c->live.l->nr_fed ?
			       c->live.l->first_ts : ts);
		open_step(c);
	}
	idx = kmt_steps_place(&c->steps, ts, &m);
	if (m > 1)
		merge(c, m, 1);
	while (c->nr_closed < idx) {
		/* the samples must fit the budget: grow the steps if not */
		if (c->nr_samples > SAMPLE_BUDGET && c->nr_closed > 1) {
			merge(c, kmt_steps_coarsen(&c->steps), 1);
			idx = kmt_steps_place(&c->steps, ts, &m);
			continue;
		}
		if (close_step(c))
			return -ENOMEM;
	}
	return 0;
}

static struct site_row *site(struct timeline_ctx *c, uint64_t callsite,
			     int page)
{
	struct kmt_rows *rows = &c->sites[page];
	struct site_row *row;
	int is_new;

	/* allocations come in bursts from one callsite */
	if (c->last[page] < rows->nr) {
		row = kmt_rows_at(rows, c->last[page]);
		if (row->callsite == callsite)
			return row;
	}
	row = kmt_rows_get(rows, &callsite, 1, &is_new);
	if (!row)
		return NULL;
	c->last[page] = (size_t)((unsigned char *)row - rows->rows) /
			rows->row_size;
	if (is_new)
		row->page = page;
	/* a callsite new at step k held nothing before it: now is 0 */
	return row;
}

static int change(struct timeline_ctx *c, uint64_t callsite, int page,
		  int64_t delta)
{
	struct site_row *row = site(c, callsite, page);

	if (!row || write_samples(c, row))
		return -ENOMEM;
	row->now += delta;
	if (row->now > row->peak)
		row->peak = row->now;
	if (page) {
		c->page_now += delta;
		if (delta > 0)
			c->open.page_alloc += (uint64_t)delta;
		else
			c->open.page_freed += (uint64_t)-delta;
		if (c->page_now > c->open.page_peak)
			c->open.page_peak = c->page_now;
		if (c->page_now > c->page_peak)
			c->page_peak = c->page_now;
	} else {
		c->slab_now += delta;
		if (delta > 0)
			c->open.slab_alloc += (uint64_t)delta;
		else
			c->open.slab_freed += (uint64_t)-delta;
		if (c->slab_now > c->open.slab_peak)
			c->open.slab_peak = c->slab_now;
		if (c->slab_now > c->slab_peak)
			c->slab_peak = c->slab_now;
	}
	return 0;
}

static int timeline_on_event(void *ctx, const struct kmt_event *ev)
{
	struct timeline_ctx *c = ctx;
	const struct kmt_live_step *st;
	int ret = kmt_live_use_feed(&c->live, ev);

	if (ret <= 0)
		return ret;
	if (advance(c, ev->ts))
		return -ENOMEM;
	/* its series are slab's and page's */
	if (!kmt_ev_is_slab(ev->type) && !kmt_ev_is_page(ev->type))
		return 0;
	st = &c->live.l->step;
	switch (st->what) {
	case KMT_LIVE_ALLOC_OVER:
		ret = change(c, st->prev.callsite,
			     st->prev.type == KMT_EV_PAGE_ALLOC,
			     -(int64_t)kmt_live_obj_bytes(c->live.l,
							  &st->prev));
		if (ret)
			return ret;
		/* fall through */
	case KMT_LIVE_ALLOC:
		return change(c, st->callsite, ev->type == KMT_EV_PAGE_ALLOC,
			      (int64_t)st->bytes);
	case KMT_LIVE_FREE:
		return change(c, st->prev.callsite,
			      st->prev.type == KMT_EV_PAGE_ALLOC,
			      -(int64_t)st->bytes);
	default:
		return 0;
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct site_row *x = *(const struct site_row *const *)a;
	const struct site_row *y = *(const struct site_row *const *)b;
	int c;

	if ((c = KMT_CMP_DESC(x->peak, y->peak)) ||
	    (c = KMT_CMP_DESC(x->now, y->now)) ||
	    (c = KMT_CMP_ASC(x->page, y->page)))
		return c;
	return KMT_CMP_ASC(x->callsite, y->callsite);
}

static const struct kmt_col fixed_cols[] = {
	{ "offset_ns", "Time", KMT_V_DURATION, 0 },
	{ "slab_bytes", "Slab", KMT_V_S64, KMT_COL_GROUPED },
	{ "page_bytes", "Pages", KMT_V_S64, KMT_COL_GROUPED },
	{ "slab_alloc_bytes", "Slab+", KMT_V_U64, KMT_COL_GROUPED },
	{ "slab_freed_bytes", "Slab-", KMT_V_U64, KMT_COL_GROUPED },
	{ "page_alloc_bytes", "Pages+", KMT_V_U64, KMT_COL_GROUPED },
	{ "page_freed_bytes", "Pages-", KMT_V_U64, KMT_COL_GROUPED },
	{ "slab_peak_bytes", "", KMT_V_S64, KMT_COL_NO_TEXT },
	{ "page_peak_bytes", "", KMT_V_S64, KMT_COL_NO_TEXT },
};

#define NR_FIXED KMT_NCOLS(fixed_cols)

/*
 * A recording of one kind: the other's columns say "not recorded".  The
 * top callsites' columns (0) are of whichever kinds were recorded.
 */
static const uint32_t series_needs[64] = {
	0, KMT_EV_SLAB_BITS, KMT_EV_PAGE_BITS, KMT_EV_SLAB_BITS,
	KMT_EV_SLAB_BITS, KMT_EV_PAGE_BITS, KMT_EV_PAGE_BITS,
	KMT_EV_SLAB_BITS, KMT_EV_PAGE_BITS,
};

/* the summary's lines of each kind, [0] slab, [1] page */
static const char *const kind_keys[2][2] = {
	{ "slab_peak_bytes", "slab_final_bytes" },
	{ "page_peak_bytes", "page_final_bytes" },
};

static const struct kmt_col site_cols[] = {
	{ "series", "Series", KMT_V_STR, KMT_COL_LEFT },
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "peak_bytes", "Peak", KMT_V_S64, KMT_COL_GROUPED },
	{ "final_bytes", "At the end", KMT_V_S64, KMT_COL_GROUPED },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "address", "", KMT_V_HEX, KMT_COL_NO_TEXT },
};

static int series_table(struct timeline_ctx *c, struct kmt_report *r,
			size_t top)
{
	struct kmt_col *cols;
	struct kmt_table *t;
	size_t i, j;

	cols = kmt_arena_zalloc(&r->arena, (NR_FIXED + top) * sizeof(*cols));
	if (!cols)
		return -ENOMEM;
	memcpy(cols, fixed_cols, sizeof(fixed_cols));
	for (j = 0; j < top; j++) {
		cols[NR_FIXED + j].key = kmt_report_printf(r, "site_%zu", j + 1);
		cols[NR_FIXED + j].title = kmt_report_printf(r, "#%zu", j + 1);
		cols[NR_FIXED + j].type = KMT_V_S64;
		cols[NR_FIXED + j].flags = KMT_COL_GROUPED;
	}
	t = kmt_report_add_table(r, "timeline", "series",
				 "TIMELINE: bytes outstanding at the end of each step",
				 cols, NR_FIXED + top, KMT_TABLE_SERIES);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < c->nr_closed; i++) {
		const struct kmt_timeline_step *st = &c->closed[i];
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].u = i * c->steps.step;
		v[1].s = st->slab_bytes;
		v[2].s = st->page_bytes;
		v[3].u = st->slab_alloc;
		v[4].u = st->slab_freed;
		v[5].u = st->page_alloc;
		v[6].u = st->page_freed;
		v[7].s = st->slab_peak;
		v[8].s = st->page_peak;
		for (j = 0; j < top; j++) {
			v[NR_FIXED + j].s = sample(c->ranked[j], i);
		}
	}
	return kmt_report_mark_unrecorded(r, t, series_needs, NULL,
					  kmt_session_types(c->s),
					  c->s->types_known);
}

static int sites_table(struct timeline_ctx *c, struct kmt_report *r,
		       size_t top, const struct kmt_missing *const unrec[KMT_NR_KINDS])
{
	struct kmt_table *t;
	size_t j;

	t = kmt_report_add_table(r, "timeline", "callsites",
				 "TIMELINE: the callsites drawn, by peak outstanding",
				 site_cols, KMT_NCOLS(site_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	for (j = 0; j < top; j++) {
		const struct site_row *row = c->ranked[j];
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].str = kmt_report_printf(r, "#%zu", j + 1);
		v[1].str = row->page ? "page" : "slab";
		v[2].s = row->peak;
		v[3].s = row->now;
		v[4].str = kmt_analysis_sym(c->s, r, row->callsite,
					    c->opts.raw_ip);
		v[5].u = kmt_view_addr(row->callsite);
	}
	t->total_rows = c->nr_ranked;
	return kmt_view_mark_kind_rows(t, unrec);
}

static int timeline_finish(void *ctx, struct kmt_report *r)
{
	struct timeline_ctx *c = ctx;
	size_t top = c->opts.top > 0 ? (size_t)c->opts.top : DEFAULT_TOP;
	uint64_t end = kmt_live_end_ts(c->live.l);
	const struct kmt_missing *unrec[KMT_NR_KINDS];
	struct kmt_summary *s;
	size_t m, i, p;
	int err = 0;

	if (c->steps.started) {
		/* close every step up to the end, the last one too */
		if (advance(c, end) || close_step(c))
			return -ENOMEM;
		m = kmt_steps_finish(&c->steps, end);
		if (m > 1)
			merge(c, m, 0);
	}
	/* both tables in one ranking; the rows stay where they are */
	c->ranked = calloc(c->sites[0].nr + c->sites[1].nr + 1,
			   sizeof(*c->ranked));
	if (!c->ranked)
		return -ENOMEM;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < c->sites[p].nr; i++)
			c->ranked[c->nr_ranked++] = kmt_rows_at(&c->sites[p], i);
	}
	qsort(c->ranked, c->nr_ranked, sizeof(*c->ranked), cmp_rank);
	if (top > c->nr_ranked)
		top = c->nr_ranked;
	if (kmt_view_kinds_unrecorded(c->s, r, unrec) ||
	    series_table(c, r, top) || sites_table(c, r, top, unrec))
		return -ENOMEM;

	s = kmt_report_add_summary(r, "timeline", "summary",
				   "SUMMARY (timeline)");
	if (!s)
		return -ENOMEM;
	{
		struct kmt_sum_item items[] = {
			{ .kind = KMT_SUM_VALUE, .label = "Step:",
			  .key = "step_ns", .type = KMT_V_DURATION,
			  .v.u = c->steps.step },
			{ .kind = KMT_SUM_VALUE, .label = "From:",
			  .key = "start_ns", .type = KMT_V_TIME,
			  .v.u = c->steps.t0 },
		};

		err |= kmt_summary_add(s, &items[0]);
		err |= kmt_summary_add(s, &items[1]);
	}
	err |= kmt_summary_u64(s, "Steps:", "steps", c->nr_closed);
	err |= kmt_summary_u64(s, "Slab bytes outstanding at the peak:",
			       "slab_peak_bytes", (uint64_t)c->slab_peak);
	err |= kmt_summary_u64(s, "Slab bytes outstanding at the end:",
			       "slab_final_bytes", (uint64_t)c->slab_now);
	err |= kmt_summary_u64(s, "Page bytes outstanding at the peak:",
			       "page_peak_bytes", (uint64_t)c->page_peak);
	err |= kmt_summary_u64(s, "Page bytes outstanding at the end:",
			       "page_final_bytes", (uint64_t)c->page_now);
	err |= kmt_summary_u64(s, "Callsites:", "callsites", c->nr_ranked);
	for (p = 0; p < 2; p++)
		kmt_summary_mark_unrecorded(s, kind_keys[p], 2, unrec[p]);
	return err ? -ENOMEM : 0;
}

const struct kmt_timeline_step *kmt_timeline_steps(const void *ctx,
						   size_t *nr, uint64_t *step)
{
	const struct timeline_ctx *c = ctx;

	*nr = c->nr_closed;
	*step = c->steps.step;
	return c->closed;
}

const struct kmt_analysis_ops kmt_analysis_timeline = {
	.name = "timeline",
	.needs = KMT_EV_SLAB_BITS | KMT_EV_PAGE_BITS,
	.create = timeline_create,
	.on_event = timeline_on_event,
	.finish = timeline_finish,
	.destroy = timeline_destroy,
};
