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

void bp_model_run(const struct bp_disk_model *m, const struct bp_io *ios, size_t n,
		  struct bp_model_result *res)
{
	double half_rev_ms = m->rpm > 0 ? 60000.0 / m->rpm / 2.0 : 0.0;
	uint64_t head = 0, min_off = UINT64_MAX;
	int have_head = 0;
	size_t i;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < n; i++) {
		const struct bp_io *io = &ios[i];
		double rate = bp_model_rate(m, io->offset);
		uint64_t cmds;

		if (!io->length)
			continue;
		res->bytes += io->length;
		min_off = MIN(min_off, io->offset);
		cmds = DIV_ROUND_UP(io->length, m->max_request);
		res->commands += cmds;
		res->overhead += (double)cmds * m->cmd_ms / 1000.0;
		res->transfer += (double)io->length / rate;

		if (have_head && io->offset == head) {
			/* Sequential: streamed, no positioning. */
		} else {
			res->discontiguities += have_head;
			if (m->kind == BP_DISK_HDD) {
				if (have_head && io->offset > head &&
				    io->offset - head <= m->readahead) {
					/* The drive's read-ahead already passes over the gap. */
					res->positioning += (double)(io->offset - head) / rate;
				} else {
					res->positioning += (seek_ms(m, head, io->offset) +
							     half_rev_ms) / 1000.0;
					res->seeks++;
				}
			}
		}
		head = io->offset + io->length;
		have_head = 1;
	}
	res->seconds = res->positioning + res->transfer + res->overhead;
	if (res->bytes)
		res->t_phys = (double)res->bytes / bp_model_rate(m, min_off);
}
