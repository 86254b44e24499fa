/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_CALLSITE_H
#define KMT_EVENT_CALLSITE_H

#include <stdint.h>

#include "util/hash.h"

struct kmt_session;

/*
 * The callsite of a page allocation is the first frame of its stack,
 * innermost first, that is neither the page allocator itself nor the
 * tracing code that took the stack.
 *
 * perf kmem's rule, ^_?_?(alloc|get_free|get_zeroed)_pages?, was written
 * for 4.0 kernels.  Today's entry points are __alloc_frozen_pages_noprof,
 * alloc_pages_mpol, folio_alloc_noprof, vma_alloc_folio_noprof, ...; the
 * "_noprof" suffix (memory allocation profiling, 6.10) and "frozen"
 * variants defeat it, so every page callsite came out as the same
 * unresolved address.  The rule here:
 *
 *   1. drop leading underscores and a trailing "_noprof";
 *   2. the frame is the allocator when the rest starts with one of
 *      alloc_pages, alloc_page, alloc_frozen_pages, get_free_page,
 *      get_zeroed_page, folio_alloc, vma_alloc_folio,
 *      get_page_from_freelist, rmqueue, prep_new_page or post_alloc_hook
 *      (so __alloc_pages_bulk, __rmqueue_pcplist, ... too).  Callers that
 *      name a purpose stay callsites: new_slab, allocate_slab and
 *      alloc_slab_page say "slab", __page_cache_alloc and
 *      filemap_alloc_folio say "page cache";
 *   3. the frame is tracing when it starts with trace_, perf_trace_,
 *      perf_tp_, event_trigger, ftrace_, stack_trace_, ring_buffer_,
 *      __trace_, __traceiter_, __probestub_ or __bpf_trace_ (stacks from
 *      the stacktrace trigger and perf's call chains begin there).
 *
 * A stack of nothing but such frames gives its outermost frame; no stack
 * gives 0.
 */
int kmt_callsite_is_page_allocator(const char *sym);

/* per-analysis memo: stack id -> callsite address */
struct kmt_callsite_cache {
	struct kmt_hash_u64 memo;
};

void kmt_callsite_cache_init(struct kmt_callsite_cache *c);
void kmt_callsite_cache_free(struct kmt_callsite_cache *c);
uint64_t kmt_page_callsite(struct kmt_callsite_cache *c,
			   struct kmt_session *s, uint32_t stack_id);

#endif
