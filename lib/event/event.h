/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_EVENT_H
#define KMT_EVENT_EVENT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The one normalised event.  Every reader produces it, every analysis
 * consumes it; nothing downstream knows which format it came from.
 */
enum kmt_ev_type {
	KMT_EV_NONE = 0,
	KMT_EV_KMALLOC,		/* kmalloc, kmalloc_node */
	KMT_EV_CACHE_ALLOC,	/* kmem_cache_alloc, kmem_cache_alloc_node */
	KMT_EV_KFREE,
	KMT_EV_CACHE_FREE,	/* kmem_cache_free */
	KMT_EV_PAGE_ALLOC,	/* mm_page_alloc */
	KMT_EV_PAGE_FREE,	/* mm_page_free (mm_page_free_direct before 3.3) */
	KMT_EV_PAGE_FREE_BATCHED, /* mm_page_free_batched (mm_pagevec_free) */
	KMT_EV_PAGE_ZONE_LOCKED, /* mm_page_alloc_zone_locked */
	KMT_EV_PCPU_DRAIN,	/* mm_page_pcpu_drain */
	KMT_EV_EXTFRAG,		/* mm_page_alloc_extfrag */
	/*
	 * The percpu allocator (percpu: system).  ptr is the percpu
	 * address, bytes_req the size asked for one CPU, bytes_alloc what
	 * all CPUs' copies take (kernels before 6.0 print neither it nor
	 * call_site nor gfp_flags: then 0, and the event has no
	 * KMT_EVF_HAS_GFP).
	 */
	KMT_EV_PERCPU_ALLOC,	/* percpu_alloc_percpu */
	KMT_EV_PERCPU_FREE,	/* percpu_free_percpu: ptr */
	KMT_EV_PERCPU_FAIL,	/* percpu_alloc_percpu_fail: bytes_req */
	KMT_EV_PERCPU_CHUNK_NEW, /* percpu_create_chunk: ptr = base_addr */
	KMT_EV_PERCPU_CHUNK_DEL, /* percpu_destroy_chunk: ptr = base_addr */
	/*
	 * vmalloc's address space (vmalloc: system, 5.19 on).  No call
	 * site: the stack says who.
	 */
	KMT_EV_VMAP_ALLOC,	/* alloc_vmap_area: ptr = va_start,
				 * bytes_req = bytes_alloc = size;
				 * KMT_EVF_FAILED when it failed */
	KMT_EV_VMAP_FREE,	/* free_vmap_area_noflush: ptr = va_start */
	KMT_EV_VMAP_PURGE,	/* purge_vmap_area_lazy: ptr = start,
				 * bytes_alloc = end - start,
				 * bytes_req = areas purged */
	KMT_EV_NR
};

/* ptr of a page event whose allocation failed */
#define KMT_PFN_NONE UINT64_MAX

/*
 * A page block freed at a smaller order than it was allocated at leaves
 * the rest of it allocated, in parts the analyses track.  Kernels
 * allocate at most order 10 (13 with arm64's 64 KiB pages); a split of
 * more orders comes from a damaged recording, and following it would
 * take 2^orders steps, so its parts are not tracked.
 */
#define KMT_SPLIT_MAX_ORDERS 16

/* whether the rest of a block of block_order freed at order is tracked */
static inline int kmt_split_rest_tracked(int block_order, int order)
{
	return block_order - order <= KMT_SPLIT_MAX_ORDERS;
}

enum kmt_ev_flags {
	KMT_EVF_HAS_GFP		= 1 << 0, /* gfp holds the numeric flags */
	KMT_EVF_ACCOUNTED	= 1 << 1, /* slab: memcg accounted */
	KMT_EVF_PERCPU_REFILL	= 1 << 2, /* zone_locked: refilling a pcp list */
	KMT_EVF_CHANGE_OWNER	= 1 << 3, /* extfrag: pageblock changed type */
	KMT_EVF_FRAGMENTING	= 1 << 4, /* extfrag: fallback_order < pageblock order */
	KMT_EVF_HAS_REFILL	= 1 << 5, /* zone_locked carries percpu_refill */
	KMT_EVF_HAS_FRAGMENTING	= 1 << 6, /* extfrag carries fragmenting */
	/*
	 * Set where the event is read when the analyses run on another
	 * thread (event/pipeline.h), which must not read the session's
	 * tables while the reader fills them:
	 */
	KMT_EVF_CALLSITE	= 1 << 7, /* page: call_site found from the stack */
	KMT_EVF_COMM		= 1 << 8, /* comm holds the pid's name id */
	KMT_EVF_FILTERED	= 1 << 9, /* the --pid/--comm/--cpu filter has
					   * decided: KMT_EVF_PASSES or not */
	KMT_EVF_PASSES		= 1 << 10,
	KMT_EVF_FAILED		= 1 << 11, /* vmap alloc: failed=1 */
};

struct kmt_event {
	uint64_t ts;		/* nanoseconds, as the recording's clock */
	uint64_t call_site;	/* slab: the caller; page: 0 (see callsite.h) */
	uint64_t ptr;		/* slab: object address; page: pfn */
	uint64_t bytes_req;
	uint64_t bytes_alloc;
	uint64_t gfp;		/* valid when KMT_EVF_HAS_GFP */
	uint32_t gfp_str;	/* interned flag names when only text is known */
	uint32_t cache;		/* interned slab cache name, 0 if unknown */
	uint32_t stack;		/* stack id (session stacks), 0 if none */
	uint16_t type;		/* enum kmt_ev_type */
	uint16_t flags;		/* enum kmt_ev_flags */
	int32_t cpu;
	int32_t pid;
	int32_t order;		/* page order; extfrag: alloc_order */
	int32_t migratetype;	/* extfrag: alloc_migratetype; -1 unknown */
	int32_t fallback_order;	/* extfrag only */
	int32_t fallback_migratetype; /* extfrag only */
	int32_t node;		/* NUMA node, -1 if unknown */
	uint32_t comm;		/* with KMT_EVF_COMM: the pid's command name
				 * (session strings) when the event was read */
};

/* zeroes ev and sets the "unknown" values */
void kmt_event_init(struct kmt_event *ev);

/* "kmalloc", "kmem_cache_alloc", ... for type */
const char *kmt_ev_type_name(unsigned int type);

/* the tracepoint's system: "kmem", "percpu" or "vmalloc" */
const char *kmt_ev_system(unsigned int type);

static inline int kmt_ev_is_slab(unsigned int type)
{
	return type >= KMT_EV_KMALLOC && type <= KMT_EV_CACHE_FREE;
}

static inline int kmt_ev_is_page(unsigned int type)
{
	return type >= KMT_EV_PAGE_ALLOC && type <= KMT_EV_EXTFRAG;
}

static inline int kmt_ev_is_percpu(unsigned int type)
{
	return type >= KMT_EV_PERCPU_ALLOC && type <= KMT_EV_PERCPU_CHUNK_DEL;
}

static inline int kmt_ev_is_vmalloc(unsigned int type)
{
	return type >= KMT_EV_VMAP_ALLOC && type <= KMT_EV_VMAP_PURGE;
}

/*
 * Tracepoint name to event type, including the names older kernels
 * used; KMT_EV_NONE for events that are not ours.  A name without a
 * system ("kmalloc") is taken as any system's; "system:name" must be of
 * that system.
 */
unsigned int kmt_ev_type_from_tracepoint(const char *name);

/* the same for system (len bytes, not terminated) and name apart */
unsigned int kmt_ev_type_from_system(const char *system, size_t len,
				     const char *name);

/* the events of one tracefs system, as bits (KMT_EV_BIT) */
unsigned int kmt_ev_system_bits(const char *system);

/* the `kmemtrace record` option that records type: "--pcpu", ... */
const char *kmt_ev_record_option(unsigned int type);

/* event types as bits: KMT_EV_BIT(KMT_EV_KMALLOC) | ... */
#define KMT_EV_BIT(type)	(1U << (type))
#define KMT_EV_SLAB_BITS	(KMT_EV_BIT(KMT_EV_KMALLOC) |		\
				 KMT_EV_BIT(KMT_EV_CACHE_ALLOC) |	\
				 KMT_EV_BIT(KMT_EV_KFREE) |		\
				 KMT_EV_BIT(KMT_EV_CACHE_FREE))
#define KMT_EV_PAGE_BITS	(KMT_EV_BIT(KMT_EV_PAGE_ALLOC) |	\
				 KMT_EV_BIT(KMT_EV_PAGE_FREE) |		\
				 KMT_EV_BIT(KMT_EV_PAGE_FREE_BATCHED))
#define KMT_EV_PCPU_BITS	(KMT_EV_BIT(KMT_EV_PAGE_ZONE_LOCKED) |	\
				 KMT_EV_BIT(KMT_EV_PCPU_DRAIN))
/* the percpu allocator's events (not the page allocator's pcp lists) */
#define KMT_EV_PERCPU_BITS	(KMT_EV_BIT(KMT_EV_PERCPU_ALLOC) |	\
				 KMT_EV_BIT(KMT_EV_PERCPU_FREE) |	\
				 KMT_EV_BIT(KMT_EV_PERCPU_FAIL) |	\
				 KMT_EV_BIT(KMT_EV_PERCPU_CHUNK_NEW) |	\
				 KMT_EV_BIT(KMT_EV_PERCPU_CHUNK_DEL))
#define KMT_EV_VMALLOC_BITS	(KMT_EV_BIT(KMT_EV_VMAP_ALLOC) |	\
				 KMT_EV_BIT(KMT_EV_VMAP_FREE) |		\
				 KMT_EV_BIT(KMT_EV_VMAP_PURGE))

#endif
