/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_CALLSITE_H
#define KMT_EVENT_CALLSITE_H

#include <stdint.h>

#include "event/event.h"
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

/*
 * The same rule for the other allocators whose events name no caller,
 * each with its own table of functions in place of the page allocator's
 * (the tracing frames are skipped alike):
 *
 *   vmalloc (alloc_vmap_area has no call site on any kernel): after the
 *   same trimming, alloc_vmap_area, get_vm_area (__get_vm_area_node,
 *   __get_vm_area_caller, ...), vmalloc (__vmalloc_node_range,
 *   __vmalloc_node, vmalloc_node, __vmalloc_area_node, ...), vzalloc,
 *   kvmalloc (__kvmalloc_node), kvzalloc, kvrealloc, vmap and
 *   vm_map_ram: __bpf_map_area_alloc, copy_process, module loading stay
 *   callers;
 *   percpu (call_site is a field only from 6.0 on): pcpu_alloc,
 *   alloc_percpu (__alloc_percpu_gfp), alloc_reserved_percpu.
 */
enum kmt_callsite_rule {
	KMT_CALLSITE_OWN = -1,	/* the event names its caller: call_site */
	KMT_CALLSITE_PAGE,
	KMT_CALLSITE_VMALLOC,
	KMT_CALLSITE_PERCPU,
	KMT_CALLSITE_NR_RULES
};

/* whether sym is one of rule's allocator (or tracing) functions */
int kmt_callsite_is_allocator(enum kmt_callsite_rule rule, const char *sym);

/* how ev's callsite is found: in call_site, or by a rule in its stack */
static inline enum kmt_callsite_rule kmt_callsite_rule_of(
	const struct kmt_event *ev)
{
	if (kmt_ev_is_slab(ev->type))
		return KMT_CALLSITE_OWN;
	if (kmt_ev_is_percpu(ev->type))
		return ev->call_site ? KMT_CALLSITE_OWN : KMT_CALLSITE_PERCPU;
	if (kmt_ev_is_vmalloc(ev->type))
		return KMT_CALLSITE_VMALLOC;
	return KMT_CALLSITE_PAGE;
}

/* per-analysis memo: rule and stack id -> callsite address */
struct kmt_callsite_cache {
	struct kmt_hash_u64 memo;
};

void kmt_callsite_cache_init(struct kmt_callsite_cache *c);
void kmt_callsite_cache_free(struct kmt_callsite_cache *c);
/* the callsite in stack stack_id by rule (0: none) */
uint64_t kmt_stack_callsite(struct kmt_callsite_cache *c,
			    struct kmt_session *s, uint32_t stack_id,
			    enum kmt_callsite_rule rule);

static inline uint64_t kmt_page_callsite(struct kmt_callsite_cache *c,
					 struct kmt_session *s,
					 uint32_t stack_id)
{
	return kmt_stack_callsite(c, s, stack_id, KMT_CALLSITE_PAGE);
}

#endif
