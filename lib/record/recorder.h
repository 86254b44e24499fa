/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORD_RECORDER_H
#define KMT_RECORD_RECORDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A live recording of the kmem tracepoints through a private tracefs
 * instance: the top level of tracefs is only ever read.
 * One reader thread per CPU splices ring-buffer pages into an unlinked
 * temporary file beside the output; at the end the pages are moved into
 * a trace.dat (version 6) with the metadata a reader needs elsewhere.
 * An output that is no regular file ("-" for stdout, a pipe, /dev/null)
 * is a stream: the pages wait in the temporary directory instead, and
 * the trace.dat is written to it front to back at the end.
 *
 *	kmt_rec_init -> kmt_rec_setup -> [kmt_rec_set_pids] ->
 *	kmt_rec_start -> ... -> kmt_rec_stop -> kmt_rec_write ->
 *	kmt_rec_free (on every path; it removes the instance)
 */

/* which events: groups of the table below */
enum kmt_rec_group {
	KMT_REC_SLAB	 = 1 << 0,
	KMT_REC_PAGE	 = 1 << 1,
	KMT_REC_PCPU	 = 1 << 2,
	KMT_REC_EXTFRAG = 1 << 3,
	KMT_REC_PERCPU	 = 1 << 4,	/* the percpu allocator */
	KMT_REC_VMALLOC = 1 << 5,
};

/* what is recorded unless the options choose */
#define KMT_REC_DEFAULT_GROUPS	(KMT_REC_SLAB | KMT_REC_PAGE |		\
				 KMT_REC_PERCPU | KMT_REC_VMALLOC)

struct kmt_rec_event {
	const char *system;	/* kmem, percpu, vmalloc */
	const char *name;	/* <system>:<name> */
	unsigned int group;
	int legacy;		/* only old kernels have it: skip silently */
	int stack;		/* -g adds a stacktrace trigger to it */
};

/* every tracepoint kmemtrace records, in the order it enables them */
extern const struct kmt_rec_event kmt_rec_events[];
extern const unsigned int kmt_rec_nr_events;

/* the tracefs systems of kmt_rec_events, kmem first */
#define KMT_REC_NR_SYSTEMS 3
extern const char *const kmt_rec_systems[KMT_REC_NR_SYSTEMS];

/* why tracing cannot start here, as -errno with a message */
int kmt_rec_check_access(char *err, size_t errlen);

/* the tracefs id of <system>:<name>, or -errno */
int kmt_rec_event_id(const char *system, const char *name);

struct kmt_rec_config {
	unsigned int groups;		/* enum kmt_rec_group; 0: the default */
	int stacks;			/* kernel stack with each page, percpu
					 * and vmalloc alloc */
	unsigned int buffer_kb;		/* per CPU; 0: the default */
	const char *output;		/* the trace.dat to write; "-": stdout */
	const char *tmpdir;		/* a stream's pages wait here; NULL: /tmp */
	const char *version;		/* of the recorder, stored in the file */
	int no_kallsyms;
};

/*
 * The ring buffer per CPU.  Measured here (2 CPUs, 1.4 M events/s from
 * bench/workload.sh): 512 KB lost 0.3% of the events, 2 MB lost none.
 * The default takes eight times that, unless it would take more than
 * 1/64 of the memory for all CPUs together; never below the 2 MB.
 */
#define KMT_REC_DEFAULT_BUFFER_KB 16384
#define KMT_REC_MIN_BUFFER_KB 2048
unsigned int kmt_rec_default_buffer_kb(int nr_cpus);

struct kmt_rec_cpu {
	struct kmt_rec *rec;
	struct tracefs_cpu *tcpu;
	pthread_t thread;
	int cpu;
	int running;
	int stop;			/* atomic: the reader drains and ends */
	int fd;				/* the unlinked temporary file */
	uint64_t bytes;			/* written to fd */
	int err;			/* errno that stopped the reader */
	/* from per_cpu/cpuN/stats at the end */
	uint64_t entries, overrun, commit_overrun, dropped, read;
	char *stats;			/* the stats text as the kernel wrote it */
};

struct kmt_rec_result {
	uint64_t events;		/* our events in the file */
	uint64_t other;			/* other events: the stacks of -g */
	uint64_t lost;			/* overrun, dropped, unread: all CPUs */
	uint64_t bytes;			/* size of the output file */
	uint64_t data_bytes;		/* ring-buffer pages kept */
	int truncated;			/* the disk filled: the file ends early */
};

struct kmt_rec_meta;

struct kmt_rec {
	struct tracefs_instance *inst;
	struct kmt_rec_meta *meta;	/* formats, kallsyms: read at setup */
	const char *version;
	char name[32];
	unsigned int page_size;
	unsigned int buffer_kb;		/* per CPU, as set */
	int nr_cpus;
	struct kmt_rec_cpu *cpus;
	const struct kmt_rec_event *enabled[32];	/* turned on */
	unsigned int nr_enabled;
	/* asked for, absent from this kernel */
	const struct kmt_rec_event *missing[32];
	unsigned int nr_missing;
	int stacks;
	int no_kallsyms;
	int started;
	/* the task-to-cgroup map (record/cgroups.h), or NULL and why not */
	struct kmt_rec_cgroups *cgroups;
	char cgroups_why[160];

	/* the output: an unnamed file linked under its name at the end */
	const char *output;
	int stream;			/* not a regular file: written in order */
	char outdir[4096];		/* of the temporary files */
	int out_fd;
	int out_named;			/* fallback without O_TMPFILE */
	char out_tmp[4096];
	uint64_t reserved;		/* bytes kept free for the header */

	/*
	 * Why /proc/slabinfo could not be snapshotted (not root), or "":
	 * the report then says the kernel's counters were not recorded
	 */
	char kcounters_why[256];

	/* set by the readers, read by kmt_rec_failed (atomic) */
	int failed;
	char errmsg[512];
};

void kmt_rec_init(struct kmt_rec *r);

/*
 * Creates the instance, enables the events, sizes the buffer, prepares
 * the output file.  Nothing is traced yet.  Returns 0 or -errno.
 */
int kmt_rec_setup(struct kmt_rec *r, const struct kmt_rec_config *cfg);

/*
 * Limits the events to pids (set_event_pid); with follow, their children
 * too (options/event-fork).  Call before kmt_rec_start.
 */
int kmt_rec_set_pids(struct kmt_rec *r, const pid_t *pids, size_t nr,
		      int follow);

/* starts the readers, then tracing; returns 0 or -errno */
int kmt_rec_start(struct kmt_rec *r);

/* non-zero when a reader stopped on an error (the disk filled) */
static inline int kmt_rec_failed(const struct kmt_rec *r)
{
	return __atomic_load_n(&r->failed, __ATOMIC_ACQUIRE);
}

/* stops tracing, lets the readers drain the buffers, joins them */
int kmt_rec_stop(struct kmt_rec *r);

/*
 * Writes the trace.dat: metadata, the stats of each CPU, the pages.  An
 * existing output is renamed to <output>.old (a stream is not).  On a
 * full disk the file keeps the whole pages that fit, res->truncated is
 * set and -ENOSPC is returned with the message.
 */
int kmt_rec_write(struct kmt_rec *r, struct kmt_rec_result *res);

/* removes the instance and every temporary file; safe at any stage */
void kmt_rec_free(struct kmt_rec *r);

#endif
