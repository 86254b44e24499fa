/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_CGROUPS_H
#define KMT_EVENT_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"
#include "util/strtab.h"

/*
 * Which memory cgroup each task was in, and from when: kmemtrace
 * record's task-to-cgroup map (source/tracedat-format.h has its text).
 * A task has one entry per cgroup it was in, in time order; the first
 * from time 0 when it was there before the recording began.  A
 * recording without a map (perf.data, text, other trace.dat files) has
 * none: the cgroup of every task is "not recorded", never "/".
 */
/*
 * The map's text, as kmemtrace record stores it in its trace.dat option
 * (source/tracedat-format.h, KMT_TD_OPT_CGROUPS): the magic line, the
 * hierarchy line ("hierarchy v1 memory" or "hierarchy v2": where the
 * memory controller was), then "pid from path" lines, from the trace
 * clock's ns (0: since before the recording began), path the rest of
 * the line as /proc/PID/cgroup names it ("/", "/system.slice/x").
 */
#define KMT_CGMAP_MAGIC		"kmemtrace cgroups\n"
#define KMT_CGMAP_HIERARCHY	"hierarchy "

struct kmt_cg_entry {
	uint64_t from;		/* trace clock ns; 0: since before the start */
	int32_t pid;
	uint32_t path;		/* interned in the session's strings */
};

struct kmt_cgmap {
	int recorded;		/* the recording holds a map (it may be empty) */
	char hierarchy[32];	/* "v1 memory", "v2", as the recording says */
	struct kmt_cg_entry *e;	/* by pid, then time */
	size_t nr, alloc;
	struct kmt_hash_u32 first;	/* pid -> index of its first entry */
	/*
	 * A map that could not be read: why and where, for the report to
	 * say; recorded is then 0 (part of a map would put tasks in the
	 * wrong cgroup).
	 */
	char damaged[256];
};

void kmt_cgmap_init(struct kmt_cgmap *m);
void kmt_cgmap_free(struct kmt_cgmap *m);

/*
 * Reads the map's text, len bytes (a NUL ends it early), its magic line
 * first, path names into strs.  0; -ENOMEM; -EINVAL for text that is not
 * a map, with *bad_at the offset in text of the line at fault and why
 * in why: the map is then dropped whole.
 */
int kmt_cgmap_parse(struct kmt_cgmap *m, struct kmt_strtab *strs,
		    const char *text, size_t len, size_t *bad_at, char *why,
		    size_t why_len);

/*
 * The entry of pid at time ts, or -1 when the map does not know the
 * task then; *until (may be NULL) is when that entry stops holding,
 * UINT64_MAX for never.
 */
long kmt_cgmap_find(const struct kmt_cgmap *m, int32_t pid, uint64_t ts,
		    uint64_t *until);

/* the cgroup path of pid at ts, or NULL: not recorded */
const char *kmt_cgmap_path(const struct kmt_cgmap *m,
			   const struct kmt_strtab *strs, int32_t pid,
			   uint64_t ts);

#endif
