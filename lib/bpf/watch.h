/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_WATCH_H
#define KMT_BPF_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/loader.h"
#include "bpf/names.h"
#include "util/hash.h"

/*
 * The model of kmemtrace watch: outstanding objects (followed by the
 * kernel for a sampled share of addresses) grouped by stack and by
 * callsite, with their ages and the trend of their count over the last
 * intervals, so that a leak (old and still growing) stands apart from a
 * cache that is merely big.  Counts are scaled by the sampling.
 */
#define KMT_WATCH_TREND	8	/* intervals a trend remembers */

struct kmt_watch_group {
	struct kmt_stack_key key;	/* as the kernel aggregates */
	uint64_t site;			/* callsite (pages: from the stack) */
	uint32_t stack;			/* session stack id, 0 none */
	uint32_t idle;			/* intervals without an allocation */
	/* objects older than older_than, at the last update */
	uint64_t count, bytes, min_age, max_age;
	/* all outstanding, and what was allocated and freed in all */
	int64_t live, live_bytes;
	uint64_t allocs, frees;
	/* live counts at the end of the last intervals, oldest first */
	int64_t trend[KMT_WATCH_TREND];
	int nr_trend;
	int growing;
	uint32_t gen;
};

/* what a callsite adds up to over its stacks */
struct kmt_watch_site {
	uint64_t site;
	uint8_t kind;
	uint64_t count, bytes, min_age, max_age;
	int64_t live, live_bytes;
	uint64_t allocs, frees;
	int64_t trend[KMT_WATCH_TREND];
	int nr_trend;
	int growing;
	uint32_t nr_stacks;
};

KMT_HASH_TYPE(kmt_watch_groups, struct kmt_watch_group)

/* what a memory cgroup holds of a kind (watch --by cgroup) */
struct kmt_watch_cg {
	uint64_t cgroup;
	uint8_t kind;
	int64_t live, live_bytes;	/* outstanding, scaled */
	uint64_t accounted;		/* of live_bytes, charged to it */
	uint64_t count, bytes;		/* older than older_than */
	int64_t trend[KMT_WATCH_TREND];
	int nr_trend;
	int growing;
};

KMT_HASH_TYPE(kmt_watch_cgs, struct kmt_watch_cg)

struct kmt_cgroups;

struct kmt_watch {
	struct kmt_bpf *bpf;
	struct kmt_bpf_names *names;
	uint32_t sample;
	uint64_t older_than_ns;
	struct kmt_watch_groups groups;	/* stack key hash -> group */
	uint32_t gen;
	/* the last update's groups with old objects, sorted by bytes */
	struct kmt_watch_group **sorted;
	size_t nr_sorted, alloc_sorted;
	struct kmt_watch_site *sites;
	size_t nr_sites, alloc_sites;
	uint64_t stats[KMT_S_NR], missed;
	uint64_t start_ns, now_ns;
	uint64_t intervals;
	uint64_t stacks_pruned;		/* stacks given back to the map */
	/* outstanding in all, older than older_than, scaled */
	uint64_t old_count, old_bytes;
	int64_t live, live_bytes;
	/* by memory cgroup, when asked (kmt_watch_set_cgroups) */
	struct kmt_cgroups *cgroups;
	struct kmt_watch_cgs cgs;	/* cgroup and kind -> its row */
	struct kmt_watch_cg **cg_sorted;
	size_t nr_cg_sorted, alloc_cg_sorted;
	char errmsg[512];
};

/* what a report of an interval shows (kmt_watch_report) */
struct kmt_watch_show {
	const char *target;	/* "system wide", "process 12,13" */
	size_t limit;		/* stacks and callsites; 0: all */
	int frames;		/* of each stack in text; 0: all */
	int final;		/* the report at the end */
};

void kmt_watch_init(struct kmt_watch *w, struct kmt_bpf *b,
		    struct kmt_bpf_names *names, uint64_t older_than_ns,
		    uint64_t now_ns);
void kmt_watch_free(struct kmt_watch *w);
/* the table "cgroups": outstanding objects by memory cgroup and kind */
void kmt_watch_set_cgroups(struct kmt_watch *w, struct kmt_cgroups *c);
/*
 * Reads the maps at the end of an interval (now_ns on CLOCK_MONOTONIC,
 * the clock of bpf_ktime_get_ns), and gives the stacks nothing refers to
 * any more back to the kernel.  0 or -errno (errmsg).
 */
int kmt_watch_update(struct kmt_watch *w, uint64_t now_ns);

/*
 * The last update as sections of r, at the document's top level: the
 * summary "interval" (the header lines; for JSON the totals and
 * counters), the tables "stacks" (each stack under its row in text) and
 * "callsites", and the summaries "stacks_omitted" and "end".  r's meta
 * spans the start to this update.  0, or -ENOMEM.
 */
struct kmt_report;
int kmt_watch_report(struct kmt_watch *w, const struct kmt_watch_show *s,
		     struct kmt_report *r);

#endif
