/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_SOURCE_H
#define KMT_SOURCE_SOURCE_H

#include <stddef.h>
#include <sys/types.h>

struct kmt_session;

#define KMT_INPUT_HEAD 4096

/*
 * An opened input.  The format is chosen from the first bytes (head), not
 * the file name.  Readers that seek get a seekable fd: input from a pipe
 * is first spooled to an unlinked temporary file for them.  Streaming
 * readers call kmt_input_read, which returns the head bytes first.
 */
struct kmt_input {
	int fd;
	const char *path;		/* as given; "-" for stdin */
	const char *display;		/* for messages: path, or "<stdin>" */
	unsigned char head[KMT_INPUT_HEAD];
	size_t head_len;
	size_t head_pos;		/* of head consumed by kmt_input_read */
	int seekable;
	int owns_fd;
	off_t size;			/* -1 when unknown */
};

/* reads up to len bytes; 0 at end, -errno on error */
ssize_t kmt_input_read(struct kmt_input *in, void *buf, size_t len);

/*
 * An unlinked temporary file, read-write, in TMPDIR (else /tmp): the fd,
 * or -1 with errno set.
 */
int kmt_tmpfile(void);

struct kmt_source_ops {
	const char *name;
	/* 1 if head (head_len bytes, maybe fewer than a whole header) is ours */
	int (*probe)(const unsigned char *head, size_t head_len);
	/*
	 * Reads the whole input, calling kmt_session_emit for each kmem
	 * event in time order.  Returns 0, a consumer's non-zero return,
	 * or -errno with s->errmsg naming the file and what is wrong.
	 */
	int (*read)(struct kmt_session *s, struct kmt_input *in);
	int needs_seek;
};

extern const struct kmt_source_ops kmt_source_perfdata;
extern const struct kmt_source_ops kmt_source_tracedat;
extern const struct kmt_source_ops kmt_source_text;

/*
 * Opens path ("-" for stdin), picks the reader by content and reads it
 * into s.  Returns 0 or -errno with s->errmsg set: a file of no known
 * format is named with a description of its first bytes.
 */
int kmt_source_read_file(struct kmt_session *s, const char *path);

/* the reader for head, or NULL */
const struct kmt_source_ops *kmt_source_probe(const unsigned char *head,
					      size_t len);

/* "ELF file", "gzip data", "bytes 00 01 02 ..." for a message */
void kmt_describe_head(const unsigned char *head, size_t len, char *buf,
		       size_t size);

#endif
