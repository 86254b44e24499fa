// SPDX-License-Identifier: GPL-2.0
/*
 * Live recording through a private tracefs instance.  The top level of
 * tracefs is only ever read (formats, kallsyms, saved_cmdlines); every
 * setting kmemtrace makes lives in its own instance, which goes away with
 * kmt_rec_free.  Pages travel from the ring buffer to disk by splice
 * (tracefs_cpu_write) and from the per-CPU files into the trace.dat by
 * copy_file_range, so the event data is never copied through user space
 * except for the last, partly filled page of each CPU.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <kbuffer.h>
#include <tracefs.h>
#include <sys/mman.h>

#include "record/kcounters-rec.h"
#include "record/cgroups.h"
#include "record/recorder.h"
#include "record/workload.h"
#include "record/tracedat-write.h"
#include "source/bootinfo.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/strtab.h"

const struct kmt_rec_event kmt_rec_events[] = {
	{ "kmem", "kmalloc",			KMT_REC_SLAB,	 0, 0 },
	{ "kmem", "kmem_cache_alloc",		KMT_REC_SLAB,	 0, 0 },
	{ "kmem", "kfree",			KMT_REC_SLAB,	 0, 0 },
	{ "kmem", "kmem_cache_free",		KMT_REC_SLAB,	 0, 0 },
	{ "kmem", "kmalloc_node",		KMT_REC_SLAB,	 1, 0 },
	{ "kmem", "kmem_cache_alloc_node",	KMT_REC_SLAB,	 1, 0 },
	{ "kmem", "mm_page_alloc",		KMT_REC_PAGE,	 0, 1 },
	{ "kmem", "mm_page_free",		KMT_REC_PAGE,	 0, 0 },
	{ "kmem", "mm_page_free_batched",	KMT_REC_PAGE,	 0, 0 },
	{ "kmem", "mm_page_free_direct",	KMT_REC_PAGE,	 1, 0 },
	{ "kmem", "mm_pagevec_free",		KMT_REC_PAGE,	 1, 0 },
	{ "kmem", "mm_page_alloc_zone_locked",	KMT_REC_PCPU,	 0, 0 },
	{ "kmem", "mm_page_pcpu_drain",		KMT_REC_PCPU,	 0, 0 },
	{ "kmem", "mm_page_alloc_extfrag",	KMT_REC_EXTFRAG, 0, 0 },
	/*
	 * Rare next to the slab events (a few per BPF map, cgroup or
	 * namespace): recorded by default.  vmalloc has no call site, so
	 * its stack is how anyone knows who; percpu's names its caller but
	 * the stack says why.
	 */
	{ "percpu", "percpu_alloc_percpu",	KMT_REC_PERCPU,	 0, 1 },
	{ "percpu", "percpu_free_percpu",	KMT_REC_PERCPU,	 0, 0 },
	{ "percpu", "percpu_alloc_percpu_fail",	KMT_REC_PERCPU,	 0, 1 },
	{ "percpu", "percpu_create_chunk",	KMT_REC_PERCPU,	 0, 0 },
	{ "percpu", "percpu_destroy_chunk",	KMT_REC_PERCPU,	 0, 0 },
	{ "vmalloc", "alloc_vmap_area",		KMT_REC_VMALLOC, 0, 1 },
	{ "vmalloc", "free_vmap_area_noflush",	KMT_REC_VMALLOC, 0, 0 },
	{ "vmalloc", "purge_vmap_area_lazy",	KMT_REC_VMALLOC, 0, 0 },
};

const char *const kmt_rec_systems[KMT_REC_NR_SYSTEMS] = {
	"kmem", "percpu", "vmalloc"
};

const unsigned int kmt_rec_nr_events =
	sizeof(kmt_rec_events) / sizeof(kmt_rec_events[0]);

/*
 * Readers wake when a CPU's buffer is this full, then drain it all: early
 * enough to leave most of the buffer as slack for a reader that is late.
 */
#define WAKE_PERCENT "10"

/*
 * Room reserved beyond the header's estimate: for the cmdlines and stats,
 * and for the first chunks of pages moved into the file, so that on a
 * full disk the move (which frees each chunk of the temporary file as it
 * goes) always has somewhere to start.  Four of kmt_tdw_copy's chunks.
 */
#define HEADER_SLACK (4u << 20)

/* pid -> (comm, tgid) of every task, from saved_cmdlines and /proc */
struct task_info {
	uint32_t comm;
	int32_t tgid;
};

KMT_HASH_TYPE(task_map, struct task_info)

struct tasks {
	struct task_map map;
	struct kmt_strtab names;
};

/* the formats of one tracefs system, names[k] the name of blobs[k] */
struct rec_formats {
	char **names;			/* a tracefs list */
	struct kmt_blob *blobs;
	size_t nr;
};

struct kmt_rec_meta {
	char *header_page, *header_event, *printk, *clock;
	int header_page_len, header_event_len, printk_len, clock_len;
	struct rec_formats ftrace;
	struct rec_formats sys[KMT_REC_NR_SYSTEMS];	/* kmt_rec_systems */
	struct kmt_sb kallsyms;
	char uname[512];
	struct kmt_bootinfo boot;	/* the boot id; the clocks at the start */
	struct kmt_sb nodes;		/* the nodes option's text, or empty */
	struct kmt_sb kcounters;	/* the counters option's text, or empty */
	struct tasks tasks;
	int have_tasks;
};

static void tasks_from_proc(struct tasks *t);
static int host_big_endian(void);

static int rec_error(struct kmt_rec *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rec_error(struct kmt_rec *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : (err ? err : -EINVAL);
}

int kmt_rec_check_access(char *err, size_t errlen)
{
	const char *dir = NULL;
	struct stat st;
	char path[PATH_MAX];

	if (geteuid() != 0) {
		snprintf(err, errlen,
			 "tracing kernel events needs root: run it as root or with sudo");
		return -EPERM;
	}
	/* libtracefs mounts tracefs when it is not and it may */
	dir = tracefs_tracing_dir();
	if (!dir) {
		snprintf(err, errlen,
			 "tracefs is not mounted and could not be: mount it with 'mount -t tracefs nodev /sys/kernel/tracing'");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/events/kmem", dir);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
			 "this kernel has no kmem events ('%s' is missing): it needs CONFIG_TRACEPOINTS",
			 path);
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (stat(path, &st) < 0) {
		snprintf(err, errlen,
			 "'%s' is missing: this kernel has no tracing instances",
			 path);
		return -ENOENT;
	}
	return 0;
}

int kmt_rec_event_id(const char *system, const char *name)
{
	char *buf;
	long id;
	int len = 0;

	buf = tracefs_event_file_read(NULL, system, name, "id", &len);
	if (!buf)
		return -ENOENT;
	id = strtol(buf, NULL, 10);
	free(buf);
	return id > 0 && id < INT_MAX ? (int)id : -EINVAL;
}

unsigned int kmt_rec_default_buffer_kb(int nr_cpus)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t kb = KMT_REC_DEFAULT_BUFFER_KB;

	/* all the buffers together take at most 1/64 of the memory */
	if (pages > 0 && psize > 0 && nr_cpus > 0) {
		uint64_t cap = (uint64_t)pages * (uint64_t)psize / 1024 / 64 /
			       (uint64_t)nr_cpus;

		if (cap < kb)
			kb = cap;
	}
	if (kb < KMT_REC_MIN_BUFFER_KB)
		kb = KMT_REC_MIN_BUFFER_KB;
	return (unsigned int)kb;
}

void kmt_rec_init(struct kmt_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->out_fd = -1;
}

/*
 * Instances of kmemtrace runs that were killed before they could clean
 * up: "kmemtrace-PID", and the cgroup events' "kmemtrace-cg-PID"
 * (record/cgroups.c), where PID is gone.  (tracefs_instances() would do
 * the matching, but libtracefs 1.6 leaks its regex.)
 */
static int remove_if_stale(const char *name, void *ctx)
{
	struct tracefs_instance *inst;
	const char *num = name + 10;
	char *end;
	long pid;

	(void)ctx;
	if (strncmp(name, "kmemtrace-", 10))
		return 0;
	if (!strncmp(num, "cg-", 3))
		num += 3;
	pid = strtol(num, &end, 10);
	if (*end || end == num || pid <= 0 || pid == getpid() ||
	    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (inst) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	return 0;
}

static void remove_stale_instances(void)
{
	tracefs_instances_walk(remove_if_stale, NULL);
}

static int read_formats(const char *system, struct rec_formats *f)
{
	char ***names = &f->names;
	struct kmt_blob **blobs = &f->blobs;
	size_t *nr = &f->nr, i, n;

	*names = tracefs_system_events(NULL, system);
	if (!*names)
		return -ENOENT;
	n = tracefs_list_size(*names);
	*blobs = calloc(n ? n : 1, sizeof(**blobs));
	if (!*blobs)
		return -ENOMEM;
	*nr = 0;
	for (i = 0; i < n; i++) {
		int len = 0;
		char *fmt = tracefs_event_file_read(NULL, system, (*names)[i],
						    "format", &len);

		if (!fmt)
			continue;	/* an event without a format is not ours */
		/* names[k] stays the name of blobs[k] */
		if (i != *nr) {
			char *name = (*names)[i];

			(*names)[i] = (*names)[*nr];
			(*names)[*nr] = name;
		}
		(*blobs)[*nr].data = fmt;
		(*blobs)[(*nr)++].len = len;
	}
	return 0;
}

/*
 * The formats of the events of system enabled, as trace-cmd record writes
 * those of the events it records: a reader takes a format missing for
 * an event not recorded (report says "not recorded", not 0).
 */
static size_t enabled_formats(const struct kmt_rec *r,
			      const struct rec_formats *f, const char *system,
			      struct kmt_blob *out)
{
	size_t i, k, n = 0;

	for (i = 0; i < f->nr; i++) {
		for (k = 0; k < r->nr_enabled; k++) {
			if (!strcmp(r->enabled[k]->system, system) &&
			    !strcmp(f->names[i], r->enabled[k]->name)) {
				out[n++] = f->blobs[i];
				break;
			}
		}
	}
	return n;
}
/* without it (no /proc, an old kernel) the recording just says less */
#define NODE_DIR "/sys/devices/system/node"

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * The CPUs of each NUMA node, as the nodes option holds them: a report
 * compares the node an allocation asked for with its CPU's, and only
 * the traced machine knows which that is.  A kernel without NUMA has no
 * node directory: no option, and the report says "not recorded".  So
 * does a node whose list cannot be read: part of a map would pass
 * remote asks for local ones.
 */
static void read_nodes(struct kmt_sb *out)
{
	DIR *dir = opendir(NODE_DIR);
	unsigned int *ids = NULL, id;
	size_t nr = 0, alloc = 0, i;
	struct dirent *de;
	int bad = !dir;

	while (dir && !bad && (de = readdir(dir))) {
		int end = 0;

		if (sscanf(de->d_name, "node%u%n", &id, &end) != 1 ||
		    de->d_name[end])
			continue;
		if (nr == alloc) {
			unsigned int *more;

			alloc = alloc ? 2 * alloc : 16;
			more = realloc(ids, alloc * sizeof(*ids));
			if (!more) {
				bad = 1;
				break;
			}
			ids = more;
		}
		ids[nr++] = id;
	}
	if (dir)
		closedir(dir);
	if (!nr)
		bad = 1;
	if (!bad)
		qsort(ids, nr, sizeof(*ids), cmp_uint);
	kmt_sb_adds(out, KMT_TD_NODES_MAGIC);
	for (i = 0; i < nr && !bad; i++) {
		struct kmt_sb list = KMT_SB_INIT;
		char path[sizeof(NODE_DIR) + 32];

		snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", ids[i]);
		bad = kmt_sb_read_file(&list, path) != 0;
		if (!bad)
			kmt_sb_addf(out, "%u %.*s\n", ids[i],
				    (int)strcspn(kmt_sb_str(&list), "\n"),
				    kmt_sb_str(&list));
		kmt_sb_release(&list);
	}
	free(ids);
	if (bad || out->oom)
		kmt_sb_release(out);
}

static void read_boot_id(struct kmt_bootinfo *b)
{
	struct kmt_sb sb = KMT_SB_INIT;

	if (!kmt_sb_read_file(&sb, "/proc/sys/kernel/random/boot_id"))
		kmt_bootinfo_set_id(b, sb.buf, strcspn(kmt_sb_str(&sb), "\n"));
	kmt_sb_release(&sb);
}

/*
 * The wall clock and the trace clock read together, so that a reader can
 * put a wall time on each event: the trace clock's "now" comes from the
 * instance's CPU 0 stats, read between two CLOCK_REALTIME readings whose
 * midpoint is kept.  The stats give microseconds, so that is the
 * precision, plus half the time the read took.  A clock with no ns to
 * give (counter, x86-tsc) leaves the pair out.
 */
static void read_clocks(struct kmt_rec *r, struct kmt_bootinfo *b)
{
	struct timespec t0, t1;
	uint64_t now, a, z;
	char *stats;

	if (clock_gettime(CLOCK_REALTIME, &t0))
		return;
	stats = tracefs_instance_file_read(r->inst, "per_cpu/cpu0/stats", NULL);
	if (clock_gettime(CLOCK_REALTIME, &t1) || !stats ||
	    kmt_bootinfo_stats_now(stats, &now)) {
		free(stats);
		return;
	}
	free(stats);
	a = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
	z = (uint64_t)t1.tv_sec * 1000000000u + (uint64_t)t1.tv_nsec;
	b->realtime_ns = a + (z - a) / 2;
	b->trace_ns = now;
	b->has_clock = 1;
}

static int load_meta(struct kmt_rec *r, struct kmt_rec_meta *m)
{
	struct utsname u;
	int i, ret;

	m->header_page = tracefs_instance_file_read(NULL, "events/header_page",
						    &m->header_page_len);
	m->header_event = tracefs_instance_file_read(NULL, "events/header_event",
						     &m->header_event_len);
	if (!m->header_page || !m->header_event)
		return rec_error(r, errno ? errno : EIO,
				  "cannot read the ring-buffer headers from tracefs: %s",
				  strerror(errno ? errno : EIO));
	m->printk = tracefs_instance_file_read(NULL, "printk_formats",
					       &m->printk_len);
	m->clock = tracefs_instance_file_read(r->inst, "trace_clock",
					      &m->clock_len);
	ret = read_formats("ftrace", &m->ftrace);
	for (i = 0; !ret && i < KMT_REC_NR_SYSTEMS; i++) {
		ret = read_formats(kmt_rec_systems[i], &m->sys[i]);
		/* a kernel without percpu or vmalloc events records the rest */
		if (ret == -ENOENT && i)
			ret = 0;
	}
	if (ret)
		return rec_error(r, ret, "cannot read the event formats from tracefs: %s",
				  strerror(-ret));
	if (!r->no_kallsyms) {
		ret = kmt_sb_read_file(&m->kallsyms, "/proc/kallsyms");
		if (ret)
			return rec_error(r, ret, "cannot read '/proc/kallsyms': %s",
					  strerror(-ret));
	}
	if (uname(&u) == 0)
		snprintf(m->uname, sizeof(m->uname), "%s %s %s %s", u.sysname,
			 u.nodename, u.release, u.machine);
	read_boot_id(&m->boot);
	read_nodes(&m->nodes);
	return 0;
}

static void free_formats(struct rec_formats *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free((void *)f->blobs[i].data);
	free(f->blobs);
	tracefs_list_free(f->names);
}

static void free_meta(struct kmt_rec_meta *m)
{
	size_t i;

	if (!m)
		return;
	free(m->header_page);
	free(m->header_event);
	free(m->printk);
	free(m->clock);
	free_formats(&m->ftrace);
	for (i = 0; i < KMT_REC_NR_SYSTEMS; i++)
		free_formats(&m->sys[i]);
	kmt_sb_release(&m->kallsyms);
	kmt_sb_release(&m->nodes);
	kmt_sb_release(&m->kcounters);
	if (m->have_tasks) {
		task_map_free(&m->tasks.map);
		kmt_strtab_free(&m->tasks.names);
	}
	free(m);
}

static int enable_events(struct kmt_rec *r, unsigned int groups)
{
	unsigned int i;

	for (i = 0; i < kmt_rec_nr_events; i++) {
		const struct kmt_rec_event *e = &kmt_rec_events[i];

		if (!(e->group & groups))
			continue;
		if (!tracefs_event_file_exists(r->inst, e->system, e->name,
					       "enable")) {
			if (!e->legacy && r->nr_missing < 32)
				r->missing[r->nr_missing++] = e;
			continue;
		}
		if (tracefs_event_enable(r->inst, e->system, e->name) < 0)
			return rec_error(r, errno ? errno : EIO,
					  "cannot enable %s:%s in instance '%s': %s",
					  e->system, e->name, r->name,
					  strerror(errno ? errno : EIO));
		if (r->nr_enabled < 32)
			r->enabled[r->nr_enabled++] = e;
	}
	if (!r->nr_enabled)
		return rec_error(r, ENOENT,
				  "this kernel has none of the events asked for");
	return 0;
}

/* -g: a stack with each allocation whose event takes one */
static int add_stack_triggers(struct kmt_rec *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_enabled; i++) {
		const struct kmt_rec_event *e = r->enabled[i];

		if (!e->stack)
			continue;
		if (tracefs_event_file_write(r->inst, e->system, e->name,
					     "trigger", "stacktrace") < 0)
			return rec_error(r, errno ? errno : EINVAL,
					  "cannot add a stacktrace trigger to %s:%s: %s",
					  e->system, e->name,
					  strerror(errno ? errno : EINVAL));
	}
	return 0;
}
/* the directory part of path, "." when there is none */
static void dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* an unnamed file in dir (or a named one, unlinked at once when unnamed=1) */
static int open_temp(const char *dir, int unnamed, char *path, size_t size)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0) {
		if (path)
			path[0] = '\0';
		return fd;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	{
		char tmpl[PATH_MAX];

		snprintf(tmpl, sizeof(tmpl), "%s/.kmemtrace-%d.XXXXXX", dir,
			 (int)getpid());
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0)
			return -errno;
		fchmod(fd, 0600);
		if (unnamed)
			unlink(tmpl);
		else if (path)
			snprintf(path, size, "%s", tmpl);
	}
	return fd;
}

static uint64_t meta_estimate(const struct kmt_rec_meta *m)
{
	uint64_t n = m->kallsyms.len + m->header_page_len +
		     m->header_event_len + m->printk_len;
	size_t i;

	size_t k;

	for (i = 0; i < m->ftrace.nr; i++)
		n += m->ftrace.blobs[i].len + 8;
	for (k = 0; k < KMT_REC_NR_SYSTEMS; k++) {
		for (i = 0; i < m->sys[k].nr; i++)
			n += m->sys[k].blobs[i].len + 8;
	}
	/* the kernel's counters, read at the end: two slabinfo copies */
	n += 256u << 10;
	return n;
}

/* "-", a pipe, a device: an output that can only be written in order */
static int is_stream(const char *path)
{
	struct stat st;

	return !strcmp(path, "-") ||
	       (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* the output in messages */
static const char *output_name(const struct kmt_rec *r, char *buf, size_t len)
{
	if (!strcmp(r->output, "-"))
		return "the standard output";
	snprintf(buf, len, "'%s'", r->output);
	return buf;
}

/* a stream's: opened now, so that a FIFO without a reader stops nothing late */
static int setup_stream(struct kmt_rec *r, const char *tmpdir)
{
	struct stat st;

	snprintf(r->outdir, sizeof(r->outdir), "%s",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (stat(r->outdir, &st) < 0)
		return rec_error(r, errno, "cannot keep the recording in '%s' until it ends: %s",
				  r->outdir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rec_error(r, ENOTDIR, "cannot keep the recording in '%s' until it ends: %s",
				  r->outdir, strerror(ENOTDIR));
	if (!strcmp(r->output, "-"))
		r->out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		r->out_fd = open(r->output, O_WRONLY | O_CLOEXEC);
	if (r->out_fd < 0) {
		char name[PATH_MAX + 2];

		return rec_error(r, errno, "cannot write %s: %s",
				  output_name(r, name, sizeof(name)),
				  strerror(errno));
	}
	r->stream = 1;
	return 0;
}

/* a file's: an unnamed file beside it, linked under its name at the end */
static int setup_file(struct kmt_rec *r)
{
	struct stat st;
	int ret;

	dir_of(r->output, r->outdir, sizeof(r->outdir));
	if (stat(r->outdir, &st) < 0)
		return rec_error(r, errno, "cannot write '%s': directory '%s': %s",
				  r->output, r->outdir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rec_error(r, ENOTDIR, "cannot write '%s': '%s' is not a directory",
				  r->output, r->outdir);
	if (stat(r->output, &st) == 0 && S_ISDIR(st.st_mode))
		return rec_error(r, EISDIR, "cannot write '%s': it is a directory",
				  r->output);
	ret = open_temp(r->outdir, 0, r->out_tmp, sizeof(r->out_tmp));
	if (ret < 0)
		return rec_error(r, ret, "cannot create a file in '%s': %s",
				  r->outdir, strerror(-ret));
	r->out_fd = ret;
	r->out_named = r->out_tmp[0] != '\0';
	return 0;
}

int kmt_rec_setup(struct kmt_rec *r, const struct kmt_rec_config *cfg)
{
	unsigned int groups = cfg->groups ? cfg->groups :
			      KMT_REC_DEFAULT_GROUPS;
	unsigned int kb;
	struct kmt_rec_meta *m;
	char val[32];
	int ret;

	r->stacks = cfg->stacks;
	r->version = cfg->version;
	r->no_kallsyms = cfg->no_kallsyms;
	r->output = cfg->output;

	/* the output first: a missing directory must cost nothing */
	ret = is_stream(cfg->output) ? setup_stream(r, cfg->tmpdir) :
				       setup_file(r);
	if (ret)
		return ret;

	remove_stale_instances();
	snprintf(r->name, sizeof(r->name), "kmemtrace-%d", (int)getpid());
	r->inst = tracefs_instance_create(r->name);
	if (r->inst && !tracefs_instance_is_new(r->inst)) {
		/* left by an earlier process with our pid: start afresh */
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
		r->inst = tracefs_instance_create(r->name);
	}
	if (!r->inst)
		return rec_error(r, errno ? errno : EIO,
				  "cannot create tracefs instance '%s': %s",
				  r->name, strerror(errno ? errno : EIO));
	/* a new instance traces at once; nothing is enabled yet, but be sure */
	tracefs_trace_off(r->inst);

	m = calloc(1, sizeof(*m));
	if (!m)
		return rec_error(r, ENOMEM, "out of memory");
	r->meta = m;
	ret = load_meta(r, m);
	if (ret)
		return ret;
	task_map_init(&m->tasks.map);
	if (kmt_strtab_init(&m->tasks.names))
		return rec_error(r, ENOMEM, "out of memory");
	m->have_tasks = 1;
	tasks_from_proc(&m->tasks);

	r->nr_cpus = 0;
	for (;;) {
		snprintf(val, sizeof(val), "per_cpu/cpu%d", r->nr_cpus);
		if (!tracefs_dir_exists(r->inst, val))
			break;
		r->nr_cpus++;
	}
	if (!r->nr_cpus)
		return rec_error(r, ENOENT, "instance '%s' has no per-CPU buffers",
				  r->name);
	r->cpus = calloc(r->nr_cpus, sizeof(*r->cpus));
	if (!r->cpus)
		return rec_error(r, ENOMEM, "out of memory");
	for (int i = 0; i < r->nr_cpus; i++)
		r->cpus[i].fd = -1;
	kb = cfg->buffer_kb ? cfg->buffer_kb : kmt_rec_default_buffer_kb(r->nr_cpus);
	r->buffer_kb = kb;
	if (tracefs_instance_set_buffer_size(r->inst, kb, -1) < 0)
		return rec_error(r, errno ? errno : ENOMEM,
				  "cannot set a ring buffer of %u KB per CPU: %s",
				  kb, strerror(errno ? errno : ENOMEM));
	tracefs_instance_file_write(r->inst, "buffer_percent", WAKE_PERCENT);
	/* pid -> tgid for the report's per-process view */
	tracefs_instance_file_write(r->inst, "options/record-tgid", "1");

	ret = enable_events(r, groups);
	if (ret)
		return ret;
	if (r->stacks) {
		ret = add_stack_triggers(r);
		if (ret)
			return ret;
	}

	r->page_size = getpagesize();
	{
		char *sub = tracefs_instance_file_read(r->inst,
						       "buffer_subbuf_size_kb",
						       NULL);

		if (sub && atoi(sub) > 0)
			r->page_size = atoi(sub) * 1024;
		free(sub);
	}

	/*
	 * Keep room for the header now: if the disk fills while recording,
	 * the pages already written can still be made into a valid file.
	 */
	r->reserved = meta_estimate(m) + HEADER_SLACK;
	if (!r->stream && fallocate(r->out_fd, 0, 0, (off_t)r->reserved) < 0 &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		return rec_error(r, errno, "cannot reserve %llu KB in '%s': %s",
				  (unsigned long long)r->reserved >> 10,
				  r->outdir, strerror(errno));
	return 0;
}

int kmt_rec_set_pids(struct kmt_rec *r, const pid_t *pids, size_t nr,
		      int follow)
{
	struct kmt_sb sb = KMT_SB_INIT;
	size_t i;
	int ret;

	for (i = 0; i < nr; i++)
		kmt_sb_addf(&sb, "%s%d", i ? " " : "", (int)pids[i]);
	if (sb.oom)
		return rec_error(r, ENOMEM, "out of memory");
	if (follow &&
	    tracefs_instance_file_write(r->inst, "options/event-fork", "1") < 0) {
		kmt_sb_release(&sb);
		return rec_error(r, errno ? errno : EINVAL,
				  "cannot follow children: options/event-fork: %s",
				  strerror(errno ? errno : EINVAL));
	}
	ret = tracefs_instance_file_write(r->inst, "set_event_pid",
					  kmt_sb_str(&sb));
	kmt_sb_release(&sb);
	if (ret < 0)
		return rec_error(r, errno ? errno : EINVAL,
				  "cannot limit events to the pids: set_event_pid: %s",
				  strerror(errno ? errno : EINVAL));
	return 0;
}

/*
 * One per CPU.  Blocks until the buffer reaches the watermark, then moves
 * whole pages by splice until none is left, and so on; after the stop it
 * moves what remains, the last partial page by read.
 */
static void *reader(void *arg)
{
	struct kmt_rec_cpu *c = arg;
	int n;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		n = tracefs_cpu_write(c->tcpu, c->fd, false);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			goto fail;
		c->bytes += n;
		while ((n = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
			c->bytes += n;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			goto fail;
	}
	while ((n = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
		c->bytes += n;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		goto fail;
	while ((n = tracefs_cpu_flush_write(c->tcpu, c->fd)) > 0)
		c->bytes += n;
	if (n < 0 && errno != EAGAIN)
		goto fail;
	return NULL;
fail:
	c->err = errno ? errno : EIO;
	/* what reached the file may end in a torn page: count it later */
	__atomic_store_n(&c->rec->failed, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The recorder's own threads allocate too (splice moves ring-buffer pages
 * through pipes): left in, they would top the leak and page tables of
 * every system-wide recording.  set_event_notrace_pid leaves them out;
 * kernels without it (before 5.9) record them, which is not an error.
 */
static void hide_self(struct kmt_rec *r)
{
	struct kmt_sb sb = KMT_SB_INIT;
	pid_t *tids = NULL;
	size_t nr = 0, alloc = 0, i;

	if (!tracefs_file_exists(r->inst, "set_event_notrace_pid") ||
	    kmt_workload_add_threads(&tids, &nr, &alloc, (long)getpid()))
		goto out;
	for (i = 0; i < nr; i++)
		kmt_sb_addf(&sb, "%s%d", i ? " " : "", (int)tids[i]);
	if (!sb.oom && sb.len)
		tracefs_instance_file_write(r->inst, "set_event_notrace_pid",
					    kmt_sb_str(&sb));
out:
	kmt_sb_release(&sb);
	free(tids);
}

/*
 * The kernel's own counters, before tracing starts and after it stops
 * (record/kcounters-rec.h); only the first reason slabinfo could not be
 * read is kept, for the command to say once
 */
static void take_kcounters(struct kmt_rec *r, enum kmt_kcounters_when when)
{
	char why[sizeof(r->kcounters_why)];
	int ret = kmt_rec_kcounters_take(&r->meta->kcounters, when, why,
					 sizeof(why));

	if (ret > 0 && (ret & KMT_CNT_SLABINFO) && !r->kcounters_why[0])
		snprintf(r->kcounters_why, sizeof(r->kcounters_why), "%s", why);
}

int kmt_rec_start(struct kmt_rec *r)
{
	sigset_t all, old;
	int i, ret;

	for (i = 0; i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		c->rec = r;
		c->cpu = i;
		c->fd = open_temp(r->outdir, 1, NULL, 0);
		if (c->fd < 0)
			return rec_error(r, c->fd, "cannot create a temporary file in '%s': %s",
					  r->outdir, strerror(-c->fd));
		c->tcpu = tracefs_cpu_open(r->inst, i, false);
		if (!c->tcpu)
			return rec_error(r, errno ? errno : EIO,
					  "cannot open the ring buffer of CPU %d: %s",
					  i, strerror(errno ? errno : EIO));
	}
	/* the readers take no signals: the command's main thread does */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < r->nr_cpus; i++) {
		ret = pthread_create(&r->cpus[i].thread, NULL, reader,
				     &r->cpus[i]);
		if (ret) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			return rec_error(r, ret, "cannot start a reader thread: %s",
					  strerror(ret));
		}
		r->cpus[i].running = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	hide_self(r);
	take_kcounters(r, KMT_CNT_START);
	/* without a map the recording says "not recorded": no error */
	kmt_rec_cgroups_start(&r->cgroups, r->meta->clock, r->cgroups_why,
			      sizeof(r->cgroups_why));
	if (tracefs_trace_on(r->inst) < 0)
		return rec_error(r, errno ? errno : EIO,
				  "cannot turn tracing on in instance '%s': %s",
				  r->name, strerror(errno ? errno : EIO));
	r->started = 1;
	read_clocks(r, &r->meta->boot);
	return 0;
}

static void stop_readers(struct kmt_rec *r)
{
	int i;

	for (i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		if (!c->running)
			continue;
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		tracefs_cpu_stop(c->tcpu);
	}
	for (i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		if (!c->running)
			continue;
		pthread_join(c->thread, NULL);
		c->running = 0;
	}
}

static uint64_t stat_field(const char *text, const char *key)
{
	const char *p = text;
	size_t len = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static void read_stats(struct kmt_rec *r)
{
	char file[64];
	int i;

	for (i = 0; i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", i);
		free(c->stats);
		c->stats = tracefs_instance_file_read(r->inst, file, NULL);
		if (!c->stats)
			continue;
		c->entries = stat_field(c->stats, "entries");
		c->overrun = stat_field(c->stats, "overrun");
		c->commit_overrun = stat_field(c->stats, "commit overrun");
		c->dropped = stat_field(c->stats, "dropped events");
		c->read = stat_field(c->stats, "read events");
	}
}

int kmt_rec_stop(struct kmt_rec *r)
{
	if (r->inst && r->started)
		tracefs_trace_off(r->inst);
	kmt_rec_cgroups_stop(r->cgroups);
	stop_readers(r);
	if (r->inst && r->started) {
		read_stats(r);
		take_kcounters(r, KMT_CNT_END);
	}
	r->started = 0;
	return 0;
}

static void task_set(struct tasks *t, long pid, const char *comm, size_t len,
		     long tgid)
{
	struct task_info *ti;

	if (pid < 0 || pid > INT32_MAX)
		return;
	ti = task_map_put(&t->map, (uint64_t)pid, NULL);
	if (!ti)
		return;
	if (comm && len)
		ti->comm = kmt_strtab_intern(&t->names, comm, len);
	if (tgid > 0)
		ti->tgid = (int32_t)tgid;
}

static void tasks_from_proc(struct tasks *t)
{
	DIR *proc = opendir("/proc");
	struct dirent *pd;

	if (!proc)
		return;
	while ((pd = readdir(proc))) {
		char path[PATH_MAX];
		long tgid = strtol(pd->d_name, NULL, 10);
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
			char comm[64];
			ssize_t n;
			int fd;

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/task/%ld/comm",
				 tgid, pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			while (n > 0 && comm[n - 1] == '\n')
				n--;
			task_set(t, pid, comm, n > 0 ? (size_t)n : 0, tgid);
		}
		closedir(task);
	}
	closedir(proc);
}

/* "pid comm\n" (saved_cmdlines) or "pid tgid\n" (saved_tgids) lines */
static void tasks_from_text(struct tasks *t, const char *text, int tgids)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		char *rest;
		long pid = strtol(p, &rest, 10);

		if (rest != p && rest < end && *rest == ' ') {
			rest++;
			if (tgids)
				task_set(t, pid, NULL, 0, strtol(rest, NULL, 10));
			else if (pid > 0 && strncmp(rest, "<...>", 5))
				task_set(t, pid, rest, end - rest, 0);
		}
		p = nl ? nl + 1 : NULL;
	}
}

/*
 * The names and thread groups of the tasks seen in the recording (and of
 * their thread-group leaders), not of every task the machine ran.
 */
static int collect_tasks(struct kmt_rec *r, const struct kmt_hash_set *seen,
			 struct kmt_sb *cmdlines, struct kmt_sb *tgids)
{
	struct tasks *t = &r->meta->tasks;
	struct kmt_hash_set keep;
	struct task_info *ti;
	uint64_t pid;
	size_t it = 0;
	char *text;

	kmt_sb_adds(tgids, KMT_TD_TGIDS_MAGIC);

	/*
	 * The scan at the start names the tasks that ran then; the kernel's
	 * caches name those that came and went; a scan now, those alive.
	 */
	text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	tasks_from_text(t, text, 0);
	free(text);
	text = tracefs_instance_file_read(NULL, "saved_tgids", NULL);
	tasks_from_text(t, text, 1);
	free(text);
	tasks_from_proc(t);

	kmt_hash_set_init(&keep);
	while (kmt_hash_set_next(seen, &it, &pid)) {
		ti = task_map_get(&t->map, pid);
		if (kmt_hash_set_add(&keep, pid) ||
		    (ti && ti->tgid && kmt_hash_set_add(&keep, (uint64_t)ti->tgid))) {
			kmt_hash_set_free(&keep);
			return -ENOMEM;
		}
	}
	it = 0;
	while (task_map_next(&t->map, &it, &pid, &ti)) {
		if (!kmt_hash_set_has(&keep, pid))
			continue;
		if (ti->comm)
			kmt_sb_addf(cmdlines, "%d %s\n", (int)pid,
				    kmt_strtab_get(&t->names, ti->comm));
		if (ti->tgid)
			kmt_sb_addf(tgids, "%d %d\n", (int)pid, (int)ti->tgid);
	}
	kmt_hash_set_free(&keep);
	return cmdlines->oom || tgids->oom ? -ENOMEM : 0;
}

/* moves the finished file under its name, the old one to NAME.old */
static int link_output(struct kmt_rec *r)
{
	char old[PATH_MAX + 8];
	struct stat st;

	if (lstat(r->output, &st) == 0 && S_ISREG(st.st_mode)) {
		snprintf(old, sizeof(old), "%s.old", r->output);
		if (rename(r->output, old) < 0)
			return rec_error(r, errno, "cannot rename '%s' to '%s': %s",
					  r->output, old, strerror(errno));
	}
	if (r->out_named) {
		if (rename(r->out_tmp, r->output) < 0)
			return rec_error(r, errno, "cannot create '%s': %s",
					  r->output, strerror(errno));
		r->out_tmp[0] = '\0';
		return 0;
	}
	snprintf(old, sizeof(old), "/proc/self/fd/%d", r->out_fd);
	if (linkat(AT_FDCWD, old, AT_FDCWD, r->output, AT_SYMLINK_FOLLOW) < 0)
		return rec_error(r, errno, "cannot create '%s': %s", r->output,
				  strerror(errno));
	return 0;
}

/* the offset of a field in an event format, 4 (common_pid's) if absent */
static int field_offset(const char *format, const char *field)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s;\toffset:", field);
	p = strstr(format, key);
	return p ? atoi(p + strlen(key)) : 4;
}

/*
 * Counts the events in the pages of one CPU, kmem events and others (the
 * stacks of -g), and notes the pid of each: the file names only the tasks
 * it holds events of.
 */
static int count_pages(struct kmt_rec *r, int fd, uint64_t size,
		       const int *ids, int pid_off, struct kmt_hash_set *pids,
		       struct kmt_rec_result *res)
{
	struct kbuffer *kb;
	unsigned char *map;
	uint64_t off;

	if (!size)
		return 0;
	kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   host_big_endian() ? KBUFFER_ENDIAN_BIG :
					       KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		return -ENOMEM;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		kbuffer_free(kb);
		return -errno;
	}
	madvise(map, size, MADV_SEQUENTIAL);
	for (off = 0; off < size; off += r->page_size) {
		unsigned long long ts;
		void *rec;

		if (kbuffer_load_subbuffer(kb, map + off) < 0)
			continue;
		for (rec = kbuffer_read_event(kb, &ts); rec;
		     rec = kbuffer_next_event(kb, &ts)) {
			uint16_t type;
			int i;

			if (kbuffer_event_size(kb) < pid_off + 4)
				continue;

			int32_t pid;

			memcpy(&type, rec, sizeof(type));
			memcpy(&pid, (char *)rec + pid_off, sizeof(pid));
			/* out of memory, a task goes unnamed: no worse */
			if (pid > 0)
				kmt_hash_set_add(pids, (uint32_t)pid);
			for (i = 0; ids[i] >= 0 && ids[i] != type; i++)
				;
			if (ids[i] >= 0)
				res->events++;
			else
				res->other++;
		}
	}
	munmap(map, size);
	kbuffer_free(kb);
	return 0;
}

static int host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

/*
 * A stream: the header, then each CPU's pages in turn, each freed from
 * its temporary file as it goes.  Nothing can be taken back once
 * written, so a full disk on the way is an error like any other.
 */
static int write_stream(struct kmt_rec *r, const struct kmt_tdw_header *h,
			const uint64_t *sizes, struct kmt_rec_result *res)
{
	uint64_t off = kmt_tdw_data_offset(h);
	char name[PATH_MAX + 2];
	int i, ret, err = 0;

	ret = kmt_tdw_stream_header(r->out_fd, h, sizes, r->errmsg,
				    sizeof(r->errmsg));
	if (ret)
		return rec_error(r, ret, "cannot write %s: %s",
				  output_name(r, name, sizeof(name)),
				  strerror(-ret));
	for (i = 0; i < r->nr_cpus && !err; i++) {
		off += kmt_tdw_copy(r->out_fd, off, r->cpus[i].fd, 0, sizes[i],
				    KMT_TDW_COPY_PUNCH | KMT_TDW_COPY_STREAM,
				    &err);
		res->data_bytes += sizes[i];
	}
	res->bytes = off;
	if (err)
		return rec_error(r, err, "cannot write %s: %s",
				  output_name(r, name, sizeof(name)),
				  strerror(err));
	return 0;
}

int kmt_rec_write(struct kmt_rec *r, struct kmt_rec_result *res)
{
	struct kmt_tdw_option *opts = NULL;
	struct kmt_sb cmdlines = KMT_SB_INIT, tgids = KMT_SB_INIT;
	struct kmt_sb cgroups = KMT_SB_INIT;
	struct kmt_sb *cpustat = NULL;
	struct kmt_blob *fmts[KMT_REC_NR_SYSTEMS] = { NULL };
	char boot[256];
	struct kmt_tdw_system systems[KMT_REC_NR_SYSTEMS];
	struct kmt_tdw_header h;
	struct kmt_rec_meta *m = r->meta;
	uint64_t *sizes = NULL, off, data_off;
	int ids[sizeof(r->enabled) / sizeof(r->enabled[0]) + 1];
	int pid_off = m->sys[0].nr ?
		      field_offset(m->sys[0].blobs[0].data, "common_pid") : 4;
	struct kmt_hash_set pids;
	struct stat st;
	size_t nopt = 0;
	int i, ret, full = 0;

	memset(res, 0, sizeof(*res));
	kmt_hash_set_init(&pids);
	for (i = 0; i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		/* what the readers left in the buffer is lost as well */
		res->lost += c->overrun + c->commit_overrun + c->dropped +
			     c->entries;
		if (c->err == ENOSPC || c->err == EDQUOT)
			full = 1;
		else if (c->err)
			return rec_error(r, c->err,
					  "cannot record CPU %d into '%s': %s",
					  i, r->outdir, strerror(c->err));
	}
	sizes = calloc(r->nr_cpus, sizeof(*sizes));
	cpustat = calloc(r->nr_cpus, sizeof(*cpustat));
	/*
	 * clock, uname, version, tgids, boot, nodes, the kernel's counters,
	 * cgroups and the CPUs' stats
	 */
	opts = calloc(r->nr_cpus + 8, sizeof(*opts));
	if (!sizes || !cpustat || !opts) {
		ret = rec_error(r, ENOMEM, "out of memory");
		goto out;
	}
	if (m->clock) {
		opts[nopt].id = KMT_TD_OPT_TRACECLOCK;
		opts[nopt].val.data = m->clock;
		opts[nopt++].val.len = m->clock_len;
	}
	if (m->uname[0]) {
		opts[nopt].id = KMT_TD_OPT_UNAME;
		opts[nopt].val.data = m->uname;
		opts[nopt++].val.len = strlen(m->uname) + 1;
	}
	opts[nopt].id = KMT_TD_OPT_VERSION;
	opts[nopt].val.data = r->version ? r->version : "kmemtrace";
	opts[nopt].val.len = strlen(opts[nopt].val.data) + 1;
	nopt++;
	for (i = 0; i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		kmt_sb_addf(&cpustat[i], "CPU: %d\n%s", i,
			    c->stats ? c->stats : "");
		opts[nopt].id = KMT_TD_OPT_CPUSTAT;
		opts[nopt].val.data = kmt_sb_str(&cpustat[i]);
		opts[nopt++].val.len = cpustat[i].len + 1;
		/*
		 * The file's own size, not the reader's count: a write that
		 * failed half-way (the disk filled) may have left part of a
		 * page, which is cut off.
		 */
		if (fstat(c->fd, &st) < 0) {
			ret = rec_error(r, errno, "cannot read the pages of CPU %d: %s",
					i, strerror(errno));
			goto out;
		}
		sizes[i] = (uint64_t)st.st_size / r->page_size * r->page_size;
	}

	for (i = 0; i < (int)r->nr_enabled; i++)
		ids[i] = kmt_rec_event_id(r->enabled[i]->system,
					  r->enabled[i]->name);
	ids[i] = -1;
	for (i = 0; i < r->nr_cpus; i++)
		count_pages(r, r->cpus[i].fd, sizes[i], ids, pid_off, &pids,
			    res);
	ret = collect_tasks(r, &pids, &cmdlines, &tgids);
	if (!ret)
		ret = kmt_rec_cgroups_text(r->cgroups, &pids, &cgroups);
	if (ret) {
		ret = rec_error(r, ret, "out of memory");
		goto out;
	}

	memset(&h, 0, sizeof(h));
	h.page_size = r->page_size;
	h.header_page.data = m->header_page;
	h.header_page.len = m->header_page_len;
	h.header_event.data = m->header_event;
	h.header_event.len = m->header_event_len;
	h.ftrace_formats = m->ftrace.blobs;
	h.nr_ftrace_formats = m->ftrace.nr;
	h.systems = systems;
	for (i = 0; i < KMT_REC_NR_SYSTEMS; i++) {
		struct kmt_tdw_system *sys = &systems[h.nr_systems];

		fmts[i] = calloc(m->sys[i].nr ? m->sys[i].nr : 1,
				 sizeof(*fmts[i]));
		if (!fmts[i]) {
			ret = rec_error(r, ENOMEM, "out of memory");
			goto out;
		}
		sys->name = kmt_rec_systems[i];
		sys->formats = fmts[i];
		sys->nr_formats = enabled_formats(r, &m->sys[i],
						  kmt_rec_systems[i], fmts[i]);
		/* kmem always: readers look for its formats */
		if (sys->nr_formats || !i)
			h.nr_systems++;
	}
	h.kallsyms.data = m->kallsyms.buf;
	h.kallsyms.len = m->kallsyms.len;
	h.printk_formats.data = m->printk;
	h.printk_formats.len = m->printk ? m->printk_len : 0;
	h.cmdlines.data = cmdlines.buf;
	h.cmdlines.len = cmdlines.len;
	h.options = opts;
	h.nr_options = nopt;
	h.nr_cpus = r->nr_cpus;
	if (tgids.len > strlen(KMT_TD_TGIDS_MAGIC)) {
		opts[nopt].id = KMT_TD_OPT_TGIDS;
		opts[nopt].val.data = kmt_sb_str(&tgids);
		opts[nopt++].val.len = tgids.len + 1;
		h.nr_options = nopt;
	}
	if (m->boot.boot_id[0] || m->boot.has_clock) {
		size_t n = kmt_bootinfo_format(&m->boot, boot, sizeof(boot));

		if (n) {
			opts[nopt].id = KMT_TD_OPT_BOOT;
			opts[nopt].val.data = boot;
			opts[nopt++].val.len = n + 1;
			h.nr_options = nopt;
		}
	}
	if (m->nodes.len) {
		opts[nopt].id = KMT_TD_OPT_NODES;
		opts[nopt].val.data = kmt_sb_str(&m->nodes);
		opts[nopt++].val.len = m->nodes.len + 1;
		h.nr_options = nopt;
	}
	if (m->kcounters.len) {
		opts[nopt].id = KMT_TD_OPT_COUNTERS;
		opts[nopt].val.data = kmt_sb_str(&m->kcounters);
		opts[nopt++].val.len = m->kcounters.len + 1;
		h.nr_options = nopt;
	}
	if (cgroups.len) {
		opts[nopt].id = KMT_TD_OPT_CGROUPS;
		opts[nopt].val.data = kmt_sb_str(&cgroups);
		opts[nopt++].val.len = cgroups.len + 1;
		h.nr_options = nopt;
	}

	if (r->stream) {
		res->truncated = full;
		ret = write_stream(r, &h, sizes, res);
		goto out;
	}
	ret = kmt_tdw_write_header(r->out_fd, &h, sizes, r->errmsg,
				   sizeof(r->errmsg));
	if (ret)
		goto out;
	data_off = kmt_tdw_data_offset(&h);
	off = data_off;
	for (i = 0; i < r->nr_cpus; i++) {
		uint64_t done;
		int err;

		done = kmt_tdw_copy(r->out_fd, off, r->cpus[i].fd, 0, sizes[i],
				    KMT_TDW_COPY_PUNCH, &err);
		if (err == ENOSPC || err == EDQUOT) {
			int j;

			/* keep the whole pages that fit; later CPUs are empty */
			sizes[i] = done / r->page_size * r->page_size;
			for (j = i + 1; j < r->nr_cpus; j++)
				sizes[j] = 0;
			full = 1;
			ret = kmt_tdw_write_header(r->out_fd, &h, sizes,
						   r->errmsg, sizeof(r->errmsg));
			if (ret)
				goto out;
			off += sizes[i];
			break;
		}
		if (err) {
			ret = rec_error(r, err, "cannot write '%s': %s",
					 r->output, strerror(err));
			goto out;
		}
		off += sizes[i];
	}
	if (ftruncate(r->out_fd, (off_t)off) < 0) {
		ret = rec_error(r, errno, "cannot write '%s': %s", r->output,
				 strerror(errno));
		goto out;
	}
	for (i = 0; i < r->nr_cpus; i++)
		res->data_bytes += sizes[i];
	res->bytes = off;
	res->truncated = full;
	ret = link_output(r);
	if (!ret && full)
		ret = rec_error(r, ENOSPC,
				 "the disk filled: '%s' keeps the first %.1f MB of events",
				 r->output, res->data_bytes / 1e6);
out:
	if (r->stream && full && !ret)
		ret = rec_error(r, ENOSPC,
				 "the disk of '%s' filled: the recording keeps the first %.1f MB of events",
				 r->outdir, res->data_bytes / 1e6);
	for (i = 0; cpustat && i < r->nr_cpus; i++)
		kmt_sb_release(&cpustat[i]);
	free(cpustat);
	free(sizes);
	free(opts);
	for (i = 0; i < KMT_REC_NR_SYSTEMS; i++)
		free(fmts[i]);
	kmt_sb_release(&cmdlines);
	kmt_sb_release(&tgids);
	kmt_sb_release(&cgroups);
	kmt_hash_set_free(&pids);
	return ret;
}

void kmt_rec_free(struct kmt_rec *r)
{
	int i;

	stop_readers(r);
	for (i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct kmt_rec_cpu *c = &r->cpus[i];

		if (c->tcpu)
			tracefs_cpu_close(c->tcpu);
		if (c->fd >= 0)
			close(c->fd);
		free(c->stats);
	}
	free(r->cpus);
	r->cpus = NULL;
	kmt_rec_cgroups_free(r->cgroups);
	r->cgroups = NULL;
	if (r->inst) {
		tracefs_trace_off(r->inst);
		for (i = 0; r->stacks && i < (int)r->nr_enabled; i++) {
			if (r->enabled[i]->stack)
				tracefs_event_file_write(r->inst,
							 r->enabled[i]->system,
							 r->enabled[i]->name,
							 "trigger",
							 "!stacktrace");
		}
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
		r->inst = NULL;
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	r->out_fd = -1;
	if (r->out_named && r->out_tmp[0])
		unlink(r->out_tmp);
	r->out_tmp[0] = '\0';
	free_meta(r->meta);
	r->meta = NULL;
}
