// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "util/gzip.h"

int kmt_gzip_to(const void *data, size_t len, FILE *out)
{
	unsigned char buf[65536];
	z_stream z;
	int ret, err = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (unsigned char *)(data ? data : "");
	z.avail_in = (uInt)len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR) {
			errno = EIO;
			err = -1;
			break;
		}
		if (fwrite(buf, 1, sizeof(buf) - z.avail_out, out) !=
		    sizeof(buf) - z.avail_out) {
			err = -1;
			break;
		}
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}
