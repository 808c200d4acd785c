// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-status.c --- bootpack status: where the boot loop is, pack age, hit rate
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jsonwrt.h"
#include "log.h"
#include "loop.h"
#include "misses.h"
#include "pack-budget.h"
#include "pack-parse.h"
#include "policy.h"
#include "strutils.h"

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack status [options]\n"
	       "\n"
	       "Show the boot loop set up by bootpack setup: what the next boot does, the\n"
	       "pack's age, the last hit rate and whether the pack is stale.\n"
	       "\n"
	       "Options:\n"
	       " -r, --root <dir>    the system mounted at dir (an image, a chroot)\n"
	       "     --sample        sample the pack's hit rate now (end of boot), record it\n"
	       "     --boot-us <us>  with --sample: when the boot reached default.target\n"
	       "                       (microseconds since the kernel started; 0: unknown)\n"
	       "     --boot-trace <file>  with --sample: the boot's reads as a trace, instead of\n"
	       "                       the read boot's recorder\n"
	       "     --json          the status as one JSON object\n"
	       " -h, --help          display this help\n"
	       "\n"
	       "For more details see bootpack-setup(8).\n");
}

/* How long ago t was; a time that is not one, or in the future, is no age. */
static void age(time_t t, char *buf, size_t len)
{
	long long d = (long long)(time(NULL) - t);

	if (!t)
		snprintf(buf, len, "never");
	else if (t < 0)
		snprintf(buf, len, "unknown (damaged time)");
	else if (d < 0)
		snprintf(buf, len, "unknown (in the future: damaged, or the clock went back)");
	else if (d < 120)
		snprintf(buf, len, "%lld s ago", d);
	else if (d < 7200)
		snprintf(buf, len, "%lld min ago", d / 60);
	else if (d < 172800)
		snprintf(buf, len, "%lld h ago", d / 3600);
	else
		snprintf(buf, len, "%lld days ago", d / 86400);
}

/* The last read boot's misses, text. */
static void print_misses(const struct bp_misses *m)
{
	char when[64];
	unsigned int i;

	age(m->when, when, sizeof(when));
	printf("Misses:      %llu requests, %llu pages, %llu bytes read outside the pack (%s%s)\n",
	       (unsigned long long)m->miss_runs, (unsigned long long)m->miss_pages,
	       (unsigned long long)m->miss_bytes, when, m->control ? ", a control boot" : "");
	printf("Boot reads:  %u%% in the pack (%llu of %llu bytes, %llu requests in all, %llu "
	       "of them the pack's ranges)%s\n",
	       m->hit_pct, (unsigned long long)m->hit_bytes, (unsigned long long)m->read_bytes,
	       (unsigned long long)m->read_runs, (unsigned long long)m->pack_runs,
	       m->lost ? "; events were lost: more missed" : "");
	for (i = 0; i < BP_MK_NR; i++)
		if (m->kind[i].bytes)
			printf("  %-12s %llu bytes in %llu requests\n",
			       bp_mkind_name((enum bp_mkind)i), (unsigned long long)m->kind[i].bytes,
			       (unsigned long long)m->kind[i].runs);
	for (i = 0; i < m->nnames; i++)
		printf("  missed %-9s %llu bytes  %s\n", bp_mkind_name(m->names[i].kind),
		       (unsigned long long)m->names[i].bytes, m->names[i].path);
}

static void json_misses(struct bp_json *j, const struct bp_misses *m)
{
	unsigned int i;

	bp_json_open_object(j, "misses");
	bp_json_i64(j, "time", (int64_t)m->when);
	bp_json_bool(j, "control", m->control);
	bp_json_u64(j, "requests", m->miss_runs);
	bp_json_u64(j, "pages", m->miss_pages);
	bp_json_u64(j, "bytes", m->miss_bytes);
	bp_json_u64(j, "read_bytes", m->read_bytes);
	bp_json_u64(j, "read_requests", m->read_runs);
	bp_json_u64(j, "pack_requests", m->pack_runs);
	bp_json_u64(j, "hit_bytes", m->hit_bytes);
	bp_json_u64(j, "hit_pct", m->hit_pct);
	bp_json_u64(j, "events", m->events);
	bp_json_u64(j, "lost", m->lost);
	bp_json_open_object(j, "kinds");
	for (i = 0; i < BP_MK_NR; i++) {
		bp_json_open_object(j, bp_mkind_name((enum bp_mkind)i));
		bp_json_u64(j, "bytes", m->kind[i].bytes);
		bp_json_u64(j, "requests", m->kind[i].runs);
		bp_json_close_object(j);
	}
	bp_json_close_object(j);
	bp_json_open_array(j, "largest");
	for (i = 0; i < m->nnames; i++) {
		bp_json_open_object(j, NULL);
		bp_json_string(j, "kind", bp_mkind_name(m->names[i].kind));
		bp_json_u64(j, "bytes", m->names[i].bytes);
		bp_json_string(j, "path", m->names[i].path);
		bp_json_close_object(j);
	}
	bp_json_close_array(j);
	bp_json_close_object(j);
}

/* The loop's last boots (the state's history) and the misses rule, text. */
static void print_history(const struct bp_loop_state *st)
{
	unsigned int i;

	printf("Boots:       %u since setup; the misses rule %s%s\n", st->boots,
	       st->rule_off ? "stopped: " : "on", st->rule_off ? st->rule_reason : "");
	if (!st->nhistory)
		return;
	printf("History:     boot  did                outside  gained  requests  hit  "
	       "boot time  next\n");
	for (i = 0; i < st->nhistory; i++) {
		const struct bp_loop_boot *b = &st->history[i];
		char t[32] = "-", o[24] = "-", g[24] = "-", r[24] = "-";

		if (b->boot_ms)
			snprintf(t, sizeof(t), "%llu.%01llu s", (unsigned long long)b->boot_ms / 1000,
				 (unsigned long long)b->boot_ms % 1000 / 100);
		if (b->requests) {
			snprintf(o, sizeof(o), "%llu", (unsigned long long)b->outside);
			snprintf(g, sizeof(g), "%llu", (unsigned long long)b->grown);
			snprintf(r, sizeof(r), "%llu", (unsigned long long)b->requests);
		}
		printf("             %4u  %-17s  %7s  %6s  %8s  %3u%%  %9s  %s\n", b->boot,
		       bp_boot_kind_name(b->kind), o, g, r, b->hit_pct, t, b->next);
	}
}

static void json_history(struct bp_json *j, const struct bp_loop_state *st)
{
	unsigned int i;

	bp_json_u64(j, "boots", st->boots);
	bp_json_open_object(j, "misses_rule");
	bp_json_bool(j, "on", !st->rule_off);
	bp_json_string(j, "reason", st->rule_reason);
	bp_json_u64(j, "read_boots_since_relayout", st->reads_since_relayout);
	bp_json_u64(j, "penalty", st->penalty);
	bp_json_close_object(j);
	bp_json_open_array(j, "history");
	for (i = 0; i < st->nhistory; i++) {
		const struct bp_loop_boot *b = &st->history[i];

		bp_json_open_object(j, NULL);
		bp_json_u64(j, "boot", b->boot);
		bp_json_i64(j, "time", (int64_t)b->when);
		bp_json_string(j, "did", bp_boot_kind_name(b->kind));
		bp_json_u64(j, "outside", b->outside);
		bp_json_u64(j, "gained", b->grown);
		bp_json_u64(j, "requests", b->requests);
		bp_json_u64(j, "hit_pct", b->hit_pct);
		bp_json_u64(j, "boot_ms", b->boot_ms);
		bp_json_string(j, "next", b->next);
		bp_json_close_object(j);
	}
	bp_json_close_array(j);
}

/* The saved trace's header: its kernel, how it was taken, whether it has page accesses. */
struct trace_head {
	int found;
	char kernel[128], source[32];
	unsigned long long added, accessed;
};

static void trace_head(const char *root, struct trace_head *h)
{
	char path[PATH_MAX], line[512];
	unsigned int n;
	FILE *fp;

	memset(h, 0, sizeof(*h));
	bp_loop_path(root, BP_STATEDIR "/trace", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return;
	/* the header comes first and is a few lines: stop at the first record */
	for (n = 0; n < 32 && fgets(line, sizeof(line), fp); n++) {
		line[strcspn(line, "\n")] = '\0';
		if (n == 0 && strncmp(line, "bootpack-trace ", 15) != 0)
			break;
		if (!strncmp(line, "kernel ", 7))
			snprintf(h->kernel, sizeof(h->kernel), "%.127s", line + 7);
		else if (!strncmp(line, "source ", 7))
			snprintf(h->source, sizeof(h->source), "%.31s", line + 7);
		else if (sscanf(line, "events %llu %llu", &h->added, &h->accessed) == 2)
			h->found = 1;
		else if (line[0] == 'M' || line[0] == 'F' || !strncmp(line, "end ", 4))
			break;
	}
	fclose(fp);
}

static const char *trace_events_name(const struct trace_head *h)
{
	return h->accessed ? "add_to_page_cache+access" : "add_to_page_cache";
}

static int status_json(const char *root, const struct bp_loop_state *st)
{
	struct bp_err err = { 0 };
	struct bp_loop_sample s;
	struct bp_misses m;
	struct bp_pack *p = NULL;
	char path[PATH_MAX];
	const char *why = NULL;
	struct trace_head th;
	struct bp_json j;

	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_string(&j, "phase", bp_phase_name(st->phase));
	bp_json_string(&j, "reader", bp_reader_at_name(st->reader));
	bp_json_string(&j, "root", st->device);
	bp_json_string(&j, "reason", st->reason);
	bp_json_string(&j, "kernel_args", st->cmdline);
	trace_head(root, &th);
	if (th.found) {
		bp_json_open_object(&j, "trace");
		bp_json_string(&j, "kernel", th.kernel);
		bp_json_string(&j, "source", th.source);
		bp_json_string(&j, "events", trace_events_name(&th));
		bp_json_close_object(&j);
	} else {
		bp_json_null(&j, "trace");
	}
	bp_json_i64(&j, "setup_time", (int64_t)st->setup_time);
	bp_json_i64(&j, "relayout_time", (int64_t)st->relayout_time);
	bp_json_u64(&j, "high_misses", st->high_misses);
	bp_json_u64(&j, "pack_ranges_after_relayout", st->pack_runs0);
	json_history(&j, st);
	bp_loop_path(root, BP_STATEDIR "/pack", path, sizeof(path));
	if (bp_pack_load_file(path, BP_PACK_LOAD_ANY_OWNER, &p, &why) == 0) {
		const struct bp_pack_info *pi = bp_pack_info(p);

		bp_json_open_object(&j, "pack");
		bp_json_string(&j, "path", path);
		bp_json_i64(&j, "created", pi->created);
		bp_json_u64(&j, "bytes", pi->total_bytes);
		bp_json_u64(&j, "files", pi->nfiles);
		bp_json_u64(&j, "budget", pi->budget);
		bp_json_string(&j, "budget_bound", bp_budget_bound_name(BP_PACK_BUDGET_BOUND(pi)));
		bp_json_close_object(&j);
		bp_pack_free(p);
	} else {
		bp_json_null(&j, "pack");
	}
	if (bp_loop_last_sample(root, &s, &err) == 0) {
		bp_json_open_object(&j, "residency");
		bp_json_i64(&j, "time", (int64_t)s.when);
		bp_json_u64(&j, "hit_pct", s.hit_pct);
		bp_json_u64(&j, "resident", s.resident);
		bp_json_u64(&j, "packed", s.packed);
		bp_json_close_object(&j);
	} else {
		bp_json_null(&j, "residency");
	}
	if (bp_misses_load(root, &m, &err) == 0)
		json_misses(&j, &m);
	else
		bp_json_null(&j, "misses");
	bp_json_close_object(&j);
	bp_json_finish(&j);
	return BP_EX_OK;
}

static const char *next_boot(enum bp_phase p)
{
	switch (p) {
	case BP_PHASE_TRACE:
		return "traced (then the relayout is scheduled)";
	case BP_PHASE_RELAYOUT:
		return "relays the root out in the initramfs, then reads the new pack";
	case BP_PHASE_READ:
		return "read by bootpack-read from the pack";
	case BP_PHASE_OFF:
		return "a normal boot: the loop gave up (see reason)";
	default:
		return "a normal boot";
	}
}

int cmd_status(int argc, char **argv)
{
	enum { OPT_SAMPLE = OPT_COMMON_BASE, OPT_BOOT_US, OPT_BOOT_TRACE, OPT_JSON };
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "sample", no_argument, NULL, OPT_SAMPLE },
		{ "boot-us", required_argument, NULL, OPT_BOOT_US },
		{ "boot-trace", required_argument, NULL, OPT_BOOT_TRACE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bp_setup_opts o = { .root = "/", .buffer_kb = BP_SETUP_BUFFER_KB_DEFAULT };
	struct bp_loop_state st;
	struct trace_head th;
	struct bp_loop_sample s;
	struct bp_err err = { 0 };
	char path[PATH_MAX], when[64];
	struct bp_pack *p = NULL;
	const char *why = NULL;
	struct bp_loop_sample v[BP_LOOP_JUDGE_WINDOW];
	struct bp_loop_verdict j;
	struct bp_misses m;
	struct bp_boot_end be;
	const char *boot_trace = NULL;
	uint64_t boot_us = 0;
	int sample = 0, json = 0, ch, rc;
	size_t n;
	errcode_t ret;

	while ((ch = getopt_long(argc, argv, "r:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			o.root = optarg;
			break;
		case OPT_SAMPLE:
			sample = 1;
			break;
		case OPT_BOOT_US:
			/* empty: systemctl had no value (not booted with systemd) */
			if (*optarg && bp_parse_u64(optarg, &boot_us)) {
				bp_log_error("status: --boot-us: '%s' is not a number of "
					     "microseconds", optarg);
				return bp_errtryhelp("status");
			}
			break;
		case OPT_BOOT_TRACE:
			boot_trace = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
			usage();
			return BP_EX_OK;
		default:
			return bp_errtryhelp("status");
		}
	}
	if (optind != argc) {
		bp_log_error("status: unexpected argument '%s'", argv[optind]);
		return bp_errtryhelp("status");
	}
	if ((boot_trace || boot_us) && !sample) {
		bp_log_error("status: --boot-us and --boot-trace go with --sample");
		return bp_errtryhelp("status");
	}
	if (sample) {
		if (!boot_trace)
			bp_loop_record_stop(&o);	/* what follows is not the boot's */
		ret = bp_loop_boot_end(&o, boot_us / 1000, boot_trace, &m, &be, &err);
		if (ret == ENOENT)
			return BP_EX_OK;	/* not a read boot: nothing to sample */
		if (ret)
			return bp_fail(&err);
		s = be.sample;
		printf("hit rate %u%% (%llu of %llu packed bytes resident, %llu in %u changed "
		       "files)%s\n", s.hit_pct, (unsigned long long)s.resident,
		       (unsigned long long)s.packed, (unsigned long long)s.changed,
		       s.changed_files, be.actions & BP_ACT_TRACE ? "; a new trace is scheduled" : "");
		if (!s.read)
			printf("a control boot: the pack was not read\n");
		if (be.phase == BP_PHASE_OFF)
			printf("turned off: %s\n", be.reason);
		if (!be.have_misses)
			return BP_EX_OK;	/* no recorder ran */
		printf("misses %llu requests, %llu bytes outside the pack; %u%% of the boot's "
		       "reads in the pack\n", (unsigned long long)m.miss_runs,
		       (unsigned long long)m.miss_bytes, m.hit_pct);
		if (be.repacked)
			printf("pack rewritten from the merged trace: %llu bytes in %llu files\n",
			       (unsigned long long)be.pack_bytes, (unsigned long long)be.pack_files);
		if (be.pack_runs0)
			printf("pack ranges %llu, %llu after the relayout\n",
			       (unsigned long long)be.pack_runs, (unsigned long long)be.pack_runs0);
		if (be.actions & BP_ACT_RELAYOUT)
			printf("a relayout is scheduled for the next boot\n");
		return BP_EX_OK;
	}
	ret = bp_loop_load(o.root, &st, &err);
	if (ret == ENOENT) {
		printf("No boot loop set up (run 'bootpack setup').\n");
		return BP_EX_STALE;
	}
	if (ret)
		return bp_fail(&err);
	if (json)
		return status_json(o.root, &st);
	printf("Phase:       %s\n", bp_phase_name(st.phase));
	printf("Next boot:   %s\n", next_boot(st.phase));
	if (st.cmdline[0])
		printf("Kernel args: %s\n", st.cmdline);
	printf("Reader:      %s\n", st.reader == BP_READER_AT_INITRAMFS ?
	       "in the initramfs (its hook reads the pack before switch_root)" :
	       BP_SETUP_READER_UNIT);
	printf("Root:        %s\n", st.device);
	printf("Reason:      %s\n", st.reason[0] ? st.reason : "-");
	age(st.setup_time, when, sizeof(when));
	printf("Set up:      %s\n", when);
	age(st.relayout_time, when, sizeof(when));
	printf("Relayout:    %s\n", when);
	if (st.attempts)
		printf("Attempts:    %u relayout boot(s) did not complete\n", st.attempts);
	trace_head(o.root, &th);
	if (th.found)
		printf("Trace:       kernel %s, %s: %s\n", th.kernel, !strcmp(th.source, "merge") ?
		       "the traced boot merged with read boots" : "the traced boot",
		       th.accessed ? "page-cache insertions and page accesses "
		       "(mm_filemap_add_to_page_cache, _get_pages, _map_pages, _fault): what the "
		       "boot used" : "page-cache insertions only (mm_filemap_add_to_page_cache; "
		       "no page-access events before Linux 6.12): readahead nobody used is in it");
	else
		printf("Trace:       none yet\n");
	bp_loop_path(o.root, BP_STATEDIR "/pack", path, sizeof(path));
	rc = bp_pack_load_file(path, BP_PACK_LOAD_ANY_OWNER, &p, &why);
	if (rc == 0) {
		const struct bp_pack_info *pi = bp_pack_info(p);

		age((time_t)pi->created, when, sizeof(when));
		printf("Pack:        %s, written %s, %llu bytes in %u files\n", path, when,
		       (unsigned long long)pi->total_bytes, pi->nfiles);
		if (BP_PACK_BUDGET_BOUND(pi))
			printf("Budget:      %llu bytes, automatic, bound by %s\n",
			       (unsigned long long)pi->budget,
			       bp_budget_bound_name(BP_PACK_BUDGET_BOUND(pi)));
		else if (pi->budget)
			printf("Budget:      %llu bytes, given\n", (unsigned long long)pi->budget);
		else
			printf("Budget:      none\n");
		bp_pack_free(p);
	} else {
		printf("Pack:        %s: %s\n", path, rc == -ENOENT ? "none yet" :
		       why ? why : strerror(-rc));
	}
	if (bp_loop_last_sample(o.root, &s, &err) == 0) {
		age(s.when, when, sizeof(when));
		printf("Hit rate:    %u%% (sampled %s; %llu of %llu packed bytes resident at the "
		       "end of the boot)\n", s.hit_pct, when, (unsigned long long)s.resident,
		       (unsigned long long)s.packed);
	} else {
		printf("Hit rate:    not sampled yet\n");
	}
	if (bp_misses_load(o.root, &m, &err) == 0)
		print_misses(&m);
	else
		printf("Misses:      not recorded yet\n");
	bp_loop_path(o.root, BP_STATEDIR BP_LOOP_CONTROL_FILE, path, sizeof(path));
	if (bp_loop_pack_samples(o.root, &st, v, &n, &err) == 0) {
		bp_loop_judge(v, n, &j);
		if (st.phase == BP_PHASE_OFF && strncmp(st.reason, "readahead", 9) == 0)
			printf("Readahead:   off, it does not pay on this disk (see reason)\n");
		else if (!j.nread && !j.ncontrol)
			printf("Readahead:   no boot measured yet\n");
		else
			printf("Readahead:   %s: read boots %llu ms (median of %u), boots without "
			       "it %llu ms (median of %u)%s\n", !j.decided ? "not decided yet" :
			       j.pays ? "pays" : "does not pay", (unsigned long long)j.read_ms,
			       j.nread, (unsigned long long)j.control_ms, j.ncontrol,
			       access(path, F_OK) == 0 ? "; the next boot is a control boot" : "");
	}
	printf("Stale:       %s\n", st.phase == BP_PHASE_TRACE && st.reason[0] &&
	       strncmp(st.reason, "stale", 5) == 0 ? "yes, a new trace is scheduled" :
	       st.low_hits ? "maybe: the last hit rate was low" : "no");
	print_history(&st);
	return BP_EX_OK;
}
