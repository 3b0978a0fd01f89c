/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A table out to CSV or JSON Lines, the whole file or nothing.
 *
 * CSV: a header of the column names, then one line per row, "\n" line ends,
 * a field quoted ("...", a quote doubled) only when it holds a comma, a
 * quote or a line break; null is an empty field; booleans true and false.
 * JSON Lines: one object per row with every column as a key, in column
 * order, null where there is no value.
 *
 * The file is an outfile (outfile.h): whole or not at all. */
#ifndef IOPSAMPLE_TABLE_H
#define IOPSAMPLE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "outfile.h"

enum table_format { TABLE_CSV, TABLE_JSONL };

struct table;

/* Opens path for a table of n columns and writes the header. NULL with e
 * naming the path when it cannot. */
struct table *table_open(const char *path, enum table_format format, char *const *columns,
			 size_t n, struct errbuf *e);

/* The next value of the row, in column order. */
void table_null(struct table *t);
void table_int(struct table *t, int64_t v);
void table_real(struct table *t, double v); /* NaN and infinities as null */
void table_bool(struct table *t, bool v);
void table_string(struct table *t, const char *s); /* NULL as null */
/* Ends a row of exactly n values. */
void table_end_row(struct table *t);

/* Flushes, syncs and puts the file in place; 0 or -errno with e. Frees t. */
int table_commit(struct table *t, struct errbuf *e);
/* Removes what was written (stdout cannot be taken back). Frees t. */
void table_abort(struct table *t);

#endif
