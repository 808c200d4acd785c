// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state.c --- the loop's state file: "key=value" lines, replaced atomically
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "outfile.h"

static const char *const phase_names[] = {
	[BP_PHASE_NONE] = "none",
	[BP_PHASE_TRACE] = "trace",
	[BP_PHASE_RELAYOUT] = "relayout",
	[BP_PHASE_READ] = "read",
	[BP_PHASE_OFF] = "off",
};

const char *bp_reader_at_name(enum bp_reader_at r)
{
	return r == BP_READER_AT_INITRAMFS ? "initramfs" : "service";
}

static const char *const boot_kind_names[] = {
	[BP_BOOT_TRACED] = "traced",
	[BP_BOOT_FIRST] = "traced-first-boot",
	[BP_BOOT_RELAID] = "relaid",
	[BP_BOOT_RELAYOUT_FAILED] = "relayout-failed",
	[BP_BOOT_READ] = "read",
	[BP_BOOT_CONTROL] = "control",
};

const char *bp_boot_kind_name(enum bp_boot_kind k)
{
	if ((unsigned int)k >= ARRAY_SIZE(boot_kind_names) || !boot_kind_names[k])
		return "unknown";
	return boot_kind_names[k];
}

/* "boot,when,kind,outside,grown,requests,boot_ms,hit,next" (a damaged line is dropped) */
static void history_parse(struct bp_loop_state *st, const char *v)
{
	struct bp_loop_boot b = { 0 };
	char kind[32], next[16];
	long long when;
	unsigned int i;

	if (sscanf(v, "%u,%lld,%31[^,],%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%u,%15s",
		   &b.boot, &when, kind, &b.outside, &b.grown, &b.requests, &b.boot_ms,
		   &b.hit_pct, next) != 9)
		return;
	for (i = 1; i < ARRAY_SIZE(boot_kind_names); i++)
		if (!strcmp(kind, boot_kind_names[i]))
			b.kind = (enum bp_boot_kind)i;
	if (!b.kind)
		return;
	b.when = (time_t)when;
	snprintf(b.next, sizeof(b.next), "%s", next);
	/* the last BP_LOOP_HISTORY lines */
	if (st->nhistory == BP_LOOP_HISTORY) {
		memmove(st->history, st->history + 1, (BP_LOOP_HISTORY - 1) * sizeof(b));
		st->nhistory--;
	}
	st->history[st->nhistory++] = b;
}

static void relayout_boots_parse(struct bp_loop_state *st, const char *v)
{
	unsigned int i;
	char *end;

	for (i = 0; i < BP_LOOP_RELAYOUT_CAP && *v; i++) {
		st->relayout_boots[i] = (unsigned int)strtoul(v, &end, 10);
		if (*end != ',')
			break;
		v = end + 1;
	}
}

const char *bp_phase_name(enum bp_phase p)
{
	if ((unsigned int)p >= ARRAY_SIZE(phase_names))
		return "unknown";
	return phase_names[p];
}

static enum bp_phase phase_parse(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(phase_names); i++)
		if (strcmp(s, phase_names[i]) == 0)
			return (enum bp_phase)i;
	return BP_PHASE_NONE;
}

void bp_loop_path(const char *root, const char *rel, char *buf, size_t len)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		n = 0;
	snprintf(buf, len, "%.*s%s", (int)n, root, rel);
}

static void copy_value(char *dst, size_t len, const char *v)
{
	snprintf(dst, len, "%s", v);
}

/* A time the state file holds: seconds since the epoch, or -1 if it is not one (damaged). */
static time_t time_parse(const char *v)
{
	char *end;
	long long t;

	errno = 0;
	t = strtoll(v, &end, 10);
	if (errno || end == v || *end || t < 0)
		return (time_t)-1;
	return (time_t)t;
}

errcode_t bp_loop_load(const char *root, struct bp_loop_state *st, struct bp_err *err)
{
	char path[PATH_MAX], line[2048];
	FILE *fp;

	memset(st, 0, sizeof(*st));
	bp_loop_path(root, BP_STATEDIR "/loop", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		char *eq = strchr(line, '='), *v;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(line, "phase"))
			st->phase = phase_parse(v);
		else if (!strcmp(line, "device"))
			copy_value(st->device, sizeof(st->device), v);
		else if (!strcmp(line, "cmdline"))
			copy_value(st->cmdline, sizeof(st->cmdline), v);
		else if (!strcmp(line, "reason"))
			copy_value(st->reason, sizeof(st->reason), v);
		else if (!strcmp(line, "setup_time"))
			st->setup_time = time_parse(v);
		else if (!strcmp(line, "phase_time"))
			st->phase_time = time_parse(v);
		else if (!strcmp(line, "relayout_time"))
			st->relayout_time = time_parse(v);
		else if (!strcmp(line, "attempts"))
			st->attempts = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "low_hits"))
			st->low_hits = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "high_misses"))
			st->high_misses = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "pack_runs0"))
			st->pack_runs0 = strtoull(v, NULL, 10);
		else if (!strcmp(line, "grub"))
			st->grub = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "boots"))
			st->boots = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "reads_since_relayout"))
			st->reads_since_relayout = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "relayout_boots"))
			relayout_boots_parse(st, v);
		else if (!strcmp(line, "rule_relayout"))
			st->rule_relayout = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "outside_before"))
			st->outside_before = strtoull(v, NULL, 10);
		else if (!strcmp(line, "after_n"))
			st->after_n = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "after_min"))
			st->after_min = strtoull(v, NULL, 10);
		else if (!strcmp(line, "penalty"))
			st->penalty = strtoull(v, NULL, 10);
		else if (!strcmp(line, "rule_off"))
			st->rule_off = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "rule_reason"))
			copy_value(st->rule_reason, sizeof(st->rule_reason), v);
		else if (!strcmp(line, "verdict_time"))
			st->verdict_time = time_parse(v);
		else if (!strcmp(line, "history"))
			history_parse(st, v);
		else if (!strcmp(line, "reader"))
			st->reader = !strcmp(v, "initramfs") ? BP_READER_AT_INITRAMFS :
				     BP_READER_AT_SERVICE;
	}
	fclose(fp);
	return 0;
}

static void state_fill(FILE *fp, const void *priv)
{
	const struct bp_loop_state *st = priv;
	unsigned int i;

	fprintf(fp, "# bootpack loop state; see bootpack-setup(8). Written by bootpack, not by hand.\n"
		"phase=%s\ndevice=%s\ncmdline=%s\nreason=%s\nsetup_time=%" PRId64
		"\nphase_time=%" PRId64 "\nrelayout_time=%" PRId64
		"\nattempts=%u\nlow_hits=%u\nhigh_misses=%u\npack_runs0=%" PRIu64
		"\ngrub=%u\nreader=%s\n",
		bp_phase_name(st->phase), st->device, st->cmdline, st->reason,
		(int64_t)st->setup_time, (int64_t)st->phase_time, (int64_t)st->relayout_time,
		st->attempts, st->low_hits, st->high_misses, st->pack_runs0, st->grub,
		bp_reader_at_name(st->reader));
	fprintf(fp, "boots=%u\nreads_since_relayout=%u\nrelayout_boots=", st->boots,
		st->reads_since_relayout);
	for (i = 0; i < BP_LOOP_RELAYOUT_CAP; i++)
		fprintf(fp, "%s%u", i ? "," : "", st->relayout_boots[i]);
	fprintf(fp, "\nrule_relayout=%u\noutside_before=%" PRIu64 "\nafter_n=%u\nafter_min=%"
		PRIu64 "\npenalty=%" PRIu64 "\nrule_off=%u\nrule_reason=%s\nverdict_time=%" PRId64
		"\n", st->rule_relayout, st->outside_before, st->after_n, st->after_min,
		st->penalty, st->rule_off, st->rule_reason, (int64_t)st->verdict_time);
	for (i = 0; i < st->nhistory && i < BP_LOOP_HISTORY; i++) {
		const struct bp_loop_boot *b = &st->history[i];

		fprintf(fp, "history=%u,%" PRId64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%u,%s\n", b->boot, (int64_t)b->when, bp_boot_kind_name(b->kind),
			b->outside, b->grown, b->requests, b->boot_ms, b->hit_pct,
			b->next[0] ? b->next : "-");
	}
}

errcode_t bp_loop_save(const char *root, const struct bp_loop_state *st, struct bp_err *err)
{
	char path[PATH_MAX];

	bp_loop_path(root, BP_STATEDIR "/loop", path, sizeof(path));
	return bp_statefile_write(path, state_fill, st, err);
}
