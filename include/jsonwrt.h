/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonwrt.h --- a small streaming JSON writer
 *
 * One writer per output object. Members are written with a name inside an
 * object and with name == NULL inside an array. Numbers are written as
 * numbers, strings are escaped (control characters, quotes, backslashes).
 *
 * The output is always valid UTF-8, whatever the bytes given: a file name
 * is bytes, and strict parsers (Python's json on bytes, jq) reject the
 * rest. A string value that is not well-formed UTF-8 is written with each
 * byte outside a well-formed sequence as \ufffd (U+FFFD), readable but
 * lossy, and, when it is an object's member "name", it is followed by the
 * member "name_hex": every byte of the value in lower-case hex, so the
 * exact name is recoverable. A valid string never has a _hex member.
 * doc/formats.md and bootpack(8) (JSON OUTPUT) document this.
 */
#ifndef BP_JSONWRT_H
#define BP_JSONWRT_H

#include <stdint.h>
#include <stdio.h>

#define BP_JSON_MAX_DEPTH 32

struct bp_json {
	FILE *out;
	int depth;
	int pretty;
	unsigned char nonempty[BP_JSON_MAX_DEPTH];
	char closer[BP_JSON_MAX_DEPTH];	/* '}' or ']' for each open container */
};

void bp_json_init(struct bp_json *j, FILE *out, int pretty);
/* Closes what is still open and writes the final newline. */
void bp_json_finish(struct bp_json *j);

void bp_json_open_object(struct bp_json *j, const char *name);
void bp_json_close_object(struct bp_json *j);
void bp_json_open_array(struct bp_json *j, const char *name);
void bp_json_close_array(struct bp_json *j);

void bp_json_string(struct bp_json *j, const char *name, const char *value);
void bp_json_u64(struct bp_json *j, const char *name, uint64_t value);
void bp_json_i64(struct bp_json *j, const char *name, int64_t value);
void bp_json_double(struct bp_json *j, const char *name, double value);
void bp_json_bool(struct bp_json *j, const char *name, int value);
void bp_json_null(struct bp_json *j, const char *name);

#endif /* BP_JSONWRT_H */
