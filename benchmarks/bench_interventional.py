"""Benchmark: causalcost's interventional table against the pgmpy route.

Run from the repository root (the package must be importable, e.g. installed editable)::

    python benchmarks/bench_interventional.py            # full run, k = 2, 5, 10, 15
    python benchmarks/bench_interventional.py --quick    # smoke run, k = 2, 5, 3 rounds
    python benchmarks/bench_interventional.py --json results.json
    python benchmarks/bench_interventional.py --rss 3e7 --k 2 10   # peak memory of sampling

Systems (see ``systems.py``): k models, each with parents (Class, Difficulty), a shared
3-state latent Difficulty (parent Class), a majority fusioner; the slot is the last model.

What is timed, in one process (``time.perf_counter``; warm-up first; every figure is the
median over rounds, with the inter-quartile range; fast calls are repeated inside a round so
that a round lasts at least ``--min-round`` seconds, and the per-call time is reported; the
rounds of the functions compared are interleaved, so a slow spell hits them all alike):

exact table
    pgmpy (a)   ``network.do([slot])`` + ``VariableElimination(...)`` + the four queries
                ``P(Confusion | slot = x, Class = c)``, c, x in {P, N}: the whole route.
    pgmpy (b)   only the four queries; mutilated model and VE object built once.
    ours first  ``cc.interventional_table(system, method="exact")`` after clearing the plan
                caches (``inference.exact._CACHE`` and the system's memo): planning included.
    ours steady the same call with the plan reused.
    Target: ours steady >= 20x faster than pgmpy (b) at every k.

sampling
    pgmpy       ``network.simulate(n, do={slot: "P"}, seed=..., show_progress=False)``: n
                samples under one intervention.
    ours        ``cc.interventional_table(system, method="sampling", samples=n, seed=...)``:
                n instances, each simulated under both interventions (2n intervened samples),
                plus the table and its Wilson intervals. Plan reused (steady state).
    Target: ours >= 50x pgmpy's samples per second, counting 2n intervened samples; the
    conservative figure counts n instances.

The pgmpy answers are checked against ours (absolute tolerance 1e-9) once per k.

``--cold`` (a separate run) times a *cold* query against pyAgrum, the fastest exact engine
of the peers, when it is installed (``pip install pyagrum``; skipped cleanly otherwise)::

    python benchmarks/bench_interventional.py --cold                 # k = 2 ... 200
    python benchmarks/bench_interventional.py --cold --k 10 40 --rounds 5

on the systems of ``bench_many_models.py`` (k models, shared latent Difficulty, fused by
majority and by AND; beyond 12 models the vote is divorced into count nodes):

    ours        ``SystemBuilder`` from the CPD numbers (drawn once, outside the timing) +
                ``cc.interventional_table(system)``,
                every plan cache cleared first (``inference.exact._CACHE``, the system's
                memo, the builder's count-chain cache): building, validating, planning and
                contracting, all included.
    pyAgrum     ``gum.BayesNet`` built from the same CPD arrays (the count nodes' tables
                handed over ready-made, which favours pyAgrum) with the slot's incoming arcs
                left out (the do-operator), then ``LazyPropagation`` and the four posteriors
                ``P(Confusion | slot = x, Class = c)``.
    Target: ours / pyAgrum <= 1 at every k (both rules). The answers are checked against each
    other (absolute tolerance 1e-9) once per system.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    import pgmpy
    from pgmpy.inference import VariableElimination

from systems import K_VALUES, build_system  # noqa: E402

import causalcost as cc  # noqa: E402
import causalcost.inference.exact  # noqa: E402
import causalcost.inference.forward  # noqa: E402
import causalcost.inference.sampling  # noqa: E402
import causalcost.network.divorce  # noqa: E402
from causalcost.inference.table import OUTCOMES  # noqa: E402

EXACT_TARGET = 20.0
SAMPLING_TARGET = 50.0
TOLERANCE = 1e-9
CLASSES = ("P", "N")


# -- timing --------------------------------------------------------------------------------
def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def _calibrate(fn: Callable[[], object], min_round: float, max_number: int) -> int:
    """Calls per round so that one round lasts at least ``min_round`` s (``timeit`` style)."""
    number = 1
    while number < max_number:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - t0 >= min_round:
            break
        number *= 2
    return number


def _summary(per_call: list[float], number: int) -> dict[str, Any]:
    q1, med, q3 = _quartiles(per_call)
    return {"median_s": med, "q1_s": q1, "q3_s": q3, "iqr_s": q3 - q1, "rounds": len(per_call),
            "calls_per_round": number, "all_s": per_call}


def measure_group(
    fns: dict[str, Callable[[], object]],
    *,
    rounds: int,
    warmup: int = 1,
    min_round: float = 0.1,
    max_number: int = 10_000,
) -> dict[str, dict[str, Any]]:
    """Per-call seconds of each function: median and IQR over ``rounds`` rounds.

    Every function gets ``warmup`` untimed calls, then a number of calls per round chosen
    so that its round lasts at least ``min_round`` s (slow calls run once per round). The
    functions' rounds are **interleaved** (round 1 of each, then round 2 of each, ...) so a
    slow spell of a noisy machine hits all of them alike and their ratio stays fair. The
    garbage collector is paused inside a round, as ``timeit`` does.
    """
    numbers = {}
    for name, fn in fns.items():
        for _ in range(warmup):
            fn()
        numbers[name] = _calibrate(fn, min_round, max_number)
    per_call: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            number = numbers[name]
            gc.collect()
            gc.disable()
            try:
                t0 = time.perf_counter()
                for _ in range(number):
                    fn()
                per_call[name].append((time.perf_counter() - t0) / number)
            finally:
                gc.enable()
    return {name: _summary(per_call[name], numbers[name]) for name in fns}


def clear_plan_caches(system: cc.System) -> None:
    """Forget every planned computation, so the next call plans from scratch.

    The module caches (``inference.exact._CACHE``, ``inference.forward._CACHE``, the sampler's,
    or ``inference.sampling._CACHE`` in versions before it) and, in versions that have it, the
    system's own memo (``System._plans``).
    """
    causalcost.inference.exact._CACHE.clear()
    for module in ("forward", "sampling"):
        cache = getattr(getattr(causalcost.inference, module, None), "_CACHE", None)
        if cache is not None:
            cache.clear()
    plans = getattr(system, "_plans", None)
    if plans is not None:
        plans.clear()


def source_digest() -> dict[str, str]:
    """sha256 (first 12 hex digits) of the modules timed, to tie numbers to a code version."""
    root = Path(causalcost.__file__).resolve().parent
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest()[:12]
            for name in ("inference/exact.py", "inference/sampling.py", "inference/forward.py",
                         "network/system.py", "inference/table.py", "inference/query.py")
            if (root / name).exists()}


# -- pgmpy route ---------------------------------------------------------------------------
def pgmpy_queries(ve: VariableElimination, system: cc.System) -> dict[tuple[str, str], Any]:
    """The four factors ``P(Confusion | slot = x, Class = c)`` from a VE on the mutilated net."""
    out = {}
    for c in CLASSES:
        for x in CLASSES:
            out[c, x] = ve.query([system.confusion_node],
                                 evidence={system.slot: x, system.class_node: c},
                                 show_progress=False)
    return out


def pgmpy_full(system: cc.System) -> dict[tuple[str, str], Any]:
    """Route (a): mutilate, build VE, run the four queries."""
    mutilated = system.network.do([system.slot])
    return pgmpy_queries(VariableElimination(mutilated), system)


def check_agreement(system: cc.System) -> float:
    """Largest absolute difference between pgmpy's four factors and our exact table."""
    ours = cc.interventional_table(system, method="exact").probabilities
    theirs = pgmpy_full(system)
    worst = 0.0
    for (c, x), factor in theirs.items():
        for o, outcome in enumerate(OUTCOMES):
            value = factor.get_value(**{system.confusion_node: outcome})
            worst = max(worst, abs(value - ours[CLASSES.index(c), CLASSES.index(x), o]))
    if worst > TOLERANCE:
        raise AssertionError(f"pgmpy and causalcost disagree by {worst:.3g} (> {TOLERANCE})")
    return worst


# -- one k ---------------------------------------------------------------------------------
def bench_k(k: int, args: argparse.Namespace) -> dict[str, Any]:
    system = build_system(k, seed=args.seed, divorce=args.divorce)
    slot = system.slot
    rounds = args.rounds
    res: dict[str, Any] = {"k": k, "slot": slot, "nodes": len(system.network),
                           "divorced": args.divorce}
    res["max_abs_diff"] = check_agreement(system)

    # exact: pgmpy (a), pgmpy (b), ours first call (planning), ours steady state
    ve = VariableElimination(system.network.do([slot]))

    def first() -> object:
        clear_plan_caches(system)
        return cc.interventional_table(system, method="exact")

    res.update(measure_group(
        {
            "pgmpy_a": lambda: pgmpy_full(system),
            "pgmpy_b": lambda: pgmpy_queries(ve, system),
            "ours_first": first,  # leaves the plan cached again for the next line
            "ours_steady": lambda: cc.interventional_table(system, method="exact"),
        },
        rounds=rounds, min_round=args.min_round,
    ))
    steady = res["ours_steady"]["median_s"]
    res["ratio_a"] = res["pgmpy_a"]["median_s"] / steady
    res["ratio_b"] = res["pgmpy_b"]["median_s"] / steady
    res["ratio_a_first"] = res["pgmpy_a"]["median_s"] / res["ours_first"]["median_s"]
    res["exact_target_met"] = res["ratio_b"] >= EXACT_TARGET

    # sampling
    n_pgmpy = args.pgmpy_samples.get(k, args.samples)
    n_ours = args.samples
    res["pgmpy_sim_samples"] = n_pgmpy
    res["ours_sim_instances"] = n_ours
    sim = measure_group(
        {
            "pgmpy_sim": lambda: system.network.simulate(
                n_samples=n_pgmpy, do={slot: "P"}, seed=args.seed, show_progress=False),
            "ours_sim": lambda: cc.interventional_table(
                system, method="sampling", samples=n_ours, seed=args.seed),
        },
        rounds=args.sim_rounds, min_round=args.min_round,
    )
    res.update(sim)
    pg_rate = n_pgmpy / res["pgmpy_sim"]["median_s"]
    instances_rate = n_ours / res["ours_sim"]["median_s"]
    res["pgmpy_samples_per_s"] = pg_rate
    res["ours_intervened_samples_per_s"] = 2 * instances_rate
    res["ours_instances_per_s"] = instances_rate
    res["sampling_ratio"] = 2 * instances_rate / pg_rate
    res["sampling_ratio_conservative"] = instances_rate / pg_rate
    res["sampling_target_met"] = res["sampling_ratio"] >= SAMPLING_TARGET
    res["sampling_target_met_conservative"] = res["sampling_ratio_conservative"] >= SAMPLING_TARGET
    return res


# -- memory --------------------------------------------------------------------------------
_RSS_CHILD = """
import resource, sys, time, tracemalloc
sys.path.insert(0, {here!r})
from systems import build_system
import causalcost as cc
system = build_system({k}, seed={seed})
cc.interventional_table(system, method="sampling", samples=1000, seed=0)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
t0 = time.perf_counter()
cc.interventional_table(system, method="sampling", samples={samples}, seed={seed})
seconds = time.perf_counter() - t0
traced = tracemalloc.get_traced_memory()[1]
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, traced, seconds)
"""


def peak_rss(k: int, samples: int, seed: int) -> dict[str, float]:
    """Peak memory (MiB) of one sampled table, measured in a fresh process.

    ``rss_peak_mib``: the process's peak resident set (``ru_maxrss``) after the call, which
    includes the imports (``rss_before_mib``); ``call_peak_mib``: the call's own peak
    allocation as ``tracemalloc`` sees it (numpy reports its buffers to it).
    """
    code = _RSS_CHILD.format(here=str(Path(__file__).resolve().parent), k=k, samples=samples,
                             seed=seed)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"the memory measurement at k={k} failed:\n{run.stderr}")
    before, after, traced, seconds = map(float, run.stdout.split())
    return {"k": k, "samples": samples, "rss_before_mib": before / 1024,
            "rss_peak_mib": after / 1024, "call_peak_mib": traced / 2**20, "seconds": seconds}


# -- output --------------------------------------------------------------------------------
# -- cold queries against pyAgrum ----------------------------------------------------------
COLD_K = (2, 5, 10, 20, 40, 100, 200)
COLD_RULES = ("majority", "and")


def clear_cold_caches(system: cc.System | None = None) -> None:
    """Every cache a query on a new system of a known structure could reuse."""
    causalcost.inference.exact._CACHE.clear()
    chain = getattr(causalcost.network.divorce, "_count_chain", None)
    if chain is not None:
        chain.cache_clear()
    if system is not None:
        clear_plan_caches(system)


def agrum_parts(system: cc.System) -> list[tuple[str, tuple[str, ...], tuple[str, ...],
                                                 np.ndarray]]:
    """``(node, states, parents, CPD in pyAgrum's order)`` of every node but the slot's CPD."""
    graph = getattr(system, "graph", None) or system.network  # versions before .graph
    parts = []
    for node in graph.nodes():
        table = graph.get_cpds(node)
        parents = tuple(table.variables[1:])
        # pyAgrum's array axes run from the last parent to the child: reverse ours
        values = np.ascontiguousarray(table.values.transpose(
            list(range(len(table.variables)))[::-1]))
        parts.append((node, tuple(table.state_names[node]), parents, values))
    return parts


def agrum_route(gum: Any, parts: list[Any], system: cc.System) -> np.ndarray:
    """``[c, x, outcome]`` from pyAgrum: build the mutilated network, LazyPropagation, 4 queries."""
    slot = system.slot
    bn = gum.BayesNet()
    for node, states, _, _ in parts:
        bn.add(gum.LabelizedVariable(node, node, list(states)))
    for node, _, parents, _ in parts:
        if node != slot:
            for parent in parents:
                bn.addArc(parent, node)
    for node, states, _, values in parts:
        if node == slot:  # do(slot): a root; its prior is irrelevant under evidence
            bn.cpt(node).fillWith([1.0 / len(states)] * len(states))
        else:
            bn.cpt(node).fillWith(values.ravel())
    ie = gum.LazyPropagation(bn)
    ie.addTarget(system.confusion_node)
    out = np.zeros((2, 2, 4))
    for c, cls in enumerate(CLASSES):
        for x, forced in enumerate(CLASSES):
            ie.setEvidence({system.class_node: cls, slot: forced})
            ie.makeInference()
            post = ie.posterior(system.confusion_node)
            out[c, x] = [post[{system.confusion_node: o}] for o in OUTCOMES]
    return out


def bench_cold(gum: Any, rule: str, k: int, args: argparse.Namespace) -> dict[str, Any]:
    from bench_many_models import declare_many, draw_many

    numbers = draw_many(k, args.seed)  # drawn once: both routes get ready-made CPD numbers
    system = declare_many(k, rule, numbers)
    parts = agrum_parts(system)
    ours = cc.interventional_table(system).probabilities
    diff = float(np.abs(agrum_route(gum, parts, system) - ours).max())
    if diff > TOLERANCE:
        raise AssertionError(f"{rule}-{k}: pyAgrum and causalcost disagree by {diff:.3g}")

    def cold() -> object:
        clear_cold_caches()
        return cc.interventional_table(declare_many(k, rule, numbers))

    res = {"rule": rule, "k": k, "max_abs_diff": diff, "nodes": len(system.network.nodes()),
           "method": causalcost.inference.exact.plan_exact(system, system.slot).method}
    res.update(measure_group({"ours_cold": cold,
                              "pyagrum": lambda: agrum_route(gum, parts, system)},
                             rounds=args.rounds, min_round=args.min_round))
    res["ratio"] = res["ours_cold"]["median_s"] / res["pyagrum"]["median_s"]
    return res


def run_cold(args: argparse.Namespace) -> list[dict[str, Any]]:
    try:
        import pyagrum as gum
    except ImportError:
        print("pyAgrum is not installed (pip install pyagrum): the cold-query comparison is "
              "skipped")
        return []
    ks = args.k or ((2, 10, 40) if args.quick else COLD_K)
    print(f"Cold query (build + first exact table) against pyAgrum {gum.__version__}: median "
          f"ms per call ± IQR ({args.rounds} rounds); target ours / pyAgrum <= 1")
    head = (f"{'rule':>8} | {'k':>3} | {'ours cold ms':>18} | {'pyAgrum ms':>18} | "
            f"{'ours/pyAgrum':>12} | {'method':>10} | max |diff|")
    print(head)
    print("-" * len(head))
    results = []
    for rule in COLD_RULES:
        for k in ks:
            r = bench_cold(gum, rule, k, args)
            results.append(r)
            print(f"{rule:>8} | {k:>3} | {_ms(r['ours_cold'])} | {_ms(r['pyagrum'])} | "
                  f"{r['ratio']:11.2f}x | {r['method']:>10} | {r['max_abs_diff']:.1e}",
                  flush=True)
    worst = max(results, key=lambda r: r["ratio"])
    print(f"target (ours <= pyAgrum) met at every k: {_yes(worst['ratio'] <= 1)}; worst ratio "
          f"{worst['ratio']:.2f} ({worst['rule']}, k={worst['k']})")
    return results


def _ms(m: dict[str, Any]) -> str:
    return f"{m['median_s'] * 1e3:9.3f} ±{m['iqr_s'] * 1e3:7.3f}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def print_tables(results: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    print()
    print(f"Exact interventional table: median ms per call ± IQR ({meta['rounds']} rounds); "
          f"target: ours steady >= {EXACT_TARGET:g}x faster than pgmpy (b)")
    head = (f"{'k':>3} | {'pgmpy (a) ms':>18} | {'pgmpy (b) ms':>18} | {'ours first ms':>18} | "
            f"{'ours steady ms':>18} | {'vs (a)':>7} | {'vs (b)':>7} | target")
    print(head)
    print("-" * len(head))
    for r in results:
        print(f"{r['k']:>3} | {_ms(r['pgmpy_a'])} | {_ms(r['pgmpy_b'])} | {_ms(r['ours_first'])} | "
              f"{_ms(r['ours_steady'])} | {r['ratio_a']:6.1f}x | {r['ratio_b']:6.1f}x | "
              f"{_yes(r['exact_target_met'])}")
    print("(a) = network.do + VariableElimination + 4 queries; (b) = the 4 queries only. "
          "max |pgmpy - ours| per k: "
          + ", ".join(f"k={r['k']}: {r['max_abs_diff']:.1e}" for r in results))
    print()
    print(f"Sampling: ours {meta['samples']:.0e} instances x 2 interventions; pgmpy simulate "
          f"with do={{slot: P}}; target >= {SAMPLING_TARGET:g}x samples/s")
    head = (f"{'k':>3} | {'pgmpy n':>8} | {'pgmpy ms':>18} | {'pgmpy smp/s':>11} | "
            f"{'ours ms':>18} | {'ours smp/s':>11} | {'ratio':>7} | target | "
            f"{'per-inst':>8} | target")
    print(head)
    print("-" * len(head))
    for r in results:
        print(f"{r['k']:>3} | {r['pgmpy_sim_samples']:>8} | {_ms(r['pgmpy_sim'])} | "
              f"{r['pgmpy_samples_per_s']:11.3g} | {_ms(r['ours_sim'])} | "
              f"{r['ours_intervened_samples_per_s']:11.3g} | {r['sampling_ratio']:6.0f}x | "
              f"{_yes(r['sampling_target_met']):>6} | {r['sampling_ratio_conservative']:7.0f}x | "
              f"{_yes(r['sampling_target_met_conservative']):>6}")
    print("ours smp/s counts 2 intervened samples per instance; per-inst counts instances only.")


def _parse_pgmpy_samples(text: str) -> dict[int, int]:
    out = {}
    for part in filter(None, text.split(",")):
        k, n = part.split("=")
        out[int(k)] = int(float(n))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: k in {2, 5}, 3 rounds, shorter rounds")
    parser.add_argument("--k", type=int, nargs="+", default=None, help="system sizes")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds (default 9)")
    parser.add_argument("--sim-rounds", type=int, default=None,
                        help="rounds for the sampling comparison (default: --rounds)")
    parser.add_argument("--samples", type=lambda s: int(float(s)), default=10**5,
                        help="sampled instances (default 1e5)")
    parser.add_argument("--pgmpy-samples", type=_parse_pgmpy_samples, default={},
                        help="per-k override of pgmpy's sample count, e.g. '15=2e4'")
    parser.add_argument("--min-round", type=float, default=None,
                        help="minimum seconds per round for fast calls (default 0.1)")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--json", type=Path, default=None, help="write the numbers here")
    parser.add_argument("--divorce", action="store_true",
                        help="declare each majority through count nodes (parent divorcing) "
                             "instead of one fusioner table")
    parser.add_argument("--rss", type=lambda s: int(float(s)), default=None, metavar="N",
                        help="only measure the peak memory of one sampled table of N instances "
                             "at each --k (default k: 10), each in a fresh process")
    parser.add_argument("--cold", action="store_true",
                        help="only the cold query (build + first table) against pyAgrum, "
                             "k = 2 ... 200 by default (see the module docstring)")
    args = parser.parse_args(argv)
    if args.cold:
        args.rounds = args.rounds or (3 if args.quick else 7)
        args.min_round = args.min_round if args.min_round is not None else 0.05
        results = run_cold(args)
        if args.json is not None and results:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps({"cold": results}, indent=2, default=float) + "\n")
        return 0
    if args.rss is not None:
        for k in args.k or (10,):
            r = peak_rss(k, args.rss, args.seed)
            print(f"k={k:>2}, {args.rss:.0e} instances: process peak RSS "
                  f"{r['rss_peak_mib']:.0f} MiB (before the call {r['rss_before_mib']:.0f} MiB), "
                  f"the call's own peak {r['call_peak_mib']:.0f} MiB, {r['seconds']:.1f} s")
        return 0
    ks = args.k or ((2, 5) if args.quick else K_VALUES)
    args.rounds = args.rounds or (3 if args.quick else 9)
    args.sim_rounds = args.sim_rounds or args.rounds
    args.min_round = args.min_round if args.min_round is not None else (
        0.02 if args.quick else 0.1)
    if args.rounds < 7 and not args.quick:
        print(f"warning: {args.rounds} rounds (< 7): medians are noisy", file=sys.stderr)

    meta = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "pgmpy": pgmpy.__version__,
        "causalcost": cc.__version__,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "rounds": args.rounds,
        "sim_rounds": args.sim_rounds,
        "min_round_s": args.min_round,
        "samples": args.samples,
        "seed": args.seed,
        "quick": args.quick,
        "divorce": args.divorce,
        "sources": source_digest(),
    }
    print(f"causalcost {meta['causalcost']}, pgmpy {meta['pgmpy']}, numpy {meta['numpy']}, "
          f"Python {meta['python']}, {meta['cpus']} CPUs, rounds={args.rounds}")
    results = []
    for k in ks:
        t0 = time.perf_counter()
        results.append(bench_k(k, args))
        print(f"  k={k:>2} done in {time.perf_counter() - t0:5.1f} s", flush=True)
    print_tables(results, meta)
    ok_exact = all(r["exact_target_met"] for r in results)
    ok_sampling = all(r["sampling_target_met"] for r in results)
    print()
    print(f"exact target ({EXACT_TARGET:g}x vs pgmpy (b)) met at every k: {_yes(ok_exact)}; "
          f"sampling target ({SAMPLING_TARGET:g}x) met at every k: {_yes(ok_sampling)}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2,
                                        default=float) + "\n")
        print(f"numbers written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
