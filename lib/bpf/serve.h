/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_SERVE_H
#define KMT_BPF_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/top.h"

/*
 * The model of kmemtrace serve, a long-running agent: top's in-kernel
 * counting (one load: the counts by callsite, cache, process and cgroup,
 * and the sampled stacks with their live objects) read every interval,
 * and drawn on demand as Prometheus metrics (group "metrics", for
 * render/prom.c) and as a heap profile (group "profile", for
 * render/pprof.c).
 *
 * top rather than watch: watch gives the stacks nothing refers to back
 * to the kernel, deleting their aggregates, so the counts since the
 * start that a profile's alloc_* and the counters need would go back to
 * zero; and top alone holds the counts by callsite and cache.  The two
 * cannot read one load's maps, for watch's deletes would undo top's
 * counts.  Every map is of fixed size (a full map is counted as a loss),
 * so the state is bounded, and the metrics hold at most top + 1 series
 * per kind in each of callsite, cache and cgroup: the top callsites by
 * bytes allocated since the start, and one "(other)" row for the rest.
 */
/* a row's counters as the last scrape drew them */
struct kmt_serve_counts {
	uint64_t allocs, frees, bytes;
};

KMT_HASH_TYPE(kmt_serve_last, struct kmt_serve_counts)

#define KMT_SERVE_DIMS		3	/* callsite, cache, cgroup */
#define KMT_SERVE_KINDS		5	/* slab, page, percpu, vmalloc; none */

struct kmt_serve {
	struct kmt_top top;
	size_t top_n;		/* series per kind and dimension, + other */
	int cgroups;		/* counted by memory cgroup */
	uint64_t updates;
	/* the caller's: kmemtrace's version, and when the counting began */
	const char *version;
	uint64_t start_unix;	/* seconds since the epoch, 0 not known */
	/*
	 * The "(other)" series are counters too, and must never go down,
	 * though rows move in and out of the top: each scrape adds to them
	 * what the rows outside the top gained since the scrape before
	 * (last: each row's counters then, by dimension, kind and key)
	 */
	struct kmt_serve_last last;
	struct kmt_serve_counts other[KMT_SERVE_DIMS][KMT_SERVE_KINDS];
	char errmsg[512];
};

/*
 * The maps serve loads: top's, sized for hours (sample: 1 address in n
 * followed for the live objects), by cgroup when cgroup_mode is not
 * KMT_CG_OFF
 */
void kmt_serve_config(struct kmt_bpf_config *cfg, uint32_t sample,
		      int cgroup_mode);
/*
 * The most memory the model takes in user space for cfg's maps (its
 * mirrors of them, the rows of a scrape, the stacks' names, a profile's
 * snapshots): stated at the start
 */
uint64_t kmt_serve_state_bytes(const struct kmt_bpf_config *cfg,
			       size_t top_n);

/* b open and attached; c the cgroups' names, or NULL */
void kmt_serve_init(struct kmt_serve *s, struct kmt_bpf *b,
		    struct kmt_bpf_names *names, struct kmt_cgroups *c,
		    size_t top_n, uint64_t now_ns);
void kmt_serve_free(struct kmt_serve *s);
/* reads the maps (now_ns: CLOCK_MONOTONIC); 0 or -errno (errmsg) */
int kmt_serve_update(struct kmt_serve *s, uint64_t now_ns);
/*
 * The last update as group "metrics" of r (render/prom.c): table
 * "series" (kind, callsite, cache, cgroup; allocations, frees, bytes,
 * live objects and bytes), "events" (by tracepoint) and "losses" (by
 * reason), and a summary of the sampling and the limit.  0, or -ENOMEM.
 */
int kmt_serve_metrics(struct kmt_serve *s, struct kmt_report *r);

/* one stack's values of a heap profile */
struct kmt_serve_sample {
	uint64_t key;		/* the stack key's hash */
	uint64_t site;
	uint32_t stack;		/* session stack id, 0 none */
	uint8_t kind;
	int64_t v[4];		/* enum kmt_profile_value */
};

/* the heap profile at a time: every stack's values since the start */
struct kmt_serve_profile {
	struct kmt_serve_sample *s;
	size_t nr, alloc;
	uint64_t ns;
};

/* the stacks as of the last update into p; 0, or -ENOMEM */
int kmt_serve_profile_take(struct kmt_serve *s, struct kmt_serve_profile *p);
void kmt_serve_profile_free(struct kmt_serve_profile *p);
/*
 * p as group "profile" of r (report/profile.h), or when base is not
 * NULL what changed from base to p (Go's ?seconds=N: values may be
 * negative); stacks of no value left out.  weight: the value pprof
 * shows first ("inuse_space" for /heap, "alloc_space" for /allocs).
 * 0, or -ENOMEM.
 */
int kmt_serve_profile_report(struct kmt_serve *s,
			     const struct kmt_serve_profile *p,
			     const struct kmt_serve_profile *base,
			     const char *weight, struct kmt_report *r);

#endif
