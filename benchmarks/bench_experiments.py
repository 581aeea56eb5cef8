"""Time the seeds' two experiments at full size, against the per-instance engine.

Run with ``python benchmarks/bench_experiments.py`` (``--quick`` for a smoke run). Experiment 1
(coverage): the 7 x 7 grid of (n1, n2) from 10 to 10^4 with 1000 repetitions per cell, on the
slides' system (``experiment_or``). Experiment 2 (ratio): 10^5 repetitions of random two-model
systems with n1 = n2 = 2 * 10^4. Targets: under 5 s and under 2 s of wall time on a 2-core
machine. The per-instance engine (ancestral sampling of every instance from the network, the
validation path) is timed on a slice of the same work in the same run and scaled up linearly,
to give the ratio between the two engines. Medians of several runs: the machine is noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import causalcost as cc

TARGETS = {"coverage": 5.0, "ratio": 2.0}


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    grid = (10, 31, 100, 316, 1000, 3162, 10_000)
    reps1, reps2, n2 = (100, 10_000, 20_000) if args.quick else (1000, 100_000, 20_000)

    cov = median_time(lambda: cc.coverage_experiment(n1=grid, n2=grid, repetitions=reps1,
                                                     seed=0, progress=False), repeats)
    rat = median_time(lambda: cc.ratio_experiment(n=n2, repetitions=reps2, seed=0,
                                                  progress=False), repeats)
    # the per-instance engine on a slice: one grid cell at the largest sizes, few repetitions
    slice_reps = 3
    slow = median_time(lambda: cc.coverage_experiment(n1=[10_000], n2=[10_000],
                                                       repetitions=slice_reps, seed=0,
                                                       engine="instances", progress=False), 1)
    fast_cell = median_time(lambda: cc.coverage_experiment(n1=[10_000], n2=[10_000],
                                                           repetitions=slice_reps, seed=0,
                                                           progress=False), repeats)
    per_rep_slow = slow / slice_reps
    # the per-instance engine's cost grows with n1 + n2; scale by the grid's instance count
    grid_instances = sum(a + b for a in grid for b in grid) * reps1
    coverage_slow = per_rep_slow / 20_000 * grid_instances
    ratio_slow = per_rep_slow / 20_000 * (2 * n2) * reps2

    print(f"{'experiment':<10} {'size':<32} {'counts engine':>14} {'per-instance (est.)':>20} "
          f"{'ratio':>8}  target")
    for name, size, t, est in (
        ("coverage", f"7x7 grid x {reps1} repetitions", cov, coverage_slow),
        ("ratio", f"{reps2:,} x 2 x {n2:,} instances", rat, ratio_slow),
    ):
        verdict = "met" if t < TARGETS[name] else "NOT met"
        print(f"{name:<10} {size:<32} {t:>12.2f} s {est:>18.0f} s {est / t:>7.0f}x  "
              f"< {TARGETS[name]:g} s: {verdict}")
    print(f"per-instance engine, one repetition at n1 = n2 = 10^4: {per_rep_slow * 1e3:.0f} ms "
          f"(counts engine: {fast_cell / slice_reps * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
