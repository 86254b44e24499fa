// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event/stacks.h"
#include "util/array.h"

int kmt_stacks_init(struct kmt_stacks *st)
{
	memset(st, 0, sizeof(*st));
	kmt_arena_init(&st->arena);
	kmt_hash_u32_init(&st->index);
	if (KMT_ARRAY_GROW(st->stacks, 1, st->alloc))
		return -ENOMEM;
	st->stacks[0] = NULL;
	st->nr = 1;
	return 0;
}

void kmt_stacks_free(struct kmt_stacks *st)
{
	kmt_arena_free(&st->arena);
	kmt_hash_u32_free(&st->index);
	free(st->stacks);
	memset(st, 0, sizeof(*st));
}

uint32_t kmt_stacks_intern(struct kmt_stacks *st, const uint64_t *ips,
			   size_t nr)
{
	uint64_t key;
	struct kmt_stack *s;
	uint32_t *slot, id;

	if (!nr)
		return 0;
	key = kmt_hash_bytes(ips, nr * sizeof(*ips));
	for (;;) {
		uint32_t *found = kmt_hash_u32_get(&st->index, key);

		if (!found)
			break;
		s = st->stacks[*found];
		if (s->nr == nr && !memcmp(s->ips, ips, nr * sizeof(*ips)))
			return *found;
		key++;	/* a collision of the 64-bit hash: probe on */
	}
	if (KMT_ARRAY_GROW(st->stacks, st->nr + 1, st->alloc))
		return 0;
	s = kmt_arena_alloc(&st->arena, sizeof(*s) + nr * sizeof(*ips));
	if (!s)
		return 0;
	s->nr = (uint32_t)nr;
	memcpy(s->ips, ips, nr * sizeof(*ips));
	slot = kmt_hash_u32_put(&st->index, key, NULL);
	if (!slot)
		return 0;
	id = (uint32_t)st->nr++;
	st->stacks[id] = s;
	*slot = id;
	return id;
}
