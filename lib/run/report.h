/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RUN_REPORT_H
#define KMT_RUN_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

struct kmt_event;
struct kmt_renderer;
struct kmt_report;
struct kmt_session;

/*
 * The report engine: a recording in, the report model out.  A run reads
 * its input once, every event through the analyses asked for (on a
 * second thread while this one reads, when the spec allows two), then
 * finishes them into a report (lib/report) that a renderer draws.  What
 * `kmemtrace report` is, and what `diff`, the fuzz target and the tests
 * call to get a report without a command line:
 *
 *	run = kmt_run_create(&spec, msg, sizeof(msg));
 *	kmt_run_read(run, path);
 *	kmt_run_finish(run, renderer);	(or NULL: the whole model)
 *	kmt_run_draw(run, out);		(or kmt_run_report(run))
 *	kmt_run_free(run);
 *
 * Each step returns a status (enum kmt_run_status) and leaves what went
 * wrong in kmt_run_error(); nothing is printed.
 */

/* the analyses asked for: one flag each, the table below says which */
struct kmt_run_want {
	int slab, page;
	int leaks, errors, procs, pcpu, extfrag, caches, sizes, lifetimes;
	int timeline;
	int profile;
	int percpu, vmalloc;
};

/*
 * slab, page, percpu and vmalloc run by default (for the events present),
 * when nothing is asked for; views when asked
 */
enum kmt_run_class {
	KMT_RUN_SLAB, KMT_RUN_PAGE, KMT_RUN_PERCPU, KMT_RUN_VMALLOC,
	KMT_RUN_VIEW
};

struct kmt_run_analysis {
	const struct kmt_analysis_ops *ops;
	size_t want;		/* its flag's offset in struct kmt_run_want */
	enum kmt_run_class kind;
};

/* the analyses a run can run, in the order their sections are drawn */
extern const struct kmt_run_analysis kmt_run_analyses[];
extern const size_t kmt_run_nr_analyses;

static inline int *kmt_run_want_flag(struct kmt_run_want *w, size_t i)
{
	return (int *)((char *)w + kmt_run_analyses[i].want);
}

static inline int kmt_run_wanted(const struct kmt_run_want *w, size_t i)
{
	return *(const int *)((const char *)w + kmt_run_analyses[i].want);
}

/* the name of analysis i's tables as -s lists them: slab, page, --leaks */
const char *kmt_run_table_name(size_t i, char *buf, size_t len);
/* the sort keys of analysis i, "a, b, c", in buf */
void kmt_run_key_names(size_t i, char *buf, size_t len);

struct kmt_run_spec {
	/*
	 * The session to read into, the caller's (which outlives the run),
	 * or NULL: the run's own
	 */
	struct kmt_session *session;
	struct kmt_run_want want;
	struct kmt_report_opts opts;	/* opts.tracker is the run's own */
	/* --pid, --comm, --cpu as given, or NULL */
	const char *pids, *comms, *cpus;
	/* --time as given (for messages), and parsed (kmt_run_parse_time) */
	const char *time_arg;
	uint64_t time_start, time_end;
	unsigned int time_relative;
	/* the traced kernel's release, over what the input says, or NULL */
	const char *kernel;
	/* the host name every ndjson row carries, or NULL: the input's */
	const char *host;
	/* 1, or 2: the analyses on a second thread, drawn by two */
	int threads;
	/* the two-thread drawing's piece size and spool (0: defaults) */
	size_t piece_rows;
	size_t spool_max;
	int spool_given;	/* spool_max was given: 0 is a size too */
};

enum kmt_run_status {
	KMT_RUN_OK = 0,
	KMT_RUN_E_SPEC,		/* the spec asks what cannot be: a usage error */
	KMT_RUN_E_INPUT,	/* the input cannot give this report */
	KMT_RUN_E_NOMEM,
	/* the reader failed: kmt_run_read_error() is its code */
	KMT_RUN_E_READ,
};

struct kmt_run;

/*
 * A run of spec (copied; its strings must outlive the run), or NULL
 * with the status in *status and why in msg: a sort key no analysis
 * asked for knows, a filter that does not parse, no memory.
 */
struct kmt_run *kmt_run_create(const struct kmt_run_spec *spec,
			       enum kmt_run_status *status, char *msg,
			       size_t len);
/*
 * Reads the input (a path, "-" for stdin, which must outlive the run)
 * through the analyses, then checks that there is a
 * report to make: a recording without kmem events, a --cpu or --time
 * outside it are KMT_RUN_E_INPUT; a filter that matches nothing is a
 * warning (kmt_run_warning), said in the report too.
 */
enum kmt_run_status kmt_run_read(struct kmt_run *run, const char *input);
/*
 * One event into the session and through the analyses, for a caller
 * that makes its events itself (a test, a live source) instead of
 * reading an input: what a reader does with each event it reads.  The
 * time window applies.  0, or -ENOMEM (kmt_run_error says where).
 */
int kmt_run_feed(struct kmt_run *run, const struct kmt_event *ev);
/*
 * Seals and finishes the analyses into the report.  With a renderer
 * that draws in pieces and two threads, the later analyses finish on a
 * second thread that then shares the drawing (render/parallel.h), and
 * kmt_run_report() holds only the first part; with rd NULL, the whole
 * model is made here.  After it only writing can fail.
 */
enum kmt_run_status kmt_run_finish(struct kmt_run *run,
				   const struct kmt_renderer *rd);
/* the report finish made, to draw or to compare */
const struct kmt_report *kmt_run_report(const struct kmt_run *run);
/* draws the finished report with finish's renderer; 0, or -errno */
int kmt_run_draw(struct kmt_run *run, FILE *out);
void kmt_run_free(struct kmt_run *run);

/* what the last failing step said, "" when none */
const char *kmt_run_error(const struct kmt_run *run);
/* a filter or --time that matched no event, or NULL */
const char *kmt_run_warning(const struct kmt_run *run);
/* the reader's error code after KMT_RUN_E_READ (-ENOMEM, -EINVAL, ...) */
int kmt_run_read_error(const struct kmt_run *run);
/* the context of the run's analysis ops (its own getters), or NULL */
void *kmt_run_context(const struct kmt_run *run,
		      const struct kmt_analysis_ops *ops);
/* the session the input was read into: its counts, its tables */
const struct kmt_session *kmt_run_session(const struct kmt_run *run);
/*
 * Records of the input that could not be read: their number, and a
 * sentence for them in buf ("'x': 3 records could not be read, ...")
 */
uint64_t kmt_run_unreadable(const struct kmt_run *run, char *buf, size_t len);

/*
 * --time start,end: seconds as the recording stamps them, or from its
 * first event when a side starts with '+' (KMT_TIME_REL_* in *rel);
 * either side may be empty.  0, or -1 when arg is none.
 */
int kmt_run_parse_time(const char *arg, uint64_t *start, uint64_t *end,
		       unsigned int *rel);
/* "6.18.3", "5.10.0-28-amd64": a kernel release; 1 when r is one */
int kmt_run_valid_release(const char *r);

#endif
