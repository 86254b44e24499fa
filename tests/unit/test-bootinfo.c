// SPDX-License-Identifier: GPL-2.0
/*
 * The boot id and clocks option of kmemtrace's trace.dat: written and
 * read back, and damaged copies of it, which must leave fields unknown
 * rather than wrong.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "source/bootinfo.h"

#define ID "fe29cf62-bcd5-4bad-b3e4-9bebd41093f2"

static int parse(struct kmt_bootinfo *b, const char *text)
{
	return kmt_bootinfo_parse(b, text, strlen(text) + 1);
}

static void test_round_trip(void)
{
	struct kmt_bootinfo b = { .has_clock = 1,
				  .realtime_ns = 1795842322262206000ull,
				  .trace_ns = 10536425243000ull }, got;
	char buf[256];
	size_t n;

	CHECK_EQ_U64(kmt_bootinfo_set_id(&b, ID, strlen(ID)), 0);
	n = kmt_bootinfo_format(&b, buf, sizeof(buf));
	CHECK_EQ_U64(n, strlen(buf));
	CHECK_STR(buf, KMT_BOOTINFO_MAGIC "boot_id " ID "\n"
		  "realtime_ns 1795842322262206000\ntrace_ns 10536425243000\n");
	CHECK_EQ_U64(kmt_bootinfo_parse(&got, buf, n + 1), 0);
	CHECK_STR(got.boot_id, ID);
	CHECK_EQ_U64(got.has_clock, 1);
	CHECK_EQ_U64(got.realtime_ns, b.realtime_ns);
	CHECK_EQ_U64(got.trace_ns, b.trace_ns);
	/* the boot id alone, when the trace clock could not be read */
	b.has_clock = 0;
	n = kmt_bootinfo_format(&b, buf, sizeof(buf));
	CHECK_STR(buf, KMT_BOOTINFO_MAGIC "boot_id " ID "\n");
	CHECK_EQ_U64(kmt_bootinfo_parse(&got, buf, n), 0);
	CHECK_STR(got.boot_id, ID);
	CHECK_EQ_U64(got.has_clock, 0);
	/* too small a buffer: nothing, not a cut text */
	CHECK_EQ_U64(kmt_bootinfo_format(&b, buf, 20), 0);
}

static void test_damaged(void)
{
	struct kmt_bootinfo b;

	CHECK(parse(&b, "kmemtrace tgids\n1 1\n") == -EINVAL);
	CHECK(parse(&b, "kmemtrace boot") == -EINVAL);
	CHECK(kmt_bootinfo_parse(&b, "kmemtrace boot\n", 5) == -EINVAL);
	CHECK(parse(&b, "") == -EINVAL);
	CHECK_STR(b.boot_id, "");
	/* the magic alone: nothing known */
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC), 0);
	CHECK_STR(b.boot_id, "");
	CHECK_EQ_U64(b.has_clock, 0);
	/* the last line without its newline may be cut short */
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "boot_id " ID "\n"
			   "realtime_ns 1795842322262206000\ntrace_ns 105"), 0);
	CHECK_STR(b.boot_id, ID);
	CHECK_EQ_U64(b.has_clock, 0);
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "boot_id " ID), 0);
	CHECK_STR(b.boot_id, "");
	/* ids of the wrong length, case or shape */
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "boot_id " ID "0\n"), 0);
	CHECK_STR(b.boot_id, "");
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC
			   "boot_id FE29CF62-BCD5-4BAD-B3E4-9BEBD41093F2\n"), 0);
	CHECK_STR(b.boot_id, "");
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC
			   "boot_id fe29cf62bbcd5-4bad-b3e4-9bebd41093f2\n"), 0);
	CHECK_STR(b.boot_id, "");
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "boot_id\n"), 0);
	CHECK_STR(b.boot_id, "");
	/* garbage numbers, or one clock without the other: no pair */
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "realtime_ns 12x\n"
			   "trace_ns 5\n"), 0);
	CHECK_EQ_U64(b.has_clock, 0);
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "realtime_ns -12\n"
			   "trace_ns 5\n"), 0);
	CHECK_EQ_U64(b.has_clock, 0);
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "realtime_ns \n"
			   "trace_ns 5\n"), 0);
	CHECK_EQ_U64(b.has_clock, 0);
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC
			   "realtime_ns 99999999999999999999\ntrace_ns 5\n"), 0);
	CHECK_EQ_U64(b.has_clock, 0);
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "trace_ns 5\n"), 0);
	CHECK_EQ_U64(b.has_clock, 0);
	CHECK_EQ_U64(b.trace_ns, 0);
	/* unknown keys and stray lines are skipped; a NUL ends the text */
	CHECK_EQ_U64(parse(&b, KMT_BOOTINFO_MAGIC "later 1\nnospace\n"
			   "realtime_ns 7\ntrace_ns 5\n"), 0);
	CHECK_EQ_U64(b.has_clock, 1);
	CHECK_EQ_U64(b.realtime_ns, 7);
	CHECK_EQ_U64(kmt_bootinfo_parse(&b, KMT_BOOTINFO_MAGIC
					"realtime_ns 7\n\0trace_ns 5\n",
					sizeof(KMT_BOOTINFO_MAGIC
					       "realtime_ns 7\n\0trace_ns 5\n")),
		     0);
	CHECK_EQ_U64(b.has_clock, 0);
}

static void test_stats_now(void)
{
	uint64_t ns = 0;

	CHECK_EQ_U64(kmt_bootinfo_stats_now(
		"entries: 0\noverrun: 0\noldest event ts:     0.000000\n"
		"now ts: 10536.425243\ndropped events: 0\n", &ns), 0);
	CHECK_EQ_U64(ns, 10536425243000ull);
	CHECK_EQ_U64(kmt_bootinfo_stats_now("now ts:     0.000001\n", &ns), 0);
	CHECK_EQ_U64(ns, 1000);
	/* counter and x86-tsc print a bare count: no ns in it */
	CHECK(kmt_bootinfo_stats_now("now ts: 123456789\n", &ns) == -EINVAL);
	CHECK(kmt_bootinfo_stats_now("now ts: 1.12345\n", &ns) == -EINVAL);
	CHECK(kmt_bootinfo_stats_now("now ts: .123456\n", &ns) == -EINVAL);
	CHECK(kmt_bootinfo_stats_now("now ts: 1.1234567\n", &ns) == -EINVAL);
	CHECK(kmt_bootinfo_stats_now("entries: 0\n", &ns) == -EINVAL);
	CHECK(kmt_bootinfo_stats_now("", &ns) == -EINVAL);
	CHECK(kmt_bootinfo_stats_now("now ts: 99999999999.000000\n", &ns) ==
	      -EINVAL);
}

KMT_TESTS(
	KMT_TEST(test_round_trip),
	KMT_TEST(test_damaged),
	KMT_TEST(test_stats_now)
)
