// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-pack.c --- bootpack pack: write the readahead pack from a trace
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "bp_et.h"
#include "c.h"
#include "cli.h"
#include "devspec.h"
#include "jsonwrt.h"
#include "log.h"
#include "outfile.h"
#include "pack-budget-report.h"
#include "pack-build.h"
#include "strutils.h"

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack pack --trace <trace> [options] <device>\n"
	       "\n"
	       "Write the readahead pack that bootpack-read streams at boot: the traced\n"
	       "metadata and file ranges, looked up again on the filesystem (read-only), cut\n"
	       "to the budget in first-access order, sorted by physical position.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>        the trace (bootpack trace -o)\n"
	       " -o, --output <file>       write the pack here [" BP_PACK_DEFAULT_PATH "]\n"
	       " -B, --budget <size>|auto  read at most this much at boot [75M]; 0: no limit;\n"
	       "                           auto: the traced bytes, capped by a quarter of the\n"
	       "                           memory and by what the disk streams in the boot's time\n"
	       "     --mem-total <size>    with --budget auto: the memory of the machine that\n"
	       "                           boots [this one's MemTotal]\n"
	       "     --probe <file>|none   with --budget auto: the disk's rate from this probe\n"
	       "                           file (rate_mbs=) [" BP_PACK_BUDGET_PROBE " if it exists];\n"
	       "                           none: 25 MB/s\n"
	       "     --compress=<when>     deflate the pack body: auto (when smaller), always,\n"
	       "                           never [auto]\n"
	       "     --meta=<from>         metadata ranges from the trace, from the files'\n"
	       "                           directories, inodes and mapping blocks on the\n"
	       "                           filesystem now, or both: trace, files, both [both]\n"
	       "     --page-size <size>    page size of the machine the pack is for (ranges in\n"
	       "                           whole pages): 4K, 16K, 64K ... [this system's]\n"
	       " -J, --json                print the summary as one JSON object\n"
	       " -b, --bytes               print sizes in bytes\n"
	       BP_USAGE_COMMON("  ")
	       "\n"
	       "<device> is the filesystem the trace was taken on: a device, an image file,\n"
	       "UUID=… or LABEL=…. It may be mounted; nothing is written to it.\n"
	       "\n"
	       "For more details see bootpack-pack(8) and bootpack-pack(5).\n");
}

/* The budget report (pack-budget-report.h): what was applied and, automatic, its terms. */
static void budget_report(const struct bp_pack_report *r, const struct bp_pack_opts *o,
			  int mem_given, struct bp_budget_report *br)
{
	*br = (struct bp_budget_report){
		.budget = r->budget,
		.automatic = o->budget_auto != NULL,
		.in = r->budget_in,
		.out = r->budget_auto,
		.have_packed = 1,
		.packed_bytes = r->meta_bytes + r->file_bytes,
		.cut_bytes = r->cut_bytes,
		.have_ranges = 1,
		.cut_ranges = r->cut_ranges,
		.mem_from = mem_given ? "option" : "machine",
		.mem_said = mem_given ? "given" : "this machine's",
		.rate_from = r->budget_auto.rate_default ? "default" : "probe",
		.rate_said = r->budget_auto.rate_default ? "the default: no probe" : "probed",
	};
}

static void print_summary(const char *out, const struct bp_pack_report *r,
			  const struct bp_pack_opts *o, int mem_given, int json, int bytes)
{
	struct bp_budget_report br;
	uint64_t entries = r->nmeta + r->nentries;
	double per = entries ? (double)r->pack_size / (double)entries : 0;
	char b1[32], b4[32];
	int i;

	budget_report(r, o, mem_given, &br);
	if (json) {
		struct bp_json j;

		bp_json_init(&j, stdout, 1);
		bp_json_open_object(&j, NULL);
		bp_json_open_object(&j, "pack");
		bp_json_string(&j, "path", out);
		bp_json_u64(&j, "size", r->pack_size);
		bp_json_u64(&j, "body_raw_size", r->body_raw_size);
		bp_json_bool(&j, "compressed", r->compressed);
		bp_json_u64(&j, "budget", r->budget);
		if (o->budget_auto)	/* "budget" is the number, as in dump's JSON */
			bp_budget_report_json(&j, "budget_auto", &br);
		else
			bp_json_null(&j, "budget_auto");
		bp_json_u64(&j, "meta_ranges", r->nmeta);
		bp_json_u64(&j, "entries", r->nentries);
		bp_json_u64(&j, "files", r->nfiles);
		bp_json_u64(&j, "meta_bytes", r->meta_bytes);
		bp_json_u64(&j, "meta_stale_blocks", r->meta_stale_blocks);
		bp_json_u64(&j, "meta_moved_blocks", r->meta_moved_blocks);
		bp_json_u64(&j, "file_bytes", r->file_bytes);
		bp_json_u64(&j, "bytes", r->meta_bytes + r->file_bytes);
		bp_json_u64(&j, "cut_ranges", r->cut_ranges);
		bp_json_u64(&j, "cut_bytes", r->cut_bytes);
		bp_json_double(&j, "bytes_per_entry", per);
		bp_json_u64(&j, "files_traced", r->files_traced);
		bp_json_u64(&j, "files_changed", r->files_changed);
		bp_json_open_object(&j, "files_skipped");
		for (i = 0; i < BP_PACK_SKIP_NR; i++)
			bp_json_u64(&j, bp_pack_skip_name(i), r->files_skipped[i]);
		bp_json_close_object(&j);
		bp_json_close_object(&j);
		bp_json_close_object(&j);
		bp_json_finish(&j);
		return;
	}
	printf("%s: %llu entries (%llu files) + %llu metadata ranges, %s to read\n", out,
	       (unsigned long long)r->nentries, (unsigned long long)r->nfiles,
	       (unsigned long long)r->nmeta,
	       bp_size_str(r->meta_bytes + r->file_bytes, bytes, b1, sizeof(b1)));
	if (r->meta_moved_blocks || r->meta_stale_blocks)
		printf("  traced metadata: %llu blocks moved along with the relayout, "
		       "%llu old tree blocks left out\n", (unsigned long long)r->meta_moved_blocks,
		       (unsigned long long)r->meta_stale_blocks);
	bp_budget_report_text(stdout, "  ", &br, bytes);
	printf("  pack %s%s, %.1f bytes per entry\n", bp_size_str(r->pack_size, bytes, b4, sizeof(b4)),
	       r->compressed ? " (deflate)" : "", per);
	printf("  files: %llu traced, %llu changed since the trace", (unsigned long long)r->files_traced,
	       (unsigned long long)r->files_changed);
	for (i = 0; i < BP_PACK_SKIP_NR; i++)
		if (r->files_skipped[i])
			printf(", %llu %s", (unsigned long long)r->files_skipped[i],
			       bp_pack_skip_name(i));
	printf("\n");
}

/* mkdir for the default location only (BP_STATEDIR). */
static int ensure_default_dir(const char *out)
{
	if (strcmp(out, BP_PACK_DEFAULT_PATH) != 0)
		return 0;
	if (mkdir(BP_STATEDIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int cmd_pack(int argc, char **argv)
{
	enum { OPT_COMPRESS = OPT_COMMON_BASE, OPT_META, OPT_PAGE_SIZE, OPT_MEM_TOTAL, OPT_PROBE };
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "budget", required_argument, NULL, 'B' },
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "meta", required_argument, NULL, OPT_META },
		{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
		{ "mem-total", required_argument, NULL, OPT_MEM_TOTAL },
		{ "probe", required_argument, NULL, OPT_PROBE },
		{ "json", no_argument, NULL, 'J' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_pack_opts o = { .output = BP_PACK_DEFAULT_PATH, .budget = BP_PACK_DEFAULT_BUDGET };
	struct bp_pack_report rep;
	struct bp_budget_in auto_in = { 0 };
	const char *probe = NULL;
	int budget_auto = 0, mem_given = 0;
	struct bp_err err = { 0 };
	struct bp_trace *t = NULL;
	struct bp_dev dev = { 0 };
	const char *trace = NULL;
	ext2_filsys fs = NULL;
	int c, json = 0, bytes = 0, ret, r;
	errcode_t rc;

	while ((c = getopt_long(argc, argv, "t:o:B:Jbh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'B':
			budget_auto = !strcmp(optarg, "auto");
			if (!budget_auto && bp_parse_size(optarg, &o.budget) < 0) {
				bp_log_error("pack: invalid budget '%s' (a size such as 75M, "
					     "or auto)", optarg);
				return bp_errtryhelp("pack");
			}
			break;
		case OPT_COMPRESS:
			if (strcmp(optarg, "auto") == 0)
				o.compress = BP_PACK_COMPRESS_AUTO;
			else if (strcmp(optarg, "always") == 0)
				o.compress = BP_PACK_COMPRESS_ALWAYS;
			else if (strcmp(optarg, "never") == 0)
				o.compress = BP_PACK_COMPRESS_NEVER;
			else {
				bp_log_error("pack: unknown --compress value '%s' (use auto, always "
					     "or never)", optarg);
				return bp_errtryhelp("pack");
			}
			break;
		case OPT_META:
			if (strcmp(optarg, "trace") == 0)
				o.meta = BP_PACK_META_TRACE;
			else if (strcmp(optarg, "files") == 0)
				o.meta = BP_PACK_META_FILES;
			else if (strcmp(optarg, "both") == 0)
				o.meta = BP_PACK_META_TRACE | BP_PACK_META_FILES;
			else {
				bp_log_error("pack: unknown --meta value '%s' (use trace, files or "
					     "both)", optarg);
				return bp_errtryhelp("pack");
			}
			break;
		case OPT_PAGE_SIZE: {
			uint64_t v;

			if (bp_parse_size(optarg, &v) < 0 || v < BP_PACK_PAGE_SIZE_MIN ||
			    v > BP_PACK_PAGE_SIZE_MAX || (v & (v - 1))) {
				bp_log_error("pack: invalid page size '%s' (a power of two from 4K "
					     "to 256K)", optarg);
				return bp_errtryhelp("pack");
			}
			o.page_size = (uint32_t)v;
			break;
		}
		case OPT_MEM_TOTAL:
			if (bp_parse_size(optarg, &auto_in.mem_total) < 0 || !auto_in.mem_total) {
				bp_log_error("pack: invalid memory size '%s' (a size such as 512M)",
					     optarg);
				return bp_errtryhelp("pack");
			}
			mem_given = 1;
			break;
		case OPT_PROBE:
			probe = optarg;
			break;
		case 'J':
			json = 1;
			break;
		case 'b':
			bytes = 1;
			break;
		BP_CLI_COMMON_CASES(c, usage, "pack");
		}
	}
	if (!trace) {
		bp_log_error("pack: no trace given (--trace FILE)");
		return bp_errtryhelp("pack");
	}
	if (optind != argc - 1) {
		bp_log_error("pack: exactly one device expected");
		return bp_errtryhelp("pack");
	}

	if ((mem_given || probe) && !budget_auto) {
		bp_log_error("pack: --mem-total and --probe go with --budget auto");
		return bp_errtryhelp("pack");
	}
	if (budget_auto) {
		if (bp_pack_budget_machine(&auto_in, probe, &err))
			return bp_fail(&err);
		o.budget_auto = &auto_in;
	}

	ret = bp_cli_open_dev_trace(argv[optind], trace, &dev, &t);
	if (ret)
		return ret;
	if (strcmp(o.output, BP_PACK_DEFAULT_PATH) != 0) {
		const struct bp_path_ref ins[] = { { "device", dev.path }, { "trace", trace } };

		rc = bp_outfile_check("the pack", o.output, ins, ARRAY_SIZE(ins), &err);
		if (rc) {
			ret = bp_fail(&err);
			if (rc == BP_ET_PATH_CONFLICT)
				bp_errtryhelp("pack");
			goto out;
		}
	}
	if (dev.is_blockdev) {
		struct stat st;

		if (stat(dev.path, &st) == 0) {
			o.dev_major = major(st.st_rdev);
			o.dev_minor = minor(st.st_rdev);
		}
	}
	/* Refuse a foreign trace before anything is created. */
	rc = bp_fs_open_ro(dev.path, &fs, &err);
	if (!rc)
		rc = bp_fs_check_ident(fs, dev.path, "trace", t->hdr.uuid, t->hdr.block_size, &err);
	if (rc) {
		ret = bp_fail(&err);
		goto out;
	}
	r = ensure_default_dir(o.output);
	if (r < 0) {
		bp_log_error("%s: cannot create: %s", BP_STATEDIR, strerror(-r));
		ret = BP_EX_FAILURE;
		goto out;
	}
	rc = bp_pack_build_write(fs, t, &o, &rep, &err);
	if (rc) {
		ret = bp_fail(&err);
		goto out;
	}
	if (rep.nentries + rep.nmeta == 0 && rep.cut_ranges)
		bp_log_warn("%s: the pack is empty: the budget is smaller than the first range "
			    "(raise --budget)", o.output);
	else if (rep.nentries + rep.nmeta == 0)
		bp_log_warn("%s: the pack is empty: nothing traced is on %s any more", o.output,
			    dev.spec);
	if (json || bp_log_level() > BP_LOG_ERR)	/* -q: errors only */
		print_summary(o.output, &rep, &o, mem_given, json, bytes);
	ret = BP_EX_OK;
out:
	if (fs)
		ext2fs_close_free(&fs);
	bp_dev_free(&dev);
	bp_trace_free(t);
	return ret;
}
