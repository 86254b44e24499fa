/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_STRBUF_H
#define KMT_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* A growable NUL-terminated string; errors stick in ->oom. */
struct kmt_sb {
	char *buf;
	size_t len;
	size_t alloc;
	int oom;
};

#define KMT_SB_INIT { NULL, 0, 0, 0 }

void kmt_sb_release(struct kmt_sb *sb);
void kmt_sb_reset(struct kmt_sb *sb);
void kmt_sb_add(struct kmt_sb *sb, const char *s, size_t len);
void kmt_sb_adds(struct kmt_sb *sb, const char *s);
void kmt_sb_addc(struct kmt_sb *sb, char c);
void kmt_sb_addf(struct kmt_sb *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kmt_sb_vaddf(struct kmt_sb *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * What fd holds from where it stands to its end, added to sb (read
 * again after EINTR); 0, -errno, or -ENOMEM (sb->oom).
 */
int kmt_sb_read_fd(struct kmt_sb *sb, int fd);
/* the whole file at path, appended: 0, or -errno of the open or a read */
int kmt_sb_read_file(struct kmt_sb *sb, const char *path);
/* the text, "" when empty */
const char *kmt_sb_str(const struct kmt_sb *sb);

/* the value of a hex digit, -1 for any other character */
static inline int kmt_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * v in decimal into buf (21 bytes at least), NUL-terminated, without
 * printf: output as big as the input is drawn a number at a time.
 * Returns the digits written.
 */
size_t kmt_fmt_u64(char *buf, uint64_t v);
/* how many decimal digits v has (1 for 0) */
size_t kmt_dec_width(uint64_t v);
/*
 * The kmt_dec_width(v) digits of v, ending just before end, not
 * terminated: for text written in place, into a line being built.
 */
void kmt_put_dec(char *end, uint64_t v);

/* 1234567 -> "1,234,567", into buf of at least 32 bytes */
char *kmt_fmt_thousands(char *buf, size_t size, unsigned long long v);

#endif
