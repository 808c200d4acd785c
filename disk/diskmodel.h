/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diskmodel.h --- deterministic service-time models of boot disks, 2008 and today
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
 * Today's slow boot devices (issue 24):
 *
 *  - "pi4-sd", "pi4-sd-slow": microSD on a Raspberry Pi 4 (DDR50, no command
 *    queue), 43 MB/s; a 4 KiB random read costs 0.44 ms (a good card) or
 *    2.5 ms (a slow one).
 *  - "usb2-stick": a USB 2 stick (Bulk-Only Transport: one command
 *    outstanding, at most 120 KiB per command), 35 MB/s, 0.8 ms per 4 KiB.
 *  - "emmc": eMMC 5.1, 180 MB/s, 0.25 ms per 4 KiB; its command queue is
 *    not used (queue depth 1 like every model).
 *  - "hdd-smr": today's 2.5" 5400 rpm (SMR) laptop disk, 1 TB, seek
 *    t(x) = 1.0 + 23.333 sqrt(x) - 4.333 x ms (1 / 12 / 20 ms), 120 MB/s at
 *    the outer diameter, zoned and read-ahead as hdd-5k160.
 *  - "cloud-gp3": an EBS gp3-like network volume: 1 ms per I/O of at most
 *    256 KiB, 125 MiB/s, and a cap of 3000 such I/Os per second.
 *  - "cloud-cold": cloud-gp3 restored from a snapshot: the first touch of each
 *    512 KiB chunk costs a 20 ms fetch.
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
 *
 * A state may own memory (the chunks a cold cloud volume has fetched):
 * every bp_model_init() is paired with a bp_model_free().
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
	BP_DISK_FLASH,		/* no positioning */
	BP_DISK_HDD,		/* seek, rotation, zones, read-ahead */
	BP_DISK_NETWORK,	/* a cloud volume: no positioning; iops_cap, chunk */
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
	/*
	 * Cloud volumes. iops_cap: commands per second the volume admits (0:
	 * no cap); a request of n commands takes at least n / iops_cap s.
	 * chunk: the first read or write of each chunk-sized, chunk-aligned
	 * piece of the volume costs fetch_ms more (0: no first-touch cost).
	 */
	double iops_cap;
	uint64_t chunk;			/* bytes */
	double fetch_ms;		/* per chunk, on its first touch */
};

struct bp_model_result {
	double seconds;		/* total service time */
	double positioning;	/* seek + rotation; first-touch fetches (cloud-cold) */
	double transfer;
	double overhead;	/* command overhead */
	double t_phys;		/* bytes / sequential rate where the data lives */
	uint64_t bytes;		/* read */
	uint64_t write_bytes;
	uint64_t commands;
	uint64_t seeks;		/* non-sequential starts that needed positioning */
	uint64_t fetches;	/* chunks fetched on first touch (cloud-cold);
				 * their time is counted as positioning */
	uint64_t head_jumps;	/* reads not starting where the head is (byte exact); the
				 * discontiguity figure is counted on the stream (contig.h) */
};

/* The built-in models, NULL-terminated. */
extern const struct bp_disk_model *const bp_disk_models[];
/* The ones `bootpack bench` charges without --model: the 2008 three. */
extern const struct bp_disk_model *const bp_disk_models_default[];
const struct bp_disk_model *bp_disk_model_find(const char *name);
/*
 * A --model argument: the model NAME, or "all" (every model), appended to
 * list[*n] while *n < max (the rest is dropped). -ENOENT: no model of that
 * name (nothing added).
 */
int bp_disk_models_add(const char *name, const struct bp_disk_model **list, size_t *n, size_t max);
/* "eee-flash, hdd-5k160, ...": every model's name into buf (truncated to size). */
void bp_disk_model_names(char *buf, size_t size);

/* The disk between requests: where the head is, and the running totals. */
struct bp_model_state {
	const struct bp_disk_model *m;
	uint64_t head;		/* byte after the last request */
	int have_head;
	uint64_t min_off;	/* lowest offset read (for t_phys) */
	struct bp_model_result res;
	/*
	 * Chunks touched so far (m->chunk), one bit each, grown on demand;
	 * owned by the state, released by bp_model_free(). If it cannot grow,
	 * a chunk past its end is charged a fetch at every touch (nomem set).
	 */
	uint64_t *touched;
	size_t touched_words;
	int nomem;
};

/* What one request cost, in seconds of disk time. */
struct bp_model_cost {
	double seconds;
	double positioning, transfer, overhead;
	int seek;		/* needed a seek and rotation */
	unsigned int fetches;	/* chunks fetched (in positioning) */
};

void bp_model_init(struct bp_model_state *st, const struct bp_disk_model *m);
/* Release what the state owns; it may be initialised again. */
void bp_model_free(struct bp_model_state *st);
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
