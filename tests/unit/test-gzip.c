// SPDX-License-Identifier: GPL-2.0
/*
 * kmt_gzip_to (util/gzip.c): what it writes gunzips to the input, for
 * empty, small and larger-than-its-buffer inputs, and the same input
 * gives the same bytes (no time, no name in the header).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "util/gzip.h"

static char *gzip_of(const void *data, size_t len, size_t *out_len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, out_len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK(kmt_gzip_to(data, len, f) == 0);
	fclose(f);
	return buf;
}

static void round_trip(const unsigned char *data, size_t len)
{
	size_t zlen = 0, zlen2 = 0;
	char *z = gzip_of(data, len, &zlen), *z2 = gzip_of(data, len, &zlen2);
	unsigned char *back = malloc(len + 1);
	z_stream s;

	CHECK(z && z2 && back);
	if (!z || !z2 || !back)
		goto out;
	CHECK(zlen >= 18 && (unsigned char)z[0] == 0x1f &&
	      (unsigned char)z[1] == 0x8b);
	/* MTIME (bytes 4-7) zero: the same bytes every time */
	CHECK(!z[4] && !z[5] && !z[6] && !z[7]);
	CHECK(zlen == zlen2 && !memcmp(z, z2, zlen));
	memset(&s, 0, sizeof(s));
	CHECK(inflateInit2(&s, 15 + 16) == Z_OK);
	s.next_in = (unsigned char *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = back;
	s.avail_out = (uInt)len + 1;
	CHECK(inflate(&s, Z_FINISH) == Z_STREAM_END);
	CHECK(s.total_out == len);
	CHECK(!len || !memcmp(back, data, len));
	inflateEnd(&s);
out:
	free(z);
	free(z2);
	free(back);
}

static void test_round_trips(void)
{
	size_t n = 300000, i;
	unsigned char *big = malloc(n);
	uint32_t x = 12345;

	round_trip((const unsigned char *)"", 0);
	round_trip((const unsigned char *)"kmemtrace_updates_total 3\n", 26);
	CHECK(big != NULL);
	if (!big)
		return;
	/* more than the 64 KiB it deflates into at a time, and not all alike */
	for (i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		big[i] = (unsigned char)(i % 7 ? 'a' + (x >> 24) % 26 : '\n');
	}
	round_trip(big, n);
	free(big);
}

KMT_TESTS(KMT_TEST(test_round_trips))
