// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recorder.c --- the cheap recorder of a read boot: a small tracefs instance
 * with the page-cache insertion event only, started by one process early in
 * the boot and collected by another at its end
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bp_et.h"
#include "trace-engine.h"

errcode_t bp_recorder_start(uint32_t kdev, unsigned int buffer_kb, struct bp_err *err)
{
	struct bp_tracefs tf;
	errcode_t rc;

	rc = bp_tracefs_open(&tf, err);
	if (rc)
		return rc;
	if (bp_tracefs_attach(&tf, BP_RECORDER_NAME, err) == 0) {
		tf.instance = 0;	/* leave it running */
		bp_tracefs_close(&tf);
		return bp_err_set(err, EEXIST, "%s/instances/%s: the recorder runs already",
				  tf.root, BP_RECORDER_NAME);
	}
	/* index 0 only: the access events would cost a record per page touched */
	rc = bp_tracefs_create_named(&tf, BP_RECORDER_NAME, buffer_kb, kdev, 1U,
				     "comm != \"" BP_RECORDER_SKIP_COMM "\"", err);
	if (rc)
		return rc;
	rc = bp_tracefs_start(&tf, err);
	if (rc) {
		bp_tracefs_close(&tf);
		return rc;
	}
	/* forget the instance without touching it: it records until collected */
	if (tf.on_fd >= 0)
		close(tf.on_fd);
	return 0;
}

errcode_t bp_recorder_collect(struct bp_collect **ret, struct bp_err *err)
{
	struct bp_collect *c;
	struct bp_tracefs tf;
	uint64_t lost = 0;
	errcode_t rc;

	*ret = NULL;
	rc = bp_tracefs_open(&tf, err);
	if (rc)
		return rc;
	rc = bp_tracefs_attach(&tf, BP_RECORDER_NAME, err);
	if (rc)
		return rc;
	bp_tracefs_stop(&tf);
	c = bp_collect_new();
	if (!c) {
		bp_tracefs_close(&tf);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	rc = bp_tracefs_read(&tf, c, err);
	if (!rc && bp_tracefs_lost(&tf, &lost, NULL) == 0 && lost > bp_collect_get_lost(c))
		bp_collect_set_lost(c, lost);
	bp_tracefs_close(&tf);
	if (rc) {
		bp_collect_free(c);
		return rc;
	}
	*ret = c;
	return 0;
}

void bp_recorder_discard(void)
{
	struct bp_tracefs tf;

	if (bp_tracefs_open(&tf, NULL) == 0 && bp_tracefs_attach(&tf, BP_RECORDER_NAME, NULL) == 0)
		bp_tracefs_close(&tf);
}
