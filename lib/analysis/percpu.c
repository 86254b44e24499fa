// SPDX-License-Identifier: GPL-2.0
/*
 * --percpu: the percpu allocator (alloc_percpu and friends, not the page
 * allocator's per-CPU lists of --pcpu) per callsite: allocations, the
 * size asked for one CPU and what all CPUs' copies take, frees, what is
 * live at the end.  percpu_alloc_percpu_fail names no caller on any
 * kernel: failures are counted by size.  Kernels before 6.0 give neither
 * call_site nor the size of all copies: the callsite is then found in
 * the stack (with -g) and those bytes are not recorded, never 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"

#define PERCPU_DEFAULT_SORT "bytes"

struct percpu_row {
	uint64_t callsite;	/* the key */
	uint64_t allocs;
	uint64_t size;		/* bytes asked for one CPU */
	uint64_t bytes;		/* all CPUs' copies */
	uint64_t no_bytes;	/* allocations that did not say bytes */
	uint64_t frees;		/* of objects allocated here */
	int64_t live;
	int64_t live_bytes;
};

struct fail_row {
	uint64_t size;		/* the key */
	uint64_t count;
};

struct percpu_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_sort_chain sort;
	struct kmt_rows rows;		/* struct percpu_row by callsite */
	struct kmt_rows fails;		/* struct fail_row by size */
	uint64_t alloc_over, free_unknown, free_null, failed, chunks_new, chunks_del;
};

static int cmp_bytes(const void *a, const void *b)
{
	const struct percpu_row *x = a, *y = b;

	return KMT_CMP_DESC(x->bytes, y->bytes);
}

static int cmp_allocs(const void *a, const void *b)
{
	const struct percpu_row *x = a, *y = b;

	return KMT_CMP_DESC(x->allocs, y->allocs);
}

static int cmp_live(const void *a, const void *b)
{
	const struct percpu_row *x = a, *y = b;

	return KMT_CMP_DESC(x->live, y->live);
}

static int cmp_size(const void *a, const void *b)
{
	const struct percpu_row *x = a, *y = b;

	return KMT_CMP_DESC(x->size, y->size);
}

static int cmp_key(const void *a, const void *b)
{
	const struct percpu_row *x = a, *y = b;

	return KMT_CMP_ASC(x->callsite, y->callsite);
}

static int cmp_fail(const void *a, const void *b)
{
	const struct fail_row *x = a, *y = b;

	return KMT_CMP_ASC(x->size, y->size);
}

static const struct kmt_sort_key percpu_sort_keys[] = {
	{ "bytes", cmp_bytes, NULL },
	{ "allocs", cmp_allocs, NULL },
	{ "live", cmp_live, NULL },
	{ "size", cmp_size, NULL },
};

static void *percpu_create(struct kmt_session *s,
			   const struct kmt_report_opts *opts)
{
	struct percpu_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct percpu_row), sizeof(uint64_t));
	kmt_rows_init(&c->fails, sizeof(struct fail_row), sizeof(uint64_t));
	kmt_view_sort(&c->sort, opts->sort, PERCPU_DEFAULT_SORT,
		      percpu_sort_keys, KMT_NCOLS(percpu_sort_keys), cmp_key);
	return c;
}

static void percpu_destroy(void *ctx)
{
	struct percpu_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->rows);
	kmt_rows_free(&c->fails);
	free(c);
}

static struct percpu_row *row_of(struct percpu_ctx *c, uint64_t callsite)
{
	return kmt_rows_get(&c->rows, &callsite, 1, NULL);
}

static int percpu_on_event(void *ctx, const struct kmt_event *ev)
{
	struct percpu_ctx *c = ctx;
	const struct kmt_live_step *st;
	struct percpu_row *row;
	struct fail_row *f;
	int ret;

	if (!kmt_ev_is_percpu(ev->type) && kmt_live_use_owned(&c->live))
		return 0;
	ret = kmt_live_use_feed(&c->live, ev);
	if (ret <= 0 || !kmt_ev_is_percpu(ev->type))
		return ret < 0 ? ret : 0;
	st = &c->live.l->step;
	switch (ev->type) {
	case KMT_EV_PERCPU_ALLOC:
		if (st->what == KMT_LIVE_ALLOC_OVER) {
			c->alloc_over++;
			row = row_of(c, st->prev.callsite);
			if (!row)
				return -ENOMEM;
			row->live--;
			row->live_bytes -= (int64_t)st->prev.bytes_alloc;
		}
		row = row_of(c, st->callsite);
		if (!row)
			return -ENOMEM;
		row->allocs++;
		row->size += ev->bytes_req;
		row->bytes += ev->bytes_alloc;
		row->no_bytes += !ev->bytes_alloc;
		if (st->what == KMT_LIVE_ALLOC_FAILED)
			break;
		row->live++;
		row->live_bytes += (int64_t)ev->bytes_alloc;
		break;
	case KMT_EV_PERCPU_FREE:
		if (st->what == KMT_LIVE_FREE_NULL) {
			c->free_null++;
		} else if (st->what != KMT_LIVE_FREE) {
			c->free_unknown++;
		} else {
			row = row_of(c, st->prev.callsite);
			if (!row)
				return -ENOMEM;
			row->frees++;
			row->live--;
			row->live_bytes -= (int64_t)st->bytes;
		}
		break;
	case KMT_EV_PERCPU_FAIL:
		c->failed++;
		f = kmt_rows_get(&c->fails, &ev->bytes_req, 1, NULL);
		if (!f)
			return -ENOMEM;
		f->count++;
		break;
	case KMT_EV_PERCPU_CHUNK_NEW:
		c->chunks_new++;
		break;
	case KMT_EV_PERCPU_CHUNK_DEL:
		c->chunks_del++;
		break;
	default:
		break;
	}
	return 0;
}

static const struct kmt_col percpu_cols[] = {
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "allocs", "Allocs", KMT_V_U64, 0 },
	{ "size", "Bytes/CPU", KMT_V_U64, KMT_COL_GROUPED },
	{ "bytes", "Bytes (all CPUs)", KMT_V_U64, KMT_COL_GROUPED },
	{ "frees", "Frees", KMT_V_U64, 0 },
	{ "live_objects", "Live", KMT_V_S64, 0 },
	{ "live_bytes", "Live bytes", KMT_V_S64, KMT_COL_GROUPED },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
	{ "absent", "", KMT_V_U64, KMT_COL_ABSENT },
};

static const struct kmt_col fail_cols[] = {
	{ "size", "Size", KMT_V_U64, KMT_COL_GROUPED },
	{ "failures", "Failures", KMT_V_U64, 0 },
};

static const char *const fail_legend[] = {
	" percpu_alloc_percpu_fail names no caller on any kernel: by size",
};

/* kernels before 6.0 say the size for one CPU only */
static const struct kmt_missing no_bytes = {
	.known = 1,
	.what = "size of all CPUs' copies in its percpu events (kernels "
		"before 6.0 give one CPU's)",
};

static int percpu_finish(void *ctx, struct kmt_report *r)
{
	struct percpu_ctx *c = ctx;
	struct kmt_rows *rows = &c->rows;
	struct percpu_row sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i, n = rows->nr;
	int err = 0;

	t = kmt_report_add_table(r, "percpu", "callsites",
				 "PERCPU ALLOCATOR: by callsite, with what is live at the end",
				 percpu_cols, KMT_NCOLS(percpu_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < n; i++) {
		const struct percpu_row *row = kmt_rows_at(rows, i);

		sum.allocs += row->allocs;
		sum.bytes += row->bytes;
		sum.no_bytes += row->no_bytes;
		sum.frees += row->frees;
		sum.live += row->live;
		sum.live_bytes += row->live_bytes;
	}
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &c->sort);
	kmt_hash_u32_clear(&rows->index);	/* the sort moved the rows */
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct percpu_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].str = row->callsite ?
			   kmt_analysis_sym(c->s, r, row->callsite,
					    c->opts.raw_ip) :
			   "(not recorded: no call_site, no stack)";
		v[1].u = row->allocs;
		v[2].u = row->size;
		v[3].u = row->bytes;
		v[4].u = row->frees;
		v[5].s = row->live;
		v[6].s = row->live_bytes;
		v[7].u = kmt_view_addr(row->callsite);
		if (row->no_bytes)
			v[8].u = 1ULL << 3 | 1ULL << 6;
	}
	t->total_rows = rows->nr;

	if (c->fails.nr) {
		t = kmt_report_add_table(r, "percpu", "failures",
					 "PERCPU ALLOCATOR: failures by size",
					 fail_cols, KMT_NCOLS(fail_cols),
					 KMT_TABLE_PLAIN);
		if (!t)
			return -ENOMEM;
		t->legend = fail_legend;
		t->nr_legend = KMT_NCOLS(fail_legend);
		kmt_sort_rows(c->fails.rows, c->fails.nr, c->fails.row_size,
			      &(struct kmt_sort_chain){ .tiebreak = cmp_fail });
		kmt_hash_u32_clear(&c->fails.index);
		for (i = 0; i < c->fails.nr; i++) {
			const struct fail_row *f = kmt_rows_at(&c->fails, i);
			union kmt_val *v = kmt_table_add_row(t);

			if (!v)
				return -ENOMEM;
			v[0].u = f->size;
			v[1].u = f->count;
		}
		t->total_rows = c->fails.nr;
	}

	s = kmt_report_add_summary(r, "percpu", "summary",
				   "SUMMARY (percpu allocator)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, "Callsites:", "callsites", rows->nr);
	err |= kmt_summary_u64(s, "Allocations:", "allocs", sum.allocs);
	err |= kmt_summary_u64(s, "Bytes allocated (all CPUs' copies):",
			       "bytes", sum.bytes);
	err |= kmt_summary_u64(s, "Frees matched:", "frees", sum.frees);
	err |= kmt_summary_u64(s, "Allocated where an object was live (its free not recorded):",
			       "alloc_over", c->alloc_over);
	err |= kmt_summary_u64(s, "Frees of objects not seen allocated:",
			       "free_unknown", c->free_unknown);
	err |= kmt_summary_u64(s, "Objects live at the end:", "live_objects",
			       (uint64_t)sum.live);
	err |= kmt_summary_u64(s, "Bytes live at the end (all CPUs' copies):",
			       "live_bytes", (uint64_t)sum.live_bytes);
	err |= kmt_summary_u64(s, "Failures (no caller recorded on any kernel):",
			       "failures", c->failed);
	err |= kmt_summary_u64(s, "Chunks created:", "chunks_created",
			       c->chunks_new);
	err |= kmt_summary_u64(s, "Chunks destroyed:", "chunks_destroyed",
			       c->chunks_del);
	if (sum.no_bytes) {
		static const char *const keys[] = { "bytes", "live_bytes" };

		kmt_summary_mark_unrecorded(s, keys, 2, &no_bytes);
	}
	return err ? -ENOMEM : 0;
}

const struct kmt_analysis_ops kmt_analysis_percpu = {
	.name = "percpu",
	.needs = KMT_EV_PERCPU_BITS,
	.create = percpu_create,
	.on_event = percpu_on_event,
	.finish = percpu_finish,
	.destroy = percpu_destroy,
	.sort_keys = percpu_sort_keys,
	.nr_sort_keys = KMT_NCOLS(percpu_sort_keys),
	.default_sort = PERCPU_DEFAULT_SORT,
};
