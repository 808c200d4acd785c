/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-format.h --- the readahead pack: on-disk format, version 1
 *
 * The pack is what bootpack-read streams at boot. It is written by
 * `bootpack pack` (and by relayout after it moves blocks) and parsed by
 * readahead-pack/parse/pack-parse.c, which bootpack-read links statically: this
 * header uses nothing but <stdint.h> and <string.h>.
 *
 * Layout of a pack file (all integers little-endian, fixed width; nothing is
 * ever written as a native C struct):
 *
 *   +--------------------------------+  offset 0
 *   | header (struct bp_pack_header) |  hdr_size bytes (128 or 136 in version 1)
 *   +--------------------------------+  offset hdr_size
 *   | body, as stored                |  body_size bytes; a zlib stream
 *   |                                |  (RFC 1950 deflate) when the incompat
 *   |                                |  feature DEFLATE is set, else raw
 *   +--------------------------------+  end of file (nothing may follow)
 *
 * The body, once inflated, is exactly body_raw_size bytes:
 *
 *   meta[nmeta]         struct bp_pack_meta_rec, 24 bytes each, sorted by
 *                       offset, not overlapping: physical byte ranges of the
 *                       block device (inode tables, directories, extent
 *                       blocks), read through the device, first
 *   entry[nentries]     struct bp_pack_entry_rec, 72 bytes each, sorted by
 *                       phys (then ino, then offset): one physically
 *                       contiguous byte range of one regular file
 *   strtab[strtab_size] the string table: paths, each followed by a NUL;
 *                       entries point into it with (path_off, path_len),
 *                       entries of the same file share one string
 *
 * Integrity: header_crc is the zlib crc32() of the hdr_size header bytes with
 * the header_crc field taken as zero; body_crc is the crc32() of the body as
 * stored (compressed if DEFLATE), so a corrupt pack is refused before it is
 * inflated.
 *
 * Paths are relative to the root of the packed filesystem, absolute
 * ("/usr/bin/sh") and normalized: no empty, "." or ".." component, no
 * trailing '/', no NUL inside, at most BP_PACK_PATH_MAX - 1 bytes. A parser
 * refuses a pack with any other path.
 *
 * Budget: every range (metadata and file) carries budget_pos, the number of
 * bytes admitted in first-access order up to and including this range. A
 * reader that must read less (little free memory) skips every range whose
 * budget_pos exceeds its own, smaller budget: that keeps the earliest-used
 * bytes, whatever the physical order. Sorting by budget_pos gives the
 * first-access order.
 *
 * Staleness: each entry has the file's inode number, generation, size and
 * mtime when the pack was written; a reader that sees another (st_ino, size,
 * mtime) — or, with FS_IOC_GETVERSION, generation — skips the entry.
 *
 * Page size: the kernel reads whole pages, so the writer rounds each file
 * range out to the page size of the machine the pack is for (the running
 * system's, or `bootpack pack --page-size`) and counts the budget in those
 * pages. The header records it (page_size, with COMPAT_PAGE_SIZE, in a
 * header of 136 bytes); a pack without the bit was built for 4096-byte
 * pages. A reader on a machine with larger pages rounds the ranges out to
 * its own pages; one with smaller pages reads them as recorded. Older
 * readers ignore the compat bit and the longer header (hdr_size and the
 * header CRC cover it), which is why this is a compat feature: the ranges
 * mean the same bytes on every page size.
 *
 * Features, as in ext4 and e2undo: a reader ignores unknown compat bits,
 * may read a pack with unknown ro_compat bits (it must not rewrite it), and
 * refuses one with unknown incompat bits.
 */
#ifndef BP_PACK_FORMAT_H
#define BP_PACK_FORMAT_H

#include <stdint.h>
#include <string.h>

#define BP_PACK_MAGIC		"BOOTPACK"	/* 8 bytes, no NUL */
#define BP_PACK_MAGIC_LEN	8
#define BP_PACK_VERSION		1
#define BP_PACK_HDR_SIZE_MIN	128		/* the smallest header: version 1 as first written */
#define BP_PACK_HDR_SIZE	136		/* header size written now (page_size) */
#define BP_PACK_HDR_SIZE_MAX	4096		/* larger headers are refused */

/* Default location, for writer and reader alike. */
#define BP_PACK_DEFAULT_PATH	BP_STATEDIR "/pack"	/* configure --with-statedir */

/* compat: informational, ignored by readers that do not know them */
#define BP_PACK_COMPAT_MTIME_NSEC	0x00000001	/* mtime_nsec fields are meaningful */
#define BP_PACK_COMPAT_RELAYOUT		0x00000002	/* written by relayout after it moved blocks */
#define BP_PACK_COMPAT_PAGE_SIZE	0x00000004	/* page_size (offset 128) is meaningful */
/*
 * Bits 3-4: the budget was decided automatically (bootpack-pack(8), --budget
 * auto) and this term bound it: 1 the traced bytes, 2 the memory, 3 the
 * disk's rate x the boot's time; 0: a budget given as a size.
 */
#define BP_PACK_COMPAT_BUDGET_SHIFT	3
#define BP_PACK_COMPAT_BUDGET_MASK	0x00000018

/* Page sizes: without COMPAT_PAGE_SIZE a pack was built for 4096-byte pages. */
#define BP_PACK_PAGE_SIZE_DEFAULT	4096
#define BP_PACK_PAGE_SIZE_MIN		4096
#define BP_PACK_PAGE_SIZE_MAX		(256U << 10)	/* hexagon's largest; arm64, ppc64: 64 KiB */

/* incompat: a reader that does not know one must refuse the pack */
#define BP_PACK_INCOMPAT_DEFLATE	0x00000001	/* body is a zlib stream */
#define BP_PACK_INCOMPAT_SUPP		(BP_PACK_INCOMPAT_DEFLATE)

/* ro_compat: none defined yet */

/* phys of an entry whose physical position is unknown (never written by v1) */
#define BP_PACK_PHYS_NONE	UINT64_MAX

/*
 * Hard limits. A pack beyond any of them is refused by the parser; the
 * writer never produces one.
 */
#define BP_PACK_MAX_META	(1U << 20)		/* metadata ranges */
#define BP_PACK_MAX_ENTRIES	(1U << 20)		/* file entries */
#define BP_PACK_MAX_STRTAB	(32U << 20)		/* string table bytes */
#define BP_PACK_PATH_MAX	4096			/* path bytes, with the NUL */
#define BP_PACK_MAX_BODY	(128ULL << 20)		/* inflated body bytes */
#define BP_PACK_MAX_FILE	(BP_PACK_MAX_BODY + BP_PACK_HDR_SIZE_MAX) /* file size */
#define BP_PACK_MAX_RANGE	(1ULL << 40)		/* length of one range */

/*
 * The header, 136 bytes (128 in packs without COMPAT_PAGE_SIZE). Offsets on
 * the left; every field little-endian.
 * This struct documents the layout; code reads and writes it field by field
 * with the helpers below, never with fread/fwrite of the struct.
 */
struct bp_pack_header {
	uint8_t  magic[8];		/*   0: "BOOTPACK" */
	uint32_t version;		/*   8: BP_PACK_VERSION */
	uint32_t hdr_size;		/*  12: bytes of header; the body starts here */
	uint32_t feature_compat;	/*  16: BP_PACK_COMPAT_* */
	uint32_t feature_incompat;	/*  20: BP_PACK_INCOMPAT_* */
	uint32_t feature_ro_compat;	/*  24: BP_PACK_RO_COMPAT_* */
	uint32_t header_crc;		/*  28: crc32 of the header, this field as 0 */
	uint8_t  uuid[16];		/*  32: filesystem UUID (superblock s_uuid) */
	uint32_t block_size;		/*  48: filesystem block size in bytes */
	uint32_t dev_major;		/*  52: dev_t of the device at pack time (hint) */
	uint32_t dev_minor;		/*  56: (0:0 if unknown) */
	uint32_t body_crc;		/*  60: crc32 of the stored body */
	int64_t  created;		/*  64: creation time, Unix seconds */
	uint64_t budget;		/*  72: budget in bytes the pack was cut to (0: none) */
	uint64_t total_bytes;		/*  80: bytes of all ranges (meta + entries) */
	uint64_t cut_bytes;		/*  88: traced bytes left out by the budget */
	uint64_t body_size;		/*  96: bytes of body as stored in the file */
	uint64_t body_raw_size;		/* 104: bytes of body once inflated */
	uint32_t nmeta;			/* 112: metadata ranges */
	uint32_t nentries;		/* 116: file entries */
	uint32_t strtab_size;		/* 120: bytes of string table */
	uint32_t nfiles;		/* 124: distinct files (paths) among the entries */
	uint32_t page_size;		/* 128: page size in bytes the pack was built for */
	uint32_t reserved;		/* 132: 0 */
};					/* 136 */

#define BP_PACK_OFF_MAGIC		0
#define BP_PACK_OFF_VERSION		8
#define BP_PACK_OFF_HDR_SIZE		12
#define BP_PACK_OFF_COMPAT		16
#define BP_PACK_OFF_INCOMPAT		20
#define BP_PACK_OFF_RO_COMPAT		24
#define BP_PACK_OFF_HEADER_CRC		28
#define BP_PACK_OFF_UUID		32
#define BP_PACK_OFF_BLOCK_SIZE		48
#define BP_PACK_OFF_DEV_MAJOR		52
#define BP_PACK_OFF_DEV_MINOR		56
#define BP_PACK_OFF_BODY_CRC		60
#define BP_PACK_OFF_CREATED		64
#define BP_PACK_OFF_BUDGET		72
#define BP_PACK_OFF_TOTAL_BYTES		80
#define BP_PACK_OFF_CUT_BYTES		88
#define BP_PACK_OFF_BODY_SIZE		96
#define BP_PACK_OFF_BODY_RAW_SIZE	104
#define BP_PACK_OFF_NMETA		112
#define BP_PACK_OFF_NENTRIES		116
#define BP_PACK_OFF_STRTAB_SIZE		120
#define BP_PACK_OFF_NFILES		124
#define BP_PACK_OFF_PAGE_SIZE		128	/* with COMPAT_PAGE_SIZE only */

/* A metadata range, 24 bytes. */
struct bp_pack_meta_rec {
	uint64_t offset;		/*  0: physical byte offset on the device */
	uint64_t length;		/*  8: bytes, > 0 */
	uint64_t budget_pos;		/* 16: bytes admitted up to and including this */
};					/* 24 */
#define BP_PACK_META_SIZE	24

/* A file entry, 72 bytes: one physically contiguous range of one file. */
struct bp_pack_entry_rec {
	uint64_t offset;		/*  0: byte offset in the file */
	uint64_t length;		/*  8: bytes, > 0 */
	uint64_t phys;			/* 16: physical byte offset of 'offset' on the device */
	uint64_t budget_pos;		/* 24: bytes admitted up to and including this */
	uint64_t size;			/* 32: file size (i_size) when packed */
	int64_t  mtime_sec;		/* 40: mtime, Unix seconds */
	uint32_t mtime_nsec;		/* 48: nanoseconds (valid with COMPAT_MTIME_NSEC) */
	uint32_t ino;			/* 52: inode number */
	uint32_t generation;		/* 56: i_generation */
	uint32_t path_off;		/* 60: offset of the path in the string table */
	uint32_t path_len;		/* 64: bytes of the path, without the NUL */
	uint32_t flags;			/* 68: BP_PACK_ENTRY_F_*; unknown bits ignored */
};					/* 72 */
#define BP_PACK_ENTRY_SIZE	72

#define BP_PACK_ENTRY_F_CHANGED	0x00000001	/* file changed since the trace (info) */

/* Little-endian helpers: byte by byte, so alignment and host order never matter. */
static inline uint16_t bp_get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t bp_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t bp_get_le64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)bp_get_le32(b) | (uint64_t)bp_get_le32(b + 4) << 32;
}

static inline void bp_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void bp_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void bp_put_le64(void *p, uint64_t v)
{
	bp_put_le32(p, (uint32_t)v);
	bp_put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif /* BP_PACK_FORMAT_H */
