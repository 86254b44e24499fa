/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_ALLOCINFO_H
#define KMT_SOURCE_ALLOCINFO_H

#include <stddef.h>
#include <stdint.h>

#include "util/strtab.h"

/*
 * A reader of /proc/allocinfo (kernels since 6.10 with
 * CONFIG_MEM_ALLOC_PROFILING): one line per allocation callsite ("tag")
 * with the bytes it holds now and the calls that hold them,
 *
 *	allocinfo - version: 1.0
 *	#     <size>  <calls> <tag info>
 *	        4096        1 mm/foo.c:12 func:foo_alloc
 *	         512        4 drivers/x.c:80 [xmod] func:x_init accurate:no
 *
 * The header came with 6.10 (1.0); version 2.0 marks tags whose counters
 * may be short with "accurate:no".  Fields after the location are
 * key:value words; unknown ones are skipped, so that later kernels'
 * additions read.  Lines that cannot be read are counted with their
 * line numbers and left out; they do not stop the reader.
 */

/* the first malformed lines kept with where and why */
#define KMT_AI_NOTES 5

struct kmt_ai_tag {
	int64_t bytes;		/* the kernel prints it signed */
	uint64_t calls;
	/*
	 * Ids in the shared string table: key is the whole location
	 * "file:line [module] func:name", which names the tag across
	 * snapshots; module is 0 for code built in.
	 */
	uint32_t key, file, module, func;
	uint32_t line;
	unsigned inaccurate:1;
	uint64_t lineno;	/* its line in the input */
};

struct kmt_ai_note {
	uint64_t line;
	const char *why;	/* static text */
};

struct kmt_allocinfo {
	/* the caller's: snapshots read into one table share their ids */
	struct kmt_strtab *names;
	char version[16];	/* "1.0", "2.0"; "" without a header */
	struct kmt_ai_tag *tags;
	size_t nr, alloc;
	uint64_t nr_lines;
	uint64_t nr_inaccurate;
	uint64_t nr_malformed;
	struct kmt_ai_note notes[KMT_AI_NOTES];
	size_t nr_notes;
	char errmsg[256];
};

void kmt_allocinfo_init(struct kmt_allocinfo *ai, struct kmt_strtab *names);
void kmt_allocinfo_free(struct kmt_allocinfo *ai);
/* empties ai for the next snapshot, keeping its memory */
void kmt_allocinfo_reset(struct kmt_allocinfo *ai);

/*
 * Parses text; 0, or -errno with ai->errmsg: -ENOMEM, or -EINVAL when
 * the text is no allocinfo at all (no header and no line that reads as
 * a tag).  display names the input in messages.
 */
int kmt_allocinfo_parse(struct kmt_allocinfo *ai, const char *text,
			size_t len, const char *display);
/* reads path ("-": stdin) to its end and parses it; as parse */
int kmt_allocinfo_read(struct kmt_allocinfo *ai, const char *path);

/* the name of id in ai's table ("" for 0) */
const char *kmt_allocinfo_name(const struct kmt_allocinfo *ai, uint32_t id);

#endif
