// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * initramfs-conf.c --- does an initramfs tool's configuration put bootpack-read
 * in the initramfs (the hook's and the module's rule, on any tree)
 *
 * One rule for bootpack setup (its root, with the file it writes) and
 * bootpack image (the image's root read through libext2fs): what
 * boot/initramfs-tools/hooks/bootpack and boot/dracut/90bootpack decide when
 * the initramfs is built.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "c.h"
#include "initramfs-conf.h"

/*
 * Where initramfs-tools and dracut look for hooks, whatever bootpack's
 * prefix: a hook anywhere else (a /usr/local install) is never run.
 */
static const char *const initramfs_tools_dirs[] = {
	"/usr/share/initramfs-tools", "/etc/initramfs-tools",
};
static const char *const dracut_dirs[] = {
	"/usr/lib/dracut/modules.d", "/lib/dracut/modules.d",
};

int bp_conf_in_tool_dirs(const struct bp_conf_tree *t, int dracut, const char *rel)
{
	const char *const *dirs = dracut ? dracut_dirs : initramfs_tools_dirs;
	size_t i, n = dracut ? ARRAY_SIZE(dracut_dirs) : ARRAY_SIZE(initramfs_tools_dirs);
	char p[4096];

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s%s", dirs[i], rel);
		if (t->exists(t->ctx, p))
			return 1;
	}
	return 0;
}

/* path's text into buf ("" when it cannot be read), own_path's being own_text. */
static void read_conf(const struct bp_conf_tree *t, const char *path, char *buf, size_t len)
{
	if (t->own_path && !strcmp(path, t->own_path))
		snprintf(buf, len, "%s", t->own_text);
	else if (t->read(t->ctx, path, buf, len))
		buf[0] = '\0';
}

/* The next line of *p into line (NUL-terminated, cut at len - 1); 0 at the end. */
static int next_line(const char **p, char *line, size_t len)
{
	size_t n = strcspn(*p, "\n");

	if (!**p)
		return 0;
	snprintf(line, len, "%.*s", (int)MIN(n, len - 1), *p);
	*p += n + ((*p)[n] == '\n');
	return 1;
}

/*
 * The value of the last BOOTPACK= line of text that has one, as the hook
 * reads it (sed ... | tail -n 1: an empty value leaves what was before):
 * 1 set into val, 0 not set.
 */
static int it_conf_value(const char *text, char *val, size_t len)
{
	char line[1024], last[64] = "", *p;
	int found = 0;

	while (next_line(&text, line, sizeof(line))) {
		p = line + strspn(line, " \t");
		if (strncmp(p, "BOOTPACK=", 9))
			continue;
		p += 9;
		if (*p == '"' || *p == '\'')
			p++;
		snprintf(last, sizeof(last), "%.*s", (int)strspn(p, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), p);
		found = 1;
	}
	if (!found || !last[0])
		return 0;
	snprintf(val, len, "%s", last);
	return 1;
}

struct names {
	char (*v)[256];
	size_t n;
	const char *own;	/* the own file's name in this directory, or NULL */
};

static int add_name(void *arg, const char *name)
{
	struct names *ns = arg;

	if (name[0] == '.' || strlen(name) >= sizeof(ns->v[0]))
		return 0;
	if (ns->own && !strcmp(name, ns->own))
		return 0;	/* listed once, below */
	if (ns->n == BP_CONF_NAMES_MAX)
		return E2BIG;
	snprintf(ns->v[ns->n++], sizeof(ns->v[0]), "%s", name);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The names of dir in order, the own file among them (none when dir is not there). */
static errcode_t list_sorted(const struct bp_conf_tree *t, const char *dir, struct names *ns)
{
	size_t dl = strlen(dir);
	errcode_t rc;

	memset(ns, 0, sizeof(*ns));
	ns->v = calloc(BP_CONF_NAMES_MAX, sizeof(ns->v[0]));
	if (!ns->v)
		return ENOMEM;
	if (t->own_path && !strncmp(t->own_path, dir, dl) && t->own_path[dl] == '/' &&
	    !strchr(t->own_path + dl + 1, '/'))
		ns->own = t->own_path + dl + 1;
	rc = t->list(t->ctx, dir, add_name, ns);
	if (rc == ENOENT || rc == ENOTDIR || rc == E2BIG)
		rc = 0;	/* no directory; or its first BP_CONF_NAMES_MAX names */
	if (!rc && ns->own && ns->n < BP_CONF_NAMES_MAX)
		snprintf(ns->v[ns->n++], sizeof(ns->v[0]), "%s", ns->own);
	if (rc) {
		free(ns->v);
		ns->v = NULL;
		return rc;
	}
	qsort(ns->v, ns->n, sizeof(ns->v[0]), name_cmp);
	return 0;
}

static int says_yes(const char *v)
{
	return !strcmp(v, "y") || !strcmp(v, "Y") || !strcmp(v, "yes") || !strcmp(v, "1");
}

errcode_t bp_conf_it_reader(const struct bp_conf_tree *t, int *yes, char *val, size_t vlen,
			    char *from, size_t flen)
{
	char text[BP_CONF_FILE_MAX], path[4096 + 256];
	struct names ns;
	errcode_t rc;
	size_t i;

	snprintf(val, vlen, "n");
	if (flen)
		from[0] = '\0';
	read_conf(t, BP_IT_CONFDIR "/initramfs.conf", text, sizeof(text));
	if (it_conf_value(text, val, vlen))
		snprintf(from, flen, "%s", BP_IT_CONFDIR "/initramfs.conf");
	rc = list_sorted(t, BP_IT_CONFDIR "/conf.d", &ns);
	if (rc)
		return rc;
	for (i = 0; i < ns.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", BP_IT_CONFDIR "/conf.d", ns.v[i]);
		read_conf(t, path, text, sizeof(text));
		if (it_conf_value(text, val, vlen))
			snprintf(from, flen, "%s", path);
	}
	free(ns.v);
	*yes = says_yes(val);
	return 0;
}

/* Does a line of text ask for (add, or omit: key) the dracut module bootpack? */
static int dracut_says(const char *text, const char *key)
{
	char line[1024];
	int hit = 0;

	while (!hit && next_line(&text, line, sizeof(line))) {
		char *p = line + strspn(line, " \t"), *w;

		if (strncmp(p, key, strlen(key)))
			continue;
		for (w = strstr(p, "bootpack"); w && !hit; w = strstr(w + 1, "bootpack"))
			hit = strchr(" \t\"'=", w[-1]) && strchr(" \t\"'\n", w[8]);
	}
	return hit;
}

errcode_t bp_conf_dracut_reader(const struct bp_conf_tree *t, enum bp_conf_dracut *ret,
				char *from, size_t flen)
{
	char text[BP_CONF_FILE_MAX], path[4096 + 256];
	struct names ns;
	errcode_t rc;
	size_t i;

	*ret = BP_CONF_DRACUT_OMITTED;
	snprintf(from, flen, "%s", "/etc/dracut.conf");
	read_conf(t, "/etc/dracut.conf", text, sizeof(text));
	if (dracut_says(text, "omit_dracutmodules"))
		return 0;
	rc = list_sorted(t, "/etc/dracut.conf.d", &ns);
	if (rc)
		return rc;
	for (i = 0; i < ns.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", "/etc/dracut.conf.d", ns.v[i]);
		if (!strcmp(path, BP_DRACUT_CONF))
			continue;
		read_conf(t, path, text, sizeof(text));
		if (dracut_says(text, "omit_dracutmodules")) {
			snprintf(from, flen, "%s", path);
			free(ns.v);
			return 0;
		}
	}
	free(ns.v);
	snprintf(from, flen, "%s", BP_DRACUT_CONF);
	read_conf(t, BP_DRACUT_CONF, text, sizeof(text));
	*ret = dracut_says(text, "add_dracutmodules") ? BP_CONF_DRACUT_ASKED :
		BP_CONF_DRACUT_NOT_ASKED;
	return 0;
}
