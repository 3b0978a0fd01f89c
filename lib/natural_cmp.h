/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The order of export's columns and of `iopsample schema`'s fields: dotted
 * names compared byte by byte, runs of digits as numbers, so that
 * read_size_hist.10 comes after read_size_hist.9. */
#ifndef IOPSAMPLE_NATURAL_CMP_H
#define IOPSAMPLE_NATURAL_CMP_H

/* <0, 0 or >0, as strcmp. */
int natural_cmp(const char *a, const char *b);

#endif
