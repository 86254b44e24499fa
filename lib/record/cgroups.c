// SPDX-License-Identifier: GPL-2.0
/*
 * Which memory cgroup each recorded task was in: a snapshot of /proc at
 * the start, and the moves and forks of the recording from a tracefs
 * instance of its own ("kmemtrace-cg-PID"), replayed at the end.  See
 * record/cgroups.h for why this shape.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "event/cgroups.h"
#include "record/cgroups.h"
#include "util/strtab.h"

/*
 * Per CPU, for events of some 40 to 100 bytes: tens of thousands of
 * forks a CPU before one is dropped (new ones are; the old ones stay)
 */
#define CG_BUFFER_KB 2048

enum cg_kind { CG_FORK, CG_ATTACH };

/* one event of the instance, in time order */
struct cg_step {
	uint64_t ts;
	int32_t a;		/* fork: the parent; attach: the task */
	int32_t b;		/* fork: the child */
	uint32_t path;		/* attach: where to */
	uint8_t kind;
	uint64_t seq;		/* ties in time keep the reading order */
};

struct kmt_rec_cgroups {
	struct tracefs_instance *inst;
	char name[48];
	int hier_id;		/* the memory hierarchy's id, 0 on v2 */
	char hierarchy[32];	/* "v1 memory", "v2" */
	struct kmt_strtab paths;
	struct kmt_hash_u32 start;	/* pid -> path at the snapshot */
	struct kmt_hash_i32 tgid;	/* pid -> tgid at the snapshot */
	int fork_id, attach_id, transfer_id;
	struct cg_step *steps;
	size_t nr_steps, alloc_steps;
	int failed;			/* out of memory while reading */
};

/*
 * The hierarchy of the memory controller, from /proc/self/cgroup's
 * "id:controllers:path" lines: a v1 line listing memory, else v2's "0::"
 */
static int find_hierarchy(struct kmt_rec_cgroups *cg)
{
	char line[512];
	int v2 = 0, found = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *end, *tok, *save = NULL;

		if (!ctl)
			continue;
		*ctl++ = '\0';
		end = strchr(ctl, ':');
		if (!end)
			continue;
		*end = '\0';
		if (!strcmp(line, "0") && !*ctl)
			v2 = 1;
		for (tok = strtok_r(ctl, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, "memory")) {
				cg->hier_id = atoi(line);
				snprintf(cg->hierarchy, sizeof(cg->hierarchy),
					 "v1 memory");
				found = 1;
			}
		}
	}
	fclose(f);
	if (found)
		return 0;
	if (!v2)
		return -ENOENT;
	cg->hier_id = 0;
	snprintf(cg->hierarchy, sizeof(cg->hierarchy), "v2");
	return 0;
}

/* the path of the hierarchy's line in a /proc/.../cgroup file, or 0 */
static uint32_t read_cgroup(struct kmt_rec_cgroups *cg, const char *file)
{
	char buf[4096], *p, *eol;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; p && *p; p = eol ? eol + 1 : NULL) {
		char *c1, *c2;

		eol = strchr(p, '\n');
		if (eol)
			*eol = '\0';
		c1 = strchr(p, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || atoi(p) != cg->hier_id || c2[1] != '/')
			continue;
		/* v2's line is "0::", not a v1 line with no controller */
		if (cg->hier_id == 0 && c2 != c1 + 1)
			continue;
		return kmt_strtab_intern(&cg->paths, c2 + 1, strlen(c2 + 1));
	}
	return 0;
}

static void note_task(struct kmt_rec_cgroups *cg, long tgid, long pid,
		      uint32_t path)
{
	uint32_t *slot;
	int32_t *t;

	if (!path || pid <= 0 || pid > INT32_MAX)
		return;
	slot = kmt_hash_u32_put(&cg->start, (uint64_t)pid, NULL);
	t = kmt_hash_i32_put(&cg->tgid, (uint64_t)pid, NULL);
	if (!slot || !t) {
		cg->failed = 1;
		return;
	}
	*slot = path;
	*t = (int32_t)tgid;
}

/* every task's cgroup now */
static void snapshot(struct kmt_rec_cgroups *cg)
{
	DIR *proc = opendir("/proc");
	struct dirent *pd;

	if (!proc)
		return;
	while ((pd = readdir(proc))) {
		long tgid = strtol(pd->d_name, NULL, 10);
		char path[PATH_MAX];
		struct dirent *td;
		DIR *task;

		if (tgid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", tgid);
		task = opendir(path);
		if (!task)
			continue;
		while ((td = readdir(task))) {
			long pid = strtol(td->d_name, NULL, 10);

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/task/%ld/cgroup",
				 tgid, pid);
			note_task(cg, tgid, pid, read_cgroup(cg, path));
		}
		closedir(task);
	}
	closedir(proc);
}

static int event_id(const char *system, const char *event)
{
	char *buf = tracefs_event_file_read(NULL, system, event, "id", NULL);
	long id = buf ? strtol(buf, NULL, 10) : -1;

	free(buf);
	return id > 0 && id < INT_MAX ? (int)id : -1;
}

/* the clock's name out of trace_clock's "local [global] counter" */
static void set_clock(struct tracefs_instance *inst, const char *clock)
{
	const char *open = clock ? strchr(clock, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;
	char name[64];

	if (!close || close - open - 1 <= 0 ||
	    close - open - 1 >= (long)sizeof(name))
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(close - open - 1), open + 1);
	tracefs_instance_file_write(inst, "trace_clock", name);
}

static int enable(struct kmt_rec_cgroups *cg, const char *system,
		  const char *event, int filter)
{
	char expr[32];

	if (filter) {
		/* only moves in the memory controller's hierarchy */
		snprintf(expr, sizeof(expr), "dst_root==%d", cg->hier_id);
		tracefs_event_file_write(cg->inst, system, event, "filter",
					 expr);
	}
	return tracefs_event_enable(cg->inst, system, event) < 0 ? -EIO : 0;
}

int kmt_rec_cgroups_start(struct kmt_rec_cgroups **out, const char *clock,
			  char *why, size_t why_len)
{
	struct kmt_rec_cgroups *cg = calloc(1, sizeof(*cg));
	int ret;

	*out = NULL;
	if (!cg || kmt_strtab_init(&cg->paths)) {
		free(cg);
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	kmt_hash_u32_init(&cg->start);
	kmt_hash_i32_init(&cg->tgid);
	ret = find_hierarchy(cg);
	if (ret) {
		snprintf(why, why_len,
			 "no memory cgroup hierarchy in /proc/self/cgroup");
		goto error;
	}
	cg->fork_id = event_id("sched", "sched_process_fork");
	cg->attach_id = event_id("cgroup", "cgroup_attach_task");
	cg->transfer_id = event_id("cgroup", "cgroup_transfer_tasks");
	if (cg->fork_id < 0 || cg->attach_id < 0) {
		ret = -ENOENT;
		snprintf(why, why_len, "this kernel lacks %s",
			 cg->fork_id < 0 ? "sched:sched_process_fork" :
					   "cgroup:cgroup_attach_task");
		goto error;
	}
	snprintf(cg->name, sizeof(cg->name), "kmemtrace-cg-%d", (int)getpid());
	cg->inst = tracefs_instance_create(cg->name);
	if (!cg->inst) {
		ret = -(errno ? errno : EIO);
		snprintf(why, why_len, "cannot create tracefs instance '%s': %s",
			 cg->name, strerror(-ret));
		goto error;
	}
	tracefs_trace_off(cg->inst);
	set_clock(cg->inst, clock);
	tracefs_instance_set_buffer_size(cg->inst, CG_BUFFER_KB, -1);
	/* a full buffer drops new events, never the moves seen first */
	tracefs_instance_file_write(cg->inst, "options/overwrite", "0");
	ret = enable(cg, "sched", "sched_process_fork", 0);
	if (!ret)
		ret = enable(cg, "cgroup", "cgroup_attach_task", 1);
	if (!ret && cg->transfer_id >= 0)
		ret = enable(cg, "cgroup", "cgroup_transfer_tasks", 1);
	if (ret || tracefs_trace_on(cg->inst) < 0) {
		ret = -EIO;
		snprintf(why, why_len, "cannot enable the cgroup events in '%s'",
			 cg->name);
		goto error;
	}
	/* after tracing is on: a move during the scan is in the events */
	snapshot(cg);
	*out = cg;
	return 0;
error:
	kmt_rec_cgroups_free(cg);
	return ret;
}

void kmt_rec_cgroups_stop(struct kmt_rec_cgroups *cg)
{
	if (cg && cg->inst)
		tracefs_trace_off(cg->inst);
}

static int add_step(struct kmt_rec_cgroups *cg, const struct cg_step *st)
{
	if (cg->nr_steps == cg->alloc_steps) {
		size_t n = cg->alloc_steps ? 2 * cg->alloc_steps : 256;
		struct cg_step *s = realloc(cg->steps, n * sizeof(*s));

		if (!s)
			return -ENOMEM;
		cg->steps = s;
		cg->alloc_steps = n;
	}
	cg->steps[cg->nr_steps] = *st;
	cg->steps[cg->nr_steps].seq = cg->nr_steps;
	cg->nr_steps++;
	return 0;
}

static int on_record(struct tep_event *ev, struct tep_record *rec, int cpu,
		     void *ctx)
{
	struct kmt_rec_cgroups *cg = ctx;
	unsigned long long a = 0, b = 0;
	struct cg_step st = { .ts = rec->ts };

	(void)cpu;
	if (ev->id == cg->fork_id) {
		if (tep_get_field_val(NULL, ev, "parent_pid", rec, &a, 0) ||
		    tep_get_field_val(NULL, ev, "child_pid", rec, &b, 0))
			return 0;
		st.kind = CG_FORK;
		st.a = (int32_t)a;
		st.b = (int32_t)b;
	} else if (ev->id == cg->attach_id || ev->id == cg->transfer_id) {
		const char *path;
		int len = 0;

		if (tep_get_field_val(NULL, ev, "dst_root", rec, &b, 0) ||
		    (int)b != cg->hier_id ||
		    tep_get_field_val(NULL, ev, "pid", rec, &a, 0))
			return 0;
		path = tep_get_field_raw(NULL, ev, "dst_path", rec, &len, 0);
		while (path && len > 0 && path[len - 1] == '\0')
			len--;
		if (!path || len <= 0 || path[0] != '/' ||
		    memchr(path, '\n', (size_t)len))
			return 0;
		st.kind = CG_ATTACH;
		st.a = (int32_t)a;
		st.path = kmt_strtab_intern(&cg->paths, path, (size_t)len);
		if (!st.path) {
			cg->failed = 1;
			return 1;
		}
	} else {
		return 0;
	}
	if (add_step(cg, &st)) {
		cg->failed = 1;
		return 1;
	}
	return 0;
}

static int cmp_step(const void *x, const void *y)
{
	const struct cg_step *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* a line of the map, when pid's cgroup changes to path at ts */
struct cg_line {
	int32_t pid;
	uint32_t path;
	uint64_t from;
	uint64_t seq;
};

struct cg_out {
	struct cg_line *l;
	size_t nr, alloc;
};

static int add_line(struct cg_out *o, int32_t pid, uint64_t from,
		    uint32_t path)
{
	if (o->nr == o->alloc) {
		size_t n = o->alloc ? 2 * o->alloc : 256;
		struct cg_line *l = realloc(o->l, n * sizeof(*l));

		if (!l)
			return -ENOMEM;
		o->l = l;
		o->alloc = n;
	}
	o->l[o->nr].pid = pid;
	o->l[o->nr].from = from;
	o->l[o->nr].path = path;
	o->l[o->nr].seq = o->nr;
	o->nr++;
	return 0;
}

static int cmp_line(const void *x, const void *y)
{
	const struct cg_line *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* pid's cgroup is path from ts on: in cur, and a line if it is kept */
static int move(struct kmt_hash_u32 *cur, const struct kmt_hash_set *pids,
		struct cg_out *o, int32_t pid, uint64_t ts, uint32_t path)
{
	uint32_t *slot = kmt_hash_u32_put(cur, (uint64_t)pid, NULL);

	if (!slot)
		return -ENOMEM;
	*slot = path;
	if (!kmt_hash_set_has(pids, (uint64_t)pid))
		return 0;
	return add_line(o, pid, ts, path);
}

/* the snapshot, then the steps in time order, for the tasks in pids */
static int replay(struct kmt_rec_cgroups *cg, const struct kmt_hash_set *pids,
		  struct cg_out *o)
{
	struct kmt_hash_u32 cur;
	uint32_t *path;
	int32_t *tgid;
	uint64_t pid;
	size_t it = 0, i;
	int ret = 0;

	kmt_hash_u32_init(&cur);
	while (!ret && kmt_hash_u32_next(&cg->start, &it, &pid, &path))
		ret = move(&cur, pids, o, (int32_t)pid, 0, *path);
	if (cg->nr_steps)	/* qsort wants a non-NULL base even for none */
		qsort(cg->steps, cg->nr_steps, sizeof(*cg->steps), cmp_step);
	for (i = 0; !ret && i < cg->nr_steps; i++) {
		const struct cg_step *st = &cg->steps[i];
		const uint32_t *from;

		if (st->kind == CG_FORK) {
			/* a child starts in its parent's cgroup */
			from = kmt_hash_u32_get(&cur, (uint64_t)st->a);
			if (from)
				ret = move(&cur, pids, o, st->b, st->ts, *from);
			continue;
		}
		ret = move(&cur, pids, o, st->a, st->ts, st->path);
		/*
		 * The event names the thread-group leader only, and moving
		 * a process (cgroup.procs) moves its threads: those of the
		 * snapshot go with it.  (A v1 "tasks" write moves one
		 * thread; a leader moved alone is taken for its process.)
		 */
		it = 0;
		while (!ret && kmt_hash_i32_next(&cg->tgid, &it, &pid, &tgid)) {
			if (*tgid == st->a && (int32_t)pid != st->a)
				ret = move(&cur, pids, o, (int32_t)pid, st->ts,
					   st->path);
		}
	}
	kmt_hash_u32_free(&cur);
	return ret;
}

/* tasks the replay could not place, alive at the end: read them now */
static int place_rest(struct kmt_rec_cgroups *cg,
		      const struct kmt_hash_set *pids, struct cg_out *o)
{
	struct kmt_hash_set placed;
	uint64_t pid;
	size_t it = 0, i;
	int ret = 0;

	kmt_hash_set_init(&placed);
	for (i = 0; i < o->nr && !ret; i++)
		ret = kmt_hash_set_add(&placed, (uint64_t)o->l[i].pid);
	while (!ret && kmt_hash_set_next(pids, &it, &pid)) {
		char file[64];
		uint32_t path;

		if (!pid || pid > INT32_MAX || kmt_hash_set_has(&placed, pid))
			continue;
		snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
		path = read_cgroup(cg, file);
		if (path)
			ret = add_line(o, (int32_t)pid, 0, path);
	}
	kmt_hash_set_free(&placed);
	return ret;
}

int kmt_rec_cgroups_text(struct kmt_rec_cgroups *cg,
			 const struct kmt_hash_set *pids, struct kmt_sb *text)
{
	const char *systems[] = { "sched", "cgroup", NULL };
	const struct cg_line *last = NULL;
	struct cg_out o = { 0 };
	struct tep_handle *tep;
	size_t i;
	int ret;

	if (!cg || cg->failed)
		return cg ? -ENOMEM : 0;
	tep = tracefs_local_events_system(NULL, systems);
	if (tep) {
		tracefs_iterate_raw_events(tep, cg->inst, NULL, 0, on_record,
					   cg);
		tep_free(tep);
	}
	if (cg->failed)
		return -ENOMEM;
	ret = replay(cg, pids, &o);
	if (!ret)
		ret = place_rest(cg, pids, &o);
	if (ret)
		goto out;
	if (o.nr)
		qsort(o.l, o.nr, sizeof(*o.l), cmp_line);
	kmt_sb_adds(text, KMT_CGMAP_MAGIC);
	kmt_sb_addf(text, KMT_CGMAP_HIERARCHY "%s\n", cg->hierarchy);
	for (i = 0; i < o.nr; i++) {
		const struct cg_line *l = &o.l[i];

		/* a later step at the same time wins */
		if (i + 1 < o.nr && l[1].pid == l->pid && l[1].from == l->from)
			continue;
		/* the same cgroup again (a move to where it was) says nothing */
		if (last && last->pid == l->pid && last->path == l->path)
			continue;
		last = l;
		kmt_sb_addf(text, "%d %llu %s\n", (int)l->pid,
			    (unsigned long long)l->from,
			    kmt_strtab_get(&cg->paths, l->path));
	}
	if (text->oom)
		ret = -ENOMEM;
out:
	free(o.l);
	return ret;
}

void kmt_rec_cgroups_free(struct kmt_rec_cgroups *cg)
{
	if (!cg)
		return;
	if (cg->inst) {
		tracefs_trace_off(cg->inst);
		tracefs_instance_destroy(cg->inst);
		tracefs_instance_free(cg->inst);
	}
	kmt_strtab_free(&cg->paths);
	kmt_hash_u32_free(&cg->start);
	kmt_hash_i32_free(&cg->tgid);
	free(cg->steps);
	free(cg);
}
