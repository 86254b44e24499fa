// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/watch.h"
#include "util/array.h"

/* a callsite (and its kind) -> its row in w->sites */
KMT_HASH_TYPE(watch_site_index, size_t)

void kmt_watch_init(struct kmt_watch *w, struct kmt_bpf *b,
		    struct kmt_bpf_names *names, uint64_t older_than_ns,
		    uint64_t now_ns)
{
	memset(w, 0, sizeof(*w));
	w->bpf = b;
	w->names = names;
	w->sample = b->cfg.sample;
	w->older_than_ns = older_than_ns;
	w->start_ns = w->now_ns = now_ns;
	kmt_watch_groups_init(&w->groups);
}

void kmt_watch_free(struct kmt_watch *w)
{
	kmt_watch_groups_free(&w->groups);
	free(w->sorted);
	free(w->sites);
	w->sorted = NULL;
	w->sites = NULL;
}

static int watch_error(struct kmt_watch *w, int err, const char *what)
{
	snprintf(w->errmsg, sizeof(w->errmsg), "%s", what);
	return err < 0 ? err : -err;
}

static uint64_t group_hash(const struct kmt_stack_key *k)
{
	return kmt_hash_bytes(k, sizeof(*k)) | 1;
}

/*
 * Growing: the count rose over the remembered intervals, and in at least
 * three of every four of them.  A big cache moves up and down; a leak
 * only up.
 */
static int is_growing(const int64_t *trend, int n)
{
	int i, up = 0, steps = n - 1;

	if (n < 3 || trend[n - 1] <= trend[0])
		return 0;
	for (i = 1; i < n; i++)
		up += trend[i] >= trend[i - 1];
	return up * 4 >= steps * 3;
}

static struct kmt_watch_group *group_for(struct kmt_watch *w,
					 const struct kmt_stack_key *k)
{
	struct kmt_watch_group *g;
	int is_new;

	g = kmt_watch_groups_put(&w->groups, group_hash(k), &is_new);
	/* a stack not in the map when first met may be there by now */
	if (g && (is_new || (!g->stack && k->stack_id > 0))) {
		if (is_new)
			g->key = *k;
		g->stack = kmt_bpf_names_stack(w->names, w->bpf, k->stack_id,
					       k->kind == KMT_K_PAGE_ALLOC ?
					       0 : k->site);
		g->site = k->kind == KMT_K_PAGE_ALLOC ?
			  kmt_bpf_names_page_site(w->names, g->stack) :
			  k->site;
	}
	return g;
}

static int on_agg(void *ctx, const struct kmt_stack_key *k,
		  const struct kmt_stack_val *v)
{
	struct kmt_watch *w = ctx;
	struct kmt_watch_group *g = group_for(w, k);
	uint64_t s = w->sample;

	if (!g)
		return -ENOMEM;
	g->idle = s * v->allocs == g->allocs ? g->idle + 1 : 0;
	g->live = (int64_t)s * v->live;
	g->live_bytes = (int64_t)s * v->live_bytes;
	g->allocs = s * v->allocs;
	g->frees = s * v->frees;
	if (g->nr_trend == KMT_WATCH_TREND) {
		memmove(g->trend, g->trend + 1,
			sizeof(g->trend[0]) * (KMT_WATCH_TREND - 1));
		g->nr_trend--;
	}
	g->trend[g->nr_trend++] = g->live;
	g->growing = is_growing(g->trend, g->nr_trend);
	g->gen = w->gen;
	w->live += g->live;
	w->live_bytes += g->live_bytes;
	return 0;
}

static int on_live(void *ctx, uint64_t addr, const struct kmt_live_val *v)
{
	struct kmt_watch *w = ctx;
	struct kmt_stack_key k = {
		.site = v->site, .stack_id = v->stack_id,
		.kind = v->kind, .order = v->order,
	};
	struct kmt_watch_group *g;
	uint64_t age = w->now_ns > v->ts ? w->now_ns - v->ts : 0;

	(void)addr;
	if (age < w->older_than_ns)
		return 0;
	g = group_for(w, &k);
	if (!g)
		return -ENOMEM;
	if (g->gen != w->gen) {
		/* objects whose aggregate the kernel could not keep */
		g->gen = w->gen;
		g->live = g->live_bytes = 0;
	}
	if (!g->count || age < g->min_age)
		g->min_age = age;
	if (age > g->max_age)
		g->max_age = age;
	g->count += w->sample;
	g->bytes += (uint64_t)w->sample * v->bytes;
	w->old_count += w->sample;
	w->old_bytes += (uint64_t)w->sample * v->bytes;
	return 0;
}

static int cmp_groups(const void *pa, const void *pb)
{
	const struct kmt_watch_group *a = *(struct kmt_watch_group *const *)pa;
	const struct kmt_watch_group *b = *(struct kmt_watch_group *const *)pb;

	if (a->growing != b->growing)
		return b->growing - a->growing;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return a->key.stack_id < b->key.stack_id ? -1 :
	       a->key.stack_id > b->key.stack_id;
}

static int cmp_sites(const void *pa, const void *pb)
{
	const struct kmt_watch_site *a = pa, *b = pb;

	if (a->growing != b->growing)
		return b->growing - a->growing;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return a->kind - b->kind;
}

/*
 * Stacks are what the kernel's map runs out of (bcc's memleak froze
 * there): a stack with nothing outstanding and no allocation over the
 * last two intervals is deleted from the map with its aggregate, and
 * its id may then name another stack.  An allocation racing with the
 * delete loses its count in the aggregate, not its object.
 */
static int prune(struct kmt_watch *w)
{
	struct kmt_hash_set busy;	/* stack ids still referred to */
	struct kmt_watch_group *g;
	uint64_t key, *dead = NULL;
	size_t it = 0, nr = 0, alloc = 0, i;
	struct kmt_watch_group *val;
	int ret = 0;

	kmt_hash_set_init(&busy);
	while (kmt_watch_groups_next(&w->groups, &it, &key, &val)) {
		g = val;
		if (g->gen == w->gen &&
		    (g->live > 0 || g->count || g->idle < 2) &&
		    g->key.stack_id > 0 &&
		    kmt_hash_set_add(&busy, (uint64_t)g->key.stack_id)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	it = 0;
	while (kmt_watch_groups_next(&w->groups, &it, &key, &val)) {
		g = val;
		if (g->gen == w->gen && (g->live > 0 || g->count ||
					 g->idle < 2))
			continue;
		if (KMT_ARRAY_GROW(dead, nr + 1, alloc)) {
			ret = -ENOMEM;
			goto out;
		}
		dead[nr++] = key;
	}
	for (i = 0; i < nr; i++) {
		struct kmt_watch_group old;

		if (!kmt_watch_groups_del(&w->groups, dead[i], &old))
			continue;
		kmt_bpf_delete_stack_agg(w->bpf, &old.key);
		if (old.key.stack_id > 0 &&
		    !kmt_hash_set_has(&busy, (uint64_t)old.key.stack_id)) {
			if (!kmt_bpf_delete_stack(w->bpf, old.key.stack_id))
				w->stacks_pruned++;
			kmt_bpf_names_forget(w->names, old.key.stack_id);
			/* deleted once, however many groups shared it */
			if (kmt_hash_set_add(&busy,
					     (uint64_t)old.key.stack_id)) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
out:
	free(dead);
	kmt_hash_set_free(&busy);
	return ret;
}

static int add_trend(int64_t *to, int *nr_to, const int64_t *from, int nr)
{
	int i, shift;

	/* aligned at the latest interval */
	if (nr > *nr_to) {
		shift = nr - *nr_to;
		memmove(to + shift, to, sizeof(*to) * *nr_to);
		memset(to, 0, sizeof(*to) * shift);
		*nr_to = nr;
	}
	for (i = 0; i < nr; i++)
		to[*nr_to - nr + i] += from[i];
	return 0;
}

static int by_site(struct kmt_watch *w)
{
	struct watch_site_index index;	/* site and kind -> its row */
	struct kmt_watch_group *val;
	uint64_t key;
	size_t it = 0, i;

	w->nr_sites = 0;
	watch_site_index_init(&index);
	while (kmt_watch_groups_next(&w->groups, &it, &key, &val)) {
		struct kmt_watch_group *g = val;
		struct kmt_watch_site *s;
		size_t *idx;
		int is_new;

		if (g->gen != w->gen)
			continue;
		idx = watch_site_index_put(&index, g->site ^ ((uint64_t)g->key.kind << 60),
				   &is_new);
		if (!idx || (is_new && KMT_ARRAY_GROW(w->sites, w->nr_sites + 1,
						      w->alloc_sites))) {
			watch_site_index_free(&index);
			return -ENOMEM;
		}
		if (is_new) {
			*idx = w->nr_sites++;
			memset(&w->sites[*idx], 0, sizeof(w->sites[0]));
			w->sites[*idx].site = g->site;
			w->sites[*idx].kind = g->key.kind;
		}
		s = &w->sites[*idx];
		if (g->count) {
			if (!s->count || g->min_age < s->min_age)
				s->min_age = g->min_age;
			if (g->max_age > s->max_age)
				s->max_age = g->max_age;
		}
		s->count += g->count;
		s->bytes += g->bytes;
		s->live += g->live;
		s->live_bytes += g->live_bytes;
		s->allocs += g->allocs;
		s->frees += g->frees;
		if (g->count)
			s->nr_stacks++;
		add_trend(s->trend, &s->nr_trend, g->trend, g->nr_trend);
	}
	watch_site_index_free(&index);
	for (i = 0; i < w->nr_sites; i++)
		w->sites[i].growing = is_growing(w->sites[i].trend,
						 w->sites[i].nr_trend);
	/* qsort may not be given a NULL array, even empty */
	if (w->nr_sites)
		qsort(w->sites, w->nr_sites, sizeof(*w->sites), cmp_sites);
	return 0;
}

int kmt_watch_update(struct kmt_watch *w, uint64_t now_ns)
{
	uint64_t key;
	size_t it = 0;
	struct kmt_watch_group *val;
	int ret;

	w->now_ns = now_ns;
	w->gen++;
	w->intervals++;
	w->old_count = w->old_bytes = 0;
	w->live = w->live_bytes = 0;
	ret = kmt_bpf_read_stats(w->bpf, w->stats, &w->missed);
	if (ret)
		return watch_error(w, ret, w->bpf->errmsg);
	while (kmt_watch_groups_next(&w->groups, &it, &key, &val)) {
		struct kmt_watch_group *g = val;

		g->count = g->bytes = g->min_age = g->max_age = 0;
	}
	ret = kmt_bpf_for_each_stack_agg(w->bpf, on_agg, w);
	if (!ret)
		ret = kmt_bpf_for_each_live(w->bpf, on_live, w);
	if (ret)
		return watch_error(w, ret, ret == -ENOMEM ? "out of memory" :
				   w->bpf->errmsg);
	ret = prune(w);
	if (!ret)
		ret = by_site(w);
	if (ret)
		return watch_error(w, ret, "out of memory");
	w->nr_sorted = 0;
	it = 0;
	while (kmt_watch_groups_next(&w->groups, &it, &key, &val)) {
		struct kmt_watch_group *g = val;

		if (!g->count)
			continue;
		if (KMT_ARRAY_GROW(w->sorted, w->nr_sorted + 1,
				   w->alloc_sorted))
			return watch_error(w, -ENOMEM, "out of memory");
		w->sorted[w->nr_sorted++] = g;
	}
	if (w->nr_sorted)
		qsort(w->sorted, w->nr_sorted, sizeof(*w->sorted),
		      cmp_groups);
	return 0;
}
