// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's counters: the parsers of /proc/slabinfo, /proc/meminfo
 * and /proc/vmallocinfo on small texts like the kernel's, damaged ones
 * (the error names the line), and the counters option record writes.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "event/kcounters.h"

#define SLABINFO_HEAD "slabinfo - version: 2.1\n" \
	"# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n"

static const char slabinfo[] = SLABINFO_HEAD
	"dentry             81459  81459    192   21    1 : tunables    0    0    0 : slabdata   3879   3879      0\n"
	"kmalloc-64          2347   2432     64   64    1 : tunables    0    0    0 : slabdata     38     38      0\n"
	"kmalloc-rnd-01-64    100    128     64   64    1 : tunables    0    0    0 : slabdata      2      2      0\n";

static char err[256];

static void test_slabinfo(void)
{
	struct kmt_kcounters c;
	const struct kmt_slab_count *sc;

	kmt_kcounters_init(&c);
	CHECK_EQ_U64(kmt_kcounters_parse_slabinfo(&c, &c.at[0], slabinfo,
						  sizeof(slabinfo), err,
						  sizeof(err)), 0);
	CHECK(c.at[0].have & KMT_CNT_SLABINFO);
	CHECK_EQ_U64(c.at[0].nr_slabs, 3);
	sc = kmt_kcounters_slab(&c.at[0], "dentry");
	CHECK(sc != NULL);
	if (sc) {
		CHECK_EQ_U64(sc->active_objs, 81459);
		CHECK_EQ_U64(sc->objsize, 192);
		CHECK_EQ_U64(sc->objperslab, 21);
		CHECK_EQ_U64(sc->active_slabs, 3879);
		CHECK(sc->cpu_partial == -1);
	}
	CHECK(kmt_kcounters_slab(&c.at[0], "filp") == NULL);
	kmt_kcounters_free(&c);
}

static int slab_err(const char *text)
{
	struct kmt_kcounters c;
	int ret;

	kmt_kcounters_init(&c);
	err[0] = '\0';
	ret = kmt_kcounters_parse_slabinfo(&c, &c.at[0], text, strlen(text),
					   err, sizeof(err));
	CHECK(!(c.at[0].have & KMT_CNT_SLABINFO) || ret == 0);
	kmt_kcounters_free(&c);
	return ret;
}

static void test_slabinfo_damaged(void)
{
	CHECK(slab_err("") == -EINVAL);
	CHECK_STR(err, "line 1: empty, not /proc/slabinfo");
	CHECK(slab_err("slabinfo - version: 1.1\n") == -EINVAL);
	CHECK_STR(err, "line 1: slabinfo version 1.1, not 2.1");
	CHECK(slab_err("MemTotal: 1 kB\n") == -EINVAL);
	CHECK_STR(err, "line 1: not /proc/slabinfo (no \"slabinfo - version:\")");
	/* a number cut short, a field missing, more active than there are */
	CHECK(slab_err(SLABINFO_HEAD "dentry 1 2 192 21 1 : tunables 0 0 0 : slabdata 1 1 0\n"
		       "filp 1x 2 192 21 1 : tunables 0 0 0 : slabdata 1 1 0\n") == -EINVAL);
	CHECK_STR(err, "line 4: not a cache's line of slabinfo 2.1");
	CHECK(slab_err(SLABINFO_HEAD "dentry 1 2 192 21 1 : tunables 0 0 0 : slabdata 1 1\n") == -EINVAL);
	CHECK_STR(err, "line 3: not a cache's line of slabinfo 2.1");
	CHECK(slab_err(SLABINFO_HEAD "dentry 3 2 192 21 1 : tunables 0 0 0 : slabdata 1 1 0\n") == -EINVAL);
	CHECK_STR(err, "line 3: not a cache's line of slabinfo 2.1");
	CHECK(slab_err(SLABINFO_HEAD "dentry 99999999999999999999 2 192 21 1 : tunables 0 0 0 : slabdata 1 1 0\n") == -EINVAL);
	/* a NUL ends the text; the last line may lack its newline */
	CHECK_EQ_U64(slab_err(SLABINFO_HEAD "dentry 1 2 192 21 1 : tunables 0 0 0 : slabdata 1 1 0"), 0);
}

static void test_meminfo(void)
{
	static const char text[] = "MemTotal:       24000000 kB\n"
		"Slab:             128820 kB\nSReclaimable:     103116 kB\n"
		"SUnreclaim:        25704 kB\nVmallocTotal:   34359738367 kB\n"
		"VmallocUsed:       14556 kB\nPercpu:              736 kB\n"
		"HugePages_Total:       0\n";
	struct kmt_kcounters_snap snap;

	memset(&snap, 0, sizeof(snap));
	CHECK_EQ_U64(kmt_kcounters_parse_meminfo(&snap, text, sizeof(text),
						 err, sizeof(err)), 0);
	CHECK_EQ_U64(snap.meminfo_have, (1U << KMT_MEM_NR) - 1);
	CHECK_EQ_U64(snap.meminfo_kb[KMT_MEM_SLAB], 128820);
	CHECK_EQ_U64(snap.meminfo_kb[KMT_MEM_PERCPU], 736);
	CHECK_EQ_U64(snap.meminfo_kb[KMT_MEM_VMALLOC_USED], 14556);
	CHECK(kmt_kcounters_parse_meminfo(&snap, "Slab: 12 kB\nPercpu: x kB\n",
					  26, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 2: Percpu: not a number");
	CHECK(!(snap.have & KMT_CNT_MEMINFO));
	CHECK(kmt_kcounters_parse_meminfo(&snap, "Slab: 12 MB\n", 12, err,
					  sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 1: Slab: not in kB");
	CHECK(kmt_kcounters_parse_meminfo(&snap, "MemTotal: 1 kB\nno colon\n",
					  24, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 2: not a \"Name: value kB\" line of meminfo");
	CHECK(kmt_kcounters_parse_meminfo(&snap, "MemTotal: 1 kB\n", 15, err,
					  sizeof(err)) == -EINVAL);
}

static void test_vmallocinfo(void)
{
	static const char text[] =
		"0x00000000e051ea69-0x00000000d9873f4a   20480 irq_init_percpu_irqstack+0xed/0x120 vmap\n"
		"0x000000006b670f6c-0x00000000f2c43cfa   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n"
		"0x000000006b670f6c-0x00000000f2c43cfa   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n"
		"0xffffc90000400000-0xffffc90000402000    8192 unpurged vm_area\n"
		"0xffffc90000402000-0xffffc90000403000    4096 vm_map_ram\n";
	struct kmt_kcounters c;
	const struct kmt_kcounters_snap *s = &c.at[0];

	kmt_kcounters_init(&c);
	CHECK_EQ_U64(kmt_kcounters_parse_vmallocinfo(&c, &c.at[0], text,
						     sizeof(text), err,
						     sizeof(err)), 0);
	CHECK_EQ_U64(s->vm_areas, 5);
	CHECK_EQ_U64(s->vm_bytes, 73728);
	CHECK_EQ_U64(s->nr_vm, 4);
	/* sorted by caller */
	CHECK_STR(s->vm[0].caller, "irq_init_percpu_irqstack");
	CHECK_STR(s->vm[1].caller, "kernel_clone");
	CHECK_EQ_U64(s->vm[1].areas, 2);
	CHECK_EQ_U64(s->vm[1].bytes, 40960);
	CHECK_STR(s->vm[2].caller, "unpurged vm_area");
	CHECK_STR(s->vm[3].caller, "vm_map_ram");
	CHECK(kmt_kcounters_parse_vmallocinfo(&c, &c.at[0],
					      "0x1-0x2 4096 a+0x1/0x2\nfoo 12 b\n",
					      32, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 2: not an area of vmallocinfo (\"0x...-0x... size caller\")");
	CHECK(kmt_kcounters_parse_vmallocinfo(&c, &c.at[0], "0x1-0x2 big a\n",
					      14, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 1: not an area of vmallocinfo (\"0x...-0x... size caller\")");
	kmt_kcounters_free(&c);
}

#define OPTION KMT_KCOUNTERS_MAGIC \
	"@start slabinfo\n" SLABINFO_HEAD \
	"dentry 1000 1050 192 21 1 : tunables 0 0 0 : slabdata 50 50 0\n" \
	"kmalloc-64 200 256 64 64 1 : tunables 0 0 0 : slabdata 4 4 0\n" \
	"@start slabsys\n" \
	"dentry 120\n" \
	"kmalloc-64 - iommu_iova jbd2_inode\n" \
	"@start meminfo\nSlab: 1000 kB\nPercpu: 700 kB\n" \
	"@start vmalloc\n3 12288 kernel_clone\n" \
	"@end slabinfo\n" SLABINFO_HEAD \
	"dentry 1500 1575 192 21 1 : tunables 0 0 0 : slabdata 75 75 0\n" \
	"kmalloc-rnd-01-64 64 64 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\n" \
	"kmalloc-64 180 256 64 64 1 : tunables 0 0 0 : slabdata 4 4 0\n" \
	"@end meminfo\nSlab: 1200 kB\nPercpu: 704 kB\n" \
	"@end missing vmalloc Permission denied\n"

static void test_option(void)
{
	struct kmt_kcounters c;
	struct kmt_slab_change ch;
	const struct kmt_slab_count *sc;

	kmt_kcounters_init(&c);
	CHECK_EQ_U64(kmt_kcounters_parse_option(&c, OPTION, sizeof(OPTION),
						err, sizeof(err)), 0);
	CHECK(kmt_kcounters_have(&c, KMT_CNT_SLABINFO | KMT_CNT_MEMINFO));
	CHECK(!kmt_kcounters_have(&c, KMT_CNT_VMALLOC));
	CHECK(c.at[0].have & KMT_CNT_VMALLOC);
	CHECK_EQ_U64(c.at[0].vm_bytes, 12288);
	CHECK_STR(c.at[1].why_vmalloc, "Permission denied");
	CHECK_EQ_U64(c.at[1].meminfo_kb[KMT_MEM_SLAB], 1200);
	sc = kmt_kcounters_slab(&c.at[0], "kmalloc-64");
	CHECK(sc && sc->nr_aliases == 2 && sc->cpu_partial == -1);
	if (sc)
		CHECK_STR(sc->aliases, "iommu_iova jbd2_inode");
	sc = kmt_kcounters_slab(&c.at[0], "dentry");
	CHECK(sc && sc->cpu_partial == 120 && !sc->aliases);
	/* dentry: +500; slack for 2 CPUs of the start's (21 + 240) */
	CHECK_EQ_U64(kmt_kcounters_slab_change(&c, "dentry", 2, &ch), 1);
	CHECK_EQ_U64(ch.start, 1000);
	CHECK_EQ_U64(ch.end, 1500);
	CHECK_EQ_U64(ch.slack, 522);
	/* kmalloc-64 counts its random copy, which only the end has */
	CHECK_EQ_U64(kmt_kcounters_slab_change(&c, "kmalloc-64", 1, &ch), 1);
	CHECK_EQ_U64(ch.start, 200);
	CHECK_EQ_U64(ch.end, 244);
	CHECK_EQ_U64(kmt_kcounters_slab_change(&c, "filp", 2, &ch), 0);
	kmt_kcounters_free(&c);
}

static int option_err(const char *text)
{
	struct kmt_kcounters c;
	int ret;

	kmt_kcounters_init(&c);
	err[0] = '\0';
	ret = kmt_kcounters_parse_option(&c, text, strlen(text), err,
					 sizeof(err));
	kmt_kcounters_free(&c);
	return ret;
}

static void test_option_damaged(void)
{
	CHECK(option_err("kmemtrace nodes\n0 0-1\n") == -EINVAL);
	CHECK_STR(err, "line 1: no \"kmemtrace counters\" line");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "dentry 1 2\n") == -EINVAL);
	CHECK_STR(err, "line 2: a line before any \"@start\" or \"@end\"");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@middle slabinfo\n") == -EINVAL);
	CHECK_STR(err, "line 2: not \"@start\" or \"@end\"");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@end pagesinfo\n") == -EINVAL);
	CHECK_STR(err, "line 2: no section \"pagesinfo\"");
	/* the line of the option, not of the slabinfo in it */
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@start meminfo\nSlab: 1 kB\n"
			 "@start slabinfo\n" SLABINFO_HEAD
			 "dentry 1 2 192 21 1 : tunables 0 0 0 : slabdata 1 1 0\n"
			 "dentry 1 2 192 21 1 : tunables 0 0 0 : slabdata 1 1\n") == -EINVAL);
	CHECK_STR(err, "line 8: slabinfo: not a cache's line of slabinfo 2.1");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@start meminfo\nSlab: x kB\n") == -EINVAL);
	CHECK_STR(err, "line 3: meminfo: Slab: not a number");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@start slabsys\ndentry 1\n") == -EINVAL);
	CHECK_STR(err, "line 2: slabsys before its slabinfo");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@start slabinfo\n" SLABINFO_HEAD
			 "@start slabsys\nfilp 1\n") == -EINVAL);
	CHECK_STR(err, "line 6: not a line of slabsys");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@end vmalloc\n1 x kernel_clone\n") == -EINVAL);
	CHECK_STR(err, "line 3: not a line of vmalloc");
	CHECK(option_err(KMT_KCOUNTERS_MAGIC "@end missing pages why\n") == -EINVAL);
	CHECK_STR(err, "line 2: missing what?");
	/* the magic alone: nothing recorded, nothing wrong */
	CHECK_EQ_U64(option_err(KMT_KCOUNTERS_MAGIC), 0);
}

KMT_TESTS(
	KMT_TEST(test_slabinfo),
	KMT_TEST(test_slabinfo_damaged),
	KMT_TEST(test_meminfo),
	KMT_TEST(test_vmallocinfo),
	KMT_TEST(test_option),
	KMT_TEST(test_option_damaged)
)
