// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-probe.c --- bootpack probe: measure a disk read-only, name its nearest model
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devspec.h"
#include "jsonwrt.h"
#include "log.h"
#include "probe.h"
#include "strutils.h"

#define MAX_MODELS 64
#define RANK_NEEDS (BP_PROBE_PH_FAR | BP_PROBE_PH_RATE)

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack probe [options] <device>\n"
	       "\n"
	       "Measure a disk, read-only and within a few seconds: the latency of one\n"
	       "4 KiB read (next block, near, far), random reads 8 and 32 deep (threads),\n"
	       "the sequential rate, the largest request it takes whole, whether it\n"
	       "rotates; then name the disk model of 'bootpack bench' nearest to it.\n"
	       "The device is a block device, UUID=, LABEL=, or a regular file.\n"
	       "\n"
	       "Options:\n"
	       " -t, --time <seconds>    how long to measure (%.1f to %.0f) [%.0f]\n"
	       " -J, --json              one JSON object on stdout\n"
	       "     --mounted           measure a device mounted read-write too\n"
	       "     --scale <factor>    the device is an emulated disk <factor> times\n"
	       "                         slower than its model (bench-boot): times divided\n"
	       "                         by it, rates multiplied\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "For more details see bootpack-probe(8).\n",
	       BP_PROBE_SECONDS_MIN, BP_PROBE_SECONDS_MAX, BP_PROBE_SECONDS_DEFAULT);
}

static const char *size_str(uint64_t v, char *buf, size_t len)
{
	return bp_size_human(v, buf, len);
}

static void print_text(const struct bp_probe *p, const struct bp_disk_model *const *rank,
		       const double *dist, size_t n)
{
	char a[32], b[32];
	size_t i;

	printf("Device: %s (%s, %s)%s\n", p->path, p->is_blockdev ? "block device" : "file",
	       size_str(p->size, a, sizeof(a)), p->direct ? "" : ", not O_DIRECT (page cache)");
	if (p->partial) {
		char what[256];

		bp_probe_unmeasured_str(p, what, sizeof(what));
		printf("Partial: the deadline of %.1f s came before these were measured: %s (their "
		       "figures below are 0)%s\n", p->deadline_s, what,
		       p->abandoned ? "; a read still under way then was abandoned" : "");
	}
	if (p->is_blockdev)
		printf("Queue (sysfs): rotational %s, max_sectors_kb %llu, max_hw_sectors_kb %llu\n",
		       p->sys_rotational < 0 ? "unknown" : p->sys_rotational ? "1" : "0",
		       (unsigned long long)p->sys_max_sectors_kb,
		       (unsigned long long)p->sys_max_hw_sectors_kb);
	printf("Latency of a 4 KiB read, queue depth 1: next block %.3f ms, near %.3f ms, "
	       "far %.3f ms\n", p->seq.ms, p->near.ms, p->far.ms);
	printf("A block read first %.3f ms, the same block again %.3f ms\n", p->cold.ms,
	       p->reread.ms);
	printf("Random 4 KiB reads: depth 1 %.0f/s", p->far.ms > 0 ? 1e3 / p->far.ms : 0.0);
	for (i = 0; i < BP_PROBE_NQD; i++)
		printf(", depth %u %.0f/s (%.3f ms each)", p->qd[i].depth, p->qd[i].iops,
		       p->qd[i].ms);
	printf(" (threads)\n");
	printf("Sequential: %.1f MB/s (%s requests, %s read)\n", p->rate_mbs,
	       size_str(p->seq_request, a, sizeof(a)), size_str(p->seq_bytes, b, sizeof(b)));
	if (!p->max_request)
		printf("Largest request taken whole: unknown (a command costs %.3f ms, too little "
		       "to see)\n", p->whole_saving_ms);
	else
		printf("Largest request taken whole: %s%s (a command costs %.3f ms)\n",
		       p->max_request == p->whole_tested ? "at least " : "",
		       size_str(p->max_request, a, sizeof(a)), p->whole_saving_ms);
	printf("Rotational: %s\n", p->rotational ? "yes" : "no");
	printf("Reader: requests of %s at most, %s in flight\n",
	       size_str(bp_probe_reader_request(p), a, sizeof(a)),
	       size_str(bp_probe_reader_window(p), b, sizeof(b)));
	if (!n && (p->unmeasured & RANK_NEEDS))
		printf("Nearest model: none (the far reads or the rate not measured)\n");
	if (n) {
		printf("Nearest model: %s (distance %.2f)", rank[0]->name, dist[0]);
		for (i = 1; i < n; i++)
			printf("%s %s %.2f", i == 1 ? "; then" : ",", rank[i]->name, dist[i]);
		printf("\n");
	}
	printf("Measured in %.1f s", p->elapsed_s);
	if (p->scale != 1.0)
		printf("; every time / %.2f, every rate x %.2f (--scale)", p->scale, p->scale);
	printf("\n");
}

static void json_lat(struct bp_json *j, const char *name, const struct bp_probe_lat *l)
{
	bp_json_open_object(j, name);
	bp_json_double(j, "ms", l->ms);
	bp_json_double(j, "mean_ms", l->mean_ms);
	bp_json_u64(j, "reads", l->n);
	bp_json_close_object(j);
}

static void print_json(const struct bp_probe *p, const struct bp_disk_model *const *rank,
		       const double *dist, size_t n)
{
	struct bp_probe_pred pred;
	struct bp_json j;
	size_t i;

	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_open_object(&j, "probe");
	bp_json_string(&j, "device", p->path);
	bp_json_u64(&j, "size", p->size);
	bp_json_bool(&j, "block_device", p->is_blockdev);
	bp_json_bool(&j, "direct", p->direct);
	bp_json_double(&j, "seconds", p->elapsed_s);
	bp_json_double(&j, "deadline", p->deadline_s);
	bp_json_bool(&j, "partial", p->partial);
	bp_json_open_array(&j, "unmeasured");
	for (i = 0; i < 32; i++)
		if (p->unmeasured & (1U << i))
			bp_json_string(&j, NULL, bp_probe_phase_name(1U << i));
	bp_json_close_array(&j);
	bp_json_bool(&j, "abandoned", p->abandoned);
	bp_json_double(&j, "scale", p->scale);
	bp_json_open_object(&j, "sysfs");
	if (p->sys_rotational < 0)
		bp_json_null(&j, "rotational");
	else
		bp_json_bool(&j, "rotational", p->sys_rotational);
	bp_json_u64(&j, "max_sectors_kb", p->sys_max_sectors_kb);
	bp_json_u64(&j, "max_hw_sectors_kb", p->sys_max_hw_sectors_kb);
	bp_json_close_object(&j);
	bp_json_open_object(&j, "latency");
	json_lat(&j, "next", &p->seq);
	json_lat(&j, "near", &p->near);
	json_lat(&j, "far", &p->far);
	json_lat(&j, "first", &p->cold);
	json_lat(&j, "again", &p->reread);
	bp_json_close_object(&j);
	bp_json_open_array(&j, "depths");
	bp_json_open_object(&j, NULL);
	bp_json_u64(&j, "depth", 1);
	bp_json_double(&j, "ms", p->far.ms);
	bp_json_double(&j, "iops", p->far.ms > 0 ? 1e3 / p->far.ms : 0.0);
	bp_json_close_object(&j);
	for (i = 0; i < BP_PROBE_NQD; i++) {
		bp_json_open_object(&j, NULL);
		bp_json_u64(&j, "depth", p->qd[i].depth);
		bp_json_double(&j, "ms", p->qd[i].ms);
		bp_json_double(&j, "iops", p->qd[i].iops);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_string(&j, "depth_method", "threads");
	bp_json_double(&j, "rate_mbs", p->rate_mbs);
	bp_json_u64(&j, "sequential_request", p->seq_request);
	bp_json_u64(&j, "sequential_bytes", p->seq_bytes);
	if (p->max_request)
		bp_json_u64(&j, "max_request", p->max_request);
	else
		bp_json_null(&j, "max_request");
	bp_json_u64(&j, "max_request_tested", p->whole_tested);
	bp_json_double(&j, "cmd_ms", p->whole_saving_ms);	/* one command, measured */
	bp_json_bool(&j, "rotational", p->rotational);
	bp_json_open_object(&j, "reader");
	bp_json_u64(&j, "max_request", bp_probe_reader_request(p));
	bp_json_u64(&j, "in_flight", bp_probe_reader_window(p));
	bp_json_close_object(&j);
	if (n) {
		bp_json_string(&j, "model", rank[0]->name);
		bp_json_double(&j, "distance", dist[0]);
	} else {
		bp_json_null(&j, "model");
		bp_json_null(&j, "distance");
	}
	bp_json_open_array(&j, "models");
	for (i = 0; i < n; i++) {
		bp_probe_predict(rank[i], p, &pred);
		bp_json_open_object(&j, NULL);
		bp_json_string(&j, "model", rank[i]->name);
		bp_json_double(&j, "distance", dist[i]);
		bp_json_double(&j, "far_ms", pred.far_ms);
		bp_json_double(&j, "first_ms", pred.cold_ms);
		bp_json_double(&j, "again_ms", pred.reread_ms);
		bp_json_double(&j, "rate_mbs", pred.rate_mbs);
		bp_json_u64(&j, "max_request", pred.max_request);
		bp_json_bool(&j, "rotational", pred.rotational);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_finish(&j);
}

int cmd_probe(int argc, char **argv)
{
	enum { OPT_MOUNTED = OPT_COMMON_BASE, OPT_SEED, OPT_SCALE };
	static const struct option longopts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'J' },
		{ "mounted", no_argument, NULL, OPT_MOUNTED },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "scale", required_argument, NULL, OPT_SCALE },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_probe_opts o = { .seconds = BP_PROBE_SECONDS_DEFAULT };
	const struct bp_disk_model *rank[MAX_MODELS];
	double dist[MAX_MODELS];
	struct bp_err err = { 0 };
	struct bp_dev dev;
	struct bp_probe *p;
	int c, json = 0, rc;
	char *end;
	size_t n;

	while ((c = getopt_long(argc, argv, "t:Jh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o.seconds = strtod(optarg, &end);
			if (end == optarg || *end || !(o.seconds >= BP_PROBE_SECONDS_MIN &&
						       o.seconds <= BP_PROBE_SECONDS_MAX)) {
				bp_log_error("probe: --time: '%s' is not a number of seconds from "
					     "%.1f to %.0f", optarg, BP_PROBE_SECONDS_MIN,
					     BP_PROBE_SECONDS_MAX);
				return bp_errtryhelp("probe");
			}
			break;
		case 'J':
			json = 1;
			break;
		case OPT_MOUNTED:
			o.mounted_ok = 1;
			break;
		case OPT_SEED:
			if (bp_parse_u64(optarg, &o.seed)) {
				bp_log_error("probe: --seed: '%s' is not a number", optarg);
				return bp_errtryhelp("probe");
			}
			break;
		case OPT_SCALE:
			o.scale = strtod(optarg, &end);
			if (end == optarg || *end || !(o.scale >= 1.0 && o.scale <= 1000.0)) {
				bp_log_error("probe: --scale: '%s' is not a factor from 1 to 1000",
					     optarg);
				return bp_errtryhelp("probe");
			}
			break;
		BP_CLI_COMMON_CASES(c, usage, "probe");
		}
	}
	if (optind + 1 != argc) {
		bp_log_error(optind == argc ? "probe: no device given" :
			     "probe: one device only");
		return bp_errtryhelp("probe");
	}
	if (bp_dev_locate(argv[optind], &dev, &err)) {
		bp_dev_free(&dev);
		return bp_fail(&err);
	}
	p = malloc(sizeof(*p));
	if (!p) {
		bp_dev_free(&dev);
		bp_log_error("probe: out of memory");
		return BP_EX_FAILURE;
	}
	if (strcmp(argv[optind], dev.path) != 0)
		bp_log_info("%s resolves to %s", argv[optind], dev.path);
	bp_log_info("%s: measuring for %.1f s, reading only", dev.path, o.seconds);
	rc = BP_EX_OK;
	if (bp_probe_run(dev.path, &o, p, &err)) {
		rc = bp_fail(&err);
		goto out;
	}
	/* No nearest model without the two figures every distance weighs. */
	n = p->unmeasured & RANK_NEEDS ? 0 : bp_probe_rank(p, rank, dist, MAX_MODELS);
	if (json)
		print_json(p, rank, dist, n);
	else
		print_text(p, rank, dist, n);
out:
	free(p);
	bp_dev_free(&dev);
	return rc;
}
