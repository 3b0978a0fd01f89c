// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The figures of `iopsample compare` for one pair (pair_stats.h). Sums in
 * long double: a pair's totals are integers up to 2^63 that a double would
 * round. */
#include "pair_stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double pair_percentile(const double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	double at = q * (double)(n - 1);
	size_t lo = (size_t)floor(at), hi = lo + 1 < n ? lo + 1 : lo;
	return v[lo] + (v[hi] - v[lo]) * (at - (double)lo);
}

/* Pearson's r of the pairs (x[k], y[k]) both non-null, d shifted by lag
 * within each episode: x is d[k + lag], y is o[k]. NAN with fewer than
 * min_pairs pairs (2 at least) or a side constant over them. */
static double pearson(const double *d, const double *o, const size_t *ep, size_t n, int lag,
		      size_t min_pairs)
{
	long double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		long long j = (long long)k + lag;
		if (j < 0 || (size_t)j >= n || ep[j] != ep[k] || isnan(d[j]) || isnan(o[k]))
			continue;
		long double x = d[j], y = o[k];
		sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
		m++;
	}
	if (m < 2 || m < min_pairs)
		return NAN;
	/* centred sums over the pairs, from a second pass: the one-pass
	 * formula loses the digits of large, nearly equal counts */
	long double mx = sx / m, my = sy / m, cxx = 0, cyy = 0, cxy = 0;
	for (size_t k = 0; k < n; k++) {
		long long j = (long long)k + lag;
		if (j < 0 || (size_t)j >= n || ep[j] != ep[k] || isnan(d[j]) || isnan(o[k]))
			continue;
		long double x = d[j] - mx, y = o[k] - my;
		cxx += x * x, cyy += y * y, cxy += x * y;
	}
	if (cxx == 0 || cyy == 0)
		return NAN;
	return (double)(cxy / sqrtl(cxx * cyy));
}

int pair_stats(const double *d, const double *o, const size_t *ep, size_t n, struct pair_stats *out)
{
	*out = (struct pair_stats){.total_diff_pct = NAN, .mae = NAN, .pearson_r = NAN,
				   .rel_err_p50 = NAN, .rel_err_p95 = NAN, .within_1pct = NAN,
				   .r_at_best_lag = NAN};
	double *rel = malloc((n ? n : 1) * sizeof(*rel));
	if (!rel)
		return -ENOMEM;
	long double sd = 0, so = 0, sabs = 0;
	size_t nrel = 0, within = 0;
	for (size_t k = 0; k < n; k++) {
		if (isnan(d[k]) || isnan(o[k]))
			continue;
		out->cells++;
		sd += d[k], so += o[k], sabs += fabsl((long double)d[k] - o[k]);
		if (o[k] > 0) {
			rel[nrel] = (double)(fabsl((long double)d[k] - o[k]) / o[k]);
			within += rel[nrel] <= 0.01;
			nrel++;
		}
	}
	out->deployable_total = (double)sd;
	out->oracle_total = (double)so;
	if (so != 0)
		out->total_diff_pct = (double)(100 * (sd - so) / so);
	if (out->cells)
		out->mae = (double)(sabs / out->cells);
	out->pearson_r = pearson(d, o, ep, n, 0, 2);
	if (nrel) {
		qsort(rel, nrel, sizeof(*rel), by_value);
		out->rel_err_p50 = pair_percentile(rel, nrel, 0.5);
		out->rel_err_p95 = pair_percentile(rel, nrel, 0.95);
		out->within_1pct = (double)within / (double)nrel;
	}
	free(rel);
	/* the highest r over the lags that keep enough pairs (the r of two
	 * points is always 1 or -1); a tie goes to the lag nearest 0, then to
	 * the negative one */
	size_t min_pairs = (out->cells + 1) / 2;
	if (min_pairs < PAIR_LAG_MIN_PAIRS)
		min_pairs = PAIR_LAG_MIN_PAIRS;
	for (int step = 0; step <= PAIR_MAX_LAG; step++)
		for (int sign = -1; sign <= 1; sign += 2) {
			int lag = step * sign;
			if (step == 0 && sign > 0)
				continue;
			double r = pearson(d, o, ep, n, lag, min_pairs);
			if (!isnan(r) && (isnan(out->r_at_best_lag) || r > out->r_at_best_lag)) {
				out->r_at_best_lag = r;
				out->best_lag_cells = lag;
			}
		}
	return 0;
}
