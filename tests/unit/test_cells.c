// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Rows spread over grid cells (cells.h): the arithmetic export's table
 * rests on, each case worked out by hand. */
#include <errno.h>

#include "cells.h"
#include "testing.h"

#define MS 1000000LL

static struct value I(int64_t v)
{
	return (struct value){.kind = VAL_INT, .i = v};
}

static struct value R(double v)
{
	return (struct value){.kind = VAL_REAL, .d = v};
}

static const struct value NUL = {.kind = VAL_NULL};

/* Feeds rows (start, end, values) through cells of width g and writes the
 * cells' values into out[cell][leaf]; returns the number of cells. */
struct row {
	int64_t start, end;
	struct value v[4];
};

static size_t spread(const struct cell_leaf *leaf, size_t n, const struct row *rows, size_t nrows,
		     int64_t g, struct value out[][4])
{
	struct cells c;
	EXPECT_EQ(cells_init(&c, leaf, n), 0);
	size_t next = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		c.row[i] = rows[0].v[i];
	cells_row(&c, rows[0].start, rows[0].end);
	for (int64_t c0 = 0; next < nrows; c0 += g, k++) {
		cells_clear(&c);
		while (next < nrows) {
			int r = cells_take(&c, c0, c0 + g);
			EXPECT(r >= 0);
			if (r != CELLS_USED)
				break;
			if (++next < nrows) {
				for (size_t i = 0; i < n; i++)
					c.row[i] = rows[next].v[i];
				cells_row(&c, rows[next].start, rows[next].end);
			}
		}
		const struct value *v = cells_finish(&c);
		for (size_t i = 0; i < n; i++)
			out[k][i] = v[i];
	}
	cells_free(&c);
	return k;
}

#define EXPECT_INT(v, n)                                   \
	do {                                               \
		EXPECT_EQ((v).kind, VAL_INT);              \
		EXPECT_EQ((v).i, (n));                     \
	} while (0)

static const struct cell_leaf SUM = {CELL_SUM, -1, -1};

TEST(aligned_rows_are_the_cells)
{
	struct row rows[] = {{0, 100 * MS, {I(7)}}, {100 * MS, 200 * MS, {I(0)}}, {200 * MS, 300 * MS, {I(5)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 3, 100 * MS, out), 3);
	EXPECT_INT(out[0][0], 7);
	EXPECT_INT(out[1][0], 0);
	EXPECT_INT(out[2][0], 5);
}

TEST(coarser_cells_sum_whole_rows)
{
	struct row rows[] = {{0, 100 * MS, {I(7)}}, {100 * MS, 200 * MS, {I(3)}}, {200 * MS, 300 * MS, {I(5)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 3, 200 * MS, out), 2);
	EXPECT_INT(out[0][0], 10);
	EXPECT_INT(out[1][0], 5);
}

/* 100 ms rows in 250 ms cells: the row (200, 300] gives half to each. Parts
 * are integers that add up to the row: 5 splits 2 + 3 (floor of the
 * cumulative share: floor(5 × 50/100) = 2 first, then the rest). */
TEST(a_straddling_row_splits_in_proportion_to_time)
{
	struct row rows[] = {{0, 100 * MS, {I(10)}}, {100 * MS, 200 * MS, {I(10)}},
			     {200 * MS, 300 * MS, {I(5)}}, {300 * MS, 400 * MS, {I(8)}},
			     {400 * MS, 500 * MS, {I(1)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 5, 250 * MS, out), 2);
	EXPECT_INT(out[0][0], 10 + 10 + 2);
	EXPECT_INT(out[1][0], 3 + 8 + 1);
}

/* One row over three cells: 100 over (0, 300] in 100 ms cells is
 * floor(100/3) = 33, then floor(200/3) - 33 = 33, then 100 - 66 = 34. */
TEST(a_row_over_many_cells_keeps_its_total)
{
	struct row rows[] = {{0, 300 * MS, {I(100)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 1, 100 * MS, out), 3);
	EXPECT_INT(out[0][0], 33);
	EXPECT_INT(out[1][0], 33);
	EXPECT_INT(out[2][0], 34);
}

TEST(big_counts_split_without_overflow)
{
	int64_t big = INT64_MAX / 2;
	struct row rows[] = {{0, 3 * MS, {I(big)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 1, 2 * MS, out), 2);
	EXPECT_EQ(out[0][0].i + out[1][0].i, big);
	EXPECT_EQ(out[0][0].i, (int64_t)((unsigned __int128)big * 2 / 3));
}

TEST(a_sum_beyond_64_bits_is_an_error)
{
	struct cells c;
	EXPECT_EQ(cells_init(&c, &SUM, 1), 0);
	cells_clear(&c);
	c.row[0] = I(INT64_MAX);
	cells_row(&c, 0, 10);
	EXPECT_EQ(cells_take(&c, 0, 100), CELLS_USED);
	c.row[0] = I(1);
	cells_row(&c, 10, 20);
	EXPECT_EQ(cells_take(&c, 0, 100), -ERANGE);
	cells_free(&c);
}

/* A final row taken just after a grid point is short: it lands in the last
 * cell, which is otherwise empty. A zero-length row is a point at its end. */
TEST(short_and_zero_length_rows)
{
	struct row rows[] = {{0, 100 * MS, {I(4)}}, {100 * MS, 100 * MS, {I(2)}},
			     {100 * MS, 100 * MS + 300, {I(1)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 3, 100 * MS, out), 2);
	EXPECT_INT(out[0][0], 6);
	EXPECT_INT(out[1][0], 1);
}

TEST(a_null_count_makes_the_cells_it_overlaps_null)
{
	struct row rows[] = {{0, 100 * MS, {I(4)}}, {100 * MS, 200 * MS, {NUL}},
			     {200 * MS, 300 * MS, {I(6)}}, {300 * MS, 400 * MS, {I(1)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(&SUM, 1, rows, 4, 150 * MS, out), 3);
	EXPECT_EQ(out[0][0].kind, VAL_NULL); /* (0,150]: 4 and half the null */
	EXPECT_EQ(out[1][0].kind, VAL_NULL); /* (150,300]: the null's rest and 6 */
	EXPECT_INT(out[2][0], 1);
}

/* A gauge is a level at the row's end: the highest in the cell, null when no
 * sample ends in it (one late row covering two cells). */
TEST(gauges_take_the_highest_level_sampled_in_the_cell)
{
	struct cell_leaf leaf[] = {{CELL_MAX, -1, -1}};
	struct row rows[] = {{0, 100 * MS, {I(3)}}, {100 * MS, 200 * MS, {I(5)}},
			     {200 * MS, 400 * MS, {I(2)}}, {400 * MS, 500 * MS, {I(0)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(leaf, 1, rows, 4, 100 * MS, out), 5);
	EXPECT_INT(out[0][0], 3);
	EXPECT_INT(out[1][0], 5);
	EXPECT_EQ(out[2][0].kind, VAL_NULL);
	EXPECT_INT(out[3][0], 2);
	EXPECT_INT(out[4][0], 0);
	EXPECT_EQ(spread(leaf, 1, rows, 4, 200 * MS, out), 3);
	EXPECT_INT(out[0][0], 5);
	EXPECT_INT(out[1][0], 2);
	EXPECT_INT(out[2][0], 0);
}

TEST(min_takes_the_lowest_row_that_overlaps)
{
	struct cell_leaf leaf[] = {{CELL_MIN, -1, -1}};
	struct row rows[] = {{0, 100 * MS, {R(100)}}, {100 * MS, 200 * MS, {R(60)}},
			     {200 * MS, 300 * MS, {NUL}}, {300 * MS, 400 * MS, {R(100)}}};
	struct value out[8][4];
	EXPECT_EQ(spread(leaf, 1, rows, 4, 150 * MS, out), 3);
	EXPECT(out[0][0].kind == VAL_REAL && out[0][0].d == 60);
	EXPECT(out[1][0].kind == VAL_REAL && out[1][0].d == 60);
	EXPECT(out[2][0].kind == VAL_REAL && out[2][0].d == 100);
}

/* ipc from the cell's sums, never an average of the rows' ratios: rows of
 * 1/1 and 300/100 make 301/101 in one cell, not (1 + 3) / 2. */
TEST(ratios_are_recomputed_from_the_sums)
{
	struct cell_leaf leaf[] = {{CELL_SUM, -1, -1}, {CELL_SUM, -1, -1}, {CELL_RATIO, 0, 1},
				   {CELL_RATIO, 0, -1}};
	struct row rows[] = {{0, 100 * MS, {I(1), I(1), R(1), R(9)}},
			     {100 * MS, 200 * MS, {I(300), I(100), R(3), R(9)}},
			     {200 * MS, 300 * MS, {I(5), I(0), NUL, NUL}},
			     {300 * MS, 400 * MS, {I(5), NUL, NUL, NUL}}};
	struct value out[8][4];
	EXPECT_EQ(spread(leaf, 4, rows, 4, 200 * MS, out), 2);
	EXPECT(out[0][2].kind == VAL_REAL && out[0][2].d == 301.0 / 101.0);
	EXPECT_EQ(out[0][3].kind, VAL_NULL); /* no denominator known */
	EXPECT_EQ(out[1][2].kind, VAL_NULL); /* 10 / null */
	EXPECT_EQ(spread(leaf, 4, rows, 3, 100 * MS, out), 3);
	EXPECT_EQ(out[2][2].kind, VAL_NULL); /* 5 / 0 */
}

TEST(a_cell_no_row_reaches_is_null)
{
	struct cells c;
	EXPECT_EQ(cells_init(&c, &SUM, 1), 0);
	c.row[0] = I(9);
	cells_row(&c, 300 * MS, 400 * MS);
	cells_clear(&c);
	EXPECT_EQ(cells_take(&c, 0, 100 * MS), CELLS_LATER);
	EXPECT_EQ(cells_finish(&c)[0].kind, VAL_NULL);
	cells_clear(&c);
	EXPECT_EQ(cells_take(&c, 300 * MS, 350 * MS), CELLS_MORE);
	EXPECT_INT(cells_finish(&c)[0], 4);
	cells_free(&c);
}
