"""Time the vectorised worst/best case on a million candidates against the scalar call.

Run with ``python benchmarks/bench_bounds.py``. Candidates are random but consistent: every row
counts the same 10 000 positives and 20 000 negatives as the forced runs. Prints the median of
five runs; the target is well under one second for 10^6 candidates.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.inference.table import ErrorRates
from causalcost.pricing.bounds import bound, bound_many, bound_many_from_rates

N_CANDIDATES = 1_000_000
N_POS, N_NEG = 10_000, 20_000
REPEATS = 5
TARGET_S = 1.0


def median_time(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(0)
    forced_p = Confusion(tp=N_POS - 2_000, fn=2_000, fp=4_000, tn=N_NEG - 4_000)
    forced_n = Confusion(tp=N_POS - 9_000, fn=9_000, fp=500, tn=N_NEG - 500)
    costs = CostMatrix(tp=0, fn=5, fp=1, tn=0)
    tp = rng.integers(0, N_POS + 1, N_CANDIDATES)
    tn = rng.integers(0, N_NEG + 1, N_CANDIDATES)
    models = np.column_stack([tp, N_POS - tp, N_NEG - tn, tn]).astype(float)
    rates = ErrorRates.from_forced(forced_p, forced_n)

    for name, run in (
        ("bound_many (counts)", lambda: bound_many(forced_p, forced_n, models, costs)),
        ("bound_many_from_rates", lambda: bound_many_from_rates(rates, models, costs)),
        ("bound_many (counts, assumption='none')",
         lambda: bound_many(forced_p, forced_n, models, costs, assumption="none")),
    ):
        t = median_time(run)
        verdict = "under" if t < TARGET_S else "NOT under"
        print(f"{name}: {N_CANDIDATES:,} candidates in {t * 1e3:.1f} ms (median of {REPEATS}), "
              f"{t / N_CANDIDATES * 1e9:.0f} ns per candidate; {verdict} {TARGET_S:g} s")

    sample = [Confusion(*row) for row in models[:2_000]]

    def scalar() -> None:
        for m in sample:
            bound(forced_p, forced_n, m, costs)

    t = median_time(scalar)
    per_call = t / len(sample)
    print(f"bound (scalar): {per_call * 1e6:.1f} us per call (median of {REPEATS} x "
          f"{len(sample):,} calls); 10^6 calls would take ~{per_call * N_CANDIDATES:.0f} s")


if __name__ == "__main__":
    main()
