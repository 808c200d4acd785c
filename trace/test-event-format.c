// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-event-format.c --- tracefs format files: 32-bit, 64-bit and u64 i_ino
 * layouts are read, an unknown print format is refused
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_et.h"
#include "trace-engine.h"
#include "../tests/unit/unit.h"

static errcode_t load(const char *name, struct bp_ev_format *f, struct bp_err *err)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	errcode_t rc;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tests/ts/trace/data/%s", top ? top : ".", name);
	fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "%s: cannot open (set top_srcdir)\n", path);
		exit(99);
	}
	rc = bp_ev_format_parse(fp, path, f, err);
	fclose(fp);
	return rc ? rc : bp_ev_format_check(f, err);
}

int main(void)
{
	const struct bp_ev_field *fld;
	struct bp_err err = { 0 };
	struct bp_ev_format f;

	add_error_table(&et_bp_error_table);

	CHECK(load("format-add-6.18.txt", &f, &err) == 0);
	CHECK(strcmp(f.name, "mm_filemap_add_to_page_cache") == 0 && f.id == 600);
	fld = bp_ev_format_field(&f, "i_ino");
	CHECK(fld && fld->offset == 16 && fld->size == 8 && !fld->is_signed);
	fld = bp_ev_format_field(&f, "common_pid");
	CHECK(fld && fld->size == 4 && fld->is_signed);
	CHECK(bp_ev_format_field(&f, "order") != NULL);

	CHECK(load("format-add-32bit.txt", &f, &err) == 0);
	fld = bp_ev_format_field(&f, "i_ino");
	CHECK(fld && fld->offset == 12 && fld->size == 4);
	CHECK(bp_ev_format_field(&f, "order") == NULL);

	CHECK(load("format-add-u64.txt", &f, &err) == 0);
	fld = bp_ev_format_field(&f, "i_ino");
	CHECK(fld && fld->offset == 8 && fld->size == 8);

	CHECK(load("format-get-pages-6.18.txt", &f, &err) == 0);
	CHECK(bp_ev_format_field(&f, "last_index") != NULL);

	CHECK(load("format-add-unknown.txt", &f, &err) == BP_ET_UNSUPPORTED);
	CHECK(strstr(err.msg, "layout this bootpack cannot read") != NULL);

	return unit_exit();
}
