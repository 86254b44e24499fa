/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BPF_CGROUPS_H
#define KMT_BPF_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "kmt.h"
#include "util/hash.h"

KMT_HASH_TYPE(kmt_cgroup_paths, char *)

/*
 * The memory cgroups the BPF programs name by id: which hierarchy holds
 * the memory controller (cgroup v2, or a v1 hierarchy of its own on a
 * hybrid machine), and the path of an id in it.  The id is the kernfs
 * id of the cgroup's directory, which is its inode number, so the paths
 * come from a walk of the hierarchy's directories, made again when an
 * id is not known (a cgroup made since), at most once a refresh.
 */
struct kmt_cgroups {
	enum kmt_cgroup_mode mode;
	char root[256];			/* where the hierarchy is mounted */
	struct kmt_cgroup_paths paths;	/* id -> "/a/b" */
	int scanned;			/* walked since kmt_cgroups_refresh */
	char errmsg[256];
};

/*
 * Finds the hierarchy (/proc/cgroups, /proc/self/mountinfo).  0, or
 * -errno with c->errmsg saying why there is no memory cgroup to name.
 */
int kmt_cgroups_init(struct kmt_cgroups *c);
void kmt_cgroups_free(struct kmt_cgroups *c);
/* a new refresh: an unknown id may walk the hierarchy again */
void kmt_cgroups_refresh(struct kmt_cgroups *c);
/* the path of id ("/" the root), or NULL: a cgroup removed since */
const char *kmt_cgroups_path(struct kmt_cgroups *c, uint64_t id);
/* "memory cgroup v1 at /sys/fs/cgroup/memory" */
const char *kmt_cgroups_describe(const struct kmt_cgroups *c, char *buf,
				 size_t size);

#endif
