/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bperr.h --- error reporting convention of the library-like layers
 *
 * Engines (trace/, relayout/, the pack writer) never print. They return an
 * errcode_t: 0, an errno value, or a com_err code from libext2fs. When the
 * caller passes a struct bp_err, the engine also fills in a sentence saying
 * what it was doing ("while reading the trace at line 12: bad range"), which
 * the CLI prints after the object it concerns.
 */
#ifndef BP_BPERR_H
#define BP_BPERR_H

#include <et/com_err.h>
#include "c.h"

#define BP_ERR_MSG_MAX 512

struct bp_err {
	errcode_t code;
	char msg[BP_ERR_MSG_MAX];
};

/*
 * Record code and a printf-style message; returns code, so
 * "return bp_err_set(err, EINVAL, "line %d: bad range", n);" works.
 */
errcode_t bp_err_set(struct bp_err *err, errcode_t code, const char *fmt, ...) _printf_(3, 4);

/*
 * Same, for a failed library call: the message is a "while ..." context and
 * error_message(code) is appended ("while reading inode 12: Bad magic ...").
 */
errcode_t bp_err_lib(struct bp_err *err, errcode_t code, const char *fmt, ...) _printf_(3, 4);

/* Human text for an error: the context if set, else error_message(code). */
const char *bp_err_str(const struct bp_err *err);

#endif /* BP_BPERR_H */
