// SPDX-License-Identifier: GPL-2.0
/*
 * --vmalloc: vmalloc's address space per caller.  alloc_vmap_area names
 * no caller on any kernel: the caller is the first frame of the stack
 * outside vmalloc's own functions (callsite.h: __bpf_map_area_alloc,
 * copy_process for thread stacks, ...), so a recording without stacks
 * (record without -g) has one row, and says the caller is not recorded.
 * Sizes include the guard page, as the tracepoint gives them.  Lazy
 * frees are purged in batches: purge_vmap_area_lazy is a summary.
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

#define VMALLOC_DEFAULT_SORT "bytes"
#define NO_STACK "(no stack: record with -g)"

struct vmalloc_row {
	uint64_t callsite;	/* the key; 0 without a stack */
	uint64_t allocs;
	uint64_t bytes;
	uint64_t frees;		/* of areas allocated here */
	uint64_t freed_bytes;
	uint64_t failed;
	int64_t live;
	int64_t live_bytes;
};

struct vmalloc_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_sort_chain sort;
	struct kmt_rows rows;		/* struct vmalloc_row by callsite */
	uint64_t with_stack, without_stack;
	uint64_t alloc_over, free_unknown, purges, purged_areas, purged_bytes;
};

static int cmp_bytes(const void *a, const void *b)
{
	const struct vmalloc_row *x = a, *y = b;

	return KMT_CMP_DESC(x->bytes, y->bytes);
}

static int cmp_allocs(const void *a, const void *b)
{
	const struct vmalloc_row *x = a, *y = b;

	return KMT_CMP_DESC(x->allocs, y->allocs);
}

static int cmp_live(const void *a, const void *b)
{
	const struct vmalloc_row *x = a, *y = b;

	return KMT_CMP_DESC(x->live_bytes, y->live_bytes);
}

static int cmp_failed(const void *a, const void *b)
{
	const struct vmalloc_row *x = a, *y = b;

	return KMT_CMP_DESC(x->failed, y->failed);
}

static int cmp_key(const void *a, const void *b)
{
	const struct vmalloc_row *x = a, *y = b;

	return KMT_CMP_ASC(x->callsite, y->callsite);
}

static const struct kmt_sort_key vmalloc_sort_keys[] = {
	{ "bytes", cmp_bytes, NULL },
	{ "allocs", cmp_allocs, NULL },
	{ "live", cmp_live, NULL },
	{ "failed", cmp_failed, NULL },
};

static void *vmalloc_create(struct kmt_session *s,
			    const struct kmt_report_opts *opts)
{
	struct vmalloc_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct vmalloc_row), sizeof(uint64_t));
	kmt_view_sort(&c->sort, opts->sort, VMALLOC_DEFAULT_SORT,
		      vmalloc_sort_keys, KMT_NCOLS(vmalloc_sort_keys),
		      cmp_key);
	return c;
}

static void vmalloc_destroy(void *ctx)
{
	struct vmalloc_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->rows);
	free(c);
}

static struct vmalloc_row *row_of(struct vmalloc_ctx *c, uint64_t callsite)
{
	return kmt_rows_get(&c->rows, &callsite, 1, NULL);
}

static int vmalloc_on_event(void *ctx, const struct kmt_event *ev)
{
	struct vmalloc_ctx *c = ctx;
	const struct kmt_live_step *st;
	struct vmalloc_row *row;
	int ret;

	if (!kmt_ev_is_vmalloc(ev->type) && kmt_live_use_owned(&c->live))
		return 0;
	ret = kmt_live_use_feed(&c->live, ev);
	if (ret <= 0 || !kmt_ev_is_vmalloc(ev->type))
		return ret < 0 ? ret : 0;
	st = &c->live.l->step;
	switch (ev->type) {
	case KMT_EV_VMAP_ALLOC:
		if (st->what == KMT_LIVE_ALLOC_OVER) {
			c->alloc_over++;
			row = row_of(c, st->prev.callsite);
			if (!row)
				return -ENOMEM;
			row->live--;
			row->live_bytes -= (int64_t)kmt_live_obj_bytes(
						c->live.l, &st->prev);
		}
		if (ev->stack)
			c->with_stack++;
		else
			c->without_stack++;
		row = row_of(c, st->callsite);
		if (!row)
			return -ENOMEM;
		row->allocs++;
		if (st->what == KMT_LIVE_ALLOC_FAILED) {
			row->failed++;
			break;
		}
		row->bytes += ev->bytes_alloc;
		row->live++;
		row->live_bytes += (int64_t)ev->bytes_alloc;
		break;
	case KMT_EV_VMAP_FREE:
		if (st->what != KMT_LIVE_FREE) {
			c->free_unknown++;
			break;
		}
		row = row_of(c, st->prev.callsite);
		if (!row)
			return -ENOMEM;
		row->frees++;
		row->freed_bytes += st->bytes;
		row->live--;
		row->live_bytes -= (int64_t)st->bytes;
		break;
	case KMT_EV_VMAP_PURGE:
		c->purges++;
		c->purged_areas += ev->bytes_req;
		c->purged_bytes += ev->bytes_alloc;
		break;
	default:
		break;
	}
	return 0;
}

static const struct kmt_col vmalloc_cols[] = {
	{ "caller", "Caller", KMT_V_STR, KMT_COL_LEFT },
	{ "allocs", "Allocs", KMT_V_U64, 0 },
	{ "bytes", "Bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "frees", "Frees", KMT_V_U64, 0 },
	{ "freed_bytes", "Freed bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "live_areas", "Live", KMT_V_S64, 0 },
	{ "live_bytes", "Live bytes", KMT_V_S64, KMT_COL_GROUPED },
	{ "failed", "Failed", KMT_V_U64, 0 },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
};

/* a recording without stacks: who allocated is not in it */
static const struct kmt_missing no_stacks = {
	.known = 1,
	.what = "stacks (record with -g): alloc_vmap_area names no caller",
};

static int vmalloc_finish(void *ctx, struct kmt_report *r)
{
	struct vmalloc_ctx *c = ctx;
	struct kmt_rows *rows = &c->rows;
	struct vmalloc_row sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i, n = rows->nr, callers = 0;
	int err = 0;

	t = kmt_report_add_table(r, "vmalloc", "callers",
				 "VMALLOC: by caller (the first frame outside vmalloc), with what is live at the end",
				 vmalloc_cols, KMT_NCOLS(vmalloc_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < n; i++) {
		const struct vmalloc_row *row = kmt_rows_at(rows, i);

		callers += !!row->callsite;
		sum.allocs += row->allocs;
		sum.bytes += row->bytes;
		sum.frees += row->frees;
		sum.freed_bytes += row->freed_bytes;
		sum.failed += row->failed;
		sum.live += row->live;
		sum.live_bytes += row->live_bytes;
	}
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &c->sort);
	kmt_hash_u32_clear(&rows->index);	/* the sort moved the rows */
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct vmalloc_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].str = row->callsite ?
			   kmt_analysis_sym(c->s, r, row->callsite,
					    c->opts.raw_ip) : NO_STACK;
		v[1].u = row->allocs;
		v[2].u = row->bytes;
		v[3].u = row->frees;
		v[4].u = row->freed_bytes;
		v[5].s = row->live;
		v[6].s = row->live_bytes;
		v[7].u = row->failed;
		v[8].u = kmt_view_addr(row->callsite);
	}
	t->total_rows = rows->nr;

	s = kmt_report_add_summary(r, "vmalloc", "summary",
				   "SUMMARY (vmalloc)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, "Callers found in the stacks:", "callers",
			       callers);
	err |= kmt_summary_u64(s, "Areas allocated:", "allocs",
			       sum.allocs - sum.failed);
	err |= kmt_summary_u64(s, "Bytes allocated (with guard pages):",
			       "bytes", sum.bytes);
	err |= kmt_summary_u64(s, "Frees matched:", "frees", sum.frees);
	err |= kmt_summary_u64(s, "Allocated where an area was live (its free not recorded):",
			       "alloc_over", c->alloc_over);
	err |= kmt_summary_u64(s, "Frees of areas not seen allocated:",
			       "free_unknown", c->free_unknown);
	err |= kmt_summary_u64(s, "Areas live at the end:", "live_areas",
			       (uint64_t)sum.live);
	err |= kmt_summary_u64(s, "Bytes live at the end:", "live_bytes",
			       (uint64_t)sum.live_bytes);
	err |= kmt_summary_u64(s, "Failed allocations:", "failed", sum.failed);
	err |= kmt_summary_u64(s, "Lazy purges:", "purges", c->purges);
	err |= kmt_summary_u64(s, "Areas purged:", "purged_areas",
			       c->purged_areas);
	err |= kmt_summary_u64(s, "Address space purged (bytes):",
			       "purged_bytes", c->purged_bytes);
	if (!c->with_stack && c->without_stack) {
		static const char *const keys[] = { "callers" };

		kmt_summary_mark_unrecorded(s, keys, 1, &no_stacks);
	}
	return err ? -ENOMEM : 0;
}

const struct kmt_analysis_ops kmt_analysis_vmalloc = {
	.name = "vmalloc",
	.needs = KMT_EV_VMALLOC_BITS,
	.create = vmalloc_create,
	.on_event = vmalloc_on_event,
	.finish = vmalloc_finish,
	.destroy = vmalloc_destroy,
	.sort_keys = vmalloc_sort_keys,
	.nr_sort_keys = KMT_NCOLS(vmalloc_sort_keys),
	.default_sort = VMALLOC_DEFAULT_SORT,
};
