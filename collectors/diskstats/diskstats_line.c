/* /proc/diskstats lines: see diskstats_line.h. */
#include "diskstats_line.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int ds_parse_line(const char *line, struct ds_line *out)
{
	memset(out, 0, sizeof(*out));
	int pos = 0;
	if (sscanf(line, "%u %u %31s%n", &out->major, &out->minor, out->name, &pos) != 3)
		return -EINVAL;
	const char *p = line + pos;
	for (;;) {
		uint64_t v;
		int used = 0;
		if (sscanf(p, " %" SCNu64 "%n", &v, &used) != 1)
			break;
		if (out->n < DS_NFIELDS)
			out->v[out->n] = v;
		out->n++;
		p += used;
	}
	while (*p == ' ' || *p == '\t')
		p++;
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
