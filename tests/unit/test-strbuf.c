// SPDX-License-Identifier: GPL-2.0
/* The string buffer and the thousands formatter. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/strbuf.h"

static void test_empty(void)
{
	struct kmt_sb sb = KMT_SB_INIT;

	CHECK_STR(kmt_sb_str(&sb), "");
	kmt_sb_reset(&sb);		/* before any allocation */
	CHECK_STR(kmt_sb_str(&sb), "");
	kmt_sb_adds(&sb, "");
	CHECK_STR(kmt_sb_str(&sb), "");
	CHECK_EQ_U64(sb.len, 0);
	kmt_sb_release(&sb);
	kmt_sb_release(&sb);
	CHECK_STR(kmt_sb_str(&sb), "");
}

static void test_add_addc_adds(void)
{
	struct kmt_sb sb = KMT_SB_INIT;

	kmt_sb_adds(&sb, "GFP_KERNEL");
	kmt_sb_addc(&sb, '|');
	kmt_sb_add(&sb, "__GFP_ZERO and more", 10);
	CHECK_STR(kmt_sb_str(&sb), "GFP_KERNEL|__GFP_ZERO");
	CHECK_EQ_U64(sb.len, 21);
	CHECK_EQ_U64(sb.oom, 0);
	kmt_sb_reset(&sb);
	CHECK_STR(kmt_sb_str(&sb), "");
	CHECK_EQ_U64(sb.len, 0);
	kmt_sb_adds(&sb, "again");
	CHECK_STR(kmt_sb_str(&sb), "again");
	kmt_sb_release(&sb);
}

/* thousands of addf calls, short and long, against a plain reference */
static void test_addf_growth(void)
{
	struct kmt_sb sb = KMT_SB_INIT;
	size_t cap = 4 << 20, o = 0, i;
	char *ref = malloc(cap);
	char pad[300];

	CHECK(ref != NULL);
	if (!ref)
		return;
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	for (i = 0; i < 20000; i++) {
		/* every so often a piece longer than any spare room */
		int w = i % 7 == 0 ? (int)(i % 290) : 0;

		kmt_sb_addf(&sb, "%zu:%s:%.*s;", i, i % 3 ? "k" : "", w, pad);
		o += (size_t)snprintf(ref + o, cap - o, "%zu:%s:%.*s;", i,
				      i % 3 ? "k" : "", w, pad);
	}
	CHECK(o < cap);
	CHECK_EQ_U64(sb.len, o);
	CHECK_EQ_U64(strlen(kmt_sb_str(&sb)), o);
	CHECK(!strcmp(kmt_sb_str(&sb), ref));
	CHECK_EQ_U64(sb.oom, 0);
	kmt_sb_release(&sb);
	free(ref);
}

/* one piece much bigger than the first allocation */
static void test_addf_one_big(void)
{
	struct kmt_sb sb = KMT_SB_INIT;
	char big[5000];

	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kmt_sb_addf(&sb, "<%s>", big);
	CHECK_EQ_U64(sb.len, 5001);
	CHECK(sb.buf[0] == '<' && sb.buf[5000] == '>' && sb.buf[5001] == '\0');
	CHECK(sb.buf[1] == 'y' && sb.buf[4999] == 'y');
	/* and an empty format adds nothing */
	kmt_sb_addf(&sb, "%s", "");
	CHECK_EQ_U64(sb.len, 5001);
	kmt_sb_release(&sb);
}

static void check_thousands(unsigned long long v, const char *want)
{
	char buf[32];

	memset(buf, '@', sizeof(buf));
	CHECK_STR(kmt_fmt_thousands(buf, sizeof(buf), v), want);
}

static void test_thousands(void)
{
	check_thousands(0, "0");
	check_thousands(7, "7");
	check_thousands(999, "999");
	check_thousands(1000, "1,000");
	check_thousands(9999, "9,999");
	check_thousands(100000, "100,000");
	check_thousands(999999, "999,999");
	check_thousands(1000000, "1,000,000");
	check_thousands(1234567, "1,234,567");
	check_thousands(UINT64_MAX, "18,446,744,073,709,551,615");
}

/* the grouping of printf's digits, for values of every width */
static void test_thousands_as_printf(void)
{
	unsigned long long v = 1;
	char digits[32], want[40], got[40];
	int i, k, n;

	for (i = 0; i < 200; i++) {
		n = snprintf(digits, sizeof(digits), "%llu", v);
		for (k = 0, *want = '\0'; k < n; k++)
			sprintf(want + strlen(want), "%s%c",
				k && (n - k) % 3 == 0 ? "," : "", digits[k]);
		CHECK_STR(kmt_fmt_thousands(got, sizeof(got), v), want);
		v = v * 7 + (unsigned long long)i;
	}
}

/* a short buffer is cut, never overrun, always terminated */
static void test_thousands_short_buffer(void)
{
	char buf[16];
	size_t size;

	for (size = 1; size <= 10; size++) {
		memset(buf, '@', sizeof(buf));
		kmt_fmt_thousands(buf, size, 1234567);
		CHECK(memchr(buf, '\0', size) != NULL);
		CHECK(buf[size] == '@');
		/* what fits is a prefix of the full text */
		CHECK(!strncmp(buf, "1,234,567", strlen(buf)));
	}
	kmt_fmt_thousands(buf, 10, 1234567);
	CHECK_STR(buf, "1,234,567");
}

/* decimal without printf reads as printf's, at the ends of the range */
static void test_u64(void)
{
	static const uint64_t vals[] = {
		0, 7, 10, 999, 1000, 4294967296ULL, 18446744073709551615ULL,
	};
	char buf[21], want[32];
	size_t i, n;

	uint64_t p10 = 1;
	int k;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		n = kmt_fmt_u64(buf, vals[i]);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)vals[i]);
		CHECK_STR(buf, want);
		CHECK_EQ_U64(n, strlen(want));
	}
	/* every digit count changes at a power of ten */
	for (k = 1; k < 20; k++) {
		uint64_t edge[2] = { p10 * 10 - 1, p10 * 10 };

		p10 *= 10;
		for (i = 0; i < 2; i++) {
			n = kmt_fmt_u64(buf, edge[i]);
			snprintf(want, sizeof(want), "%llu",
				 (unsigned long long)edge[i]);
			CHECK_STR(buf, want);
			CHECK_EQ_U64(kmt_dec_width(edge[i]), strlen(want));
		}
	}
}

/* a file read to its end, past one read's worth, and a bad fd */
static void test_read_fd(void)
{
	struct kmt_sb sb = KMT_SB_INIT;
	FILE *f = tmpfile();
	size_t i;

	CHECK(f != NULL);
	if (!f)
		return;
	for (i = 0; i < 100000; i++)
		fputc('a' + (int)(i % 26), f);
	fflush(f);
	rewind(f);
	kmt_sb_adds(&sb, "head:");
	CHECK(kmt_sb_read_fd(&sb, fileno(f)) == 0);
	CHECK_EQ_U64(sb.len, 100005);
	CHECK(sb.buf[5] == 'a' && sb.buf[100004] == 'a' + 99999 % 26);
	CHECK(kmt_sb_read_fd(&sb, fileno(f)) == 0);	/* at the end: nothing */
	CHECK_EQ_U64(sb.len, 100005);
	fclose(f);
	CHECK(kmt_sb_read_fd(&sb, -1) == -EBADF);
	kmt_sb_release(&sb);
}

KMT_TESTS(KMT_TEST(test_read_fd), 
	KMT_TEST(test_empty),
	KMT_TEST(test_u64),
	KMT_TEST(test_add_addc_adds),
	KMT_TEST(test_addf_growth),
	KMT_TEST(test_addf_one_big),
	KMT_TEST(test_thousands),
	KMT_TEST(test_thousands_as_printf),
	KMT_TEST(test_thousands_short_buffer)
)
