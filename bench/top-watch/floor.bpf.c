// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of in-kernel counting: a program on each tracepoint top
 * attaches to that returns at once.  What it costs the workload is what
 * attaching costs before any counting (the tracepoint's call, the BPF
 * dispatch, the recursion guard); bench/top-watch/run.sh's "floor" way.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define NOTHING(tp)							\
	SEC("raw_tp/" #tp)						\
	int floor_##tp(void *ctx)					\
	{								\
		return 0;						\
	}

NOTHING(kmalloc)
NOTHING(kmem_cache_alloc)
NOTHING(kfree)
NOTHING(kmem_cache_free)
NOTHING(mm_page_alloc)
NOTHING(mm_page_free)
NOTHING(mm_page_free_batched)
NOTHING(percpu_alloc_percpu)
NOTHING(percpu_free_percpu)
NOTHING(percpu_alloc_percpu_fail)
NOTHING(alloc_vmap_area)
NOTHING(free_vmap_area_noflush)
NOTHING(sched_process_fork)
NOTHING(sched_process_exec)
