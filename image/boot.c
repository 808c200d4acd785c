// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * boot.c --- run the image's boot driver and import the trace it saved
 *
 * The driver (bench/boot's QEMU harness packaged as image-boot) boots the
 * image's own kernel and initramfs, traced from power-on, and leaves the
 * guest's tracefs text in TEXTFILE and "dev=MAJ:MIN" (the guest's root
 * device), "done_s=SECONDS" and "mem_mb=MIB" (the guest's memory) in
 * TEXTFILE.env. Exit status 3: the image
 * did not boot. The text is parsed and resolved against the image's root at
 * its offset, like bootpack trace --import.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bp_et.h"
#include "image.h"
#include "trace-engine.h"

#define DRIVER_EXIT_NOBOOT 3
#define GUEST_MEM_MAX_MB (1ULL << 24)	/* 16 TiB: more is not a guest's memory */

const char *bp_image_boot_default_driver(void)
{
	return BP_LIBEXECDIR "/bootpack/image-boot";
}

static errcode_t run_driver(const char *driver, const struct bp_image_boot_opts *o,
			    const char *text, struct bp_err *err)
{
	char off[32], tmo[32];
	int status;
	pid_t pid;

	snprintf(off, sizeof(off), "%" PRIu64, o->offset);
	snprintf(tmo, sizeof(tmo), "%u", o->timeout_s);
	pid = fork();
	if (pid < 0)
		return bp_err_lib(err, errno, "while starting the boot driver %s", driver);
	if (pid == 0) {
		execl(driver, driver, "--image", o->image, "--offset", off, "--out", text,
		      "--timeout", tmo, (char *)NULL);
		fprintf(stderr, "bootpack: %s: cannot run the boot driver: %s\n", driver,
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return bp_err_lib(err, errno, "while waiting for the boot driver %s",
					  driver);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == DRIVER_EXIT_NOBOOT)
		return bp_err_set(err, BP_ET_NO_BOOT,
				  "%s: did not boot under QEMU within %u s (the boot driver %s says "
				  "why above); nothing was written. Check that the image boots, or "
				  "give a trace of a real boot with --trace FILE",
				  o->image, o->timeout_s, driver);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return bp_err_set(err, ENOENT,
				  "%s: the boot driver could not be run; set BOOTPACK_IMAGE_BOOT or "
				  "give traces with --trace FILE",
				  driver);
	return bp_err_set(err, BP_ET_NO_BOOT,
			  "%s: the boot driver %s failed (%s %d); nothing was written", o->image,
			  driver, WIFEXITED(status) ? "exit status" : "signal",
			  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* dev=MAJ:MIN from TEXTFILE.env into *kdev; mem_mb=MIB into *mem (bytes), if there. */
static errcode_t read_env(const char *envpath, uint32_t *kdev, uint64_t *mem, struct bp_err *err)
{
	char line[256];
	unsigned int ma, mi;
	unsigned long long mb;
	int have = 0;
	FILE *fp = fopen(envpath, "re");

	if (!fp)
		return bp_err_set(err, BP_ET_TRACE_CORRUPT,
				  "%s: the boot driver left no environment file: %s", envpath,
				  strerror(errno));
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "dev=%u:%u", &ma, &mi) == 2 && ma <= 0xfff && mi <= 0xfffff) {
			*kdev = BP_KDEV(ma, mi);
			have = 1;
		} else if (sscanf(line, "mem_mb=%llu", &mb) == 1 && mb && mb <= GUEST_MEM_MAX_MB) {
			*mem = (uint64_t)mb << 20;
		}
	fclose(fp);
	if (!have)
		return bp_err_set(err, BP_ET_TRACE_CORRUPT,
				  "%s: no 'dev=MAJ:MIN' line (the guest's root device)", envpath);
	return 0;
}

errcode_t bp_image_boot_trace(const struct bp_image_boot_opts *o, int64_t created,
			      struct bp_trace **ret, uint64_t *guest_mem, struct bp_err *err)
{
	const char *driver = o->driver;
	struct bp_fsloc loc = { o->image, o->offset };
	struct bp_events_stats st;
	struct bp_collect *c = NULL;
	struct bp_trace *t = NULL;
	char text[4096], env[4200];
	uint32_t kdev = 0;
	errcode_t rc;
	FILE *fp;

	*ret = NULL;
	*guest_mem = 0;
	if (!driver)
		driver = getenv("BOOTPACK_IMAGE_BOOT");
	if (!driver || !*driver)
		driver = bp_image_boot_default_driver();
	snprintf(text, sizeof(text), "%s/boot-trace.txt", o->workdir);
	snprintf(env, sizeof(env), "%s.env", text);
	rc = run_driver(driver, o, text, err);
	if (rc)
		return rc;
	rc = read_env(env, &kdev, guest_mem, err);
	if (rc)
		return rc;
	fp = fopen(text, "re");
	if (!fp)
		return bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: the boot driver left no trace: %s",
				  text, strerror(errno));
	c = bp_collect_new();
	rc = c ? bp_parse_text(fp, text, c, err) : bp_err_set(err, ENOMEM, "out of memory");
	fclose(fp);
	if (!rc)
		rc = bp_trace_from_events(c, kdev, &loc, INT64_MIN, &t, &st, err);
	bp_collect_free(c);
	if (rc)
		return rc;
	t->hdr.created = created;
	rc = bp_trace_set_str(&t->hdr.source, "image-boot");
	if (!rc)
		rc = bp_trace_set_str(&t->hdr.device, o->image);
	if (rc) {
		bp_err_set(err, rc, "out of memory");
		bp_trace_free(t);
		return rc;
	}
	*ret = t;
	return 0;
}
