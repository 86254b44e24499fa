/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_NAMES_H
#define KMT_BPF_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/loader.h"
#include "event/callsite.h"
#include "event/session.h"

/*
 * Names for what the BPF maps hold: the running kernel's symbols
 * (/proc/kallsyms, the project's symbol table) and the stacks of the
 * stack map, interned in a session as a recording's stacks are, so the
 * page callsite rule (event/callsite.h) applies to them unchanged.
 */
struct kmt_bpf_names {
	struct kmt_session sess;
	struct kmt_callsite_cache callsites;
	/* BPF stack id -> session stack id (0: none) */
	struct kmt_hash_u32 ids;
};

/* 0, or -errno with the reason in n->sess.errmsg */
int kmt_bpf_names_init(struct kmt_bpf_names *n);
void kmt_bpf_names_free(struct kmt_bpf_names *n);

/*
 * The session stack of BPF stack id, read from the map once: the frames
 * of BPF and tracing dropped, and for a slab object everything inside
 * the allocator too (it starts at site, as a recording's stacks do in
 * `report`).  0 for a failed stack id or one no longer in the map.
 */
uint32_t kmt_bpf_names_stack(struct kmt_bpf_names *n, struct kmt_bpf *b,
			     int64_t stack_id, uint64_t site);
/*
 * The same for the stack of a percpu or vmalloc event (kind of kmt.h):
 * it starts at the caller, the first frame outside vmalloc's or the
 * percpu allocator's own functions (kmt_bpf_is_rare_allocator).
 */
uint32_t kmt_bpf_names_rare_stack(struct kmt_bpf_names *n, struct kmt_bpf *b,
				  int64_t stack_id);
/* the caller in such a stack: its first frame; 0 for none */
uint64_t kmt_bpf_names_rare_site(struct kmt_bpf_names *n, uint32_t stack);
/*
 * Whether sym is vmalloc's or the percpu allocator's own: with leading
 * underscores and a trailing "_noprof" dropped, it starts with one of
 * alloc_vmap_area, get_vm_area, vmalloc, vzalloc, vmap, vm_map_ram,
 * kvmalloc, kvzalloc, kvcalloc, kvrealloc, execmem_, pcpu_alloc,
 * alloc_percpu or pcpu_ (so __vmalloc_node_range, __get_vm_area_node,
 * __kvmalloc_node, ... too).  Callers that say what the memory is for
 * stay callsites: __bpf_map_area_alloc, bpf_jit_alloc_exec,
 * alloc_thread_stack_node, module_alloc.
 */
int kmt_bpf_is_rare_allocator(const char *sym);
/* a stack id was deleted from the map and may name another stack */
void kmt_bpf_names_forget(struct kmt_bpf_names *n, int64_t stack_id);
/* the callsite of a page allocation from its stack (callsite.h) */
uint64_t kmt_bpf_names_page_site(struct kmt_bpf_names *n, uint32_t stack);
/* "sym+off" as report writes it, or "0x..." */
const char *kmt_bpf_names_sym(struct kmt_bpf_names *n, uint64_t addr,
			      char *buf, size_t size);
/* "a+1 <- b+2 <- ...", at most max frames (0: all) */
const char *kmt_bpf_names_stack_str(struct kmt_bpf_names *n, uint32_t stack,
				    int max, char *buf, size_t size);

#endif
