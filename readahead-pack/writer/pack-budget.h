/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-budget.h --- the automatic budget: how much of the boot set to pack
 *
 * The 2008 article's 75 MB was a time budget for one EEE PC (25 MB/s flash,
 * 3 s of its 5 s boot given to reading), not a law. The automatic budget
 * follows from the machine instead, as the smallest of three terms:
 *
 *  - traced: what the boot uses, the bytes of the pack uncut. Never more:
 *    a budget above them reads nothing more.
 *  - memory: MemTotal / BP_BUDGET_MEM_DIV (a quarter). The pack lands in
 *    the page cache before the boot asks for it; it must leave the boot's
 *    own pages (its processes, the kernel, what it reads outside the pack)
 *    room, or it evicts what it was meant to save. On a 512 MiB board a
 *    quarter is 128 MiB, leaving 384 MiB; the reader still halves what is
 *    available at boot (bp_reader_scale_budget()), and a boot starts with
 *    most of MemTotal available, so the reader cuts further only when the
 *    boot starts short of memory.
 *  - disk: what the disk streams in the time the boot has for it, the
 *    probed sequential rate (BP_STATEDIR/probe, rate_mbs) times the boot's
 *    time: a measured one when the caller has it (the loop: a read boot's
 *    time to default.target), else the trace's last first access (the
 *    last time the boot asked for data it had not read before: past it
 *    nobody waits for a read).
 *    Without a probe the rate is BP_BUDGET_DEFAULT_RATE; a trace without
 *    times leaves the term out.
 *
 * bp_pack_budget() is the rule alone: inputs passed in, nothing read.
 * bp_pack_budget_mem_total() and bp_pack_budget_probe_rate() read the
 * inputs of this machine (pack-budget-env.c); bp_pack_budget_boot_ns()
 * takes the time from a trace.
 */
#ifndef BP_PACK_BUDGET_H
#define BP_PACK_BUDGET_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "pack-format.h"
#include "tracefile.h"

#define BP_BUDGET_MEM_DIV	4			/* a quarter of MemTotal */
#define BP_BUDGET_DEFAULT_RATE	25000000ULL		/* bytes/s, no probe: the EEE PC's flash */
/*
 * The memory of a machine that is not this one when nothing says it (the
 * target of bootpack image, the disks of bootpack bench): 1 GiB, the boot
 * drivers' guest (image-boot --mem, bench-boot.sh MEM).
 */
#define BP_BUDGET_DEFAULT_MEM	(1024ULL << 20)

/* Which term bound the budget; also in the pack (BP_PACK_COMPAT_BUDGET_*). */
enum bp_budget_bound {
	BP_BUDGET_GIVEN = 0,	/* not automatic: --budget SIZE */
	BP_BUDGET_TRACED,
	BP_BUDGET_MEMORY,
	BP_BUDGET_DISK,
};

/* The bound a pack records (a struct bp_pack_info *, pack-parse.h). */
#define BP_PACK_BUDGET_BOUND(info) \
	((enum bp_budget_bound)(((info)->feature_compat & BP_PACK_COMPAT_BUDGET_MASK) >> \
				BP_PACK_COMPAT_BUDGET_SHIFT))

struct bp_budget_in {
	uint64_t traced_bytes;	/* the pack's bytes with no budget */
	uint64_t mem_total;	/* MemTotal of the machine that boots, bytes; required */
	uint64_t rate_bps;	/* sequential read rate, bytes/s; 0: no probe (the default) */
	uint64_t boot_ns;	/* the boot's time; 0: unknown (no disk term) */
};

struct bp_budget_out {
	uint64_t budget;	/* min of the terms */
	enum bp_budget_bound bound;	/* the term equal to it (traced first, then memory) */
	uint64_t mem_cap, disk_cap;	/* disk_cap UINT64_MAX: left out */
	uint64_t rate_bps;	/* the rate used */
	int rate_default;	/* no probe: BP_BUDGET_DEFAULT_RATE */
};

/* "given", "traced", "memory", "disk". */
const char *bp_budget_bound_name(enum bp_budget_bound b);

/* The rule. EINVAL: mem_total is 0 (unknown memory is no budget). */
errcode_t bp_pack_budget(const struct bp_budget_in *in, struct bp_budget_out *out);

/* The time of t's last first access, ns since the start of the trace. */
uint64_t bp_pack_budget_boot_ns(const struct bp_trace *t);

/* MemTotal from /proc/meminfo, bytes. 0 or an errno value (ENOENT: no such line). */
errcode_t bp_pack_budget_mem_total(uint64_t *bytes);

/*
 * rate_mbs (MB/s, 10^6) of the probe file path (bootpack setup writes
 * BP_STATEDIR/probe) as bytes/s. 0 or an errno value: ENOENT for no file,
 * EINVAL for a file without a positive rate_mbs line.
 */
errcode_t bp_pack_budget_probe_rate(const char *path, uint64_t *bps);

/* Where bootpack setup keeps the probe of the root's disk (loop.h: BP_LOOP_PROBE_FILE). */
#define BP_PACK_BUDGET_PROBE BP_STATEDIR "/probe"

/*
 * The machine's inputs of an automatic budget into in: mem_total from
 * /proc/meminfo unless set; rate_bps from the probe file probe ("none":
 * none, the default rate; NULL: BP_PACK_BUDGET_PROBE when it exists). An
 * error names the input and the fix in err.
 */
errcode_t bp_pack_budget_machine(struct bp_budget_in *in, const char *probe, struct bp_err *err);

#endif /* BP_PACK_BUDGET_H */
