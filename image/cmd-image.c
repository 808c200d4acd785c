// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-image.c --- bootpack image: lay out a disk image offline (options,
 * messages, exit codes; the engine is image/run.c)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp_et.h"
#include "cli.h"
#include "diskmodel.h"
#include "exitcodes.h"
#include "image.h"
#include "jsonwrt.h"
#include "log.h"
#include "loop.h"
#include "pack-budget-report.h"
#include "signals.h"
#include "strutils.h"

#define MAX_TRACES 64
#define MAX_RATE_MBS 1e7	/* 10 TB/s: more is not a disk */

static volatile int canceled;

static void on_signal(int sig _unused_)
{
	canceled = 1;
}

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack image [options] <image>\n"
	       "\n"
	       "Lay out a disk image offline for every device flashed from it: find its ext2/3/4\n"
	       "root (GPT root type, label or fstab; or a bare filesystem image), trace its boot\n"
	       "under QEMU or take --trace files, relay the root out at its offset in the file,\n"
	       "write the pack inside it and start the reader there: in its initramfs when the\n"
	       "image asked for that before building it (BOOTPACK=y in\n"
	       "/etc/initramfs-tools/conf.d/bootpack), else bootpack-read.service. No loop\n"
	       "device, no mount, no network; the same input gives the same image.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>      a bootpack trace of a boot of this image (repeat to merge);\n"
	       "                         without it the image is booted under QEMU\n"
	       "     --timeout <seconds> time limit of the QEMU boot (default %u)\n"
	       "     --root-label <name> the root partition's filesystem or GPT label\n"
	       "     --chunk <size>      align the region to a cloud disk's snapshot chunk (512K)\n"
	       "     --undo <file>       the relayout's undo file (default <image>.bootpack-undo;\n"
	       "                         the pack's and unit's writes go to <file>.install)\n"
	       "     --no-undo           write no undo files\n"
	       " -B, --budget <size>|auto\n"
	       "                         the pack's budget (default auto: the smallest of the\n"
	       "                         traced bytes, a quarter of the target's memory and\n"
	       "                         the target's disk rate x the boot's time)\n"
	       "     --target-mem <size> the memory of the machines the image is for (default:\n"
	       "                         the QEMU guest's, else %lluM)\n"
	       "     --target-rate <MB/s>\n"
	       "                         their disk's sequential read rate (default %llu)\n"
	       " -m, --model <name>      their disk is this disk model of bootpack bench:\n"
	       "                         its sequential rate\n"
	       "     --reader <where>    auto (default: as the image's initramfs configuration\n"
	       "                         says), initramfs or service (required: else refused)\n"
	       " -J, --json              one JSON object on stdout\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "For more details see bootpack-image(8).\n",
	       BP_IMAGE_TIMEOUT_DEFAULT, BP_IMAGE_TARGET_MEM_DEFAULT >> 20,
	       BP_BUDGET_DEFAULT_RATE / 1000000);
}

/* The text of where an input came from. */
static const char *from_text(enum bp_image_input in, const char *model)
{
	switch (in) {
	case BP_IMAGE_IN_OPTION:
		return "given";
	case BP_IMAGE_IN_GUEST:
		return "the traced guest's";
	case BP_IMAGE_IN_MODEL:
		return model;
	default:
		return "the default";
	}
}

/* The pack's budget report (pack-budget-report.h): applied, its term, the target's inputs. */
static void budget_report(const struct bp_image_opts *o, const struct bp_image_report *r,
			  struct bp_budget_report *br)
{
	const struct bp_image_install *in = &r->inst;

	*br = (struct bp_budget_report){
		.budget = in->budget,
		.automatic = !o->budget.given,
		.in = in->budget_in,
		.out = in->budget_auto,
		.have_packed = 1,
		.packed_bytes = in->packed_bytes,
		.cut_bytes = in->cut_bytes,
		.mem_from = bp_image_input_name(r->mem_from),
		.mem_said = from_text(r->mem_from, NULL),
		.rate_from = bp_image_input_name(r->rate_from),
		.rate_said = from_text(r->rate_from, o->budget.model),
		.model = o->budget.model,
	};
}

/*
 * The budget in image's JSON: the report's fields and, automatic, image's
 * names of before the one vocabulary, aliases that bootpack-image(8)
 * documents (doc/formats.md, "The budget report").
 */
static void json_budget(struct bp_json *j, const struct bp_image_opts *o,
			const struct bp_image_report *r)
{
	struct bp_budget_report br;

	budget_report(o, r, &br);
	bp_json_open_object(j, "budget");
	bp_budget_report_json_fields(j, &br);
	if (br.automatic) {
		bp_json_u64(j, "target_mem", br.in.mem_total);
		bp_json_string(j, "target_mem_from", br.mem_from);
		bp_json_u64(j, "target_rate", br.out.rate_bps);
		bp_json_string(j, "target_rate_from", br.rate_from);
	}
	bp_json_close_object(j);
}

static void print_budget(const struct bp_image_opts *o, const struct bp_image_report *r)
{
	struct bp_budget_report br;

	budget_report(o, r, &br);
	bp_budget_report_text(stdout, "", &br, 0);
}

static void print_json(const struct bp_image_opts *o, const struct bp_image_report *r)
{
	const struct bp_relayout_report *rl = &r->rl;
	struct bp_json j;
	size_t i;

	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_string(&j, "image", o->image);
	bp_json_open_object(&j, "root");
	bp_json_u64(&j, "partition", r->root.partno);
	bp_json_u64(&j, "offset", r->root.offset);
	bp_json_u64(&j, "size", r->root.size);
	bp_json_string(&j, "found_by", r->root.how);
	bp_json_string(&j, "type", r->root.type);
	bp_json_string(&j, "label", r->root.label);
	bp_json_string(&j, "uuid", r->root.uuid);
	bp_json_string(&j, "table", r->root.pttype);
	bp_json_close_object(&j);
	bp_json_string(&j, "trace_source", r->ntraces ? "files" : "boot");
	bp_json_u64(&j, "traces", r->ntraces);
	bp_json_open_object(&j, "boot_set");
	bp_json_u64(&j, "files", r->trace_files);
	bp_json_u64(&j, "blocks", r->before.blocks);
	bp_json_u64(&j, "block_size", r->before.block_size);
	bp_json_close_object(&j);
	bp_json_open_object(&j, "region");
	bp_json_u64(&j, "start_block", rl->region_start);
	bp_json_u64(&j, "blocks", rl->region_len);
	bp_json_u64(&j, "byte_in_image", r->root.offset + rl->region_start * rl->block_size);
	bp_json_u64(&j, "files_moved", rl->files_moved);
	bp_json_u64(&j, "dirs_moved", rl->dirs_moved);
	bp_json_bool(&j, "nothing_to_do", rl->nothing_to_do);
	bp_json_close_object(&j);
	bp_json_open_object(&j, "discontiguities");
	bp_json_u64(&j, "before", r->before.discontiguities);
	bp_json_u64(&j, "after", r->after.discontiguities);
	bp_json_close_object(&j);
	if (o->chunk_bytes) {
		bp_json_open_object(&j, "chunks");
		bp_json_u64(&j, "chunk", o->chunk_bytes);
		bp_json_u64(&j, "before", r->before.chunks);
		bp_json_u64(&j, "after", r->after.chunks);
		bp_json_close_object(&j);
	}
	bp_json_open_array(&j, "models");
	for (i = 0; i < r->nmodels; i++) {
		bp_json_open_object(&j, NULL);
		bp_json_string(&j, "model", r->models[i].name);
		bp_json_double(&j, "before_s", r->models[i].before_s);
		bp_json_double(&j, "after_s", r->models[i].after_s);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_open_object(&j, "installed");
	bp_json_string(&j, "pack", r->inst.pack_path);
	bp_json_u64(&j, "pack_bytes", r->inst.pack_bytes);
	bp_json_u64(&j, "pack_entries", r->inst.pack_entries);
	json_budget(&j, o, r);
	bp_json_string(&j, "unit", r->inst.unit);
	bp_json_string(&j, "unit_link", r->inst.unit_link);
	bp_json_string(&j, "reader", bp_image_reader_name(r->inst.reader.at));
	bp_json_string(&j, "reader_why", r->inst.reader.why);
	bp_json_string(&j, "initramfs_tool", r->inst.reader.tool);
	bp_json_string(&j, "unit_disabled", r->inst.reader.disabled);
	bp_json_bool(&j, "trace_phase", 0);
	bp_json_close_object(&j);
	if (o->undo_file && !rl->nothing_to_do)
		bp_json_string(&j, "undo", o->undo_file);
	else
		bp_json_null(&j, "undo");
	if (o->undo_install)
		bp_json_string(&j, "undo_install", o->undo_install);
	else
		bp_json_null(&j, "undo_install");
	bp_json_close_object(&j);
	bp_json_finish(&j);
}

static void print_text(const struct bp_image_opts *o, const struct bp_image_report *r)
{
	const struct bp_relayout_report *rl = &r->rl;
	char sz[32];
	size_t i;

	if (r->root.partno)
		printf("%s: root is partition %u (%s, %s table, found by %s) at byte %llu\n",
		       o->image, r->root.partno, r->root.type, r->root.pttype, r->root.how,
		       (unsigned long long)r->root.offset);
	else
		printf("%s: a bare %s filesystem image\n", o->image, r->root.type);
	printf("boot set: %llu files, %s (%s)\n", (unsigned long long)r->trace_files,
	       bp_size_human(r->before.blocks * r->before.block_size, sz, sizeof(sz)),
	       r->ntraces ? "from the traces given" : "traced under QEMU");
	if (rl->nothing_to_do)
		printf("region: nothing to do, the boot set is already in one stream\n");
	else
		printf("region: blocks %llu-%llu of the root (byte %llu of the image), %llu files "
		       "and %llu directories moved\n",
		       (unsigned long long)rl->region_start,
		       (unsigned long long)(rl->region_start + rl->region_len - 1),
		       (unsigned long long)(r->root.offset + rl->region_start * rl->block_size),
		       (unsigned long long)rl->files_moved, (unsigned long long)rl->dirs_moved);
	printf("discontiguities: %llu before, %llu after\n",
	       (unsigned long long)r->before.discontiguities,
	       (unsigned long long)r->after.discontiguities);
	if (o->chunk_bytes)
		printf("chunks of %s touched: %llu before, %llu after\n",
		       bp_size_human(o->chunk_bytes, sz, sizeof(sz)),
		       (unsigned long long)r->before.chunks, (unsigned long long)r->after.chunks);
	for (i = 0; i < r->nmodels; i++)
		printf("  %-16s %8.3f s -> %8.3f s\n", r->models[i].name, r->models[i].before_s,
		       r->models[i].after_s);
	printf("pack: %s inside the image, %llu entries, %s\n", r->inst.pack_path,
	       (unsigned long long)r->inst.pack_entries,
	       bp_size_human(r->inst.pack_bytes, sz, sizeof(sz)));
	print_budget(o, r);
	if (r->inst.reader.at == BP_IMAGE_READER_INITRAMFS) {
		printf("reader: in the image's initramfs (%s), not %s\n", r->inst.reader.why,
		       BP_SETUP_READER_UNIT);
		if (r->inst.reader.disabled[0])
			printf("disabled: %s (the initramfs reads the pack)\n",
			       r->inst.reader.disabled);
	} else {
		printf("reader: %s (%s)\n", BP_SETUP_READER_UNIT, r->inst.reader.why);
		printf("enabled: %s -> %s (no traced boot scheduled)\n", r->inst.unit_link,
		       r->inst.unit);
	}
	if (o->undo_file && !rl->nothing_to_do)
		printf("undo: e2undo %s %s, then e2undo %s %s\n", o->undo_install, o->image,
		       o->undo_file, o->image);
	else if (o->undo_install)
		printf("undo: e2undo %s %s\n", o->undo_install, o->image);
}

static int exit_for(errcode_t rc, const struct bp_image_report *r)
{
	if (r->writes_began)
		return rc == BP_ET_CANCELED ? BP_EX_CANCELED : BP_EX_AFTERWRITE;
	if (rc == BP_ET_NO_BOOT)
		return BP_EX_NOBOOT;
	if (rc == BP_ET_TRACE_CORRUPT)
		return BP_EX_STALE;
	if (rc == ENOENT)
		return BP_EX_REFUSED;
	return bp_exit_code(rc);
}

int cmd_image(int argc, char **argv)
{
	enum { OPT_TIMEOUT = 256, OPT_ROOT_LABEL, OPT_CHUNK, OPT_UNDO, OPT_NO_UNDO,
	       OPT_TARGET_MEM, OPT_TARGET_RATE, OPT_READER };
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "root-label", required_argument, NULL, OPT_ROOT_LABEL },
		{ "chunk", required_argument, NULL, OPT_CHUNK },
		{ "undo", required_argument, NULL, OPT_UNDO },
		{ "no-undo", no_argument, NULL, OPT_NO_UNDO },
		{ "budget", required_argument, NULL, 'B' },
		{ "target-mem", required_argument, NULL, OPT_TARGET_MEM },
		{ "target-rate", required_argument, NULL, OPT_TARGET_RATE },
		{ "model", required_argument, NULL, 'm' },
		{ "reader", required_argument, NULL, OPT_READER },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_image_opts o = { .timeout_s = BP_IMAGE_TIMEOUT_DEFAULT, .cancel = &canceled };
	struct bp_image_report rep;
	struct bp_err err = { 0 };
	char *traces[MAX_TRACES];
	char undo[4096], undo_install[4200], workdir[] = "/tmp/bootpack-image-XXXXXX";
	const char *undo_arg = NULL, *sde, *rate_arg = NULL;
	const struct bp_disk_model *model = NULL;
	int c, json = 0, no_undo = 0, ret;
	uint64_t v;
	errcode_t rc;

	while ((c = getopt_long(argc, argv, "t:B:m:Jh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (o.ntraces == MAX_TRACES) {
				bp_log_error("image: at most %d traces", MAX_TRACES);
				return bp_errtryhelp("image");
			}
			traces[o.ntraces++] = optarg;
			break;
		case OPT_TIMEOUT:
			if (bp_parse_u64(optarg, &v) || !v || v > 86400) {
				bp_log_error("image: --timeout '%s': expected seconds, 1 to 86400",
					     optarg);
				return bp_errtryhelp("image");
			}
			o.timeout_s = (unsigned int)v;
			break;
		case OPT_ROOT_LABEL:
			o.root_label = optarg;
			break;
		case OPT_CHUNK:
			if (bp_parse_size(optarg, &v) || v < 4096 || (v & (v - 1))) {
				bp_log_error("image: --chunk '%s': expected a power of two of at least "
					     "4K, e.g. 512K", optarg);
				return bp_errtryhelp("image");
			}
			o.chunk_bytes = v;
			break;
		case OPT_UNDO:
			undo_arg = optarg;
			break;
		case OPT_NO_UNDO:
			no_undo = 1;
			break;
		case 'B':
			o.budget.given = strcmp(optarg, "auto") != 0;
			if (o.budget.given && bp_parse_size(optarg, &o.budget.size) < 0) {
				bp_log_error("image: invalid budget '%s' (a size such as 75M, "
					     "or auto)", optarg);
				return bp_errtryhelp("image");
			}
			break;
		case OPT_TARGET_MEM:
			if (bp_parse_size(optarg, &o.budget.target_mem) < 0 ||
			    !o.budget.target_mem) {
				bp_log_error("image: --target-mem '%s': expected a size such as "
					     "512M", optarg);
				return bp_errtryhelp("image");
			}
			break;
		case OPT_TARGET_RATE: {
			char *end;
			double mbs;

			errno = 0;
			mbs = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(mbs > 0) || mbs > MAX_RATE_MBS) {
				bp_log_error("image: --target-rate '%s': expected MB/s, e.g. 43 "
					     "or 22.5", optarg);
				return bp_errtryhelp("image");
			}
			rate_arg = optarg;
			o.budget.target_rate = (uint64_t)(mbs * 1e6);
			break;
		}
		case 'm':
			model = bp_disk_model_find(optarg);
			if (!model) {
				char names[512];

				bp_disk_model_names(names, sizeof(names));
				bp_log_error("image: unknown disk model '%s' (the models: %s)",
					     optarg, names);
				return bp_errtryhelp("image");
			}
			break;
		case OPT_READER:
			if (!strcmp(optarg, "initramfs")) {
				o.reader = BP_IMAGE_READER_INITRAMFS;
			} else if (!strcmp(optarg, "service")) {
				o.reader = BP_IMAGE_READER_SERVICE;
			} else if (!strcmp(optarg, "auto")) {
				o.reader = BP_IMAGE_READER_AUTO;
			} else {
				bp_log_error("image: --reader '%s': expected initramfs, service or "
					     "auto", optarg);
				return bp_errtryhelp("image");
			}
			break;
		case 'J':
			json = 1;
			break;
		BP_CLI_COMMON_CASES(c, usage, "image");
		}
	}
	if (optind != argc - 1) {
		bp_log_error("image: exactly one image expected");
		return bp_errtryhelp("image");
	}
	if (no_undo && undo_arg) {
		bp_log_error("image: --undo and --no-undo exclude each other");
		return bp_errtryhelp("image");
	}
	if (rate_arg && model) {
		bp_log_error("image: --target-rate and --model exclude each other");
		return bp_errtryhelp("image");
	}
	if (o.budget.given && (o.budget.target_mem || rate_arg || model)) {
		bp_log_error("image: --target-mem, --target-rate and --model go with --budget auto");
		return bp_errtryhelp("image");
	}
	if (model) {
		o.budget.model = model->name;
		o.budget.target_rate = (uint64_t)(model->rate_mbs * 1e6);
	}
	o.image = argv[optind];
	o.traces = traces;
	if (!no_undo) {
		snprintf(undo, sizeof(undo), "%s", undo_arg ? undo_arg : o.image);
		if (!undo_arg)
			snprintf(undo, sizeof(undo), "%s.bootpack-undo", o.image);
		snprintf(undo_install, sizeof(undo_install), "%s.install", undo);
		o.undo_file = undo;
		o.undo_install = undo_install;
	}
	sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		if (bp_parse_u64(sde, &v) || !v || v > INT32_MAX) {
			bp_log_error("image: SOURCE_DATE_EPOCH '%s': expected seconds since 1970",
				     sde);
			return BP_EX_USAGE;
		}
		o.created = (int64_t)v;
	}
	if (!o.ntraces) {
		if (!mkdtemp(workdir)) {
			bp_log_error("image: %s: cannot create: %s", workdir, strerror(errno));
			return BP_EX_FAILURE;
		}
		o.workdir = workdir;
	}
	bp_signals_catch(on_signal);
	rc = bp_image_run(&o, &rep, &err);
	bp_signals_default();
	if (o.workdir) {
		char p[4300];

		snprintf(p, sizeof(p), "%s/boot-trace.txt", workdir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/boot-trace.txt.env", workdir);
		unlink(p);
		rmdir(workdir);
	}
	if (rc) {
		bp_log_error("image: %s", bp_err_str(&err));
		ret = exit_for(rc, &rep);
		if (ret == BP_EX_AFTERWRITE && o.undo_file)
			bp_log_error("image: %s was modified; 'e2undo %s %s' restores it (after "
				     "'e2undo %s %s' if that file exists)",
				     o.image, o.undo_file, o.image, o.undo_install, o.image);
		bp_image_report_free(&rep);
		return ret;
	}
	if (json)
		print_json(&o, &rep);
	else if (bp_log_level() > BP_LOG_ERR)
		print_text(&o, &rep);
	bp_image_report_free(&rep);
	return BP_EX_OK;
}
