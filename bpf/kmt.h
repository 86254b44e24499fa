/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_KMT_H
#define KMT_BPF_KMT_H

/*
 * What the BPF programs (bpf/kmt.bpf.c) and user space (lib/bpf) both
 * read: the maps' keys and values and the drop counters.  The programs
 * see vmlinux.h's __u64; user space gets them from <linux/types.h>.
 */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* frames a stack map entry keeps: deep enough for fs and network paths */
#define KMT_STACK_DEPTH		64

/* what an event was; the kind of a key in the counts map */
enum kmt_bpf_kind {
	KMT_K_KMALLOC = 1,	/* cache: the size class (bytes_alloc) */
	KMT_K_CACHE_ALLOC,	/* cache: the struct kmem_cache address */
	KMT_K_KFREE,		/* cache: 0 (kfree does not say) */
	KMT_K_CACHE_FREE,	/* cache: the struct kmem_cache address */
	KMT_K_PAGE_ALLOC,	/* order: the order; site: 0 */
	KMT_K_PAGE_FREE,	/* mm_page_free and mm_page_free_batched */
	/*
	 * The rare kinds: every event is followed (no sampling), and where
	 * the event names no caller, site is the id of the kernel stack
	 * (KMT_STACK_ID) that user space finds the caller in.
	 */
	KMT_K_PERCPU_ALLOC,	/* site: call_site; req: size a CPU */
	KMT_K_PERCPU_FREE,	/* site: the allocation's, when followed */
	KMT_K_PERCPU_FAIL,	/* site: a stack id; req: size a CPU */
	KMT_K_VMALLOC_ALLOC,	/* site: a stack id; bytes: the area's size */
	KMT_K_VMALLOC_FREE,	/* site: the allocation's, when followed */
	KMT_K_VMALLOC_FAIL,	/* site: a stack id */
	KMT_K_NR
};

/* the kinds whose site is a stack id */
#define KMT_K_SITE_IS_STACK(k)	((k) == KMT_K_PERCPU_FAIL || \
				 (k) == KMT_K_VMALLOC_ALLOC || \
				 (k) == KMT_K_VMALLOC_FREE || \
				 (k) == KMT_K_VMALLOC_FAIL)
#define KMT_K_IS_RARE(k)	((k) >= KMT_K_PERCPU_ALLOC && (k) < KMT_K_NR)

/* how the programs find the memory cgroup of the allocating task */
enum kmt_cgroup_mode {
	KMT_CG_OFF,
	KMT_CG_V2,		/* bpf_get_current_cgroup_id() */
	KMT_CG_V1_MEMORY,	/* the task's memory css on a v1 hierarchy */
};

/*
 * Per memory cgroup and kind (top --view cgroup): a per-CPU hash, filled
 * only when asked, since it costs a few reads of the task on every event.
 * accounted: bytes of allocations charged to the cgroup (__GFP_ACCOUNT,
 * or a SLAB_ACCOUNT cache).
 */
struct kmt_cg_key {
	__u64 cgroup;		/* the kernfs id: the directory's inode */
	__u8 kind;
	__u8 pad[7];
};

struct kmt_cg_val {
	__u64 count;
	__u64 bytes;
	__u64 accounted;
};

/*
 * One row of in-kernel counting (top): events of a kind at a callsite,
 * in a cache, by a process.  A per-CPU hash, so CPUs never share a line.
 */
struct kmt_site_key {
	__u64 site;		/* call_site; 0 for pages */
	__u64 cache;
	__u32 tgid;
	__u8 kind;		/* enum kmt_bpf_kind */
	__u8 order;		/* pages */
	__u16 pad;
};

struct kmt_site_val {
	__u64 count;
	__u64 bytes_req;
	__u64 bytes_alloc;
};

/*
 * A per-CPU cache in front of the counts map, direct-mapped by a hash of
 * the key: an event whose key is in its slot is counted there, without a
 * hash map lookup (which was a third of the programs' time).  The slot's
 * counts are added to the map when another key takes the slot; until
 * then user space adds them itself.  A power of two.
 */
#define KMT_SITE_CACHE		1024

struct kmt_site_slot {
	struct kmt_site_key key;
	struct kmt_site_val val;	/* not yet in the counts map */
	__u64 used;			/* key is a key */
	/* a kmem_cache_alloc key's sizes, read once from its cache */
	__u32 req_each;
	__u32 bytes_each;
};

/*
 * An object (slab pointer, or struct page address for pages) allocated
 * while tracing and not yet freed; only sampled addresses are kept.
 */
struct kmt_live_val {
	__u64 ts;		/* bpf_ktime_get_ns() of the allocation */
	__u64 site;		/* slab call_site; 0 for pages */
	__u64 cache;		/* as in kmt_site_key */
	__u32 bytes;		/* bytes_alloc (pages: PAGE_SIZE << order) */
	__u32 bytes_req;
	__s64 stack_id;		/* > 0 (KMT_STACK_ID), or -errno */
	__u32 tgid;
	__u8 kind;
	__u8 order;
	__u8 accounted;		/* charged to its cgroup (KMT_CG_* on) */
	__u8 pad;
	__u64 cgroup;		/* of the allocating task, 0 unless asked */
};

/*
 * A stack's id is a 64-bit hash of its frames with the top bit clear and
 * the lowest set, so that ids are positive and errors (-errno) negative.
 * A content hash, not bpf_get_stackid's bucket number: two stacks never
 * share an id unless 63 bits of hash collide (for 100,000 stacks about
 * one chance in 10^9), and a stack deleted and taken again keeps its id.
 */
#define KMT_STACK_ID(h)	((__s64)(((h) & 0x7fffffffffffffffULL) | 1))

/* stacks taken at once on a CPU: a task, a softirq, a hardirq, an NMI */
#define KMT_STACK_NEST		4

/* a value of the stacks map: the frames, innermost first */
struct kmt_stack_frames {
	__u32 nr;
	__u32 pad;
	__u64 ips[KMT_STACK_DEPTH];
};

/* per stack (and callsite) of sampled allocations, kept in the kernel */
struct kmt_stack_key {
	__u64 site;
	__s64 stack_id;		/* as in kmt_live_val */
	__u8 kind;		/* KMT_K_KMALLOC/CACHE_ALLOC/PAGE_ALLOC */
	__u8 order;
	__u16 pad;
	__u32 pad2;
};

struct kmt_stack_val {
	__u64 allocs;		/* sampled allocations */
	__u64 frees;		/* of those, freed */
	__u64 bytes;		/* allocated */
	__s64 live;		/* allocations - frees */
	__s64 live_bytes;
};

/* counters of the per-CPU array "stats": every loss and oddity */
enum kmt_bpf_stat {
	KMT_S_EVENTS_KMALLOC,	/* events seen, by tracepoint */
	KMT_S_EVENTS_CACHE_ALLOC,
	KMT_S_EVENTS_KFREE,
	KMT_S_EVENTS_CACHE_FREE,
	KMT_S_EVENTS_PAGE_ALLOC,
	KMT_S_EVENTS_PAGE_FREE,
	KMT_S_SAMPLED,		/* allocations kept in the live map */
	KMT_S_SITES_FULL,	/* counts map full: the event was not counted */
	KMT_S_LIVE_FULL,	/* live map full: the object is not followed */
	KMT_S_STACK_FULL,	/* stacks map full */
	KMT_S_STACK_FAILED,	/* bpf_get_stack failed, or nested too deep */
	KMT_S_STACKS_AGG_FULL,	/* per-stack map full */
	KMT_S_UNKNOWN_FREE,	/* sampled free of an object not seen allocated */
	KMT_S_REALLOC,		/* allocation over a live object (a missed free) */
	KMT_S_SPLIT_FREE,	/* page freed at another order than allocated */
	KMT_S_FREE_HARDIRQ,	/* frees of followed objects, by context */
	KMT_S_FREE_SOFTIRQ,
	KMT_S_FREE_TASK,
	KMT_S_COMM_FULL,	/* comm map full */
	KMT_S_FAILED_ALLOC,	/* ptr NULL: the allocation failed */
	KMT_S_EVENTS_PERCPU,	/* percpu_alloc_percpu, _free_, _fail */
	KMT_S_EVENTS_VMALLOC,	/* alloc_vmap_area, free_vmap_area_noflush */
	KMT_S_CGROUPS_FULL,	/* cgroup counts map full */
	KMT_S_NR
};

#endif
