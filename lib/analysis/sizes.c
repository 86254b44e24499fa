// SPDX-License-Identifier: GPL-2.0
/*
 * --sizes: how big the slab requests are, in powers of two, and what each
 * size range wastes (bytes_alloc - bytes_req): the place to see that a
 * dedicated cache, or a smaller struct, would pay.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/sizes.h"
#include "analysis/views.h"
#include "event/event.h"
#include "report/report.h"

struct sizes_ctx {
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_size_bucket b[KMT_SIZE_BUCKETS];
};

/* 0 for 0 bytes, else b with 2^(b-2) < req <= 2^(b-1) */
static unsigned int bucket_of(uint64_t req)
{
	return req ? 1 + (req > 1 ? 64 - (unsigned int)__builtin_clzll(req - 1) :
			   0) : 0;
}

static void bucket_range(unsigned int b, uint64_t *lo, uint64_t *hi)
{
	if (!b) {
		*lo = *hi = 0;
		return;
	}
	*hi = b - 1 >= 64 ? UINT64_MAX : 1ULL << (b - 1);
	*lo = b == 1 ? 1 : (1ULL << (b - 2)) + 1;
}

static void *sizes_create(struct kmt_session *s,
			  const struct kmt_report_opts *opts)
{
	struct sizes_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	return c;
}

static void sizes_destroy(void *ctx)
{
	struct sizes_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	free(c);
}

static int sizes_on_event(void *ctx, const struct kmt_event *ev)
{
	struct sizes_ctx *c = ctx;
	struct kmt_size_bucket *b;
	int ret = kmt_live_use_feed(&c->live, ev);

	if (ret <= 0 || (ev->type != KMT_EV_KMALLOC &&
			 ev->type != KMT_EV_CACHE_ALLOC))
		return ret < 0 ? ret : 0;
	b = &c->b[bucket_of(ev->bytes_req)];
	b->allocs++;
	b->requested += ev->bytes_req;
	b->allocated += ev->bytes_alloc;
	if (ev->bytes_alloc > ev->bytes_req)
		b->waste += ev->bytes_alloc - ev->bytes_req;
	return 0;
}

static const struct kmt_col size_cols[] = {
	{ "range", "Requested", KMT_V_STR, 0 },
	{ "min_bytes", "", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "max_bytes", "", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "allocs", "Allocs", KMT_V_U64, 0 },
	{ "allocs_pct", "Allocs%", KMT_V_PCT, 0 },
	{ "requested", "Bytes req", KMT_V_U64, KMT_COL_GROUPED },
	{ "allocated", "Bytes alloc", KMT_V_U64, KMT_COL_GROUPED },
	{ "waste", "Waste", KMT_V_U64, KMT_COL_GROUPED },
	{ "waste_pct", "Waste%", KMT_V_PCT, 0 },
};

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

static int sizes_finish(void *ctx, struct kmt_report *r)
{
	struct sizes_ctx *c = ctx;
	struct kmt_size_bucket sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	int first = -1, last = -1, i, err = 0;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < KMT_SIZE_BUCKETS; i++) {
		if (!c->b[i].allocs)
			continue;
		if (first < 0)
			first = i;
		last = i;
		sum.allocs += c->b[i].allocs;
		sum.requested += c->b[i].requested;
		sum.allocated += c->b[i].allocated;
		sum.waste += c->b[i].waste;
	}
	t = kmt_report_add_table(r, "sizes", "histogram",
				 "SIZES: slab requests by size, powers of two",
				 size_cols, KMT_NCOLS(size_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	for (i = first; first >= 0 && i <= last; i++) {
		const struct kmt_size_bucket *b = &c->b[i];
		union kmt_val *v = kmt_table_add_row(t);
		uint64_t lo, hi;

		if (!v)
			return -ENOMEM;
		bucket_range((unsigned int)i, &lo, &hi);
		v[0].str = lo == hi ? kmt_report_printf(r, "%llu",
							(unsigned long long)hi) :
			   kmt_report_printf(r, "%llu-%llu",
					     (unsigned long long)lo,
					     (unsigned long long)hi);
		v[1].u = lo;
		v[2].u = hi;
		v[3].u = b->allocs;
		v[4].d = pct(b->allocs, sum.allocs);
		v[5].u = b->requested;
		v[6].u = b->allocated;
		v[7].u = b->waste;
		v[8].d = pct(b->waste, b->allocated);
	}
	s = kmt_report_add_summary(r, "sizes", "summary",
				   "SUMMARY (slab request sizes)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, "Allocations:", "allocs", sum.allocs);
	err |= kmt_summary_u64(s, "Bytes requested:", "requested",
			       sum.requested);
	err |= kmt_summary_u64(s, "Bytes allocated:", "allocated",
			       sum.allocated);
	err |= kmt_summary_u64(s, "Bytes wasted:", "waste", sum.waste);
	err |= kmt_summary_pct(s, "Waste:", "waste_pct",
			       pct(sum.waste, sum.allocated));
	return err ? -ENOMEM : 0;
}

const struct kmt_size_bucket *kmt_sizes_bucket(const void *ctx, uint64_t req)
{
	const struct sizes_ctx *c = ctx;

	return &c->b[bucket_of(req)];
}

const struct kmt_analysis_ops kmt_analysis_sizes = {
	.name = "sizes",
	.needs = KMT_EV_BIT(KMT_EV_KMALLOC) | KMT_EV_BIT(KMT_EV_CACHE_ALLOC),
	.create = sizes_create,
	.on_event = sizes_on_event,
	.finish = sizes_finish,
	.destroy = sizes_destroy,
};
