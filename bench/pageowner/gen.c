// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a synthetic /sys/kernel/debug/page_owner dump shaped like one of
 * a busy machine: a few thousand allocation sites (stacks of up to 16
 * frames, the kernel's depth) drawn with a skewed popularity, a few
 * hundred tasks (names with blanks and parentheses included), memcg and
 * migrate-reason lines on a share of the records, monotonic PFNs and
 * timestamps.
 *
 *   gen [-s MB | -r RECORDS] [-S SEED] [-f current|6.1] [-o FILE]
 *
 * -f current: the text of 6.8+ kernels (PFN in hex, no free_ts)
 * -f 6.1:     5.19 to 6.7 (PFN in decimal, free_ts)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

enum { SLAB, VMALLOC, PAGECACHE, ANON, PGTABLE, OTHER, NR_KINDS };

static const char *const inner[] = {
	"post_alloc_hook+0x1c1/0x200",
	"get_page_from_freelist+0x6f2/0x1a70",
	"__alloc_pages_noprof+0x183/0x340",
	"alloc_pages_mpol_noprof+0x91/0x1f0",
};

static const char *const kind_frames[NR_KINDS][4] = {
	[SLAB] = { "allocate_slab+0x2a7/0x3c0", "___slab_alloc+0x558/0xa70", NULL },
	[VMALLOC] = { "__alloc_pages_bulk_noprof+0x2ff/0x6a0",
		      "alloc_pages_bulk_array_mempolicy_noprof+0x86/0x270",
		      "__vmalloc_node_range_noprof+0x4c3/0x8a0", NULL },
	[PAGECACHE] = { "folio_alloc_noprof+0x1c/0x60",
			"filemap_alloc_folio_noprof+0xd1/0x100", NULL },
	[ANON] = { "vma_alloc_folio_noprof+0x64/0xe0", NULL },
	[PGTABLE] = { "pte_alloc_one+0x1c/0xd0", "__pte_alloc+0x2a/0x160", NULL },
	[OTHER] = { NULL },
};

static const char *const slab_entry[] = {
	"kmem_cache_alloc_noprof+0x2ae/0x320",
	"__kmalloc_noprof+0x2bb/0x390",
	"kmem_cache_alloc_lru_noprof+0x2d1/0x340",
	"__kmalloc_node_track_caller_noprof+0x23c/0x3a0",
	"kmem_cache_alloc_node_noprof+0x1e5/0x330",
};

static const char *const pc_entry[] = {
	"page_cache_ra_unbounded+0x98/0x180",
	"page_cache_ra_order+0x2c4/0x360",
	"__filemap_get_folio+0x14f/0x300",
	"filemap_fault+0x5d3/0xb70",
};

static const char *const anon_entry[] = {
	"alloc_anon_folio+0x1d5/0x300",
	"do_anonymous_page+0x76/0x3d0",
	"wp_page_copy+0x8a/0x6c0",
	"do_huge_pmd_anonymous_page+0xb7/0x640",
	"do_swap_page+0x1c6/0xd30",
};

static const char *const fault_tail[] = {
	"__handle_mm_fault+0xb5c/0xc80", "handle_mm_fault+0x18c/0x380",
	"do_user_addr_fault+0x164/0x680", "exc_page_fault+0x7e/0x180",
	"asm_exc_page_fault+0x26/0x30",
};

static const char *const syscall_tail[] = {
	"do_syscall_64+0x5d/0xe0", "entry_SYSCALL_64_after_hwframe+0x6e/0x76",
};

static const char *const kthread_tail[] = {
	"process_one_work+0x174/0x340", "worker_thread+0x27b/0x3a0",
	"kthread+0xe8/0x120", "ret_from_fork+0x34/0x50",
	"ret_from_fork_asm+0x1a/0x30",
};

static const char *const subsys[] = {
	"ext4", "xfs", "btrfs", "tcp", "udp", "sock", "skb", "kernfs", "proc",
	"sysfs", "net", "nf_conntrack", "bpf", "drm", "i915", "amdgpu", "nvme",
	"blk_mq", "bio", "dm", "md", "fuse", "nfs", "cifs", "inet", "netlink",
	"vfs", "dentry", "inode", "seq", "pipe", "epoll", "io_uring", "perf",
	"kvm", "vhost", "virtio", "usb", "hid", "snd", "sched", "cgroup",
};

static const char *const verbs[] = {
	"alloc", "create", "init", "new", "get", "open", "read", "write",
	"send", "recv", "setup", "add", "insert", "lookup", "map", "submit",
	"queue", "fill", "grow", "clone", "copy", "load", "attach", "start",
};

static const char *const objects[] = {
	"buf", "inode", "request", "entry", "node", "table", "ctx", "page",
	"folio", "frag", "msg", "skb", "work", "map", "prog", "file", "block",
	"extent", "sgl", "ring", "vma", "mm", "task", "cred", "key",
};

static const char *const modules[] = {
	"", "", "", "", " [xfs]", " [btrfs]", " [i915]", " [nvme]", " [kvm]",
	" [nf_conntrack]", " [drm]", " [snd_hda_core]",
};

/* kernel threads and user tasks; names as comm has them (15 chars max) */
static const char *const kcomms[] = {
	"kworker/0:1", "kworker/u8:2", "kworker/1:0H", "kswapd0",
	"kcompactd0", "ksoftirqd/0", "jbd2/nvme0n1p2-", "kthreadd",
	"swapper/0", "rcu_preempt", "khugepaged", "irq/123-nvme0q1",
};

static const char *const ucomms[] = {
	"systemd", "systemd-journal", "(sd-pam)", "Web Content",
	"Isolated Web Co", "firefox", "gnome-shell", "Xwayland", "bash",
	"sshd", "postgres", "java", "C2 CompilerThre", "python3",
	"tmux: server", "cc1 (x)", "chrome", "node", "dockerd", "containerd",
	"nginx", "redis-server", "mysqld", "(udev-worker)", "gmain",
	"pool-0", "GC Thread#0", "rsyslogd", "cron", "make",
};

static const char *const memcgs[] = {
	"session-2.scope", "init.scope", "user@1000.service",
	"docker-3f2a1c.scope", "system.slice", "postgresql.service",
	"nginx.service", "user.slice",
};

static const char *const reasons[] = {
	"compaction", "numa_misplaced", "memory_failure", "syscall_or_cpuset",
	"longterm_pin", "demotion",
};

#define MAX_FRAMES 16
#define NR_SITES 4000
#define NR_TASKS 600

struct site {
	int kind;
	unsigned int order;
	const char *gfp;
	unsigned int mask;
	int user;
	int nr;
	char *frames[MAX_FRAMES];
};

struct task {
	int pid, tgid;
	const char *comm;
};

static struct site sites[NR_SITES];
static struct task tasks[NR_TASKS];
static double cumulative[NR_SITES];

static char *frame_name(void)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s_%s_%s+0x%x/0x%x%s", subsys[below(42)],
		 verbs[below(24)], objects[below(25)], 0x10 + below(0x400),
		 0x400 + below(0x800), modules[below(12)]);
	return strdup(buf);
}

static void add(struct site *s, const char *f)
{
	if (s->nr < MAX_FRAMES)
		s->frames[s->nr++] = strdup(f);
}

static void make_site(struct site *s)
{
	static const int weights[NR_KINDS] = { 30, 6, 24, 26, 6, 8 };
	int i, w = (int)below(100), k;

	for (k = 0; k < NR_KINDS - 1 && w >= weights[k]; k++)
		w -= weights[k];
	s->kind = k;
	s->nr = 0;
	for (i = 0; i < 4; i++)
		add(s, inner[i]);
	for (i = 0; kind_frames[k][i]; i++)
		add(s, kind_frames[k][i]);
	s->user = 0;
	s->order = 0;
	switch (k) {
	case SLAB:
		add(s, slab_entry[below(5)]);
		s->order = below(4) ? below(4) : 0;
		s->gfp = "GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP|__GFP_NOMEMALLOC";
		s->mask = 0xd2cc0;
		break;
	case VMALLOC:
		s->order = below(3) ? 0 : 2;
		s->gfp = "GFP_KERNEL_ACCOUNT|__GFP_ZERO";
		s->mask = 0x400dc0;
		break;
	case PAGECACHE:
		add(s, pc_entry[below(4)]);
		s->user = below(2);
		s->order = below(5) ? 0 : 2 + below(3);
		s->gfp = "GFP_HIGHUSER_MOVABLE|__GFP_COMP";
		s->mask = 0x140cca;
		break;
	case ANON:
		add(s, anon_entry[below(5)]);
		s->user = 1;
		s->order = below(10) ? 0 : 9;
		s->gfp = "GFP_HIGHUSER_MOVABLE|__GFP_COMP";
		s->mask = 0x140cca;
		break;
	case PGTABLE:
		add(s, "do_anonymous_page+0x2d5/0x3d0");
		s->user = 1;
		s->gfp = "GFP_KERNEL_ACCOUNT|__GFP_ZERO";
		s->mask = 0x400dc0;
		break;
	default:
		s->gfp = "GFP_KERNEL";
		s->mask = 0xcc0;
		break;
	}
	/* the callers that make each site distinct */
	for (i = 1 + (int)below(5); i > 0 && s->nr < MAX_FRAMES - 2; i--)
		s->frames[s->nr++] = frame_name();
	if (s->user && (k == ANON || k == PGTABLE || below(2))) {
		for (i = 0; i < 5; i++)
			add(s, fault_tail[i]);
	} else if (s->user || below(2)) {
		for (i = 0; i < 2; i++)
			add(s, syscall_tail[i]);
	} else {
		for (i = 0; i < 5; i++)
			add(s, kthread_tail[i]);
	}
}

int main(int argc, char **argv)
{
	const char *format = "current", *outpath = NULL;
	unsigned long long target = 64ULL << 20, nrec = 0, n;
	unsigned long long ts = 1000000000ULL, pfn = 0x100000;
	double total = 0;
	FILE *out;
	int opt, i, hex;
	char *obuf;

	while ((opt = getopt(argc, argv, "s:r:S:f:o:")) != -1) {
		switch (opt) {
		case 's':
			target = strtoull(optarg, NULL, 10) << 20;
			break;
		case 'r':
			nrec = strtoull(optarg, NULL, 10);
			break;
		case 'S':
			rng_state ^= strtoull(optarg, NULL, 10) * 0x9e3779b97f4a7c15ULL;
			break;
		case 'f':
			format = optarg;
			break;
		case 'o':
			outpath = optarg;
			break;
		default:
			fprintf(stderr, "usage: gen [-s MB | -r RECORDS] [-S SEED] [-f current|6.1] [-o FILE]\n");
			return 2;
		}
	}
	if (strcmp(format, "current") && strcmp(format, "6.1")) {
		fprintf(stderr, "gen: unknown format '%s'\n", format);
		return 2;
	}
	hex = !strcmp(format, "current");
	out = outpath ? fopen(outpath, "w") : stdout;
	if (!out) {
		perror(outpath);
		return 1;
	}
	obuf = malloc(1 << 22);
	if (obuf)
		setvbuf(out, obuf, _IOFBF, 1 << 22);

	for (i = 0; i < NR_SITES; i++) {
		make_site(&sites[i]);
		/* a skewed popularity: few sites hold most pages */
		total += 1.0 / (1.0 + i * 0.35);
		cumulative[i] = total;
	}
	for (i = 0; i < NR_TASKS; i++) {
		int user = i >= 60;

		tasks[i].tgid = 100 + i * 7;
		tasks[i].pid = tasks[i].tgid + (user && below(3) == 0 ? 1 + (int)below(5) : 0);
		tasks[i].comm = user ? ucomms[below(30)] : kcomms[below(12)];
	}

	/* a pipe has no position: then about 900 bytes a record */
	if (!nrec && ftell(out) < 0)
		nrec = target / 900 + 1;
	for (n = 0; nrec ? n < nrec : (unsigned long long)ftell(out) < target; n++) {
		double x = (double)(rnd() >> 11) / 9007199254740992.0 * total;
		int lo = 0, hi = NR_SITES - 1, f;
		const struct site *s;
		const struct task *t;
		const char *mt, *bmt;

		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (cumulative[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		s = &sites[lo];
		t = s->user ? &tasks[60 + below(NR_TASKS - 60)] : &tasks[below(60)];
		ts += 1 + below(200000);
		pfn += (1ULL << s->order) * (1 + (below(8) == 0 ? below(64) : 0));
		pfn &= ~((1ULL << s->order) - 1);
		mt = s->mask & 0x8 ? "Movable" : "Unmovable";
		bmt = below(50) ? mt : (below(2) ? "CMA" : "Reclaimable");

		fprintf(out, "Page allocated via order %u, mask %#x(%s), pid %d, tgid %d (%s), ts %llu ns",
			s->order, s->mask, s->gfp, t->pid, t->tgid, t->comm, ts);
		if (hex) {
			fputs("\n", out);
			fprintf(out, "PFN 0x%llx", pfn);
		} else {
			fprintf(out, ", free_ts %llu ns\nPFN %llu",
				below(3) ? ts - below(1000000000) : 0ULL, pfn);
		}
		fprintf(out, " type %s Block %llu type %s Flags 0x%llx(%s%snode=0|zone=%d|lastcpupid=0x1fffff)\n",
			mt, pfn >> 9, bmt, 0x17ffffc0000000ULL | below(0x1000),
			s->kind == SLAB && !hex ? "slab|" : "",
			s->order ? "head|" : "", s->mask & 0x8 ? 2 : 1);
		for (f = 0; f < s->nr; f++) {
			fputc(' ', out);
			fputs(s->frames[f], out);
			fputc('\n', out);
		}
		if (below(40) == 0)
			fprintf(out, "Page has been migrated, last migrate reason: %s\n",
				reasons[below(6)]);
		if (s->user || (s->kind == SLAB && below(3) == 0)) {
			if (s->kind == SLAB)
				fputs("Slab cache page\n", out);
			fprintf(out, "Charged %sto %smemcg %s\n",
				s->user ? "" : "(via objcg) ",
				below(30) ? "" : "offline ", memcgs[below(8)]);
		}
		fputc('\n', out);
	}
	if (fclose(out)) {
		perror("gen");
		return 1;
	}
	return 0;
}
