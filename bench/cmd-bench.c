// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-bench.c --- bootpack bench: model the boot's reads before and after
 *
 * The trace records the layout when it was taken ("traced"); the device
 * shows the layout now ("now", e.g. after relayout). Both streams, in the
 * boot's first-access order, are charged against each disk model and
 * compared with the physical limit, bytes / sequential rate. What a user
 * needs to judge relayout on their disk, and nothing else: the boot bench's
 * ranking of rival readers and its drawing are bench/boot/bp-strategies,
 * never installed.
 *
 * The pack: on each model, the automatic budget of bootpack setup
 * (bp_pack_budget(): the traced bytes, a quarter of --mem, the model's
 * sequential rate x the trace's last first access) and what reading the
 * now stream up to it costs there: the requests, in first-access order,
 * that fit whole.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "cli.h"
#include "devspec.h"
#include "diskmodel.h"
#include "fsident.h"
#include "jsonwrt.h"
#include "log.h"
#include "pack-budget-report.h"
#include "stream.h"
#include "strutils.h"
#include "tracefile.h"

#define MAX_MODELS 16

static void usage(void)
{
	size_t i;

	printf("Usage:\n"
	       " bootpack bench [options] --trace <trace> <device>\n"
	       "\n"
	       "Model the boot's reads, in first-access order, on 2008-era and today's slow\n"
	       "disks: with the layout recorded in the trace (\"traced\") and with the layout\n"
	       "on <device> now (\"now\", e.g. after relayout), against the physical limit\n"
	       "(bytes divided by the sequential rate). Nothing is written.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>      the trace of the boot\n"
	       " -m, --model <name>      a disk model (repeatable; \"all\": every one; default:\n"
	       "                           eee-flash, hdd-5k160 and sata-ssd)\n"
	       "     --mem <size>        the memory of the machine that boots, for the pack's\n"
	       "                           automatic budget on each model (default %lluM)\n"
	       " -J, --json              one JSON object on stdout\n"
	       "     --stream-out <file> write the request streams, one \"LAYOUT OFFSET LENGTH\"\n"
	       "                           line per read (LAYOUT: traced or now)\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "Models:\n", BP_BUDGET_DEFAULT_MEM >> 20);
	for (i = 0; bp_disk_models[i]; i++)
		printf(" %-12s %s\n", bp_disk_models[i]->name, bp_disk_models[i]->description);
	printf("\nFor more details see bootpack-bench(8).\n");
}

static void print_row(const char *model, const char *layout, const struct bp_model_result *r,
		      const struct bp_stream *s)
{
	printf("%-10s %-7s %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f %8llu %8llu\n", model, layout,
	       r->seconds, r->positioning, r->transfer, r->overhead, r->t_phys,
	       r->t_phys > 0 ? r->seconds / r->t_phys : 0.0, (unsigned long long)r->commands,
	       (unsigned long long)s->discontig);
}

static void json_result(struct bp_json *j, const char *name, const struct bp_model_result *r,
			const struct bp_stream *s)
{
	bp_json_open_object(j, name);
	bp_json_double(j, "seconds", r->seconds);
	bp_json_double(j, "positioning", r->positioning);
	bp_json_double(j, "transfer", r->transfer);
	bp_json_double(j, "overhead", r->overhead);
	bp_json_double(j, "t_phys", r->t_phys);
	bp_json_double(j, "ratio_to_limit", r->t_phys > 0 ? r->seconds / r->t_phys : 0.0);
	bp_json_u64(j, "bytes", r->bytes);
	bp_json_u64(j, "commands", r->commands);
	bp_json_u64(j, "seeks", r->seeks);
	bp_json_u64(j, "fetches", r->fetches);
	bp_json_u64(j, "discontiguities", s->discontig);
	bp_json_close_object(j);
}

/* The pack's automatic budget on model m: the rule of bootpack setup, the model's rate. */
static void model_budget(const struct bp_disk_model *m, const struct bp_stream *now,
			 uint64_t mem, uint64_t boot_ns, struct bp_budget_in *in,
			 struct bp_budget_out *out)
{
	in->traced_bytes = now->file_bytes + now->meta_bytes;
	in->mem_total = mem;
	in->rate_bps = (uint64_t)(m->rate_mbs * 1e6);
	in->boot_ns = boot_ns;
	if (bp_pack_budget(in, out)) {	/* mem is never 0: cannot happen */
		memset(out, 0, sizeof(*out));
		out->budget = in->traced_bytes;
		out->bound = BP_BUDGET_TRACED;
	}
}

/* How many of s's requests, in order, fit whole in budget bytes. */
static size_t stream_prefix(const struct bp_stream *s, uint64_t budget)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->n && sum + s->ios[i].length <= budget; i++)
		sum += s->ios[i].length;
	return i;
}

/* The budget report (pack-budget-report.h) of model m: its rate, the now stream up to it. */
static void budget_report(const struct bp_disk_model *m, const struct bp_budget_in *in,
			  const struct bp_budget_out *out, const struct bp_model_result *rp,
			  int mem_given, struct bp_budget_report *br)
{
	*br = (struct bp_budget_report){
		.budget = out->budget,
		.automatic = 1,
		.in = *in,
		.out = *out,
		.have_packed = 1,
		.packed_bytes = rp->bytes,
		.cut_bytes = in->traced_bytes - rp->bytes,
		.mem_from = mem_given ? "option" : "default",
		.mem_said = mem_given ? "given" : "the default",
		.rate_from = "model",
		.rate_said = m->name,
		.model = m->name,
	};
}

static int report(const char *trace_path, const struct bp_dev *dev,
		  const struct bp_disk_model **models, size_t nmodels,
		  const struct bp_stream *before, const struct bp_stream *now, uint64_t mem,
		  int mem_given, uint64_t boot_ns, int json)
{
	struct bp_model_result rb, rn, rp;
	struct bp_budget_in bin;
	struct bp_budget_out bout;
	struct bp_budget_report br;
	char a[32], b[32];
	size_t i, np;

	if (json) {
		struct bp_json j;

		bp_json_init(&j, stdout, 1);
		bp_json_open_object(&j, NULL);
		bp_json_open_object(&j, "bench");
		bp_json_string(&j, "trace", trace_path);
		bp_json_string(&j, "device", dev->path);
		bp_json_u64(&j, "file_bytes", now->file_bytes);
		bp_json_u64(&j, "metadata_bytes", now->meta_bytes);
		bp_json_u64(&j, "stale_files", now->stale_files);
		bp_json_open_array(&j, "models");
		for (i = 0; i < nmodels; i++) {
			bp_model_run(models[i], before->ios, before->n, &rb);
			bp_model_run(models[i], now->ios, now->n, &rn);
			bp_json_open_object(&j, NULL);
			bp_json_string(&j, "model", models[i]->name);
			bp_json_string(&j, "description", models[i]->description);
			json_result(&j, "traced", &rb, before);
			json_result(&j, "now", &rn, now);
			model_budget(models[i], now, mem, boot_ns, &bin, &bout);
			np = stream_prefix(now, bout.budget);
			bp_model_run(models[i], now->ios, np, &rp);
			budget_report(models[i], &bin, &bout, &rp, mem_given, &br);
			bp_budget_report_json(&j, "budget", &br);
			bp_json_open_object(&j, "pack");
			bp_json_double(&j, "seconds", rp.seconds);
			bp_json_u64(&j, "bytes", rp.bytes);
			bp_json_u64(&j, "requests", np);
			bp_json_u64(&j, "cut_bytes", bin.traced_bytes - rp.bytes);
			bp_json_close_object(&j);
			bp_json_close_object(&j);
		}
		bp_json_close_array(&j);
		bp_json_close_object(&j);
		bp_json_close_object(&j);
		bp_json_finish(&j);
		return BP_EX_OK;
	}

	printf("%s on %s: %s of file data and %s of metadata in the boot stream",
	       trace_path, dev->path, bp_size_human(now->file_bytes, a, sizeof(a)),
	       bp_size_human(now->meta_bytes, b, sizeof(b)));
	if (now->stale_files)
		printf(" (%llu traced files changed since: not counted now)",
		       (unsigned long long)now->stale_files);
	printf("\n\n%-10s %-7s %9s %9s %9s %9s %9s %7s %8s %8s\n", "MODEL", "LAYOUT", "TIME_S",
	       "POSITION", "TRANSFER", "OVERHEAD", "T_PHYS", "xLIMIT", "COMMANDS", "DISCONT");
	for (i = 0; i < nmodels; i++) {
		bp_model_run(models[i], before->ios, before->n, &rb);
		bp_model_run(models[i], now->ios, now->n, &rn);
		print_row(models[i]->name, "traced", &rb, before);
		print_row(models[i]->name, "now", &rn, now);
	}
	printf("\nThe pack on each model: its automatic budget (the traced bytes, a quarter of %s\n"
	       "of memory, the model's rate x %.3f s to the last first access) and the now\n"
	       "layout read up to it.\n\n%-10s %12s %-7s %12s %9s %12s\n",
	       bp_size_human(mem, a, sizeof(a)), (double)boot_ns / 1e9, "MODEL", "BUDGET",
	       "BOUND", "PACKED", "PACK_S", "CUT");
	for (i = 0; i < nmodels; i++) {
		model_budget(models[i], now, mem, boot_ns, &bin, &bout);
		np = stream_prefix(now, bout.budget);
		bp_model_run(models[i], now->ios, np, &rp);
		printf("%-10s %12llu %-7s %12llu %9.3f %12llu\n", models[i]->name,
		       (unsigned long long)bout.budget, bp_budget_bound_name(bout.bound),
		       (unsigned long long)rp.bytes, rp.seconds,
		       (unsigned long long)(bin.traced_bytes - rp.bytes));
	}
	return BP_EX_OK;
}

/* The streams the models are charged with, for replay through the disk filter. */
static int write_streams(const char *path, const struct bp_stream *before,
			 const struct bp_stream *now)
{
	const struct bp_stream *s[2] = { before, now };
	static const char *const name[2] = { "traced", "now" };
	FILE *f = fopen(path, "w");
	size_t i, k;

	if (!f) {
		bp_log_error("%s: %s", path, strerror(errno));
		return BP_EX_FAILURE;
	}
	for (k = 0; k < 2; k++)
		for (i = 0; i < s[k]->n; i++)
			fprintf(f, "%s %llu %llu\n", name[k], (unsigned long long)s[k]->ios[i].offset,
				(unsigned long long)s[k]->ios[i].length);
	if (ferror(f) | fclose(f)) {
		bp_log_error("%s: write error", path);
		return BP_EX_FAILURE;
	}
	return BP_EX_OK;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "model", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'J' },
		{ "stream-out", required_argument, NULL, 'S' },
		{ "mem", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct bp_disk_model *models[MAX_MODELS];
	struct bp_stream before = { 0 }, now = { 0 };
	struct bp_err err = { 0 };
	struct bp_trace *t = NULL;
	const char *trace_path = NULL, *stream_path = NULL;
	ext2_filsys fs = NULL;
	size_t nmodels = 0, i;
	uint64_t mem = BP_BUDGET_DEFAULT_MEM;
	int mem_given = 0;
	struct bp_dev dev;
	int c, json = 0, ret;

	while ((c = getopt_long(argc, argv, "t:m:Jh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace_path = optarg;
			break;
		case 'm':
			if (bp_disk_models_add(optarg, models, &nmodels, MAX_MODELS)) {
				bp_log_error("bench: unknown disk model '%s'; the models are:",
					     optarg);
				for (i = 0; bp_disk_models[i]; i++)
					fprintf(stderr, "  %-12s %s\n", bp_disk_models[i]->name,
						bp_disk_models[i]->description);
				return bp_errtryhelp("bench");
			}
			break;
		case 'J':
			json = 1;
			break;
		case 'S':
			stream_path = optarg;
			break;
		case 'M':
			mem_given = 1;
			if (bp_parse_size(optarg, &mem) < 0 || !mem) {
				bp_log_error("bench: --mem '%s': expected a size such as 512M",
					     optarg);
				return bp_errtryhelp("bench");
			}
			break;
		BP_CLI_COMMON_CASES(c, usage, "bench");
		}
	}
	if (!trace_path || optind != argc - 1) {
		bp_log_error("bench: a trace (--trace) and one device are expected");
		return bp_errtryhelp("bench");
	}
	if (!nmodels)
		for (; bp_disk_models_default[nmodels] && nmodels < MAX_MODELS; nmodels++)
			models[nmodels] = bp_disk_models_default[nmodels];

	ret = bp_cli_open_dev_trace(argv[optind], trace_path, &dev, &t);
	if (ret)
		return ret;
	ret = BP_EX_FAILURE;
	if (bp_fs_open_ro(dev.path, &fs, &err) ||
	    bp_fs_check_ident(fs, dev.path, "trace", t->hdr.uuid, t->hdr.block_size, &err)) {
		ret = bp_fail(&err);
		goto out;
	}
	if (bp_stream_build(t, NULL, &before, &err) || bp_stream_build(t, fs, &now, &err)) {
		ret = bp_fail(&err);
		goto out;
	}
	if (stream_path) {
		ret = write_streams(stream_path, &before, &now);
		if (ret)
			goto out;
	}
	ret = report(trace_path, &dev, models, nmodels, &before, &now, mem, mem_given,
		     bp_pack_budget_boot_ns(t), json);
out:
	bp_stream_free(&before);
	bp_stream_free(&now);
	if (fs)
		ext2fs_close_free(&fs);
	bp_trace_free(t);
	bp_dev_free(&dev);
	return ret;
}
