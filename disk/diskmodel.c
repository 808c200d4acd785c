// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diskmodel.c --- service-time models of boot disks, 2008 and today
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c.h"
#include "diskmodel.h"

static const struct bp_disk_model eee_flash = {
	.name = "eee-flash",
	.description = "EEE PC 2008 flash, 25 MB/s, 0.5 ms per command",
	.kind = BP_DISK_FLASH,
	.cmd_ms = 0.5,
	.rate_mbs = 25.0,
	.write_mbs = 10.0,	/* estimate: "writes very slow" (doc/disk-models.md §2) */
	.max_request = 128 << 10,
};

static const struct bp_disk_model hdd_5k160 = {
	.name = "hdd-5k160",
	.description = "2008 ThinkPad 5400 rpm disk (Travelstar 5K160 class, 160 GB)",
	.kind = BP_DISK_HDD,
	.cmd_ms = 0.3,
	.rate_mbs = 45.0,
	.max_request = 512 << 10,
	.capacity = 160000000000ULL,
	.cylinders = 70000,
	.rpm = 5400.0,
	.seek_t1_ms = 1.0,
	.seek_a_ms = 18.333,
	.seek_b_ms = 0.667,
	.inner_ratio = 0.5,
	.readahead = 1 << 20,
};

static const struct bp_disk_model sata_ssd = {
	.name = "sata-ssd",
	.description = "modern SATA SSD, 560 MB/s, 77 us per command",
	.kind = BP_DISK_FLASH,
	.cmd_ms = 0.077,
	.rate_mbs = 560.0,
	.write_mbs = 530.0,	/* estimate: 870 EVO-class sequential write */
	.max_request = 512 << 10,
};

/*
 * Today's slow boot devices (doc/disk-models.md §2.2). For flash, the
 * per-command time is the QD1 cost of a 4 KiB random read less its transfer.
 */
static const struct bp_disk_model pi4_sd = {
	.name = "pi4-sd",
	.description = "Pi 4 microSD (DDR50, no queue), 43 MB/s, 0.44 ms per 4 KiB read",
	.kind = BP_DISK_FLASH,
	.cmd_ms = 0.34,		/* 2,300 IOPS at QD1: 0.435 ms less 4 KiB at 43 MB/s */
	.rate_mbs = 43.0,
	.write_mbs = 10.0,	/* estimate: the A1 class's sustained write floor */
	.max_request = 512 << 10,	/* estimate: sdhci's 512 KiB request limit */
};

static const struct bp_disk_model pi4_sd_slow = {
	.name = "pi4-sd-slow",
	.description = "a slow Pi 4 microSD, 43 MB/s, 2.5 ms per 4 KiB read",
	.kind = BP_DISK_FLASH,
	.cmd_ms = 2.4,		/* 400 IOPS at QD1: 2.5 ms less 4 KiB at 43 MB/s */
	.rate_mbs = 43.0,
	.write_mbs = 10.0,
	.max_request = 512 << 10,
};

static const struct bp_disk_model usb2_stick = {
	.name = "usb2-stick",
	.description = "USB 2 stick, QD1, 120 KiB per command, 35 MB/s, 0.8 ms per 4 KiB",
	.kind = BP_DISK_FLASH,
	.cmd_ms = 0.68,		/* 1,250 IOPS at QD1: 0.8 ms less 4 KiB at 35 MB/s */
	.rate_mbs = 35.0,
	.max_request = 120 << 10,	/* usb-storage: 240 sectors per command */
};

static const struct bp_disk_model emmc = {
	.name = "emmc",
	.description = "eMMC 5.1 (at QD1), 180 MB/s, 0.25 ms per 4 KiB read",
	.kind = BP_DISK_FLASH,
	.cmd_ms = 0.227,	/* 4,000 IOPS at QD1: 0.25 ms less 4 KiB at 180 MB/s */
	.rate_mbs = 180.0,
	.max_request = 512 << 10,	/* estimate, as pi4-sd */
};

static const struct bp_disk_model hdd_smr = {
	.name = "hdd-smr",
	.description = "today's 2.5\" 5400 rpm SMR disk, 1 TB, 120 MB/s, 12 ms seek",
	.kind = BP_DISK_HDD,
	.cmd_ms = 0.3,		/* estimate, as hdd-5k160 */
	.rate_mbs = 120.0,
	.max_request = 512 << 10,
	.capacity = 1000000000000ULL,
	.cylinders = 300000,	/* estimate: only the LBA-to-cylinder map uses it */
	.rpm = 5400.0,
	.seek_t1_ms = 1.0,	/* 1 / 12 / 20 ms, the 5K320 datasheet's triple */
	.seek_a_ms = 23.333,
	.seek_b_ms = -4.333,
	.inner_ratio = 0.5,	/* estimate */
	.readahead = 1 << 20,	/* estimate, as hdd-5k160 */
};

static const struct bp_disk_model cloud_gp3 = {
	.name = "cloud-gp3",
	.description = "EBS gp3-like: 1 ms per I/O of <= 256 KiB, 125 MiB/s, 3000 IOPS",
	.kind = BP_DISK_NETWORK,
	.cmd_ms = 1.0,		/* estimate: "single-digit millisecond" latency */
	.rate_mbs = 131.072,	/* 125 MiB/s */
	.max_request = 256 << 10,	/* the size one I/O is counted in */
	.iops_cap = 3000.0,
};

static const struct bp_disk_model cloud_cold = {
	.name = "cloud-cold",
	.description = "cloud-gp3 from a snapshot: 20 ms per 512 KiB chunk first touched",
	.kind = BP_DISK_NETWORK,
	.cmd_ms = 1.0,
	.rate_mbs = 131.072,
	.max_request = 256 << 10,
	.iops_cap = 3000.0,
	.chunk = 512 << 10,	/* the snapshot block */
	.fetch_ms = 20.0,	/* estimate: an object-store GET of <= 512 KiB */
};

const struct bp_disk_model *const bp_disk_models[] = {
	&eee_flash, &hdd_5k160, &sata_ssd,
	&pi4_sd, &pi4_sd_slow, &usb2_stick, &emmc, &hdd_smr, &cloud_gp3, &cloud_cold,
	NULL
};

const struct bp_disk_model *const bp_disk_models_default[] = {
	&eee_flash, &hdd_5k160, &sata_ssd, NULL
};

void bp_disk_model_names(char *buf, size_t size)
{
	size_t i, len = 0;
	int n;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; bp_disk_models[i] && len < size; i++) {
		n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", bp_disk_models[i]->name);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

const struct bp_disk_model *bp_disk_model_find(const char *name)
{
	size_t i;

	for (i = 0; bp_disk_models[i]; i++)
		if (strcmp(bp_disk_models[i]->name, name) == 0)
			return bp_disk_models[i];
	return NULL;
}

int bp_disk_models_add(const char *name, const struct bp_disk_model **list, size_t *n, size_t max)
{
	const struct bp_disk_model *m;
	size_t i;

	if (strcmp(name, "all") == 0) {
		for (i = 0; bp_disk_models[i] && *n < max; i++)
			list[(*n)++] = bp_disk_models[i];
		return 0;
	}
	m = bp_disk_model_find(name);
	if (!m)
		return -ENOENT;
	if (*n < max)
		list[(*n)++] = m;
	return 0;
}

double bp_model_rate(const struct bp_disk_model *m, uint64_t off)
{
	double rate = m->rate_mbs * 1e6;
	double f, rho2;

	if (m->kind != BP_DISK_HDD || !m->capacity)
		return rate;
	/* Constant linear density: the radius at LBA fraction f, rate ∝ radius. */
	f = (double)off / (double)m->capacity;
	if (f > 1.0)
		f = 1.0;
	rho2 = m->inner_ratio * m->inner_ratio;
	return rate * sqrt(1.0 - f * (1.0 - rho2));
}

static double seek_ms(const struct bp_disk_model *m, uint64_t from, uint64_t to)
{
	double bpc = (double)m->capacity / (double)m->cylinders;
	double d = fabs(floor((double)to / bpc) - floor((double)from / bpc));
	double x;

	if (d < 1.0)
		return 0.0;	/* same cylinder: head switch only, inside rotation */
	x = (d - 1.0) / (double)(m->cylinders - 1);
	return m->seek_t1_ms + m->seek_a_ms * sqrt(x) + m->seek_b_ms * x;
}

void bp_model_init(struct bp_model_state *st, const struct bp_disk_model *m)
{
	memset(st, 0, sizeof(*st));
	st->m = m;
	st->min_off = UINT64_MAX;
}

void bp_model_free(struct bp_model_state *st)
{
	free(st->touched);
	st->touched = NULL;
	st->touched_words = 0;
}

/* Mark chunk c touched; returns 1 if it was not (it must be fetched). */
static int first_touch(struct bp_model_state *st, uint64_t c)
{
	uint64_t w = c / 64, bit = 1ULL << (c % 64);
	uint64_t *p;
	size_t n;

	if (w >= st->touched_words) {
		n = st->touched_words ? st->touched_words : 64;
		while (n <= w && n < SIZE_MAX / 2 / sizeof(*p))
			n *= 2;
		p = n > w ? realloc(st->touched, n * sizeof(*p)) : NULL;
		if (!p) {
			st->nomem = 1;
			return 1;
		}
		memset(p + st->touched_words, 0, (n - st->touched_words) * sizeof(*p));
		st->touched = p;
		st->touched_words = n;
	}
	if (st->touched[w] & bit)
		return 0;
	st->touched[w] |= bit;
	return 1;
}

/* The chunks of [off, off + len) not touched before, now touched. */
static unsigned int fetch_chunks(struct bp_model_state *st, uint64_t off, uint64_t len)
{
	uint64_t c, last = (off + len - 1) / st->m->chunk;
	unsigned int n = 0;

	for (c = off / st->m->chunk; c <= last; c++)
		n += first_touch(st, c);
	return n;
}

double bp_model_charge(struct bp_model_state *st, const struct bp_io *io,
		       struct bp_model_cost *cost)
{
	const struct bp_disk_model *m = st->m;
	struct bp_model_result *res = &st->res;
	struct bp_model_cost c = { 0 };
	double rate;
	uint64_t cmds;

	if (io->type == BP_IO_FLUSH || io->type == BP_IO_TRIM) {
		/* One command; the media is not touched (no write cache modelled). */
		c.overhead = m->cmd_ms / 1000.0;
		res->commands++;
		goto out;
	}
	if (!io->length)
		goto out;
	rate = bp_model_rate(m, io->offset);
	if (io->type == BP_IO_WRITE) {
		if (m->write_mbs > 0)
			rate *= m->write_mbs / m->rate_mbs;
		res->write_bytes += io->length;
	} else {
		res->bytes += io->length;
		st->min_off = MIN(st->min_off, io->offset);
	}
	cmds = DIV_ROUND_UP(io->length, m->max_request);
	res->commands += cmds;
	c.overhead = (double)cmds * m->cmd_ms / 1000.0;
	c.transfer = (double)io->length / rate;
	/* The cap: no faster than cmds / iops_cap (the wait counts as overhead). */
	if (m->iops_cap > 0 && c.overhead + c.transfer < (double)cmds / m->iops_cap)
		c.overhead = (double)cmds / m->iops_cap - c.transfer;

	if (st->have_head && io->offset == st->head) {
		/* Sequential: streamed, no positioning. */
	} else {
		res->head_jumps += st->have_head;
		if (m->kind == BP_DISK_HDD) {
			if (st->have_head && io->offset > st->head &&
			    io->offset - st->head <= m->readahead) {
				/* The drive's read-ahead already passes over the gap. */
				c.positioning = (double)(io->offset - st->head) / rate;
			} else {
				c.positioning = (seek_ms(m, st->head, io->offset) +
						 60000.0 / m->rpm / 2.0) / 1000.0;
				c.seek = 1;
				res->seeks++;
			}
		}
	}
	if (m->chunk) {
		/* A volume restored from a snapshot: fetch what was never touched. */
		c.fetches = fetch_chunks(st, io->offset, io->length);
		c.positioning += c.fetches * m->fetch_ms / 1000.0;
		res->fetches += c.fetches;
	}
	st->head = io->offset + io->length;
	st->have_head = 1;
out:
	res->positioning += c.positioning;
	res->transfer += c.transfer;
	res->overhead += c.overhead;
	c.seconds = c.positioning + c.transfer + c.overhead;
	if (cost)
		*cost = c;
	return c.seconds;
}

void bp_model_totals(const struct bp_model_state *st, struct bp_model_result *res)
{
	*res = st->res;
	res->seconds = res->positioning + res->transfer + res->overhead;
	res->t_phys = res->bytes ? (double)res->bytes / bp_model_rate(st->m, st->min_off) : 0.0;
}

void bp_model_run(const struct bp_disk_model *m, const struct bp_io *ios, size_t n,
		  struct bp_model_result *res)
{
	struct bp_model_state st;
	size_t i;

	bp_model_init(&st, m);
	for (i = 0; i < n; i++)
		bp_model_charge(&st, &ios[i], NULL);
	bp_model_totals(&st, res);
	bp_model_free(&st);
}
