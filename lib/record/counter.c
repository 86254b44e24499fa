// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracefs.h>

#include "record/counter.h"
#include "record/recorder.h"

static int counter_error(struct kmt_counters *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int counter_error(struct kmt_counters *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : (err ? err : -EINVAL);
}

static int add_event(struct kmt_counters *c, const char *system,
		     const char *name)
{
	char full[256];
	int i, id;

	snprintf(full, sizeof(full), "%s:%s", system, name);
	for (i = 0; i < c->nr_events; i++) {
		if (!strcmp(c->names[i], full))
			return 0;
	}
	if (c->nr_events >= KMT_COUNTER_MAX_EVENTS)
		return 0;
	id = kmt_rec_event_id(system, name);
	if (id < 0)
		return 0;	/* listed but without an id: not a tracepoint */
	c->names[c->nr_events] = strdup(full);
	if (!c->names[c->nr_events])
		return -ENOMEM;
	c->ids[c->nr_events++] = id;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The events of one system: the allocator events first, in kmemtrace's
 * order, then the rest.  A kernel without the system counts the others.
 */
static int add_system(struct kmt_counters *c, const char *system)
{
	char **list = tracefs_system_events(NULL, system);
	unsigned int i;
	int n, ret = 0;

	if (!list)
		return -ENOENT;
	for (i = 0; !ret && i < kmt_rec_nr_events; i++) {
		const struct kmt_rec_event *e = &kmt_rec_events[i];
		char **p;

		if (strcmp(e->system, system))
			continue;
		for (p = list; *p && strcmp(*p, e->name); p++)
			;
		if (*p)
			ret = add_event(c, system, e->name);
	}
	n = tracefs_list_size(list);
	qsort(list, n, sizeof(*list), cmp_str);
	for (i = 0; !ret && list[i]; i++)
		ret = add_event(c, system, list[i]);
	tracefs_list_free(list);
	return ret;
}

int kmt_counters_init(struct kmt_counters *c)
{
	int i, ret;

	memset(c, 0, sizeof(*c));
	ret = add_system(c, "kmem");
	if (ret == -ENOENT)
		return counter_error(c, ENOENT,
				     "this kernel has no kmem events in tracefs");
	for (i = 1; !ret && i < KMT_REC_NR_SYSTEMS; i++) {
		ret = add_system(c, kmt_rec_systems[i]);
		if (ret == -ENOENT)
			ret = 0;
	}
	if (ret)
		return counter_error(c, ret, "out of memory");
	if (!c->nr_events)
		return counter_error(c, ENOENT, "this kernel has no kmem events");
	return 0;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

int kmt_counters_open(struct kmt_counters *c, enum kmt_counter_target target,
		      const pid_t *tasks, size_t nr_tasks)
{
	long nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	int e, i, opened;

	if (nr_cpus < 1)
		nr_cpus = 1;
	c->nr_per_event = target == KMT_COUNT_SYSTEM ? (int)nr_cpus :
			  (int)nr_tasks;
	c->fds = malloc(sizeof(int) * c->nr_events * (c->nr_per_event ?
						       c->nr_per_event : 1));
	if (!c->fds)
		return counter_error(c, ENOMEM, "out of memory");
	for (i = 0; i < c->nr_events * c->nr_per_event; i++)
		c->fds[i] = -1;

	for (e = 0; e < c->nr_events; e++) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.size = sizeof(attr);
		attr.config = (uint64_t)c->ids[e];
		attr.disabled = 1;
		attr.inherit = target != KMT_COUNT_SYSTEM;
		attr.enable_on_exec = target == KMT_COUNT_EXEC;
		opened = 0;
		for (i = 0; i < c->nr_per_event; i++) {
			int fd;

			if (target == KMT_COUNT_SYSTEM)
				fd = perf_open(&attr, -1, i);
			else
				fd = perf_open(&attr, tasks[i], -1);
			if (fd < 0 && target == KMT_COUNT_SYSTEM &&
			    errno == ENODEV)
				continue;	/* an offline CPU */
			if (fd < 0 && target == KMT_COUNT_TASKS &&
			    errno == ESRCH)
				continue;	/* a thread that ended meanwhile */
			if (fd < 0) {
				int err = errno;

				return counter_error(c, err,
					"cannot count %s: %s%s", c->names[e],
					strerror(err),
					err == EACCES || err == EPERM ?
					" (counting kernel events needs root or perf_event_paranoid -1)" :
					"");
			}
			c->fds[e * c->nr_per_event + i] = fd;
			opened++;
		}
		if (!opened)
			return counter_error(c, ESRCH, "nothing left to count");
	}
	if (target == KMT_COUNT_EXEC)
		return 0;
	for (i = 0; i < c->nr_events * c->nr_per_event; i++) {
		if (c->fds[i] >= 0)
			ioctl(c->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	}
	return 0;
}

int kmt_counters_read(struct kmt_counters *c, uint64_t *values)
{
	int e, i;

	for (e = 0; e < c->nr_events; e++) {
		values[e] = 0;
		for (i = 0; i < c->nr_per_event; i++) {
			int fd = c->fds[e * c->nr_per_event + i];
			uint64_t v;

			if (fd < 0)
				continue;
			if (read(fd, &v, sizeof(v)) != sizeof(v))
				return counter_error(c, errno ? errno : EIO,
						     "cannot read the count of %s: %s",
						     c->names[e],
						     strerror(errno ? errno : EIO));
			values[e] += v;
		}
	}
	return 0;
}

void kmt_counters_free(struct kmt_counters *c)
{
	int i;

	for (i = 0; c->fds && i < c->nr_events * c->nr_per_event; i++) {
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	}
	free(c->fds);
	c->fds = NULL;
	for (i = 0; i < c->nr_events; i++)
		free(c->names[i]);
	c->nr_events = 0;
}
