/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_ARENA_H
#define KMT_UTIL_ARENA_H

#include <stddef.h>

/*
 * The one arena: memory for things that live as long as a session (names,
 * stacks, table rows) is taken from large chunks and freed all at once.
 */
struct kmt_arena_chunk;

struct kmt_arena {
	struct kmt_arena_chunk *head;
	size_t chunk_size;
	size_t total;		/* bytes handed out, for reports on memory */
};

void kmt_arena_init(struct kmt_arena *a);
void kmt_arena_free(struct kmt_arena *a);
/* 16-byte aligned, uninitialised; NULL when out of memory */
void *kmt_arena_alloc(struct kmt_arena *a, size_t size);
void *kmt_arena_zalloc(struct kmt_arena *a, size_t size);
char *kmt_arena_strndup(struct kmt_arena *a, const char *s, size_t len);
char *kmt_arena_strdup(struct kmt_arena *a, const char *s);

#endif
