// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-bperr.c --- error records and bootpack's com_err table
 */
#include <errno.h>
#include <string.h>

#include "bp_et.h"
#include "bperr.h"
#include "unit.h"

int main(void)
{
	struct bp_err err = { 0 };

	add_error_table(&et_bp_error_table);
	CHECK(bp_err_set(&err, EINVAL, "trace.txt:%d: bad range", 12) == EINVAL);
	CHECK(strcmp(bp_err_str(&err), "trace.txt:12: bad range") == 0);
	CHECK(bp_err_lib(&err, ENOENT, "while opening %s", "x") == ENOENT);
	CHECK(strcmp(bp_err_str(&err), "while opening x: No such file or directory") == 0);
	CHECK(strcmp(error_message(BP_ET_NOT_EXT), "Not an ext2/ext3/ext4 filesystem") == 0);
	CHECK(bp_err_set(NULL, BP_ET_MOUNTED, "ignored") == BP_ET_MOUNTED);
	return unit_exit();
}
