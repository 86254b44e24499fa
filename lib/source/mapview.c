// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source/mapview.h"

int kmt_mapview_open(struct kmt_mapview *v, int fd, uint64_t start,
		     uint64_t end)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	void *m;

	memset(v, 0, sizeof(*v));
	if (!page || end <= start)
		return -EINVAL;
	v->start = start - start % page;
	v->end = end;
	if (end - v->start != (size_t)(end - v->start))
		return -EFBIG;
	m = mmap(NULL, (size_t)(end - v->start), PROT_READ, MAP_PRIVATE, fd,
		 (off_t)v->start);
	if (m == MAP_FAILED)
		return -errno;
	v->map = m;
	v->dropped = v->start;
	v->mark = v->start + KMT_MAPVIEW_CHUNK;
	return 0;
}

void kmt_mapview_drop(struct kmt_mapview *v, uint64_t off)
{
	uint64_t below = v->start + (off - v->start) / KMT_MAPVIEW_CHUNK *
				    KMT_MAPVIEW_CHUNK;

	v->mark = below + KMT_MAPVIEW_CHUNK;
	if (below <= v->dropped)
		return;
	/* file pages: dropped from the mapping, not from the page cache */
	madvise(v->map + (v->dropped - v->start), below - v->dropped,
		MADV_DONTNEED);
	v->dropped = below;
}

void kmt_mapview_close(struct kmt_mapview *v)
{
	if (v->map)
		munmap(v->map, (size_t)(v->end - v->start));
	v->map = NULL;
}
