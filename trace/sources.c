// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sources.c --- bootpack trace: the sources other than a command:
 * --from-boot (the kernel's top trace buffer), --import (a saved text
 * trace), --from-kernel (the record of the kernel/ patch), --merge
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "from-kernel.h"
#include "log.h"
#include "trace-cli.h"

int bp_trace_from_boot(const struct bp_trace_opts *o)
{
	struct bp_tracefs tf;
	struct bp_collect *c;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev;
	int ret;

	ret = bp_trace_require_root("--from-boot");
	if (ret)
		return ret;
	ret = bp_trace_open_device(o->device, &dev, &kdev);
	if (ret)
		return ret;
	if (!kdev) {
		bp_log_error("trace: %s: not a block device", dev.path);
		bp_dev_free(&dev);
		return bp_errtryhelp("trace");
	}
	bp_trace_boot_readahead(kdev);
	if (bp_tracefs_open(&tf, &err) || bp_tracefs_top(&tf, &err)) {
		bp_dev_free(&dev);
		return bp_fail(&err);
	}
	c = bp_collect_new();
	if (!c) {
		bp_dev_free(&dev);
		return BP_EX_FAILURE;
	}
	bp_trace_signals_on(&tf);
	bp_tracefs_stop(&tf);	/* a consistent snapshot; the events are disabled below */
	bp_trace_warn_events(&tf);
	ret = bp_trace_read_buffer(&tf, c, o);
	bp_tracefs_close(&tf);
	if (bp_trace_signals_off() && !ret)
		ret = BP_EX_CANCELED;
	if (!ret && !bp_collect_nevents(c)) {
		bp_log_error("trace: the kernel's trace buffer holds no filemap event: boot with "
			     "the arguments 'bootpack trace --setup' prints");
		ret = BP_EX_STALE;
	}
	if (!ret)
		ret = bp_trace_finish(c, kdev, dev.path, bp_trace_boot_ns(), "boot", o);
	bp_collect_free(c);
	bp_dev_free(&dev);
	return ret;
}

/*
 * What --import and --from-kernel share: --dev MAJ:MIN (0 if not given)
 * and --device, opened; a new collector. 0 or an exit code (said why).
 */
static int open_saved(const struct bp_trace_opts *o, uint32_t *kdev, struct bp_dev *dev,
		      struct bp_collect **c)
{
	unsigned int ma, mi;
	uint32_t devkdev;
	char extra;
	int ret;

	*kdev = 0;
	*c = NULL;
	if (o->dev) {
		if (sscanf(o->dev, "%u:%u%c", &ma, &mi, &extra) != 2 || ma > 0xfff ||
		    mi > 0xfffff) {
			bp_log_error("trace: --dev '%s': expected MAJOR:MINOR, e.g. 8:1", o->dev);
			return bp_errtryhelp("trace");
		}
		*kdev = BP_KDEV(ma, mi);
	}
	if (o->offset) {
		/* A partition inside an image: libext2fs checks the filesystem at the offset. */
		struct bp_err err = { 0 };

		if (bp_dev_locate(o->device, dev, &err)) {
			bp_dev_free(dev);
			return bp_fail(&err);
		}
	} else {
		ret = bp_trace_open_device(o->device, dev, &devkdev);
		if (ret)
			return ret;
	}
	*c = bp_collect_new();
	if (!*c) {
		bp_dev_free(dev);
		return BP_EX_FAILURE;
	}
	return 0;
}

int bp_trace_from_text(const struct bp_trace_opts *o)
{
	struct bp_collect *c;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev;
	FILE *fp;
	int ret;

	ret = open_saved(o, &kdev, &dev, &c);
	if (ret)
		return ret;
	fp = fopen(o->import, "re");
	if (!fp) {
		bp_log_error("trace: %s: cannot open: %s", o->import, strerror(errno));
		ret = BP_EX_STALE;
		goto out;
	}
	if (bp_parse_text(fp, o->import, c, &err))
		ret = bp_fail(&err);
	fclose(fp);
	if (!ret && !kdev)
		ret = bp_trace_pick_device(c, &kdev, "--dev MAJ:MIN");
	if (!ret)
		ret = bp_trace_finish(c, kdev, dev.path, INT64_MIN, "import", o);
out:
	bp_collect_free(c);
	bp_dev_free(&dev);
	return ret;
}

int bp_trace_from_kernel(const struct bp_trace_opts *o)
{
	struct bp_collect *c;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev;
	int ret;

	ret = open_saved(o, &kdev, &dev, &c);
	if (ret)
		return ret;
	if (bp_krec_read(o->record, dev.path, &kdev, c, &err))
		ret = bp_fail(&err);
	else
		ret = bp_trace_finish(c, kdev, dev.path,
				      o->record ? INT64_MIN : bp_trace_boot_ns(), "boot", o);
	bp_collect_free(c);
	bp_dev_free(&dev);
	return ret;
}

int bp_trace_merge_files(const struct bp_trace_opts *o, int n, char **paths)
{
	struct bp_trace *acc, *t;
	struct bp_dev dev = { 0 };
	struct bp_err err = { 0 };
	uint32_t kdev;
	int i, ret = 0;

	if (o->device) {
		ret = bp_trace_open_device(o->device, &dev, &kdev);
		if (ret)
			return ret;
	}
	acc = bp_trace_new();
	if (!acc) {
		bp_dev_free(&dev);
		return BP_EX_FAILURE;
	}
	for (i = 0; i < n && !ret; i++) {
		if (bp_trace_load(paths[i], &t, &err)) {
			ret = bp_fail(&err);
			break;
		}
		if (o->device && bp_trace_check_device(t, dev.path, &err))
			ret = bp_fail(&err);
		else if (bp_trace_merge(acc, t, &err))
			ret = bp_fail(&err);
		bp_trace_free(t);
	}
	if (!ret) {
		acc->hdr.created = (int64_t)time(NULL);
		if (bp_trace_save(acc, o->output, &err))
			ret = bp_fail(&err);
		else
			bp_trace_summary(acc, o->output, NULL);
	}
	bp_trace_free(acc);
	bp_dev_free(&dev);
	return ret;
}
