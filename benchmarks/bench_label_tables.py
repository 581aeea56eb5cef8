"""Benchmark: the K-label interventional table (issue 19) against pgmpy, in one process.

Run from the repository root::

    python benchmarks/bench_label_tables.py             # 3 labels, 10 models; 30-model row
    python benchmarks/bench_label_tables.py --rounds 5 --json out.json

System: 3 labels, a 3-state latent ``Difficulty`` (child of the class), ``n`` models with
seeded random confusion rates per difficulty (every other model) or per class, plurality
vote (ties to the first label), slot the last model.

Measured (medians over interleaved rounds, ``time.perf_counter``, after a warm-up):

pgmpy VE     ``network.do([slot])`` + ``VariableElimination`` + the K x K queries
             ``P(System | Class = c, slot = j)`` on the same network (10 models: a 3^11 system
             table).
ours         ``cc.interventional_table(system)`` (vote splitting over count vectors).

Target: ours at least 20x faster than pgmpy VE at 10 models (the ratio of medians). The
30-model row is ours only (pgmpy's system table would have 3^31 entries); its answer is compared
with sampling (the largest deviation in standard errors over the 27 cells). pgmpy's answers
are checked against ours (absolute tolerance 1e-9).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.inference import VariableElimination

import causalcost as cc  # noqa: E402

TARGET_RATIO = 20.0
LABELS = ("a", "b", "c")


def build(n: int, seed: int = 20261124) -> cc.System:
    """The benchmark system with ``n`` models (see the module docstring)."""
    rng = np.random.default_rng([seed, n])
    k = len(LABELS)
    eye = np.eye(k)
    b = cc.SystemBuilder(list(rng.dirichlet(np.ones(k) * 3)), labels=list(LABELS))
    b.add_latent("Difficulty", ["easy", "medium", "hard"], rng.dirichlet(np.ones(3), size=k))
    for i in range(n):
        def rates() -> np.ndarray:
            return 0.6 * eye + 0.4 * rng.dirichlet(np.ones(k), size=k)
        if i % 2 == 0:
            b.add_model(f"m{i}", latent="Difficulty",
                        confusion={z: rates() for z in ("easy", "medium", "hard")})
        else:
            b.add_model(f"m{i}", confusion=rates())
    return b.set_fusioner("plurality").build(slot=f"m{n - 1}")


def pgmpy_table(system: cc.System, network: object) -> np.ndarray:
    """T[c, j, s] by pgmpy: do([slot]), VariableElimination, K x K queries."""
    mutilated = network.do([system.slot])  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ve = VariableElimination(mutilated)
        k = system.k
        out = np.zeros((k, k, k))
        for c, j in itertools.product(range(k), range(k)):
            q = ve.query(["System"], evidence={"Class": LABELS[c], system.slot: LABELS[j]},
                         show_progress=False)
            names = list(q.state_names["System"])
            out[c, j] = [q.values[names.index(s)] for s in LABELS]
    return out


def timed(fn, rounds: int) -> list[float]:  # noqa: ANN001
    """Seconds per call for each round (one call per round after a warm-up)."""
    fn()
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    results: dict[str, object] = {}
    system = build(10)
    network = system.network
    ours = cc.interventional_table(system).to_numpy()
    theirs = pgmpy_table(system, network)
    assert np.allclose(ours, theirs, atol=1e-9), "pgmpy and causalcost disagree"
    times: dict[str, list[float]] = {"pgmpy VE": [], "ours": []}
    fns = {"pgmpy VE": lambda: pgmpy_table(system, network),
           "ours": lambda: cc.interventional_table(system)}
    for fn in fns.values():
        fn()  # warm-up
    for _ in range(args.rounds):  # interleaved rounds
        for name, fn in fns.items():
            times[name] += timed(fn, 1)
    med = {name: statistics.median(v) for name, v in times.items()}
    ratio = med["pgmpy VE"] / med["ours"]
    print(f"3 labels, 10 models: pgmpy VE {med['pgmpy VE'] * 1e3:.1f} ms, ours "
          f"{med['ours'] * 1e3:.2f} ms (medians of {args.rounds}); {ratio:.0f}x "
          f"(target >= {TARGET_RATIO:.0f}x): {'PASS' if ratio >= TARGET_RATIO else 'FAIL'}")
    results["10 models"] = {"seconds": times, "median": med, "ratio": ratio}
    big = build(30)
    t30 = timed(lambda: cc.interventional_table(big), args.rounds)
    exact = cc.interventional_table(big).to_numpy()
    draws = 200_000
    sampled = cc.interventional_table(big, method="sampling", samples=draws, seed=1).to_numpy()
    se = np.sqrt(np.maximum(exact * (1 - exact), 1e-12) / draws)
    z = float(np.max(np.abs(sampled - exact) / se))
    print(f"3 labels, 30 models: ours {statistics.median(t30) * 1e3:.1f} ms (median of "
          f"{args.rounds}); sampling ({draws:,} per class and forced label) differs from it by "
          f"at most {z:.2f} standard errors over the 27 cells")
    results["30 models"] = {"seconds": t30, "median": statistics.median(t30),
                            "max standard errors vs sampling": z}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)
    return 0 if ratio >= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
