// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-trace.c --- make bench-trace: parse and resolve a synthetic text
 * trace of N events against a fixture image, report wall and CPU time
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "fsident.h"
#include "trace-engine.h"

struct target {
	ext2_ino_t ino;
	uint64_t pages;		/* file size in pages */
	uint64_t cursor;	/* next page read: files are read mostly forward */
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Regular files with data, from an inode scan (libext2fs). */
static int list_files(const char *img, struct target **ret, size_t *n)
{
	ext2_inode_scan scan;
	struct ext2_inode inode;
	struct target *v = NULL;
	ext2_filsys fs;
	ext2_ino_t ino;
	size_t cap = 0;

	*n = 0;
	if (bp_fs_open_ro(img, &fs, NULL))
		return -1;
	if (ext2fs_open_inode_scan(fs, 0, &scan)) {
		ext2fs_close_free(&fs);
		return -1;
	}
	while (ext2fs_get_next_inode(scan, &ino, &inode) == 0 && ino) {
		if (!LINUX_S_ISREG(inode.i_mode) || !inode.i_links_count ||
		    !EXT2_I_SIZE(&inode) || (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				return -1;
		}
		v[*n].ino = ino;
		v[*n].pages = DIV_ROUND_UP(EXT2_I_SIZE(&inode), 4096);
		v[*n].cursor = 0;
		(*n)++;
	}
	ext2fs_close_inode_scan(scan);
	ext2fs_close_free(&fs);
	*ret = v;
	return *n ? 0 : -1;
}

/* N events in the kernel's text format, on device 8:1 (kdev 0x800001). */
static int synthesize(const char *path, struct target *t, size_t nt, unsigned long nev)
{
	uint64_t ts = 2000000;	/* microseconds */
	unsigned long i = 0;
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fprintf(fp, "# tracer: nop\n#\n# entries-in-buffer/entries-written: %lu/%lu   #P:2\n#\n",
		nev, nev);
	while (i < nev) {
		struct target *f = &t[next_rand() % nt];
		uint64_t r = next_rand(), pg, order = r % 3, len;

		ts += 1 + (r >> 8) % 40;
		if (r % 20 == 0) {	/* metadata through the block device */
			fprintf(fp, "   systemd-1  [000] .....  %" PRIu64 ".%06" PRIu64
				": mm_filemap_add_to_page_cache: dev 0:3 ino 800001 pfn=0x1 "
				"ofs=%" PRIu64 " order=0\n",
				ts / 1000000, ts % 1000000, (r >> 20) % 16384 * 4096);
			i++;
			continue;
		}
		if (f->cursor >= f->pages)
			f->cursor = (r >> 32) % f->pages;
		pg = f->cursor;
		len = MIN((uint64_t)1 << order, f->pages - pg);
		fprintf(fp, "   systemd-1  [001] .....  %" PRIu64 ".%06" PRIu64
			": mm_filemap_add_to_page_cache: dev 8:1 ino %x pfn=0x1 ofs=%" PRIu64
			" order=%" PRIu64 "\n",
			ts / 1000000, ts % 1000000, f->ino, pg * 4096, len == 1 ? 0 : order);
		i++;
		if (i == nev)
			break;
		if (r % 10 == 1)
			fprintf(fp, "   systemd-1  [001] .....  %" PRIu64 ".%06" PRIu64
				": mm_filemap_fault: dev=8:1 ino=%x ofs=%" PRIu64 "\n",
				ts / 1000000, ts % 1000000, f->ino, pg * 4096);
		else
			fprintf(fp, "   systemd-1  [001] .....  %" PRIu64 ".%06" PRIu64
				": mm_filemap_%s: dev=8:1 ino=%x ofs=%" PRIu64 "-%" PRIu64 "\n",
				ts / 1000000, ts % 1000000, r % 3 ? "get_pages" : "map_pages",
				f->ino, pg * 4096, (pg + len) * 4096 - 1);
		i++;
		f->cursor = pg + len + (r % 7 == 0 ? 3 : 0);	/* some skipped pages */
	}
	return fclose(fp);
}

int main(int argc, char **argv)
{
	double w0, c0, w1, c1, w2, c2, w3, c3;
	struct bp_resolve_stats st;
	struct bp_collected col;
	struct bp_err err = { 0 };
	struct bp_collect *c;
	struct bp_trace *t, *u;
	struct target *tg;
	unsigned long nev;
	char text[] = "/tmp/bp-bench-trace.XXXXXX";
	char out[64];
	size_t nt, i, nr = 0;
	FILE *fp;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: bench-trace IMAGE EVENTS\n");
		return 2;
	}
	add_error_table(&et_bp_error_table);
	initialize_ext2_error_table();
	nev = strtoul(argv[2], NULL, 10);
	if (list_files(argv[1], &tg, &nt) < 0) {
		fprintf(stderr, "bench-trace: %s: no regular files found\n", argv[1]);
		return 1;
	}
	fd = mkstemp(text);
	if (fd < 0)
		return 1;
	close(fd);
	if (synthesize(text, tg, nt, nev) < 0)
		return 1;
	snprintf(out, sizeof(out), "%s.trace", text);

	c = bp_collect_new();
	fp = fopen(text, "r");
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (!c || !fp || bp_parse_text(fp, text, c, &err)) {
		fprintf(stderr, "bench-trace: %s\n", bp_err_str(&err));
		return 1;
	}
	w1 = now(CLOCK_MONOTONIC);
	c1 = now(CLOCK_PROCESS_CPUTIME_ID);
	t = bp_trace_new();
	if (bp_collect_finish(c, BP_KDEV(8, 1), &col, &err) ||
	    bp_resolve(&col, argv[1], INT64_MIN, t, &st, &err)) {
		fprintf(stderr, "bench-trace: %s\n", bp_err_str(&err));
		return 1;
	}
	w2 = now(CLOCK_MONOTONIC);
	c2 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (bp_trace_save(t, out, &err) || bp_trace_load(out, &u, &err)) {
		fprintf(stderr, "bench-trace: %s\n", bp_err_str(&err));
		return 1;
	}
	w3 = now(CLOCK_MONOTONIC);
	c3 = now(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < t->nfiles; i++)
		nr += t->files[i].nranges;
	printf("bench-trace: %lu events (%" PRIu64 " kept), %zu candidate files on %s\n",
	       nev, bp_collect_nevents(c), nt, argv[1]);
	printf("  result: %zu files, %zu ranges, %zu metadata ranges\n", t->nfiles, nr, t->nmeta);
	printf("  parse text:             wall %.3f s, cpu %.3f s\n", w1 - w0, c1 - c0);
	printf("  collect + resolve:      wall %.3f s, cpu %.3f s\n", w2 - w1, c2 - c1);
	printf("  parse + resolve total:  wall %.3f s, cpu %.3f s\n", w2 - w0, c2 - c0);
	printf("  save + load trace file: wall %.3f s, cpu %.3f s\n", w3 - w2, c3 - c2);
	fclose(fp);
	unlink(text);
	unlink(out);
	bp_collected_free(&col);
	bp_collect_free(c);
	bp_trace_free(t);
	bp_trace_free(u);
	free(tg);
	return 0;
}
