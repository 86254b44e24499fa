// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/top.h"
#include "util/array.h"

static const char *const view_names[KMT_TOP_NR_VIEWS] = {
	[KMT_TOP_CALLSITE]	= "callsite",
	[KMT_TOP_CACHE]		= "cache",
	[KMT_TOP_PROCESS]	= "process",
	[KMT_TOP_STACK]		= "stack",
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
	free(t->rows);
	t->rows = NULL;
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
	kmt_hash_i32_clear(&t->alive);
	ret = kmt_bpf_for_each_site(t->bpf, on_site, t);
	if (!ret)
		ret = kmt_bpf_for_each_pending_site(t->bpf, on_pending, t);
	if (!ret)
		ret = kmt_bpf_for_each_stack_agg(t->bpf, on_stack_agg, t);
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
	for (i = KMT_S_EVENTS_KMALLOC; i <= KMT_S_EVENTS_PAGE_FREE; i++) {
		tt->events += tt->stats[i];
		tt->d_events += tt->stats[i] - t->prev_stats[i];
	}
	return 0;
}

static int is_alloc(int kind)
{
	return kind == KMT_K_KMALLOC || kind == KMT_K_CACHE_ALLOC;
}

static int is_free(int kind)
{
	return kind == KMT_K_KFREE || kind == KMT_K_CACHE_FREE;
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
	default:
		return KMT_TOP_CACHE_PAGES;
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
	uint32_t st = kmt_bpf_names_stack(t->names, t->bpf, stack_id,
					  kind == KMT_K_PAGE_ALLOC ? 0 : site);

	if (stack)
		*stack = st;
	if (kind == KMT_K_PAGE_ALLOC)
		return kmt_bpf_names_page_site(t->names, st);
	return site;
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
	uint64_t scale = t->sample;

	(void)addr;
	switch (lc->view) {
	case KMT_TOP_CALLSITE:
		r = row_for(t, site_of(t, v->site, v->stack_id, v->kind,
				       NULL));
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
	while (top_mirrors_next(&t->mirror, &it, &key, &m)) {
		struct kmt_top_row *r;
		uint64_t rk;
		int pages = 1;

		switch (view) {
		case KMT_TOP_CALLSITE:
			rk = m->key.site;
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
		r->site = m->key.site;
		r->cache = cache_key(&m->key);
		r->tgid = m->key.tgid;
		add_site(t, r, m, pages);
	}
	/*
	 * Sampled stacks: the rows of the stack view, and in the callsite
	 * view the page allocations, by the callsite their stack gives.
	 */
	it = 0;
	while ((view == KMT_TOP_STACK || view == KMT_TOP_CALLSITE) &&
	       top_smirrors_next(&t->stacks, &it, &key, &sm)) {
		uint64_t s = t->sample, da = sm->cur.allocs - sm->last.allocs;
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
	case KMT_TOP_CALLSITE:
		if (!r->site)
			snprintf(buf, size, "(page allocator: no stack)");
		else
			kmt_bpf_names_sym(t->names, r->site, buf, size);
		break;
	case KMT_TOP_CACHE:
		if (r->key == KMT_TOP_CACHE_KFREE)
			snprintf(buf, size, "(kfree: cache not traced)");
		else if (r->key == KMT_TOP_CACHE_PAGES)
			snprintf(buf, size, "(pages)");
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
