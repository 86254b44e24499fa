// SPDX-License-Identifier: GPL-2.0
/*
 * --pcpu: the per-CPU page lists, CPU by CPU.  A refill takes the zone
 * lock once and moves a run of pages to a CPU's list (consecutive
 * mm_page_alloc_zone_locked events with percpu_refill on that CPU); a
 * drain gives a run back (consecutive mm_page_pcpu_drain events).  The
 * kmem events document warns of refills on one CPU and drains on another:
 * pages allocated on one CPU and freed on another pile up on the second
 * CPU's list, and every page crossing bounces cache lines.  So, per CPU:
 * runs and pages per run both ways, the net flow, the pages freed here
 * that another CPU allocated, and the pages drained here that another
 * CPU's refill brought in (a map pfn -> refilling CPU, left at the drain).
 *
 * Runs are per CPU, not per process as --procs counts them: the zone lock
 * is held with interrupts off, so a run is never interleaved on its CPU.
 * The CPU is the one the event ran on; a remote drain (drain_all_pages)
 * counts for the CPU doing it.  The refill map holds pages between their
 * refill and their drain: pages on per-CPU lists or allocated from them,
 * as bounded as the live objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/pcpu.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "util/array.h"
#include "util/hash.h"

enum { RUN_NONE, RUN_DRAIN, RUN_REFILL };

struct pcpu_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_pcpu_row *cpus;	/* by CPU number */
	size_t nr_cpus, alloc_cpus;
	struct kmt_hash_i32 refilled;	/* pfn -> refilling CPU */
	uint64_t no_cpu;		/* events without a CPU */
	uint64_t drained_unseen;	/* pages drained, refill not seen */
};

static void *pcpu_create(struct kmt_session *s,
			 const struct kmt_report_opts *opts)
{
	struct pcpu_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_hash_i32_init(&c->refilled);
	return c;
}

static void pcpu_destroy(void *ctx)
{
	struct pcpu_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_hash_i32_free(&c->refilled);
	free(c->cpus);
	free(c);
}

static struct kmt_pcpu_row *cpu_row(struct pcpu_ctx *c, int cpu)
{
	size_t n = (size_t)cpu + 1;

	if (n > c->nr_cpus) {
		if (KMT_ARRAY_GROW(c->cpus, n, c->alloc_cpus))
			return NULL;
		memset(c->cpus + c->nr_cpus, 0,
		       (n - c->nr_cpus) * sizeof(*c->cpus));
		c->nr_cpus = n;
	}
	return &c->cpus[cpu];
}

static int is_refill(const struct kmt_event *ev)
{
	return !(ev->flags & KMT_EVF_HAS_REFILL) ||
	       (ev->flags & KMT_EVF_PERCPU_REFILL);
}

static int pcpu_on_event(void *ctx, const struct kmt_event *ev)
{
	struct pcpu_ctx *c = ctx;
	const struct kmt_live_step *st;
	uint64_t pages = 1ULL << (ev->order > 0 ? ev->order & 63 : 0);
	struct kmt_pcpu_row *row;
	int ret = kmt_live_use_feed(&c->live, ev), run = RUN_NONE;
	int32_t *from;

	if (ret <= 0)
		return ret;
	if (ev->cpu < 0 || ev->cpu >= KMT_MAX_CPUS) {
		c->no_cpu++;
		return 0;
	}
	row = cpu_row(c, ev->cpu);
	if (!row)
		return -ENOMEM;
	st = &c->live.l->step;
	if (kmt_ev_is_page(ev->type))
		row->seen = 1;
	switch (ev->type) {
	case KMT_EV_PAGE_ALLOC:
		row->page_allocs++;
		break;
	case KMT_EV_PAGE_FREE:
		row->page_frees++;
		if (st->what == KMT_LIVE_FREE && st->prev.cpu != ev->cpu)
			row->remote_frees++;
		break;
	case KMT_EV_PAGE_ZONE_LOCKED:
		if (!is_refill(ev)) {
			row->zone_locked++;
			break;
		}
		run = RUN_REFILL;
		if (row->last != RUN_REFILL)
			row->refill_runs++;
		row->refill_pages += pages;
		if (ev->ptr == KMT_PFN_NONE)
			break;
		from = kmt_hash_i32_put(&c->refilled, ev->ptr, NULL);
		if (!from)
			return -ENOMEM;
		*from = ev->cpu;
		break;
	case KMT_EV_PCPU_DRAIN: {
		int32_t refill_cpu;

		run = RUN_DRAIN;
		if (row->last != RUN_DRAIN)
			row->drain_runs++;
		row->drain_pages += pages;
		if (!kmt_hash_i32_del(&c->refilled, ev->ptr, &refill_cpu))
			c->drained_unseen += pages;
		else if (refill_cpu != ev->cpu)
			row->drained_foreign += pages;
		break;
	}
	default:
		break;
	}
	row->last = (uint8_t)run;
	return 0;
}

#define LOCKED	KMT_EV_BIT(KMT_EV_PAGE_ZONE_LOCKED)
#define DRAIN	KMT_EV_BIT(KMT_EV_PCPU_DRAIN)
#define ALLOC	KMT_EV_BIT(KMT_EV_PAGE_ALLOC)
#define FREE	KMT_EV_BIT(KMT_EV_PAGE_FREE)

/* the events each column counts: without them, "not recorded" */
static const uint32_t pcpu_needs[] = {
	0, LOCKED, LOCKED, LOCKED, DRAIN, DRAIN, DRAIN, LOCKED | DRAIN,
	FREE, DRAIN, LOCKED, ALLOC, FREE,
};

static const struct kmt_col pcpu_cols[] = {
	{ "cpu", "CPU", KMT_V_U64, 0 },
	{ "refills", "Refills", KMT_V_U64, 0 },
	{ "refill_pages", "Pages", KMT_V_U64, 0 },
	{ "pages_per_refill", "Per refill", KMT_V_DOUBLE, 0 },
	{ "drains", "Drains", KMT_V_U64, 0 },
	{ "drain_pages", "Pages", KMT_V_U64, 0 },
	{ "pages_per_drain", "Per drain", KMT_V_DOUBLE, 0 },
	{ "net_pages", "Net in", KMT_V_S64, 0 },
	{ "remote_frees", "Remote frees", KMT_V_U64, 0 },
	{ "drained_foreign", "Drained foreign", KMT_V_U64, 0 },
	{ "zone_locked", "Locked allocs", KMT_V_U64, 0 },
	{ "page_allocs", "Allocs", KMT_V_U64, 0 },
	{ "page_frees", "Frees", KMT_V_U64, 0 },
};

static double per(uint64_t n, uint64_t of)
{
	return of ? (double)n / (double)of : 0.0;
}

_Static_assert(KMT_NCOLS(pcpu_needs) == KMT_NCOLS(pcpu_cols),
	       "a needs entry for every column");

static int pcpu_finish(void *ctx, struct kmt_report *r)
{
	struct pcpu_ctx *c = ctx;
	struct kmt_pcpu_row sum;
	struct kmt_summary *s;
	struct kmt_table *t;
	uint64_t in = 0, out = 0;
	size_t i;
	int err = 0;

	t = kmt_report_add_table(r, "pcpu", "cpus",
				 "PER-CPU PAGE LISTS: refills and drains by CPU",
				 pcpu_cols, KMT_NCOLS(pcpu_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < c->nr_cpus; i++) {
		const struct kmt_pcpu_row *row = &c->cpus[i];
		int64_t net = (int64_t)row->refill_pages -
			      (int64_t)row->drain_pages;
		union kmt_val *v;

		if (!row->seen)
			continue;
		v = kmt_table_add_row(t);
		if (!v)
			return -ENOMEM;
		v[0].u = i;
		v[1].u = row->refill_runs;
		v[2].u = row->refill_pages;
		v[3].d = per(row->refill_pages, row->refill_runs);
		v[4].u = row->drain_runs;
		v[5].u = row->drain_pages;
		v[6].d = per(row->drain_pages, row->drain_runs);
		v[7].s = net;
		v[8].u = row->remote_frees;
		v[9].u = row->drained_foreign;
		v[10].u = row->zone_locked;
		v[11].u = row->page_allocs;
		v[12].u = row->page_frees;
		if (net > 0)
			in += (uint64_t)net;
		else
			out += (uint64_t)-net;
		sum.refill_runs += row->refill_runs;
		sum.refill_pages += row->refill_pages;
		sum.drain_runs += row->drain_runs;
		sum.drain_pages += row->drain_pages;
		sum.remote_frees += row->remote_frees;
		sum.drained_foreign += row->drained_foreign;
		sum.page_frees += row->page_frees;
	}

	s = kmt_report_add_summary(r, "pcpu", "summary",
				   "SUMMARY (per-CPU page lists)");
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, "Refills (zone lock taken to fill a list):",
			       "refills", sum.refill_runs);
	err |= kmt_summary_u64(s, "Pages refilled:", "refill_pages",
			       sum.refill_pages);
	err |= kmt_summary_u64(s, "Drains (zone lock taken to empty a list):",
			       "drains", sum.drain_runs);
	err |= kmt_summary_u64(s, "Pages drained:", "drain_pages",
			       sum.drain_pages);
	/*
	 * CPUs that refill more than they drain take pages in, the others
	 * give them back: at least the smaller flow went from one to another.
	 */
	err |= kmt_summary_ratio(s, "Imbalance (pages refilled on one CPU, drained on another):",
				 "imbalance_pages", in < out ? in : out,
				 sum.drain_pages,
				 "the lesser of the net pages in and out of CPUs");
	err |= kmt_summary_ratio(s, "Page frees on another CPU than the allocation:",
				 "remote_frees", sum.remote_frees,
				 sum.page_frees, NULL);
	err |= kmt_summary_ratio(s, "Pages drained on another CPU than refilled:",
				 "drained_foreign", sum.drained_foreign,
				 sum.drain_pages, NULL);
	err |= kmt_summary_u64(s, "Pages drained, refill not seen:",
			       "drained_unseen", c->drained_unseen);
	if (c->no_cpu)
		err |= kmt_summary_u64(s, "Events without a CPU:", "no_cpu",
				       c->no_cpu);
	if (err)
		return -ENOMEM;
	return kmt_report_mark_unrecorded(r, t, pcpu_needs, s,
					  kmt_session_types(c->s),
					  c->s->types_known);
}

const struct kmt_pcpu_row *kmt_pcpu_cpu(const void *ctx, int cpu)
{
	const struct pcpu_ctx *c = ctx;

	return cpu >= 0 && (size_t)cpu < c->nr_cpus ? &c->cpus[cpu] : NULL;
}

uint64_t kmt_pcpu_drained_unseen(const void *ctx)
{
	const struct pcpu_ctx *c = ctx;

	return c->drained_unseen;
}

const struct kmt_analysis_ops kmt_analysis_pcpu = {
	.name = "pcpu",
	.needs = KMT_EV_PCPU_BITS,
	.create = pcpu_create,
	.on_event = pcpu_on_event,
	.finish = pcpu_finish,
	.destroy = pcpu_destroy,
};
