// SPDX-License-Identifier: GPL-2.0
/*
 * --procs: which processes stress the allocators, one row per task (pid,
 * as ftrace and Mel Gorman's trace-pagealloc-postprocess report count
 * them), per process with --by tgid, or per command name with --by comm,
 * with that report's columns and the slab figures beside them.
 *
 * As in that report, a run of consecutive per-CPU drain (or refill)
 * events of one process is one drain (refill): the zone lock was taken
 * once for it.  Other processes' events in between do not end the run;
 * the next event of the same process that is not a drain (refill) does.
 * Frees count for the process that frees; outstanding bytes for the one
 * that allocated.
 *
 * --by cgroup puts the rows in the memory cgroups of the recording's
 * task-to-cgroup map: a task has a row for each cgroup it was in, found
 * once per row (the row knows until when its cgroup holds), not once
 * per event.  Every view has the bytes charged to the memcg (accounted
 * slab objects, allocations with __GFP_ACCOUNT) apart from the rest.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/procs.h"
#include "analysis/views.h"
#include "event/cgroups.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"

#define PROCS_DEFAULT_SORT "page_allocs,slab_alloc_bytes"

enum { RUN_NONE, RUN_DRAIN, RUN_REFILL };

struct procs_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_sort_chain sort;
	struct kmt_rows rows;		/* struct kmt_proc_row by key */
	/*
	 * --by comm, events read elsewhere (KMT_EVF_COMM): pid -> the name
	 * it last had in an event, for the frees of its objects, since the
	 * session's own table is the reader's.
	 */
	struct kmt_hash_u32 comms;
	/*
	 * __GFP_ACCOUNT's value in the recording (0: it has no such name),
	 * looked up again when the session learns more flag names; whether
	 * any allocation could be told charged or not
	 */
	uint64_t account_bit;
	size_t gfp_seen;
	int charge_known;
	/* recent keys -> row number + 1, in the slot of their low bits */
	struct {
		uint64_t key;
		size_t idx;
	} recent[64];
};

/* one compare function per column, from a table of offsets */
#define CMP_U(field)							\
static int cmp_##field(const void *a, const void *b)			\
{									\
	const struct kmt_proc_row *x = a, *y = b;			\
	return KMT_CMP_DESC(x->field, y->field);			\
}
CMP_U(page_allocs)
CMP_U(zone_locked)
CMP_U(freed_direct)
CMP_U(freed_batched)
CMP_U(pcpu_drained)
CMP_U(pcpu_drains)
CMP_U(pcpu_refills)
CMP_U(fallbacks)
CMP_U(fragmenting)
CMP_U(mt_changed)
CMP_U(severe)
CMP_U(moderate)
CMP_U(slab_allocs)
CMP_U(slab_alloc_bytes)
CMP_U(slab_frees)
CMP_U(slab_freed_bytes)
CMP_U(page_alloc_bytes)
CMP_U(slab_live)
CMP_U(page_live)
CMP_U(charged_bytes)
CMP_U(uncharged_bytes)

static int cmp_outstanding(const void *a, const void *b)
{
	const struct kmt_proc_row *x = a, *y = b;

	return KMT_CMP_DESC(x->slab_live + x->page_live,
			    y->slab_live + y->page_live);
}

static int cmp_key(const void *a, const void *b)
{
	const struct kmt_proc_row *x = a, *y = b;

	return KMT_CMP_ASC(x->key, y->key);
}

static const struct kmt_sort_key procs_sort_keys[] = {
	{ "pid", cmp_key, NULL },
	{ "page_allocs", cmp_page_allocs, NULL },
	{ "zone_locked", cmp_zone_locked, NULL },
	{ "freed_direct", cmp_freed_direct, NULL },
	{ "freed_batched", cmp_freed_batched, NULL },
	{ "pcpu_drained", cmp_pcpu_drained, NULL },
	{ "pcpu_drains", cmp_pcpu_drains, NULL },
	{ "pcpu_refills", cmp_pcpu_refills, NULL },
	{ "fallbacks", cmp_fallbacks, NULL },
	{ "fragmenting", cmp_fragmenting, NULL },
	{ "mt_changed", cmp_mt_changed, NULL },
	{ "severe", cmp_severe, NULL },
	{ "moderate", cmp_moderate, NULL },
	{ "slab_allocs", cmp_slab_allocs, NULL },
	{ "slab_alloc_bytes", cmp_slab_alloc_bytes, NULL },
	{ "slab_frees", cmp_slab_frees, NULL },
	{ "slab_freed_bytes", cmp_slab_freed_bytes, NULL },
	{ "page_alloc_bytes", cmp_page_alloc_bytes, NULL },
	{ "outstanding_bytes", cmp_outstanding, NULL },
	{ "slab_outstanding_bytes", cmp_slab_live, NULL },
	{ "page_outstanding_bytes", cmp_page_live, NULL },
	{ "charged_bytes", cmp_charged_bytes, NULL },
	{ "uncharged_bytes", cmp_uncharged_bytes, NULL },
};

static void *procs_create(struct kmt_session *s,
			  const struct kmt_report_opts *opts)
{
	struct procs_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct kmt_proc_row), sizeof(uint64_t));
	kmt_hash_u32_init(&c->comms);
	kmt_view_sort(&c->sort, opts->sort, PROCS_DEFAULT_SORT,
		      procs_sort_keys, KMT_NCOLS(procs_sort_keys), cmp_key);
	return c;
}

static void procs_destroy(void *ctx)
{
	struct procs_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->rows);
	kmt_hash_u32_free(&c->comms);
	free(c);
}

/* the row key of pid: itself, or with --by comm its command name's id */
static uint64_t key_of(struct procs_ctx *c, int32_t pid)
{
	const uint32_t *comm;

	if (!c->opts.by_comm)
		return (uint32_t)pid;
	if (kmt_hash_u32_count(&c->comms))
		comm = kmt_hash_u32_get(&c->comms, (uint32_t)pid);
	else
		comm = kmt_hash_u32_get(&c->s->comms, (uint32_t)pid);
	return comm ? *comm : 0;
}

/* events that carry their name keep c->comms as the session's would be */
static int note_comm(struct procs_ctx *c, const struct kmt_event *ev)
{
	uint32_t *slot;

	if (!c->opts.by_comm || !(ev->flags & KMT_EVF_COMM))
		return 0;
	slot = kmt_hash_u32_put(&c->comms, (uint32_t)ev->pid, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = ev->comm;
	return 0;
}

static struct kmt_proc_row *row_of(struct procs_ctx *c, int32_t pid)
{
	uint64_t key = key_of(c, pid);
	size_t slot = key % 64;
	struct kmt_proc_row *row;

	/* few processes are busy at a time: skip the lookup for them */
	if (c->recent[slot].idx && c->recent[slot].key == key)
		return kmt_rows_at(&c->rows, c->recent[slot].idx - 1);
	row = kmt_rows_get(&c->rows, &key, 1, NULL);
	if (!row)
		return NULL;
	c->recent[slot].key = key;
	c->recent[slot].idx = (size_t)((unsigned char *)row - c->rows.rows) /
			      c->rows.row_size + 1;
	return row;
}

/*
 * --by cgroup: the row of pid at ts, keyed by pid and its entry in the
 * map.  The recent slot of the pid holds while ts is in its row's time.
 */
static struct kmt_proc_row *cg_row_of(struct procs_ctx *c, int32_t pid,
				      uint64_t ts)
{
	const struct kmt_cgmap *m = &c->s->cgroups;
	size_t slot = (uint32_t)pid % 64;
	struct kmt_proc_row *row;
	uint64_t key, until;
	int is_new = 0;
	long k;

	if (c->recent[slot].idx) {
		row = kmt_rows_at(&c->rows, c->recent[slot].idx - 1);
		if ((uint32_t)row->key == (uint32_t)pid &&
		    ts >= row->cg_from && ts < row->cg_until)
			return row;
	}
	k = kmt_cgmap_find(m, pid, ts, &until);
	key = (uint32_t)pid | (uint64_t)(k + 1) << 32;
	row = kmt_rows_get(&c->rows, &key, 1, &is_new);
	if (!row)
		return NULL;
	if (is_new) {
		row->cg = k >= 0 ? m->e[k].path : 0;
		row->cg_from = k >= 0 ? m->e[k].from : 0;
		row->cg_until = until;
	}
	c->recent[slot].key = key;
	c->recent[slot].idx = (size_t)((unsigned char *)row - c->rows.rows) /
			      c->rows.row_size + 1;
	return row;
}

static struct kmt_proc_row *row_at(struct procs_ctx *c, int32_t pid,
				   uint64_t ts)
{
	return c->opts.by_cgroup ? cg_row_of(c, pid, ts) : row_of(c, pid);
}

/* __GFP_ACCOUNT's bit, from the flag names the session has */
static uint64_t account_bit(struct procs_ctx *c)
{
	size_t i;

	if (c->gfp_seen == c->s->gfp.nr)
		return c->account_bit;
	c->gfp_seen = c->s->gfp.nr;
	for (i = 0; i < c->s->gfp.nr; i++) {
		if (!strcmp(c->s->gfp.flags[i].name, "__GFP_ACCOUNT"))
			c->account_bit = c->s->gfp.flags[i].value;
	}
	return c->account_bit;
}

/*
 * bytes allocated, charged to the memcg or not: a slab event says so
 * (its accounted field, or kmalloc's gfp), another by __GFP_ACCOUNT in
 * its gfp; without a gfp it cannot be told
 */
static void charge(struct procs_ctx *c, struct kmt_proc_row *row,
		   const struct kmt_event *ev, uint64_t bytes, int slab)
{
	uint64_t bit = account_bit(c);
	int has_gfp = (ev->flags & KMT_EVF_HAS_GFP) && bit;
	int charged = slab ? !!(ev->flags & KMT_EVF_ACCOUNTED) :
			     has_gfp && (ev->gfp & bit);

	if (!charged && !has_gfp)
		return;
	c->charge_known = 1;
	if (charged)
		row->charged_bytes += bytes;
	else
		row->uncharged_bytes += bytes;
}

static int is_refill(const struct kmt_event *ev)
{
	/* kernels without percpu_refill: every zone-locked page, as Mel did */
	return !(ev->flags & KMT_EVF_HAS_REFILL) ||
	       (ev->flags & KMT_EVF_PERCPU_REFILL);
}

static int fragmenting(const struct kmt_event *ev)
{
	if (ev->flags & KMT_EVF_HAS_FRAGMENTING)
		return !!(ev->flags & KMT_EVF_FRAGMENTING);
	return ev->fallback_order < KMT_PAGEBLOCK_ORDER_GUESS;
}

/* the allocating process' outstanding bytes, as its object goes */
static int release(struct procs_ctx *c, const struct kmt_live_obj *o,
		   uint64_t bytes)
{
	struct kmt_proc_row *row = row_at(c, o->pid, o->ts);

	if (!row)
		return -ENOMEM;
	if (o->type == KMT_EV_PAGE_ALLOC)
		row->page_live -= (int64_t)bytes;
	else
		row->slab_live -= (int64_t)bytes;
	return 0;
}

static int procs_on_event(void *ctx, const struct kmt_event *ev)
{
	struct procs_ctx *c = ctx;
	const struct kmt_live_step *st;
	struct kmt_proc_row *row;
	int ret = kmt_live_use_feed(&c->live, ev), run = RUN_NONE;

	if (ret < 0)
		return ret;
	if (note_comm(c, ev))
		return -ENOMEM;
	/*
	 * The percpu allocator's and vmalloc's objects are their views':
	 * the tracker keeps them apart, and here they would read as slab.
	 */
	if (!ret || kmt_ev_is_percpu(ev->type) || kmt_ev_is_vmalloc(ev->type))
		return 0;
	st = &c->live.l->step;
	if (st->what == KMT_LIVE_ALLOC_OVER) {
		ret = release(c, &st->prev, kmt_live_obj_bytes(c->live.l,
							       &st->prev));
		if (ret)
			return ret;
	}
	row = row_at(c, ev->pid, ev->ts);
	if (!row)
		return -ENOMEM;
	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
		row->slab_allocs++;
		row->slab_alloc_bytes += ev->bytes_alloc;
		charge(c, row, ev, ev->bytes_alloc, 1);
		if (st->what == KMT_LIVE_ALLOC || st->what == KMT_LIVE_ALLOC_OVER)
			row->slab_live += (int64_t)st->bytes;
		break;
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		if (st->what != KMT_LIVE_FREE)
			break;
		row->slab_frees++;
		row->slab_freed_bytes += st->bytes;
		break;
	case KMT_EV_PAGE_ALLOC:
		row->page_allocs++;
		row->page_alloc_bytes += (uint64_t)c->s->page_size <<
					 (ev->order > 0 ? ev->order & 63 : 0);
		charge(c, row, ev, (uint64_t)c->s->page_size <<
			(ev->order > 0 ? ev->order & 63 : 0), 0);
		if (st->what == KMT_LIVE_ALLOC || st->what == KMT_LIVE_ALLOC_OVER)
			row->page_live += (int64_t)st->bytes;
		break;
	case KMT_EV_PAGE_FREE:
		row->freed_direct++;
		break;
	case KMT_EV_PAGE_FREE_BATCHED:
		row->freed_batched++;
		break;
	case KMT_EV_PAGE_ZONE_LOCKED:
		row->zone_locked++;
		if (is_refill(ev)) {
			run = RUN_REFILL;
			if (row->last != RUN_REFILL)
				row->pcpu_refills++;
		}
		break;
	case KMT_EV_PCPU_DRAIN:
		row->pcpu_drained++;
		run = RUN_DRAIN;
		if (row->last != RUN_DRAIN)
			row->pcpu_drains++;
		break;
	case KMT_EV_EXTFRAG:
		row->fallbacks++;
		if (ev->flags & KMT_EVF_CHANGE_OWNER)
			row->mt_changed++;
		if (!fragmenting(ev))
			break;
		row->fragmenting++;
		if (ev->fallback_order <= 3)
			row->severe++;
		else
			row->moderate++;
		break;
	default:
		break;
	}
	row->last = (uint8_t)run;
	/* a free moves the allocating process' figure, wherever it is */
	if (st->what == KMT_LIVE_FREE)
		return release(c, &st->prev, st->bytes);
	return 0;
}

#define PROC_COLS							\
	{ "page_allocs", "Allocd", KMT_V_U64, 0 },			\
	{ "zone_locked", "Allocd locked", KMT_V_U64, 0 },		\
	{ "freed_direct", "Freed direct", KMT_V_U64, 0 },		\
	{ "freed_batched", "Freed batched", KMT_V_U64, 0 },		\
	{ "pcpu_drained", "PCPU drained", KMT_V_U64, 0 },		\
	{ "pcpu_drains", "PCPU drains", KMT_V_U64, 0 },			\
	{ "pcpu_refills", "PCPU refills", KMT_V_U64, 0 },		\
	{ "fallbacks", "Fallbacks", KMT_V_U64, 0 },			\
	{ "fragmenting", "Frag causing", KMT_V_U64, 0 },		\
	{ "mt_changed", "Mt changed", KMT_V_U64, 0 },			\
	{ "severe", "Severe", KMT_V_U64, 0 },				\
	{ "moderate", "Moderate", KMT_V_U64, 0 },			\
	{ "slab_alloc_bytes", "Slab allocd", KMT_V_U64, KMT_COL_GROUPED }, \
	{ "slab_freed_bytes", "Slab freed", KMT_V_U64, KMT_COL_GROUPED }, \
	{ "outstanding_bytes", "Outstanding", KMT_V_S64, KMT_COL_GROUPED }, \
	{ "charged_bytes", "Memcg charged", KMT_V_U64, KMT_COL_GROUPED }, \
	{ "uncharged_bytes", "Not charged", KMT_V_U64, KMT_COL_GROUPED }, \
	{ "slab_outstanding_bytes", "", KMT_V_S64, KMT_COL_NO_TEXT },	\
	{ "page_outstanding_bytes", "", KMT_V_S64, KMT_COL_NO_TEXT },	\
	{ "page_alloc_bytes", "", KMT_V_U64, KMT_COL_NO_TEXT },		\
	{ "slab_allocs", "", KMT_V_U64, KMT_COL_NO_TEXT },		\
	{ "slab_frees", "", KMT_V_U64, KMT_COL_NO_TEXT },

#define SLAB_ALLOCS	(KMT_EV_BIT(KMT_EV_KMALLOC) | KMT_EV_BIT(KMT_EV_CACHE_ALLOC))
#define SLAB_FREES	(KMT_EV_BIT(KMT_EV_KFREE) | KMT_EV_BIT(KMT_EV_CACHE_FREE))
#define PAGE_ALLOCS	KMT_EV_BIT(KMT_EV_PAGE_ALLOC)
#define ZONE_LOCKED	KMT_EV_BIT(KMT_EV_PAGE_ZONE_LOCKED)
#define PCPU_DRAIN	KMT_EV_BIT(KMT_EV_PCPU_DRAIN)
#define EXTFRAG		KMT_EV_BIT(KMT_EV_EXTFRAG)

/* the events each of PROC_COLS counts: without them, "not recorded" */
#define PROC_NEEDS							\
	PAGE_ALLOCS, ZONE_LOCKED, KMT_EV_BIT(KMT_EV_PAGE_FREE),		\
	KMT_EV_BIT(KMT_EV_PAGE_FREE_BATCHED), PCPU_DRAIN, PCPU_DRAIN,	\
	ZONE_LOCKED, EXTFRAG, EXTFRAG, EXTFRAG, EXTFRAG, EXTFRAG,	\
	SLAB_ALLOCS, SLAB_FREES, SLAB_ALLOCS | PAGE_ALLOCS,		\
	SLAB_ALLOCS | PAGE_ALLOCS, SLAB_ALLOCS | PAGE_ALLOCS, SLAB_ALLOCS,	\
	PAGE_ALLOCS, PAGE_ALLOCS, SLAB_ALLOCS, SLAB_FREES

/* the PROC_COLS of the charged bytes, counted from the first */
#define CHARGED_COL	15

/* pid_needs serves tgid_cols too: the same columns, keyed by tgid */
static const uint32_t pid_needs[] = { 0, 0, 0, PROC_NEEDS };
static const uint32_t comm_needs[] = { 0, 0, PROC_NEEDS };
static const uint32_t cgroup_needs[] = { 0, 0, PROC_NEEDS };

static const struct kmt_col pid_cols[] = {
	{ "process", "Process", KMT_V_STR, KMT_COL_LEFT },
	{ "pid", "", KMT_V_S64, KMT_COL_NO_TEXT },
	{ "comm", "", KMT_V_STR, KMT_COL_NO_TEXT },
	PROC_COLS
};

static const struct kmt_col tgid_cols[] = {
	{ "process", "Process", KMT_V_STR, KMT_COL_LEFT },
	{ "tgid", "", KMT_V_S64, KMT_COL_NO_TEXT },
	{ "comm", "", KMT_V_STR, KMT_COL_NO_TEXT },
	PROC_COLS
};

static const struct kmt_col comm_cols[] = {
	{ "process", "Command", KMT_V_STR, KMT_COL_LEFT },
	{ "comm", "", KMT_V_STR, KMT_COL_NO_TEXT },
	PROC_COLS
};

static const struct kmt_col cgroup_cols[] = {
	{ "cgroup", "Memory cgroup", KMT_V_STR, KMT_COL_LEFT },
	{ "tasks", "Tasks", KMT_V_U64, 0 },
	PROC_COLS
};

static void fill(union kmt_val *v, const struct kmt_proc_row *row)
{
	v[0].u = row->page_allocs;
	v[1].u = row->zone_locked;
	v[2].u = row->freed_direct;
	v[3].u = row->freed_batched;
	v[4].u = row->pcpu_drained;
	v[5].u = row->pcpu_drains;
	v[6].u = row->pcpu_refills;
	v[7].u = row->fallbacks;
	v[8].u = row->fragmenting;
	v[9].u = row->mt_changed;
	v[10].u = row->severe;
	v[11].u = row->moderate;
	v[12].u = row->slab_alloc_bytes;
	v[13].u = row->slab_freed_bytes;
	v[14].s = row->slab_live + row->page_live;
	v[15].u = row->charged_bytes;
	v[16].u = row->uncharged_bytes;
	v[17].s = row->slab_live;
	v[18].s = row->page_live;
	v[19].u = row->page_alloc_bytes;
	v[20].u = row->slab_allocs;
	v[21].u = row->slab_frees;
}

static void add_up(struct kmt_proc_row *sum, const struct kmt_proc_row *row)
{
	sum->page_allocs += row->page_allocs;
	sum->zone_locked += row->zone_locked;
	sum->freed_direct += row->freed_direct;
	sum->freed_batched += row->freed_batched;
	sum->pcpu_drained += row->pcpu_drained;
	sum->pcpu_drains += row->pcpu_drains;
	sum->pcpu_refills += row->pcpu_refills;
	sum->fallbacks += row->fallbacks;
	sum->fragmenting += row->fragmenting;
	sum->mt_changed += row->mt_changed;
	sum->severe += row->severe;
	sum->moderate += row->moderate;
	sum->slab_allocs += row->slab_allocs;
	sum->slab_alloc_bytes += row->slab_alloc_bytes;
	sum->slab_frees += row->slab_frees;
	sum->slab_freed_bytes += row->slab_freed_bytes;
	sum->page_alloc_bytes += row->page_alloc_bytes;
	sum->slab_live += row->slab_live;
	sum->page_live += row->page_live;
	sum->charged_bytes += row->charged_bytes;
	sum->uncharged_bytes += row->uncharged_bytes;
	sum->tasks += row->tasks ? row->tasks : 1;
}

static void add_row(void *sum, const void *row)
{
	add_up(sum, row);
}

_Static_assert(KMT_NCOLS(pid_needs) == KMT_NCOLS(pid_cols) &&
	       KMT_NCOLS(pid_needs) == KMT_NCOLS(tgid_cols) &&
	       KMT_NCOLS(comm_needs) == KMT_NCOLS(comm_cols) &&
	       KMT_NCOLS(cgroup_needs) == KMT_NCOLS(cgroup_cols),
	       "a needs entry for every column");

/* what the charged columns say when no allocation could tell */
static const struct kmt_missing no_charge = {
	.known = 1,
	.what = "gfp flags or accounted field to tell memcg charges by",
	.events_text = "",
	.record_with = "kmemtrace record",
};

static const struct kmt_missing no_cgroup_map = {
	.known = 1,
	.what = "task-to-cgroup map",
	.events_text = "",
	.record_with = "kmemtrace record",
};

/* --by cgroup of a recording without the map: only that, said */
static int cgroups_missing(struct procs_ctx *c, struct kmt_report *r)
{
	const struct kmt_cgmap *m = &c->s->cgroups;
	struct kmt_missing *why = NULL;
	struct kmt_sum_item note = { .kind = KMT_SUM_NOTE };
	struct kmt_summary *s;
	int err;

	s = kmt_report_add_summary(r, "procs", "cgroups",
				   "PROCESSES: allocator stress by memory cgroup");
	if (!s)
		return -ENOMEM;
	err = kmt_summary_u64(s, "Memory cgroups:", "cgroups", 0);
	if (m->damaged[0]) {
		why = kmt_arena_zalloc(&r->arena, sizeof(*why));
		if (!why)
			return -ENOMEM;
		*why = no_cgroup_map;
		why->what = kmt_report_printf(r, "task-to-cgroup map: %s",
					      m->damaged);
		if (!why->what)
			return -ENOMEM;
	}
	kmt_summary_mark_unrecorded(s, (const char *const[]){ "cgroups" }, 1,
				    why ? why : &no_cgroup_map);
	note.label = "(record it with kmemtrace record: it keeps which task was in which memory cgroup)";
	err |= kmt_summary_add(s, &note);
	return err ? -ENOMEM : 0;
}

/* the rows of tasks put together by cgroup, key the path (0 unknown) */
static int by_cgroup(struct kmt_rows *rows)
{
	struct kmt_rows by;
	size_t i;

	kmt_rows_init(&by, rows->row_size, sizeof(uint64_t));
	for (i = 0; i < rows->nr; i++) {
		const struct kmt_proc_row *row = kmt_rows_at(rows, i);
		uint64_t key = row->cg;
		struct kmt_proc_row *dst = kmt_rows_get(&by, &key, 1, NULL);

		if (!dst) {
			kmt_rows_free(&by);
			return -ENOMEM;
		}
		add_up(dst, row);
		dst->cg = row->cg;
	}
	kmt_rows_free(rows);
	*rows = by;
	return 0;
}

static int procs_finish(void *ctx, struct kmt_report *r)
{
	struct procs_ctx *c = ctx;
	struct kmt_rows *rows = &c->rows;
	int by_cg = c->opts.by_cgroup;
	int by_comm = !by_cg && c->opts.by_comm;
	int by_tgid = !by_cg && !by_comm && c->opts.by_tgid;
	const struct kmt_col *cols = by_cg ? cgroup_cols :
				     by_comm ? comm_cols :
				     by_tgid ? tgid_cols : pid_cols;
	size_t ncols = by_cg ? KMT_NCOLS(cgroup_cols) :
		       by_comm ? KMT_NCOLS(comm_cols) :
		       by_tgid ? KMT_NCOLS(tgid_cols) : KMT_NCOLS(pid_cols);
	/* where the columns of PROC_COLS start */
	size_t first = by_cg || by_comm ? 2 : 3;
	uint64_t tasks = 0, alone = 0;
	struct kmt_proc_row sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i, n;
	int err = 0;

	if (by_cg && !c->s->cgroups.recorded)
		return cgroups_missing(c, r);
	t = kmt_report_add_table(r, "procs", by_cg ? "cgroups" : "processes",
				 by_cg ? "PROCESSES: allocator stress by memory cgroup" :
				 by_comm ? "PROCESSES: allocator stress by command name" :
				 by_tgid ? "PROCESSES: allocator stress by process (tgid)" :
				 "PROCESSES: allocator stress by task (pid)",
				 cols, ncols, KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	if (by_tgid && kmt_view_by_tgid(c->s, rows, add_row, &tasks, &alone))
		return -ENOMEM;
	if (by_cg) {
		tasks = rows->nr;
		if (by_cgroup(rows))
			return -ENOMEM;
	}
	n = rows->nr;
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < n; i++)
		add_up(&sum, kmt_rows_at(rows, i));
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &c->sort);
	kmt_hash_u32_clear(&rows->index);
	memset(c->recent, 0, sizeof(c->recent));
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct kmt_proc_row *row = kmt_rows_at(rows, i);
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		if (by_cg) {
			const char *path = kmt_strtab_get(&c->s->strs, row->cg);

			v[0].str = row->cg && path ? path : "not recorded";
			v[1].u = row->tasks;
			fill(v + 2, row);
		} else if (by_comm) {
			const char *comm = row->key ?
				kmt_strtab_get(&c->s->strs, (uint32_t)row->key) :
				NULL;

			v[0].str = comm ? comm : "(unknown)";
			v[1].str = comm ? comm : "";
			fill(v + 2, row);
		} else {
			const char *comm = kmt_session_comm(c->s,
							    (int32_t)row->key);

			v[0].str = kmt_view_proc(c->s, r, (int32_t)row->key);
			v[1].s = (int32_t)row->key;
			v[2].str = comm ? comm : "";
			fill(v + 3, row);
		}
	}
	t->total_rows = rows->nr;

	s = kmt_report_add_summary(r, "procs", "totals",
				   "TOTALS (all processes)");
	if (!s)
		return -ENOMEM;
	if (by_cg) {
		err |= kmt_summary_u64(s, "Memory cgroups:", "cgroups",
				       rows->nr);
		/* a task moved counts in each cgroup it was in */
		err |= kmt_summary_u64(s, "Tasks (pids) in them:", "tasks",
				       tasks);
		err |= kmt_summary_add(s, &(struct kmt_sum_item){
			.kind = KMT_SUM_VALUE, .label = "Cgroup hierarchy:",
			.key = "hierarchy", .type = KMT_V_STR,
			.v.str = c->s->cgroups.hierarchy });
	} else {
		err |= kmt_summary_u64(s, "Processes:", "processes", rows->nr);
	}
	if (by_tgid) {
		err |= kmt_summary_u64(s, "Tasks (pids) in them:", "tasks",
				       tasks);
		/* the recording named no thread group: a process of its own */
		err |= kmt_summary_u64(s, "Tasks of no known process, alone:",
				       "tasks_alone", alone);
	}
	err |= kmt_summary_u64(s, "Pages allocated (mm_page_alloc):",
			       "page_allocs", sum.page_allocs);
	err |= kmt_summary_u64(s, "Allocated under the zone lock:",
			       "zone_locked", sum.zone_locked);
	err |= kmt_summary_u64(s, "Freed directly (mm_page_free):",
			       "freed_direct", sum.freed_direct);
	err |= kmt_summary_u64(s, "Freed in batches (mm_page_free_batched):",
			       "freed_batched", sum.freed_batched);
	err |= kmt_summary_u64(s, "Per-CPU pages drained:", "pcpu_drained",
			       sum.pcpu_drained);
	err |= kmt_summary_u64(s, "Per-CPU drains:", "pcpu_drains",
			       sum.pcpu_drains);
	err |= kmt_summary_u64(s, "Per-CPU refills:", "pcpu_refills",
			       sum.pcpu_refills);
	err |= kmt_summary_u64(s, "Fragmentation fallbacks:", "fallbacks",
			       sum.fallbacks);
	err |= kmt_summary_u64(s, "Fallbacks causing fragmentation:",
			       "fragmenting", sum.fragmenting);
	err |= kmt_summary_u64(s, "Migratetype changes:", "mt_changed",
			       sum.mt_changed);
	err |= kmt_summary_u64(s, "Severe fragmentation:", "severe",
			       sum.severe);
	err |= kmt_summary_u64(s, "Moderate fragmentation:", "moderate",
			       sum.moderate);
	err |= kmt_summary_u64(s, "Slab allocations:", "slab_allocs",
			       sum.slab_allocs);
	err |= kmt_summary_u64(s, "Slab bytes allocated:", "slab_alloc_bytes",
			       sum.slab_alloc_bytes);
	err |= kmt_summary_u64(s, "Slab frees matched:", "slab_frees",
			       sum.slab_frees);
	err |= kmt_summary_u64(s, "Slab bytes freed:", "slab_freed_bytes",
			       sum.slab_freed_bytes);
	err |= kmt_summary_u64(s, "Slab bytes outstanding:",
			       "slab_outstanding_bytes", (uint64_t)sum.slab_live);
	err |= kmt_summary_u64(s, "Page bytes outstanding:",
			       "page_outstanding_bytes", (uint64_t)sum.page_live);
	err |= kmt_summary_u64(s, "Bytes charged to the memcg:",
			       "charged_bytes", sum.charged_bytes);
	err |= kmt_summary_u64(s, "Bytes not charged:", "uncharged_bytes",
			       sum.uncharged_bytes);
	if (err)
		return -ENOMEM;
	err = kmt_report_mark_unrecorded(r, t, by_cg ? cgroup_needs :
					 by_comm ? comm_needs : pid_needs,
					 s, kmt_session_types(c->s),
					 c->s->types_known);
	if (err || c->charge_known || (t->unrecorded >> (first + CHARGED_COL) & 1))
		return err;
	/* allocations there were, and none could say whether charged */
	t->unrecorded |= 3ULL << (first + CHARGED_COL);
	if (!t->missing)
		t->missing = &no_charge;
	kmt_summary_mark_unrecorded(s, (const char *const[]){ "charged_bytes",
				    "uncharged_bytes" }, 2, &no_charge);
	return 0;
}

const struct kmt_proc_row *kmt_procs_find(const void *ctx, uint64_t key)
{
	const struct procs_ctx *c = ctx;
	size_t i;

	/* for tests: a scan, as finish may have sorted the rows */
	for (i = 0; i < c->rows.nr; i++) {
		const struct kmt_proc_row *row = kmt_rows_at(&c->rows, i);

		if (row->key == key)
			return row;
	}
	return NULL;
}

const struct kmt_analysis_ops kmt_analysis_procs = {
	.name = "procs",
	.needs = KMT_EV_SLAB_BITS | KMT_EV_PAGE_BITS | KMT_EV_PCPU_BITS |
		 KMT_EV_BIT(KMT_EV_EXTFRAG),
	.create = procs_create,
	.on_event = procs_on_event,
	.finish = procs_finish,
	.destroy = procs_destroy,
	.sort_keys = procs_sort_keys,
	.nr_sort_keys = KMT_NCOLS(procs_sort_keys),
	.default_sort = PROCS_DEFAULT_SORT,
};
