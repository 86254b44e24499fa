// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/cgroups.h"

/* cgroup directories deeper than this are not named (a loop guard) */
#define CG_DEPTH	32

/*
 * The memory controller's line of /proc/cgroups: its hierarchy id (0:
 * cgroup v2, or none) and whether it is enabled.  0, or -ENOENT.
 */
static int memory_hierarchy(int *hier, int *enabled)
{
	FILE *f = fopen("/proc/cgroups", "re");
	char *line = NULL;
	size_t cap = 0;
	int h, n, e, ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "memory %d %d %d", &h, &n, &e) == 3) {
			*hier = h;
			*enabled = e;
			ret = 0;
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * The mount point of a cgroup hierarchy: cgroup2 (v1 0), or the cgroup
 * (v1) mount whose super options name the memory controller.
 */
static int find_mount(char *root, size_t size, int v1)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char mnt[256], fstype[64], opts[512];
		char *sep = strstr(line, " - ");

		/* id parent major:minor root mount-point options ... - fs */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s %*s %511s", fstype, opts) != 2)
			continue;
		if (v1 ? strcmp(fstype, "cgroup") ||
			 !strstr(opts, "memory") : strcmp(fstype, "cgroup2"))
			continue;
		/* options are comma-separated: memory, not memory_foo */
		if (v1) {
			char *o, *save = NULL;
			int found = 0;

			for (o = strtok_r(opts, ",", &save); o;
			     o = strtok_r(NULL, ",", &save))
				found |= !strcmp(o, "memory");
			if (!found)
				continue;
		}
		snprintf(root, size, "%s", mnt);
		ret = 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

int kmt_cgroups_init(struct kmt_cgroups *c)
{
	int hier = 0, enabled = 0, ret;

	memset(c, 0, sizeof(*c));
	kmt_cgroup_paths_init(&c->paths);
	ret = memory_hierarchy(&hier, &enabled);
	if (ret || !enabled) {
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "this kernel has no memory cgroup controller (/proc/cgroups)");
		return ret ? ret : -ENOENT;
	}
	ret = find_mount(c->root, sizeof(c->root), hier != 0);
	if (ret) {
		snprintf(c->errmsg, sizeof(c->errmsg),
			 hier ? "the memory cgroup hierarchy (v1) is not mounted" :
			 "the cgroup v2 hierarchy is not mounted");
		return ret;
	}
	c->mode = hier ? KMT_CG_V1_MEMORY : KMT_CG_V2;
	return 0;
}

void kmt_cgroups_free(struct kmt_cgroups *c)
{
	size_t it = 0;
	uint64_t key;
	char **p;

	while (kmt_cgroup_paths_next(&c->paths, &it, &key, &p))
		free(*p);
	kmt_cgroup_paths_free(&c->paths);
}

void kmt_cgroups_refresh(struct kmt_cgroups *c)
{
	c->scanned = 0;
}

static int note(struct kmt_cgroups *c, uint64_t ino, const char *path)
{
	char **p;
	int is_new;

	p = kmt_cgroup_paths_put(&c->paths, ino, &is_new);
	if (!p)
		return -ENOMEM;
	if (!is_new) {
		if (!strcmp(*p, path))
			return 0;
		free(*p);
	}
	*p = strdup(path);
	if (!*p) {
		kmt_cgroup_paths_del(&c->paths, ino, NULL);
		return -ENOMEM;
	}
	return 0;
}

/* the directories under dirfd, at rel ("" the root) */
static int walk(struct kmt_cgroups *c, int dirfd, char *rel, size_t len,
		size_t size, int depth)
{
	struct dirent *e;
	DIR *d;
	int ret = 0;

	d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		struct stat st;
		int fd, w;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		fd = openat(dirfd, e->d_name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* removed meanwhile */
		w = snprintf(rel + len, size - len, "/%s", e->d_name);
		if (w < 0 || (size_t)w >= size - len || fstat(fd, &st)) {
			close(fd);
			continue;
		}
		ret = note(c, st.st_ino, rel);
		if (!ret && depth < CG_DEPTH)
			ret = walk(c, fd, rel, len + w, size, depth + 1);
		else
			close(fd);
		rel[len] = 0;
		if (ret == -ENOMEM)
			break;
		ret = 0;
	}
	closedir(d);
	return ret;
}

static void scan(struct kmt_cgroups *c)
{
	char rel[4096] = "";
	struct stat st;
	int fd;

	c->scanned = 1;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!fstat(fd, &st))
		note(c, st.st_ino, "/");
	walk(c, fd, rel, 0, sizeof(rel), 0);
}

const char *kmt_cgroups_path(struct kmt_cgroups *c, uint64_t id)
{
	char **p;

	if (!c->mode)
		return NULL;
	p = kmt_cgroup_paths_get(&c->paths, id);
	if (!p && !c->scanned) {
		scan(c);
		p = kmt_cgroup_paths_get(&c->paths, id);
	}
	return p ? *p : NULL;
}

const char *kmt_cgroups_describe(const struct kmt_cgroups *c, char *buf,
				 size_t size)
{
	snprintf(buf, size, "memory cgroup %s at %s",
		 c->mode == KMT_CG_V1_MEMORY ? "v1" : "v2", c->root);
	return buf;
}
