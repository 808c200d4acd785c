/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diskmodel.h --- deterministic service-time models of 2008-era boot disks
 *
 * A stream of physical reads (byte offset, length), in the order the boot
 * issues them, is charged against a disk model. The models and their
 * parameters come from ../shared/notes/disk-models.md:
 *
 *  - "eee-flash": EEE PC 701/900 PATA flash, QD1, 25 MB/s sequential and a
 *    fixed cost per command (no seek, no rotation).
 *  - "hdd-5k160": Hitachi Travelstar 5K160-class 5400 rpm laptop disk,
 *    three-point seek curve t(x) = 1.0 + 18.333 sqrt(x) + 0.667 x ms fitted to
 *    1 / 11 / 20 ms, mean rotational latency of half a revolution, zoned
 *    transfer 45 MB/s at the outer diameter falling to 22.5 MB/s, and the
 *    drive's read-ahead: a read that starts a little ahead of the previous
 *    one costs the gap at media rate instead of a seek.
 *  - "sata-ssd": a modern SATA SSD for contrast (560 MB/s, 77 us per command).
 *
 * The filesystem is placed at the start of the disk (the outer, fastest
 * tracks). Requests longer than max_request are split; each split costs a
 * command overhead but no positioning.
 */
#ifndef BP_DISKMODEL_H
#define BP_DISKMODEL_H

#include <stddef.h>
#include <stdint.h>

struct bp_io {
	uint64_t offset;	/* bytes from the start of the filesystem */
	uint64_t length;
};

enum bp_disk_kind {
	BP_DISK_FLASH,
	BP_DISK_HDD,
};

struct bp_disk_model {
	const char *name;
	const char *description;
	enum bp_disk_kind kind;
	double cmd_ms;			/* per command */
	double rate_mbs;		/* sequential MB/s (outer diameter for disks) */
	uint64_t max_request;		/* bytes per command */
	/* disks only */
	uint64_t capacity;		/* bytes */
	uint64_t cylinders;
	double rpm;
	double seek_t1_ms, seek_a_ms, seek_b_ms;	/* t1 + a sqrt(x) + b x */
	double inner_ratio;		/* inner / outer radius: rate falls to this */
	uint64_t readahead;		/* drive read-ahead window, bytes */
};

struct bp_model_result {
	double seconds;		/* total service time */
	double positioning;	/* seek + rotation */
	double transfer;
	double overhead;	/* command overhead */
	double t_phys;		/* bytes / sequential rate where the data lives */
	uint64_t bytes;
	uint64_t commands;
	uint64_t seeks;		/* non-sequential starts that needed positioning */
	uint64_t discontiguities;	/* reads not starting where the previous ended */
};

/* The built-in models, NULL-terminated. */
extern const struct bp_disk_model *const bp_disk_models[];
const struct bp_disk_model *bp_disk_model_find(const char *name);

/* Charge ios[0..n) in order. Deterministic: same input, same result. */
void bp_model_run(const struct bp_disk_model *m, const struct bp_io *ios, size_t n,
		  struct bp_model_result *res);

/* Sequential rate in bytes/s at byte offset off (zoned for disks). */
double bp_model_rate(const struct bp_disk_model *m, uint64_t off);

#endif /* BP_DISKMODEL_H */
