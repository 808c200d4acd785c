// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-diskmodel.c --- properties of the disk models bench relies on
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "diskmodel.h"
#include "unit.h"

#define MB 1000000ULL

/* n extents of len bytes, scattered over the first span bytes in a fixed shuffled order. */
static struct bp_io *scattered(size_t n, uint64_t len, uint64_t span)
{
	struct bp_io *ios = calloc(n, sizeof(*ios));
	uint64_t x = 88172645463325252ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ios[i].offset = (x % (span / len)) * len;
		ios[i].length = len;
	}
	return ios;
}

int main(void)
{
	const struct bp_disk_model *eee = bp_disk_model_find("eee-flash");
	const struct bp_disk_model *hdd = bp_disk_model_find("hdd-5k160");
	struct bp_io one = { .offset = 0, .length = 75 * MB };
	struct bp_model_result r, r2;
	struct bp_io *ios, gap[2];

	CHECK(eee && hdd && bp_disk_model_find("sata-ssd") && !bp_disk_model_find("nope"));

	/* --model arguments: one name, "all", an unknown name, the list's bound. */
	{
		const struct bp_disk_model *list[3];
		size_t n = 0, all;

		for (all = 0; bp_disk_models[all]; all++)
			;
		CHECK(bp_disk_models_add("hdd-5k160", list, &n, 3) == 0 && n == 1 && list[0] == hdd);
		CHECK(bp_disk_models_add("nope", list, &n, 3) == -ENOENT && n == 1);
		CHECK(bp_disk_models_add("all", list, &n, 3) == 0 && n == 3 && all > 3 &&
		      list[1] == bp_disk_models[0] && list[2] == bp_disk_models[1]);
		CHECK(bp_disk_models_add("eee-flash", list, &n, 3) == 0 && n == 3);
		CHECK(bp_disk_models_add("nope", list, &n, 3) == -ENOENT);
	}

	/* The article: 75 MB at 25 MB/s is 3 s of I/O. */
	bp_model_run(eee, &one, 1, &r);
	CHECK(fabs(r.t_phys - 3.0) < 1e-9);
	CHECK(fabs(r.transfer - 3.0) < 1e-9);
	CHECK(r.positioning == 0.0 && r.head_jumps == 0);
	CHECK(r.seconds >= r.t_phys && r.seconds < 3.3);

	/* One stream at the outer tracks: 75 MB / 45 MB/s plus one initial access. */
	bp_model_run(hdd, &one, 1, &r);
	CHECK(fabs(r.t_phys - 75.0 / 45.0) < 0.01);
	CHECK(r.seeks == 1 && r.positioning < 0.02);

	/* Zoned: the inner tracks are half as fast. */
	CHECK(fabs(bp_model_rate(hdd, hdd->capacity) - 22.5e6) < 1.0);
	CHECK(bp_model_rate(hdd, hdd->capacity / 10) > 0.96 * 45e6);

	/* 2000 extents of 75 MB in the first 10 % of the disk, boot order: ~15-21 s. */
	ios = scattered(2000, 75 * MB / 2000, hdd->capacity / 10);
	bp_model_run(hdd, ios, 2000, &r);
	CHECK(r.seconds > 12.0 && r.seconds < 25.0);
	CHECK(r.seconds > 5 * r.t_phys);
	bp_model_run(eee, ios, 2000, &r2);
	CHECK(r2.seconds > r2.t_phys && r2.seconds < 5.0);
	/* Deterministic. */
	bp_model_run(hdd, ios, 2000, &r2);
	CHECK(r2.seconds == r.seconds && r2.seeks == r.seeks);
	free(ios);

	/* A small forward gap is read through by the drive: no seek. */
	gap[0] = (struct bp_io){ .offset = 0, .length = 64 << 10 };
	gap[1] = (struct bp_io){ .offset = (64 << 10) + (256 << 10), .length = 64 << 10 };
	bp_model_run(hdd, gap, 2, &r);
	CHECK(r.seeks == 1 && r.head_jumps == 1);
	/* A far or backward jump needs positioning: seek plus half a revolution. */
	gap[1].offset = 100 * MB;
	bp_model_run(hdd, gap, 2, &r2);
	CHECK(r2.seeks == 2 && r2.positioning > 2 * 0.00555);
	gap[1].offset = 0;
	bp_model_run(hdd, gap, 2, &r2);
	CHECK(r2.seeks == 2 && r2.head_jumps == 1);
	return unit_exit();
}
