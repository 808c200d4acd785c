/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * budget.h --- the budget of the loop's packs: automatic unless one was given
 */
#ifndef BP_LOOP_BUDGET_H
#define BP_LOOP_BUDGET_H

#include "bperr.h"
#include "loop.h"
#include "pack-build.h"
#include "pack-parse.h"

/*
 * Set po's budget for a pack that replaces old (NULL: none): the old pack's
 * when it was given as a size (bootpack pack --budget SIZE), else automatic
 * (po->budget_auto = in, pack-budget.h) from the memory of the machine
 * (o->mem_bytes, else MemTotal), the rate of the probe stored beside the
 * loop state (none, or a damaged one: the default rate) and boot_ms, the
 * time the last read boot took to default.target (0, none recorded: the
 * trace's last first access).
 */
errcode_t bp_loop_pack_budget(const struct bp_setup_opts *o, const struct bp_pack_info *old,
			      uint64_t boot_ms, struct bp_pack_opts *po, struct bp_budget_in *in,
			      struct bp_err *err);

#endif /* BP_LOOP_BUDGET_H */
