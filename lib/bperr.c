// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bperr.c --- filling in struct bp_err
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bperr.h"

static void bp_err_vset(struct bp_err *err, errcode_t code, int lib, const char *fmt, va_list ap)
{
	size_t n;

	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	n = strlen(err->msg);
	if (lib && code && n < sizeof(err->msg) - 4)
		snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", error_message(code));
}

errcode_t bp_err_set(struct bp_err *err, errcode_t code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	bp_err_vset(err, code, 0, fmt, ap);
	va_end(ap);
	return code;
}

errcode_t bp_err_lib(struct bp_err *err, errcode_t code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	bp_err_vset(err, code, 1, fmt, ap);
	va_end(ap);
	return code;
}

const char *bp_err_str(const struct bp_err *err)
{
	if (!err)
		return "unknown error";
	if (err->msg[0])
		return err->msg;
	return error_message(err->code);
}
