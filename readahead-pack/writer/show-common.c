// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * show-common.c --- loading a pack for dump and verify, feature names
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exitcodes.h"
#include "log.h"
#include "pack-budget.h"
#include "pack-format.h"
#include "show-common.h"
#include "strutils.h"

int bp_pack_cli_load(const char *path, struct bp_pack **ret)
{
	const char *why = NULL;
	int rc;

	rc = bp_pack_load_file(path, BP_PACK_LOAD_ANY_OWNER, ret, &why);
	if (!rc)
		return BP_EX_OK;
	switch (rc) {
	case -ENOENT:
		bp_log_error("%s: no such pack; write one with 'bootpack pack'", path);
		return BP_EX_STALE;
	case -EBADMSG:
		if (why && strncmp(why, "bad magic", 9) == 0) {
			bp_log_error("%s: neither a bootpack trace nor a pack (bad magic)", path);
			return BP_EX_STALE;
		}
		/* fall through */
	case -E2BIG:
		bp_log_error("%s: corrupt pack: %s; write it again with 'bootpack pack'", path,
			     why ? why : bp_pack_strerror(rc));
		return BP_EX_STALE;
	case -EOPNOTSUPP:
		bp_log_error("%s: %s (this bootpack reads pack version %d)", path,
			     why ? why : bp_pack_strerror(rc), BP_PACK_VERSION);
		return BP_EX_STALE;
	default:
		bp_log_error("%s: %s", path, why && rc == -EINVAL ? why : bp_pack_strerror(rc));
		return BP_EX_FAILURE;
	}
}

static const char *flags_str(uint32_t v, const char *const *names, size_t n, char *buf,
			     size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < 32; i++) {
		if (!(v & (1U << i)))
			continue;
		if (i < n && names[i])
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 names[i]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s0x%x", used ? "," : "",
						 1U << i);
		if (used >= len)
			break;
	}
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

const char *bp_pack_compat_str(uint32_t v, char *buf, size_t len)
{
	static const char *const names[] = { "mtime-nsec", "relayout", "page-size" };
	uint32_t bound = (v & BP_PACK_COMPAT_BUDGET_MASK) >> BP_PACK_COMPAT_BUDGET_SHIFT;
	size_t used;

	/* bits 3-4 are one field: the term that bound an automatic budget */
	flags_str(v & ~(uint32_t)BP_PACK_COMPAT_BUDGET_MASK, names, 3, buf, len);
	if (bound) {
		used = strcmp(buf, "-") ? strlen(buf) : 0;
		snprintf(buf + used, len - used, "%sbudget-%s", used ? "," : "",
			 bp_budget_bound_name(bound));
	}
	return buf;
}

const char *bp_pack_incompat_str(uint32_t v, char *buf, size_t len)
{
	static const char *const names[] = { "deflate" };

	return flags_str(v, names, 1, buf, len);
}
