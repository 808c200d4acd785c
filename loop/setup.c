// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * setup.c --- bootpack setup: check the system, install the loop, undo it
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "c.h"
#include "devspec.h"
#include "fsident.h"
#include "loop.h"
#include "policy.h"
#include "initramfs-conf.h"
#include "trace-engine.h"

#ifndef BP_SBINDIR
#define BP_SBINDIR "/usr/sbin"
#endif
#ifndef BP_SYSTEMDUNITDIR
#define BP_SYSTEMDUNITDIR "/usr/lib/systemd/system"
#endif

#define GRUB_SNIPPET "/etc/default/grub.d/bootpack.cfg"
#define DPKG_HOOK "/etc/dpkg/dpkg.cfg.d/bootpack"
#define DRACUT_CONF BP_DRACUT_CONF
#define IT_CONF BP_IT_CONF
#define OWN_MARK "# Written by 'bootpack setup'"
#define TRACE_DROPIN_DIR "/etc/systemd/system/bootpack-trace-stop.service.d"
#define TRACE_DROPIN TRACE_DROPIN_DIR "/bootpack-setup.conf"
#define CMDLINE_FILE BP_STATEDIR "/cmdline"
#define PROBE_FILE BP_STATEDIR BP_LOOP_PROBE_FILE

/* The units setup enables: name, the .wants directory it goes into. */
static const struct {
	const char *name;
	const char *wants;
} units[] = {
	{ "bootpack-trace-stop.timer", "default.target.wants" },
	{ "bootpack-loop.service", "multi-user.target.wants" },
	{ "bootpack-loop-sample.timer", "timers.target.wants" },
	{ "bootpack-misses.service", "sysinit.target.wants" },
	{ "bootpack-read.service", "sysinit.target.wants" },
};

/* The administrator's, make install's (--with-systemdsystemunitdir), the distribution's. */
static const char *const unit_dirs[] = {
	"/etc/systemd/system", BP_SYSTEMDUNITDIR, "/lib/systemd/system", "/usr/lib/systemd/system",
};

const char *bp_setup_unit_dir(size_t i)
{
	return i < ARRAY_SIZE(unit_dirs) ? unit_dirs[i] : NULL;
}

const char *bp_setup_unit_wants(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(units[i].name, name))
			return units[i].wants;
	return NULL;
}

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

void bp_setup_trace_args(unsigned int buffer_kb, unsigned int events, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i, k = 0;

	n += (size_t)snprintf(buf + n, len - n, "trace_event=");
	for (i = 0; i < bp_tracefs_nevents && n < len; i++) {
		char ev[160], *slash;

		if (i && !(events & (1U << i)))
			continue;
		snprintf(ev, sizeof(ev), "%s", bp_tracefs_events[i]);
		slash = strchr(ev, '/');
		if (slash)
			*slash = ':';
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k++ ? "," : "", ev);
	}
	/*
	 * Without a page-access event the trace also holds what readahead read
	 * and nobody used. bootpack=trace (readahead off for the traced boot)
	 * is not asked for: the pack of such a trace holds only what the boot
	 * used, the read boots (readahead on) then read around it, and their
	 * misses schedule relayout after relayout (check-loop on 6.1: 11 of
	 * 112 requests outside a 28 MB pack after boot 3).
	 */
	if (n < len)
		snprintf(buf + n, len - n, " trace_buf_size=%uK", buffer_kb);
}

unsigned int bp_setup_all_events(void)
{
	return (1U << bp_tracefs_nevents) - 1;
}

void bp_setup_events_name(unsigned int events, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < bp_tracefs_nevents && n < len; i++)
		if (!i || (events & (1U << i)))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
					      strchr(bp_tracefs_events[i], '/') + 1);
}

/* The newest DIR/boot/config-* (by version, then name), or "" */
static int version_cmp(const char *a, const char *b)
{
	unsigned long x, y;
	char *ea, *eb;

	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			x = strtoul(a, &ea, 10);
			y = strtoul(b, &eb, 10);
			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

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
		if (strncmp(d->d_name, "config-", 7) == 0 &&
		    (!name[0] || version_cmp(d->d_name + 7, name) > 0))
			snprintf(name, len, "%s", d->d_name + 7);
	closedir(dp);
}

/* The page-access events came with Linux 6.12: from a release, 1 (has them), 0, -1 unknown. */
#define BP_ACCESS_EVENTS_MAJOR 6
#define BP_ACCESS_EVENTS_MINOR 12
static int release_has_access(const char *release)
{
	unsigned int ma, mi;

	if (sscanf(release, "%u.%u", &ma, &mi) != 2)
		return -1;
	return ma > BP_ACCESS_EVENTS_MAJOR ||
	       (ma == BP_ACCESS_EVENTS_MAJOR && mi >= BP_ACCESS_EVENTS_MINOR);
}

/* Is dir a mounted tracefs (or a directory laid out as one)? */
#define TRACEFS_MAGIC_NR 0x74726163
static int is_tracefs_dir(const char *dir)
{
	char ev[PATH_MAX];
	struct statfs sf;

	snprintf(ev, sizeof(ev), "%s/events", dir);
	return access(ev, F_OK) == 0 || (statfs(dir, &sf) == 0 && sf.f_type == TRACEFS_MAGIC_NR);
}

/*
 * The running kernel's tracefs: the events it has (*mask), or a refusal that
 * names what is missing: sysfs, tracefs (CONFIG_FTRACE), the mount, the event
 * directory (CONFIG_EVENT_TRACING), the filemap events, add_to_page_cache, a
 * layout bootpack reads.
 */
static errcode_t live_events(unsigned int *mask, char *release, size_t rlen, struct bp_err *err)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[PATH_MAX + 160], root[PATH_MAX] = "";
	struct bp_err e = { 0 };
	struct bp_ev_format f;
	struct utsname u;
	unsigned int i;
	errcode_t rc;
	FILE *fp;

	*mask = 0;
	snprintf(release, rlen, "%s", uname(&u) == 0 ? u.release : "?");
	for (i = 0; i < ARRAY_SIZE(dirs) && !root[0]; i++)
		if (is_tracefs_dir(dirs[i]))
			snprintf(root, sizeof(root), "%s", dirs[i]);
	if (!root[0]) {
		if (access("/sys/kernel", F_OK) != 0)
			return bp_err_set(err, ENOENT, "/sys/kernel: %s: mount sysfs on /sys "
					  "('mount -t sysfs sysfs /sys'): the trace events are "
					  "found through it", strerror(errno));
		if (access(dirs[0], F_OK) != 0)
			return bp_err_set(err, BP_ET_UNSUPPORTED, "the running kernel (%s) has no "
					  "tracefs (no %s): it was built without CONFIG_FTRACE; "
					  "boot a kernel with CONFIG_FTRACE and CONFIG_EVENT_TRACING "
					  "(Debian's has them)", release, dirs[0]);
		if (mount("nodev", dirs[0], "tracefs", 0, NULL) < 0)
			return bp_err_set(err, errno, "%s: tracefs is not mounted and cannot be "
					  "mounted there (%s): mount it ('mount -t tracefs nodev %s') "
					  "and run setup again", dirs[0], strerror(errno), dirs[0]);
		snprintf(root, sizeof(root), "%s", dirs[0]);
	}
	snprintf(path, sizeof(path), "%s/events", root);
	if (access(path, F_OK) != 0)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: no trace events in the running "
				  "kernel (%s): it was built without CONFIG_EVENT_TRACING; boot a "
				  "kernel with it (Debian's has it)", path, release);
	snprintf(path, sizeof(path), "%s/events/filemap", root);
	if (access(path, F_OK) != 0)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: the running kernel (%s) has no "
				  "filemap events at all: bootpack traces the page cache with "
				  "filemap:mm_filemap_add_to_page_cache; boot a kernel that has it "
				  "(Debian's 6.1 and later do)", path, release);
	snprintf(path, sizeof(path), "%s/events/%s/format", root, bp_tracefs_events[0]);
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: the running kernel (%s) has "
				  "filemap events but not %s, which bootpack traces with; boot a "
				  "kernel that has it (Debian's 6.1 and later do)", path, release,
				  bp_tracefs_events[0]);
	rc = bp_ev_format_parse(fp, path, &f, &e);
	fclose(fp);
	if (!rc)
		rc = bp_ev_format_check(&f, &e);
	if (rc)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: the running kernel (%s): %s; "
				  "boot a kernel whose layout this bootpack reads (Debian's 6.1 "
				  "and later), or a newer bootpack", path, release, bp_err_str(&e));
	*mask = 1U;
	for (i = 1; i < bp_tracefs_nevents; i++) {
		snprintf(path, sizeof(path), "%s/events/%s", root, bp_tracefs_events[i]);
		if (access(path, F_OK) == 0)
			*mask |= 1U << i;
	}
	return 0;
}

/* A tree's kernel: the newest /boot/config-* has tracing; its release says which events. */
static errcode_t tree_events(const struct bp_setup_opts *o, unsigned int *mask, char *kernel,
			     size_t klen, struct bp_err *err)
{
	char path[PATH_MAX], line[256];
	int ftrace = 0, events = 0, access_ev;
	FILE *fp;

	*mask = 0;
	newest_kernel_config(o->root, kernel, klen);
	if (!kernel[0])
		return bp_err_set(err, ENOENT, "%s/boot: no kernel (config-*) installed: install "
				  "a kernel package in the tree first", o->root);
	snprintf(line, sizeof(line), "/boot/config-%s", kernel);
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
				  "needs CONFIG_FTRACE and CONFIG_EVENT_TRACING", path, kernel,
				  ftrace ? "CONFIG_EVENT_TRACING" : "CONFIG_FTRACE");
	access_ev = release_has_access(kernel);
	*mask = access_ev == 0 ? 1U : bp_setup_all_events();
	return 0;
}

errcode_t bp_setup_kernel_events(const struct bp_setup_opts *o, unsigned int *mask,
				 char *desc, size_t len, struct bp_err *err)
{
	char release[128], newest[128] = "", names[256];
	unsigned int have;
	errcode_t rc;
	int newer;

	if (!is_live(o)) {
		rc = tree_events(o, &have, release, sizeof(release), err);
		if (rc)
			return rc;
		bp_setup_events_name(have, names, sizeof(names));
		snprintf(desc, len, "kernel %s (/boot/config-%s)%s: %s", release, release,
			 release_has_access(release) < 0 ? ", release unknown: all events asked for" :
			 "", names);
		*mask = have;
		return 0;
	}
	rc = live_events(&have, release, sizeof(release), err);
	if (rc)
		return rc;
	/* a newer kernel installed, the one the next boot runs: its events too */
	newest_kernel_config(o->root, newest, sizeof(newest));
	newer = newest[0] && version_cmp(newest, release) > 0 && release_has_access(newest) > 0 &&
		have != bp_setup_all_events();
	*mask = newer ? bp_setup_all_events() : have;
	bp_setup_events_name(*mask, names, sizeof(names));
	snprintf(desc, len, "running kernel %s%s%s: %s%s", release, newer ? ", and " : "",
		 newer ? newest : "", names, have & ~1U ? "" : newer ? "" :
		 " (no page-access events before Linux 6.12)");
	return 0;
}

static errcode_t check_tracing(const struct bp_setup_opts *o, struct bp_setup_check *c,
			       struct bp_err *err)
{
	return bp_setup_kernel_events(o, &c->events, c->kernel, sizeof(c->kernel), err);
}

/* The deepest directory of root + rel that exists (rel's own filesystem once created). */
static int existing_parent(const char *root, const char *rel, char *path, size_t len,
			   struct stat *st)
{
	char *slash;

	bp_loop_path(root, rel, path, len);
	while (stat(path, st) < 0) {
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			return -1;
		*slash = '\0';
	}
	return 0;
}

/* Is the filesystem on dev (resolved) the one that holds root (st_dev rootdev)? */
static int same_fs(const struct bp_dev *dev, dev_t rootdev)
{
	struct bp_dev rd = { 0 };
	struct bp_err e = { 0 };
	char node[4096];
	struct stat st;
	int same = 0;

	if (dev->is_blockdev && stat(dev->path, &st) == 0 && S_ISBLK(st.st_mode))
		return st.st_rdev == rootdev;
	/* an image file: the filesystem holding root has the same UUID */
	bp_dev_node(major(rootdev), minor(rootdev), node, sizeof(node));
	if (bp_dev_resolve_ext(node, &rd, &e) == 0 && rd.uuid && dev->uuid)
		same = strcmp(rd.uuid, dev->uuid) == 0;
	bp_dev_free(&rd);
	return same;
}

/*
 * A root that is not ext2/3/4: the relayout moves blocks with libext2fs, and
 * the pack and the reader address them by the block maps it reads.
 */
#define NOT_EXT_WHY "bootpack's boot loop (relayout, pack and reader) works on ext2/3/4 " \
		    "roots only; btrfs, XFS and the others are not supported: nothing was set up"

/* What statfs(2) says a filesystem without a block device of its own is. */
static const char *fs_magic_name(long type)
{
	switch ((unsigned long)type) {
	case 0x9123683eUL: return "btrfs";
	case 0x01021994UL: return "tmpfs";
	case 0x794c7630UL: return "overlayfs";
	case 0x6969UL: return "NFS";
	case 0x2fc12fc1UL: return "ZFS";
	case 0x65735546UL: return "FUSE";
	default: return "a filesystem without a block device";
	}
}

/* The largest run of free blocks (the region needs no eviction if it fits). */
static uint64_t largest_free_run(ext2_filsys fs)
{
	blk64_t b = fs->super->s_first_data_block, end = ext2fs_blocks_count(fs->super) - 1;
	blk64_t s, e;
	uint64_t largest = 0;

	if (ext2fs_read_block_bitmap(fs))
		return 0;
	while (b <= end) {
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, b, end, &s))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, s, end, &e))
			e = end + 1;
		if (e - s > largest)
			largest = e - s;
		b = e;
	}
	return largest;
}

static errcode_t check_fs(const struct bp_setup_opts *o, struct bp_setup_check *c,
			  struct bp_err *err)
{
	struct bp_dev dev = { 0 };
	ext2_filsys fs = NULL;
	struct ext2_super_block *sb;
	struct statvfs sv;
	struct stat rst, sst;
	errcode_t ret;

	if (stat(o->root, &rst) < 0)
		return bp_err_set(err, errno, "%s: %s", o->root, strerror(errno));
	/* btrfs, a tmpfs, an overlay, NFS: no block device of its own (an anonymous st_dev) */
	if (!o->device && major(rst.st_dev) == 0) {
		struct statfs sf;

		return bp_err_set(err, BP_ET_NOT_EXT, "%s is on %s (device %u:%u, no block device "
				  "of its own), not ext2/3/4: " NOT_EXT_WHY, o->root,
				  statfs(o->root, &sf) == 0 ? fs_magic_name(sf.f_type) : "?",
				  major(rst.st_dev), minor(rst.st_dev));
	}
	if (o->device)
		snprintf(c->devpath, sizeof(c->devpath), "%s", o->device);
	else
		bp_dev_node(major(rst.st_dev), minor(rst.st_dev), c->devpath, sizeof(c->devpath));
	ret = bp_dev_resolve_ext(c->devpath, &dev, err);
	if (ret) {
		if (ret == BP_ET_NOT_EXT || ret == BP_ET_NO_FS)
			bp_err_set(err, BP_ET_NOT_EXT, "%s (holding %s) is %s, not ext2/3/4: "
				   NOT_EXT_WHY, c->devpath, o->root,
				   dev.type ? dev.type : "no filesystem blkid knows");
		goto out;
	}
	snprintf(c->devpath, sizeof(c->devpath), "%s", dev.path);
	snprintf(c->uuid, sizeof(c->uuid), "%s", dev.uuid ? dev.uuid : "");
	/* boot 2 relays out the device it finds by the root's UUID: it must be this one */
	if (o->device && !same_fs(&dev, rst.st_dev)) {
		ret = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: not the filesystem that holds %s "
				 "(device %u:%u): give the root filesystem's device, or no --device",
				 c->devpath, o->root, major(rst.st_dev), minor(rst.st_dev));
		goto out;
	}
	/*
	 * Boot 2 reads the state and the trace from the unmounted root with
	 * debugfs: a state directory on another filesystem (/var of its own)
	 * is not there, and the loop would give up after three boots.
	 */
	if (existing_parent(o->root, BP_STATEDIR, c->statedir, sizeof(c->statedir), &sst) < 0) {
		ret = bp_err_set(err, errno, "%s: %s", o->root, strerror(errno));
		goto out;
	}
	if (sst.st_dev != rst.st_dev) {
		ret = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: on another filesystem (device %u:%u) "
				 "than %s (%u:%u): boot 2 reads the loop's state in " BP_STATEDIR
				 " from the root filesystem before anything else is mounted; put "
				 BP_STATEDIR " on the root filesystem (e.g. a /var of its own: "
				 "a bootpack built with --with-statedir=DIR on the root)",
				 c->statedir, major(sst.st_dev), minor(sst.st_dev), o->root,
				 major(rst.st_dev), minor(rst.st_dev));
		goto out;
	}
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
	/* an external journal is fine (relayout never moves it); a journal device is not a root */
	if (ext2fs_has_feature_bigalloc(sb) || ext2fs_has_feature_shared_blocks(sb) ||
	    ext2fs_has_feature_journal_dev(sb)) {
		ret = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: %s: relayout cannot handle %s",
				 c->devpath, c->fstype,
				 ext2fs_has_feature_bigalloc(sb) ? "bigalloc" :
				 ext2fs_has_feature_shared_blocks(sb) ? "shared_blocks" :
				 "a journal device (it holds no filesystem)");
		goto out;
	}
	if (!c->uuid[0])
		ret = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: the filesystem has no UUID: "
				 "give it one (tune2fs -U random) so that boots find it", c->devpath);
	if (ret)
		goto out;
	/* where the undo file goes: the state directory (checked above to be on the root) */
	if (statvfs(c->statedir, &sv) < 0) {
		ret = bp_err_set(err, errno, "%s: %s", c->statedir, strerror(errno));
		goto out;
	}
	/* the region, and the undo file copied to the state directory after boot 2 */
	c->free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	c->need_bytes = 2 * o->region_bytes;
	if (c->free_bytes < c->need_bytes) {
		ret = bp_err_set(err, BP_ET_NO_SPACE, "%s: %llu MiB free, %llu MiB needed (the "
				 "region and its undo file, %llu MiB each): free some space or "
				 "give a smaller --region-size", c->statedir,
				 (unsigned long long)(c->free_bytes >> 20),
				 (unsigned long long)(c->need_bytes >> 20),
				 (unsigned long long)(o->region_bytes >> 20));
		goto out;
	}
	/*
	 * Boot 2 keeps the undo file in a tmpfs of half the memory until the
	 * root is up: the old contents of the boot set's blocks, and of the
	 * blocks eviction moves out of the region when no free run holds it
	 * (as many again at most), plus a sixteenth for the rest.
	 */
	c->evicts = largest_free_run(fs) * fs->blocksize < o->region_bytes;
	c->undo_bytes = o->region_bytes * (c->evicts ? 2 : 1);
	c->undo_bytes += c->undo_bytes / 16;
	if (c->mem_bytes && c->undo_bytes > c->mem_bytes / 2) {
		uint64_t fit = (c->mem_bytes / 2) / 17 * 16 / (c->evicts ? 2 : 1);

		ret = bp_err_set(err, BP_ET_NO_SPACE, "%s: the undo file of boot 2, about %llu "
				 "MiB for a --region-size of %llu MiB%s, does not fit in the "
				 "tmpfs of the initramfs (half of %llu MiB of memory): give a "
				 "--region-size of %llu MiB or less", c->devpath,
				 (unsigned long long)(c->undo_bytes >> 20),
				 (unsigned long long)(o->region_bytes >> 20),
				 c->evicts ? " and as much evicted from it" : "",
				 (unsigned long long)(c->mem_bytes >> 20),
				 (unsigned long long)(fit >> 20));
	}
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

	for (i = 0; i < ARRAY_SIZE(unit_dirs); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", unit_dirs[i], name);
		if (exists(root, rel)) {
			snprintf(inpath, len, "%s", rel);
			return 0;
		}
	}
	return ENOENT;
}

/* Is root + rel absent, or a file this verb wrote (its first line is OWN_MARK)? */
static int own_or_absent(const char *root, const char *rel)
{
	char path[PATH_MAX], head[sizeof(OWN_MARK)] = "";
	FILE *fp;

	bp_loop_path(root, rel, path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT;
	if (!fgets(head, sizeof(head), fp))
		head[0] = '\0';
	fclose(fp);
	return strcmp(head, OWN_MARK) == 0;
}

/* The tree under root, for the initramfs tools' rule (initramfs-conf.h). */
static errcode_t tree_read(void *ctx, const char *path, char *buf, size_t len)
{
	char p[PATH_MAX];
	struct stat sb;
	size_t n;
	FILE *fp;

	bp_loop_path(ctx, path, p, sizeof(p));
	fp = fopen(p, "re");
	if (!fp)
		return errno;
	if (fstat(fileno(fp), &sb) || !S_ISREG(sb.st_mode)) {
		fclose(fp);
		return EISDIR;
	}
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return 0;
}

static errcode_t tree_list(void *ctx, const char *path, int (*add)(void *arg, const char *name),
			   void *arg)
{
	char p[PATH_MAX];
	struct dirent *d;
	errcode_t rc = 0;
	DIR *dir;

	bp_loop_path(ctx, path, p, sizeof(p));
	dir = opendir(p);
	if (!dir)
		return errno;
	while (!rc && (d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			rc = add(arg, d->d_name);
	closedir(dir);
	return rc;
}

static int tree_exists(void *ctx, const char *path)
{
	return exists(ctx, path);
}

/* root as the rule reads it; own_path: setup's file, read as what it writes (NULL: as it is). */
static void tree_of(const struct bp_setup_opts *o, const char *own_path, const char *own_text,
		    struct bp_conf_tree *t)
{
	*t = (struct bp_conf_tree){
		.read = tree_read,
		.list = tree_list,
		.exists = tree_exists,
		.ctx = (void *)o->root,
		.own_path = own_path,
		.own_text = own_text,
	};
}

/*
 * initramfs-tools: the reader is in the initramfs when the last BOOTPACK=
 * of initramfs.conf and the files of conf.d (in name order) says y, as the hook reads
 * them. Setup's own conf.d/bootpack (there or to be written) counts as the
 * BOOTPACK=y it writes; a conf.d/bootpack of the user's is kept as it is.
 */
static errcode_t choose_it(const struct bp_setup_opts *o, struct bp_setup_check *c)
{
	char val[64], from[PATH_MAX + 256], rfrom[PATH_MAX + 256], mine[PATH_MAX];
	int own = own_or_absent(o->root, IT_CONF), yes;
	struct bp_conf_tree t;
	errcode_t rc;

	bp_loop_path(o->root, IT_CONF, mine, sizeof(mine));
	tree_of(o, own ? IT_CONF : NULL, "BOOTPACK=y\n", &t);
	rc = bp_conf_it_reader(&t, &yes, val, sizeof(val), from, sizeof(from));
	if (rc)
		return rc;
	if (from[0])
		bp_loop_path(o->root, from, rfrom, sizeof(rfrom));
	else
		rfrom[0] = '\0';
	if (yes) {
		c->reader = BP_READER_AT_INITRAMFS;
		if (own)
			snprintf(c->reader_conf, sizeof(c->reader_conf), "%s", IT_CONF);
		snprintf(c->reader_why, sizeof(c->reader_why), "BOOTPACK=%s in %s%s", val, rfrom,
			 own && !strcmp(from, IT_CONF) ? " (written by bootpack setup)" : "");
		return 0;
	}
	c->reader = BP_READER_AT_SERVICE;
	if (from[0])
		snprintf(c->reader_why, sizeof(c->reader_why), "%s says BOOTPACK=%s: kept, the "
			 "reader runs as " BP_SETUP_READER_UNIT, rfrom, val);
	else
		snprintf(c->reader_why, sizeof(c->reader_why), "%s is not bootpack setup's and "
			 "says no BOOTPACK=y: kept, the reader runs as " BP_SETUP_READER_UNIT, mine);
	return 0;
}

/*
 * dracut: the module is asked for by setup's own bootpack.conf (there or to
 * be written), or by a bootpack.conf of the user's that adds it; an
 * omit_dracutmodules of it in dracut.conf or dracut.conf.d wins.
 */
static errcode_t choose_dracut(const struct bp_setup_opts *o, struct bp_setup_check *c)
{
	char from[PATH_MAX + 256], path[PATH_MAX + 256], mine[PATH_MAX];
	int own = own_or_absent(o->root, DRACUT_CONF);
	enum bp_conf_dracut says;
	struct bp_conf_tree t;
	errcode_t rc;

	bp_loop_path(o->root, DRACUT_CONF, mine, sizeof(mine));
	tree_of(o, own ? DRACUT_CONF : NULL, "add_dracutmodules+=\" bootpack \"\n", &t);
	rc = bp_conf_dracut_reader(&t, &says, from, sizeof(from));
	if (rc)
		return rc;
	if (says == BP_CONF_DRACUT_OMITTED) {
		c->reader = BP_READER_AT_SERVICE;
		bp_loop_path(o->root, from, path, sizeof(path));
		snprintf(c->reader_why, sizeof(c->reader_why), "%s omits the module bootpack: "
			 "kept, the reader runs as " BP_SETUP_READER_UNIT, path);
		return 0;
	}
	if (says == BP_CONF_DRACUT_NOT_ASKED) {
		c->reader = BP_READER_AT_SERVICE;
		snprintf(c->reader_why, sizeof(c->reader_why), "%s is not bootpack setup's and "
			 "does not add the module: kept, the reader runs as " BP_SETUP_READER_UNIT,
			 mine);
		return 0;
	}
	c->reader = BP_READER_AT_INITRAMFS;
	if (own)
		snprintf(c->reader_conf, sizeof(c->reader_conf), "%s", DRACUT_CONF);
	snprintf(c->reader_why, sizeof(c->reader_why), "add_dracutmodules+=\" bootpack \" in %s%s",
		 mine, own ? " (written by bootpack setup)" : "");
	return 0;
}

static errcode_t choose_reader(const struct bp_setup_opts *o, struct bp_setup_check *c,
			       struct bp_err *err)
{
	errcode_t rc = 0;

	c->reader = BP_READER_AT_SERVICE;
	c->reader_conf[0] = '\0';
	if (o->reader == BP_READER_AT_SERVICE)
		snprintf(c->reader_why, sizeof(c->reader_why), "asked for (--reader service)");
	else if (c->initramfs_tools)
		rc = choose_it(o, c);
	else
		rc = choose_dracut(o, c);
	if (rc)
		return bp_err_set(err, rc, "%s: cannot read the initramfs configuration: %s",
				  o->root, strerror((int)rc));
	return 0;
}

errcode_t bp_setup_check(const struct bp_setup_opts *o, struct bp_setup_check *c,
			 struct bp_err *err)
{
	struct bp_conf_tree t;
	char p[PATH_MAX];
	unsigned int i;
	errcode_t ret;

	memset(c, 0, sizeof(*c));
	if (!exists(o->root, BP_SBINDIR "/bootpack"))
		return bp_err_set(err, ENOENT, "%s%s/bootpack: not installed: install the bootpack "
				  "package (or make install DESTDIR=%s) first", is_live(o) ? "" :
				  o->root, BP_SBINDIR, o->root);
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (find_unit(o->root, units[i].name, p, sizeof(p)))
			return bp_err_set(err, ENOENT, "%s: unit %s is not installed (looked in "
					  "/etc, /lib and /usr/lib systemd/system and in " BP_SYSTEMDUNITDIR
					  "): install the bootpack package first",
					  o->root, units[i].name);
	if (!exists(o->root, "/lib/systemd/systemd") && !exists(o->root, "/usr/lib/systemd/systemd"))
		return bp_err_set(err, ENOENT, "%s: no systemd: the trace and loop units need it",
				  o->root);
	tree_of(o, NULL, NULL, &t);
	c->initramfs_tools = exists(o->root, "/usr/sbin/update-initramfs") &&
			     bp_conf_in_tool_dirs(&t, 0, "/scripts/local-premount/bootpack") &&
			     bp_conf_in_tool_dirs(&t, 0, "/hooks/bootpack");
	c->dracut = exists(o->root, "/usr/bin/dracut") &&
		    bp_conf_in_tool_dirs(&t, 1, "/90bootpack/bootpack-relayout.sh");
	if (!c->initramfs_tools && !c->dracut)
		return bp_err_set(err, ENOENT, "%s: neither initramfs-tools nor dracut with "
				  "bootpack's relayout hook where they look (%s/hooks and "
				  "scripts/local-premount, %s/90bootpack): the relayout of boot 2 "
				  "runs in the initramfs; install initramfs-tools (or dracut) and "
				  "bootpack (configure --with-initramfstoolsdir, "
				  "--with-dracutmoduledir)", o->root, "/usr/share/initramfs-tools",
				  "/usr/lib/dracut/modules.d");
	ret = choose_reader(o, c, err);
	if (ret)
		return ret;
	c->grub = exists(o->root, "/usr/sbin/update-grub") || exists(o->root, "/etc/default/grub");
	/* the machine that boots: this one, or the one --memory describes */
	c->mem_bytes = o->mem_bytes;
	if (!c->mem_bytes && is_live(o)) {
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

/*
 * What an install changed, so that a failure half-way puts the tree back as
 * it was ("nothing was set up" must be true): each directory it created,
 * each file or link it created or replaced, with what was there before.
 */
#define TX_MAX 64
#define TX_OLD_MAX (64 * 1024)	/* setup's files are a few lines */

enum tx_kind { TX_DIR, TX_PATH };

struct tx_entry {
	enum tx_kind kind;
	char path[PATH_MAX];
	int had;		/* TX_PATH: something was there */
	int had_link;		/* ... a symbolic link to old */
	mode_t mode;
	char *old;		/* its contents or link target */
	size_t oldlen;
};

struct tx {
	struct tx_entry e[TX_MAX];
	unsigned int n;
};

static errcode_t tx_full(const char *path, struct bp_err *err)
{
	return bp_err_set(err, ENOMEM, "%s: too many changes to keep track of", path);
}

static errcode_t tx_dir(struct tx *tx, const char *path, struct bp_err *err)
{
	if (!tx)
		return 0;
	if (tx->n >= TX_MAX)
		return tx_full(path, err);
	memset(&tx->e[tx->n], 0, sizeof(tx->e[0]));
	tx->e[tx->n].kind = TX_DIR;
	snprintf(tx->e[tx->n].path, sizeof(tx->e[0].path), "%s", path);
	tx->n++;
	return 0;
}

/* Before path is replaced: remember what is there. */
static errcode_t tx_path(struct tx *tx, const char *path, struct bp_err *err)
{
	struct tx_entry *e;
	struct stat st;
	ssize_t n;
	int fd;

	if (!tx)
		return 0;
	if (tx->n >= TX_MAX)
		return tx_full(path, err);
	e = &tx->e[tx->n];
	memset(e, 0, sizeof(*e));
	e->kind = TX_PATH;
	snprintf(e->path, sizeof(e->path), "%s", path);
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
		tx->n++;
		return 0;
	}
	if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode))
		return bp_err_set(err, EEXIST, "%s: exists and is not a file: remove it first",
				  path);
	if (st.st_size >= TX_OLD_MAX)
		return bp_err_set(err, EFBIG, "%s: exists and is too large for a file of "
				  "bootpack setup: remove it first", path);
	e->old = malloc(TX_OLD_MAX);
	if (!e->old)
		return bp_err_set(err, ENOMEM, "%s: %s", path, strerror(ENOMEM));
	e->had = 1;
	e->mode = st.st_mode & 07777;
	if (S_ISLNK(st.st_mode)) {
		e->had_link = 1;
		n = readlink(path, e->old, TX_OLD_MAX - 1);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		n = fd < 0 ? -1 : read(fd, e->old, TX_OLD_MAX);
		if (fd >= 0)
			close(fd);
	}
	if (n < 0) {
		int x = errno;

		free(e->old);
		e->old = NULL;
		return bp_err_set(err, x, "%s: %s", path, strerror(x));
	}
	e->oldlen = (size_t)n;
	e->old[n < TX_OLD_MAX ? n : TX_OLD_MAX - 1] = '\0';
	tx->n++;
	return 0;
}

/* Put back what the install changed, newest first; forget it. */
static void tx_rollback(const struct bp_setup_opts *o, struct tx *tx)
{
	struct tx_entry *e;
	int fd;

	while (tx->n) {
		e = &tx->e[--tx->n];
		if (e->kind == TX_DIR) {
			if (rmdir(e->path) == 0)
				say(o, "removed %s", e->path);
		} else if (!e->had) {
			if (unlink(e->path) == 0)
				say(o, "removed %s", e->path);
		} else {
			unlink(e->path);
			if (e->had_link) {
				if (symlink(e->old, e->path) == 0)
					say(o, "restored %s", e->path);
			} else {
				fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, e->mode);
				if (fd >= 0 && write(fd, e->old, e->oldlen) == (ssize_t)e->oldlen &&
				    fsync(fd) == 0)
					say(o, "restored %s", e->path);
				if (fd >= 0)
					close(fd);
			}
		}
		free(e->old);
		e->old = NULL;
	}
}

static void tx_forget(struct tx *tx)
{
	while (tx->n)
		free(tx->e[--tx->n].old);
}

static errcode_t mkdirs_tx(const char *root, struct tx *tx, const char *rel, struct bp_err *err)
{
	char p[PATH_MAX], *s, ch;
	errcode_t ret;

	bp_loop_path(root, rel, p, sizeof(p));
	for (s = p + 1;; s++) {
		ch = *s;
		if (ch && ch != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) == 0) {
			if ((ret = tx_dir(tx, p, err)))
				return ret;
		} else if (errno != EEXIST) {
			return bp_err_set(err, errno, "%s: cannot create: %s", p, strerror(errno));
		}
		*s = ch;
		if (!ch)
			return 0;
	}
}

static errcode_t write_file_tx(const struct bp_setup_opts *o, struct tx *tx, const char *rel,
			       const char *text, struct bp_err *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX], *slash;
	errcode_t ret;
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if ((ret = mkdirs_tx(o->root, tx, dir, err)))
			return ret;
	}
	bp_loop_path(o->root, rel, path, sizeof(path));
	if ((ret = tx_path(tx, path, err)))
		return ret;
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
	char path[PATH_MAX];

	bp_loop_path(o->root, rel, path, sizeof(path));
	if (access(path, F_OK) != 0)
		return;
	if (own_or_absent(o->root, rel))
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

/* The cmdline file and the GRUB snippet (if GRUB is used) for the next boot. */
static errcode_t next_boot_files(const struct bp_setup_opts *o, struct tx *tx,
				 struct bp_loop_state *st, const char *args, struct bp_err *err)
{
	char text[2048];
	errcode_t ret;

	snprintf(st->cmdline, sizeof(st->cmdline), "%s", args);
	snprintf(text, sizeof(text), "%s%s", args, args[0] ? "\n" : "");
	ret = write_file_tx(o, tx, CMDLINE_FILE, text, err);
	if (ret || !st->grub)
		return ret;
	if (args[0]) {
		snprintf(text, sizeof(text),
			 "# Written by 'bootpack setup' for the next boot only; see bootpack-setup(8).\n"
			 "# 'bootpack setup --undo' removes it.\n"
			 "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n", args);
		return write_file_tx(o, tx, GRUB_SNIPPET, text, err);
	}
	return write_file_tx(o, tx, GRUB_SNIPPET,
			     "# Written by 'bootpack setup': no kernel arguments for the next "
			     "boot.\n", err);
}

errcode_t bp_setup_next_boot(const struct bp_setup_opts *o, struct bp_loop_state *st,
			     const char *args, struct bp_err *err)
{
	errcode_t ret = next_boot_files(o, NULL, st, args, err);

	if (!ret && st->grub)
		update_grub(o);
	return ret;
}

static errcode_t enable_unit(const struct bp_setup_opts *o, struct tx *tx, unsigned int i,
			     struct bp_err *err)
{
	char target[PATH_MAX], rel[PATH_MAX], link[PATH_MAX];
	errcode_t ret;

	if (find_unit(o->root, units[i].name, target, sizeof(target)))
		return bp_err_set(err, ENOENT, "%s: unit %s is not installed", o->root,
				  units[i].name);
	snprintf(rel, sizeof(rel), "/etc/systemd/system/%s", units[i].wants);
	if ((ret = mkdirs_tx(o->root, tx, rel, err)))
		return ret;
	snprintf(rel, sizeof(rel), "/etc/systemd/system/%s/%s", units[i].wants, units[i].name);
	bp_loop_path(o->root, rel, link, sizeof(link));
	if ((ret = tx_path(tx, link, err)))
		return ret;
	unlink(link);
	if (symlink(target, link) < 0)
		return bp_err_set(err, errno, "%s: cannot create: %s", link, strerror(errno));
	say(o, "enabled %s (%s -> %s)", units[i].name, link, target);
	return 0;
}

/* The reader runs in the initramfs: its unit is not enabled too (it would read twice). */
static errcode_t disable_unit(const struct bp_setup_opts *o, struct tx *tx, unsigned int i,
			      struct bp_err *err)
{
	char rel[PATH_MAX], link[PATH_MAX];
	struct stat st;
	errcode_t ret;

	snprintf(rel, sizeof(rel), "/etc/systemd/system/%s/%s", units[i].wants, units[i].name);
	bp_loop_path(o->root, rel, link, sizeof(link));
	if (lstat(link, &st) < 0)
		return 0;
	if ((ret = tx_path(tx, link, err)))
		return ret;
	if (unlink(link) < 0)
		return bp_err_set(err, errno, "%s: cannot remove: %s", link, strerror(errno));
	say(o, "disabled %s (%s): the initramfs reads the pack", units[i].name, link);
	return 0;
}

/* The reader runs as the unit: an opt-in an earlier setup wrote goes (it would read twice). */
static errcode_t remove_own_tx(const struct bp_setup_opts *o, struct tx *tx, const char *rel,
			       struct bp_err *err)
{
	char path[PATH_MAX];
	errcode_t ret;

	bp_loop_path(o->root, rel, path, sizeof(path));
	if (access(path, F_OK) != 0 || !own_or_absent(o->root, rel))
		return 0;
	if ((ret = tx_path(tx, path, err)))
		return ret;
	if (unlink(path) < 0)
		return bp_err_set(err, errno, "%s: cannot remove: %s", path, strerror(errno));
	say(o, "removed %s: %s reads the pack", path, BP_SETUP_READER_UNIT);
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

/* The probe of the root's disk, for bootpack-read; one that fails or is skipped is no error. */
static errcode_t probe_disk(const struct bp_setup_opts *o, struct tx *tx,
			    const struct bp_setup_check *c, struct bp_err *err)
{
	char why[512] = "", *text;
	errcode_t ret = 0;

	if (!o->probe)
		return 0;
	text = malloc(BP_LOOP_PROBE_MAX);
	if (!text)
		return bp_err_set(err, ENOMEM, "%s", strerror(ENOMEM));
	if (o->probe(c->devpath, text, BP_LOOP_PROBE_MAX, why, sizeof(why)) == 0)
		ret = write_file_tx(o, tx, PROBE_FILE, text, err);
	else
		say(o, "%s not probed (%s): bootpack-read keeps its defaults", c->devpath,
		    why[0] ? why : "no reason given");
	free(text);
	return ret;
}

/*
 * Everything is written first, the state last; only then are update-grub
 * and the initramfs rebuilt. A failure on the way takes back what was
 * written (tx_rollback()), so that "nothing was set up" holds.
 */
static errcode_t install(const struct bp_setup_opts *o, struct tx *tx,
			 const struct bp_setup_check *c, struct bp_err *err)
{
	struct bp_loop_state st = { 0 };
	char args[1024], text[1024], path[PATH_MAX];
	unsigned int i;
	errcode_t ret;

	if ((ret = mkdirs_tx(o->root, tx, BP_STATEDIR, err)))
		return ret;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		ret = strcmp(units[i].name, BP_SETUP_READER_UNIT) ||
		      c->reader == BP_READER_AT_SERVICE ? enable_unit(o, tx, i, err) :
		      disable_unit(o, tx, i, err);
		if (ret)
			return ret;
	}
	if (c->reader == BP_READER_AT_SERVICE &&
	    ((ret = remove_own_tx(o, tx, IT_CONF, err)) ||
	     (ret = remove_own_tx(o, tx, DRACUT_CONF, err))))
		return ret;
	if (c->reader_conf[0]) {
		ret = write_file_tx(o, tx, c->reader_conf, !strcmp(c->reader_conf, IT_CONF) ?
				    OWN_MARK ": bootpack-read runs in the initramfs (init-bottom),\n"
				    "# not as bootpack-read.service; see bootpack-setup(8).\n"
				    "# 'bootpack setup --undo' removes it.\n"
				    "BOOTPACK=y\n" :
				    OWN_MARK ": bootpack-read runs in the initramfs (pre-pivot),\n"
				    "# not as bootpack-read.service; see bootpack-setup(8).\n"
				    "# 'bootpack setup --undo' removes it.\n"
				    "add_dracutmodules+=\" bootpack \"\n", err);
		if (ret)
			return ret;
	}
	ret = write_file_tx(o, tx, TRACE_DROPIN,
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
	if ((ret = write_file_tx(o, tx, DPKG_HOOK, text, err)))
		return ret;
	if ((ret = probe_disk(o, tx, c, err)))
		return ret;
	bp_loop_policy_setup(&st, time(NULL));
	snprintf(st.device, sizeof(st.device), "UUID=%s", c->uuid);
	st.grub = (unsigned int)c->grub;
	st.reader = c->reader;
	bp_setup_trace_args(o->buffer_kb, c->events, args, sizeof(args));
	if ((ret = next_boot_files(o, tx, &st, args, err)))
		return ret;
	bp_loop_path(o->root, BP_STATEDIR "/loop", path, sizeof(path));
	if ((ret = tx_path(tx, path, err)))
		return ret;
	return bp_loop_save(o->root, &st, err);
}

errcode_t bp_setup_install(const struct bp_setup_opts *o, struct bp_setup_check *c,
			   struct bp_err *err)
{
	struct tx *tx;
	errcode_t ret;

	ret = bp_setup_check(o, c, err);
	if (ret || o->dry_run)
		return ret;
	tx = calloc(1, sizeof(*tx));
	if (!tx)
		return bp_err_set(err, ENOMEM, "%s", strerror(ENOMEM));
	ret = install(o, tx, c, err);
	if (ret) {
		say(o, "failed: taking back what was written");
		tx_rollback(o, tx);
		free(tx);
		return ret;
	}
	tx_forget(tx);
	free(tx);
	if (c->grub)
		update_grub(o);
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
	for (i = 0; i < ARRAY_SIZE(units); i++) {
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
	remove_own_file(o, IT_CONF);
	remove_file(o, GRUB_SNIPPET);
	remove_file(o, CMDLINE_FILE);
	remove_file(o, PROBE_FILE);
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
