// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy.c --- the loop's rules: state and one boot's observation in, new
 * state and actions out (policy.h). Pure: no file, no clock, no printing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

/* The one place the loop's phase is written. */
static void set_phase(struct bp_loop_state *st, enum bp_phase p, time_t now)
{
	st->phase = p;
	st->phase_time = now;
}

void bp_loop_policy_setup(struct bp_loop_state *st, time_t now)
{
	set_phase(st, BP_PHASE_TRACE, now);
	st->setup_time = now;
	snprintf(st->reason, sizeof(st->reason), "setup");
}

static const char *const act_names[] = {
	"trace", "relayout", "refresh", "control", "off", "take-pack", "set-aside",
};

void bp_loop_actions_name(unsigned int mask, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(act_names) && n < len; i++)
		if (mask & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "+" : "", act_names[i]);
	if (!n)
		snprintf(buf, len, "none");
}

/* A new trace for the next boot, with reason. */
static void retrace(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		    struct bp_loop_actions *a)
{
	set_phase(st, BP_PHASE_TRACE, ob->now);
	st->low_hits = 0;
	st->attempts = 0;
	a->mask = BP_ACT_TRACE;
}

static void traced(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		   struct bp_loop_actions *a)
{
	/*
	 * The system's first boot does work no later boot does: its reads are
	 * not a boot set. The trace is kept aside, the next boot traced again.
	 */
	if (ob->first_boot) {
		snprintf(st->reason, sizeof(st->reason), "the traced boot was the system's first: "
			 "the next boot is traced again");
		snprintf(a->log, sizeof(a->log), "%s", st->reason);
		a->mask = BP_ACT_SET_ASIDE;
		return;
	}
	set_phase(st, BP_PHASE_RELAYOUT, ob->now);
	st->attempts = 0;
	snprintf(st->reason, sizeof(st->reason), "boot traced");
	snprintf(a->log, sizeof(a->log), "boot traced: relayout scheduled for the next boot");
	a->mask = BP_ACT_RELAYOUT;
}

/* What the initramfs relayout left: a new pack, or one more attempt that did not complete. */
static void relayout_outcome(struct bp_loop_state *st, const struct bp_loop_obs *ob,
			     struct bp_loop_actions *a)
{
	char status[256];

	if (ob->relayout_status[0])
		snprintf(status, sizeof(status), "%s", ob->relayout_status);
	else if (st->phase == BP_PHASE_RELAYOUT)
		snprintf(status, sizeof(status), "skipped the initramfs did not try: rebuild it "
			 "(update-initramfs -u or dracut -f)");
	else
		return;		/* no relayout was due, none was done */
	snprintf(a->log, sizeof(a->log), "initramfs relayout: %s", status);
	if (strncmp(status, "done", 4) == 0) {
		set_phase(st, BP_PHASE_READ, ob->now);
		st->relayout_time = ob->now;
		st->attempts = 0;
		st->low_hits = 0;
		st->high_misses = 0;
		st->pack_runs0 = 0;	/* the next read boot's pack is the new one */
		snprintf(st->reason, sizeof(st->reason), "relaid out at boot");
		a->mask = BP_ACT_TAKE_PACK;
		return;
	}
	if (st->phase != BP_PHASE_RELAYOUT)
		return;
	st->attempts++;
	snprintf(st->reason, sizeof(st->reason), "%s", status);
	if (st->attempts >= 3) {
		set_phase(st, BP_PHASE_OFF, ob->now);
		snprintf(st->reason, sizeof(st->reason), "relayout did not complete on 3 boots, "
			 "last: %.200s", status);
	}
}

static void packages(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		     struct bp_loop_actions *a)
{
	if (st->phase != BP_PHASE_READ)
		return;
	if (ob->pack_unusable)
		snprintf(st->reason, sizeof(st->reason), "packages changed and the pack is unusable "
			 "(%s)", ob->pack_why);
	else if (ob->changed_files)
		snprintf(st->reason, sizeof(st->reason), "stale: packages changed %u file(s) of the "
			 "pack, e.g. %.180s", ob->changed_files, ob->first_changed);
	else
		return;
	retrace(st, ob, a);
	snprintf(a->log, sizeof(a->log), "%s", st->reason);
}

/* Read boots since the last control boot (or since the pack was written). */
static unsigned int reads_since_control(const struct bp_loop_sample *v, size_t n)
{
	unsigned int k = 0;

	while (n > 0 && v[n - 1].read) {
		k++;
		n--;
	}
	return k;
}

/* The hit rate of a read boot: BP_LOOP_LOW_SAMPLES low ones in a row make the pack stale. */
static int hit_rate(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		    struct bp_loop_actions *a)
{
	if (ob->control)
		return 0;	/* the hit rate of a control boot says nothing about the pack */
	if (ob->hit_pct >= BP_LOOP_HIT_THRESHOLD) {
		st->low_hits = 0;
		return 0;
	}
	if (++st->low_hits < BP_LOOP_LOW_SAMPLES)
		return 0;
	snprintf(st->reason, sizeof(st->reason), "stale: hit rate %u%% under %u%% on %u boots",
		 ob->hit_pct, BP_LOOP_HIT_THRESHOLD, st->low_hits);
	retrace(st, ob, a);
	return 1;
}

/* The control boots' verdict: off when reading does not pay, else maybe a control boot next. */
static int verdict(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		   struct bp_loop_actions *a)
{
	struct bp_loop_verdict j;

	bp_loop_judge(ob->samples, ob->nsamples, &j);
	if (j.decided && !j.pays) {
		set_phase(st, BP_PHASE_OFF, ob->now);
		snprintf(st->reason, sizeof(st->reason), "readahead does not pay on this disk: "
			 "boots read from the pack %" PRIu64 ".%01" PRIu64 " s (median of %u), "
			 "without it %" PRIu64 ".%01" PRIu64 " s (median of %u); run 'bootpack "
			 "setup' to try again", j.read_ms / 1000, j.read_ms % 1000 / 100, j.nread,
			 j.control_ms / 1000, j.control_ms % 1000 / 100, j.ncontrol);
		a->mask |= BP_ACT_OFF;
		return 1;
	}
	if (reads_since_control(ob->samples, ob->nsamples) + 1 >=
	    (j.pays ? BP_LOOP_CONTROL_EVERY_PAYS : BP_LOOP_CONTROL_EVERY))
		a->mask |= BP_ACT_CONTROL;
	return 0;
}

/*
 * Too many of the boot's requests outside the region on BP_LOOP_MISS_SAMPLES
 * read boots in a row: relayout again (loop.h). The journal's misses are
 * pages jbd2 writes its log through: no relayout moves them. The ranges the
 * pack gained since the first read boot after the relayout (its pack is the
 * base) lie outside the region, a request each.
 */
static void misses_rule(struct bp_loop_state *st, const struct bp_loop_obs *ob,
			struct bp_loop_actions *a)
{
	uint64_t missed = ob->miss_runs > ob->journal_runs ? ob->miss_runs - ob->journal_runs : 0;
	uint64_t grown;

	if (!st->pack_runs0)
		st->pack_runs0 = ob->pack_runs;
	grown = ob->pack_runs > st->pack_runs0 ? ob->pack_runs - st->pack_runs0 : 0;
	a->outside = missed + grown;
	a->grown = grown;
	if (missed + grown < BP_LOOP_OUTSIDE_MIN ||
	    (missed + grown) * 100 <= (uint64_t)BP_LOOP_MISS_RELAYOUT_PCT * ob->read_runs) {
		st->high_misses = 0;
		return;
	}
	if (++st->high_misses < BP_LOOP_MISS_SAMPLES)
		return;
	set_phase(st, BP_PHASE_RELAYOUT, ob->now);
	st->attempts = 0;
	st->high_misses = 0;
	snprintf(st->reason, sizeof(st->reason), "misses: %" PRIu64 " of %" PRIu64 " read "
		 "requests outside the pack and %" PRIu64 " ranges the pack gained since the "
		 "relayout, over %u%% on %u boots: the boots' merged trace is relaid out",
		 missed, ob->read_runs, grown, BP_LOOP_MISS_RELAYOUT_PCT, BP_LOOP_MISS_SAMPLES);
	a->mask |= BP_ACT_RELAYOUT;
}

/* The end of a boot in the read phase: hit rate, verdict, misses, in that order. */
static void boot_end(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		     struct bp_loop_actions *a)
{
	if (st->phase != BP_PHASE_READ)
		return;
	if (hit_rate(st, ob, a) || verdict(st, ob, a))
		return;		/* a new trace, or off: the boot's reads are of no use */
	if (!ob->have_misses)
		return;
	/* a control boot's reads are merged, its misses say nothing about the pack */
	a->mask |= BP_ACT_REFRESH;
	if (!ob->control)
		misses_rule(st, ob, a);
}

void bp_loop_policy(const struct bp_loop_state *st, const struct bp_loop_obs *ob,
		    struct bp_loop_state *next, struct bp_loop_actions *a)
{
	if (next != st)
		*next = *st;
	memset(a, 0, sizeof(*a));
	switch (ob->event) {
	case BP_OBS_TRACED:
		traced(next, ob, a);
		break;
	case BP_OBS_RELAYOUT:
		relayout_outcome(next, ob, a);
		break;
	case BP_OBS_PACKAGES:
		packages(next, ob, a);
		break;
	case BP_OBS_END:
		boot_end(next, ob, a);
		break;
	}
}
