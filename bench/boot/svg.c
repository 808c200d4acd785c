// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * svg.c --- bootchart-style SVG of boot disk activity, one column per run
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c.h"
#include "svg.h"

#define FONT "font-family=\"DejaVu Sans,Helvetica,Arial,sans-serif\""
#define C_READ "#2b6cb0"
#define C_WRITE "#dd6b20"
#define C_SEQ "#a0aec0"
#define C_CPU "#38a169"
#define C_IO "#805ad5"
#define C_READER "#ecc94b"
#define C_DONE "#e53e3e"
#define C_GRID "#e2e8f0"
#define C_AXIS "#4a5568"

#define ML 78		/* left margin of a column: y labels */
#define MR 64		/* right margin: the disk map's density strip */
#define PANEL_GAP 46
#define H_THR 120
#define H_SEEK 120
#define H_CPU 90
#define H_MAP 250
#define TOP 150

struct geo {
	double x0, w;		/* plot area of the column */
	double tmax;
	double thr_max;		/* MB/s */
	double seek_max;	/* bytes, log scale from 4 KiB */
	double map_max;		/* bytes */
	int cpu;		/* draw the CPU panel */
	double y_thr, y_seek, y_cpu, y_map, bottom;
};

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else
			fputc(*s, f);
	}
}

/* 1, 2, 2.5, 5 times a power of ten, at least v. */
static double nice_ceil(double v)
{
	static const double m[] = { 1, 2, 2.5, 5, 10 };
	double p;
	size_t i;

	if (v <= 0)
		return 1;
	p = pow(10, floor(log10(v)));
	for (i = 0; i < 5; i++)
		if (m[i] * p >= v * 0.999999)
			return m[i] * p;
	return 10 * p;
}

/* A closer round number for the time axis. */
static double fine_ceil(double v)
{
	static const double m[] = { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
	double p = pow(10, floor(log10(v)));
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++)
		if (m[i] * p >= v * 0.999999)
			return m[i] * p;
	return 10 * p;
}

static int has_type(const struct bp_svg_run *r, char type)
{
	size_t i;

	for (i = 0; i < r->nreqs; i++)
		if (r->reqs[i].type == type)
			return 1;
	return 0;
}

static double nice_step(double max, int n)
{
	return nice_ceil(max / n);
}

static double xt(const struct geo *g, double t)
{
	return g->x0 + (g->tmax > 0 ? t / g->tmax : 0) * g->w;
}

static void fmt_num(char *buf, size_t n, double v)
{
	if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v * 10 - round(v * 10)) < 1e-6)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.2f", v);
}

static void fmt_bytes(char *buf, size_t n, double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, "%.0f %s", v, unit[u]);
}

/* Frame, horizontal grid and y labels (linear), x grid and labels. */
static void panel(FILE *f, const struct geo *g, double y, double h, double ymax, const char *ytitle,
		  const char *unit_fmt)
{
	double step = nice_step(ymax, 4), v, ts = nice_step(g->tmax, 8), t;
	char buf[32];

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
		   "stroke=\"%s\"/>\n", g->x0, y, g->w, h, C_AXIS);
	for (v = 0; unit_fmt && v <= ymax * 1.0001; v += step) {
		double yy = y + h - v / ymax * h;

		fmt_num(buf, sizeof(buf), v);
		if (v > 0)
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				g->x0, g->x0 + g->w, yy, yy, C_GRID);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" "
			   "fill=\"%s\" " FONT ">%s</text>\n", g->x0 - 5, yy + 4, C_AXIS, buf);
	}
	for (t = 0; t <= g->tmax * 1.0001; t += ts) {
		double xx = xt(g, t);

		fmt_num(buf, sizeof(buf), t);
		if (t > 0)
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				xx, xx, y, y + h, C_GRID);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\" "
			   "fill=\"%s\" " FONT ">%s</text>\n", xx, y + h + 13, C_AXIS, buf);
	}
	fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" font-size=\"11\" "
		   "text-anchor=\"middle\" fill=\"%s\" " FONT ">", g->x0 - 48, y + h / 2, C_AXIS);
	esc(f, ytitle);
	fputs("</text>\n", f);
}

/* MB/s of reads (mb[0]) and writes (mb[1]) in nb bins of bw seconds. */
static void bins(const struct bp_svg_run *r, int nb, double bw, double *mb[2])
{
	size_t i;
	int b;

	/* Each request's bytes spread over its service time. */
	for (i = 0; i < r->nreqs; i++) {
		const struct bp_svg_req *q = &r->reqs[i];
		double t0 = q->t, t1 = q->t + (q->dur > 0 ? q->dur : 1e-9);
		double rate = (double)q->length / (t1 - t0);

		if (q->type != 'R' && q->type != 'W')
			continue;
		for (b = (int)(t0 / bw); b < nb && b * bw < t1; b++) {
			double lo = fmax(t0, b * bw), hi = fmin(t1, (b + 1) * bw);

			if (hi > lo && b >= 0)
				mb[q->type == 'W'][b] += rate * (hi - lo) / bw / 1e6;
		}
	}
}

#define NBINS(g) ((int)((g)->w / 3))

static void throughput(FILE *f, const struct geo *g, const struct bp_svg_run *r)
{
	int nb = NBINS(g), b, k;
	double bw = g->tmax / nb, *mb[2];

	panel(f, g, g->y_thr, H_THR, g->thr_max, "disk MB/s", "");
	mb[0] = calloc((size_t)nb, sizeof(double));
	mb[1] = calloc((size_t)nb, sizeof(double));
	if (!mb[0] || !mb[1] || bw <= 0)
		goto out;
	bins(r, nb, bw, mb);
	/* Reads, then writes stacked on them. */
	for (k = 0; k < 2; k++) {
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.8\" stroke=\"none\" d=\"M%.1f %.1f",
			k ? C_WRITE : C_READ, g->x0, g->y_thr + H_THR);
		for (b = 0; b < nb; b++) {
			double v = mb[0][b] + (k ? mb[1][b] : 0), lo = k ? mb[0][b] : 0;
			double y = g->y_thr + H_THR - fmin(v, g->thr_max) / g->thr_max * H_THR;

			(void)lo;
			fprintf(f, " L%.1f %.1f L%.1f %.1f", xt(g, b * bw), y, xt(g, (b + 1) * bw), y);
		}
		fprintf(f, " L%.1f %.1f", xt(g, nb * bw), g->y_thr + H_THR);
		if (k) {
			/* Close along the top of the reads. */
			for (b = nb - 1; b >= 0; b--) {
				double y = g->y_thr + H_THR - fmin(mb[0][b], g->thr_max) / g->thr_max * H_THR;

				fprintf(f, " L%.1f %.1f L%.1f %.1f", xt(g, (b + 1) * bw), y, xt(g, b * bw), y);
			}
		}
		fputs(" Z\"/>\n", f);
	}
out:
	free(mb[0]);
	free(mb[1]);
}

static double yseek(const struct geo *g, double d)
{
	double lo = log2(4096), hi = log2(g->seek_max);

	if (d <= 0)
		return g->y_seek + H_SEEK - 4;	/* sequential: a row of its own */
	return g->y_seek + H_SEEK - 14 - (log2(fmax(d, 4096)) - lo) / (hi - lo) * (H_SEEK - 20);
}

static void seeks(FILE *f, const struct geo *g, const struct bp_svg_run *r)
{
	uint64_t prev = 0;
	int have = 0;
	double d;
	size_t i;
	char buf[32];

	panel(f, g, g->y_seek, H_SEEK, 1, "seek distance", NULL);
	for (d = 4096; d <= g->seek_max * 1.0001; d *= 16) {
		double y = yseek(g, d);

		fmt_bytes(buf, sizeof(buf), d);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			g->x0, g->x0 + g->w, y, y, C_GRID);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
			   "fill=\"%s\" " FONT ">%s</text>\n", g->x0 - 5, y + 4, C_AXIS, buf);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"end\" fill=\"%s\" "
		   FONT ">none</text>\n", g->x0 - 5, g->y_seek + H_SEEK - 1, C_SEQ);
	fputs("<g stroke=\"none\">\n", f);
	for (i = 0; i < r->nreqs; i++) {
		const struct bp_svg_req *q = &r->reqs[i];
		uint64_t dist;

		if (q->type != 'R' && q->type != 'W')
			continue;
		dist = !have ? 0 : q->offset > prev ? q->offset - prev : prev - q->offset;
		if (have && q->t >= 0 && q->t <= g->tmax)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" "
				   "fill-opacity=\"0.55\"/>\n", xt(g, q->t), yseek(g, (double)dist),
				dist ? "2.2" : "1.5", !dist ? C_SEQ : q->type == 'W' ? C_WRITE : C_READ);
		prev = q->offset + q->length;
		have = 1;
	}
	fputs("</g>\n", f);
}

/* Samples averaged over 2-pixel bins (a scaled boot has thousands). */
static void cpu(FILE *f, const struct geo *g, const struct bp_svg_run *r)
{
	int nb = (int)(g->w / 2), b, k, io = 0;
	double bw = g->tmax / nb, y0 = g->y_cpu + H_CPU, *sum[2], *n;
	size_t i;

	panel(f, g, g->y_cpu, H_CPU, 100, "CPU / I/O %", "");
	if (!r->nsamples) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\" " FONT
			   ">no samples</text>\n", g->x0 + 8, g->y_cpu + 18, C_AXIS);
		return;
	}
	sum[0] = calloc((size_t)nb, sizeof(double));
	sum[1] = calloc((size_t)nb, sizeof(double));
	n = calloc((size_t)nb, sizeof(double));
	if (!sum[0] || !sum[1] || !n || bw <= 0)
		goto out;
	for (i = 0; i < r->nsamples; i++) {
		b = (int)(r->samples[i].t / bw);
		if (b < 0 || b >= nb)
			continue;
		sum[0][b] += fmin(fmax(r->samples[i].cpu, 0), 1);
		sum[1][b] += fmin(fmax(r->samples[i].io, 0), 1);
		n[b]++;
		io |= r->samples[i].io >= 0;
	}
	for (k = 0; k < (io ? 2 : 1); k++) {
		int open = 0;

		if (k == 0)
			fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.45\" stroke=\"%s\" "
				   "stroke-width=\"0.8\" d=\"", C_CPU, C_CPU);
		else
			fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\" d=\"", C_IO);
		for (b = 0; b < nb; b++) {
			double y;

			if (!n[b]) {
				if (open && k == 0)
					fprintf(f, " L%.1f %.1f Z", xt(g, b * bw), y0);
				open = 0;
				continue;
			}
			y = y0 - sum[k][b] / n[b] * H_CPU;
			if (!open)
				fprintf(f, " M%.1f %.1f", xt(g, b * bw), k == 0 ? y0 : y);
			fprintf(f, " L%.1f %.1f L%.1f %.1f", xt(g, b * bw), y, xt(g, (b + 1) * bw), y);
			open = 1;
		}
		if (open && k == 0)
			fprintf(f, " L%.1f %.1f Z", xt(g, nb * bw), y0);
		fputs("\"/>\n", f);
	}
out:
	free(sum[0]);
	free(sum[1]);
	free(n);
}

/* Beside the disk map: bytes read per 1/50 of its height, where the boot set lies. */
static void density(FILE *f, const struct geo *g, const struct bp_svg_run *r)
{
	double bin[50] = { 0 }, max = 0, x = g->x0 + g->w + 6, bh = (double)H_MAP / 50;
	size_t i;
	int b;

	for (i = 0; i < r->nreqs; i++) {
		const struct bp_svg_req *q = &r->reqs[i];

		if (q->type == 'R' && q->t >= 0 && q->t <= g->tmax) {
			b = (int)((double)q->offset / g->map_max * 50);
			bin[b < 0 ? 0 : b > 49 ? 49 : b] += (double)q->length;
		}
	}
	for (b = 0; b < 50; b++)
		max = fmax(max, bin[b]);
	if (max <= 0)
		return;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"%s\" " FONT
		   ">bytes read</text>\n", x, g->y_map - 4, C_AXIS);
	for (b = 0; b < 50; b++)
		if (bin[b] > 0)
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"%s\" fill-opacity=\"0.5\"/>\n", x,
				g->y_map + H_MAP - (b + 1) * bh, fmax(bin[b] / max * (MR - 14), 1.0),
				bh - 0.5, C_READ);
}

static void diskmap(FILE *f, const struct geo *g, const struct bp_svg_run *r)
{
	double gib = g->map_max >= 2.0 * (1 << 30), unit = gib ? (double)(1 << 30) : (double)(1 << 20);
	size_t i;

	panel(f, g, g->y_map, H_MAP, g->map_max / unit, gib ? "disk position (GiB)" :
	      "disk position (MiB)", "");
	fputs("<g stroke=\"none\">\n", f);
	for (i = 0; i < r->nreqs; i++) {
		const struct bp_svg_req *q = &r->reqs[i];
		double x = xt(g, q->t), w = fmax(xt(g, q->t + q->dur) - x, 1.6);
		double h = fmax((double)q->length / g->map_max * H_MAP, 1.6);
		double y = g->y_map + H_MAP - (double)(q->offset + q->length) / g->map_max * H_MAP;

		if ((q->type != 'R' && q->type != 'W') || q->t < 0 || q->t > g->tmax)
			continue;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			   "fill-opacity=\"0.7\"/>\n", x, fmax(y, g->y_map), w, h,
			q->type == 'W' ? C_WRITE : C_READ);
	}
	fputs("</g>\n", f);
	density(f, g, r);
}

static void overlays(FILE *f, const struct geo *g, const struct bp_svg_run *r)
{
	double top = g->y_thr - 16, bot = g->bottom;
	char buf[64];

	if (r->reader_start >= 0 && r->reader_end >= r->reader_start) {
		double x0 = xt(g, r->reader_start), x1 = fmax(xt(g, r->reader_end), x0 + 2);

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			   "fill-opacity=\"0.22\"/>\n", x0, top, x1 - x0, bot - top, C_READER);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#975a16\" " FONT
			   ">reader</text>\n", x0 + 2, g->y_thr + 11);
	}
	if (r->done >= 0) {
		double x = xt(g, r->done);

		snprintf(buf, sizeof(buf), "%s %.1f s", r->done_label ? r->done_label : "done",
			 r->done);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			   "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n", x, x, top, bot, C_DONE);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\" "
			   "text-anchor=\"%s\" fill=\"%s\" " FONT ">%s</text>\n",
			x + (x > g->x0 + g->w * 0.7 ? -4 : 4), g->y_thr - 5,
			x > g->x0 + g->w * 0.7 ? "end" : "start", C_DONE, buf);
	}
}

static void legend(FILE *f, double x, double y, int show)
{
	static const struct {
		const char *color, *label;
		int line, need;
	} items[] = {
		{ C_READ, "reads", 0, 0 },
		{ C_WRITE, "writes", 0, 2 },
		{ C_SEQ, "sequential (no seek)", 0, 0 },
		{ C_CPU, "CPU busy", 0, 1 },
		{ C_IO, "I/O pressure (some)", 1, 1 },
		{ C_READER, "reader running", 0, 4 },
		{ C_DONE, "done", 2, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(items); i++) {
		if (items[i].need && !(items[i].need & show))
			continue;
		if (items[i].line)
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"2.5\"%s/>\n", x, x + 16, y - 4, y - 4, items[i].color,
				items[i].line == 2 ? " stroke-dasharray=\"6 3\"" : "");
		else
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"10\" fill=\"%s\" "
				   "fill-opacity=\"0.8\"/>\n", x, y - 9, items[i].color);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\" " FONT ">%s</text>\n",
			x + 21, y, C_AXIS, items[i].label);
		x += 36 + 7.0 * strlen(items[i].label);
	}
}

int bp_svg_write(FILE *f, const char *title, const char *subtitle, const struct bp_svg_run *runs,
		 size_t nruns)
{
	struct geo g = { 0 };
	double width, colw, height;
	int writes = 0, reader = 0;
	size_t i, k;

	g.seek_max = 1 << 30;
	g.map_max = 1 << 20;
	g.thr_max = 1;
	for (k = 0; k < nruns; k++) {
		const struct bp_svg_run *r = &runs[k];

		g.cpu |= r->nsamples > 0;
		if (r->tmax > 0) {
			g.tmax = fmax(g.tmax, r->tmax);
			continue;
		}
		g.tmax = fmax(g.tmax, fmax(r->done, r->reader_end));
		if (r->nsamples)
			g.tmax = fmax(g.tmax, r->samples[r->nsamples - 1].t);
		for (i = 0; i < r->nreqs; i++) {
			const struct bp_svg_req *q = &r->reqs[i];

			g.tmax = fmax(g.tmax, q->t + q->dur);
		}
	}
	for (k = 0; k < nruns; k++)
		for (i = 0; i < runs[k].nreqs; i++)
			if (runs[k].reqs[i].type == 'R' || runs[k].reqs[i].type == 'W')
				g.map_max = fmax(g.map_max, (double)(runs[k].reqs[i].offset +
								     runs[k].reqs[i].length));
	g.tmax = fine_ceil(g.tmax > 0 ? g.tmax * 1.02 : 1);
	while (g.seek_max < g.map_max)
		g.seek_max *= 16;
	g.map_max = nice_ceil(g.map_max / (g.map_max >= 2.0 * (1 << 30) ? (1 << 30) : (1 << 20))) *
		    (g.map_max >= 2.0 * (1 << 30) ? (1 << 30) : (1 << 20));
	colw = nruns > 1 ? 640 : 900;
	g.w = colw - ML - MR;
	/* One throughput scale for all columns: the busiest bin as drawn. */
	for (k = 0; k < nruns; k++) {
		int nb = NBINS(&g), b;
		double *mb[2] = { calloc((size_t)nb, sizeof(double)), calloc((size_t)nb, sizeof(double)) };

		if (!mb[0] || !mb[1]) {
			free(mb[0]);
			free(mb[1]);
			return -1;
		}
		bins(&runs[k], nb, g.tmax / nb, mb);
		for (b = 0; b < nb; b++)
			g.thr_max = fmax(g.thr_max, mb[0][b] + mb[1][b]);
		free(mb[0]);
		free(mb[1]);
		writes |= has_type(&runs[k], 'W');
		reader |= runs[k].reader_start >= 0;
	}
	g.thr_max = nice_ceil(g.thr_max * 1.05);

	width = 36 + colw * (double)nruns;
	g.y_thr = TOP;
	g.y_seek = g.y_thr + H_THR + PANEL_GAP;
	g.y_cpu = g.y_seek + H_SEEK + PANEL_GAP;
	g.y_map = g.y_cpu + (g.cpu ? H_CPU + PANEL_GAP : 0);
	g.bottom = g.y_map + H_MAP;
	height = g.bottom + 60;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"#f7fafc\"/>\n",
		width, height, width, height);
	fprintf(f, "<text x=\"20\" y=\"32\" font-size=\"20\" font-weight=\"bold\" fill=\"#1a202c\" "
		   FONT ">");
	esc(f, title);
	fputs("</text>\n", f);
	if (subtitle) {
		fprintf(f, "<text x=\"20\" y=\"54\" font-size=\"12\" fill=\"%s\" " FONT ">", C_AXIS);
		esc(f, subtitle);
		fputs("</text>\n", f);
	}
	legend(f, 20, 80, (g.cpu ? 1 : 0) | (writes ? 2 : 0) | (reader ? 4 : 0));

	for (k = 0; k < nruns; k++) {
		const struct bp_svg_run *r = &runs[k];

		g.x0 = 20 + colw * (double)k + ML;
		g.w = colw - ML - MR;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\" "
			   "fill=\"#1a202c\" " FONT ">", g.x0, TOP - 46.0);
		esc(f, r->title);
		fputs("</text>\n", f);
		if (r->note) {
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\" " FONT ">",
				g.x0, TOP - 30.0, C_AXIS);
			esc(f, r->note);
			fputs("</text>\n", f);
		}
		throughput(f, &g, r);
		seeks(f, &g, r);
		if (g.cpu)
			cpu(f, &g, r);
		diskmap(f, &g, r);
		overlays(f, &g, r);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
			   "fill=\"%s\" " FONT ">time (s)</text>\n", g.x0 + g.w / 2, g.bottom + 30,
			C_AXIS);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
