// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-budget.c --- the automatic budget's rule: traced bytes, memory, disk (pack-budget.h)
 */
#include <errno.h>
#include <stdint.h>

#include "c.h"
#include "pack-budget.h"

static const char *const bound_names[] = {
	[BP_BUDGET_GIVEN] = "given",
	[BP_BUDGET_TRACED] = "traced",
	[BP_BUDGET_MEMORY] = "memory",
	[BP_BUDGET_DISK] = "disk",
};

const char *bp_budget_bound_name(enum bp_budget_bound b)
{
	return (unsigned int)b < ARRAY_SIZE(bound_names) ? bound_names[b] : "unknown";
}

errcode_t bp_pack_budget(const struct bp_budget_in *in, struct bp_budget_out *out)
{
	unsigned __int128 disk;

	if (!in || !out || !in->mem_total)
		return EINVAL;
	out->rate_default = !in->rate_bps;
	out->rate_bps = in->rate_bps ? in->rate_bps : BP_BUDGET_DEFAULT_RATE;
	out->mem_cap = in->mem_total / BP_BUDGET_MEM_DIV;
	out->disk_cap = UINT64_MAX;
	if (in->boot_ns) {
		disk = (unsigned __int128)out->rate_bps * in->boot_ns / 1000000000U;
		out->disk_cap = disk < UINT64_MAX ? (uint64_t)disk : UINT64_MAX;
	}
	out->budget = in->traced_bytes;
	out->bound = BP_BUDGET_TRACED;
	if (out->mem_cap < out->budget) {
		out->budget = out->mem_cap;
		out->bound = BP_BUDGET_MEMORY;
	}
	if (out->disk_cap < out->budget) {
		out->budget = out->disk_cap;
		out->bound = BP_BUDGET_DISK;
	}
	/* 0 is "no limit" in a pack: a term that allows nothing cuts everything */
	if (!out->budget && in->traced_bytes)
		out->budget = 1;
	return 0;
}

uint64_t bp_pack_budget_boot_ns(const struct bp_trace *t)
{
	uint64_t last = 0;
	size_t i, k;

	for (i = 0; i < t->nmeta; i++)
		last = MAX(last, t->meta[i].first_ns);
	for (i = 0; i < t->nfiles; i++)
		for (k = 0; k < t->files[i].nranges; k++)
			last = MAX(last, t->files[i].ranges[k].first_ns);
	return last;
}
