// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-initramfs-conf.c --- the initramfs tools' rule (initramfs-conf.c) on trees
 * held in memory: which BOOTPACK= line wins, setup's own file, dracut's omit
 *
 * The expected answers are the hook's (boot/initramfs-tools/hooks/bootpack:
 * the last BOOTPACK= line of initramfs.conf, then of the files of conf.d in name order,
 * an empty value leaving what was before), worked out by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "initramfs-conf.h"
#include "unit.h"

struct file {
	const char *path, *text;	/* text NULL: a directory */
};

static errcode_t mem_read(void *ctx, const char *path, char *buf, size_t len)
{
	const struct file *f;

	for (f = ctx; f->path; f++)
		if (!strcmp(f->path, path)) {
			if (!f->text)
				return EISDIR;
			snprintf(buf, len, "%s", f->text);
			return 0;
		}
	return ENOENT;
}

static errcode_t mem_list(void *ctx, const char *path, int (*add)(void *arg, const char *name),
			  void *arg)
{
	size_t n = strlen(path);
	const struct file *f;
	int found = 0, rc;

	for (f = ctx; f->path; f++) {
		if (!strcmp(f->path, path) && !f->text)
			found = 1;
		if (strncmp(f->path, path, n) || f->path[n] != '/' || strchr(f->path + n + 1, '/'))
			continue;
		rc = add(arg, f->path + n + 1);
		if (rc)
			return rc;
	}
	return found ? 0 : ENOENT;
}

static int mem_exists(void *ctx, const char *path)
{
	const struct file *f;

	for (f = ctx; f->path; f++)
		if (!strcmp(f->path, path))
			return 1;
	return 0;
}

static int it(const struct file *files, const char *own, char *val, char *from)
{
	struct bp_conf_tree t = {
		.read = mem_read, .list = mem_list, .exists = mem_exists,
		.ctx = (void *)files, .own_path = own, .own_text = "BOOTPACK=y\n",
	};
	int yes = -1;

	CHECK(bp_conf_it_reader(&t, &yes, val, 64, from, 256) == 0);
	return yes;
}

static enum bp_conf_dracut dracut(const struct file *files, const char *own, char *from)
{
	struct bp_conf_tree t = {
		.read = mem_read, .list = mem_list, .exists = mem_exists,
		.ctx = (void *)files, .own_path = own,
		.own_text = "add_dracutmodules+=\" bootpack \"\n",
	};
	enum bp_conf_dracut r = BP_CONF_DRACUT_NOT_ASKED;

	CHECK(bp_conf_dracut_reader(&t, &r, from, 256) == 0);
	return r;
}

int main(void)
{
	char val[64], from[256];

	/* nothing at all: n, from nowhere */
	static const struct file none[] = { { NULL, NULL } };
	CHECK(it(none, NULL, val, from) == 0);
	CHECK(!strcmp(val, "n") && !from[0]);

	/* conf.d/bootpack says y */
	static const struct file yes[] = {
		{ "/etc/initramfs-tools", NULL },
		{ "/etc/initramfs-tools/initramfs.conf", "MODULES=most\nBUSYBOX=auto\n" },
		{ "/etc/initramfs-tools/conf.d", NULL },
		{ "/etc/initramfs-tools/conf.d/bootpack", "# opt in\nBOOTPACK=y\n" },
		{ NULL, NULL },
	};
	CHECK(it(yes, NULL, val, from) == 1);
	CHECK(!strcmp(val, "y"));
	CHECK(!strcmp(from, "/etc/initramfs-tools/conf.d/bootpack"));

	/* a later file's n wins over it, whatever order the directory lists them in */
	static const struct file later_n[] = {
		{ "/etc/initramfs-tools/conf.d", NULL },
		{ "/etc/initramfs-tools/conf.d/zz-local", "BOOTPACK=n\n" },
		{ "/etc/initramfs-tools/conf.d/bootpack", "BOOTPACK=y\n" },
		{ "/etc/initramfs-tools/conf.d/00-first", "BOOTPACK=yes\n" },
		{ NULL, NULL },
	};
	CHECK(it(later_n, NULL, val, from) == 0);
	CHECK(!strcmp(val, "n"));
	CHECK(!strcmp(from, "/etc/initramfs-tools/conf.d/zz-local"));

	/* the last line of a file; quotes; an empty value and dot files change nothing */
	static const struct file lines[] = {
		{ "/etc/initramfs-tools/initramfs.conf", "BOOTPACK=n\n" },
		{ "/etc/initramfs-tools/conf.d", NULL },
		{ "/etc/initramfs-tools/conf.d/a", "BOOTPACK=n\n  BOOTPACK=\"yes\" # on\n" },
		{ "/etc/initramfs-tools/conf.d/b", "#BOOTPACK=n\nXBOOTPACK=n\n" },
		{ "/etc/initramfs-tools/conf.d/c", "BOOTPACK=\n" },
		{ "/etc/initramfs-tools/conf.d/.hidden", "BOOTPACK=n\n" },
		{ "/etc/initramfs-tools/conf.d/d", NULL },
		{ NULL, NULL },
	};
	CHECK(it(lines, NULL, val, from) == 1);
	CHECK(!strcmp(val, "yes"));
	CHECK(!strcmp(from, "/etc/initramfs-tools/conf.d/a"));

	/* setup's own file: y at its place, even when absent; a later n still wins */
	static const struct file own[] = {
		{ "/etc/initramfs-tools/initramfs.conf", "BOOTPACK=n\n" },
		{ NULL, NULL },
	};
	CHECK(it(own, "/etc/initramfs-tools/conf.d/bootpack", val, from) == 1);
	CHECK(!strcmp(from, "/etc/initramfs-tools/conf.d/bootpack"));
	CHECK(it(later_n, "/etc/initramfs-tools/conf.d/bootpack", val, from) == 0);
	CHECK(!strcmp(from, "/etc/initramfs-tools/conf.d/zz-local"));

	/* dracut: bootpack.conf adds it; an omit elsewhere wins; one in bootpack.conf does not */
	static const struct file dr_add[] = {
		{ "/etc/dracut.conf.d", NULL },
		{ "/etc/dracut.conf.d/bootpack.conf", "add_dracutmodules+=\" bootpack \"\n" },
		{ NULL, NULL },
	};
	CHECK(dracut(dr_add, NULL, from) == BP_CONF_DRACUT_ASKED);
	CHECK(!strcmp(from, "/etc/dracut.conf.d/bootpack.conf"));
	CHECK(dracut(none, NULL, from) == BP_CONF_DRACUT_NOT_ASKED);
	CHECK(dracut(none, "/etc/dracut.conf.d/bootpack.conf", from) == BP_CONF_DRACUT_ASKED);
	static const struct file dr_omit[] = {
		{ "/etc/dracut.conf.d", NULL },
		{ "/etc/dracut.conf.d/bootpack.conf", "add_dracutmodules+=\" bootpack \"\n" },
		{ "/etc/dracut.conf.d/50-site.conf", "omit_dracutmodules+=\" plymouth bootpack\"\n" },
		{ NULL, NULL },
	};
	CHECK(dracut(dr_omit, NULL, from) == BP_CONF_DRACUT_OMITTED);
	CHECK(!strcmp(from, "/etc/dracut.conf.d/50-site.conf"));
	static const struct file dr_word[] = {
		{ "/etc/dracut.conf", "omit_dracutmodules+=\" bootpack-extra \"\n" },
		{ "/etc/dracut.conf.d", NULL },
		{ "/etc/dracut.conf.d/bootpack.conf", "add_dracutmodules+=\" bootpack\"\n" },
		{ NULL, NULL },
	};
	CHECK(dracut(dr_word, NULL, from) == BP_CONF_DRACUT_ASKED);
	return unit_exit();
}
