// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * initrd-init.c --- /init of the arm64 test guest's initramfs
 * (tests/arm64/check-arm64-boot.sh). Debian's arm64 kernels build
 * virtio-blk and ext4 as modules; mkinitramfs under qemu-user takes an hour
 * on a loaded host, so the check makes its own initramfs: this program,
 * static, and the modules the root needs, uncompressed, in load order
 * (/modules/order, dependencies first). It loads them, waits for root=,
 * mounts it (rw or ro as the command line says), moves /dev and /proc into
 * it, makes it the root and execs init= (default /sbin/init) with the
 * arguments the kernel gave this program (those after "--").
 * Errors go to /dev/kmsg (the serial console); a failure ends in a shell-less
 * halt: the check then times out and shows the console.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n;

	n = snprintf(buf, sizeof(buf), "initrd-init: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t w = write(fd, buf, strlen(buf));

		(void)w;
		close(fd);
	}
}

static void halt(void)
{
	for (;;)
		pause();
}

/* the value of KEY= on the kernel command line, in @out; 0 if found */
static int cmdline_arg(const char *cmdline, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	const char *p = cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "--", 2) && (p[2] == ' ' || p[2] == '\n' || !p[2]))
			return -1;
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " \n");

			if (n >= outlen)
				return -1;
			memcpy(out, p + klen + 1, n);
			out[n] = 0;
			return 0;
		}
		p += strcspn(p, " ");
	}
	return -1;
}

static int has_word(const char *cmdline, const char *w)
{
	size_t n = strlen(w);
	const char *p = cmdline;

	while ((p = strstr(p, w))) {
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static int load_modules(void)
{
	char line[256];
	FILE *f = fopen("/modules/order", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char path[300];
		int fd;

		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		snprintf(path, sizeof(path), "/modules/%s", line);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)) {
			say("cannot load %s: %s\n", path, strerror(errno));
			fclose(f);
			return -1;
		}
		close(fd);
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	char cmdline[4096], root[256], init[256], fstype[32];
	unsigned long flags;
	ssize_t n;
	int fd, i;

	(void)argc;
	mkdir("/dev", 0755);
	mkdir("/proc", 0555);
	mkdir("/root", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) < 0 ||
	    mount("proc", "/proc", "proc", 0, NULL) < 0)
		halt();
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);
	if (n < 0) {
		say("cannot read /proc/cmdline\n");
		halt();
	}
	cmdline[n] = 0;
	close(fd);
	if (cmdline_arg(cmdline, "root", root, sizeof(root)) < 0 || strncmp(root, "/dev/", 5)) {
		say("root=/dev/... missing on the command line\n");
		halt();
	}
	if (cmdline_arg(cmdline, "init", init, sizeof(init)) < 0)
		snprintf(init, sizeof(init), "/sbin/init");
	if (cmdline_arg(cmdline, "rootfstype", fstype, sizeof(fstype)) < 0)
		snprintf(fstype, sizeof(fstype), "ext4");
	if (load_modules() < 0)
		halt();
	for (i = 0; i < 300 && access(root, F_OK) < 0; i++)
		usleep(100000);
	flags = has_word(cmdline, "ro") && !has_word(cmdline, "rw") ? MS_RDONLY : 0;
	if (mount(root, "/root", fstype, flags, NULL) < 0) {
		say("cannot mount %s (%s) on /root: %s\n", root, fstype, strerror(errno));
		halt();
	}
	if (mount("/dev", "/root/dev", NULL, MS_MOVE, NULL) < 0 ||
	    mount("/proc", "/root/proc", NULL, MS_MOVE, NULL) < 0 || chdir("/root") < 0 ||
	    mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0) {
		say("cannot switch to %s: %s\n", root, strerror(errno));
		halt();
	}
	argv[0] = init;
	execv(init, argv);
	say("cannot run %s: %s\n", init, strerror(errno));
	halt();
	return 1;
}
