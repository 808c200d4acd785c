// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-bootchart.c --- draw boots of the boot bench as one bootchart-style SVG
 *
 *   bp-bootchart -o OUT.svg [-t TITLE] RUN[=LABEL]...
 *
 * RUN is a boot's output directory of bench/boot/bench-boot.sh: disk.log
 * (the log of the nbdkit filter bootpack-delay: every request, its service
 * time) and results.log (the guest monitor: summary with done_ms, CPU and
 * disk samples, kernel log). One column per run, side by side, on one time
 * axis: seconds since the guest kernel started. The filter's clock is put
 * on the guest's by the bytes read: a sample that counts B bytes read was
 * taken after the request that completed byte B; the smallest such gap
 * over all samples is the offset. The reader's run is its first to last
 * kernel-log line (bootpack-read, sreadahead-style, ureadahead-style).
 * The drawing is bench/boot/svg.c, the same code as `bp-strategies --svg`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "svg.h"

#define MAX_RUNS 4

struct run {
	struct bp_svg_run svg;
	struct bp_svg_req *reqs;
	size_t nreqs, reqcap;
	struct bp_svg_sample *samples;
	size_t nsamples, samplecap;
	double *sample_bytes;	/* cumulative bytes read at each sample */
	char model[32];
	double scale, busy_s, done_s, offset_s;
	uint64_t read_bytes;
	char note[256];
};

static int load_disk_log(const char *path, struct run *r)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "bp-bootchart: %s: %s\n", path, strerror(errno));
		return -1;
	}
	r->scale = 1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, off, len;
		double service, wait;
		char type;

		if (line[0] == '#') {
			sscanf(line, "# bootpack-delay 1 model %31s scale %lf", r->model, &r->scale);
			continue;
		}
		if (sscanf(line, "%llu %llu %llu %c %lf %lf", &start, &off, &len, &type, &service,
			   &wait) != 6)
			continue;
		if (bp_array_reserve((void **)&r->reqs, &r->reqcap, r->nreqs, sizeof(*r->reqs),
				     1024)) {
			fclose(f);
			return -1;
		}
		r->reqs[r->nreqs++] = (struct bp_svg_req){ .t = start / 1e6, .dur = service / 1e6,
							   .offset = off, .length = len,
							   .type = type };
		r->busy_s += service / 1e6;
	}
	fclose(f);
	return 0;
}

/* A reader's name (a task's comm is cut to 15 characters). */
static int is_reader(const char *s)
{
	return strncmp(s, "bootpack-read", 13) == 0 || strncmp(s, "sreadahead-styl", 15) == 0 ||
	       strncmp(s, "ureadahead-styl", 15) == 0;
}

static int load_results(const char *path, struct run *r)
{
	char line[4096], section[32] = "";
	double prev_t = -1, prev_busy = 0, prev_all = 0, prev_psi = 0;
	double rstart = -1, rend = -1;
	int reached = 0;
	FILE *f = fopen(path, "r");

	r->done_s = -1;
	if (!f) {
		fprintf(stderr, "bp-bootchart: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "=== BENCH-BEGIN ", 16) == 0) {
			sscanf(line + 16, "%31s", section);
			continue;
		}
		if (strncmp(line, "=== BENCH-", 10) == 0) {
			section[0] = '\0';
			continue;
		}
		if (strcmp(section, "summary") == 0) {
			sscanf(line, "done_ms=%lf", &r->done_s);
			sscanf(line, "reached=%d", &reached);
		} else if (strcmp(section, "samples") == 0 && line[0] != '#') {
			double t, busy, all, ios, sect, wios, wsect, infl, iom, psi;

			if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &t, &busy, &all, &ios,
				   &sect, &wios, &wsect, &infl, &iom, &psi) != 10)
				continue;
			t /= 1e3;
			if (prev_t >= 0 && t > prev_t && all > prev_all) {
				size_t cap = r->samplecap;

				if (bp_array_reserve((void **)&r->samples, &r->samplecap,
						     r->nsamples, sizeof(*r->samples), 1024))
					goto fail;
				if (cap != r->samplecap) {
					double *b = realloc(r->sample_bytes, r->samplecap * sizeof(double));

					if (!b)
						goto fail;
					r->sample_bytes = b;
				}
				r->samples[r->nsamples] = (struct bp_svg_sample){
					.t = t, .cpu = (busy - prev_busy) / (all - prev_all),
					.io = (psi - prev_psi) / 1e6 / (t - prev_t) };
				r->sample_bytes[r->nsamples++] = sect * 512;
			}
			prev_t = t;
			prev_busy = busy;
			prev_all = all;
			prev_psi = psi;
		} else if (strcmp(section, "trace") == 0 && strstr(line, " block_rq_issue: ")) {
			/* "... 25.555294: block_rq_issue: 254,0 RA 131072 () 1737496 + 256 [comm]" */
			char *ev = strstr(line, " block_rq_issue: "), *p = ev, *comm = strrchr(line, '[');
			double ts;

			while (p > line && p[-1] != ' ')
				p--;
			if (!comm || sscanf(p, "%lf", &ts) != 1 || !is_reader(comm + 1))
				continue;
			if (rstart < 0 || ts < rstart)
				rstart = ts;
			rend = fmax(rend, ts);
		} else if (strcmp(section, "kmsg") == 0) {
			char *msg = strchr(line, ';');
			unsigned pri, seq;
			double ts;

			if (!msg || sscanf(line, "%u,%u,%lf", &pri, &seq, &ts) != 3)
				continue;
			if (is_reader(msg + 1)) {
				if (rstart < 0 || ts / 1e6 < rstart)
					rstart = ts / 1e6;
				rend = fmax(rend, ts / 1e6);
			}
		}
	}
	fclose(f);
	r->done_s = reached && r->done_s >= 0 ? r->done_s / 1e3 : -1;
	r->svg.reader_start = rstart;
	r->svg.reader_end = rend;
	return 0;
fail:
	fclose(f);
	return -1;
}

/* Put the filter's clock on the guest's (see the header). */
static void align(struct run *r)
{
	double best = INFINITY, bytes = 0;
	size_t i = 0, k;

	for (k = 0; k < r->nsamples; k++) {
		double want = r->sample_bytes[k];

		if (k && want <= r->sample_bytes[k - 1])
			continue;
		/* Completion time of the request that brings reads to want bytes. */
		while (i < r->nreqs && bytes < want) {
			if (r->reqs[i].type == 'R')
				bytes += (double)r->reqs[i].length;
			i++;
		}
		if (bytes < want || !i)
			break;
		best = fmin(best, r->samples[k].t - (r->reqs[i - 1].t + r->reqs[i - 1].dur));
	}
	r->offset_s = isfinite(best) ? best : 0;
	for (i = 0; i < r->nreqs; i++) {
		r->reqs[i].t += r->offset_s;
		if (r->reqs[i].type == 'R')
			r->read_bytes += r->reqs[i].length;
	}
}

static void free_runs(struct run *runs, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		free(runs[k].reqs);
		free(runs[k].samples);
		free(runs[k].sample_bytes);
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL, *title = "bootpack bench boot";
	struct run runs[MAX_RUNS] = { { { 0 } } };
	struct bp_svg_run svg[MAX_RUNS];
	char *dirs[MAX_RUNS], path[4096], sub[512];
	size_t n = 0, k;
	int i, ret = 1;
	FILE *f;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			title = argv[++i];
		else if (argv[i][0] == '-' || n == MAX_RUNS)
			goto usage;
		else
			dirs[n++] = argv[i];
	}
	if (!out || !n)
		goto usage;
	for (k = 0; k < n; k++) {
		struct run *r = &runs[k];
		char *eq = strchr(dirs[k], '=');

		if (eq)
			*eq = '\0';
		r->svg.title = eq ? eq + 1 : dirs[k];
		snprintf(path, sizeof(path), "%s/disk.log", dirs[k]);
		if (load_disk_log(path, r))
			goto out;
		snprintf(path, sizeof(path), "%s/results.log", dirs[k]);
		if (load_results(path, r))
			goto out;
		align(r);
		snprintf(r->note, sizeof(r->note),
			 "%s x%.3g: done %.1f s; %.1f MB read, disk busy %.1f s (%.2f s unscaled)",
			 r->model[0] ? r->model : "no model", r->scale, r->done_s, r->read_bytes / 1e6,
			 r->busy_s, r->busy_s / r->scale);
		r->svg.note = r->note;
		r->svg.reqs = r->reqs;
		r->svg.nreqs = r->nreqs;
		r->svg.samples = r->samples;
		r->svg.nsamples = r->nsamples;
		r->svg.done = r->done_s;
		r->svg.done_label = "done booting";
		/* After the monitor's last sample the guest is shutting down. */
		r->svg.tmax = r->nsamples ? r->samples[r->nsamples - 1].t : 0;
		svg[k] = r->svg;
		fprintf(stderr, "bp-bootchart: %s: filter clock + %.3f s = guest clock\n",
			r->svg.title, r->offset_s);
	}
	snprintf(sub, sizeof(sub),
		 "QEMU guest, disk served through nbdkit + bootpack-delay; time since the guest "
		 "kernel started; done booting: CPU and disk idle");
	f = fopen(out, "w");
	if (!f || bp_svg_write(f, title, sub, svg, n) | fclose(f)) {
		fprintf(stderr, "bp-bootchart: %s: %s\n", out, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free_runs(runs, n);
	return ret;
usage:
	fprintf(stderr, "usage: bp-bootchart -o OUT.svg [-t TITLE] RUN-DIR[=LABEL]...\n");
	return 2;
}
