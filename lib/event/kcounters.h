/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_KCOUNTERS_H
#define KMT_EVENT_KCOUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

/*
 * The kernel's own memory counters, as kmemtrace record reads them at the
 * start and at the end of a recording: /proc/slabinfo (active objects
 * per cache), /proc/vmallocinfo (areas and bytes, in all and per
 * caller) and the slab, percpu and vmalloc lines of /proc/meminfo.  A
 * report sets what the tracepoints saw beside them.
 *
 * The parsers read the kernel's texts; the same slabinfo and meminfo
 * parsers read them back from the recording, whose counters option
 * (KMT_TD_OPT_COUNTERS) keeps slabinfo and meminfo's lines as the
 * kernel wrote them and vmallocinfo summed per caller:
 *
 *	kmemtrace counters
 *	@start slabinfo
 *	slabinfo - version: 2.1
 *	dentry 81459 81459 192 21 1 : tunables 0 0 0 : slabdata 3879 3879 0
 *	@start slabsys
 *	dentry 120 aliasA aliasB	(name, cpu_partial, merged names)
 *	@start meminfo
 *	Slab:  128820 kB
 *	@start vmalloc
 *	4 20480 kernel_clone		(areas, bytes, caller)
 *	@start missing slabinfo Permission denied
 *	@end slabinfo
 *	...
 */

#define KMT_KCOUNTERS_MAGIC "kmemtrace counters\n"

enum kmt_kcounters_when { KMT_CNT_START, KMT_CNT_END, KMT_CNT_NR };

/* what a snapshot holds (bits of have) */
enum kmt_kcounters_part {
	KMT_CNT_SLABINFO = 1 << 0,
	KMT_CNT_MEMINFO	 = 1 << 1,
	KMT_CNT_VMALLOC	 = 1 << 2,
};

/* the lines of /proc/meminfo kept, in kB */
enum kmt_meminfo_line {
	KMT_MEM_SLAB,
	KMT_MEM_SRECLAIMABLE,
	KMT_MEM_SUNRECLAIM,
	KMT_MEM_PERCPU,
	KMT_MEM_VMALLOC_USED,
	KMT_MEM_NR
};

/* "Slab", "SReclaimable", ...: meminfo's name of line i */
const char *kmt_meminfo_name(enum kmt_meminfo_line i);

struct kmt_slab_count {
	const char *name;
	uint64_t active_objs, num_objs, objsize, objperslab, pagesperslab;
	uint64_t active_slabs, num_slabs;
	/* from /sys/kernel/slab/<name>: -1 where not read */
	int64_t cpu_partial;
	const char *aliases;	/* caches merged into it, " "-separated, or NULL */
	unsigned int nr_aliases;
};

struct kmt_vmalloc_caller {
	const char *caller;	/* the function, without +off/size */
	uint64_t areas, bytes;
};

struct kmt_kcounters_snap {
	unsigned int have;		/* enum kmt_kcounters_part */
	/* why a part is missing ("Permission denied"), or NULL */
	const char *why_slabinfo, *why_meminfo, *why_vmalloc;
	struct kmt_slab_count *slabs;	/* in the order slabinfo lists them */
	size_t nr_slabs, alloc_slabs;
	struct kmt_vmalloc_caller *vm;	/* sorted by caller */
	size_t nr_vm, alloc_vm;
	uint64_t vm_areas, vm_bytes;
	uint64_t meminfo_kb[KMT_MEM_NR];
	unsigned int meminfo_have;	/* bit i: line i was there */
};

struct kmt_kcounters {
	struct kmt_arena arena;		/* names */
	struct kmt_kcounters_snap at[KMT_CNT_NR];
};

void kmt_kcounters_init(struct kmt_kcounters *c);
void kmt_kcounters_free(struct kmt_kcounters *c);

/*
 * The kernel's texts into snap (len bytes; a NUL ends them too).  0, or
 * -EINVAL with "line N: what is wrong" in err, or -ENOMEM; what was read
 * before a damaged line is kept but the part is not marked had.
 */
int kmt_kcounters_parse_slabinfo(struct kmt_kcounters *c,
				struct kmt_kcounters_snap *snap,
				const char *text, size_t len,
				char *err, size_t errlen);
int kmt_kcounters_parse_meminfo(struct kmt_kcounters_snap *snap,
			       const char *text, size_t len,
			       char *err, size_t errlen);
int kmt_kcounters_parse_vmallocinfo(struct kmt_kcounters *c,
				   struct kmt_kcounters_snap *snap,
				   const char *text, size_t len,
				   char *err, size_t errlen);

/*
 * The counters option's text (KMT_KCOUNTERS_MAGIC first) into c: 0, or
 * -EINVAL with "line N: ..." (of the option) in err, c then to be freed
 * and forgotten, or -ENOMEM.
 */
int kmt_kcounters_parse_option(struct kmt_kcounters *c, const char *text,
			      size_t len, char *err, size_t errlen);

/* the cache called name in snap, or NULL */
const struct kmt_slab_count *kmt_kcounters_slab(const struct kmt_kcounters_snap *snap,
					       const char *name);

/* a cache's active objects at both ends, slabinfo's */
struct kmt_slab_change {
	uint64_t start, end;
	/*
	 * How many objects SLUB's per-CPU slabs and partial slabs may hold
	 * free while slabinfo counts them active, for the recording's CPUs
	 * (the larger end's): a change within it is the allocator's caching
	 */
	uint64_t slack;
};

/*
 * Cache name's active objects at the start and the end: 1, or 0 when a
 * snapshot lacks slabinfo or neither lists the cache (one that does not
 * list it counts 0: made or destroyed during the recording).  A
 * kmalloc-N name also sums the kernel's random copies of it
 * (kmalloc-rnd-NN-N, CONFIG_RANDOM_KMALLOC_CACHES), whose events look
 * the same.  nr_cpus 0: taken as 1.
 */
int kmt_kcounters_slab_change(const struct kmt_kcounters *c, const char *name,
			      int nr_cpus, struct kmt_slab_change *out);

/* both snapshots hold part (enum kmt_kcounters_part) */
static inline int kmt_kcounters_have(const struct kmt_kcounters *c,
				     unsigned int part)
{
	return c && (c->at[KMT_CNT_START].have & c->at[KMT_CNT_END].have &
		     part) == part;
}

#endif
