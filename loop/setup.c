// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * setup.c --- bootpack setup: check the system, install the loop, undo it
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "devspec.h"
#include "fsident.h"
#include "loop.h"
#include "trace-engine.h"

#ifndef BP_SBINDIR
#define BP_SBINDIR "/usr/sbin"
#endif
#ifndef BP_INITRAMFSTOOLSDIR
#define BP_INITRAMFSTOOLSDIR "/usr/share/initramfs-tools"
#endif
#ifndef BP_DRACUTMODULEDIR
#define BP_DRACUTMODULEDIR "/usr/lib/dracut/modules.d"
#endif
#ifndef BP_SYSTEMDUNITDIR
#define BP_SYSTEMDUNITDIR "/usr/lib/systemd/system"
#endif

#define GRUB_SNIPPET "/etc/default/grub.d/bootpack.cfg"
#define DPKG_HOOK "/etc/dpkg/dpkg.cfg.d/bootpack"
#define DRACUT_CONF "/etc/dracut.conf.d/bootpack.conf"
#define TRACE_DROPIN_DIR "/etc/systemd/system/bootpack-trace-stop.service.d"
#define TRACE_DROPIN TRACE_DROPIN_DIR "/bootpack-setup.conf"
#define CMDLINE_FILE BP_STATEDIR "/cmdline"

/* The units setup enables: name, the .wants directory it goes into. */
static const struct {
	const char *name;
	const char *wants;
} units[] = {
	{ "bootpack-trace-stop.timer", "default.target.wants" },
	{ "bootpack-loop.service", "multi-user.target.wants" },
	{ "bootpack-loop-sample.timer", "timers.target.wants" },
	{ "bootpack-read.service", "sysinit.target.wants" },
};

/* The administrator's, make install's (--with-systemdsystemunitdir), the distribution's. */
static const char *const unit_dirs[] = {
	"/etc/systemd/system", BP_SYSTEMDUNITDIR, "/lib/systemd/system", "/usr/lib/systemd/system",
};

static void say(const struct bp_setup_opts *o, const char *fmt, ...) _printf_(2, 3);
static void say(const struct bp_setup_opts *o, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (!o->say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->say(line);
}

static int is_live(const struct bp_setup_opts *o)
{
	char real[PATH_MAX];

	return realpath(o->root, real) && strcmp(real, "/") == 0;
}

static int exists(const char *root, const char *rel)
{
	char p[PATH_MAX];

	bp_loop_path(root, rel, p, sizeof(p));
	return access(p, F_OK) == 0;
}

void bp_setup_trace_args(unsigned int buffer_kb, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	n += (size_t)snprintf(buf + n, len - n, "trace_event=");
	for (i = 0; i < bp_tracefs_nevents && n < len; i++) {
		char ev[160], *slash;

		snprintf(ev, sizeof(ev), "%s", bp_tracefs_events[i]);
		slash = strchr(ev, '/');
		if (slash)
			*slash = ':';
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", ev);
	}
	if (n < len)
		snprintf(buf + n, len - n, " trace_buf_size=%uK", buffer_kb);
}

/* The newest DIR/boot/config-* (by name), or "" */
static void newest_kernel_config(const char *root, char *name, size_t len)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	name[0] = '\0';
	bp_loop_path(root, "/boot", dir, sizeof(dir));
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (strncmp(d->d_name, "config-", 7) == 0 && strcmp(d->d_name + 7, name) > 0)
			snprintf(name, len, "%s", d->d_name + 7);
	closedir(dp);
}

static errcode_t check_tracing(const struct bp_setup_opts *o, struct bp_setup_check *c,
			       struct bp_err *err)
{
	char path[PATH_MAX], line[256];
	int ftrace = 0, events = 0;
	FILE *fp;

	if (is_live(o)) {
		struct bp_tracefs tf;
		unsigned int i;

		if (bp_tracefs_open(&tf, err))
			return err->code;
		for (i = 0; i < bp_tracefs_nevents; i++) {
			snprintf(path, sizeof(path), "%s/events/%s", tf.root, bp_tracefs_events[i]);
			if (access(path, F_OK) != 0)
				return bp_err_set(err, BP_ET_UNSUPPORTED,
						  "the running kernel has no %s event: boot a kernel "
						  "with CONFIG_EVENT_TRACING (Debian's has it)",
						  bp_tracefs_events[i]);
		}
		snprintf(c->kernel, sizeof(c->kernel), "running kernel");
		return 0;
	}
	newest_kernel_config(o->root, c->kernel, sizeof(c->kernel));
	if (!c->kernel[0])
		return bp_err_set(err, ENOENT, "%s/boot: no kernel (config-*) installed: install "
				  "a kernel package in the tree first", o->root);
	snprintf(line, sizeof(line), "/boot/config-%s", c->kernel);
	bp_loop_path(o->root, line, path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		if (!strcmp(line, "CONFIG_FTRACE=y\n"))
			ftrace = 1;
		if (!strcmp(line, "CONFIG_EVENT_TRACING=y\n"))
			events = 1;
	}
	fclose(fp);
	if (!ftrace || !events)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: kernel %s has no %s: boot tracing "
				  "needs CONFIG_FTRACE and CONFIG_EVENT_TRACING", path, c->kernel,
				  ftrace ? "CONFIG_EVENT_TRACING" : "CONFIG_FTRACE");
	return 0;
}

static errcode_t check_fs(const struct bp_setup_opts *o, struct bp_setup_check *c,
			  struct bp_err *err)
{
	struct bp_dev dev = { 0 };
	ext2_filsys fs = NULL;
	struct ext2_super_block *sb;
	struct statvfs sv;
	errcode_t ret;

	if (o->device) {
		snprintf(c->devpath, sizeof(c->devpath), "%s", o->device);
	} else {
		struct stat st;

		if (stat(o->root, &st) < 0)
			return bp_err_set(err, errno, "%s: %s", o->root, strerror(errno));
		bp_dev_node(major(st.st_dev), minor(st.st_dev), c->devpath,
				 sizeof(c->devpath));
	}
	ret = bp_dev_resolve_ext(c->devpath, &dev, err);
	if (ret) {
		if (ret == BP_ET_NOT_EXT || ret == BP_ET_NO_FS)
			bp_err_set(err, BP_ET_NOT_EXT, "%s (holding %s) is not ext3/ext4 (%s): "
				   "bootpack relays out ext2/3/4 roots only", c->devpath, o->root,
				   dev.type ? dev.type : "unknown");
		goto out;
	}
	snprintf(c->devpath, sizeof(c->devpath), "%s", dev.path);
	snprintf(c->uuid, sizeof(c->uuid), "%s", dev.uuid ? dev.uuid : "");
	ret = bp_fs_open_ro(c->devpath, &fs, err);
	if (ret)
		goto out;
	sb = fs->super;
	if (ext2fs_has_feature_extents(sb) || ext2fs_has_feature_flex_bg(sb) ||
	    ext2fs_has_feature_64bit(sb))
		snprintf(c->fstype, sizeof(c->fstype), "ext4");
	else if (ext2fs_has_feature_journal(sb))
		snprintf(c->fstype, sizeof(c->fstype), "ext3");
	else
		snprintf(c->fstype, sizeof(c->fstype), "ext2");
	if (ext2fs_has_feature_bigalloc(sb) || ext2fs_has_feature_shared_blocks(sb) ||
	    ext2fs_has_feature_journal_dev(sb) ||
	    (ext2fs_has_feature_journal(sb) && sb->s_journal_inum == 0)) {
		ret = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: %s: relayout cannot handle %s",
				 c->devpath, c->fstype,
				 ext2fs_has_feature_bigalloc(sb) ? "bigalloc" :
				 ext2fs_has_feature_shared_blocks(sb) ? "shared_blocks" :
				 "an external journal");
		goto out;
	}
	if (!c->uuid[0])
		ret = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: the filesystem has no UUID: "
				 "give it one (tune2fs -U random) so that boots find it", c->devpath);
	if (ret)
		goto out;
	if (statvfs(o->root, &sv) < 0) {
		ret = bp_err_set(err, errno, "%s: %s", o->root, strerror(errno));
		goto out;
	}
	/* the region, and the undo file copied to the state directory after boot 2 */
	c->free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	c->need_bytes = 2 * o->region_bytes;
	if (c->free_bytes < c->need_bytes)
		ret = bp_err_set(err, BP_ET_NO_SPACE, "%s: %llu MiB free, %llu MiB needed (the "
				 "region and its undo file, %llu MiB each): free some space or "
				 "give a smaller --region-size", o->root,
				 (unsigned long long)(c->free_bytes >> 20),
				 (unsigned long long)(c->need_bytes >> 20),
				 (unsigned long long)(o->region_bytes >> 20));
out:
	if (fs)
		ext2fs_close_free(&fs);
	bp_dev_free(&dev);
	return ret;
}

static errcode_t find_unit(const char *root, const char *name, char *inpath, size_t len)
{
	unsigned int i;
	char rel[PATH_MAX];

	for (i = 0; i < sizeof(unit_dirs) / sizeof(unit_dirs[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", unit_dirs[i], name);
		if (exists(root, rel)) {
			snprintf(inpath, len, "%s", rel);
			return 0;
		}
	}
	return ENOENT;
}

errcode_t bp_setup_check(const struct bp_setup_opts *o, struct bp_setup_check *c,
			 struct bp_err *err)
{
	char p[PATH_MAX];
	unsigned int i;
	errcode_t ret;

	memset(c, 0, sizeof(*c));
	if (!exists(o->root, BP_SBINDIR "/bootpack"))
		return bp_err_set(err, ENOENT, "%s%s/bootpack: not installed: install the bootpack "
				  "package (or make install DESTDIR=%s) first", is_live(o) ? "" :
				  o->root, BP_SBINDIR, o->root);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (find_unit(o->root, units[i].name, p, sizeof(p)))
			return bp_err_set(err, ENOENT, "%s: unit %s is not installed (looked in "
					  "/etc, /lib and /usr/lib systemd/system and in " BP_SYSTEMDUNITDIR
					  "): install the bootpack package first",
					  o->root, units[i].name);
	if (!exists(o->root, "/lib/systemd/systemd") && !exists(o->root, "/usr/lib/systemd/systemd"))
		return bp_err_set(err, ENOENT, "%s: no systemd: the trace and loop units need it",
				  o->root);
	c->initramfs_tools = exists(o->root, "/usr/sbin/update-initramfs") &&
			     exists(o->root, BP_INITRAMFSTOOLSDIR "/scripts/local-premount/bootpack");
	c->dracut = exists(o->root, "/usr/bin/dracut") &&
		    exists(o->root, BP_DRACUTMODULEDIR "/90bootpack/bootpack-relayout.sh");
	if (!c->initramfs_tools && !c->dracut)
		return bp_err_set(err, ENOENT, "%s: neither initramfs-tools nor dracut with "
				  "bootpack's relayout hook: the relayout of boot 2 runs in the "
				  "initramfs; install initramfs-tools (or dracut) and bootpack",
				  o->root);
	c->grub = exists(o->root, "/usr/sbin/update-grub") || exists(o->root, "/etc/default/grub");
	if (is_live(o)) {
		long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

		if (pages > 0 && psz > 0)
			c->mem_bytes = (uint64_t)pages * (uint64_t)psz;
	}
	ret = check_fs(o, c, err);
	if (!ret)
		ret = check_tracing(o, c, err);
	return ret;
}

/* ---- writing ------------------------------------------------------------------ */

static errcode_t mkdirs(const char *root, const char *rel, struct bp_err *err)
{
	char p[PATH_MAX], *s;

	bp_loop_path(root, rel, p, sizeof(p));
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return bp_err_set(err, errno, "%s: cannot create: %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return bp_err_set(err, errno, "%s: cannot create: %s", p, strerror(errno));
	return 0;
}

static errcode_t write_file(const struct bp_setup_opts *o, const char *rel, const char *text,
			    struct bp_err *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX], *slash;
	errcode_t ret;
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if ((ret = mkdirs(o->root, dir, err)))
			return ret;
	}
	bp_loop_path(o->root, rel, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "we");
	if (!fp || fputs(text, fp) < 0 || fflush(fp) != 0 || fsync(fileno(fp)) != 0 ||
	    fclose(fp) != 0 || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return bp_err_set(err, e, "%s: cannot write: %s", path, strerror(e));
	}
	say(o, "wrote %s", path);
	return 0;
}

static void remove_file(const struct bp_setup_opts *o, const char *rel)
{
	char path[PATH_MAX];

	bp_loop_path(o->root, rel, path, sizeof(path));
	if (unlink(path) == 0)
		say(o, "removed %s", path);
}

/* Only a file this verb wrote (an older version wrote DRACUT_CONF, a name users pick too). */
static void remove_own_file(const struct bp_setup_opts *o, const char *rel)
{
	static const char mark[] = "# Written by 'bootpack setup'";
	char path[PATH_MAX], head[sizeof(mark)] = "";
	FILE *fp;

	bp_loop_path(o->root, rel, path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return;
	if (!fgets(head, sizeof(head), fp))
		head[0] = '\0';
	fclose(fp);
	if (strcmp(head, mark) == 0)
		remove_file(o, rel);
	else
		say(o, "left %s: not written by bootpack setup", path);
}

static int run(const struct bp_setup_opts *o, const char *const argv[])
{
	int status;
	pid_t pid;

	say(o, "running %s", argv[0]);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(2, 1);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void update_grub(const struct bp_setup_opts *o)
{
	const char *const argv[] = { "update-grub", NULL };

	if (!is_live(o)) {
		say(o, "then run: chroot %s update-grub", o->root);
		return;
	}
	if (run(o, argv) != 0)
		say(o, "update-grub failed: run it yourself before rebooting");
}

errcode_t bp_setup_next_boot(const struct bp_setup_opts *o, struct bp_loop_state *st,
			     const char *args, struct bp_err *err)
{
	char text[2048];
	errcode_t ret;

	snprintf(st->cmdline, sizeof(st->cmdline), "%s", args);
	snprintf(text, sizeof(text), "%s%s", args, args[0] ? "\n" : "");
	ret = write_file(o, CMDLINE_FILE, text, err);
	if (ret || !st->grub)
		return ret;
	if (args[0]) {
		snprintf(text, sizeof(text),
			 "# Written by 'bootpack setup' for the next boot only; see bootpack-setup(8).\n"
			 "# 'bootpack setup --undo' removes it.\n"
			 "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n", args);
		ret = write_file(o, GRUB_SNIPPET, text, err);
	} else {
		ret = write_file(o, GRUB_SNIPPET,
				 "# Written by 'bootpack setup': no kernel arguments for the next "
				 "boot.\n", err);
	}
	if (!ret)
		update_grub(o);
	return ret;
}

static errcode_t enable_unit(const struct bp_setup_opts *o, unsigned int i, struct bp_err *err)
{
	char target[PATH_MAX], rel[PATH_MAX], link[PATH_MAX];
	errcode_t ret;

	if (find_unit(o->root, units[i].name, target, sizeof(target)))
		return bp_err_set(err, ENOENT, "%s: unit %s is not installed", o->root,
				  units[i].name);
	snprintf(rel, sizeof(rel), "/etc/systemd/system/%s", units[i].wants);
	if ((ret = mkdirs(o->root, rel, err)))
		return ret;
	snprintf(rel, sizeof(rel), "/etc/systemd/system/%s/%s", units[i].wants, units[i].name);
	bp_loop_path(o->root, rel, link, sizeof(link));
	unlink(link);
	if (symlink(target, link) < 0)
		return bp_err_set(err, errno, "%s: cannot create: %s", link, strerror(errno));
	say(o, "enabled %s (%s -> %s)", units[i].name, link, target);
	return 0;
}

static void update_initramfs(const struct bp_setup_opts *o, const struct bp_setup_check *c)
{
	const char *const it[] = { "update-initramfs", "-u", NULL };
	const char *const dr[] = { "dracut", "-f", NULL };

	if (!is_live(o)) {
		say(o, "then run: chroot %s %s", o->root,
		    c->initramfs_tools ? "update-initramfs -u" : "dracut -f");
		return;
	}
	if (run(o, c->initramfs_tools ? it : dr) != 0)
		say(o, "rebuilding the initramfs failed: run '%s' yourself before rebooting",
		    c->initramfs_tools ? "update-initramfs -u" : "dracut -f");
}

errcode_t bp_setup_install(const struct bp_setup_opts *o, struct bp_setup_check *c,
			   struct bp_err *err)
{
	struct bp_loop_state st = { 0 };
	char args[1024], text[1024];
	unsigned int i;
	errcode_t ret;

	ret = bp_setup_check(o, c, err);
	if (ret || o->dry_run)
		return ret;
	if ((ret = mkdirs(o->root, BP_STATEDIR, err)))
		return ret;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((ret = enable_unit(o, i, err)))
			return ret;
	ret = write_file(o, TRACE_DROPIN,
			 "# Written by 'bootpack setup': once boot 1's trace is saved, schedule the\n"
			 "# relayout of boot 2. 'bootpack setup --undo' removes it.\n"
			 "[Service]\n"
			 "ExecStartPost=" BP_SBINDIR "/bootpack setup --event traced\n", err);
	if (ret)
		return ret;
	snprintf(text, sizeof(text),
		 "# Written by 'bootpack setup': a package change may make the boot pack stale\n"
		 "# ('bootpack setup --event packages' checks the pack's files and schedules a\n"
		 "# new trace if they changed). 'bootpack setup --undo' removes it.\n"
		 "post-invoke=if [ -x %s/bootpack ] && [ -f %s/loop ]; then %s/bootpack setup "
		 "--event packages || true; fi\n", BP_SBINDIR, BP_STATEDIR, BP_SBINDIR);
	if ((ret = write_file(o, DPKG_HOOK, text, err)))
		return ret;
	st.phase = BP_PHASE_TRACE;
	snprintf(st.device, sizeof(st.device), "UUID=%s", c->uuid);
	snprintf(st.reason, sizeof(st.reason), "setup");
	st.setup_time = st.phase_time = time(NULL);
	st.grub = (unsigned int)c->grub;
	bp_setup_trace_args(o->buffer_kb, args, sizeof(args));
	if ((ret = bp_setup_next_boot(o, &st, args, err)))
		return ret;
	if ((ret = bp_loop_save(o->root, &st, err)))
		return ret;
	update_initramfs(o, c);
	return 0;
}

errcode_t bp_setup_undo(const struct bp_setup_opts *o, struct bp_err *err)
{
	struct bp_loop_state st;
	char rel[PATH_MAX], p[PATH_MAX];
	unsigned int i;
	int had_grub = exists(o->root, GRUB_SNIPPET);

	(void)err;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		snprintf(rel, sizeof(rel), "/etc/systemd/system/%s/%s", units[i].wants,
			 units[i].name);
		remove_file(o, rel);
		snprintf(rel, sizeof(rel), "/etc/systemd/system/%s", units[i].wants);
		bp_loop_path(o->root, rel, p, sizeof(p));
		rmdir(p);	/* only if empty */
	}
	remove_file(o, TRACE_DROPIN);
	bp_loop_path(o->root, TRACE_DROPIN_DIR, p, sizeof(p));
	rmdir(p);
	remove_file(o, DPKG_HOOK);
	remove_own_file(o, DRACUT_CONF);
	remove_file(o, GRUB_SNIPPET);
	remove_file(o, CMDLINE_FILE);
	if (bp_loop_load(o->root, &st, err) == 0 || exists(o->root, BP_STATEDIR "/loop"))
		remove_file(o, BP_STATEDIR "/loop");
	if (had_grub)
		update_grub(o);
	if (exists(o->root, "/usr/sbin/update-initramfs") || exists(o->root, "/usr/bin/dracut")) {
		struct bp_setup_check c = { 0 };

		c.initramfs_tools = exists(o->root, "/usr/sbin/update-initramfs");
		update_initramfs(o, &c);
	}
	bp_loop_path(o->root, BP_STATEDIR, p, sizeof(p));
	say(o, "left in %s: the trace, the pack and relayout undo files (remove them by hand; "
	    "e2undo FILE DEVICE reverts a relayout while the root is unmounted)", p);
	return 0;
}
