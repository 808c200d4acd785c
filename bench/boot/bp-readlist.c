// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-readlist.c --- write the read list of the boot bench's readers from a trace
 *
 *   bp-readlist --trace TRACE [--device GUEST-DEV] [-o LIST] IMAGE
 *
 * Host side: every file range of the trace, in first-access order, mapped
 * on IMAGE now with libext2fs and cut where it stops being physically
 * contiguous, with the position of the file's inode; and the inode table of
 * every block group that holds listed files. Format: rdlist.h. Files that
 * changed since the trace (the rule of fileid.h: inode, generation, size,
 * mtime), and paths with a TAB or newline, are left out and counted on
 * stderr. Exit 0, 1 on failure, 2 on bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "ext2file.h"
#include "fsident.h"
#include "tracefile.h"

struct out {
	FILE *f;
	const char *path;
	uint64_t inode_pos;
	uint64_t off, len, phys;	/* the run being built */
	uint64_t ranges;
};

static void flush_run(struct out *o)
{
	if (!o->len)
		return;
	fprintf(o->f, "%s\t%llu\t%llu\t%llu\t%llu\n", o->path, (unsigned long long)o->off,
		(unsigned long long)o->len, (unsigned long long)o->phys,
		(unsigned long long)o->inode_pos);
	o->ranges++;
	o->len = 0;
}

/* Blocks [lblk, lblk + n) of the file lie at pblk: extend the run or start a new one. */
static void add_blocks(struct out *o, uint64_t bs, uint64_t lblk, uint64_t pblk, uint64_t n,
		       uint64_t size)
{
	uint64_t off = lblk * bs, len = n * bs;

	if (off + len > size)
		len = size > off ? size - off : 0;
	if (!len)
		return;
	if (o->len && o->off + o->len == off && o->phys + o->len == pblk * bs) {
		o->len += len;
		return;
	}
	flush_run(o);
	o->off = off;
	o->len = len;
	o->phys = pblk * bs;
}

static uint64_t inode_pos(ext2_filsys fs, ext2_ino_t ino)
{
	dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;
	uint64_t idx = (ino - 1) % fs->super->s_inodes_per_group;

	return (uint64_t)ext2fs_inode_table_loc(fs, g) * fs->blocksize +
	       idx * EXT2_INODE_SIZE(fs->super);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *trace_path = NULL, *device = NULL, *out_path = NULL;
	struct bp_trace_ref *refs = NULL;
	struct bp_err err = { 0 };
	struct bp_trace *t = NULL;
	struct out o = { 0 };
	ext2_filsys fs = NULL;
	uint64_t *groups = NULL, stale = 0, odd = 0;
	const struct bp_trace_file *cur = NULL;
	struct ext2_inode_large inode;
	struct bp_ext2_map map = { 0 };
	struct bp_file_id then;
	size_t nrefs = 0, i;
	dgrp_t g;
	int c, cur_ok = 0;

	while ((c = getopt_long(argc, argv, "t:d:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace_path = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!trace_path || optind != argc - 1)
		goto usage;
	add_error_table(&et_ext2_error_table);
	if (bp_trace_load(trace_path, &t, &err)) {
		fprintf(stderr, "bp-readlist: %s\n", err.msg);
		return 1;
	}
	if (bp_fs_open_ro(argv[optind], &fs, &err) ||
	    bp_fs_check_ident(fs, argv[optind], "trace", t->hdr.uuid, t->hdr.block_size, &err)) {
		fprintf(stderr, "bp-readlist: %s\n", err.msg);
		return 1;
	}
	groups = calloc(fs->group_desc_count, sizeof(*groups));
	if (!groups || bp_trace_ranges_by_time(t, &refs, &nrefs)) {
		fprintf(stderr, "bp-readlist: out of memory\n");
		return 1;
	}
	o.f = out_path ? fopen(out_path, "w") : stdout;
	if (!o.f) {
		perror(out_path);
		return 1;
	}

	/* Groups first (counted over the files kept). */
	for (i = 0; i < t->nfiles; i++) {
		const struct bp_trace_file *f = &t->files[i];

		then = bp_trace_file_id(f);
		if (strpbrk(f->path, "\t\n") || !bp_ext2_file_unchanged(fs, &then, 0, &inode))
			continue;
		groups[(f->ino - 1) / fs->super->s_inodes_per_group]++;
	}
	fprintf(o.f, "# bootpack bench read list: %s on %s\n", trace_path, argv[optind]);
	if (device)
		fprintf(o.f, "D\t%s\n", device);
	for (g = 0; g < fs->group_desc_count; g++)
		if (groups[g])
			fprintf(o.f, "I\t%llu\t%llu\t%llu\n",
				(unsigned long long)ext2fs_inode_table_loc(fs, g) * fs->blocksize,
				(unsigned long long)fs->inode_blocks_per_group * fs->blocksize,
				(unsigned long long)groups[g]);

	for (i = 0; i < nrefs; i++) {
		const struct bp_trace_file *f = refs[i].file;
		const struct bp_trace_range *r = refs[i].range;
		uint64_t bs = fs->blocksize, lblk, last, size;

		if (f != cur) {
			flush_run(&o);
			cur = f;
			cur_ok = 0;
			then = bp_trace_file_id(f);
			if (strpbrk(f->path, "\t\n"))
				odd++;
			else if (!bp_ext2_file_unchanged(fs, &then, 0, &inode) ||
				 bp_ext2_map_load(fs, f->ino, &inode, &map))
				stale++;
			else
				cur_ok = 1;
			o.path = f->path;
			o.inode_pos = inode_pos(fs, f->ino);
		}
		if (!cur_ok || !r->length)
			continue;
		size = EXT2_I_SIZE(&inode);
		last = (r->offset + r->length - 1) / bs;
		for (lblk = r->offset / bs; lblk <= last && lblk * bs < size;) {
			uint64_t pblk, n = bp_ext2_map_find(&map, lblk, &pblk);

			n = n < last - lblk + 1 ? n : last - lblk + 1;
			if (pblk)	/* else a hole or unwritten: nothing on disk */
				add_blocks(&o, bs, lblk, pblk, n, size);
			lblk += n;
		}
	}
	flush_run(&o);
	if (ferror(o.f) | (o.f != stdout ? fclose(o.f) : fflush(o.f))) {
		fprintf(stderr, "bp-readlist: write error\n");
		return 1;
	}
	fprintf(stderr, "bp-readlist: %llu ranges; %llu changed files and %llu odd paths left out\n",
		(unsigned long long)o.ranges, (unsigned long long)stale, (unsigned long long)odd);
	bp_ext2_map_free(&map);
	free(refs);
	free(groups);
	ext2fs_close_free(&fs);
	bp_trace_free(t);
	return 0;
usage:
	fprintf(stderr, "usage: bp-readlist --trace TRACE [--device GUEST-DEV] [-o LIST] IMAGE\n");
	return 2;
}
