/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * show-common.h --- what dump and verify share: loading a pack with messages
 */
#ifndef BP_SHOW_COMMON_H
#define BP_SHOW_COMMON_H

#include <stdint.h>

#include "pack-parse.h"

/*
 * Load path for inspection (any owner: dump and verify only read it).
 * On failure prints "bootpack: PATH: reason" and returns the exit code:
 * BP_EX_STALE for a missing, corrupt or unsupported pack, else BP_EX_FAILURE.
 */
int bp_pack_cli_load(const char *path, struct bp_pack **ret);

/* "mtime-nsec,relayout" / "deflate" / "-" into buf (unknown bits as 0x...). */
const char *bp_pack_compat_str(uint32_t v, char *buf, size_t len);
const char *bp_pack_incompat_str(uint32_t v, char *buf, size_t len);

#endif /* BP_SHOW_COMMON_H */
