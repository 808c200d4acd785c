// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-parse.c --- validate and decode a readahead pack (libc and zlib only)
 *
 * Linked statically into bootpack-read: no libext2fs, no com_err, no stdio
 * output. Everything an input controls is checked once, in
 * bp_pack_open_mem_why(); the accessors then only decode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "pack-parse.h"

struct bp_pack {
	struct bp_pack_info info;
	const uint8_t *meta;		/* nmeta records */
	const uint8_t *entries;		/* nentries records */
	const char *strtab;		/* strtab_size bytes */
	void *owned_body;		/* inflated body, or NULL */
	void *owned_file;		/* file bytes read by bp_pack_load_fd(), or NULL */
};

#define FAIL(e, msg)                    \
	do {                            \
		if (why)                \
			*why = (msg);   \
		rc = (e);               \
		goto fail;              \
	} while (0)

int bp_pack_has_magic(const void *buf, size_t len)
{
	return len >= BP_PACK_MAGIC_LEN && memcmp(buf, BP_PACK_MAGIC, BP_PACK_MAGIC_LEN) == 0;
}

int bp_pack_path_ok(const char *path, size_t len)
{
	size_t i, start;

	if (len < 2 || len >= BP_PACK_PATH_MAX || path[0] != '/')
		return 0;
	if (memchr(path, '\0', len))
		return 0;
	/* Each component: nonempty, not "." nor "..". */
	for (start = 1, i = 1; i <= len; i++) {
		size_t clen;

		if (i < len && path[i] != '/')
			continue;
		clen = i - start;
		if (clen == 0)
			return 0;	/* "//" or trailing '/' */
		if (path[start] == '.' && (clen == 1 || (clen == 2 && path[start + 1] == '.')))
			return 0;
		start = i + 1;
	}
	return 1;
}

static void decode_header(const uint8_t *h, struct bp_pack_info *in)
{
	in->version = bp_get_le32(h + BP_PACK_OFF_VERSION);
	in->hdr_size = bp_get_le32(h + BP_PACK_OFF_HDR_SIZE);
	in->feature_compat = bp_get_le32(h + BP_PACK_OFF_COMPAT);
	in->feature_incompat = bp_get_le32(h + BP_PACK_OFF_INCOMPAT);
	in->feature_ro_compat = bp_get_le32(h + BP_PACK_OFF_RO_COMPAT);
	in->header_crc = bp_get_le32(h + BP_PACK_OFF_HEADER_CRC);
	memcpy(in->uuid, h + BP_PACK_OFF_UUID, sizeof(in->uuid));
	in->block_size = bp_get_le32(h + BP_PACK_OFF_BLOCK_SIZE);
	in->dev_major = bp_get_le32(h + BP_PACK_OFF_DEV_MAJOR);
	in->dev_minor = bp_get_le32(h + BP_PACK_OFF_DEV_MINOR);
	in->body_crc = bp_get_le32(h + BP_PACK_OFF_BODY_CRC);
	in->created = (int64_t)bp_get_le64(h + BP_PACK_OFF_CREATED);
	in->budget = bp_get_le64(h + BP_PACK_OFF_BUDGET);
	in->total_bytes = bp_get_le64(h + BP_PACK_OFF_TOTAL_BYTES);
	in->cut_bytes = bp_get_le64(h + BP_PACK_OFF_CUT_BYTES);
	in->body_size = bp_get_le64(h + BP_PACK_OFF_BODY_SIZE);
	in->body_raw_size = bp_get_le64(h + BP_PACK_OFF_BODY_RAW_SIZE);
	in->nmeta = bp_get_le32(h + BP_PACK_OFF_NMETA);
	in->nentries = bp_get_le32(h + BP_PACK_OFF_NENTRIES);
	in->strtab_size = bp_get_le32(h + BP_PACK_OFF_STRTAB_SIZE);
	in->nfiles = bp_get_le32(h + BP_PACK_OFF_NFILES);
	in->page_size = BP_PACK_PAGE_SIZE_DEFAULT;	/* see the check of COMPAT_PAGE_SIZE */
}

/* crc32 of the header bytes with the header_crc field counted as zero. */
static uint32_t header_crc(const uint8_t *h, uint32_t hdr_size)
{
	static const uint8_t zero[4];
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, h, BP_PACK_OFF_HEADER_CRC);
	crc = crc32(crc, zero, sizeof(zero));
	crc = crc32(crc, h + BP_PACK_OFF_HEADER_CRC + 4, hdr_size - BP_PACK_OFF_HEADER_CRC - 4);
	return (uint32_t)crc;
}

/* Inflate exactly raw bytes from a zlib stream of len bytes. */
static int inflate_body(const uint8_t *in, uint64_t len, uint8_t *out, uint64_t raw)
{
	z_stream zs;
	int zr, rc;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)raw;
	zr = inflate(&zs, Z_FINISH);
	if (zr == Z_STREAM_END && zs.total_out == raw && zs.avail_in == 0)
		rc = 0;
	else if (zr == Z_MEM_ERROR)
		rc = -ENOMEM;
	else
		rc = -EBADMSG;
	inflateEnd(&zs);
	return rc;
}

/* Every string of the table: a valid path followed by a NUL. */
static int check_strtab(const char *s, uint32_t size, uint32_t *nstrings)
{
	uint32_t off = 0, n = 0;

	if (size && s[size - 1] != '\0')
		return 0;
	while (off < size) {
		size_t len = strlen(s + off);	/* bounded: s[size - 1] is NUL */

		if (!bp_pack_path_ok(s + off, len))
			return 0;
		off += (uint32_t)len + 1;
		n++;
	}
	*nstrings = n;
	return 1;
}

int bp_pack_open_mem_why(const void *buf, size_t len, struct bp_pack **ret, const char **why)
{
	const uint8_t *b = buf;
	struct bp_pack *p;
	struct bp_pack_info *in;
	const uint8_t *body;
	uint64_t need, sum = 0, prev_end = 0, prev_phys = 0;
	uint32_t i, nstrings = 0;
	int rc;

	*ret = NULL;
	if (why)
		*why = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	in = &p->info;

	if (len == 0)
		FAIL(-EBADMSG, "empty file");
	if (!bp_pack_has_magic(b, len))
		FAIL(-EBADMSG, "bad magic (not a bootpack pack)");
	if (len < BP_PACK_HDR_SIZE_MIN)
		FAIL(-EBADMSG, "truncated header");
	decode_header(b, in);
	if (in->version != BP_PACK_VERSION)
		FAIL(-EOPNOTSUPP, "unsupported format version");
	if (in->hdr_size < BP_PACK_HDR_SIZE_MIN || in->hdr_size > BP_PACK_HDR_SIZE_MAX)
		FAIL(-EBADMSG, "bad header size");
	if (in->hdr_size > len)
		FAIL(-EBADMSG, "truncated header");
	if (header_crc(b, in->hdr_size) != in->header_crc)
		FAIL(-EBADMSG, "header CRC mismatch");
	if (in->feature_incompat & ~(uint32_t)BP_PACK_INCOMPAT_SUPP)
		FAIL(-EOPNOTSUPP, "unknown incompatible feature");
	if (in->block_size < 1024 || in->block_size > 65536 ||
	    (in->block_size & (in->block_size - 1)))
		FAIL(-EBADMSG, "bad block size");
	/* Without the feature (packs of older writers): 4096-byte pages. */
	if (in->feature_compat & BP_PACK_COMPAT_PAGE_SIZE) {
		if (in->hdr_size < BP_PACK_OFF_PAGE_SIZE + 4)
			FAIL(-EBADMSG, "header too short for its page size");
		in->page_size = bp_get_le32(b + BP_PACK_OFF_PAGE_SIZE);
		if (in->page_size < BP_PACK_PAGE_SIZE_MIN || in->page_size > BP_PACK_PAGE_SIZE_MAX ||
		    (in->page_size & (in->page_size - 1)))
			FAIL(-EBADMSG, "bad page size");
	}

	/* Sizes and counts against the hard limits, then against each other. */
	if (in->nmeta > BP_PACK_MAX_META || in->nentries > BP_PACK_MAX_ENTRIES)
		FAIL(-E2BIG, "too many records");
	if (in->strtab_size > BP_PACK_MAX_STRTAB)
		FAIL(-E2BIG, "string table too large");
	if (in->body_raw_size > BP_PACK_MAX_BODY || in->body_size > BP_PACK_MAX_BODY)
		FAIL(-E2BIG, "body too large");
	need = (uint64_t)in->nmeta * BP_PACK_META_SIZE +
	       (uint64_t)in->nentries * BP_PACK_ENTRY_SIZE + in->strtab_size;
	if (need != in->body_raw_size)
		FAIL(-EBADMSG, "record counts do not match the body size");
	if (in->body_size < len - in->hdr_size)
		FAIL(-EBADMSG, "trailing bytes after the body");
	if (in->body_size > len - in->hdr_size)
		FAIL(-EBADMSG, "truncated body");
	body = b + in->hdr_size;
	if ((uint32_t)crc32(crc32(0L, Z_NULL, 0), body, (uInt)in->body_size) != in->body_crc)
		FAIL(-EBADMSG, "body CRC mismatch");

	if (in->feature_incompat & BP_PACK_INCOMPAT_DEFLATE) {
		/* deflate cannot expand more than about 1032:1 */
		if (in->body_raw_size > in->body_size * 1032 + 64)
			FAIL(-EBADMSG, "impossible compression ratio");
		p->owned_body = malloc(in->body_raw_size ? in->body_raw_size : 1);
		if (!p->owned_body)
			FAIL(-ENOMEM, "out of memory");
		rc = inflate_body(body, in->body_size, p->owned_body, in->body_raw_size);
		if (rc)
			FAIL(rc, rc == -ENOMEM ? "out of memory" : "corrupt compressed body");
		body = p->owned_body;
	} else if (in->body_size != in->body_raw_size) {
		FAIL(-EBADMSG, "body size does not match the record counts");
	}
	p->meta = body;
	p->entries = body + (uint64_t)in->nmeta * BP_PACK_META_SIZE;
	p->strtab = (const char *)p->entries + (uint64_t)in->nentries * BP_PACK_ENTRY_SIZE;

	if (!check_strtab(p->strtab, in->strtab_size, &nstrings))
		FAIL(-EBADMSG, "invalid path in the string table (not absolute and normalized)");
	if (nstrings != in->nfiles)
		FAIL(-EBADMSG, "file count does not match the string table");

	for (i = 0; i < in->nmeta; i++) {
		const uint8_t *r = p->meta + (uint64_t)i * BP_PACK_META_SIZE;
		uint64_t off = bp_get_le64(r), mlen = bp_get_le64(r + 8);
		uint64_t pos = bp_get_le64(r + 16);

		if (mlen == 0 || mlen > BP_PACK_MAX_RANGE || off > UINT64_MAX - mlen)
			FAIL(-EBADMSG, "bad metadata range");
		if (i && off < prev_end)
			FAIL(-EBADMSG, "metadata ranges unsorted or overlapping");
		if (pos < mlen)
			FAIL(-EBADMSG, "bad budget position");
		prev_end = off + mlen;
		sum += mlen;
		if (pos > in->total_bytes)
			FAIL(-EBADMSG, "bad budget position");
	}
	for (i = 0; i < in->nentries; i++) {
		const uint8_t *r = p->entries + (uint64_t)i * BP_PACK_ENTRY_SIZE;
		uint64_t off = bp_get_le64(r), elen = bp_get_le64(r + 8);
		uint64_t phys = bp_get_le64(r + 16), pos = bp_get_le64(r + 24);
		uint32_t poff = bp_get_le32(r + 60), plen = bp_get_le32(r + 64);

		if (elen == 0 || elen > BP_PACK_MAX_RANGE || off > UINT64_MAX - elen)
			FAIL(-EBADMSG, "bad file range");
		if (phys == BP_PACK_PHYS_NONE || phys > UINT64_MAX - elen)
			FAIL(-EBADMSG, "bad physical position");
		if (i && phys < prev_phys)
			FAIL(-EBADMSG, "entries not sorted by physical position");
		if (pos < elen || pos > in->total_bytes)
			FAIL(-EBADMSG, "bad budget position");
		if ((uint64_t)poff + plen >= in->strtab_size)
			FAIL(-EBADMSG, "path outside the string table");
		if ((poff && p->strtab[poff - 1] != '\0') || p->strtab[poff + plen] != '\0' ||
		    memchr(p->strtab + poff, '\0', plen))
			FAIL(-EBADMSG, "path does not match the string table");
		prev_phys = phys;
		sum += elen;
	}
	if (sum != in->total_bytes)
		FAIL(-EBADMSG, "total bytes do not match the records");
	if (in->budget && in->total_bytes > in->budget)
		FAIL(-EBADMSG, "total bytes exceed the budget");

	*ret = p;
	return 0;
fail:
	bp_pack_free(p);
	return rc;
}

int bp_pack_open_mem(const void *buf, size_t len, struct bp_pack **ret)
{
	return bp_pack_open_mem_why(buf, len, ret, NULL);
}

int bp_pack_load_fd(int fd, unsigned int flags, struct bp_pack **ret, const char **why)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int rc;

	*ret = NULL;
	if (why)
		*why = NULL;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		if (why)
			*why = "cannot stat";
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		if (why)
			*why = "not a regular file";
		return -EINVAL;
	}
	if (!(flags & BP_PACK_LOAD_ANY_OWNER) && st.st_uid != 0) {
		if (why)
			*why = "not owned by root";
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		if (why)
			*why = "writable by group or others";
		return -EPERM;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > BP_PACK_MAX_FILE) {
		if (why)
			*why = "file too large";
		return -E2BIG;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		if (why)
			*why = "out of memory";
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			free(buf);
			if (why)
				*why = "read error";
			return rc;
		}
		if (n == 0)
			break;	/* shrank under us: the parser reports it truncated */
		got += (size_t)n;
	}
	rc = bp_pack_open_mem_why(buf, got, ret, why);
	if (rc) {
		free(buf);
		return rc;
	}
	(*ret)->owned_file = buf;
	return 0;
}

int bp_pack_load_file(const char *path, unsigned int flags, struct bp_pack **ret,
		      const char **why)
{
	struct stat st;
	int fd, rc;

	*ret = NULL;
	if (why)
		*why = NULL;
	/* Do not even open a device node or FIFO. */
	if (lstat(path, &st) < 0) {
		rc = -errno;
		if (why)
			*why = rc == -ENOENT ? "no such file" : "cannot stat";
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		if (why)
			*why = S_ISLNK(st.st_mode) ? "is a symbolic link" : "not a regular file";
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		if (why)
			*why = rc == -ELOOP ? "is a symbolic link" : "cannot open";
		return rc;
	}
	rc = bp_pack_load_fd(fd, flags, ret, why);
	close(fd);
	return rc;
}

void bp_pack_free(struct bp_pack *p)
{
	if (!p)
		return;
	free(p->owned_body);
	free(p->owned_file);
	free(p);
}

const struct bp_pack_info *bp_pack_info(const struct bp_pack *p)
{
	return &p->info;
}

uint32_t bp_pack_nmeta(const struct bp_pack *p)
{
	return p->info.nmeta;
}

uint32_t bp_pack_nentries(const struct bp_pack *p)
{
	return p->info.nentries;
}

int bp_pack_meta(const struct bp_pack *p, uint32_t i, struct bp_pack_meta *m)
{
	const uint8_t *r;

	if (i >= p->info.nmeta)
		return -ERANGE;
	r = p->meta + (uint64_t)i * BP_PACK_META_SIZE;
	m->offset = bp_get_le64(r);
	m->length = bp_get_le64(r + 8);
	m->budget_pos = bp_get_le64(r + 16);
	return 0;
}

int bp_pack_entry(const struct bp_pack *p, uint32_t i, struct bp_pack_entry *e)
{
	const uint8_t *r;

	if (i >= p->info.nentries)
		return -ERANGE;
	r = p->entries + (uint64_t)i * BP_PACK_ENTRY_SIZE;
	e->offset = bp_get_le64(r);
	e->length = bp_get_le64(r + 8);
	e->phys = bp_get_le64(r + 16);
	e->budget_pos = bp_get_le64(r + 24);
	e->size = bp_get_le64(r + 32);
	e->mtime_sec = (int64_t)bp_get_le64(r + 40);
	e->mtime_nsec = bp_get_le32(r + 48);
	e->ino = bp_get_le32(r + 52);
	e->generation = bp_get_le32(r + 56);
	e->path_off = bp_get_le32(r + 60);
	e->path_len = bp_get_le32(r + 64);
	e->flags = bp_get_le32(r + 68);
	e->path = p->strtab + e->path_off;
	return 0;
}

const char *bp_pack_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EBADMSG:
		return "corrupt pack";
	case -EOPNOTSUPP:
		return "unsupported pack version or feature";
	case -E2BIG:
		return "pack exceeds a size limit";
	case -ENOMEM:
		return "out of memory";
	case -EPERM:
		return "unsafe pack permissions (must be owned by root, not writable by group or others)";
	case -EINVAL:
		return "not a regular file";
	case -ENOENT:
		return "no such file";
	case -ELOOP:
		return "is a symbolic link";
	default:
		return strerror(-err);
	}
}
