"""Benchmark: systems of 40, 100 and 200 models (issue 7, "Memory and time").

Run from the repository root (the package must be importable, e.g. installed editable)::

    python benchmarks/bench_many_models.py            # k = 40, 100, 200; AND and majority
    python benchmarks/bench_many_models.py --quick    # CI smoke run: k = 13, 20; 3 rounds
    python benchmarks/bench_many_models.py --json results.json

Systems: the shape of ``systems.py`` (k models with parents (Class, Difficulty), a shared
3-state latent Difficulty with parent Class, seeded random CPDs, the slot the last model),
fused by AND (the issue's case: 24 models took 21 s and 2.5 GB, 30 asked for 16 GiB) and by
majority (the widest count nodes). Beyond 12 models the builder divorces the vote into a
chain of deterministic count nodes (``causalcost.network.divorce``), so the network grows
polynomially in k and a single fusioner table of ``2**k`` columns is never built.

What is measured, in one process, per (rule, k):

build
    ``SystemBuilder(...).add_latent(...).add_model(...) x k .set_fusioner(rule).build()``:
    median over rounds (pgmpy already imported).
exact table (the four cells of ``P(Conf | Class, do(slot))``)
    pgmpy (a)   ``network.do([slot])`` + ``VariableElimination`` + the four queries
                ``P(Confusion | slot = x, Class = c)``, on the same divorced network.
    pgmpy (b)   only the four queries (mutilated model and VE object built once).
    ours first  ``cc.interventional_table(system)`` with the plan caches cleared.
    ours steady the same call with the plan reused.
    Timed rounds are interleaved (round 1 of each, round 2 of each, ...) and reported as
    median and inter-quartile range; fast calls repeat within a round (per-call time given).
    Target: ours steady < 100 ms at every k.
peak memory
    ``tracemalloc`` peak of one call of each route (separate, untimed calls: tracing slows
    them), which counts numpy's buffers too.

pgmpy's answers are checked against ours (absolute tolerance 1e-9) once per system.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    import pgmpy
    from pgmpy.inference import VariableElimination

import causalcost as cc  # noqa: E402
import causalcost.inference.exact  # noqa: E402

TARGET_S = 0.100
TOLERANCE = 1e-9
CLASSES = ("P", "N")
OUTCOMES = ("TP", "FN", "FP", "TN")
K_VALUES = (40, 100, 200)
QUICK_K = (13, 20)
RULES = ("and", "majority")
DIFFICULTY = ("easy", "medium", "hard")


# -- systems ---------------------------------------------------------------------------------
def draw_many(k: int, seed: int = 20261122) -> tuple[np.ndarray, list[list[float]]]:
    """The seeded CPD numbers of the k-model system: P(Difficulty | Class) and, per model, its
    positive probability per (Class, Difficulty) configuration."""
    rng = np.random.default_rng([seed, k])
    difficulty = rng.dirichlet(np.ones(3), size=2)
    rates = []
    for _ in range(k):
        on_positive = np.sort(rng.uniform(0.55, 0.98, size=3))[::-1]
        on_negative = np.sort(rng.uniform(0.02, 0.45, size=3))
        rates.append([*on_positive.tolist(), *on_negative.tolist()])
    return difficulty, rates


def declare_many(k: int, rule: str, numbers: tuple[np.ndarray, list[list[float]]]
                 ) -> cc.System:
    """The k-model system fused by ``rule`` from :func:`draw_many`'s numbers; slot = last."""
    difficulty, rates = numbers
    builder = cc.SystemBuilder(class_prior=0.3, name=f"{rule}-{k}")
    builder.add_latent("Difficulty", DIFFICULTY, difficulty, parents=["Class"])
    models = [f"model_{i + 1}" for i in range(k)]
    for name, rate in zip(models, rates):
        builder.add_model(name, parents=["Class", "Difficulty"], positive_probability=rate)
    return builder.set_fusioner(rule).build(slot=models[-1])


def build_many(k: int, rule: str, seed: int = 20261122) -> cc.System:
    """The benchmark system of ``systems.py`` with ``rule`` as the fusioner; slot = last model."""
    return declare_many(k, rule, draw_many(k, seed))


# -- timing (as bench_interventional.py) -----------------------------------------------------
def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def _calibrate(fn: Callable[[], object], min_round: float, max_number: int) -> int:
    number = 1
    while number < max_number:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - t0 >= min_round:
            break
        number *= 2
    return number


def measure_group(fns: dict[str, Callable[[], object]], *, rounds: int, min_round: float,
                  max_number: int = 1000) -> dict[str, dict[str, Any]]:
    """Per-call seconds of each function (median, IQR) over interleaved rounds, GC paused."""
    numbers = {}
    for name, fn in fns.items():
        fn()  # warm-up
        numbers[name] = _calibrate(fn, min_round, max_number)
    per_call: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            gc.collect()
            gc.disable()
            try:
                t0 = time.perf_counter()
                for _ in range(numbers[name]):
                    fn()
                per_call[name].append((time.perf_counter() - t0) / numbers[name])
            finally:
                gc.enable()
    out = {}
    for name, values in per_call.items():
        q1, med, q3 = _quartiles(values)
        out[name] = {"median_s": med, "q1_s": q1, "q3_s": q3, "iqr_s": q3 - q1,
                     "rounds": len(values), "calls_per_round": numbers[name], "all_s": values}
    return out


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak traced allocation of one call (Python objects and numpy buffers)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def clear_plan_caches(system: cc.System) -> None:
    causalcost.inference.exact._CACHE.clear()
    system._plans.clear()


# -- the routes ------------------------------------------------------------------------------
def pgmpy_queries(ve: VariableElimination, system: cc.System) -> np.ndarray:
    """``[c, x, outcome]`` from the four queries ``P(Confusion | slot = x, Class = c)``."""
    out = np.zeros((2, 2, 4))
    for c, cls in enumerate(CLASSES):
        for x, forced in enumerate(CLASSES):
            factor = ve.query([system.confusion_node],
                              evidence={system.slot: forced, system.class_node: cls},
                              show_progress=False)
            states = factor.state_names[system.confusion_node]
            out[c, x] = [factor.values[states.index(o)] for o in OUTCOMES]
    return out


def pgmpy_full(system: cc.System) -> np.ndarray:
    return pgmpy_queries(VariableElimination(system.network.do([system.slot])), system)


# -- one system ------------------------------------------------------------------------------
def bench(rule: str, k: int, args: argparse.Namespace) -> dict[str, Any]:
    system = build_many(k, rule, args.seed)
    res: dict[str, Any] = {
        "rule": rule, "k": k, "nodes": len(system.network), "counts": len(system.counts),
        "cpd_entries": int(sum(c.values.size for c in system.network.get_cpds())),
        "widest_count": max((len(system.states(c)) for c in system.counts), default=0),
        "method": causalcost.inference.exact.plan_exact(system, system.slot).method,
    }
    ours = cc.interventional_table(system).probabilities
    res["max_abs_diff"] = float(np.abs(pgmpy_full(system) - ours).max())
    if res["max_abs_diff"] > TOLERANCE:
        raise AssertionError(f"{rule}-{k}: pgmpy and causalcost disagree by "
                             f"{res['max_abs_diff']:.3g}")
    ve = VariableElimination(system.network.do([system.slot]))

    def first() -> object:
        clear_plan_caches(system)
        return cc.interventional_table(system)

    fns: dict[str, Callable[[], object]] = {
        "build": lambda: build_many(k, rule, args.seed),
        "ours_first": first,
        "ours_steady": lambda: cc.interventional_table(system),
        "pgmpy_b": lambda: pgmpy_queries(ve, system),
        "pgmpy_a": lambda: pgmpy_full(system),
    }
    res.update(measure_group(fns, rounds=args.rounds, min_round=args.min_round))
    steady = res["ours_steady"]["median_s"]
    res["ratio_a"] = res["pgmpy_a"]["median_s"] / steady
    res["ratio_b"] = res["pgmpy_b"]["median_s"] / steady
    res["target_met"] = steady < TARGET_S
    res["peak_bytes"] = {"build": peak_bytes(lambda: build_many(k, rule, args.seed)),
                         "ours_first": peak_bytes(first),
                         "ours_steady": peak_bytes(lambda: cc.interventional_table(system)),
                         "pgmpy_a": peak_bytes(lambda: pgmpy_full(system))}
    return res


# -- output ----------------------------------------------------------------------------------
def _ms(m: dict[str, Any]) -> str:
    return f"{m['median_s'] * 1e3:9.2f} ±{m['iqr_s'] * 1e3:6.2f}"


def _mb(n: int) -> str:
    return f"{n / 2**20:8.1f}"


def print_table(results: list[dict[str, Any]], rounds: int) -> None:
    print()
    print(f"Exact interventional table on divorced vote systems: median ms per call ± IQR "
          f"({rounds} rounds); target: ours steady < {TARGET_S * 1e3:g} ms")
    head = (f"{'rule':>8} {'k':>4} | {'nodes':>5} {'entries':>9} {'widest':>6} | "
            f"{'build ms':>17} | {'ours first ms':>17} | {'ours steady ms':>17} | "
            f"{'pgmpy (a) ms':>17} | {'pgmpy (b) ms':>17} | {'vs (a)':>7} {'vs (b)':>7} | "
            f"target")
    print(head)
    print("-" * len(head))
    for r in results:
        print(f"{r['rule']:>8} {r['k']:>4} | {r['nodes']:>5} {r['cpd_entries']:>9} "
              f"{r['widest_count']:>6} | {_ms(r['build'])} | {_ms(r['ours_first'])} | "
              f"{_ms(r['ours_steady'])} | {_ms(r['pgmpy_a'])} | {_ms(r['pgmpy_b'])} | "
              f"{r['ratio_a']:6.0f}x {r['ratio_b']:6.0f}x | "
              f"{'yes' if r['target_met'] else 'NO'}")
    print("(a) = network.do + VariableElimination + 4 queries; (b) = the 4 queries only; "
          "entries = numbers in all CPDs; widest = states of the widest count node")
    print()
    print("Peak traced memory (tracemalloc, MiB) of one call:")
    head = (f"{'rule':>8} {'k':>4} | {'build':>8} | {'ours first':>10} | {'ours steady':>11} | "
            f"{'pgmpy (a)':>9} | max |pgmpy - ours|")
    print(head)
    print("-" * len(head))
    for r in results:
        p = r["peak_bytes"]
        print(f"{r['rule']:>8} {r['k']:>4} | {_mb(p['build'])} | {_mb(p['ours_first']):>10} | "
              f"{_mb(p['ours_steady']):>11} | {_mb(p['pgmpy_a']):>9} | {r['max_abs_diff']:.1e}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"CI smoke run: k in {QUICK_K}, 3 short rounds")
    parser.add_argument("--k", type=int, nargs="+", default=None, help="system sizes")
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=RULES)
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds (default 7)")
    parser.add_argument("--min-round", type=float, default=None,
                        help="minimum seconds per round for fast calls (default 0.1)")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--json", type=Path, default=None, help="write the numbers here")
    args = parser.parse_args(argv)
    ks = args.k or (QUICK_K if args.quick else K_VALUES)
    args.rounds = args.rounds or (3 if args.quick else 7)
    args.min_round = args.min_round if args.min_round is not None else (
        0.02 if args.quick else 0.1)
    meta = {
        "date": datetime.date.today().isoformat(), "python": platform.python_version(),
        "platform": platform.platform(), "cpus": os.cpu_count(), "numpy": np.__version__,
        "pgmpy": pgmpy.__version__, "causalcost": cc.__version__, "rounds": args.rounds,
        "min_round_s": args.min_round, "seed": args.seed, "quick": args.quick,
    }
    print(f"causalcost {meta['causalcost']}, pgmpy {meta['pgmpy']}, numpy {meta['numpy']}, "
          f"Python {meta['python']}, {meta['cpus']} CPUs, rounds={args.rounds}")
    results = []
    for rule in args.rules:
        for k in ks:
            t0 = time.perf_counter()
            results.append(bench(rule, k, args))
            print(f"  {rule} k={k:>3} done in {time.perf_counter() - t0:6.1f} s", flush=True)
    print_table(results, args.rounds)
    ok = all(r["target_met"] for r in results)
    print(f"\ntarget (ours steady < {TARGET_S * 1e3:g} ms) met everywhere: {'yes' if ok else 'NO'}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2,
                                        default=float) + "\n")
        print(f"numbers written to {args.json}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
