// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * find.c --- the root filesystem of a disk image: libblkid's partition
 * probing (GPT, MBR), the root type GUID of this architecture, a label,
 * or the image's own /etc/fstab read with libext2fs
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <blkid/blkid.h>
#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "c.h"
#include "fsident.h"
#include "image.h"

#define MAX_PARTS 128
#define FSTAB_MAX (64 * 1024)

/* The Discoverable Partitions Specification's root types. */
#if defined(__x86_64__)
#define ROOT_TYPE "4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
#elif defined(__aarch64__)
#define ROOT_TYPE "b921b045-1df0-41c3-af44-4c6f280d3fae"
#elif defined(__i386__)
#define ROOT_TYPE "44479540-f297-41b2-9af7-d131d5f0458a"
#elif defined(__arm__)
#define ROOT_TYPE "69dad710-2ce4-4e3c-b16c-21a1d49abed3"
#elif defined(__riscv) && __riscv_xlen == 64
#define ROOT_TYPE "72ec70a6-cf74-40e6-bd49-4bda08e8f224"
#else
#define ROOT_TYPE ""
#endif

static const char *const default_labels[] = { "root", "rootfs", "cloudimg-rootfs" };

struct cand {
	uint64_t offset, size;
	unsigned int partno;
	char type[16], label[64], uuid[40], ptype[40], pname[64], partuuid[40];
};

static void copy_value(blkid_probe pr, const char *name, char *buf, size_t len)
{
	const char *v = NULL;

	buf[0] = 0;
	if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0 && v)
		snprintf(buf, len, "%s", v);
}

static int is_ext(const char *type)
{
	return !strcmp(type, "ext2") || !strcmp(type, "ext3") || !strcmp(type, "ext4");
}

/* Probe the filesystem in [off, off + size) of fd: type, label, UUID. */
static void probe_fs(int fd, uint64_t off, uint64_t size, struct cand *c)
{
	blkid_probe pr = blkid_new_probe();

	c->type[0] = c->label[0] = c->uuid[0] = 0;
	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL |
							      BLKID_SUBLKS_UUID);
		blkid_probe_enable_partitions(pr, 0);
		if (blkid_do_safeprobe(pr) == 0) {
			copy_value(pr, "TYPE", c->type, sizeof(c->type));
			copy_value(pr, "LABEL", c->label, sizeof(c->label));
			copy_value(pr, "UUID", c->uuid, sizeof(c->uuid));
		}
	}
	blkid_free_probe(pr);
}

/* Read /etc/fstab of the candidate: 1 if it mounts this filesystem on "/". */
static int fstab_names_root(const char *image, const struct cand *c)
{
	struct bp_fsloc loc = { image, c->offset };
	struct bp_err err = { 0 };
	ext2_filsys fs = NULL;
	char *buf = NULL, *line, *save = NULL;
	int found = 0;

	if (bp_fs_open_ro_at(&loc, &fs, &err))
		return 0;
	buf = calloc(1, FSTAB_MAX + 1);
	if (!buf || bp_fsw_read(fs, "/etc/fstab", buf, FSTAB_MAX + 1, NULL))
		goto out;
	for (line = strtok_r(buf, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char spec[256], mnt[256];

		if (sscanf(line, " %255s %255s", spec, mnt) != 2 || spec[0] == '#' ||
		    strcmp(mnt, "/"))
			continue;
		if (!strncmp(spec, "UUID=", 5))
			found = !strcasecmp(spec + 5, c->uuid);
		else if (!strncmp(spec, "LABEL=", 6))
			found = !strcmp(spec + 6, c->label);
		else if (!strncmp(spec, "PARTUUID=", 9))
			found = !strcasecmp(spec + 9, c->partuuid);
		else if (!strncmp(spec, "PARTLABEL=", 10))
			found = !strcmp(spec + 10, c->pname);
		else
			found = spec[0] == '/';	/* a device name: its own fstab says it is "/" */
	}
out:
	free(buf);
	ext2fs_close_free(&fs);
	return found;
}

static int label_matches(const struct cand *c, const char *label)
{
	size_t i;

	if (label)
		return !strcmp(c->label, label) || !strcmp(c->pname, label);
	for (i = 0; i < ARRAY_SIZE(default_labels); i++)
		if (!strcmp(c->label, default_labels[i]) || !strcmp(c->pname, default_labels[i]))
			return 1;
	return 0;
}

static void take(struct bp_image_root *r, const struct cand *c, const char *how)
{
	r->offset = c->offset;
	r->size = c->size;
	r->partno = c->partno;
	r->how = how;
	snprintf(r->type, sizeof(r->type), "%s", c->type);
	snprintf(r->label, sizeof(r->label), "%s", c->label);
	snprintf(r->uuid, sizeof(r->uuid), "%s", c->uuid);
}

/* Of the candidates, the one pick() says; -1 none, -2 several. */
static int pick_one(const struct cand *c, size_t n, int (*pick)(const struct cand *, const void *),
		    const void *ctx)
{
	int found = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (pick(&c[i], ctx))
			found = found == -1 ? (int)i : -2;
	return found;
}

static int pick_type(const struct cand *c, const void *ctx _unused_)
{
	return ROOT_TYPE[0] && !strcasecmp(c->ptype, ROOT_TYPE);
}

static int pick_label(const struct cand *c, const void *ctx)
{
	return label_matches(c, ctx);
}

static int pick_fstab(const struct cand *c, const void *ctx)
{
	return fstab_names_root(ctx, c);
}

static errcode_t choose(const char *image, const char *label, struct cand *ext, size_t next,
			struct bp_image_root *r, const char *found, struct bp_err *err)
{
	int i;

	if (!next)
		return bp_err_set(err, BP_ET_NO_FS,
				  "%s: no ext2/ext3/ext4 root filesystem in its %s partition table "
				  "(%s); bootpack image relays out ext2/3/4 roots only",
				  image, r->pttype, found[0] ? found : "no partitions");
	if ((i = pick_one(ext, next, pick_type, NULL)) >= 0) {
		take(r, &ext[i], "gpt-root-type");
		return 0;
	}
	if ((i = pick_one(ext, next, pick_label, label)) >= 0) {
		take(r, &ext[i], "label");
		return 0;
	}
	if (label)
		return bp_err_set(err, BP_ET_NO_FS,
				  "%s: no single ext2/3/4 partition labelled '%s' (found: %s)",
				  image, label, found);
	if ((i = pick_one(ext, next, pick_fstab, image)) >= 0) {
		take(r, &ext[i], "fstab");
		return 0;
	}
	if (next == 1) {
		take(r, &ext[0], "only-ext");
		return 0;
	}
	return bp_err_set(err, BP_ET_AMBIVALENT,
			  "%s: several ext2/3/4 partitions and none is marked as the root (found: "
			  "%s); name it with --root-label LABEL",
			  image, found);
}

/* A disk image format other than raw, by its magic: its name, or NULL. */
static const char *not_raw(int fd)
{
	static const struct {
		const char *magic, *name;
		size_t len;
	} fmts[] = {
		{ "QFI\xfb", "qcow2", 4 },
		{ "KDMV", "VMDK", 4 },
		{ "vhdxfile", "VHDX", 8 },
		{ "conectix", "VHD", 8 },
	};
	char head[8];
	size_t i;

	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(fmts); i++)
		if (!memcmp(head, fmts[i].magic, fmts[i].len))
			return fmts[i].name;
	return NULL;
}

/* An extent of the table, kept for the checks once the root is chosen. */
struct extent {
	uint64_t offset, size;
	unsigned int partno;
	int container;		/* an MBR extended partition: holds others by design */
};

/*
 * The table itself, before anything is chosen or written: a partition
 * past the end of the file (an image cut short: its root may be the one
 * left out, another taken in its place), and the root overlapping another
 * partition (a write to one would change the other).
 */
static errcode_t check_table(const char *image, const struct extent *all, size_t n,
			     uint64_t size, const struct bp_image_root *r, struct bp_err *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (all[i].offset > size || all[i].size > size - all[i].offset)
			return bp_err_set(err, BP_ET_FS_TOO_BIG,
					  "%s: partition %u (bytes %llu to %llu) ends past the end "
					  "of the file (%llu bytes): the image is cut short; restore "
					  "it whole, or fix its partition table",
					  image, all[i].partno, (unsigned long long)all[i].offset,
					  (unsigned long long)(all[i].offset + all[i].size),
					  (unsigned long long)size);
	if (!r)
		return 0;
	for (i = 0; i < n; i++) {
		const struct extent *e = &all[i];

		if (e->partno == r->partno || e->container)
			continue;
		if (e->offset < r->offset + r->size && r->offset < e->offset + e->size)
			return bp_err_set(err, BP_ET_UNSUPPORTED,
					  "%s: the root, partition %u (bytes %llu to %llu), overlaps "
					  "partition %u (bytes %llu to %llu): a write to one would "
					  "change the other; fix the partition table first",
					  image, r->partno, (unsigned long long)r->offset,
					  (unsigned long long)(r->offset + r->size), e->partno,
					  (unsigned long long)e->offset,
					  (unsigned long long)(e->offset + e->size));
	}
	return 0;
}

errcode_t bp_image_find_root(const char *image, const char *label, struct bp_image_root *r,
			     struct bp_err *err)
{
	struct extent all[MAX_PARTS];
	size_t nall = 0;
	unsigned int root_typed = 0;	/* a partition of the root type that is not ext */
	char root_typed_fs[16] = "";
	const char *fmt;
	struct cand whole = { 0 }, *ext = NULL;
	blkid_partlist ls;
	blkid_probe pr = NULL;
	char found[1024];
	size_t next = 0, flen = 0;
	errcode_t rc;
	off_t size;
	int fd, i, n;

	memset(r, 0, sizeof(*r));
	found[0] = 0;
	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bp_err_lib(err, errno, "while opening %s", image);
	size = lseek(fd, 0, SEEK_END);
	if (size < 0) {
		rc = bp_err_lib(err, errno, "while reading %s", image);
		goto out;
	}
	fmt = not_raw(fd);
	if (fmt) {
		rc = bp_err_set(err, BP_ET_NO_FS,
				"%s: is a %s image, not a raw disk image: convert it first "
				"(qemu-img convert -O raw %s IMAGE.raw), run bootpack image on the "
				"raw image, and convert that back",
				image, fmt, image);
		goto out;
	}
	/* A bare filesystem image is its own root. */
	probe_fs(fd, 0, (uint64_t)size, &whole);
	if (is_ext(whole.type)) {
		whole.size = (uint64_t)size;
		take(r, &whole, "bare");
		rc = 0;
		goto out;
	}
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		rc = bp_err_set(err, ENOMEM, "%s: cannot probe", image);
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	ls = blkid_do_safeprobe(pr) == 0 ? blkid_probe_get_partitions(pr) : NULL;
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	if (!ls || n <= 0) {
		rc = bp_err_set(err, BP_ET_NO_FS,
				"%s: neither an ext2/3/4 filesystem image (%s) nor a disk image with a "
				"partition table; bootpack image relays out ext2/3/4 roots only",
				image, whole.type[0] ? whole.type : "no filesystem signature");
		goto out;
	}
	if (n > MAX_PARTS)
		n = MAX_PARTS;
	{
		blkid_parttable tab = blkid_partlist_get_table(ls);
		const char *pt = tab ? blkid_parttable_get_type(tab) : NULL;

		snprintf(r->pttype, sizeof(r->pttype), "%s", pt ? pt : "");
	}
	r->nparts = (unsigned int)n;
	ext = calloc((size_t)n, sizeof(*ext));
	if (!ext) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		blkid_partition p = blkid_partlist_get_partition(ls, i);
		struct cand *c = &ext[next];
		const char *s;

		memset(c, 0, sizeof(*c));
		c->offset = (uint64_t)blkid_partition_get_start(p) * 512;
		c->size = (uint64_t)blkid_partition_get_size(p) * 512;
		c->partno = (unsigned int)blkid_partition_get_partno(p);
		if ((s = blkid_partition_get_type_string(p)))
			snprintf(c->ptype, sizeof(c->ptype), "%s", s);
		if ((s = blkid_partition_get_name(p)))
			snprintf(c->pname, sizeof(c->pname), "%s", s);
		if ((s = blkid_partition_get_uuid(p)))
			snprintf(c->partuuid, sizeof(c->partuuid), "%s", s);
		if (nall < ARRAY_SIZE(all)) {
			all[nall].offset = c->offset;
			all[nall].size = c->size;
			all[nall].partno = c->partno;
			all[nall++].container = blkid_partition_is_extended(p);
		}
		if (c->offset + c->size > (uint64_t)size || !c->size)
			continue;	/* beyond the end of a truncated image: refused below */
		probe_fs(fd, c->offset, c->size, c);
		if (!root_typed && ROOT_TYPE[0] && !strcasecmp(c->ptype, ROOT_TYPE) &&
		    !is_ext(c->type)) {
			root_typed = c->partno;
			snprintf(root_typed_fs, sizeof(root_typed_fs), "%s", c->type);
		}
		if (flen < sizeof(found))
			flen += (size_t)snprintf(found + flen, sizeof(found) - flen, "%s%u: %s",
						 flen ? ", " : "", c->partno,
						 c->type[0] ? c->type : "no filesystem");
		if (is_ext(c->type))
			next++;
	}
	rc = check_table(image, all, nall, (uint64_t)size, NULL, err);
	if (!rc)
		rc = choose(image, label, ext, next, r, found, err);
	if (!rc)
		rc = check_table(image, all, nall, (uint64_t)size, r, err);
	/* The table says where the root is: another ext partition is not it. */
	if (!rc && root_typed && !label && strcmp(r->how, "gpt-root-type"))
		rc = bp_err_set(err, BP_ET_NO_FS,
				"%s: partition %u has the root partition type but holds %s, not "
				"ext2/3/4 (partition %u, found by %s, is not the root); bootpack "
				"image relays out ext2/3/4 roots only (--root-label LABEL names "
				"another root)",
				image, root_typed, root_typed_fs[0] ? root_typed_fs : "no filesystem",
				r->partno, r->how);
out:
	free(ext);
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return rc;
}
