/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_SESSION_H
#define KMT_EVENT_SESSION_H

#include <stdint.h>

#include "event/cgroups.h"
#include "event/event.h"
#include "event/gfp.h"
#include "event/stacks.h"
#include "event/symbols.h"
#include "util/hash.h"
#include "util/strtab.h"

#define KMT_MAX_CPUS 4096

/* a consumer of events (the analyses, or a test) */
typedef int (*kmt_event_fn)(void *ctx, const struct kmt_event *ev);

struct kmt_session;
/* a reader's comment on the recording, for `check`: kind of anomaly */
enum kmt_anomaly {
	KMT_ANOM_OUT_OF_ORDER,	/* a CPU's events went back in time */
	KMT_ANOM_UNKNOWN_ID,	/* an event id without a format */
	KMT_ANOM_BAD_RECORD,	/* a record that could not be decoded */
	KMT_ANOM_NR
};

#define KMT_TIME_REL_START	1
#define KMT_TIME_REL_END	2

/*
 * Where a record that could not be read sits in its input, so that a
 * report can say so ("line 12: no bytes_req", "byte 81920: ...").
 */
enum kmt_where {
	KMT_AT_NOWHERE,
	KMT_AT_LINE,		/* a line number, from 1 */
	KMT_AT_BYTE,		/* a byte offset in the file */
};

struct kmt_anomaly_note {
	enum kmt_anomaly kind;
	enum kmt_where unit;
	uint64_t where;
	char why[96];
};

/* the first anomalies of a recording are kept with where and why */
#define KMT_ANOMALY_NOTES 5

/*
 * Everything known about one recording while it is read: names, symbols,
 * stacks, processes, counts.  Readers fill it and emit events through it;
 * analyses look names up in it.  No file-scope state anywhere: two
 * sessions in one process are independent.
 */
struct tep_handle;

struct kmt_session {
	/*
	 * The recording's parsed formats when a reader used libtraceevent;
	 * kept (one reference, dropped by kmt_session_free) so symbol
	 * lookups can use its kallsyms after the reader is done.
	 */
	struct tep_handle *tep;
	struct kmt_strtab strs;		/* cache names, comms, gfp text, symbols */
	struct kmt_symtab syms;
	struct kmt_stacks stacks;
	struct kmt_gfp gfp;
	struct kmt_hash_u32 comms;	/* pid -> comm id */
	struct kmt_hash_i32 tgids;	/* pid -> tgid */
	/*
	 * pid -> memory cgroup over time (kmemtrace record's map): ask
	 * kmt_session_cgroup; cgroups.recorded 0 says not recorded
	 */
	struct kmt_cgmap cgroups;

	/* what was read */
	const char *input;		/* file name as the user gave it */
	const char *format;		/* "perf.data", "trace.dat v7", ... */
	char kernel_release[64];	/* uname -r of the traced machine, "" unknown */
	char hostname[64];		/* uname -n of the traced machine, "" unknown */
	/*
	 * The tool that wrote the recording, as the recording names it
	 * ("kmemtrace 0.1", "trace-cmd ..."), "" unknown: what it may have
	 * left out depends on it.
	 */
	char recorder[64];
	/* which boot of the traced machine (kmemtrace record's), "" unknown */
	char boot_id[40];
	/*
	 * When the recording says how its clock maps to the wall clock
	 * (kmemtrace record's trace.dat, perf.data of perf record -k):
	 * CLOCK_REALTIME ns = event ts + wall_offset_ns.
	 */
	int has_wall;
	int64_t wall_offset_ns;
	int nr_cpus;			/* as the recording says, 0 unknown */
	uint32_t page_size;		/* of the traced machine; 4096 unless told */
	/*
	 * NUMA node of each CPU where the recording says (perf.data's
	 * topology, kmemtrace record's nodes option): has_cpu_node, and
	 * cpu_node[cpu] the node or -1 for a CPU no node lists (as for
	 * CPUs past nr_cpu_node).  Without it no figure may guess node 0.
	 */
	int16_t *cpu_node;
	int nr_cpu_node;
	int has_cpu_node;
	int has_stacks;			/* the recording carries call chains */
	/*
	 * The kernel's own counters at the start and the end (kmemtrace
	 * record's counters option, event/kcounters.h), or NULL; and why a
	 * recording's could not be used, naming the file and the byte, or
	 * "" (the report says it as a warning).
	 */
	struct kmt_kcounters *kcounters;
	char kcounters_damaged[320];
	uint64_t nr_events[KMT_EV_NR];	/* kmem events read, by type */
	/*
	 * The event types the recording could hold (KMT_EV_BIT), when it
	 * says (types_known): those whose format it carries, as perf and
	 * trace-cmd record the formats of the events they enable.  A type
	 * missing there was not recorded; one there with no event was
	 * recorded and did not happen.  Text says nothing of what was
	 * enabled: types_known 0, and only the types seen are known.
	 */
	uint32_t recorded_types;
	int types_known;
	uint64_t nr_other;		/* events of other subsystems, skipped */
	/*
	 * Event formats of the recording that could not be used safely
	 * (fmtcheck.h): each costs its own event, whose records are counted
	 * here, never the file.
	 */
	struct kmt_unusable_format *unusable;
	size_t nr_unusable, alloc_unusable;
	uint64_t nr_lost;		/* events the kernel or perf dropped */
	uint64_t nr_lost_records;	/* LOST records / missed-event flags seen */
	uint64_t anomalies[KMT_ANOM_NR];
	struct kmt_anomaly_note notes[KMT_ANOMALY_NOTES];
	unsigned int nr_notes;		/* kept, at most KMT_ANOMALY_NOTES */
	uint64_t first_ts, last_ts;	/* of all kmem events read */
	uint64_t nr_emitted;		/* passed to the consumer */

	/* what to pass on */
	uint64_t time_start, time_end;	/* --time window, absolute ns; 0 open */
	/*
	 * Sides of the window given relative to the first event (--time
	 * +1.5,+3): time_start and time_end hold offsets until that event
	 * is read, which anchors them.
	 */
	unsigned int time_relative;	/* KMT_TIME_REL_START | _END */
	/*
	 * No consumer reads a slab event's stack (only the views do): a
	 * reader may leave it out, sparing a call chain's interning for
	 * most events.
	 */
	int no_slab_stacks;
	/*
	 * Nor a slab cache's name (the views again): a reader may leave
	 * ev->cache 0 and spare interning a name for every kmem_cache
	 * event.
	 */
	int no_cache_names;
	kmt_event_fn consumer;
	void *consumer_ctx;

	char errmsg[512];
};

struct kmt_unusable_format {
	int id;				/* its event id, -1 where it has none */
	char name[80];			/* "system/name" */
	char why[96];
	uint64_t records;
};

int kmt_session_init(struct kmt_session *s);
void kmt_session_free(struct kmt_session *s);

/* formats the error readers and analyses return with; returns -err */
int kmt_session_error(struct kmt_session *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Readers call this for each record they cannot read or trust: counts it
 * under kind and keeps where and why of the first KMT_ANOMALY_NOTES.
 */
void kmt_session_anomaly(struct kmt_session *s, enum kmt_anomaly kind,
			 enum kmt_where unit, uint64_t where,
			 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Readers call this for an event format they leave out as unusable
 * (fmtcheck.h); text is the format, for its name and id.  0, -ENOMEM,
 * or for a kmem event's, -EINVAL with the message: a report needs those.
 */
int kmt_session_unusable_format(struct kmt_session *s, const char *input,
				const char *system, const char *text,
				size_t len, const char *why);
/* counts a record of event id when its format was left out: 1, else 0 */
int kmt_session_unusable_record(struct kmt_session *s, int id);

/* records that could not be read at all (bad records, unknown ids) */
static inline uint64_t kmt_session_unreadable(const struct kmt_session *s)
{
	return s->anomalies[KMT_ANOM_BAD_RECORD] +
	       s->anomalies[KMT_ANOM_UNKNOWN_ID];
}

/*
 * Readers call this for every kmem event, in time order.  It counts the
 * event, applies the time window and hands it to the consumer.  A
 * non-zero return from the consumer is passed back and ends the read.
 */
int kmt_session_emit(struct kmt_session *s, const struct kmt_event *ev);


int kmt_session_set_comm(struct kmt_session *s, int32_t pid,
			 const char *comm, size_t len);
/* the comm of pid, or NULL */
const char *kmt_session_comm(const struct kmt_session *s, int32_t pid);
int kmt_session_set_tgid(struct kmt_session *s, int32_t pid, int32_t tgid);

/*
 * The memory cgroup pid was in at ts, or NULL when the recording does
 * not say (no map, or a task it does not know then)
 */
static inline const char *kmt_session_cgroup(const struct kmt_session *s,
					     int32_t pid, uint64_t ts)
{
	return kmt_cgmap_path(&s->cgroups, &s->strs, pid, ts);
}

/* the types recorded (types_known) or, when not known, seen */
static inline uint32_t kmt_session_types(const struct kmt_session *s)
{
	uint32_t seen = 0;
	int i;

	if (s->types_known)
		return s->recorded_types;
	for (i = 1; i < KMT_EV_NR; i++) {
		if (s->nr_events[i])
			seen |= 1U << i;
	}
	return seen;
}

static inline uint64_t kmt_session_total_events(const struct kmt_session *s)
{
	uint64_t n = 0;
	int i;

	for (i = 1; i < KMT_EV_NR; i++)
		n += s->nr_events[i];
	return n;
}

/*
 * 1, *ns the first event on the wall clock (CLOCK_REALTIME), when the
 * recording maps its clock to it; 0 with no event, or for a damaged
 * mapping (before the epoch, past 64 bits).  Report and check say it.
 */
int kmt_session_wall_start(const struct kmt_session *s, uint64_t *ns);

/*
 * Migratetype names as the traced kernel numbers them: since 4.4
 * UNMOVABLE, MOVABLE, RECLAIMABLE, HIGHATOMIC; before it UNMOVABLE,
 * RECLAIMABLE, MOVABLE, RESERVE.  Then CMA and ISOLATE, each there by
 * config: 4 is "CMA/ISOLATE" (CMA with CONFIG_CMA, else ISOLATE), 5
 * "ISOLATE".  NULL for an unknown number.
 */
const char *kmt_session_migratetype_name(const struct kmt_session *s, int mt);

/* the NUMA node of cpu as the recording says, -1 when it does not */
static inline int kmt_session_cpu_node(const struct kmt_session *s, int cpu)
{
	return cpu >= 0 && cpu < s->nr_cpu_node ? s->cpu_node[cpu] : -1;
}

/* a set of CPUs, as a CPU list names them */
struct kmt_cpumask {
	uint64_t bits[KMT_MAX_CPUS / 64];
};

static inline int kmt_cpumask_has(const struct kmt_cpumask *m, int cpu)
{
	return cpu >= 0 && cpu < KMT_MAX_CPUS &&
	       (m->bits[cpu / 64] >> (cpu % 64) & 1);
}

/*
 * A CPU list as sysfs (node<N>/cpulist) and perf's NUMA topology write
 * it: "0-3,8,10-11", "" for a node of memory only.  A NUL or a newline
 * within len ends it.  Returns the number of CPUs in mask, or -EINVAL
 * for anything else (a CPU at or past KMT_MAX_CPUS, a range going down,
 * a stray character), mask then undefined.
 */
int kmt_cpulist_parse(const char *text, size_t len, struct kmt_cpumask *mask);

/*
 * The recording says node's CPUs are cpulist (kmt_cpulist_parse's
 * form): sets has_cpu_node and their cpu_node.  -EINVAL for a list that
 * is not one, a node past INT16_MAX or a CPU already on another node,
 * the map then to be dropped (kmt_session_drop_nodes) rather than
 * half-believed; -ENOMEM.
 */
int kmt_session_set_node_cpus(struct kmt_session *s, int node,
			      const char *cpulist, size_t len);
/* forgets the kernel's counters (a second or damaged option) */
void kmt_session_drop_kcounters(struct kmt_session *s);

/* forgets the CPU-to-node map: the recording's is damaged */
void kmt_session_drop_nodes(struct kmt_session *s);

/* the kernel release as major * 1000 + minor, 0 when unknown */
int kmt_session_kernel_version(const struct kmt_session *s);

#endif
