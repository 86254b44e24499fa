// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/names.h"
#include "util/strbuf.h"

/* /proc/kallsyms cannot be mapped and does not say its size: read it */
static int read_kallsyms(char **buf, size_t *len)
{
	size_t alloc = 1 << 22, n = 0;
	char *p = malloc(alloc);
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !p) {
		int e = fd < 0 ? errno : ENOMEM;

		if (fd >= 0)
			close(fd);
		free(p);
		return -e;
	}
	for (;;) {
		ssize_t r;

		if (alloc - n < 65536) {
			char *q = realloc(p, alloc * 2);

			if (!q) {
				free(p);
				close(fd);
				return -ENOMEM;
			}
			p = q;
			alloc *= 2;
		}
		r = read(fd, p + n, alloc - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(p);
			close(fd);
			return -e;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	*buf = p;
	*len = n;
	return 0;
}

int kmt_bpf_names_init(struct kmt_bpf_names *n)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	memset(n, 0, sizeof(*n));
	ret = kmt_session_init(&n->sess);
	if (ret)
		return ret;
	kmt_callsite_cache_init(&n->callsites);
	kmt_hash_u32_init(&n->ids);
	ret = read_kallsyms(&buf, &len);
	if (ret)
		return kmt_session_error(&n->sess, ret,
					 "cannot read '/proc/kallsyms': %s",
					 strerror(-ret));
	ret = kmt_symtab_load_kallsyms(&n->sess.syms, buf, len);
	free(buf);
	if (ret < 0)
		return kmt_session_error(&n->sess, ret,
					 "cannot parse '/proc/kallsyms': %s",
					 strerror(-ret));
	kmt_symtab_prepare(&n->sess.syms);
	return 0;
}

void kmt_bpf_names_free(struct kmt_bpf_names *n)
{
	kmt_hash_u32_free(&n->ids);
	kmt_callsite_cache_free(&n->callsites);
	kmt_session_free(&n->sess);
}

/* the frames BPF and the tracepoint put above the allocator */
static int is_tracing(const char *sym)
{
	static const char *const prefixes[] = {
		"bpf_", "__bpf_", "___bpf_", "trace_", "__traceiter_",
		"perf_", "__probestub_",
	};
	size_t i;

	if (!sym)
		return 0;
	for (i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return 1;
	}
	return 0;
}

uint32_t kmt_bpf_names_stack(struct kmt_bpf_names *n, struct kmt_bpf *b,
			     int64_t stack_id, uint64_t site)
{
	uint64_t ips[KMT_STACK_DEPTH], off;
	uint32_t *memo, id;
	size_t nr, i, first = 0;
	int is_new;

	if (stack_id <= 0)
		return 0;
	memo = kmt_hash_u32_get(&n->ids, (uint64_t)stack_id);
	if (memo)
		return *memo;
	nr = kmt_bpf_stack(b, stack_id, ips);
	/*
	 * Not in the map (pruned as the kernel handed the id out again):
	 * not remembered, for the id names the same stack when it is back
	 */
	if (!nr)
		return 0;
	while (first < nr &&
	       is_tracing(kmt_symtab_lookup(&n->sess.syms, ips[first], &off)))
		first++;
	/*
	 * A slab object's stack starts at its callsite; a page's at the
	 * first frame past the page allocator (the rule of callsite.h).
	 */
	for (i = first; site && i < nr; i++) {
		if (ips[i] == site) {
			first = i;
			break;
		}
	}
	while (!site && first + 1 < nr &&
	       kmt_callsite_is_page_allocator(
			kmt_symtab_lookup(&n->sess.syms, ips[first], &off)))
		first++;
	id = nr > first ? kmt_stacks_intern(&n->sess.stacks, ips + first,
					    nr - first) : 0;
	memo = kmt_hash_u32_put(&n->ids, (uint64_t)stack_id, &is_new);
	if (memo)
		*memo = id;
	return id;
}

int kmt_bpf_is_rare_allocator(const char *sym)
{
	static const char *const prefixes[] = {
		"alloc_vmap_area", "get_vm_area", "vmalloc", "vzalloc", "vmap",
		"vm_map_ram", "kvmalloc", "kvzalloc", "kvcalloc", "kvrealloc",
		"execmem_", "pcpu_", "alloc_percpu",
	};
	size_t len, i, n;

	if (!sym)
		return 0;
	while (*sym == '_')
		sym++;
	len = strlen(sym);
	if (len > 7 && !strcmp(sym + len - 7, "_noprof"))
		len -= 7;
	for (i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		n = strlen(prefixes[i]);
		if (len >= n && !memcmp(sym, prefixes[i], n))
			return 1;
	}
	return 0;
}

uint32_t kmt_bpf_names_rare_stack(struct kmt_bpf_names *n, struct kmt_bpf *b,
				  int64_t stack_id)
{
	uint64_t ips[KMT_STACK_DEPTH], off;
	uint32_t *memo, id;
	size_t nr, first = 0;
	int is_new;

	if (stack_id <= 0)
		return 0;
	memo = kmt_hash_u32_get(&n->ids, (uint64_t)stack_id);
	if (memo)
		return *memo;
	nr = kmt_bpf_stack(b, stack_id, ips);
	if (!nr)
		return 0;
	while (first < nr &&
	       is_tracing(kmt_symtab_lookup(&n->sess.syms, ips[first], &off)))
		first++;
	while (first + 1 < nr &&
	       kmt_bpf_is_rare_allocator(
			kmt_symtab_lookup(&n->sess.syms, ips[first], &off)))
		first++;
	id = nr > first ? kmt_stacks_intern(&n->sess.stacks, ips + first,
					    nr - first) : 0;
	memo = kmt_hash_u32_put(&n->ids, (uint64_t)stack_id, &is_new);
	if (memo)
		*memo = id;
	return id;
}

uint64_t kmt_bpf_names_rare_site(struct kmt_bpf_names *n, uint32_t stack)
{
	const struct kmt_stack *st = kmt_stacks_get(&n->sess.stacks, stack);

	return st && st->nr ? st->ips[0] : 0;
}

void kmt_bpf_names_forget(struct kmt_bpf_names *n, int64_t stack_id)
{
	if (stack_id > 0)
		kmt_hash_u32_del(&n->ids, (uint64_t)stack_id, NULL);
}

uint64_t kmt_bpf_names_page_site(struct kmt_bpf_names *n, uint32_t stack)
{
	return kmt_page_callsite(&n->callsites, &n->sess, stack);
}

const char *kmt_bpf_names_sym(struct kmt_bpf_names *n, uint64_t addr,
			      char *buf, size_t size)
{
	uint64_t off;
	const char *name = addr ? kmt_symtab_lookup(&n->sess.syms, addr, &off)
				: NULL;

	if (name)
		snprintf(buf, size, "%s+%" PRIx64, name, off);
	else
		snprintf(buf, size, "0x%" PRIx64, addr);
	return buf;
}

const char *kmt_bpf_names_stack_str(struct kmt_bpf_names *n, uint32_t stack,
				    int max, char *buf, size_t size)
{
	const struct kmt_stack *st = kmt_stacks_get(&n->sess.stacks, stack);
	size_t used = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; st && i < st->nr && (!max || i < (uint32_t)max); i++) {
		char sym[160];
		int w;

		kmt_bpf_names_sym(n, st->ips[i], sym, sizeof(sym));
		w = snprintf(buf + used, size - used, "%s%s", i ? " <- " : "",
			     sym);
		if (w < 0 || (size_t)w >= size - used)
			break;
		used += w;
	}
	return buf;
}
