// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event/session.h"
#include "source/pageowner.h"
#include "source/source.h"
#include "source/tracedat-format.h"

/* binary formats first: their magic is exact; text is the catch-all */
static const struct kmt_source_ops *const readers[] = {
	&kmt_source_perfdata,
	&kmt_source_tracedat,
	&kmt_source_text,
};

const struct kmt_source_ops *kmt_source_probe(const unsigned char *head,
					      size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		if (readers[i]->probe(head, len))
			return readers[i];
	}
	return NULL;
}

void kmt_describe_head(const unsigned char *head, size_t len, char *buf,
		       size_t size)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} known[] = {
		{ "\x7f" "ELF", 4, "an ELF file" },
		{ "\x1f\x8b", 2, "gzip data" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd data" },
		{ "BZh", 3, "bzip2 data" },
		{ "\xfd" "7zXZ", 5, "xz data" },
		{ "PK\x03\x04", 4, "a zip archive" },
		{ "PERFFILE", 8, "a perf.data file of an unsupported version" },
		{ "PERFILE2", 8, "a perf.data header" },
		{ KMT_TD_MAGIC, KMT_TD_MAGIC_LEN, "a trace.dat header" },
	};
	size_t i, o = 0;

	if (!len) {
		snprintf(buf, size, "it is empty");
		return;
	}
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (len >= known[i].len &&
		    !memcmp(head, known[i].magic, known[i].len)) {
			snprintf(buf, size, "it looks like %s", known[i].what);
			return;
		}
	}
	o = snprintf(buf, size, "first bytes:");
	for (i = 0; i < len && i < 8 && o + 4 < size; i++)
		o += snprintf(buf + o, size - o, " %02x", head[i]);
	if (o + 8 < size) {
		o += snprintf(buf + o, size - o, " \"");
		for (i = 0; i < len && i < 16 && o + 3 < size; i++)
			buf[o++] = head[i] >= 0x20 && head[i] < 0x7f ?
				   (char)head[i] : '.';
		buf[o++] = '"';
		buf[o] = '\0';
	}
}

ssize_t kmt_input_read(struct kmt_input *in, void *buf, size_t len)
{
	ssize_t n;

	if (in->head_pos < in->head_len) {
		size_t left = in->head_len - in->head_pos;

		if (len > left)
			len = left;
		memcpy(buf, in->head + in->head_pos, len);
		in->head_pos += len;
		return (ssize_t)len;
	}
	do {
		n = read(in->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int fill_head(struct kmt_input *in)
{
	while (in->head_len < sizeof(in->head)) {
		ssize_t n = read(in->fd, in->head + in->head_len,
				 sizeof(in->head) - in->head_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		in->head_len += n;
	}
	return 0;
}

int kmt_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");

	return open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR, 0600);
}

/* copies head and the rest of a pipe into an unlinked temporary file */
static int spool(struct kmt_session *s, struct kmt_input *in)
{
	char buf[65536];
	int fd;

	fd = kmt_tmpfile();
	if (fd < 0)
		return kmt_session_error(s, errno,
			"%s: cannot spool the input to a temporary file: %s",
			in->display, strerror(errno));
	for (;;) {
		ssize_t n = kmt_input_read(in, buf, sizeof(buf));
		ssize_t w = 0;

		if (n < 0) {
			close(fd);
			return kmt_session_error(s, (int)-n,
				"%s: read error: %s", in->display,
				strerror((int)-n));
		}
		if (n == 0)
			break;
		while (w < n) {
			ssize_t k = write(fd, buf + w, n - w);

			if (k < 0) {
				int err = errno;

				close(fd);
				return kmt_session_error(s, err,
					"%s: cannot spool the input: %s",
					in->display, strerror(err));
			}
			w += k;
		}
	}
	if (in->owns_fd)
		close(in->fd);
	in->fd = fd;
	in->owns_fd = 1;
	in->seekable = 1;
	in->size = lseek(fd, 0, SEEK_END);
	lseek(fd, 0, SEEK_SET);
	in->head_pos = 0;
	return 0;
}

int kmt_source_read_file(struct kmt_session *s, const char *path)
{
	const struct kmt_source_ops *ops;
	struct kmt_input *in;
	struct stat st;
	char what[160];
	int ret;

	in = calloc(1, sizeof(*in));
	if (!in)
		return kmt_session_error(s, ENOMEM, "out of memory");
	in->path = path;
	in->size = -1;
	if (!strcmp(path, "-")) {
		in->fd = STDIN_FILENO;
		in->display = "<stdin>";
	} else {
		in->display = path;
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			ret = kmt_session_error(s, errno, "cannot open '%s': %s",
						path, strerror(errno));
			free(in);
			return ret;
		}
		in->owns_fd = 1;
	}
	s->input = in->display;
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ret = kmt_session_error(s, EISDIR, "cannot read '%s': %s",
					in->display, strerror(EISDIR));
		goto out;
	}
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->seekable = 1;
		in->size = st.st_size;
	}
	ret = fill_head(in);
	if (ret) {
		ret = kmt_session_error(s, -ret, "cannot read '%s': %s",
					in->display, strerror(-ret));
		goto out;
	}
	ops = kmt_source_probe(in->head, in->head_len);
	if (!ops && kmt_po_sniff(in->head, in->head_len) == KMT_PO_SNIFF_DUMP) {
		ret = kmt_session_error(s, EINVAL,
			"'%s' is a page_owner dump: read it with 'kmemtrace pageowner'",
			in->display);
		goto out;
	}
	if (!ops && kmt_po_sniff(in->head, in->head_len) == KMT_PO_SNIFF_SORTED) {
		ret = kmt_session_error(s, EINVAL,
			"'%s' is page_owner_sort output, not a recording: 'kmemtrace pageowner' reads the page_owner dump it was made from",
			in->display);
		goto out;
	}
	if (!ops) {
		kmt_describe_head(in->head, in->head_len, what, sizeof(what));
		ret = kmt_session_error(s, EINVAL,
			"'%s' is not a perf.data, trace.dat or ftrace text recording (%s)",
			in->display, what);
		goto out;
	}
	if (ops->needs_seek) {
		if (!in->seekable) {
			ret = spool(s, in);
			if (ret)
				goto out;
		} else if (lseek(in->fd, 0, SEEK_SET) < 0) {
			ret = kmt_session_error(s, errno, "cannot seek '%s': %s",
						in->display, strerror(errno));
			goto out;
		}
		in->head_pos = in->head_len;	/* readers start from the fd */
	}
	ret = ops->read(s, in);
out:
	if (in->owns_fd)
		close(in->fd);
	free(in);
	return ret;
}
