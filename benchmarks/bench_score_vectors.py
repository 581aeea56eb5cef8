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
* **The public paths**: ``ScoreRuns.price`` (same instances: expected, exact worst and best
  with their confusions) per candidate on a soft vote of three members with 10^3 rows per
  class (the issue's target: under 1 s per candidate), against the n x n decisions alone;
  and ``price_vectors_many`` for 10^3 candidates on 10^3 rows (K = 3, a third per class):
  the expected shares of every candidate, and the probability form (expected plus worst and
  best costs; two-valued cost rows by the closed-form cuts, a three-valued matrix by the LP
  per candidate, timed on a sample), against ``price_vectors`` one candidate at a time and
  the brute force of the expected counts (``decide``), on samples scaled to every candidate;
  the sampled prices are checked equal.

Prints medians of several runs (``REPEATS``, fewer for the slow baselines).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_bounds import median_time

from causalcost.data.score_vector_log import vector_runs
from causalcost.pricing.score_vector_many import price_vectors_many
from causalcost.pricing.score_vector_price import price_vectors
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


def soft_vote_runs(rng: np.random.Generator, per_class: int):
    """The runs of a soft vote of three Dirichlet members, ``per_class`` rows per class."""
    n = K * per_class
    vectors = [rng.dirichlet(np.ones(K), n) for _ in range(3)]
    classes = np.repeat(np.arange(K), per_class)
    return vector_runs(vectors, ["m0", "m1", "m2"], classes, ("a", "b", "c"), slot=1,
                       weights=None, index=None, rule="soft vote")


def bench_runs_price(rng: np.random.Generator, per_class: int) -> None:
    runs = soft_vote_runs(rng, per_class)
    cand = rng.dirichlet(np.ones(K), K * per_class)
    decisions = median_time(lambda: [decide(runs.slot_matrix, o, v) for o, v in
                                     zip(runs.offsets_by_class, runs.candidate_by_class(cand))],
                            5)
    print(f"runs.price per candidate (same instances, exact), {per_class:,} rows per class, "
          f"K = {K}; the n x n decisions alone {decisions * 1e3:.0f} ms")
    uneven = np.array([[0, 5, 2], [1, 0, 1], [4, 3, 0]])
    for name, costs in (("errors (0/1)", None), ("uneven costs", uneven)):
        took = median_time(lambda c=costs: runs.price(cand, c), 5)
        b = runs.price(cand, costs)
        verdict = "under" if took < TARGET_S else "NOT under"
        print(f"  {name}: {took * 1e3:.0f} ms per candidate ({took / decisions:.1f}x the "
              f"decisions); best {b.best_cost:g} <= expected {b.expected_cost:.1f} <= worst "
              f"{b.worst_cost:g}; {verdict} {TARGET_S:g} s")


def bench_many(rng: np.random.Generator, m: int, rows: int, sample: int) -> None:
    per_class = rows // K
    runs = soft_vote_runs(rng, per_class)
    offsets = runs.offsets_by_class
    stacks = [rng.dirichlet(np.ones(K), (m, per_class)) for _ in range(K)]  # other instances
    labels = runs.labels
    print(f"price_vectors_many: {m:,} candidates x {K * per_class:,} rows, K = {K} "
          f"({per_class:,} per class)")
    fast = median_time(lambda: [outcome_counts(runs.slot_matrix, o, v)
                                for o, v in zip(offsets, stacks)], 5)
    brute = median_time(lambda: [brute_counts(runs.slot_matrix, o, v[:sample])
                                 for o, v in zip(offsets, stacks)], 3) * m / sample
    verdict = "under" if fast < TARGET_S else "NOT under"
    print(f"  expected shares, every candidate: {fast * 1e3:.0f} ms; brute force {brute:.1f} s "
          f"(from {sample} candidates); {brute / fast:.0f}x faster; {verdict} {TARGET_S:g} s")
    uneven = np.array([[0, 5, 2], [1, 0, 1], [4, 3, 0]])
    for name, costs, count in (("errors (0/1), closed-form cuts", None, m),
                               ("uneven costs (three values: per candidate)", uneven, sample)):
        costs_ = np.ones((K, K)) - np.eye(K) if costs is None else costs
        part = [v[:count] for v in stacks]
        many = median_time(lambda c=costs_, p=part: price_vectors_many(
            runs.slot_matrix, offsets, p, c, labels=labels, same_instances=False),
            3 if count == m else 1) * m / count
        got = price_vectors_many(runs.slot_matrix, offsets, [v[:sample] for v in part], costs_,
                                 labels=labels, same_instances=False)
        one = median_time(lambda c=costs_: [price_vectors(
            runs.slot_matrix, offsets, [v[i] for v in stacks], c, labels=labels,
            same_instances=False) for i in range(sample)], 1) * m / sample
        for i, b in enumerate(got):
            want = price_vectors(runs.slot_matrix, offsets, [v[i] for v in stacks], costs_,
                                 labels=labels, same_instances=False)
            assert (b.expected_cost, b.worst_cost, b.best_cost) == \
                (want.expected_cost, want.worst_cost, want.best_cost), i
        start = time.process_time()
        price_vectors_many(runs.slot_matrix, offsets, part, costs_, labels=labels,
                           same_instances=False)
        cpu = (time.process_time() - start) * m / count
        verdict = "under" if many < TARGET_S else "NOT under"
        scaled = "" if count == m else f", scaled from {count} candidates"
        print(f"  probability form, {name}: {many:.2f} s, CPU {cpu:.2f} s ({many / m * 1e3:.1f}"
              f" ms per candidate{scaled}); price_vectors one by one {one:.1f} s (from "
              f"{sample}); "
              f"{one / many:.0f}x faster; {verdict} {TARGET_S:g} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    if args.quick:
        bench_expected(rng, 100, 200, 10)
        bench_same_instances(rng, 200)
        bench_probability(rng, 60, 200)
        bench_runs_price(rng, 100)
        bench_many(rng, 100, 150, 5)
    else:
        bench_expected(rng, 1_000, 1_000, 20)
        bench_same_instances(rng, 1_000)
        bench_probability(rng, 200, 1_000)
        bench_runs_price(rng, 1_000)
        bench_many(rng, 1_000, 1_000, 10)


if __name__ == "__main__":
    main()
