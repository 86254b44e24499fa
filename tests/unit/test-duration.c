// SPDX-License-Identifier: GPL-2.0
/* The one grammar of durations every command's options take. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "util/duration.h"

static uint64_t ns_of(const char *arg)
{
	uint64_t ns = 12345;

	CHECK(!kmt_parse_duration(arg, &ns));
	return ns;
}

static void test_units(void)
{
	CHECK_EQ_U64(ns_of("500ms"), 500000000ULL);
	CHECK_EQ_U64(ns_of("2s"), 2000000000ULL);
	CHECK_EQ_U64(ns_of("2"), 2000000000ULL);
	CHECK_EQ_U64(ns_of("1m"), 60000000000ULL);
	CHECK_EQ_U64(ns_of("1h"), 3600000000000ULL);
	CHECK_EQ_U64(ns_of("250us"), 250000ULL);
	CHECK_EQ_U64(ns_of("7ns"), 7ULL);
	CHECK_EQ_U64(ns_of("0"), 0ULL);
	/* exact, without floating point: 0.1 s is 100 ms to the ns */
	CHECK_EQ_U64(ns_of("0.1"), 100000000ULL);
	CHECK_EQ_U64(ns_of("1.5m"), 90000000000ULL);
	CHECK_EQ_U64(ns_of(".5s"), 500000000ULL);
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"", "s", "5x", "-1s", "1.2.3s", "1 s", "soon", "1e3",
		"99999999999999999999", "18000000001", "1sm",
	};
	uint64_t ns = 77;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(kmt_parse_duration(bad[i], &ns) == -1);
		CHECK_EQ_U64(ns, 77);
	}
}

static void test_seconds(void)
{
	uint64_t ns = 0;

	CHECK(!kmt_parse_seconds("12.5,3", 4, &ns));
	CHECK_EQ_U64(ns, 12500000000ULL);
	CHECK(kmt_parse_seconds("12.5", 0, &ns) == -1);
	CHECK(kmt_parse_seconds(".", 1, &ns) == -1);
	/* digits past the ninth decimal are dropped, not rounded */
	CHECK(!kmt_parse_seconds("1.0000000019", 12, &ns));
	CHECK_EQ_U64(ns, 1000000001ULL);
}

/* the text names the bound exactly, and reads back as the same ns */
static void test_text(void)
{
	static const uint64_t values[] = {
		50000000ULL, 1500000000ULL, 2000000000ULL, 90000000000ULL,
		3600000000000ULL, 7200000000000ULL, 250000ULL, 7ULL, 1ULL,
		1000000001ULL,
	};
	static const char *const texts[] = {
		"50ms", "1500ms", "2s", "90s", "1h", "2h", "250us", "7ns", "1ns",
		"1000000001ns",
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		CHECK_STR(kmt_duration_text(values[i], buf, sizeof(buf)),
			  texts[i]);
		CHECK_EQ_U64(ns_of(buf), values[i]);
	}
	CHECK_STR(kmt_duration_text(0, buf, sizeof(buf)), "0ns");
}

KMT_TESTS(KMT_TEST(test_units), KMT_TEST(test_refused), KMT_TEST(test_seconds),
	  KMT_TEST(test_text))
