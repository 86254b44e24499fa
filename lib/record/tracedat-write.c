// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat version 6 writer.  The layout, in order: magic and
 * version, ring-buffer headers, ftrace formats, event formats by system,
 * kallsyms, printk formats, cmdlines, the CPU count, options, then
 * "flyrecord" with one (offset, size) pair per CPU, the trace clock when
 * an option has it, and the raw pages.
 * The same walk both measures the header (fd < 0) and writes it, so the
 * offsets in the CPU table can never disagree with what was written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/tracedat-write.h"

/*
 * A position in the output, or only a byte count when fd < 0; a stream
 * (a pipe) is written where it stands, the offset only counted.
 */
struct sink {
	int fd;
	uint64_t off;
	int err;
	int stream;
};

static void put(struct sink *k, const void *data, size_t len)
{
	const char *p = data;

	if (k->err)
		return;
	if (k->fd < 0) {
		k->off += len;
		return;
	}
	while (len) {
		ssize_t n = k->stream ? write(k->fd, p, len) :
					pwrite(k->fd, p, len, (off_t)k->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			k->err = errno;
			return;
		}
		if (n == 0) {
			k->err = ENOSPC;
			return;
		}
		p += n;
		len -= n;
		k->off += n;
	}
}

static void put_u16(struct sink *k, uint16_t v)
{
	put(k, &v, sizeof(v));
}

static void put_u32(struct sink *k, uint32_t v)
{
	put(k, &v, sizeof(v));
}

static void put_u64(struct sink *k, uint64_t v)
{
	put(k, &v, sizeof(v));
}

static void put_str(struct sink *k, const char *s)
{
	put(k, s, strlen(s) + 1);
}

static void put_blob(struct sink *k, struct kmt_blob b)
{
	put(k, b.data, b.len);
}

static int host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

static void put_header(struct sink *k, const struct kmt_tdw_header *h,
		       const uint64_t *cpu_size, uint64_t data_off)
{
	unsigned char flags[2];
	uint64_t off = data_off;
	size_t i, j;

	put(k, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN);
	put_str(k, "6");
	flags[0] = host_big_endian();
	flags[1] = sizeof(long);
	put(k, flags, sizeof(flags));
	put_u32(k, h->page_size);

	put(k, "header_page", 12);
	put_u64(k, h->header_page.len);
	put_blob(k, h->header_page);
	put(k, "header_event", 13);
	put_u64(k, h->header_event.len);
	put_blob(k, h->header_event);

	put_u32(k, (uint32_t)h->nr_ftrace_formats);
	for (i = 0; i < h->nr_ftrace_formats; i++) {
		put_u64(k, h->ftrace_formats[i].len);
		put_blob(k, h->ftrace_formats[i]);
	}
	put_u32(k, (uint32_t)h->nr_systems);
	for (i = 0; i < h->nr_systems; i++) {
		const struct kmt_tdw_system *sys = &h->systems[i];

		put_str(k, sys->name);
		put_u32(k, (uint32_t)sys->nr_formats);
		for (j = 0; j < sys->nr_formats; j++) {
			put_u64(k, sys->formats[j].len);
			put_blob(k, sys->formats[j]);
		}
	}

	put_u32(k, (uint32_t)h->kallsyms.len);
	put_blob(k, h->kallsyms);
	put_u32(k, (uint32_t)h->printk_formats.len);
	put_blob(k, h->printk_formats);
	put_u64(k, h->cmdlines.len);
	put_blob(k, h->cmdlines);

	put_u32(k, (uint32_t)h->nr_cpus);
	put(k, KMT_TD_TAG_OPTIONS, KMT_TD_TAG_LEN);
	for (i = 0; i < h->nr_options; i++) {
		put_u16(k, h->options[i].id);
		put_u32(k, (uint32_t)h->options[i].val.len);
		put_blob(k, h->options[i].val);
	}
	put_u16(k, 0);

	put(k, KMT_TD_TAG_FLYRECORD, KMT_TD_TAG_LEN);
	for (i = 0; i < (size_t)h->nr_cpus; i++) {
		uint64_t size = cpu_size ? cpu_size[i] : 0;

		put_u64(k, off);
		put_u64(k, size);
		off += size;
	}
	/*
	 * A TRACECLOCK option is copied after the table with its size, as
	 * trace-cmd writes it: libtracecmd reads a size there whenever the
	 * option is present, and without the copy it read the padding, or
	 * the first page's timestamp where the table ends by a page edge.
	 */
	for (i = 0; i < h->nr_options; i++) {
		if (h->options[i].id != KMT_TD_OPT_TRACECLOCK)
			continue;
		put_u64(k, h->options[i].val.len);
		put_blob(k, h->options[i].val);
		break;
	}
}

uint64_t kmt_tdw_header_size(const struct kmt_tdw_header *h)
{
	struct sink k = { -1, 0, 0, 0 };

	put_header(&k, h, NULL, 0);
	return k.off;
}

uint64_t kmt_tdw_data_offset(const struct kmt_tdw_header *h)
{
	uint64_t size = kmt_tdw_header_size(h);
	uint64_t page = h->page_size ? h->page_size : 4096;

	return (size + page - 1) / page * page;
}

static int write_header(struct sink *k, const struct kmt_tdw_header *h,
			const uint64_t *cpu_size, char *err, size_t errlen)
{
	static const char zeros[4096];
	uint64_t data_off = kmt_tdw_data_offset(h);
	size_t i;

	if (h->page_size < 64 || (h->page_size & (h->page_size - 1))) {
		snprintf(err, errlen, "bad ring-buffer page size %u",
			 h->page_size);
		return -EINVAL;
	}
	/* the file format stores these sizes in 32 bits */
	if (h->kallsyms.len > UINT32_MAX || h->printk_formats.len > UINT32_MAX) {
		snprintf(err, errlen, "kallsyms or printk formats too large");
		return -EFBIG;
	}
	for (i = 0; i < h->nr_options; i++) {
		if (h->options[i].id == 0 || h->options[i].val.len > UINT32_MAX) {
			snprintf(err, errlen, "bad option %u", h->options[i].id);
			return -EINVAL;
		}
	}
	put_header(k, h, cpu_size, data_off);
	while (!k->err && k->off < data_off) {
		uint64_t n = data_off - k->off;

		put(k, zeros, n > sizeof(zeros) ? sizeof(zeros) : (size_t)n);
	}
	if (k->err) {
		snprintf(err, errlen, "cannot write the trace.dat header: %s",
			 strerror(k->err));
		return -k->err;
	}
	return 0;
}

int kmt_tdw_write_header(int fd, const struct kmt_tdw_header *h,
			 const uint64_t *cpu_size, char *err, size_t errlen)
{
	struct sink k = { fd, 0, 0, 0 };

	return write_header(&k, h, cpu_size, err, errlen);
}

int kmt_tdw_stream_header(int fd, const struct kmt_tdw_header *h,
			  const uint64_t *cpu_size, char *err, size_t errlen)
{
	struct sink k = { fd, 0, 0, 1 };

	return write_header(&k, h, cpu_size, err, errlen);
}

/* well under the slack kept after the header (recorder.c), see there */
#define COPY_CHUNK (1u << 20)

/*
 * The copy through user space, for file systems without copy_file_range.
 * Returns the bytes copied; *err is set when it stopped short.
 */
static size_t copy_slow(int out, off_t out_off, int in, off_t in_off,
			size_t len, int stream, int *err)
{
	char buf[65536];
	size_t done = 0;

	*err = 0;
	while (done < len) {
		size_t want = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t n = pread(in, buf, want, in_off + (off_t)done);
		ssize_t w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = n < 0 ? errno : EIO;
			return done;
		}
		while (w < n) {
			ssize_t m = stream ? write(out, buf + w, n - w) :
				    pwrite(out, buf + w, n - w,
					   out_off + (off_t)(done + w));

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				*err = m < 0 ? errno : ENOSPC;
				return done + w;
			}
			w += m;
		}
		done += n;
	}
	return done;
}

uint64_t kmt_tdw_copy(int out, uint64_t out_off, int in, uint64_t in_off,
		      uint64_t len, unsigned int flags, int *errp)
{
	uint64_t done = 0;
	int slow = 0;

	*errp = 0;
	while (done < len && !*errp) {
		size_t want = len - done < COPY_CHUNK ? len - done : COPY_CHUNK;
		loff_t ioff = in_off + done, ooff = out_off + done;
		ssize_t n;

		if (slow || (flags & KMT_TDW_COPY_STREAM)) {
			/*
			 * Into a pipe, sendfile or splice would pass the page
			 * cache's pages by reference, and punching the hole
			 * below would take them from the reader: copied.
			 */
			n = copy_slow(out, out_off + done, in, in_off + done,
				      want, !!(flags & KMT_TDW_COPY_STREAM), errp);
		} else {
			n = copy_file_range(in, &ioff, out, &ooff, want, 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
				      errno == EINVAL || errno == EOPNOTSUPP)) {
				slow = 1;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				*errp = n < 0 ? errno : EIO;
				break;
			}
		}
		if ((flags & KMT_TDW_COPY_PUNCH) && n > 0)
			fallocate(in, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)(in_off + done), n);
		done += n;
	}
	return done;
}

/* the reading side of the options, for readers libtracecmd leaves out */
struct source {
	int fd;
	uint64_t off;
	uint64_t size;
};

static int take(struct source *src, void *buf, size_t len)
{
	if (src->off + len > src->size)
		return -EINVAL;
	if (len && pread(src->fd, buf, len, (off_t)src->off) != (ssize_t)len)
		return errno ? -errno : -EIO;
	src->off += len;
	return 0;
}

static int skip(struct source *src, uint64_t len)
{
	if (len > src->size - src->off)
		return -EINVAL;
	src->off += len;
	return 0;
}

static int skip_sized(struct source *src, size_t width)
{
	uint64_t len = 0;
	uint32_t len32;
	int ret;

	if (width == 4) {
		ret = take(src, &len32, 4);
		len = len32;
	} else {
		ret = take(src, &len, 8);
	}
	return ret ? ret : skip(src, len);
}

static int skip_string(struct source *src)
{
	char c;
	int ret;

	do {
		ret = take(src, &c, 1);
	} while (!ret && c);
	return ret;
}

int kmt_tdw_read_options(int fd, kmt_tdw_option_fn fn, void *ctx)
{
	struct source src = { fd, 0, 0 };
	unsigned char head[KMT_TD_MAGIC_LEN + 2 + 2 + 4];
	char name[13];
	uint32_t n, i, j, events;
	off_t size = lseek(fd, 0, SEEK_END);
	int ret;

	if (size < 0)
		return -errno;
	src.size = (uint64_t)size;
	ret = take(&src, head, sizeof(head));
	if (ret)
		return ret;
	if (memcmp(head, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN))
		return -EINVAL;
	if (memcmp(head + KMT_TD_MAGIC_LEN, "6", 2))
		return -EPROTONOSUPPORT;
	if (head[KMT_TD_MAGIC_LEN + 2] != host_big_endian())
		return -EPROTONOSUPPORT;	/* written elsewhere: not ours */
	if ((ret = take(&src, name, 12)) || memcmp(name, "header_page", 12) ||
	    (ret = skip_sized(&src, 8)) || (ret = take(&src, name, 13)) ||
	    memcmp(name, "header_event", 13) || (ret = skip_sized(&src, 8)))
		return ret ? ret : -EINVAL;
	if ((ret = take(&src, &n, 4)))
		return ret;
	for (i = 0; i < n; i++) {
		if ((ret = skip_sized(&src, 8)))
			return ret;
	}
	if ((ret = take(&src, &n, 4)))
		return ret;
	for (i = 0; i < n; i++) {
		if ((ret = skip_string(&src)) || (ret = take(&src, &events, 4)))
			return ret;
		for (j = 0; j < events; j++) {
			if ((ret = skip_sized(&src, 8)))
				return ret;
		}
	}
	if ((ret = skip_sized(&src, 4)) || (ret = skip_sized(&src, 4)) ||
	    (ret = skip_sized(&src, 8)) || (ret = take(&src, &n, 4)) ||
	    (ret = take(&src, name, KMT_TD_TAG_LEN)))
		return ret;
	if (memcmp(name, KMT_TD_TAG_OPTIONS, KMT_TD_TAG_LEN))
		return 0;	/* "flyrecord" or "latency": no options */
	for (;;) {
		uint16_t id;
		uint32_t len;
		char *data;

		if ((ret = take(&src, &id, 2)))
			return ret;
		if (!id)
			return 0;
		if ((ret = take(&src, &len, 4)))
			return ret;
		if (len > src.size - src.off)
			return -EINVAL;
		data = malloc(len + 1);
		if (!data)
			return -ENOMEM;
		ret = take(&src, data, len);
		if (!ret) {
			data[len] = '\0';	/* text options may lack their NUL */
			ret = fn(ctx, id, data, len);
		}
		free(data);
		if (ret)
			return ret;
	}
}
