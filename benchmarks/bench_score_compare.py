"""Time ``cc.compare`` on a score sheet: 10^4 candidates' scores on 10^3 rows, ranked.

Run with ``python benchmarks/bench_score_compare.py`` (``--quick`` for 10^3 candidates). The
sheet is the exact score sheet of a 10^3-row log (mean of three scores against 0.5, about a
third positives); each candidate is a score on every row, given as ``{name: array}`` with the
log's ``y_true``, as a user calls it. Timed end to end (reading the mapping, splitting by class,
pricing through ``ScoreSheet.price_many``, ranking, the notes): same instances, same instances
with the high-confidence columns, and the probability form. Prints medians of five runs; the
target is under one second for 10^4 candidates.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from bench_bounds import REPEATS, median_time  # the same timer: median of REPEATS runs

import causalcost as cc
from causalcost.data.score_runs import score_runs

TARGET_S = 1.0
ROWS = 1_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^3 candidates instead of 10^4")
    args = parser.parse_args()
    m = 1_000 if args.quick else 10_000
    rng = np.random.default_rng(0)
    y = rng.random(ROWS) < 1 / 3
    log = np.clip(rng.normal(0.4, 0.2, (ROWS, 3)) + 0.3 * y[:, None], 0, 1)
    sheet = cc.sheet_from_data(score_runs(log, truth=y, slot=1), cc.CostMatrix(fn=5, fp=1))
    block = np.clip(rng.normal(0.5, 0.3, (m, ROWS)) + 0.2 * y, 0, 1)
    scores = {f"c{i}": row for i, row in enumerate(block)}
    cases = {
        "same instances": dict(same_instances=True),
        "same instances + high confidence": dict(same_instances=True, confidence=0.95),
        "probability form + high confidence": dict(confidence=0.95),
    }
    warnings.simplefilter("ignore")  # the ranking note on worst-case order
    for name, kwargs in cases.items():
        table = cc.compare(sheet, y_true=y, scores=scores, **kwargs)  # warm
        assert len(table) == m
        took = median_time(lambda kw=kwargs: cc.compare(sheet, y_true=y, scores=scores, **kw))
        verdict = "under" if took < TARGET_S else "NOT under"
        print(f"compare(score sheet), {m:,} candidates x {ROWS:,} rows, {name}: "
              f"{took * 1e3:.0f} ms (median of {REPEATS}); {verdict} {TARGET_S:g} s")


if __name__ == "__main__":
    main()
