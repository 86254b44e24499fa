// SPDX-License-Identifier: GPL-2.0
/*
 * percpu objects and vmalloc areas in the live tracker and the views of
 * every kind (--leaks, --profile): their callsites (call_site, or the
 * first frame outside vmalloc's own functions), what is live at the
 * end, frees of unknown addresses, failures, and percpu events of
 * kernels before 6.0, which give no size for all CPUs.
 */
#include "analysis/leaks.h"
#include "event/callsite.h"
#include "event/stacks.h"
#include "event/symbols.h"
#include "views-fixture.h"

static const char kallsyms[] =
	"ffffffff81400000 T alloc_vmap_area\n"
	"ffffffff81401000 T __get_vm_area_node\n"
	"ffffffff81402000 T __vmalloc_node_range_noprof\n"
	"ffffffff81403000 T __vmalloc_node_noprof\n"
	"ffffffff81500000 T __bpf_map_area_alloc\n"
	"ffffffff81501000 T array_map_alloc\n"
	"ffffffff81600000 T copy_process\n"
	"ffffffff81700000 T pcpu_alloc_noprof\n"
	"ffffffff81701000 T bpf_map_alloc_percpu\n";

#define BPF_AREA	0xffffffff81500040ULL
#define COPY_PROCESS	0xffffffff81600080ULL
#define PERCPU_SITE	0xffffffff81701059ULL

static void test_rules(void)
{
	static const char *const vmalloc[] = {
		"alloc_vmap_area", "__get_vm_area_node", "__get_vm_area_caller",
		"get_vm_area", "__vmalloc_node_range_noprof", "__vmalloc_node",
		"vmalloc_noprof", "vzalloc", "vmalloc_node_noprof",
		"__kvmalloc_node_noprof", "vmap", "vm_map_ram",
		"perf_trace_alloc_vmap_area",
	};
	static const char *const callers[] = {
		"__bpf_map_area_alloc", "copy_process", "bpf_prog_alloc_no_stats",
		"vm_area_alloc", "execmem_alloc",
	};
	size_t i;

	for (i = 0; i < sizeof(vmalloc) / sizeof(*vmalloc); i++)
		CHECK(kmt_callsite_is_allocator(KMT_CALLSITE_VMALLOC,
						vmalloc[i]));
	for (i = 0; i < sizeof(callers) / sizeof(*callers); i++)
		CHECK(!kmt_callsite_is_allocator(KMT_CALLSITE_VMALLOC,
						 callers[i]));
	CHECK(kmt_callsite_is_allocator(KMT_CALLSITE_PERCPU,
					"pcpu_alloc_noprof"));
	CHECK(kmt_callsite_is_allocator(KMT_CALLSITE_PERCPU,
					"__alloc_percpu_gfp"));
	CHECK(!kmt_callsite_is_allocator(KMT_CALLSITE_PERCPU,
					 "bpf_map_alloc_percpu"));
	/* the page rule is what it was */
	CHECK(!kmt_callsite_is_page_allocator("alloc_vmap_area"));
}

static uint32_t stack_of(struct vf *f, const uint64_t *ips, uint32_t n)
{
	return kmt_stacks_intern(&f->s.stacks, ips, n);
}

static void ev_percpu(struct vf *f, unsigned int type, uint64_t ts, int pid,
		      uint64_t site, uint64_t ptr, uint64_t size,
		      uint64_t all, uint32_t stack)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = (uint16_t)type;
	ev.ts = ts;
	ev.pid = pid;
	ev.call_site = site;
	ev.ptr = ptr;
	ev.bytes_req = size;
	ev.bytes_alloc = all;
	ev.stack = stack;
	vf_ev(f, &ev);
}

static void ev_vmap(struct vf *f, unsigned int type, uint64_t ts, int pid,
		    uint64_t start, uint64_t size, uint32_t stack, int failed)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = (uint16_t)type;
	ev.ts = ts;
	ev.pid = pid;
	ev.ptr = start;
	ev.bytes_req = ev.bytes_alloc = size;
	ev.stack = stack;
	if (failed)
		ev.flags = KMT_EVF_FAILED;
	vf_ev(f, &ev);
}

/* 3 percpu objects at one site (one freed), 3 areas (one freed, one failed) */
static void feed(struct vf *f)
{
	uint64_t bpf[] = { 0xffffffff81400010ULL, 0xffffffff81401020ULL,
			   0xffffffff81402030ULL, BPF_AREA,
			   0xffffffff81501010ULL };
	uint64_t thread[] = { 0xffffffff81400010ULL, 0xffffffff81401020ULL,
			      0xffffffff81402030ULL, 0xffffffff81403040ULL,
			      COPY_PROCESS };
	uint32_t sb, st;

	CHECK(kmt_symtab_load_kallsyms(&f->s.syms, kallsyms,
				       strlen(kallsyms)) == 9);
	sb = stack_of(f, bpf, 5);
	st = stack_of(f, thread, 5);
	ev_percpu(f, KMT_EV_PERCPU_ALLOC, 1000, 7, PERCPU_SITE, 0x100, 8, 16, 0);
	ev_percpu(f, KMT_EV_PERCPU_ALLOC, 2000, 7, PERCPU_SITE, 0x108, 8, 16, 0);
	ev_percpu(f, KMT_EV_PERCPU_ALLOC, 3000, 7, PERCPU_SITE, 0x110, 8, 16, 0);
	ev_percpu(f, KMT_EV_PERCPU_FREE, 4000, 7, 0, 0x108, 0, 0, 0);
	ev_percpu(f, KMT_EV_PERCPU_FREE, 4100, 7, 0, 0x999, 0, 0, 0);
	ev_vmap(f, KMT_EV_VMAP_ALLOC, 5000, 7, 0xffffc90000100000ULL,
		12800000 + 4096, sb, 0);
	ev_vmap(f, KMT_EV_VMAP_ALLOC, 6000, 8, 0xffffc90000200000ULL,
		20480, st, 0);
	ev_vmap(f, KMT_EV_VMAP_ALLOC, 6500, 8, 0, 20480, st, 1);
	ev_vmap(f, KMT_EV_VMAP_FREE, 7000, 8, 0xffffc90000200000ULL, 0, 0, 0);
	ev_vmap(f, KMT_EV_VMAP_FREE, 7100, 8, 0xffffc90000900000ULL, 0, 0, 0);
	vf_kmalloc(f, 8000, 0, 7, 0x10, 0xa0, 32, 32);
}

static void test_leaks(void)
{
	struct kmt_leaks_totals t;
	const struct kmt_table *tab;
	struct vf f;
	size_t row;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_leaks);
	feed(&f);
	vf_finish(&f);
	kmt_leaks_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.percpu, 2);
	CHECK_EQ_U64(t.percpu_bytes, 32);
	CHECK_EQ_U64(t.percpu_no_bytes, 0);
	CHECK_EQ_U64(t.vmaps, 1);
	CHECK_EQ_U64(t.vmalloc_bytes, 12800000 + 4096);
	CHECK_EQ_U64(t.objects, 1);
	tab = vf_table(&f, "leaks", "callsites");
	row = vf_row(tab, "kind", "percpu");
	CHECK_EQ_U64(vf_u(tab, row, "count"), 2);
	CHECK_STR(vf_s(tab, row, "callsite"), "bpf_map_alloc_percpu+59");
	row = vf_row(tab, "kind", "vmalloc");
	CHECK_EQ_U64(vf_u(tab, row, "count"), 1);
	/* the first frame outside vmalloc: the BPF map, not vmalloc */
	CHECK_STR(vf_s(tab, row, "callsite"), "__bpf_map_area_alloc+40");
	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "percpu_objects"), 2);
	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "vmalloc_bytes"),
		     12800000 + 4096);
	vf_renders(&f, "Vmalloc areas outstanding: 1", "\"kind\": \"vmalloc\"");
	vf_free(&f);
}

/* kernels before 6.0: no call_site, no size for all CPUs */
static void test_old_percpu(void)
{
	struct kmt_leaks_totals t;
	const struct kmt_table *tab;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_leaks);
	ev_percpu(&f, KMT_EV_PERCPU_ALLOC, 1000, 7, 0, 0x100, 8, 0, 0);
	ev_percpu(&f, KMT_EV_PERCPU_ALLOC, 2000, 7, 0, 0x108, 8, 0, 0);
	vf_finish(&f);
	kmt_leaks_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.percpu, 2);
	CHECK_EQ_U64(t.percpu_no_bytes, 2);
	tab = vf_table(&f, "leaks", "callsites");
	CHECK_EQ_U64(tab->nrows, 1);
	/* the bytes of the row are absent, the summary's not recorded */
	CHECK(vf_u(tab, 0, "absent") & (1ULL << kmt_table_col(tab, "bytes")));
	vf_renders(&f, "Percpu bytes outstanding (all CPUs' copies): not recorded",
		   "\"percpu_bytes\": null");
	vf_free(&f);
}

static void test_profile(void)
{
	const struct kmt_table *tab;
	struct vf f;
	size_t row;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_profile);
	feed(&f);
	vf_finish(&f);
	tab = vf_table(&f, "profile", "samples");
	row = vf_row(tab, "kind", "percpu");
	CHECK_EQ_U64(vf_u(tab, row, "alloc_objects"), 3);
	CHECK_EQ_U64(vf_u(tab, row, "alloc_space"), 48);
	CHECK_EQ_U64(vf_u(tab, row, "inuse_objects"), 2);
	CHECK_STR(vf_s(tab, row, "cache"), "");
	row = vf_row(tab, "stack", "array_map_alloc;__bpf_map_area_alloc");
	CHECK_STR(vf_s(tab, row, "kind"), "vmalloc");
	CHECK_EQ_U64(vf_u(tab, row, "inuse_space"), 12800000 + 4096);
	row = vf_row(tab, "stack", "copy_process");
	CHECK_STR(vf_s(tab, row, "kind"), "vmalloc");
	CHECK_EQ_U64(vf_u(tab, row, "alloc_objects"), 1);
	CHECK_EQ_U64(vf_u(tab, row, "inuse_objects"), 0);
	vf_free(&f);
}

static void test_percpu_view(void)
{
	const struct kmt_table *tab;
	struct vf f;
	struct kmt_event ev;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_percpu);
	feed(&f);
	kmt_event_init(&ev);
	ev.type = KMT_EV_PERCPU_FAIL;
	ev.ts = 9000;
	ev.bytes_req = 64;
	vf_ev(&f, &ev);
	vf_finish(&f);
	tab = vf_table(&f, "percpu", "callsites");
	CHECK_EQ_U64(tab->nrows, 1);
	CHECK_STR(vf_s(tab, 0, "callsite"), "bpf_map_alloc_percpu+59");
	CHECK_EQ_U64(vf_u(tab, 0, "allocs"), 3);
	CHECK_EQ_U64(vf_u(tab, 0, "size"), 24);
	CHECK_EQ_U64(vf_u(tab, 0, "bytes"), 48);
	CHECK_EQ_U64(vf_u(tab, 0, "frees"), 1);
	CHECK_EQ_U64(vf_u(tab, 0, "live_objects"), 2);
	CHECK_EQ_U64(vf_u(tab, 0, "live_bytes"), 32);
	CHECK_EQ_U64(vf_sum(&f, "percpu", "summary", "free_unknown"), 1);
	CHECK_EQ_U64(vf_sum(&f, "percpu", "summary", "failures"), 1);
	tab = vf_table(&f, "percpu", "failures");
	CHECK_EQ_U64(vf_u(tab, 0, "size"), 64);
	vf_free(&f);
}

static void test_vmalloc_view(void)
{
	const struct kmt_table *tab;
	struct vf f;
	size_t row;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_vmalloc);
	feed(&f);
	vf_finish(&f);
	tab = vf_table(&f, "vmalloc", "callers");
	row = vf_row(tab, "caller", "__bpf_map_area_alloc+40");
	CHECK_EQ_U64(vf_u(tab, row, "live_areas"), 1);
	CHECK_EQ_U64(vf_u(tab, row, "bytes"), 12800000 + 4096);
	row = vf_row(tab, "caller", "copy_process+80");
	CHECK_EQ_U64(vf_u(tab, row, "allocs"), 2);
	CHECK_EQ_U64(vf_u(tab, row, "failed"), 1);
	CHECK_EQ_U64(vf_u(tab, row, "frees"), 1);
	CHECK_EQ_U64(vf_u(tab, row, "live_areas"), 0);
	CHECK_EQ_U64(vf_sum(&f, "vmalloc", "summary", "free_unknown"), 1);
	vf_free(&f);

	/* no stacks: one row, the callers not recorded */
	vf_init(&f);
	vf_create(&f, &kmt_analysis_vmalloc);
	ev_vmap(&f, KMT_EV_VMAP_ALLOC, 10, 1, 0xffffc90000100000ULL, 8192, 0, 0);
	vf_finish(&f);
	tab = vf_table(&f, "vmalloc", "callers");
	CHECK_EQ_U64(tab->nrows, 1);
	CHECK_STR(vf_s(tab, 0, "caller"), "(no stack: record with -g)");
	vf_renders(&f, "Callers found in the stacks: not recorded", NULL);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_rules), KMT_TEST(test_leaks),
	  KMT_TEST(test_old_percpu), KMT_TEST(test_profile),
	  KMT_TEST(test_percpu_view), KMT_TEST(test_vmalloc_view))
