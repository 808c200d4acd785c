// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-relayout.c --- bootpack relayout: command line, policy and report
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bp_et.h"
#include "cli.h"
#include "devspec.h"
#include "jsonwrt.h"
#include "log.h"
#include "outfile.h"
#include "progress.h"
#include "relayout.h"
#include "signals.h"
#include "strutils.h"
#include "repack.h"
#include "tracefile.h"

static volatile int canceled;

static void on_signal(int sig _unused_)
{
	canceled = 1;
}

static void catch_signals(void)
{
	bp_signals_catch(on_signal);
	/* A closed progress or output pipe must not kill a run mid-write: EPIPE instead. */
	signal(SIGPIPE, SIG_IGN);
	/* Past a file size limit a write fails (EFBIG) instead of killing the run. */
	signal(SIGXFSZ, SIG_IGN);
}

/*
 * Every file the run writes (undo file, pack) must be a usable output and
 * none of the files it reads or writes: checked before anything is opened
 * for writing (include/outfile.h). Returns 0 or the exit code.
 */
static int check_paths(const char *device, const char *trace, const char *undo,
		       const char *pack)
{
	const struct bp_path_ref ins[] = {
		{ "device", device },
		{ "trace", trace },
		{ "pack", pack },
		{ "undo file", undo },
	};
	struct bp_err err = { 0 };
	errcode_t rc = 0;

	if (undo && pack && (strcmp(undo, pack) == 0 || bp_path_same(undo, pack)))
		rc = bp_err_set(&err, BP_ET_PATH_CONFLICT,
				"%s: named both as the undo file and as the pack; choose two "
				"names", undo);
	if (!rc && undo)
		rc = bp_outfile_check("the undo file", undo, ins, 3, &err);
	if (!rc && pack)
		rc = bp_outfile_check("the pack", pack, ins, 2, &err);
	if (!rc)
		return 0;
	bp_log_error("%s", bp_err_str(&err));
	if (rc == BP_ET_PATH_CONFLICT)
		return bp_errtryhelp("relayout");
	return bp_exit_code(rc);
}

/* After a failure once writes began: what is known, what is not, what to do. */
static void report_after_write(const char *dev, const char *undo,
			       const struct bp_relayout_report *r)
{
	if (r->completed) {
		bp_log_error("relayout: %s was relaid out completely and marked clean, but "
			     "re-reading the result failed; the new layout was not measured",
			     dev);
		bp_log_error("relayout: check it with 'e2fsck -fn %s' before mounting it", dev);
	} else {
		bp_log_error("relayout: %s was changed before the failure and is left marked "
			     "as having errors; nothing was verified after the failure: no file "
			     "was read back or compared", dev);
		bp_log_error("relayout: every write relayout makes is ordered so that an "
			     "interruption needs only the repairs 'e2fsck -p' makes by itself; "
			     "run 'e2fsck -fy %s' before mounting it", dev);
	}
	if (undo && r->undo_error)
		bp_log_error("relayout: the undo file %s is incomplete (writing it failed: %s) "
			     "and was removed: it could not restore %s",
			     undo, error_message(r->undo_error), dev);
	else if (undo && !r->completed)
		bp_log_error("relayout: or give back the filesystem as it was before with "
			     "'e2undo %s %s'", undo, dev);
}

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack relayout [options] --trace <trace> <device>\n"
	       "\n"
	       "Move the blocks a boot reads into one contiguous region, in first-access\n"
	       "order, on an unmounted ext3/ext4 filesystem.\n"
	       "\n"
	       "<device> is a block device, an image file, UUID=<uuid> or LABEL=<label>.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>      the trace to lay out\n"
	       " -n, --dry-run           open read-only and print the plan\n"
	       " -J, --json              print the plan and result as JSON\n"
	       " -p, --progress          show a progress bar\n"
	       "     --progress-fd <n>   write progress lines \"pass cur max device\" to fd n\n"
	       " -z, --undo <file>       write an e2undo file (default under " BP_STATEDIR ")\n"
	       "     --no-undo           do not write an undo file\n"
	       "     --whole-files       move whole files, not only the traced ranges\n"
	       "     --region <start>[:<len>]\n"
	       "                         put the boot set at this block (must be free)\n"
	       "     --first <path>      lay this file or directory out whole at the\n"
	       "                         head of the region (repeat; default: the reader\n"
	       "                         " BP_SBINDIR "/bootpack-read, its settings\n"
	       "                         " BP_SYSCONFDIR "/bootpack.conf and " BP_STATEDIR ";\n"
	       "                         '' for none)\n"
	       " -P, --pack <file>       write the pack for the new layout here\n"
	       "     --no-pack           do not rewrite a pack (default: rewrite\n"
	       "                         " BP_STATEDIR "/pack if it is of this filesystem)\n"
	       " -B, --budget <size>|auto\n"
	       "                         the pack's budget, as bootpack pack --budget (default:\n"
	       "                         the rewritten pack's own, else 75M)\n"
	       "     --probe <file>|none the disk's rate for --budget auto\n"
	       "                         [" BP_PACK_BUDGET_PROBE " if it exists]\n"
	       "     --mem-total <size>  the memory for --budget auto [MemTotal]\n"
	       " -f, --force             accept a filesystem mounted after its last check\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "For more details see bootpack-relayout(8).\n");
}

static int parse_region(const char *arg, uint64_t *start, uint64_t *len)
{
	char buf[64];
	char *colon;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	colon = strchr(buf, ':');
	*len = 0;
	if (colon) {
		*colon = 0;
		if (bp_parse_u64(colon + 1, len) || !*len)
			return -EINVAL;
	}
	if (bp_parse_u64(buf, start) || !*start)
		return -EINVAL;
	return 0;
}

static void print_text(FILE *f, const char *dev, const struct bp_relayout_report *r, int dry)
{
	char h[32];
	int i, any = 0;

	fprintf(f, "%s: %s\n", dev,
		dry ? "plan (dry run, nothing written)" :
		r->nothing_to_do ? "left as it is" : "relaid out");
	if (r->nothing_to_do) {
		fprintf(f, "  nothing to do: the boot stream has %llu discontiguities, a relayout "
			   "would not reduce them\n",
			(unsigned long long)r->discontig_before);
	} else {
		fprintf(f, "  region:           blocks %llu-%llu (%llu blocks)\n",
			(unsigned long long)r->region_start,
			(unsigned long long)(r->region_start + r->region_len - 1),
			(unsigned long long)r->region_len);
		fprintf(f, "  to move:          %s (%llu data blocks, %llu tree blocks)\n",
			bp_size_human(r->bytes_to_move, h, sizeof(h)),
			(unsigned long long)r->blocks_to_move, (unsigned long long)r->tree_blocks);
		fprintf(f, "  evicted:          %llu blocks\n",
			(unsigned long long)r->evicted_blocks);
	}
	fprintf(f, "  boot set:         %llu blocks; %llu files, %llu directories moved; "
		   "%llu files traced\n",
		(unsigned long long)r->bootset_blocks, (unsigned long long)r->files_moved,
		(unsigned long long)r->dirs_moved, (unsigned long long)r->files_traced);
	fprintf(f, "  discontiguities:  %llu -> %llu", (unsigned long long)r->discontig_before,
		(unsigned long long)r->discontig_after);
	if (r->discontig_fixed_after)
		fprintf(f, " (%llu over fixed metadata, unavoidable; %llu avoidable)",
			(unsigned long long)r->discontig_fixed_after,
			(unsigned long long)(r->discontig_after - r->discontig_fixed_after));
	fprintf(f, "\n");
	fprintf(f, "  skipped files:   ");
	for (i = 0; i < BP_RL_SKIP_NR; i++) {
		if (!r->files_skipped[i])
			continue;
		fprintf(f, "%s %s %llu", any ? "," : "", bp_relayout_skip_name(i),
			(unsigned long long)r->files_skipped[i]);
		any = 1;
	}
	fprintf(f, "%s\n", any ? "" : " none");
	if (!dry && !r->nothing_to_do)
		fprintf(f, "  engine writes:    %llu, barriers %llu, superblock writes %llu "
			   "(%llu of one sector); %.3f s planning, %.3f s moving\n",
			(unsigned long long)r->writes, (unsigned long long)r->barriers,
			(unsigned long long)r->sb_writes, (unsigned long long)r->sb_one_sector,
			r->plan_seconds, r->apply_seconds);
}

static void print_json(const char *dev, const char *undo, const struct bp_relayout_report *r,
		       int dry)
{
	struct bp_json j;
	int i;

	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_open_object(&j, "relayout");
	bp_json_string(&j, "device", dev);
	bp_json_bool(&j, "dry_run", dry);
	if (undo)
		bp_json_string(&j, "undo_file", undo);
	else
		bp_json_null(&j, "undo_file");
	bp_json_open_object(&j, "plan");
	bp_json_bool(&j, "nothing_to_do", r->nothing_to_do);
	bp_json_u64(&j, "block_size", r->block_size);
	bp_json_u64(&j, "fs_blocks", r->fs_blocks);
	bp_json_u64(&j, "region_start", r->region_start);
	bp_json_u64(&j, "region_blocks", r->region_len);
	bp_json_u64(&j, "bootset_blocks", r->bootset_blocks);
	bp_json_u64(&j, "blocks_to_move", r->blocks_to_move);
	bp_json_u64(&j, "tree_blocks", r->tree_blocks);
	bp_json_u64(&j, "bytes_to_move", r->bytes_to_move);
	bp_json_u64(&j, "evicted_blocks", r->evicted_blocks);
	bp_json_bool(&j, "needs_eviction", r->needs_eviction);
	bp_json_u64(&j, "discontiguities_before", r->discontig_before);
	bp_json_u64(&j, "discontiguities_after", r->discontig_after);
	bp_json_u64(&j, "discontiguities_fixed_metadata_before", r->discontig_fixed_before);
	bp_json_u64(&j, "discontiguities_fixed_metadata_after", r->discontig_fixed_after);
	bp_json_u64(&j, "files_traced", r->files_traced);
	bp_json_u64(&j, "files_moved", r->files_moved);
	bp_json_u64(&j, "dirs_moved", r->dirs_moved);
	bp_json_open_object(&j, "files_skipped");
	for (i = 0; i < BP_RL_SKIP_NR; i++)
		bp_json_u64(&j, bp_relayout_skip_name(i), r->files_skipped[i]);
	bp_json_close_object(&j);
	bp_json_double(&j, "plan_seconds", r->plan_seconds);
	bp_json_close_object(&j);
	if (dry || r->nothing_to_do) {
		bp_json_null(&j, "result");
	} else {
		bp_json_open_object(&j, "result");
		bp_json_u64(&j, "writes", r->writes);
		bp_json_u64(&j, "barriers", r->barriers);
		bp_json_u64(&j, "superblock_writes", r->sb_writes);
		bp_json_u64(&j, "superblock_one_sector_writes", r->sb_one_sector);
		bp_json_u64(&j, "discontiguities", r->discontig_after);
		bp_json_double(&j, "apply_seconds", r->apply_seconds);
		bp_json_close_object(&j);
	}
	bp_json_close_object(&j);
	bp_json_close_object(&j);
	bp_json_finish(&j);
}

/*
 * Default undo file: BP_STATEDIR/relayout-<fs UUID>-<UTC time>.e2undo, so
 * the undo file of another filesystem (another image also called a.img) or
 * of an earlier run is never replaced: a name already taken gets -2, -3...
 * Without a UUID the device's base name stands in for it.
 */
static int default_undo(const char *path, const char *uuid, char *buf, size_t len)
{
	char tmp[4096], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	struct stat st;
	int n, i;

	if (strlen(path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	strcpy(tmp, path);
	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		return -EINVAL;
	if (mkdir(BP_STATEDIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	for (i = 1; i < 100; i++) {
		char seq[16] = "";

		if (i > 1)
			snprintf(seq, sizeof(seq), "-%d", i);
		n = snprintf(buf, len, "%s/relayout-%s-%s%s.e2undo", BP_STATEDIR,
			     uuid && *uuid ? uuid : basename(tmp), stamp, seq);
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		if (lstat(buf, &st) < 0 && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

/* -z FILE names an existing undo file: say that it is replaced. */
static void warn_replaced_undo(const char *undo)
{
	struct stat st;

	if (stat(undo, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		bp_log_warn("relayout: %s exists and is replaced by this run's undo file: the "
			    "run it was written for can no longer be undone with it (omit -z "
			    "for a new name under " BP_STATEDIR ")", undo);
}

/*
 * Progress hook: the undo banner goes out when the first block is about to
 * be written, not before a run that turns out to have nothing to do.
 */
struct rl_hook {
	struct bp_progress *prog;	/* -p, --progress-fd, or NULL */
	const char *dev, *undo;
	FILE *out;
	int banner_done;
};

static void hook_cb(void *ctx, int pass, const char *label, uint64_t cur, uint64_t max)
{
	struct rl_hook *h = ctx;

	if (!h->banner_done && pass >= BP_RL_PASS_COPY) {
		h->banner_done = 1;
		if (h->undo && h->out) {
			if (h->prog)
				bp_progress_end(h->prog);
			fflush(stderr);
			fprintf(h->out,
				"Before changing %s, the old contents of every overwritten block go "
				"to %s;\na successful run can be undone with the command:\n"
				"    e2undo %s %s\n",
				h->dev, h->undo, h->undo, h->dev);
			fflush(h->out);
		}
	}
	if (h->prog)
		bp_progress_cb(h->prog, pass, label, cur, max);
}

int cmd_relayout(int argc, char **argv)
{
	enum {
		OPT_NO_UNDO = OPT_COMMON_BASE,
		OPT_PROGRESS_FD,
		OPT_WHOLE_FILES,
		OPT_REGION,
		OPT_NO_PACK,
		OPT_PROBE,
		OPT_MEM_TOTAL,
		OPT_FIRST,
	};
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "progress", no_argument, NULL, 'p' },
		{ "progress-fd", required_argument, NULL, OPT_PROGRESS_FD },
		{ "undo", required_argument, NULL, 'z' },
		{ "no-undo", no_argument, NULL, OPT_NO_UNDO },
		{ "whole-files", no_argument, NULL, OPT_WHOLE_FILES },
		{ "region", required_argument, NULL, OPT_REGION },
		{ "pack", required_argument, NULL, 'P' },
		{ "no-pack", no_argument, NULL, OPT_NO_PACK },
		{ "budget", required_argument, NULL, 'B' },
		{ "probe", required_argument, NULL, OPT_PROBE },
		{ "mem-total", required_argument, NULL, OPT_MEM_TOTAL },
		{ "first", required_argument, NULL, OPT_FIRST },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_relayout_opts o = { 0 };
	struct bp_relayout_report rep = { 0 };
	struct bp_progress prog;
	struct rl_hook hook = { 0 };
	struct bp_err err = { 0 };
	struct bp_trace *trace = NULL;
	struct bp_dev dev;
	const char *trace_path = NULL, *undo = NULL, *pack_path = NULL;
	enum bp_repack_mode pack_mode = BP_REPACK_AUTO;
	struct bp_repack_budget budget = { .size = BP_PACK_DEFAULT_BUDGET };
	const char *probe = NULL;
	int mem_given = 0;
	static const char *const first_default[] = {
		BP_SBINDIR "/bootpack-read", BP_SYSCONFDIR "/bootpack.conf", BP_STATEDIR,
	};
	const char *first[16];
	size_t nfirst = 0;
	char undo_buf[4096];
	int c, json = 0, bar = 0, pfd = -1, no_undo = 0, quiet, ret;
	uint64_t v;
	errcode_t rc;

	while ((c = getopt_long(argc, argv, "t:nJpz:P:B:fh" BP_COMMON_SHORTOPTS, longopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			trace_path = optarg;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'p':
			bar = 1;
			break;
		case OPT_PROGRESS_FD:
			if (bp_parse_u64(optarg, &v) || v > 1024) {
				bp_log_error("relayout: invalid --progress-fd '%s'", optarg);
				return bp_errtryhelp("relayout");
			}
			pfd = (int)v;
			if (bp_progress_check_fd(pfd)) {
				bp_log_error("relayout: --progress-fd %d: not an open file "
					     "descriptor; open it for the run, e.g. "
					     "'--progress-fd 3 3>progress.log'", pfd);
				return bp_errtryhelp("relayout");
			}
			break;
		case 'z':
			undo = optarg;
			break;
		case OPT_NO_UNDO:
			no_undo = 1;
			break;
		case OPT_WHOLE_FILES:
			o.whole_files = 1;
			break;
		case OPT_REGION:
			if (parse_region(optarg, &o.region_start, &o.region_len)) {
				bp_log_error("relayout: invalid --region '%s' (expected "
					     "START[:LEN] in blocks, START > 0)",
					     optarg);
				return bp_errtryhelp("relayout");
			}
			break;
		case 'P':
			pack_mode = BP_REPACK_PATH;
			pack_path = optarg;
			break;
		case OPT_NO_PACK:
			pack_mode = BP_REPACK_NEVER;
			break;
		case 'B':
			budget.automatic = !strcmp(optarg, "auto");
			budget.given = 1;
			if (!budget.automatic && bp_parse_size(optarg, &budget.size) < 0) {
				bp_log_error("relayout: invalid budget '%s' (a size such as 75M, "
					     "or auto)", optarg);
				return bp_errtryhelp("relayout");
			}
			break;
		case OPT_PROBE:
			probe = optarg;
			break;
		case OPT_MEM_TOTAL:
			if (bp_parse_size(optarg, &budget.in.mem_total) < 0 ||
			    !budget.in.mem_total) {
				bp_log_error("relayout: invalid memory size '%s' (a size such as "
					     "512M)", optarg);
				return bp_errtryhelp("relayout");
			}
			mem_given = 1;
			break;
		case OPT_FIRST:
			if (nfirst == ARRAY_SIZE(first) || (*optarg && *optarg != '/')) {
				bp_log_error("relayout: invalid --first '%s' (an absolute path on "
					     "the filesystem, at most %zu of them)",
					     optarg, ARRAY_SIZE(first));
				return bp_errtryhelp("relayout");
			}
			first[nfirst++] = optarg;
			break;
		case 'f':
			o.force = 1;
			break;
		BP_CLI_COMMON_CASES(c, usage, "relayout");
		}
	}
	if (optind != argc - 1) {
		bp_log_error("relayout: exactly one device expected");
		return bp_errtryhelp("relayout");
	}
	if (!trace_path) {
		bp_log_error("relayout: --trace is required");
		return bp_errtryhelp("relayout");
	}
	quiet = bp_log_level() == BP_LOG_ERR;
	if (undo && no_undo) {
		bp_log_error("relayout: --undo and --no-undo exclude each other");
		return bp_errtryhelp("relayout");
	}

	if ((probe || mem_given) && !budget.automatic) {
		bp_log_error("relayout: --probe and --mem-total go with --budget auto");
		return bp_errtryhelp("relayout");
	}
	/*
	 * The machine's inputs now: with --budget auto a bad probe file stops
	 * the run before it writes; without, they serve an old automatic pack
	 * (repack.h) when they can be had.
	 */
	if (pack_mode != BP_REPACK_NEVER && !o.dry_run) {
		budget.have_in = !bp_pack_budget_machine(&budget.in, probe, &err);
		if (budget.automatic && !budget.have_in)
			return bp_fail(&err);
	}

	ret = bp_cli_open_dev(argv[optind], &dev);
	if (ret)
		return ret;
	bp_log_info("%s resolves to %s (%s, UUID %s)", dev.spec, dev.path, dev.type,
		    dev.uuid ? dev.uuid : "none");

	ret = bp_cli_load_trace(trace_path, &trace);
	if (!ret) {
		ret = bp_cli_upgrade_trace(trace, trace_path, dev.path);
		if (ret)
			bp_trace_free(trace);
	}
	if (ret) {
		bp_dev_free(&dev);
		return ret;
	}

	ret = check_paths(dev.path, trace_path, o.dry_run ? NULL : undo, pack_path);
	if (ret)
		goto out;
	if (!o.dry_run && undo)
		warn_replaced_undo(undo);
	if (!o.dry_run && !no_undo && !undo) {
		int r = default_undo(dev.path, dev.uuid, undo_buf, sizeof(undo_buf));

		if (r) {
			bp_log_error("relayout: cannot create %s: %s (use -z FILE or --no-undo)",
				     BP_STATEDIR, strerror(-r));
			ret = BP_EX_FAILURE;
			goto out;
		}
		undo = undo_buf;
		ret = check_paths(dev.path, trace_path, undo, pack_path);
		if (ret)
			goto out;
	}
	if (o.dry_run)
		undo = NULL;

	o.device = dev.path;
	o.trace = trace;
	if (nfirst) {
		o.first = first;
		o.nfirst = nfirst;
	} else {
		o.first = first_default;
		o.nfirst = ARRAY_SIZE(first_default);
	}
	o.undo_file = undo;
	if (bar || pfd >= 0) {
		bp_progress_init(&prog, bar && !quiet, pfd, dev.path);
		hook.prog = &prog;
		if (prog.lines)
			bp_log_warn("relayout: -p: standard error is not a terminal: one line "
				    "per pass instead of a progress bar");
	}
	hook.dev = dev.path;
	hook.undo = undo;
	hook.out = quiet ? NULL : json ? stderr : stdout;
	o.progress = hook_cb;
	o.progress_ctx = &hook;

	o.cancel = &canceled;
	catch_signals();
	rc = bp_relayout_run(&o, &rep, &err);
	if (hook.prog)
		bp_progress_end(&prog);
	if (hook.prog && prog.fd_dropped)
		bp_log_warn("relayout: the reader of --progress-fd %d went away; the rest of the "
			    "progress lines were dropped, the run went on", pfd);
	if (undo && rep.undo_error)
		unlink(undo);
	if (rc && rep.stopped) {
		/* Consistent and marked clean: a cancel, not a failure (exit 32). */
		bp_log_error("relayout: %s: %s; the filesystem is consistent and marked clean",
			     dev.path, bp_err_str(&err));
		if (undo && !rep.undo_error)
			bp_log_error("relayout: 'e2undo %s %s' gives back the filesystem as it was "
				     "before", undo, dev.path);
		ret = BP_EX_CANCELED;
		goto out;
	}
	if (rc) {
		bp_log_error("%s", bp_err_str(&err));
		if (rep.writes_began) {
			report_after_write(dev.path, undo, &rep);
			ret = BP_EX_AFTERWRITE;
		} else {
			ret = bp_exit_code(rc);
		}
		goto out;
	}
	if (undo && rep.undo_error)
		bp_log_error("relayout: the undo file %s is incomplete (writing it failed: %s) "
			     "and was removed: this run cannot be undone with e2undo",
			     undo, error_message(rep.undo_error));
	if (canceled)
		bp_log_warn("relayout: a signal arrived while the filesystem was being written; "
			    "the run was completed");
	if (json)
		print_json(dev.path, rep.nothing_to_do ? NULL : undo, &rep, o.dry_run);
	else if (!quiet)
		print_text(stdout, dev.path, &rep, o.dry_run);
	ret = BP_EX_OK;
	if (!o.dry_run)
		ret = bp_relayout_repack(pack_mode, pack_path, dev.path, trace, &rep, &budget,
					 json || quiet);
out:
	bp_relayout_report_free(&rep);
	bp_trace_free(trace);
	bp_dev_free(&dev);
	return ret;
}
