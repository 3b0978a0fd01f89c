// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Numbers as text: see numfmt.h. */
#include "numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *numfmt_int(char buf[NUMFMT_INT], int64_t v)
{
	char *p = buf + NUMFMT_INT;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	return p;
}

void numfmt_real(char buf[NUMFMT_REAL], double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, NUMFMT_REAL - 2, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
}

void numfmt_bytes(char *buf, size_t len, double v, const char *suffix)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t i = 0;
	while (fabs(v) >= 1024 && i < sizeof(units) / sizeof(units[0]) - 1) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f %s%s", v, units[i], suffix);
	else
		snprintf(buf, len, "%.2f %s%s", v, units[i], suffix);
}
