// SPDX-License-Identifier: GPL-2.0
/*
 * --errors: allocator misuse, counted by callsite, each finding judged
 * certain, possible or legal by the rules below.
 *
 * Telling a double free from the free of an object allocated before the
 * recording needs the frees that came before.  Keeping every freed
 * address would grow with every address ever used (perf kmem's mistake),
 * so the view keeps a quarantine of recent frees, as KASAN does: a table
 * of QUARANTINE_SLOTS slots where each freed address takes the slot its
 * hash names, pushing out the free that was there.  A pointer freed again
 * while its first free is still in the quarantine, and not allocated
 * since, is a double free; 131,072 slots (3 MiB) reach back some tens of
 * thousands of frees, at one memory access per free.  The table starts
 * small and doubles where a free would push out another: doubling moves
 * each entry to one of two slots and loses none, so the table keeps what
 * the full-size one would, and a small input costs a few KB, not 6 MiB.
 * A free of a pointer neither live nor in the quarantine is a free of a
 * pointer never seen; in the first --warmup of what was read such frees
 * are what a recording that starts mid-life looks like, and are only
 * counted.
 *
 * What needs every event (double frees, frees of pointers never seen)
 * has innocent explanations on a live kernel: objects older than the
 * recording, events lost, and allocation and free paths without a
 * tracepoint.  The rules (rules[] below) name them, from the kernel
 * source, with the releases they apply to; a finding none of them
 * explains is certain.  The judgement is made per row when the view is
 * finished, from what the row's key holds (kind, callsites, caches) and
 * what the recording says of itself (kernel release, lost events, the
 * tool that made it), so it costs the events nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/errors.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/hash.h"
#include "util/rows.h"

#define QUARANTINE_SLOTS (1U << 17)
#define QUARANTINE_FIRST (1U << 8)

static const struct {
	const char *key;
	const char *title;
	const char *other;	/* what the second callsite is */
	const char *certain;	/* why it is misuse when no rule explains it */
} kinds[KMT_ERR_NR] = {
	[KMT_ERR_CACHE_KFREE] = { "kfree_of_cache_object",
		"kmem_cache_alloc object freed with kfree", "alloc",
		"kfree() of a kmem_cache_alloc() object before 6.4" },
	[KMT_ERR_KMALLOC_CACHE_FREE] = { "cache_free_of_kmalloc_object",
		"kmalloc object freed with kmem_cache_free", "alloc",
		"kmem_cache_free() of a kmalloc() object" },
	[KMT_ERR_CACHE_MISMATCH] = { "cache_mismatch",
		"kmem_cache_free on another cache", "alloc",
		"freed to another cache than it came from" },
	[KMT_ERR_DOUBLE_FREE] = { "double_free", "double free",
		"first free",
		"freed again with no allocation between, none lost or untraced" },
	[KMT_ERR_UNKNOWN_FREE] = { "unknown_free",
		"free of a pointer never allocated", "",
		"never allocated in the recording, and nothing says it is older" },
	[KMT_ERR_PAGE_DOUBLE_FREE] = { "page_double_free",
		"page freed twice", "first free",
		"freed again with no allocation between, on a kernel without "
		"bulk page allocation" },
	[KMT_ERR_PAGE_UNKNOWN_FREE] = { "page_unknown_free",
		"free of a page never allocated", "",
		"never allocated in the recording" },
	[KMT_ERR_BELOW_REQ] = { "alloc_below_req",
		"bytes_alloc smaller than bytes_req", "",
		"the allocator returned less than was asked" },
	[KMT_ERR_FAILED] = { "failed_alloc", "failed allocation (NULL)", "",
		"the allocation failed" },
	[KMT_ERR_PAGE_FAILED] = { "page_failed_alloc",
		"failed page allocation (pfn -1)", "",
		"the allocation failed" },
};

static const char *const class_names[KMT_ERR_NR_CLASSES] = {
	[KMT_ERR_CERTAIN] = "certain",
	[KMT_ERR_POSSIBLE] = "possible",
	[KMT_ERR_LEGAL] = "legal",
};

/*
 * The rules.  The first that matches a finding gives its class and the
 * reason printed beside it; a finding none matches is certain.  Kernel
 * releases are major * 1000 + minor; a rule with a release range needs
 * the recording's release (--kernel gives it to text input).  Each
 * untraced path below is named with the file and function that take it,
 * as read in Linux 6.1 (Debian's linux-source-6.1) and, for what came
 * later, in the 6.4 to 6.18 changes named.
 */
enum {
	W_LOST		= 1 << 0,	/* the recording lost events */
	W_HIDES		= 1 << 1,	/* its recorder left tasks out */
	W_NO_KERNEL	= 1 << 2,	/* it does not say its kernel release */
	W_OLD_SITE	= 1 << 3,	/* the callsite or cache freed objects
					 * older than the recording in the
					 * warm-up */
};

struct err_rule {
	uint32_t kinds;		/* bits of enum kmt_err_kind */
	int since, before;	/* kernel releases [since, before); 0 open */
	unsigned int when;	/* W_*, all needed */
	const char *const *frames; /* the callsite's function is one of
				    * these (suffixes such as .part.0 aside) */
	const char *const *caches; /* a cache of the finding is one of these */
	enum kmt_err_class cls;
	const char *reason;
};

#define K(kind) (1U << KMT_ERR_##kind)
/* what only seeing every event can tell */
#define NEEDS_ALL (K(DOUBLE_FREE) | K(UNKNOWN_FREE) | K(PAGE_DOUBLE_FREE) | \
		   K(PAGE_UNKNOWN_FREE))

/*
 * mm/slub.c (6.18): caches created with a sheaf capacity keep per-CPU
 * arrays of objects (maple_node, lib/maple_tree.c; vm_area_struct).
 * kfree_rcu() of their objects fills an rcu_free sheaf (__kfree_rcu_sheaf,
 * ec66e0d59952 "slab: add sheaf support for batching kfree_rcu()
 * operations") whose objects go back after the grace period
 * (rcu_free_sheaf) without a kmem_cache_free event; the maple tree frees
 * its nodes with kfree_rcu().  Allocations from sheaves, prefilled ones
 * included (kmem_cache_alloc_from_sheaf), have their event.
 */
static const char *const sheaf_rcu_caches[] = { "maple_node", NULL };
/* lib/maple_tree.c (6.1 to 6.17): mt_alloc_bulk and mt_free_bulk are
 * kmem_cache_alloc_bulk and kmem_cache_free_bulk, which have no events
 * (mm/slub.c) */
static const char *const maple_caches[] = { "maple_node", NULL };
static const char *const skb_caches[] = { "skbuff_head_cache", NULL };

/*
 * Where the kernel tears down what may have lived since before the
 * recording: processes and their address spaces, files, credentials,
 * and the caches of the page cache that reclaim shrinks.
 */
static const char *const teardown_frames[] = {
	"do_exit", "exit_mmap", "release_task", "__put_task_struct",
	"free_task", "finish_task_switch", "__mmdrop", "put_files_struct",
	"flush_sigqueue", "flush_sigqueue_list", "exit_signals",
	"put_pid", "put_cred_rcu", "security_cred_free", "__fput",
	"task_work_run", "__x64_sys_close", "filp_close", "close_fd",
	"unlink_anon_vmas", "__put_anon_vma", "remove_vma", "vm_area_free",
	"vms_complete_munmap_vmas", "__mt_destroy", "free_pipe_info",
	"pipe_release", "__dentry_kill", "dentry_free", "destroy_inode",
	"free_inode_nonrcu", "free_buffer_head", "__es_remove_extent",
	NULL,
};
/* RCU callbacks free objects of any age (a callback that tail-calls
 * kfree() or kmem_cache_free() leaves the call site in rcu_do_batch) */
static const char *const rcu_frames[] = {
	"rcu_do_batch", "rcu_core", "kfree_rcu_work", "kvfree_rcu_list",
	"kvfree_rcu_bulk", NULL,
};

static const struct err_rule rules[] = {
	/*
	 * kfree() of a kmem_cache_alloc() object: SLAB and SLUB always found
	 * the cache from the object's slab, SLOB could not.  6.4 removed
	 * SLOB (6630e950d532 "mm/slob: remove slob.c") and documented
	 * kfree() as allowed for such objects (ae65a5211d90, mm/slab_common.c).
	 */
	{ K(CACHE_KFREE), 6004, 0, 0, NULL, NULL, KMT_ERR_LEGAL,
	  "kfree() frees kmem_cache_alloc() objects since 6.4" },
	{ K(CACHE_KFREE), 0, 0, W_NO_KERNEL, NULL, NULL, KMT_ERR_POSSIBLE,
	  "legal since 6.4; the recording does not say its kernel (--kernel)" },
	{ NEEDS_ALL | K(KMALLOC_CACHE_FREE) | K(CACHE_MISMATCH), 0, 0, W_LOST,
	  NULL, NULL, KMT_ERR_POSSIBLE,
	  "events were lost: what explains it may be among them" },
	{ K(DOUBLE_FREE) | K(UNKNOWN_FREE), 6001, 6018, 0, NULL, maple_caches,
	  KMT_ERR_POSSIBLE,
	  "maple nodes are allocated in bulk without events "
	  "(lib/maple_tree.c mt_alloc_bulk)" },
	{ K(DOUBLE_FREE) | K(UNKNOWN_FREE), 5012, 0, 0, NULL, skb_caches,
	  KMT_ERR_POSSIBLE,
	  "sk_buffs are allocated in bulk for the NAPI cache without events "
	  "(net/core/skbuff.c napi_skb_cache_get)" },
	{ K(UNKNOWN_FREE), 0, 0, W_OLD_SITE, NULL, NULL, KMT_ERR_POSSIBLE,
	  "older than the recording: this callsite or cache freed such "
	  "objects in the warm-up" },
	{ K(UNKNOWN_FREE), 0, 0, 0, teardown_frames, NULL, KMT_ERR_POSSIBLE,
	  "older than the recording: freed where processes, files and "
	  "caches are torn down" },
	{ K(UNKNOWN_FREE), 0, 0, 0, rcu_frames, NULL, KMT_ERR_POSSIBLE,
	  "older than the recording: freed by an RCU callback" },
	/* the page cache keeps pages for as long as memory allows */
	{ K(PAGE_UNKNOWN_FREE), 0, 0, 0, NULL, NULL, KMT_ERR_POSSIBLE,
	  "pages live long (page cache): allocated before the recording" },
	/*
	 * mm/page_alloc.c: alloc_pages_bulk (__alloc_pages_bulk, 5.13) takes
	 * pages off the per-CPU lists without mm_page_alloc (vmalloc's
	 * vm_area_alloc_pages, page_pool, sunrpc); they are freed one by
	 * one with events.  (Compaction's free scanner, mm/compaction.c
	 * isolate_freepages_block, also takes free pages without an event,
	 * as migration targets; no rule can see it from kmem events.)
	 */
	{ K(PAGE_DOUBLE_FREE), 5013, 0, 0, NULL, NULL, KMT_ERR_POSSIBLE,
	  "allocated again by alloc_pages_bulk() without an event "
	  "(mm/page_alloc.c, 5.13: vmalloc, page_pool)" },
	{ K(PAGE_DOUBLE_FREE), 0, 0, W_NO_KERNEL, NULL, NULL, KMT_ERR_POSSIBLE,
	  "since 5.13 pages are allocated in bulk without events; the "
	  "recording does not say its kernel (--kernel)" },
	/*
	 * kmemtrace record leaves its own threads out with
	 * set_event_notrace_pid (or, with -p and a command, all others):
	 * kernel/trace/trace_events.c keeps that as a per-CPU flag set at
	 * each context switch, so the interrupts and softirqs (RCU
	 * callbacks, networking) that run while such a task is on a CPU are
	 * left out too, and no lost-event counter counts them.
	 */
	{ NEEDS_ALL, 0, 0, W_HIDES, NULL, NULL, KMT_ERR_POSSIBLE,
	  "the recorder leaves out tasks and the interrupts that ran on "
	  "them: the allocation may have been there" },
	/* atomic, __GFP_NORETRY and __GFP_NOWARN allocations fail by design */
	{ K(FAILED) | K(PAGE_FAILED), 0, 0, 0, NULL, NULL, KMT_ERR_POSSIBLE,
	  "allocations may fail: misuse only where the caller does not "
	  "check" },
};

#define NR_RULES (sizeof(rules) / sizeof(rules[0]))
/* a row's rule when none matched: certain */
#define RULE_NONE 0xff

/* recent frees, each in the slot of its address' hash */
struct q_slot {
	uint64_t nkey;		/* ~address: 0 is an empty slot */
	uint64_t free_site;
	uint32_t cache;		/* of the object freed, 0 unknown */
	uint32_t pad;
};

struct quarantine {
	struct q_slot *slots;	/* mask + 1, up to QUARANTINE_SLOTS */
	uint32_t mask;
};

struct err_key {
	uint64_t site;		/* to blame: the free, or the allocation */
	uint64_t site2;		/* the allocation, or the first free */
	uint32_t a, b;		/* caches (names), or order */
	uint32_t kind;
	uint32_t pad;
};

struct err_row {
	struct err_key k;
	uint64_t count;
	uint64_t first_ts;
	uint64_t first_ptr;
	uint32_t cls;		/* enum kmt_err_class, once finished */
	uint32_t rule;		/* in rules[], or RULE_NONE */
};

struct errors_ctx {
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct quarantine slab_q, page_q;
	struct kmt_rows rows;
	/* frees of objects older than the recording in the warm-up */
	struct kmt_hash_u64 old_sites;	/* call_site -> uint64_t count */
	struct kmt_hash_u64 old_caches;	/* cache id -> uint64_t count */
	struct kmt_hash_u64 over_caches;	/* cache id -> allocations over live */
	uint64_t warmup;
	struct kmt_errors_totals t;
};

static int q_init(struct quarantine *q)
{
	q->slots = calloc(QUARANTINE_FIRST, sizeof(*q->slots));
	q->mask = QUARANTINE_FIRST - 1;
	return q->slots ? 0 : -ENOMEM;
}

static void q_free(struct quarantine *q)
{
	free(q->slots);
}

static struct q_slot *q_slot(const struct quarantine *q, uint64_t key)
{
	return &q->slots[kmt_hash_mix(key) & q->mask];
}

/* twice the slots: an entry keeps its slot or moves up by the old size */
static int q_grow(struct quarantine *q)
{
	uint32_t n = q->mask + 1, i;
	struct q_slot *old = q->slots;

	q->slots = calloc(2 * (size_t)n, sizeof(*q->slots));
	if (!q->slots) {
		q->slots = old;
		return -ENOMEM;
	}
	q->mask = 2 * n - 1;
	for (i = 0; i < n; i++)
		if (old[i].nkey)
			*q_slot(q, ~old[i].nkey) = old[i];
	free(old);
	return 0;
}

/* the free of key when it is still in the quarantine, or NULL */
static const struct q_slot *q_find(const struct quarantine *q, uint64_t key)
{
	const struct q_slot *e = q_slot(q, key);

	return e->nkey == ~key ? e : NULL;
}

static int q_put(struct quarantine *q, uint64_t key, uint64_t free_site,
		 uint32_t cache)
{
	struct q_slot *e = q_slot(q, key);

	while (e->nkey && e->nkey != ~key && q->mask < QUARANTINE_SLOTS - 1) {
		if (q_grow(q))
			return -ENOMEM;
		e = q_slot(q, key);
	}
	e->nkey = ~key;
	e->free_site = free_site;
	e->cache = cache;
	return 0;
}

static void errors_destroy(void *ctx)
{
	struct errors_ctx *c = ctx;

	if (!c)
		return;
	q_free(&c->slab_q);
	q_free(&c->page_q);
	kmt_rows_free(&c->rows);
	kmt_hash_u64_free(&c->old_sites);
	kmt_hash_u64_free(&c->old_caches);
	kmt_hash_u64_free(&c->over_caches);
	kmt_live_use_free(&c->live);
	free(c);
}

static void *errors_create(struct kmt_session *s,
			   const struct kmt_report_opts *opts)
{
	struct errors_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	c->warmup = opts->warmup;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct err_row),
		      sizeof(struct err_key));
	kmt_hash_u64_init(&c->old_sites);
	kmt_hash_u64_init(&c->old_caches);
	kmt_hash_u64_init(&c->over_caches);
	if (q_init(&c->slab_q) || q_init(&c->page_q)) {
		errors_destroy(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

static int count(struct errors_ctx *c, enum kmt_err_kind kind,
		 const struct kmt_event *ev, uint64_t site, uint64_t site2,
		 uint32_t a, uint32_t b)
{
	struct err_key k;
	struct err_row *row;
	int is_new;

	memset(&k, 0, sizeof(k));
	k.kind = kind;
	k.site = site;
	k.site2 = site2;
	k.a = a;
	k.b = b;
	row = kmt_rows_get(&c->rows, &k, 1, &is_new);
	if (!row)
		return -ENOMEM;
	if (is_new) {
		row->first_ts = ev->ts;
		row->first_ptr = ev->ptr;
	}
	row->count++;
	c->t.count[kind]++;
	return 0;
}

static int in_warmup(struct errors_ctx *c, const struct kmt_event *ev)
{
	return ev->ts < c->live.l->first_ts + c->warmup;
}

static int bump(struct kmt_hash_u64 *h, uint64_t key)
{
	uint64_t *n = kmt_hash_u64_put(h, key, NULL);

	if (!n)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* a free of a pointer not live: freed twice, or never seen */
static int unknown_free(struct errors_ctx *c, const struct kmt_event *ev,
			const struct kmt_live_step *st,
			const struct quarantine *q, enum kmt_err_kind twice,
			enum kmt_err_kind never)
{
	const struct q_slot *e = q_find(q, ev->ptr);
	int page = twice == KMT_ERR_PAGE_DOUBLE_FREE;

	if (e)
		return count(c, twice, ev, st->callsite, e->free_site,
			     e->cache, page ? 0 : ev->cache);
	if (in_warmup(c, ev)) {
		c->t.warmup[page]++;
		if (page)
			return 0;
		/* this callsite and cache free objects older than the recording */
		if (bump(&c->old_sites, st->callsite) ||
		    (ev->cache && bump(&c->old_caches, ev->cache)))
			return -ENOMEM;
		return 0;
	}
	return count(c, never, ev, st->callsite, 0, page ? 0 : ev->cache, 0);
}

static int slab_free(struct errors_ctx *c, const struct kmt_event *ev,
		     const struct kmt_live_step *st)
{
	const struct kmt_live_obj *o = &st->prev;
	uint32_t cache = ev->cache;
	int ret = 0;

	switch (st->what) {
	case KMT_LIVE_FREE:
		if (o->cache)
			cache = o->cache;
		if (ev->type == KMT_EV_KFREE && o->type == KMT_EV_CACHE_ALLOC)
			ret = count(c, KMT_ERR_CACHE_KFREE, ev, st->callsite,
				    o->callsite, o->cache, 0);
		else if (ev->type == KMT_EV_CACHE_FREE &&
			 o->type == KMT_EV_KMALLOC)
			ret = count(c, KMT_ERR_KMALLOC_CACHE_FREE, ev,
				    st->callsite, o->callsite, 0, ev->cache);
		else if (ev->type == KMT_EV_CACHE_FREE && ev->cache &&
			 o->cache && ev->cache != o->cache)
			ret = count(c, KMT_ERR_CACHE_MISMATCH, ev, st->callsite,
				    o->callsite, o->cache, ev->cache);
		break;
	case KMT_LIVE_FREE_UNKNOWN:
		ret = unknown_free(c, ev, st, &c->slab_q, KMT_ERR_DOUBLE_FREE,
				   KMT_ERR_UNKNOWN_FREE);
		break;
	case KMT_LIVE_FREE_NULL:
		c->t.free_null++;
		return 0;
	default:
		return 0;
	}
	if (!ret)
		ret = q_put(&c->slab_q, ev->ptr, st->callsite, cache);
	return ret;
}

static int page_free(struct errors_ctx *c, const struct kmt_event *ev,
		     const struct kmt_live_step *st)
{
	int ret = 0;

	if (st->what == KMT_LIVE_FREE_UNKNOWN)
		ret = unknown_free(c, ev, st, &c->page_q,
				   KMT_ERR_PAGE_DOUBLE_FREE,
				   KMT_ERR_PAGE_UNKNOWN_FREE);
	if (!ret)
		ret = q_put(&c->page_q, ev->ptr, st->callsite, 0);
	return ret;
}

static int errors_on_event(void *ctx, const struct kmt_event *ev)
{
	struct errors_ctx *c = ctx;
	const struct kmt_live_step *st;
	int ret = kmt_live_use_feed(&c->live, ev);

	if (ret <= 0)
		return ret;
	st = &c->live.l->step;
	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
		if (st->what == KMT_LIVE_ALLOC_OVER) {
			c->t.alloc_over_live++;
			/* which caches lose their frees: named when finished */
			if (bump(&c->over_caches, st->prev.cache))
				return -ENOMEM;
		}
		if (st->what == KMT_LIVE_ALLOC_FAILED)
			return count(c, KMT_ERR_FAILED, ev, st->callsite, 0,
				     ev->cache, 0);
		if (ev->bytes_alloc < ev->bytes_req)
			return count(c, KMT_ERR_BELOW_REQ, ev, st->callsite, 0,
				     ev->cache, 0);
		return 0;
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		return slab_free(c, ev, st);
	case KMT_EV_PAGE_ALLOC:
		if (st->what == KMT_LIVE_ALLOC_OVER)
			c->t.page_alloc_over_live++;
		if (st->what == KMT_LIVE_ALLOC_FAILED)
			return count(c, KMT_ERR_PAGE_FAILED, ev, st->callsite, 0,
				     (uint32_t)(ev->order < 0 ? 0 : ev->order),
				     0);
		return 0;
	case KMT_EV_PAGE_FREE:
		return page_free(c, ev, st);
	default:
		return 0;
	}
}

/* the judging */

/* what the recording says of itself, for the rules' W_* */
static unsigned int recording_facts(const struct kmt_session *s)
{
	unsigned int w = 0;

	if (s->nr_lost)
		w |= W_LOST;
	if (!kmt_session_kernel_version(s))
		w |= W_NO_KERNEL;
	/* every kmemtrace record leaves out tasks (lib/record/recorder.c) */
	if (!strncmp(s->recorder, "kmemtrace", 9))
		w |= W_HIDES;
	return w;
}

/* "put_files_struct.part.0" is put_files_struct */
static int name_in(const char *name, const char *const *list)
{
	size_t len = strcspn(name, ".");

	for (; *list; list++) {
		if (strlen(*list) == len && !strncmp(*list, name, len))
			return 1;
	}
	return 0;
}

static int frame_in(struct errors_ctx *c, uint64_t site,
		    const char *const *list)
{
	uint64_t off;
	const char *name = site ? kmt_symtab_lookup(&c->s->syms, site, &off) :
			   NULL;

	return name && name_in(name, list);
}

static int cache_in(struct errors_ctx *c, uint32_t id,
		    const char *const *list)
{
	const char *name = id ? kmt_strtab_get(&c->s->strs, id) : NULL;

	return name && name_in(name, list);
}

static int row_caches_in(struct errors_ctx *c, const struct err_key *k,
			 const char *const *list)
{
	/* a and b are orders, not caches, for failed page allocations */
	if (k->kind == KMT_ERR_PAGE_FAILED)
		return 0;
	return cache_in(c, k->a, list) || cache_in(c, k->b, list);
}

static unsigned int row_facts(struct errors_ctx *c, const struct err_key *k,
			      unsigned int w)
{
	if (k->kind == KMT_ERR_UNKNOWN_FREE &&
	    (kmt_hash_u64_get(&c->old_sites, k->site) ||
	     (k->a && kmt_hash_u64_get(&c->old_caches, k->a))))
		w |= W_OLD_SITE;
	return w;
}

static int rule_matches(struct errors_ctx *c, const struct err_rule *r,
			const struct err_key *k, unsigned int w, int version)
{
	if (!(r->kinds & (1U << k->kind)) || (w & r->when) != r->when)
		return 0;
	if ((r->since || r->before) &&
	    (!version || (r->since && version < r->since) ||
	     (r->before && version >= r->before)))
		return 0;
	if (r->frames && !frame_in(c, k->site, r->frames))
		return 0;
	if (r->caches && !row_caches_in(c, k, r->caches))
		return 0;
	return 1;
}

static void judge(struct errors_ctx *c, struct err_row *row, unsigned int w,
		  int version)
{
	unsigned int i;

	w = row_facts(c, &row->k, w);
	row->rule = RULE_NONE;
	row->cls = KMT_ERR_CERTAIN;
	for (i = 0; i < NR_RULES; i++) {
		if (rule_matches(c, &rules[i], &row->k, w, version)) {
			row->rule = i;
			row->cls = rules[i].cls;
			break;
		}
	}
	c->t.by_class[row->k.kind][row->cls] += row->count;
}

/* allocations over a live object of caches whose frees have no events */
static uint64_t over_live_untraced(struct errors_ctx *c, int version)
{
	uint64_t key, n = 0;
	size_t it = 0;
	uint64_t *val;

	while (kmt_hash_u64_next(&c->over_caches, &it, &key, &val)) {
		uint32_t id = (uint32_t)key;

		if ((version >= 6018 && cache_in(c, id, sheaf_rcu_caches)) ||
		    (version >= 6001 && version < 6018 &&
		     cache_in(c, id, maple_caches)) ||
		    (version >= 5011 && cache_in(c, id, skb_caches)))
			n += *val;
	}
	return n;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct err_row *x = a, *y = b;
	int c;

	/* certain first, then by kind as listed, the most frequent first */
	if ((c = KMT_CMP_ASC(x->cls, y->cls)) ||
	    (c = KMT_CMP_ASC(x->k.kind, y->k.kind)) ||
	    (c = KMT_CMP_DESC(x->count, y->count)))
		return c;
	return memcmp(&x->k, &y->k, sizeof(x->k));
}

static const struct kmt_col err_cols[] = {
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "class", "Class", KMT_V_STR, KMT_COL_LEFT },
	{ "count", "Count", KMT_V_U64, 0 },
	{ "callsite", "Callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "other_callsite", "Other callsite", KMT_V_STR, KMT_COL_LEFT },
	{ "other_is", "(is)", KMT_V_STR, KMT_COL_LEFT },
	{ "detail", "Detail", KMT_V_STR, KMT_COL_LEFT },
	{ "first_ts_ns", "First seen", KMT_V_TIME, 0 },
	{ "first_ptr", "Pointer", KMT_V_HEX, 0 },
	{ "reason", "Reason", KMT_V_STR, KMT_COL_LEFT },
	{ "address", "Address", KMT_V_HEX, KMT_COL_NO_TEXT },
	{ "other_address", "Other address", KMT_V_HEX, KMT_COL_NO_TEXT },
};

static const struct kmt_col class_cols[] = {
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "certain", "Certain", KMT_V_U64, 0 },
	{ "possible", "Possible", KMT_V_U64, 0 },
	{ "legal", "Legal", KMT_V_U64, 0 },
};

static const char *cache_name(struct errors_ctx *c, uint32_t id)
{
	const char *name = id ? kmt_strtab_get(&c->s->strs, id) : NULL;

	return name ? name : "?";
}

static const char *detail(struct errors_ctx *c, struct kmt_report *r,
			  const struct err_key *k)
{
	switch (k->kind) {
	case KMT_ERR_DOUBLE_FREE:
	case KMT_ERR_UNKNOWN_FREE:
		return k->a ? kmt_report_printf(r, "cache %s",
						cache_name(c, k->a)) :
		       k->b ? kmt_report_printf(r, "freed to %s",
						cache_name(c, k->b)) : "";
	case KMT_ERR_CACHE_KFREE:
		return k->a ? kmt_report_printf(r, "cache %s",
						cache_name(c, k->a)) : "";
	case KMT_ERR_KMALLOC_CACHE_FREE:
		return k->b ? kmt_report_printf(r, "freed to %s",
						cache_name(c, k->b)) : "";
	case KMT_ERR_CACHE_MISMATCH:
		return kmt_report_printf(r, "allocated from %s, freed to %s",
					 cache_name(c, k->a),
					 cache_name(c, k->b));
	case KMT_ERR_FAILED:
	case KMT_ERR_BELOW_REQ:
		return k->a ? kmt_report_printf(r, "cache %s",
						cache_name(c, k->a)) : "";
	case KMT_ERR_PAGE_FAILED:
		return kmt_report_printf(r, "order %u", k->a);
	default:
		return "";
	}
}

static int add_class_table(struct errors_ctx *c, struct kmt_report *r)
{
	struct kmt_table *tab;
	size_t i;

	tab = kmt_report_add_table(r, "errors", "classes",
				   "FINDINGS by kind and class",
				   class_cols, KMT_NCOLS(class_cols),
				   KMT_TABLE_PLAIN);
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < KMT_ERR_NR; i++) {
		union kmt_val *v = kmt_table_add_row(tab);

		if (!v)
			return -ENOMEM;
		v[0].str = kinds[i].key;
		v[1].u = c->t.by_class[i][KMT_ERR_CERTAIN];
		v[2].u = c->t.by_class[i][KMT_ERR_POSSIBLE];
		v[3].u = c->t.by_class[i][KMT_ERR_LEGAL];
	}
	tab->total_rows = KMT_ERR_NR;
	return 0;
}

static int errors_finish(void *ctx, struct kmt_report *r)
{
	struct errors_ctx *c = ctx;
	const struct kmt_errors_totals *t = &c->t;
	struct kmt_rows *rows = &c->rows;
	struct kmt_sort_chain chain = { .tiebreak = cmp_rows };
	int version = kmt_session_kernel_version(c->s);
	unsigned int w = recording_facts(c->s);
	uint64_t by_class[KMT_ERR_NR_CLASSES] = { 0 };
	struct kmt_summary *s;
	struct kmt_table *tab;
	size_t i, n, shown;
	int err = 0;

	memset(c->t.by_class, 0, sizeof(c->t.by_class));
	for (i = 0; i < rows->nr; i++)
		judge(c, kmt_rows_at(rows, i), w, version);
	c->t.alloc_over_live_untraced = over_live_untraced(c, version);
	tab = kmt_report_add_table(r, "errors", "callsites",
				   "ERRORS: allocator misuse, by callsite, "
				   "certain findings first",
				   err_cols, KMT_NCOLS(err_cols),
				   KMT_TABLE_PLAIN);
	if (!tab)
		return -ENOMEM;
	kmt_sort_rows(rows->rows, rows->nr, rows->row_size, &chain);
	kmt_hash_u32_clear(&rows->index);
	/* legal findings sort last: they are left out unless asked for */
	for (shown = 0; shown < rows->nr; shown++) {
		const struct err_row *row = kmt_rows_at(rows, shown);

		if (row->cls == KMT_ERR_LEGAL && !c->opts.all_findings)
			break;
	}
	n = shown;
	if (c->opts.lines > 0 && n > (size_t)c->opts.lines)
		n = c->opts.lines;
	for (i = 0; i < n; i++) {
		const struct err_row *row = kmt_rows_at(rows, i);
		const struct err_key *k = &row->k;
		union kmt_val *v = kmt_table_add_row(tab);

		if (!v)
			return -ENOMEM;
		v[0].str = kinds[k->kind].key;
		v[1].str = class_names[row->cls];
		v[2].u = row->count;
		v[3].str = kmt_analysis_sym(c->s, r, k->site, c->opts.raw_ip);
		v[4].str = kinds[k->kind].other[0] ?
			   kmt_analysis_sym(c->s, r, k->site2,
					    c->opts.raw_ip) : "";
		v[5].str = kinds[k->kind].other;
		v[6].str = detail(c, r, k);
		v[7].u = row->first_ts;
		v[8].u = row->first_ptr;
		v[9].str = row->rule == RULE_NONE ? kinds[k->kind].certain :
			   rules[row->rule].reason;
		v[10].u = kmt_view_addr(k->site);
		v[11].u = kmt_view_addr(k->site2);
	}
	tab->total_rows = shown;
	if (add_class_table(c, r))
		return -ENOMEM;

	s = kmt_report_add_summary(r, "errors", "summary",
				   "SUMMARY (allocator misuse)");
	if (!s)
		return -ENOMEM;
	for (i = 0; i < KMT_ERR_NR; i++) {
		const char *label = kmt_report_printf(r, "%s:", kinds[i].title);
		int k;

		err |= kmt_summary_u64(s, label, kinds[i].key, t->count[i]);
		for (k = 0; k < KMT_ERR_NR_CLASSES; k++)
			by_class[k] += t->by_class[i][k];
	}
	err |= kmt_summary_u64(s, "Certain findings (misuse):", "certain",
			       by_class[KMT_ERR_CERTAIN]);
	err |= kmt_summary_u64(s, "Possible findings (also explained innocently):",
			       "possible", by_class[KMT_ERR_POSSIBLE]);
	err |= kmt_summary_u64(s, c->opts.all_findings ?
			       "Legal on this kernel:" :
			       "Legal on this kernel (--all-findings lists them):",
			       "legal", by_class[KMT_ERR_LEGAL]);
	{
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE,
			.label = "Frees of unknown pointers expected in the first",
			.key = "warmup_ns", .type = KMT_V_DURATION,
			.v.u = c->warmup,
		};

		err |= kmt_summary_add(s, &it);
	}
	err |= kmt_summary_u64(s, "  slab frees then (allocated before the recording):",
			       "unknown_free_warmup", t->warmup[0]);
	err |= kmt_summary_u64(s, "  page frees then (allocated before the recording):",
			       "page_unknown_free_warmup", t->warmup[1]);
	err |= kmt_summary_u64(s, "Events lost by the recording:", "lost_events",
			       c->s->nr_lost);
	if (c->s->nr_lost) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_NOTE,
			.label = "  so double frees and frees of unknown pointers "
				 "may be allocations that were lost",
		};

		err |= kmt_summary_add(s, &it);
	}
	err |= kmt_summary_u64(s, "Allocations over a live object (free lost or untraced):",
			       "alloc_over_live", t->alloc_over_live);
	err |= kmt_summary_u64(s, "  of caches freed without events on this kernel (bulk, RCU sheaves):",
			       "alloc_over_live_untraced",
			       t->alloc_over_live_untraced);
	err |= kmt_summary_u64(s, "Page allocations over a live block:",
			       "page_alloc_over_live", t->page_alloc_over_live);
	err |= kmt_summary_u64(s, "Frees of NULL (not an error):", "free_null",
			       t->free_null);
	return err ? -ENOMEM : 0;
}

void kmt_errors_get_totals(const void *ctx, struct kmt_errors_totals *out)
{
	const struct errors_ctx *c = ctx;

	*out = c->t;
}

const struct kmt_analysis_ops kmt_analysis_errors = {
	.name = "errors",
	.needs = KMT_EV_SLAB_BITS | KMT_EV_PAGE_BITS,
	.create = errors_create,
	.on_event = errors_on_event,
	.finish = errors_finish,
	.destroy = errors_destroy,
};
