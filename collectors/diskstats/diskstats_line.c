// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/diskstats lines: see diskstats_line.h. */
#include "diskstats_line.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A decimal number at *p (by hand: sscanf was a tenth of a tick). */
static bool number(const char **p, uint64_t *v)
{
	const char *q = *p;
	if (*q < '0' || *q > '9')
		return false;
	uint64_t x = 0;
	while (*q >= '0' && *q <= '9')
		x = x * 10 + (uint64_t)(*q++ - '0');
	*v = x;
	*p = q;
	return true;
}

/* The device numbers at the start of a line; the rest after them, or NULL. */
static const char *device(const char *line, unsigned *major, unsigned *minor)
{
	const char *p = skip_blanks(line);
	uint64_t ma, mi;
	if (!number(&p, &ma) || (*p != ' ' && *p != '\t') || !number((p = skip_blanks(p), &p), &mi) ||
	    (*p != ' ' && *p != '\t') || ma > UINT32_MAX || mi > UINT32_MAX)
		return NULL;
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	return p;
}

int ds_line_device(const char *line, unsigned *major, unsigned *minor)
{
	return device(line, major, minor) ? 0 : -EINVAL;
}

int ds_parse_line(const char *line, struct ds_line *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = device(line, &out->major, &out->minor);
	if (!p)
		return -EINVAL;
	p = skip_blanks(p);
	size_t n = 0;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && n < sizeof(out->name) - 1)
		out->name[n++] = *p++;
	if (!n)
		return -EINVAL;
	for (;;) {
		const char *q = skip_blanks(p);
		uint64_t v;
		if (q == p || !number(&q, &v))
			break;
		if (out->n < DS_NFIELDS)
			out->v[out->n] = v;
		out->n++;
		p = q;
	}
	p = skip_blanks(p);
	if (out->n < DS_MIN_FIELDS || (*p && *p != '\n'))
		return -EINVAL;
	if (out->n > DS_NFIELDS)
		out->n = DS_NFIELDS;
	return 0;
}

uint64_t ds_delta(const struct ds_line *prev, const struct ds_line *cur, enum ds_field f)
{
	uint64_t a = prev->v[f], b = cur->v[f];
	if (b >= a)
		return b - a;
	if (a <= UINT32_MAX && b <= UINT32_MAX)
		return (uint64_t)UINT32_MAX + 1 - a + b;
	return 0; /* a reset (the device was replaced): nothing known to have happened */
}
