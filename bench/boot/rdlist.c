// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rdlist.c --- parse the read list of the boot bench's readers
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "rdlist.h"

static int num(char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int rd_list_load(const char *path, struct rd_list *l, unsigned long *line)
{
	size_t fcap = 0, rcap = 0, icap = 0, last = (size_t)-1;
	char buf[RD_PATH_MAX + 128];
	FILE *f;
	int rc = 0;

	memset(l, 0, sizeof(*l));
	*line = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f)) {
		char *field[5] = { 0 }, *save = NULL, *p;
		size_t n = 0, len = strlen(buf);

		++*line;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		else if (!feof(f)) {
			rc = -ENAMETOOLONG;
			break;
		}
		if (!len || buf[0] == '#')
			continue;
		for (p = strtok_r(buf, "\t", &save); p && n < 5; p = strtok_r(NULL, "\t", &save))
			field[n++] = p;
		if (strcmp(field[0], "D") == 0 && n == 2) {
			free(l->device);
			l->device = strdup(field[1]);
			if (!l->device)
				rc = -ENOMEM;
		} else if (strcmp(field[0], "I") == 0 && n == 4) {
			struct rd_itable it;

			if (num(field[1], &it.offset) || num(field[2], &it.length) ||
			    num(field[3], &it.files)) {
				rc = -EINVAL;
				break;
			}
			rc = -bp_array_reserve((void **)&l->itables, &icap, l->nitables, sizeof(it), 64);
			if (rc)
				break;
			l->itables[l->nitables++] = it;
		} else if (field[0][0] == '/' && n == 5) {
			struct rd_range r;
			uint64_t ipos;

			if (num(field[1], &r.offset) || num(field[2], &r.length) ||
			    num(field[3], &r.physical) || num(field[4], &ipos)) {
				rc = -EINVAL;
				break;
			}
			if (l->nranges == RD_MAX_RANGES) {
				rc = -E2BIG;
				break;
			}
			/* Files are found again by path; lists are short, ranges of a file near. */
			if (last == (size_t)-1 || strcmp(l->files[last].path, field[0]) != 0) {
				for (last = 0; last < l->nfiles; last++)
					if (strcmp(l->files[last].path, field[0]) == 0)
						break;
				if (last == l->nfiles) {
					rc = -bp_array_reserve((void **)&l->files, &fcap, l->nfiles,
								sizeof(*l->files), 64);
					if (rc)
						break;
					l->files[last].path = strdup(field[0]);
					l->files[last].inode_pos = ipos;
					l->files[last].fd = -1;
					if (!l->files[last].path) {
						rc = -ENOMEM;
						break;
					}
					l->nfiles++;
				}
			}
			r.file = last;
			rc = -bp_array_reserve((void **)&l->ranges, &rcap, l->nranges, sizeof(r), 64);
			if (rc)
				break;
			l->ranges[l->nranges++] = r;
		} else {
			rc = -EINVAL;
			break;
		}
	}
	if (!rc && ferror(f))
		rc = -EIO;
	fclose(f);
	if (rc)
		rd_list_free(l);
	else
		*line = 0;
	return rc;
}

void rd_list_free(struct rd_list *l)
{
	size_t i;

	for (i = 0; i < l->nfiles; i++)
		free(l->files[i].path);
	free(l->files);
	free(l->ranges);
	free(l->itables);
	free(l->device);
	memset(l, 0, sizeof(*l));
}
