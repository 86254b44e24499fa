// SPDX-License-Identifier: GPL-2.0
/*
 * --errors: allocator misuse, counted by callsite.
 *
 * Telling a double free from the free of an object allocated before the
 * recording needs the frees that came before.  Keeping every freed
 * address would grow with every address ever used (perf kmem's mistake),
 * so the view keeps a quarantine of recent frees, as KASAN does: a table
 * of QUARANTINE_SLOTS slots where each freed address takes the slot its
 * hash names, pushing out the free that was there.  A pointer freed again
 * while its first free is still in the quarantine, and not allocated
 * since, is a double free; 131,072 slots (2 MiB, near the CPU) reach back
 * some tens of thousands of frees, at one memory access per free.  A free of a
 * pointer neither live nor in the quarantine is a free of a pointer never
 * seen; in the first --warmup of what was read such frees are what a
 * recording that starts mid-life looks like, and are only counted.
 *
 * Lost events make the same patterns: a lost allocation between two
 * frees looks like a double free, and a lost allocation before a free
 * like a free of a pointer never seen.  Not every format says when its
 * events were lost (perf's LOST_SAMPLES come at the end), so when the
 * recording lost any, those rows say so and the summary calls them
 * unsure; the other kinds do not depend on seeing every event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/errors.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/hash.h"
#include "util/rows.h"

#define QUARANTINE_SLOTS (1U << 17)

static const struct {
	const char *key;
	const char *title;
	const char *other;	/* what the second callsite is */
} kinds[KMT_ERR_NR] = {
	[KMT_ERR_CACHE_KFREE] = { "kfree_of_cache_object",
		"kmem_cache_alloc object freed with kfree", "alloc" },
	[KMT_ERR_KMALLOC_CACHE_FREE] = { "cache_free_of_kmalloc_object",
		"kmalloc object freed with kmem_cache_free", "alloc" },
	[KMT_ERR_CACHE_MISMATCH] = { "cache_mismatch",
		"kmem_cache_free on another cache", "alloc" },
	[KMT_ERR_DOUBLE_FREE] = { "double_free", "double free",
		"first free" },
	[KMT_ERR_UNKNOWN_FREE] = { "unknown_free",
		"free of a pointer never allocated", "" },
	[KMT_ERR_PAGE_DOUBLE_FREE] = { "page_double_free",
		"page freed twice", "first free" },
	[KMT_ERR_PAGE_UNKNOWN_FREE] = { "page_unknown_free",
		"free of a page never allocated", "" },
	[KMT_ERR_BELOW_REQ] = { "alloc_below_req",
		"bytes_alloc smaller than bytes_req", "" },
	[KMT_ERR_FAILED] = { "failed_alloc", "failed allocation (NULL)", "" },
	[KMT_ERR_PAGE_FAILED] = { "page_failed_alloc",
		"failed page allocation (pfn -1)", "" },
};

/* recent frees, each in the slot of its address' hash */
struct q_slot {
	uint64_t nkey;		/* ~address: 0 is an empty slot */
	uint64_t free_site;
};

struct quarantine {
	struct q_slot *slots;	/* QUARANTINE_SLOTS of them */
};

struct err_key {
	uint64_t site;		/* to blame: the free, or the allocation */
	uint64_t site2;		/* the allocation, or the first free */
	uint32_t a, b;		/* caches (names), or order */
	uint32_t kind;
	uint32_t pad;
};

struct err_row {
	struct err_key k;
	uint64_t count;
	uint64_t first_ts;
	uint64_t first_ptr;
};

struct errors_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct quarantine slab_q, page_q;
	struct kmt_rows rows;
	uint64_t warmup;
	struct kmt_errors_totals t;
};

static int q_init(struct quarantine *q)
{
	q->slots = calloc(QUARANTINE_SLOTS, sizeof(*q->slots));
	return q->slots ? 0 : -ENOMEM;
}

static void q_free(struct quarantine *q)
{
	free(q->slots);
}

static struct q_slot *q_slot(const struct quarantine *q, uint64_t key)
{
	return &q->slots[kmt_hash_mix(key) & (QUARANTINE_SLOTS - 1)];
}

/* the free of key when it is still in the quarantine, or NULL */
static const struct q_slot *q_find(const struct quarantine *q, uint64_t key)
{
	const struct q_slot *e = q_slot(q, key);

	return e->nkey == ~key ? e : NULL;
}

static void q_put(struct quarantine *q, uint64_t key, uint64_t free_site)
{
	struct q_slot *e = q_slot(q, key);

	e->nkey = ~key;
	e->free_site = free_site;
}

static void *errors_create(struct kmt_session *s,
			   const struct kmt_report_opts *opts)
{
	struct errors_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	c->warmup = opts->warmup;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct err_row),
		      sizeof(struct err_key));
	if (q_init(&c->slab_q) || q_init(&c->page_q)) {
		q_free(&c->slab_q);
		q_free(&c->page_q);
		kmt_rows_free(&c->rows);
		kmt_live_use_free(&c->live);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

static void errors_destroy(void *ctx)
{
	struct errors_ctx *c = ctx;

	if (!c)
		return;
	q_free(&c->slab_q);
	q_free(&c->page_q);
	kmt_rows_free(&c->rows);
	kmt_live_use_free(&c->live);
	free(c);
}

static int count(struct errors_ctx *c, enum kmt_err_kind kind,
		 const struct kmt_event *ev, uint64_t site, uint64_t site2,
		 uint32_t a, uint32_t b)
{
	struct err_key k;
	struct err_row *row;
	int is_new;

	memset(&k, 0, sizeof(k));
	k.kind = kind;
	k.site = site;
	k.site2 = site2;
	k.a = a;
	k.b = b;
	row = kmt_rows_get(&c->rows, &k, 1, &is_new);
	if (!row)
		return -ENOMEM;
	if (is_new) {
		row->first_ts = ev->ts;
		row->first_ptr = ev->ptr;
	}
	row->count++;
	c->t.count[kind]++;
	return 0;
}

static int in_warmup(struct errors_ctx *c, const struct kmt_event *ev)
{
	return ev->ts < c->live.l->first_ts + c->warmup;
}

/* a free of a pointer not live: freed twice, or never seen */
static int unknown_free(struct errors_ctx *c, const struct kmt_event *ev,
			const struct kmt_live_step *st,
			const struct quarantine *q, enum kmt_err_kind twice,
			enum kmt_err_kind never)
{
	const struct q_slot *e = q_find(q, ev->ptr);
	int page = twice == KMT_ERR_PAGE_DOUBLE_FREE;

	if (e)
		return count(c, twice, ev, st->callsite, e->free_site, 0, 0);
	if (in_warmup(c, ev)) {
		c->t.warmup[page]++;
		return 0;
	}
	return count(c, never, ev, st->callsite, 0, 0, 0);
}

static int slab_free(struct errors_ctx *c, const struct kmt_event *ev,
		     const struct kmt_live_step *st)
{
	const struct kmt_live_obj *o = &st->prev;
	int ret = 0;

	switch (st->what) {
	case KMT_LIVE_FREE:
		if (ev->type == KMT_EV_KFREE && o->type == KMT_EV_CACHE_ALLOC)
			ret = count(c, KMT_ERR_CACHE_KFREE, ev, st->callsite,
				    o->callsite, o->cache, 0);
		else if (ev->type == KMT_EV_CACHE_FREE &&
			 o->type == KMT_EV_KMALLOC)
			ret = count(c, KMT_ERR_KMALLOC_CACHE_FREE, ev,
				    st->callsite, o->callsite, 0, ev->cache);
		else if (ev->type == KMT_EV_CACHE_FREE && ev->cache &&
			 o->cache && ev->cache != o->cache)
			ret = count(c, KMT_ERR_CACHE_MISMATCH, ev, st->callsite,
				    o->callsite, o->cache, ev->cache);
		break;
	case KMT_LIVE_FREE_UNKNOWN:
		ret = unknown_free(c, ev, st, &c->slab_q, KMT_ERR_DOUBLE_FREE,
				   KMT_ERR_UNKNOWN_FREE);
		break;
	case KMT_LIVE_FREE_NULL:
		c->t.free_null++;
		return 0;
	default:
		return 0;
	}
	if (!ret)
		q_put(&c->slab_q, ev->ptr, st->callsite);
	return ret;
}

static int page_free(struct errors_ctx *c, const struct kmt_event *ev,
		     const struct kmt_live_step *st)
{
	int ret = 0;

	if (st->what == KMT_LIVE_FREE_UNKNOWN)
		ret = unknown_free(c, ev, st, &c->page_q,
				   KMT_ERR_PAGE_DOUBLE_FREE,
				   KMT_ERR_PAGE_UNKNOWN_FREE);
	if (!ret)
		q_put(&c->page_q, ev->ptr, st->callsite);
	return ret;
}

static int errors_on_event(void *ctx, const struct kmt_event *ev)
{
	struct errors_ctx *c = ctx;
	const struct kmt_live_step *st;
	int ret = kmt_live_use_feed(&c->live, ev);

	if (ret <= 0)
		return ret;
	st = &c->live.l->step;
	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
		if (st->what == KMT_LIVE_ALLOC_OVER)
			c->t.alloc_over_live++;
		if (st->what == KMT_LIVE_ALLOC_FAILED)
			return count(c, KMT_ERR_FAILED, ev, st->callsite, 0,
				     ev->cache, 0);
		if (ev->bytes_alloc < ev->bytes_req)
			return count(c, KMT_ERR_BELOW_REQ, ev, st->callsite, 0,
				     ev->cache, 0);
		return 0;
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		return slab_free(c, ev, st);
	case KMT_EV_PAGE_ALLOC:
		if (st->what == KMT_LIVE_ALLOC_OVER)
			c->t.page_alloc_over_live++;
		if (st->what == KMT_LIVE_ALLOC_FAILED)
			return count(c, KMT_ERR_PAGE_FAILED, ev, st->callsite, 0,
				     (uint32_t)(ev->order < 0 ? 0 : ev->order),
				     0);
		return 0;
	case KMT_EV_PAGE_FREE:
		return page_free(c, ev, st);
	default:
		return 0;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct err_row *x = a, *y = b;
	int c;

	/* by kind as listed, then the most frequent first */
	if ((c = KMT_CMP_ASC(x->k.kind, y->k.kind)) ||
	    (c = KMT_CMP_DESC(x->count, y->count)))
		return c;
	return memcmp(&x->k, &y->k, sizeof(x->k));
}

static const struct kmt_col err_cols[] = {
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "count", "Count", KMT_V_U64, 0 },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "other_callsite", "Other callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "other_is", "(is)", KMT_V_STR, KMT_COL_LEFT },
	{ "detail", "Detail", KMT_V_STR, KMT_COL_LEFT },
	{ "first_ts_ns", "First seen", KMT_V_TIME, 0 },
	{ "first_ptr", "Pointer", KMT_V_HEX, 0 },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
	{ "other_address", "Other address", KMT_V_HEX, KMT_COL_NO_TEXT },
};

static const char *cache_name(struct errors_ctx *c, uint32_t id)
{
	const char *name = id ? kmt_strtab_get(&c->s->strs, id) : NULL;

	return name ? name : "?";
}

static const char *detail(struct errors_ctx *c, struct kmt_report *r,
			  const struct err_key *k)
{
	switch (k->kind) {
	case KMT_ERR_DOUBLE_FREE:
	case KMT_ERR_UNKNOWN_FREE:
	case KMT_ERR_PAGE_DOUBLE_FREE:
	case KMT_ERR_PAGE_UNKNOWN_FREE:
		return c->s->nr_lost ? "unsure: events were lost" : "";
	case KMT_ERR_CACHE_KFREE:
		return k->a ? kmt_report_printf(r, "cache %s",
						cache_name(c, k->a)) : "";
	case KMT_ERR_KMALLOC_CACHE_FREE:
		return k->b ? kmt_report_printf(r, "freed to %s",
						cache_name(c, k->b)) : "";
	case KMT_ERR_CACHE_MISMATCH:
		return kmt_report_printf(r, "allocated from %s, freed to %s",
					 cache_name(c, k->a),
					 cache_name(c, k->b));
	case KMT_ERR_FAILED:
	case KMT_ERR_BELOW_REQ:
		return k->a ? kmt_report_printf(r, "cache %s",
						cache_name(c, k->a)) : "";
	case KMT_ERR_PAGE_FAILED:
		return kmt_report_printf(r, "order %u", k->a);
	default:
		return "";
	}
}

static int errors_finish(void *ctx, struct kmt_report *r)
{
	struct errors_ctx *c = ctx;
	const struct kmt_errors_totals *t = &c->t;
	struct kmt_rows *rows = &c->rows;
	struct kmt_sort_chain chain = { .tiebreak = cmp_rows };
	struct kmt_summary *s;
	struct kmt_table *tab;
	size_t i, n = rows->nr;
	int err = 0;

	tab = kmt_report_add_table(r, "errors", "callsites",
				   "ERRORS: allocator misuse, by callsite",
				   err_cols, KMT_NCOLS(err_cols),
				   KMT_TABLE_PLAIN);
	if (!tab)
		return -ENOMEM;
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &chain);
	kmt_hash_u32_clear(&rows->index);
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct err_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(tab);

		if (!v)
			return -ENOMEM;
		v[0].str = kinds[row->k.kind].key;
		v[1].u = row->count;
		v[2].str = kmt_analysis_sym(c->s, r, row->k.site,
					    c->opts.raw_ip);
		v[3].str = kinds[row->k.kind].other[0] ?
			   kmt_analysis_sym(c->s, r, row->k.site2,
					    c->opts.raw_ip) : "";
		v[4].str = kinds[row->k.kind].other;
		v[5].str = detail(c, r, &row->k);
		v[6].u = row->first_ts;
		v[7].u = row->first_ptr;
		v[8].u = kmt_view_addr(row->k.site);
		v[9].u = kmt_view_addr(row->k.site2);
	}
	tab->total_rows = rows->nr;

	s = kmt_report_add_summary(r, "errors", "summary",
				   "SUMMARY (allocator misuse)");
	if (!s)
		return -ENOMEM;
	for (i = 0; i < KMT_ERR_NR; i++) {
		const char *label = kmt_report_printf(r, "%s:", kinds[i].title);

		err |= kmt_summary_u64(s, label, kinds[i].key, t->count[i]);
	}
	{
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE,
			.label = "Frees of unknown pointers expected in the first",
			.key = "warmup_ns", .type = KMT_V_DURATION,
			.v.u = c->warmup,
		};

		err |= kmt_summary_add(s, &it);
	}
	err |= kmt_summary_u64(s, "  slab frees then (allocated before the recording):",
			       "unknown_free_warmup", t->warmup[0]);
	err |= kmt_summary_u64(s, "  page frees then (allocated before the recording):",
			       "page_unknown_free_warmup", t->warmup[1]);
	err |= kmt_summary_u64(s, "Events lost by the recording:", "lost_events",
			       c->s->nr_lost);
	if (c->s->nr_lost) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_NOTE,
			.label = "  so double frees and frees of unknown pointers "
				 "may be allocations that were lost",
		};

		err |= kmt_summary_add(s, &it);
	}
	err |= kmt_summary_u64(s, "Allocations over a live object (free lost or untraced):",
			       "alloc_over_live", t->alloc_over_live);
	err |= kmt_summary_u64(s, "Page allocations over a live block:",
			       "page_alloc_over_live", t->page_alloc_over_live);
	err |= kmt_summary_u64(s, "Frees of NULL (not an error):", "free_null",
			       t->free_null);
	return err ? -ENOMEM : 0;
}

void kmt_errors_get_totals(const void *ctx, struct kmt_errors_totals *out)
{
	const struct errors_ctx *c = ctx;

	*out = c->t;
}

const struct kmt_analysis_ops kmt_analysis_errors = {
	.name = "errors",
	.create = errors_create,
	.on_event = errors_on_event,
	.finish = errors_finish,
	.destroy = errors_destroy,
};
