/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_TESTS_TOPWATCH_FIXTURE_H
#define KMT_TESTS_TOPWATCH_FIXTURE_H

/*
 * Fixed snapshots of what top and watch read from the kernel: their
 * models (struct kmt_top, struct kmt_watch) filled by hand, without BPF,
 * with symbols from a made-up kallsyms and stacks interned in the names'
 * session.  The files of tests/data/live are what the printers of top
 * and watch printed for these snapshots before the commands drew through
 * the renderers (one file per case of tw_top_cases and tw_watch_cases),
 * so the output of every format stays what it was.
 *
 * The BPF handle has no maps: count_sites 0 makes the process name and
 * cache name lookups fail as for a name the kernel does not have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/names.h"
#include "bpf/top.h"
#include "bpf/watch.h"

#define TW_BASE		0xffffffff81000000ULL
#define TW_NR_SYMS	80
#define TW_DEEP		64	/* frames of the deep stack: text cuts it */

/* symbol i, TW_BASE + i * 0x1000; 10.. the frames of the deep stack */
static inline void tw_sym_name(char *buf, size_t size, int i)
{
	static const char *const names[] = {
		"__kmalloc_noprof", "do_eventfd", "alloc_inode",
		"__alloc_pages_noprof", "sk_prot_alloc", "kmem_cache_alloc",
		"alloc_pages_mpol", "pipe_write", "seq_read_iter",
		"ext4_alloc_inode",
	};

	if (i < 10)
		snprintf(buf, size, "%s", names[i]);
	else
		snprintf(buf, size, "frame_%02d_of_a_stack_whose_names_are_long_enough_that_"
			 "sixty_four_of_them_fill_more_than_the_text_and_json_buffers_x", i);
}

static inline uint64_t tw_addr(int i, unsigned int off)
{
	return TW_BASE + (uint64_t)i * 0x1000 + off;
}

struct tw_fix {
	struct kmt_bpf bpf;
	struct kmt_bpf_names names;
	struct kmt_top top;
	struct kmt_watch watch;
	struct kmt_watch_group groups[8];
	uint32_t short_stack, deep_stack;
};

static inline int tw_names_init(struct tw_fix *f)
{
	struct kmt_bpf_names *n = &f->names;
	char *text = malloc(TW_NR_SYMS * 256), name[200];
	uint64_t ips[TW_DEEP];
	size_t len = 0;
	int i;

	if (!text)
		return -ENOMEM;
	memset(n, 0, sizeof(*n));
	if (kmt_session_init(&n->sess)) {
		free(text);
		return -ENOMEM;
	}
	kmt_callsite_cache_init(&n->callsites);
	kmt_hash_u32_init(&n->ids);
	for (i = 0; i < TW_NR_SYMS; i++) {
		tw_sym_name(name, sizeof(name), i);
		len += (size_t)sprintf(text + len, "%llx T %s\n",
				       (unsigned long long)tw_addr(i, 0), name);
	}
	if (kmt_symtab_load_kallsyms(&n->sess.syms, text, len) < 0) {
		free(text);
		return -EINVAL;
	}
	free(text);
	kmt_symtab_prepare(&n->sess.syms);
	ips[0] = tw_addr(1, 0x22);
	ips[1] = tw_addr(7, 0x1a0);
	ips[2] = tw_addr(8, 0x3c);
	f->short_stack = kmt_stacks_intern(&n->sess.stacks, ips, 3);
	for (i = 0; i < TW_DEEP; i++)
		ips[i] = tw_addr(10 + i, 0x10 + i);
	f->deep_stack = kmt_stacks_intern(&n->sess.stacks, ips, TW_DEEP);
	return f->short_stack && f->deep_stack ? 0 : -ENOMEM;
}

/*
 * top: variant 0, sampled 1 in 64 over 2 s, drops and skipped events,
 * seven rows whose keys read as every view's labels; 1, sampled 1 in 1,
 * no interval (the rates divide by the 1 ns floor, cells wider than
 * their columns), no drops, counts of 1; 2, no rows at all.
 */
static inline int tw_top_fill(struct tw_fix *f, int variant)
{
	struct kmt_top *t = &f->top;
	struct kmt_top_totals *tt = &t->totals;
	struct kmt_top_row *r;
	size_t i;

	kmt_top_init(t, &f->bpf, &f->names, 1000000000ULL);
	t->now_ns = 13500000000ULL;
	t->last_ns = variant == 1 ? t->now_ns : 11500000000ULL;
	if (variant == 1)
		t->sample = 1;
	if (variant == 2) {
		tt->events = 5;
		tt->d_events = 5;
		return 0;
	}
	t->alloc_rows = 7;
	t->rows = calloc(t->alloc_rows, sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	t->nr_rows = variant == 1 ? 3 : 7;
	for (i = 0; i < t->nr_rows; i++) {
		r = &t->rows[i];
		r->allocs = 1000 * (i + 1) + 7;
		r->frees = 900 * (i + 1);
		r->bytes = 123456789ULL * (i + 1);
		r->waste = 4567 * i;
		r->pages[0] = 10 * i;
		r->pages[1] = i;
		r->pages[3] = i * i;
		r->d_allocs = 20000 - 2500 * i;
		r->d_frees = 19000 - 2000 * i;
		r->d_bytes = 99999ULL * 1000 / (i + 1);
		r->d_waste = 123 * i;
		r->d_pages[0] = 3 * i;
		r->d_pages[2] = i;
		r->live = 64 * i;
		r->live_bytes = 64 * 96 * i;
		r->d_live_bytes = (int64_t)(64 * 96 * i) - 6144;
		r->kind = KMT_K_KMALLOC;
	}
	/* the keys and sites each view names its rows by */
	r = t->rows;
	r[0].key = KMT_TOP_KMALLOC_SIZE(96);
	r[0].site = tw_addr(1, 0x22);
	r[0].stack = f->short_stack;
	r[1].key = KMT_TOP_CACHE_KFREE;
	r[1].site = 0;
	r[1].est_pages = 1;
	r[1].kind = KMT_K_PAGE_ALLOC;
	r[2].key = KMT_TOP_CACHE_PAGES;
	r[2].site = 0x1234;	/* no symbol: "0x1234" */
	if (variant == 1) {
		/* 1 ns: every rate a billion times its count */
		r[0].d_bytes = 12345678901ULL;
		r[0].d_allocs = 1;
		r[1].d_live_bytes = -999999999999LL;
		r[1].d_pages[0] = 10000000000ULL;
		r[2].d_pages[3] = 70000;
		r[0].live = r[0].live_bytes = 1;
		tt->events = tt->live = tt->live_bytes = tt->exited = 1;
		tt->d_events = 1;
		return 0;
	}
	r[3].key = 0xffff888012345678ULL;	/* a cache not named */
	r[3].site = tw_addr(2, 0x4f);
	r[3].stack = f->deep_stack;
	r[4].key = KMT_TOP_TGID_EXITED;
	r[4].site = tw_addr(4, 0x100);
	r[5].key = 4242;
	r[5].site = tw_addr(3, 0x2a);
	r[5].kind = KMT_K_PAGE_ALLOC;
	r[5].est_pages = 1;
	r[6].key = 0;
	r[6].site = tw_addr(9, 0x11);
	r[6].d_live_bytes = -123456789;
	r[6].d_allocs = 123456789012345ULL;
	tt->events = 987654321;
	tt->d_events = 2469134;
	tt->allocs = 123456;
	tt->d_allocs = 40000;
	tt->frees = 120000;
	tt->d_frees = 39000;
	tt->bytes = 9876543210ULL;
	tt->d_bytes = 2222222;
	tt->waste = 77777;
	tt->d_waste = 999;
	tt->pages = 4321;
	tt->d_pages = 17;
	tt->page_frees = 4000;
	tt->d_page_frees = 12;
	tt->live = 6400;
	tt->live_bytes = 614400;
	tt->exited = 3;
	for (i = 0; i < KMT_S_NR; i++)
		tt->stats[i] = 100 + i;
	tt->stats[KMT_S_SITES_FULL] = 0;
	tt->stats[KMT_S_STACK_FAILED] = 0;
	tt->missed = 5;
	return 0;
}

static inline void tw_group(struct kmt_watch_group *g, uint64_t site,
			    int64_t stack_id, int kind, int order,
			    uint32_t stack)
{
	memset(g, 0, sizeof(*g));
	g->key.site = kind == KMT_K_PAGE_ALLOC ? 0 : site;
	g->key.stack_id = stack_id;
	g->key.kind = (uint8_t)kind;
	g->key.order = (uint8_t)order;
	g->site = site;
	g->stack = stack;
}

/*
 * watch: variant 0, sampled 1 in 16, seven groups of every kind of
 * stack (a short one, a deep one, none in the map, none taken for each
 * reason) and five callsites, one with nothing old; 1, sampled 1 in 1,
 * nothing outstanding, no losses, counts of 1.
 */
static inline int tw_watch_fill(struct tw_fix *f, int variant)
{
	struct kmt_watch *w = &f->watch;
	struct kmt_watch_group *g = f->groups;
	static const int64_t trend8[] = { 10, 12, 15, 15, 20, 26, 30, 41 };
	static const int64_t big[] = {
		0, 4000000000000000000LL, -4000000000000000000LL,
		4000000000000000000LL, -4000000000000000000LL,
		4000000000000000000LL, -4000000000000000000LL,
		4000000000000000000LL,
	};
	size_t i;

	kmt_watch_init(w, &f->bpf, &f->names, 5000000000ULL, 2000000000ULL);
	w->sample = variant == 1 ? 1 : 16;
	w->now_ns = 9302000000000ULL;
	w->intervals = 3;
	if (variant == 1) {
		w->stats[KMT_S_EVENTS_KFREE] = 1;
		w->stats[KMT_S_UNKNOWN_FREE] = 1;
		w->stats[KMT_S_REALLOC] = 1;
		w->stacks_pruned = 1;
		w->live = w->live_bytes = 1;
		w->old_count = w->old_bytes = 1;
		return 0;
	}
	tw_group(&g[0], tw_addr(1, 0x22), 7, KMT_K_KMALLOC, 0,
		 f->short_stack);
	tw_group(&g[1], tw_addr(3, 0x2a), 9, KMT_K_PAGE_ALLOC, 2,
		 f->deep_stack);
	tw_group(&g[2], tw_addr(2, 0x4f), 11, KMT_K_CACHE_ALLOC, 0, 0);
	tw_group(&g[3], tw_addr(4, 0x100), -ENOMEM, KMT_K_KMALLOC, 0, 0);
	tw_group(&g[4], tw_addr(6, 0x8), -EFAULT, KMT_K_PAGE_ALLOC, 0, 0);
	tw_group(&g[5], tw_addr(5, 0x30), -ENOENT, KMT_K_CACHE_ALLOC, 0, 0);
	tw_group(&g[6], 0x1234, 13, KMT_K_KMALLOC, 0, 0);
	for (i = 0; i < 7; i++) {
		g[i].count = 16 * (70 - 10 * i);
		g[i].bytes = 16 * 4096 * (7 - i);
		g[i].min_age = 5000000000ULL + 1000000000ULL * i;
		g[i].max_age = 1000000ULL * (i + 1) * (i + 1) * 60000;
		g[i].live = 16 * (80 - 10 * (int64_t)i);
		g[i].live_bytes = 16 * 4096 * (8 - (int64_t)i);
		g[i].allocs = 16 * 1000 * (i + 1);
		g[i].frees = 16 * 990 * (i + 1);
		memcpy(g[i].trend, trend8, sizeof(trend8));
		g[i].nr_trend = (int)(8 - i);
	}
	g[0].growing = 1;
	g[1].min_age = 250000000ULL;		/* "250ms" */
	g[1].max_age = 999000000ULL;
	g[1].nr_trend = 1;			/* "-" */
	g[2].max_age = 7200000000000ULL;	/* 2 hours: "2.0h" */
	g[3].nr_trend = 2;
	g[6].count = 1;
	g[6].bytes = 1;
	g[6].live = -3;
	memcpy(g[6].trend, big, sizeof(big));	/* more than the text holds */
	g[6].nr_trend = 8;
	w->nr_sorted = 7;
	w->alloc_sorted = 7;
	w->sorted = calloc(7, sizeof(*w->sorted));
	w->alloc_sites = 5;
	w->sites = calloc(5, sizeof(*w->sites));
	if (!w->sorted || !w->sites)
		return -ENOMEM;
	for (i = 0; i < 7; i++)
		w->sorted[i] = &g[i];
	w->nr_sites = 5;
	for (i = 0; i < 5; i++) {
		struct kmt_watch_site *s = &w->sites[i];

		s->site = g[i].site;
		s->kind = g[i].key.kind;
		s->count = g[i].count;
		s->bytes = g[i].bytes;
		s->min_age = g[i].min_age;
		s->max_age = g[i].max_age;
		s->live = g[i].live;
		s->live_bytes = g[i].live_bytes;
		s->allocs = g[i].allocs;
		s->frees = g[i].frees;
		memcpy(s->trend, g[i].trend, sizeof(s->trend));
		s->nr_trend = g[i].nr_trend;
		s->growing = g[i].growing;
		s->nr_stacks = (uint32_t)(i + 1);
	}
	w->sites[1].count = 0;		/* nothing old: not a row */
	w->sites[4].nr_stacks = 123456;
	for (i = 0; i < KMT_S_NR; i++)
		w->stats[i] = 1000 + i;
	w->stats[KMT_S_STACK_FULL] = 0;
	w->missed = 7;
	w->stacks_pruned = 2;
	w->old_count = 4480;
	w->old_bytes = 1835008;
	w->live = 5120;
	w->live_bytes = 2097152;
	return 0;
}

static inline int tw_fix_init(struct tw_fix *f)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->bpf.cfg.track_live = 1;
	f->bpf.cfg.sample = 64;
	f->bpf.cfg.free_context = 0;
	f->bpf.nr_cpus = 2;
	/* the fixture's kernel has the percpu and vmalloc tracepoints */
	for (i = 0; i < KMT_TP_NR; i++)
		f->bpf.rare_on[i] = 1;
	return tw_names_init(f);
}

static inline void tw_fix_free(struct tw_fix *f)
{
	kmt_top_free(&f->top);
	kmt_watch_free(&f->watch);
	kmt_bpf_names_free(&f->names);
}

/* what each file of tests/data/live is the output of */
struct tw_top_case {
	const char *name;
	int variant;
	enum kmt_top_view view;
	enum kmt_top_col sort;
	int json;
	int limit;
	int screen;		/* the live view: rows of a screen */
	int width;		/* its width, 0 none */
};

static const struct tw_top_case tw_top_cases[] = {
	{ "top-callsite.txt", 0, KMT_TOP_CALLSITE, KMT_TOP_BYTES, 0, 0, 0, 0 },
	{ "top-callsite-l3.txt", 0, KMT_TOP_CALLSITE, KMT_TOP_BYTES, 0, 3, 0, 0 },
	{ "top-cache-l6.txt", 0, KMT_TOP_CACHE, KMT_TOP_ALLOCS, 0, 6, 0, 0 },
	{ "top-process.txt", 0, KMT_TOP_PROCESS, KMT_TOP_LIVE, 0, 0, 0, 0 },
	{ "top-stack.txt", 0, KMT_TOP_STACK, KMT_TOP_GROWTH, 0, 0, 0, 0 },
	{ "top-ones.txt", 1, KMT_TOP_CALLSITE, KMT_TOP_WASTE, 0, 0, 0, 0 },
	{ "top-empty.txt", 2, KMT_TOP_CALLSITE, KMT_TOP_BYTES, 0, 20, 0, 0 },
	{ "top-callsite.json", 0, KMT_TOP_CALLSITE, KMT_TOP_BYTES, 1, 0, 0, 0 },
	{ "top-callsite-l3.json", 0, KMT_TOP_CALLSITE, KMT_TOP_PAGES, 1, 3, 0, 0 },
	{ "top-cache.json", 0, KMT_TOP_CACHE, KMT_TOP_FREES, 1, 0, 0, 0 },
	{ "top-process-l1.json", 0, KMT_TOP_PROCESS, KMT_TOP_LIVE_BYTES, 1, 1, 0, 0 },
	{ "top-stack.json", 0, KMT_TOP_STACK, KMT_TOP_BYTES, 1, 0, 0, 0 },
	{ "top-ones.json", 1, KMT_TOP_PROCESS, KMT_TOP_BYTES, 1, 0, 0, 0 },
	{ "top-empty.json", 2, KMT_TOP_STACK, KMT_TOP_BYTES, 1, 20, 0, 0 },
	{ "top-screen.txt", 0, KMT_TOP_CALLSITE, KMT_TOP_BYTES, 0, 20, 4, 0 },
	{ "top-screen-w50.txt", 0, KMT_TOP_STACK, KMT_TOP_ALLOCS, 0, 20, 16, 50 },
};

struct tw_watch_case {
	const char *name;
	int variant;
	int json;
	int final;
	int limit;
	int frames;
};

static const struct tw_watch_case tw_watch_cases[] = {
	{ "watch.txt", 0, 0, 0, 0, 0 },
	{ "watch-l2-f2.txt", 0, 0, 1, 2, 2 },
	{ "watch-l4.txt", 0, 0, 0, 4, 0 },
	{ "watch-ones.txt", 1, 0, 1, 10, 0 },
	{ "watch.json", 0, 1, 0, 0, 0 },
	{ "watch-l2.json", 0, 1, 1, 2, 2 },
	{ "watch-ones.json", 1, 1, 1, 10, 0 },
};

#endif
