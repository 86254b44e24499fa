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
#include "event/kcounters.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"
#include "util/strbuf.h"

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

/* the columns set beside slabinfo's, from COL_TRACED on */
enum {
	COL_TRACED = 12, COL_SLABINFO, COL_DIFF, COL_START, COL_END, COL_SLACK,
	COL_VERDICT, COL_FROM, COL_ABSENT
};

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
	/* allocations - frees the tracepoints saw, slabinfo's active objects */
	{ "traced_change", "Traced chg", KMT_V_S64, KMT_COL_GROUPED },
	{ "slabinfo_change", "Slabinfo chg", KMT_V_S64, KMT_COL_GROUPED },
	{ "difference", "Difference", KMT_V_S64, KMT_COL_GROUPED },
	{ "slabinfo_start", "", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "slabinfo_end", "", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "percpu_slack", "", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "reconciled", "", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "from", "", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "absent", "", KMT_V_U64, KMT_COL_ABSENT },
};

#define SLABINFO_COLS (1ULL << COL_SLABINFO | 1ULL << COL_DIFF | \
		       1ULL << COL_START | 1ULL << COL_END | \
		       1ULL << COL_SLACK | 1ULL << COL_VERDICT)

/* allocations less frees, as the tracepoints saw them */
static int64_t traced_change(const struct kmt_cache_row *row)
{
	return (int64_t)(row->objects - row->failed) - (int64_t)row->frees -
	       (int64_t)row->free_only;
}

/* one cache set beside slabinfo: a row's, or one only slabinfo saw */
struct recon {
	const char *name;
	int have;			/* slabinfo lists it */
	int64_t traced;			/* of every row of this name */
	int64_t slab;
	struct kmt_slab_change ch;
	int kmalloc;
	/* allocations at an address still live: its free was not seen */
	int64_t overs;
};

static const char *verdict(const struct recon *x)
{
	int64_t d = x->slab - x->traced;
	uint64_t mag = d < 0 ? (uint64_t)-d : (uint64_t)d;

	if (mag <= x->ch.slack)
		return "agrees";
	return d < 0 ? "slabinfo_fewer" : "slabinfo_more";
}

/* beyond what SLUB's per-CPU caching explains */
static uint64_t excess(const struct recon *x)
{
	int64_t d = x->slab - x->traced;
	uint64_t mag = d < 0 ? (uint64_t)-d : (uint64_t)d;

	return mag > x->ch.slack ? mag - x->ch.slack : 0;
}

/*
 * What the kernel's counters say of each row; recons[i] for row i, then
 * the caches no event named whose active objects changed
 */
static int reconcile(struct caches_ctx *c, struct kmt_report *r,
		     struct recon **out, size_t *nr_out)
{
	const struct kmt_kcounters *kc = c->s->kcounters;
	const struct kmt_kcounters_snap *end = &kc->at[KMT_CNT_END];
	const struct kmt_kcounters_snap *start = &kc->at[KMT_CNT_START];
	size_t n = c->rows.nr, i, j, nr = n;
	struct recon *x = calloc(n + end->nr_slabs + start->nr_slabs + 1,
				 sizeof(*x));

	if (!x)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct kmt_cache_row *row = kmt_rows_at(&c->rows, i);

		x[i].name = name_of(c, r, row);
		x[i].kmalloc = row->kmalloc_size && row->kmalloc_size != LARGE;
		x[i].have = row->kmalloc_size != LARGE &&
			    kmt_kcounters_slab_change(kc, x[i].name,
						      c->s->nr_cpus, &x[i].ch);
		x[i].slab = (int64_t)x[i].ch.end - (int64_t)x[i].ch.start;
	}
	/* kmalloc events and a named cache's of one slabinfo cache: summed */
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			const struct kmt_cache_row *rj = kmt_rows_at(&c->rows, j);

			if (strcmp(x[i].name, x[j].name))
				continue;
			x[i].traced += traced_change(rj);
			x[i].overs += (int64_t)(rj->objects - rj->failed - rj->frees) -
				      rj->live;
		}
	}
	for (i = 0; i < end->nr_slabs + start->nr_slabs; i++) {
		const struct kmt_slab_count *sc = i < end->nr_slabs ?
			&end->slabs[i] : &start->slabs[i - end->nr_slabs];
		struct recon *y = &x[nr];

		for (j = 0; j < nr; j++) {
			if (!strcmp(x[j].name, sc->name))
				break;
		}
		if (j < nr)
			continue;
		/* the random copies of kmalloc-N count in its row */
		if (!strncmp(sc->name, "kmalloc-rnd-", 12))
			continue;
		y->name = sc->name;
		y->have = kmt_kcounters_slab_change(kc, sc->name, c->s->nr_cpus,
						    &y->ch);
		y->slab = (int64_t)y->ch.end - (int64_t)y->ch.start;
		if (y->slab)
			nr++;
	}
	*out = x;
	*nr_out = nr;
	return 0;
}

static void recon_cells(union kmt_val *v, const struct recon *x)
{
	v[COL_SLABINFO].s = x->slab;
	v[COL_DIFF].s = x->slab - x->traced;
	v[COL_START].u = x->ch.start;
	v[COL_END].u = x->ch.end;
	v[COL_SLACK].u = x->ch.slack;
	v[COL_VERDICT].str = verdict(x);
	if (!x->have)
		v[COL_ABSENT].u = SLABINFO_COLS;
}

/*
 * What the recording lacks instead of slabinfo at both ends: none, a
 * damaged option, or snapshots that could not read it
 */
static const struct kmt_missing *no_slabinfo(struct caches_ctx *c,
					     struct kmt_report *r)
{
	const struct kmt_kcounters *kc = c->s->kcounters;
	struct kmt_missing *m;
	const char *why = NULL;

	if (kmt_kcounters_have(kc, KMT_CNT_SLABINFO))
		return NULL;
	m = kmt_arena_zalloc(&r->arena, sizeof(*m));
	if (!m) {
		r->oom = 1;
		return NULL;
	}
	m->known = 1;
	m->events_text = "";
	m->record_with = "kmemtrace record, as root";
	if (kc)
		why = kc->at[KMT_CNT_START].why_slabinfo ?
		      kc->at[KMT_CNT_START].why_slabinfo :
		      kc->at[KMT_CNT_END].why_slabinfo;
	if (c->s->kcounters_damaged[0])
		m->what = "usable snapshot of the kernel's counters (its counters option is damaged)";
	else if (kc)
		m->what = kmt_report_printf(r, "slabinfo at both ends (/proc/slabinfo: %s)",
					    why ? why : "not read");
	else
		m->what = "snapshots of /proc/slabinfo";
	return m;
}

static int add_s64(struct kmt_summary *s, const char *label, const char *key,
		   int64_t v, const struct kmt_missing *m)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_VALUE, .label = label, .key = key,
		.type = KMT_V_S64, .v.s = v, .missing = m,
	};

	return kmt_summary_add(s, &it);
}

static int add_note(struct kmt_summary *s, const char *text)
{
	struct kmt_sum_item it = { .kind = KMT_SUM_NOTE, .label = text };

	return kmt_summary_add(s, &it);
}

static const char *grouped(struct kmt_report *r, uint64_t v)
{
	char buf[32];

	return kmt_report_strdup(r, kmt_fmt_thousands(buf, sizeof(buf), v));
}

static const char *signed_grouped(struct kmt_report *r, int64_t v)
{
	return kmt_report_printf(r, "%s%s", v < 0 ? "-" : "+",
				 grouped(r, v < 0 ? (uint64_t)-v : (uint64_t)v));
}

/* the caches whose difference is the largest beyond the slack, in words */
#define RECON_SAID 5

static int say_differences(struct caches_ctx *c, struct kmt_report *r,
			   struct kmt_summary *s, const struct recon *x,
			   size_t nr, size_t traced_rows)
{
	size_t said[RECON_SAID], n = 0, i, k;
	int err = 0;

	for (i = 0; i < nr; i++) {
		if (!x[i].have || !excess(&x[i]))
			continue;
		for (k = n; k > 0; k--) {
			if (excess(&x[said[k - 1]]) > excess(&x[i]) ||
			    (excess(&x[said[k - 1]]) == excess(&x[i]) &&
			     strcmp(x[said[k - 1]].name, x[i].name) < 0))
				break;
			if (k < RECON_SAID)
				said[k] = said[k - 1];
		}
		if (k < RECON_SAID) {
			said[k] = i;
			if (n < RECON_SAID)
				n++;
		}
	}
	for (k = 0; k < n && !err; k++) {
		const struct recon *y = &x[said[k]];
		int64_t d = y->slab - y->traced;
		const char *why;

		if (said[k] >= traced_rows)
			why = !strncmp(y->name, "kmalloc-rcl-", 12) ||
			      !strncmp(y->name, "dma-kmalloc-", 12) ?
			      "no event names it: kmalloc events do not say reclaimable or DMA, and count under kmalloc-N" :
			      "no event names it: allocations and frees no tracepoint reports (bulk), or a cache the recording did not trace";
		else if (d < 0)
			why = y->kmalloc ?
			      "frees no tracepoint reports (bulk or RCU-deferred frees), or kfree of objects allocated before the recording, which name no cache" :
			      "frees no tracepoint reports (bulk or RCU-deferred frees), or frees of objects allocated before the recording";
		else
			why = y->kmalloc ?
			      "allocations no tracepoint reports (bulk), or reclaimable and DMA kmallocs counted here by size (kmalloc-rcl-, dma-kmalloc-)" :
			      "allocations no tracepoint reports (bulk allocations, sheaf refills)";
		err |= add_note(s, kmt_report_printf(r,
			"%s: slabinfo saw %s %s live objects than the tracepoints (traced %s, slabinfo %s; SLUB's per-CPU caching explains up to %s): %s%s%s%s",
			y->name, grouped(r, d < 0 ? (uint64_t)-d : (uint64_t)d),
			d < 0 ? "fewer" : "more", signed_grouped(r, y->traced),
			signed_grouped(r, y->slab), grouped(r, y->ch.slack), why,
			y->overs > 0 ? "; " : "",
			y->overs > 0 ? grouped(r, (uint64_t)y->overs) : "",
			y->overs > 0 ? " allocations reused an address whose free no tracepoint reported" : ""));
	}
	(void)c;
	return err;
}

static const char *const counters_keys[] = {
	"caches_reconciled", "caches_agree", "caches_slabinfo_fewer",
	"caches_slabinfo_more",
};

/* the meminfo and vmallocinfo changes, each where both ends have it */
static int add_totals(struct caches_ctx *c, struct kmt_report *r,
		      struct kmt_summary *s)
{
	static const char *const labels[KMT_MEM_NR][2] = {
		{ "Slab change (meminfo, kB):", "slab_kb" },
		{ "SReclaimable change (kB):", "sreclaimable_kb" },
		{ "SUnreclaim change (kB):", "sunreclaim_kb" },
		{ "Percpu change (kB):", "percpu_kb" },
		{ "VmallocUsed change (kB):", "vmalloc_used_kb" },
	};
	static const struct kmt_missing no_counters = {
		.known = 1, .events_text = "",
		.what = "snapshots of the kernel's counters",
		.record_with = "kmemtrace record",
	};
	const struct kmt_kcounters *kc = c->s->kcounters;
	const struct kmt_kcounters_snap *a = kc ? &kc->at[KMT_CNT_START] : NULL;
	const struct kmt_kcounters_snap *b = kc ? &kc->at[KMT_CNT_END] : NULL;
	const struct kmt_missing *vm = NULL;
	int err = 0, i;

	for (i = 0; i < KMT_MEM_NR; i++) {
		const struct kmt_missing *m = NULL;
		int64_t d = 0;

		if (!kc || !(a->meminfo_have & b->meminfo_have & 1U << i))
			m = &no_counters;
		else
			d = (int64_t)b->meminfo_kb[i] - (int64_t)a->meminfo_kb[i];
		err |= add_s64(s, labels[i][0], labels[i][1], d, m);
	}
	if (!kmt_kcounters_have(kc, KMT_CNT_VMALLOC))
		vm = &no_counters;
	err |= add_s64(s, "vmallocinfo areas change:", "vmalloc_areas",
		       vm ? 0 : (int64_t)b->vm_areas - (int64_t)a->vm_areas, vm);
	err |= add_s64(s, "vmallocinfo bytes change (guard pages too):",
		       "vmalloc_bytes",
		       vm ? 0 : (int64_t)b->vm_bytes - (int64_t)a->vm_bytes, vm);
	(void)r;
	return err;
}

static int caches_finish(void *ctx, struct kmt_report *r)
{
	struct caches_ctx *c = ctx;
	struct kmt_rows *rows = &c->rows;
	const struct kmt_missing *unrec = NULL;
	uint64_t counts[KMT_NCOLS(counters_keys)] = { 0 };
	struct recon *recons = NULL;
	size_t i, k, n = rows->nr, nr_recon = 0, extra = 0;
	struct kmt_cache_row sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	int err = 0;

	t = kmt_report_add_table(r, "caches", "caches",
				 "SLAB CACHES: objects, waste, what is still allocated, and slabinfo's active objects beside",
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
	unrec = no_slabinfo(c, r);
	if (r->oom)
		return -ENOMEM;
	if (!unrec && reconcile(c, r, &recons, &nr_recon))
		return -ENOMEM;
	if (unrec) {
		t->unrecorded = SLABINFO_COLS;
		t->missing = unrec;
	}
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct kmt_cache_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			goto oom;
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
		v[COL_TRACED].s = traced_change(row);
		if (recons)
			recon_cells(v, &recons[i]);
		v[COL_FROM].str = row->kmalloc_size ? "kmalloc size" :
				  row->cache ? "event" : "none";
	}
	/* the caches only slabinfo saw change, the largest change first */
	if (recons && nr_recon > rows->nr) {
		size_t room = c->opts.lines > 0 ? (size_t)c->opts.lines - n : SIZE_MAX;
		struct recon *only = recons + rows->nr;
		size_t nr_only = nr_recon - rows->nr;

		for (i = 0; i < nr_only && extra < room; i++) {
			size_t best = i;
			union kmt_val *v;
			struct recon tmp;

			for (k = i + 1; k < nr_only; k++) {
				uint64_t mk = (uint64_t)llabs(only[k].slab);
				uint64_t mb = (uint64_t)llabs(only[best].slab);

				if (mk > mb || (mk == mb &&
						strcmp(only[k].name, only[best].name) < 0))
					best = k;
			}
			tmp = only[i];
			only[i] = only[best];
			only[best] = tmp;
			v = kmt_table_add_row(t);
			if (!v)
				goto oom;
			v[0].str = only[i].name;
			recon_cells(v, &only[i]);
			v[COL_FROM].str = "slabinfo";
			extra++;
		}
	}
	t->total_rows = nr_recon > rows->nr ? nr_recon : rows->nr;

	s = kmt_report_add_summary(r, "caches", "summary",
				   "SUMMARY (slab caches)");
	if (!s)
		goto oom;
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

	s = kmt_report_add_summary(r, "caches", "counters",
				   "THE KERNEL'S COUNTERS (change from the start to the end of the recording)");
	if (!s)
		goto oom;
	for (i = 0; i < nr_recon; i++) {
		const char *w;

		if (!recons[i].have)
			continue;
		counts[0]++;
		w = verdict(&recons[i]);
		counts[1] += !strcmp(w, "agrees");
		counts[2] += !strcmp(w, "slabinfo_fewer");
		counts[3] += !strcmp(w, "slabinfo_more");
	}
	err |= kmt_summary_u64(s, "Caches set beside slabinfo:", counters_keys[0],
			       counts[0]);
	err |= kmt_summary_u64(s, "Within SLUB's per-CPU caching of free objects:",
			       counters_keys[1], counts[1]);
	err |= kmt_summary_u64(s, "Slabinfo saw fewer live objects than the tracepoints:",
			       counters_keys[2], counts[2]);
	err |= kmt_summary_u64(s, "Slabinfo saw more live objects than the tracepoints:",
			       counters_keys[3], counts[3]);
	kmt_summary_mark_unrecorded(s, counters_keys, KMT_NCOLS(counters_keys),
				    unrec);
	if (recons)
		err |= say_differences(c, r, s, recons, nr_recon, rows->nr);
	err |= add_totals(c, r, s);
	/* none of it recorded: one line of text, the members still in JSON */
	if (!c->s->kcounters && !err) {
		for (i = 0; i < s->nr; i++)
			s->items[i].flags |= KMT_COL_NO_TEXT;
		err |= add_note(s, c->s->kcounters_damaged[0] ?
				"The kernel's counters: not recorded (the recording's counters option is damaged)" :
				"The kernel's counters: not recorded (the recording has no snapshots of /proc/slabinfo, meminfo and vmallocinfo; kmemtrace record takes them)");
	}
	free(recons);
	return err || r->oom ? -ENOMEM : 0;
oom:
	free(recons);
	return -ENOMEM;
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
