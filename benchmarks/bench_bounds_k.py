"""Bounds for K labels: K = 3 monotone bound_many on 10^4 candidates, binary bound_many on 10^6.

Run: ``PYTHONPATH=. python benchmarks/bench_bounds_k.py`` (``--binary-only`` for a tree
without K-label bound_many, to compare the binary time against the previous commit).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import causalcost as cc


def binary(n: int = 10**6) -> float:
    rng = np.random.default_rng(0)
    tp = rng.integers(0, 101, n)
    tn = rng.integers(0, 201, n)
    models = np.stack([tp, 100 - tp, 200 - tn, tn], axis=1)
    fp, fn = cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 10, 190)
    start = time.perf_counter()
    cc.bound_many(fp, fn, models, cc.CostMatrix(fn=5, fp=1))
    return time.perf_counter() - start


def k3(n: int = 10**4, size: int = 100) -> float:
    rng = np.random.default_rng(1)
    k = 3
    costs = np.array([[0, 1, 4], [2, 0, 1], [1, 3, 0]], float)
    forced = np.zeros((k, k, k), dtype=int)
    for c in range(k):
        order = np.argsort(costs[c], kind="stable")
        for _ in range(size):
            r0 = int(rng.integers(k))
            level = int(np.flatnonzero(order == r0)[0])
            r = [int(order[rng.integers(level, k)]) for _ in range(k)]
            r[c] = r0
            for j in range(k):
                forced[j, c, r[j]] += 1
    cands = np.array([[rng.multinomial(size, rng.dirichlet([3 if j == c else 1
                                                            for j in range(k)]))
                       for c in range(k)] for _ in range(n)])
    cc.bound_many(forced, cands[:5], costs, assumption="monotone", same_instances=True)  # imports
    start = time.perf_counter()
    cc.bound_many(forced, cands, costs, assumption="monotone", same_instances=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"binary bound_many 10^6: {binary():.3f} s")
    if "--binary-only" not in sys.argv:
        print(f"K=3 monotone bound_many 10^4: {k3():.2f} s")
