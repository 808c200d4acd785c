/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop.h --- the boot loop engine: bootpack setup, its state and its events
 *
 * The loop a user sets up once: boot 1 is traced, boot 2 relays the root
 * out in the initramfs, later boots are read by bootpack-read, and a package
 * change or a falling hit rate schedules a new trace. Everything lives under
 * a root directory ("/" or a mounted image / chroot), so tests and the
 * harness act on a tree that is not this machine's own.
 *
 * The state file (BP_STATEDIR/loop) is "key=value" lines; the initramfs
 * script reads "phase=" from the unmounted root with debugfs. Functions
 * return 0 or an errcode_t with err set; they never print, except that
 * bp_setup_install() and bp_setup_undo() report what they did through the
 * say callback.
 */
#ifndef BP_LOOP_H
#define BP_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bperr.h"

enum bp_phase {
	BP_PHASE_NONE = 0,	/* no setup */
	BP_PHASE_TRACE,		/* the next boot is traced */
	BP_PHASE_RELAYOUT,	/* the next boot relays the root out in the initramfs */
	BP_PHASE_READ,		/* the boots are read by bootpack-read */
	BP_PHASE_OFF,		/* gave up (reason says why) */
};

/*
 * Where bootpack-read runs on the read boots: bootpack-read.service (after
 * systemd and the early units), or the initramfs hook (before switch_root).
 * A state written before the choice existed had the service.
 */
enum bp_reader_at {
	BP_READER_AT_SERVICE = 0,
	BP_READER_AT_INITRAMFS,
};

const char *bp_reader_at_name(enum bp_reader_at r);

#define BP_LOOP_HISTORY 12		/* the boots the state remembers (bootpack status) */
#define BP_LOOP_RELAYOUT_CAP 2		/* relayouts (the first one's included) ... */
#define BP_LOOP_RELAYOUT_PERIOD 30	/* ... in this many boots, at most */
#define BP_LOOP_RELAYOUT_GAP 4		/* read boots between two relayouts, at least */

enum bp_boot_kind {
	BP_BOOT_TRACED = 1,	/* traced */
	BP_BOOT_FIRST,		/* traced, the system's first boot: traced again */
	BP_BOOT_RELAID,		/* relaid the root out in the initramfs (then read) */
	BP_BOOT_RELAYOUT_FAILED,	/* the relayout did not complete */
	BP_BOOT_READ,		/* read from the pack */
	BP_BOOT_CONTROL,	/* a control boot: not read */
};

const char *bp_boot_kind_name(enum bp_boot_kind k);

/* One boot of the loop's history: what it did, its misses, its time. */
struct bp_loop_boot {
	unsigned int boot;		/* the boot's number since setup (1: the traced boot) */
	time_t when;
	enum bp_boot_kind kind;
	uint64_t outside;		/* requests outside the region (misses, the journal's out) */
	uint64_t grown;			/* ... of which the pack's ranges gained by merging */
	uint64_t requests;		/* the boot's requests, 0: not recorded */
	uint64_t boot_ms;		/* to default.target, 0: unknown */
	unsigned int hit_pct;
	char next[16];			/* the phase after it */
};

struct bp_loop_state {
	enum bp_phase phase;
	char device[256];	/* the root filesystem: "UUID=…" */
	char cmdline[1024];	/* kernel arguments the next boot needs ("" for none) */
	char reason[256];	/* why the phase was entered (stale, skipped, …) */
	time_t setup_time;
	time_t phase_time;
	time_t relayout_time;	/* last completed relayout, 0: none (times: -1 if damaged) */
	unsigned int attempts;	/* relayout boots that did not complete */
	unsigned int low_hits;	/* consecutive samples under the hit-rate threshold */
	unsigned int high_misses;	/* consecutive read boots over the misses threshold */
	uint64_t pack_runs0;	/* the pack's ranges on the first read boot after the relayout, 0: none yet */
	unsigned int grub;	/* a GRUB snippet was installed */
	enum bp_reader_at reader;	/* where setup deployed the reader */
	/* the convergence of the misses rule (policy.c, issue 39) */
	unsigned int boots;		/* boots the loop saw since setup */
	unsigned int reads_since_relayout;	/* read boots since the last relayout */
	unsigned int relayout_boots[BP_LOOP_RELAYOUT_CAP];	/* the last relayouts' boots, 0: none */
	unsigned int rule_relayout;	/* the last relayout was the misses rule's */
	uint64_t outside_before;	/* ... the requests outside the region a boot before it */
	unsigned int after_n;		/* read boots after it measured, up to BP_LOOP_MISS_SAMPLES */
	uint64_t after_min;		/* ... their fewest requests outside the region */
	uint64_t penalty;		/* outside the region on the first read boot after a relayout */
	unsigned int rule_off;		/* the misses rule stopped: rule_reason says why */
	char rule_reason[256];
	time_t verdict_time;		/* the control boots' samples since, 0: since relayout_time */
	struct bp_loop_boot history[BP_LOOP_HISTORY];	/* the last boots, oldest first */
	unsigned int nhistory;
};

const char *bp_phase_name(enum bp_phase p);

/* State file paths under root ("/" or a tree). */
void bp_loop_path(const char *root, const char *rel, char *buf, size_t len);

/* ENOENT when there is no state (no setup). */
errcode_t bp_loop_load(const char *root, struct bp_loop_state *st, struct bp_err *err);
/* Atomic: temporary file, fsync, rename, fsync of the directory. */
errcode_t bp_loop_save(const char *root, const struct bp_loop_state *st, struct bp_err *err);

/* ---- setup ---------------------------------------------------------------- */

struct bp_setup_opts {
	const char *root;		/* "/" or a mounted tree */
	const char *device;		/* NULL: the filesystem that holds root */
	uint64_t region_bytes;		/* expected size of the boot set */
	uint64_t mem_bytes;		/* memory of the machine that boots, 0: this one's */
	unsigned int buffer_kb;		/* trace buffer per CPU */
	int dry_run;			/* check and say, write nothing */
	enum bp_reader_at reader;	/* the deployment asked for (--reader) */
	void (*say)(const char *line);	/* what is done / what to do */
	/*
	 * Measure the root's disk (bootpack probe): key=value lines into text,
	 * 0; or nonzero with why filled (skipped or failed, which is no error:
	 * setup says so and goes on). NULL: no probe.
	 */
	int (*probe)(const char *devpath, char *text, size_t len, char *why, size_t whylen);
};

/* What the probe measured, beside the state: bootpack-read takes its
 * max_request and in_flight (BP_READER_PROBE). */
#define BP_LOOP_PROBE_FILE "/probe"	/* under BP_STATEDIR */
#define BP_LOOP_PROBE_MAX 4096

#define BP_SETUP_REGION_DEFAULT (160ULL << 20)
#define BP_SETUP_BUFFER_KB_DEFAULT (32U * 1024)

/* What the checks found; filled even when a check fails. */
struct bp_setup_check {
	char devpath[4096];
	char uuid[64];
	char fstype[16];		/* ext2, ext3, ext4 */
	char kernel[512];		/* kernel whose tracing was checked, and its events */
	unsigned int events;		/* bit i: bp_tracefs_events[i] the traced boot asks for */
	char statedir[4096];		/* BP_STATEDIR, or its deepest existing parent */
	uint64_t free_bytes, need_bytes;	/* in statedir */
	uint64_t mem_bytes;		/* memory of the machine that boots, 0: unknown */
	uint64_t undo_bytes;		/* expected undo file of boot 2 (in a tmpfs) */
	int evicts;			/* no free run holds the region: eviction expected */
	int grub;			/* the tree uses GRUB (update-grub or /etc/default/grub) */
	int initramfs_tools, dracut;
	/*
	 * The reader's deployment: the one asked for, unless the initramfs
	 * tool's configuration says no (the user's choice is kept, the
	 * service is used); reader_why says why. reader_conf: the opt-in
	 * file setup writes for it ("" when it writes none).
	 */
	enum bp_reader_at reader;
	char reader_why[8192];
	char reader_conf[64];
};

/*
 * Checks, read-only: an ext3/ext4 (or ext2) root that libext2fs opens with
 * no feature relayout refuses, the device (if given) being the one holding
 * root, the state directory on that filesystem, free space there for the
 * region and the undo file, the undo file of boot 2 fitting in the tmpfs of
 * the initramfs (half the memory), tracing in the kernel (tracefs on "/",
 * the kernel config in a tree), bootpack installed in the tree (binary,
 * trace units, an initramfs hook where initramfs-tools or dracut look).
 * BP_ET_UNSUPPORTED / BP_ET_NOT_EXT / BP_ET_NO_SPACE / ENOENT, with err
 * naming the thing and the fix.
 */
errcode_t bp_setup_check(const struct bp_setup_opts *o, struct bp_setup_check *c,
			 struct bp_err *err);

/* Check, then install everything and schedule boot 1. */
errcode_t bp_setup_install(const struct bp_setup_opts *o, struct bp_setup_check *c,
			   struct bp_err *err);

/*
 * Where setup looks for an installed unit: the i-th directory, in order
 * (NULL past the last); and the .wants directory of /etc/systemd/system it
 * enables name in (NULL: not one of setup's units). bootpack image enables
 * the reader's unit inside an image the same way.
 */
#define BP_SETUP_READER_UNIT "bootpack-read.service"
const char *bp_setup_unit_dir(size_t i);
const char *bp_setup_unit_wants(const char *name);

/* Remove everything bp_setup_install() wrote; the data (trace, pack, undo files) stays. */
errcode_t bp_setup_undo(const struct bp_setup_opts *o, struct bp_err *err);

/*
 * The kernel arguments of a traced boot (trace_event=… trace_buf_size=…)
 * with the events of mask events (bit i: bp_tracefs_events[i]; index 0,
 * add_to_page_cache, always).
 */
void bp_setup_trace_args(unsigned int buffer_kb, unsigned int events, char *buf, size_t len);

/* Every event bootpack traces with (the mask of bp_tracefs_events). */
unsigned int bp_setup_all_events(void);
/* "mm_filemap_add_to_page_cache, mm_filemap_get_pages, …" of a mask. */
void bp_setup_events_name(unsigned int events, char *buf, size_t len);

/*
 * The events the next traced boot's kernel has: on "/", the running
 * kernel's tracefs (and all of them when a newer kernel installed in /boot,
 * Linux 6.12 or later, is the one that boots next); in a tree, the newest
 * /boot/config-* (CONFIG_FTRACE, CONFIG_EVENT_TRACING; the page-access
 * events from its release on, Linux 6.12). desc says which kernel and
 * events. A refusal names what is missing: sysfs, tracefs (CONFIG_FTRACE),
 * its mount, the events (CONFIG_EVENT_TRACING), the filemap events,
 * mm_filemap_add_to_page_cache or a layout bootpack reads.
 */
errcode_t bp_setup_kernel_events(const struct bp_setup_opts *o, unsigned int *mask,
				 char *desc, size_t len, struct bp_err *err);

/*
 * Write (args non-empty) or empty the GRUB snippet and the cmdline file for
 * the next boot, and run update-grub when root is "/" and GRUB is used.
 */
errcode_t bp_setup_next_boot(const struct bp_setup_opts *o, struct bp_loop_state *st,
			     const char *args, struct bp_err *err);

/* ---- events ---------------------------------------------------------------- */

enum bp_event {
	BP_EVENT_TRACED,	/* boot 1's trace was saved: schedule the relayout */
	BP_EVENT_BOOT,		/* every boot, root mounted: collect the initramfs relayout */
	BP_EVENT_PACKAGES,	/* dpkg ran: is the pack stale? */
	BP_EVENT_READ_START,	/* early in every boot: start the recorder of a read boot */
};

errcode_t bp_loop_event(const struct bp_setup_opts *o, enum bp_event ev, struct bp_err *err);

/* ---- hit rate, and whether readahead pays ---------------------------------- */

#define BP_LOOP_HIT_THRESHOLD 50	/* percent */
#define BP_LOOP_LOW_SAMPLES 2		/* consecutive low samples before a re-trace */

/*
 * Does reading the pack make this machine's boot faster? Measured, not
 * guessed from the disk's rotational flag: every BP_LOOP_CONTROL_EVERY-th
 * boot of the read phase is a control boot (the reader skips itself: the
 * state directory holds BP_LOOP_CONTROL_FILE), and each sample records the
 * time the boot reached default.target. Once there are BP_LOOP_JUDGE_MIN
 * boots of each kind, the loop turns itself off when the median read boot
 * is not BP_LOOP_PAY_MARGIN percent faster than the median control boot.
 */
#define BP_LOOP_CONTROL_FILE "/control-boot"	/* under BP_STATEDIR */
#define BP_LOOP_CONTROL_EVERY 4		/* until decided: 1 control boot in 4 */
#define BP_LOOP_CONTROL_EVERY_PAYS 16	/* once readahead was shown to pay */
#define BP_LOOP_JUDGE_MIN 2		/* boots of each kind before deciding */
#define BP_LOOP_JUDGE_WINDOW 24		/* the last samples of the pack considered */
#define BP_LOOP_PAY_MARGIN 2		/* percent */

struct bp_loop_sample {
	time_t when;
	uint64_t packed, resident, changed;
	unsigned int hit_pct;		/* resident and unchanged / packed */
	unsigned int changed_files;
	int read;			/* 1: the reader ran; 0: a control boot */
	uint64_t boot_ms;		/* the boot reached default.target, 0: unknown */
	int relaid;			/* the boot relaid the root out (not a line's field) */
};

/* One line of BP_STATEDIR/stats; fields of later versions are optional. 0 or -EINVAL. */
int bp_loop_parse_sample(const char *line, struct bp_loop_sample *s);

struct bp_loop_verdict {
	unsigned int nread, ncontrol;		/* samples with a boot time */
	uint64_t read_ms, control_ms;		/* their medians */
	int decided;				/* enough of both kinds */
	int pays;				/* decided: read boots are faster */
};

/* Judge samples (oldest first; only the last BP_LOOP_JUDGE_WINDOW count). */
void bp_loop_judge(const struct bp_loop_sample *v, size_t n, struct bp_loop_verdict *out);

/*
 * The samples of the verdict (after the last "pack" line of the stats file,
 * which a relayout writes, but one marked "verdict=kept", and since
 * st->verdict_time, else st->relayout_time), oldest first, at most
 * BP_LOOP_JUDGE_WINDOW; *n = 0 when there is no stats file.
 */
errcode_t bp_loop_pack_samples(const char *root, const struct bp_loop_state *st,
			       struct bp_loop_sample *v, size_t *n, struct bp_err *err);

/*
 * End of a boot read from the pack (or of a control boot): sample the pack's
 * residency (mincore; a control boot consumes BP_LOOP_CONTROL_FILE) and
 * append a line to BP_STATEDIR/stats with boot_ms (the time the boot reached
 * default.target, 0 if unknown or the boot relaid the root out). What the
 * loop does about it is the policy's (policy.h), through bp_loop_boot_end().
 */
errcode_t bp_loop_take_sample(const struct bp_setup_opts *o, uint64_t boot_ms,
			      struct bp_loop_sample *s, struct bp_err *err);

/* The last sample of a read boot in BP_STATEDIR/stats; ENOENT if there is none. */
errcode_t bp_loop_last_sample(const char *root, struct bp_loop_sample *s, struct bp_err *err);

/* ---- read boots: misses, and a pack that follows the boots (readboot.c) ------ */

/*
 * A read boot is also a cheap traced boot. Early in it, bootpack setup
 * --event read-start starts the recorder (trace-engine.h, recorder.c); at
 * its end, bp_loop_boot_end() collects it, counts what the boot read that
 * the pack did not hold (misses.h, saved in BP_STATEDIR/misses), merges the
 * boot's reads into BP_STATEDIR/trace (and its metadata, at the positions
 * of today's layout, into BP_STATEDIR/trace.reads, which a relayout
 * empties), and rewrites the pack from the merged trace with the old pack's
 * budget: the boot set converges on what the boots read instead of staying
 * the traced boot's. The region is not redone: a new relayout is scheduled
 * when, on BP_LOOP_MISS_SAMPLES read boots, the misses (but the journal's)
 * were more than BP_LOOP_MISS_RELAYOUT_PCT percent of the boot's requests
 * (runs) and BP_LOOP_OUTSIDE_MIN at least (fewer are a fraction of a second
 * on any disk, and the few blocks a boot writes and reads again each time,
 * a log's tail, are no reason for a relayout boot), and a relayout is
 * predicted to pay: the rule, its model and its limits are policy.c's.
 */
#define BP_LOOP_MISS_RELAYOUT_PCT 10
#define BP_LOOP_MISS_SAMPLES 2
#define BP_LOOP_OUTSIDE_MIN 16

/* Start the recorder of this boot: ENOENT when the boot is not read from a pack. */
errcode_t bp_loop_record_start(const struct bp_setup_opts *o, const struct bp_loop_state *st,
			       struct bp_err *err);

/* The boot is over: stop the recorder before the loop's own reads. */
void bp_loop_record_stop(const struct bp_setup_opts *o);

struct bp_misses;

/* What the end of a boot found and did (bootpack status --sample prints it). */
struct bp_boot_end {
	struct bp_loop_sample sample;	/* the pack's residency, the boot's time */
	int have_misses;		/* the boot's reads were recorded: misses below */
	int merged;			/* the boot's reads are in the trace */
	int repacked;			/* the pack was rewritten */
	uint64_t pack_files, pack_bytes;	/* the new pack */
	unsigned int actions;		/* the policy's (policy.h: enum bp_loop_act) */
	enum bp_phase phase;		/* the loop's phase after the boot */
	char reason[256];		/* ... and why */
	uint64_t pack_runs, pack_runs0;	/* the boot's pack's ranges, and after the relayout */
};

/*
 * The end of a boot in the read phase: the sample (bp_loop_take_sample()),
 * the boot's misses (m) from the recorder or trace_path (the boot's reads
 * as a trace file), the policy on them, its actions: a new trace, a control
 * boot, off, a relayout; and the boot's reads merged into the trace and the
 * pack rewritten (a control boot's too: its misses say nothing about the
 * pack, but its reads are reads). ENOENT: not in the read phase (the
 * recorder, if any, is removed).
 */
errcode_t bp_loop_boot_end(const struct bp_setup_opts *o, uint64_t boot_ms,
			   const char *trace_path, struct bp_misses *m, struct bp_boot_end *out,
			   struct bp_err *err);

#endif /* BP_LOOP_H */
