// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-write.c --- serialize a readahead pack and save it atomically
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "outfile.h"
#include "pack-write.h"

/* Check what the parser checks, so the writer never produces a refused pack. */
static errcode_t check_input(const struct bp_pack_wdata *d, uint64_t *strtab_size,
			     uint64_t *total, struct bp_err *err)
{
	uint64_t st = 0, sum = 0, prev_end = 0, prev_phys = 0;
	size_t i;

	if (d->nmeta > BP_PACK_MAX_META || d->nentries > BP_PACK_MAX_ENTRIES ||
	    d->npaths > BP_PACK_MAX_ENTRIES)
		return bp_err_set(err, E2BIG, "too many records for one pack (at most %u)",
				  BP_PACK_MAX_ENTRIES);
	if (d->block_size < 1024 || d->block_size > 65536 ||
	    (d->block_size & (d->block_size - 1)))
		return bp_err_set(err, EINVAL, "bad block size %u", d->block_size);
	if (d->page_size && (d->page_size < BP_PACK_PAGE_SIZE_MIN ||
			     d->page_size > BP_PACK_PAGE_SIZE_MAX ||
			     (d->page_size & (d->page_size - 1))))
		return bp_err_set(err, EINVAL, "bad page size %u", d->page_size);
	for (i = 0; i < d->npaths; i++) {
		size_t len = strlen(d->paths[i]);

		if (!bp_pack_path_ok(d->paths[i], len))
			return bp_err_set(err, EINVAL, "path '%s' is not absolute and normalized",
					  d->paths[i]);
		st += len + 1;
	}
	if (st > BP_PACK_MAX_STRTAB)
		return bp_err_set(err, E2BIG, "paths too long for one pack (%llu bytes)",
				  (unsigned long long)st);
	for (i = 0; i < d->nmeta; i++) {
		const struct bp_pack_meta *m = &d->meta[i];

		if (m->length == 0 || m->length > BP_PACK_MAX_RANGE ||
		    m->offset > UINT64_MAX - m->length || (i && m->offset < prev_end))
			return bp_err_set(err, EINVAL, "metadata range %zu is empty, too long, "
					  "unsorted or overlapping", i);
		prev_end = m->offset + m->length;
		sum += m->length;
	}
	for (i = 0; i < d->nentries; i++) {
		const struct bp_pack_wentry *e = &d->entries[i];

		if (e->length == 0 || e->length > BP_PACK_MAX_RANGE ||
		    e->offset > UINT64_MAX - e->length || e->phys == BP_PACK_PHYS_NONE ||
		    e->phys > UINT64_MAX - e->length)
			return bp_err_set(err, EINVAL, "entry %zu: bad range", i);
		if (i && e->phys < prev_phys)
			return bp_err_set(err, EINVAL, "entry %zu: not sorted by physical position", i);
		if (e->file >= d->npaths)
			return bp_err_set(err, EINVAL, "entry %zu: no such path", i);
		prev_phys = e->phys;
		sum += e->length;
	}
	for (i = 0; i < d->nmeta; i++)
		if (d->meta[i].budget_pos < d->meta[i].length || d->meta[i].budget_pos > sum)
			return bp_err_set(err, EINVAL, "metadata range %zu: bad budget position", i);
	for (i = 0; i < d->nentries; i++)
		if (d->entries[i].budget_pos < d->entries[i].length ||
		    d->entries[i].budget_pos > sum)
			return bp_err_set(err, EINVAL, "entry %zu: bad budget position", i);
	if (d->budget && sum > d->budget)
		return bp_err_set(err, EINVAL, "%llu bytes exceed the budget of %llu",
				  (unsigned long long)sum, (unsigned long long)d->budget);
	*strtab_size = st;
	*total = sum;
	return 0;
}

/* The header's size: without a page size, the 128 bytes older writers wrote. */
static uint32_t hdr_size(const struct bp_pack_wdata *d)
{
	return d->page_size ? BP_PACK_HDR_SIZE : BP_PACK_HDR_SIZE_MIN;
}

static void put_header(uint8_t *h, const struct bp_pack_wdata *d, uint32_t incompat,
		       uint64_t total, uint64_t body_size, uint64_t raw_size, uint32_t strtab_size,
		       uint32_t body_crc)
{
	uint32_t compat = d->feature_compat & ~(uint32_t)BP_PACK_COMPAT_PAGE_SIZE;
	uLong crc;

	memset(h, 0, hdr_size(d));
	memcpy(h + BP_PACK_OFF_MAGIC, BP_PACK_MAGIC, BP_PACK_MAGIC_LEN);
	bp_put_le32(h + BP_PACK_OFF_VERSION, BP_PACK_VERSION);
	bp_put_le32(h + BP_PACK_OFF_HDR_SIZE, hdr_size(d));
	if (d->page_size) {
		compat |= BP_PACK_COMPAT_PAGE_SIZE;
		bp_put_le32(h + BP_PACK_OFF_PAGE_SIZE, d->page_size);
	}
	bp_put_le32(h + BP_PACK_OFF_COMPAT, compat);
	bp_put_le32(h + BP_PACK_OFF_INCOMPAT, incompat);
	bp_put_le32(h + BP_PACK_OFF_RO_COMPAT, 0);
	memcpy(h + BP_PACK_OFF_UUID, d->uuid, 16);
	bp_put_le32(h + BP_PACK_OFF_BLOCK_SIZE, d->block_size);
	bp_put_le32(h + BP_PACK_OFF_DEV_MAJOR, d->dev_major);
	bp_put_le32(h + BP_PACK_OFF_DEV_MINOR, d->dev_minor);
	bp_put_le32(h + BP_PACK_OFF_BODY_CRC, body_crc);
	bp_put_le64(h + BP_PACK_OFF_CREATED, (uint64_t)d->created);
	bp_put_le64(h + BP_PACK_OFF_BUDGET, d->budget);
	bp_put_le64(h + BP_PACK_OFF_TOTAL_BYTES, total);
	bp_put_le64(h + BP_PACK_OFF_CUT_BYTES, d->cut_bytes);
	bp_put_le64(h + BP_PACK_OFF_BODY_SIZE, body_size);
	bp_put_le64(h + BP_PACK_OFF_BODY_RAW_SIZE, raw_size);
	bp_put_le32(h + BP_PACK_OFF_NMETA, (uint32_t)d->nmeta);
	bp_put_le32(h + BP_PACK_OFF_NENTRIES, (uint32_t)d->nentries);
	bp_put_le32(h + BP_PACK_OFF_STRTAB_SIZE, strtab_size);
	bp_put_le32(h + BP_PACK_OFF_NFILES, (uint32_t)d->npaths);
	crc = crc32(crc32(0L, Z_NULL, 0), h, hdr_size(d));	/* crc field is still 0 */
	bp_put_le32(h + BP_PACK_OFF_HEADER_CRC, (uint32_t)crc);
}

static void put_body(uint8_t *b, const struct bp_pack_wdata *d, const uint32_t *path_off)
{
	size_t i;

	for (i = 0; i < d->nmeta; i++, b += BP_PACK_META_SIZE) {
		bp_put_le64(b, d->meta[i].offset);
		bp_put_le64(b + 8, d->meta[i].length);
		bp_put_le64(b + 16, d->meta[i].budget_pos);
	}
	for (i = 0; i < d->nentries; i++, b += BP_PACK_ENTRY_SIZE) {
		const struct bp_pack_wentry *e = &d->entries[i];

		bp_put_le64(b, e->offset);
		bp_put_le64(b + 8, e->length);
		bp_put_le64(b + 16, e->phys);
		bp_put_le64(b + 24, e->budget_pos);
		bp_put_le64(b + 32, e->size);
		bp_put_le64(b + 40, (uint64_t)e->mtime_sec);
		bp_put_le32(b + 48, e->mtime_nsec);
		bp_put_le32(b + 52, e->ino);
		bp_put_le32(b + 56, e->generation);
		bp_put_le32(b + 60, path_off[e->file]);
		bp_put_le32(b + 64, (uint32_t)strlen(d->paths[e->file]));
		bp_put_le32(b + 68, e->flags);
	}
	for (i = 0; i < d->npaths; i++) {
		size_t len = strlen(d->paths[i]) + 1;

		memcpy(b, d->paths[i], len);
		b += len;
	}
}

errcode_t bp_pack_serialize(const struct bp_pack_wdata *d, void **ret_buf, size_t *ret_len,
			    struct bp_err *err)
{
	uint64_t strtab_size = 0, total = 0, raw_size, off;
	uint32_t *path_off = NULL, hs = hdr_size(d);
	uint8_t *raw = NULL, *out = NULL;
	uint32_t incompat = 0;
	uLongf zlen;
	size_t i, out_len;
	errcode_t rc;

	*ret_buf = NULL;
	*ret_len = 0;
	rc = check_input(d, &strtab_size, &total, err);
	if (rc)
		return rc;
	raw_size = (uint64_t)d->nmeta * BP_PACK_META_SIZE +
		   (uint64_t)d->nentries * BP_PACK_ENTRY_SIZE + strtab_size;
	if (raw_size > BP_PACK_MAX_BODY)
		return bp_err_set(err, E2BIG, "pack body of %llu bytes exceeds the limit",
				  (unsigned long long)raw_size);
	path_off = malloc((d->npaths ? d->npaths : 1) * sizeof(*path_off));
	raw = malloc(raw_size ? raw_size : 1);
	if (!path_off || !raw) {
		rc = bp_err_set(err, ENOMEM, "out of memory serializing the pack");
		goto out;
	}
	for (i = 0, off = 0; i < d->npaths; i++) {
		path_off[i] = (uint32_t)off;
		off += strlen(d->paths[i]) + 1;
	}
	put_body(raw, d, path_off);

	if (d->compress != BP_PACK_COMPRESS_NEVER) {
		zlen = compressBound((uLong)raw_size);
		out = malloc(hs + zlen);
		if (!out) {
			rc = bp_err_set(err, ENOMEM, "out of memory compressing the pack");
			goto out;
		}
		if (compress2(out + hs, &zlen, raw, (uLong)raw_size,
			      Z_BEST_COMPRESSION) != Z_OK) {
			rc = bp_err_set(err, EIO, "deflate failed");
			goto out;
		}
		if (d->compress == BP_PACK_COMPRESS_ALWAYS || zlen < raw_size) {
			incompat |= BP_PACK_INCOMPAT_DEFLATE;
			out_len = hs + zlen;
		} else {
			free(out);
			out = NULL;
		}
	}
	if (!out) {
		out = malloc(hs + raw_size);
		if (!out) {
			rc = bp_err_set(err, ENOMEM, "out of memory serializing the pack");
			goto out;
		}
		memcpy(out + hs, raw, raw_size);
		out_len = hs + raw_size;
	}
	put_header(out, d, incompat, total, out_len - hs, raw_size,
		   (uint32_t)strtab_size,
		   (uint32_t)crc32(crc32(0L, Z_NULL, 0), out + hs,
				   (uInt)(out_len - hs)));
	*ret_buf = out;
	*ret_len = out_len;
	out = NULL;
out:
	free(out);
	free(raw);
	free(path_off);
	return rc;
}

static errcode_t write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

errcode_t bp_pack_save(const char *path, const void *buf, size_t len, struct bp_err *err)
{
	struct bp_outfile of;
	errcode_t rc;

	rc = bp_outfile_open(&of, "the pack", path, err);
	if (rc)
		return rc;
	rc = write_all(of.fd, buf, len);
	if (rc) {
		bp_err_set(err, rc, "%s: cannot write %s: %s", path, of.tmp, strerror((int)rc));
		bp_outfile_abort(&of);
		return rc;
	}
	return bp_outfile_commit(&of, err);
}
