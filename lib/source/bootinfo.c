// SPDX-License-Identifier: GPL-2.0
/*
 * The boot id and wall clock of a recording, as kmemtrace record writes
 * them and the trace.dat reader reads them back (bootinfo.h).  The text
 * comes from a file anyone may have damaged: every field is checked and
 * a bad one is left unknown rather than guessed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "source/bootinfo.h"

#define BOOT_ID_LEN 36

/* 1 to 19 decimal digits, which always fit in 64 bits */
static int parse_u64(const char *p, size_t len, uint64_t *v)
{
	uint64_t n = 0;
	size_t i;

	if (!len || len > 19)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -EINVAL;
		n = n * 10 + (uint64_t)(p[i] - '0');
	}
	*v = n;
	return 0;
}

int kmt_bootinfo_set_id(struct kmt_bootinfo *b, const char *id, size_t len)
{
	size_t i;

	if (len != BOOT_ID_LEN)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = id[i];

		if (dash ? c != '-' :
		    !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return -EINVAL;
	}
	memcpy(b->boot_id, id, len);
	b->boot_id[len] = '\0';
	return 0;
}

int kmt_bootinfo_parse(struct kmt_bootinfo *b, const char *data, size_t len)
{
	size_t mlen = strlen(KMT_BOOTINFO_MAGIC), at;
	int has_real = 0, has_trace = 0;

	memset(b, 0, sizeof(*b));
	len = strnlen(data, len);
	if (len < mlen || memcmp(data, KMT_BOOTINFO_MAGIC, mlen))
		return -EINVAL;
	for (at = mlen; at < len;) {
		const char *line = data + at;
		const char *nl = memchr(line, '\n', len - at);
		const char *sp;
		size_t n, klen;

		/* the last line without its newline may be cut short */
		if (!nl)
			break;
		n = (size_t)(nl - line);
		at += n + 1;
		sp = memchr(line, ' ', n);
		if (!sp)
			continue;
		klen = (size_t)(sp - line);
		sp++;
		n -= klen + 1;
		if (klen == 7 && !memcmp(line, "boot_id", 7))
			kmt_bootinfo_set_id(b, sp, n);
		else if (klen == 11 && !memcmp(line, "realtime_ns", 11))
			has_real = !parse_u64(sp, n, &b->realtime_ns);
		else if (klen == 8 && !memcmp(line, "trace_ns", 8))
			has_trace = !parse_u64(sp, n, &b->trace_ns);
	}
	/* one of the pair alone says nothing */
	b->has_clock = has_real && has_trace;
	if (!b->has_clock)
		b->realtime_ns = b->trace_ns = 0;
	return 0;
}

size_t kmt_bootinfo_format(const struct kmt_bootinfo *b, char *buf,
			   size_t len)
{
	int n;

	n = snprintf(buf, len, "%s%s%s%s", KMT_BOOTINFO_MAGIC,
		     b->boot_id[0] ? "boot_id " : "", b->boot_id,
		     b->boot_id[0] ? "\n" : "");
	if (n >= 0 && (size_t)n < len && b->has_clock)
		n += snprintf(buf + n, len - n, "realtime_ns %" PRIu64
			      "\ntrace_ns %" PRIu64 "\n", b->realtime_ns,
			      b->trace_ns);
	return n < 0 || (size_t)n >= len ? 0 : (size_t)n;
}

int kmt_bootinfo_stats_now(const char *stats, uint64_t *ns)
{
	static const char key[] = "now ts:";
	const char *p = stats, *dot;
	uint64_t sec, usec;
	size_t n;

	while (p && strncmp(p, key, sizeof(key) - 1)) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return -EINVAL;
	p += sizeof(key) - 1;
	while (*p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, "\n");
	dot = memchr(p, '.', n);
	/* "%5llu.%06lu": exactly six digits of microseconds */
	if (!dot || parse_u64(p, (size_t)(dot - p), &sec) ||
	    (size_t)(p + n - dot - 1) != 6 || parse_u64(dot + 1, 6, &usec) ||
	    sec > UINT64_MAX / 1000000000u - 1)
		return -EINVAL;
	*ns = sec * 1000000000u + usec * 1000u;
	return 0;
}
