// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diskmodel.c --- service-time models of 2008-era boot disks
 */
#include <math.h>
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

const struct bp_disk_model *const bp_disk_models[] = { &eee_flash, &hdd_5k160, &sata_ssd, NULL };

const struct bp_disk_model *bp_disk_model_find(const char *name)
{
	size_t i;

	for (i = 0; bp_disk_models[i]; i++)
		if (strcmp(bp_disk_models[i]->name, name) == 0)
			return bp_disk_models[i];
	return NULL;
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
}
