/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h --- the loop's rules: the state and one boot's observation in,
 * the new state and the actions out
 *
 * bp_loop_policy() is the one place that decides what the loop does next:
 * it does no I/O (no file, no clock, no printing), so that every rule is a
 * row of loop/test-policy.c. The drivers (events.c for the events,
 * readboot.c for the end of a boot) gather the observation, load the state
 * once, call bp_loop_apply() (the policy, then its actions, then the one
 * save of the state) and carry out the pack's refresh.
 */
#ifndef BP_LOOP_POLICY_H
#define BP_LOOP_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "loop.h"

enum bp_obs_event {
	BP_OBS_TRACED,		/* boot 1's trace was saved */
	BP_OBS_RELAYOUT,	/* root mounted: what the initramfs relayout left (or did not) */
	BP_OBS_PACKAGES,	/* dpkg ran: the pack's files were checked */
	BP_OBS_END,		/* the end of a boot in the read phase (read or control boot) */
};

struct bp_loop_obs {
	enum bp_obs_event event;
	time_t now;

	/* BP_OBS_TRACED */
	int first_boot;			/* the system's first boot (systemd's ConditionFirstBoot) */

	/* BP_OBS_RELAYOUT: the first line of relayout.status; "" when there was none */
	char relayout_status[256];

	/* BP_OBS_PACKAGES (staleness) */
	int pack_unusable;		/* the pack does not load: why says why */
	char pack_why[128];
	unsigned int changed_files;	/* files of the pack that changed */
	char first_changed[256];

	/* BP_OBS_END: the reader's outcome, the boot's time, the control boots */
	int control;			/* a control boot: the reader skipped itself */
	unsigned int hit_pct;		/* of the pack's bytes, resident at the end */
	uint64_t boot_ms;		/* to default.target, 0: unknown (or the relaid-out boot) */
	int relaid;			/* this boot relaid the root out in the initramfs */
	const struct bp_loop_sample *samples;	/* the verdict's samples, this boot's last */
	size_t nsamples;
	/* ... and its misses (misses.h), when the boot's reads were recorded */
	int have_misses;
	uint64_t read_runs;		/* the boot's requests */
	uint64_t pack_runs;		/* the pack's ranges (in pages) among them */
	uint64_t miss_runs;		/* the misses' requests, the journal's included */
	uint64_t journal_runs;		/* the misses' requests in the journal */
};

enum bp_loop_act {
	BP_ACT_TRACE = 1u << 0,		/* the next boot is traced (kernel args; no control boot) */
	BP_ACT_RELAYOUT = 1u << 1,	/* the next boot relays out (no kernel args) */
	BP_ACT_REFRESH = 1u << 2,	/* merge the boot's reads, rewrite the pack */
	BP_ACT_CONTROL = 1u << 3,	/* the next boot is a control boot */
	BP_ACT_OFF = 1u << 4,		/* turned off: the pack set aside (pack.off), no control boot */
	BP_ACT_TAKE_PACK = 1u << 5,	/* install the relayout's pack; its samples start */
	BP_ACT_SET_ASIDE = 1u << 6,	/* keep the trace aside (trace.first-boot) */
};

struct bp_loop_actions {
	unsigned int mask;		/* enum bp_loop_act */
	char log[512];			/* a line for loop.log, "" for none */
	/* what the misses rule saw (status --sample prints them) */
	uint64_t outside, grown;	/* requests outside the region; the pack's gained ranges */
};

/* The state of a new setup: boot 1 is traced. */
void bp_loop_policy_setup(struct bp_loop_state *st, time_t now);

/* The rules: next from st and ob (next may be st), and what to do. No I/O. */
void bp_loop_policy(const struct bp_loop_state *st, const struct bp_loop_obs *ob,
		    struct bp_loop_state *next, struct bp_loop_actions *a);

/* The names of a's actions, "+"-separated ("none"), into buf. */
void bp_loop_actions_name(unsigned int mask, char *buf, size_t len);

/*
 * Drivers (events.c): the policy on st and ob, its actions but the refresh
 * carried out, and the state saved once (when it changed); *st becomes the
 * new state. The caller refreshes the pack when a->mask has BP_ACT_REFRESH.
 */
errcode_t bp_loop_apply(const struct bp_setup_opts *o, struct bp_loop_state *st,
			const struct bp_loop_obs *ob, struct bp_loop_actions *a,
			struct bp_err *err);

#endif /* BP_LOOP_POLICY_H */
