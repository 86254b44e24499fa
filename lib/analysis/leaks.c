// SPDX-License-Identifier: GPL-2.0
/*
 * --leaks: what is still allocated at the end of the recording (or of the
 * --time window), slab objects, page blocks, percpu objects and vmalloc
 * areas alike, grouped by callsite
 * and, where the recording has stacks, by stack, with how long it has
 * been alive.  Objects freed in the recording but allocated before it
 * began never enter the live table, so they are not leaks.
 *
 * Nothing is kept per event: the groups are built at the end from the
 * live table (live.h), which holds the allocation time of every object.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/leaks.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/kcounters.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"
#include "util/strbuf.h"

#define LEAKS_DEFAULT_SORT "bytes"

struct leak_key {
	uint64_t callsite;
	uint32_t stack;		/* 0 in the callsite table */
	uint32_t type;		/* the kind's allocation type (views.h): both
				 * slab types are KMT_EV_KMALLOC here */
};

struct leak_row {
	struct leak_key k;
	uint64_t count;
	uint64_t bytes;
	uint64_t min_age;
	uint64_t max_age;
	double sum_age;
	uint32_t cache;		/* of the first object met */
	uint32_t kmalloc_size;	/* the same, for kmalloc objects */
	int accounted;
	uint64_t no_bytes;	/* percpu objects of a size not recorded */
};

/* slab objects outstanding per cache, to set beside slabinfo */
struct cache_key {
	uint32_t cache;
	uint32_t kmalloc_size;
	uint32_t accounted;
};

struct cache_live {
	struct cache_key k;
	uint64_t live;		/* outstanding at the end */
	uint64_t shown;		/* of them in the findings (--older-than) */
};

struct leaks_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_sort_chain sort;
	struct kmt_rows sites;
	struct kmt_rows stacks;
	struct kmt_rows caches;		/* struct cache_live */
	struct kmt_leaks_totals t;
};

static int cmp_bytes(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	return KMT_CMP_DESC(x->bytes, y->bytes);
}

static int cmp_count(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	return KMT_CMP_DESC(x->count, y->count);
}

static int cmp_age(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	return KMT_CMP_DESC(x->max_age, y->max_age);
}

static int cmp_callsite(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	return KMT_CMP_DESC(x->k.callsite, y->k.callsite);
}

static int cmp_identity(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;
	int c;

	if ((c = KMT_CMP_ASC(x->k.type, y->k.type)) ||
	    (c = KMT_CMP_ASC(x->k.callsite, y->k.callsite)))
		return c;
	return KMT_CMP_ASC(x->k.stack, y->k.stack);
}

static const struct kmt_sort_key leaks_sort_keys[] = {
	{ "bytes", cmp_bytes, NULL },
	{ "count", cmp_count, NULL },
	{ "age", cmp_age, NULL },
	{ "callsite", cmp_callsite, NULL },
};

static void *leaks_create(struct kmt_session *s,
			  const struct kmt_report_opts *opts)
{
	struct leaks_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->sites, sizeof(struct leak_row),
		      sizeof(struct leak_key));
	kmt_rows_init(&c->stacks, sizeof(struct leak_row),
		      sizeof(struct leak_key));
	kmt_rows_init(&c->caches, sizeof(struct cache_live),
		      sizeof(struct cache_key));
	kmt_view_sort(&c->sort, opts->sort, LEAKS_DEFAULT_SORT,
		      leaks_sort_keys, KMT_NCOLS(leaks_sort_keys),
		      cmp_identity);
	return c;
}

static void leaks_destroy(void *ctx)
{
	struct leaks_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->sites);
	kmt_rows_free(&c->stacks);
	kmt_rows_free(&c->caches);
	free(c);
}

static int leaks_on_event(void *ctx, const struct kmt_event *ev)
{
	struct leaks_ctx *c = ctx;
	int ret = kmt_live_use_feed(&c->live, ev);

	return ret < 0 ? ret : 0;
}

static int add_to(struct kmt_rows *rows, const struct leak_key *k,
		  const struct kmt_live_obj *o, uint64_t bytes, uint64_t age)
{
	struct leak_row *row;
	int is_new;

	row = kmt_rows_get(rows, k, 1, &is_new);
	if (!row)
		return -ENOMEM;
	if (is_new || age < row->min_age)
		row->min_age = age;
	if (age > row->max_age)
		row->max_age = age;
	if (is_new) {
		/* percpu and vmalloc objects keep sizes there (live.h) */
		row->cache = kmt_ev_is_slab(o->type) ? o->cache : 0;
		row->kmalloc_size = o->type == KMT_EV_KMALLOC ?
				    o->bytes_alloc : 0;
		row->accounted = !!(o->flags & KMT_LIVE_ACCOUNTED);
	}
	row->count++;
	row->bytes += bytes;
	row->no_bytes += !!(o->flags & KMT_LIVE_NO_BYTES);
	row->sum_age += (double)age;
	return 0;
}

/* where each kind's totals go: count, bytes, and those of the shown */
static void kind_totals(struct kmt_leaks_totals *t, enum kmt_view_kind_id k,
			uint64_t *out[4])
{
	switch (k) {
	case KMT_KIND_PAGE:
		out[0] = &t->pages, out[1] = &t->page_bytes;
		out[2] = &t->shown_pages, out[3] = &t->shown_page_bytes;
		break;
	case KMT_KIND_PERCPU:
		out[0] = &t->percpu, out[1] = &t->percpu_bytes;
		out[2] = &t->shown_percpu, out[3] = &t->shown_percpu_bytes;
		break;
	case KMT_KIND_VMALLOC:
		out[0] = &t->vmaps, out[1] = &t->vmalloc_bytes;
		out[2] = &t->shown_vmaps, out[3] = &t->shown_vmalloc_bytes;
		break;
	default:
		out[0] = &t->objects, out[1] = &t->slab_bytes;
		out[2] = &t->shown_objects, out[3] = &t->shown_slab_bytes;
		break;
	}
}

/*
 * One slab object outstanding in its cache's count, when there is
 * slabinfo to set the counts beside.  0 or -ENOMEM.
 */
static int count_cache(struct leaks_ctx *c, const struct kmt_live_obj *o,
		       int shown)
{
	struct cache_live *cl;
	struct cache_key k;
	int is_new;

	if (!kmt_kcounters_have(c->s->kcounters, KMT_CNT_SLABINFO))
		return 0;
	memset(&k, 0, sizeof(k));
	k.cache = o->cache;
	if (o->type == KMT_EV_KMALLOC) {
		k.kmalloc_size = o->bytes_alloc;
		k.accounted = !!(o->flags & KMT_LIVE_ACCOUNTED);
	}
	cl = kmt_rows_get(&c->caches, &k, 1, &is_new);
	if (!cl)
		return -ENOMEM;
	cl->live++;
	cl->shown += !!shown;
	return 0;
}

static int collect(struct leaks_ctx *c, const struct kmt_live_objs *h,
		   enum kmt_view_kind_id kind, uint64_t end)
{
	struct kmt_live *l = c->live.l;
	struct kmt_live_obj *o;
	uint64_t *tot[4];
	size_t it = 0;

	kind_totals(&c->t, kind, tot);
	while (kmt_live_objs_next(h, &it, NULL, &o)) {
		uint64_t bytes = kmt_live_obj_bytes(l, o);
		uint64_t age = end > o->ts ? end - o->ts : 0;
		struct leak_key k;

		if (!(o->flags & KMT_LIVE_PASS))
			continue;
		(*tot[0])++;
		*tot[1] += bytes;
		if (o->flags & KMT_LIVE_NO_BYTES)
			c->t.percpu_no_bytes++;
		if (kind == KMT_KIND_SLAB &&
		    count_cache(c, o, age >= c->opts.older_than))
			return -ENOMEM;
		if (age < c->opts.older_than)
			continue;
		(*tot[2])++;
		*tot[3] += bytes;
		memset(&k, 0, sizeof(k));
		k.callsite = o->callsite;
		k.type = kmt_view_kinds[kind].alloc;
		if (add_to(&c->sites, &k, o, bytes, age))
			return -ENOMEM;
		if (!o->stack)
			continue;
		c->t.with_stack++;
		k.stack = o->stack;
		if (add_to(&c->stacks, &k, o, bytes, age))
			return -ENOMEM;
	}
	return 0;
}

static const struct kmt_col leak_cols[] = {
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "count", "Count", KMT_V_U64, 0 },
	{ "bytes", "Bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "min_age_ns", "Min age", KMT_V_DURATION, 0 },
	{ "avg_age_ns", "Avg age", KMT_V_DURATION, 0 },
	{ "max_age_ns", "Max age", KMT_V_DURATION, 0 },
	{ "cache", "Cache", KMT_V_STR, KMT_COL_LEFT },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
	/* bytes: of percpu objects whose kernel did not say */
	{ "absent", "", KMT_V_U64, KMT_COL_ABSENT },
	{ "stack", "Stack", KMT_V_STR, KMT_COL_LEFT },
};

#define COL_BYTES	2
#define COL_ABSENT	9
#define COL_STACK	10

/* the summary's lines of each kind, by enum kmt_view_kind_id */
static const char *const kind_keys[KMT_NR_KINDS][4] = {
	{ "slab_objects", "slab_bytes", "older_slab_objects",
	  "older_slab_bytes" },
	{ "page_blocks", "page_bytes", "older_page_blocks",
	  "older_page_bytes" },
	{ "percpu_objects", "percpu_bytes", "older_percpu_objects",
	  "older_percpu_bytes" },
	{ "vmalloc_areas", "vmalloc_bytes", "older_vmalloc_areas",
	  "older_vmalloc_bytes" },
};

/* and their labels in text */
static const char *const kind_labels[KMT_NR_KINDS][4] = {
	{ "Slab objects outstanding:", "Slab bytes outstanding:",
	  "Slab objects that old:", "Slab bytes that old:" },
	{ "Page blocks outstanding:", "Page bytes outstanding:",
	  "Page blocks that old:", "Page bytes that old:" },
	{ "Percpu objects outstanding:",
	  "Percpu bytes outstanding (all CPUs' copies):",
	  "Percpu objects that old:", "Percpu bytes that old:" },
	{ "Vmalloc areas outstanding:",
	  "Vmalloc bytes outstanding (with guard pages):",
	  "Vmalloc areas that old:", "Vmalloc bytes that old:" },
};

/* percpu allocations of kernels before 6.0 say the size for one CPU only */
static const struct kmt_missing percpu_no_bytes = {
	.known = 1,
	.what = "size of all CPUs' copies in its percpu events (kernels "
		"before 6.0 give one CPU's)",
};

/*
 * unrec: the kinds not recorded, whose rows a reader would take for no
 * leak at all without a word under the table
 */
static int add_table(struct leaks_ctx *c, struct kmt_report *r,
		     struct kmt_rows *rows, const char *key,
		     const char *title, int with_stack,
		     const struct kmt_missing *const unrec[KMT_NR_KINDS])
{
	size_t i, n = rows->nr;
	struct kmt_table *t;

	t = kmt_report_add_table(r, "leaks", key, title, leak_cols,
				 KMT_NCOLS(leak_cols) - !with_stack,
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &c->sort);
	kmt_hash_u32_clear(&rows->index);	/* the sort moved the rows */
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct leak_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].str = kmt_view_kind(row->k.type);
		v[1].u = row->count;
		v[2].u = row->bytes;
		v[3].u = row->min_age;
		v[4].u = (uint64_t)(row->sum_age / (double)row->count + 0.5);
		v[5].u = row->max_age;
		if (row->cache)
			v[6].str = kmt_strtab_get(&c->s->strs, row->cache);
		else if (row->kmalloc_size)
			v[6].str = kmt_view_kmalloc_cache(r, row->kmalloc_size,
							  row->accounted,
							  c->s->page_size);
		else
			v[6].str = "";
		v[7].str = kmt_analysis_sym(c->s, r, row->k.callsite,
					    c->opts.raw_ip);
		v[8].u = kmt_view_addr(row->k.callsite);
		if (row->no_bytes)
			v[COL_ABSENT].u = 1ULL << COL_BYTES;
		if (with_stack) {
			v[COL_STACK].str = kmt_view_stack(c->s, r,
							  row->k.stack,
							  row->k.callsite,
							  c->opts.raw_ip);
			/* out of memory for the stack: no table, not a stub */
			if (!v[COL_STACK].str)
				return -ENOMEM;
		}
	}
	t->total_rows = rows->nr;
	return kmt_view_mark_kind_rows(t, unrec);
}

static const struct kmt_col uncertain_cols[] = {
	{ "cache", "Cache", KMT_V_STR, KMT_COL_LEFT },
	{ "outstanding", "Outstanding", KMT_V_U64, 0 },
	{ "in_findings", "In findings", KMT_V_U64, 0 },
	{ "slabinfo_change", "Slabinfo chg", KMT_V_S64, 0 },
	{ "percpu_slack", "Slack", KMT_V_U64, 0 },
};

static int cmp_cache_live(const void *a, const void *b)
{
	const struct cache_live *x = a, *y = b;
	int ret = KMT_CMP_DESC(x->live, y->live);

	if (ret)
		return ret;
	if ((ret = KMT_CMP_ASC(x->k.cache, y->k.cache)))
		return ret;
	if ((ret = KMT_CMP_ASC(x->k.kmalloc_size, y->k.kmalloc_size)))
		return ret;
	return KMT_CMP_ASC(x->k.accounted, y->k.accounted);
}

/*
 * Caches the findings name whose active objects by slabinfo grew far
 * less than the objects the tracepoints hold outstanding there: frees
 * no tracepoint reports (bulk, RCU-deferred) may have freed what the
 * findings list, so they are uncertain.  Far less: slabinfo's change,
 * with all SLUB's per-CPU caching could hide, under half of them.  A
 * line each in the summary's text, a table for the other formats.
 */
static int say_uncertain(struct leaks_ctx *c, struct kmt_report *r,
			 struct kmt_summary *s)
{
	const struct kmt_kcounters *kc = c->s->kcounters;
	struct kmt_rows *rows = &c->caches;
	struct kmt_table *t;
	char n1[32], n2[32], n3[32];
	size_t i;
	int err = 0;

	if (!kmt_kcounters_have(kc, KMT_CNT_SLABINFO))
		return 0;
	t = kmt_report_add_table(r, "leaks", "uncertain",
				 "LEAKS: caches where the kernel's counters doubt the findings",
				 uncertain_cols, KMT_NCOLS(uncertain_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	kmt_report_last(r)->flags |= KMT_SEC_NO_TEXT;
	qsort(rows->rows, rows->nr, rows->row_size, cmp_cache_live);
	kmt_hash_u32_clear(&rows->index);
	for (i = 0; i < rows->nr && !err; i++) {
		const struct cache_live *cl = kmt_rows_at(rows, i);
		struct kmt_slab_change ch;
		const char *name;
		int64_t grew;
		union kmt_val *v;

		if (!cl->shown)
			continue;
		if (cl->k.kmalloc_size)
			name = kmt_view_kmalloc_cache(r, cl->k.kmalloc_size,
						      cl->k.accounted,
						      c->s->page_size);
		else
			name = kmt_strtab_get(&c->s->strs, cl->k.cache);
		if (!name || !strcmp(name, "kmalloc-large") ||
		    !kmt_kcounters_slab_change(kc, name, c->s->nr_cpus, &ch))
			continue;
		grew = (int64_t)ch.end - (int64_t)ch.start;
		if (grew + (int64_t)ch.slack >= (int64_t)(cl->live / 2))
			continue;
		v = kmt_table_add_row(t);
		if (!v)
			return -ENOMEM;
		v[0].str = name;
		v[1].u = cl->live;
		v[2].u = cl->shown;
		v[3].s = grew;
		v[4].u = ch.slack;
		kmt_fmt_thousands(n1, sizeof(n1), cl->live);
		kmt_fmt_thousands(n2, sizeof(n2), grew < 0 ? (uint64_t)-grew :
							     (uint64_t)grew);
		kmt_fmt_thousands(n3, sizeof(n3), ch.slack);
		{
			struct kmt_sum_item it = {
				.kind = KMT_SUM_NOTE,
				.label = kmt_report_printf(r,
					"Uncertain: %s: the tracepoints leave %s objects outstanding, but slabinfo's active %s objects %s by %s (SLUB's per-CPU caching explains up to %s): frees no tracepoint reports (bulk or RCU-deferred frees) may have freed what the findings in %s list",
					name, n1, name, grew < 0 ? "fell" : "grew",
					n2, n3, name),
			};

			err |= kmt_summary_add(s, &it);
		}
	}
	t->total_rows = t->nrows;
	return err || r->oom ? -ENOMEM : 0;
}

static int leaks_finish(void *ctx, struct kmt_report *r)
{
	static const size_t live_of[KMT_NR_KINDS] = {
		[KMT_KIND_SLAB] = offsetof(struct kmt_live, slab),
		[KMT_KIND_PAGE] = offsetof(struct kmt_live, page),
		[KMT_KIND_PERCPU] = offsetof(struct kmt_live, percpu),
		[KMT_KIND_VMALLOC] = offsetof(struct kmt_live, vmalloc),
	};
	struct leaks_ctx *c = ctx;
	struct kmt_live *l = c->live.l;
	const struct kmt_leaks_totals *t = &c->t;
	const struct kmt_missing *unrec[KMT_NR_KINDS];
	struct kmt_summary *s;
	int shown[KMT_NR_KINDS];
	uint64_t *tot[4];
	size_t k, j;
	int err = 0;

	memset(&c->t, 0, sizeof(c->t));
	c->t.end_ts = kmt_live_end_ts(l);
	for (k = 0; k < KMT_NR_KINDS; k++) {
		const struct kmt_live_objs *h = (const void *)
						((char *)l + live_of[k]);

		if (collect(c, h, (enum kmt_view_kind_id)k, t->end_ts))
			return -ENOMEM;
		shown[k] = kmt_view_kind_shown(c->s, (enum kmt_view_kind_id)k);
	}
	if (kmt_view_kinds_unrecorded(c->s, r, unrec))
		return -ENOMEM;

	if (add_table(c, r, &c->sites, "callsites",
		      "LEAKS: still allocated at the end, by callsite", 0,
		      unrec))
		return -ENOMEM;
	if (t->with_stack &&
	    add_table(c, r, &c->stacks, "stacks",
		      "LEAKS: still allocated at the end, by stack", 1, unrec))
		return -ENOMEM;

	s = kmt_report_add_summary(r, "leaks", "summary",
				   "SUMMARY (still allocated at the end)");
	if (!s)
		return -ENOMEM;
	{
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE, .label = "End of the recording:",
			.key = "end_ts_ns", .type = KMT_V_TIME, .v.u = t->end_ts,
		};

		err |= kmt_summary_add(s, &it);
	}
	for (k = 0; k < KMT_NR_KINDS; k++) {
		kind_totals(&c->t, (enum kmt_view_kind_id)k, tot);
		for (j = 0; shown[k] && j < 2; j++)
			err |= kmt_summary_u64(s, kind_labels[k][j],
					       kind_keys[k][j], *tot[j]);
	}
	if (c->opts.older_than) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE, .label = "Shown: alive at least",
			.key = "older_than_ns", .type = KMT_V_DURATION,
			.v.u = c->opts.older_than,
		};

		err |= kmt_summary_add(s, &it);
		for (k = 0; k < KMT_NR_KINDS; k++) {
			kind_totals(&c->t, (enum kmt_view_kind_id)k, tot);
			for (j = 2; shown[k] && j < 4; j++)
				err |= kmt_summary_u64(s, kind_labels[k][j],
						       kind_keys[k][j],
						       *tot[j]);
		}
	}
	for (k = 0; k < KMT_NR_KINDS; k++)
		kmt_summary_mark_unrecorded(s, kind_keys[k],
					    KMT_NCOLS(kind_keys[k]), unrec[k]);
	if (t->percpu_no_bytes && !unrec[KMT_KIND_PERCPU]) {
		kmt_summary_mark_unrecorded(s, &kind_keys[KMT_KIND_PERCPU][1],
					    1, &percpu_no_bytes);
		kmt_summary_mark_unrecorded(s, &kind_keys[KMT_KIND_PERCPU][3],
					    1, &percpu_no_bytes);
	}
	if (!err)
		err = say_uncertain(c, r, s);
	return err ? -ENOMEM : 0;
}

void kmt_leaks_get_totals(const void *ctx, struct kmt_leaks_totals *out)
{
	const struct leaks_ctx *c = ctx;

	*out = c->t;
}

const struct kmt_analysis_ops kmt_analysis_leaks = {
	.name = "leaks",
	.needs = KMT_EV_SLAB_BITS | KMT_EV_PAGE_BITS | KMT_EV_PERCPU_BITS |
		 KMT_EV_VMALLOC_BITS,
	.create = leaks_create,
	.on_event = leaks_on_event,
	.finish = leaks_finish,
	.destroy = leaks_destroy,
	.sort_keys = leaks_sort_keys,
	.nr_sort_keys = KMT_NCOLS(leaks_sort_keys),
	.default_sort = LEAKS_DEFAULT_SORT,
};
