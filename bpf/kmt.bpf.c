// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of kmemtrace top and watch: aggregation of the kmem
 * tracepoints inside the kernel, read by lib/bpf.
 *
 * Raw tracepoints, not classic ones: no trace event record is built, the
 * arguments are the kernel's TP_PROTO, and they attach in milliseconds.
 * (Not the BTF-typed tp_btf kind: its pointers stay pointers to the
 * verifier, and an address must be hashed as a number here.)  Measured here on bench/workload.sh: per-site
 * counters cost about 1.15x on raw tracepoints and 1.3x on classic ones.
 *
 * Three jobs, each switched on from user space before the load:
 *   count_sites  every event counted by (callsite, cache, process, kind)
 *                in a per-CPU hash (top);
 *   track_live   objects allocated since the start and not yet freed, for
 *                a sampled share of addresses (all with sample_mask 0),
 *                with per-stack aggregates (top's live columns, watch);
 *   take_stacks  a kernel stack for each followed object: by far the
 *                dearest part, so only sampled objects get one.
 * The share is chosen by address, so that the free of a sampled object is
 * sampled too: a free needs no map lookup unless its address is sampled.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "kmt.h"

char LICENSE[] SEC("license") = "GPL";

#define EEXIST	17
#define ENOMEM	12
#define ENOENT	2
#define E2BIG	7
#define EFAULT	14
#define EBUSY	16

/* set by user space before the load */
const volatile bool count_sites;
const volatile bool track_live;
const volatile bool take_stacks;
const volatile bool free_context;	/* frees by context (irq programs) */
const volatile bool filter_tgid;	/* allocations of the tgids map only */
const volatile bool filter_comm;
const volatile char comm[16];
const volatile __u64 sample_mask;	/* sample 1 address in mask + 1 */
const volatile __u32 self_tgid;		/* kmemtrace itself, left out */
const volatile __u32 page_size = 4096;
/* enum kmt_cgroup_mode: whose cgroup an allocation is counted to */
const volatile __u32 cgroup_mode;
/* per-cgroup counts (top --view cgroup); needs cgroup_mode */
const volatile bool count_cgroups;

/* the sizes are set by user space (options); 1 where a job is off */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct kmt_site_key);
	__type(value, struct kmt_site_val);
} sites SEC(".maps");

/* KMT_SITE_CACHE slots a CPU when counting (kmt.h) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kmt_site_slot);
} site_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct kmt_live_val);
} live SEC(".maps");

/*
 * Stacks by their content hash (KMT_STACK_ID).  Not a stack-trace map:
 * bpf_get_stackid keys a stack by its hash modulo the bucket count and
 * refuses (-EEXIST) a second stack in a taken bucket, so with a few
 * hundred stacks in 8192 buckets some are lost on every busy run.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __s64);
	__type(value, struct kmt_stack_frames);
} stacks SEC(".maps");

/*
 * Where a stack is taken before it is hashed (too big for the BPF
 * stack): a slot per nesting level of this CPU.  The kernel keeps a
 * program from running inside itself, not inside another: a page
 * allocation in an interrupt may run while a kmalloc's program holds
 * its frames here, and must not overwrite them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KMT_STACK_NEST);
	__type(key, __u32);
	__type(value, struct kmt_stack_frames);
} stack_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct kmt_stack_key);
	__type(value, struct kmt_stack_val);
} stack_agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KMT_S_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* the processes followed (-p, --follow); children join at fork */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* process names for top's process view, set at first count and at exec */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[16]);
} comms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct kmt_cg_key);
	__type(value, struct kmt_cg_val);
} cgroups SEC(".maps");

/* slab cache names, by struct kmem_cache address */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, char[32]);
} caches SEC(".maps");

/*
 * The context of this CPU, for the frees' context counts: kallsyms has
 * no per-CPU symbols here, so preempt_count cannot be read; the irq
 * tracepoints keep the depth instead.  Local timer interrupts have no
 * irq_handler_entry: a free in one counts as task or softirq context.
 */
struct cpu_ctx {
	__s32 softirq;
	__s32 hardirq;
	__u32 stack_depth;	/* stack_buf slots in use on this CPU */
	__u32 counting;		/* a program is in site_cache on this CPU */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_ctx);
} ctxs SEC(".maps");

static __always_inline void stat_add(__u32 i, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &i);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 i)
{
	stat_add(i, 1);
}

static __always_inline bool comm_matches(void)
{
	char cur[16];
	int i;

	bpf_get_current_comm(cur, sizeof(cur));
#pragma unroll
	for (i = 0; i < 16; i++) {
		if (cur[i] != comm[i])
			return false;
		if (!cur[i])
			break;
	}
	return true;
}

static __always_inline bool wanted(__u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (filter_tgid && !bpf_map_lookup_elem(&tgids, &tgid))
		return false;
	if (filter_comm && !comm_matches())
		return false;
	return true;
}

static __always_inline bool sampled(__u64 addr)
{
	__u64 x = addr;

	if (!sample_mask)
		return true;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (x & sample_mask) == 0;
}

static __always_inline void note_new_key(const struct kmt_site_key *k,
					 const struct kmem_cache *s)
{
	char name[32];
	char cur[16];

	bpf_get_current_comm(cur, sizeof(cur));
	if (bpf_map_update_elem(&comms, &k->tgid, cur, BPF_NOEXIST) == -E2BIG)
		stat_inc(KMT_S_COMM_FULL);
	if (s && !bpf_map_lookup_elem(&caches, &k->cache)) {
		bpf_probe_read_kernel_str(name, sizeof(name),
					  BPF_CORE_READ(s, name));
		bpf_map_update_elem(&caches, &k->cache, name, BPF_NOEXIST);
	}
}

/*
 * The memory cgroup of the current task.  On cgroup v2 the helper gives
 * the task's cgroup, whose memory is charged to it or to the nearest
 * ancestor with the controller on.  With the memory controller on a v1
 * hierarchy (a hybrid machine) the helper would name a v2 cgroup that
 * the memory controller knows nothing of: the task's memory css is read
 * instead, and its cgroup's kernfs id, the same kind of id.
 */
static __always_inline __u64 current_cgroup(void)
{
	struct task_struct *task;
	int id;

	if (cgroup_mode == KMT_CG_V2)
		return bpf_get_current_cgroup_id();
	if (cgroup_mode != KMT_CG_V1_MEMORY)
		return 0;
	if (!bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id))
		return 0;
	id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	task = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(task, cgroups, subsys[id], cgroup, kn, id);
}

/* charged to the memory cgroup: the gfp flag, or a SLAB_ACCOUNT cache */
static __always_inline __u8 accounted(__u64 gfp, const struct kmem_cache *s)
{
	__u64 flag = 13;

	/*
	 * The gfp bits are an enum without a name (no CO-RE relocation can
	 * reach it); __GFP_ACCOUNT has been bit 22 since 4.19 or so
	 */
	if (gfp & (1ULL << 22))
		return 1;
	if (!s)
		return 0;
	if (bpf_core_enum_value_exists(enum _slab_flag_bits, _SLAB_ACCOUNT))
		flag = bpf_core_enum_value(enum _slab_flag_bits, _SLAB_ACCOUNT);
	return (BPF_CORE_READ(s, flags) >> (flag & 63)) & 1;
}

static __always_inline void count_cgroup(__u64 cg, __u8 kind, __u64 bytes,
					 __u8 acct)
{
	struct kmt_cg_key k = { .cgroup = cg, .kind = kind };
	struct kmt_cg_val *v, nv = { 1, bytes, acct ? bytes : 0 };

	v = bpf_map_lookup_elem(&cgroups, &k);
	if (v) {
		v->count++;
		v->bytes += bytes;
		v->accounted += nv.accounted;
		return;
	}
	if (bpf_map_update_elem(&cgroups, &k, &nv, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&cgroups, &k);
		if (!v) {
			stat_inc(KMT_S_CGROUPS_FULL);
			return;
		}
		v->count++;
		v->bytes += bytes;
		v->accounted += nv.accounted;
	}
}

/* adds to the counts map; false when the key could not be stored */
static __always_inline bool count_in_map(const struct kmt_site_key *k,
					 const struct kmt_site_val *nv,
					 const struct kmem_cache *s, bool new_key)
{
	struct kmt_site_val *v;

	v = bpf_map_lookup_elem(&sites, k);
	if (!v) {
		if (!bpf_map_update_elem(&sites, k, nv, BPF_NOEXIST)) {
			if (new_key)
				note_new_key(k, s);
			return true;
		}
		/* another CPU made it meanwhile, or the map is full */
		v = bpf_map_lookup_elem(&sites, k);
		if (!v) {
			stat_add(KMT_S_SITES_FULL, nv->count);
			return false;
		}
	}
	v->count += nv->count;
	v->bytes_req += nv->bytes_req;
	v->bytes_alloc += nv->bytes_alloc;
	return true;
}

static __always_inline bool same_key(const struct kmt_site_key *a,
				     const struct kmt_site_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

/*
 * A kmem_cache_alloc's sizes are its cache's: read from the struct
 * kmem_cache (two helper calls) only where they are not in a slot yet.
 */
static __always_inline void cache_sizes(const struct kmem_cache *s,
					__u64 *req, __u64 *bytes)
{
	if (!s)
		return;
	*req = BPF_CORE_READ(s, object_size);
	*bytes = BPF_CORE_READ(s, size);
}

/* s: a kmem_cache_alloc's cache, whose sizes req and bytes do not hold */
static __always_inline void count_site(__u64 site, __u64 cache, __u32 tgid,
				       __u8 kind, __u8 order, __u64 req,
				       __u64 bytes, const struct kmem_cache *s)
{
	struct kmt_site_key k = {
		.site = site, .cache = cache, .tgid = tgid,
		.kind = kind, .order = order,
	};
	struct kmt_site_val nv = { 1, req, bytes };
	struct kmt_site_slot *slot;
	struct cpu_ctx *c;
	__u32 zero = 0;
	__u64 h = site * 0x9e3779b97f4a7c15ULL ^ cache * 0xc2b2ae3d27d4eb4fULL ^
		  (((__u64)tgid << 16 | kind << 8 | order) * 0x165667b19e3779f9ULL);
	__u32 i = (__u32)(h >> 40) & (KMT_SITE_CACHE - 1);

	/*
	 * An interrupt's program may run while this one is in a slot: the
	 * inner one counts in the map, so a slot has one writer at a time.
	 */
	c = bpf_map_lookup_elem(&ctxs, &zero);
	slot = bpf_map_lookup_elem(&site_cache, &i);
	if (!c || !slot || c->counting) {
		cache_sizes(s, &nv.bytes_req, &nv.bytes_alloc);
		count_in_map(&k, &nv, s, true);
		return;
	}
	c->counting = 1;
	if (slot->used && same_key(&slot->key, &k)) {
		/* the same key is the same cache, of the same sizes */
		if (s) {
			req = slot->req_each;
			bytes = slot->bytes_each;
		}
		slot->val.count++;
		slot->val.bytes_req += req;
		slot->val.bytes_alloc += bytes;
		c->counting = 0;
		return;
	}
	/*
	 * Another key's slot: its counts go to the map, this event too, and
	 * the slot is this key's.  User space reads the map before the
	 * slots, so counts that move meanwhile are late, never twice.
	 */
	if (slot->used && slot->val.count)
		count_in_map(&slot->key, &slot->val, NULL, false);
	slot->used = 0;
	cache_sizes(s, &nv.bytes_req, &nv.bytes_alloc);
	if (count_in_map(&k, &nv, s, true)) {
		slot->val.count = 0;
		slot->val.bytes_req = 0;
		slot->val.bytes_alloc = 0;
		slot->req_each = nv.bytes_req;
		slot->bytes_each = nv.bytes_alloc;
		slot->key = k;
		slot->used = 1;
	}
	c->counting = 0;
}

static __always_inline void agg_add(const struct kmt_live_val *lv, int sign)
{
	struct kmt_stack_key k = {
		.site = lv->site, .stack_id = lv->stack_id,
		.kind = lv->kind, .order = lv->order,
	};
	struct kmt_stack_val *v, nv = {};

	v = bpf_map_lookup_elem(&stack_agg, &k);
	if (!v && sign > 0) {
		nv.allocs = 1;
		nv.bytes = lv->bytes;
		nv.live = 1;
		nv.live_bytes = lv->bytes;
		if (!bpf_map_update_elem(&stack_agg, &k, &nv, BPF_NOEXIST))
			return;
		v = bpf_map_lookup_elem(&stack_agg, &k);
	}
	if (!v) {
		/* a free after user space pruned the stack is no loss */
		if (sign > 0)
			stat_inc(KMT_S_STACKS_AGG_FULL);
		return;
	}
	if (sign > 0) {
		__sync_fetch_and_add(&v->allocs, 1);
		__sync_fetch_and_add(&v->bytes, lv->bytes);
		__sync_fetch_and_add(&v->live, 1);
		__sync_fetch_and_add(&v->live_bytes, (__s64)lv->bytes);
	} else {
		__sync_fetch_and_add(&v->frees, 1);
		__sync_fetch_and_add(&v->live, -1);
		__sync_fetch_and_add(&v->live_bytes, -(__s64)lv->bytes);
	}
}

/* this context's kernel stack into the stacks map: its id, or -errno */
static __always_inline __s64 stack_into(void *ctx,
					struct kmt_stack_frames *f)
{
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i, nr;
	long len;
	__s64 id;

	len = bpf_get_stack(ctx, f->ips, sizeof(f->ips), 0);
	if (len <= 0) {
		stat_inc(KMT_S_STACK_FAILED);
		return len < 0 ? len : -EFAULT;
	}
	nr = (__u32)len / sizeof(__u64);
	f->nr = nr;
	for (i = 0; i < KMT_STACK_DEPTH; i++) {
		if (i >= nr)
			break;
		h = (h ^ f->ips[i]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	id = KMT_STACK_ID(h ^ nr);
	if (bpf_map_lookup_elem(&stacks, &id))
		return id;
	/* -EEXIST: another CPU stored the same stack meanwhile */
	len = bpf_map_update_elem(&stacks, &id, f, BPF_NOEXIST);
	if (!len || len == -EEXIST)
		return id;
	stat_inc(len == -E2BIG || len == -ENOMEM ? KMT_S_STACK_FULL :
		 KMT_S_STACK_FAILED);
	return len == -E2BIG ? -ENOMEM : len;
}

static __always_inline __s64 take_stack(void *ctx)
{
	struct kmt_stack_frames *f;
	struct cpu_ctx *c;
	__u32 zero = 0, slot;
	__s64 id;

	c = bpf_map_lookup_elem(&ctxs, &zero);
	if (!c)
		return -EFAULT;
	/*
	 * What an interrupt does here it undoes before this program goes
	 * on (programs do not migrate), so the depth read is the depth.
	 */
	slot = c->stack_depth;
	if (slot >= KMT_STACK_NEST) {
		stat_inc(KMT_S_STACK_FAILED);
		return -EBUSY;
	}
	f = bpf_map_lookup_elem(&stack_buf, &slot);
	if (!f)
		return -EFAULT;
	c->stack_depth = slot + 1;
	id = stack_into(ctx, f);
	c->stack_depth = slot;
	return id;
}

/* stack_id: the stack already taken, or 0 to take one if asked */
static __always_inline void track(void *ctx, __u64 addr, __u64 site,
				  __u64 cache, __u32 req, __u32 bytes,
				  __u32 tgid, __u8 kind, __u8 order,
				  __s64 stack_id, __u64 cg, __u8 acct)
{
	struct kmt_live_val lv = {
		.site = site, .cache = cache, .bytes = bytes, .bytes_req = req,
		.tgid = tgid, .kind = kind, .order = order,
		.stack_id = -ENOENT, .cgroup = cg, .accounted = acct,
	};
	struct kmt_live_val *old;

	lv.ts = bpf_ktime_get_ns();
	if (stack_id)
		lv.stack_id = stack_id;
	else if (take_stacks)
		lv.stack_id = take_stack(ctx);
	/* an object over a live one: its free was missed */
	old = bpf_map_lookup_elem(&live, &addr);
	if (old) {
		stat_inc(KMT_S_REALLOC);
		agg_add(old, -1);
	}
	if (bpf_map_update_elem(&live, &addr, &lv, BPF_ANY)) {
		stat_inc(KMT_S_LIVE_FULL);
		return;
	}
	stat_inc(KMT_S_SAMPLED);
	agg_add(&lv, 1);
}

static __always_inline void on_alloc(void *ctx, __u64 addr, __u64 site,
				     __u64 cache, __u64 req, __u64 bytes,
				     __u8 kind, __u8 order,
				     const struct kmem_cache *s, __u64 gfp)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 cg = 0;
	__u8 acct = 0;

	if (!wanted(tgid))
		return;
	if (count_sites)
		count_site(site, cache, tgid, kind, order, req, bytes, s);
	if (count_cgroups) {
		cg = current_cgroup();
		acct = accounted(gfp, s);
		/* a cache's sizes are in a slot, not here: read them */
		if (s && !bytes)
			cache_sizes(s, &req, &bytes);
		count_cgroup(cg, kind, bytes, acct);
	}
	if (!addr) {
		stat_inc(KMT_S_FAILED_ALLOC);
		return;
	}
	if (track_live && sampled(addr)) {
		cache_sizes(s, &req, &bytes);
		if (cgroup_mode && !count_cgroups) {
			cg = current_cgroup();
			acct = accounted(gfp, s);
		}
		track(ctx, addr, site, cache, (__u32)req, (__u32)bytes, tgid,
		      kind, order, 0, cg, acct);
	}
}

static __always_inline void count_free_context(void)
{
	__u32 zero = 0;
	struct cpu_ctx *c = bpf_map_lookup_elem(&ctxs, &zero);

	if (c && c->hardirq > 0)
		stat_inc(KMT_S_FREE_HARDIRQ);
	else if (c && c->softirq > 0)
		stat_inc(KMT_S_FREE_SOFTIRQ);
	else
		stat_inc(KMT_S_FREE_TASK);
}

/* attached when the programs started inside one: never below zero */
static __always_inline void ctx_add(int hard, int delta)
{
	__u32 zero = 0;
	struct cpu_ctx *c = bpf_map_lookup_elem(&ctxs, &zero);
	__s32 *d;

	if (!c)
		return;
	d = hard ? &c->hardirq : &c->softirq;
	if (delta > 0 || *d > 0)
		*d += delta;
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(kmt_softirq_entry, unsigned int vec)
{
	ctx_add(0, 1);
	return 0;
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(kmt_softirq_exit, unsigned int vec)
{
	ctx_add(0, -1);
	return 0;
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(kmt_irq_entry, int irq, struct irqaction *action)
{
	ctx_add(1, 1);
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(kmt_irq_exit, int irq, struct irqaction *action, int ret)
{
	ctx_add(1, -1);
	return 0;
}

static __always_inline void on_free(__u64 addr, __u64 site, __u64 cache,
				    __u8 kind, __u8 order)
{
	struct kmt_live_val *lv;

	if (count_sites || count_cgroups) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (wanted(tgid)) {
			if (count_sites)
				count_site(site, cache, tgid, kind, order, 0,
					   0, NULL);
			if (count_cgroups)
				count_cgroup(current_cgroup(), kind, 0, 0);
		}
	}
	/* frees are followed whoever makes them, in any context */
	if (!track_live || !addr || !sampled(addr))
		return;
	lv = bpf_map_lookup_elem(&live, &addr);
	if (!lv) {
		stat_inc(KMT_S_UNKNOWN_FREE);
		return;
	}
	if (kind == KMT_K_PAGE_FREE && lv->order != order)
		stat_inc(KMT_S_SPLIT_FREE);
	if (free_context)
		count_free_context();
	agg_add(lv, -1);
	bpf_map_delete_elem(&live, &addr);
}

/*
 * percpu and vmalloc: rare next to slab and pages, so every one is
 * followed, and a vmalloc takes its stack, where its caller is.
 */
static __always_inline void on_rare_alloc(void *ctx, __u64 addr, __u64 site,
					  __u64 req, __u64 bytes, __u8 kind,
					  __u64 gfp, bool stack)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__s64 stack_id = 0;
	__u64 cg = 0;
	__u8 acct = 0;

	if (!wanted(tgid))
		return;
	if (stack) {
		stack_id = take_stack(ctx);
		site = stack_id > 0 ? stack_id : 0;
	}
	if (!addr)
		stat_inc(KMT_S_FAILED_ALLOC);
	if (count_sites)
		count_site(site, 0, tgid, kind, 0, req, bytes, NULL);
	if (cgroup_mode) {
		cg = current_cgroup();
		acct = accounted(gfp, NULL);
	}
	if (count_cgroups)
		count_cgroup(cg, kind, bytes, acct);
	if (addr && track_live)
		track(ctx, addr, site, 0, (__u32)req, (__u32)bytes, tgid, kind,
		      0, stack_id, cg, acct);
}

/* a free counts at the allocation's site, where the allocation was seen */
static __always_inline void on_rare_free(__u64 addr, __u8 kind)
{
	struct kmt_live_val *lv = NULL;
	__u64 site = 0, bytes = 0;

	if (track_live && addr) {
		lv = bpf_map_lookup_elem(&live, &addr);
		if (!lv)
			stat_inc(KMT_S_UNKNOWN_FREE);
	}
	if (lv) {
		site = lv->site;
		bytes = lv->bytes;
	}
	if (count_sites || count_cgroups) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (wanted(tgid)) {
			if (count_sites)
				count_site(site, 0, tgid, kind, 0, 0, bytes,
					   NULL);
			if (count_cgroups)
				count_cgroup(lv ? lv->cgroup :
					     current_cgroup(), kind, bytes, 0);
		}
	}
	if (!lv)
		return;
	if (free_context)
		count_free_context();
	agg_add(lv, -1);
	bpf_map_delete_elem(&live, &addr);
}

SEC("raw_tp/kmalloc")
int BPF_PROG(kmt_kmalloc, unsigned long call_site, const void *ptr,
	     size_t bytes_req, size_t bytes_alloc, gfp_t gfp, int node)
{
	stat_inc(KMT_S_EVENTS_KMALLOC);
	on_alloc(ctx, (__u64)ptr, call_site, bytes_alloc, bytes_req,
		 bytes_alloc, KMT_K_KMALLOC, 0, NULL, gfp);
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int BPF_PROG(kmt_cache_alloc, unsigned long call_site, const void *ptr,
	     struct kmem_cache *s, gfp_t gfp, int node)
{
	stat_inc(KMT_S_EVENTS_CACHE_ALLOC);
	/* the sizes the tracepoint itself records, read where needed */
	on_alloc(ctx, (__u64)ptr, call_site, (__u64)s, 0, 0,
		 KMT_K_CACHE_ALLOC, 0, s, gfp);
	return 0;
}

SEC("raw_tp/kfree")
int BPF_PROG(kmt_kfree, unsigned long call_site, const void *ptr)
{
	stat_inc(KMT_S_EVENTS_KFREE);
	on_free((__u64)ptr, call_site, 0, KMT_K_KFREE, 0);
	return 0;
}

SEC("raw_tp/kmem_cache_free")
int BPF_PROG(kmt_cache_free, unsigned long call_site, const void *ptr,
	     const struct kmem_cache *s)
{
	stat_inc(KMT_S_EVENTS_CACHE_FREE);
	on_free((__u64)ptr, call_site, (__u64)s, KMT_K_CACHE_FREE, 0);
	return 0;
}

SEC("raw_tp/mm_page_alloc")
int BPF_PROG(kmt_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp, int migratetype)
{
	__u64 bytes = (__u64)page_size << (order & 31);

	stat_inc(KMT_S_EVENTS_PAGE_ALLOC);
	on_alloc(ctx, (__u64)page, 0, 0, bytes, bytes, KMT_K_PAGE_ALLOC,
		 order, NULL, gfp);
	return 0;
}

SEC("raw_tp/mm_page_free")
int BPF_PROG(kmt_page_free, struct page *page, unsigned int order)
{
	stat_inc(KMT_S_EVENTS_PAGE_FREE);
	on_free((__u64)page, 0, 0, KMT_K_PAGE_FREE, order);
	return 0;
}

SEC("raw_tp/mm_page_free_batched")
int BPF_PROG(kmt_page_free_batched, struct page *page)
{
	stat_inc(KMT_S_EVENTS_PAGE_FREE);
	on_free((__u64)page, 0, 0, KMT_K_PAGE_FREE, 0);
	return 0;
}

/*
 * The rare kinds' programs, each attached only where the kernel has its
 * tracepoint with these arguments (the loader asks the kernel's BTF).
 */
SEC("raw_tp/percpu_alloc_percpu")
int BPF_PROG(kmt_percpu_alloc, unsigned long call_site, bool reserved,
	     bool is_atomic, size_t size, size_t align, void *base_addr,
	     int off, void *ptr, size_t bytes_alloc, gfp_t gfp)
{
	stat_inc(KMT_S_EVENTS_PERCPU);
	on_rare_alloc(ctx, (__u64)ptr, call_site, size, bytes_alloc,
		      KMT_K_PERCPU_ALLOC, gfp, false);
	return 0;
}

SEC("raw_tp/percpu_free_percpu")
int BPF_PROG(kmt_percpu_free, void *base_addr, int off, void *ptr)
{
	stat_inc(KMT_S_EVENTS_PERCPU);
	on_rare_free((__u64)ptr, KMT_K_PERCPU_FREE);
	return 0;
}

/* no call site in the event: the stack names the caller */
SEC("raw_tp/percpu_alloc_percpu_fail")
int BPF_PROG(kmt_percpu_fail, bool reserved, bool is_atomic, size_t size,
	     size_t align)
{
	stat_inc(KMT_S_EVENTS_PERCPU);
	on_rare_alloc(ctx, 0, 0, size, 0, KMT_K_PERCPU_FAIL, 0, true);
	return 0;
}

SEC("raw_tp/alloc_vmap_area")
int BPF_PROG(kmt_vmalloc_alloc, unsigned long addr, unsigned long size,
	     unsigned long align, unsigned long vstart, unsigned long vend,
	     int failed)
{
	stat_inc(KMT_S_EVENTS_VMALLOC);
	/* vmalloc's gfp is not in the event: its pages are charged */
	if (failed)
		on_rare_alloc(ctx, 0, 0, size, 0, KMT_K_VMALLOC_FAIL, 0, true);
	else
		on_rare_alloc(ctx, addr, 0, size, size, KMT_K_VMALLOC_ALLOC,
			      0, true);
	return 0;
}

SEC("raw_tp/free_vmap_area_noflush")
int BPF_PROG(kmt_vmalloc_free, unsigned long va_start, unsigned long nr_lazy,
	     unsigned long nr_lazy_max)
{
	stat_inc(KMT_S_EVENTS_VMALLOC);
	on_rare_free(va_start, KMT_K_VMALLOC_FREE);
	return 0;
}

/* --follow: a child of a followed process is followed from its birth */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(kmt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&tgids, &ptgid))
		bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* a process's name changes at exec; top shows the new one */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(kmt_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	char cur[16];

	bpf_get_current_comm(cur, sizeof(cur));
	bpf_map_update_elem(&comms, &tgid, cur, BPF_ANY);
	return 0;
}
