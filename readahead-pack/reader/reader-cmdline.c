// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-cmdline.c --- bootpack-read settings: kernel command line and bootpack.conf
 *
 * Kernel command line: "bootpack=off" (also 0, no, false) disables the
 * reader; "bootpack.init=PATH" names the init to exec; "bootpack.meta_gap=",
 * "bootpack.head_start_ms=" and "bootpack.in_flight=" set the options of
 * those names. Values may be quoted
 * ("bootpack.init=\"/sbin/my init\"") as the kernel allows.
 *
 * $(sysconfdir)/bootpack.conf (BP_READER_CONF): "key = value" lines, '#' comments; see bootpack.conf(5).
 * A bad line is skipped and reported, the rest still applies: a typo must
 * never keep the machine from booting.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c.h"
#include "reader.h"
#include "smallfile.h"
#include "strutils.h"

#define CMDLINE_MAX	4096
#define CONF_MAX	65536

static int is_off(const char *v, size_t len)
{
	static const char *const offs[] = { "off", "0", "no", "false" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(offs); i++)
		if (strlen(offs[i]) == len && strncmp(v, offs[i], len) == 0)
			return 1;
	return 0;
}

/* A numeric value of the command line (not NUL-terminated there): 1 if parsed. */
static int parse_value(const char *val, size_t vlen, int (*parse)(const char *, uint64_t *),
		       uint64_t *out)
{
	char v[32];

	if (vlen >= sizeof(v))
		return 0;
	memcpy(v, val, vlen);
	v[vlen] = '\0';
	return parse(v, out) == 0;
}

void bp_reader_parse_cmdline(const char *buf, struct bp_reader_cmdline *c)
{
	const char *p = buf;

	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *start, *eq = NULL, *val;
		size_t klen, vlen;
		int quoted = 0;

		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		start = p;
		/* A word ends at unquoted white space. */
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"')
				quoted = !quoted;
			else if (*p == '=' && !eq)
				eq = p;
			p++;
		}
		if (!eq)
			continue;
		klen = (size_t)(eq - start);
		val = eq + 1;
		vlen = (size_t)(p - val);
		if (vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
			val++;
			vlen -= 2;
		}
		if (klen == 8 && strncmp(start, "bootpack", 8) == 0) {
			c->off = is_off(val, vlen);
			c->trace = vlen == 5 && strncmp(val, "trace", 5) == 0;
		} else if (klen == 17 && strncmp(start, "bootpack.meta_gap", 17) == 0) {
			c->has_meta_gap = parse_value(val, vlen, bp_reader_parse_gap, &c->meta_gap);
		} else if (klen == 18 && strncmp(start, "bootpack.in_flight", 18) == 0) {
			c->has_in_flight = parse_value(val, vlen, bp_reader_parse_in_flight,
						       &c->in_flight);
		} else if (klen == 22 && strncmp(start, "bootpack.head_start_ms", 22) == 0) {
			c->has_head_start = parse_value(val, vlen, bp_reader_parse_head_start,
							&c->head_start_ms);
		} else if (klen == 13 && strncmp(start, "bootpack.init", 13) == 0) {
			if (vlen > 0 && vlen < sizeof(c->init) && val[0] == '/') {
				memcpy(c->init, val, vlen);
				c->init[vlen] = '\0';
			}
		}
	}
}

int bp_reader_read_cmdline(struct bp_reader_cmdline *c)
{
	char buf[CMDLINE_MAX];
	int rc;

	rc = bp_read_small("/proc/cmdline", buf, sizeof(buf));
	if (rc) {
		/*
		 * No /proc (init= on a root without the directory): the kernel
		 * gives init its arguments without a dot, bootpack= among them,
		 * as environment variables.
		 */
		const char *v = getenv("bootpack");

		memset(c, 0, sizeof(*c));
		if (v && strlen(v) < 64) {
			snprintf(buf, sizeof(buf), "bootpack=%s", v);
			bp_reader_parse_cmdline(buf, c);
		}
		return rc;
	}
	bp_reader_parse_cmdline(buf, c);
	return 0;
}

int bp_reader_parse_method(const char *s)
{
	if (strcmp(s, "pread") == 0)
		return BP_READ_PREAD;
	if (strcmp(s, "readahead") == 0)
		return BP_READ_READAHEAD;
	if (strcmp(s, "fadvise") == 0)
		return BP_READ_FADVISE;
	if (strcmp(s, "uring") == 0)
		return BP_READ_URING;
	return -EINVAL;
}

int bp_reader_parse_ioprio(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return BP_IOPRIO_AUTO;
	if (strcmp(s, "be") == 0 || strcmp(s, "best-effort") == 0)
		return BP_IOPRIO_BE;
	if (strcmp(s, "idle") == 0)
		return BP_IOPRIO_IDLE;
	if (strcmp(s, "keep") == 0)
		return BP_IOPRIO_KEEP;
	return -EINVAL;
}

int bp_reader_parse_log(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return BP_LOGT_AUTO;
	if (strcmp(s, "kmsg") == 0)
		return BP_LOGT_KMSG;
	if (strcmp(s, "stderr") == 0)
		return BP_LOGT_STDERR;
	return -EINVAL;
}

int bp_reader_parse_head_start(const char *s, uint64_t *ms)
{
	uint64_t v;

	if (strcmp(s, "auto") == 0) {
		*ms = BP_READER_HEAD_START_AUTO;
		return 0;
	}
	if (bp_parse_u64(s, &v) || v > BP_READER_MAX_HEAD_START)
		return -EINVAL;
	*ms = v;
	return 0;
}

int bp_reader_parse_gap(const char *s, uint64_t *gap)
{
	uint64_t v;

	if (strcmp(s, "auto") == 0) {
		*gap = BP_READER_META_GAP_AUTO;
		return 0;
	}
	if (bp_parse_size(s, &v) || v > BP_READER_META_GAP_MAX)
		return -EINVAL;
	*gap = v;
	return 0;
}

int bp_reader_parse_in_flight(const char *s, uint64_t *bytes)
{
	uint64_t v;

	if (bp_parse_size(s, &v) || v < BP_READER_IN_FLIGHT_MIN || v > BP_READER_IN_FLIGHT_MAX)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int bp_reader_parse_max_request(const char *s, uint64_t *bytes)
{
	uint64_t v;

	if (bp_parse_size(s, &v) || v < BP_READER_REQUEST_MIN || v > BP_READER_REQUEST_MAX ||
	    v % 4096)
		return -EINVAL;
	*bytes = v;
	return 0;
}

void bp_reader_conf_init(struct bp_reader_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->log = c->method = c->ioprio = -1;
}

static int set_path(char *dst, size_t max, const char *v)
{
	size_t len = strlen(v);

	if (v[0] != '/' || len >= max)
		return -EINVAL;
	memcpy(dst, v, len + 1);
	return 0;
}

int bp_reader_conf_set(struct bp_reader_conf *c, const char *k, const char *v)
{
	uint64_t n;
	int r;

	if (strcmp(k, "pack") == 0)
		return set_path(c->pack, sizeof(c->pack), v);
	if (strcmp(k, "init") == 0)
		return set_path(c->init, sizeof(c->init), v);
	if (strcmp(k, "max_ms") == 0) {
		if (bp_parse_u64(v, &n) || n > 86400000)
			return -EINVAL;
		c->max_ms = n;
		c->has_max_ms = 1;
		return 0;
	}
	if (strcmp(k, "head_start_ms") == 0) {
		if (bp_reader_parse_head_start(v, &n))
			return -EINVAL;
		c->head_start_ms = n;
		c->has_head_start = 1;
		return 0;
	}
	if (strcmp(k, "budget") == 0) {
		if (bp_parse_size(v, &n))
			return -EINVAL;
		c->budget = n;
		c->has_budget = 1;
		return 0;
	}
	if (strcmp(k, "meta_gap") == 0) {
		if (bp_reader_parse_gap(v, &c->meta_gap))
			return -EINVAL;
		c->has_meta_gap = 1;
		return 0;
	}
	if (strcmp(k, "in_flight") == 0) {
		if (bp_reader_parse_in_flight(v, &c->in_flight))
			return -EINVAL;
		c->has_in_flight = 1;
		return 0;
	}
	if (strcmp(k, "max_request") == 0) {
		if (bp_reader_parse_max_request(v, &c->max_request))
			return -EINVAL;
		c->has_max_request = 1;
		return 0;
	}
	if (strcmp(k, "max_fds") == 0) {
		if (bp_parse_u64(v, &n) || n < 1 || n > 65536)
			return -EINVAL;
		c->max_fds = (unsigned int)n;
		c->has_max_fds = 1;
		return 0;
	}
	if (strcmp(k, "log") == 0) {
		r = bp_reader_parse_log(v);
		if (r >= 0)
			c->log = r;
		return r < 0 ? r : 0;
	}
	if (strcmp(k, "method") == 0) {
		r = bp_reader_parse_method(v);
		if (r >= 0)
			c->method = r;
		return r < 0 ? r : 0;
	}
	if (strcmp(k, "ioprio") == 0) {
		r = bp_reader_parse_ioprio(v);
		if (r >= 0)
			c->ioprio = r;
		return r < 0 ? r : 0;
	}
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int bp_reader_parse_conf(const char *buf, struct bp_reader_conf *c, unsigned int *line)
{
	char l[512];
	unsigned int no = 0;
	int rc = 0;

	while (*buf) {
		const char *nl = strchr(buf, '\n');
		size_t len = nl ? (size_t)(nl - buf) : strlen(buf);
		char *s, *eq;

		no++;
		if (len >= sizeof(l)) {
			if (!rc && line)
				*line = no;
			rc = -EINVAL;
			goto next;
		}
		memcpy(l, buf, len);
		l[len] = '\0';
		if ((s = strchr(l, '#')))
			*s = '\0';
		s = trim(l);
		if (!*s)
			goto next;
		eq = strchr(s, '=');
		if (!eq || bp_reader_conf_set(c, trim((*eq = '\0', s)), trim(eq + 1)) < 0) {
			if (!rc && line)
				*line = no;
			rc = -EINVAL;
		}
next:
		buf += len;
		if (*buf == '\n')
			buf++;
	}
	return rc;
}

int bp_reader_load_conf(const char *path, struct bp_reader_conf *c, unsigned int *line)
{
	char *buf;
	int rc;

	buf = malloc(CONF_MAX);
	if (!buf)
		return -ENOMEM;
	rc = bp_read_small(path, buf, CONF_MAX);
	if (!rc)
		rc = bp_reader_parse_conf(buf, c, line);
	free(buf);
	return rc;
}

int bp_reader_parse_probe(const char *buf, struct bp_reader_conf *c)
{
	struct bp_reader_conf all;
	const char *p = buf;
	char l[128];

	bp_reader_conf_init(&all);
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *s, *eq;

		if (len < sizeof(l)) {
			memcpy(l, p, len);
			l[len] = '\0';
			s = trim(l);
			eq = strchr(s, '=');
			if (*s != '#' && eq) {
				*eq = '\0';
				s = trim(s);
				if (!strcmp(s, "max_request") || !strcmp(s, "in_flight"))
					bp_reader_conf_set(&all, s, trim(eq + 1));
			}
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (all.has_max_request) {
		c->max_request = all.max_request;
		c->has_max_request = 1;
	}
	if (all.has_in_flight) {
		c->in_flight = all.in_flight;
		c->has_in_flight = 1;
	}
	return 0;
}

int bp_reader_load_probe(const char *path, struct bp_reader_conf *c)
{
	char buf[4096];
	int rc;

	rc = bp_read_small(path, buf, sizeof(buf));
	return rc ? rc : bp_reader_parse_probe(buf, c);
}
