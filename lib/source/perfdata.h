/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_PERFDATA_H
#define KMT_SOURCE_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "source/merge.h"

/*
 * The pure parts of the perf.data reader, exposed for the unit tests:
 * sample parsing, the kernel part of a call chain, and the queue that
 * puts the per-CPU streams into time order round by round.
 */
struct kmt_session;

/* perf_event_attr.sample_type bits, in the order a sample carries them */
enum {
	KMT_PERF_SAMPLE_IP		= 1U << 0,
	KMT_PERF_SAMPLE_TID		= 1U << 1,
	KMT_PERF_SAMPLE_TIME		= 1U << 2,
	KMT_PERF_SAMPLE_ADDR		= 1U << 3,
	KMT_PERF_SAMPLE_READ		= 1U << 4,
	KMT_PERF_SAMPLE_CALLCHAIN	= 1U << 5,
	KMT_PERF_SAMPLE_ID		= 1U << 6,
	KMT_PERF_SAMPLE_CPU		= 1U << 7,
	KMT_PERF_SAMPLE_PERIOD		= 1U << 8,
	KMT_PERF_SAMPLE_STREAM_ID	= 1U << 9,
	KMT_PERF_SAMPLE_RAW		= 1U << 10,
	KMT_PERF_SAMPLE_IDENTIFIER	= 1U << 16,
};

/* perf_event_attr.read_format bits */
enum {
	KMT_PERF_FORMAT_TOTAL_TIME_ENABLED	= 1U << 0,
	KMT_PERF_FORMAT_TOTAL_TIME_RUNNING	= 1U << 1,
	KMT_PERF_FORMAT_ID			= 1U << 2,
	KMT_PERF_FORMAT_GROUP			= 1U << 3,
	KMT_PERF_FORMAT_LOST			= 1U << 4,
};

/* call chain context markers: values at or above CONTEXT_MAX */
#define KMT_PERF_CONTEXT_KERNEL	((uint64_t)-128)
#define KMT_PERF_CONTEXT_USER	((uint64_t)-512)
#define KMT_PERF_CONTEXT_MAX	((uint64_t)-4095)

/* the fields of one PERF_RECORD_SAMPLE this reader uses */
struct kmt_perfdata_sample {
	uint64_t id;		/* IDENTIFIER or ID, 0 if neither */
	uint64_t time;
	uint32_t pid, tid;
	uint32_t cpu;
	uint32_t raw_size;
	uint64_t nr_ips;
	const unsigned char *ips;	/* nr_ips u64, maybe unaligned */
	const unsigned char *raw;	/* NULL without RAW */
};

/*
 * Parses the body of a PERF_RECORD_SAMPLE (the bytes after the 8-byte
 * record header, size of them) laid out by sample_type and read_format,
 * up to and including RAW; later fields are not needed and not read.
 * Returns 0, or -EINVAL when a field runs past the end of the record.
 */
int kmt_perfdata_parse_sample(const unsigned char *body, size_t size,
			      uint64_t sample_type, uint64_t read_format,
			      struct kmt_perfdata_sample *out);

/*
 * The same, with where the fixed-size fields lie worked out once for an
 * attr (kmt_perfdata_layout_init) instead of for every sample.
 */
struct kmt_perfdata_layout {
	uint64_t sample_type, read_format;
	uint16_t prefix;	/* bytes of the fixed-size fields */
	uint8_t swap;		/* numbers in the other byte order: turned */
	int16_t off_id, off_tid, off_time, off_cpu;	/* -1: absent */
};

void kmt_perfdata_layout_init(struct kmt_perfdata_layout *l,
			      uint64_t sample_type, uint64_t read_format);
int kmt_perfdata_parse_laid(const unsigned char *body, size_t size,
			    const struct kmt_perfdata_layout *l,
			    struct kmt_perfdata_sample *out);

/*
 * Finds the kernel part of a call chain (nr u64 entries, maybe
 * unaligned): the entries after PERF_CONTEXT_KERNEL up to the next
 * context marker, innermost first.  Entries before any marker count as
 * kernel: a tracepoint's chain starts in the kernel.  Returns the count,
 * *start the index of the first.
 */
size_t kmt_perfdata_kernel_chain(const unsigned char *ips, uint64_t nr,
				 uint64_t *start);

/*
 * Orders events by time with bounded memory.  perf writes a
 * FINISHED_ROUND record after each pass over the per-CPU buffers; when
 * one arrives, every queued event with a time at or below the highest
 * time seen before the previous round marker can be passed on, because
 * no later record can be older than that.  Events are queued as decoded
 * kmt_event structs.
 *
 * That rule alone lets a few events through late: the kernel stamps an
 * event's time before it reserves room in the ring buffer, so an
 * interrupt in between writes newer events ahead of it, and perf may
 * read those a round earlier (perf itself reports them as "out of order
 * events").  So the bound also stays slack behind the newest time seen.
 *
 * Each CPU's events arrive in time order (but for those interrupted
 * ones, which are moved back into place), so the queue keeps one sorted
 * stream per CPU and merges the streams (source/merge.h): no sorting.
 * Ties go in file order.  Events without a CPU share one stream, kept sorted by
 * insertion.  A merge is done when at least batch events wait, never
 * beyond the bound, so batching changes nothing but the cost.
 */
#define KMT_PERFDATA_SLACK_NS	10000000ULL	/* 10 ms */
#define KMT_PERFDATA_BATCH	16384

struct kmt_perfdata_stream {
	struct kmt_event *ev;		/* sorted by time from head to nr */
	uint64_t *seq;			/* arrival order, for ties */
	size_t head, nr;
	size_t ev_alloc, seq_alloc;
};

struct kmt_perfdata_queue {
	struct kmt_perfdata_stream *streams; /* [0]: no CPU, [c + 1]: CPU c */
	size_t nr_streams, streams_alloc;
	struct kmt_merge merge;		/* of the streams, by time then seq */
	size_t slot_stream;		/* of the last kmt_perfdata_queue_slot */
	size_t nr;			/* events queued */
	uint64_t seq;
	uint64_t max_ts;		/* highest queued time so far */
	uint64_t prev_max;		/* max_ts at the previous round marker */
	uint64_t bound;			/* events up to here may be passed on */
	uint64_t last_out;		/* time of the last event passed on */
	uint64_t slack;			/* ns held back behind the newest */
	size_t batch;			/* pass on when this many wait */
	size_t flush_at;		/* twice what stayed at the last pass */
	int rounds;			/* round markers seen, up to 2 */
	int emitted;			/* last_out is valid */
	uint64_t nr_late;		/* arrived after their time was passed */
	size_t peak;			/* most events queued at once */
};

/* slack KMT_PERFDATA_SLACK_NS and batch KMT_PERFDATA_BATCH; both can be set */
void kmt_perfdata_queue_init(struct kmt_perfdata_queue *q);
void kmt_perfdata_queue_free(struct kmt_perfdata_queue *q);
/*
 * The event to fill for the next push, in place at the end of the queue
 * of CPU cpu (-1: none known), which the event's cpu must then name.  It
 * joins the queue only when kmt_perfdata_queue_commit is called, so a
 * decoder can fill it and drop it.  NULL when out of memory.
 */
struct kmt_event *kmt_perfdata_queue_slot(struct kmt_perfdata_queue *q,
					  int32_t cpu);
/* queues the event of the last kmt_perfdata_queue_slot */
void kmt_perfdata_queue_commit(struct kmt_perfdata_queue *q);
/*
 * At a round marker: passes the events that are safe to s
 * (kmt_session_emit).  Returns 0 or the first non-zero emit return.
 */
int kmt_perfdata_queue_round(struct kmt_perfdata_queue *q,
			     struct kmt_session *s);
/* at the end: passes everything left */
int kmt_perfdata_queue_flush(struct kmt_perfdata_queue *q,
			     struct kmt_session *s);

#endif
