/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_TESTS_STAT_FIXTURE_H
#define KMT_TESTS_STAT_FIXTURE_H

#include <stdint.h>

/*
 * A fixed count set for kmemtrace stat's report: the events of a 6.x
 * kernel, counts of every width (0, a thousand, past a million and a
 * billion) and rates on each side of K/sec and M/sec.  The text and JSON
 * the printer of stat made of them before it drew through lib/render are
 * in tests/data/stat/.
 */
#define NR_FIX 14
#define NR_INTERVALS 3

static const char *const fix_names[NR_FIX] = {
	"kmem:kmalloc", "kmem:kmem_cache_alloc", "kmem:kfree",
	"kmem:kmem_cache_free",
	"kmem:mm_page_alloc", "kmem:mm_page_free", "kmem:mm_page_free_batched",
	"kmem:mm_page_alloc_zone_locked", "kmem:mm_page_pcpu_drain",
	"kmem:mm_page_alloc_extfrag", "kmem:mm_calculate_totalreserve_pages",
	"kmem:mm_setup_per_zone_lowmem_reserve", "kmem:mm_setup_per_zone_wmarks",
	"kmem:rss_stat",
};

static const char fix_target[] = "sh -c 'echo \"hi\\there\"'";

static const uint64_t fix_final[NR_FIX] = {
	208162, 86315, 225930, 86026, 1785, 1005, 157, 1197, 0, 0, 0, 0, 0,
	1656,
};
static const double fix_final_secs = 1.220965111;

static const uint64_t fix_delta[NR_INTERVALS][NR_FIX] = {
	{ 0, 0, 11, 15, 2, 30, 0, 0, 0, 0, 0, 0, 0, 2 },
	{ 1000, 999, 1000000, 999999, 12345678901ULL, 1, 7, 0, 3, 0, 0, 0,
	  0, 100000 },
	{ 18446744073709551615ULL, 123456789012345ULL, 42, 0, 0, 0, 0, 0, 0,
	  0, 0, 0, 0, 5 },
};
static const double fix_secs[NR_INTERVALS] = {
	0.100810973, 1.0, 0.000999999,
};
static const double fix_at[NR_INTERVALS] = {
	0.100810973, 1.100810973, 12345.678901234,
};

#endif
