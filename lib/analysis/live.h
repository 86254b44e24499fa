/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_LIVE_H
#define KMT_ANALYSIS_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "event/callsite.h"
#include "event/event.h"
#include "event/session.h"
#include "util/hash.h"

/*
 * The live objects every view needs: slab objects by pointer, page
 * blocks by pfn, percpu objects by their percpu address and vmalloc
 * areas by their start, each with what its allocation said.  One tracker is fed
 * every event once (by `report`'s dispatch, or by a view running alone)
 * and tells the views what the event did: which allocation a free
 * matched, which live object an allocation replaced.  Memory is the live
 * objects only: a free deletes its entry.
 *
 * The tracker also decides which events pass the --pid/--comm/--cpu
 * filter.  An allocation passes by its own process and CPU; a free
 * follows its allocation, whoever frees it (RCU callbacks, kworkers and
 * kswapd free what others allocated), so "--pid 1234 --leaks" is what
 * 1234 allocated and nobody freed.  A free of an object not seen
 * allocated, and every other event, passes by its own process and CPU.
 */
enum kmt_live_flags {
	KMT_LIVE_PASS		= 1 << 0, /* the allocation passed the filter */
	KMT_LIVE_ACCOUNTED	= 1 << 1, /* slab: memcg accounted */
	KMT_LIVE_SPLIT		= 1 << 2, /* page: the rest of a block freed
					   * at a smaller order */
	KMT_LIVE_NO_BYTES	= 1 << 3, /* percpu: the kernel (before 6.0)
					   * did not say what all CPUs'
					   * copies take */
};

struct kmt_live_obj {
	uint64_t callsite;	/* slab, percpu: call_site; page, vmalloc:
				 * from the stack */
	uint64_t ts;		/* of the allocation */
	uint32_t bytes_alloc;	/* slab; percpu: all CPUs' copies;
				 * vmalloc: the low half of the size */
	uint32_t cache;		/* slab: interned cache name, 0 unknown;
				 * percpu: the size for one CPU; vmalloc:
				 * the high half of the size */
	uint32_t stack;		/* stack id, 0 none */
	int32_t pid;
	int16_t cpu;
	uint8_t type;		/* KMT_EV_KMALLOC, _CACHE_ALLOC, _PAGE_ALLOC,
				 * _PERCPU_ALLOC, _VMAP_ALLOC */
	int8_t order;		/* page only */
	uint8_t flags;		/* enum kmt_live_flags */
	int8_t migratetype;	/* page only */
};

KMT_HASH_TYPE(kmt_live_objs, struct kmt_live_obj)

/* what the event just fed did */
enum kmt_live_what {
	KMT_LIVE_OTHER,		/* not an allocation or free */
	KMT_LIVE_ALLOC,		/* a new live object */
	KMT_LIVE_ALLOC_OVER,	/* allocated where one was live: its free
				 * was lost; prev is the dropped object */
	KMT_LIVE_ALLOC_FAILED,	/* NULL pointer, pfn -1 */
	KMT_LIVE_FREE,		/* freed a live object: prev */
	KMT_LIVE_FREE_UNKNOWN,	/* freed a pointer not live */
	KMT_LIVE_FREE_NULL,	/* kfree(NULL) and the like */
};

struct kmt_live_step {
	enum kmt_live_what what;
	int pass;		/* the event passes the filter */
	uint64_t callsite;	/* of this event: call_site, or from its stack */
	uint64_t bytes;		/* bytes this event made live, or released
				 * from prev (a page freed at a smaller
				 * order releases only part of its block) */
	struct kmt_live_obj prev;
};

/*
 * --pid, --comm, --cpu: an event passes when it matches one entry of each
 * list given; an empty list selects everything.
 */
struct kmt_filter {
	int32_t *pids;		/* sorted */
	size_t nr_pids, alloc_pids;
	char **comms;		/* fnmatch(3) patterns */
	size_t nr_comms, alloc_comms;
	uint64_t *cpus;		/* bitmap of KMT_MAX_CPUS bits */
	struct kmt_hash_u64 comm_pass; /* pid -> comm id << 1 | pass: a cache */
	int active;
};

struct kmt_live {
	struct kmt_session *s;
	struct kmt_live_objs slab;	/* by ptr */
	struct kmt_live_objs page;	/* by pfn */
	struct kmt_live_objs percpu;	/* by percpu address */
	struct kmt_live_objs vmalloc;	/* by va_start */
	struct kmt_callsite_cache callsites;
	uint32_t last_stack;		/* the stack of the last event whose
					 * callsite is found in its stack */
	int last_rule;			/* ... the rule that found it */
	uint64_t last_callsite;		/* ... and its callsite */
	struct kmt_filter *filter;	/* NULL: every event passes */
	struct kmt_live_step step;	/* of the last event fed */
	uint64_t first_ts, last_ts;	/* of the events fed */
	uint64_t nr_fed;
	uint64_t nr_passed;		/* of those, the filter's */
};

void kmt_live_init(struct kmt_live *l, struct kmt_session *s);
void kmt_live_free(struct kmt_live *l);
/* 0, or -ENOMEM; the outcome is in l->step */
int kmt_live_feed(struct kmt_live *l, const struct kmt_event *ev);

/*
 * The end of what was read, for ages: the last event fed, or the end of
 * the --time window when the recording went on past it.
 */
uint64_t kmt_live_end_ts(const struct kmt_live *l);

/* the highest CPU --cpu selects, -1 when it selects by CPU not at all */
int kmt_filter_max_cpu(const struct kmt_filter *f);

/*
 * Filters from the option strings: pids "1,20", comms "bash,kworker*"
 * (fnmatch patterns), cpus "0,2-3"; NULL or "" selects all.  Returns 0,
 * or -EINVAL with a message in err.
 */
int kmt_filter_init(struct kmt_filter *f, const char *pids, const char *comms,
		    const char *cpus, char *err, size_t errlen);
void kmt_filter_free(struct kmt_filter *f);
/* 1 when an event of pid on cpu passes */
int kmt_filter_pass(struct kmt_filter *f, const struct kmt_session *s,
		    int32_t pid, int32_t cpu);

/*
 * A view's hold on a tracker: the shared one of opts->tracker, or its own
 * when it runs alone (unit tests, other tools).  kmt_live_use_feed feeds
 * an own tracker and says whether the view should look at the event:
 * 1 yes, 0 filtered out, -ENOMEM.
 */
struct kmt_live_use {
	struct kmt_live *l;
	struct kmt_live own;
};

void kmt_live_use_init(struct kmt_live_use *u, struct kmt_session *s,
		       struct kmt_live *shared);
void kmt_live_use_free(struct kmt_live_use *u);
/*
 * Whether the view feeds a tracker of its own: then it need feed only the
 * events of its own kind (the percpu and vmalloc tables, which run by
 * default beside slab's and page's, would track every slab object)
 */
static inline int kmt_live_use_owned(const struct kmt_live_use *u)
{
	return u->l == &u->own;
}

static inline int kmt_live_use_feed(struct kmt_live_use *u,
				    const struct kmt_event *ev)
{
	if (u->l == &u->own) {
		int ret = kmt_live_feed(&u->own, ev);

		if (ret)
			return ret;
	}
	return u->l->step.pass;
}

/*
 * bytes of a live object: slab bytes_alloc, page size << order, percpu
 * all CPUs' copies (0 when KMT_LIVE_NO_BYTES), vmalloc the area's size
 */
static inline uint64_t kmt_live_obj_bytes(const struct kmt_live *l,
					  const struct kmt_live_obj *o)
{
	if (o->type == KMT_EV_PAGE_ALLOC)
		return (uint64_t)l->s->page_size << (o->order & 63);
	if (o->type == KMT_EV_VMAP_ALLOC)
		return (uint64_t)o->cache << 32 | o->bytes_alloc;
	return o->bytes_alloc;
}

#endif
