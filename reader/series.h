/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A source's rows as columns for a page (the report), in memory that does
 * not grow with the episode: up to twice max rows, each its own point;
 * past that, buckets of equal numbers of rows, twice as many rows a bucket
 * each time they would be more than twice max (as time-series dashboards
 * thin a series to the screen). A bucket holds its leaves combined as
 * export combines a cell (cells.h: counters summed, gauges their highest,
 * a min their lowest, a mean weighted by time, a ratio of its sums), and
 * the lowest and highest any of its rows drew (a counter's rate a second,
 * else its value), so a spike thinned away still shows. */
#ifndef IOPSAMPLE_SERIES_H
#define IOPSAMPLE_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cells.h"
#include "row_shape.h"

struct series_cell {
	double v, w;   /* the combined value (CELL_MEAN: value × time, and the time) */
	double lo, hi; /* what its rows drew, lowest and highest; NAN: none known */
	bool null;     /* a row's null made the bucket's null (sums, means) */
	bool real;     /* a row gave a real, not an integer: written as one */
};

struct series {
	const struct row_shape *shape;
	size_t max, n, per; /* buckets made, rows a full bucket holds */
	uint64_t rows;
	int64_t *t_end, *interval;
	struct series_cell *cell; /* [bucket × leaves + leaf] */
};

/* 0 or -ENOMEM. */
int series_init(struct series *s, const struct row_shape *shape, size_t max);
void series_free(struct series *s);

/* A row ending at t_end (ns since the origin) after interval ns, its
 * leaves in shape's order. */
void series_add(struct series *s, int64_t t_end, int64_t interval, const struct value *v);

/* The JSON members "t", "interval" and "columns" (each leaf's values, a
 * bucket's combined), and where rows were thinned "lo" and "hi" (each
 * leaf's) and "thinned": {"rows", "per_bucket", "buckets"}; each member
 * after a comma. */
void series_put_json(const struct series *s, FILE *f);

#endif
