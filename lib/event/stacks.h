/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_STACKS_H
#define KMT_EVENT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/hash.h"

/*
 * Interned kernel stacks: each distinct list of return addresses (innermost
 * first) gets an id 1, 2, ...; 0 means no stack.
 */
struct kmt_stack {
	uint32_t nr;
	uint64_t ips[];
};

struct kmt_stacks {
	struct kmt_arena arena;
	struct kmt_hash_u32 index;	/* content hash -> id */
	struct kmt_stack **stacks;	/* id -> stack; [0] NULL */
	size_t nr;
	size_t alloc;
};

int kmt_stacks_init(struct kmt_stacks *st);
void kmt_stacks_free(struct kmt_stacks *st);
/* returns the id, 0 when nr is 0 or out of memory */
uint32_t kmt_stacks_intern(struct kmt_stacks *st, const uint64_t *ips,
			   size_t nr);
static inline const struct kmt_stack *kmt_stacks_get(
	const struct kmt_stacks *st, uint32_t id)
{
	return id && id < st->nr ? st->stacks[id] : NULL;
}

#endif
