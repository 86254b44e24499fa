// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "event/event.h"

static const char *const type_names[KMT_EV_NR] = {
	[KMT_EV_NONE]		= "none",
	[KMT_EV_KMALLOC]	= "kmalloc",
	[KMT_EV_CACHE_ALLOC]	= "kmem_cache_alloc",
	[KMT_EV_KFREE]		= "kfree",
	[KMT_EV_CACHE_FREE]	= "kmem_cache_free",
	[KMT_EV_PAGE_ALLOC]	= "mm_page_alloc",
	[KMT_EV_PAGE_FREE]	= "mm_page_free",
	[KMT_EV_PAGE_FREE_BATCHED] = "mm_page_free_batched",
	[KMT_EV_PAGE_ZONE_LOCKED] = "mm_page_alloc_zone_locked",
	[KMT_EV_PCPU_DRAIN]	= "mm_page_pcpu_drain",
	[KMT_EV_EXTFRAG]	= "mm_page_alloc_extfrag",
	[KMT_EV_PERCPU_ALLOC]	= "percpu_alloc_percpu",
	[KMT_EV_PERCPU_FREE]	= "percpu_free_percpu",
	[KMT_EV_PERCPU_FAIL]	= "percpu_alloc_percpu_fail",
	[KMT_EV_PERCPU_CHUNK_NEW] = "percpu_create_chunk",
	[KMT_EV_PERCPU_CHUNK_DEL] = "percpu_destroy_chunk",
	[KMT_EV_VMAP_ALLOC]	= "alloc_vmap_area",
	[KMT_EV_VMAP_FREE]	= "free_vmap_area_noflush",
	[KMT_EV_VMAP_PURGE]	= "purge_vmap_area_lazy",
};

/* every name a kernel has used for one of our tracepoints */
static const struct {
	const char *name;
	unsigned int type;
} tracepoints[] = {
	{ "kmalloc",			KMT_EV_KMALLOC },
	{ "kmalloc_node",		KMT_EV_KMALLOC },
	{ "kmem_cache_alloc",		KMT_EV_CACHE_ALLOC },
	{ "kmem_cache_alloc_node",	KMT_EV_CACHE_ALLOC },
	{ "kfree",			KMT_EV_KFREE },
	{ "kmem_cache_free",		KMT_EV_CACHE_FREE },
	{ "mm_page_alloc",		KMT_EV_PAGE_ALLOC },
	{ "mm_page_free",		KMT_EV_PAGE_FREE },
	{ "mm_page_free_direct",	KMT_EV_PAGE_FREE },
	{ "mm_page_free_batched",	KMT_EV_PAGE_FREE_BATCHED },
	{ "mm_pagevec_free",		KMT_EV_PAGE_FREE_BATCHED },
	{ "mm_page_alloc_zone_locked",	KMT_EV_PAGE_ZONE_LOCKED },
	{ "mm_page_pcpu_drain",		KMT_EV_PCPU_DRAIN },
	{ "mm_page_alloc_extfrag",	KMT_EV_EXTFRAG },
	{ "percpu_alloc_percpu",	KMT_EV_PERCPU_ALLOC },
	{ "percpu_free_percpu",		KMT_EV_PERCPU_FREE },
	{ "percpu_alloc_percpu_fail",	KMT_EV_PERCPU_FAIL },
	{ "percpu_create_chunk",	KMT_EV_PERCPU_CHUNK_NEW },
	{ "percpu_destroy_chunk",	KMT_EV_PERCPU_CHUNK_DEL },
	{ "alloc_vmap_area",		KMT_EV_VMAP_ALLOC },
	{ "free_vmap_area_noflush",	KMT_EV_VMAP_FREE },
	{ "purge_vmap_area_lazy",	KMT_EV_VMAP_PURGE },
};

/*
 * Every event read starts here.  Field by field, because gcc makes a
 * memset (or a copy of a mostly-zero template) "rep stos", which costs
 * more than the rest of a decode.
 */
void kmt_event_init(struct kmt_event *ev)
{
	ev->ts = 0;
	ev->call_site = 0;
	ev->ptr = 0;
	ev->bytes_req = 0;
	ev->bytes_alloc = 0;
	ev->gfp = 0;
	ev->gfp_str = 0;
	ev->cache = 0;
	ev->stack = 0;
	ev->type = 0;
	ev->flags = 0;
	ev->cpu = -1;
	ev->pid = -1;
	ev->order = 0;
	ev->migratetype = -1;
	ev->fallback_order = -1;
	ev->fallback_migratetype = -1;
	ev->node = -1;
	ev->comm = 0;
}

/*
 * The option of `kmemtrace record` that records each type: what a report
 * tells the user to record when a view needs events the recording lacks.
 */
static const char *const record_options[KMT_EV_NR] = {
	[KMT_EV_KMALLOC]	= "--slab",
	[KMT_EV_CACHE_ALLOC]	= "--slab",
	[KMT_EV_KFREE]		= "--slab",
	[KMT_EV_CACHE_FREE]	= "--slab",
	[KMT_EV_PAGE_ALLOC]	= "--page",
	[KMT_EV_PAGE_FREE]	= "--page",
	[KMT_EV_PAGE_FREE_BATCHED] = "--page",
	[KMT_EV_PAGE_ZONE_LOCKED] = "--pcpu",
	[KMT_EV_PCPU_DRAIN]	= "--pcpu",
	[KMT_EV_EXTFRAG]	= "--extfrag",
	[KMT_EV_PERCPU_ALLOC]	= "--percpu",
	[KMT_EV_PERCPU_FREE]	= "--percpu",
	[KMT_EV_PERCPU_FAIL]	= "--percpu",
	[KMT_EV_PERCPU_CHUNK_NEW] = "--percpu",
	[KMT_EV_PERCPU_CHUNK_DEL] = "--percpu",
	[KMT_EV_VMAP_ALLOC]	= "--vmalloc",
	[KMT_EV_VMAP_FREE]	= "--vmalloc",
	[KMT_EV_VMAP_PURGE]	= "--vmalloc",
};

const char *kmt_ev_record_option(unsigned int type)
{
	return type < KMT_EV_NR && record_options[type] ? record_options[type] :
							   "";
}

const char *kmt_ev_type_name(unsigned int type)
{
	return type < KMT_EV_NR ? type_names[type] : "unknown";
}

const char *kmt_ev_system(unsigned int type)
{
	return kmt_ev_is_percpu(type) ? "percpu" :
	       kmt_ev_is_vmalloc(type) ? "vmalloc" : "kmem";
}

unsigned int kmt_ev_system_bits(const char *system)
{
	unsigned int bits = 0, t;

	for (t = 1; t < KMT_EV_NR; t++) {
		if (!strcmp(kmt_ev_system(t), system))
			bits |= KMT_EV_BIT(t);
	}
	return bits;
}

static unsigned int type_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++) {
		if (!strcmp(tracepoints[i].name, name))
			return tracepoints[i].type;
	}
	return KMT_EV_NONE;
}

unsigned int kmt_ev_type_from_tracepoint(const char *name)
{
	const char *colon = strchr(name, ':');

	if (!colon)
		return type_of(name);
	return kmt_ev_type_from_system(name, (size_t)(colon - name),
				       colon + 1);
}

unsigned int kmt_ev_type_from_system(const char *system, size_t len,
				     const char *name)
{
	unsigned int type = type_of(name);

	/* the name must be of its own system: "kmem:percpu_..." is not ours */
	if (type == KMT_EV_NONE || strlen(kmt_ev_system(type)) != len ||
	    memcmp(kmt_ev_system(type), system, len))
		return KMT_EV_NONE;
	return type;
}
