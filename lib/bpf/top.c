// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/cgroups.h"
#include "bpf/top.h"
#include "report/report.h"
#include "util/array.h"

static const char *const view_names[KMT_TOP_NR_VIEWS] = {
	[KMT_TOP_CALLSITE]	= "callsite",
	[KMT_TOP_CACHE]		= "cache",
	[KMT_TOP_PROCESS]	= "process",
	[KMT_TOP_STACK]		= "stack",
	[KMT_TOP_CGROUP]	= "cgroup",
};

static const char *const col_names[KMT_TOP_NR_COLS] = {
	[KMT_TOP_ALLOCS]	= "allocs",
	[KMT_TOP_FREES]		= "frees",
	[KMT_TOP_BYTES]		= "bytes",
	[KMT_TOP_LIVE]		= "live",
	[KMT_TOP_LIVE_BYTES]	= "live-bytes",
	[KMT_TOP_GROWTH]	= "growth",
	[KMT_TOP_WASTE]		= "waste",
	[KMT_TOP_PAGES]		= "pages",
};

const char *kmt_top_view_name(enum kmt_top_view v)
{
	return v < KMT_TOP_NR_VIEWS ? view_names[v] : NULL;
}

int kmt_top_view_from_name(const char *name)
{
	int i;

	for (i = 0; i < KMT_TOP_NR_VIEWS; i++) {
		if (!strcmp(name, view_names[i]))
			return i;
	}
	return -1;
}

const char *kmt_top_col_name(enum kmt_top_col c)
{
	return c < KMT_TOP_NR_COLS ? col_names[c] : NULL;
}

int kmt_top_col_from_name(const char *name)
{
	int i;

	for (i = 0; i < KMT_TOP_NR_COLS; i++) {
		if (!strcmp(name, col_names[i]))
			return i;
	}
	return -1;
}

void kmt_top_init(struct kmt_top *t, struct kmt_bpf *b,
		  struct kmt_bpf_names *names, uint64_t now_ns)
{
	memset(t, 0, sizeof(*t));
	t->bpf = b;
	t->names = names;
	t->sample = b->cfg.track_live ? b->cfg.sample : 0;
	top_mirrors_init(&t->mirror);
	top_smirrors_init(&t->stacks);
	kmt_hash_i32_init(&t->alive);
	top_live_bytes_init(&t->prev_live);
	top_rows_index_init(&t->index);
	top_cgmirrors_init(&t->cgs);
	t->prev_view = -1;
	t->start_ns = t->last_ns = t->now_ns = now_ns;
}

void kmt_top_free(struct kmt_top *t)
{
	top_mirrors_free(&t->mirror);
	top_smirrors_free(&t->stacks);
	kmt_hash_i32_free(&t->alive);
	top_live_bytes_free(&t->prev_live);
	top_rows_index_free(&t->index);
	top_cgmirrors_free(&t->cgs);
	free(t->rows);
	t->rows = NULL;
}

void kmt_top_set_cgroups(struct kmt_top *t, struct kmt_cgroups *c)
{
	t->cgroups = c;
}

double kmt_top_interval(const struct kmt_top *t)
{
	return (t->now_ns - t->last_ns) / 1e9;
}

static int top_error(struct kmt_top *t, int err, const char *what)
{
	snprintf(t->errmsg, sizeof(t->errmsg), "%s", what);
	return err < 0 ? err : -err;
}

/*
 * The tables are keyed by a hash of the whole key: 64 bits for a few
 * hundred thousand keys makes a collision vanishingly unlikely, and the
 * full key is kept beside it all the same.
 */
static uint64_t site_hash(const struct kmt_site_key *k)
{
	return kmt_hash_bytes(k, sizeof(*k)) | 1;
}

static uint64_t stack_hash(const struct kmt_stack_key *k)
{
	return kmt_hash_bytes(k, sizeof(*k)) | 1;
}

/* whether the process of a key is alive, asked once an update */
static int note_alive(struct kmt_top *t, uint32_t tgid)
{
	int *alive, is_new;

	if (tgid == KMT_TOP_TGID_EXITED)
		return 0;
	alive = kmt_hash_i32_put(&t->alive, tgid, &is_new);
	if (!alive)
		return -ENOMEM;
	/* tgid 0 is the idle task: interrupts on an idle CPU */
	if (is_new)
		*alive = !tgid || kill((pid_t)tgid, 0) == 0 || errno != ESRCH;
	return 0;
}

/* the mirror of a key, made (zero) when new; NULL out of memory */
static struct top_mirror *mirror_of(struct kmt_top *t,
				    const struct kmt_site_key *k)
{
	struct top_mirror *m;
	int is_new;

	m = top_mirrors_put(&t->mirror, site_hash(k), &is_new);
	if (m && is_new)
		m->key = *k;
	return m;
}

static int on_site(void *ctx, const struct kmt_site_key *k,
		   const struct kmt_site_val *v)
{
	struct kmt_top *t = ctx;
	struct top_mirror *m = mirror_of(t, k);

	if (!m)
		return -ENOMEM;
	m->cur = *v;
	return note_alive(t, k->tgid);
}

static void add_val(struct kmt_site_val *to, const struct kmt_site_val *v)
{
	to->count += v->count;
	to->bytes_req += v->bytes_req;
	to->bytes_alloc += v->bytes_alloc;
}

/* a CPU's counts of a key not yet in the counts map */
static int on_pending(void *ctx, const struct kmt_site_key *k,
		      const struct kmt_site_val *v)
{
	struct kmt_top *t = ctx;
	struct top_mirror *m = mirror_of(t, k);

	if (!m)
		return -ENOMEM;
	add_val(&m->cur, v);
	m->pending = 1;
	return note_alive(t, k->tgid);
}

static int on_cgroup(void *ctx, const struct kmt_cg_key *k,
		     const struct kmt_cg_val *v)
{
	struct kmt_top *t = ctx;
	struct top_cgmirror *m;
	int is_new;

	m = top_cgmirrors_put(&t->cgs, kmt_hash_bytes(k, sizeof(*k)) | 1,
			      &is_new);
	if (!m)
		return -ENOMEM;
	if (is_new)
		m->key = *k;
	m->cur = *v;
	return 0;
}

static int on_stack_agg(void *ctx, const struct kmt_stack_key *k,
			const struct kmt_stack_val *v)
{
	struct kmt_top *t = ctx;
	struct top_smirror *m;
	int is_new;

	m = top_smirrors_put(&t->stacks, stack_hash(k), &is_new);
	if (!m)
		return -ENOMEM;
	if (is_new)
		m->key = *k;
	m->cur = *v;
	return 0;
}

/*
 * The counters of processes that are gone are read one last time, folded
 * into one row per (site, cache, kind) of tgid KMT_TOP_TGID_EXITED, and
 * deleted from the kernel: the map holds the processes of an interval,
 * not of the whole run.  Not while a CPU's cache holds counts of the key
 * (they would come back as a new key), and only when the process was
 * gone at the update before too: counts that moved from the cache to
 * the map while they were read are in the map by then.
 */
static int retire_exited(struct kmt_top *t)
{
	uint64_t *dead = NULL, key;
	size_t nr = 0, alloc = 0, it = 0, i;
	struct top_mirror *m;
	int ret = 0;

	while (top_mirrors_next(&t->mirror, &it, &key, &m)) {
		int *alive;

		if (m->key.tgid == KMT_TOP_TGID_EXITED)
			continue;
		alive = kmt_hash_i32_get(&t->alive, m->key.tgid);
		if (!alive || *alive || m->pending) {
			m->gone = 0;
			continue;
		}
		if (!m->gone) {
			m->gone = 1;
			continue;
		}
		if (KMT_ARRAY_GROW(dead, nr + 1, alloc)) {
			free(dead);
			return -ENOMEM;
		}
		dead[nr++] = key;
	}
	for (i = 0; i < nr; i++) {
		struct top_mirror gone, *to;
		struct kmt_site_key k;
		uint32_t tgid;

		if (!top_mirrors_del(&t->mirror, dead[i], &gone))
			continue;
		tgid = gone.key.tgid;
		kmt_bpf_delete_site(t->bpf, &gone.key);
		if (kmt_hash_i32_del(&t->alive, tgid, NULL)) {
			kmt_bpf_delete_comm(t->bpf, tgid);
			t->totals.exited++;
		}
		k = gone.key;
		k.tgid = KMT_TOP_TGID_EXITED;
		to = mirror_of(t, &k);
		if (!to) {
			ret = -ENOMEM;
			break;
		}
		add_val(&to->cur, &gone.cur);
		add_val(&to->last, &gone.last);
	}
	free(dead);
	return ret;
}

int kmt_top_update(struct kmt_top *t, uint64_t now_ns)
{
	struct kmt_top_totals *tt = &t->totals;
	struct top_cgmirror *cm;
	struct top_smirror *sm;
	struct top_mirror *m;
	uint64_t key;
	size_t it = 0;
	int ret, i;

	t->last_ns = t->now_ns;
	t->now_ns = now_ns;
	while (top_mirrors_next(&t->mirror, &it, &key, &m)) {
		m->last = m->cur;
		m->pending = 0;
	}
	it = 0;
	while (top_smirrors_next(&t->stacks, &it, &key, &sm))
		sm->last = sm->cur;
	it = 0;
	while (top_cgmirrors_next(&t->cgs, &it, &key, &cm))
		cm->last = cm->cur;
	if (t->cgroups)
		kmt_cgroups_refresh(t->cgroups);
	kmt_hash_i32_clear(&t->alive);
	ret = kmt_bpf_for_each_site(t->bpf, on_site, t);
	if (!ret)
		ret = kmt_bpf_for_each_pending_site(t->bpf, on_pending, t);
	if (!ret)
		ret = kmt_bpf_for_each_stack_agg(t->bpf, on_stack_agg, t);
	if (!ret)
		ret = kmt_bpf_for_each_cgroup(t->bpf, on_cgroup, t);
	if (ret)
		return top_error(t, ret, ret == -ENOMEM ? "out of memory" :
				 t->bpf->errmsg);
	ret = retire_exited(t);
	if (ret)
		return top_error(t, ret, "out of memory");
	memcpy(t->prev_stats, tt->stats, sizeof(t->prev_stats));
	ret = kmt_bpf_read_stats(t->bpf, tt->stats, &tt->missed);
	if (ret)
		return top_error(t, ret, t->bpf->errmsg);
	tt->events = tt->d_events = 0;
	for (i = KMT_S_EVENTS_KMALLOC; i < KMT_S_NR; i++) {
		if (i > KMT_S_EVENTS_PAGE_FREE && i != KMT_S_EVENTS_PERCPU &&
		    i != KMT_S_EVENTS_VMALLOC)
			continue;
		tt->events += tt->stats[i];
		tt->d_events += tt->stats[i] - t->prev_stats[i];
	}
	return 0;
}

static int is_alloc(int kind)
{
	return kind == KMT_K_KMALLOC || kind == KMT_K_CACHE_ALLOC ||
	       kind == KMT_K_PERCPU_ALLOC || kind == KMT_K_VMALLOC_ALLOC;
}

static int is_free(int kind)
{
	return kind == KMT_K_KFREE || kind == KMT_K_CACHE_FREE ||
	       kind == KMT_K_PERCPU_FREE || kind == KMT_K_VMALLOC_FREE;
}

static int is_fail(int kind)
{
	return kind == KMT_K_PERCPU_FAIL || kind == KMT_K_VMALLOC_FAIL;
}

static int is_percpu(int kind)
{
	return kind >= KMT_K_PERCPU_ALLOC && kind <= KMT_K_PERCPU_FAIL;
}

const char *kmt_top_kind_word(int kind)
{
	if (kind == KMT_K_PAGE_ALLOC || kind == KMT_K_PAGE_FREE)
		return "page";
	if (is_percpu(kind))
		return "percpu";
	if (KMT_K_IS_RARE(kind))
		return "vmalloc";
	return "slab";
}

/* rare kinds are followed whole; the rest one address in sample */
static uint64_t kind_scale(const struct kmt_top *t, int kind)
{
	return KMT_K_IS_RARE(kind) ? 1 : t->sample;
}

/* the row of key in the rows being built, made when new */
static struct kmt_top_row *row_for(struct kmt_top *t, uint64_t key)
{
	size_t *idx;
	int is_new;

	idx = top_rows_index_put(&t->index, key, &is_new);
	if (!idx)
		return NULL;
	if (is_new) {
		if (KMT_ARRAY_GROW(t->rows, t->nr_rows + 1, t->alloc_rows)) {
			top_rows_index_del(&t->index, key, NULL);
			return NULL;
		}
		memset(&t->rows[t->nr_rows], 0, sizeof(*t->rows));
		t->rows[t->nr_rows].key = key;
		*idx = t->nr_rows++;
	}
	return &t->rows[*idx];
}

static uint64_t cache_key(const struct kmt_site_key *k)
{
	switch (k->kind) {
	case KMT_K_KMALLOC:
		return KMT_TOP_KMALLOC_SIZE(k->cache);
	case KMT_K_CACHE_ALLOC:
	case KMT_K_CACHE_FREE:
		return k->cache;
	case KMT_K_KFREE:
		return KMT_TOP_CACHE_KFREE;
	case KMT_K_PAGE_ALLOC:
	case KMT_K_PAGE_FREE:
		return KMT_TOP_CACHE_PAGES;
	default:
		return is_percpu(k->kind) ? KMT_TOP_CACHE_PERCPU :
		       KMT_TOP_CACHE_VMALLOC;
	}
}

static int order_col(int order)
{
	return order < KMT_TOP_ORDERS ? order : KMT_TOP_ORDERS - 1;
}

static void add_site(struct kmt_top *t, struct kmt_top_row *r,
		     const struct top_mirror *m, int count_pages)
{
	const struct kmt_site_val *c = &m->cur, *l = &m->last;
	struct kmt_top_totals *tt = &t->totals;
	struct kmt_top_row scratch;
	int kind = m->key.kind;

	/* without a row, for the totals alone */
	if (!r)
		r = &scratch;
	if (!r->kind)
		r->kind = kind;
	if (KMT_K_IS_RARE(kind)) {
		int pc = is_percpu(kind);

		if (is_alloc(kind)) {
			*(pc ? &tt->pcpu_allocs : &tt->vm_allocs) += c->count;
			*(pc ? &tt->pcpu_bytes : &tt->vm_bytes) +=
				c->bytes_alloc;
		} else if (is_free(kind)) {
			*(pc ? &tt->pcpu_frees : &tt->vm_frees) += c->count;
		} else {
			*(pc ? &tt->pcpu_fails : &tt->vm_fails) += c->count;
			r->fails += c->count;
		}
	}
	if (is_alloc(kind)) {
		r->allocs += c->count;
		r->d_allocs += c->count - l->count;
		r->bytes += c->bytes_alloc;
		r->d_bytes += c->bytes_alloc - l->bytes_alloc;
		r->waste += c->bytes_alloc - c->bytes_req;
		r->d_waste += (c->bytes_alloc - c->bytes_req) -
			      (l->bytes_alloc - l->bytes_req);
		tt->allocs += c->count;
		tt->d_allocs += c->count - l->count;
		tt->bytes += c->bytes_alloc;
		tt->d_bytes += c->bytes_alloc - l->bytes_alloc;
		tt->waste += c->bytes_alloc - c->bytes_req;
		tt->d_waste += (c->bytes_alloc - c->bytes_req) -
			       (l->bytes_alloc - l->bytes_req);
	} else if (is_free(kind)) {
		r->frees += c->count;
		r->d_frees += c->count - l->count;
		tt->frees += c->count;
		tt->d_frees += c->count - l->count;
	} else if (kind == KMT_K_PAGE_ALLOC) {
		if (count_pages) {
			r->pages[order_col(m->key.order)] += c->count;
			r->d_pages[order_col(m->key.order)] +=
				c->count - l->count;
			r->bytes += c->bytes_alloc;
			r->d_bytes += c->bytes_alloc - l->bytes_alloc;
		}
		tt->pages += c->count;
		tt->d_pages += c->count - l->count;
	} else if (kind == KMT_K_PAGE_FREE) {
		if (count_pages) {
			r->frees += c->count;
			r->d_frees += c->count - l->count;
		}
		tt->page_frees += c->count;
		tt->d_page_frees += c->count - l->count;
	}
}

/* the callsite of what a stack key or a live object stands for */
static uint64_t site_of(struct kmt_top *t, uint64_t site, int64_t stack_id,
			int kind, uint32_t *stack)
{
	uint32_t st;

	if (KMT_K_SITE_IS_STACK(kind)) {
		st = kmt_bpf_names_rare_stack(t->names, t->bpf, stack_id);
		if (stack)
			*stack = st;
		return kmt_bpf_names_rare_site(t->names, st);
	}
	st = kmt_bpf_names_stack(t->names, t->bpf, stack_id,
				 kind == KMT_K_PAGE_ALLOC ? 0 : site);

	if (stack)
		*stack = st;
	if (kind == KMT_K_PAGE_ALLOC)
		return kmt_bpf_names_page_site(t->names, st);
	return site;
}

/* the callsite view's row key: rare kinds apart from slab at one site */
static uint64_t callsite_key(uint64_t site, int kind)
{
	if (!KMT_K_IS_RARE(kind))
		return site;
	return site ^ ((is_percpu(kind) ? 1ULL : 2ULL) << 56);
}

struct live_ctx {
	struct kmt_top *t;
	enum kmt_top_view view;
};

static int on_live(void *ctx, uint64_t addr, const struct kmt_live_val *v)
{
	struct live_ctx *lc = ctx;
	struct kmt_top *t = lc->t;
	struct kmt_top_row *r = NULL;
	uint64_t scale = kind_scale(t, v->kind), site;

	(void)addr;
	switch (lc->view) {
	case KMT_TOP_CALLSITE:
		site = site_of(t, v->site, v->stack_id, v->kind, NULL);
		r = row_for(t, callsite_key(site, v->kind));
		if (r) {
			r->site = site;
			if (!r->kind)
				r->kind = v->kind;
		}
		break;
	case KMT_TOP_CGROUP:
		r = row_for(t, v->cgroup);
		break;
	case KMT_TOP_CACHE: {
		struct kmt_site_key k = { .cache = v->cache, .kind = v->kind };

		r = row_for(t, cache_key(&k));
		break;
	}
	case KMT_TOP_PROCESS:
		r = row_for(t, kmt_hash_i32_get(&t->alive, v->tgid) ||
			       v->tgid == 0 ? v->tgid : KMT_TOP_TGID_EXITED);
		break;
	default:
		return 0;
	}
	if (!r)
		return -ENOMEM;
	r->live += scale;
	r->live_bytes += scale * v->bytes;
	t->totals.live += scale;
	t->totals.live_bytes += scale * v->bytes;
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

struct sort_ctx {
	const struct kmt_top *t;
	enum kmt_top_col col;
};

/* glibc's qsort_r: the sort key travels with the call, not in a global */
static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct kmt_top_row *a = pa, *b = pb;
	double va = kmt_top_row_value(sc->t, a, sc->col);
	double vb = kmt_top_row_value(sc->t, b, sc->col);

	if (va != vb)
		return va > vb ? -1 : 1;
	/* then by what was allocated in all, then by key: deterministic */
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return cmp_u64(a->key, b->key);
}

int kmt_top_build(struct kmt_top *t, enum kmt_top_view view,
		  enum kmt_top_col col)
{
	struct kmt_top_totals *tt = &t->totals;
	struct live_ctx lc = { t, view };
	struct sort_ctx sc = { t, col };
	struct top_cgmirror *cm;
	struct top_smirror *sm;
	struct top_mirror *m;
	uint64_t key;
	size_t it = 0, i;
	int ret, switched;

	t->nr_rows = 0;
	top_rows_index_clear(&t->index);
	tt->allocs = tt->d_allocs = tt->frees = tt->d_frees = 0;
	tt->bytes = tt->d_bytes = tt->waste = tt->d_waste = 0;
	tt->pages = tt->d_pages = tt->page_frees = tt->d_page_frees = 0;
	tt->live = tt->live_bytes = 0;
	tt->pcpu_allocs = tt->pcpu_bytes = tt->pcpu_frees = tt->pcpu_fails = 0;
	tt->vm_allocs = tt->vm_bytes = tt->vm_frees = tt->vm_fails = 0;
	while (top_mirrors_next(&t->mirror, &it, &key, &m)) {
		struct kmt_top_row *r;
		uint64_t rk, site;
		int pages = 1;

		site = m->key.site;
		switch (view) {
		case KMT_TOP_CALLSITE:
			if (KMT_K_SITE_IS_STACK(m->key.kind))
				site = site_of(t, 0, (int64_t)m->key.site,
					       m->key.kind, NULL);
			rk = callsite_key(site, m->key.kind);
			/* pages have no callsite: their stacks give it below */
			pages = 0;
			break;
		case KMT_TOP_CACHE:
			rk = cache_key(&m->key);
			break;
		case KMT_TOP_PROCESS:
			rk = m->key.tgid;
			break;
		default:
			add_site(t, NULL, m, 0);
			continue;
		}
		if (view == KMT_TOP_CALLSITE &&
		    (m->key.kind == KMT_K_PAGE_ALLOC ||
		     m->key.kind == KMT_K_PAGE_FREE)) {
			add_site(t, NULL, m, 0);
			continue;
		}
		r = row_for(t, rk);
		if (!r)
			return top_error(t, -ENOMEM, "out of memory");
		r->site = site;
		r->cache = cache_key(&m->key);
		r->tgid = m->key.tgid;
		add_site(t, r, m, pages);
	}
	it = 0;
	while (view == KMT_TOP_CGROUP &&
	       top_cgmirrors_next(&t->cgs, &it, &key, &cm)) {
		const struct kmt_cg_val *c = &cm->cur, *l = &cm->last;
		struct kmt_top_row *r = row_for(t, cm->key.cgroup);
		int kind = cm->key.kind;

		if (!r)
			return top_error(t, -ENOMEM, "out of memory");
		r->cache = cm->key.cgroup;
		if (kind == KMT_K_PAGE_ALLOC) {
			r->pages[0] += c->count;
			r->d_pages[0] += c->count - l->count;
		} else if (is_alloc(kind)) {
			r->allocs += c->count;
			r->d_allocs += c->count - l->count;
		} else if (is_free(kind) || kind == KMT_K_PAGE_FREE) {
			r->frees += c->count;
			r->d_frees += c->count - l->count;
		} else if (is_fail(kind)) {
			r->fails += c->count;
		}
		r->bytes += c->bytes;
		r->d_bytes += c->bytes - l->bytes;
		r->accounted += c->accounted;
		r->d_accounted += c->accounted - l->accounted;
	}
	/*
	 * Sampled stacks: the rows of the stack view, and in the callsite
	 * view the page allocations, by the callsite their stack gives.
	 */
	it = 0;
	while ((view == KMT_TOP_STACK || view == KMT_TOP_CALLSITE) &&
	       top_smirrors_next(&t->stacks, &it, &key, &sm)) {
		uint64_t s = kind_scale(t, sm->key.kind);
		uint64_t da = sm->cur.allocs - sm->last.allocs;
		uint64_t db = sm->cur.bytes - sm->last.bytes, site;
		struct kmt_top_row *r;
		uint32_t stack;

		if (view == KMT_TOP_CALLSITE && sm->key.kind != KMT_K_PAGE_ALLOC)
			continue;
		site = site_of(t, sm->key.site, sm->key.stack_id, sm->key.kind,
			       &stack);
		r = row_for(t, view == KMT_TOP_STACK ? key : site);
		if (!r)
			return top_error(t, -ENOMEM, "out of memory");
		r->site = site;
		if (!r->kind)
			r->kind = sm->key.kind;
		if (view == KMT_TOP_CALLSITE) {
			r->pages[order_col(sm->key.order)] += s * sm->cur.allocs;
			r->d_pages[order_col(sm->key.order)] += s * da;
			r->bytes += s * sm->cur.bytes;
			r->d_bytes += s * db;
			r->est_pages = s > 1;
			continue;
		}
		r->stack = stack;
		r->allocs += s * sm->cur.allocs;
		r->d_allocs += s * da;
		r->frees += s * sm->cur.frees;
		r->d_frees += s * (sm->cur.frees - sm->last.frees);
		r->bytes += s * sm->cur.bytes;
		r->d_bytes += s * db;
		if (sm->key.kind == KMT_K_PAGE_ALLOC) {
			r->pages[order_col(sm->key.order)] += s * sm->cur.allocs;
			r->d_pages[order_col(sm->key.order)] += s * da;
		}
		r->live += sm->cur.live > 0 ? s * sm->cur.live : 0;
		r->live_bytes += sm->cur.live_bytes > 0 ?
				 s * sm->cur.live_bytes : 0;
		tt->live += sm->cur.live > 0 ? s * sm->cur.live : 0;
		tt->live_bytes += sm->cur.live_bytes > 0 ?
				  s * sm->cur.live_bytes : 0;
	}
	if (view != KMT_TOP_STACK) {
		ret = kmt_bpf_for_each_live(t->bpf, on_live, &lc);
		if (ret)
			return top_error(t, ret, ret == -ENOMEM ?
					 "out of memory" : t->bpf->errmsg);
	}
	/*
	 * Growth: live bytes against the last build of the same view.  A
	 * row first seen now grew from nothing; just after a switch of view
	 * the growth is not known yet, and shows 0.
	 */
	switched = t->prev_view != (int)view;
	if (switched)
		top_live_bytes_clear(&t->prev_live);
	for (i = 0; i < t->nr_rows; i++) {
		struct kmt_top_row *r = &t->rows[i];
		int64_t *prev;
		int is_new;

		prev = top_live_bytes_put(&t->prev_live, r->key, &is_new);
		if (!prev)
			return top_error(t, -ENOMEM, "out of memory");
		if (switched)
			r->d_live_bytes = 0;
		else
			r->d_live_bytes = (int64_t)r->live_bytes -
					  (is_new ? 0 : *prev);
		*prev = (int64_t)r->live_bytes;
	}
	t->prev_view = view;
	/* qsort_r may not be given a NULL array, even empty */
	if (t->nr_rows)
		qsort_r(t->rows, t->nr_rows, sizeof(*t->rows), cmp_rows,
			&sc);
	return 0;
}

double kmt_top_row_value(const struct kmt_top *t, const struct kmt_top_row *r,
			 enum kmt_top_col c)
{
	double secs = (t->now_ns - t->last_ns) / 1e9;
	uint64_t pages = 0;
	int i;

	if (secs <= 0)
		secs = 1e-9;
	switch (c) {
	case KMT_TOP_ALLOCS:
		return r->d_allocs / secs;
	case KMT_TOP_FREES:
		return r->d_frees / secs;
	case KMT_TOP_BYTES:
		return r->d_bytes / secs;
	case KMT_TOP_LIVE:
		return (double)r->live;
	case KMT_TOP_LIVE_BYTES:
		return (double)r->live_bytes;
	case KMT_TOP_GROWTH:
		return r->d_live_bytes / secs;
	case KMT_TOP_WASTE:
		return r->d_waste / secs;
	case KMT_TOP_PAGES:
		for (i = 0; i < KMT_TOP_ORDERS; i++)
			pages += r->d_pages[i];
		return pages / secs;
	default:
		return 0;
	}
}

const char *kmt_top_row_label(struct kmt_top *t, enum kmt_top_view view,
			      const struct kmt_top_row *r, char *buf,
			      size_t size)
{
	char name[64];

	switch (view) {
	case KMT_TOP_CGROUP: {
		const char *path = t->cgroups ?
				   kmt_cgroups_path(t->cgroups, r->key) : NULL;

		if (path)
			snprintf(buf, size, "%s", path);
		else
			snprintf(buf, size, "(cgroup %llu: removed)",
				 (unsigned long long)r->key);
		break;
	}
	case KMT_TOP_CALLSITE:
		if (!r->site && is_percpu(r->kind))
			snprintf(buf, size, "(percpu: allocated before the start)");
		else if (!r->site && KMT_K_IS_RARE(r->kind))
			snprintf(buf, size, "(vmalloc: no stack, or allocated before the start)");
		else if (!r->site)
			snprintf(buf, size, "(page allocator: no stack)");
		else
			kmt_bpf_names_sym(t->names, r->site, buf, size);
		break;
	case KMT_TOP_CACHE:
		if (r->key == KMT_TOP_CACHE_KFREE)
			snprintf(buf, size, "(kfree: cache not traced)");
		else if (r->key == KMT_TOP_CACHE_PAGES)
			snprintf(buf, size, "(pages)");
		else if (r->key == KMT_TOP_CACHE_PERCPU)
			snprintf(buf, size, "(percpu)");
		else if (r->key == KMT_TOP_CACHE_VMALLOC)
			snprintf(buf, size, "(vmalloc)");
		else if (KMT_TOP_CACHE_IS_SIZE(r->key))
			snprintf(buf, size, "kmalloc-%u",
				 (unsigned int)(r->key & 0xffffffffu));
		else if (!kmt_bpf_cache_name(t->bpf, r->key, name,
					     sizeof(name)))
			snprintf(buf, size, "%s", name);
		else
			snprintf(buf, size, "0x%llx",
				 (unsigned long long)r->key);
		break;
	case KMT_TOP_PROCESS:
		if (r->key == KMT_TOP_TGID_EXITED)
			snprintf(buf, size, "(exited processes)");
		else if (!kmt_bpf_comm(t->bpf, (uint32_t)r->key, name,
				       sizeof(name)))
			snprintf(buf, size, "%u %s", (unsigned int)r->key,
				 name);
		else
			snprintf(buf, size, "%u", (unsigned int)r->key);
		break;
	default:
		if (r->stack)
			kmt_bpf_names_stack_str(t->names, r->stack, 0, buf,
						size);
		else
			snprintf(buf, size, "(no stack) %s",
				 kmt_bpf_names_sym(t->names, r->site, name,
						   sizeof(name)));
		break;
	}
	return buf;
}

/*
 * The report of a refresh.  Its text is the screen top has always drawn:
 * rates in a few characters ("1.2M"), "~" before an estimate; its JSON
 * the numbers themselves.
 */

/* a header line, and a label, cut where the screen's were */
#define TOP_LINE	1024
#define TOP_LABEL	512

/* 1234567 -> "1.2M": columns stay narrow on a busy machine */
static const char *human(char *buf, size_t size, double v)
{
	static const char units[] = "KMGTP";
	double a = v < 0 ? -v : v;
	int u = -1;

	while (a >= 9999.5 && u < 4) {
		a /= 1000;
		v /= 1000;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.*f%c", a < 99.95 ? 1 : 0, v, units[u]);
	return buf;
}

/* every drop by name, or "none" */
static const char *drops_line(const struct kmt_top *t, char *buf,
			      size_t size)
{
	static const enum kmt_bpf_stat drops[] = {
		KMT_S_SITES_FULL, KMT_S_LIVE_FULL, KMT_S_STACK_FULL,
		KMT_S_STACK_FAILED, KMT_S_STACKS_AGG_FULL,
		KMT_S_COMM_FULL,
	};
	size_t used = 0, i;

	buf[0] = 0;
	for (i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		uint64_t v = t->totals.stats[drops[i]];

		if (v)
			used += snprintf(buf + used, size - used, "%s%s %llu",
					 used ? ", " : "",
					 kmt_bpf_stat_name(drops[i]),
					 (unsigned long long)v);
		if (used >= size)
			return buf;
	}
	if (t->totals.missed)
		snprintf(buf + used, size - used,
			 "%sevents the kernel skipped (a program already running on the CPU) %llu",
			 used ? ", " : "", (unsigned long long)t->totals.missed);
	else if (!used)
		snprintf(buf, size, "none");
	return buf;
}

/* a line of the header: text alone */
static int top_note(struct kmt_report *r, struct kmt_summary *s,
		    const char *line)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_NOTE, .label = kmt_report_strdup(r, line),
	};

	return kmt_summary_add(s, &it);
}

/* a member of JSON's alone: no label, no text */
static int top_member(struct kmt_summary *s, enum kmt_sum_kind kind,
		      const char *key, enum kmt_val_type type,
		      union kmt_val v)
{
	struct kmt_sum_item it = {
		.kind = kind, .key = key, .type = type, .v = v,
	};

	return kmt_summary_add(s, &it);
}

static int top_double(struct kmt_summary *s, const char *key, double d)
{
	return top_member(s, KMT_SUM_VALUE, key, KMT_V_DOUBLE,
			  (union kmt_val){ .d = d });
}

static int top_u64(struct kmt_summary *s, const char *key, uint64_t u)
{
	return top_member(s, KMT_SUM_VALUE, key, KMT_V_U64,
			  (union kmt_val){ .u = u });
}

static int top_header(struct kmt_top *t, const struct kmt_top_show *sh,
		      struct kmt_report *r)
{
	const struct kmt_top_totals *tt = &t->totals;
	double secs = kmt_top_interval(t), rs = secs > 0 ? secs : 1e-9;
	char line[TOP_LINE], a[32], b[32], c[32], d[32], e[32], f[32];
	char g[32], h[32], missing[512];
	struct kmt_summary *s;
	int est = t->sample > 1, err = 0, k;

	s = kmt_report_add_summary(r, "", "refresh", NULL);
	if (!s)
		return -ENOMEM;
	snprintf(line, sizeof(line),
		 "kmemtrace top - %.1fs, %s, view %s, sort %s, live sampled 1 in %u%s",
		 (t->now_ns - t->start_ns) / 1e9, sh->target,
		 kmt_top_view_name(sh->view), kmt_top_col_name(sh->sort),
		 t->sample ? t->sample : 1, est ? " (~ estimates)" : "");
	err |= top_note(r, s, line);
	snprintf(line, sizeof(line),
		 "events %s/s, allocs %s/s, frees %s/s, alloc bytes %s/s, waste %s/s, pages %s/s",
		 human(a, sizeof(a), tt->d_events / rs),
		 human(b, sizeof(b), tt->d_allocs / rs),
		 human(c, sizeof(c), tt->d_frees / rs),
		 human(d, sizeof(d), tt->d_bytes / rs),
		 human(e, sizeof(e), tt->d_waste / rs),
		 human(f, sizeof(f), tt->d_pages / rs));
	err |= top_note(r, s, line);
	snprintf(line, sizeof(line),
		 "since start: %s event%s, live %s%s object%s, %s%s byte%s, %llu process%s exited",
		 human(a, sizeof(a), (double)tt->events),
		 tt->events == 1 ? "" : "s", est ? "~" : "",
		 human(b, sizeof(b), (double)tt->live),
		 tt->live == 1 ? "" : "s", est ? "~" : "",
		 human(c, sizeof(c), (double)tt->live_bytes),
		 tt->live_bytes == 1 ? "" : "s",
		 (unsigned long long)tt->exited, tt->exited == 1 ? "" : "es");
	err |= top_note(r, s, line);
	snprintf(line, sizeof(line),
		 "percpu: %s alloc%s, %s bytes, %s free%s, %s failed; vmalloc: %s alloc%s, %s bytes, %s free%s, %s failed",
		 human(a, sizeof(a), (double)tt->pcpu_allocs),
		 tt->pcpu_allocs == 1 ? "" : "s",
		 human(b, sizeof(b), (double)tt->pcpu_bytes),
		 human(c, sizeof(c), (double)tt->pcpu_frees),
		 tt->pcpu_frees == 1 ? "" : "s",
		 human(d, sizeof(d), (double)tt->pcpu_fails),
		 human(e, sizeof(e), (double)tt->vm_allocs),
		 tt->vm_allocs == 1 ? "" : "s",
		 human(f, sizeof(f), (double)tt->vm_bytes),
		 human(g, sizeof(g), (double)tt->vm_frees),
		 tt->vm_frees == 1 ? "" : "s",
		 human(h, sizeof(h), (double)tt->vm_fails));
	err |= top_note(r, s, line);
	kmt_bpf_rare_missing(t->bpf, missing, sizeof(missing));
	if (missing[0]) {
		snprintf(line, sizeof(line), "not traced: %s", missing);
		err |= top_note(r, s, line);
	}
	snprintf(line, sizeof(line), "drops: ");
	drops_line(t, line + 7, sizeof(line) - 7);
	err |= top_note(r, s, line);
	if (missing[0])
		err |= top_member(s, KMT_SUM_VALUE, "not_traced", KMT_V_STR,
				  (union kmt_val){ .str = kmt_report_strdup(r, missing) });

	err |= top_double(s, "time", (t->now_ns - t->start_ns) / 1e9);
	err |= top_double(s, "interval", secs);
	err |= top_member(s, KMT_SUM_VALUE, "target", KMT_V_STR,
			  (union kmt_val){ .str = kmt_report_strdup(r, sh->target) });
	err |= top_member(s, KMT_SUM_VALUE, "view", KMT_V_STR,
			  (union kmt_val){ .str = kmt_top_view_name(sh->view) });
	err |= top_member(s, KMT_SUM_VALUE, "sort", KMT_V_STR,
			  (union kmt_val){ .str = kmt_top_col_name(sh->sort) });
	err |= top_u64(s, "sample", t->sample ? t->sample : 1);
	err |= top_member(s, KMT_SUM_VALUE, "live_estimated", KMT_V_BOOL,
			  (union kmt_val){ .u = est });
	err |= top_member(s, KMT_SUM_BEGIN, "totals", KMT_V_U64,
			  (union kmt_val){ .u = 0 });
	err |= top_u64(s, "events", tt->events);
	err |= top_u64(s, "allocs", tt->allocs);
	err |= top_u64(s, "frees", tt->frees);
	err |= top_u64(s, "bytes", tt->bytes);
	err |= top_u64(s, "waste", tt->waste);
	err |= top_u64(s, "pages", tt->pages);
	err |= top_u64(s, "page_frees", tt->page_frees);
	err |= top_u64(s, "live", tt->live);
	err |= top_u64(s, "live_bytes", tt->live_bytes);
	err |= top_u64(s, "exited_processes", tt->exited);
	err |= top_u64(s, "percpu_allocs", tt->pcpu_allocs);
	err |= top_u64(s, "percpu_bytes", tt->pcpu_bytes);
	err |= top_u64(s, "percpu_frees", tt->pcpu_frees);
	err |= top_u64(s, "percpu_failures", tt->pcpu_fails);
	err |= top_u64(s, "vmalloc_allocs", tt->vm_allocs);
	err |= top_u64(s, "vmalloc_bytes", tt->vm_bytes);
	err |= top_u64(s, "vmalloc_frees", tt->vm_frees);
	err |= top_u64(s, "vmalloc_failures", tt->vm_fails);
	err |= top_double(s, "events_per_s", secs > 0 ? tt->d_events / secs : 0);
	err |= top_double(s, "allocs_per_s", secs > 0 ? tt->d_allocs / secs : 0);
	err |= top_double(s, "frees_per_s", secs > 0 ? tt->d_frees / secs : 0);
	err |= top_double(s, "bytes_per_s", secs > 0 ? tt->d_bytes / secs : 0);
	err |= top_double(s, "pages_per_s", secs > 0 ? tt->d_pages / secs : 0);
	err |= top_member(s, KMT_SUM_END, NULL, KMT_V_U64,
			  (union kmt_val){ .u = 0 });
	err |= top_member(s, KMT_SUM_BEGIN, "counters", KMT_V_U64,
			  (union kmt_val){ .u = 0 });
	for (k = 0; k < KMT_S_NR; k++)
		if (kmt_bpf_stat_counted(t->bpf, k))
			err |= top_u64(s, kmt_bpf_stat_name(k), tt->stats[k]);
	err |= top_u64(s, "events the kernel skipped", tt->missed);
	/* the screen's lines go on after these (its keys) */
	err |= top_member(s, KMT_SUM_END, NULL, KMT_V_U64,
			  (union kmt_val){ .u = 0 });
	return err ? -ENOMEM : 0;
}

#define TOP_TEXT(w, g)	(KMT_COL_TEXT_ONLY | KMT_COL_WIDTH(w) | KMT_COL_GAP(g))

/*
 * A row's columns: its label (named as the view), its address or pid,
 * then JSON's totals and rates, then the screen's cells
 */
enum top_col {
	TC_LABEL, TC_ID, TC_ALLOCS, TC_FREES, TC_BYTES, TC_WASTE, TC_PAGES,
	TC_PAGES_EST, TC_LIVE, TC_LIVE_BYTES,
	TC_RATES,			/* one a sort column but the live two */
	TC_TEXT = TC_RATES + KMT_TOP_NR_COLS - 2,
	TC_TEXT_ACCT = TC_TEXT + 7 + KMT_TOP_ORDERS,	/* cgroup view */
	TC_TEXT_LABEL,
	TC_KIND, TC_FAILS, TC_ACCT, TC_ACCT_RATE,
	TC_NR
};

static const struct kmt_col top_cols[TC_NR] = {
	[TC_ALLOCS]	= { "allocs", "Allocs", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_FREES]	= { "frees", "Frees", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_BYTES]	= { "bytes", "Bytes", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_WASTE]	= { "waste", "Waste", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_PAGES]	= { "pages", "Pages", KMT_V_LIST, KMT_COL_NO_TEXT },
	[TC_PAGES_EST]	= { "pages_estimated", "Pages estimated", KMT_V_BOOL,
			    KMT_COL_NO_TEXT },
	[TC_LIVE]	= { "live", "Live", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_LIVE_BYTES]	= { "live_bytes", "Live bytes", KMT_V_U64,
			    KMT_COL_NO_TEXT },
	[TC_RATES]	= { "allocs_per_s", "Allocs/s", KMT_V_DOUBLE, KMT_COL_NO_TEXT },
	[TC_RATES + 1]	= { "frees_per_s", "Frees/s", KMT_V_DOUBLE, KMT_COL_NO_TEXT },
	[TC_RATES + 2]	= { "bytes_per_s", "Bytes/s", KMT_V_DOUBLE, KMT_COL_NO_TEXT },
	[TC_RATES + 3]	= { "growth_per_s", "Growth/s", KMT_V_DOUBLE, KMT_COL_NO_TEXT },
	[TC_RATES + 4]	= { "waste_per_s", "Waste/s", KMT_V_DOUBLE, KMT_COL_NO_TEXT },
	[TC_RATES + 5]	= { "pages_per_s", "Pages/s", KMT_V_DOUBLE, KMT_COL_NO_TEXT },
	[TC_TEXT]	= { "allocs_per_s_text", "ALLOC/s", KMT_V_STR, TOP_TEXT(8, 0) },
	[TC_TEXT + 1]	= { "frees_per_s_text", "FREE/s", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_TEXT + 2]	= { "bytes_per_s_text", "BYTES/s", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_TEXT + 3]	= { "live_text", "LIVE", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_TEXT + 4]	= { "live_bytes_text", "LIVE_B", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_TEXT + 5]	= { "growth_per_s_text", "GROW/s", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_TEXT + 6]	= { "waste_per_s_text", "WASTE/s", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_TEXT + 7]	= { "pg0_per_s_text", "PG0/s", KMT_V_STR, TOP_TEXT(6, 1) },
	[TC_TEXT + 8]	= { "pg1_per_s_text", "PG1/s", KMT_V_STR, TOP_TEXT(6, 1) },
	[TC_TEXT + 9]	= { "pg2_per_s_text", "PG2/s", KMT_V_STR, TOP_TEXT(6, 1) },
	[TC_TEXT + 10]	= { "pg3_per_s_text", "PG3+/s", KMT_V_STR, TOP_TEXT(6, 1) },
	[TC_TEXT_ACCT]	= { "accounted_per_s_text", "ACCT/s", KMT_V_STR, TOP_TEXT(8, 1) },
	[TC_KIND]	= { "kind", "Kind", KMT_V_STR, KMT_COL_NO_TEXT },
	[TC_FAILS]	= { "failures", "Failures", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_ACCT]	= { "accounted", "Accounted", KMT_V_U64, KMT_COL_NO_TEXT },
	[TC_ACCT_RATE]	= { "accounted_per_s", "Accounted/s", KMT_V_DOUBLE,
			    KMT_COL_NO_TEXT },
};

/* the sort columns of the rates, in the order of their members */
static const enum kmt_top_col top_rates[] = {
	KMT_TOP_ALLOCS, KMT_TOP_FREES, KMT_TOP_BYTES, KMT_TOP_GROWTH,
	KMT_TOP_WASTE, KMT_TOP_PAGES,
};

/*
 * The columns a view leaves out: the cache view's rows have neither
 * address nor pid; a process's or a cgroup's rows are of every kind;
 * what was charged to a cgroup is the cgroup view's
 */
static uint64_t top_skip(enum kmt_top_view view)
{
	uint64_t acct = 1ULL << TC_ACCT | 1ULL << TC_ACCT_RATE |
			1ULL << TC_TEXT_ACCT;

	switch (view) {
	case KMT_TOP_CACHE:
		return 1ULL << TC_ID | acct;
	case KMT_TOP_PROCESS:
		return 1ULL << TC_KIND | acct;
	case KMT_TOP_CGROUP:
		return 1ULL << TC_KIND;
	default:
		return acct;
	}
}

static size_t top_nr_cols(enum kmt_top_view view)
{
	return TC_NR - (size_t)__builtin_popcountll(top_skip(view));
}

/* the columns of view's rows, in r's arena; NULL out of memory */
static struct kmt_col *top_view_cols(struct kmt_report *r,
				     enum kmt_top_view view)
{
	static const char *const titles[KMT_TOP_NR_VIEWS] = {
		[KMT_TOP_CALLSITE] = "CALLSITE", [KMT_TOP_CACHE] = "CACHE",
		[KMT_TOP_PROCESS] = "PID COMM", [KMT_TOP_STACK] = "STACK",
		[KMT_TOP_CGROUP] = "CGROUP",
	};
	uint64_t skip = top_skip(view);
	size_t c, k;
	struct kmt_col *cols = kmt_arena_alloc(&r->arena, sizeof(top_cols));

	if (!cols)
		return NULL;
	memcpy(cols, top_cols, sizeof(top_cols));
	cols[TC_LABEL] = (struct kmt_col){
		kmt_top_view_name(view), titles[view], KMT_V_STR,
		KMT_COL_NO_TEXT,
	};
	/* the callsite's address, or the pid; the cache view has neither */
	if (view == KMT_TOP_PROCESS)
		cols[TC_ID] = (struct kmt_col){ "pid", "Pid", KMT_V_U64,
						KMT_COL_NO_TEXT };
	else if (view == KMT_TOP_CGROUP)
		cols[TC_ID] = (struct kmt_col){ "cgroup_id", "Cgroup id",
						KMT_V_U64, KMT_COL_NO_TEXT };
	else
		cols[TC_ID] = (struct kmt_col){ "address", "Address", KMT_V_STR,
						KMT_COL_NO_TEXT };
	cols[TC_TEXT_LABEL] = (struct kmt_col){
		"label", titles[view], KMT_V_STR,
		KMT_COL_LEFT | TOP_TEXT(0, 2),
	};
	for (c = 0, k = 0; c < TC_NR; c++) {
		if (!(skip >> c & 1))
			cols[k++] = cols[c];
	}
	return cols;
}

/* "~" before a number that is an estimate */
static const char *top_cell(struct kmt_report *r, int est, double v)
{
	char a[32];

	human(a, sizeof(a), v);
	return est ? kmt_report_printf(r, "~%s", a) : kmt_report_strdup(r, a);
}

static int top_row(struct kmt_top *t, const struct kmt_top_show *sh,
		   struct kmt_report *r, struct kmt_table *tab,
		   const struct kmt_top_row *row)
{
	union kmt_val v[TC_NR] = { { 0 } }, *to = kmt_table_add_row(tab);
	uint64_t skip = top_skip(sh->view);
	size_t k, c;
	double secs = kmt_top_interval(t);
	int64_t pages[KMT_TOP_ORDERS];
	char label[TOP_LABEL];
	int est = t->sample > 1;

	if (!to)
		return -ENOMEM;
	if (secs <= 0)
		secs = 1e-9;
	v[TC_LABEL].str = kmt_report_strdup(r, kmt_top_row_label(t, sh->view,
								 row, label,
								 sizeof(label)));
	v[TC_TEXT_LABEL].str = v[TC_LABEL].str;
	if (sh->view == KMT_TOP_PROCESS || sh->view == KMT_TOP_CGROUP)
		v[TC_ID].u = row->key;
	else
		v[TC_ID].str = kmt_report_printf(r, "0x%llx",
						 (unsigned long long)row->site);
	v[TC_ALLOCS].u = row->allocs;
	v[TC_FREES].u = row->frees;
	v[TC_BYTES].u = row->bytes;
	v[TC_WASTE].u = row->waste;
	for (k = 0; k < KMT_TOP_ORDERS; k++)
		pages[k] = (int64_t)row->pages[k];
	v[TC_PAGES].list = kmt_report_list(r, pages, KMT_TOP_ORDERS);
	v[TC_PAGES_EST].u = row->est_pages;
	v[TC_LIVE].u = row->live;
	v[TC_LIVE_BYTES].u = row->live_bytes;
	v[TC_KIND].str = kmt_top_kind_word(row->kind);
	v[TC_FAILS].u = row->fails;
	v[TC_ACCT].u = row->accounted;
	v[TC_ACCT_RATE].d = row->d_accounted / secs;
	v[TC_TEXT_ACCT].str = top_cell(r, 0, row->d_accounted / secs);
	/* percpu and vmalloc rows beside slab and page: said in text too */
	if (KMT_K_IS_RARE(row->kind) && (sh->view == KMT_TOP_CALLSITE ||
					 sh->view == KMT_TOP_STACK))
		v[TC_TEXT_LABEL].str = kmt_report_printf(r, "[%s] %s",
							 kmt_top_kind_word(row->kind),
							 v[TC_LABEL].str);
	for (k = 0; k < sizeof(top_rates) / sizeof(top_rates[0]); k++)
		v[TC_RATES + k].d = kmt_top_row_value(t, row, top_rates[k]);
	v[TC_TEXT].str = top_cell(r, 0, row->d_allocs / secs);
	v[TC_TEXT + 1].str = top_cell(r, 0, row->d_frees / secs);
	v[TC_TEXT + 2].str = top_cell(r, 0, row->d_bytes / secs);
	v[TC_TEXT + 3].str = top_cell(r, est, (double)row->live);
	v[TC_TEXT + 4].str = top_cell(r, est, (double)row->live_bytes);
	v[TC_TEXT + 5].str = top_cell(r, 0, row->d_live_bytes / secs);
	v[TC_TEXT + 6].str = top_cell(r, 0, row->d_waste / secs);
	for (k = 0; k < KMT_TOP_ORDERS; k++)
		v[TC_TEXT + 7 + k].str = top_cell(r, row->est_pages,
						  row->d_pages[k] / secs);
	for (c = 0, k = 0; c < TC_NR; c++) {
		if (!(skip >> c & 1))
			to[k++] = v[c];
	}
	return 0;
}

int kmt_top_report(struct kmt_top *t, const struct kmt_top_show *sh,
		   struct kmt_report *r)
{
	size_t n = t->nr_rows, i, more;
	struct kmt_summary *end;
	struct kmt_table *tab;
	struct kmt_col *cols;
	int err;

	r->meta.first_ts = t->start_ns;
	r->meta.last_ts = t->now_ns;
	if (sh->limit && n > sh->limit)
		n = sh->limit;
	more = t->nr_rows - n;
	if (top_header(t, sh, r))
		return -ENOMEM;
	cols = top_view_cols(r, sh->view);
	tab = cols ? kmt_report_add_table(r, "", "rows", NULL, cols,
					  top_nr_cols(sh->view),
					  KMT_TABLE_FIXED) : NULL;
	if (!tab || kmt_table_reserve(tab, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (top_row(t, sh, r, tab, &t->rows[i]))
			return -ENOMEM;
	}
	/* what JSON says of the rows left out, and text unless a screen */
	end = kmt_report_add_summary(r, "", "rows_omitted", NULL);
	if (!end)
		return -ENOMEM;
	err = top_u64(end, "rows_omitted", more);
	if (more && !sh->screen)
		err |= top_note(r, end, kmt_report_printf(r, "... %zu more row%s",
							  more,
							  more == 1 ? "" : "s"));
	if (!sh->screen)
		err |= kmt_summary_blank(end);
	return err || r->oom ? -ENOMEM : 0;
}
