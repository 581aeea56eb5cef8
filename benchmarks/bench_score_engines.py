"""Time critical scores of a score log on polars (lazy) and DuckDB against a numpy expression.

Run with ``python benchmarks/bench_score_engines.py`` (10^7 rows; ``--quick`` for 10^5, a
smoke run; ``--rows N`` for another size). The log has a truth column and four score columns
(float64); the rule is the weighted mean against 0.5 (weights 1, 2, 0.5, 1.5), the slot the
last column (``--slot b`` for another: the engine then computes the rule's sum at the
observed scores too, as the slot's term is not the sum's last). Timed, medians of
``bench_bounds.REPEATS`` runs:

* numpy expression: ``(0.5 * sum(w) - (a*w0 + b*w1 + c*w2)) / w3`` on the four columns held
  as numpy arrays, the least any route does (the baseline);
* numpy ``critical_scores``: the package's numpy route (closed form, snapped, exact at the
  observed scores);
* ``cc.forced_runs`` on a polars ``LazyFrame`` and on a DuckDB relation (over an Arrow table):
  the engine computes the critical score, the other models' part and the decision at the
  observed scores as column expressions, they are collected, and the exactness step runs in
  numpy: the whole call, returning a ``ScoreRuns``.

The rounds of the routes are interleaved (round 1 of each, then round 2 of each, ...), so a
slow spell of a shared machine hits them alike. Every route's critical scores are checked
against the numpy expression (relative 1e-9) and their observed confusions against each other
(equal). Prints the ratios to the numpy expression; the target is within 5x.
"""

from __future__ import annotations

import argparse
import statistics
import time

import duckdb
import numpy as np
import polars as pl
from bench_bounds import REPEATS  # the same number of runs as the other benchmarks

import causalcost as cc
from causalcost.data.critical_scores import critical_scores

TARGET_RATIO = 5.0
MODELS = ["a", "b", "c", "d"]
WEIGHTS = [1.0, 2.0, 0.5, 1.5]
THRESHOLD = 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 rows, a smoke run")
    parser.add_argument("--rows", type=float, default=None, help="rows of the log (1e7)")
    parser.add_argument("--slot", choices=MODELS, default="d",
                        help="the slot's column (default the last, d: the rule's decision "
                             "at the observed scores then needs no sum of its own)")
    args = parser.parse_args()
    n = int(args.rows or (1e5 if args.quick else 1e7))
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.4
    cols = {m: np.clip(rng.normal(0.5, 0.25, n) + 0.2 * y, 0, 1) for m in MODELS}
    start = time.perf_counter()
    polars_log = pl.DataFrame({"y": y, **cols})
    arrow_log = polars_log.to_arrow()
    duck_log = duckdb.from_arrow(arrow_log)
    s = np.column_stack([cols[m] for m in MODELS])
    print(f"{n:,} rows x {len(MODELS)} score columns, weighted mean >= {THRESHOLD}; tables "
          f"built in {time.perf_counter() - start:.1f} s; medians of {REPEATS} runs")

    level = THRESHOLD * sum(WEIGHTS)
    pos = MODELS.index(args.slot)
    others = [(cols[m], w) for m, w in zip(MODELS, WEIGHTS) if m != args.slot]

    def numpy_expression() -> np.ndarray:  # e.g. (level - (a*w0 + b*w1 + c*w2)) / w3
        (x0, w0), (x1, w1), (x2, w2) = others
        return (level - (x0 * w0 + x1 * w1 + x2 * w2)) / WEIGHTS[pos]

    def runs(frame: object) -> cc.ScoreRuns:
        return cc.forced_runs(frame, truth="y", models=MODELS, slot=args.slot, fusioner="mean",
                              weights=WEIGHTS, threshold=THRESHOLD)

    cases = {
        "numpy critical_scores": lambda: critical_scores(s, slot=pos, weights=WEIGHTS,
                                                         threshold=THRESHOLD),
        "forced_runs, polars LazyFrame": lambda: runs(polars_log.lazy()),
        "forced_runs, DuckDB relation": lambda: runs(duck_log),
    }
    want = numpy_expression()
    observed = None
    for name, fn in cases.items():  # warm up, and check every route
        got = fn()
        t = got if isinstance(got, np.ndarray) else got.critical
        np.testing.assert_allclose(t, want, rtol=1e-9, atol=1e-12)
        if not isinstance(got, np.ndarray):
            assert observed is None or got.observed == observed, name
            observed = got.observed
    print(f"every route agrees with the numpy expression (rel 1e-9); observed {observed}")
    timed = {"numpy expression": numpy_expression, **cases}
    times: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(REPEATS):  # rounds interleaved: a slow spell of the machine hits all alike
        for name, fn in timed.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["numpy expression"])
    print(f"numpy expression: {base * 1e3:.0f} ms")
    for name in cases:
        took = statistics.median(times[name])
        ratio = took / base
        verdict = "within" if ratio <= TARGET_RATIO else "NOT within"
        print(f"{name}: {took * 1e3:.0f} ms, {ratio:.1f}x the numpy expression; {verdict} "
              f"{TARGET_RATIO:g}x")


if __name__ == "__main__":
    main()
