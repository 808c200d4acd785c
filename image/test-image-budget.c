// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-image-budget.c --- unit tests of an image's budget inputs and the rule, cases by hand
 *
 * bp_image_budget_inputs() takes the target's memory (--target-mem, else
 * the traced guest's, else 1 GiB) and rate (--target-rate or a model's,
 * else none: 25 MB/s); the pack builder adds the traced bytes and the
 * trace's last first access and applies bp_pack_budget(). Each term binds
 * in one case below; every figure is worked out in its comment.
 */
#include <stdint.h>
#include <string.h>

#include "diskmodel.h"
#include "image.h"
#include "unit.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

/* The inputs of b and guest_mem, then the rule as the builder applies it. */
static struct bp_budget_out image_rule(const struct bp_image_budget *b, uint64_t guest_mem,
				       uint64_t traced, uint64_t boot_ns,
				       struct bp_budget_in *in, enum bp_image_input *mf,
				       enum bp_image_input *rf)
{
	struct bp_budget_out out;

	memset(in, 0xa5, sizeof(*in));
	bp_image_budget_inputs(b, guest_mem, in, mf, rf);
	CHECK(in->traced_bytes == 0 && in->boot_ns == 0);	/* the builder's to fill */
	in->traced_bytes = traced;
	in->boot_ns = boot_ns;
	memset(&out, 0x5a, sizeof(out));
	CHECK(bp_pack_budget(in, &out) == 0);
	return out;
}

int main(void)
{
	const struct bp_disk_model *pi4 = bp_disk_model_find("pi4-sd");
	struct bp_image_budget b;
	struct bp_budget_in in;
	struct bp_budget_out o;
	enum bp_image_input mf, rf;

	CHECK(pi4 && pi4->rate_mbs == 43.0);

	/*
	 * Memory: a 512 MiB Pi 4 (--target-mem 512M; the 2 GiB guest is not the
	 * target), --model pi4-sd (43 MB/s), 300 MiB traced over 8 s. Terms:
	 * traced 314,572,800; memory 512 MiB / 4 = 134,217,728; disk
	 * 43,000,000 x 8 = 344,000,000. The memory binds.
	 */
	memset(&b, 0, sizeof(b));
	b.target_mem = 512 * MIB;
	b.target_rate = 43000000;
	b.model = "pi4-sd";
	o = image_rule(&b, 2 * GIB, 300 * MIB, 8000000000ULL, &in, &mf, &rf);
	CHECK(in.mem_total == 536870912 && mf == BP_IMAGE_IN_OPTION);
	CHECK(in.rate_bps == 43000000 && rf == BP_IMAGE_IN_MODEL);
	CHECK(o.mem_cap == 134217728 && o.disk_cap == 344000000);
	CHECK(o.budget == 134217728 && o.bound == BP_BUDGET_MEMORY);

	/*
	 * Disk: nothing given, the traced guest had 1 GiB (mem_mb=1024); no
	 * rate: 25 MB/s; 100 MiB traced over 3 s, the 2008 EEE PC. Terms:
	 * traced 104,857,600; memory 268,435,456; disk 25,000,000 x 3 =
	 * 75,000,000, the article's 75 MB. The disk binds.
	 */
	memset(&b, 0, sizeof(b));
	o = image_rule(&b, 1024 * MIB, 100 * MIB, 3000000000ULL, &in, &mf, &rf);
	CHECK(in.mem_total == 1073741824 && mf == BP_IMAGE_IN_GUEST);
	CHECK(in.rate_bps == 0 && rf == BP_IMAGE_IN_DEFAULT && o.rate_default);
	CHECK(o.rate_bps == 25000000 && o.disk_cap == 75000000);
	CHECK(o.budget == 75000000 && o.bound == BP_BUDGET_DISK);

	/*
	 * Traced: no memory given nor known (traces given): 1 GiB; --target-rate
	 * 180 (eMMC, 180,000,000 B/s); 50 MiB traced over 10 s. Terms: traced
	 * 52,428,800; memory 268,435,456; disk 1,800,000,000. The traced bytes
	 * bind: all is packed.
	 */
	memset(&b, 0, sizeof(b));
	b.target_rate = 180000000;
	o = image_rule(&b, 0, 50 * MIB, 10000000000ULL, &in, &mf, &rf);
	CHECK(in.mem_total == BP_IMAGE_TARGET_MEM_DEFAULT && in.mem_total == GIB);
	CHECK(mf == BP_IMAGE_IN_DEFAULT && rf == BP_IMAGE_IN_OPTION);
	CHECK(o.mem_cap == 268435456 && o.disk_cap == 1800000000ULL);
	CHECK(o.budget == 52428800 && o.bound == BP_BUDGET_TRACED);

	CHECK(!strcmp(bp_image_input_name(BP_IMAGE_IN_GUEST), "guest"));
	CHECK(!strcmp(bp_image_input_name(BP_IMAGE_IN_MODEL), "model"));
	CHECK(!strcmp(bp_image_input_name((enum bp_image_input)99), "unknown"));
	return unit_exit();
}
