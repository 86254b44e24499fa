/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_TOP_H
#define KMT_BPF_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/loader.h"
#include "bpf/names.h"
#include "util/hash.h"

/*
 * The model of kmemtrace top: the in-kernel counters read at every
 * refresh into rows of one view, with totals since the start and rates
 * over the last interval.  Counts of events are exact; live objects come
 * from the sampled live map and are estimates unless the sampling is 1.
 */
enum kmt_top_view {
	KMT_TOP_CALLSITE,
	KMT_TOP_CACHE,
	KMT_TOP_PROCESS,
	KMT_TOP_STACK,
	KMT_TOP_CGROUP,		/* needs kmt_top_set_cgroups */
	KMT_TOP_NR_VIEWS
};

#define KMT_TOP_ORDERS	4	/* page columns: order 0, 1, 2, 3 and above */

/* the columns, each a sort key */
enum kmt_top_col {
	KMT_TOP_ALLOCS,		/* per second */
	KMT_TOP_FREES,
	KMT_TOP_BYTES,
	KMT_TOP_LIVE,		/* objects allocated since the start, not freed */
	KMT_TOP_LIVE_BYTES,
	KMT_TOP_GROWTH,		/* live bytes: change per second */
	KMT_TOP_WASTE,		/* bytes_alloc - bytes_req, per second */
	KMT_TOP_PAGES,		/* page allocations per second, all orders */
	KMT_TOP_NR_COLS
};

struct kmt_top_row {
	uint64_t key;		/* site, cache, tgid, or stack key hash */
	uint64_t site;		/* callsite (stack view: its callsite too) */
	uint64_t cache;		/* cache view: struct kmem_cache, or a size */
	uint32_t tgid;
	uint32_t stack;		/* session stack id (stack view) */
	uint8_t kind;		/* the first kind seen (stack, cache views) */
	uint8_t est_pages;	/* page counts estimated from sampled stacks */
	/* since the start */
	uint64_t allocs, frees, bytes, waste;
	uint64_t pages[KMT_TOP_ORDERS];
	/* over the last interval */
	uint64_t d_allocs, d_frees, d_bytes, d_waste;
	uint64_t d_pages[KMT_TOP_ORDERS];
	/* live (scaled by the sampling) and its change over the interval */
	uint64_t live, live_bytes;
	int64_t d_live_bytes;
	uint64_t fails;		/* failed allocations */
	uint64_t accounted, d_accounted;	/* cgroup view: charged bytes */
};

struct kmt_top_totals {
	uint64_t events, d_events;	/* every kmem event seen */
	uint64_t allocs, d_allocs;
	uint64_t frees, d_frees;
	uint64_t bytes, d_bytes;
	uint64_t waste, d_waste;
	uint64_t pages, d_pages;
	uint64_t page_frees, d_page_frees;
	uint64_t live, live_bytes;	/* scaled */
	uint64_t stats[KMT_S_NR];	/* cumulative */
	uint64_t missed;		/* program runs the kernel skipped */
	uint64_t exited;		/* processes gone, folded into one row */
	/* percpu and vmalloc: allocations, bytes, frees, failures */
	uint64_t pcpu_allocs, pcpu_bytes, pcpu_frees, pcpu_fails;
	uint64_t vm_allocs, vm_bytes, vm_frees, vm_fails;
};

struct top_cgmirror {
	struct kmt_cg_key key;
	struct kmt_cg_val cur, last;
};

/* a counter of the kernel, as read now and at the refresh before */
struct top_mirror {
	struct kmt_site_key key;
	struct kmt_site_val cur, last;
	int pending;		/* counts in the kernel's per-CPU cache */
	int gone;		/* its process was gone at the last update */
};

struct top_smirror {
	struct kmt_stack_key key;
	struct kmt_stack_val cur, last;
};

KMT_HASH_TYPE(top_mirrors, struct top_mirror)
KMT_HASH_TYPE(top_smirrors, struct top_smirror)
KMT_HASH_TYPE(top_live_bytes, int64_t)
KMT_HASH_TYPE(top_rows_index, size_t)
KMT_HASH_TYPE(top_cgmirrors, struct top_cgmirror)

struct kmt_cgroups;

struct kmt_top {
	struct kmt_bpf *bpf;
	struct kmt_bpf_names *names;
	uint32_t sample;
	struct top_mirrors mirror;	/* site key hash -> its counters */
	struct top_smirrors stacks;	/* stack key hash -> its counters */
	struct kmt_hash_i32 alive;	/* tgid -> alive, per refresh */
	struct top_live_bytes prev_live; /* view key -> live bytes, last build */
	int prev_view;
	uint64_t start_ns, last_ns, now_ns;
	uint64_t prev_stats[KMT_S_NR];
	struct kmt_top_totals totals;
	struct kmt_top_row *rows;
	size_t nr_rows, alloc_rows;
	struct top_rows_index index;	/* view key -> row index */
	struct top_cgmirrors cgs;	/* cgroup key hash -> its counters */
	struct kmt_cgroups *cgroups;	/* names of cgroups, or NULL */
	char errmsg[512];
};

void kmt_top_init(struct kmt_top *t, struct kmt_bpf *b,
		  struct kmt_bpf_names *names, uint64_t now_ns);
void kmt_top_free(struct kmt_top *t);
/* reads the maps; now_ns on CLOCK_MONOTONIC.  0 or -errno (errmsg) */
int kmt_top_update(struct kmt_top *t, uint64_t now_ns);
/* the cgroup view's names (the programs count by cgroup) */
void kmt_top_set_cgroups(struct kmt_top *t, struct kmt_cgroups *c);
/* fills t->rows for view, sorted by col (descending, ties by key) */
int kmt_top_build(struct kmt_top *t, enum kmt_top_view view,
		  enum kmt_top_col col);
/* seconds of the last interval */
double kmt_top_interval(const struct kmt_top *t);

/* names for rows, views and columns */
const char *kmt_top_view_name(enum kmt_top_view v);
int kmt_top_view_from_name(const char *name);
const char *kmt_top_col_name(enum kmt_top_col c);
int kmt_top_col_from_name(const char *name);
/* the row's label in its view: "sym+off", a cache or "pid comm" */
const char *kmt_top_row_label(struct kmt_top *t, enum kmt_top_view view,
			      const struct kmt_top_row *r, char *buf,
			      size_t size);
/* "slab", "page", "percpu" or "vmalloc": the kind of a row (JSON's) */
const char *kmt_top_kind_word(int kind);
/* a row's value in a column (rates per second over the last interval) */
double kmt_top_row_value(const struct kmt_top *t, const struct kmt_top_row *r,
			 enum kmt_top_col c);

/* what a refresh shows (kmt_top_report) */
struct kmt_top_show {
	enum kmt_top_view view;
	enum kmt_top_col sort;
	size_t limit;		/* rows; 0: all */
	const char *target;	/* "system wide", "process 12,13" */
	/*
	 * A screen drawn again in place: no line for the rows left out,
	 * no blank line after the table
	 */
	int screen;
};

/*
 * A refresh (t's rows built for s->view and s->sort) as sections of r,
 * at the document's top level: the summary "refresh" (the header lines;
 * for JSON the time, interval, totals and counters), the table "rows"
 * (text as the screen's columns, JSON each row's totals and rates), and
 * the summary "rows_omitted".  r's meta spans the start to this refresh.
 * 0, or -ENOMEM.
 */
struct kmt_report;
int kmt_top_report(struct kmt_top *t, const struct kmt_top_show *s,
		   struct kmt_report *r);

/* the cache key of a kmalloc of bytes_alloc size (not an address) */
#define KMT_TOP_KMALLOC_SIZE(bytes)	((1ULL << 40) | (uint32_t)(bytes))
#define KMT_TOP_CACHE_IS_SIZE(c)	(((c) >> 40) == 1)
/* cache view rows of frees without a cache, and of pages */
#define KMT_TOP_CACHE_KFREE		0
#define KMT_TOP_CACHE_PAGES		1
#define KMT_TOP_CACHE_PERCPU		2
#define KMT_TOP_CACHE_VMALLOC		3
/* the process row of every process that exited meanwhile */
#define KMT_TOP_TGID_EXITED		UINT32_MAX

#endif
