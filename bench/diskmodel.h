/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diskmodel.h --- deterministic service-time models of 2008-era boot disks
 *
 * A stream of physical reads (byte offset, length), in the order the boot
 * issues them, is charged against a disk model. The models and their
 * parameters and their sources are in doc/disk-models.md:
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
 *
 * The model is a state machine charged one request at a time
 * (bp_model_charge), so a stream (bp_model_run, `bootpack bench`) and a live
 * disk (the nbdkit filter bench/boot/bootpack-delay.c) share one
 * implementation. Writes are positioned like reads and transferred at the
 * model's write rate (no write cache: write-through); a flush or a trim
 * costs one command.
 */
#ifndef BP_DISKMODEL_H
#define BP_DISKMODEL_H

#include <stddef.h>
#include <stdint.h>

enum bp_io_type {
	BP_IO_READ = 0,
	BP_IO_WRITE,
	BP_IO_FLUSH,
	BP_IO_TRIM,
};

struct bp_io {
	uint64_t offset;	/* bytes from the start of the filesystem */
	uint64_t length;
	enum bp_io_type type;	/* BP_IO_READ unless set */
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
	double write_mbs;		/* sequential write MB/s at the same place (0: rate_mbs) */
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
	uint64_t bytes;		/* read */
	uint64_t write_bytes;
	uint64_t commands;
	uint64_t seeks;		/* non-sequential starts that needed positioning */
	uint64_t head_jumps;	/* reads not starting where the head is (byte exact); the
				 * discontiguity figure is counted on the stream (contig.h) */
};

/* The built-in models, NULL-terminated. */
extern const struct bp_disk_model *const bp_disk_models[];
const struct bp_disk_model *bp_disk_model_find(const char *name);

/* The disk between requests: where the head is, and the running totals. */
struct bp_model_state {
	const struct bp_disk_model *m;
	uint64_t head;		/* byte after the last request */
	int have_head;
	uint64_t min_off;	/* lowest offset read (for t_phys) */
	struct bp_model_result res;
};

/* What one request cost, in seconds of disk time. */
struct bp_model_cost {
	double seconds;
	double positioning, transfer, overhead;
	int seek;		/* needed a seek and rotation */
};

void bp_model_init(struct bp_model_state *st, const struct bp_disk_model *m);
/*
 * Charge one request at the head's current position, move the head, add to
 * the totals; returns its service time in seconds (cost, if not NULL, gets
 * the parts). A read or write of length 0 costs nothing.
 */
double bp_model_charge(struct bp_model_state *st, const struct bp_io *io,
		       struct bp_model_cost *cost);
/* The totals so far, with seconds and t_phys filled in. */
void bp_model_totals(const struct bp_model_state *st, struct bp_model_result *res);

/* Charge ios[0..n) in order from a fresh state. Deterministic. */
void bp_model_run(const struct bp_disk_model *m, const struct bp_io *ios, size_t n,
		  struct bp_model_result *res);

/* Sequential rate in bytes/s at byte offset off (zoned for disks). */
double bp_model_rate(const struct bp_disk_model *m, uint64_t off);

#endif /* BP_DISKMODEL_H */
