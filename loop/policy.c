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

/* A new boot in the history (the oldest dropped), numbered. */
static struct bp_loop_boot *boot_add(struct bp_loop_state *st, enum bp_boot_kind kind,
				     time_t now)
{
	struct bp_loop_boot *b;

	if (st->nhistory >= BP_LOOP_HISTORY) {
		memmove(st->history, st->history + 1, (BP_LOOP_HISTORY - 1) * sizeof(*b));
		st->nhistory = BP_LOOP_HISTORY - 1;
	}
	b = &st->history[st->nhistory++];
	memset(b, 0, sizeof(*b));
	b->boot = ++st->boots;
	b->when = now;
	b->kind = kind;
	return b;
}

/* The misses rule starts again (a new boot set: a trace). */
static void rule_reset(struct bp_loop_state *st)
{
	st->high_misses = 0;
	st->rule_relayout = 0;
	st->after_n = 0;
	st->rule_off = 0;
	st->rule_reason[0] = '\0';
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
		boot_add(st, BP_BOOT_FIRST, ob->now);
		snprintf(st->reason, sizeof(st->reason), "the traced boot was the system's first: "
			 "the next boot is traced again");
		snprintf(a->log, sizeof(a->log), "%s", st->reason);
		a->mask = BP_ACT_SET_ASIDE;
		return;
	}
	boot_add(st, BP_BOOT_TRACED, ob->now);
	rule_reset(st);
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
		boot_add(st, BP_BOOT_RELAID, ob->now);
		memmove(st->relayout_boots + 1, st->relayout_boots,
			(BP_LOOP_RELAYOUT_CAP - 1) * sizeof(st->relayout_boots[0]));
		st->relayout_boots[0] = st->boots;
		st->reads_since_relayout = 0;
		st->after_n = 0;
		/*
		 * The control boots keep their verdict across a relayout of the
		 * misses rule: it moves what the read boots added to the pack, the
		 * boot set is the same. A relayout of a new trace starts it again.
		 */
		if (!st->rule_relayout || !st->verdict_time)
			st->verdict_time = ob->now;
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
	boot_add(st, BP_BOOT_RELAYOUT_FAILED, ob->now);
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

/* Relayouts in the last BP_LOOP_RELAYOUT_PERIOD boots, the first one's included. */
static unsigned int recent_relayouts(const struct bp_loop_state *st)
{
	unsigned int i, n = 0;

	for (i = 0; i < BP_LOOP_RELAYOUT_CAP; i++)
		if (st->relayout_boots[i] && st->relayout_boots[i] + BP_LOOP_RELAYOUT_PERIOD > st->boots)
			n++;
	return n;
}

/*
 * Did the misses rule's last relayout pay? Its first BP_LOOP_MISS_SAMPLES read
 * boots are measured: when the fewest requests outside the region among
 * them are not fewer than a boot before it had, the relayout moved what
 * the pack then missed (the directories it moved) and gained nothing; the
 * rule stops, with the reason, until a new trace.
 */
static void relayout_paid(struct bp_loop_state *st, uint64_t outside)
{
	unsigned int boot = st->relayout_boots[0];

	if (!st->rule_relayout || st->after_n >= BP_LOOP_MISS_SAMPLES)
		return;
	if (!st->after_n++ || outside < st->after_min)
		st->after_min = outside;
	if (st->after_n < BP_LOOP_MISS_SAMPLES || st->after_min < st->outside_before)
		return;
	st->rule_off = 1;
	snprintf(st->rule_reason, sizeof(st->rule_reason), "the relayout of boot %u did not "
		 "reduce the requests outside the region (%" PRIu64 " a boot before it, %" PRIu64
		 " at least on the %u boots after): the misses rule is off until a new trace",
		 boot, st->outside_before, st->after_min, BP_LOOP_MISS_SAMPLES);
}

/*
 * The misses rule (loop.h): the boot's misses outside the journal (its
 * pages are written, not read: no relayout moves them) over a tenth of its
 * requests and BP_LOOP_OUTSIDE_MIN at least, on BP_LOOP_MISS_SAMPLES read
 * boots, schedule a relayout of the boots' merged trace when it is
 * predicted to pay and none is too near.
 *
 * The ranges the pack gained by merging the read boots are no misses: a
 * pack that grows by merging would schedule relayout after relayout. They
 * count where a relayout is weighed, as requests outside the region:
 *
 *   now   = misses + gained ranges      (outside the region on this boot)
 *   after = penalty                     (outside on the first read boot
 *                                        after the last relayout: the
 *                                        metadata it moved, the new reads)
 *   pays  = now >= after + margin, margin = max(16, a tenth of the requests)
 *
 * Hysteresis: a boot under half the thresholds (8 misses, a twentieth)
 * resets the count, one between holds it. No relayout within
 * BP_LOOP_RELAYOUT_GAP read boots of the last one, nor more than
 * BP_LOOP_RELAYOUT_CAP in BP_LOOP_RELAYOUT_PERIOD boots; and a relayout of
 * the rule that did not reduce the requests outside the region stops it
 * (relayout_paid()).
 */
static void misses_rule(struct bp_loop_state *st, const struct bp_loop_obs *ob,
			struct bp_loop_actions *a)
{
	uint64_t missed = ob->miss_runs > ob->journal_runs ? ob->miss_runs - ob->journal_runs : 0;
	uint64_t grown, now, margin, pct = BP_LOOP_MISS_RELAYOUT_PCT;

	if (!st->pack_runs0)
		st->pack_runs0 = ob->pack_runs;
	grown = ob->pack_runs > st->pack_runs0 ? ob->pack_runs - st->pack_runs0 : 0;
	now = missed + grown;
	a->outside = now;
	a->grown = grown;
	if (!st->reads_since_relayout++)
		st->penalty = now;
	relayout_paid(st, now);
	margin = ob->read_runs * pct / 100;
	if (margin < BP_LOOP_OUTSIDE_MIN)
		margin = BP_LOOP_OUTSIDE_MIN;
	if (missed < BP_LOOP_OUTSIDE_MIN || missed * 100 <= pct * ob->read_runs ||
	    now < st->penalty + margin) {
		if (missed < BP_LOOP_OUTSIDE_MIN / 2 || missed * 200 <= pct * ob->read_runs)
			st->high_misses = 0;	/* well under: reset; between: held */
		return;
	}
	if (st->high_misses < BP_LOOP_MISS_SAMPLES)
		st->high_misses++;
	if (st->high_misses < BP_LOOP_MISS_SAMPLES || st->rule_off ||
	    st->reads_since_relayout < BP_LOOP_RELAYOUT_GAP ||
	    recent_relayouts(st) >= BP_LOOP_RELAYOUT_CAP)
		return;
	set_phase(st, BP_PHASE_RELAYOUT, ob->now);
	st->attempts = 0;
	st->high_misses = 0;
	st->rule_relayout = 1;
	st->outside_before = now;
	snprintf(st->reason, sizeof(st->reason), "misses: %" PRIu64 " of %" PRIu64 " read "
		 "requests outside the pack (and %" PRIu64 " ranges the pack gained since the "
		 "relayout), over %u%% on %u boots, predicted to pay (%" PRIu64 " outside the "
		 "region after it): the boots' merged trace is relaid out", missed, ob->read_runs,
		 grown, BP_LOOP_MISS_RELAYOUT_PCT, BP_LOOP_MISS_SAMPLES, st->penalty);
	a->mask |= BP_ACT_RELAYOUT;
	a->mask &= ~BP_ACT_CONTROL;	/* the relayout boot cannot be a control boot */
}

/* The end of a boot in the read phase: hit rate, verdict, misses, in that order. */
static void boot_end(struct bp_loop_state *st, const struct bp_loop_obs *ob,
		     struct bp_loop_actions *a)
{
	struct bp_loop_boot *b;

	if (st->phase != BP_PHASE_READ)
		return;
	/* the boot that relaid out is in the history already (not ended yet): it was read too */
	b = st->nhistory ? &st->history[st->nhistory - 1] : NULL;
	if (!ob->relaid || !b || b->kind != BP_BOOT_RELAID || b->hit_pct || b->requests)
		b = boot_add(st, ob->control ? BP_BOOT_CONTROL : BP_BOOT_READ, ob->now);
	b->boot_ms = ob->boot_ms;
	b->hit_pct = ob->hit_pct;
	if (!hit_rate(st, ob, a) && !verdict(st, ob, a) && ob->have_misses) {
		/* a control boot's reads are merged, its misses say nothing about the pack */
		a->mask |= BP_ACT_REFRESH;
		if (!ob->control)
			misses_rule(st, ob, a);
		b->requests = ob->read_runs;
		b->outside = a->outside;
		b->grown = a->grown;
	}
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
	/* the boot this observation added to the history (or completed): the phase after it */
	if (next->nhistory && (next->boots != st->boots || ob->event == BP_OBS_END))
		snprintf(next->history[next->nhistory - 1].next,
			 sizeof(next->history[0].next), "%s", bp_phase_name(next->phase));
}
