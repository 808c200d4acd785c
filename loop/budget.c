// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * budget.c --- the budget of the loop's packs: automatic unless one was given (budget.h)
 */
#include <limits.h>
#include <string.h>

#include "budget.h"
#include "pack-budget.h"

errcode_t bp_loop_pack_budget(const struct bp_setup_opts *o, const struct bp_pack_info *old,
			      uint64_t boot_ms, struct bp_pack_opts *po, struct bp_budget_in *in,
			      struct bp_err *err)
{
	char path[PATH_MAX];
	errcode_t rc;

	if (old && old->budget && BP_PACK_BUDGET_BOUND(old) == BP_BUDGET_GIVEN) {
		po->budget = old->budget;
		po->budget_auto = NULL;
		return 0;
	}
	memset(in, 0, sizeof(*in));
	in->mem_total = o->mem_bytes;
	if (!in->mem_total) {
		rc = bp_pack_budget_mem_total(&in->mem_total);
		if (rc)
			return bp_err_set(err, rc, "/proc/meminfo: no MemTotal: the pack's "
					  "budget cannot be decided");
	}
	in->boot_ns = boot_ms * 1000000;
	bp_loop_path(o->root, BP_STATEDIR BP_LOOP_PROBE_FILE, path, sizeof(path));
	if (bp_pack_budget_probe_rate(path, &in->rate_bps))
		in->rate_bps = 0;	/* not probed: the default rate */
	po->budget_auto = in;
	return 0;
}
