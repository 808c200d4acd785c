// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-pack-budget.c --- unit tests of the automatic budget's rule, cases computed by hand
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pack-budget.h"
#include "unit.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

static struct bp_budget_out rule(uint64_t traced, uint64_t mem, uint64_t rate, uint64_t ns)
{
	struct bp_budget_in in = { traced, mem, rate, ns };
	struct bp_budget_out out;

	memset(&out, 0xa5, sizeof(out));
	CHECK(bp_pack_budget(&in, &out) == 0);
	return out;
}

static void test_terms(void)
{
	struct bp_budget_out o;

	/* The desktop of issue 22: 196 MiB traced, 4 GiB, a 2008 disk at 45 MB/s, 40 s to
	 * the session: memory 1 GiB, disk 1.8 GB; all 205,520,896 traced bytes. */
	o = rule(196 * MIB, 4 * GIB, 45000000, 40000000000ULL);
	CHECK(o.budget == 205520896 && o.bound == BP_BUDGET_TRACED);
	CHECK(o.mem_cap == GIB && o.disk_cap == 1800000000ULL && !o.rate_default);

	/* A 512 MiB board booting the same desktop: a quarter, 134,217,728 bytes. */
	o = rule(196 * MIB, 512 * MIB, 45000000, 40000000000ULL);
	CHECK(o.budget == 134217728 && o.bound == BP_BUDGET_MEMORY);

	/* The EEE PC: 25 MB/s x 3 s = 75,000,000 bytes (the article's 75 MB), under
	 * its 512 MiB / 4 and 100 MB traced. */
	o = rule(100000000, 512 * MIB, 25000000, 3000000000ULL);
	CHECK(o.budget == 75000000 && o.bound == BP_BUDGET_DISK);
	CHECK(o.mem_cap == 134217728 && o.disk_cap == 75000000);

	/* No probe: 25 MB/s, 2.5 s -> 62,500,000. */
	o = rule(GIB, 8 * GIB, 0, 2500000000ULL);
	CHECK(o.budget == 62500000 && o.bound == BP_BUDGET_DISK);
	CHECK(o.rate_default && o.rate_bps == BP_BUDGET_DEFAULT_RATE);

	/* A trace without times: no disk term, memory binds. */
	o = rule(GIB, 2 * GIB, 1000000, 0);
	CHECK(o.budget == 512 * MIB && o.bound == BP_BUDGET_MEMORY && o.disk_cap == UINT64_MAX);

	/* Ties: traced first (nothing is cut), then memory before disk. */
	o = rule(GIB, 4 * GIB, 0, 0);
	CHECK(o.budget == GIB && o.bound == BP_BUDGET_TRACED);
	o = rule(2 * GIB, 4 * GIB, 1 * GIB, 1000000000ULL);
	CHECK(o.budget == GIB && o.bound == BP_BUDGET_MEMORY);

	/* One byte more of memory: the disk binds (1 GiB - 1 byte/s for 1 s). */
	o = rule(2 * GIB, 4 * GIB, GIB - 1, 1000000000ULL);
	CHECK(o.budget == GIB - 1 && o.bound == BP_BUDGET_DISK);

	/* rate x time past 64 bits in the product, not in the result: 10 GB/s x 10^4 s. */
	o = rule(UINT64_MAX, UINT64_MAX, 10000000000ULL, 10000000000000ULL);
	CHECK(o.disk_cap == 100000000000000ULL && o.bound == BP_BUDGET_DISK);
	/* and past 64 bits in the result: saturated, memory binds */
	o = rule(UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX);
	CHECK(o.disk_cap == UINT64_MAX && o.bound == BP_BUDGET_MEMORY);

	/* A term that allows nothing is 1 byte (0 would be "no limit" in the pack). */
	o = rule(GIB, 8 * GIB, 25000000, 1);
	CHECK(o.disk_cap == 0 && o.budget == 1 && o.bound == BP_BUDGET_DISK);
	/* Nothing traced: budget 0, nothing to cut. */
	o = rule(0, 8 * GIB, 0, 1000);
	CHECK(o.budget == 0 && o.bound == BP_BUDGET_TRACED);
}

static void test_errors(void)
{
	struct bp_budget_in in = { GIB, 0, 0, 0 };
	struct bp_budget_out out;

	CHECK(bp_pack_budget(&in, &out) == EINVAL);	/* memory unknown */
	CHECK(bp_pack_budget(NULL, &out) == EINVAL);
	in.mem_total = GIB;
	CHECK(bp_pack_budget(&in, NULL) == EINVAL);
	CHECK(!strcmp(bp_budget_bound_name(BP_BUDGET_DISK), "disk"));
	CHECK(!strcmp(bp_budget_bound_name(7), "unknown"));
}

/* The probe file's rate_mbs, as bootpack setup writes it. */
static void test_probe_file(void)
{
	char path[] = "/tmp/test-pack-budget.XXXXXX";
	uint64_t bps = 0;
	FILE *fp;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	fp = fdopen(fd, "w");
	fputs("# Written by 'bootpack setup'\nmodel=hdd-5k160\nrate_mbs=44.5\nmax_request=524288\n",
	      fp);
	fclose(fp);
	CHECK(bp_pack_budget_probe_rate(path, &bps) == 0 && bps == 44500000);
	fp = fopen(path, "w");
	fputs("model=x\nrate_mbs=0.0\n", fp);
	fclose(fp);
	CHECK(bp_pack_budget_probe_rate(path, &bps) == EINVAL);
	fp = fopen(path, "w");
	fputs("model=x\n", fp);
	fclose(fp);
	CHECK(bp_pack_budget_probe_rate(path, &bps) == EINVAL);
	unlink(path);
	CHECK(bp_pack_budget_probe_rate(path, &bps) == ENOENT);
}

int main(void)
{
	test_terms();
	test_errors();
	test_probe_file();
	return unit_exit();
}
