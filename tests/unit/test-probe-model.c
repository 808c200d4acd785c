// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-probe-model.c --- the nearest-model rule of bootpack probe, on made-up measurements
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"
#include "unit.h"

#define MAXM 64

/* A probe of a 4 GiB device as bp_probe_run() fills it, before the measured figures. */
static void blank(struct bp_probe *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "/dev/made-up");
	p->size = 4ULL << 30;
	p->seed = 0x9e3779b97f4a7c15ULL;
	p->sys_rotational = -1;
	p->far.n = 100;
	p->seq_request = 1 << 20;
	p->seq_offset = 1ULL << 30;
	p->seq_bytes = 64ULL << 20;
	p->whole_tested = 4 << 20;
}

static const char *nearest(const struct bp_probe *p)
{
	const struct bp_disk_model *rank[MAXM];
	double dist[MAXM];

	return bp_probe_rank(p, rank, dist, MAXM) ? rank[0]->name : "";
}

/* far_ms, rate_mbs, max_request (0: not measured), rotational: the nearest is want. */
static void expect(double far, double rate, uint64_t maxreq, int rot, const char *want)
{
	struct bp_probe p;
	const char *got;

	blank(&p);
	p.far.ms = far;
	p.rate_mbs = rate;
	p.max_request = maxreq;
	p.rotational = rot;
	got = nearest(&p);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "far %.3f ms, %.1f MB/s, max %llu, rot %d: %s, not %s\n", far, rate,
			(unsigned long long)maxreq, rot, got, want);
	CHECK(strcmp(got, want) == 0);
}

/*
 * What a probe through a transport sees of model m: every read extra_ms more,
 * requests split at split bytes (FUSE: 128 KiB; 0: not split), on a device of
 * size bytes with far_n far reads; the first-read / re-read pairs measured.
 * The nearest model's name.
 */
static const char *served(const char *name, uint64_t size, uint64_t far_n, double extra_ms,
			  uint64_t split)
{
	const struct bp_disk_model *m = bp_disk_model_find(name);
	struct bp_probe_pred pred;
	static struct bp_probe p;

	blank(&p);
	p.size = size;
	p.seq_offset = size / 4;
	p.seq_bytes = size / 8;
	p.far.n = far_n;
	p.cold.n = 24;
	p.sys_max_request = split;
	bp_probe_predict(m, &p, &pred);
	p.far.ms = pred.far_ms + extra_ms;
	p.cold.ms = pred.cold_ms + extra_ms;
	p.reread.ms = pred.reread_ms + extra_ms;
	p.rate_mbs = pred.rate_mbs;
	p.max_request = pred.max_request;
	p.rotational = pred.rotational;
	return nearest(&p);
}

int main(void)
{
	struct bp_probe_pred pred;
	struct bp_probe p;
	size_t i, n;

	/* Every model of the table, new ones too, is named from what it predicts itself,
	 * exactly and 8 % off in each figure. */
	for (n = 0; bp_disk_models[n]; n++) {
		const struct bp_disk_model *m = bp_disk_models[n];
		static const double off[][2] = { { 1.0, 1.0 }, { 1.08, 0.92 }, { 0.92, 1.08 } };

		blank(&p);
		bp_probe_predict(m, &p, &pred);
		CHECK(pred.far_ms > 0 && pred.rate_mbs > 0 && pred.max_request > 0);
		CHECK(pred.cold_ms > 0 && pred.reread_ms > 0);
		for (i = 0; i < ARRAY_SIZE(off); i++) {
			p.cold.ms = pred.cold_ms * off[i][0];
			p.reread.ms = pred.reread_ms * off[i][1];
			p.far.ms = pred.far_ms * off[i][0];
			p.rate_mbs = pred.rate_mbs * off[i][1];
			p.max_request = pred.max_request;
			p.rotational = pred.rotational;
			if (i == 0)
				CHECK(bp_probe_distance(&p, &pred) < 1e-9);
			if (strcmp(nearest(&p), m->name) != 0)
				fprintf(stderr, "%s's own figures (x%.2f, x%.2f) name %s\n", m->name,
					off[i][0], off[i][1], nearest(&p));
			CHECK(strcmp(nearest(&p), m->name) == 0);
			/* unknown request size: the latency, the rate and the kind still decide */
			p.max_request = 0;
			CHECK(strcmp(nearest(&p), m->name) == 0);
		}
	}
	CHECK(n >= 3);

	/* A cold cloud volume: a first read pays the chunk's fetch, the same block again
	 * does not; every other model reads a block again as dear as the first time. */
	blank(&p);
	bp_probe_predict(bp_disk_model_find("cloud-cold"), &p, &pred);
	CHECK(fabs(pred.cold_ms - (20.0 + 1.0 + 4096 / 131.072e3)) < 1e-6);
	CHECK(fabs(pred.reread_ms - (1.0 + 4096 / 131.072e3)) < 1e-6);
	bp_probe_predict(bp_disk_model_find("usb2-stick"), &p, &pred);
	CHECK(fabs(pred.cold_ms - pred.reread_ms) < 1e-9);

	/* The test of the filter through FUSE (tests/ts/bench/probe-names-model.sh): a
	 * 128 MiB export, 0.3 ms more a read, 128 KiB a request, 900 far reads that
	 * revisit its 256 chunks of 512 KiB, so cloud-cold's far median is a fetched
	 * chunk's 1 ms. By latency, rate and size the flash models then tie with it;
	 * the pairs tell them apart (FUSE's 0.3 ms and split still blur eee-flash,
	 * pi4-sd and usb2-stick among themselves: only cloud-cold is asked there).
	 * And the bench's disk in the guest: 2 GiB, a virtio queue (no split), a few
	 * hundred far reads, 0.05 ms more a read: every model by its name. */
	{
		static const char *const names[] = { "eee-flash", "usb2-stick", "pi4-sd",
						     "pi4-sd-slow", "emmc", "cloud-gp3",
						     "cloud-cold", "hdd-5k160", "hdd-smr" };

		for (i = 0; i < ARRAY_SIZE(names); i++) {
			const char *fuse = served(names[i], 128ULL << 20, 900, 0.3, 128 << 10);
			const char *guest = served(names[i], 2ULL << 30, 300, 0.05, 0);

			int cold = !strcmp(names[i], "cloud-cold");

			if (cold != !strcmp(fuse, "cloud-cold") || strcmp(guest, names[i]))
				fprintf(stderr, "served as %s: through FUSE %s, in the guest %s\n",
					names[i], fuse, guest);
			CHECK(cold == !strcmp(fuse, "cloud-cold"));
			CHECK(strcmp(guest, names[i]) == 0);
		}
	}

	/* The pair term: a factor e^2 in first / second is 1; none between rotating disks. */
	blank(&p);
	memset(&pred, 0, sizeof(pred));
	p.far.ms = pred.far_ms = 1.0;
	p.rate_mbs = pred.rate_mbs = 100.0;
	p.cold.ms = 1.0;
	p.reread.ms = 1.0;
	pred.cold_ms = exp(2.0);
	pred.reread_ms = 1.0;
	CHECK(fabs(bp_probe_distance(&p, &pred) - 1.0) < 1e-9);
	p.rotational = pred.rotational = 1;	/* a cold volume's first touches look like seeks */
	CHECK(fabs(bp_probe_distance(&p, &pred) - 1.0) < 1e-9);
	pred.disk = 1;	/* a disk's cache against a disk model: no term */
	CHECK(bp_probe_distance(&p, &pred) < 1e-9);
	p.rotational = 0;	/* a device that does not rotate against a disk model: the term */
	CHECK(fabs(bp_probe_distance(&p, &pred) - sqrt(2.0)) < 1e-9);

	/* cloud-cold is what the probe calls rotating, a disk model is a disk */
	bp_probe_predict(bp_disk_model_find("cloud-cold"), &p, &pred);
	CHECK(pred.rotational && !pred.disk);
	bp_probe_predict(bp_disk_model_find("cloud-gp3"), &p, &pred);
	CHECK(!pred.rotational && !pred.disk);
	bp_probe_predict(bp_disk_model_find("hdd-smr"), &p, &pred);
	CHECK(pred.rotational && pred.disk);

	/* Asked for the nearest alone, rank() still looks at the whole table. */
	blank(&p);
	bp_probe_predict(bp_disk_models[n - 1], &p, &pred);
	p.far.ms = pred.far_ms;
	p.rate_mbs = pred.rate_mbs;
	p.rotational = pred.rotational;
	{
		const struct bp_disk_model *one[1];
		double d1[1];

		CHECK(bp_probe_rank(&p, one, d1, 1) == 1 && one[0] == bp_disk_models[n - 1]);
	}

	/* Figures a person would write down for the three 2008-era kinds of disk. */
	expect(8.5, 44.0, 512 << 10, 1, "hdd-5k160");		/* seeks + half a turn */
	expect(0.65, 24.0, 128 << 10, 0, "eee-flash");		/* 0.5 ms a command */
	expect(0.09, 520.0, 512 << 10, 0, "sata-ssd");
	expect(0.09, 520.0, 0, 0, "sata-ssd");

	/* The distance: a factor e in latency or rate is 1, a factor 4 in request size is 1,
	 * the wrong kind is 1; each term on its own ratio. */
	blank(&p);
	memset(&pred, 0, sizeof(pred));
	p.far.ms = 1.0;
	p.rate_mbs = 100.0;
	p.max_request = 512 << 10;
	pred.far_ms = exp(1.0);
	pred.rate_mbs = 100.0 * exp(0.5);
	pred.max_request = 128 << 10;
	CHECK(fabs(bp_probe_distance(&p, &pred) - sqrt(2.25)) < 1e-9);
	pred.rotational = 1;
	CHECK(fabs(bp_probe_distance(&p, &pred) - sqrt(3.25)) < 1e-9);
	p.max_request = 0;	/* not measured: no term */
	CHECK(fabs(bp_probe_distance(&p, &pred) - sqrt(2.25)) < 1e-9);

	/* What the models predict, from their documented figures: half a turn at 5400
	 * rpm (5.56 ms) and more for a disk; 0.5 ms + 4 KiB at 25 MB/s for the EEE's
	 * flash; its sequential megabyte: 1 MB at 25 MB/s and 8 commands of 128 KiB. */
	blank(&p);
	bp_probe_predict(bp_disk_model_find("hdd-5k160"), &p, &pred);
	CHECK(pred.far_ms > 5.56 && pred.far_ms < 25.0 && pred.rotational);
	bp_probe_predict(bp_disk_model_find("eee-flash"), &p, &pred);
	CHECK(fabs(pred.far_ms - (0.5 + 4096 / 25e3)) < 1e-6 && !pred.rotational);
	CHECK(fabs(pred.rate_mbs - 1048576 / (1048576 / 25.0 + 8 * 500.0)) < 1e-6);
	CHECK(pred.max_request == 128 << 10);
	/* the probe tries powers of two: a 120 KiB command shows as 64 KiB taken whole */
	bp_probe_predict(bp_disk_model_find("usb2-stick"), &p, &pred);
	CHECK(pred.max_request == 64 << 10);

	/* The kernel's request limit caps what a model can show (split at max_sectors_kb). */
	blank(&p);
	p.sys_max_request = 64 << 10;
	bp_probe_predict(bp_disk_model_find("hdd-5k160"), &p, &pred);
	CHECK(pred.max_request == 64 << 10);

	/* The reader's settings. */
	blank(&p);
	p.far.ms = 10.0;
	p.max_request = 128 << 10;
	p.sys_max_request = 1280 << 10;
	CHECK(bp_probe_reader_request(&p) == 128 << 10);
	p.max_request = 0;
	CHECK(bp_probe_reader_request(&p) == 1 << 20);	/* 1280 KiB: a power of two below */
	p.max_request = 64 << 10;	/* usb-storage: 64 KiB whole, the queue's 120 KiB */
	p.sys_max_request = 120 << 10;
	CHECK(bp_probe_reader_request(&p) == 120 << 10);
	p.sys_max_request = 1280 << 10;
	CHECK(bp_probe_reader_request(&p) == 64 << 10);
	p.max_request = 0;
	p.qd[0].depth = 8;
	p.qd[0].iops = 100.0;	/* as depth 1: one at a time */
	p.qd[1].depth = 32;
	p.qd[1].iops = 100.0;
	CHECK(bp_probe_reader_window(&p) == 4 << 20);
	p.qd[0].iops = 700.0;	/* 7 times depth 1's 100/s */
	CHECK(bp_probe_reader_window(&p) == 8 << 20);
	p.qd[1].iops = 2000.0;
	CHECK(bp_probe_reader_window(&p) == 32 << 20);
	return unit_exit();
}
