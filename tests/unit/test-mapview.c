// SPDX-License-Identifier: GPL-2.0
/*
 * The file mapping read front to back: every byte where it belongs from
 * an offset off a page, pages behind the reader dropped a chunk at a
 * time (the mapping's resident size stays small), a dropped part still
 * readable, and files that cannot be mapped refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "source/mapview.h"

static unsigned char pattern(uint64_t off)
{
	return (unsigned char)((off * 131) ^ (off >> 12));
}

static int make_file(char *path, size_t size)
{
	unsigned char *buf = malloc(size);
	size_t i;
	int fd;

	if (!buf)
		abort();
	for (i = 0; i < size; i++)
		buf[i] = pattern(i);
	strcpy(path, "/tmp/kmt-test-mapview.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
		abort();
	free(buf);
	return fd;
}

/* resident KiB of the mapping holding p, from /proc/self/smaps; -1 unknown */
static long resident_kib(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int inside = 0;
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (inside && sscanf(line, "Rss: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

static void test_read_through(void)
{
	const size_t size = 7 * KMT_MAPVIEW_CHUNK + 12345;
	const uint64_t start = 4097, end = size - 5;
	struct kmt_mapview v;
	char path[64];
	uint64_t off, bad = 0, most = 0;
	long kib;
	int fd = make_file(path, size);

	CHECK_EQ_U64(kmt_mapview_open(&v, fd, start, end), 0);
	/* the mapping starts on the page that holds start */
	CHECK_EQ_U64(v.start, 4096);
	for (off = start; off < end; off += 511) {
		bad += *kmt_mapview_at(&v, off) != pattern(off);
		kmt_mapview_pass(&v, off);
		kib = resident_kib(v.map);
		if (off % (KMT_MAPVIEW_CHUNK / 2) < 511 && kib > (long)most)
			most = kib;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(*kmt_mapview_at(&v, end - 1), pattern(end - 1));
	/* dropped up to the chunk the last offset passed is in */
	off -= 511;
	CHECK_EQ_U64(v.dropped, v.start + (off - v.start) / KMT_MAPVIEW_CHUNK *
					  KMT_MAPVIEW_CHUNK);
	CHECK(v.dropped >= v.start + 6 * (uint64_t)KMT_MAPVIEW_CHUNK);
	/* never much more than the chunk being read and the one before */
	CHECK(most > 0);
	CHECK(most <= 2 * KMT_MAPVIEW_CHUNK / 1024 + 64);
	/* a dropped page is mapped again from the page cache */
	CHECK_EQ_U64(*kmt_mapview_at(&v, start + 10), pattern(start + 10));
	kmt_mapview_close(&v);
	CHECK(v.map == NULL);
	close(fd);
	unlink(path);
}

static void test_refused(void)
{
	struct kmt_mapview v;
	char path[64];
	int fd = make_file(path, 8192), pipefd[2];

	CHECK_EQ_U64(kmt_mapview_open(&v, fd, 100, 100), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kmt_mapview_open(&v, fd, 200, 100), (uint64_t)-EINVAL);
	close(fd);
	unlink(path);
	if (pipe(pipefd))
		abort();
	CHECK(kmt_mapview_open(&v, pipefd[0], 0, 4096) < 0);
	close(pipefd[0]);
	close(pipefd[1]);
}

KMT_TESTS(
	KMT_TEST(test_read_through),
	KMT_TEST(test_refused),
)
