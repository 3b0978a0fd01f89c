// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cgroup file formats; see cg_files.h. */
#define _GNU_SOURCE
#include "cg_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int number(const char *s, const char **end, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	char *e;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 10);
	if (errno)
		return -EINVAL;
	*out = v;
	if (end)
		*end = e;
	return 0;
}

int cg_keyed(const char *buf, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	for (const char *line = buf; line && *line;) {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return number(line + klen + 1, NULL, out);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

int cg_number(const char *buf, uint64_t *out)
{
	if (!strncmp(buf, "max", 3))
		return -ERANGE;
	const char *end;
	int r = number(buf, &end, out);
	return r < 0 || (*end && *end != '\n') ? -EINVAL : 0;
}

uint64_t cg_lines(const char *buf)
{
	uint64_t n = 0;
	for (const char *p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

/* total=N of a pressure line */
static int total_of(const char *line, const char *eol, uint64_t *out)
{
	const char *t = memmem(line, (size_t)(eol - line), "total=", 6);
	return t ? number(t + 6, NULL, out) : -EINVAL;
}

int cg_pressure(const char *buf, uint64_t *some_us, uint64_t *full_us, bool *have_full)
{
	bool some = false;
	*have_full = false;
	for (const char *line = buf; *line;) {
		const char *eol = strchrnul(line, '\n');
		if (!strncmp(line, "some ", 5)) {
			if (total_of(line, eol, some_us) < 0)
				return -EINVAL;
			some = true;
		} else if (!strncmp(line, "full ", 5)) {
			if (total_of(line, eol, full_us) < 0)
				return -EINVAL;
			*have_full = true;
		}
		line = *eol ? eol + 1 : eol;
	}
	return some ? 0 : -EINVAL;
}

static int dev_of(const char *line, unsigned *major, unsigned *minor, const char **rest)
{
	char *e;
	unsigned long ma = strtoul(line, &e, 10);
	if (e == line || *e != ':')
		return -EINVAL;
	const char *m = e + 1;
	unsigned long mi = strtoul(m, &e, 10);
	if (e == m || *e != ' ')
		return -EINVAL;
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	*rest = e + 1;
	return 0;
}

int cg_io_stat(const char *buf, void (*cb)(void *, unsigned, unsigned, const struct cg_io *),
	       void *arg)
{
	static const struct {
		const char *key;
		size_t at;
	} keys[] = {
		{"rbytes=", offsetof(struct cg_io, read_bytes)},
		{"wbytes=", offsetof(struct cg_io, write_bytes)},
		{"rios=", offsetof(struct cg_io, read_ops)},
		{"wios=", offsetof(struct cg_io, write_ops)},
	};
	for (const char *line = buf; *line;) {
		const char *eol = strchrnul(line, '\n');
		unsigned major, minor;
		const char *rest;
		if (dev_of(line, &major, &minor, &rest) < 0)
			return -EINVAL;
		struct cg_io io = {0};
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const char *k = memmem(rest, (size_t)(eol - rest), keys[i].key, strlen(keys[i].key));
			if (k && number(k + strlen(keys[i].key), NULL, (uint64_t *)((char *)&io + keys[i].at)) < 0)
				return -EINVAL;
		}
		cb(arg, major, minor, &io);
		line = *eol ? eol + 1 : eol;
	}
	return 0;
}

int cg_blkio_v1(const char *buf, bool bytes,
		void (*cb)(void *, unsigned, unsigned, const struct cg_io *), void *arg)
{
	/* a device's lines come together: Read, Write, Sync, Async, Discard, Total */
	struct cg_io io = {0};
	unsigned cur_major = 0, cur_minor = 0;
	bool open = false;
	for (const char *line = buf; *line;) {
		const char *eol = strchrnul(line, '\n');
		unsigned major, minor;
		const char *rest;
		if (!strncmp(line, "Total ", 6)) { /* the file's own total: last */
			line = *eol ? eol + 1 : eol;
			continue;
		}
		if (dev_of(line, &major, &minor, &rest) < 0)
			return -EINVAL;
		if (open && (major != cur_major || minor != cur_minor)) {
			cb(arg, cur_major, cur_minor, &io);
			io = (struct cg_io){0};
		}
		open = true;
		cur_major = major;
		cur_minor = minor;
		const char *sp = strchr(rest, ' ');
		uint64_t v;
		if (!sp || sp > eol || number(sp + 1, NULL, &v) < 0)
			return -EINVAL;
		if (!strncmp(rest, "Read ", 5))
			*(bytes ? &io.read_bytes : &io.read_ops) = v;
		else if (!strncmp(rest, "Write ", 6))
			*(bytes ? &io.write_bytes : &io.write_ops) = v;
		line = *eol ? eol + 1 : eol;
	}
	if (open)
		cb(arg, cur_major, cur_minor, &io);
	return 0;
}
