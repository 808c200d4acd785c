// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace-setup.c --- bootpack trace --setup: kernel arguments and the units of a boot trace
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "devspec.h"
#include "log.h"
#include "trace-cli.h"
#include "trace-engine.h"

/*
 * The units are the ones make renders from trace/bootpack-trace-stop.*.in
 * and installs (trace-units.h, generated): one text, printed, written by
 * --install and installed by make install. Their service traces the root
 * filesystem ("--device /"); --setup --device D names D there instead.
 */
#include "trace-units.h"

#define UNIT_DEVICE_ARG " --device /\n"

/* --install's default: systemd's directory for the administrator's units
 * (fixed by systemd, not by our prefix; make install uses
 * --with-systemdsystemunitdir). */
#define BP_UNIT_DIR "/etc/systemd/system"

/* The service unit for spec (NULL: as installed) into buf. */
static int render_service(const char *spec, char *buf, size_t len)
{
	const char *at = strstr(bp_trace_stop_service, UNIT_DEVICE_ARG);
	int n;

	if (!spec || !at) {
		if (spec)
			bp_log_warn("trace: the service unit names no '--device /'; it is "
				    "printed as installed");
		n = snprintf(buf, len, "%s", bp_trace_stop_service);
	} else {
		n = snprintf(buf, len, "%.*s --device %s\n%s",
			     (int)(at - bp_trace_stop_service), bp_trace_stop_service, spec,
			     at + strlen(UNIT_DEVICE_ARG));
	}
	if (n < 0 || (size_t)n >= len) {
		bp_log_error("trace: %s: device name too long", spec ? spec : "/");
		return BP_EX_USAGE;
	}
	return 0;
}

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
	struct stat st;
	unsigned int i;
	size_t n = 0;
	int ret = 0, no_access = 0;

	/* A mount point stays as given (resolved at boot); a device by UUID. */
	if (device && !(stat(device, &st) == 0 && S_ISDIR(st.st_mode)) &&
	    bp_dev_resolve(device, &dev, &err) == 0 && dev.uuid) {
		snprintf(devspec, sizeof(devspec), "UUID=%s", dev.uuid);
		spec = devspec;
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
		/* no page-access events: readahead off for the traced boot */
		snprintf(f, sizeof(f), "%s/events/filemap/mm_filemap_get_pages", tf.root);
		no_access = access(f, F_OK) != 0;
	}
	ret = render_service(spec, service, sizeof(service));
	if (ret)
		goto out;
	printf("# Kernel command line (trace_buf_size is per CPU):\n%s%s\n\n", args,
	       no_access ? " bootpack=trace" : "");
	if (no_access)
		printf("# (no page-access events in this kernel: bootpack=trace has bootpack-read,\n"
		       "# as init= or in the initramfs, turn the root disk's readahead off for\n"
		       "# that boot, so the trace holds what the boot used; bootpack-read(8))\n\n");
	if (!install) {
		printf("# %s/bootpack-trace-stop.service\n%s\n", BP_UNIT_DIR, service);
		printf("# %s/bootpack-trace-stop.timer\n%s\n", BP_UNIT_DIR, bp_trace_stop_timer);
		printf("# Then: systemctl enable bootpack-trace-stop.timer, add the kernel "
		       "arguments, reboot.\n");
		goto out;
	}
	if (!unit_dir && (ret = bp_trace_require_root("--install")))
		goto out;
	ret = write_unit(unit_dir ? unit_dir : BP_UNIT_DIR, "bootpack-trace-stop.service", service);
	if (!ret)
		ret = write_unit(unit_dir ? unit_dir : BP_UNIT_DIR, "bootpack-trace-stop.timer",
				 bp_trace_stop_timer);
	if (!ret)
		printf("Now run 'systemctl daemon-reload; systemctl enable "
		       "bootpack-trace-stop.timer', add the kernel arguments above to the boot "
		       "loader (e.g. GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub) and "
		       "reboot.\n");
out:
	bp_dev_free(&dev);
	return ret;
}
