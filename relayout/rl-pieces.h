/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rl-pieces.h --- pieces of the boot stream (internal to relayout/)
 */
#ifndef RL_PIECES_H
#define RL_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "rl-int.h"

/* A unit of the layout: a whole directory or file, or a piece of a file. */
enum { PIECE_WHOLE, PIECE_RANGES };

struct piece {
	uint64_t rank;
	size_t seq;		/* creation order: ties keep directories first */
	uint32_t item;
	uint8_t kind;
	uint8_t front;		/* RL_FRONT_*: before every other piece */
	size_t first, n;	/* PIECE_RANGES: it->tr[first .. first + n) */
};

/* Tiers at the head of the region, highest first. */
enum { RL_FRONT_NONE, RL_FRONT_LISTED_DIR, RL_FRONT_FIRST };

struct pieces {
	struct piece *v;
	size_t n, a;
};

errcode_t rl_piece_add(struct pieces *p, uint32_t item, int kind, uint64_t rank,
		       size_t first, size_t n);

/* qsort order of pieces: front tier (highest first), then rank, then creation. */
int rl_piece_cmp(const void *a, const void *b);

/* Cut item idx's traced ranges (it->tr) into pieces of at least minb blocks. */
errcode_t rl_make_pieces(struct pieces *p, uint32_t idx, struct rl_item *it, blk64_t minb);

/* head.c: items laid out whole (first files, listed and path directories). */
errcode_t rl_add_dirs(struct rl_stream *s, struct pieces *p, const char *path, uint64_t rank);
errcode_t rl_add_traced_dirs(struct rl_stream *s, struct pieces *p, const struct bp_trace *t,
			     const struct bp_trace_ref *refs, size_t nrefs);
errcode_t rl_add_first(struct rl_stream *s, struct pieces *p, const struct rl_build *b);

#endif /* RL_PIECES_H */
