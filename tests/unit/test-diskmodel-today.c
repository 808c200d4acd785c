// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-diskmodel-today.c --- today's slow disks (issue 24) against hand-computed cases
 *
 * Every expected value is worked out from the parameters in
 * disk/diskmodel.c and the formulas of doc/disk-models.md §3, the
 * arithmetic in the comment; times in ms unless said.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "diskmodel.h"
#include "unit.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)	/* one nanosecond, in seconds */
#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)

static double charge(struct bp_model_state *st, uint64_t off, uint64_t len, enum bp_io_type type,
		     struct bp_model_cost *c)
{
	struct bp_io io = { .offset = off, .length = len, .type = type };

	return bp_model_charge(st, &io, c);
}

static void flash_cases(void)
{
	struct bp_model_state st;
	struct bp_model_result r;
	struct bp_model_cost c;

	CHECK(bp_disk_model_find("pi4-sd") && bp_disk_model_find("pi4-sd-slow") &&
	      bp_disk_model_find("usb2-stick") && bp_disk_model_find("emmc") &&
	      bp_disk_model_find("hdd-smr") && bp_disk_model_find("cloud-gp3") &&
	      bp_disk_model_find("cloud-cold"));

	/*
	 * pi4-sd, a 4 KiB random read: 0.34 per command + 4096 / 43e6 s
	 * = 0.34 + 0.095 255 814 = 0.435 255 814 ms (2 297 per second, the
	 * 2 300 IOPS measured at QD1); no positioning anywhere.
	 */
	bp_model_init(&st, bp_disk_model_find("pi4-sd"));
	CHECK(NEAR(charge(&st, 123456 * 4096ULL, 4096, BP_IO_READ, &c), 0.000435255814));
	CHECK(c.positioning == 0.0 && !c.seek && c.fetches == 0);
	bp_model_free(&st);

	/* pi4-sd-slow, the same read: 2.4 + 0.095 255 814 = 2.495 255 814 ms (401 per second) */
	bp_model_init(&st, bp_disk_model_find("pi4-sd-slow"));
	CHECK(NEAR(charge(&st, 123456 * 4096ULL, 4096, BP_IO_READ, NULL), 0.002495255814));
	bp_model_free(&st);

	/*
	 * usb2-stick, 1 MiB in one request: 1 048 576 / 122 880 = 8.53, so 9
	 * commands of at most 120 KiB: 9 * 0.68 = 6.12 ms; transfer
	 * 1 048 576 / 35e6 s = 29.959 314 ms; total 36.079 314 ms.
	 */
	bp_model_init(&st, bp_disk_model_find("usb2-stick"));
	CHECK(NEAR(charge(&st, 0, MiB, BP_IO_READ, &c), 0.036079314286));
	CHECK(NEAR(c.overhead, 0.00612) && NEAR(c.transfer, 0.029959314286));
	bp_model_totals(&st, &r);
	CHECK(r.commands == 9);
	/* One command more for each 120 KiB: 120 KiB is one, 120 KiB + 1 B two (1.36 ms). */
	charge(&st, MiB, 120 * KiB, BP_IO_READ, &c);
	CHECK(NEAR(c.overhead, 0.00068));
	charge(&st, 2 * MiB, 120 * KiB + 1, BP_IO_READ, &c);
	CHECK(NEAR(c.overhead, 0.00136));
	bp_model_free(&st);

	/* emmc, 4 KiB: 0.227 + 4096 / 180e6 s = 0.227 + 0.022 756 = 0.249 756 ms */
	bp_model_init(&st, bp_disk_model_find("emmc"));
	CHECK(NEAR(charge(&st, 77 * MiB, 4096, BP_IO_READ, NULL), 0.000249755556));
	bp_model_free(&st);
}

static void hdd_smr_cases(void)
{
	const struct bp_disk_model *smr = bp_disk_model_find("hdd-smr");
	struct bp_model_state st;
	struct bp_model_cost c;

	/*
	 * hdd-smr: 1e12 B over 300 000 cylinders = 3 333 333.333 B each;
	 * seek t(x) = 1.0 + 23.333 sqrt(x) - 4.333 x ms, x = (d-1)/299 999;
	 * half a revolution 60 000 / 5400 / 2 = 5.555 556 ms;
	 * rate(off) = 120e6 sqrt(1 - 0.75 off/1e12) B/s; 0.3 ms per command.
	 *
	 * 4096 B at 1 GiB from a fresh state (the head at 0):
	 * cylinder 1 073 741 824 / 3 333 333.333 = 322.12 -> 322, d = 322;
	 * x = 321 / 299 999 = 0.001 070 004, sqrt x = 0.032 710 909;
	 * seek = 1.0 + 23.333 * 0.032 710 909 - 4.333 * 0.001 070 004 = 1.758 607 ms;
	 * rate = 120e6 sqrt(1 - 0.75 * 0.001 073 742) = 120e6 * 0.999 597 266
	 *      = 119 951 671.9 B/s; transfer 4096 / rate = 0.034 147 ms;
	 * total = 1.758 607 + 5.555 556 + 0.034 147 + 0.3 = 7.648 310 ms.
	 */
	bp_model_init(&st, smr);
	CHECK(NEAR(charge(&st, 1073741824, 4096, BP_IO_READ, &c), 0.007648309955));
	CHECK(c.seek == 1 && NEAR(c.positioning, (1.758607314 + 5.555555556) / 1000));
	/*
	 * Back to 0: cylinder 322 (1 073 745 920 / 3 333 333.333 = 322.12) to 0,
	 * the same seek 1.758 607 ms + 5.555 556 ms; transfer at the outer edge
	 * 4096 / 120e6 s = 0.034 133 ms; + 0.3 = 7.648 296 ms.
	 */
	CHECK(NEAR(charge(&st, 0, 4096, BP_IO_READ, &c), 0.007648296203));
	/*
	 * 64 KiB past the end (4096): inside the 1 MiB read-ahead, the gap at
	 * media rate: rate at 69 632 B = 120e6 sqrt(1 - 0.75 * 6.9632e-8)
	 * = 119 999 996.9 B/s; gap 65 536 / rate = 0.546 133 ms, transfer
	 * 0.034 133 ms, + 0.3 = 0.880 267 ms; no seek.
	 */
	CHECK(NEAR(charge(&st, 69632, 4096, BP_IO_READ, &c), 0.000880266682) && !c.seek);
	bp_model_free(&st);
}

static void cloud_cases(void)
{
	/* A model like cloud-gp3 but 0.1 ms per I/O: the cap binds. */
	static const struct bp_disk_model fast = {
		.name = "fast-net", .kind = BP_DISK_NETWORK, .cmd_ms = 0.1,
		.rate_mbs = 131.072, .max_request = 256 << 10, .iops_cap = 3000.0,
	};
	struct bp_model_state st;
	struct bp_model_result r;
	struct bp_model_cost c;
	uint64_t far = 100ULL << 30;

	/*
	 * cloud-gp3, 1 MiB: counted as 1 048 576 / 262 144 = 4 I/Os of 256 KiB,
	 * 4 * 1 ms = 4 ms; transfer 1 048 576 / 131 072 000 s (125 MiB/s) = 8 ms;
	 * 12 ms. The cap: 4 / 3000 s = 1.333 ms < 12 ms, not binding.
	 */
	bp_model_init(&st, bp_disk_model_find("cloud-gp3"));
	CHECK(NEAR(charge(&st, 5 * MiB, MiB, BP_IO_READ, &c), 0.012));
	CHECK(NEAR(c.overhead, 0.004) && NEAR(c.transfer, 0.008) && c.fetches == 0);
	/* 256 KiB + 1 B is 2 I/Os: 2 ms + 262 145 / 131 072 000 s = 2.000 008 ms; 4.000 008 ms */
	CHECK(NEAR(charge(&st, 0, 256 * KiB + 1, BP_IO_READ, NULL), 0.004000007629));
	/* 4 KiB: 1 ms + 4096 / 131 072 000 s = 1.031 25 ms; again: no first-touch cost */
	CHECK(NEAR(charge(&st, far, 4096, BP_IO_READ, NULL), 0.00103125));
	CHECK(NEAR(charge(&st, far, 4096, BP_IO_READ, NULL), 0.00103125));
	bp_model_totals(&st, &r);
	CHECK(r.commands == 4 + 2 + 1 + 1 && r.fetches == 0);
	bp_model_free(&st);

	/*
	 * The cap when it binds: 4 KiB at 0.1 ms + 0.031 25 ms = 0.131 25 ms,
	 * but one I/O of 3000 per second takes 1 / 3000 s = 0.333 333 ms;
	 * 1 MiB: 4 * 0.1 + 8 = 8.4 ms > 4 / 3000 s, not binding.
	 */
	bp_model_init(&st, &fast);
	CHECK(NEAR(charge(&st, 0, 4096, BP_IO_READ, &c), 1.0 / 3000));
	CHECK(NEAR(c.transfer, 0.00003125) && NEAR(c.overhead, 1.0 / 3000 - 0.00003125));
	CHECK(NEAR(charge(&st, MiB, MiB, BP_IO_READ, NULL), 0.0084));
	bp_model_free(&st);

	/*
	 * cloud-cold: cloud-gp3 plus 20 ms for each 512 KiB chunk on its first
	 * touch. 4 KiB at 1 MiB (chunk 1 048 576 / 524 288 = 2), first touch:
	 * 1 + 0.031 25 + 20 = 21.031 25 ms.
	 */
	bp_model_init(&st, bp_disk_model_find("cloud-cold"));
	CHECK(NEAR(charge(&st, MiB, 4096, BP_IO_READ, &c), 0.02103125));
	CHECK(c.fetches == 1 && NEAR(c.positioning, 0.020));
	/* Second touch of chunk 2 (1 MiB + 64 KiB): 1.031 25 ms, no fetch. */
	CHECK(NEAR(charge(&st, MiB + 64 * KiB, 4096, BP_IO_READ, &c), 0.00103125));
	CHECK(c.fetches == 0 && c.positioning == 0.0);
	/*
	 * 8 KiB across chunks 2 and 3 (1.5 MiB - 4 KiB = 1 568 768 to
	 * 1 576 960): chunk 3 is new, one fetch; one I/O:
	 * 1 + 8192 / 131 072 000 s (0.0625) + 20 = 21.0625 ms.
	 */
	CHECK(NEAR(charge(&st, 1568768, 8192, BP_IO_READ, &c), 0.0210625) && c.fetches == 1);
	/* 1 MiB at 0: chunks 0 and 1, both new: 4 + 8 + 2 * 20 = 52 ms. */
	CHECK(NEAR(charge(&st, 0, MiB, BP_IO_READ, &c), 0.052) && c.fetches == 2);
	/*
	 * 100 GiB in (chunk 204 800, bit 0 of word 3200: the set grows from 64
	 * words): a write touches too: 1 + 0.031 25 + 20 = 21.031 25 ms; then
	 * a read of the same chunk, 1.031 25 ms.
	 */
	CHECK(NEAR(charge(&st, far, 4096, BP_IO_WRITE, &c), 0.02103125) && c.fetches == 1);
	CHECK(NEAR(charge(&st, far + 4096, 4096, BP_IO_READ, &c), 0.00103125) && c.fetches == 0);
	/* A flush touches no chunk: 1 ms. */
	CHECK(NEAR(charge(&st, 0, 0, BP_IO_FLUSH, &c), 0.001) && c.fetches == 0);
	bp_model_totals(&st, &r);
	CHECK(r.fetches == 5 && NEAR(r.positioning, 0.100) && !st.nomem);
	bp_model_free(&st);
	CHECK(st.touched == NULL && st.touched_words == 0);

	/* A fresh state has fetched nothing: bp_model_run starts cold every time. */
	{
		struct bp_io two[2] = { { .offset = MiB, .length = 4096 },
					{ .offset = MiB + 8192, .length = 4096 } };

		bp_model_run(bp_disk_model_find("cloud-cold"), two, 2, &r);
		CHECK(r.fetches == 1 && NEAR(r.seconds, 0.02103125 + 0.00103125));
		bp_model_run(bp_disk_model_find("cloud-cold"), two, 2, &r);
		CHECK(r.fetches == 1);
	}
}

/* The names bench and the filter list. */
static void names(void)
{
	char buf[256];
	size_t i;

	bp_disk_model_names(buf, sizeof(buf));
	CHECK(strcmp(buf, "eee-flash, hdd-5k160, sata-ssd, pi4-sd, pi4-sd-slow, usb2-stick, "
			  "emmc, hdd-smr, cloud-gp3, cloud-cold") == 0);
	for (i = 0; bp_disk_models_default[i]; i++)
		;
	CHECK(i == 3);
}

int main(void)
{
	flash_cases();
	hdd_smr_cases();
	cloud_cases();
	names();
	return unit_exit();
}
