// SPDX-License-Identifier: GPL-2.0
/*
 * Slab analysis: perf kmem's per-callsite and per-object tables and its
 * summary, with the figures perf gets wrong made right and new ones beside
 * them.  Memory is bounded by live objects (a freed object leaves the
 * live table) plus the tables asked for: per-object rows only with --alloc.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/slab.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/hash.h"
#include "util/rows.h"

#define SLAB_DEFAULT_SORT "frag,hit,bytes"

/*
 * The NUMA figure without the recording's CPU-to-node map: ftrace text
 * and trace-cmd's trace.dat never hold one, perf.data and kmemtrace
 * record's trace.dat do
 */
static const struct kmt_missing no_node_map = {
	.known = 1,
	.what = "CPU-to-node map",
	.events_text = "",
	.record_with = "kmemtrace record",
};

/*
 * What the tables sort on.  It leads both a callsite row and a pointer
 * entry of the object table (whose hash key is at offset 0 too), so one
 * set of sort keys serves both without copying rows out to sort them.
 */
struct slab_stat {
	uint64_t key;		/* call_site, or ptr */
	uint64_t call_site;	/* of the last allocation (ptr entries) */
	uint64_t bytes_alloc;
	uint64_t bytes_req;
	uint32_t hit;
	uint32_t pingpong;
};

/* a live object: the value of the live table, keyed by pointer */
struct slab_live {
	uint32_t bytes_alloc;
	uint32_t site;		/* row of sites */
	int16_t cpu;
	uint8_t type;
};

KMT_HASH_TYPE(slab_lives, struct slab_live)

/*
 * Per-pointer figures (--alloc), the value of the pointer table.  The
 * table also holds the object's live state, so an event costs one lookup,
 * not one in each of two tables of the same pointers; the callsite of the
 * last allocation is its live state's site.  At the end each entry, key
 * and value, is rewritten in place into a struct slab_stat for sorting:
 * a million pointers cost 40 bytes a slot.  The byte totals saturate at
 * 2^48 (256 TiB through one address) to leave room for the live state.
 */
#define PTR_BYTES_MAX ((1ULL << 48) - 1)

struct slab_ptr {
	uint64_t bytes_alloc : 48;
	uint64_t cpu : 16;		/* the live object's, as int16_t */
	uint64_t bytes_req : 48;
	uint64_t type : 8;		/* the live object's */
	uint64_t is_live : 8;
	uint32_t hit;
	uint32_t pingpong;
	uint32_t obj_bytes;		/* the live object's bytes_alloc */
	uint32_t site;			/* sites row of the last allocation */
};

KMT_HASH_TYPE(slab_ptrs, struct slab_ptr)

_Static_assert(sizeof(struct slab_ptrs_entry) == sizeof(struct slab_stat),
	       "a pointer table slot must hold a struct slab_stat");

/* a row of the callsite table */
struct slab_row {
	struct slab_stat st;
	uint64_t frees;
	uint64_t live;
	uint64_t live_bytes;
};

struct slab_ctx;

/* a table drawn from the analysis' own sorted rows (see kmt_row_fn) */
struct slab_table {
	struct slab_ctx *c;
	struct kmt_report *r;
	struct kmt_sorted rows;		/* struct slab_stat */
	int by_ptr;
};

struct slab_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_sort_chain caller_sort;
	struct kmt_sort_chain alloc_sort;
	/* live objects: in live, or with --alloc in ptrs' entries */
	struct slab_lives live;		/* by ptr */
	struct slab_ptrs ptrs;		/* by ptr (--alloc) */
	struct kmt_rows sites;		/* call_site -> struct slab_row */
	uint64_t last_site_key;		/* a one-entry cache of sites */
	uint32_t last_site;
	struct kmt_slab_totals t;
	struct slab_table tables[2];	/* callsites, pointers */
	/* once sealed: the pointer table's entries as struct slab_stat */
	unsigned char *stats;
	size_t nr_stats;
	int sealed;
};

static double frag_pct(uint64_t req, uint64_t alloc)
{
	return alloc ? 100.0 - 100.0 * (double)req / (double)alloc : 0.0;
}

static double stat_frag(const struct slab_stat *st)
{
	return frag_pct(st->bytes_req, st->bytes_alloc);
}

static int cmp_ptr(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_DESC(x->key, y->key);
}

static int cmp_callsite(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_DESC(x->call_site, y->call_site);
}

static int cmp_hit(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_DESC(x->hit, y->hit);
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_DESC(x->bytes_alloc, y->bytes_alloc);
}

static int cmp_frag(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_DESC(stat_frag(x), stat_frag(y));
}

static int cmp_pingpong(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_DESC(x->pingpong, y->pingpong);
}

static int cmp_key_asc(const void *a, const void *b)
{
	const struct slab_stat *x = a, *y = b;

	return KMT_CMP_ASC(x->key, y->key);
}

static uint64_t enc_key_asc(const void *a)
{
	return ((const struct slab_stat *)a)->key;
}

static uint64_t enc_ptr(const void *a)
{
	return kmt_enc_desc_u64(((const struct slab_stat *)a)->key);
}

static uint64_t enc_callsite(const void *a)
{
	return kmt_enc_desc_u64(((const struct slab_stat *)a)->call_site);
}

static uint64_t enc_hit(const void *a)
{
	return kmt_enc_desc_u64(((const struct slab_stat *)a)->hit);
}

static uint64_t enc_bytes(const void *a)
{
	return kmt_enc_desc_u64(((const struct slab_stat *)a)->bytes_alloc);
}

static uint64_t enc_frag(const void *a)
{
	return kmt_enc_desc_double(stat_frag(a));
}

static uint64_t enc_pingpong(const void *a)
{
	return kmt_enc_desc_u64(((const struct slab_stat *)a)->pingpong);
}

static const struct kmt_sort_key slab_sort_keys[] = {
	{ "ptr", cmp_ptr, enc_ptr },
	{ "callsite", cmp_callsite, enc_callsite },
	{ "hit", cmp_hit, enc_hit },
	{ "bytes", cmp_bytes, enc_bytes },
	{ "frag", cmp_frag, enc_frag },
	{ "pingpong", cmp_pingpong, enc_pingpong },
};

#define NR_SORT_KEYS (sizeof(slab_sort_keys) / sizeof(slab_sort_keys[0]))

static void *slab_create(struct kmt_session *s,
			 const struct kmt_report_opts *opts)
{
	struct slab_ctx *c = calloc(1, sizeof(*c));
	char bad[64];

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	slab_lives_init(&c->live);
	slab_ptrs_init(&c->ptrs);
	kmt_rows_init(&c->sites, sizeof(struct slab_row), sizeof(uint64_t));
	c->last_site = UINT32_MAX;
	/* keys of other analyses in -s are theirs: skip them here */
	kmt_sort_parse(&c->caller_sort, opts->sort ? opts->sort :
		       SLAB_DEFAULT_SORT, slab_sort_keys, NR_SORT_KEYS, 1,
		       bad, sizeof(bad));
	if (!c->caller_sort.nr)
		kmt_sort_parse(&c->caller_sort, SLAB_DEFAULT_SORT,
			       slab_sort_keys, NR_SORT_KEYS, 1, bad,
			       sizeof(bad));
	c->caller_sort.tiebreak = cmp_key_asc;
	c->caller_sort.tiebreak_enc = enc_key_asc;
	c->alloc_sort = c->caller_sort;
	return c;
}

static void slab_destroy(void *ctx)
{
	struct slab_ctx *c = ctx;

	if (!c)
		return;
	slab_lives_free(&c->live);
	slab_ptrs_free(&c->ptrs);
	kmt_rows_free(&c->sites);
	free(c->tables[0].rows.order);
	free(c->tables[1].rows.order);
	free(c);
}

static inline uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static struct slab_row *site_of(struct slab_ctx *c, uint64_t call_site)
{
	struct slab_row *row;

	if (c->last_site != UINT32_MAX && c->last_site_key == call_site)
		return kmt_rows_at(&c->sites, c->last_site);
	row = kmt_rows_get(&c->sites, &call_site, 1, NULL);
	if (row) {
		c->last_site_key = call_site;
		c->last_site = (uint32_t)(((unsigned char *)row - c->sites.rows) /
					  c->sites.row_size);
	}
	return row;
}

static inline uint64_t add48(uint64_t total, uint64_t v)
{
	return v >= PTR_BYTES_MAX - total ? PTR_BYTES_MAX : total + v;
}

/* the live state a pointer entry holds, as the live table holds it */
static struct slab_live ptr_obj(const struct slab_ptr *p)
{
	struct slab_live o = {
		.bytes_alloc = p->obj_bytes,
		.site = p->site,
		.cpu = (int16_t)(uint16_t)p->cpu,
		.type = (uint8_t)p->type,
	};

	return o;
}

static void ptr_set_obj(struct slab_ptr *p, const struct slab_live *o)
{
	p->is_live = 1;
	p->obj_bytes = o->bytes_alloc;
	p->site = o->site;
	p->cpu = (uint16_t)o->cpu;
	p->type = o->type;
}

/*
 * A tracker that every event goes through (the views', with no filter)
 * already keeps the live objects by pointer, and its step says what this
 * event found there: the same as the analysis' own table would, one
 * lookup in a table of every live object fewer.  NULL otherwise.
 */
static const struct kmt_live_step *tracked(const struct slab_ctx *c)
{
	const struct kmt_live *l = c->opts.tracker;

	return l && !l->filter ? &l->step : NULL;
}

/* the live state of a tracked object, as the own table holds it */
static int tracked_obj(struct slab_ctx *c, const struct kmt_live_obj *o,
		       struct slab_live *out)
{
	const unsigned char *row = kmt_rows_get(&c->sites, &o->callsite, 0,
						NULL);

	/* every allocation came here too: its callsite has a row */
	if (!row)
		return 0;
	out->bytes_alloc = o->bytes_alloc;
	out->site = (uint32_t)((row - c->sites.rows) / c->sites.row_size);
	out->cpu = o->cpu;
	out->type = o->type;
	return 1;
}

/* the object stops being live (freed, or its free was lost) */
static struct slab_row *retire(struct slab_ctx *c, const struct slab_live *obj)
{
	struct slab_row *site = kmt_rows_at(&c->sites, obj->site);

	c->t.live--;
	c->t.live_bytes -= obj->bytes_alloc;
	site->live--;
	site->live_bytes -= obj->bytes_alloc;
	return site;
}

/*
 * perf kmem's "Cross CPU allocations" (builtin-kmem.c,
 * evsel__process_alloc_event): an allocation whose event has a node
 * field (kmalloc_node, kmem_cache_alloc_node; kmalloc and
 * kmem_cache_alloc since 6.1) naming a node, not NUMA_NO_NODE (-1),
 * other than the node of the CPU that allocated.  The field is the
 * node the caller asked for, so this counts asks for remote memory, not
 * objects that came from far away.  perf takes the CPUs' nodes from the
 * machine it runs on; the map here is the recording's, and where it
 * has none nothing is counted (the summary says "not recorded").  A CPU
 * that no node of the map lists has no node to differ from: perf (its
 * node -1) would count it.
 */
static int is_cross_node(const struct kmt_session *s,
			 const struct kmt_event *ev)
{
	int cpu_node;

	if (ev->node < 0 || !s->has_cpu_node)
		return 0;
	cpu_node = kmt_session_cpu_node(s, ev->cpu);
	return cpu_node >= 0 && ev->node != cpu_node;
}

static int on_alloc(struct slab_ctx *c, const struct kmt_event *ev)
{
	const struct kmt_live_step *st = tracked(c);
	struct slab_live now, old;
	struct slab_row *site;
	int was_live;

	c->t.nr_allocs++;
	if (ev->type == KMT_EV_KMALLOC)
		c->t.nr_kmalloc++;
	else
		c->t.nr_cache_alloc++;
	c->t.requested += ev->bytes_req;
	c->t.allocated += ev->bytes_alloc;
	if (is_cross_node(c->s, ev))
		c->t.cross_node++;
	if (ev->bytes_alloc < ev->bytes_req)
		c->t.alloc_below_req++;

	site = site_of(c, ev->call_site);
	if (!site)
		return -ENOMEM;
	site->st.call_site = ev->call_site;
	site->st.hit++;
	site->st.bytes_alloc += ev->bytes_alloc;
	site->st.bytes_req += ev->bytes_req;

	if (!ev->ptr) {
		c->t.failed++;
		/* perf keeps it as the entry of pointer 0 */
		c->t.null_seen = 1;
		c->t.null_alloc = ev->bytes_alloc;
		return 0;
	}
	now.bytes_alloc = clamp32(ev->bytes_alloc);
	now.site = c->last_site;
	now.cpu = (int16_t)ev->cpu;
	now.type = (uint8_t)ev->type;
	if (c->opts.alloc) {
		struct slab_ptr *p = slab_ptrs_put(&c->ptrs, ev->ptr, NULL);

		if (!p)
			return -ENOMEM;
		p->bytes_alloc = add48(p->bytes_alloc, ev->bytes_alloc);
		p->bytes_req = add48(p->bytes_req, ev->bytes_req);
		p->hit++;
		was_live = p->is_live;
		if (was_live)
			old = ptr_obj(p);
		ptr_set_obj(p, &now);
	} else if (st) {
		was_live = st->what == KMT_LIVE_ALLOC_OVER &&
			   tracked_obj(c, &st->prev, &old);
	} else {
		int is_new;
		struct slab_live *obj = slab_lives_put(&c->live, ev->ptr,
						       &is_new);

		if (!obj)
			return -ENOMEM;
		was_live = !is_new;
		if (was_live)
			old = *obj;
		*obj = now;
	}
	/* allocated again without a free: the free was lost */
	if (was_live) {
		c->t.alloc_over_live++;
		retire(c, &old);
	}
	/* as the live state holds it: a free takes off what was added */
	c->t.live++;
	c->t.live_bytes += now.bytes_alloc;
	site->live++;
	site->live_bytes += now.bytes_alloc;
	return 0;
}

static int on_free(struct slab_ctx *c, const struct kmt_event *ev)
{
	const struct kmt_live_step *st = tracked(c);
	struct slab_ptr *p = NULL;
	struct slab_row *site;
	struct slab_live obj;
	int found;

	if (ev->type == KMT_EV_KFREE)
		c->t.nr_kfree++;
	else
		c->t.nr_cache_free++;
	if (!ev->ptr) {
		c->t.free_null++;
		if (c->t.null_seen)
			c->t.perf_freed += c->t.null_alloc;
		return 0;
	}
	if (c->opts.alloc) {
		p = slab_ptrs_get(&c->ptrs, ev->ptr);
		found = p && p->is_live;
		/* the last allocation's bytes, whether it is live or not */
		if (p)
			c->t.perf_freed += p->obj_bytes;
		if (found) {
			obj = ptr_obj(p);
			p->is_live = 0;
		}
	} else if (st) {
		found = st->what == KMT_LIVE_FREE &&
			tracked_obj(c, &st->prev, &obj);
	} else {
		found = slab_lives_del(&c->live, ev->ptr, &obj);
	}
	if (!found) {
		/* allocated before the recording began, or its alloc was lost */
		c->t.free_only++;
		return 0;
	}
	c->t.frees_matched++;
	c->t.freed += obj.bytes_alloc;
	site = retire(c, &obj);
	site->frees++;
	if (ev->type == KMT_EV_KFREE && obj.type == KMT_EV_CACHE_ALLOC)
		c->t.cache_obj_kfreed++;
	if (ev->type == KMT_EV_CACHE_FREE && obj.type == KMT_EV_KMALLOC)
		c->t.kmalloc_obj_cache_freed++;
	if (ev->cpu != obj.cpu) {
		c->t.cross_cpu_frees++;
		site->st.pingpong++;
		if (p)
			p->pingpong++;
	}
	return 0;
}

static int slab_on_event(void *ctx, const struct kmt_event *ev)
{
	struct slab_ctx *c = ctx;

	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
		return on_alloc(c, ev);
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		return on_free(c, ev);
	default:
		return 0;
	}
}

static const struct kmt_col slab_cols_caller[] = {
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "total_alloc", "Total_alloc/Per", KMT_V_U64, KMT_COL_JOIN_NEXT },
	{ "alloc_per_hit", "", KMT_V_U64, KMT_COL_LEFT },
	{ "total_req", "Total_req/Per", KMT_V_U64, KMT_COL_JOIN_NEXT },
	{ "req_per_hit", "", KMT_V_U64, KMT_COL_LEFT },
	{ "hit", "Hit", KMT_V_U64, 0 },
	{ "pingpong", "Ping-pong", KMT_V_U64, 0 },
	{ "frag", "Frag", KMT_V_PCT, 0 },
	{ "frees", "Frees", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "live", "Live", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "live_bytes", "Live bytes", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
};

static const struct kmt_col slab_cols_alloc[] = {
	{ "ptr", "Alloc Ptr", KMT_V_HEX, KMT_COL_LEFT },
	{ "total_alloc", "Total_alloc/Per", KMT_V_U64, KMT_COL_JOIN_NEXT },
	{ "alloc_per_hit", "", KMT_V_U64, KMT_COL_LEFT },
	{ "total_req", "Total_req/Per", KMT_V_U64, KMT_COL_JOIN_NEXT },
	{ "req_per_hit", "", KMT_V_U64, KMT_COL_LEFT },
	{ "hit", "Hit", KMT_V_U64, 0 },
	{ "pingpong", "Ping-pong", KMT_V_U64, 0 },
	{ "frag", "Frag", KMT_V_PCT, 0 },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_NO_TEXT },
};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static void slab_table_row(void *ctx, size_t i, union kmt_val *v)
{
	const struct slab_table *tab = ctx;
	const struct slab_ctx *c = tab->c;
	const struct slab_stat *st = kmt_sorted_at(&tab->rows, i);
	/* every callsite was named when the report was made (name_sites) */
	const char *site = kmt_analysis_sym_made(tab->r, st->call_site,
						 c->opts.raw_ip);

	if (!site)
		site = "";

	if (tab->by_ptr)
		v[0].u = st->key;
	else
		v[0].str = site;
	v[1].u = st->bytes_alloc;
	v[2].u = st->hit ? st->bytes_alloc / st->hit : 0;
	v[3].u = st->bytes_req;
	v[4].u = st->hit ? st->bytes_req / st->hit : 0;
	v[5].u = st->hit;
	v[6].u = st->pingpong;
	v[7].d = stat_frag(st);
	if (tab->by_ptr) {
		v[8].str = site;
	} else {
		const struct slab_row *row = (const void *)st;

		v[8].u = row->frees;
		v[9].u = row->live;
		v[10].u = row->live_bytes;
		v[11].u = st->call_site;
	}
}

/*
 * Sorts nr stats of size bytes each and makes t draw the first -l of
 * them from here: a million --alloc rows are not copied into the report.
 */
static int add_rows(struct slab_ctx *c, struct kmt_report *r,
		    struct kmt_table *t, struct slab_table *tab,
		    unsigned char *base, size_t nr, size_t size,
		    const struct kmt_sort_chain *chain, int by_ptr)
{
	size_t n = nr;

	free(tab->rows.order);
	tab->rows.order = kmt_sort_index(base, nr, size, chain);
	if (!tab->rows.order)
		return -ENOMEM;
	tab->c = c;
	tab->r = r;
	tab->rows.rows = base;
	tab->rows.size = size;
	tab->rows.nr = nr;
	tab->by_ptr = by_ptr;
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	kmt_table_set_row_fn(t, n, nr, slab_table_row, tab);
	return 0;
}

/*
 * Names every callsite (the pointers' are among them) in r, so that
 * drawing the rows only reads: two threads draw them at once.
 */
static int name_sites(struct slab_ctx *c, struct kmt_report *r)
{
	size_t i;

	for (i = 0; i < c->sites.nr; i++) {
		const struct slab_row *row = kmt_rows_at(&c->sites, i);

		kmt_analysis_sym(c->s, r, row->st.call_site, c->opts.raw_ip);
		if (!kmt_analysis_sym_made(r, row->st.call_site,
					   c->opts.raw_ip))
			return -ENOMEM;
	}
	return 0;
}

/* the compacted pointer table's entries, rewritten as struct slab_stat */
static void ptrs_to_stats(struct slab_ctx *c, struct slab_ptrs_entry *entries,
			  size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		struct slab_ptr p = entries[i].value;
		struct slab_stat st;

		st.key = entries[i].key;
		st.call_site = ((const struct slab_row *)
				kmt_rows_at(&c->sites, p.site))->st.call_site;
		st.bytes_alloc = p.bytes_alloc;
		st.bytes_req = p.bytes_req;
		st.hit = p.hit;
		st.pingpong = p.pingpong;
		memcpy(&entries[i], &st, sizeof(st));
	}
}

/* nothing is looked up from here on: the live table makes room */
static int slab_seal(void *ctx)
{
	struct slab_ctx *c = ctx;

	if (c->sealed)
		return 0;
	slab_lives_free(&c->live);
	kmt_hash_u32_free(&c->sites.index);
	c->last_site = UINT32_MAX;
	if (c->opts.alloc) {
		/* the pointer table becomes an array of sort rows */
		struct slab_ptrs_entry *e = slab_ptrs_compact(&c->ptrs,
							      &c->nr_stats);

		ptrs_to_stats(c, e, c->nr_stats);
		c->stats = (unsigned char *)e;
	}
	c->sealed = 1;
	return 0;
}

static int slab_finish(void *ctx, struct kmt_report *r)
{
	struct slab_ctx *c = ctx;
	const struct kmt_slab_totals *t = &c->t;
	struct kmt_sum_item numa = {
		.kind = KMT_SUM_RATIO,
		.label = "Cross CPU allocations:",
		.key = "cross_node_allocations",
		.type = KMT_V_U64,
		.v.u = t->cross_node,
		.v2.u = t->nr_allocs,
		.note = "NUMA node mismatches, as perf kmem counts them",
		.missing = c->s->has_cpu_node ? NULL : &no_node_map,
	};
	struct kmt_summary *s;
	struct kmt_table *tab;
	int err = 0;

	slab_seal(c);
	if (c->opts.caller) {
		tab = kmt_report_add_table(r, "slab", "callsites", NULL,
					   slab_cols_caller,
					   NCOLS(slab_cols_caller),
					   KMT_TABLE_PERF);
		if (!tab || add_rows(c, r, tab, &c->tables[0], c->sites.rows,
				     c->sites.nr, c->sites.row_size,
				     &c->caller_sort, 0))
			return -ENOMEM;
	}
	if (c->opts.alloc) {
		tab = kmt_report_add_table(r, "slab", "allocs", NULL,
					   slab_cols_alloc,
					   NCOLS(slab_cols_alloc),
					   KMT_TABLE_PERF);
		if (!tab || add_rows(c, r, tab, &c->tables[1], c->stats,
				     c->nr_stats, sizeof(struct slab_stat),
				     &c->alloc_sort, 1))
			return -ENOMEM;
	}
	if ((c->opts.caller || c->opts.alloc) && name_sites(c, r))
		return -ENOMEM;

	s = kmt_report_add_summary(r, "slab", "summary",
				   "SUMMARY (SLAB allocator)");
	if (!s)
		return -ENOMEM;
	/* perf kmem's lines, labels and figures first, so scripts keep working */
	err |= kmt_summary_u64(s, "Total bytes requested:", "bytes_requested",
			       t->requested);
	err |= kmt_summary_u64(s, "Total bytes allocated:", "bytes_allocated",
			       t->allocated);
	err |= kmt_summary_u64(s, "Total bytes freed:    ", "bytes_freed",
			       t->freed);
	if (t->allocated > t->freed)
		err |= kmt_summary_u64(s, "Net total bytes allocated:",
				       "net_bytes_allocated",
				       t->allocated - t->freed);
	err |= kmt_summary_u64(s, "Total bytes wasted on internal fragmentation:",
			       "bytes_wasted", t->allocated - t->requested);
	err |= kmt_summary_pct(s, "Internal fragmentation:",
			       "internal_fragmentation_pct",
			       frag_pct(t->requested, t->allocated));
	err |= kmt_summary_add(s, &numa);
	/* what perf kmem does not say */
	err |= kmt_summary_ratio(s, "Cross-CPU frees:", "cross_cpu_frees",
				 t->cross_cpu_frees, t->frees_matched,
				 "allocated on one CPU, freed on another");
	err |= kmt_summary_u64(s, "Allocations by kmalloc:", "kmalloc",
			       t->nr_kmalloc);
	err |= kmt_summary_u64(s, "Allocations by kmem_cache_alloc:",
			       "kmem_cache_alloc", t->nr_cache_alloc);
	err |= kmt_summary_u64(s, "Frees by kfree:", "kfree", t->nr_kfree);
	err |= kmt_summary_u64(s, "Frees by kmem_cache_free:",
			       "kmem_cache_free", t->nr_cache_free);
	err |= kmt_summary_u64(s, "Frees matched to an allocation:",
			       "frees_matched", t->frees_matched);
	err |= kmt_summary_u64(s, "Free-only frees (allocated before the recording):",
			       "free_only", t->free_only);
	err |= kmt_summary_u64(s, "Frees of NULL:", "free_null", t->free_null);
	err |= kmt_summary_u64(s, "Failed allocations (NULL):", "failed",
			       t->failed);
	err |= kmt_summary_u64(s, "Allocations over a live object (free lost or untraced):",
			       "alloc_over_live", t->alloc_over_live);
	err |= kmt_summary_u64(s, "Cache objects freed with kfree:",
			       "cache_object_kfreed", t->cache_obj_kfreed);
	err |= kmt_summary_u64(s, "kmalloc objects freed with kmem_cache_free:",
			       "kmalloc_object_cache_freed",
			       t->kmalloc_obj_cache_freed);
	err |= kmt_summary_u64(s, "Objects live at the end:", "live_objects",
			       t->live);
	err |= kmt_summary_u64(s, "Bytes live at the end:", "live_bytes",
			       t->live_bytes);
	/*
	 * perf kmem's Total bytes freed counts frees of pointers freed
	 * before too; finding them takes every pointer, which only --alloc
	 * keeps.
	 */
	if (c->opts.alloc) {
		err |= kmt_summary_u64(s, "Total bytes freed as perf kmem counts them:",
				       "perf_bytes_freed", t->perf_freed);
	} else if (t->free_only || (t->null_seen && t->free_null)) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_NOTE,
			.label = "perf kmem's Total bytes freed also counts frees "
				 "of pointers freed before (--alloc gives it)",
		};

		err |= kmt_summary_add(s, &it);
	}
	return err ? -ENOMEM : 0;
}

void kmt_slab_get_totals(const void *ctx, struct kmt_slab_totals *out)
{
	const struct slab_ctx *c = ctx;

	*out = c->t;
}

const struct kmt_analysis_ops kmt_analysis_slab = {
	.name = "slab",
	.needs = KMT_EV_SLAB_BITS,
	.create = slab_create,
	.on_event = slab_on_event,
	.seal = slab_seal,
	.finish = slab_finish,
	.destroy = slab_destroy,
	.sort_keys = slab_sort_keys,
	.nr_sort_keys = NR_SORT_KEYS,
	.default_sort = SLAB_DEFAULT_SORT,
};
