/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-budget-report.h --- the budget report, one vocabulary for every verb
 *
 * pack, image and bench each decide a budget (bp_pack_budget()) and say it;
 * they say it here, in the same words and JSON keys (doc/formats.md, "The
 * budget report"), so that the three can be compared field by field:
 *
 *   bytes, bound, packed_bytes, cut_bytes (when the caller knows them) and,
 *   automatic, traced_bytes, mem_total, mem_from, memory_cap, rate,
 *   rate_default, rate_from, model, boot_ns, disk_cap.
 *
 * A renderer, not an engine: it writes to the stream or JSON writer the
 * caller hands it, and decides nothing.
 */
#ifndef BP_PACK_BUDGET_REPORT_H
#define BP_PACK_BUDGET_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "jsonwrt.h"
#include "pack-budget.h"

struct bp_budget_report {
	uint64_t budget;		/* the budget applied, bytes; 0: no limit */
	int automatic;			/* in and out hold the rule's inputs and terms */
	struct bp_budget_in in;
	struct bp_budget_out out;
	int have_packed;		/* packed_bytes and cut_bytes are known */
	uint64_t packed_bytes, cut_bytes;
	int have_ranges;		/* the text counts the ranges cut */
	uint64_t cut_ranges;
	/* Where the inputs came from: a JSON value ("option", "machine", "guest",
	 * "model", "probe", "default") and its words in the text; NULL: not said. */
	const char *mem_from, *mem_said;
	const char *rate_from, *rate_said;
	const char *model;		/* the disk model the rate is from, or NULL */
};

/* The fields into the JSON object the caller has open (a caller adds aliases). */
void bp_budget_report_json_fields(struct bp_json *j, const struct bp_budget_report *r);

/* The object key holding the fields. */
void bp_budget_report_json(struct bp_json *j, const char *key, const struct bp_budget_report *r);

/*
 * The text, each line after indent: "budget: SIZE, given|auto, bound by TERM;
 * P packed, C cut" (with the ranges: "P packed, cut N ranges (C)") and,
 * automatic, the three terms. raw: sizes in bytes (--bytes).
 */
void bp_budget_report_text(FILE *f, const char *indent, const struct bp_budget_report *r,
			   int raw);

#endif /* BP_PACK_BUDGET_REPORT_H */
