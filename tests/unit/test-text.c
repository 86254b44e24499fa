// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace text line parser: hand-written lines of every form it reads
 * (tracefs trace with and without irq-info and tgid, with options/fields
 * and options/latency-format, function_graph comments, trace-cmd report
 * with and without -l, perf script, kernels from 2.6.32 on), every
 * field, stacks, lost lines, bad lines; then the reader's stack
 * attachment, ordering and notes on small files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "event/session.h"
#include "source/source.h"
#include "source/text.h"

static struct kmt_session s;
static struct kmt_text_line l;

static unsigned int parse(const char *line, unsigned int hint)
{
	return kmt_text_parse_line(&s, line, strlen(line), hint, &l);
}

static int comm_is(const char *want)
{
	return l.comm && l.comm_len == strlen(want) &&
	       !memcmp(l.comm, want, l.comm_len);
}

static const char *str(uint32_t id)
{
	return kmt_strtab_get(&s.strs, id);
}

/* the symbol text a synthetic call-site address resolves back to */
static int site_is(uint64_t addr, const char *name, uint64_t off)
{
	uint64_t o = ~0ULL;
	const char *n = kmt_symtab_lookup(&s.syms, addr, &o);

	return n && !strcmp(n, name) && o == off;
}

static void setup(void)
{
	kmt_session_free(&s);
	kmt_session_init(&s);
}

static void test_ftrace_kmalloc(void)
{
	setup();
	CHECK_EQ_U64(parse("            bash-1234    [001] d..1.  5678.123456: kmalloc: "
			   "call_site=kmem_cache_alloc+0x1a/0x300 ptr=00000000deadbeef "
			   "bytes_req=16 bytes_alloc=32 gfp_flags=GFP_KERNEL|__GFP_ZERO "
			   "node=0 accounted=true", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_FTRACE);
	CHECK_EQ_U64(l.ev.type, KMT_EV_KMALLOC);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.ev.pid, 1234);
	CHECK_EQ_U64(l.ev.ts, 5678123456000ULL);
	CHECK(comm_is("bash"));
	CHECK_EQ_U64(l.tgid, (uint64_t)-1);
	CHECK(site_is(l.ev.call_site, "kmem_cache_alloc", 0x1a));
	CHECK_EQ_U64(l.ev.ptr, 0xdeadbeef);
	CHECK_EQ_U64(l.ev.bytes_req, 16);
	CHECK_EQ_U64(l.ev.bytes_alloc, 32);
	CHECK_STR(str(l.ev.gfp_str), "GFP_KERNEL|__GFP_ZERO");
	CHECK(!(l.ev.flags & KMT_EVF_HAS_GFP));
	CHECK(l.ev.flags & KMT_EVF_ACCOUNTED);
	CHECK_EQ_U64(l.ev.node, 0);
	CHECK_EQ_U64(l.ev.cache, 0);
}

static void test_ftrace_no_irq_info(void)
{
	setup();
	CHECK_EQ_U64(parse("    kworker/u4:2-87      [000]     12.000001: kfree: "
			   "call_site=0xffffffff81234567 ptr=(null)", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_KFREE);
	CHECK(comm_is("kworker/u4:2"));
	CHECK_EQ_U64(l.ev.pid, 87);
	CHECK_EQ_U64(l.ev.cpu, 0);
	CHECK_EQ_U64(l.ev.ts, 12000001000ULL);
	/* old kernels print the call site as a number */
	CHECK_EQ_U64(l.ev.call_site, 0xffffffff81234567ULL);
	CHECK_EQ_U64(l.ev.ptr, 0);
}

static void test_comm_with_spaces_and_dashes(void)
{
	setup();
	CHECK_EQ_U64(parse("   Web Content-foo-4321 [003] .N.2.  1.500000000: kmem_cache_alloc: "
			   "call_site=alloc_empty_file+0x3c/0x110 ptr=ffff888100001000 "
			   "name=kmalloc-64 bytes_req=8 bytes_alloc=64 gfp_flags=0xcc0 "
			   "node=-1 accounted=false", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(comm_is("Web Content-foo"));
	CHECK_EQ_U64(l.ev.pid, 4321);
	CHECK_EQ_U64(l.ev.cpu, 3);
	/* nine decimals: nanoseconds */
	CHECK_EQ_U64(l.ev.ts, 1500000000ULL);
	CHECK_EQ_U64(l.ev.type, KMT_EV_CACHE_ALLOC);
	CHECK_STR(str(l.ev.cache), "kmalloc-64");
	CHECK_EQ_U64(l.ev.ptr, 0xffff888100001000ULL);
	/* a hex gfp (old kernels) is a number */
	CHECK(l.ev.flags & KMT_EVF_HAS_GFP);
	CHECK_EQ_U64(l.ev.gfp, 0xcc0);
	CHECK_EQ_U64(l.ev.gfp_str, 0);
	CHECK(!(l.ev.flags & KMT_EVF_ACCOUNTED));
	CHECK_EQ_U64((uint64_t)l.ev.node, (uint64_t)-1);
}

static void test_tgid_column(void)
{
	setup();
	CHECK_EQ_U64(parse("            bash-1234    (   1230) [001] d..1.  5678.123456: "
			   "kmem_cache_free: call_site=__fput+0x141/0x2a0 "
			   "ptr=0000000000001000 name=filp", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK(comm_is("bash"));
	CHECK_EQ_U64(l.ev.pid, 1234);
	CHECK_EQ_U64(l.tgid, 1230);
	CHECK_EQ_U64(l.ev.type, KMT_EV_CACHE_FREE);
	CHECK_STR(str(l.ev.cache), "filp");
	/* an unknown tgid */
	CHECK_EQ_U64(parse("          <idle>-0       (-------) [000] ..s1.   1.000000: "
			   "kfree: call_site=rcu_do_batch+0x1b7/0x5c0 ptr=0000000000002000",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(comm_is("<idle>"));
	CHECK_EQ_U64(l.ev.pid, 0);
	CHECK_EQ_U64(l.tgid, (uint64_t)-1);
	/* a lost comm */
	CHECK_EQ_U64(parse("           <...>-77      [000] .....   1.000000: kfree: "
			   "call_site=a+0x1/0x2 ptr=0000000000002000", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK(!l.comm);
	CHECK_EQ_U64(l.ev.pid, 77);
}

static void test_report(void)
{
	setup();
	CHECK_EQ_U64(parse("kmt-td:             bash-6193  [001]   410.898364: "
			   "kmem_cache_free:      (__fput+0x141) call_site=__fput+0x141 "
			   "ptr=0xffff888104e01db0 name=lsm_file_cache", KMT_TEXT_REPORT),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_REPORT);
	CHECK(comm_is("bash"));
	CHECK_EQ_U64(l.ev.pid, 6193);
	CHECK_EQ_U64(l.ev.ts, 410898364000ULL);
	CHECK(site_is(l.ev.call_site, "__fput", 0x141));
	CHECK_EQ_U64(l.ev.ptr, 0xffff888104e01db0ULL);
	CHECK_STR(str(l.ev.cache), "lsm_file_cache");
	/* the top buffer has no prefix; the report hint keeps the style */
	CHECK_EQ_U64(parse("            true-6210  [001]   410.899009: kfree:                "
			   "(ida_alloc_range+0x39b) call_site=ida_alloc_range+0x39b ptr=(nil)",
			   KMT_TEXT_REPORT), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_REPORT);
	CHECK(comm_is("true"));
	CHECK_EQ_U64(l.ev.ptr, 0);
	/* a stack event */
	CHECK_EQ_U64(parse("kmt-td:             bash-6193  [001]   410.898434: kernel_stack:"
			   "         <stack trace >", KMT_TEXT_REPORT), KMT_TEXT_STACK);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.ev.pid, 6193);
	CHECK_EQ_U64(parse("=> pgd_alloc (ffffffff81340605)", KMT_TEXT_REPORT),
		     KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_len, 9);
	CHECK(!memcmp(l.frame, "pgd_alloc", 9));
	CHECK_EQ_U64(l.frame_addr, 0xffffffff81340605ULL);
	/* headers */
	CHECK_EQ_U64(parse("cpus=2", KMT_TEXT_FTRACE), KMT_TEXT_HEADER);
	CHECK_EQ_U64(parse("version = 6", KMT_TEXT_FTRACE), KMT_TEXT_HEADER);
	CHECK_EQ_U64(parse("CPU 0 is empty", KMT_TEXT_FTRACE), KMT_TEXT_HEADER);
}

static void test_perf(void)
{
	setup();
	CHECK_EQ_U64(parse("perf  7398 [000]   458.440494:          kmem:kmalloc: "
			   "call_site=sched_setaffinity+0x10c ptr=0xffff888115784e40 "
			   "bytes_req=32 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 "
			   "accounted=false", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_PERF);
	CHECK(comm_is("perf"));
	CHECK_EQ_U64(l.ev.pid, 7398);
	CHECK_EQ_U64(l.ev.type, KMT_EV_KMALLOC);
	CHECK_EQ_U64(l.name_len, 7);
	CHECK(!memcmp(l.name, "kmalloc", 7));
	CHECK_EQ_U64(l.ev.ts, 458440494000ULL);
	CHECK(site_is(l.ev.call_site, "sched_setaffinity", 0x10c));
	/* "pid/tid": the thread is the pid; comms may hold blanks */
	CHECK_EQ_U64(parse("my prog 100/101 [002] 1.000000: kmem:kfree: call_site=a+0x1 "
			   "ptr=0x10", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(comm_is("my prog"));
	CHECK_EQ_U64(l.ev.pid, 101);
	CHECK_EQ_U64(l.ev.cpu, 2);
	/* other subsystems are events of no kmem type */
	CHECK_EQ_U64(parse("perf 1 [000] 1.000000: sched:sched_switch: prev_comm=a",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	/* call chain lines: kernel, then user */
	CHECK_EQ_U64(parse("\tffffffff815c5828 __traceiter_kmalloc+0x58 ([kernel.kallsyms])",
			   KMT_TEXT_PERF), KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_addr, 0xffffffff815c5828ULL);
	CHECK_EQ_U64(l.frame_len, strlen("__traceiter_kmalloc+0x58"));
	CHECK(!l.frame_user);
	CHECK_EQ_U64(parse("\t           ee137 sched_setaffinity@@GLIBC_2.3.4+0x7 "
			   "(/usr/lib/x86_64-linux-gnu/libc.so.6)", KMT_TEXT_PERF),
		     KMT_TEXT_FRAME);
	CHECK(l.frame_user);
	CHECK_EQ_U64(parse("\t          146f2c [unknown] (/usr/bin/perf)", KMT_TEXT_PERF),
		     KMT_TEXT_FRAME);
	CHECK(l.frame_user);
	CHECK_EQ_U64(l.frame_len, 0);
	CHECK_EQ_U64(parse("\tffffffffc0a01234 [unknown] ([unknown])", KMT_TEXT_PERF),
		     KMT_TEXT_FRAME);
	CHECK(!l.frame_user);
}

#define PAGE_LINE(rest) "              sh-20427   [001] .....  1047.779843: " rest

static void test_page_events(void)
{
	setup();
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc: page=00000000bcb0c92f pfn=0x1a2b "
				     "order=2 migratetype=1 gfp_flags=GFP_KERNEL"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PAGE_ALLOC);
	CHECK_EQ_U64(l.ev.ptr, 0x1a2b);
	CHECK_EQ_U64(l.ev.order, 2);
	CHECK_EQ_U64(l.ev.migratetype, 1);
	CHECK_STR(str(l.ev.gfp_str), "GFP_KERNEL");

	/* a failed allocation: NULL page, the kernel prints pfn 0 */
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc: page=(null) pfn=0 order=0 "
				     "migratetype=0 gfp_flags=GFP_NOWAIT"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc: page=0000000000000000 pfn=0x0 "
				     "order=3 migratetype=0 gfp_flags=none"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK(l.ev.flags & KMT_EVF_HAS_GFP);
	CHECK_EQ_U64(l.ev.gfp, 0);

	/* decimal pfn of old kernels; mm_page_free_direct before 3.3 */
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_free: page=ffffea0000123400 pfn=1234 order=1"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PAGE_FREE);
	CHECK_EQ_U64(l.ev.ptr, 1234);
	CHECK_EQ_U64(l.ev.order, 1);
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_free_direct: page=ffffea0000123400 order=1"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PAGE_FREE);
	CHECK_EQ_U64(l.ev.ptr, 0xffffea0000123400ULL);

	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_free_batched: page=00000000a pfn=0x40 order=0"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PAGE_FREE_BATCHED);
	CHECK_EQ_U64(l.ev.ptr, 0x40);
	CHECK_EQ_U64(l.ev.order, 0);

	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc_zone_locked: page=00000000a pfn=0x10 "
				     "order=0 migratetype=1 percpu_refill=1"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PAGE_ZONE_LOCKED);
	CHECK((l.ev.flags & (KMT_EVF_HAS_REFILL | KMT_EVF_PERCPU_REFILL)) ==
	      (KMT_EVF_HAS_REFILL | KMT_EVF_PERCPU_REFILL));
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc_zone_locked: page=00000000a pfn=0x10 "
				     "order=0 migratetype=1 percpu_refill=0"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(l.ev.flags & KMT_EVF_HAS_REFILL);
	CHECK(!(l.ev.flags & KMT_EVF_PERCPU_REFILL));

	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_pcpu_drain: page=00000000a pfn=0x30 order=0 "
				     "migratetype=2"), KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PCPU_DRAIN);
	CHECK_EQ_U64(l.ev.migratetype, 2);

	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc_extfrag: page=00000000a pfn=0x20 "
				     "alloc_order=0 fallback_order=3 pageblock_order=9 "
				     "alloc_migratetype=0 fallback_migratetype=1 "
				     "fragmenting=1 change_ownership=1"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_EXTFRAG);
	CHECK_EQ_U64(l.ev.ptr, 0x20);
	CHECK_EQ_U64(l.ev.order, 0);
	CHECK_EQ_U64(l.ev.fallback_order, 3);
	CHECK_EQ_U64(l.ev.migratetype, 0);
	CHECK_EQ_U64(l.ev.fallback_migratetype, 1);
	CHECK(l.ev.flags & KMT_EVF_HAS_FRAGMENTING);
	CHECK(l.ev.flags & KMT_EVF_FRAGMENTING);
	CHECK(l.ev.flags & KMT_EVF_CHANGE_OWNER);
}

static void test_stacks_and_lost(void)
{
	setup();
	CHECK_EQ_U64(parse("              ls-4348    [000] ...1.   350.327356: <stack trace>",
			   KMT_TEXT_FTRACE), KMT_TEXT_STACK);
	CHECK_EQ_U64(l.ev.cpu, 0);
	CHECK_EQ_U64(l.ev.pid, 4348);
	CHECK_EQ_U64(parse(" => trace_event_raw_event_mm_page_alloc", KMT_TEXT_FTRACE),
		     KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_len, strlen("trace_event_raw_event_mm_page_alloc"));
	CHECK_EQ_U64(l.frame_addr, 0);
	CHECK_EQ_U64(parse(" => __alloc_pages+0x1a/0x200", KMT_TEXT_FTRACE),
		     KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_len, strlen("__alloc_pages+0x1a/0x200"));
	/* options/sym-addr */
	CHECK_EQ_U64(parse(" => __alloc_pages+0x1a/0x200 <ffffffff8161f78b>",
			   KMT_TEXT_FTRACE), KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_len, strlen("__alloc_pages+0x1a/0x200"));
	CHECK_EQ_U64(l.frame_addr, 0xffffffff8161f78bULL);
	CHECK_EQ_U64(parse(" => <ffffffffc0a01234>", KMT_TEXT_FTRACE), KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_len, 0);
	CHECK_EQ_U64(l.frame_addr, 0xffffffffc0a01234ULL);
	CHECK_EQ_U64(parse("              ls-4348    [000] ...1.   350.327356: "
			   "<user stack trace>", KMT_TEXT_FTRACE), KMT_TEXT_USER_STACK);

	CHECK_EQ_U64(parse("CPU:3 [LOST 120 EVENTS]", KMT_TEXT_FTRACE), KMT_TEXT_LOST);
	CHECK_EQ_U64(l.ev.cpu, 3);
	CHECK_EQ_U64(l.lost, 120);
	CHECK_EQ_U64(parse("CPU:0 [LOST EVENTS]", KMT_TEXT_FTRACE), KMT_TEXT_LOST);
	CHECK_EQ_U64(l.lost, (uint64_t)-1);
	CHECK_EQ_U64(parse("CPU:1 [12 EVENTS DROPPED]", KMT_TEXT_FTRACE), KMT_TEXT_LOST);
	CHECK_EQ_U64(l.lost, 12);
	CHECK_EQ_U64(parse("kmt-td: CPU:1 [EVENTS DROPPED]", KMT_TEXT_REPORT),
		     KMT_TEXT_LOST);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.lost, (uint64_t)-1);
}

static void test_headers_other_bad(void)
{
	setup();
	CHECK_EQ_U64(parse("# tracer: nop", KMT_TEXT_FTRACE), KMT_TEXT_HEADER);
	CHECK_EQ_U64(parse("", KMT_TEXT_FTRACE), KMT_TEXT_BLANK);
	CHECK_EQ_U64(parse("   \r", KMT_TEXT_FTRACE), KMT_TEXT_BLANK);
	CHECK_EQ_U64(parse("hello world", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);
	CHECK_EQ_U64(parse("foo [1] bar", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);

	/* events of other subsystems, and kmem events not ours */
	CHECK_EQ_U64(parse("            bash-1    [001] .....  1.000000: sched_switch: "
			   "prev_comm=bash prev_pid=1", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	CHECK_EQ_U64(parse("            bash-1    [001] .....  1.000000: rss_stat: "
			   "mm_id=1 curr=1 type=MM_ANONPAGES size=4096B",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	/* ones that print no name: syscalls, the function tracer */
	CHECK_EQ_U64(parse("            bash-1    [000] ....  1.000000: sys_clone -> 0x16841",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	CHECK_EQ_U64(parse("            bash-1    [000] ....  1.000000: sys_clone(clone_flags: 1200011, newsp: 0)",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(parse("            bash-1    [000] ....  1.000000: do_sys_open <-do_syscall_64",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	/* but not a kmem event's name without its colon */
	CHECK_EQ_U64(parse("            bash-1    [000] ....  1.000000: kmalloc call_site=a",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);

	/* looks like an event, does not parse */
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kmalloc: call_site=a ptr=xyz",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad ptr=");
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kfree: call_site=a",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.missing, "ptr");
	CHECK(!l.why);
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: mm_page_free: order=0",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.missing, "pfn");
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1x.2: kfree: call_site=a ptr=0",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "no timestamp");
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kmalloc: ptr=0 bytes_req=-5",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad bytes_req=");
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kmalloc: ptr=0 node=abc",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad node=");
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kmalloc: ptr=0 accounted=maybe",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kmalloc", KMT_TEXT_FTRACE),
		     KMT_TEXT_BAD);
	CHECK_STR(l.why, "no event name");

	/* no session (the probe): kinds only */
	{
		static const char line[] = "  bash-1 [001] .....  1.000000: kmalloc: "
			"call_site=a+0x1/0x2 ptr=0 name=x bytes_req=1 bytes_alloc=8 "
			"gfp_flags=GFP_KERNEL";

		CHECK_EQ_U64(kmt_text_parse_line(NULL, line, strlen(line),
						 KMT_TEXT_FTRACE, &l),
			     KMT_TEXT_EVENT);
		CHECK_EQ_U64(l.ev.cache, 0);
		CHECK_EQ_U64(l.ev.call_site, 0);
	}
}

/*
 * Kernels before 5.x print a NULL %p as "(null)" padded to a pointer's
 * width (16 columns on 64-bit, 8 on 32-bit): one blank-separated word
 * "ptr=" and then "(null)".
 */
static void test_null_padded(void)
{
	setup();
	CHECK_EQ_U64(parse("            bash-2210  [001] ....   312.401893: kfree: "
			   "call_site=ffffffff8118c7d1 ptr=          (null)", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_KFREE);
	CHECK_EQ_U64(l.ev.ptr, 0);
	CHECK_EQ_U64(l.ev.call_site, 0xffffffff8118c7d1ULL);
	/* a failed kmalloc: the fields after the padded NULL still read */
	CHECK_EQ_U64(parse("          <idle>-0     [001] ..s.   312.407351: kmalloc: "
			   "call_site=ffffffff8142c9b4 ptr=          (null) bytes_req=9000 "
			   "bytes_alloc=16384 gfp_flags=GFP_ATOMIC|GFP_NOWARN", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, 0);
	CHECK_EQ_U64(l.ev.bytes_req, 9000);
	CHECK_EQ_U64(l.ev.bytes_alloc, 16384);
	CHECK_STR(str(l.ev.gfp_str), "GFP_ATOMIC|GFP_NOWARN");
	/* 32-bit */
	CHECK_EQ_U64(parse("         syslogd-1204  [000]  1843.220131: kfree: "
			   "call_site=c10a4c12 ptr=  (null)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, 0);
	CHECK_EQ_U64(l.ev.call_site, 0xc10a4c12ULL);
	/* a failed page allocation: the NULL page, pfn 0 beside it */
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc: page=          (null) pfn=0 order=3 "
				     "migratetype=0 gfp_flags=GFP_ATOMIC|GFP_NOWARN|GFP_COMP"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK_EQ_U64(l.ev.order, 3);
	CHECK_EQ_U64(l.ev.migratetype, 0);
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc: page=  (null) pfn=0 order=2 "
				     "migratetype=0 gfp_flags=GFP_KERNEL"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK_EQ_U64(l.ev.order, 2);
	/* "ptr=" with nothing after it is no pointer */
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kfree: call_site=a ptr=",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad ptr=");
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kfree: call_site=a ptr= (nullx)",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
}

/* what each event cannot be read without, named as its format names it */
static void test_required_fields(void)
{
	static const struct {
		const char *body, *missing;
	} cases[] = {
		{ "kmalloc: call_site=a ptr=0000000074193290", "bytes_req" },
		{ "kmalloc: call_site=a ptr=1 bytes_req=72 gfp_flags=GFP_KERNEL", "bytes_alloc" },
		{ "kmalloc: call_site=a ptr=1 bytes_req=72 bytes_alloc=96", "gfp_flags" },
		{ "kmalloc: ptr=1 bytes_req=72 bytes_alloc=96 gfp_flags=GFP_KERNEL", "call_site" },
		{ "kmalloc_node: call_site=a bytes_req=1 bytes_alloc=8 gfp_flags=GFP_KERNEL node=0", "ptr" },
		{ "kmem_cache_alloc: call_site=a ptr=1 name=filp bytes_req=184 bytes_alloc=192", "gfp_flags" },
		{ "kmem_cache_free: call_site=task_work_run+0x59/0x90 name=filp", "ptr" },
		{ "kfree: ptr=0000000000001000", "call_site" },
		{ "mm_page_alloc: page=00000000bcb0c92f pfn=0x1064de migratetype=0 gfp_flags=GFP_KERNEL", "order" },
		{ "mm_page_alloc: page=00000000bcb0c92f pfn=0x1064de order=0 gfp_flags=GFP_KERNEL", "migratetype" },
		{ "mm_page_alloc: pfn=0x14632c order=0 migratetype=0 gfp_fl", "gfp_flags" },
		{ "mm_page_free: page=00000000bcb0c92f pfn=0x1064de", "order" },
		{ "mm_page_free_batched: order=0", "pfn" },
		{ "mm_page_alloc_zone_locked: pfn=0x10 order=0 percpu_refill=1", "migratetype" },
		{ "mm_page_pcpu_drain: pfn=0x30 migratetype=2", "order" },
		{ "mm_page_alloc_extfrag: pfn=0x20 fallback_order=3 alloc_migratetype=0 fallback_migratetype=1", "alloc_order" },
		{ "mm_page_alloc_extfrag: pfn=0x20 alloc_order=0 fallback_order=3 fallback_migratetype=1", "alloc_migratetype" },
		{ "mm_page_alloc_extfrag: pfn=0x20 alloc_order=0 alloc_migratetype=0 fallback_migratetype=1", "fallback_order" },
	};
	static const char *const complete[] = {
		/* 3.x kmalloc: no node, no accounted */
		"kmalloc: call_site=ffffffff81191c37 ptr=ffff88007a9f4e40 bytes_req=22 bytes_alloc=32 gfp_flags=GFP_KERNEL",
		/* kmem_cache_free without the name of recent kernels */
		"kmem_cache_free: call_site=ffffffff8117e65a ptr=ffff88007b1c9a80",
		/* the batched free prints no order of its own in options/fields */
		"mm_page_free_batched: pfn=0x402521 (4203809)",
		/* kernels before pfn= */
		"mm_page_free_direct: page=ffffea0000123400 order=1",
		/* extfrag without the computed fields */
		"mm_page_alloc_extfrag: pfn=0x20 alloc_order=0 fallback_order=3 alloc_migratetype=0 fallback_migratetype=1",
	};
	char line[512];
	size_t i;

	setup();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "  bash-1 [001] .....  1.000000: %s",
			 cases[i].body);
		CHECK_EQ_U64(parse(line, KMT_TEXT_FTRACE), KMT_TEXT_BAD);
		CHECK_STR(l.missing, cases[i].missing);
		CHECK(l.name && l.name == line + 32 &&
		      !memcmp(cases[i].body, l.name, l.name_len) &&
		      cases[i].body[l.name_len] == ':');
	}
	for (i = 0; i < sizeof(complete) / sizeof(complete[0]); i++) {
		snprintf(line, sizeof(line), "  bash-1 [001] .....  1.000000: %s",
			 complete[i]);
		CHECK_EQ_U64(parse(line, KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
		CHECK(!l.missing);
	}
	/* a value that does not parse is named before what is missing */
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: kmalloc: ptr=zz",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad ptr=");
	CHECK(!l.missing);
}

/*
 * The percpu and vmalloc events: today's lines, percpu before 6.0 (no
 * call_site, bytes_alloc or gfp_flags), alloc_vmap_area's decimal
 * "va_start: N", options/fields' raw names, perf's "system:event:"
 */
static void test_percpu_vmalloc(void)
{
	static const struct {
		const char *body;
		const char *missing;
	} cases[] = {
		{ "percpu_alloc_percpu: reserved=0 is_atomic=0 align=8 ptr=1", "size" },
		{ "percpu_alloc_percpu: reserved=0 is_atomic=0 size=8 align=8", "ptr" },
		{ "percpu_alloc_percpu_fail: reserved=0 is_atomic=1", "size" },
		{ "percpu_create_chunk: off=1", "base_addr" },
		{ "alloc_vmap_area: size=4096 align=1 failed=0", "va_start" },
		{ "alloc_vmap_area: va_start: 4096 align=1 failed=0", "size" },
		{ "alloc_vmap_area: va_start: 4096 size=4096 align=1", "failed" },
		{ "free_vmap_area_noflush: nr_lazy=1 nr_lazy_max=2", "va_start" },
		{ "purge_vmap_area_lazy: start=0x1000 num_purged=1", "end" },
	};
	char line[512];
	size_t i;

	setup();
	CHECK_EQ_U64(parse("            bash-7569    [000] .....   690.086479: percpu_alloc_percpu: "
			   "call_site=mm_init+0x2e7/0x4f0 reserved=0 is_atomic=0 size=16 align=8 "
			   "base_addr=000000005d996b6e off=28168 ptr=000000009bc972fe "
			   "bytes_alloc=64 gfp_flags=GFP_KERNEL", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PERCPU_ALLOC);
	CHECK(site_is(l.ev.call_site, "mm_init", 0x2e7));
	CHECK_EQ_U64(l.ev.ptr, 0x9bc972fe);
	CHECK_EQ_U64(l.ev.bytes_req, 16);
	CHECK_EQ_U64(l.ev.bytes_alloc, 64);
	CHECK_STR(str(l.ev.gfp_str), "GFP_KERNEL");
	CHECK_EQ_U64(l.ev.cache, 0);
	/* 3.18 to 5.x */
	CHECK_EQ_U64(parse("  bash-1 [001] .....  1.000000: percpu_alloc_percpu: reserved=0 "
			   "is_atomic=0 size=8 align=8 base_addr=00000000e0b2d3a1 off=1234 "
			   "ptr=0000000012345678", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PERCPU_ALLOC);
	CHECK_EQ_U64(l.ev.call_site, 0);
	CHECK_EQ_U64(l.ev.ptr, 0x12345678);
	CHECK_EQ_U64(l.ev.bytes_req, 8);
	CHECK_EQ_U64(l.ev.bytes_alloc, 0);
	CHECK(!l.ev.gfp_str && !(l.ev.flags & KMT_EVF_HAS_GFP));
	CHECK_EQ_U64(parse("  sh-7572 [001] d..2.  690.086655: percpu_free_percpu: "
			   "base_addr=000000005d996b6e off=28136 ptr=00000000c4e8702b",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PERCPU_FREE);
	CHECK_EQ_U64(l.ev.ptr, 0xc4e8702b);
	CHECK_EQ_U64(parse("  sh-1 [001] .....  1.0: percpu_alloc_percpu_fail: reserved=0 "
			   "is_atomic=1 size=4096 align=8", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PERCPU_FAIL);
	CHECK_EQ_U64(l.ev.bytes_req, 4096);
	CHECK_EQ_U64(parse("  sh-1 [001] .....  1.0: percpu_destroy_chunk: "
			   "base_addr=00000000aabbccdd", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PERCPU_CHUNK_DEL);
	CHECK_EQ_U64(l.ev.ptr, 0xaabbccdd);
	/* "va_start: N" in decimal; free_vmap_area_noflush's in hex */
	CHECK_EQ_U64(parse("            bash-7569    [000] .....   690.086407: alloc_vmap_area: "
			   "va_start: 18446683600630906880 size=20480 align=16384 "
			   "vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_VMAP_ALLOC);
	CHECK_EQ_U64(l.ev.ptr, 0xffffc90003a10000ULL);
	CHECK_EQ_U64(l.ev.bytes_req, 20480);
	CHECK_EQ_U64(l.ev.bytes_alloc, 20480);
	CHECK(!(l.ev.flags & KMT_EVF_FAILED));
	CHECK_EQ_U64(parse("  b-1 [000] .....  1.0: alloc_vmap_area: va_start: 0 size=8192 "
			   "align=4096 vstart=0x1 vend=0x2 failed=1", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK(l.ev.flags & KMT_EVF_FAILED);
	CHECK_EQ_U64(parse("  b-1 [001] .....  1.0: free_vmap_area_noflush: "
			   "va_start=0xffffc90000145000 nr_lazy=8384 nr_lazy_max=16384",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_VMAP_FREE);
	CHECK_EQ_U64(l.ev.ptr, 0xffffc90000145000ULL);
	CHECK_EQ_U64(parse("  kworker/0:1-9 [000] .....  1.0: purge_vmap_area_lazy: "
			   "start=0xffffc90000000000 end=0xffffc90000200000 num_purged=12",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_VMAP_PURGE);
	CHECK_EQ_U64(l.ev.ptr, 0xffffc90000000000ULL);
	CHECK_EQ_U64(l.ev.bytes_alloc, 0x200000);
	CHECK_EQ_U64(l.ev.bytes_req, 12);
	/* options/fields: the fields' own names, hex with decimals */
	CHECK_EQ_U64(parse("  b-1 [000] .....  1.0: alloc_vmap_area: addr=0xffffc90003a10000 "
			   "(-60473078751232) size=0x5000 (20480) align=0x4000 (16384) "
			   "vstart=0xffffc90000000000 (-60473139527680) vend=0xffffe8ffffffffff "
			   "(-25288767438849) failed=0x0 (0)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, 0xffffc90003a10000ULL);
	CHECK_EQ_U64(l.ev.bytes_alloc, 20480);
	CHECK(!(l.ev.flags & KMT_EVF_FAILED));
	CHECK_EQ_U64(parse("  k-9 [000] .....  1.0: purge_vmap_area_lazy: start=0x1000 (4096) "
			   "end=0x3000 (12288) npurged=0x2 (2)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.bytes_alloc, 0x2000);
	CHECK_EQ_U64(l.ev.bytes_req, 2);
	/* perf script: under their own systems only */
	CHECK_EQ_U64(parse("sh 15674 [000]   958.366848:         vmalloc:alloc_vmap_area: "
			   "va_start: 18446683600665264128 size=20480 align=16384 "
			   "vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0",
			   KMT_TEXT_PERF), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_PERF);
	CHECK_EQ_U64(l.ev.type, KMT_EV_VMAP_ALLOC);
	CHECK_EQ_U64(l.ev.bytes_alloc, 20480);
	CHECK_EQ_U64(parse("sh 15674 [000]   958.367157:      percpu:percpu_alloc_percpu: "
			   "call_site=futex_hash_allocate+0x49f reserved=0 is_atomic=0 size=4 "
			   "align=4 base_addr=0xffffe8ffffc00000 off=28136 ptr=0x60795bafdde8 "
			   "bytes_alloc=16 gfp_flags=GFP_KERNEL", KMT_TEXT_PERF), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_PERCPU_ALLOC);
	CHECK_EQ_U64(l.ev.ptr, 0x60795bafdde8ULL);
	CHECK(site_is(l.ev.call_site, "futex_hash_allocate", 0x49f));
	CHECK_EQ_U64(parse("sh 1 [000] 1.0: kmem:percpu_alloc_percpu: size=4 ptr=0x1",
			   KMT_TEXT_PERF), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	CHECK_EQ_U64(parse("sh 1 [000] 1.0: percpu:kmalloc: call_site=a ptr=1",
			   KMT_TEXT_PERF), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "  bash-1 [001] .....  1.000000: %s",
			 cases[i].body);
		CHECK_EQ_U64(parse(line, KMT_TEXT_FTRACE), KMT_TEXT_BAD);
		CHECK_STR(l.missing, cases[i].missing);
	}
	CHECK_EQ_U64(parse("  b-1 [001] .....  1.0: alloc_vmap_area: va_start: 12ab size=1 failed=0",
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad va_start=");
}

/* tracefs with options/fields (6.3 on): raw fields, hex and decimal */
static void test_fields_option(void)
{
	setup();
	CHECK_EQ_U64(parse("            bash-21125   [000] .....   814.229471: kmalloc: "
			   "call_site=eventfs_set_attr+0x10d/0x140 (-2120949907) "
			   "ptr=0xffff888185ce1c80 (-131385099674496) bytes_req=0x3c (60) "
			   "bytes_alloc=0x40 (64) gfp_flags=0xd40 (3392) node=0xffffffff (-1)",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(site_is(l.ev.call_site, "eventfs_set_attr", 0x10d));
	CHECK_EQ_U64(l.ev.ptr, 0xffff888185ce1c80ULL);
	CHECK_EQ_U64(l.ev.bytes_req, 60);
	CHECK_EQ_U64(l.ev.bytes_alloc, 64);
	CHECK(l.ev.flags & KMT_EVF_HAS_GFP);
	CHECK_EQ_U64(l.ev.gfp, 0xd40);
	CHECK_EQ_U64((uint64_t)l.ev.node, (uint64_t)-1);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240337: kmem_cache_alloc: "
			   "call_site=alloc_empty_file+0x3c/0x110 (-2123646068) "
			   "ptr=0xffff8881877146c0 (-131385072204096) name=filp bytes_req=0xb8 (184) "
			   "bytes_alloc=0xc0 (192) gfp_flags=0xcc0 (3264) node=0x0 (0) accounted=(1)",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_STR(str(l.ev.cache), "filp");
	CHECK_EQ_U64(l.ev.bytes_req, 184);
	CHECK_EQ_U64(l.ev.node, 0);
	CHECK(l.ev.flags & KMT_EVF_ACCOUNTED);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240337: kmem_cache_alloc: "
			   "call_site=a ptr=0x1 (1) name=x bytes_req=0x18 (24) bytes_alloc=0x18 (24) "
			   "gfp_flags=0xdc0 (3520) node=0xffffffff (-1) accounted=(0)",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(!(l.ev.flags & KMT_EVF_ACCOUNTED));
	/* kernels before 6.15 print the call site as a number */
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240386: kfree: "
			   "call_site=0xffffffffa9afcf31 (-1448095951) ptr=0x0 (0)",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.call_site, 0xffffffffa9afcf31ULL);
	CHECK_EQ_U64(l.ev.ptr, 0);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240333: mm_page_alloc: "
			   "pfn=0x38aaa6 (3713702) order=0x1 (1) gfp_flags=0x140dca (1314250) "
			   "migratetype=0x1 (1)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, 0x38aaa6);
	CHECK_EQ_U64(l.ev.order, 1);
	CHECK_EQ_U64(l.ev.migratetype, 1);
	/* a failed allocation is the field's -1, 64 and 32 bits */
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240333: mm_page_alloc: "
			   "pfn=0xffffffffffffffff (-1) order=0x3 (3) gfp_flags=0xa20 (2592) "
			   "migratetype=0x0 (0)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240333: mm_page_alloc: "
			   "pfn=0xffffffff (-1) order=0x3 (3) gfp_flags=0xa20 (2592) "
			   "migratetype=0x0 (0)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240333: mm_page_alloc: "
			   "pfn=0xffffffff (4294967295) order=0x3 (3) gfp_flags=0xa20 (2592) "
			   "migratetype=0x0 (0)", KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, 0xffffffffULL);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240485: mm_page_free: "
			   "pfn=0x402521 (4203809) order=0x0 (0)", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, 0x402521);
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc_zone_locked: pfn=0x10 (16) order=0x0 (0) "
				     "migratetype=0x1 (1) percpu_refill=0x1 (1)"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(l.ev.flags & KMT_EVF_PERCPU_REFILL);
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_alloc_extfrag: pfn=0x20 (32) alloc_order=0x0 (0) "
				     "fallback_order=0x3 (3) alloc_migratetype=0x0 (0) "
				     "fallback_migratetype=0x1 (1) change_ownership=0x1 (1)"),
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.fallback_order, 3);
	CHECK(l.ev.flags & KMT_EVF_CHANGE_OWNER);
	CHECK(!(l.ev.flags & KMT_EVF_HAS_FRAGMENTING));
	/* the kernel's own stack entry, which options/fields cannot print */
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240334: UNKNOWN TYPE 4",
			   KMT_TEXT_FTRACE), KMT_TEXT_STACK);
	CHECK_EQ_U64(l.ev.pid, 22104);
	CHECK_EQ_U64(parse("              ls-22104   [001] .....  1876.240334: UNKNOWN TYPE 5",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_NONE);
	/* a wider hex than an int is no int */
	CHECK_EQ_U64(parse(PAGE_LINE("mm_page_free: pfn=0x1 order=0x100000000"),
			   KMT_TEXT_FTRACE), KMT_TEXT_BAD);
	CHECK_STR(l.why, "bad order=");
}

/* the CPU and its flags in one word: trace-cmd report -l, latency-format */
static void test_latency_columns(void)
{
	setup();
	CHECK_EQ_U64(parse("kmt-td:       sh-20427   1d..1.  1047.780527: kmem_cache_free:      "
			   "(release_task+0x2fb) call_site=release_task+0x2fb "
			   "ptr=0xffff88814d79c200 name=task_struct", KMT_TEXT_REPORT),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_REPORT);
	CHECK(comm_is("sh"));
	CHECK_EQ_U64(l.ev.pid, 20427);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.ev.ts, 1047780527000ULL);
	CHECK_EQ_U64(l.ev.type, KMT_EV_CACHE_FREE);
	CHECK_EQ_U64(l.ev.ptr, 0xffff88814d79c200ULL);
	/* the top buffer, a comm cut to 8 columns, CPU 12 */
	CHECK_EQ_U64(parse("kworker/-87     12.....  1047.780819: mm_page_free:         "
			   "page=0x1c9b1b pfn=0x1c9b1b order=0", KMT_TEXT_REPORT), KMT_TEXT_EVENT);
	CHECK(comm_is("kworker/"));
	CHECK_EQ_U64(l.ev.pid, 87);
	CHECK_EQ_U64(l.ev.cpu, 12);
	CHECK_EQ_U64(l.ev.ptr, 0x1c9b1b);
	CHECK_EQ_U64(parse("kmt-td:       sh-20427   1.....  1047.779849: kernel_stack:         "
			   "<stack trace >", KMT_TEXT_REPORT), KMT_TEXT_STACK);
	CHECK_EQ_U64(l.ev.cpu, 1);
	/* tracefs options/latency-format: microseconds and a delay mark */
	CHECK_EQ_U64(parse("     cat-24368     1..... 2169065781us : kmem_cache_free: "
			   "call_site=__fput+0x141/0x2a0 ptr=0000000047e9dfcd name=lsm_file_cache",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_FTRACE);
	CHECK(comm_is("cat"));
	CHECK_EQ_U64(l.ev.pid, 24368);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.ev.ts, 2169065781000ULL);
	CHECK_STR(str(l.ev.cache), "lsm_file_cache");
	CHECK_EQ_U64(parse("     cat-24368     1..... 2169065822us+: <stack trace>",
			   KMT_TEXT_FTRACE), KMT_TEXT_STACK);
	CHECK_EQ_U64(l.ev.ts, 2169065822000ULL);
	/* 4.x flags, four of them */
	CHECK_EQ_U64(parse("  <idle>-0       0d.s2  512us!: kfree: call_site=a ptr=          (null)",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ts, 512000);
	CHECK_EQ_U64(l.ev.ptr, 0);
	/* words that only look like it */
	CHECK_EQ_U64(parse("hello 1abc 1.5: world", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);
	CHECK_EQ_U64(parse("sh-1 1..... no time", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);
}

/* events as C comments in function_graph output */
static void test_function_graph(void)
{
	setup();
	CHECK_EQ_U64(parse(" 1)               |            /* kmem_cache_alloc: "
			   "call_site=ffffffff8129c2f8 ptr=000000003f6c2a8e bytes_req=4096 "
			   "bytes_alloc=4096 gfp_flags=GFP_KERNEL */", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.style, KMT_TEXT_GRAPH);
	CHECK_EQ_U64(l.ev.type, KMT_EV_CACHE_ALLOC);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.ev.pid, (uint64_t)-1);
	CHECK(l.no_ts);
	CHECK(!l.comm);
	CHECK_STR(str(l.ev.gfp_str), "GFP_KERNEL");
	CHECK_EQ_U64(l.ev.bytes_alloc, 4096);
	/* a padded NULL inside the comment */
	CHECK_EQ_U64(parse(" 1)               |      /* mm_page_alloc: page=          (null) "
			   "pfn=0 order=4 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_COMP */",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.ptr, KMT_PFN_NONE);
	CHECK_EQ_U64(l.ev.order, 4);
	/* funcgraph-abstime and funcgraph-proc; 12 CPUs and more */
	CHECK_EQ_U64(parse(" 5214.300109 |   10)   make-40211   |               |      "
			   "/* kfree: call_site=free_bprm+0x7d/0xd0 ptr=0000000000000000 */",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK(!l.no_ts);
	CHECK_EQ_U64(l.ev.ts, 5214300109000ULL);
	CHECK_EQ_U64(l.ev.cpu, 10);
	CHECK_EQ_U64(l.ev.pid, 40211);
	CHECK(comm_is("make"));
	CHECK(site_is(l.ev.call_site, "free_bprm", 0x7d));
	/* a comm with a blank, latency-format's flags after the task */
	CHECK_EQ_U64(parse(" 0)  Web Con-4321  |  d..1. |               |  /* kfree: "
			   "call_site=a ptr=0000000000001000 */", KMT_TEXT_FTRACE),
		     KMT_TEXT_EVENT);
	CHECK(comm_is("Web Con"));
	CHECK_EQ_U64(l.ev.pid, 4321);
	/* no duration column */
	CHECK_EQ_U64(parse(" 0)  /* kfree: call_site=a ptr=0000000000001000 */",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_KFREE);
	/* a stack trace, its last frame closing the comment */
	CHECK_EQ_U64(parse(" 0)               |            /* <stack trace>", KMT_TEXT_FTRACE),
		     KMT_TEXT_STACK);
	CHECK_EQ_U64(l.ev.cpu, 0);
	CHECK_EQ_U64(parse(" => page_fault */", KMT_TEXT_FTRACE), KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_len, strlen("page_fault"));
	CHECK(!memcmp(l.frame, "page_fault", l.frame_len));
	/* the CPU switched tasks */
	CHECK_EQ_U64(parse(" 1)   bash-2301    =>  kworker-1786 ", KMT_TEXT_FTRACE),
		     KMT_TEXT_SWITCH);
	CHECK_EQ_U64(l.ev.cpu, 1);
	CHECK_EQ_U64(l.ev.pid, 1786);
	CHECK(comm_is("kworker"));
	/* functions, irq arrows, trace_printk(): no events */
	CHECK_EQ_U64(parse(" 1)   0.171 us    |          _cond_resched();", KMT_TEXT_FTRACE),
		     KMT_TEXT_OTHER);
	CHECK_EQ_U64(parse(" 1) + 12.774 us   |    }", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);
	CHECK_EQ_U64(parse(" 0)   ==========> |", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);
	CHECK_EQ_U64(parse(" 0)               |  /* probe hit here */", KMT_TEXT_FTRACE),
		     KMT_TEXT_OTHER);
	CHECK_EQ_U64(parse(" ------------------------------------------", KMT_TEXT_FTRACE),
		     KMT_TEXT_OTHER);
	/* an event comment that is damaged is still counted */
	CHECK_EQ_U64(parse(" 0)               |  /* kfree: call_site=a */", KMT_TEXT_FTRACE),
		     KMT_TEXT_BAD);
	CHECK_STR(l.missing, "ptr");
}

/* perf script variants: blanks for tabs, its own records, -F +period */
static void test_perf_variants(void)
{
	setup();
	CHECK_EQ_U64(parse("        ffffffff8161f78b __alloc_frozen_pages_noprof+0x26b "
			   "([kernel.kallsyms])", KMT_TEXT_PERF), KMT_TEXT_FRAME);
	CHECK_EQ_U64(l.frame_addr, 0xffffffff8161f78bULL);
	CHECK_EQ_U64(l.frame_len, strlen("__alloc_frozen_pages_noprof+0x26b"));
	CHECK(!l.frame_user);
	CHECK_EQ_U64(parse("            7f70182f2ad7 [unknown] ([unknown])", KMT_TEXT_PERF),
		     KMT_TEXT_FRAME);
	CHECK(l.frame_user);
	/* only where perf's chains are expected */
	CHECK_EQ_U64(parse("        ffffffff8161f78b __alloc_frozen_pages_noprof+0x26b "
			   "([kernel.kallsyms])", KMT_TEXT_FTRACE), KMT_TEXT_OTHER);
	/* a comm that reads as hex is still an event */
	CHECK_EQ_U64(parse("              dd  6696 [000]  2699.741058: kmem:kfree: "
			   "call_site=a+0x1 ptr=0x10", KMT_TEXT_PERF), KMT_TEXT_EVENT);
	CHECK(comm_is("dd"));
	CHECK_EQ_U64(parse("swapper     0 [000]     0.000000: PERF_RECORD_MMAP -1/0: "
			   "[0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x "
			   "[kernel.kallsyms]_text", KMT_TEXT_FTRACE), KMT_TEXT_SIDEBAND);
	CHECK_EQ_U64(parse("swapper     0 [000]     0.000000: PERF_RECORD_FORK(1:1):(0:0)",
			   KMT_TEXT_PERF), KMT_TEXT_SIDEBAND);
	CHECK_EQ_U64(parse("            perf 27153 [000]   867.924713:          1          "
			   "kmem:kmalloc: call_site=sched_setaffinity+0x10c ptr=0xffff88817f81bc00 "
			   "bytes_req=32 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 accounted=false",
			   KMT_TEXT_FTRACE), KMT_TEXT_EVENT);
	CHECK_EQ_U64(l.ev.type, KMT_EV_KMALLOC);
	CHECK_EQ_U64(l.ev.bytes_req, 32);
}

/* --- the reader: stacks find their event, order is kept --- */

struct seen {
	struct kmt_event ev[16];
	int nr;
};

static int collect(void *ctx, const struct kmt_event *ev)
{
	struct seen *w = ctx;

	if (w->nr < 16)
		w->ev[w->nr++] = *ev;
	return 0;
}

static int read_text(const char *text, struct seen *w)
{
	char path[] = "/tmp/kmt-test-text.XXXXXX";
	int fd = mkstemp(path), ret;

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	setup();
	memset(w, 0, sizeof(*w));
	s.consumer = collect;
	s.consumer_ctx = w;
	ret = kmt_source_read_file(&s, path);
	unlink(path);
	return ret;
}

static void test_reader_stacks(void)
{
	/*
	 * CPU 0's page allocation gets the stack that comes after a line
	 * of CPU 1; the stack of another task on CPU 1 (a trigger firing
	 * for an event the pid filter dropped) is not kfree's.
	 */
	static const char text[] =
		"# tracer: nop\n"
		"              sh-10    [000] .....   1.000001: mm_page_alloc: page=0000000000000001 pfn=0x100 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
		"              sh-11    [001] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=0000000000001000\n"
		"              sh-10    [000] .....   1.000003: <stack trace>\n"
		" => trace_event_raw_event_mm_page_alloc\n"
		" => __alloc_pages+0x1a/0x200\n"
		" => copy_process\n"
		"           other-12    [001] .....   1.000004: <stack trace>\n"
		" => somewhere\n"
		"              sh-10    [000] .....   1.000005: kmalloc: call_site=b+0x1/0x2 ptr=0000000000002000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"CPU:1 [LOST 5 EVENTS]\n";
	const struct kmt_stack *st;
	struct seen w;
	uint64_t off;

	CHECK_EQ_U64(read_text(text, &w), 0);
	CHECK_EQ_U64(w.nr, 3);
	CHECK_EQ_U64(w.ev[0].type, KMT_EV_PAGE_ALLOC);
	CHECK_EQ_U64(w.ev[1].type, KMT_EV_KFREE);
	CHECK_EQ_U64(w.ev[2].type, KMT_EV_KMALLOC);
	CHECK(w.ev[0].ts < w.ev[1].ts && w.ev[1].ts < w.ev[2].ts);
	st = kmt_stacks_get(&s.stacks, w.ev[0].stack);
	CHECK(st && st->nr == 3);
	if (st && st->nr == 3) {
		CHECK_STR(kmt_symtab_lookup(&s.syms, st->ips[0], &off),
			  "trace_event_raw_event_mm_page_alloc");
		CHECK_STR(kmt_symtab_lookup(&s.syms, st->ips[1], &off),
			  "__alloc_pages");
		CHECK_EQ_U64(off, 0x1a);
		CHECK_STR(kmt_symtab_lookup(&s.syms, st->ips[2], &off),
			  "copy_process");
	}
	CHECK_EQ_U64(w.ev[1].stack, 0);
	CHECK_EQ_U64(w.ev[2].stack, 0);
	CHECK_EQ_U64(s.has_stacks, 1);
	CHECK_EQ_U64(s.nr_lost, 5);
	CHECK_EQ_U64(s.nr_lost_records, 1);
	CHECK_EQ_U64(s.nr_cpus, 2);
	CHECK_STR(kmt_session_comm(&s, 10), "sh");
	CHECK_STR(s.format, "ftrace text");
}

static void test_reader_perf_chain(void)
{
	static const char text[] =
		"perf 5 [001] 2.000000: kmem:kmalloc: call_site=x+0x1 ptr=0x10 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"\tffffffff815c5828 __traceiter_kmalloc+0x58 ([kernel.kallsyms])\n"
		"\tffffffff81634d4d __kmalloc_cache_node_noprof+0x20d ([kernel.kallsyms])\n"
		"\t           ee137 malloc+0x7 (/usr/lib/libc.so.6)\n"
		"\n"
		"perf 5 [001] 2.000001: kmem:kfree: call_site=y+0x1 ptr=0x10\n"
		"\n";
	const struct kmt_stack *st;
	struct seen w;

	CHECK_EQ_U64(read_text(text, &w), 0);
	CHECK_EQ_U64(w.nr, 2);
	st = kmt_stacks_get(&s.stacks, w.ev[0].stack);
	CHECK(st && st->nr == 2);
	CHECK_EQ_U64(w.ev[1].stack, 0);
	CHECK_STR(s.format, "perf script text");
}

static void test_reader_bad_and_empty(void)
{
	struct seen w;

	CHECK_EQ_U64(read_text("# tracer: nop\n"
			       "  bash-1 [001] .....  1.000000: kmalloc: call_site=a ptr=xyz\n"
			       "  bash-1 [001] .....  1.000001: kfree: call_site=a ptr=0\n",
			       &w), 0);
	CHECK_EQ_U64(w.nr, 1);
	CHECK_EQ_U64(s.anomalies[KMT_ANOM_BAD_RECORD], 1);

	CHECK(read_text("# tracer: nop\nnothing here\n", &w) < 0);
	CHECK(strstr(s.errmsg, "has no ftrace event lines (first line: # tracer: nop)"));
}

/*
 * An unreadable line is counted and noted with its line number; the
 * stack that follows it is its own, not the event's before it.
 */
static void test_reader_bad_line_stack(void)
{
	static const char text[] =
		"# tracer: nop\n"
		"              sh-10    [000] .....   1.000001: kmalloc: call_site=b+0x1/0x2 ptr=0000000000002000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"              sh-10    [000] .....   1.000002: mm_page_alloc: page=0000000000000001 pfn=0x100 migratetype=0 gfp_flags=GFP_KERNEL\n"
		"              sh-10    [000] .....   1.000003: <stack trace>\n"
		" => trace_event_raw_event_mm_page_alloc\n"
		" => __alloc_pages+0x1a/0x200\n"
		"              sh-10    [000] .....   1.000004: kfree: call_site=c+0x1/0x2 ptr=0000000000003000\n"
		"              sh-10    [000] .....   1.000005: kfree: call_site=c+0x1/0x2\n";
	struct seen w;

	CHECK_EQ_U64(read_text(text, &w), 0);
	CHECK_EQ_U64(w.nr, 2);
	CHECK_EQ_U64(w.ev[0].type, KMT_EV_KMALLOC);
	CHECK_EQ_U64(w.ev[0].stack, 0);
	CHECK_EQ_U64(w.ev[1].type, KMT_EV_KFREE);
	CHECK_EQ_U64(w.ev[1].ptr, 0x3000);
	CHECK_EQ_U64(s.has_stacks, 0);
	CHECK_EQ_U64(s.anomalies[KMT_ANOM_BAD_RECORD], 2);
	CHECK_EQ_U64(s.nr_notes, 2);
	CHECK_EQ_U64(s.notes[0].unit, KMT_AT_LINE);
	CHECK_EQ_U64(s.notes[0].where, 3);
	CHECK_STR(s.notes[0].why, "mm_page_alloc without order=");
	CHECK_EQ_U64(s.notes[1].where, 8);
	CHECK_STR(s.notes[1].why, "kfree without ptr=");
}

/*
 * function_graph: a CPU's task is the last switch's; a stack comment is
 * its event's; without funcgraph-abstime the format says there are no
 * times.
 */
static void test_reader_function_graph(void)
{
	static const char text[] =
		"# tracer: function_graph\n"
		"#\n"
		"# CPU  DURATION                  FUNCTION CALLS\n"
		"# |     |   |                     |   |   |   |\n"
		" 1)               |  /* kfree: call_site=a+0x1/0x2 ptr=          (null) */\n"
		" ------------------------------------------\n"
		" 1)   bash-2301    =>  kworker-1786 \n"
		" ------------------------------------------\n"
		"\n"
		" 1)               |    /* mm_page_alloc: page=0000000008d5c2a1 pfn=1873421 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE */\n"
		" 0)               |  /* kfree: call_site=a+0x1/0x2 ptr=0000000000001000 */\n"
		" 1)               |    /* <stack trace>\n"
		" => trace_event_raw_event_mm_page_alloc\n"
		" => __alloc_pages_nodemask\n"
		" => do_anonymous_page */\n"
		" 1)   0.412 us    |    }\n";
	const struct kmt_stack *st;
	struct seen w;
	uint64_t off;

	CHECK_EQ_U64(read_text(text, &w), 0);
	CHECK_EQ_U64(w.nr, 3);
	CHECK_EQ_U64(w.ev[0].type, KMT_EV_KFREE);
	CHECK_EQ_U64(w.ev[0].pid, (uint64_t)-1);
	CHECK_EQ_U64(w.ev[1].type, KMT_EV_PAGE_ALLOC);
	CHECK_EQ_U64(w.ev[1].pid, 1786);
	CHECK_EQ_U64(w.ev[1].cpu, 1);
	CHECK_EQ_U64(w.ev[2].cpu, 0);
	CHECK_EQ_U64(w.ev[2].stack, 0);
	st = kmt_stacks_get(&s.stacks, w.ev[1].stack);
	CHECK(st && st->nr == 3);
	if (st && st->nr == 3)
		CHECK_STR(kmt_symtab_lookup(&s.syms, st->ips[2], &off),
			  "do_anonymous_page");
	CHECK_STR(kmt_session_comm(&s, 1786), "kworker");
	CHECK_STR(s.format, "ftrace function_graph text without times");
	CHECK_EQ_U64(s.nr_cpus, 2);
	CHECK_EQ_U64(s.anomalies[KMT_ANOM_BAD_RECORD], 0);

	/* with funcgraph-abstime the times are the lines' */
	CHECK_EQ_U64(read_text(" 5214.300109 |   0)   make-40211   |               |  "
			       "/* kfree: call_site=a ptr=0000000000001000 */\n", &w), 0);
	CHECK_EQ_U64(w.nr, 1);
	CHECK_EQ_U64(w.ev[0].ts, 5214300109000ULL);
	CHECK_STR(s.format, "ftrace function_graph text");
}

/* perf script whose tabs became blanks: the chains are still read */
static void test_reader_perf_blanks(void)
{
	static const char text[] =
		"perf 5 [001] 2.000000: kmem:mm_page_alloc: page=0x1 pfn=0x1 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
		"        ffffffff8161f78b __alloc_frozen_pages_noprof+0x26b ([kernel.kallsyms])\n"
		"        ffffffff815e57ee __pmd_alloc+0x2e ([kernel.kallsyms])\n"
		"            7f70182f2ad7 [unknown] ([unknown])\n"
		"\n"
		"perf 5 [001] 2.000001: PERF_RECORD_COMM exec: ls:5/5\n"
		"perf 5 [001] 2.000002: kmem:kfree: call_site=y+0x1 ptr=0x10\n";
	const struct kmt_stack *st;
	struct seen w;

	CHECK_EQ_U64(read_text(text, &w), 0);
	CHECK_EQ_U64(w.nr, 2);
	st = kmt_stacks_get(&s.stacks, w.ev[0].stack);
	CHECK(st && st->nr == 2);
	CHECK_EQ_U64(w.ev[1].stack, 0);
	CHECK_EQ_U64(s.has_stacks, 1);
	CHECK_EQ_U64(s.anomalies[KMT_ANOM_BAD_RECORD], 0);
	CHECK_STR(s.format, "perf script text");
}

static void test_probe(void)
{
	static const char *const yes[] = {
		"# tracer: nop\n",
		"cpus=2\n",
		"              ls-4348    [000] ...1.   350.327356: kfree: call_site=a ptr=0\n",
		"perf  7398 [000]   458.440494:          kmem:kfree: call_site=a ptr=0x1\n",
		"CPU:1 [LOST 3 EVENTS]\n",
		/* kernels before 5.x: a kfree(NULL) */
		"            bash-2210  [001] ....   312.401893: kfree: call_site=ffffffff8118c7d1 ptr=          (null)\n",
		/* function_graph output without its header */
		" 1)               |  /* kfree: call_site=a ptr=0000000000001000 */\n",
		/* trace-cmd report -l */
		"kmt-td:       sh-20427   1d..1.  1047.780527: kmem_cache_free:      (release_task+0x2fb) call_site=release_task+0x2fb ptr=0xffff88814d79c200 name=task_struct\n",
		/* perf script --show-mmap-events */
		"swapper     0 [000]     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n",
	};
	static const char *const no[] = {
		"hello\nworld\n",
		"",
		"PERFILE2",
		"a\0b\n",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(kmt_source_text.probe((const unsigned char *)yes[i],
					    strlen(yes[i])));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!kmt_source_text.probe((const unsigned char *)no[i],
					     i == 3 ? 4 : strlen(no[i])));
	/* the last test: nothing left for the leak checker */
	kmt_session_free(&s);
}

KMT_TESTS(
	KMT_TEST(test_ftrace_kmalloc),
	KMT_TEST(test_ftrace_no_irq_info),
	KMT_TEST(test_comm_with_spaces_and_dashes),
	KMT_TEST(test_tgid_column),
	KMT_TEST(test_report),
	KMT_TEST(test_perf),
	KMT_TEST(test_page_events),
	KMT_TEST(test_stacks_and_lost),
	KMT_TEST(test_headers_other_bad),
	KMT_TEST(test_null_padded),
	KMT_TEST(test_required_fields),
	KMT_TEST(test_percpu_vmalloc),
	KMT_TEST(test_fields_option),
	KMT_TEST(test_latency_columns),
	KMT_TEST(test_function_graph),
	KMT_TEST(test_perf_variants),
	KMT_TEST(test_reader_stacks),
	KMT_TEST(test_reader_perf_chain),
	KMT_TEST(test_reader_bad_and_empty),
	KMT_TEST(test_reader_bad_line_stack),
	KMT_TEST(test_reader_function_graph),
	KMT_TEST(test_reader_perf_blanks),
	KMT_TEST(test_probe),
)
