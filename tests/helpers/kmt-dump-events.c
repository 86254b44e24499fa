// SPDX-License-Identifier: GPL-2.0
/*
 * kmt-dump-events: prints what a reader makes of a recording, for the
 * tests of every reader.
 *
 *   kmt-dump-events [-c] [-s] [-n] [-N] FILE|-
 *
 * -n leaves the session's stack store no memory to grow into (its
 * arena's chunks bigger than any allocation can be), for the readers'
 * out-of-memory path: a stack that cannot be kept must fail the read.
 *
 * Reads FILE (any format kmt_source_read_file knows; "-" is stdin) and
 * prints one line per event, in the order the session passed them on,
 * fields separated by one space:
 *
 *   ts cpu pid type call_site ptr bytes_req bytes_alloc gfp order
 *   migratetype node cache stack
 *
 *   ts            nanoseconds, decimal
 *   cpu pid       decimal, -1 when unknown
 *   type          kmalloc, kmem_cache_alloc, kfree, mm_page_alloc, ...
 *   call_site     0x hex; with -s "symbol+0xoff" when a symbol covers it
 *   ptr           0x hex: the object address, or the pfn of page events
 *                 (0xffffffffffffffff: a failed page allocation)
 *   bytes_req bytes_alloc  decimal
 *   gfp           0x hex, "-" when the event has no gfp flags
 *   order migratetype node  decimal, -1 when unknown
 *   cache         slab cache name, "-" when none
 *   stack         kernel call chain, innermost first, as 0x hex
 *                 addresses joined by ",", "-" when none
 *
 * Then the session's counters, each line starting with "# ":
 *
 *   # format <format>
 *   # kernel <release or ->
 *   # cpus <n>
 *   # stacks <0|1>
 *   # events <type> <n>        one line per type, every type
 *   # events total <n>
 *   # other <n>
 *   # lost <n>
 *   # lost_records <n>
 *   # anomaly out_of_order <n>
 *   # anomaly unknown_id <n>
 *   # anomaly bad_record <n>
 *   # note <anomaly> <line|byte> <n>: <why>   the first records not read
 *
 * -N prints only the recording's CPU-to-node map: "cpu node" for each
 * CPU a node lists, in CPU order, or "none" when it has no map.
 *
 * -c prints only the counters.  On error: "error: <message>" on stderr
 * and exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event/session.h"
#include "source/source.h"

struct dump {
	struct kmt_session *s;
	FILE *out;
	int quiet;
	int symbols;
	int nodes;
};

static void print_call_site(struct dump *d, uint64_t addr)
{
	uint64_t off = 0;
	const char *name = NULL;

	if (d->symbols && addr)
		name = kmt_symtab_lookup(&d->s->syms, addr, &off);
	if (name)
		fprintf(d->out, " %s+0x%llx", name, (unsigned long long)off);
	else
		fprintf(d->out, " 0x%llx", (unsigned long long)addr);
}

static int on_event(void *ctx, const struct kmt_event *ev)
{
	struct dump *d = ctx;
	const struct kmt_stack *st;
	const char *cache;
	uint32_t i;

	if (d->quiet)
		return 0;
	fprintf(d->out, "%llu %d %d %s", (unsigned long long)ev->ts, ev->cpu,
		ev->pid, kmt_ev_type_name(ev->type));
	print_call_site(d, ev->call_site);
	fprintf(d->out, " 0x%llx %llu %llu", (unsigned long long)ev->ptr,
		(unsigned long long)ev->bytes_req,
		(unsigned long long)ev->bytes_alloc);
	if (ev->flags & KMT_EVF_HAS_GFP)
		fprintf(d->out, " 0x%llx", (unsigned long long)ev->gfp);
	else
		fputs(" -", d->out);
	cache = ev->cache ? kmt_strtab_get(&d->s->strs, ev->cache) : NULL;
	fprintf(d->out, " %d %d %d %s", ev->order, ev->migratetype, ev->node,
		cache && *cache ? cache : "-");
	st = kmt_stacks_get(&d->s->stacks, ev->stack);
	if (!st || !st->nr) {
		fputs(" -\n", d->out);
		return 0;
	}
	for (i = 0; i < st->nr; i++)
		fprintf(d->out, "%c0x%llx", i ? ',' : ' ',
			(unsigned long long)st->ips[i]);
	fputc('\n', d->out);
	return 0;
}

static void print_counters(struct dump *d)
{
	static const char *const anomalies[KMT_ANOM_NR] = {
		[KMT_ANOM_OUT_OF_ORDER] = "out_of_order",
		[KMT_ANOM_UNKNOWN_ID] = "unknown_id",
		[KMT_ANOM_BAD_RECORD] = "bad_record",
	};
	const struct kmt_session *s = d->s;
	int i;

	fprintf(d->out, "# format %s\n", s->format ? s->format : "-");
	fprintf(d->out, "# kernel %s\n",
		s->kernel_release[0] ? s->kernel_release : "-");
	fprintf(d->out, "# cpus %d\n", s->nr_cpus);
	fprintf(d->out, "# stacks %d\n", s->has_stacks);
	for (i = 1; i < KMT_EV_NR; i++)
		fprintf(d->out, "# events %s %llu\n", kmt_ev_type_name(i),
			(unsigned long long)s->nr_events[i]);
	fprintf(d->out, "# events total %llu\n",
		(unsigned long long)kmt_session_total_events(s));
	fprintf(d->out, "# other %llu\n", (unsigned long long)s->nr_other);
	fprintf(d->out, "# lost %llu\n", (unsigned long long)s->nr_lost);
	fprintf(d->out, "# lost_records %llu\n",
		(unsigned long long)s->nr_lost_records);
	for (i = 0; i < KMT_ANOM_NR; i++)
		fprintf(d->out, "# anomaly %s %llu\n", anomalies[i],
			(unsigned long long)s->anomalies[i]);
	for (i = 0; i < (int)s->nr_notes; i++)
		fprintf(d->out, "# note %s %s %llu: %s\n",
			anomalies[s->notes[i].kind],
			s->notes[i].unit == KMT_AT_LINE ? "line" :
			s->notes[i].unit == KMT_AT_BYTE ? "byte" : "-",
			(unsigned long long)s->notes[i].where, s->notes[i].why);
}

/* -n's failing malloc returns NULL under ASan, as it does without */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static const char usage[] = "usage: kmt-dump-events [-c] [-s] [-n] [-N] FILE|-\n";

static void print_nodes(const struct kmt_session *s)
{
	int cpu;

	if (!s->has_cpu_node)
		puts("none");
	for (cpu = 0; s->has_cpu_node && cpu < s->nr_cpu_node; cpu++) {
		if (kmt_session_cpu_node(s, cpu) >= 0)
			printf("%d %d\n", cpu, kmt_session_cpu_node(s, cpu));
	}
}

int main(int argc, char **argv)
{
	static char obuf[1 << 16];
	struct kmt_session s;
	struct dump d = { &s, stdout, 0, 0, 0 };
	int opt, ret, no_stack_memory = 0;

	while ((opt = getopt(argc, argv, "csnN")) != -1) {
		switch (opt) {
		case 'c':
			d.quiet = 1;
			break;
		case 's':
			d.symbols = 1;
			break;
		case 'n':
			no_stack_memory = 1;
			break;
		case 'N':
			d.nodes = 1;
			d.quiet = 1;
			break;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return 2;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (kmt_session_init(&s)) {
		fprintf(stderr, "error: out of memory\n");
		return 1;
	}
	if (no_stack_memory)
		s.stacks.arena.chunk_size = SIZE_MAX / 4;
	s.consumer = on_event;
	s.consumer_ctx = &d;
	ret = kmt_source_read_file(&s, argv[optind]);
	if (ret) {
		fflush(stdout);
		fprintf(stderr, "error: %s\n", s.errmsg);
		kmt_session_free(&s);
		return 1;
	}
	if (d.nodes)
		print_nodes(&s);
	else
		print_counters(&d);
	kmt_session_free(&s);
	return fflush(stdout) ? 1 : 0;
}
