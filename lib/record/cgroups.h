/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORD_CGROUPS_H
#define KMT_RECORD_CGROUPS_H

#include <stddef.h>

#include "util/hash.h"
#include "util/strbuf.h"

/*
 * The task-to-memory-cgroup map of a recording (event/cgroups.h has its
 * text).  Every task's cgroup is read from /proc at the start; moves and
 * births during the recording come from cgroup:cgroup_attach_task,
 * cgroup:cgroup_transfer_tasks and sched:sched_process_fork (a child
 * starts in its parent's cgroup), recorded in an instance of their own
 * so that the kmem recording is left as it is.  They are rare events
 * next to the kmem ones.  At the end the events are replayed over the
 * snapshot for the tasks the recording holds events of; a task the
 * replay cannot place (its fork lost from a full buffer) is read from
 * /proc then, when it is still alive.
 */
struct kmt_rec_cgroups;

/*
 * Starts following the cgroups, the trace clock clock (trace_clock's
 * text, "[local] global"; NULL: the default): 0 with *out, or -errno
 * with why (no memory controller, no cgroup events), *out NULL: the
 * recording then has no map, which is not an error.
 */
int kmt_rec_cgroups_start(struct kmt_rec_cgroups **out, const char *clock,
			  char *why, size_t why_len);
/* stops following (with the kmem events' tracing) */
void kmt_rec_cgroups_stop(struct kmt_rec_cgroups *cg);
/*
 * The option's text for the tasks pids (their events are in the
 * recording) into text: 0, or -ENOMEM; nothing added (text empty) when
 * there is nothing to say.
 */
int kmt_rec_cgroups_text(struct kmt_rec_cgroups *cg,
			 const struct kmt_hash_set *pids, struct kmt_sb *text);
void kmt_rec_cgroups_free(struct kmt_rec_cgroups *cg);

#endif
