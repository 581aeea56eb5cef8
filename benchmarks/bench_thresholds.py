"""Time ``system_thresholds`` on 10^5 distinct scores against scikit-learn's ``roc_curve``.

Run with ``python benchmarks/bench_thresholds.py`` (``--quick`` for 10^4 scores). Both sweep
every distinct score of the same labelled sample; ours also prices every threshold for the
system (expected, worst and best cost). Prints medians of five runs and the ratio to the
baseline measured in the same run; the target is under one second for 10^5 thresholds.
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_bounds import REPEATS, median_time  # the same timer: median of REPEATS runs
from sklearn.metrics import roc_curve

import causalcost as cc

TARGET_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 scores instead of 10^5")
    args = parser.parse_args()
    n = 10_000 if args.quick else 100_000
    rng = np.random.default_rng(0)
    y = rng.random(n) < 1 / 3
    s = rng.normal(size=n) + y
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    sweep = cc.system_thresholds(sheet, y, s)  # warm: imports scikit-learn's metrics once
    assert len(sweep.frame) == np.unique(s).size + 1
    ours = median_time(lambda: cc.system_thresholds(sheet, y, s))
    base = median_time(lambda: roc_curve(y, s, drop_intermediate=False))
    verdict = "under" if ours < TARGET_S else "NOT under"
    print(f"system_thresholds, {n:,} distinct scores: {ours * 1e3:.1f} ms (median of "
          f"{REPEATS}); sklearn roc_curve {base * 1e3:.1f} ms; ratio {ours / base:.1f}x; "
          f"{verdict} {TARGET_S:g} s")


if __name__ == "__main__":
    main()
