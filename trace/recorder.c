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

/* One recorder per filesystem: "bootpack_misses-MAJOR-MINOR". */
static void name(uint32_t kdev, char *buf, size_t len)
{
	snprintf(buf, len, BP_RECORDER_NAME "-%u-%u", BP_KDEV_MAJOR(kdev), BP_KDEV_MINOR(kdev));
}

errcode_t bp_recorder_start(uint32_t kdev, unsigned int buffer_kb, struct bp_err *err)
{
	struct bp_tracefs tf;
	char n[64];
	errcode_t rc;

	name(kdev, n, sizeof(n));
	rc = bp_tracefs_open(&tf, err);
	if (rc)
		return rc;
	if (bp_tracefs_attach(&tf, n, err) == 0) {
		tf.instance = 0;	/* leave it running */
		bp_tracefs_close(&tf);
		return bp_err_set(err, EEXIST, "%s/instances/%s: the recorder runs already",
				  tf.root, n);
	}
	/* index 0 only: the access events would cost a record per page touched */
	rc = bp_tracefs_create_named(&tf, n, buffer_kb, kdev, 1U,
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

errcode_t bp_recorder_collect(uint32_t kdev, struct bp_collect **ret, struct bp_err *err)
{
	struct bp_collect *c;
	struct bp_tracefs tf;
	uint64_t lost = 0;
	char n[64];
	errcode_t rc;

	*ret = NULL;
	name(kdev, n, sizeof(n));
	rc = bp_tracefs_open(&tf, err);
	if (rc)
		return rc;
	rc = bp_tracefs_attach(&tf, n, err);
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

void bp_recorder_stop(uint32_t kdev)
{
	struct bp_tracefs tf;
	char n[64];

	name(kdev, n, sizeof(n));
	if (bp_tracefs_open(&tf, NULL) || bp_tracefs_attach(&tf, n, NULL))
		return;
	bp_tracefs_stop(&tf);
	if (tf.on_fd >= 0)
		close(tf.on_fd);	/* the instance and its buffer stay for collect */
}

void bp_recorder_discard(uint32_t kdev)
{
	struct bp_tracefs tf;
	char n[64];

	name(kdev, n, sizeof(n));
	if (bp_tracefs_open(&tf, NULL) == 0 && bp_tracefs_attach(&tf, n, NULL) == 0)
		bp_tracefs_close(&tf);
}
