/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_ANALYSIS_H
#define KMT_ANALYSIS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

struct kmt_event;
struct kmt_live;
struct kmt_report;
struct kmt_session;
struct kmt_sort_key;

/* what the user asked of `report`; shared by every analysis */
struct kmt_report_opts {
	int caller;		/* per-callsite tables */
	int alloc;		/* per-object / per-page tables */
	int live;		/* page: only what is still allocated */
	int raw_ip;		/* addresses, not symbols */
	int lines;		/* -l: rows per table, 0 all */
	const char *sort;	/* -s keys, NULL for each analysis' default */

	/* the views (leaks.h, errors.h, ...) */
	uint64_t older_than;	/* leaks: ns an object must have lived */
	uint64_t warmup;	/* errors: ns after the start in which frees of
				 * unknown pointers are expected; 0 none */
	int all_findings;	/* errors: list findings legal on the traced
				 * kernel too */
	uint64_t step;		/* timeline, extfrag: ns per step, 0 auto */
	int by_comm;		/* procs, extfrag: per command name, not per
				 * task (pid) */
	int by_tgid;		/* procs, extfrag: per process (thread
				 * group) */
	int by_cgroup;		/* procs: per memory cgroup (the
				 * recording's task-to-cgroup map) */
	int top;		/* timeline: callsites drawn, 0 default */
	int profile_whole;	/* profile: every row, whatever -l says (the
				 * flame graph adds them up) */
	int weight;		/* profile: the value the folded format
				 * draws (enum kmt_profile_value) */
	/*
	 * The live-object tracker the caller feeds every event before the
	 * analyses see it (and which filters them), or NULL: a view then
	 * keeps its own.
	 */
	struct kmt_live *tracker;
};

/*
 * One analysis: it sees every event once, in time order, then adds its
 * tables and summaries to the report.  State lives in the context it
 * creates, so an analysis can run twice in one process.
 */
struct kmt_analysis_ops {
	const char *name;
	/* NULL with errno set (and s->errmsg for bad options) on failure */
	void *(*create)(struct kmt_session *s,
			const struct kmt_report_opts *opts);
	int (*on_event)(void *ctx, const struct kmt_event *ev);
	/*
	 * Optional: the events are over; frees what only finding things
	 * needed.  Called for every analysis before the first finish, so
	 * that one's sorting has the room another's tables held; finish
	 * calls it itself when it was not.
	 */
	int (*seal)(void *ctx);
	int (*finish)(void *ctx, struct kmt_report *r);
	void (*destroy)(void *ctx);
	/*
	 * The event types it reads (KMT_EV_BIT): with none of them in the
	 * recording, the report says "not recorded" in its place.
	 */
	uint32_t needs;
	/* the keys its tables sort by (-s), and its default; none: NULL */
	const struct kmt_sort_key *sort_keys;
	size_t nr_sort_keys;
	const char *default_sort;
};

extern const struct kmt_analysis_ops kmt_analysis_slab;
extern const struct kmt_analysis_ops kmt_analysis_page;
extern const struct kmt_analysis_ops kmt_analysis_leaks;
extern const struct kmt_analysis_ops kmt_analysis_errors;
extern const struct kmt_analysis_ops kmt_analysis_procs;
extern const struct kmt_analysis_ops kmt_analysis_pcpu;
extern const struct kmt_analysis_ops kmt_analysis_extfrag;
extern const struct kmt_analysis_ops kmt_analysis_caches;
extern const struct kmt_analysis_ops kmt_analysis_sizes;
extern const struct kmt_analysis_ops kmt_analysis_lifetimes;
extern const struct kmt_analysis_ops kmt_analysis_timeline;
extern const struct kmt_analysis_ops kmt_analysis_profile;
extern const struct kmt_analysis_ops kmt_analysis_percpu;
extern const struct kmt_analysis_ops kmt_analysis_vmalloc;

/* the symbol of addr as "name+off" (hex offset), or "0x..." */
const char *kmt_analysis_sym(struct kmt_session *s, struct kmt_report *r,
			     uint64_t addr, int raw_ip);

/*
 * The name kmt_analysis_sym made for addr and keeps in r, NULL if it
 * keeps none.  It only reads: rows that two threads draw at once name
 * their symbols this way, after the names were made.
 */
const char *kmt_analysis_sym_made(const struct kmt_report *r, uint64_t addr,
				  int raw_ip);

/*
 * What every report on a recording says of its input (r->meta), from the
 * session that read it: its name, format, kernel, host, boot and start,
 * span, the events of each type, losses and what could not be read.
 * The meta points into s, which must outlive r's drawing.
 */
void kmt_analysis_meta(struct kmt_report *r, const struct kmt_session *s);

#endif
