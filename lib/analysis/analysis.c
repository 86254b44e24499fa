// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "analysis/analysis.h"
#include "event/session.h"
#include "report/report.h"

static const char *make_sym(struct kmt_session *s, struct kmt_report *r,
			    uint64_t addr, int raw_ip)
{
	uint64_t off = 0;
	const char *name;

	if (!addr)
		return kmt_report_strdup(r, "(unknown)");
	/* text input has names, not addresses: there is nothing raw to show */
	if (addr >= KMT_SYNTH_BASE && addr < 0x8000000000000000ULL)
		raw_ip = 0;
	name = raw_ip ? NULL : kmt_symtab_lookup(&s->syms, addr, &off);
	if (!name)
		return kmt_report_printf(r, "%#" PRIx64, addr);
	if (!off)
		return kmt_report_strdup(r, name);
	return kmt_report_printf(r, "%s+%" PRIx64, name, off);
}

const char *kmt_analysis_sym(struct kmt_session *s, struct kmt_report *r,
			     uint64_t addr, int raw_ip)
{
	const char **memo;
	int is_new;

	memo = kmt_report_texts_put(&r->sym_memo[!!raw_ip], addr, &is_new);
	if (!memo)
		return make_sym(s, r, addr, raw_ip);
	if (is_new)
		*memo = make_sym(s, r, addr, raw_ip);
	return *memo;
}

const char *kmt_analysis_sym_made(const struct kmt_report *r, uint64_t addr,
				  int raw_ip)
{
	const char *const *memo = kmt_report_texts_get(&r->sym_memo[!!raw_ip],
							addr);

	return memo ? *memo : NULL;
}
