// SPDX-License-Identifier: GPL-2.0
/*
 * The live-object tracker shared by the views of `report` (see live.h).
 * One hash lookup per allocation or free, whatever number of views run.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/live.h"
#include "event/callsite.h"
#include "event/event.h"
#include "event/session.h"
#include "util/array.h"

void kmt_live_init(struct kmt_live *l, struct kmt_session *s)
{
	memset(l, 0, sizeof(*l));
	l->s = s;
	kmt_live_objs_init(&l->slab);
	kmt_live_objs_init(&l->page);
	kmt_live_objs_init(&l->percpu);
	kmt_live_objs_init(&l->vmalloc);
	kmt_callsite_cache_init(&l->callsites);
}

void kmt_live_free(struct kmt_live *l)
{
	kmt_live_objs_free(&l->slab);
	kmt_live_objs_free(&l->page);
	kmt_live_objs_free(&l->percpu);
	kmt_live_objs_free(&l->vmalloc);
	kmt_callsite_cache_free(&l->callsites);
}

static int passes(struct kmt_live *l, const struct kmt_event *ev)
{
	if (ev->flags & KMT_EVF_FILTERED)
		return !!(ev->flags & KMT_EVF_PASSES);
	return !l->filter || kmt_filter_pass(l->filter, l->s, ev->pid, ev->cpu);
}

static void obj_from(struct kmt_live_obj *o, const struct kmt_event *ev,
		     uint64_t callsite, int pass)
{
	o->callsite = callsite;
	o->ts = ev->ts;
	o->bytes_alloc = ev->bytes_alloc > UINT32_MAX ? UINT32_MAX :
			 (uint32_t)ev->bytes_alloc;
	o->cache = ev->cache;
	o->stack = ev->stack;
	o->pid = ev->pid;
	o->cpu = (int16_t)ev->cpu;
	o->type = (uint8_t)ev->type;
	o->order = (int8_t)(ev->order > 127 ? 127 : ev->order < 0 ? 0 :
			    ev->order);
	o->migratetype = (int8_t)(ev->migratetype > 127 ? 127 :
				  ev->migratetype);
	o->flags = pass ? KMT_LIVE_PASS : 0;
	if (ev->flags & KMT_EVF_ACCOUNTED)
		o->flags |= KMT_LIVE_ACCOUNTED;
}

/* the fields that mean other things for percpu objects and vmap areas */
static void other_obj_from(struct kmt_live_obj *o, const struct kmt_event *ev)
{
	if (ev->type == KMT_EV_PERCPU_ALLOC) {
		o->cache = ev->bytes_req > UINT32_MAX ? UINT32_MAX :
			   (uint32_t)ev->bytes_req;
		if (!ev->bytes_alloc)
			o->flags |= KMT_LIVE_NO_BYTES;
	} else {
		o->bytes_alloc = (uint32_t)ev->bytes_alloc;
		o->cache = (uint32_t)(ev->bytes_alloc >> 32);
	}
}

static int on_alloc(struct kmt_live *l, struct kmt_live_objs *h,
		    const struct kmt_event *ev, uint64_t bytes)
{
	struct kmt_live_step *st = &l->step;
	struct kmt_live_obj *o;
	int is_new;

	st->pass = passes(l, ev);
	if ((h == &l->page) ? ev->ptr == KMT_PFN_NONE :
	    !ev->ptr || (ev->flags & KMT_EVF_FAILED)) {
		st->what = KMT_LIVE_ALLOC_FAILED;
		return 0;
	}
	o = kmt_live_objs_put(h, ev->ptr, &is_new);
	if (!o)
		return -ENOMEM;
	if (is_new) {
		st->what = KMT_LIVE_ALLOC;
	} else {
		st->what = KMT_LIVE_ALLOC_OVER;
		st->prev = *o;
	}
	obj_from(o, ev, st->callsite, st->pass);
	if (h == &l->percpu || h == &l->vmalloc)
		other_obj_from(o, ev);
	st->bytes = bytes;
	return 0;
}

/* a block freed at a smaller order: the rest stays allocated, in parts */
static int keep_rest(struct kmt_live *l, uint64_t pfn,
		     const struct kmt_live_obj *o, int order)
{
	uint64_t step = 1ULL << order, n = 1ULL << (o->order - order), i;

	for (i = 1; i < n; i++) {
		struct kmt_live_obj *part = kmt_live_objs_put(&l->page,
							      pfn + i * step,
							      NULL);

		if (!part)
			return -ENOMEM;
		*part = *o;
		part->order = (int8_t)order;
		part->flags |= KMT_LIVE_SPLIT;
	}
	return 0;
}

static int on_free(struct kmt_live *l, struct kmt_live_objs *h,
		   const struct kmt_event *ev)
{
	struct kmt_live_step *st = &l->step;

	if (h != &l->page && !ev->ptr) {
		st->what = KMT_LIVE_FREE_NULL;
		st->pass = passes(l, ev);
		return 0;
	}
	if (!kmt_live_objs_del(h, ev->ptr, &st->prev)) {
		st->what = KMT_LIVE_FREE_UNKNOWN;
		st->pass = passes(l, ev);
		return 0;
	}
	st->what = KMT_LIVE_FREE;
	st->pass = !!(st->prev.flags & KMT_LIVE_PASS);
	st->bytes = kmt_live_obj_bytes(l, &st->prev);
	if (h == &l->page && ev->order >= 0 && ev->order < st->prev.order) {
		st->bytes = (uint64_t)l->s->page_size << ev->order;
		if (!kmt_split_rest_tracked(st->prev.order, ev->order))
			return 0;
		return keep_rest(l, ev->ptr, &st->prev, ev->order);
	}
	return 0;
}

int kmt_live_feed(struct kmt_live *l, const struct kmt_event *ev)
{
	struct kmt_live_step *st = &l->step;
	int ret = 0, rule;

	if (!l->nr_fed++ || ev->ts < l->first_ts)
		l->first_ts = ev->ts;
	if (ev->ts > l->last_ts)
		l->last_ts = ev->ts;
	st->what = KMT_LIVE_OTHER;
	st->bytes = 0;
	if (kmt_ev_is_slab(ev->type) || !ev->stack ||
	    (ev->flags & KMT_EVF_CALLSITE) ||
	    (rule = kmt_callsite_rule_of(ev)) == KMT_CALLSITE_OWN) {
		st->callsite = ev->call_site;
	} else {
		/* a page event's stack is often the one before it */
		if (ev->stack != l->last_stack || rule != l->last_rule) {
			l->last_stack = ev->stack;
			l->last_rule = rule;
			l->last_callsite = kmt_stack_callsite(&l->callsites,
							      l->s, ev->stack,
							      rule);
		}
		st->callsite = l->last_callsite;
	}
	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
		ret = on_alloc(l, &l->slab, ev, ev->bytes_alloc);
		break;
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		ret = on_free(l, &l->slab, ev);
		break;
	case KMT_EV_PAGE_ALLOC:
		ret = on_alloc(l, &l->page, ev, (uint64_t)l->s->page_size <<
			       (ev->order > 0 ? ev->order & 63 : 0));
		break;
	case KMT_EV_PAGE_FREE:
		ret = on_free(l, &l->page, ev);
		break;
	case KMT_EV_PERCPU_ALLOC:
		ret = on_alloc(l, &l->percpu, ev, ev->bytes_alloc);
		break;
	case KMT_EV_PERCPU_FREE:
		ret = on_free(l, &l->percpu, ev);
		break;
	case KMT_EV_VMAP_ALLOC:
		ret = on_alloc(l, &l->vmalloc, ev, ev->bytes_alloc);
		break;
	case KMT_EV_VMAP_FREE:
		ret = on_free(l, &l->vmalloc, ev);
		break;
	default:
		st->pass = passes(l, ev);
		break;
	}
	l->nr_passed += st->pass;
	return ret;
}

uint64_t kmt_live_end_ts(const struct kmt_live *l)
{
	uint64_t end = l->last_ts, rec = l->s->last_ts;

	/* the window ends where the user said, unless the recording did first */
	if (l->s->time_end && rec > l->s->time_end)
		rec = l->s->time_end;
	return rec > end ? rec : end;
}

void kmt_live_use_init(struct kmt_live_use *u, struct kmt_session *s,
		       struct kmt_live *shared)
{
	kmt_live_init(&u->own, s);
	u->l = shared ? shared : &u->own;
}

void kmt_live_use_free(struct kmt_live_use *u)
{
	kmt_live_free(&u->own);
}

/* the filter */

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static int parse_num(const char **p, unsigned long long max,
		     unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > max)
			return -1;
	}
	*p = s;
	*out = v;
	return 0;
}

static int parse_pids(struct kmt_filter *f, const char *list, char *err,
		      size_t errlen)
{
	const char *p = list;

	while (*p) {
		unsigned long long v;

		if (parse_num(&p, INT32_MAX, &v) || (*p && *p != ',')) {
			snprintf(err, errlen, "--pid '%s': want numbers "
				 "separated by commas", list);
			return -EINVAL;
		}
		if (KMT_ARRAY_GROW(f->pids, f->nr_pids + 1, f->alloc_pids))
			return -ENOMEM;
		f->pids[f->nr_pids++] = (int32_t)v;
		if (*p)
			p++;
	}
	if (f->nr_pids)
		qsort(f->pids, f->nr_pids, sizeof(*f->pids), cmp_pid);
	return 0;
}

static int parse_cpus(struct kmt_filter *f, const char *list, char *err,
		      size_t errlen)
{
	const char *p = list;

	f->cpus = calloc(KMT_MAX_CPUS / 64, sizeof(*f->cpus));
	if (!f->cpus)
		return -ENOMEM;
	while (*p) {
		unsigned long long lo, hi, c;

		if (parse_num(&p, KMT_MAX_CPUS - 1, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_num(&p, KMT_MAX_CPUS - 1, &hi) || hi < lo)
				goto bad;
		}
		if (*p && *p != ',')
			goto bad;
		for (c = lo; c <= hi; c++)
			f->cpus[c / 64] |= 1ULL << (c % 64);
		if (*p)
			p++;
	}
	return 0;
bad:
	snprintf(err, errlen, "--cpu '%s': want CPUs such as 0,2-3 (below %d)",
		 list, KMT_MAX_CPUS);
	return -EINVAL;
}

static int parse_comms(struct kmt_filter *f, const char *list)
{
	const char *p = list;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len) {
			if (KMT_ARRAY_GROW(f->comms, f->nr_comms + 1,
					   f->alloc_comms))
				return -ENOMEM;
			f->comms[f->nr_comms] = strndup(p, len);
			if (!f->comms[f->nr_comms])
				return -ENOMEM;
			f->nr_comms++;
		}
		p = end ? end + 1 : p + len;
	}
	return 0;
}

int kmt_filter_init(struct kmt_filter *f, const char *pids, const char *comms,
		    const char *cpus, char *err, size_t errlen)
{
	int ret = 0;

	memset(f, 0, sizeof(*f));
	kmt_hash_u64_init(&f->comm_pass);
	if (pids && *pids)
		ret = parse_pids(f, pids, err, errlen);
	if (!ret && comms && *comms)
		ret = parse_comms(f, comms);
	if (!ret && cpus && *cpus)
		ret = parse_cpus(f, cpus, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	f->active = f->nr_pids || f->nr_comms || f->cpus;
	return ret;
}

void kmt_filter_free(struct kmt_filter *f)
{
	size_t i;

	for (i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f->pids);
	free(f->cpus);
	kmt_hash_u64_free(&f->comm_pass);
	memset(f, 0, sizeof(*f));
}

/* by comm: the answer is kept per pid while its comm stays the same */
static int comm_passes(struct kmt_filter *f, const struct kmt_session *s,
		       int32_t pid)
{
	const uint32_t *id = kmt_hash_u32_get(&s->comms, (uint32_t)pid);
	uint64_t *memo, comm = id ? *id : 0;
	const char *name;
	size_t i;
	int pass = 0;

	memo = kmt_hash_u64_get(&f->comm_pass, (uint32_t)pid);
	if (memo && *memo >> 1 == comm)
		return *memo & 1;
	name = comm ? kmt_strtab_get(&s->strs, (uint32_t)comm) : "";
	for (i = 0; i < f->nr_comms && !pass; i++)
		pass = !fnmatch(f->comms[i], name ? name : "", 0);
	memo = kmt_hash_u64_put(&f->comm_pass, (uint32_t)pid, NULL);
	if (memo)
		*memo = comm << 1 | (uint64_t)pass;
	return pass;
}

int kmt_filter_max_cpu(const struct kmt_filter *f)
{
	int i;

	for (i = KMT_MAX_CPUS / 64 - 1; f->cpus && i >= 0; i--) {
		if (f->cpus[i])
			return i * 64 + 63 - __builtin_clzll(f->cpus[i]);
	}
	return -1;
}

int kmt_filter_pass(struct kmt_filter *f, const struct kmt_session *s,
		    int32_t pid, int32_t cpu)
{
	if (!f->active)
		return 1;
	if (f->cpus && (cpu < 0 || cpu >= KMT_MAX_CPUS ||
			!(f->cpus[cpu / 64] & (1ULL << (cpu % 64)))))
		return 0;
	if (f->nr_pids && !bsearch(&pid, f->pids, f->nr_pids,
				   sizeof(*f->pids), cmp_pid))
		return 0;
	if (f->nr_comms && !comm_passes(f, s, pid))
		return 0;
	return 1;
}
