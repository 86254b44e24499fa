/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_LOADER_H
#define KMT_BPF_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmt.h"

/*
 * The in-kernel aggregation of top and watch (bpf/kmt.bpf.c), loaded
 * from the skeleton built into the binary: a source of aggregated data,
 * not of events.  Open, read its maps as often as wanted, close; closing
 * detaches every program and frees every map (they are tied to this
 * process's file descriptors, so a crash or a kill leaves nothing
 * attached either).
 */
struct kmt_bpf_config {
	int count_sites;	/* per (callsite, cache, process) counters */
	int track_live;		/* live objects, sampled by address */
	int take_stacks;	/* a stack for each followed object */
	int free_context;	/* followed objects' frees by irq context */
	uint32_t sample;	/* 1 address in sample; a power of two, >= 1 */
	uint32_t sites_max;	/* map sizes, in entries */
	uint32_t live_max;
	uint32_t stacks_max;
	uint32_t stack_agg_max;
	uint32_t comms_max;
	uint32_t caches_max;
	int filter_tgid;	/* only the tgids added with kmt_bpf_add_tgid */
	int follow_forks;	/* and their children, from their fork */
	const char *comm;	/* only tasks of this name, or NULL */
	pid_t self;		/* left out: our own allocations */
	int no_rare;		/* percpu and vmalloc left out */
	int cgroup_mode;	/* enum kmt_cgroup_mode: whose cgroup */
	int count_cgroups;	/* per-cgroup counts (needs count_sites) */
	uint32_t cgroups_max;
	uint32_t rare_stacks;	/* stacks kept for vmalloc without stacks */
};

/*
 * The tracepoints of percpu and vmalloc: optional, attached where the
 * kernel has them (older kernels lack some, or give other arguments).
 */
enum kmt_bpf_rare_tp {
	KMT_TP_PERCPU_ALLOC,
	KMT_TP_PERCPU_FREE,
	KMT_TP_PERCPU_FAIL,
	KMT_TP_VMALLOC_ALLOC,
	KMT_TP_VMALLOC_FREE,
	KMT_TP_NR
};

/* why BPF could not be used: the one line each says, in kmt_bpf_error */
enum kmt_bpf_unavailable {
	KMT_BPF_OK = 0,
	KMT_BPF_NOT_ROOT,
	KMT_BPF_NO_BTF,
	KMT_BPF_DISABLED,
	KMT_BPF_LOCKED_DOWN,
	KMT_BPF_REJECTED,
	KMT_BPF_NO_MEMORY,
	KMT_BPF_OTHER,
};

struct kmt_skel;

struct kmt_bpf {
	struct kmt_skel *skel;
	struct kmt_bpf_config cfg;
	int nr_cpus;			/* possible CPUs: per-CPU values */
	enum kmt_bpf_unavailable why;	/* of the last failure */
	char *log;			/* the verifier's log of a rejection */
	/* what each rare tracepoint's program is: 1 attached, 0 not */
	int rare_on[KMT_TP_NR];
	/* why not: "not in this kernel", "other arguments", an errno */
	const char *rare_why[KMT_TP_NR];
	int stacks_on;			/* the stack map holds stacks */
	/* scratch for batch reads, grown as needed */
	void *keys, *vals;
	size_t keys_size, vals_size;
	char errmsg[512];
};

/* sensible sizes for everything left 0 in cfg */
void kmt_bpf_config_defaults(struct kmt_bpf_config *cfg);

/*
 * Kernel memory the maps of cfg take (they are preallocated), in bytes:
 * stated at start, as the issue of pinned memory deserves.
 */
uint64_t kmt_bpf_pinned_bytes(const struct kmt_bpf_config *cfg, int nr_cpus);

/*
 * Checks access, loads and verifies the programs, sizes the maps; then
 * kmt_bpf_attach starts them.  0 or -errno, with b->why and b->errmsg
 * saying which of the reasons it was.
 */
int kmt_bpf_open(struct kmt_bpf *b, const struct kmt_bpf_config *cfg);
int kmt_bpf_add_tgid(struct kmt_bpf *b, uint32_t tgid);
int kmt_bpf_attach(struct kmt_bpf *b);
/* detaches the programs (the maps stay readable); close frees all */
void kmt_bpf_detach(struct kmt_bpf *b);
void kmt_bpf_close(struct kmt_bpf *b);

/* the drop and event counters, summed over CPUs; recursion misses too */
int kmt_bpf_read_stats(struct kmt_bpf *b, uint64_t stats[KMT_S_NR],
		       uint64_t *missed);

/*
 * Walks a map in batches; fn gets each key and its value (for per-CPU
 * maps, the CPUs' values added up).  A non-zero return from fn ends the
 * walk and is returned.
 */
typedef int (*kmt_bpf_site_fn)(void *ctx, const struct kmt_site_key *k,
			       const struct kmt_site_val *v);
typedef int (*kmt_bpf_live_fn)(void *ctx, uint64_t addr,
			       const struct kmt_live_val *v);
typedef int (*kmt_bpf_agg_fn)(void *ctx, const struct kmt_stack_key *k,
			      const struct kmt_stack_val *v);
int kmt_bpf_for_each_site(struct kmt_bpf *b, kmt_bpf_site_fn fn, void *ctx);
/*
 * The counts still in the per-CPU cache in front of the counts map
 * (KMT_SITE_CACHE), one call per CPU's slot: to be added to what
 * kmt_bpf_for_each_site gave, read after it (counts move from the cache
 * to the map, so read in this order they are late, never twice).
 */
int kmt_bpf_for_each_pending_site(struct kmt_bpf *b, kmt_bpf_site_fn fn,
				  void *ctx);
int kmt_bpf_for_each_live(struct kmt_bpf *b, kmt_bpf_live_fn fn, void *ctx);
int kmt_bpf_for_each_stack_agg(struct kmt_bpf *b, kmt_bpf_agg_fn fn,
			       void *ctx);

/* deletes the counters of a process that is gone (after reading them) */
int kmt_bpf_delete_site(struct kmt_bpf *b, const struct kmt_site_key *k);
int kmt_bpf_delete_comm(struct kmt_bpf *b, uint32_t tgid);
/* deletes a stack and its aggregate once nothing refers to it */
int kmt_bpf_delete_stack_agg(struct kmt_bpf *b, const struct kmt_stack_key *k);
int kmt_bpf_delete_stack(struct kmt_bpf *b, int64_t stack_id);

/*
 * The frames of a stack id, innermost first, into ips (KMT_STACK_DEPTH);
 * the count, 0 when the id is unknown.
 */
size_t kmt_bpf_stack(struct kmt_bpf *b, int64_t stack_id, uint64_t *ips);
/* the name the kernel gave, into buf; 0, or -ENOENT */
int kmt_bpf_comm(struct kmt_bpf *b, uint32_t tgid, char *buf, size_t size);
int kmt_bpf_cache_name(struct kmt_bpf *b, uint64_t cache, char *buf,
		       size_t size);

typedef int (*kmt_bpf_cg_fn)(void *ctx, const struct kmt_cg_key *k,
			     const struct kmt_cg_val *v);
int kmt_bpf_for_each_cgroup(struct kmt_bpf *b, kmt_bpf_cg_fn fn, void *ctx);

/* "percpu:percpu_alloc_percpu", for what says which are missing */
const char *kmt_bpf_rare_tp_name(unsigned int tp);
/*
 * The rare tracepoints not attached, as one line into buf ("vmalloc:
 * alloc_vmap_area (not in this kernel), ..."); "" when all are.  buf.
 */
const char *kmt_bpf_rare_missing(const struct kmt_bpf *b, char *buf,
				 size_t size);
/* whether the kind's events are seen: its tracepoints attached */
int kmt_bpf_kind_traced(const struct kmt_bpf *b, unsigned int kind);

/* a one-line description of a stat counter, for reports */
const char *kmt_bpf_stat_name(unsigned int stat);
/* whether the programs count stat with b's configuration */
int kmt_bpf_stat_counted(const struct kmt_bpf *b, unsigned int stat);

#endif
