/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RUN_DIFF_H
#define KMT_RUN_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "run/report.h"

struct kmt_report;

/*
 * The comparison engine: two inputs in, the comparison's report model
 * out.  What `kmemtrace diff` and `pageowner --diff` are, and what the
 * tests call to compare without a command line:
 *
 *	d = kmt_diff_create(&spec, &status, msg, sizeof(msg));
 *	kmt_diff_load(d, 0, pathA);	(then its warnings)
 *	kmt_diff_load(d, 1, pathB);
 *	kmt_diff_report(d, &rep);	(or kmt_diff_pprof for profiles)
 *	kmt_diff_free(d);
 *
 * A side is a recording (read through the report engine in memory), a
 * page_owner dump, or a saved JSON report of either.  Rows are matched
 * by name (symbols without their offsets) and sorted by the growth of
 * the sort key.  Nothing is printed: each step returns a status and
 * leaves what went wrong in kmt_diff_error().
 */

/* what is compared */
enum kmt_diff_what {
	KMT_DIFF_RECORDINGS,	/* report's tables of recordings */
	KMT_DIFF_PAGEOWNER,	/* page_owner dumps */
	KMT_DIFF_PROFILES,	/* the allocation profiles (--pprof) */
};

struct kmt_diff_spec {
	enum kmt_diff_what what;
	const char *sort;	/* the sort key's name, or NULL: the default */
	int lines;		/* rows per table, 0: all */
	/* what chooses a recording's events, as report takes it, or 0/NULL */
	uint64_t older_than;
	const char *time, *comm, *pid;
};

struct kmt_diff;

/*
 * A comparison of spec (copied; its strings must outlive it), or NULL
 * with the status in *status and why in msg: an unknown sort key
 * (KMT_RUN_E_SPEC), no memory.
 */
struct kmt_diff *kmt_diff_create(const struct kmt_diff_spec *spec,
				 enum kmt_run_status *status, char *msg,
				 size_t len);
/*
 * Reads side which (0: A, 1: B) from path ("-": stdin; must outlive d).
 * KMT_RUN_E_SPEC for options a saved report cannot take or a --time
 * that does not parse, E_INPUT, E_NOMEM, or E_READ with the reader's
 * code in kmt_diff_read_error().  Either way, what it had to say before
 * it ended is in kmt_diff_warning() (until the next load).
 */
enum kmt_run_status kmt_diff_load(struct kmt_diff *d, int which,
				  const char *path);
/* the load's warnings in the order they arose, NULL past the last */
const char *kmt_diff_warning(const struct kmt_diff *d, size_t i);
const char *kmt_diff_error(const struct kmt_diff *d);
int kmt_diff_read_error(const struct kmt_diff *d);

/*
 * Both sides loaded: the comparison into rep (initialised by the
 * caller, freed by it), a table per dimension either side has, sorted
 * by growth, at most spec.lines rows.  0, or -ENOMEM.
 */
int kmt_diff_report(struct kmt_diff *d, struct kmt_report *rep);
/*
 * Profiles loaded: both in one profile for the pprof renderer, A's
 * samples negated and marked the base.  0, or -ENOMEM.
 */
int kmt_diff_pprof(struct kmt_diff *d, struct kmt_report *rep);
void kmt_diff_free(struct kmt_diff *d);

/* what a drawing of the model needs beside it */
const char *kmt_diff_path(const struct kmt_diff *d, int which);
double kmt_diff_span(const struct kmt_diff *d, int which);	/* s, 0: none */
int kmt_diff_rates(const struct kmt_diff *d);	/* flows compared per second */
size_t kmt_diff_nr_dims(const struct kmt_diff *d);
const char *kmt_diff_dim(const struct kmt_diff *d, size_t dim);
/* side which holds dimension dim's tables */
int kmt_diff_has(const struct kmt_diff *d, int which, size_t dim);
/* the title of the figure dimension dim is sorted by */
const char *kmt_diff_sort_title(const struct kmt_diff *d, size_t dim);
size_t kmt_diff_nr_metrics(const struct kmt_diff *d);
/* metric m's name, and whether it is a flow (a rate when rates) */
const char *kmt_diff_metric(const struct kmt_diff *d, size_t m, int *flow);

/* the sort keys of what, for -s's list: NULL past the last */
const char *kmt_diff_key_name(enum kmt_diff_what what, size_t i);
/* a saved report (JSON) rather than a recording or a dump */
int kmt_diff_is_saved(const char *path);
/*
 * The report run --save makes of a recording: the tables a comparison
 * reads, the events spec chooses.  KMT_RUN_OK, or KMT_RUN_E_SPEC with
 * why in msg (a --time that does not parse).
 */
enum kmt_run_status kmt_diff_save_spec(const struct kmt_diff_spec *spec,
				       struct kmt_run_spec *run, char *msg,
				       size_t len);

#endif
