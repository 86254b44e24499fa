// SPDX-License-Identifier: GPL-2.0
/*
 * --caches: slab activity per cache, as slabtop would show it if it could
 * see allocations.  Recent kernels' kmem_cache_alloc and kmem_cache_free
 * carry the cache name; kmalloc events do not, so kmalloc objects are
 * put in the size class the kernel would have used (kmalloc-64,
 * kmalloc-cg-64 when memcg accounted, kmalloc-large past two pages).
 * Frees count for the cache of the allocation; a kmem_cache_free of an
 * object not seen allocated counts for the cache it names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/caches.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"

#define CACHES_DEFAULT_SORT "bytes"
#define LARGE UINT32_MAX	/* kmalloc_size of kmalloc-large */

struct caches_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_sort_chain sort;
	struct kmt_rows rows;		/* struct kmt_cache_row by key */
	size_t last;			/* the row last used, a cache */
	uint64_t kfree_unknown;		/* kfree of an object not seen */
};

static double waste_pct(const struct kmt_cache_row *x)
{
	return x->bytes ? 100.0 * (double)(x->bytes - x->requested) /
			  (double)x->bytes : 0.0;
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct kmt_cache_row *x = a, *y = b;

	return KMT_CMP_DESC(x->bytes, y->bytes);
}

static int cmp_objects(const void *a, const void *b)
{
	const struct kmt_cache_row *x = a, *y = b;

	return KMT_CMP_DESC(x->objects, y->objects);
}

static int cmp_waste(const void *a, const void *b)
{
	const struct kmt_cache_row *x = a, *y = b;

	return KMT_CMP_DESC(x->bytes - x->requested, y->bytes - y->requested);
}

static int cmp_live(const void *a, const void *b)
{
	const struct kmt_cache_row *x = a, *y = b;

	return KMT_CMP_DESC(x->live_bytes, y->live_bytes);
}

static int cmp_key(const void *a, const void *b)
{
	const struct kmt_cache_row *x = a, *y = b;

	return KMT_CMP_ASC(x->key, y->key);
}

static const struct kmt_sort_key caches_sort_keys[] = {
	{ "bytes", cmp_bytes, NULL },
	{ "objects", cmp_objects, NULL },
	{ "waste", cmp_waste, NULL },
	{ "live", cmp_live, NULL },
};

static void *caches_create(struct kmt_session *s,
			   const struct kmt_report_opts *opts)
{
	struct caches_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct kmt_cache_row), sizeof(uint64_t));
	kmt_view_sort(&c->sort, opts->sort, CACHES_DEFAULT_SORT,
		      caches_sort_keys, KMT_NCOLS(caches_sort_keys), cmp_key);
	return c;
}

static void caches_destroy(void *ctx)
{
	struct caches_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->rows);
	free(c);
}

/*
 * The row of an allocation: named caches by name, kmalloc by size class.
 * The key packs them in one word, bit 63 telling a name from a class.
 */
static struct kmt_cache_row *row_of(struct caches_ctx *c, unsigned int type,
				    uint32_t cache, uint64_t bytes_alloc,
				    int accounted)
{
	struct kmt_cache_row *row;
	uint32_t size = 0;
	uint64_t key;
	int is_new;

	if (type != KMT_EV_KMALLOC) {
		key = 1ULL << 63 | cache;
		accounted = 0;
	} else {
		size = bytes_alloc > 2ULL * c->s->page_size ? LARGE :
		       (uint32_t)bytes_alloc;
		accounted = size != LARGE && accounted;
		key = (uint64_t)size << 1 | (uint64_t)accounted;
	}
	if (c->last < c->rows.nr) {
		row = kmt_rows_at(&c->rows, c->last);
		if (row->key == key)
			return row;
	}
	row = kmt_rows_get(&c->rows, &key, 1, &is_new);
	if (!row)
		return NULL;
	c->last = (size_t)((unsigned char *)row - c->rows.rows) /
		  c->rows.row_size;
	if (is_new) {
		row->cache = type != KMT_EV_KMALLOC ? cache : 0;
		row->kmalloc_size = size;
		row->accounted = accounted;
	}
	return row;
}

static struct kmt_cache_row *obj_row(struct caches_ctx *c,
				     const struct kmt_live_obj *o)
{
	return row_of(c, o->type, o->cache, o->bytes_alloc,
		      !!(o->flags & KMT_LIVE_ACCOUNTED));
}

static int caches_on_event(void *ctx, const struct kmt_event *ev)
{
	struct caches_ctx *c = ctx;
	const struct kmt_live_step *st;
	struct kmt_cache_row *row;
	int ret = kmt_live_use_feed(&c->live, ev);

	if (ret <= 0 || !kmt_ev_is_slab(ev->type))
		return ret < 0 ? ret : 0;
	st = &c->live.l->step;
	switch (st->what) {
	case KMT_LIVE_ALLOC_OVER:
		row = obj_row(c, &st->prev);
		if (!row)
			return -ENOMEM;
		row->live--;
		row->live_bytes -= st->prev.bytes_alloc;
		/* fall through */
	case KMT_LIVE_ALLOC:
	case KMT_LIVE_ALLOC_FAILED:
		row = row_of(c, ev->type, ev->cache, ev->bytes_alloc,
			     !!(ev->flags & KMT_EVF_ACCOUNTED));
		if (!row)
			return -ENOMEM;
		row->objects++;
		row->bytes += ev->bytes_alloc;
		row->requested += ev->bytes_req;
		if (st->what == KMT_LIVE_ALLOC_FAILED) {
			row->failed++;
			break;
		}
		row->live++;
		row->live_bytes += st->bytes;
		break;
	case KMT_LIVE_FREE:
		row = obj_row(c, &st->prev);
		if (!row)
			return -ENOMEM;
		row->frees++;
		row->live--;
		row->live_bytes -= st->bytes;
		break;
	case KMT_LIVE_FREE_UNKNOWN:
		if (ev->type == KMT_EV_KFREE || !ev->cache) {
			c->kfree_unknown++;
			break;
		}
		row = row_of(c, ev->type, ev->cache, 0, 0);
		if (!row)
			return -ENOMEM;
		row->free_only++;
		break;
	default:
		break;
	}
	return 0;
}

static const char *name_of(struct caches_ctx *c, struct kmt_report *r,
			   const struct kmt_cache_row *k)
{
	if (k->kmalloc_size == LARGE)
		return "kmalloc-large";
	if (k->kmalloc_size)
		return kmt_view_kmalloc_cache(r, k->kmalloc_size, k->accounted,
					      c->s->page_size);
	if (k->cache)
		return kmt_strtab_get(&c->s->strs, k->cache);
	return "(cache not named)";
}

static const struct kmt_col cache_cols[] = {
	{ "cache", "Cache", KMT_V_STR, KMT_COL_LEFT },
	{ "objects", "Objects", KMT_V_U64, 0 },
	{ "object_size", "Size", KMT_V_U64, KMT_COL_GROUPED },
	{ "bytes", "Bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "requested", "Requested", KMT_V_U64, KMT_COL_GROUPED },
	{ "waste", "Waste", KMT_V_U64, KMT_COL_GROUPED },
	{ "waste_pct", "Waste%", KMT_V_PCT, 0 },
	{ "frees", "Frees", KMT_V_U64, 0 },
	{ "live_objects", "Live", KMT_V_S64, 0 },
	{ "live_bytes", "Live bytes", KMT_V_S64, KMT_COL_GROUPED },
	{ "free_only", "Free-only", KMT_V_U64, 0 },
	{ "failed", "Failed", KMT_V_U64, 0 },
	{ "from", "", KMT_V_STR, KMT_COL_NO_TEXT },
};

static int caches_finish(void *ctx, struct kmt_report *r)
{
	struct caches_ctx *c = ctx;
	struct kmt_rows *rows = &c->rows;
	struct kmt_cache_row sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i, n = rows->nr;
	int err = 0;

	t = kmt_report_add_table(r, "caches", "caches",
				 "SLAB CACHES: objects, waste and what is still allocated",
				 cache_cols, KMT_NCOLS(cache_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < n; i++) {
		const struct kmt_cache_row *row = kmt_rows_at(rows, i);

		sum.objects += row->objects;
		sum.bytes += row->bytes;
		sum.requested += row->requested;
		sum.frees += row->frees;
		sum.live += row->live;
		sum.live_bytes += row->live_bytes;
	}
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &c->sort);
	kmt_hash_u32_clear(&rows->index);
	c->last = SIZE_MAX;
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct kmt_cache_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].str = name_of(c, r, row);
		v[1].u = row->objects;
		v[2].u = row->objects ? row->bytes / row->objects : 0;
		v[3].u = row->bytes;
		v[4].u = row->requested;
		v[5].u = row->bytes - row->requested;
		v[6].d = waste_pct(row);
		v[7].u = row->frees;
		v[8].s = row->live;
		v[9].s = row->live_bytes;
		v[10].u = row->free_only;
		v[11].u = row->failed;
		v[12].str = row->kmalloc_size ? "kmalloc size" :
			    row->cache ? "event" : "none";
	}
	t->total_rows = rows->nr;

	s = kmt_report_add_summary(r, "caches", "summary",
				   "SUMMARY (slab caches)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, "Caches:", "caches", rows->nr);
	err |= kmt_summary_u64(s, "Objects allocated:", "objects",
			       sum.objects);
	err |= kmt_summary_u64(s, "Bytes allocated:", "bytes", sum.bytes);
	err |= kmt_summary_u64(s, "Bytes wasted (allocated - requested):",
			       "waste", sum.bytes - sum.requested);
	err |= kmt_summary_u64(s, "Frees matched:", "frees", sum.frees);
	err |= kmt_summary_u64(s, "Objects outstanding:", "live_objects",
			       (uint64_t)sum.live);
	err |= kmt_summary_u64(s, "Bytes outstanding:", "live_bytes",
			       (uint64_t)sum.live_bytes);
	err |= kmt_summary_u64(s, "kfree of objects not seen allocated (no cache known):",
			       "kfree_unknown", c->kfree_unknown);
	return err ? -ENOMEM : 0;
}

const struct kmt_cache_row *kmt_caches_find(const void *ctx, uint32_t cache,
					    uint32_t kmalloc_size,
					    int accounted)
{
	const struct caches_ctx *c = ctx;
	size_t i;

	for (i = 0; i < c->rows.nr; i++) {
		const struct kmt_cache_row *row = kmt_rows_at(&c->rows, i);

		if (row->cache == cache && row->kmalloc_size == kmalloc_size &&
		    row->accounted == !!accounted)
			return row;
	}
	return NULL;
}

const struct kmt_analysis_ops kmt_analysis_caches = {
	.name = "caches",
	.needs = KMT_EV_SLAB_BITS,
	.create = caches_create,
	.on_event = caches_on_event,
	.finish = caches_finish,
	.destroy = caches_destroy,
	.sort_keys = caches_sort_keys,
	.nr_sort_keys = KMT_NCOLS(caches_sort_keys),
	.default_sort = CACHES_DEFAULT_SORT,
};
