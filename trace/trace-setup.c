// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace-setup.c --- bootpack trace --setup: kernel arguments and the units of a boot trace
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"
#include "cmd-trace.h"
#include "devspec.h"
#include "log.h"
#include "trace-engine.h"

#ifndef BP_SBINDIR
#define BP_SBINDIR "/usr/sbin"
#endif

static const char stop_service[] =
	"# Written by 'bootpack trace --setup --install' (trace/bootpack-trace-stop.service.in).\n"
	"[Unit]\n"
	"Description=Save the boot trace of bootpack\n"
	"Documentation=man:bootpack-trace(8)\n"
	"ConditionKernelCommandLine=trace_event\n"
	"After=default.target\n"
	"\n"
	"[Service]\n"
	"Type=oneshot\n"
	"ExecStartPre=/bin/mkdir -p %s\n"
	"ExecStart=%s/bootpack trace --from-boot -o %s/trace --device %s\n"
	"TimeoutStartSec=3min\n";

static const char stop_timer[] =
	"# Written by 'bootpack trace --setup --install' (trace/bootpack-trace-stop.timer.in).\n"
	"[Unit]\n"
	"Description=Stop the bootpack boot trace once the boot is done\n"
	"Documentation=man:bootpack-trace(8)\n"
	"ConditionKernelCommandLine=trace_event\n"
	"\n"
	"[Timer]\n"
	"OnActiveSec=45s\n"
	"Unit=bootpack-trace-stop.service\n"
	"\n"
	"[Install]\n"
	"WantedBy=default.target\n";

static int write_unit(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "we");
	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0 || rename(tmp, path) < 0) {
		bp_log_error("trace: %s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		return BP_EX_FAILURE;
	}
	printf("Wrote %s\n", path);
	return 0;
}

int bp_trace_setup(const char *device, unsigned int buffer_kb, int install,
		   const char *unit_dir)
{
	char service[8192], args[1024], devspec[PATH_MAX + 8];
	struct bp_tracefs tf;
	struct bp_err err = { 0 };
	struct bp_dev dev = { 0 };
	const char *spec = device;
	unsigned int i;
	size_t n = 0;
	int ret = 0;

	if (!spec) {
		struct stat st;

		if (stat("/", &st) < 0) {
			bp_log_error("trace: /: %s", strerror(errno));
			return BP_EX_FAILURE;
		}
		bp_trace_devnode(major(st.st_dev), minor(st.st_dev), devspec, sizeof(devspec));
		spec = devspec;
	}
	if (bp_dev_resolve(spec, &dev, &err) == 0 && dev.uuid) {
		snprintf(devspec, sizeof(devspec), "UUID=%s", dev.uuid);
		spec = devspec;
	} else if (!device) {
		bp_log_warn("trace: cannot find the UUID of the root filesystem; pass --device");
	}
	n += (size_t)snprintf(args + n, sizeof(args) - n, "trace_event=");
	for (i = 0; i < bp_tracefs_nevents; i++) {
		const char *e = bp_tracefs_events[i];
		char ev[160];

		snprintf(ev, sizeof(ev), "%s", e);
		*strchr(ev, '/') = ':';
		n += (size_t)snprintf(args + n, sizeof(args) - n, "%s%s", i ? "," : "", ev);
	}
	snprintf(args + n, sizeof(args) - n, " trace_buf_size=%uK", buffer_kb);
	if (bp_tracefs_open(&tf, &err) == 0) {
		char f[PATH_MAX + 512];

		for (i = 0; i < bp_tracefs_nevents; i++) {
			snprintf(f, sizeof(f), "%s/events/%s", tf.root, bp_tracefs_events[i]);
			if (access(f, F_OK) != 0)
				bp_log_warn("trace: the running kernel has no %s event",
					    bp_tracefs_events[i]);
		}
	}
	snprintf(service, sizeof(service), stop_service, BP_STATEDIR, BP_SBINDIR, BP_STATEDIR,
		 spec);
	printf("# Kernel command line (trace_buf_size is per CPU):\n%s\n\n", args);
	if (!install) {
		printf("# /etc/systemd/system/bootpack-trace-stop.service\n%s\n", service);
		printf("# /etc/systemd/system/bootpack-trace-stop.timer\n%s\n", stop_timer);
		printf("# Then: systemctl enable bootpack-trace-stop.timer, add the kernel "
		       "arguments, reboot.\n");
		goto out;
	}
	if (!unit_dir && (ret = bp_trace_require_root("--install")))
		goto out;
	ret = write_unit(unit_dir ? unit_dir : "/etc/systemd/system",
			 "bootpack-trace-stop.service", service);
	if (!ret)
		ret = write_unit(unit_dir ? unit_dir : "/etc/systemd/system",
				 "bootpack-trace-stop.timer", stop_timer);
	if (!ret)
		printf("Now run 'systemctl daemon-reload; systemctl enable "
		       "bootpack-trace-stop.timer', add the kernel arguments above to the boot "
		       "loader (e.g. GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub) and "
		       "reboot.\n");
out:
	bp_dev_free(&dev);
	return ret;
}
