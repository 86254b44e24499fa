// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/cgroups.h"
#include "bpf/watch.h"
#include "report/report.h"
#include "util/array.h"
#include "util/strbuf.h"

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
	kmt_watch_cgs_init(&w->cgs);
}

void kmt_watch_set_cgroups(struct kmt_watch *w, struct kmt_cgroups *c)
{
	w->cgroups = c;
}

void kmt_watch_free(struct kmt_watch *w)
{
	kmt_watch_groups_free(&w->groups);
	kmt_watch_cgs_free(&w->cgs);
	free(w->cg_sorted);
	w->cg_sorted = NULL;
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
		if (KMT_K_SITE_IS_STACK(k->kind)) {
			/* vmalloc: the caller is in the stack */
			g->stack = kmt_bpf_names_rare_stack(w->names, w->bpf,
							    k->stack_id);
			g->site = kmt_bpf_names_rare_site(w->names, g->stack);
		} else {
			g->stack = kmt_bpf_names_stack(w->names, w->bpf,
						       k->stack_id,
						       k->kind == KMT_K_PAGE_ALLOC ?
						       0 : k->site);
			g->site = k->kind == KMT_K_PAGE_ALLOC ?
				  kmt_bpf_names_page_site(w->names, g->stack) :
				  k->site;
		}
	}
	return g;
}

static int on_agg(void *ctx, const struct kmt_stack_key *k,
		  const struct kmt_stack_val *v)
{
	struct kmt_watch *w = ctx;
	struct kmt_watch_group *g = group_for(w, k);
	/* percpu and vmalloc objects are followed whole */
	uint64_t s = KMT_K_IS_RARE(k->kind) ? 1 : w->sample;

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
	uint64_t scale = KMT_K_IS_RARE(v->kind) ? 1 : w->sample;

	(void)addr;
	if (w->cgroups) {
		struct kmt_watch_cg *c;
		int is_new;

		c = kmt_watch_cgs_put(&w->cgs, v->cgroup ^
				      ((uint64_t)v->kind << 56), &is_new);
		if (!c)
			return -ENOMEM;
		if (is_new) {
			c->cgroup = v->cgroup;
			c->kind = v->kind;
		}
		c->live += scale;
		c->live_bytes += scale * v->bytes;
		if (v->accounted)
			c->accounted += scale * v->bytes;
		if (age >= w->older_than_ns) {
			c->count += scale;
			c->bytes += scale * v->bytes;
		}
	}
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
	g->count += scale;
	g->bytes += scale * v->bytes;
	w->old_count += scale;
	w->old_bytes += scale * v->bytes;
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

static int cmp_cgs(const void *pa, const void *pb)
{
	const struct kmt_watch_cg *a = *(struct kmt_watch_cg *const *)pa;
	const struct kmt_watch_cg *b = *(struct kmt_watch_cg *const *)pb;

	if (a->growing != b->growing)
		return b->growing - a->growing;
	if (a->live_bytes != b->live_bytes)
		return a->live_bytes > b->live_bytes ? -1 : 1;
	if (a->cgroup != b->cgroup)
		return a->cgroup < b->cgroup ? -1 : 1;
	return a->kind - b->kind;
}

/* each cgroup's trend; those with something outstanding, sorted */
static int by_cgroup(struct kmt_watch *w)
{
	struct kmt_watch_cg *c;
	uint64_t key;
	size_t it = 0;

	w->nr_cg_sorted = 0;
	while (kmt_watch_cgs_next(&w->cgs, &it, &key, &c)) {
		if (c->nr_trend == KMT_WATCH_TREND) {
			memmove(c->trend, c->trend + 1,
				sizeof(c->trend[0]) * (KMT_WATCH_TREND - 1));
			c->nr_trend--;
		}
		c->trend[c->nr_trend++] = c->live;
		c->growing = is_growing(c->trend, c->nr_trend);
		if (!c->live)
			continue;
		if (KMT_ARRAY_GROW(w->cg_sorted, w->nr_cg_sorted + 1,
				   w->alloc_cg_sorted))
			return -ENOMEM;
		w->cg_sorted[w->nr_cg_sorted++] = c;
	}
	if (w->nr_cg_sorted)
		qsort(w->cg_sorted, w->nr_cg_sorted, sizeof(*w->cg_sorted),
		      cmp_cgs);
	return 0;
}

int kmt_watch_update(struct kmt_watch *w, uint64_t now_ns)
{
	uint64_t key;
	size_t it = 0;
	struct kmt_watch_group *val;
	struct kmt_watch_cg *cg;
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
	it = 0;
	while (kmt_watch_cgs_next(&w->cgs, &it, &key, &cg)) {
		cg->live = cg->live_bytes = 0;
		cg->accounted = cg->count = cg->bytes = 0;
	}
	if (w->cgroups)
		kmt_cgroups_refresh(w->cgroups);
	ret = kmt_bpf_for_each_stack_agg(w->bpf, on_agg, w);
	if (!ret)
		ret = kmt_bpf_for_each_live(w->bpf, on_live, w);
	if (!ret)
		ret = by_cgroup(w);
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

/*
 * The report of an interval: text as watch has always printed it, "~"
 * before estimates; JSON the numbers, ages in ns.
 */

/* the buffers the text of a stack, a trend and a name are cut to */
#define WATCH_STACK_TEXT	4096
#define WATCH_STACK_JSON	8192
#define WATCH_TREND		128
#define WATCH_SYM		256

/* the losses, each named, and "none" when there are none */
static const enum kmt_bpf_stat watch_drops[] = {
	KMT_S_LIVE_FULL, KMT_S_STACK_FULL, KMT_S_STACK_FAILED,
	KMT_S_STACKS_AGG_FULL,
};

static const char *kind_name(int kind)
{
	if (kind == KMT_K_PAGE_ALLOC)
		return "page";
	if (kind == KMT_K_PERCPU_ALLOC)
		return "percpu";
	if (kind == KMT_K_VMALLOC_ALLOC)
		return "vmalloc";
	return "slab";
}

static void fmt_age(char *buf, size_t size, uint64_t ns)
{
	double s = ns / 1e9;

	if (s < 1)
		snprintf(buf, size, "%.0fms", s * 1e3);
	else if (s < 120)
		snprintf(buf, size, "%.1fs", s);
	else if (s < 7200)
		snprintf(buf, size, "%.1fm", s / 60);
	else
		snprintf(buf, size, "%.1fh", s / 3600);
}

/* "+12 +10 +11", the change of each interval */
static void fmt_trend(char *buf, size_t size, const int64_t *t, int n)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 1; i < n && used < size; i++)
		used += snprintf(buf + used, size - used, "%s%+lld",
				 i > 1 ? " " : "",
				 (long long)(t[i] - t[i - 1]));
	if (n < 2)
		snprintf(buf, size, "-");
}

static int watch_note(struct kmt_report *r, struct kmt_summary *s,
		      const struct kmt_sb *line)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_NOTE,
		.label = kmt_report_strdup(r, kmt_sb_str(line)),
	};

	return line->oom ? -1 : kmt_summary_add(s, &it);
}

/* a member of JSON's alone: no label, no text */
static int watch_member(struct kmt_summary *s, enum kmt_sum_kind kind,
			const char *key, enum kmt_val_type type,
			union kmt_val v)
{
	struct kmt_sum_item it = {
		.kind = kind, .key = key, .type = type, .v = v,
	};

	return kmt_summary_add(s, &it);
}

static int watch_lines(struct kmt_watch *w, const struct kmt_watch_show *sh,
		       struct kmt_report *r, struct kmt_summary *s)
{
	const char *est = w->sample > 1 ? "~" : "";
	struct kmt_sb line = KMT_SB_INIT;
	char missing[512];
	uint64_t events = 0;
	size_t i, used;
	int k, err = 0;

	for (k = KMT_S_EVENTS_KMALLOC; k <= KMT_S_EVENTS_PAGE_FREE; k++)
		events += w->stats[k];
	events += w->stats[KMT_S_EVENTS_PERCPU] + w->stats[KMT_S_EVENTS_VMALLOC];
	kmt_sb_addf(&line, "kmemtrace watch: %s%.1fs, %s, %llu event%s, sampling 1 in %u address%s%s",
		    sh->final ? "end, " : "", (w->now_ns - w->start_ns) / 1e9,
		    sh->target, (unsigned long long)events,
		    events == 1 ? "" : "s", w->sample,
		    w->sample == 1 ? "" : "es",
		    w->sample > 1 ? " (counts are estimates, marked ~)" : "");
	err |= watch_note(r, s, &line);
	kmt_sb_reset(&line);
	kmt_sb_addf(&line, "outstanding: %s%lld object%s, %s%lld byte%s; older than %gs: %s%llu object%s, %s%llu byte%s",
		    est, (long long)w->live, w->live == 1 ? "" : "s",
		    est, (long long)w->live_bytes, w->live_bytes == 1 ? "" : "s",
		    w->older_than_ns / 1e9, est,
		    (unsigned long long)w->old_count,
		    w->old_count == 1 ? "" : "s",
		    est, (unsigned long long)w->old_bytes,
		    w->old_bytes == 1 ? "" : "s");
	err |= watch_note(r, s, &line);
	kmt_sb_reset(&line);
	kmt_sb_adds(&line, "lost: ");
	for (i = 0; i < sizeof(watch_drops) / sizeof(watch_drops[0]); i++) {
		uint64_t v = w->stats[watch_drops[i]];

		if (v)
			kmt_sb_addf(&line, "%s%s %llu", line.len > 6 ? ", " : "",
				    kmt_bpf_stat_name(watch_drops[i]),
				    (unsigned long long)v);
	}
	if (w->missed)
		kmt_sb_addf(&line, "%sevents the kernel skipped %llu",
			    line.len > 6 ? ", " : "",
			    (unsigned long long)w->missed);
	used = line.len - 6;
	if (!used)
		kmt_sb_adds(&line, "none");
	err |= watch_note(r, s, &line);
	kmt_sb_reset(&line);
	kmt_bpf_rare_missing(w->bpf, missing, sizeof(missing));
	if (missing[0]) {
		kmt_sb_addf(&line, "not traced: %s", missing);
		err |= watch_note(r, s, &line);
		kmt_sb_reset(&line);
	}
	kmt_sb_addf(&line, "seen: %llu free%s of objects allocated before the start, %llu allocation%s over a live object, frees in task/softirq/hardirq context %llu/%llu/%llu, %llu stack%s given back",
		    (unsigned long long)w->stats[KMT_S_UNKNOWN_FREE],
		    w->stats[KMT_S_UNKNOWN_FREE] == 1 ? "" : "s",
		    (unsigned long long)w->stats[KMT_S_REALLOC],
		    w->stats[KMT_S_REALLOC] == 1 ? "" : "s",
		    (unsigned long long)w->stats[KMT_S_FREE_TASK],
		    (unsigned long long)w->stats[KMT_S_FREE_SOFTIRQ],
		    (unsigned long long)w->stats[KMT_S_FREE_HARDIRQ],
		    (unsigned long long)w->stacks_pruned,
		    w->stacks_pruned == 1 ? "" : "s");
	err |= watch_note(r, s, &line);
	kmt_sb_release(&line);
	return err;
}

static int watch_header(struct kmt_watch *w, const struct kmt_watch_show *sh,
			struct kmt_report *r)
{
	struct kmt_summary *s = kmt_report_add_summary(r, "", "interval", NULL);
	int k, err;

	if (!s)
		return -ENOMEM;
	err = watch_lines(w, sh, r, s);
	err |= watch_member(s, KMT_SUM_VALUE, "final", KMT_V_BOOL,
			    (union kmt_val){ .u = sh->final != 0 });
	err |= watch_member(s, KMT_SUM_VALUE, "time", KMT_V_DOUBLE,
			    (union kmt_val){ .d = (w->now_ns - w->start_ns) / 1e9 });
	err |= watch_member(s, KMT_SUM_VALUE, "target", KMT_V_STR,
			    (union kmt_val){ .str = kmt_report_strdup(r, sh->target) });
	err |= kmt_summary_u64(s, NULL, "sample", w->sample);
	err |= watch_member(s, KMT_SUM_VALUE, "estimated", KMT_V_BOOL,
			    (union kmt_val){ .u = w->sample > 1 });
	err |= watch_member(s, KMT_SUM_VALUE, "older_than", KMT_V_DOUBLE,
			    (union kmt_val){ .d = w->older_than_ns / 1e9 });
	err |= watch_member(s, KMT_SUM_VALUE, "live", KMT_V_S64,
			    (union kmt_val){ .s = w->live });
	err |= watch_member(s, KMT_SUM_VALUE, "live_bytes", KMT_V_S64,
			    (union kmt_val){ .s = w->live_bytes });
	err |= kmt_summary_u64(s, NULL, "old", w->old_count);
	err |= kmt_summary_u64(s, NULL, "old_bytes", w->old_bytes);
	err |= watch_member(s, KMT_SUM_BEGIN, "counters", KMT_V_U64,
			    (union kmt_val){ .u = 0 });
	for (k = 0; k < KMT_S_NR; k++)
		err |= kmt_summary_u64(s, NULL, kmt_bpf_stat_name(k),
				       w->stats[k]);
	err |= kmt_summary_u64(s, NULL, "events the kernel skipped", w->missed);
	err |= kmt_summary_u64(s, NULL, "stacks given back", w->stacks_pruned);
	err |= watch_member(s, KMT_SUM_END, NULL, KMT_V_U64,
			    (union kmt_val){ .u = 0 });
	return err ? -ENOMEM : 0;
}

#define WATCH_TEXT(w, g) (KMT_COL_TEXT_ONLY | KMT_COL_WIDTH(w) | KMT_COL_GAP(g))

/* the columns of a stack's row: JSON's members, then the text's */
enum stack_col {
	SC_KIND, SC_ORDER, SC_CALLSITE, SC_ADDRESS, SC_STACK, SC_STACK_ERROR,
	SC_COUNT, SC_BYTES, SC_MIN_AGE, SC_MAX_AGE, SC_LIVE, SC_ALLOCS,
	SC_FREES, SC_TREND, SC_GROWING, SC_ABSENT,
	SC_T_KIND, SC_T_COUNT, SC_T_BYTES, SC_T_MIN_AGE, SC_T_MAX_AGE,
	SC_T_TREND, SC_T_CALLSITE, SC_T_STACK,
	SC_NR
};

static const struct kmt_col stack_cols[SC_NR] = {
	[SC_KIND]	= { "kind", "Kind", KMT_V_STR, KMT_COL_NO_TEXT },
	/* pages only */
	[SC_ORDER]	= { "order", "Order", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_CALLSITE]	= { "callsite", "Callsite", KMT_V_STR, KMT_COL_NO_TEXT },
	[SC_ADDRESS]	= { "address", "Address", KMT_V_STR, KMT_COL_NO_TEXT },
	/* a stack, or why there is none (stack_error), or neither */
	[SC_STACK]	= { "stack", "Stack", KMT_V_STR, KMT_COL_NO_TEXT },
	[SC_STACK_ERROR] = { "stack_error", "Stack error", KMT_V_S64,
			     KMT_COL_NO_TEXT },
	[SC_COUNT]	= { "count", "Count", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_BYTES]	= { "bytes", "Bytes", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_MIN_AGE]	= { "min_age_ns", "Min age", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_MAX_AGE]	= { "max_age_ns", "Max age", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_LIVE]	= { "live", "Live", KMT_V_S64, KMT_COL_NO_TEXT },
	[SC_ALLOCS]	= { "allocs", "Allocs", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_FREES]	= { "frees", "Frees", KMT_V_U64, KMT_COL_NO_TEXT },
	[SC_TREND]	= { "trend", "Trend", KMT_V_LIST, KMT_COL_NO_TEXT },
	[SC_GROWING]	= { "growing", "Growing", KMT_V_BOOL, KMT_COL_NO_TEXT },
	[SC_ABSENT]	= { "absent", "", KMT_V_U64, KMT_COL_ABSENT },
	[SC_T_KIND]	= { "kind_text", "Kind", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(4, 1) },
	[SC_T_COUNT]	= { "count_text", "Count", KMT_V_STR, WATCH_TEXT(7, 1) },
	[SC_T_BYTES]	= { "bytes_text", "Bytes", KMT_V_STR, WATCH_TEXT(10, 1) },
	[SC_T_MIN_AGE]	= { "min_age_text", "Min age", KMT_V_STR,
			    WATCH_TEXT(8, 1) },
	[SC_T_MAX_AGE]	= { "max_age_text", "Max age", KMT_V_STR,
			    WATCH_TEXT(8, 1) },
	[SC_T_TREND]	= { "trend_text", "Trend (per interval)", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(24, 2) },
	[SC_T_CALLSITE]	= { "callsite_text", "Callsite", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(0, 2) },
	[SC_T_STACK]	= { "stack_text", "Stack", KMT_V_STR,
			    KMT_COL_TEXT_ONLY | KMT_COL_BELOW },
};

/* a callsite's row: kind and stacks are in both, in the places of both */
enum site_col {
	CC_KIND, CC_CALLSITE, CC_ADDRESS, CC_COUNT, CC_BYTES, CC_MIN_AGE,
	CC_MAX_AGE, CC_LIVE,
	CC_T_COUNT, CC_T_BYTES, CC_T_MIN_AGE, CC_T_MAX_AGE, CC_T_TREND,
	CC_STACKS, CC_TREND, CC_GROWING, CC_T_CALLSITE,
	CC_NR
};

static const struct kmt_col site_cols[CC_NR] = {
	[CC_KIND]	= { "kind", "Kind", KMT_V_STR,
			    KMT_COL_LEFT | KMT_COL_WIDTH(4) | KMT_COL_GAP(1) },
	[CC_CALLSITE]	= { "callsite", "Callsite", KMT_V_STR, KMT_COL_NO_TEXT },
	[CC_ADDRESS]	= { "address", "Address", KMT_V_STR, KMT_COL_NO_TEXT },
	[CC_COUNT]	= { "count", "Count", KMT_V_U64, KMT_COL_NO_TEXT },
	[CC_BYTES]	= { "bytes", "Bytes", KMT_V_U64, KMT_COL_NO_TEXT },
	[CC_MIN_AGE]	= { "min_age_ns", "Min age", KMT_V_U64, KMT_COL_NO_TEXT },
	[CC_MAX_AGE]	= { "max_age_ns", "Max age", KMT_V_U64, KMT_COL_NO_TEXT },
	[CC_LIVE]	= { "live", "Live", KMT_V_S64, KMT_COL_NO_TEXT },
	[CC_T_COUNT]	= { "count_text", "Count", KMT_V_STR, WATCH_TEXT(7, 1) },
	[CC_T_BYTES]	= { "bytes_text", "Bytes", KMT_V_STR, WATCH_TEXT(10, 1) },
	[CC_T_MIN_AGE]	= { "min_age_text", "Min age", KMT_V_STR,
			    WATCH_TEXT(8, 1) },
	[CC_T_MAX_AGE]	= { "max_age_text", "Max age", KMT_V_STR,
			    WATCH_TEXT(8, 1) },
	[CC_T_TREND]	= { "trend_text", "Trend (per interval)", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(24, 2) },
	[CC_STACKS]	= { "stacks", "Stacks", KMT_V_U64,
			    KMT_COL_WIDTH(6) | KMT_COL_GAP(2) },
	[CC_TREND]	= { "trend", "Trend", KMT_V_LIST, KMT_COL_NO_TEXT },
	[CC_GROWING]	= { "growing", "Growing", KMT_V_BOOL, KMT_COL_NO_TEXT },
	[CC_T_CALLSITE]	= { "callsite_text", "Callsite", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(0, 2) },
};

/* what a stack's and a callsite's rows share: counts, ages, trend */
struct watch_cells {
	const char *count, *bytes, *min_age, *max_age, *trend;
	const struct kmt_list *trend_list;
};

static void watch_cells(struct kmt_watch *w, struct kmt_report *r,
			struct watch_cells *c, uint64_t count, uint64_t bytes,
			uint64_t min_age, uint64_t max_age,
			const int64_t *trend, int nr_trend)
{
	const char *est = w->sample > 1 ? "~" : "";
	char buf[WATCH_TREND];

	c->count = kmt_report_printf(r, "%s%llu", est,
				     (unsigned long long)count);
	c->bytes = kmt_report_printf(r, "%s%llu", est,
				     (unsigned long long)bytes);
	fmt_age(buf, 32, min_age);
	c->min_age = kmt_report_strdup(r, buf);
	fmt_age(buf, 32, max_age);
	c->max_age = kmt_report_strdup(r, buf);
	fmt_trend(buf, sizeof(buf), trend, nr_trend);
	c->trend = kmt_report_strdup(r, buf);
	c->trend_list = kmt_report_list(r, trend, (size_t)nr_trend);
}

static const char *watch_sym(struct kmt_watch *w, struct kmt_report *r,
			     uint64_t site, int growing, const char **text)
{
	char sym[WATCH_SYM];
	const char *s;

	kmt_bpf_names_sym(w->names, site, sym, sizeof(sym));
	s = kmt_report_strdup(r, sym);
	*text = growing ? kmt_report_printf(r, "%s  GROWING", sym) : s;
	return s;
}

/* the line under a stack's row: its frames, or why there are none */
static const char *stack_text(struct kmt_watch *w, struct kmt_report *r,
			      const struct kmt_watch_group *g, int frames,
			      const char *all)
{
	char *buf;
	const char *s;

	if (!g->stack) {
		if (g->key.stack_id > 0)
			return "(no stack: not in the map when read)";
		if (g->key.stack_id != -ENOENT)
			return g->key.stack_id == -ENOMEM ?
			       "(no stack: stack map full)" :
			       "(no stack: bpf_get_stack failed)";
		return NULL;
	}
	buf = malloc(WATCH_STACK_TEXT);
	if (!buf) {
		r->oom = 1;
		return NULL;
	}
	kmt_bpf_names_stack_str(w->names, g->stack, frames, buf,
				WATCH_STACK_TEXT);
	/* mostly the same as JSON's: one copy */
	s = all && !strcmp(buf, all) ? all : kmt_report_strdup(r, buf);
	free(buf);
	return s;
}

static int stack_row(struct kmt_watch *w, const struct kmt_watch_show *sh,
		     struct kmt_report *r, struct kmt_table *t,
		     const struct kmt_watch_group *g)
{
	union kmt_val *v = kmt_table_add_row(t);
	struct watch_cells c;
	const char *all = NULL;
	uint64_t absent = 0;

	if (!v)
		return -ENOMEM;
	watch_cells(w, r, &c, g->count, g->bytes, g->min_age, g->max_age,
		    g->trend, g->nr_trend);
	v[SC_KIND].str = kind_name(g->key.kind);
	if (g->key.kind == KMT_K_PAGE_ALLOC) {
		v[SC_ORDER].u = g->key.order;
		v[SC_T_KIND].str = kmt_report_printf(r, "pg%d", g->key.order);
	} else {
		absent |= 1ULL << SC_ORDER;
		/* four letters, as "pg0" and "slab" */
		v[SC_T_KIND].str = g->key.kind == KMT_K_VMALLOC_ALLOC ? "vmal" :
				   g->key.kind == KMT_K_PERCPU_ALLOC ? "pcpu" :
				   "slab";
	}
	v[SC_CALLSITE].str = watch_sym(w, r, g->site, g->growing,
				       &v[SC_T_CALLSITE].str);
	v[SC_ADDRESS].str = kmt_report_printf(r, "0x%llx",
					      (unsigned long long)g->site);
	if (g->stack) {
		char *buf = malloc(WATCH_STACK_JSON);

		if (!buf)
			return -ENOMEM;
		kmt_bpf_names_stack_str(w->names, g->stack, 0, buf,
					WATCH_STACK_JSON);
		all = v[SC_STACK].str = kmt_report_strdup(r, buf);
		free(buf);
	} else {
		absent |= 1ULL << SC_STACK;
	}
	if (g->stack || g->key.stack_id >= 0)
		absent |= 1ULL << SC_STACK_ERROR;
	else
		v[SC_STACK_ERROR].s = g->key.stack_id;
	v[SC_COUNT].u = g->count;
	v[SC_BYTES].u = g->bytes;
	v[SC_MIN_AGE].u = g->min_age;
	v[SC_MAX_AGE].u = g->max_age;
	v[SC_LIVE].s = g->live;
	v[SC_ALLOCS].u = g->allocs;
	v[SC_FREES].u = g->frees;
	v[SC_TREND].list = c.trend_list;
	v[SC_GROWING].u = g->growing != 0;
	v[SC_ABSENT].u = absent;
	v[SC_T_COUNT].str = c.count;
	v[SC_T_BYTES].str = c.bytes;
	v[SC_T_MIN_AGE].str = c.min_age;
	v[SC_T_MAX_AGE].str = c.max_age;
	v[SC_T_TREND].str = c.trend;
	v[SC_T_STACK].str = stack_text(w, r, g, sh->frames, all);
	return 0;
}

static int site_row(struct kmt_watch *w, struct kmt_report *r,
		    struct kmt_table *t, const struct kmt_watch_site *s)
{
	union kmt_val *v = kmt_table_add_row(t);
	struct watch_cells c;

	if (!v)
		return -ENOMEM;
	watch_cells(w, r, &c, s->count, s->bytes, s->min_age, s->max_age,
		    s->trend, s->nr_trend);
	v[CC_KIND].str = kind_name(s->kind);
	v[CC_CALLSITE].str = watch_sym(w, r, s->site, s->growing,
				       &v[CC_T_CALLSITE].str);
	v[CC_ADDRESS].str = kmt_report_printf(r, "0x%llx",
					      (unsigned long long)s->site);
	v[CC_COUNT].u = s->count;
	v[CC_BYTES].u = s->bytes;
	v[CC_MIN_AGE].u = s->min_age;
	v[CC_MAX_AGE].u = s->max_age;
	v[CC_LIVE].s = s->live;
	v[CC_STACKS].u = s->nr_stacks;
	v[CC_TREND].list = c.trend_list;
	v[CC_GROWING].u = s->growing != 0;
	v[CC_T_COUNT].str = c.count;
	v[CC_T_BYTES].str = c.bytes;
	v[CC_T_MIN_AGE].str = c.min_age;
	v[CC_T_MAX_AGE].str = c.max_age;
	v[CC_T_TREND].str = c.trend;
	return 0;
}

/* a cgroup's row: JSON's members, then the text's */
enum cg_col {
	GC_KIND, GC_CGROUP, GC_CGROUP_ID, GC_LIVE, GC_LIVE_BYTES,
	GC_ACCOUNTED, GC_COUNT, GC_BYTES, GC_TREND, GC_GROWING,
	GC_T_KIND, GC_T_LIVE, GC_T_LIVE_BYTES, GC_T_ACCOUNTED, GC_T_BYTES,
	GC_T_TREND, GC_T_CGROUP,
	GC_NR
};

static const struct kmt_col cg_cols[GC_NR] = {
	[GC_KIND]	= { "kind", "Kind", KMT_V_STR, KMT_COL_NO_TEXT },
	[GC_CGROUP]	= { "cgroup", "Cgroup", KMT_V_STR, KMT_COL_NO_TEXT },
	[GC_CGROUP_ID]	= { "cgroup_id", "Cgroup id", KMT_V_U64, KMT_COL_NO_TEXT },
	[GC_LIVE]	= { "live", "Live", KMT_V_S64, KMT_COL_NO_TEXT },
	[GC_LIVE_BYTES]	= { "live_bytes", "Live bytes", KMT_V_S64, KMT_COL_NO_TEXT },
	[GC_ACCOUNTED]	= { "accounted", "Accounted", KMT_V_U64, KMT_COL_NO_TEXT },
	[GC_COUNT]	= { "count", "Count", KMT_V_U64, KMT_COL_NO_TEXT },
	[GC_BYTES]	= { "bytes", "Bytes", KMT_V_U64, KMT_COL_NO_TEXT },
	[GC_TREND]	= { "trend", "Trend", KMT_V_LIST, KMT_COL_NO_TEXT },
	[GC_GROWING]	= { "growing", "Growing", KMT_V_BOOL, KMT_COL_NO_TEXT },
	[GC_T_KIND]	= { "kind_text", "Kind", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(4, 1) },
	[GC_T_LIVE]	= { "live_text", "Live", KMT_V_STR, WATCH_TEXT(7, 1) },
	[GC_T_LIVE_BYTES] = { "live_bytes_text", "Live bytes", KMT_V_STR,
			      WATCH_TEXT(10, 1) },
	[GC_T_ACCOUNTED] = { "accounted_text", "Accounted", KMT_V_STR,
			     WATCH_TEXT(10, 1) },
	[GC_T_BYTES]	= { "bytes_text", "Old bytes", KMT_V_STR, WATCH_TEXT(10, 1) },
	[GC_T_TREND]	= { "trend_text", "Trend (per interval)", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(24, 2) },
	[GC_T_CGROUP]	= { "cgroup_text", "Cgroup", KMT_V_STR,
			    KMT_COL_LEFT | WATCH_TEXT(0, 2) },
};

static int cg_row(struct kmt_watch *w, struct kmt_report *r,
		  struct kmt_table *t, const struct kmt_watch_cg *c)
{
	const char *est = w->sample > 1 && !KMT_K_IS_RARE(c->kind) ? "~" : "";
	union kmt_val *v = kmt_table_add_row(t);
	const char *path = kmt_cgroups_path(w->cgroups, c->cgroup);
	char buf[WATCH_TREND];

	if (!v)
		return -ENOMEM;
	v[GC_KIND].str = kind_name(c->kind);
	v[GC_T_KIND].str = c->kind == KMT_K_PAGE_ALLOC ? "page" :
			   c->kind == KMT_K_VMALLOC_ALLOC ? "vmal" :
			   c->kind == KMT_K_PERCPU_ALLOC ? "pcpu" : "slab";
	v[GC_CGROUP].str = path ? kmt_report_strdup(r, path) :
			   kmt_report_printf(r, "(cgroup %llu: removed)",
					     (unsigned long long)c->cgroup);
	v[GC_CGROUP_ID].u = c->cgroup;
	v[GC_LIVE].s = c->live;
	v[GC_LIVE_BYTES].s = c->live_bytes;
	v[GC_ACCOUNTED].u = c->accounted;
	v[GC_COUNT].u = c->count;
	v[GC_BYTES].u = c->bytes;
	v[GC_TREND].list = kmt_report_list(r, c->trend, (size_t)c->nr_trend);
	v[GC_GROWING].u = c->growing != 0;
	v[GC_T_LIVE].str = kmt_report_printf(r, "%s%lld", est,
					     (long long)c->live);
	v[GC_T_LIVE_BYTES].str = kmt_report_printf(r, "%s%lld", est,
						   (long long)c->live_bytes);
	v[GC_T_ACCOUNTED].str = kmt_report_printf(r, "%s%llu", est,
						  (unsigned long long)c->accounted);
	v[GC_T_BYTES].str = kmt_report_printf(r, "%s%llu", est,
					      (unsigned long long)c->bytes);
	fmt_trend(buf, sizeof(buf), c->trend, c->nr_trend);
	v[GC_T_TREND].str = kmt_report_strdup(r, buf);
	v[GC_T_CGROUP].str = c->growing ?
			     kmt_report_printf(r, "%s  GROWING", v[GC_CGROUP].str) :
			     v[GC_CGROUP].str;
	return 0;
}

int kmt_watch_report(struct kmt_watch *w, const struct kmt_watch_show *sh,
		     struct kmt_report *r)
{
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i, n = w->nr_sorted, more;
	int err = 0;

	r->meta.first_ts = w->start_ns;
	r->meta.last_ts = w->now_ns;
	if (watch_header(w, sh, r))
		return -ENOMEM;
	if (sh->limit && n > sh->limit)
		n = sh->limit;
	more = w->nr_sorted - n;
	t = kmt_report_add_table(r, "", "stacks", "OUTSTANDING by stack",
				 stack_cols, SC_NR, KMT_TABLE_FIXED);
	if (!t || kmt_table_reserve(t, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (stack_row(w, sh, r, t, w->sorted[i]))
			return -ENOMEM;
	}
	s = kmt_report_add_summary(r, "", "stacks_omitted", NULL);
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_u64(s, NULL, "stacks_omitted", more);
	if (more) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_NOTE,
			.label = kmt_report_printf(r, " ... %zu more stack%s",
						   more, more == 1 ? "" : "s"),
		};

		err |= kmt_summary_add(s, &it);
	}
	/* the callsites with old objects: how many more, no one counts */
	t = kmt_report_add_table(r, "", "callsites", "OUTSTANDING by callsite",
				 site_cols, CC_NR, KMT_TABLE_FIXED);
	if (!t)
		return -ENOMEM;
	for (i = 0, n = 0; i < w->nr_sites; i++) {
		if (!w->sites[i].count)
			continue;
		if (sh->limit && n++ >= sh->limit)
			break;
		if (site_row(w, r, t, &w->sites[i]))
			return -ENOMEM;
	}
	if (w->cgroups) {
		t = kmt_report_add_table(r, "", "cgroups",
					 "OUTSTANDING by memory cgroup",
					 cg_cols, GC_NR, KMT_TABLE_FIXED);
		if (!t)
			return -ENOMEM;
		for (i = 0; i < w->nr_cg_sorted; i++) {
			if (sh->limit && i >= sh->limit)
				break;
			if (cg_row(w, r, t, w->cg_sorted[i]))
				return -ENOMEM;
		}
	}
	/* a blank line ends the text of each interval */
	s = kmt_report_add_summary(r, "", "end", NULL);
	if (!s)
		return -ENOMEM;
	err |= kmt_summary_blank(s);
	return err || r->oom ? -ENOMEM : 0;
}
