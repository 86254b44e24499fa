// SPDX-License-Identifier: GPL-2.0
/*
 * record's snapshots of the kernel's counters, taken before tracing
 * starts and after it stops, so the reading itself (a few hundred
 * allocations of seq_file buffers) is never among the events.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/kcounters-rec.h"

#define SLAB_SYSFS "/sys/kernel/slab"

static const char *const when_names[] = { "start", "end" };

static void missing(struct kmt_sb *out, const char *when, const char *part,
		    int err)
{
	kmt_sb_addf(out, "@%s missing %s %s\n", when, part, strerror(-err));
}

/* a merged cache's sysfs link: the id of the cache it is part of */
static int link_target(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), SLAB_SYSFS "/%s", name);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * "name cpu_partial aliases..." for each cache of slabinfo: SLUB's
 * sysfs names every cache merged into another by a link to the same
 * ":id" directory as the cache slabinfo lists (whose name the
 * tracepoints give for all of them)
 */
static void slabsys(struct kmt_sb *out, const struct kmt_kcounters_snap *snap)
{
	struct link { char *name, *target; } *links = NULL;
	size_t nr = 0, alloc = 0, i, j;
	DIR *d = opendir(SLAB_SYSFS);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char target[256];

		if (de->d_type != DT_LNK || link_target(de->d_name, target,
							 sizeof(target)))
			continue;
		if (nr == alloc) {
			struct link *n = realloc(links, (alloc = alloc * 2 + 64) *
						 sizeof(*links));

			if (!n)
				break;
			links = n;
		}
		links[nr].name = strdup(de->d_name);
		links[nr].target = strdup(target);
		if (!links[nr].name || !links[nr].target) {
			free(links[nr].name);
			free(links[nr].target);
			break;
		}
		nr++;
	}
	if (d)
		closedir(d);
	kmt_sb_adds(out, "slabsys\n");
	for (i = 0; i < snap->nr_slabs; i++) {
		const char *name = snap->slabs[i].name;
		struct kmt_sb v = KMT_SB_INIT;
		char path[PATH_MAX], target[256];
		long partial = -1;

		snprintf(path, sizeof(path), SLAB_SYSFS "/%s/cpu_partial", name);
		if (!kmt_sb_read_file(&v, path) && v.len)
			partial = strtol(kmt_sb_str(&v), NULL, 10);
		kmt_sb_release(&v);
		if (partial >= 0)
			kmt_sb_addf(out, "%s %ld", name, partial);
		else
			kmt_sb_addf(out, "%s -", name);
		if (!link_target(name, target, sizeof(target))) {
			for (j = 0; j < nr; j++) {
				if (!strcmp(links[j].target, target) &&
				    strcmp(links[j].name, name))
					kmt_sb_addf(out, " %s", links[j].name);
			}
		}
		kmt_sb_addc(out, '\n');
	}
	for (i = 0; i < nr; i++) {
		free(links[i].name);
		free(links[i].target);
	}
	free(links);
}

static unsigned int take_slabinfo(struct kmt_sb *out, const char *when,
				  char *why, size_t whylen)
{
	struct kmt_sb text = KMT_SB_INIT;
	struct kmt_kcounters c;
	char err[128];
	int ret = kmt_sb_read_file(&text, "/proc/slabinfo");

	kmt_kcounters_init(&c);
	if (!ret)
		ret = kmt_kcounters_parse_slabinfo(&c, &c.at[0], text.buf,
						   text.len, err, sizeof(err));
	if (ret) {
		if (ret == -EINVAL)
			snprintf(why, whylen, "'/proc/slabinfo' %s", err);
		else
			snprintf(why, whylen, "cannot read '/proc/slabinfo': %s",
				 strerror(-ret));
		missing(out, when, "slabinfo", ret);
	} else {
		kmt_sb_addf(out, "@%s slabinfo\n", when);
		kmt_sb_add(out, text.buf, text.len);
		if (text.len && text.buf[text.len - 1] != '\n')
			kmt_sb_addc(out, '\n');
		kmt_sb_addf(out, "@%s ", when);
		slabsys(out, &c.at[0]);
	}
	kmt_kcounters_free(&c);
	kmt_sb_release(&text);
	return ret ? KMT_CNT_SLABINFO : 0;
}

static unsigned int take_meminfo(struct kmt_sb *out, const char *when)
{
	struct kmt_sb text = KMT_SB_INIT;
	const char *p, *end;
	int ret = kmt_sb_read_file(&text, "/proc/meminfo");
	size_t i;

	if (ret) {
		missing(out, when, "meminfo", ret);
		kmt_sb_release(&text);
		return KMT_CNT_MEMINFO;
	}
	kmt_sb_addf(out, "@%s meminfo\n", when);
	/* only the lines kept: the rest is of no use to the report */
	for (p = text.buf, end = p + text.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		for (i = 0; i < KMT_MEM_NR; i++) {
			const char *name = kmt_meminfo_name(i);
			size_t k = strlen(name);

			if (n > k && !memcmp(p, name, k) && p[k] == ':') {
				kmt_sb_add(out, p, n);
				kmt_sb_addc(out, '\n');
			}
		}
		p += n + 1;
	}
	kmt_sb_release(&text);
	return 0;
}

static unsigned int take_vmalloc(struct kmt_sb *out, const char *when)
{
	struct kmt_sb text = KMT_SB_INIT;
	struct kmt_kcounters c;
	char err[128];
	int ret = kmt_sb_read_file(&text, "/proc/vmallocinfo");
	size_t i;

	kmt_kcounters_init(&c);
	if (!ret)
		ret = kmt_kcounters_parse_vmallocinfo(&c, &c.at[0], text.buf,
						      text.len, err, sizeof(err));
	if (ret) {
		missing(out, when, "vmalloc", ret);
	} else {
		kmt_sb_addf(out, "@%s vmalloc\n", when);
		for (i = 0; i < c.at[0].nr_vm; i++) {
			const struct kmt_vmalloc_caller *v = &c.at[0].vm[i];

			kmt_sb_addf(out, "%llu %llu %s\n",
				    (unsigned long long)v->areas,
				    (unsigned long long)v->bytes, v->caller);
		}
	}
	kmt_kcounters_free(&c);
	kmt_sb_release(&text);
	return ret ? KMT_CNT_VMALLOC : 0;
}

int kmt_rec_kcounters_take(struct kmt_sb *out, enum kmt_kcounters_when when,
			   char *why, size_t whylen)
{
	const char *w = when_names[when == KMT_CNT_END];
	unsigned int miss = 0;

	if (!out->len)
		kmt_sb_adds(out, KMT_KCOUNTERS_MAGIC);
	if (whylen)
		why[0] = '\0';
	miss |= take_slabinfo(out, w, why, whylen);
	miss |= take_meminfo(out, w);
	miss |= take_vmalloc(out, w);
	return out->oom ? -ENOMEM : (int)miss;
}
