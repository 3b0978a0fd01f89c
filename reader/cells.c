// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A source's rows spread over grid cells: see cells.h. */
#include "cells.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cells_init(struct cells *c, const struct cell_leaf *leaf, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->leaf = leaf;
	c->row = calloc(n ? n : 1, sizeof(*c->row));
	c->given = calloc(n ? n : 1, sizeof(*c->given));
	c->unknown = calloc(n ? n : 1, sizeof(*c->unknown));
	c->out = calloc(n ? n : 1, sizeof(*c->out));
	c->weighted = calloc(n ? n : 1, sizeof(*c->weighted));
	c->weight = calloc(n ? n : 1, sizeof(*c->weight));
	if (!c->row || !c->given || !c->unknown || !c->out || !c->weighted || !c->weight) {
		cells_free(c);
		return -ENOMEM;
	}
	cells_clear(c);
	return 0;
}

void cells_free(struct cells *c)
{
	free(c->row);
	free(c->given);
	free(c->unknown);
	free(c->out);
	free(c->weighted);
	free(c->weight);
	memset(c, 0, sizeof(*c));
}

void cells_row(struct cells *c, int64_t start, int64_t end)
{
	c->start = start;
	c->end = end;
	c->given_ns = 0;
	memset(c->given, 0, c->n * sizeof(*c->given));
}

void cells_clear(struct cells *c)
{
	c->touched = false;
	for (size_t i = 0; i < c->n; i++) {
		c->unknown[i] = false;
		c->out[i].kind = c->leaf[i].rule == CELL_SUM ? VAL_INT : VAL_NULL;
		c->out[i].i = 0;
		c->weighted[i] = c->weight[i] = 0;
	}
}

static double as_double(const struct value *v)
{
	return v->kind == VAL_INT ? (double)v->i : v->d;
}

/* Keeps the lower (min) or higher (!min) of the cell's value and v. */
static void keep(struct value *best, const struct value *v, bool min)
{
	if (v->kind == VAL_NULL)
		return;
	if (best->kind == VAL_NULL || (min ? as_double(v) < as_double(best)
					   : as_double(v) > as_double(best)))
		*best = *v;
}

/* The sums get the row's share of [0, covered] of its length, less what
 * they already got. */
static int give_sums(struct cells *c, int64_t covered)
{
	int64_t len = c->end - c->start;
	for (size_t i = 0; i < c->n; i++) {
		if (c->leaf[i].rule != CELL_SUM)
			continue;
		const struct value *v = &c->row[i];
		if (v->kind != VAL_INT) {
			c->unknown[i] = true;
			continue;
		}
		int64_t upto = len == 0 || covered == len
				       ? v->i
				       : (int64_t)((unsigned __int128)v->i * (uint64_t)covered /
						   (uint64_t)len);
		if (__builtin_add_overflow(c->out[i].i, upto - c->given[i], &c->out[i].i))
			return -ERANGE;
		c->given[i] = upto;
	}
	return 0;
}

int cells_take(struct cells *c, int64_t c0, int64_t c1)
{
	bool point = c->end == c->start;
	if (point ? c->end > c1 : c->start >= c1)
		return CELLS_LATER;
	int64_t from = c->start > c0 ? c->start : c0, to = c->end < c1 ? c->end : c1;
	int64_t covered = point ? 0 : c->given_ns + (to - from);
	int r = give_sums(c, covered);
	if (r < 0)
		return r;
	c->given_ns = covered;
	c->touched = true;
	bool used = c->end <= c1;
	for (size_t i = 0; i < c->n; i++) {
		if (c->leaf[i].rule == CELL_MIN)
			keep(&c->out[i], &c->row[i], true);
		else if (c->leaf[i].rule == CELL_MAX && used)
			keep(&c->out[i], &c->row[i], false);
		else if (c->leaf[i].rule == CELL_MEAN && c->row[i].kind == VAL_NULL)
			c->unknown[i] = true;
		else if (c->leaf[i].rule == CELL_MEAN) {
			double w = point ? 1 : (double)(to - from);
			c->weighted[i] += as_double(&c->row[i]) * w;
			c->weight[i] += w;
		}
	}
	return used ? CELLS_USED : CELLS_MORE;
}

static struct value sum_of(const struct cells *c, int i)
{
	if (i < 0 || (size_t)i >= c->n || c->leaf[i].rule != CELL_SUM || c->unknown[i])
		return (struct value){.kind = VAL_NULL};
	return c->out[i];
}

const struct value *cells_finish(struct cells *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!c->touched) {
			c->out[i].kind = VAL_NULL;
			continue;
		}
		if (c->leaf[i].rule == CELL_SUM && c->unknown[i])
			c->out[i].kind = VAL_NULL;
		if (c->leaf[i].rule == CELL_MEAN)
			c->out[i] = c->unknown[i] || c->weight[i] <= 0
					    ? (struct value){.kind = VAL_NULL}
					    : (struct value){.kind = VAL_REAL,
							     .d = c->weighted[i] / c->weight[i]};
	}
	for (size_t i = 0; i < c->n && c->touched; i++) {
		if (c->leaf[i].rule != CELL_RATIO)
			continue;
		struct value num = sum_of(c, c->leaf[i].num), den = sum_of(c, c->leaf[i].den);
		c->out[i].kind = VAL_NULL;
		if (num.kind == VAL_INT && den.kind == VAL_INT && den.i != 0)
			c->out[i] = (struct value){.kind = VAL_REAL, .d = (double)num.i / (double)den.i};
	}
	return c->out;
}

int64_t cells_row_end(int64_t t_mono, bool final, int64_t interval, int64_t prev_end)
{
	int64_t end = final || interval <= 0 ? t_mono : t_mono - t_mono % interval;
	return end > prev_end ? end : prev_end;
}
