// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: being written; replaced before the first commit */
#include <errno.h>
#include "event/session.h"
#include "source/source.h"

static int probe(const unsigned char *head, size_t len)
{
	(void)head;
	(void)len;
	return 0;
}

static int read_all(struct kmt_session *s, struct kmt_input *in)
{
	return kmt_session_error(s, ENOSYS, "%s: reader not written", in->display);
}

const struct kmt_source_ops kmt_source_perfdata = {
	.name = "perfdata",
	.probe = probe,
	.read = read_all,
};
