// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/loader.h"
#include "kmt.skel.h"

#define LOG_SIZE	(256 * 1024)
#define BATCH		4096

static const char *const stat_names[KMT_S_NR] = {
	[KMT_S_EVENTS_KMALLOC]		= "kmalloc events",
	[KMT_S_EVENTS_CACHE_ALLOC]	= "kmem_cache_alloc events",
	[KMT_S_EVENTS_KFREE]		= "kfree events",
	[KMT_S_EVENTS_CACHE_FREE]	= "kmem_cache_free events",
	[KMT_S_EVENTS_PAGE_ALLOC]	= "mm_page_alloc events",
	[KMT_S_EVENTS_PAGE_FREE]	= "mm_page_free events",
	[KMT_S_SAMPLED]			= "objects followed",
	[KMT_S_SITES_FULL]		= "events not counted: counter map full",
	[KMT_S_LIVE_FULL]		= "objects not followed: live map full",
	[KMT_S_STACK_FULL]		= "stacks lost: stack map full",
	[KMT_S_STACK_FAILED]		= "stacks lost: bpf_get_stack failed",
	[KMT_S_STACKS_AGG_FULL]		= "stack aggregates lost: map full",
	[KMT_S_UNKNOWN_FREE]		= "frees of objects allocated before the start",
	[KMT_S_REALLOC]			= "allocations over a live object (missed free)",
	[KMT_S_SPLIT_FREE]		= "pages freed at another order",
	[KMT_S_FREE_HARDIRQ]		= "frees in hardirq context",
	[KMT_S_FREE_SOFTIRQ]		= "frees in softirq context",
	[KMT_S_FREE_TASK]		= "frees in task context",
	[KMT_S_COMM_FULL]		= "process names lost: map full",
	[KMT_S_FAILED_ALLOC]		= "failed allocations",
	[KMT_S_EVENTS_PERCPU]		= "percpu events",
	[KMT_S_EVENTS_VMALLOC]		= "vmalloc events",
	[KMT_S_CGROUPS_FULL]		= "events not counted by cgroup: map full",
};

/*
 * The rare tracepoints and the arguments the programs read: a kernel
 * whose tracepoint has another count of arguments (percpu's gained
 * bytes_alloc and gfp_flags in 5.19) would refuse the attach.
 */
static const struct {
	const char *sys, *name;
	unsigned int nargs;
} rare_tps[KMT_TP_NR] = {
	[KMT_TP_PERCPU_ALLOC]	= { "percpu", "percpu_alloc_percpu", 10 },
	[KMT_TP_PERCPU_FREE]	= { "percpu", "percpu_free_percpu", 3 },
	[KMT_TP_PERCPU_FAIL]	= { "percpu", "percpu_alloc_percpu_fail", 4 },
	[KMT_TP_VMALLOC_ALLOC]	= { "vmalloc", "alloc_vmap_area", 6 },
	[KMT_TP_VMALLOC_FREE]	= { "vmalloc", "free_vmap_area_noflush", 3 },
};

const char *kmt_bpf_rare_tp_name(unsigned int tp)
{
	static const char *const full[KMT_TP_NR] = {
		[KMT_TP_PERCPU_ALLOC]	= "percpu:percpu_alloc_percpu",
		[KMT_TP_PERCPU_FREE]	= "percpu:percpu_free_percpu",
		[KMT_TP_PERCPU_FAIL]	= "percpu:percpu_alloc_percpu_fail",
		[KMT_TP_VMALLOC_ALLOC]	= "vmalloc:alloc_vmap_area",
		[KMT_TP_VMALLOC_FREE]	= "vmalloc:free_vmap_area_noflush",
	};

	return tp < KMT_TP_NR ? full[tp] : NULL;
}

const char *kmt_bpf_rare_missing(const struct kmt_bpf *b, char *buf,
				 size_t size)
{
	size_t used = 0;
	int i, w;

	buf[0] = 0;
	for (i = 0; i < KMT_TP_NR && used < size; i++) {
		if (b->rare_on[i])
			continue;
		w = snprintf(buf + used, size - used, "%s%s (%s)",
			     used ? ", " : "", kmt_bpf_rare_tp_name(i),
			     b->rare_why[i] ? b->rare_why[i] : "not attached");
		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

int kmt_bpf_kind_traced(const struct kmt_bpf *b, unsigned int kind)
{
	switch (kind) {
	case KMT_K_PERCPU_ALLOC:
		return b->rare_on[KMT_TP_PERCPU_ALLOC];
	case KMT_K_PERCPU_FREE:
		return b->rare_on[KMT_TP_PERCPU_FREE];
	case KMT_K_PERCPU_FAIL:
		return b->rare_on[KMT_TP_PERCPU_FAIL];
	case KMT_K_VMALLOC_ALLOC:
	case KMT_K_VMALLOC_FAIL:
		return b->rare_on[KMT_TP_VMALLOC_ALLOC];
	case KMT_K_VMALLOC_FREE:
		return b->rare_on[KMT_TP_VMALLOC_FREE];
	default:
		return 1;
	}
}

/*
 * Whether the kernel has a tracepoint with nargs arguments: its BTF
 * holds a typedef btf_trace_<name> of a pointer to a function whose
 * first argument is the tracepoint's data.  NULL, or why not.
 */
static const char *rare_tp_why(const struct btf *btf, unsigned int tp)
{
	const struct btf_type *t;
	char name[96];
	__s32 id;

	if (!btf)
		return "the kernel's BTF cannot be read";
	snprintf(name, sizeof(name), "btf_trace_%s", rare_tps[tp].name);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return "not in this kernel";
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;	/* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) ||
	    btf_vlen(t) != rare_tps[tp].nargs + 1)
		return "other arguments in this kernel";
	return NULL;
}

const char *kmt_bpf_stat_name(unsigned int stat)
{
	return stat < KMT_S_NR ? stat_names[stat] : NULL;
}

int kmt_bpf_stat_counted(const struct kmt_bpf *b, unsigned int stat)
{
	switch (stat) {
	case KMT_S_FREE_HARDIRQ:
	case KMT_S_FREE_SOFTIRQ:
	case KMT_S_FREE_TASK:
		return b->cfg.track_live && b->cfg.free_context;
	case KMT_S_CGROUPS_FULL:
		return b->cfg.count_cgroups && b->cfg.cgroup_mode;
	default:
		return stat < KMT_S_NR;
	}
}

/* libbpf's messages are for its developers; ours say what failed */
static int quiet_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int fail(struct kmt_bpf *b, enum kmt_bpf_unavailable why, int err,
		const char *fmt, ...)
{
	va_list ap;

	b->why = why;
	va_start(ap, fmt);
	vsnprintf(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void kmt_bpf_config_defaults(struct kmt_bpf_config *cfg)
{
	if (!cfg->sample)
		cfg->sample = 1;
	if (!cfg->sites_max)
		cfg->sites_max = 65536;
	if (!cfg->live_max)
		cfg->live_max = 262144;
	if (!cfg->stacks_max)
		cfg->stacks_max = 16384;
	if (!cfg->stack_agg_max)
		cfg->stack_agg_max = 32768;
	if (!cfg->comms_max)
		cfg->comms_max = 16384;
	if (!cfg->caches_max)
		cfg->caches_max = 1024;
	if (!cfg->cgroups_max)
		cfg->cgroups_max = 4096;
	if (!cfg->rare_stacks)
		cfg->rare_stacks = 1024;
}

/* the entries of the stack map: vmalloc's callers are in stacks */
static uint32_t stacks_entries(const struct kmt_bpf_config *cfg)
{
	if (cfg->track_live && cfg->take_stacks)
		return cfg->stacks_max;
	return cfg->no_rare ? 1 : cfg->rare_stacks;
}

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v && r < (1u << 31))
		r <<= 1;
	return r;
}

/*
 * What the kernel allocates for a preallocated hash (kernel/bpf/hashtab.c):
 * per element a 48-byte header and the key, rounded to 8, then the value,
 * or for per-CPU maps a pointer to a value per CPU; one spare element per
 * CPU; a bucket (16 bytes) per power of two of entries.
 */
static uint64_t hash_bytes(uint64_t n, uint64_t key, uint64_t val, int percpu,
			   int nr_cpus)
{
	uint64_t elem = 48 + ((key + 7) & ~7ULL);
	uint64_t v = (val + 7) & ~7ULL;

	if (percpu)
		elem += 8 + v * nr_cpus;
	else
		elem += v;
	return (n + nr_cpus) * elem + roundup_pow2(n) * 16ULL;
}

uint64_t kmt_bpf_pinned_bytes(const struct kmt_bpf_config *cfg, int nr_cpus)
{
	uint64_t total = 0;

	if (cfg->count_sites) {
		total += hash_bytes(cfg->sites_max, sizeof(struct kmt_site_key),
				    sizeof(struct kmt_site_val), 1, nr_cpus);
		total += (uint64_t)nr_cpus * KMT_SITE_CACHE *
			 sizeof(struct kmt_site_slot);
		total += hash_bytes(cfg->comms_max, 4, 16, 0, nr_cpus);
		total += hash_bytes(cfg->caches_max, 8, 32, 0, nr_cpus);
	}
	if (cfg->track_live) {
		total += hash_bytes(cfg->live_max, 8,
				    sizeof(struct kmt_live_val), 0, nr_cpus);
		total += hash_bytes(cfg->stack_agg_max,
				    sizeof(struct kmt_stack_key),
				    sizeof(struct kmt_stack_val), 0, nr_cpus);
	}
	if (cfg->count_sites && cfg->count_cgroups)
		total += hash_bytes(cfg->cgroups_max,
				    sizeof(struct kmt_cg_key),
				    sizeof(struct kmt_cg_val), 1, nr_cpus);
	if (stacks_entries(cfg) > 1)
		total += hash_bytes(stacks_entries(cfg), 8,
				    sizeof(struct kmt_stack_frames), 0,
				    nr_cpus);
	/* the per-CPU slots stacks are taken into, made whatever the job */
	total += (uint64_t)nr_cpus * KMT_STACK_NEST *
		 sizeof(struct kmt_stack_frames);
	total += hash_bytes(4096, 4, 1, 0, nr_cpus);
	return total;
}

static enum kmt_bpf_unavailable classify_load_error(int err)
{
	if (err == -EPERM || err == -EACCES) {
		FILE *f = fopen("/sys/kernel/security/lockdown", "r");
		char mode[128] = "";

		if (f) {
			if (!fgets(mode, sizeof(mode), f))
				mode[0] = 0;
			fclose(f);
		}
		if (strstr(mode, "[integrity]") ||
		    strstr(mode, "[confidentiality]"))
			return KMT_BPF_LOCKED_DOWN;
	}
	if (err == -ENOMEM || err == -E2BIG)
		return KMT_BPF_NO_MEMORY;
	return KMT_BPF_REJECTED;
}

/* the verifier's last words, the line that says why */
static const char *last_log_line(char *log, char *buf, size_t size)
{
	char *end, *start;

	if (!log || !*log)
		return NULL;
	end = log + strlen(log);
	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > log && start[-1] != '\n')
		start--;
	/* "processed N insns" closes a log; the reason is the line before */
	if (!strncmp(start, "processed ", 10) && start > log) {
		end = start - 1;
		start = end;
		while (start > log && start[-1] != '\n')
			start--;
	}
	snprintf(buf, size, "%.*s", (int)(end - start), start);
	return buf;
}

int kmt_bpf_open(struct kmt_bpf *b, const struct kmt_bpf_config *cfg)
{
	struct bpf_program *rare[KMT_TP_NR];
	struct kmt_skel *s;
	struct bpf_program *prog;
	struct btf *btf = NULL;
	int err, ctx, i;

	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	kmt_bpf_config_defaults(&b->cfg);
	cfg = &b->cfg;
	if (cfg->sample & (cfg->sample - 1))
		return fail(b, KMT_BPF_OTHER, -EINVAL,
			    "the sampling rate must be a power of two");
	if (geteuid() != 0)
		return fail(b, KMT_BPF_NOT_ROOT, -EPERM,
			    "loading BPF programs needs root (CAP_BPF and CAP_PERFMON)");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return fail(b, KMT_BPF_NO_BTF, -ENOENT,
			    "this kernel has no BTF (/sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF is off)");
	/* bpf(2) answers ENOSYS on a kernel built without it */
	if (syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS)
		return fail(b, KMT_BPF_DISABLED, -ENOSYS,
			    "this kernel has no BPF (CONFIG_BPF_SYSCALL is off)");

	libbpf_set_print(quiet_libbpf);
	b->nr_cpus = libbpf_num_possible_cpus();
	if (b->nr_cpus <= 0)
		return fail(b, KMT_BPF_OTHER, b->nr_cpus,
			    "cannot count the possible CPUs");
	s = kmt_skel__open();
	if (!s)
		return fail(b, KMT_BPF_OTHER, -errno,
			    "cannot open the BPF object: %s", strerror(errno));
	b->skel = s;
	b->log = malloc(LOG_SIZE);
	if (!b->log)
		return fail(b, KMT_BPF_NO_MEMORY, -ENOMEM, "out of memory");
	b->log[0] = 0;
	bpf_object__for_each_program(prog, s->obj)
		bpf_program__set_log_buf(prog, b->log, LOG_SIZE);

	s->rodata->count_sites = cfg->count_sites;
	s->rodata->track_live = cfg->track_live;
	s->rodata->take_stacks = cfg->track_live && cfg->take_stacks;
	s->rodata->free_context = cfg->track_live && cfg->free_context;
	s->rodata->sample_mask = cfg->sample - 1;
	s->rodata->filter_tgid = cfg->filter_tgid;
	s->rodata->self_tgid = cfg->self;
	s->rodata->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	if (cfg->comm) {
		s->rodata->filter_comm = 1;
		strncpy((char *)s->rodata->comm, cfg->comm,
			sizeof(s->rodata->comm) - 1);
	}
	bpf_map__set_max_entries(s->maps.sites,
				 cfg->count_sites ? cfg->sites_max : 1);
	bpf_map__set_max_entries(s->maps.site_cache,
				 cfg->count_sites ? KMT_SITE_CACHE : 1);
	bpf_map__set_max_entries(s->maps.comms,
				 cfg->count_sites ? cfg->comms_max : 1);
	bpf_map__set_max_entries(s->maps.caches,
				 cfg->count_sites ? cfg->caches_max : 1);
	bpf_map__set_max_entries(s->maps.live,
				 cfg->track_live ? cfg->live_max : 1);
	bpf_map__set_max_entries(s->maps.stack_agg,
				 cfg->track_live ? cfg->stack_agg_max : 1);
	bpf_map__set_max_entries(s->maps.stacks, stacks_entries(cfg));
	b->stacks_on = stacks_entries(cfg) > 1;
	s->rodata->cgroup_mode = (uint32_t)cfg->cgroup_mode;
	s->rodata->count_cgroups = cfg->cgroup_mode && cfg->count_sites &&
				   cfg->count_cgroups;
	bpf_map__set_max_entries(s->maps.cgroups,
				 s->rodata->count_cgroups ? cfg->cgroups_max : 1);
	/*
	 * The rare kinds' programs load only where their tracepoint is,
	 * and attach one by one (kmt_bpf_attach): one that fails is said,
	 * not fatal.
	 */
	rare[KMT_TP_PERCPU_ALLOC] = s->progs.kmt_percpu_alloc;
	rare[KMT_TP_PERCPU_FREE] = s->progs.kmt_percpu_free;
	rare[KMT_TP_PERCPU_FAIL] = s->progs.kmt_percpu_fail;
	rare[KMT_TP_VMALLOC_ALLOC] = s->progs.kmt_vmalloc_alloc;
	rare[KMT_TP_VMALLOC_FREE] = s->progs.kmt_vmalloc_free;
	if (!cfg->no_rare)
		btf = btf__load_vmlinux_btf();
	for (i = 0; i < KMT_TP_NR; i++) {
		b->rare_why[i] = cfg->no_rare ? "left out" :
				 rare_tp_why(btf, i);
		b->rare_on[i] = !b->rare_why[i];
		bpf_program__set_autoload(rare[i], b->rare_on[i]);
		bpf_program__set_autoattach(rare[i], 0);
	}
	btf__free(btf);
	bpf_program__set_autoload(s->progs.kmt_fork, cfg->follow_forks);
	bpf_program__set_autoload(s->progs.kmt_exec, cfg->count_sites);
	/*
	 * The frees' context is counted for followed objects only, and only
	 * where asked: four more programs, on every interrupt.
	 */
	ctx = cfg->track_live && cfg->free_context;
	bpf_program__set_autoload(s->progs.kmt_softirq_entry, ctx);
	bpf_program__set_autoload(s->progs.kmt_softirq_exit, ctx);
	bpf_program__set_autoload(s->progs.kmt_irq_entry, ctx);
	bpf_program__set_autoload(s->progs.kmt_irq_exit, ctx);

	err = kmt_skel__load(s);
	if (err) {
		char line[256];
		const char *why = last_log_line(b->log, line, sizeof(line));
		enum kmt_bpf_unavailable c = classify_load_error(err);

		if (c == KMT_BPF_LOCKED_DOWN)
			return fail(b, c, err,
				    "the kernel is locked down: it refuses BPF tracing programs (%s)",
				    strerror(-err));
		if (c == KMT_BPF_NO_MEMORY)
			return fail(b, c, err,
				    "the kernel cannot allocate the BPF maps (%s): try smaller sizes",
				    strerror(-err));
		return fail(b, c, err,
			    "the kernel rejected the BPF programs: %s",
			    why ? why : strerror(-err));
	}
	return 0;
}

int kmt_bpf_add_tgid(struct kmt_bpf *b, uint32_t tgid)
{
	uint8_t one = 1;

	if (bpf_map__update_elem(b->skel->maps.tgids, &tgid, sizeof(tgid),
				 &one, sizeof(one), BPF_ANY))
		return fail(b, KMT_BPF_OTHER, -errno,
			    "cannot follow process %u: %s", tgid,
			    strerror(errno));
	return 0;
}

int kmt_bpf_attach(struct kmt_bpf *b)
{
	struct kmt_skel *s = b->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} rare[KMT_TP_NR] = {
		{ s->progs.kmt_percpu_alloc, &s->links.kmt_percpu_alloc },
		{ s->progs.kmt_percpu_free, &s->links.kmt_percpu_free },
		{ s->progs.kmt_percpu_fail, &s->links.kmt_percpu_fail },
		{ s->progs.kmt_vmalloc_alloc, &s->links.kmt_vmalloc_alloc },
		{ s->progs.kmt_vmalloc_free, &s->links.kmt_vmalloc_free },
	};
	int err, i;

	/*
	 * The rare ones first, each alone: the skeleton's attach then
	 * leaves them be (a link is set, or autoattach is off)
	 */
	for (i = 0; i < KMT_TP_NR; i++) {
		struct bpf_link *l;

		if (!b->rare_on[i])
			continue;
		l = bpf_program__attach(rare[i].prog);
		if (libbpf_get_error(l)) {
			b->rare_on[i] = 0;
			b->rare_why[i] = "the kernel refused the attach";
			continue;
		}
		*rare[i].link = l;
	}
	err = kmt_skel__attach(s);
	if (err)
		return fail(b, classify_load_error(err), err,
			    "cannot attach to the kmem tracepoints: %s",
			    strerror(-err));
	return 0;
}

void kmt_bpf_detach(struct kmt_bpf *b)
{
	if (b->skel)
		kmt_skel__detach(b->skel);
}

void kmt_bpf_close(struct kmt_bpf *b)
{
	if (b->skel)
		kmt_skel__destroy(b->skel);
	b->skel = NULL;
	free(b->log);
	free(b->keys);
	free(b->vals);
	b->log = NULL;
	b->keys = b->vals = NULL;
}

static int grow(void **p, size_t *have, size_t need)
{
	void *n;

	if (*have >= need)
		return 0;
	n = realloc(*p, need);
	if (!n)
		return -ENOMEM;
	*p = n;
	*have = need;
	return 0;
}

int kmt_bpf_read_stats(struct kmt_bpf *b, uint64_t stats[KMT_S_NR],
		       uint64_t *missed)
{
	struct bpf_program *prog;
	uint64_t *v;
	uint32_t i;
	int c;

	if (grow(&b->vals, &b->vals_size, sizeof(uint64_t) * b->nr_cpus))
		return fail(b, KMT_BPF_NO_MEMORY, -ENOMEM, "out of memory");
	v = b->vals;
	for (i = 0; i < KMT_S_NR; i++) {
		stats[i] = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stats), &i, v))
			return fail(b, KMT_BPF_OTHER, -errno,
				    "cannot read the BPF counters: %s",
				    strerror(errno));
		for (c = 0; c < b->nr_cpus; c++)
			stats[i] += v[c];
	}
	*missed = 0;
	/* an event that came while its program ran on the CPU (an interrupt) */
	bpf_object__for_each_program(prog, b->skel->obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			*missed += info.recursion_misses;
	}
	return 0;
}

/*
 * One batch walk of a map: keys of ksize, values of vsize (per CPU for
 * per-CPU maps, each rounded to 8 bytes as the kernel copies them).
 */
typedef int (*walk_fn)(void *ctx, const void *key, const void *val);

static int walk(struct kmt_bpf *b, struct bpf_map *map, size_t ksize,
		size_t vsize, int percpu, walk_fn fn, void *ctx)
{
	size_t vstride = percpu ? ((vsize + 7) & ~(size_t)7) * b->nr_cpus : vsize;
	uint32_t count, batch = BATCH, i;
	uint64_t token = 0;
	int fd = bpf_map__fd(map), first = 1, done = 0, ret;
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);

	while (!done) {
		if (grow(&b->keys, &b->keys_size, (size_t)batch * ksize) ||
		    grow(&b->vals, &b->vals_size, (size_t)batch * vstride))
			return fail(b, KMT_BPF_NO_MEMORY, -ENOMEM,
				    "out of memory");
		count = batch;
		ret = bpf_map_lookup_batch(fd, first ? NULL : &token, &token,
					   b->keys, b->vals, &count, &opts);
		if (ret < 0 && errno == ENOSPC && count == 0) {
			/* one bucket holds more than a batch */
			batch *= 2;
			continue;
		}
		if (ret < 0 && errno != ENOENT)
			return fail(b, KMT_BPF_OTHER, -errno,
				    "cannot read BPF map '%s': %s",
				    bpf_map__name(map), strerror(errno));
		done = ret < 0;	/* ENOENT: the last batch */
		first = 0;
		for (i = 0; i < count; i++) {
			ret = fn(ctx, (char *)b->keys + i * ksize,
				 (char *)b->vals + i * vstride);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct site_walk {
	struct kmt_bpf *b;
	kmt_bpf_site_fn fn;
	void *ctx;
};

static int site_one(void *ctx, const void *key, const void *val)
{
	struct site_walk *w = ctx;
	const struct kmt_site_val *v = val;
	struct kmt_site_val sum = { 0, 0, 0 };
	int c;

	for (c = 0; c < w->b->nr_cpus; c++) {
		sum.count += v[c].count;
		sum.bytes_req += v[c].bytes_req;
		sum.bytes_alloc += v[c].bytes_alloc;
	}
	return w->fn(w->ctx, key, &sum);
}

int kmt_bpf_for_each_site(struct kmt_bpf *b, kmt_bpf_site_fn fn, void *ctx)
{
	struct site_walk w = { b, fn, ctx };

	if (!b->cfg.count_sites)
		return 0;
	return walk(b, b->skel->maps.sites, sizeof(struct kmt_site_key),
		    sizeof(struct kmt_site_val), 1, site_one, &w);
}

static int pending_one(void *ctx, const void *key, const void *val)
{
	struct site_walk *w = ctx;
	const struct kmt_site_slot *slot = val;
	int c, ret;

	(void)key;
	for (c = 0; c < w->b->nr_cpus; c++) {
		if (!slot[c].used || !slot[c].val.count)
			continue;
		ret = w->fn(w->ctx, &slot[c].key, &slot[c].val);
		if (ret)
			return ret;
	}
	return 0;
}

int kmt_bpf_for_each_pending_site(struct kmt_bpf *b, kmt_bpf_site_fn fn,
				  void *ctx)
{
	struct site_walk w = { b, fn, ctx };

	if (!b->cfg.count_sites)
		return 0;
	return walk(b, b->skel->maps.site_cache, sizeof(uint32_t),
		    sizeof(struct kmt_site_slot), 1, pending_one, &w);
}

struct live_walk {
	kmt_bpf_live_fn fn;
	void *ctx;
};

static int live_one(void *ctx, const void *key, const void *val)
{
	struct live_walk *w = ctx;

	return w->fn(w->ctx, *(const uint64_t *)key, val);
}

int kmt_bpf_for_each_live(struct kmt_bpf *b, kmt_bpf_live_fn fn, void *ctx)
{
	struct live_walk w = { fn, ctx };

	if (!b->cfg.track_live)
		return 0;
	return walk(b, b->skel->maps.live, sizeof(uint64_t),
		    sizeof(struct kmt_live_val), 0, live_one, &w);
}

struct agg_walk {
	kmt_bpf_agg_fn fn;
	void *ctx;
};

static int agg_one(void *ctx, const void *key, const void *val)
{
	struct agg_walk *w = ctx;

	return w->fn(w->ctx, key, val);
}

int kmt_bpf_for_each_stack_agg(struct kmt_bpf *b, kmt_bpf_agg_fn fn,
			       void *ctx)
{
	struct agg_walk w = { fn, ctx };

	if (!b->cfg.track_live)
		return 0;
	return walk(b, b->skel->maps.stack_agg, sizeof(struct kmt_stack_key),
		    sizeof(struct kmt_stack_val), 0, agg_one, &w);
}

struct cg_walk {
	struct kmt_bpf *b;
	kmt_bpf_cg_fn fn;
	void *ctx;
};

static int cg_one(void *ctx, const void *key, const void *val)
{
	struct cg_walk *w = ctx;
	const struct kmt_cg_val *v = val;
	struct kmt_cg_val sum = { 0, 0, 0 };
	int c;

	for (c = 0; c < w->b->nr_cpus; c++) {
		sum.count += v[c].count;
		sum.bytes += v[c].bytes;
		sum.accounted += v[c].accounted;
	}
	return w->fn(w->ctx, key, &sum);
}

int kmt_bpf_for_each_cgroup(struct kmt_bpf *b, kmt_bpf_cg_fn fn, void *ctx)
{
	struct cg_walk w = { b, fn, ctx };

	if (!b->skel->rodata->count_cgroups)
		return 0;
	return walk(b, b->skel->maps.cgroups, sizeof(struct kmt_cg_key),
		    sizeof(struct kmt_cg_val), 1, cg_one, &w);
}

int kmt_bpf_delete_site(struct kmt_bpf *b, const struct kmt_site_key *k)
{
	if (bpf_map_delete_elem(bpf_map__fd(b->skel->maps.sites), k))
		return -errno;
	return 0;
}

int kmt_bpf_delete_comm(struct kmt_bpf *b, uint32_t tgid)
{
	if (bpf_map_delete_elem(bpf_map__fd(b->skel->maps.comms), &tgid))
		return -errno;
	return 0;
}

int kmt_bpf_delete_stack_agg(struct kmt_bpf *b, const struct kmt_stack_key *k)
{
	if (bpf_map_delete_elem(bpf_map__fd(b->skel->maps.stack_agg), k))
		return -errno;
	return 0;
}

int kmt_bpf_delete_stack(struct kmt_bpf *b, int64_t stack_id)
{
	if (stack_id <= 0)
		return -ENOENT;
	if (bpf_map_delete_elem(bpf_map__fd(b->skel->maps.stacks), &stack_id))
		return -errno;
	return 0;
}

size_t kmt_bpf_stack(struct kmt_bpf *b, int64_t stack_id, uint64_t *ips)
{
	struct kmt_stack_frames f;
	size_t n;

	if (stack_id <= 0 || !b->stacks_on)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stacks), &stack_id,
				&f))
		return 0;
	n = f.nr < KMT_STACK_DEPTH ? f.nr : KMT_STACK_DEPTH;
	memcpy(ips, f.ips, n * sizeof(*ips));
	return n;
}

int kmt_bpf_comm(struct kmt_bpf *b, uint32_t tgid, char *buf, size_t size)
{
	char name[16];

	if (!b->cfg.count_sites ||
	    bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.comms), &tgid, name))
		return -ENOENT;
	snprintf(buf, size, "%.*s", (int)sizeof(name), name);
	return 0;
}

int kmt_bpf_cache_name(struct kmt_bpf *b, uint64_t cache, char *buf,
		       size_t size)
{
	char name[32];

	if (!b->cfg.count_sites ||
	    bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.caches), &cache, name))
		return -ENOENT;
	snprintf(buf, size, "%.*s", (int)sizeof(name), name);
	return 0;
}
