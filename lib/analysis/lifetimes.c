// SPDX-License-Identifier: GPL-2.0
/*
 * --lifetimes: how long objects live, from allocation to free, in log2
 * buckets of nanoseconds, slab and page apart; with --caller, per
 * callsite: count, min, average, max and the percentiles the buckets give
 * (each the upper edge of its bucket, so "p50 <= 2.05us").  Objects not
 * freed by the end have no lifetime yet: they are --leaks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/lifetimes.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"

struct site_key {
	uint64_t callsite;
	uint64_t page;		/* 1 for page blocks */
};

struct site_row {
	struct site_key k;
	struct kmt_life_hist h;
};

struct lifetimes_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_life_hist slab, page;
	struct kmt_rows sites;		/* struct site_row, with --caller */
};

unsigned int kmt_life_bucket(uint64_t ns)
{
	return ns ? 64 - (unsigned int)__builtin_clzll(ns) : 0;
}

static uint64_t bucket_lo(unsigned int b)
{
	return b ? 1ULL << (b - 1) : 0;
}

static uint64_t bucket_hi(unsigned int b)
{
	return b >= 64 ? UINT64_MAX : 1ULL << b;
}

static void *lifetimes_create(struct kmt_session *s,
			      const struct kmt_report_opts *opts)
{
	struct lifetimes_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->sites, sizeof(struct site_row),
		      sizeof(struct site_key));
	return c;
}

static void lifetimes_destroy(void *ctx)
{
	struct lifetimes_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->sites);
	free(c);
}

static void add(struct kmt_life_hist *h, uint64_t ns, uint64_t bytes)
{
	unsigned int b = kmt_life_bucket(ns);

	if (!h->count || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += (double)ns;
	h->n[b]++;
	h->bytes[b] += bytes;
}

static int lifetimes_on_event(void *ctx, const struct kmt_event *ev)
{
	struct lifetimes_ctx *c = ctx;
	const struct kmt_live_step *st;
	struct site_row *row;
	struct site_key k;
	uint64_t ns;
	int ret = kmt_live_use_feed(&c->live, ev), page;

	if (ret <= 0)
		return ret;
	st = &c->live.l->step;
	/* slab and page lifetimes: percpu and vmalloc have views of their own */
	if (st->what != KMT_LIVE_FREE ||
	    (!kmt_ev_is_slab(ev->type) && !kmt_ev_is_page(ev->type)))
		return 0;
	ns = ev->ts > st->prev.ts ? ev->ts - st->prev.ts : 0;
	page = st->prev.type == KMT_EV_PAGE_ALLOC;
	add(page ? &c->page : &c->slab, ns, st->bytes);
	if (!c->opts.caller)
		return 0;
	memset(&k, 0, sizeof(k));
	k.callsite = st->prev.callsite;
	k.page = (uint64_t)page;
	row = kmt_rows_get(&c->sites, &k, 1, NULL);
	if (!row)
		return -ENOMEM;
	add(&row->h, ns, st->bytes);
	return 0;
}

/* the upper edge of the bucket holding the q-th fraction, at most max */
static uint64_t percentile(const struct kmt_life_hist *h, double q)
{
	uint64_t want = (uint64_t)((double)h->count * q + 0.999999), seen = 0;
	unsigned int b;

	if (!want)
		want = 1;
	for (b = 0; b < KMT_LIFE_BUCKETS; b++) {
		seen += h->n[b];
		if (seen >= want)
			return bucket_hi(b) < h->max ? bucket_hi(b) : h->max;
	}
	return h->max;
}

static const struct kmt_col hist_cols[] = {
	{ "from_ns", "From", KMT_V_DURATION, 0 },
	{ "to_ns", "To", KMT_V_DURATION, 0 },
	{ "slab_frees", "Slab objects", KMT_V_U64, 0 },
	{ "slab_bytes", "Slab bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "slab_cum_pct", "Slab cum%", KMT_V_PCT, 0 },
	{ "page_frees", "Page blocks", KMT_V_U64, 0 },
	{ "page_bytes", "Page bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "page_cum_pct", "Page cum%", KMT_V_PCT, 0 },
};

/* a recording of one kind: the other's columns say "not recorded" */
static const uint32_t hist_needs[] = {
	0, 0, KMT_EV_SLAB_BITS, KMT_EV_SLAB_BITS, KMT_EV_SLAB_BITS,
	KMT_EV_PAGE_BITS, KMT_EV_PAGE_BITS, KMT_EV_PAGE_BITS,
};

_Static_assert(KMT_NCOLS(hist_needs) == KMT_NCOLS(hist_cols),
	       "a needs entry for every column");

static const struct kmt_col site_cols[] = {
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "frees", "Frees", KMT_V_U64, 0 },
	{ "min_ns", "Min", KMT_V_DURATION, 0 },
	{ "avg_ns", "Avg", KMT_V_DURATION, 0 },
	{ "p50_ns", "p50<=", KMT_V_DURATION, 0 },
	{ "p90_ns", "p90<=", KMT_V_DURATION, 0 },
	{ "p99_ns", "p99<=", KMT_V_DURATION, 0 },
	{ "max_ns", "Max", KMT_V_DURATION, 0 },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "address", "", KMT_V_HEX, KMT_COL_NO_TEXT },
};

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

static int hist_table(struct lifetimes_ctx *c, struct kmt_report *r)
{
	uint64_t cum_slab = 0, cum_page = 0;
	int first = -1, last = -1, b;
	struct kmt_table *t;

	for (b = 0; b < KMT_LIFE_BUCKETS; b++) {
		if (!c->slab.n[b] && !c->page.n[b])
			continue;
		if (first < 0)
			first = b;
		last = b;
	}
	t = kmt_report_add_table(r, "lifetimes", "histogram",
				 "LIFETIMES: allocation to free, log2 buckets",
				 hist_cols, KMT_NCOLS(hist_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	for (b = first; first >= 0 && b <= last; b++) {
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		cum_slab += c->slab.n[b];
		cum_page += c->page.n[b];
		v[0].u = bucket_lo((unsigned int)b);
		v[1].u = bucket_hi((unsigned int)b);
		v[2].u = c->slab.n[b];
		v[3].u = c->slab.bytes[b];
		v[4].d = pct(cum_slab, c->slab.count);
		v[5].u = c->page.n[b];
		v[6].u = c->page.bytes[b];
		v[7].d = pct(cum_page, c->page.count);
	}
	return kmt_report_mark_unrecorded(r, t, hist_needs, NULL,
					  kmt_session_types(c->s),
					  c->s->types_known);
}

static void put_stats(union kmt_val *v, const struct kmt_life_hist *h)
{
	v[0].u = h->count;
	v[1].u = h->count ? h->min : 0;
	v[2].u = h->count ? (uint64_t)(h->sum / (double)h->count + 0.5) : 0;
	v[3].u = h->count ? percentile(h, 0.50) : 0;
	v[4].u = h->count ? percentile(h, 0.90) : 0;
	v[5].u = h->count ? percentile(h, 0.99) : 0;
	v[6].u = h->max;
}

static int cmp_sites(const void *a, const void *b)
{
	const struct site_row *x = a, *y = b;
	int c;

	if ((c = KMT_CMP_DESC(x->h.count, y->h.count)))
		return c;
	return memcmp(&x->k, &y->k, sizeof(x->k));
}

static int site_table(struct lifetimes_ctx *c, struct kmt_report *r,
		      const struct kmt_missing *const unrec[KMT_NR_KINDS])
{
	struct kmt_sort_chain chain = { .tiebreak = cmp_sites };
	struct kmt_rows *rows = &c->sites;
	struct kmt_table *t;
	size_t i, n = rows->nr;

	t = kmt_report_add_table(r, "lifetimes", "callsites",
				 "LIFETIMES: by allocation callsite",
				 site_cols, KMT_NCOLS(site_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &chain);
	kmt_hash_u32_clear(&rows->index);
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct site_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].str = row->k.page ? "page" : "slab";
		put_stats(v + 1, &row->h);
		v[8].str = kmt_analysis_sym(c->s, r, row->k.callsite,
					    c->opts.raw_ip);
		v[9].u = kmt_view_addr(row->k.callsite);
	}
	t->total_rows = rows->nr;
	return kmt_view_mark_kind_rows(t, unrec);
}

/* m: the kind was not recorded, so no line has a value */
static int summary_lines(struct kmt_summary *s, const char *what,
			 const char *key, const struct kmt_life_hist *h,
			 const struct kmt_missing *m, struct kmt_report *r)
{
	static const char *const names[] = {
		"frees", "min_ns", "avg_ns", "p50_ns", "p90_ns", "p99_ns",
		"max_ns",
	};
	static const char *const labels[] = {
		"frees matched:", "shortest:", "average:", "half live at most",
		"90% live at most", "99% live at most", "longest:",
	};
	union kmt_val v[7];
	int i, err = 0;

	put_stats(v, h);
	for (i = 0; i < 7; i++) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE,
			.label = kmt_report_printf(r, "%s %s", what, labels[i]),
			.key = kmt_report_printf(r, "%s_%s", key, names[i]),
			.type = i ? KMT_V_DURATION : KMT_V_U64, .v = v[i],
			.missing = m,
		};

		err |= kmt_summary_add(s, &it);
	}
	return err;
}

static int lifetimes_finish(void *ctx, struct kmt_report *r)
{
	struct lifetimes_ctx *c = ctx;
	const struct kmt_missing *unrec[KMT_NR_KINDS];
	struct kmt_summary *s;
	int err = 0;

	if (kmt_view_kinds_unrecorded(c->s, r, unrec) || hist_table(c, r) ||
	    (c->opts.caller && site_table(c, r, unrec)))
		return -ENOMEM;
	s = kmt_report_add_summary(r, "lifetimes", "summary",
				   "SUMMARY (lifetimes)");
	if (!s)
		return -ENOMEM;
	err |= summary_lines(s, "Slab", "slab", &c->slab, unrec[0], r);
	err |= summary_lines(s, "Page", "page", &c->page, unrec[1], r);
	return err ? -ENOMEM : 0;
}

const struct kmt_life_hist *kmt_lifetimes_slab(const void *ctx)
{
	return &((const struct lifetimes_ctx *)ctx)->slab;
}

const struct kmt_life_hist *kmt_lifetimes_page(const void *ctx)
{
	return &((const struct lifetimes_ctx *)ctx)->page;
}

const struct kmt_analysis_ops kmt_analysis_lifetimes = {
	.name = "lifetimes",
	.needs = KMT_EV_SLAB_BITS | KMT_EV_PAGE_BITS,
	.create = lifetimes_create,
	.on_event = lifetimes_on_event,
	.finish = lifetimes_finish,
	.destroy = lifetimes_destroy,
};
