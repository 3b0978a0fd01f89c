# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""compare's figures for one pair, computed with pandas and numpy from
export's table, as docs/data-model.md ("Comparing deployable with oracle")
defines them; tests/e2e/compare.sh holds iopsample compare to them. Needs
Debian's python3 (pandas)."""
import numpy as np

MAX_LAG = 5


def side(df, name):
    """A pair's side: a column, or columns added up with +, empty where any
    is."""
    cols = name.split("+")
    return df[cols].sum(axis=1, min_count=len(cols)).where(df[cols].notna().all(axis=1))


def pearson(x, y, min_pairs=2):
    """Pearson's r over the rows where both are set; None with fewer than
    min_pairs such rows or a side constant over them."""
    m = x.notna() & y.notna()
    x, y = x[m].to_numpy(float), y[m].to_numpy(float)
    if len(x) < max(2, min_pairs) or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    return float(np.corrcoef(x, y)[0, 1])


def lag_r(df, d, o, lag, cells):
    """The r of d[t + lag] against o[t], d shifted within each episode; None
    unless at least max(3, half the pair's cells, rounded up) pairs are
    left: the r of two points is always 1 or -1."""
    shifted = d.groupby(df["episode"]).shift(-lag)
    return pearson(shifted, o, max(3, -(-cells // 2)))


def figures(df, d, o):
    both = d.notna() & o.notna()
    dd, oo = d[both].astype(float), o[both].astype(float)
    f = {"cells": int(both.sum()), "deployable_total": float(dd.sum()), "oracle_total": float(oo.sum())}
    f["total_diff_pct"] = 100 * (dd.sum() - oo.sum()) / oo.sum() if oo.sum() != 0 else None
    f["mae"] = float((dd - oo).abs().mean()) if len(dd) else None
    f["pearson_r"] = pearson(d, o)
    pos = oo > 0
    rel = ((dd - oo).abs() / oo)[pos].to_numpy()
    f["rel_err_p50"] = float(np.percentile(rel, 50)) if len(rel) else None
    f["rel_err_p95"] = float(np.percentile(rel, 95)) if len(rel) else None
    f["within_1pct"] = float((rel <= 0.01).mean()) if len(rel) else None
    # the highest r; a tie goes to the lag nearest 0, then the negative one
    best = None
    for lag in sorted(range(-MAX_LAG, MAX_LAG + 1), key=lambda L: (abs(L), L > 0)):
        r = lag_r(df, d, o, lag, f["cells"])
        if r is not None and (best is None or r > best[1]):
            best = (lag, r)
    f["best_lag_cells"], f["r_at_best_lag"] = best if best else (None, None)
    return f
