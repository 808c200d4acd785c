// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-policy.c --- the loop's rules (policy.c) as a table: a state and one
 * boot's observation in, the phase, the actions and the counters out
 *
 * Each rule is a row; the rows named "real:" are the boots of check-loop
 * (tests/loop/README.md) and of issue 39 that found the rule wrong. A row
 * that fails prints its name. doc/testing.md's mutation table lists the
 * rule broken on purpose and the row that caught it.
 */
#include <string.h>

#include "policy.h"
#include "unit.h"

/* expectations: 0 is "not checked", X(v) is "equals v" */
#define X(v) ((long long)(v) + 1)

struct row {
	const char *name;
	struct bp_loop_state st;
	struct bp_loop_obs ob;
	int samples;			/* index into sample_sets, with ob.event END */
	enum bp_phase phase;		/* the phase after */
	unsigned int mask;		/* the actions, exactly */
	long long high, low, attempts, runs0;	/* X(v) or 0 */
	const char *reason;		/* the new reason's beginning, NULL: unchanged */
	long long rule_off, vtime, penalty;	/* X(v) or 0 */
};

#define T0 1764800000
#define S(t, r, ms) { .when = (t), .read = (r), .boot_ms = (ms), .hit_pct = 99 }

/* no sample but this boot's */
static const struct bp_loop_sample s_one[] = { S(T0, 1, 0) };
/* three read boots since the last control boot, undecided: the next is a control boot */
static const struct bp_loop_sample s_three[] = {
	S(T0, 1, 0), S(T0 + 1, 0, 30000), S(T0 + 2, 1, 29000), S(T0 + 3, 1, 29100),
	S(T0 + 4, 1, 29200),
};
/* two read boots since: not yet */
static const struct bp_loop_sample s_two[] = {
	S(T0, 1, 0), S(T0 + 1, 0, 30000), S(T0 + 2, 1, 29000), S(T0 + 3, 1, 29100),
};
/* a fast disk, decided: the reader does not pay (test-judge.c's ssd) */
static const struct bp_loop_sample s_ssd[] = {
	S(T0, 1, 12900), S(T0 + 1, 1, 12700), S(T0 + 2, 1, 13100), S(T0 + 3, 0, 12600),
	S(T0 + 4, 1, 12800), S(T0 + 5, 0, 12800),
};
/* a slow disk, decided, pays: 15 read boots since the last control boot: one in 16 */
static const struct bp_loop_sample s_pays15[] = {
	S(T0, 1, 104000), S(T0 + 1, 0, 205000), S(T0 + 2, 0, 222000),
	S(T0 + 3, 1, 101000), S(T0 + 4, 1, 102000), S(T0 + 5, 1, 103000), S(T0 + 6, 1, 104000),
	S(T0 + 7, 1, 101000), S(T0 + 8, 1, 102000), S(T0 + 9, 1, 103000), S(T0 + 10, 1, 104000),
	S(T0 + 11, 1, 101000), S(T0 + 12, 1, 102000), S(T0 + 13, 1, 103000),
	S(T0 + 14, 1, 104000), S(T0 + 15, 1, 101000), S(T0 + 16, 1, 102000),
	S(T0 + 17, 1, 103000),
};
/* ... with 3 read boots since: no control boot while it pays */
static const struct bp_loop_sample s_pays3[] = {
	S(T0, 1, 104000), S(T0 + 1, 0, 205000), S(T0 + 2, 0, 222000),
	S(T0 + 3, 1, 101000), S(T0 + 4, 1, 102000), S(T0 + 5, 1, 103000),
};

static const struct {
	const struct bp_loop_sample *v;
	size_t n;
} sample_sets[] = {
	{ s_one, ARRAY_SIZE(s_one) }, { s_three, ARRAY_SIZE(s_three) },
	{ s_two, ARRAY_SIZE(s_two) }, { s_ssd, ARRAY_SIZE(s_ssd) },
	{ s_pays15, ARRAY_SIZE(s_pays15) }, { s_pays3, ARRAY_SIZE(s_pays3) },
};
enum { ONE, THREE, TWO, SSD, PAYS15, PAYS3 };

#define READ_ST(...) { .phase = BP_PHASE_READ, __VA_ARGS__ }
/* the misses rule free to act: read boots enough since the last relayout, nothing after it */
#define RULE_ST .reads_since_relayout = 9, .boots = 12, .relayout_boots = { 2 }
#define END(...) { .event = BP_OBS_END, .now = T0 + 100, .hit_pct = 99, __VA_ARGS__ }
#define END_HIT(h, ...) { .event = BP_OBS_END, .now = T0 + 100, .hit_pct = (h), __VA_ARGS__ }
/* a read boot's misses: requests, pack ranges, misses, the journal's misses */
#define MISSES(r, p, m, j) .have_misses = 1, .read_runs = (r), .pack_runs = (p), \
	.miss_runs = (m), .journal_runs = (j)

static const struct row rows[] = {
	/* ---- traced ---- */
	{ "traced: the relayout is next", { .phase = BP_PHASE_TRACE, .attempts = 2 },
	  { .event = BP_OBS_TRACED }, 0, BP_PHASE_RELAYOUT, BP_ACT_RELAYOUT,
	  .attempts = X(0), .reason = "boot traced" },
	{ "traced: the system's first boot is traced again", { .phase = BP_PHASE_TRACE },
	  { .event = BP_OBS_TRACED, .first_boot = 1 }, 0, BP_PHASE_TRACE, BP_ACT_SET_ASIDE,
	  .reason = "the traced boot was the system's first" },

	/* ---- the initramfs relayout's outcome ---- */
	{ "relayout done: read, counters reset", { .phase = BP_PHASE_RELAYOUT, .attempts = 1,
	  .low_hits = 1, .high_misses = 1, .pack_runs0 = 40 },
	  { .event = BP_OBS_RELAYOUT, .relayout_status = "done in 3 s" }, 0, BP_PHASE_READ,
	  BP_ACT_TAKE_PACK, X(0), X(0), X(0), X(0), "relaid out at boot" },
	{ "relayout done taken in any phase", READ_ST(.pack_runs0 = 40),
	  { .event = BP_OBS_RELAYOUT, .relayout_status = "done in 3 s" }, 0, BP_PHASE_READ,
	  BP_ACT_TAKE_PACK, .runs0 = X(0), .reason = "relaid out at boot" },
	{ "relayout skipped: one attempt more", { .phase = BP_PHASE_RELAYOUT },
	  { .event = BP_OBS_RELAYOUT, .relayout_status = "skipped no room" }, 0,
	  BP_PHASE_RELAYOUT, 0, .attempts = X(1), .reason = "skipped no room" },
	{ "relayout not tried: an attempt, rebuild the initramfs", { .phase = BP_PHASE_RELAYOUT,
	  .attempts = 1 }, { .event = BP_OBS_RELAYOUT }, 0, BP_PHASE_RELAYOUT, 0,
	  .attempts = X(2), .reason = "skipped the initramfs did not try" },
	{ "relayout failed 3 times: off", { .phase = BP_PHASE_RELAYOUT, .attempts = 2 },
	  { .event = BP_OBS_RELAYOUT, .relayout_status = "failed e2fsck" }, 0, BP_PHASE_OFF,
	  0, .attempts = X(3), .reason = "relayout did not complete on 3 boots, last: failed" },
	{ "no relayout due, none done: nothing", READ_ST(.attempts = 0),
	  { .event = BP_OBS_RELAYOUT }, 0, BP_PHASE_READ, 0, .attempts = X(0) },
	{ "a failed status out of the relayout phase: no attempt", READ_ST(.attempts = 0),
	  { .event = BP_OBS_RELAYOUT, .relayout_status = "failed" }, 0, BP_PHASE_READ, 0,
	  .attempts = X(0) },

	/* ---- packages (staleness) ---- */
	{ "packages changed the pack's files: a new trace", READ_ST(.low_hits = 1),
	  { .event = BP_OBS_PACKAGES, .changed_files = 2, .first_changed = "/usr/lib/x/a" }, 0,
	  BP_PHASE_TRACE, BP_ACT_TRACE, .low = X(0),
	  .reason = "stale: packages changed 2 file(s) of the pack, e.g. /usr/lib/x/a" },
	{ "packages and an unusable pack: a new trace", READ_ST(),
	  { .event = BP_OBS_PACKAGES, .pack_unusable = 1, .pack_why = "bad magic" }, 0,
	  BP_PHASE_TRACE, BP_ACT_TRACE,
	  .reason = "packages changed and the pack is unusable (bad magic)" },
	{ "packages changed none of the pack: nothing", READ_ST(),
	  { .event = BP_OBS_PACKAGES }, 0, BP_PHASE_READ, 0 },
	{ "packages out of the read phase: nothing", { .phase = BP_PHASE_RELAYOUT },
	  { .event = BP_OBS_PACKAGES, .changed_files = 2 }, 0, BP_PHASE_RELAYOUT, 0 },

	/* ---- the end of a boot: hit rate ---- */
	{ "end out of the read phase: nothing", { .phase = BP_PHASE_TRACE },
	  END_HIT(10, MISSES(100, 10, 50, 0)), ONE, BP_PHASE_TRACE, 0 },
	{ "a low hit rate once: counted", READ_ST(), END_HIT(49), ONE, BP_PHASE_READ, 0,
	  .low = X(1) },
	{ "a low hit rate twice: stale, a new trace, no refresh", READ_ST(.low_hits = 1),
	  END_HIT(40, MISSES(100, 10, 0, 0)), ONE, BP_PHASE_TRACE, BP_ACT_TRACE,
	  .low = X(0), .reason = "stale: hit rate 40% under 50% on 2 boots" },
	{ "a good hit rate resets the count", READ_ST(.low_hits = 1), END_HIT(50), ONE,
	  BP_PHASE_READ, 0, .low = X(0) },
	{ "a control boot's hit rate says nothing", READ_ST(.low_hits = 1),
	  END_HIT(10, .control = 1), ONE, BP_PHASE_READ, 0, .low = X(1) },

	/* ---- the control boots' verdict ---- */
	{ "verdict: does not pay, off, no refresh", READ_ST(),
	  END(MISSES(100, 10, 50, 0)), SSD, BP_PHASE_OFF, BP_ACT_OFF,
	  .reason = "readahead does not pay on this disk: boots read from the pack 12.8 s" },
	{ "undecided, 3 read boots since a control boot: a control boot", READ_ST(), END(),
	  THREE, BP_PHASE_READ, BP_ACT_CONTROL },
	{ "undecided, 2 read boots since: no control boot", READ_ST(), END(), TWO,
	  BP_PHASE_READ, 0 },
	{ "pays, 15 read boots since: a control boot in 16", READ_ST(), END(), PAYS15,
	  BP_PHASE_READ, BP_ACT_CONTROL },
	{ "pays, 3 read boots since: none", READ_ST(), END(), PAYS3, BP_PHASE_READ, 0 },

	/* ---- the misses rule ---- */
	{ "no reads recorded: no refresh, no rule", READ_ST(.high_misses = 1), END(), ONE,
	  BP_PHASE_READ, 0, .high = X(1) },
	{ "the first read boot after the relayout: its pack ranges the base", READ_ST(),
	  END(MISSES(100, 90, 2, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(0),
	  .runs0 = X(90) },
	{ "16 misses over a tenth: counted", READ_ST(RULE_ST, .pack_runs0 = 84),
	  END(MISSES(100, 84, 16, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "16 misses over a tenth twice: a relayout",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 84), END(MISSES(100, 84, 16, 0)), ONE,
	  BP_PHASE_RELAYOUT, BP_ACT_REFRESH | BP_ACT_RELAYOUT, .high = X(0), .attempts = X(0),
	  .reason = "misses: 16 of 100 read requests outside the pack (and 0 ranges" },
	{ "a tenth exactly is not over it: the count held (hysteresis)",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 180), END(MISSES(200, 180, 20, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "under half the thresholds: the count reset (hysteresis)",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 180), END(MISSES(200, 180, 10, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(0) },
	{ "under 8 misses: the count reset (hysteresis)",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 35), END(MISSES(42, 35, 7, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(0) },
	{ "real: check-loop's boot 2, 13 misses of 48 requests (under 16): no relayout",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 35), END(MISSES(48, 35, 13, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "real: check-loop's boot 2 and 10 gained ranges: 13 misses are under 16",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 35), END(MISSES(58, 45, 13, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "real: check-loop's 14 journal misses a boot are not counted",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 35), END(MISSES(62, 35, 27, 14)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "a control boot: merged, its misses say nothing",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 35),
	  END(.control = 1, MISSES(100, 35, 65, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH,
	  .high = X(1) },
	{ "real (read-boot-scattered): 24 misses on the first boot after a relayout: the penalty",
	  READ_ST(), END(MISSES(33, 9, 24, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(0),
	  .runs0 = X(9), .penalty = X(24) },
	{ "real (read-boot-scattered): no miss, 26 ranges gained: no relayout",
	  READ_ST(.high_misses = 1, .pack_runs0 = 9, .reads_since_relayout = 1, .penalty = 24),
	  END(MISSES(35, 35, 0, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(0) },

	/* ---- convergence (issue 39) ---- */
	{ "real: issue 39's boot 6, 22 of 225 and 54 ranges gained: no relayout",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 149), END(MISSES(225, 203, 22, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "real: issue 39's boot 8, 21 of 300 and 121 ranges gained: no relayout",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 158), END(MISSES(300, 279, 21, 0)), ONE,
	  BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "not predicted to pay: 40 outside, 30 after a relayout, margin 16",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 60, .penalty = 30),
	  END(MISSES(100, 60, 40, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "not predicted to pay: 35 outside, 10 after, the margin a tenth of 300",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 265, .penalty = 10),
	  END(MISSES(300, 265, 35, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(1) },
	{ "predicted to pay: 40 outside, 24 after a relayout",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 60, .penalty = 24),
	  END(MISSES(100, 60, 40, 0)), ONE, BP_PHASE_RELAYOUT, BP_ACT_REFRESH | BP_ACT_RELAYOUT,
	  .reason = "misses: 40 of 100" },
	{ "the gained ranges count where a relayout is weighed",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 50, .penalty = 30),
	  END(MISSES(100, 60, 40, 0)), ONE, BP_PHASE_RELAYOUT, BP_ACT_REFRESH | BP_ACT_RELAYOUT,
	  .reason = "misses: 40 of 100 read requests outside the pack (and 10 ranges" },
	{ "3 read boots since the last relayout: not yet, the count kept",
	  READ_ST(.reads_since_relayout = 2, .high_misses = 1, .pack_runs0 = 84),
	  END(MISSES(100, 84, 16, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .high = X(2) },
	{ "4 read boots since the last relayout: a relayout",
	  READ_ST(.reads_since_relayout = 3, .high_misses = 2, .pack_runs0 = 84),
	  END(MISSES(100, 84, 16, 0)), ONE, BP_PHASE_RELAYOUT, BP_ACT_REFRESH | BP_ACT_RELAYOUT,
	  .reason = "misses: 16" },
	{ "2 relayouts in the last 30 boots (boot 31): no third",
	  READ_ST(.reads_since_relayout = 9, .high_misses = 1, .pack_runs0 = 84, .boots = 30,
		  .relayout_boots = { 15, 2 }), END(MISSES(100, 84, 16, 0)), ONE, BP_PHASE_READ,
	  BP_ACT_REFRESH, .high = X(2) },
	{ "boot 32: the relayout of boot 2 is 30 boots old, a relayout",
	  READ_ST(.reads_since_relayout = 9, .high_misses = 1, .pack_runs0 = 84, .boots = 31,
		  .relayout_boots = { 15, 2 }), END(MISSES(100, 84, 16, 0)), ONE,
	  BP_PHASE_RELAYOUT, BP_ACT_REFRESH | BP_ACT_RELAYOUT, .reason = "misses: 16" },
	{ "real: issue 39's boot 7, 101 after a relayout at 76: the rule stops",
	  READ_ST(.rule_relayout = 1, .outside_before = 76, .after_n = 1, .after_min = 101,
		  .reads_since_relayout = 1, .penalty = 101, .pack_runs0 = 150, .boots = 8,
		  .relayout_boots = { 7, 2 }), END(MISSES(300, 150, 90, 0)), ONE, BP_PHASE_READ,
	  BP_ACT_REFRESH, .rule_off = X(1) },
	{ "a relayout that reduced the requests outside: the rule stays",
	  READ_ST(.rule_relayout = 1, .outside_before = 76, .after_n = 1, .after_min = 101,
		  .reads_since_relayout = 1, .penalty = 101, .pack_runs0 = 150),
	  END(MISSES(300, 150, 30, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .rule_off = X(0) },
	{ "the rule stopped: no relayout",
	  READ_ST(RULE_ST, .rule_off = 1, .high_misses = 1, .pack_runs0 = 84),
	  END(MISSES(100, 84, 16, 0)), ONE, BP_PHASE_READ, BP_ACT_REFRESH, .rule_off = X(1) },
	{ "a new trace: the rule on again", { .phase = BP_PHASE_TRACE, .rule_off = 1,
	  .rule_relayout = 1 }, { .event = BP_OBS_TRACED }, 0, BP_PHASE_RELAYOUT, BP_ACT_RELAYOUT,
	  .reason = "boot traced", .rule_off = X(0) },
	{ "the rule's relayout done: the verdict's samples kept",
	  { .phase = BP_PHASE_RELAYOUT, .rule_relayout = 1, .verdict_time = T0 },
	  { .event = BP_OBS_RELAYOUT, .now = T0 + 50, .relayout_status = "done" }, 0,
	  BP_PHASE_READ, BP_ACT_TAKE_PACK, .reason = "relaid out", .vtime = X(T0) },
	{ "a new trace's relayout done: the verdict starts again",
	  { .phase = BP_PHASE_RELAYOUT, .verdict_time = T0 },
	  { .event = BP_OBS_RELAYOUT, .now = T0 + 50, .relayout_status = "done" }, 0,
	  BP_PHASE_READ, BP_ACT_TAKE_PACK, .reason = "relaid out", .vtime = X(T0 + 50) },
	{ "a relayout scheduled: no control boot next",
	  READ_ST(RULE_ST, .high_misses = 1, .pack_runs0 = 84), END(MISSES(100, 84, 16, 0)), THREE,
	  BP_PHASE_RELAYOUT, BP_ACT_REFRESH | BP_ACT_RELAYOUT, .reason = "misses: 16" },
};

static int check_row(const struct row *r)
{
	struct bp_loop_state next;
	struct bp_loop_actions a;
	struct bp_loop_obs ob = r->ob;
	int bad = 0;

	if (ob.event == BP_OBS_END) {
		ob.samples = sample_sets[r->samples].v;
		ob.nsamples = sample_sets[r->samples].n;
	}
	bp_loop_policy(&r->st, &ob, &next, &a);
	bad |= next.phase != r->phase;
	bad |= a.mask != r->mask;
	bad |= r->high && next.high_misses != r->high - 1;
	bad |= r->low && next.low_hits != r->low - 1;
	bad |= r->attempts && next.attempts != r->attempts - 1;
	bad |= r->runs0 && next.pack_runs0 != (uint64_t)(r->runs0 - 1);
	bad |= r->rule_off && next.rule_off != r->rule_off - 1;
	bad |= r->vtime && next.verdict_time != r->vtime - 1;
	bad |= r->penalty && next.penalty != (uint64_t)(r->penalty - 1);
	if (r->reason)
		bad |= strncmp(next.reason, r->reason, strlen(r->reason)) != 0;
	else
		bad |= strcmp(next.reason, r->st.reason) != 0;
	if (bad) {
		char an[128];

		bp_loop_actions_name(a.mask, an, sizeof(an));
		fprintf(stderr, "row \"%s\": phase %d, actions %s, high %u, low %u, attempts %u, "
			"runs0 %llu, rule_off %u, reason \"%s\"\n", r->name, (int)next.phase, an,
			next.high_misses, next.low_hits, next.attempts,
			(unsigned long long)next.pack_runs0, next.rule_off, next.reason);
	}
	return !bad;
}

/*
 * Issue 39's table replayed, boots 1..12: a Debian 12 system on a fast disk
 * whose loop relaid out four times in eight boots. Its boots' figures (the
 * misses outside the journal, the ranges gained since the relayout, the
 * boot's requests) where the issue gives them, the others between; a
 * relayout of the misses rule is followed by the issue's boot 7 (101
 * misses, the directories it moved). Read boots take 29,445 ms (the
 * issue's "read boots 29445 ms"), control boots control_ms.
 */
struct fig {
	uint64_t missed, grown, requests;
};

static const struct fig issue39[13] = {
	[2] = { 28, 0, 180 }, [3] = { 39, 8, 200 }, [4] = { 19, 12, 190 },
	[5] = { 45, 30, 240 }, [6] = { 22, 54, 225 }, [7] = { 21, 80, 260 },
	[8] = { 21, 121, 300 }, [9] = { 21, 121, 300 }, [10] = { 21, 125, 305 },
	[11] = { 21, 125, 305 }, [12] = { 21, 125, 305 },
};
static const struct fig after_rule_relayout = { 101, 0, 300 };
/* misses that stay after a relayout that left 10: 45 of 240 a boot (issue 39's boot 5) */
static const struct fig high[13] = {
	[2] = { 10, 0, 240 }, [3] = { 45, 10, 240 }, [4] = { 45, 10, 240 }, [5] = { 45, 10, 240 },
	[6] = { 45, 10, 240 }, [7] = { 45, 10, 240 }, [8] = { 45, 10, 240 }, [9] = { 45, 10, 240 },
	[10] = { 45, 10, 240 }, [11] = { 45, 10, 240 }, [12] = { 45, 10, 240 },
};

#define PACK_BASE 150

/* Boot the table to boot 12: the relayouts after the first, the boot the verdict came (0: none). */
static void replay(const char *name, const struct fig *figs, uint64_t control_ms,
		   unsigned int *relayouts, unsigned int *verdict_boot, int *pays)
{
	struct bp_loop_sample v[64], w[BP_LOOP_JUDGE_WINDOW];
	struct bp_loop_state st = { 0 };
	struct bp_loop_actions a;
	struct bp_loop_verdict j;
	struct bp_loop_obs ob;
	unsigned int k, control = 0, rule = 0;
	size_t n = 0, nw, i;

	*relayouts = 0;
	*verdict_boot = 0;
	*pays = 0;
	bp_loop_policy_setup(&st, T0);
	memset(&ob, 0, sizeof(ob));
	ob.event = BP_OBS_TRACED;
	ob.now = T0 + 600;
	bp_loop_policy(&st, &ob, &st, &a);
	printf("%s:\n  boot  1 traced; next %s\n", name, bp_phase_name(st.phase));
	for (k = 2; k <= 12 && st.phase != BP_PHASE_OFF; k++) {
		const struct fig *f = &figs[k];
		int relaid = st.phase == BP_PHASE_RELAYOUT;
		char an[128];

		if (relaid) {
			memset(&ob, 0, sizeof(ob));
			ob.event = BP_OBS_RELAYOUT;
			ob.now = T0 + 600 * k;
			snprintf(ob.relayout_status, sizeof(ob.relayout_status), "done in 40 s");
			bp_loop_policy(&st, &ob, &st, &a);
			if (rule)
				f = &after_rule_relayout;
		}
		memset(&ob, 0, sizeof(ob));
		ob.event = BP_OBS_END;
		ob.now = T0 + 600 * k + 60;
		ob.control = control;
		ob.relaid = relaid;
		ob.hit_pct = 99;
		ob.boot_ms = relaid ? 0 : control ? control_ms : 29445;
		v[n++] = (struct bp_loop_sample){ .when = ob.now, .read = !control,
						  .boot_ms = ob.boot_ms, .hit_pct = 99 };
		/* the verdict's samples, as bp_loop_pack_samples() reads them */
		for (i = 0, nw = 0; i < n; i++) {
			if (v[i].when < (st.verdict_time ? st.verdict_time : st.relayout_time))
				continue;
			if (nw == BP_LOOP_JUDGE_WINDOW) {
				memmove(w, w + 1, (BP_LOOP_JUDGE_WINDOW - 1) * sizeof(*w));
				nw--;
			}
			w[nw++] = v[i];
		}
		ob.samples = w;
		ob.nsamples = nw;
		ob.have_misses = 1;
		ob.read_runs = f->requests;
		ob.miss_runs = f->missed;
		ob.pack_runs = PACK_BASE + (relaid ? 0 : f->grown);
		bp_loop_policy(&st, &ob, &st, &a);
		control = !!(a.mask & BP_ACT_CONTROL);
		if (a.mask & BP_ACT_RELAYOUT) {
			rule = 1;
			++*relayouts;
		}
		bp_loop_judge(w, nw, &j);
		if (j.decided && !*verdict_boot) {
			*verdict_boot = k;
			*pays = j.pays;
		}
		bp_loop_actions_name(a.mask, an, sizeof(an));
		printf("  boot %2u %-8s outside %3llu of %3llu, gained %3llu; %s; next %s%s\n", k,
		       relaid ? "relaid" : ob.control ? "control" : "read",
		       (unsigned long long)a.outside, (unsigned long long)f->requests,
		       (unsigned long long)a.grown, an, bp_phase_name(st.phase),
		       st.rule_off ? " (the misses rule off)" : "");
	}
}

/*
 * check-loop's run (tests/loop/README.md), boots 1-4, through the policy: the
 * decisions the loop took on its real boots before the policy existed.
 */
static int check_loop_run(void)
{
	static const struct bp_loop_sample v[] = { S(T0 + 1300, 1, 0), S(T0 + 1900, 1, 74000) };
	struct bp_loop_state st = { 0 };
	struct bp_loop_actions a;
	struct bp_loop_obs ob = { .event = BP_OBS_TRACED, .now = T0 + 600 };
	int ok = 1;

	bp_loop_policy_setup(&st, T0);
	bp_loop_policy(&st, &ob, &st, &a);
	ok &= st.phase == BP_PHASE_RELAYOUT && a.mask == BP_ACT_RELAYOUT;
	/* boot 2: relaid out in the initramfs, read the new pack; 13 misses of 48 */
	ob = (struct bp_loop_obs){ .event = BP_OBS_RELAYOUT, .now = T0 + 1200,
				   .relayout_status = "done in 4 s" };
	bp_loop_policy(&st, &ob, &st, &a);
	ok &= st.phase == BP_PHASE_READ && a.mask == BP_ACT_TAKE_PACK;
	ob = (struct bp_loop_obs){ .event = BP_OBS_END, .now = T0 + 1300, .hit_pct = 99,
				   .relaid = 1, .samples = v, .nsamples = 1,
				   MISSES(48, 35, 13, 0) };
	bp_loop_policy(&st, &ob, &st, &a);
	ok &= st.phase == BP_PHASE_READ && a.mask == BP_ACT_REFRESH && st.nhistory == 2;
	/* boot 3: read; then apt-get install --reinstall of libkmod2 */
	ob = (struct bp_loop_obs){ .event = BP_OBS_END, .now = T0 + 1900, .hit_pct = 99,
				   .boot_ms = 74000, .samples = v, .nsamples = 2,
				   MISSES(40, 35, 5, 0) };
	bp_loop_policy(&st, &ob, &st, &a);
	ok &= st.phase == BP_PHASE_READ && a.mask == BP_ACT_REFRESH;
	ob = (struct bp_loop_obs){ .event = BP_OBS_PACKAGES, .now = T0 + 2000, .changed_files = 3,
				   .first_changed = "/usr/lib/x86_64-linux-gnu/libkmod.so.2.4.0" };
	bp_loop_policy(&st, &ob, &st, &a);
	ok &= st.phase == BP_PHASE_TRACE && a.mask == BP_ACT_TRACE &&
	      !strcmp(st.reason, "stale: packages changed 3 file(s) of the pack, e.g. "
		      "/usr/lib/x86_64-linux-gnu/libkmod.so.2.4.0");
	/* boot 4: traced again, a new relayout */
	ob = (struct bp_loop_obs){ .event = BP_OBS_TRACED, .now = T0 + 2600 };
	bp_loop_policy(&st, &ob, &st, &a);
	ok &= st.phase == BP_PHASE_RELAYOUT && a.mask == BP_ACT_RELAYOUT && st.boots == 4 &&
	      st.nhistory == 4 && st.history[3].kind == BP_BOOT_TRACED &&
	      st.history[1].kind == BP_BOOT_RELAID && st.history[1].outside == 13;
	return ok;
}

int main(void)
{
	unsigned int relayouts, verdict_boot;
	int pays;
	struct bp_loop_state st = { 0 };
	size_t i;

	bp_loop_policy_setup(&st, T0);
	CHECK(st.phase == BP_PHASE_TRACE && st.setup_time == T0 && st.phase_time == T0 &&
	      !strcmp(st.reason, "setup"));
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		CHECK(check_row(&rows[i]));
	printf("%zu rows\n", ARRAY_SIZE(rows));
	CHECK(check_loop_run());

	/* issue 39 on its fast disk: readahead does not pay there */
	replay("issue 39, fast disk", issue39, 29100, &relayouts, &verdict_boot, &pays);
	printf("  %u relayout(s) after the first, verdict at boot %u (%s)\n", relayouts,
	       verdict_boot, pays ? "pays" : "does not pay");
	CHECK(relayouts <= 1 && verdict_boot && verdict_boot <= 12 && !pays);
	/* ... and where it pays: the loop goes on */
	replay("issue 39, slow disk", issue39, 60000, &relayouts, &verdict_boot, &pays);
	printf("  %u relayout(s) after the first, verdict at boot %u (%s)\n", relayouts,
	       verdict_boot, pays ? "pays" : "does not pay");
	CHECK(relayouts <= 1 && verdict_boot && verdict_boot <= 12 && pays);
	/* misses that stay: one relayout of the rule, the verdict across it */
	replay("45 misses every boot, slow disk", high, 60000, &relayouts, &verdict_boot, &pays);
	printf("  %u relayout(s) after the first, verdict at boot %u (%s)\n", relayouts,
	       verdict_boot, pays ? "pays" : "does not pay");
	CHECK(relayouts == 1 && verdict_boot && verdict_boot <= 12 && pays);
	return unit_exit();
}
