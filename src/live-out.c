// SPDX-License-Identifier: GPL-2.0
/*
 * The output of the live commands (top, watch): each refresh a report
 * of a series, drawn by a renderer of the table, in any format that can
 * follow itself (not a page or a profile, which are one document).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "live-out.h"
#include "render/render.h"

int live_out_format(struct live_out *o, const char *format, int json)
{
	memset(o, 0, sizeof(*o));
	kmt_report_init(&o->here);
	return kmt_choose_section_format(format, json, &o->rd);
}

int live_out_open(struct live_out *o, const char *path, const char *host)
{
	o->path = path;
	o->host = host;
	o->f = kmt_open_output(path);
	if (!o->f)
		return kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 path, strerror(errno));
	return 0;
}

void live_out_start(struct live_out *o)
{
	kmt_report_meta_here(&o->here, "live", "bpf");
	if (o->host)
		o->here.meta.host = kmt_report_strdup(&o->here, o->host);
}

void live_out_report(struct live_out *o, struct kmt_report *r)
{
	kmt_report_init(r);
	r->meta = o->here.meta;
	r->meta.bare = 1;
	r->meta.seq = ++o->seq;
}

int live_out_draw(struct live_out *o, const struct kmt_report *r)
{
	int ret;

	if (r->oom) {
		errno = ENOMEM;
		return -1;
	}
	errno = 0;
	/* a table of many: CSV's heading once */
	if (r->meta.seq > 1 && o->rd->render_more)
		ret = o->rd->render_more(r, o->f);
	else
		ret = o->rd->render(r, o->f);
	if (!ret && fflush(o->f))
		ret = -1;
	if (ret && !errno)
		errno = EIO;
	return ret ? -1 : 0;
}

int live_out_close(struct live_out *o, int code)
{
	int ret = 0;

	if (o->f && o->f != stdout)
		ret = kmt_close_output(o->f, o->path, 0);
	else if (o->f)
		fflush(o->f);
	kmt_report_free(&o->here);
	return code ? code : ret;
}
