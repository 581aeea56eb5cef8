"""Time pricing 10^4 score-slot candidates, each scored on 10^3 rows, against critical scores.

Run with ``python benchmarks/bench_scores.py`` (``--quick`` for 10^3 candidates). The log has
10^3 rows (about a third positives) with their critical scores; each candidate gives a score on
every row. ``price_scores_many`` prices all of them at once (expected cost, exact worst and
best case on the same instances), then again with the DKW high-confidence worst and best case
(``confidence=0.95``), then in the probability form. As a baseline in the same run: sorting
the candidates' scores row by row (``numpy.sort``), the least any O(n log n) method on unsorted
scores does. Prints medians of five runs; the target is under one second for 10^4 candidates.
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_bounds import REPEATS, median_time  # the same timer: median of REPEATS runs

import causalcost as cc
from causalcost.pricing.scores import price_scores_many

TARGET_S = 1.0
ROWS = 1_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^3 candidates instead of 10^4")
    args = parser.parse_args()
    m = 1_000 if args.quick else 10_000
    rng = np.random.default_rng(0)
    y = rng.random(ROWS) < 1 / 3
    t = rng.normal(0.5, 0.25, ROWS)
    t[rng.random(ROWS) < 0.05] = -np.inf  # some rows the system always gets P
    t[rng.random(ROWS) < 0.05] = np.inf
    scores = np.clip(rng.normal(0.5, 0.3, (m, ROWS)) + 0.2 * y, 0, 1)
    critical = (t[y], t[~y])
    per_class = (scores[:, y], scores[:, ~y])
    costs = cc.CostMatrix(fn=5, fp=1)
    table = price_scores_many(critical, per_class, costs)  # warm
    assert len(table) == m and (table["best_cost"] <= table["worst_cost"]).all()
    cases = {
        "same instances": lambda: price_scores_many(critical, per_class, costs),
        "same instances + high confidence": lambda: price_scores_many(
            critical, per_class, costs, confidence=0.95),
        "probability form + high confidence": lambda: price_scores_many(
            critical, per_class, costs, same_instances=False, confidence=0.95),
    }
    base = median_time(lambda: np.sort(scores, axis=1))
    print(f"{m:,} candidates x {ROWS:,} rows ({int(y.sum())} positives); medians of {REPEATS} "
          f"runs; baseline numpy.sort of the scores {base * 1e3:.0f} ms")
    for name, fn in cases.items():
        took = median_time(fn)
        verdict = "under" if took < TARGET_S else "NOT under"
        print(f"price_scores_many, {name}: {took * 1e3:.0f} ms, {took / m * 1e6:.1f} us per "
              f"candidate, {took / base:.1f}x the sort; {verdict} {TARGET_S:g} s")


if __name__ == "__main__":
    main()
