/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.h --- measuring a disk read-only, and the nearest disk model
 *
 * bp_probe_run() opens a block device (or a regular file) O_RDONLY, with
 * O_DIRECT where the filesystem allows it, and within a time budget
 * measures what the reader and the judge need:
 *
 *  - a block read for the first time and at once again (4 KiB, queue depth
 *    1, fresh random places): a volume restored from a snapshot fetches a
 *    chunk on its first touch only, so there the first read is many times
 *    the second; elsewhere the two cost alike;
 *  - the latency of one 4 KiB read at queue depth 1, at three distances
 *    from the previous read: the next block ("seq"), a few MiB back
 *    ("near"), anywhere on the device ("far", the random-read latency);
 *  - random 4 KiB reads at deeper queues: BP_PROBE_QD threads each keep
 *    one synchronous read in flight (no io_uring, no libaio), so depth 8
 *    is 8 threads;
 *  - the sequential rate of large reads;
 *  - the largest request the device takes whole: the time of one read of N
 *    bytes against two of N/2 bytes back to back; while N is taken whole,
 *    the two cost one command more. Beside it the kernel's queue limits
 *    (queue/max_sectors_kb, max_hw_sectors_kb) and queue/rotational;
 *  - rotational or not, from the latencies: a disk whose far or near reads
 *    cost milliseconds and several times the next block's rotates.
 *
 * Nothing is ever written. The nearest model (probe-model.c) compares these
 * measurements with what each model of bp_disk_models[] predicts for the
 * same reads: see bp_probe_distance().
 */
#ifndef BP_PROBE_H
#define BP_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "bperr.h"
#include "diskmodel.h"

#define BP_PROBE_SECONDS_DEFAULT 5.0
#define BP_PROBE_SECONDS_MIN 0.5
#define BP_PROBE_SECONDS_MAX 600.0
#define BP_PROBE_MIN_SIZE (16ULL << 20)	/* smaller devices are refused */
#define BP_PROBE_IO 4096		/* the latency reads */
#define BP_PROBE_SEQ_REQUEST (1U << 20)	/* sequential reads, less if the queue says so */
#define BP_PROBE_WHOLE_MIN (8U << 10)	/* sizes tried for the whole request */
#define BP_PROBE_WHOLE_MAX (4U << 20)
#define BP_PROBE_LAT_MAX 4096		/* latency samples kept per measurement */
#define BP_PROBE_NQD 2
#define BP_PROBE_PAIR_SALT 0x6a09e667f3bcc909ULL	/* the pairs' offsets: seed ^ this */
#define BP_PROBE_PAIRS_MAX 256
extern const unsigned int bp_probe_depths[BP_PROBE_NQD];	/* 8, 32 */

/*
 * The phases, in the order they run: the bits of bp_probe.unmeasured. A
 * phase is measured when it took one sample at least before the deadline.
 */
enum {
	BP_PROBE_PH_PAIRS = 1U << 0,	/* "first-again": cold, reread */
	BP_PROBE_PH_FAR = 1U << 1,	/* "far" */
	BP_PROBE_PH_SEQ = 1U << 2,	/* "next" */
	BP_PROBE_PH_NEAR = 1U << 3,	/* "near" */
	BP_PROBE_PH_QD8 = 1U << 4,	/* "depth8": qd[0] */
	BP_PROBE_PH_QD32 = 1U << 5,	/* "depth32": qd[1] */
	BP_PROBE_PH_RATE = 1U << 6,	/* "rate" */
	BP_PROBE_PH_WHOLE = 1U << 7,	/* "whole": the largest request */
	BP_PROBE_PH_ALL = (1U << 8) - 1,
};

/*
 * The deadline is hard: the reads run in a child process, which starts no
 * read it has no time left for (the last read's duration as the estimate);
 * BP_PROBE_GRACE seconds after the deadline the probe stops waiting for
 * it, kills it and returns what the phases measured before (a read that
 * never returns keeps only that child, in D state, never the caller).
 */
#define BP_PROBE_GRACE 0.25

struct bp_probe_opts {
	double seconds;		/* the whole probe's budget */
	int mounted_ok;		/* accept a device mounted read-write */
	uint64_t seed;		/* random offsets; 0: a fixed default */
	double scale;		/* the device is an emulated disk stretched scale times
				 * (bench-boot's filter): times / scale, rates x scale; 0: 1 */
};

struct bp_probe_lat {
	double ms;		/* median */
	double mean_ms;
	uint64_t n;
};

struct bp_probe_qd {
	unsigned int depth;
	double ms;		/* median latency of one read */
	double iops;		/* reads per second, all threads */
	uint64_t n;
};

struct bp_probe {
	char path[4096];
	uint64_t size;		/* bytes */
	int is_blockdev;
	int direct;		/* O_DIRECT was used (a file on tmpfs: no) */
	uint64_t seed;
	/* sysfs (block devices): -1 / 0 when unknown */
	int sys_rotational;
	uint64_t sys_max_sectors_kb, sys_max_hw_sectors_kb;
	uint64_t sys_max_request;	/* bytes: max_sectors_kb, 0 unknown */
	/* measured, at queue depth 1 */
	struct bp_probe_lat cold, reread;	/* pairs: a first read, the same block again */
	struct bp_probe_lat seq, near, far;
	struct bp_probe_qd qd[BP_PROBE_NQD];
	double rate_mbs;	/* sequential, MB/s (10^6) */
	uint64_t seq_request;	/* its request size */
	uint64_t seq_offset;	/* where it started */
	uint64_t seq_bytes;
	uint64_t max_request;	/* largest request taken whole, 0: unknown */
	uint64_t whole_tested;	/* largest size tried */
	double whole_saving_ms;	/* one command's cost, measured at the smallest size */
	int rotational;		/* measured */
	double scale;		/* the figures above are the measured ones / this */
	double elapsed_s;
	double deadline_s;	/* the budget the run had */
	unsigned int unmeasured;	/* BP_PROBE_PH_* not measured (their figures 0) */
	int partial;		/* unmeasured != 0: the deadline came first */
	int abandoned;		/* a read was still under way at the deadline + grace */
};

/* "first-again", "far", "next", "near", "depth8", "depth32", "rate", "whole". */
const char *bp_probe_phase_name(unsigned int bit);

/* The names of p->unmeasured, ", " between them, into buf ("" when none). */
void bp_probe_unmeasured_str(const struct bp_probe *p, char *buf, size_t len);

/*
 * Measure path within o->seconds: it returns by the deadline +
 * BP_PROBE_GRACE, however slow the reads or if one never returns (then
 * p->partial, p->unmeasured say what was not measured; 0 is returned: a
 * partial result is a result). ENOENT, EINVAL (not a block device or
 * regular file, too small), BP_ET_MOUNTED (mounted read-write and
 * !o->mounted_ok), EIO and the like (a read failed), or an errno; err says
 * which.
 */
errcode_t bp_probe_run(const char *path, const struct bp_probe_opts *o, struct bp_probe *p,
		       struct bp_err *err);

/* The probe's random offsets (xorshift64): 4 KiB-aligned, len bytes fit in size. */
static inline uint64_t bp_probe_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static inline uint64_t bp_probe_rand_off(uint64_t *x, uint64_t size, uint64_t len)
{
	return (bp_probe_next(x) % ((size - len) / BP_PROBE_IO + 1)) * BP_PROBE_IO;
}

/* The median of v[0..n) (sorted in place); 0 when n is 0. */
double bp_probe_median(double *v, size_t n);

/* ---- the nearest model (probe-model.c) ---------------------------------- */

/* What model m would have measured for the reads p made. */
struct bp_probe_pred {
	double cold_ms, reread_ms;	/* the probe's pairs, replayed first */
	double far_ms;
	double rate_mbs;
	uint64_t max_request;
	int rotational;		/* what the probe's rule would say: a disk, or a cold volume */
	int disk;		/* a rotating disk model (no cache of its own modelled) */
};

void bp_probe_predict(const struct bp_disk_model *m, const struct bp_probe *p,
		      struct bp_probe_pred *out);

/*
 * The distance between measurements and a prediction, 0 for a perfect match:
 *
 *   d^2 = ln(far / far')^2 + ln(rate / rate')^2
 *         + (log2(max_request / max_request') / 2)^2   (when measured)
 *         + (rotational != rotational' ? 1 : 0)
 *         + (ln((cold / reread) / (cold' / reread')) / 2)^2
 *                          (when measured; not between a rotating disk and a disk model)
 *
 * A factor e in the random latency or the rate weighs as much as a factor
 * 4 in the request size or the wrong kind of disk, or a factor e^2 in how
 * much dearer a first read is than a second. The last is what tells a cold
 * cloud volume (a 20 ms fetch on a first touch, 1 ms after) from a flash
 * device of similar figures, whatever the device's size and however many
 * far reads found chunks already fetched. Its first touches make the probe
 * call it rotating (the near walk lands on chunks not fetched yet: a fetch
 * looks like a seek), so rotational' is what the probe's rule would say of
 * the model: a disk, or a volume that fetches chunks. A rotating disk's own
 * cache answers a re-read,
 * which the disk models do not model: no term between a disk measured
 * rotating and a disk model.
 */
double bp_probe_distance(const struct bp_probe *p, const struct bp_probe_pred *pred);

/*
 * Every model of bp_disk_models[] ranked by distance, nearest first, into
 * rank[0..n) (n: at least the number of models) with their distances; the
 * number of models. A model added to the table takes part with no change here.
 */
size_t bp_probe_rank(const struct bp_probe *p, const struct bp_disk_model **rank, double *dist,
		     size_t n);

/*
 * The reader's settings from a probe: the request size cap (the largest
 * request taken whole, else the queue limit; 0 unknown) and the in-flight
 * window (bytes).
 */
uint64_t bp_probe_reader_request(const struct bp_probe *p);
uint64_t bp_probe_reader_window(const struct bp_probe *p);

/*
 * The probe as key=value lines (the file 'bootpack setup' keeps for
 * bootpack-read): model, distance, next_ms, near_ms, far_ms, qd8_iops,
 * qd32_iops, rate_mbs, cmd_ms, rotational, max_request and in_flight (the
 * reader's settings). 0, or -1 if len is too small.
 */
int bp_probe_format_kv(const struct bp_probe *p, char *buf, size_t len);

#endif /* BP_PROBE_H */
