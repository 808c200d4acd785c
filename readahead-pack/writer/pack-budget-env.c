// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-budget-env.c --- the automatic budget's inputs on this machine: MemTotal, the probe's rate
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bperr.h"
#include "pack-budget.h"
#include "pack-format.h"
#include "smallfile.h"

#define MEMINFO_MAX 8192
#define PROBE_MAX 4096

errcode_t bp_pack_budget_mem_total(uint64_t *bytes)
{
	char buf[MEMINFO_MAX];
	unsigned long long kb;
	char *p, *end;
	int rc;

	rc = bp_read_small("/proc/meminfo", buf, sizeof(buf));
	if (rc)
		return -rc;
	p = strstr(buf, "MemTotal:");
	if (!p)
		return ENOENT;
	errno = 0;
	kb = strtoull(p + strlen("MemTotal:"), &end, 10);
	if (errno || end == p + strlen("MemTotal:") || !kb || kb > UINT64_MAX / 1024)
		return EINVAL;
	*bytes = (uint64_t)kb * 1024;
	return 0;
}

errcode_t bp_pack_budget_probe_rate(const char *path, uint64_t *bps)
{
	char buf[PROBE_MAX], *line, *save = NULL, *end;
	double mbs;
	int rc;

	rc = bp_read_small(path, buf, sizeof(buf));
	if (rc)
		return -rc;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "rate_mbs=", 9) != 0)
			continue;
		mbs = strtod(line + 9, &end);
		if (end == line + 9 || !(mbs > 0) || mbs > 1e7)
			return EINVAL;
		*bps = (uint64_t)(mbs * 1e6);
		return 0;
	}
	return EINVAL;
}

errcode_t bp_pack_budget_machine(struct bp_budget_in *in, const char *probe, struct bp_err *err)
{
	const char *path = probe ? probe : BP_PACK_BUDGET_PROBE;
	errcode_t rc;

	if (!in->mem_total) {
		rc = bp_pack_budget_mem_total(&in->mem_total);
		if (rc)
			return bp_err_set(err, rc, "/proc/meminfo: no MemTotal (%s): give the "
					  "memory (--mem-total)", error_message(rc));
	}
	in->rate_bps = 0;
	if (probe && !strcmp(probe, "none"))
		return 0;
	rc = bp_pack_budget_probe_rate(path, &in->rate_bps);
	if (rc == ENOENT && !probe)
		return 0;	/* bootpack setup did not probe: the default rate */
	if (rc == EINVAL)
		return bp_err_set(err, rc, "%s: no rate_mbs= in the probe file (bootpack probe "
				  "writes one)", path);
	if (rc)
		return bp_err_set(err, rc, "%s: %s", path, error_message(rc));
	return 0;
}
