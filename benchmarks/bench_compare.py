"""Benchmark: ``cc.compare`` of many candidates given as predictions, for K = 2, 3, 4 labels.

Run from the repository root::

    python benchmarks/bench_compare.py                     # 10^4 candidates, 1,000 rows
    python benchmarks/bench_compare.py --candidates 1000 --rounds 3 --json out.json

The sheet: a K-label plurality system of three models counted on a seeded log of 2,000 rows
(``cc.derive_sheet``, assumption ``"none"``). The candidates: ``--candidates`` seeded
random prediction columns (label names as text) on another 1,000 rows, each right with its own
accuracy. Measured: ``cc.compare(sheet, y_true=..., predictions={...})`` end to end (counting
every confusion, pricing, ranking), median of ``--rounds`` rounds after a warm-up, with
``time.perf_counter``. A check compares 20 candidates' rows with ``cc.evaluate`` one at a time
(rel 1e-9). Target: under 2 s for 10^4 candidates at every K.

``--monotone`` prices the same candidates on a sheet of a declared monotone table instead (the
worst and best cases are linear programs, one per class and distinct candidate row)::

    python benchmarks/bench_compare.py --k 3 --monotone --rounds 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import numpy as np
import pandas as pd

import causalcost as cc

TARGET_SECONDS = 2.0
LABELS = ("covid", "flu", "ok", "cold")


def setting(k: int, candidates: int, rows: int = 1000, seed: int = 20261127):
    """The sheet, the true classes and the candidates' predictions for K labels."""
    rng = np.random.default_rng([seed, k])
    labels = np.array(LABELS[:k], dtype=object)
    y = rng.integers(0, k, 2000)
    log = {"truth": labels[y]}
    for m in ("m1", "m2", "m3"):
        log[m] = labels[np.where(rng.random(2000) < 0.7, y, rng.integers(0, k, 2000))]
    runs = cc.forced_runs(pd.DataFrame(log), truth="truth", models=["m1", "m2", "m3"],
                          slot="m2", fusioner="plurality", labels=list(labels))
    costs = 1.0 + (np.arange(k * k).reshape(k, k) % 4)
    np.fill_diagonal(costs, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sheet = cc.derive_sheet(runs, costs, assumption="none", created="2026-01-01T00:00:00+00:00")
    truth = rng.integers(0, k, rows)
    right = rng.random((candidates, rows)) < rng.uniform(0.4, 0.95, (candidates, 1))
    votes = np.where(right, truth, rng.integers(0, k, (candidates, rows)))
    predictions = {f"c{i}": labels[votes[i]] for i in range(candidates)}
    return sheet, labels[truth], predictions


def monotone_sheet(k: int, labels) -> cc.CostSheet:
    """A sheet of a monotone table: right when the slot is right, else the slot's vote (0.5),
    the truth (0.3) or a third label (0.2); the bench's costs, the assumption declared."""
    t = np.zeros((k, k, k))
    for c in range(k):
        for j in range(k):
            if j == c:
                t[c, j, c] = 1.0
                continue
            third = next((s for s in range(k) if s not in (c, j)), c)
            t[c, j, j] += 0.5
            t[c, j, c] += 0.3
            t[c, j, third] += 0.2
    costs = 1.0 + (np.arange(k * k).reshape(k, k) % 4)
    np.fill_diagonal(costs, 0.0)
    return cc.derive_sheet(t, costs, slot="m", labels=list(labels), assumption="monotone",
                           monotonicity="declared", created="2026-01-01T00:00:00+00:00")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--monotone", action="store_true",
                        help="a declared monotone table's sheet (linear programs)")
    args = parser.parse_args()
    out = []
    for k in args.k:
        sheet, y, predictions = setting(k, args.candidates)
        if args.monotone:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sheet = monotone_sheet(k, sheet.label_names)
        few = dict(list(predictions.items())[:20])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = cc.compare(sheet, y_true=y, predictions=few)
            for name in few:
                r = cc.evaluate(sheet, (y, few[name]))
                for col in ("eval1", "worst_cost", "best_cost"):
                    assert np.isclose(table.loc[name, col], getattr(r, col), rtol=1e-9), col
            cc.compare(sheet, y_true=y, predictions=predictions)  # warm-up
            times = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                cc.compare(sheet, y_true=y, predictions=predictions)
                times.append(time.perf_counter() - start)
        median = statistics.median(times)
        out.append({"k": k, "candidates": args.candidates, "rows": len(y), "seconds": median,
                    "rounds": times, "target": TARGET_SECONDS, "met": median < TARGET_SECONDS})
        print(f"K = {k}: compare of {args.candidates} candidates on {len(y)} rows: "
              f"{median:.3f} s (median of {args.rounds}; target < {TARGET_SECONDS} s: "
              f"{'met' if median < TARGET_SECONDS else 'MISSED'})")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(out, handle, indent=2)


if __name__ == "__main__":
    main()
