/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RUN_PAGEOWNER_H
#define KMT_RUN_PAGEOWNER_H

#include <stdint.h>

#include "run/report.h"

struct kmt_po_analysis;

/* the kernel's dumps, in debugfs */
#define KMT_PO_PAGE_OWNER_PATH "/sys/kernel/debug/page_owner"
#define KMT_PO_SHOW_STACKS_PATH "/sys/kernel/debug/page_owner_stacks/show_stacks"

/* the most threads (parts) a dump is read with */
#define KMT_PO_MAX_THREADS 64

/*
 * Reading a page_owner dump into an analysis (analysis/pageowner.h):
 * what `kmemtrace pageowner` and `pageowner --diff` read with.  Fill
 * input (a path, "-" for stdin), threads (0: as the file's size says)
 * and in_order (malformed records told in file order: one thread), and
 * on_malformed to hear of each record skipped as it is read, in the
 * words kmt_po_run_skipped uses.
 */
struct kmt_po_run {
	const char *input;
	int threads;
	int in_order;
	void (*on_malformed)(void *ctx, const char *text);
	void *ctx;
	/* set by the read: the input as messages name it ("<stdin>") */
	const char *display;
	/* after KMT_RUN_E_READ, the reader's error (-ENOMEM, -EIO, ...) */
	int read_err;
	char errmsg[512];
};

/*
 * Reads run->input into a (initialised by the caller): KMT_RUN_OK, or
 * KMT_RUN_E_INPUT (no such file, not a dump, empty, no record),
 * KMT_RUN_E_NOMEM or KMT_RUN_E_READ, with why in run->errmsg.
 */
enum kmt_run_status kmt_po_run_read(struct kmt_po_run *run,
				    struct kmt_po_analysis *a);

/*
 * The records a read of display skipped, as sentences for warnings: the
 * first few by line, then how many in all; each to say(ctx, text).
 */
void kmt_po_run_skipped(const struct kmt_po_analysis *a, const char *display,
			void (*say)(void *ctx, const char *text), void *ctx);

#endif
