/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* How closely one series of grid cells tracks another: the figures of
 * `iopsample compare` for one pair of fields (docs/data-model.md,
 * "Comparing deployable with oracle").
 *
 * d is the deployable field's cells, o the oracle's, NAN where a cell is
 * null; ep[k] is cell k's episode, the cells of an episode consecutive and
 * in time order (lags shift within an episode only). */
#ifndef IOPSAMPLE_PAIR_STATS_H
#define IOPSAMPLE_PAIR_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* the lags tried: -PAIR_MAX_LAG .. PAIR_MAX_LAG cells; a lag's r counts
 * only where at least max(PAIR_LAG_MIN_PAIRS, half the pair's cells) pairs
 * remain once shifted */
#define PAIR_MAX_LAG 5
#define PAIR_LAG_MIN_PAIRS 3

struct pair_stats {
	size_t cells; /* both non-null */
	double deployable_total, oracle_total;
	/* each NAN when it has no value (the JSON's null) */
	double total_diff_pct, mae, pearson_r;
	double rel_err_p50, rel_err_p95, within_1pct;
	int best_lag_cells; /* meaningful when r_at_best_lag is not NAN */
	double r_at_best_lag;
};

/* The figures over cells [0, n); 0, or -ENOMEM. */
int pair_stats(const double *d, const double *o, const size_t *ep, size_t n, struct pair_stats *out);

/* numpy's default percentile ("linear") of the n sorted values v at q in
 * [0, 1]. */
double pair_percentile(const double *v, size_t n, double q);

#endif
