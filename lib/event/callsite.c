// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "event/callsite.h"
#include "event/session.h"

static const char *const allocator_prefixes[] = {
	"alloc_pages", "alloc_page", "alloc_frozen_pages", "get_free_page",
	"get_zeroed_page", "folio_alloc", "vma_alloc_folio",
	"get_page_from_freelist", "rmqueue", "prep_new_page",
	"post_alloc_hook",
};

static const char *const vmalloc_prefixes[] = {
	"alloc_vmap_area", "get_vm_area", "vmalloc", "vzalloc", "kvmalloc",
	"kvzalloc", "kvrealloc", "vmap", "vm_map_ram",
};

static const char *const percpu_prefixes[] = {
	"pcpu_alloc", "alloc_percpu", "alloc_reserved_percpu",
};

#define PREFIXES(a) { a, sizeof(a) / sizeof(*(a)) }

/* each rule's allocator functions, by enum kmt_callsite_rule */
static const struct {
	const char *const *prefixes;
	size_t nr;
} rules[KMT_CALLSITE_NR_RULES] = {
	[KMT_CALLSITE_PAGE]	= PREFIXES(allocator_prefixes),
	[KMT_CALLSITE_VMALLOC]	= PREFIXES(vmalloc_prefixes),
	[KMT_CALLSITE_PERCPU]	= PREFIXES(percpu_prefixes),
};

static const char *const tracing_prefixes[] = {
	"trace_", "perf_trace_", "perf_tp_", "event_trigger", "ftrace_",
	"stack_trace_", "ring_buffer_", "__trace_", "trace_event_",
	"__traceiter_", "__probestub_", "__bpf_trace_",
};

static int has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

int kmt_callsite_is_allocator(enum kmt_callsite_rule rule, const char *sym)
{
	const char *p = sym;
	size_t len, i;

	if (!sym || !*sym)
		return 0;
	for (i = 0; i < sizeof(tracing_prefixes) / sizeof(*tracing_prefixes);
	     i++) {
		if (has_prefix(sym, strlen(sym), tracing_prefixes[i]))
			return 1;
	}
	while (*p == '_')
		p++;
	len = strlen(p);
	if (len > 7 && !strcmp(p + len - 7, "_noprof"))
		len -= 7;
	for (i = 0; i < rules[rule].nr; i++) {
		if (has_prefix(p, len, rules[rule].prefixes[i]))
			return 1;
	}
	return 0;
}

int kmt_callsite_is_page_allocator(const char *sym)
{
	return kmt_callsite_is_allocator(KMT_CALLSITE_PAGE, sym);
}

void kmt_callsite_cache_init(struct kmt_callsite_cache *c)
{
	kmt_hash_u64_init(&c->memo);
}

void kmt_callsite_cache_free(struct kmt_callsite_cache *c)
{
	kmt_hash_u64_free(&c->memo);
}

static uint64_t find_callsite(struct kmt_session *s, uint32_t stack_id,
			      enum kmt_callsite_rule rule)
{
	const struct kmt_stack *st = kmt_stacks_get(&s->stacks, stack_id);
	uint32_t i;

	if (!st || !st->nr)
		return 0;
	for (i = 0; i < st->nr; i++) {
		const char *name = kmt_symtab_lookup(&s->syms, st->ips[i],
						     NULL);

		/* an address no symbol covers is nobody's allocator */
		if (!name || !kmt_callsite_is_allocator(rule, name))
			return st->ips[i];
	}
	return st->ips[st->nr - 1];
}

uint64_t kmt_stack_callsite(struct kmt_callsite_cache *c,
			    struct kmt_session *s, uint32_t stack_id,
			    enum kmt_callsite_rule rule)
{
	uint64_t *memo;
	int is_new;

	if (!stack_id || rule < 0 || rule >= KMT_CALLSITE_NR_RULES)
		return 0;
	/* the page rule's keys are the stack ids alone, as they always were */
	memo = kmt_hash_u64_put(&c->memo, (uint64_t)rule << 32 | stack_id,
				&is_new);
	if (!memo)
		return find_callsite(s, stack_id, rule);
	if (is_new)
		*memo = find_callsite(s, stack_id, rule);
	return *memo;
}
