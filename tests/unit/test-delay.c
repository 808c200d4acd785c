// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-delay.c --- the boot bench's disk filter against hand-computed cases
 *
 * The nbdkit filter bootpack-delay charges each request with
 * bp_model_charge() and queues it with bp_delay_admit(); both are driven
 * here with a clock of our own. Every expected value below is worked out
 * from the formulas in disk/diskmodel.c, the arithmetic in the comment.
 *
 * hdd-5k160: capacity 160e9 B, 70 000 cylinders -> 2 285 714.2857 B per
 * cylinder; seek t(d) = 1.0 + 18.333 sqrt(x) + 0.667 x ms, x = (d-1)/69 999;
 * half a revolution at 5400 rpm = 60 000 / 5400 / 2 = 5.555 556 ms;
 * rate(off) = 45e6 sqrt(1 - 0.75 off/160e9) B/s; 0.3 ms per command;
 * read-ahead window 1 MiB.  eee-flash: 0.5 ms per command, 25 MB/s read,
 * 10 MB/s write, 128 KiB per command.
 */
#include <math.h>
#include <string.h>

#include "delay.h"
#include "diskmodel.h"
#include "unit.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)	/* one nanosecond */

static void hdd_cases(void)
{
	const struct bp_disk_model *hdd = bp_disk_model_find("hdd-5k160");
	struct bp_model_state st;
	struct bp_model_result r;
	struct bp_model_cost c;
	struct bp_io io;
	double s;

	bp_model_init(&st, hdd);

	/*
	 * One seek: 4096 B at 1 GiB = 1 073 741 824 from the start.
	 * cylinder 1 073 741 824 / 2 285 714.2857 = 469.762 -> 469, d = 469
	 * x = 468 / 69 999 = 0.006 685 810, sqrt x = 0.081 766 801
	 * seek = 1.0 + 18.333 * 0.081 766 801 + 0.667 * 0.006 685 810 = 2.503 490 ms
	 * rate = 45e6 * sqrt(1 - 0.75 * 0.006 710 886) = 45e6 * 0.997 480 243
	 *      = 44 886 610.94 B/s; transfer = 4096 / 44 886 610.94 = 91.252 us
	 * total = 2.503 490 + 5.555 556 + 0.091 252 + 0.3 ms = 8.450 298 ms
	 */
	io = (struct bp_io){ .offset = 1073741824, .length = 4096 };
	s = bp_model_charge(&st, &io, &c);
	CHECK(NEAR(s, 0.008450297915));
	CHECK(c.seek == 1 && NEAR(c.positioning, (2.503490204 + 5.555555556) / 1000));
	CHECK(NEAR(c.transfer, 0.000091252155) && NEAR(c.overhead, 0.0003));

	/*
	 * A sequential run: 64 KiB at 1 GiB + 4096, where the last one ended.
	 * No positioning; rate at 1 073 745 920 = 44 886 610.50 B/s,
	 * transfer = 65 536 / 44 886 610.50 = 1.460 035 ms; + 0.3 ms = 1.760 035 ms
	 */
	io = (struct bp_io){ .offset = 1073745920, .length = 65536 };
	s = bp_model_charge(&st, &io, &c);
	CHECK(NEAR(s, 0.001760034502) && c.positioning == 0.0 && !c.seek);

	/*
	 * A read-ahead (track buffer) hit: 4096 B starting 256 KiB past the
	 * end of the run, at 1 073 811 456 + 262 144 = 1 074 073 600: the drive
	 * read on over the gap, which costs the gap at media rate, no seek.
	 * rate = 44 886 575.86 B/s; gap 262 144 / rate = 5.840 143 ms,
	 * transfer 4096 / rate = 0.091 252 ms; + 0.3 ms = 6.231 395 ms
	 */
	io = (struct bp_io){ .offset = 1074073600, .length = 4096 };
	s = bp_model_charge(&st, &io, &c);
	CHECK(NEAR(s, 0.006231394742) && !c.seek);
	CHECK(NEAR(c.positioning, 0.005840142515));

	/*
	 * Just past the window: 1 MiB + 4096 after the end (1 074 077 696) is
	 * 1 075 130 368, cylinder 470.37 -> 470 against 469.91 -> 469: d = 1,
	 * x = 0, a track-to-track seek 1.0 ms + 5.555 556 ms rotation;
	 * rate 44 886 464.12 B/s, 4096 / rate = 0.091 252 ms; + 0.3 ms
	 * total = 6.946 808 ms
	 */
	io = (struct bp_io){ .offset = 1075130368, .length = 4096 };
	s = bp_model_charge(&st, &io, &c);
	CHECK(NEAR(s, 0.006946808010) && c.seek);

	/* The stream totals are the sum of the requests. */
	bp_model_totals(&st, &r);
	CHECK(NEAR(r.seconds, 0.008450297915 + 0.001760034502 + 0.006231394742 + 0.006946808010));
	CHECK(r.seeks == 2 && r.commands == 4 && r.bytes == 4096 + 65536 + 4096 + 4096);
	CHECK(r.head_jumps == 2);
	bp_model_free(&st);
}

static void flash_cases(void)
{
	const struct bp_disk_model *eee = bp_disk_model_find("eee-flash");
	struct bp_model_state st;
	struct bp_io io;

	bp_model_init(&st, eee);
	/* 4096 B anywhere: 0.5 ms + 4096 / 25e6 s = 0.5 + 0.163 84 = 0.663 84 ms */
	io = (struct bp_io){ .offset = 123456789, .length = 4096 };
	CHECK(NEAR(bp_model_charge(&st, &io, NULL), 0.00066384));
	/* 1 MiB in 128 KiB commands: 8 * 0.5 ms + 1 048 576 / 25e6 s = 4 + 41.943 04 ms */
	io = (struct bp_io){ .offset = 0, .length = 1048576 };
	CHECK(NEAR(bp_model_charge(&st, &io, NULL), 0.04594304));
	/* A write of 4096 B at 10 MB/s: 0.5 ms + 0.4096 ms = 0.9096 ms */
	io = (struct bp_io){ .offset = 0, .length = 4096, .type = BP_IO_WRITE };
	CHECK(NEAR(bp_model_charge(&st, &io, NULL), 0.0009096));
	/* A flush and a trim: one command each, 0.5 ms */
	io = (struct bp_io){ .type = BP_IO_FLUSH };
	CHECK(NEAR(bp_model_charge(&st, &io, NULL), 0.0005));
	io = (struct bp_io){ .offset = 0, .length = 1 << 20, .type = BP_IO_TRIM };
	CHECK(NEAR(bp_model_charge(&st, &io, NULL), 0.0005));
	bp_model_free(&st);
}

/* bp_model_run is the same charge, request after request. */
static void run_is_charge(void)
{
	const struct bp_disk_model *hdd = bp_disk_model_find("hdd-5k160");
	struct bp_io ios[64];
	struct bp_model_state st;
	struct bp_model_result a, b;
	uint64_t x = 88172645463325252ULL;
	size_t i;

	for (i = 0; i < 64; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ios[i] = (struct bp_io){ .offset = (x % 4000000) * 4096, .length = 4096 * (1 + i % 5) };
	}
	bp_model_run(hdd, ios, 64, &a);
	bp_model_init(&st, hdd);
	for (i = 0; i < 64; i++)
		bp_model_charge(&st, &ios[i], NULL);
	bp_model_totals(&st, &b);
	bp_model_free(&st);
	CHECK(a.seconds == b.seconds && a.seeks == b.seeks && a.t_phys == b.t_phys);
}

/* The queue: one request at a time, scaled, log lines as documented. */
static void queue_cases(void)
{
	const struct bp_disk_model *eee = bp_disk_model_find("eee-flash");
	struct bp_delay d;
	struct bp_delay_slot s1, s2, s3;
	struct bp_io io = { .offset = 8192, .length = 4096 };
	char line[128];

	/* scale 2: 4096 B costs 2 * 0.663 84 ms = 1.327 68 ms = 1 327 680 ns */
	bp_delay_init(&d, eee, 2.0, 1000000);
	bp_delay_admit(&d, &io, 1001000, &s1);
	CHECK(s1.start_ns == 1001000 && s1.end_ns == 1001000 + 1327680 && s1.wait_s == 0.0);
	bp_delay_format(line, sizeof(line), &d, &io, &s1);
	CHECK(strcmp(line, "1 8192 4096 R 1327.680 0.000\n") == 0);

	/* Arrives 0.1 ms later while the disk is busy: waits 1 227 680 ns. */
	io.offset = 12288;
	bp_delay_admit(&d, &io, 1101000, &s2);
	CHECK(s2.start_ns == s1.end_ns && s2.end_ns == s1.end_ns + 1327680);
	CHECK(NEAR(s2.wait_s, 0.00122768));
	bp_delay_format(line, sizeof(line), &d, &io, &s2);
	CHECK(strcmp(line, "1328 12288 4096 R 1327.680 1227.680\n") == 0);

	/* After the disk went idle: served at once. A flush: 2 * 0.5 ms. */
	io = (struct bp_io){ .type = BP_IO_FLUSH };
	bp_delay_admit(&d, &io, 50000000, &s3);
	CHECK(s3.start_ns == 50000000 && s3.end_ns == 51000000 && s3.wait_s == 0.0);
	bp_delay_format(line, sizeof(line), &d, &io, &s3);
	CHECK(strcmp(line, "49000 0 0 F 1000.000 0.000\n") == 0);
	CHECK(d.requests == 3 && NEAR(d.busy_s, 2 * 0.00132768 + 0.001));
	bp_delay_free(&d);
}

int main(void)
{
	hdd_cases();
	flash_cases();
	run_is_charge();
	queue_cases();
	return unit_exit();
}
