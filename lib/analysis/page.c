// SPDX-License-Identifier: GPL-2.0
/*
 * Page analysis: perf kmem's page tables and summary, with the callsite
 * found by a rule that knows today's allocator (event/callsite.h), the
 * migratetypes named as the traced kernel numbers them, and every odd
 * event (unknown order or migratetype, gfp 0, pfn -1, split frees)
 * counted instead of aborting the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/page.h"
#include "event/callsite.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/rows.h"
#include "util/strbuf.h"

#define PAGE_DEFAULT_SORT "bytes,hit"
#define MT_UNKNOWN (KMT_PAGE_MT_COLS - 1)

/*
 * A live block, keyed by pfn: which caller row allocated it (the row
 * holds callsite, order, migratetype and gfp), so a live block costs a
 * 16-byte slot and a free needs no second lookup.
 */
struct page_obj {
	uint32_t caller;	/* row of callers */
	int8_t order;		/* of this block (smaller for split parts) */
	uint8_t split_part;	/* the rest of a block freed at a smaller order */
};

KMT_HASH_TYPE(page_objs, struct page_obj)

/* what makes a callsite row: the callsite and the class of allocation */
struct page_key {
	uint64_t callsite;
	uint64_t gfp;
	uint32_t gfp_str;
	int32_t order;
	int32_t mt;
	int32_t has_gfp;
};

/* a row of the callsite table */
struct page_row {
	struct page_key k;
	uint64_t nr_alloc;
	uint64_t alloc_bytes;
	uint64_t nr_free;
	uint64_t free_bytes;
	/*
	 * Its class and callsite in words, made when the report is (see
	 * name_rows): the rows are drawn by two threads at once, which only
	 * read them.
	 */
	const char *mt_name;
	const char *gfp_name;
	const char *gfp_short;	/* for the text, abbreviated (gfp_abbrevs) */
	const char *site_name;
};

#define ROW_NONE UINT32_MAX

/*
 * A row of the --alloc table: one per page and class of allocation
 * (order, migratetype, gfp) seen at it.  While events are read it names
 * the caller row of its last allocation by number, which gives the
 * callsite and the class, and the page's next row; at the end the number
 * becomes a pointer, so the row sorts and draws on its own.  A quarter
 * of a million pages cost 32 bytes each, not a 80-byte row and an index.
 */
struct page_arow {
	uint64_t page;
	union {
		struct {
			uint32_t caller;	/* row of callers */
			uint32_t next;		/* the page's next row */
		};
		const struct page_row *crow;	/* once reading is done */
	};
	uint64_t alloc_bytes;
	uint32_t nr_alloc;	/* saturating, as perf's int counts */
	uint32_t nr_free;
};

/*
 * --alloc: a page frame's entry, kept when it is freed so its rows are
 * found again: its rows (the newest first, so the live block's row is
 * the head) and its live state.  It replaces the live table.
 */
struct page_pfn {
	uint32_t head;		/* row in arows, or ROW_NONE */
	int8_t order;		/* of the live block */
	uint8_t flags;		/* PFN_* */
};

KMT_HASH_TYPE(page_pfns, struct page_pfn)

enum {
	PFN_LIVE	= 1 << 0,
	PFN_SPLIT_PART	= 1 << 1,	/* rest of a block freed in part */
};

struct page_ctx;

/* a table drawn from the analysis' own sorted rows (see kmt_row_fn) */
struct page_table {
	struct kmt_sorted rows;		/* page_row; by_page: page_arow */
	int by_page;
};

struct page_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_sort_chain sort;	/* of callers */
	struct kmt_sort_chain asort;	/* of arows */
	struct kmt_callsite_cache callsites;
	struct page_objs live;		/* by pfn */
	struct kmt_rows callers;	/* struct page_row by callsite/order/mt/gfp */
	/* --alloc (without --live, which makes its rows from live) */
	struct page_pfns pfns;		/* by pfn */
	struct page_arow *arows;
	size_t nr_arows, arows_alloc;
	struct kmt_page_totals t;
	/* the --live tables' columns: the report points at them */
	struct kmt_col caller_cols[11];
	struct kmt_col alloc_cols[10];
	struct page_table tables[2];	/* callsites, pages */
	int sealed;
	/* GFP texts made for the tables, by gfp value */
	struct kmt_report_texts gfp_texts;
	/*
	 * The flag names short names are made for (the recording's own
	 * table, or the names seen), their short names, whether a table's
	 * rows drawn use each; short texts by full text (its address).
	 */
	const char **gfp_names;
	char **gfp_abbrevs;
	uint8_t *gfp_used;
	size_t nr_gfp_names;
	int gfp_names_owned;	/* copies of the names seen (text) */
	struct kmt_report_texts gfp_shorts;
	const char *mt_names[256];	/* by migratetype as a byte */
};

/* callsite rows have no page: "page" leaves them to the next key */
static int cmp_no_page(const void *a, const void *b)
{
	(void)a;
	(void)b;
	return 0;
}

static int cmp_callsite(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;

	return KMT_CMP_DESC(x->k.callsite, y->k.callsite);
}

static int cmp_hit(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;

	return KMT_CMP_DESC(x->nr_alloc, y->nr_alloc);
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;

	return KMT_CMP_DESC(x->alloc_bytes, y->alloc_bytes);
}

static int cmp_order(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;

	return KMT_CMP_DESC(x->k.order, y->k.order);
}

static int cmp_migtype(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;

	return KMT_CMP_DESC(x->k.mt, y->k.mt);
}

static int cmp_gfp(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	int c = KMT_CMP_DESC(x->k.gfp, y->k.gfp);

	return c ? c : KMT_CMP_DESC(x->k.gfp_str, y->k.gfp_str);
}

/* identity: the whole key, so equal sort values still print in one order */
static int cmp_identity(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	int c;

	if ((c = KMT_CMP_ASC(x->k.callsite, y->k.callsite)) ||
	    (c = KMT_CMP_ASC(x->k.order, y->k.order)) ||
	    (c = KMT_CMP_ASC(x->k.mt, y->k.mt)) ||
	    (c = KMT_CMP_ASC(x->k.gfp, y->k.gfp)))
		return c;
	return KMT_CMP_ASC(x->k.gfp_str, y->k.gfp_str);
}

/* what identity compares first */
static uint64_t enc_identity(const void *a)
{
	return ((const struct page_row *)a)->k.callsite;
}

static uint64_t enc_no_page(const void *a)
{
	(void)a;
	return 0;
}

static uint64_t enc_callsite(const void *a)
{
	return kmt_enc_desc_u64(((const struct page_row *)a)->k.callsite);
}

static uint64_t enc_hit(const void *a)
{
	return kmt_enc_desc_u64(((const struct page_row *)a)->nr_alloc);
}

static uint64_t enc_bytes(const void *a)
{
	return kmt_enc_desc_u64(((const struct page_row *)a)->alloc_bytes);
}

static uint64_t enc_order(const void *a)
{
	return kmt_enc_desc_s64(((const struct page_row *)a)->k.order);
}

static uint64_t enc_migtype(const void *a)
{
	return kmt_enc_desc_s64(((const struct page_row *)a)->k.mt);
}

/* gfp orders by value then by the text's id: two numbers, so no encoder */
static const struct kmt_sort_key page_sort_keys[] = {
	{ "page", cmp_no_page, enc_no_page },
	{ "callsite", cmp_callsite, enc_callsite },
	{ "hit", cmp_hit, enc_hit },
	{ "bytes", cmp_bytes, enc_bytes },
	{ "order", cmp_order, enc_order },
	{ "migtype", cmp_migtype, enc_migtype },
	{ "gfp", cmp_gfp, NULL },
};

#define NR_SORT_KEYS (sizeof(page_sort_keys) / sizeof(page_sort_keys[0]))

/* the same keys on --alloc rows, whose class is their caller row's */
static int cmp_a_page(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return KMT_CMP_DESC(x->page, y->page);
}

static int cmp_a_callsite(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return cmp_callsite(x->crow, y->crow);
}

static int cmp_a_hit(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return KMT_CMP_DESC(x->nr_alloc, y->nr_alloc);
}

static int cmp_a_bytes(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return KMT_CMP_DESC(x->alloc_bytes, y->alloc_bytes);
}

static int cmp_a_order(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return cmp_order(x->crow, y->crow);
}

static int cmp_a_migtype(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return cmp_migtype(x->crow, y->crow);
}

static int cmp_a_gfp(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;

	return cmp_gfp(x->crow, y->crow);
}

/* a page's rows differ in class: the caller rows' identity less callsite */
static int cmp_a_identity(const void *a, const void *b)
{
	const struct page_arow *x = a, *y = b;
	const struct page_key *p = &x->crow->k, *q = &y->crow->k;
	int c;

	if ((c = KMT_CMP_ASC(x->page, y->page)) ||
	    (c = KMT_CMP_ASC(p->order, q->order)) ||
	    (c = KMT_CMP_ASC(p->mt, q->mt)) ||
	    (c = KMT_CMP_ASC(p->gfp, q->gfp)))
		return c;
	return KMT_CMP_ASC(p->gfp_str, q->gfp_str);
}

static uint64_t enc_a_identity(const void *a)
{
	return ((const struct page_arow *)a)->page;
}

static uint64_t enc_a_page(const void *a)
{
	return kmt_enc_desc_u64(((const struct page_arow *)a)->page);
}

static uint64_t enc_a_callsite(const void *a)
{
	return enc_callsite(((const struct page_arow *)a)->crow);
}

static uint64_t enc_a_hit(const void *a)
{
	return kmt_enc_desc_u64(((const struct page_arow *)a)->nr_alloc);
}

static uint64_t enc_a_bytes(const void *a)
{
	return kmt_enc_desc_u64(((const struct page_arow *)a)->alloc_bytes);
}

static uint64_t enc_a_order(const void *a)
{
	return enc_order(((const struct page_arow *)a)->crow);
}

static uint64_t enc_a_migtype(const void *a)
{
	return enc_migtype(((const struct page_arow *)a)->crow);
}

/* in the order and with the names of page_sort_keys */
static const struct kmt_sort_key page_alloc_sort_keys[] = {
	{ "page", cmp_a_page, enc_a_page },
	{ "callsite", cmp_a_callsite, enc_a_callsite },
	{ "hit", cmp_a_hit, enc_a_hit },
	{ "bytes", cmp_a_bytes, enc_a_bytes },
	{ "order", cmp_a_order, enc_a_order },
	{ "migtype", cmp_a_migtype, enc_a_migtype },
	{ "gfp", cmp_a_gfp, NULL },
};

_Static_assert(sizeof(page_alloc_sort_keys) == sizeof(page_sort_keys),
	       "the --alloc rows sort by the keys of the callsite rows");

/* keys of other analyses in -s are theirs: skipped here */
static void parse_sort(struct kmt_sort_chain *chain, const char *spec,
		       const struct kmt_sort_key *keys)
{
	char bad[64];

	kmt_sort_parse(chain, spec ? spec : PAGE_DEFAULT_SORT, keys,
		       NR_SORT_KEYS, 1, bad, sizeof(bad));
	if (!chain->nr)
		kmt_sort_parse(chain, PAGE_DEFAULT_SORT, keys, NR_SORT_KEYS, 1,
			       bad, sizeof(bad));
}

static void *page_create(struct kmt_session *s,
			 const struct kmt_report_opts *opts)
{
	struct page_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_callsite_cache_init(&c->callsites);
	page_objs_init(&c->live);
	kmt_report_texts_init(&c->gfp_texts);
	kmt_report_texts_init(&c->gfp_shorts);
	kmt_rows_init(&c->callers, sizeof(struct page_row),
		      sizeof(struct page_key));
	page_pfns_init(&c->pfns);
	parse_sort(&c->sort, opts->sort, page_sort_keys);
	c->sort.tiebreak = cmp_identity;
	c->sort.tiebreak_enc = enc_identity;
	parse_sort(&c->asort, opts->sort, page_alloc_sort_keys);
	c->asort.tiebreak = cmp_a_identity;
	c->asort.tiebreak_enc = enc_a_identity;
	c->t.max_order = 10;
	return c;
}

static void page_destroy(void *ctx)
{
	struct page_ctx *c = ctx;
	size_t i;

	if (!c)
		return;
	kmt_callsite_cache_free(&c->callsites);
	page_objs_free(&c->live);
	kmt_rows_free(&c->callers);
	page_pfns_free(&c->pfns);
	free(c->arows);
	kmt_report_texts_free(&c->gfp_texts);
	kmt_report_texts_free(&c->gfp_shorts);
	for (i = 0; c->gfp_abbrevs && i < c->nr_gfp_names; i++)
		free(c->gfp_abbrevs[i]);
	free(c->gfp_abbrevs);
	for (i = 0; c->gfp_names_owned && i < c->nr_gfp_names; i++)
		free((char *)c->gfp_names[i]);
	free(c->gfp_names);
	free(c->gfp_used);
	free(c->tables[0].rows.order);
	free(c->tables[1].rows.order);
	free(c);
}

static inline int mt_col(int mt)
{
	return mt >= 0 && mt < MT_UNKNOWN ? mt : MT_UNKNOWN;
}

static void tally(struct page_ctx *c, int order, int mt, int delta)
{
	if (order < 0 || order >= KMT_PAGE_MAX_ORDER)
		return;
	c->t.matrix[order][mt_col(mt)] += delta;
	if (order > c->t.max_order)
		c->t.max_order = order;
}

static inline int8_t clamp8(int v)
{
	return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
}

static inline uint32_t inc32(uint32_t v)
{
	return v < UINT32_MAX ? v + 1 : v;
}

/* two caller rows of one class: a page's allocations of both share a row */
static int same_class(const struct page_row *a, const struct page_row *b)
{
	return a->k.order == b->k.order && a->k.mt == b->k.mt &&
	       a->k.gfp == b->k.gfp && a->k.gfp_str == b->k.gfp_str &&
	       a->k.has_gfp == b->k.has_gfp;
}

static void live_add(struct page_ctx *c, int order)
{
	c->t.live_pages += 1ULL << (order & 63);
	c->t.live_bytes += (uint64_t)c->s->page_size << (order & 63);
}

static void live_sub(struct page_ctx *c, int order)
{
	c->t.live_pages -= 1ULL << (order & 63);
	c->t.live_bytes -= (uint64_t)c->s->page_size << (order & 63);
}

/* --alloc: the block's page gets its row of this class counted */
static int alloc_row(struct page_ctx *c, const struct kmt_event *ev,
		     const struct page_row *crow, uint32_t caller,
		     uint64_t bytes)
{
	struct page_arow *a;
	struct page_pfn *p;
	uint32_t i, prev = ROW_NONE;
	int is_new;

	p = page_pfns_put(&c->pfns, ev->ptr, &is_new);
	if (!p)
		return -ENOMEM;
	if (is_new) {
		p->head = ROW_NONE;
	} else if (p->flags & PFN_LIVE) {
		/* the block was never seen freed: a lost free event */
		c->t.alloc_over_live++;
		live_sub(c, p->order);
	}
	for (i = p->head; i != ROW_NONE; prev = i, i = c->arows[i].next) {
		if (same_class(kmt_rows_at(&c->callers, c->arows[i].caller),
			       crow))
			break;
	}
	if (i == ROW_NONE) {
		if (c->nr_arows >= ROW_NONE ||
		    KMT_ARRAY_GROW(c->arows, c->nr_arows + 1, c->arows_alloc))
			return -ENOMEM;
		i = (uint32_t)c->nr_arows++;
		a = &c->arows[i];
		memset(a, 0, sizeof(*a));
		a->page = ev->ptr;
		a->next = p->head;
		p->head = i;
	} else if (prev != ROW_NONE) {
		/* to the front: a free finds the live block's row first */
		c->arows[prev].next = c->arows[i].next;
		c->arows[i].next = p->head;
		p->head = i;
	}
	a = &c->arows[i];
	a->caller = caller;
	a->nr_alloc = inc32(a->nr_alloc);
	a->alloc_bytes += bytes;
	p->order = clamp8(ev->order);
	p->flags = PFN_LIVE;
	live_add(c, ev->order);
	return 0;
}

/* without --alloc (or with --live), the live table alone */
static int alloc_live(struct page_ctx *c, const struct kmt_event *ev,
		      uint32_t caller)
{
	struct page_obj *obj;
	int is_new;

	obj = page_objs_put(&c->live, ev->ptr, &is_new);
	if (!obj)
		return -ENOMEM;
	if (!is_new) {
		/* the block was never seen freed: a lost free event */
		c->t.alloc_over_live++;
		live_sub(c, obj->order);
	}
	obj->caller = caller;
	obj->order = clamp8(ev->order);
	obj->split_part = 0;
	live_add(c, ev->order);
	return 0;
}

static int alloc_rows(const struct page_ctx *c)
{
	return c->opts.alloc && !c->opts.live;
}

static int on_alloc(struct page_ctx *c, const struct kmt_event *ev)
{
	uint64_t bytes = (uint64_t)c->s->page_size << (ev->order & 63);
	struct page_row *row;
	struct page_key k;
	uint32_t caller;
	int err;

	c->t.allocs++;
	c->t.alloc_bytes += bytes;
	if (ev->ptr == KMT_PFN_NONE) {
		c->t.fails++;
		c->t.fail_bytes += bytes;
		return 0;
	}
	if (ev->order < 0 || ev->order >= KMT_PAGE_MAX_ORDER)
		c->t.odd_order++;
	if (ev->migratetype < 0 || ev->migratetype >= MT_UNKNOWN)
		c->t.unknown_mt++;
	if ((ev->flags & KMT_EVF_HAS_GFP) && !ev->gfp)
		c->t.gfp_zero++;
	if (!ev->stack)
		c->t.no_stack++;

	memset(&k, 0, sizeof(k));
	k.callsite = ev->flags & KMT_EVF_CALLSITE ? ev->call_site :
		     kmt_page_callsite(&c->callsites, c->s, ev->stack);
	k.gfp = ev->gfp;
	k.gfp_str = ev->gfp_str;
	k.has_gfp = !!(ev->flags & KMT_EVF_HAS_GFP);
	k.order = clamp8(ev->order);
	k.mt = clamp8(ev->migratetype);
	row = kmt_rows_get(&c->callers, &k, 1, NULL);
	if (!row)
		return -ENOMEM;
	caller = (uint32_t)(((unsigned char *)row - c->callers.rows) /
			    c->callers.row_size);
	row->nr_alloc++;
	row->alloc_bytes += bytes;

	err = alloc_rows(c) ? alloc_row(c, ev, row, caller, bytes) :
			      alloc_live(c, ev, caller);
	if (err)
		return err;
	tally(c, ev->order, ev->migratetype, 1);
	return 0;
}

/*
 * A block freed at a smaller order: the rest of it is still allocated.
 * Its parts become live blocks of their own, so that their frees are
 * told from frees of pages never seen allocated.
 */
static int keep_split_rest(struct page_ctx *c, uint64_t pfn, uint32_t caller,
			   int block_order, int order)
{
	uint64_t step = 1ULL << order, n = 1ULL << (block_order - order), i;

	for (i = 1; i < n; i++) {
		uint64_t part = pfn + i * step;
		int is_new;

		if (alloc_rows(c)) {
			struct page_pfn *p = page_pfns_put(&c->pfns, part,
							   &is_new);

			if (!p)
				return -ENOMEM;
			if (is_new)
				p->head = ROW_NONE;
			p->order = clamp8(order);
			p->flags = PFN_LIVE | PFN_SPLIT_PART;
		} else {
			struct page_obj *o = page_objs_put(&c->live, part, NULL);

			if (!o)
				return -ENOMEM;
			o->caller = caller;
			o->order = clamp8(order);
			o->split_part = 1;
		}
	}
	return 0;
}

/*
 * The live block of a free, taken out of the live state: 0 when the page
 * has none.  *row is its row in arows with --alloc.
 */
static int take_live(struct page_ctx *c, uint64_t pfn, struct page_obj *o,
		     uint32_t *row)
{
	struct page_pfn *p;

	if (!alloc_rows(c))
		return page_objs_del(&c->live, pfn, o);
	p = page_pfns_get(&c->pfns, pfn);
	if (!p || !(p->flags & PFN_LIVE))
		return 0;
	o->order = p->order;
	o->split_part = !!(p->flags & PFN_SPLIT_PART);
	o->caller = p->head == ROW_NONE ? 0 : c->arows[p->head].caller;
	*row = p->head;
	p->flags = 0;
	return 1;
}

static int on_free(struct page_ctx *c, const struct kmt_event *ev)
{
	uint64_t bytes = (uint64_t)c->s->page_size << (ev->order & 63);
	uint32_t arow = ROW_NONE;
	struct page_row *row;
	struct page_obj o;

	c->t.frees++;
	c->t.free_bytes += bytes;
	if (!take_live(c, ev->ptr, &o, &arow)) {
		c->t.nomatch++;
		c->t.nomatch_bytes += bytes;
		c->t.free_only++;
		c->t.free_only_bytes += bytes;
		return 0;
	}
	c->t.live_pages -= 1ULL << (ev->order & 63);
	c->t.live_bytes -= bytes;
	if (o.split_part) {
		/* perf never knew this part: to it, an unmatched free */
		c->t.split_part_frees++;
		c->t.nomatch++;
		c->t.nomatch_bytes += bytes;
		return 0;
	}
	if (ev->order < o.order && ev->order >= 0) {
		c->t.split_frees++;
		if (kmt_split_rest_tracked(o.order, ev->order) &&
		    keep_split_rest(c, ev->ptr, o.caller, o.order, ev->order))
			return -ENOMEM;
	} else if (ev->order > o.order) {
		c->t.larger_order_frees++;
	}

	row = kmt_rows_at(&c->callers, o.caller);
	if (c->opts.live)
		tally(c, row->k.order, row->k.mt, -1);
	row->nr_free++;
	row->free_bytes += bytes;
	if (c->opts.live) {
		row->nr_alloc--;
		row->alloc_bytes -= (uint64_t)c->s->page_size << (o.order & 63);
	}
	if (arow != ROW_NONE)
		c->arows[arow].nr_free = inc32(c->arows[arow].nr_free);
	return 0;
}

static int page_on_event(void *ctx, const struct kmt_event *ev)
{
	struct page_ctx *c = ctx;

	switch (ev->type) {
	case KMT_EV_PAGE_ALLOC:
		return on_alloc(c, ev);
	case KMT_EV_PAGE_FREE:
		return on_free(c, ev);
	case KMT_EV_PAGE_FREE_BATCHED:
		/* each such page also has its mm_page_free: only counted */
		c->t.batched_frees++;
		return 0;
	case KMT_EV_PAGE_ZONE_LOCKED:
		c->t.zone_locked++;
		return 0;
	case KMT_EV_PCPU_DRAIN:
		c->t.pcpu_drains++;
		return 0;
	case KMT_EV_EXTFRAG:
		c->t.extfrag++;
		if (ev->flags & KMT_EVF_FRAGMENTING)
			c->t.extfrag_fragmenting++;
		return 0;
	default:
		return 0;
	}
}

static const struct kmt_col page_cols_caller[] = {
	{ "alloc_kb", "Total alloc (KB)", KMT_V_U64, 0 },
	{ "hits", "Hits", KMT_V_U64, 0 },
	{ "order", "Order", KMT_V_S64, 0 },
	{ "migratetype", "Mig.type", KMT_V_STR, 0 },
	{ "gfp", "GFP flags", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "gfp_short", "GFP flags", KMT_V_STR, KMT_COL_LEFT | KMT_COL_TEXT_ONLY },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "frees", "Frees", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "free_kb", "Free (KB)", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "gfp_value", "GFP value", KMT_V_HEX, KMT_COL_NO_TEXT },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
};

static const struct kmt_col page_cols_alloc[] = {
	{ "pfn", "PFN", KMT_V_HEX, KMT_COL_LEFT },
	{ "alloc_kb", "Total alloc (KB)", KMT_V_U64, 0 },
	{ "hits", "Hits", KMT_V_U64, 0 },
	{ "order", "Order", KMT_V_S64, 0 },
	{ "migratetype", "Mig.type", KMT_V_STR, 0 },
	{ "gfp", "GFP flags", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "gfp_short", "GFP flags", KMT_V_STR, KMT_COL_LEFT | KMT_COL_TEXT_ONLY },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "frees", "Frees", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "gfp_value", "GFP value", KMT_V_HEX, KMT_COL_NO_TEXT },
};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* the amount column of a --live table counts what is still allocated */
static const struct kmt_col live_kb_col = {
	"live_kb", "Live alloc (KB)", KMT_V_U64, 0
};

_Static_assert(NCOLS(page_cols_caller) ==
	       NCOLS(((struct page_ctx *)0)->caller_cols) &&
	       NCOLS(page_cols_alloc) == NCOLS(((struct page_ctx *)0)->alloc_cols),
	       "room for the --live copies of the page tables' columns");

/* cols with the amount column (at index at) made the --live one */
static const struct kmt_col *table_cols(struct page_ctx *c,
					struct kmt_col *copy,
					const struct kmt_col *cols, size_t n,
					size_t at)
{
	if (!c->opts.live)
		return cols;
	memcpy(copy, cols, n * sizeof(*cols));
	copy[at] = live_kb_col;
	return copy;
}

/* the name is looked up once: the lookup parses the kernel release */
static const char *mt_name(struct page_ctx *c, struct kmt_report *r, int mt)
{
	const char **memo = &c->mt_names[(uint8_t)clamp8(mt)];
	const char *name;

	if (*memo)
		return *memo;
	name = kmt_session_migratetype_name(c->s, mt);
	*memo = name ? name : kmt_report_printf(r, "UNKNOWN(%d)", mt);
	return *memo;
}

/* a table of a million pages has a few dozen distinct GFP masks */
static const char *gfp_text(struct page_ctx *c, struct kmt_report *r,
			    const struct page_key *k)
{
	struct kmt_sb sb = KMT_SB_INIT;
	const char **memo;
	int is_new;

	if (k->gfp_str)
		return kmt_strtab_get(&c->s->strs, k->gfp_str);
	if (!k->has_gfp)
		return "?";
	memo = kmt_report_texts_put(&c->gfp_texts, k->gfp, &is_new);
	if (!memo)
		return NULL;
	if (!is_new && *memo)
		return *memo;
	kmt_gfp_format(&c->s->gfp, k->gfp, &sb);
	*memo = sb.oom ? NULL : kmt_report_strdup(r, kmt_sb_str(&sb));
	kmt_sb_release(&sb);
	return *memo;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the flag names of a text ("A|B|0x10") in names, or -1 */
static long gfp_index(const struct page_ctx *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < c->nr_gfp_names; i++) {
		if (!strncmp(c->gfp_names[i], name, len) &&
		    !c->gfp_names[i][len])
			return (long)i;
	}
	return -1;
}

/*
 * The names short names are made for: the recording's own table of GFP
 * flags; inputs without one (text) name the flags in each event, and
 * the names seen, in order, are the table.  0 or -ENOMEM.
 */
static int gfp_name_list(struct page_ctx *c)
{
	const struct kmt_gfp *g = &c->s->gfp;
	size_t i, n = 0, alloc = 0;
	const char *p, *end;

	if (g->nr) {
		c->gfp_names = calloc(g->nr, sizeof(*c->gfp_names));
		if (!c->gfp_names)
			return -ENOMEM;
		for (i = 0; i < g->nr; i++)
			c->gfp_names[i] = g->flags[i].name;
		c->nr_gfp_names = g->nr;
		return 0;
	}
	c->gfp_names_owned = 1;
	for (i = 0; i < c->callers.nr; i++) {
		const struct page_row *row = kmt_rows_at(&c->callers, i);

		for (p = row->gfp_name; p && *p; p = *end ? end + 1 : end) {
			end = strchr(p, '|');
			if (!end)
				end = p + strlen(p);
			c->nr_gfp_names = n;
			if (end == p || gfp_index(c, p, end - p) >= 0)
				continue;
			if (KMT_ARRAY_GROW(c->gfp_names, n + 1, alloc))
				return -ENOMEM;
			c->gfp_names[n] = strndup(p, end - p);
			if (!c->gfp_names[n])
				return -ENOMEM;
			c->nr_gfp_names = ++n;
		}
	}
	c->nr_gfp_names = n;
	/* none: gfp_names is NULL, which qsort must not be given */
	if (n)
		qsort(c->gfp_names, n, sizeof(*c->gfp_names), cmp_str);
	return 0;
}

/* text: "A|B" with each name in its short form (the rest as it is) */
static const char *gfp_short(struct page_ctx *c, struct kmt_report *r,
			     const char *full)
{
	struct kmt_sb sb = KMT_SB_INIT;
	const char **memo, *p, *end;
	int is_new;
	long k;

	memo = kmt_report_texts_put(&c->gfp_shorts, (uintptr_t)full, &is_new);
	if (!memo)
		return NULL;
	if (!is_new && *memo)
		return *memo;
	for (p = full; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '|');
		if (!end)
			end = p + strlen(p);
		if (p != full)
			kmt_sb_addc(&sb, '|');
		k = gfp_index(c, p, end - p);
		if (k >= 0)
			kmt_sb_adds(&sb, c->gfp_abbrevs[k]);
		else
			kmt_sb_add(&sb, p, end - p);
	}
	*memo = sb.oom ? NULL : kmt_report_strdup(r, kmt_sb_str(&sb));
	kmt_sb_release(&sb);
	return *memo;
}

/* the short GFP text of every callsite row; 0 or -ENOMEM */
static int short_names(struct page_ctx *c, struct kmt_report *r)
{
	size_t i;

	if (!c->gfp_names) {
		if (gfp_name_list(c))
			return -ENOMEM;
		c->gfp_abbrevs = calloc(c->nr_gfp_names + 1,
					sizeof(*c->gfp_abbrevs));
		c->gfp_used = calloc(c->nr_gfp_names + 1, 1);
		if (!c->gfp_abbrevs || !c->gfp_used ||
		    kmt_gfp_abbreviate(c->gfp_names, c->nr_gfp_names,
				       c->gfp_abbrevs))
			return -ENOMEM;
	}
	for (i = 0; i < c->callers.nr; i++) {
		struct page_row *row = kmt_rows_at(&c->callers, i);

		row->gfp_short = gfp_short(c, r, row->gfp_name);
		if (!row->gfp_short)
			return -ENOMEM;
	}
	return 0;
}

/* marks the flags of a GFP text used */
static void mark_used(struct page_ctx *c, const char *full)
{
	const char *p, *end;
	long k;

	for (p = full; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '|');
		if (!end)
			end = p + strlen(p);
		k = gfp_index(c, p, end - p);
		if (k >= 0)
			c->gfp_used[k] = 1;
	}
}

#define LEGEND_WIDTH 100

/*
 * Under a table whose GFP column is abbreviated: each short name its
 * rows drawn use, with its full name; and what migratetype 4 is, when
 * a row has it.  0 or -ENOMEM.
 */
static int gfp_legend(struct page_ctx *c, struct kmt_report *r,
		      struct kmt_table *t, const struct page_table *tab)
{
	struct kmt_sb line = KMT_SB_INIT;
	const char **lines = NULL;
	size_t i, n = 0, alloc = 0;
	int err = 0, mt4 = 0;
	uint8_t *seen = calloc(c->callers.nr + 1, 1);

	if (!seen)
		return -ENOMEM;
	memset(c->gfp_used, 0, c->nr_gfp_names);
	/*
	 * The callsite rows the rows drawn come from.  A whole table of
	 * pages (a million rows) is walked in memory order, not sorted.
	 */
	if (tab->by_page && t->nrows == tab->rows.nr) {
		for (i = 0; i < c->nr_arows; i++)
			seen[((const unsigned char *)c->arows[i].crow -
			      c->callers.rows) / c->callers.row_size] = 1;
	} else {
		for (i = 0; i < t->nrows; i++) {
			const struct page_row *row = tab->by_page ?
				((const struct page_arow *)
				 kmt_sorted_at(&tab->rows, i))->crow :
				kmt_sorted_at(&tab->rows, i);

			seen[((const unsigned char *)row - c->callers.rows) /
			     c->callers.row_size] = 1;
		}
	}
	for (i = 0; i < c->callers.nr; i++) {
		const struct page_row *row = kmt_rows_at(&c->callers, i);

		if (!seen[i])
			continue;
		mark_used(c, row->gfp_name);
		mt4 |= row->k.mt == 4;
	}
	for (i = 0; i <= c->nr_gfp_names; i++) {
		int last = i == c->nr_gfp_names;
		char item[160];

		if (!last && (!c->gfp_used[i] ||
			      !strcmp(c->gfp_abbrevs[i], c->gfp_names[i])))
			continue;
		if (!last)
			snprintf(item, sizeof(item), "%s = %s",
				 c->gfp_abbrevs[i], c->gfp_names[i]);
		/* a line full, or the last: into the legend */
		if (line.len && (last || line.len + 2 + strlen(item) >
					  LEGEND_WIDTH)) {
			if (KMT_ARRAY_GROW(lines, n + 1, alloc) || line.oom) {
				err = -ENOMEM;
				goto out;
			}
			lines[n++] = kmt_report_strdup(r, kmt_sb_str(&line));
			line.len = 0;
		}
		if (last)
			break;
		kmt_sb_addf(&line, "%s%s", line.len ? ", " :
			    n ? "           " : "GFP flags: ", item);
	}
	/* the number the recording cannot tell apart, as under the matrix */
	if (mt4) {
		if (KMT_ARRAY_GROW(lines, n + 1, alloc)) {
			err = -ENOMEM;
			goto out;
		}
		lines[n++] = "CMA/ISOLATE: migratetype 4, MIGRATE_CMA where the "
			     "kernel has CONFIG_CMA, else MIGRATE_ISOLATE";
	}
	if (n) {
		const char **copy = kmt_arena_zalloc(&r->arena,
						     n * sizeof(*copy));

		if (!copy) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(copy, lines, n * sizeof(*copy));
		t->legend = copy;
		t->nr_legend = n;
	}
out:
	free(lines);
	free(seen);
	kmt_sb_release(&line);
	return err;
}

/*
 * The words of every callsite row, in r; 0 or -ENOMEM.  Only the GFP
 * text fails here: the report's own strings come back "" when out of
 * memory and mark the report (r->oom), which then fails whole.
 */
static int name_rows(struct page_ctx *c, struct kmt_report *r)
{
	size_t i;

	for (i = 0; i < c->callers.nr; i++) {
		struct page_row *row = kmt_rows_at(&c->callers, i);

		row->mt_name = mt_name(c, r, row->k.mt);
		row->gfp_name = gfp_text(c, r, &row->k);
		row->site_name = kmt_analysis_sym(c->s, r, row->k.callsite,
						  c->opts.raw_ip);
		if (!row->gfp_name)
			return -ENOMEM;
	}
	return short_names(c, r);
}

/* reads the rows only: two threads may draw one table at once */
static void page_table_row(void *ctx, size_t i, union kmt_val *v)
{
	const struct page_table *tab = ctx;
	const struct page_row *row;
	const struct page_arow *a;
	int j = 0;

	if (!tab->by_page) {
		row = kmt_sorted_at(&tab->rows, i);
		v[j++].u = row->alloc_bytes / 1024;
		v[j++].u = row->nr_alloc;
		v[j++].s = row->k.order;
		v[j++].str = row->mt_name;
		v[j++].str = row->gfp_name;
		v[j++].str = row->gfp_short;
		v[j++].str = row->site_name;
		v[j++].u = row->nr_free;
		v[j++].u = row->free_bytes / 1024;
		v[j++].u = row->k.gfp;
		v[j++].u = row->k.callsite;
		return;
	}
	a = kmt_sorted_at(&tab->rows, i);
	row = a->crow;
	v[j++].u = a->page;
	v[j++].u = a->alloc_bytes / 1024;
	v[j++].u = a->nr_alloc;
	v[j++].s = row->k.order;
	v[j++].str = row->mt_name;
	v[j++].str = row->gfp_name;
	v[j++].str = row->gfp_short;
	v[j++].str = row->site_name;
	v[j++].u = a->nr_free;
	v[j++].u = row->k.gfp;
}

/*
 * Sorts rows and makes t draw the first -l of them from here (with
 * --live, only callsites with blocks still allocated): a table of every
 * page is not copied into the report.
 */
static int fill_rows(struct page_ctx *c, struct kmt_table *t,
		     struct page_table *tab,
		     const void *rows, size_t nr, size_t size, int by_page)
{
	size_t i, n = 0;
	uint32_t *order;

	free(tab->rows.order);
	order = kmt_sort_index(rows, nr, size, by_page ? &c->asort : &c->sort);
	tab->rows.order = order;
	if (!order)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct page_row *row = (const struct page_row *)
			((const unsigned char *)rows + (size_t)order[i] * size);

		if (!by_page && c->opts.live && !row->nr_alloc)
			continue;
		order[n++] = order[i];
	}
	tab->rows.rows = rows;
	tab->rows.size = size;
	tab->rows.nr = n;
	tab->by_page = by_page;
	kmt_table_set_row_fn(t, c->opts.lines > 0 &&
			     (size_t)c->opts.lines < n ? (size_t)c->opts.lines : n,
			     n, page_table_row, tab);
	return 0;
}

/* --live --alloc: the live table itself, one row per block */
static int live_rows(struct page_ctx *c)
{
	struct page_obj *o;
	size_t it = 0;
	uint64_t pfn;

	while (page_objs_next(&c->live, &it, &pfn, &o)) {
		struct page_arow *a;

		if (KMT_ARRAY_GROW(c->arows, c->nr_arows + 1, c->arows_alloc))
			return -ENOMEM;
		a = &c->arows[c->nr_arows++];
		memset(a, 0, sizeof(*a));
		a->page = pfn;
		a->caller = o->caller;
		a->nr_alloc = 1;
		a->alloc_bytes = (uint64_t)c->s->page_size << (o->order & 63);
	}
	return 0;
}

/* the rows name their caller row by pointer from here: nothing is added */
static void link_arows(struct page_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nr_arows; i++) {
		struct page_arow *a = &c->arows[i];

		a->crow = kmt_rows_at(&c->callers, a->caller);
	}
}

static const struct kmt_col matrix_cols_new[] = {
	{ "order", "Order", KMT_V_U64, 0 },
	{ "unmovable", "Unmovable", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "movable", "Movable", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "reclaimable", "Reclaimable", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "highatomic", "HighAtomic", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "cma_isolate", "CMA/Isolate", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "isolate", "Isolate", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "unknown", "Unknown", KMT_V_U64, KMT_COL_DOT_ZERO },
};

static const struct kmt_col matrix_cols_old[] = {
	{ "order", "Order", KMT_V_U64, 0 },
	{ "unmovable", "Unmovable", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "reclaimable", "Reclaimable", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "movable", "Movable", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "reserve", "Reserved", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "cma_isolate", "CMA/Isolate", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "isolate", "Isolate", KMT_V_U64, KMT_COL_DOT_ZERO },
	{ "unknown", "Unknown", KMT_V_U64, KMT_COL_DOT_ZERO },
};

/* the recording does not say which of CMA and ISOLATE the kernel has */
static const char *const mt_note[] = {
	"CMA/Isolate: migratetype 4, MIGRATE_CMA where the kernel has CONFIG_CMA, "
	"else MIGRATE_ISOLATE",
	"Isolate: migratetype 5, MIGRATE_ISOLATE after MIGRATE_CMA",
};

static int add_matrix(struct page_ctx *c, struct kmt_report *r)
{
	int v = kmt_session_kernel_version(c->s);
	const struct kmt_col *cols = v && v < 4004 ? matrix_cols_old :
				     matrix_cols_new;
	struct kmt_table *t;
	int o, m;

	t = kmt_report_add_table(r, "page", "order_migratetype", NULL, cols,
				 NCOLS(matrix_cols_new), KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	for (o = 0; o <= c->t.max_order; o++) {
		union kmt_val *row = kmt_table_add_row(t);

		if (!row)
			return -ENOMEM;
		row[0].u = o;
		for (m = 0; m < KMT_PAGE_MT_COLS; m++)
			row[m + 1].u = c->t.matrix[o][m];
	}
	t->legend = mt_note;
	t->nr_legend = NCOLS(mt_note);
	return 0;
}

/*
 * Nothing is looked up from here on: the tables' indexes and the live
 * blocks make room for sorting.
 */
static int page_seal(void *ctx)
{
	struct page_ctx *c = ctx;

	if (c->sealed)
		return 0;
	if (c->opts.alloc && c->opts.live && live_rows(c))
		return -ENOMEM;
	kmt_hash_u32_free(&c->callers.index);
	page_objs_free(&c->live);
	page_pfns_free(&c->pfns);
	link_arows(c);
	c->sealed = 1;
	return 0;
}

static int page_finish(void *ctx, struct kmt_report *r)
{
	struct page_ctx *c = ctx;
	const struct kmt_page_totals *t = &c->t;
	uint64_t freed = t->frees - t->nomatch;
	uint64_t freed_bytes = t->free_bytes - t->nomatch_bytes;
	struct kmt_summary *s;
	struct kmt_table *tab;
	int err = 0;

	if (page_seal(c))
		return -ENOMEM;
	if ((c->opts.caller || c->opts.alloc) && name_rows(c, r))
		return -ENOMEM;
	if (c->opts.caller) {
		tab = kmt_report_add_table(r, "page", "callsites", NULL,
			table_cols(c, c->caller_cols, page_cols_caller,
				   NCOLS(page_cols_caller), 0),
			NCOLS(page_cols_caller), KMT_TABLE_PERF);
		if (!tab || fill_rows(c, tab, &c->tables[0], c->callers.rows,
				      c->callers.nr, c->callers.row_size, 0) ||
		    gfp_legend(c, r, tab, &c->tables[0]))
			return -ENOMEM;
	}
	if (c->opts.alloc) {
		tab = kmt_report_add_table(r, "page", "allocs", NULL,
			table_cols(c, c->alloc_cols, page_cols_alloc,
				   NCOLS(page_cols_alloc), 1),
			NCOLS(page_cols_alloc), KMT_TABLE_PERF);
		if (!tab || fill_rows(c, tab, &c->tables[1], c->arows,
				      c->nr_arows, sizeof(*c->arows), 1) ||
		    gfp_legend(c, r, tab, &c->tables[1]))
			return -ENOMEM;
	}

	s = kmt_report_add_summary(r, "page", "summary",
				   "SUMMARY (page allocator)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_pages(s, "Total allocation requests", "allocations",
				 t->allocs, t->alloc_bytes);
	err |= kmt_summary_pages(s, "Total free requests", "frees", t->frees,
				 t->free_bytes);
	err |= kmt_summary_blank(s);
	err |= kmt_summary_pages(s, "Total alloc+freed requests",
				 "alloc_freed", freed, freed_bytes);
	err |= kmt_summary_pages(s, "Total alloc-only requests", "alloc_only",
				 t->allocs - freed, t->alloc_bytes - freed_bytes);
	err |= kmt_summary_pages(s, "Total free-only requests", "free_only",
				 t->nomatch, t->nomatch_bytes);
	err |= kmt_summary_blank(s);
	err |= kmt_summary_pages(s, "Total allocation failures", "failures",
				 t->fails, t->fail_bytes);
	err |= kmt_summary_blank(s);
	/* what perf kmem does not say */
	err |= kmt_summary_u64(s, "Frees of pages never seen allocated:",
			       "free_only_unmatched", t->free_only);
	err |= kmt_summary_u64(s, "Frees at a smaller order than allocated:",
			       "split_frees", t->split_frees);
	err |= kmt_summary_u64(s, "Frees of the rest of such blocks:",
			       "split_part_frees", t->split_part_frees);
	err |= kmt_summary_u64(s, "Frees at a larger order than allocated:",
			       "larger_order_frees", t->larger_order_frees);
	err |= kmt_summary_u64(s, "Allocations over a live block (free lost or untraced):",
			       "alloc_over_live", t->alloc_over_live);
	err |= kmt_summary_u64(s, "Pages freed in batches (mm_page_free_batched):",
			       "batched_frees", t->batched_frees);
	err |= kmt_summary_u64(s, "Allocations under the zone lock:",
			       "zone_locked", t->zone_locked);
	err |= kmt_summary_u64(s, "Per-CPU list drains (pages):", "pcpu_drains",
			       t->pcpu_drains);
	err |= kmt_summary_ratio(s, "Fragmenting fallbacks:", "extfrag",
				 t->extfrag_fragmenting, t->extfrag,
				 "mm_page_alloc_extfrag");
	err |= kmt_summary_u64(s, "Allocations of unknown migratetype:",
			       "unknown_migratetype", t->unknown_mt);
	err |= kmt_summary_u64(s, "Allocations of unexpected order:",
			       "odd_order", t->odd_order);
	err |= kmt_summary_u64(s, "Allocations with gfp 0:", "gfp_zero",
			       t->gfp_zero);
	err |= kmt_summary_u64(s, "Allocations without a stack:", "no_stack",
			       t->no_stack);
	err |= kmt_summary_u64(s, "Pages live at the end:", "live_pages",
			       t->live_pages);
	err |= kmt_summary_u64(s, "Bytes live at the end:", "live_bytes",
			       t->live_bytes);
	if (err)
		return -ENOMEM;
	return add_matrix(c, r);
}

void kmt_page_get_totals(const void *ctx, struct kmt_page_totals *out)
{
	const struct page_ctx *c = ctx;

	*out = c->t;
}

const struct kmt_analysis_ops kmt_analysis_page = {
	.name = "page",
	.needs = KMT_EV_PAGE_BITS,
	.create = page_create,
	.on_event = page_on_event,
	.seal = page_seal,
	.finish = page_finish,
	.destroy = page_destroy,
	.sort_keys = page_sort_keys,
	.nr_sort_keys = NR_SORT_KEYS,
	.default_sort = PAGE_DEFAULT_SORT,
};
