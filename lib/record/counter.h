/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORD_COUNTER_H
#define KMT_RECORD_COUNTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Live counts of the kmem, percpu and vmalloc tracepoints: perf_event_open in counting mode,
 * which the kernel keeps exactly (nothing is sampled, nothing can be
 * lost) and which writes nothing to disk.  One counter per event and per
 * CPU system-wide, or per task (inherited by its children) otherwise.
 */
#define KMT_COUNTER_MAX_EVENTS 64

struct kmt_counters {
	int nr_events;
	char *names[KMT_COUNTER_MAX_EVENTS];	/* "kmem:kmalloc", ... */
	int ids[KMT_COUNTER_MAX_EVENTS];
	int nr_per_event;		/* fds per event: CPUs or tasks */
	int *fds;			/* [event * nr_per_event + i] */
	char errmsg[256];
};

enum kmt_counter_target {
	KMT_COUNT_SYSTEM,		/* every CPU */
	KMT_COUNT_TASKS,		/* the given tasks and their children */
	KMT_COUNT_EXEC,			/* one task, counting from its exec */
};

/*
 * The events of the kmem system this kernel has, then those of percpu
 * and vmalloc where it has them; 0 or -errno.
 */
int kmt_counters_init(struct kmt_counters *c);

/*
 * Opens and enables the counters.  tasks: pids for KMT_COUNT_TASKS, the
 * held child for KMT_COUNT_EXEC (enabled when it execs).
 */
int kmt_counters_open(struct kmt_counters *c, enum kmt_counter_target target,
		      const pid_t *tasks, size_t nr_tasks);

/* the running totals, one per event; 0 or -errno */
int kmt_counters_read(struct kmt_counters *c, uint64_t *values);

void kmt_counters_free(struct kmt_counters *c);

/* a stretch of counts: the whole run, or one interval of -I */
struct kmt_counts {
	const char *target;	/* "system wide", the command, "process 12" */
	const uint64_t *values;	/* one per event of the counters */
	double seconds;		/* the time they were counted in */
	double at;		/* -I: the interval's end since the start; < 0 */
};

#endif
