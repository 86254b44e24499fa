/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SRC_LIVE_OUT_H
#define KMT_SRC_LIVE_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

struct kmt_renderer;

/*
 * The output of top and watch: a report a refresh (or an interval),
 * each one of a series, drawn by the renderer --format names, with
 * report's option names (--format, --json, -o, --host).  Every report
 * carries this machine's host, kernel, boot and start, taken once.
 */
struct live_out {
	const struct kmt_renderer *rd;
	const char *path;		/* -o, or NULL: stdout */
	const char *host;		/* --host, or NULL: this machine's */
	FILE *f;
	struct kmt_report here;		/* holds the meta's strings */
	uint64_t seq;			/* reports drawn */
};

/*
 * The renderer of --format (text without it) or --json; 0, or the exit
 * code after the message
 */
int live_out_format(struct live_out *o, const char *format, int json);
/*
 * Opens -o (stdout when NULL or '-'); host, when given, is the name the
 * rows carry (--host).  0, or the exit code after the message.
 */
int live_out_open(struct live_out *o, const char *path, const char *host);
/*
 * This machine's host, kernel and boot, and the series' start: now, as
 * the tracing starts
 */
void live_out_start(struct live_out *o);
/* r, empty, with the meta of the series' next report */
void live_out_report(struct live_out *o, struct kmt_report *r);
/* draws r; 0, or -1 with errno */
int live_out_draw(struct live_out *o, const struct kmt_report *r);
/* closes -o; code unless it cannot be written */
int live_out_close(struct live_out *o, int code);

#endif
