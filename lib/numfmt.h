/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Numbers as JSON/CSV text, exact and fast: what export and report write. */
#ifndef IOPSAMPLE_NUMFMT_H
#define IOPSAMPLE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

#define NUMFMT_INT 24
#define NUMFMT_REAL 48

/* v in decimal, in buf; returns where the text starts (by hand: printf's
 * parsing was a tenth of an export's time). */
const char *numfmt_int(char buf[NUMFMT_INT], int64_t v);
/* A finite v: the shortest form that reads back as the same double, always
 * with a point or an exponent, so that a reader never takes it for an
 * integer. */
void numfmt_real(char buf[NUMFMT_REAL], double v);

/* Bytes for a person, in binary units: "512 B", "5.50 MiB", "1.02 GiB";
 * suffix after the unit ("/s" for a rate). */
void numfmt_bytes(char *buf, size_t len, double v, const char *suffix);

#endif
