/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A source's rows spread over a grid of cells: what `iopsample export` puts
 * in one table row per cell.
 *
 * A row covers the time (start, end] of the episode (ns since the origin);
 * a cell covers [c0, c1). Rows are fed in time order, one cell after the
 * other. How a row's values go into the cells it overlaps depends on what
 * the value is (docs/data-model.md, "Exporting"):
 *
 *   CELL_SUM   a count over the row's interval: each cell gets the share of
 *              its overlap, rounded so that the parts of a row are integers
 *              that add up to exactly the row's value (the cumulative share
 *              floor(v × covered / length) is what has been given so far);
 *              null in a cell when a row that overlaps it is null;
 *   CELL_MAX   a level sampled at the row's end (a gauge): the highest level
 *              sampled in the cell; null when no sample ends in it;
 *   CELL_MIN   a property of the row's whole interval (running_pct): the
 *              lowest over the rows that overlap the cell;
 *   CELL_MEAN  a rate or share of the row's whole interval (util_pct): the
 *              mean over the rows that overlap the cell, each weighted by
 *              the time it overlaps (a point by 1 ns); null when a row that
 *              overlaps it is null;
 *   CELL_RATIO recomputed from the cell's sums of two CELL_SUM values,
 *              numerator / denominator; null when either is null, or the
 *              denominator is 0.
 *
 * A row of length 0 is a point at its end. A cell no row reaches has null
 * in every value. Nothing here allocates after cells_init. */
#ifndef IOPSAMPLE_CELLS_H
#define IOPSAMPLE_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cell_rule { CELL_SUM, CELL_MAX, CELL_MIN, CELL_RATIO, CELL_MEAN };

enum value_kind { VAL_NULL, VAL_INT, VAL_REAL };

struct value {
	enum value_kind kind;
	union {
		int64_t i;
		double d;
	};
};

struct cell_leaf {
	enum cell_rule rule;
	int num, den; /* CELL_RATIO: the leaves it divides; -1 when there is none */
};

struct cells {
	size_t n;
	const struct cell_leaf *leaf;
	/* the row being spread: the caller fills row[] and calls cells_row() */
	struct value *row;
	int64_t start, end, given_ns;
	int64_t *given; /* CELL_SUM: how much of the row's value cells got */
	/* the cell being filled */
	bool touched;
	bool *unknown;     /* CELL_SUM, CELL_MEAN: a null row overlapped the cell */
	double *weighted, *weight; /* CELL_MEAN: sum of value × overlap, of overlap */
	struct value *out; /* the cell's values, after cells_finish */
};

enum { CELLS_LATER, CELLS_MORE, CELLS_USED };

int cells_init(struct cells *c, const struct cell_leaf *leaf, size_t n);
void cells_free(struct cells *c);

/* The row in c->row covers (start, end]; start <= end. */
void cells_row(struct cells *c, int64_t start, int64_t end);

/* A new cell: nothing in it yet. */
void cells_clear(struct cells *c);

/* Gives the current row's part in the cell [c0, c1) to the cell.
 * CELLS_USED: the row ends in the cell and is all given (feed the next);
 * CELLS_MORE: its rest lies in later cells; CELLS_LATER: it starts at or
 * after c1, nothing given; -ERANGE when a sum leaves 64 bits. Cells come in
 * order, and a row is offered to every cell from the first it reaches. */
int cells_take(struct cells *c, int64_t c0, int64_t c1);

/* The cell's values (c->out, valid until the next cells_clear): nulls when
 * no row reached it. */
const struct value *cells_finish(struct cells *c);

/* Where a source's row ends on the episode's time (docs/data-model.md,
 * "Which time a row covers"): a sample is taken for the grid point at or
 * just before its t_mono_ns (never early; a late one covers the points it
 * missed), the final row when it was taken; never before the previous
 * row's end. */
int64_t cells_row_end(int64_t t_mono, bool final, int64_t interval, int64_t prev_end);

#endif
