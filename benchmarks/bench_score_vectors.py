"""Time the K-label score slot's pricing core against the brute force in the same run.

Run with ``python benchmarks/bench_score_vectors.py`` (``--quick`` for small sizes in a few
seconds). K = 3 labels; each instance's offset vector is the other members' part of a soft
vote (``0.5 * (p_a + p_b)`` of two Dirichlet members, so A = 0.5 I), and each candidate gives
a Dirichlet vector per instance.

* **Expected outcomes**: ``outcome_counts`` for 10^3 candidates x 10^3 vectors against 10^3
  instances (10^9 pairs), soft voting (A = 0.5 I) and a stacking-like general A; the
  baseline is the brute force (``decide`` then a count, numpy, per candidate), timed on a
  sample of candidates and scaled to all of them; the counts of the sample are checked equal.
* **Same-instance bounds**: ``same_instance_bounds`` on 10^3 rows of one class, a cost row of
  three values (the assignment) and of two values (the assignment and the matching); the
  baseline is building the n x n cost matrix alone (``decide``).
* **Probability form**: ``probability_bounds`` exact (the LP) on a moderate size and the
  gridded outward bounds on 10^3 x 10^3.

Prints medians of several runs (``REPEATS``, fewer for the slow baselines).
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_bounds import median_time

from causalcost.pricing.score_vectors import (
    decide,
    outcome_counts,
    probability_bounds,
    same_instance_bounds,
)

TARGET_S = 1.0
K = 3


def offsets_of(rng: np.random.Generator, n: int) -> np.ndarray:
    return 0.5 * (rng.dirichlet(np.ones(K), n) + rng.dirichlet(np.ones(K), n))


def brute_counts(A, offsets: np.ndarray, stack: np.ndarray) -> np.ndarray:
    return np.array([np.bincount(decide(A, offsets, v).ravel(), minlength=K) for v in stack])


def bench_expected(rng: np.random.Generator, m: int, n: int, sample: int) -> None:
    offsets = offsets_of(rng, n)
    stack = rng.dirichlet(np.ones(K), (m, n))
    stacking = np.array([[1.2, -0.3, 0.1], [-0.2, 0.9, 0.3], [0.1, 0.2, 1.1]])
    print(f"expected outcomes: {m:,} candidates x {n:,} vectors x {n:,} instances, K = {K} "
          f"({m * n * n:.0e} pairs)")
    for name, A in (("soft voting, A = 0.5 I", 0.5), ("stacking, general A", stacking)):
        counts = outcome_counts(A, offsets, stack)  # warm
        np.testing.assert_array_equal(counts[:sample], brute_counts(A, offsets, stack[:sample]))
        fast = median_time(lambda A=A: outcome_counts(A, offsets, stack), 5)
        brute = median_time(lambda A=A: brute_counts(A, offsets, stack[:sample]), 3) * m / sample
        verdict = "under" if fast < TARGET_S else "NOT under"
        print(f"  {name}: {fast * 1e3:.0f} ms ({fast / m * 1e6:.0f} us per candidate); brute "
              f"force {brute:.1f} s (from {sample} candidates); {brute / fast:.0f}x faster; "
              f"{verdict} {TARGET_S:g} s")


def bench_same_instances(rng: np.random.Generator, n: int) -> None:
    offsets, vectors = offsets_of(rng, n), rng.dirichlet(np.ones(K), n)
    matrix = median_time(lambda: decide(0.5, offsets, vectors), 5)
    print(f"same-instance bounds, {n:,} rows of one class; the n x n decisions alone "
          f"{matrix * 1e3:.0f} ms")
    for row, method in (([0, 5, 2], "assignment"), ([0, 5, 5], "assignment"),
                        ([0, 5, 5], "matching")):
        took = median_time(lambda r=row, m=method: same_instance_bounds(0.5, offsets, vectors,
                                                                        r, method=m), 5)
        b = same_instance_bounds(0.5, offsets, vectors, row, method=method)
        print(f"  costs {row}, {method}: {took * 1e3:.0f} ms ({took / matrix:.1f}x the "
              f"decisions); worst {b.worst_cost:g}, best {b.best_cost:g}")


def bench_probability(rng: np.random.Generator, n_lp: int, n_grid: int) -> None:
    offsets, vectors = offsets_of(rng, n_lp), rng.dirichlet(np.ones(K), n_lp + n_lp // 2)
    took = median_time(lambda: probability_bounds(0.5, offsets, vectors, [0, 5, 2],
                                                  method="lp"), 3)
    b = probability_bounds(0.5, offsets, vectors, [0, 5, 2], method="lp")
    print(f"probability form, exact LP, {len(vectors):,} vectors x {n_lp:,} instances: "
          f"{took * 1e3:.0f} ms; worst {b.worst:.4f}, best {b.best:.4f}")
    offsets, vectors = offsets_of(rng, n_grid), rng.dirichlet(np.ones(K), n_grid)
    took = median_time(lambda: probability_bounds(0.5, offsets, vectors, [0, 5, 2],
                                                  method="grid"), 3)
    grid = probability_bounds(0.5, offsets, vectors, [0, 5, 2], method="grid")
    exact = median_time(lambda: probability_bounds(0.5, offsets, vectors, [0, 5, 2],
                                                   method="assignment"), 3)
    e = probability_bounds(0.5, offsets, vectors, [0, 5, 2], method="assignment")
    print(f"probability form, {n_grid:,} x {n_grid:,}: grid (100 cells) {took * 1e3:.0f} ms, "
          f"worst {grid.worst:.4f} >= {e.worst:.4f}, best {grid.best:.4f} <= {e.best:.4f} "
          f"(exact by the assignment, {exact * 1e3:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    if args.quick:
        bench_expected(rng, 100, 200, 10)
        bench_same_instances(rng, 200)
        bench_probability(rng, 60, 200)
    else:
        bench_expected(rng, 1_000, 1_000, 20)
        bench_same_instances(rng, 1_000)
        bench_probability(rng, 200, 1_000)


if __name__ == "__main__":
    main()
