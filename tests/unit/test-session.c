// SPDX-License-Identifier: GPL-2.0
/* The session: counting, the time window, comms, names, errors. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "check.h"
#include "event/session.h"
#include "report/report.h"

struct seen {
	uint64_t ts[64];
	unsigned int type[64];
	size_t nr;
	int stop_at;	/* return 1 from this event on, -1: never */
};

static int consume(void *ctx, const struct kmt_event *ev)
{
	struct seen *s = ctx;

	if (s->nr < 64) {
		s->ts[s->nr] = ev->ts;
		s->type[s->nr] = ev->type;
	}
	s->nr++;
	return s->stop_at >= 0 && s->nr > (size_t)s->stop_at ? 7 : 0;
}

static int emit(struct kmt_session *s, unsigned int type, uint64_t ts)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = (uint16_t)type;
	ev.ts = ts;
	return kmt_session_emit(s, &ev);
}

static void test_counting(void)
{
	struct kmt_session s;
	struct seen seen = { .stop_at = -1 };
	int i;

	CHECK_EQ_U64(kmt_session_init(&s), 0);
	s.consumer = consume;
	s.consumer_ctx = &seen;
	for (i = 0; i < 3; i++)
		emit(&s, KMT_EV_KMALLOC, 100 + i);
	emit(&s, KMT_EV_KFREE, 200);
	emit(&s, KMT_EV_PAGE_ALLOC, 300);
	emit(&s, KMT_EV_EXTFRAG, 400);
	/* not ours: counted apart, never passed on */
	CHECK_EQ_U64(emit(&s, KMT_EV_NONE, 500), 0);
	CHECK_EQ_U64(emit(&s, KMT_EV_NR, 600), 0);
	CHECK_EQ_U64(emit(&s, 999, 700), 0);
	CHECK_EQ_U64(s.nr_events[KMT_EV_KMALLOC], 3);
	CHECK_EQ_U64(s.nr_events[KMT_EV_KFREE], 1);
	CHECK_EQ_U64(s.nr_events[KMT_EV_PAGE_ALLOC], 1);
	CHECK_EQ_U64(s.nr_events[KMT_EV_EXTFRAG], 1);
	CHECK_EQ_U64(s.nr_events[KMT_EV_CACHE_ALLOC], 0);
	CHECK_EQ_U64(s.nr_events[KMT_EV_NONE], 0);
	CHECK_EQ_U64(kmt_session_total_events(&s), 6);
	CHECK_EQ_U64(s.nr_other, 3);
	CHECK_EQ_U64(s.nr_emitted, 6);
	CHECK_EQ_U64(seen.nr, 6);
	CHECK_EQ_U64(seen.type[3], KMT_EV_KFREE);
	CHECK_EQ_U64(seen.ts[5], 400);
	CHECK_EQ_U64(s.first_ts, 100);
	CHECK_EQ_U64(s.last_ts, 400);
	kmt_session_free(&s);
}

/*
 * A recording that lists and holds every event type kmemtrace knows (a
 * trace-cmd capture of all of kmem, percpu and vmalloc): the report's
 * lists of them have room for all.  They had 16, and the 18 types of
 * such a file ran over them into the count after (a SIGSEGV).
 */
static void test_every_type_recorded(void)
{
	struct kmt_session s;
	struct kmt_report r;
	const struct kmt_missing *m;
	uint32_t all = 0;
	int t;

	CHECK_EQ_U64(kmt_session_init(&s), 0);
	kmt_report_init(&r);
	for (t = 1; t < KMT_EV_NR; t++) {
		emit(&s, (unsigned int)t, 100 + (uint64_t)t);
		all |= KMT_EV_BIT(t);
	}
	s.recorded_types = all;
	s.types_known = 1;
	kmt_analysis_meta(&r, &s);
	CHECK_EQ_U64(r.meta.nr_recorded, KMT_EV_NR - 1);
	CHECK_EQ_U64(r.meta.nr_event_types, KMT_EV_NR - 1);
	CHECK_STR(r.meta.recorded[KMT_EV_NR - 2], kmt_ev_type_name(KMT_EV_NR - 1));
	CHECK_EQ_U64(r.meta.events[KMT_EV_NR - 2].count, 1);
	m = kmt_report_missing(&r, all, 1);
	CHECK(m != NULL);
	if (m)
		CHECK_EQ_U64(m->nr_events, KMT_EV_NR - 1);
	kmt_report_free(&r);
	kmt_session_free(&s);
}

/* a recording whose clock starts at 0 */
static void test_first_ts_zero(void)
{
	struct kmt_session s;

	kmt_session_init(&s);
	emit(&s, KMT_EV_KMALLOC, 0);
	emit(&s, KMT_EV_KMALLOC, 5);
	emit(&s, KMT_EV_KFREE, 9);
	CHECK_EQ_U64(s.first_ts, 0);
	CHECK_EQ_U64(s.last_ts, 9);
	CHECK_EQ_U64(s.nr_emitted, 3);
	kmt_session_free(&s);
}

/*
 * The earliest event sets first_ts whichever comes first, and a record of
 * another subsystem before them does not (only the kmem events' span).
 */
static void test_first_ts_out_of_order(void)
{
	struct kmt_session s;

	kmt_session_init(&s);
	emit(&s, KMT_EV_NONE, 10);
	emit(&s, KMT_EV_KMALLOC, 300);
	CHECK_EQ_U64(s.first_ts, 300);
	emit(&s, KMT_EV_KFREE, 200);
	emit(&s, KMT_EV_KFREE, 250);
	CHECK_EQ_U64(s.first_ts, 200);
	emit(&s, KMT_EV_PAGE_ALLOC, 0);
	emit(&s, KMT_EV_PAGE_FREE, 7);
	CHECK_EQ_U64(s.first_ts, 0);
	CHECK_EQ_U64(s.last_ts, 300);
	kmt_session_free(&s);
}

/*
 * kmt_event_init sets every field (it no longer clears the whole struct
 * first): whatever the memory held, an initialised event is the all-zero
 * event with the "unknown" fields at -1, byte for byte.
 */
static void test_event_init(void)
{
	struct kmt_event ev, want;

	memset(&want, 0, sizeof(want));
	want.cpu = -1;
	want.pid = -1;
	want.migratetype = -1;
	want.fallback_order = -1;
	want.fallback_migratetype = -1;
	want.node = -1;
	memset(&ev, 0xa5, sizeof(ev));
	kmt_event_init(&ev);
	CHECK(!memcmp(&ev, &want, sizeof(ev)));
}

/* without a consumer events are still counted */
static void test_no_consumer(void)
{
	struct kmt_session s;

	kmt_session_init(&s);
	CHECK_EQ_U64(emit(&s, KMT_EV_CACHE_FREE, 1), 0);
	CHECK_EQ_U64(s.nr_events[KMT_EV_CACHE_FREE], 1);
	CHECK_EQ_U64(s.nr_emitted, 1);
	kmt_session_free(&s);
}

/*
 * The window [time_start, time_end] decides what reaches the consumer;
 * the counts and first/last times describe all events read.
 */
static void test_time_window(void)
{
	struct kmt_session s;
	struct seen seen = { .stop_at = -1 };
	uint64_t ts;

	kmt_session_init(&s);
	s.consumer = consume;
	s.consumer_ctx = &seen;
	s.time_start = 1000;
	s.time_end = 2000;
	for (ts = 500; ts <= 2500; ts += 250)
		emit(&s, KMT_EV_KMALLOC, ts);
	/* 500 750 | 1000 1250 1500 1750 2000 | 2250 2500 */
	CHECK_EQ_U64(seen.nr, 5);
	CHECK_EQ_U64(seen.ts[0], 1000);
	CHECK_EQ_U64(seen.ts[4], 2000);
	CHECK_EQ_U64(s.nr_emitted, 5);
	CHECK_EQ_U64(s.nr_events[KMT_EV_KMALLOC], 9);
	CHECK_EQ_U64(s.first_ts, 500);
	CHECK_EQ_U64(s.last_ts, 2500);
	kmt_session_free(&s);

	/* open at one end */
	kmt_session_init(&s);
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = -1;
	s.consumer = consume;
	s.consumer_ctx = &seen;
	s.time_start = 0;
	s.time_end = 1000;
	for (ts = 500; ts <= 2500; ts += 250)
		emit(&s, KMT_EV_KFREE, ts);
	CHECK_EQ_U64(seen.nr, 3);
	s.time_start = 2000;
	s.time_end = 0;
	for (ts = 500; ts <= 2500; ts += 250)
		emit(&s, KMT_EV_KFREE, ts);
	CHECK_EQ_U64(seen.nr, 6);
	CHECK_EQ_U64(s.nr_emitted, 6);
	kmt_session_free(&s);
}

/* a consumer's non-zero return comes back to the reader */
static void test_consumer_stops(void)
{
	struct kmt_session s;
	struct seen seen = { .stop_at = 2 };

	kmt_session_init(&s);
	s.consumer = consume;
	s.consumer_ctx = &seen;
	CHECK_EQ_U64(emit(&s, KMT_EV_KMALLOC, 1), 0);
	CHECK_EQ_U64(emit(&s, KMT_EV_KMALLOC, 2), 0);
	CHECK_EQ_U64(emit(&s, KMT_EV_KMALLOC, 3), 7);
	kmt_session_free(&s);
}

static void test_comms(void)
{
	struct kmt_session s;
	int i, bad = 0;
	char name[32];

	kmt_session_init(&s);
	CHECK(kmt_session_comm(&s, 1) == NULL);
	CHECK_EQ_U64(kmt_session_set_comm(&s, 1, "systemd", 7), 0);
	CHECK_EQ_U64(kmt_session_set_comm(&s, 4321, "bash-and-more", 4), 0);
	CHECK_EQ_U64(kmt_session_set_comm(&s, 0, "swapper/0", 9), 0);
	CHECK_EQ_U64(kmt_session_set_comm(&s, -1, "unknown", 7), 0);
	CHECK_STR(kmt_session_comm(&s, 1), "systemd");
	CHECK_STR(kmt_session_comm(&s, 4321), "bash");
	CHECK_STR(kmt_session_comm(&s, 0), "swapper/0");
	CHECK_STR(kmt_session_comm(&s, -1), "unknown");
	CHECK(kmt_session_comm(&s, 2) == NULL);
	/* a process renames itself (exec): the last name counts */
	CHECK_EQ_U64(kmt_session_set_comm(&s, 4321, "make", 4), 0);
	CHECK_STR(kmt_session_comm(&s, 4321), "make");
	/* many pids sharing few names */
	for (i = 100; i < 20100; i++) {
		int n = snprintf(name, sizeof(name), "worker/%d", i % 7);

		bad += kmt_session_set_comm(&s, i, name, (size_t)n) != 0;
	}
	for (i = 100; i < 20100; i++) {
		const char *c = kmt_session_comm(&s, i);

		snprintf(name, sizeof(name), "worker/%d", i % 7);
		bad += !c || strcmp(c, name);
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_STR(kmt_session_comm(&s, 1), "systemd");
	CHECK_EQ_U64(kmt_session_set_tgid(&s, 4322, 4321), 0);
	CHECK(kmt_hash_i32_get(&s.tgids, 4322) &&
	      *kmt_hash_i32_get(&s.tgids, 4322) == 4321);
	kmt_session_free(&s);
}

static const char *mt_name(const char *release, int mt)
{
	static struct kmt_session s;	/* only kernel_release is read */

	memset(s.kernel_release, 0, sizeof(s.kernel_release));
	snprintf(s.kernel_release, sizeof(s.kernel_release), "%s", release);
	return kmt_session_migratetype_name(&s, mt);
}

static void test_migratetypes(void)
{
	/* today's numbering */
	CHECK_STR(mt_name("6.18.0", 0), "UNMOVABLE");
	CHECK_STR(mt_name("6.18.0", 1), "MOVABLE");
	CHECK_STR(mt_name("6.18.0", 2), "RECLAIMABLE");
	CHECK_STR(mt_name("6.18.0", 3), "HIGHATOMIC");
	CHECK_STR(mt_name("6.18.44-fc-v657", 1), "MOVABLE");
	CHECK_STR(mt_name("4.4.0", 1), "MOVABLE");
	CHECK_STR(mt_name("4.4.0-rc1", 3), "HIGHATOMIC");
	/* before 4.4 */
	CHECK_STR(mt_name("4.3.0", 0), "UNMOVABLE");
	CHECK_STR(mt_name("4.3.0", 1), "RECLAIMABLE");
	CHECK_STR(mt_name("4.3.0", 2), "MOVABLE");
	CHECK_STR(mt_name("4.3.0", 3), "RESERVE");
	CHECK_STR(mt_name("3.10.0-1160.el7.x86_64", 1), "RECLAIMABLE");
	CHECK_STR(mt_name("2.6.32", 3), "RESERVE");
	/* unknown release: the modern numbering */
	CHECK_STR(mt_name("", 1), "MOVABLE");
	CHECK_STR(mt_name("not a version", 1), "MOVABLE");
	/* CMA (by config, else ISOLATE), then ISOLATE; nothing past them */
	CHECK_STR(mt_name("6.18.0", 4), "CMA/ISOLATE");
	CHECK_STR(mt_name("6.18.0", 5), "ISOLATE");
	CHECK_STR(mt_name("4.3.0", 5), "ISOLATE");
	CHECK(mt_name("6.18.0", 6) == NULL);
	CHECK(mt_name("6.18.0", -1) == NULL);
	CHECK(mt_name("4.3.0", 1000) == NULL);
}

static void test_kernel_version(void)
{
	struct kmt_session s;

	kmt_session_init(&s);
	CHECK_EQ_U64(kmt_session_kernel_version(&s), 0);
	snprintf(s.kernel_release, sizeof(s.kernel_release), "6.18.44-fc-v657");
	CHECK_EQ_U64(kmt_session_kernel_version(&s), 6018);
	snprintf(s.kernel_release, sizeof(s.kernel_release), "4.3");
	CHECK_EQ_U64(kmt_session_kernel_version(&s), 4003);
	snprintf(s.kernel_release, sizeof(s.kernel_release), "6");
	CHECK_EQ_U64(kmt_session_kernel_version(&s), 0);
	kmt_session_free(&s);
}

static void test_error(void)
{
	struct kmt_session s;
	char big[1000];

	kmt_session_init(&s);
	CHECK(kmt_session_error(&s, ENOENT, "cannot open '%s': %s", "x.data",
				strerror(ENOENT)) == -ENOENT);
	CHECK_STR(s.errmsg, "cannot open 'x.data': No such file or directory");
	/* -errno and errno give the same */
	CHECK(kmt_session_error(&s, -EIO, "'%s' is truncated at byte %d",
				"perf.data", 4096) == -EIO);
	CHECK_STR(s.errmsg, "'perf.data' is truncated at byte 4096");
	/* no errno at all is still an error */
	CHECK(kmt_session_error(&s, 0, "bad") == -EINVAL);
	CHECK_STR(s.errmsg, "bad");
	/* a message longer than the buffer is cut, terminated */
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kmt_session_error(&s, EINVAL, "%s", big);
	CHECK_EQ_U64(strlen(s.errmsg), sizeof(s.errmsg) - 1);
	kmt_session_free(&s);
}

/* two sessions share nothing; a session can be freed twice */
static void test_independent(void)
{
	struct kmt_session a, b;

	kmt_session_init(&a);
	kmt_session_init(&b);
	kmt_session_set_comm(&a, 1, "init", 4);
	emit(&a, KMT_EV_KMALLOC, 1);
	CHECK(kmt_session_comm(&b, 1) == NULL);
	CHECK_EQ_U64(b.nr_events[KMT_EV_KMALLOC], 0);
	kmt_session_free(&a);
	kmt_session_free(&b);
	kmt_session_free(&b);
}

/*
 * The first event on the wall clock: first_ts + the offset, either sign;
 * none without a mapping or an event, or where it would fall before the
 * epoch or past 64 bits (a damaged mapping), rather than a made-up time
 */
static void test_wall_start(void)
{
	struct kmt_session s;
	uint64_t ns = 7;

	kmt_session_init(&s);
	s.has_wall = 1;
	s.wall_offset_ns = 1000;
	CHECK(!kmt_session_wall_start(&s, &ns));
	emit(&s, KMT_EV_KMALLOC, 500);
	CHECK(kmt_session_wall_start(&s, &ns));
	CHECK_EQ_U64(ns, 1500);
	s.wall_offset_ns = -500;
	CHECK(kmt_session_wall_start(&s, &ns));
	CHECK_EQ_U64(ns, 0);
	s.wall_offset_ns = -501;
	CHECK(!kmt_session_wall_start(&s, &ns));
	s.wall_offset_ns = INT64_MIN;
	CHECK(!kmt_session_wall_start(&s, &ns));
	s.wall_offset_ns = INT64_MAX;
	s.first_ts = UINT64_MAX - 10;
	CHECK(!kmt_session_wall_start(&s, &ns));
	s.has_wall = 0;
	s.wall_offset_ns = 0;
	CHECK(!kmt_session_wall_start(&s, &ns));
	kmt_session_free(&s);
}

/* the CPUs of a list, as a string of 0 and 1 for CPUs 0..n-1 */
static const char *cpus_of(const char *list, int n)
{
	static char out[64];
	struct kmt_cpumask m;
	int cpu;

	if (kmt_cpulist_parse(list, strlen(list), &m) < 0)
		return "(refused)";
	for (cpu = 0; cpu < n; cpu++)
		out[cpu] = kmt_cpumask_has(&m, cpu) ? '1' : '0';
	out[n] = 0;
	return out;
}

static void test_cpulist(void)
{
	struct kmt_cpumask m;

	CHECK_EQ_U64(kmt_cpulist_parse("0-3,8,10-11", 11, &m), 7);
	CHECK_STR(cpus_of("0-3,8,10-11", 13), "1111000010110");
	CHECK_STR(cpus_of("5", 8), "00000100");
	CHECK_STR(cpus_of("1-1", 3), "010");
	/* sysfs ends it with a newline, a perf string with NULs */
	CHECK_STR(cpus_of("0-1\n", 3), "110");
	CHECK_EQ_U64(kmt_cpulist_parse("2\0\0\0", 4, &m), 1);
	/* a node of memory only has no CPUs */
	CHECK_EQ_U64(kmt_cpulist_parse("", 0, &m), 0);
	CHECK_EQ_U64(kmt_cpulist_parse("\n", 1, &m), 0);
	/* len ends it too: "0-3" of "0-31" */
	CHECK_EQ_U64(kmt_cpulist_parse("0-31", 3, &m), 4);
	CHECK(kmt_cpumask_has(&m, 3) && !kmt_cpumask_has(&m, 4));
	CHECK_EQ_U64(kmt_cpulist_parse("4094-4095", 9, &m), 2);
	CHECK(kmt_cpumask_has(&m, 4095) && !kmt_cpumask_has(&m, 4096));
	CHECK_STR(cpus_of("3-1", 4), "(refused)");
	CHECK_STR(cpus_of("0,", 4), "(refused)");
	CHECK_STR(cpus_of(",0", 4), "(refused)");
	CHECK_STR(cpus_of("0-", 4), "(refused)");
	CHECK_STR(cpus_of("0 1", 4), "(refused)");
	CHECK_STR(cpus_of("-1", 4), "(refused)");
	CHECK_STR(cpus_of("0-7:2", 4), "(refused)");
	CHECK_STR(cpus_of("4096", 4), "(refused)");
	CHECK_STR(cpus_of("99999999999999999999", 4), "(refused)");
}

static void test_cpu_nodes(void)
{
	struct kmt_session s;

	CHECK_EQ_U64(kmt_session_init(&s), 0);
	/* not said: no node, not node 0 */
	CHECK(!s.has_cpu_node);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 0), (uint64_t)-1);
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 0, "0-1,4", 5), 0);
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 2, "2-3\n", 4), 0);
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 3, "", 0), 0);
	CHECK(s.has_cpu_node);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 0), 0);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 1), 0);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 2), 2);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 3), 2);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 4), 0);
	/* CPUs no node lists are on no node */
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 5), (uint64_t)-1);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, -1), (uint64_t)-1);
	/* a CPU on two nodes, a bad list, a bad node: refused */
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 1, "4", 1),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 1, "x", 1),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 40000, "9", 1),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, -1, "9", 1),
		     (uint64_t)-EINVAL);
	/* the same CPU on the same node again is no contradiction */
	CHECK_EQ_U64(kmt_session_set_node_cpus(&s, 0, "0", 1), 0);
	kmt_session_drop_nodes(&s);
	CHECK(!s.has_cpu_node);
	CHECK_EQ_U64(kmt_session_cpu_node(&s, 0), (uint64_t)-1);
	kmt_session_free(&s);
}

KMT_TESTS(
	KMT_TEST(test_every_type_recorded),
	KMT_TEST(test_cpulist),
	KMT_TEST(test_cpu_nodes),
	KMT_TEST(test_counting),
	KMT_TEST(test_first_ts_zero),
	KMT_TEST(test_first_ts_out_of_order),
	KMT_TEST(test_event_init),
	KMT_TEST(test_no_consumer),
	KMT_TEST(test_time_window),
	KMT_TEST(test_consumer_stops),
	KMT_TEST(test_comms),
	KMT_TEST(test_migratetypes),
	KMT_TEST(test_kernel_version),
	KMT_TEST(test_error),
	KMT_TEST(test_independent),
	KMT_TEST(test_wall_start)
)
