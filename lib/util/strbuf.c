// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/strbuf.h"

void kmt_sb_release(struct kmt_sb *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	sb->oom = 0;
}

void kmt_sb_reset(struct kmt_sb *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static int reserve(struct kmt_sb *sb, size_t extra)
{
	if (sb->oom)
		return -1;
	if (KMT_ARRAY_GROW(sb->buf, sb->len + extra + 1, sb->alloc)) {
		sb->oom = 1;
		return -1;
	}
	return 0;
}

void kmt_sb_add(struct kmt_sb *sb, const char *s, size_t len)
{
	if (reserve(sb, len))
		return;
	memcpy(sb->buf + sb->len, s, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void kmt_sb_adds(struct kmt_sb *sb, const char *s)
{
	kmt_sb_add(sb, s, strlen(s));
}

void kmt_sb_addc(struct kmt_sb *sb, char c)
{
	kmt_sb_add(sb, &c, 1);
}

void kmt_sb_vaddf(struct kmt_sb *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (reserve(sb, 64))
		return;
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->oom = 1;
		return;
	}
	if ((size_t)n >= sb->alloc - sb->len) {
		if (reserve(sb, n))
			return;
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += n;
}

void kmt_sb_addf(struct kmt_sb *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kmt_sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

const char *kmt_sb_str(const struct kmt_sb *sb)
{
	return sb->buf ? sb->buf : "";
}

static const uint64_t pow10_u64[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/*
 * bits * 1233 / 4096 is log10(2) * bits rounded down, which is the digit
 * count or one too many; one comparison decides.  Zero has one digit,
 * as one has.
 */
size_t kmt_dec_width(uint64_t v)
{
	uint64_t x = v | 1;
	unsigned int t = (unsigned int)(64 - __builtin_clzll(x)) * 1233 >> 12;

	return t + 1 - (x < pow10_u64[t]);
}

static const char digit_pairs[] =
	"00010203040506070809"
	"10111213141516171819"
	"20212223242526272829"
	"30313233343536373839"
	"40414243444546474849"
	"50515253545556575859"
	"60616263646566676869"
	"70717273747576777879"
	"80818283848586878889"
	"90919293949596979899";

/* two digits at a time, from the last */
void kmt_put_dec(char *end, uint64_t v)
{
	while (v >= 100) {
		const char *d = digit_pairs + v % 100 * 2;

		v /= 100;
		*--end = d[1];
		*--end = d[0];
	}
	if (v >= 10) {
		*--end = digit_pairs[v * 2 + 1];
		*--end = digit_pairs[v * 2];
	} else {
		*--end = (char)('0' + v);
	}
}

size_t kmt_fmt_u64(char *buf, uint64_t v)
{
	size_t n = kmt_dec_width(v);

	kmt_put_dec(buf + n, v);
	buf[n] = '\0';
	return n;
}

/*
 * Without printf: a report's grouped columns call this for every cell,
 * and snprintf was 10% of a --profile report's instructions.
 */
char *kmt_fmt_thousands(char *buf, size_t size, unsigned long long v)
{
	char tmp[32];
	size_t n = kmt_fmt_u64(tmp, v), o = 0, i;

	for (i = 0; i < n && o + 1 < size; i++) {
		if (i && (n - i) % 3 == 0) {
			/* cut before a group rather than drop its comma */
			if (o + 2 >= size)
				break;
			buf[o++] = ',';
		}
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

int kmt_sb_read_fd(struct kmt_sb *sb, int fd)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		kmt_sb_add(sb, buf, (size_t)n);
	}
	return sb->oom ? -ENOMEM : 0;
}

int kmt_sb_read_file(struct kmt_sb *sb, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = kmt_sb_read_fd(sb, fd);
	close(fd);
	return ret;
}
