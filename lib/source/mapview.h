/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_MAPVIEW_H
#define KMT_SOURCE_MAPVIEW_H

#include <stdint.h>

/*
 * A part of a file read once, front to back, through one mapping whose
 * pages are dropped behind the reader as it goes: the memory it holds
 * stays about a chunk however big the file.  One mapping faulted in by
 * the reader's own accesses costs less than mapping windows one after
 * another with their pages populated (7% of `report` on a 791 MB
 * perf.data): no mmap and munmap a window, and the kernel maps the pages
 * around each fault in one go.
 */
#define KMT_MAPVIEW_CHUNK	(2U << 20)	/* dropped at a time */

struct kmt_mapview {
	unsigned char *map;	/* [start, end) of the file */
	uint64_t start, end;	/* file offsets; start on a page */
	uint64_t dropped;	/* pages below this offset are dropped */
	uint64_t mark;		/* kmt_mapview_pass drops again past it */
};

/*
 * Maps bytes [start, end) of fd: 0, or -errno when the file cannot be
 * mapped (the caller reads it instead).
 */
int kmt_mapview_open(struct kmt_mapview *v, int fd, uint64_t start,
		     uint64_t end);

/* the byte at file offset off, which is inside [start, end) */
static inline const unsigned char *kmt_mapview_at(const struct kmt_mapview *v,
						  uint64_t off)
{
	return v->map + (off - v->start);
}

void kmt_mapview_drop(struct kmt_mapview *v, uint64_t off);

/*
 * The reader will not look below off again: the chunks below the one
 * off is in are dropped.  Cheap enough for every record.
 */
static inline void kmt_mapview_pass(struct kmt_mapview *v, uint64_t off)
{
	if (off >= v->mark)
		kmt_mapview_drop(v, off);
}

/* unmaps; nothing is left to free */
void kmt_mapview_close(struct kmt_mapview *v);

#endif
