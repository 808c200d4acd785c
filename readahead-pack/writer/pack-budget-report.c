// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-budget-report.c --- the budget report, one vocabulary for every verb
 *
 * Written once for pack, image and bench (pack-budget-report.h): before,
 * each verb had its own words and keys for the same terms (mem_total in
 * two, target_mem in the third; rate_default in one only), so that the
 * three could not be compared.
 */
#include <stdio.h>

#include "pack-budget-report.h"
#include "strutils.h"

void bp_budget_report_json_fields(struct bp_json *j, const struct bp_budget_report *r)
{
	const struct bp_budget_out *a = &r->out;

	bp_json_u64(j, "bytes", r->budget);
	bp_json_string(j, "bound", bp_budget_bound_name(r->automatic ? a->bound : BP_BUDGET_GIVEN));
	if (r->have_packed) {
		bp_json_u64(j, "packed_bytes", r->packed_bytes);
		bp_json_u64(j, "cut_bytes", r->cut_bytes);
	}
	if (!r->automatic)
		return;
	bp_json_u64(j, "traced_bytes", r->in.traced_bytes);
	bp_json_u64(j, "mem_total", r->in.mem_total);
	if (r->mem_from)
		bp_json_string(j, "mem_from", r->mem_from);
	bp_json_u64(j, "memory_cap", a->mem_cap);
	bp_json_u64(j, "rate", a->rate_bps);
	bp_json_bool(j, "rate_default", a->rate_default);
	if (r->rate_from)
		bp_json_string(j, "rate_from", r->rate_from);
	if (r->model)
		bp_json_string(j, "model", r->model);
	else
		bp_json_null(j, "model");
	bp_json_u64(j, "boot_ns", r->in.boot_ns);
	if (a->disk_cap == UINT64_MAX)
		bp_json_null(j, "disk_cap");
	else
		bp_json_u64(j, "disk_cap", a->disk_cap);
}

void bp_budget_report_json(struct bp_json *j, const char *key, const struct bp_budget_report *r)
{
	bp_json_open_object(j, key);
	bp_budget_report_json_fields(j, r);
	bp_json_close_object(j);
}

void bp_budget_report_text(FILE *f, const char *indent, const struct bp_budget_report *r,
			   int raw)
{
	const struct bp_budget_out *a = &r->out;
	char b1[32], b2[32], b3[32];

	fprintf(f, "%sbudget: %s, ", indent,
		r->budget ? bp_size_str(r->budget, raw, b1, sizeof(b1)) : "none");
	if (r->automatic)
		fprintf(f, "auto, bound by %s", bp_budget_bound_name(a->bound));
	else
		fprintf(f, "given");
	if (r->have_packed && r->have_ranges)
		fprintf(f, "; %s packed, cut %llu ranges (%s)",
			bp_size_str(r->packed_bytes, raw, b1, sizeof(b1)),
			(unsigned long long)r->cut_ranges, bp_size_str(r->cut_bytes, raw, b2, sizeof(b2)));
	else if (r->have_packed)
		fprintf(f, "; %s packed, %s cut", bp_size_str(r->packed_bytes, raw, b1, sizeof(b1)),
			bp_size_str(r->cut_bytes, raw, b2, sizeof(b2)));
	fprintf(f, "\n");
	if (!r->automatic)
		return;
	fprintf(f, "%s  traced %s, memory %s (a quarter of %s%s%s), ", indent,
		bp_size_str(r->in.traced_bytes, raw, b1, sizeof(b1)),
		bp_size_str(a->mem_cap, raw, b2, sizeof(b2)),
		bp_size_str(r->in.mem_total, raw, b3, sizeof(b3)), r->mem_said ? ", " : "",
		r->mem_said ? r->mem_said : "");
	if (a->disk_cap == UINT64_MAX)
		fprintf(f, "disk: no term (the trace has no times)\n");
	else
		fprintf(f, "disk %s (%.1f MB/s%s%s, x %.3f s to the last first access)\n",
			bp_size_str(a->disk_cap, raw, b1, sizeof(b1)), (double)a->rate_bps / 1e6,
			r->rate_said ? ", " : "", r->rate_said ? r->rate_said : "",
			(double)r->in.boot_ns / 1e9);
}
