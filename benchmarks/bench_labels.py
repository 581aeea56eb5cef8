"""Benchmark: the two speed targets of a system declared by its labels, in one process.

Run from the repository root::

    python benchmarks/bench_labels.py               # 5 rounds
    python benchmarks/bench_labels.py --rounds 3 --json out.json

pgmpy network of 14 models, 3 labels
    ``system.network`` on a fresh copy of the system (the pgmpy network with the 3^15-entry
    system table, filled from the fusion rule once per distinct vote count), against the
    baseline of filling the same table by calling the rule on each of the 3^14 vote
    configurations, the way the table was built before (timed once: about 20 s).
    Target: under 1 s.

sampling at 10 models
    ``cc.interventional_table(system, method="sampling", samples=n)`` on the 3-label system of
    ``bench_label_tables.py`` (n instances per class, each seen under the 3 forced labels),
    against the binary sampler on the 10-model network of ``systems.py`` (n instances, each
    seen under the 2 forced values), in the same run. Per sample = per simulated instance:
    3n for the 3-label sampler (n per class), n for the binary one (the class drawn from the
    prior). Target: the 3-label time per sample within 2x the binary one.

Every figure is the median over interleaved rounds (``time.perf_counter``, after a warm-up).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_label_tables import build  # noqa: E402
from systems import build_system  # noqa: E402

import causalcost as cc  # noqa: E402


def _median(fn, rounds: int) -> float:  # noqa: ANN001
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def rule_by_rule(system: cc.System) -> np.ndarray:
    """The baseline: the rule called on every vote configuration."""
    k, n = system.k, len(system.models)
    out = np.zeros((k,) * n + (k,))
    for votes in itertools.product(range(k), repeat=n):
        out[votes + (system.fusioner.output(votes),)] = 1.0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the 20 s rule-by-rule baseline")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)

    big = build(14)
    build_time = _median(lambda: replace(big, _pgmpy=[]).network, args.rounds)
    baseline = None if args.no_baseline else _median(lambda: rule_by_rule(big), 0 or 1)
    table = big.network.get_cpds("System").values
    if not args.no_baseline:
        expected = rule_by_rule(big).reshape(-1, 3).T.reshape(table.shape)
        assert np.array_equal(table, expected), "the tables differ"
    print(f"pgmpy network, 14 models, 3 labels: {build_time:.3f} s (target < 1 s: "
          f"{'yes' if build_time < 1 else 'NO'})"
          + ("" if baseline is None else f"; rule by rule: {baseline:.1f} s"))

    labelled, binary = build(10), build_system(10)
    n = args.samples
    times = {"labels": [], "binary": []}
    for fn in (lambda: cc.interventional_table(labelled, method="sampling", samples=n, seed=1),
               lambda: cc.interventional_table(binary, method="sampling", samples=n, seed=1)):
        fn()  # warm-up
    for _ in range(args.rounds):  # interleaved
        for key, system in (("labels", labelled), ("binary", binary)):
            t0 = time.perf_counter()
            cc.interventional_table(system, method="sampling", samples=n, seed=1)
            times[key].append(time.perf_counter() - t0)
    drawn = {"labels": n * labelled.k, "binary": n}
    per = {key: statistics.median(v) / drawn[key] for key, v in times.items()}
    ratio = per["labels"] / per["binary"]
    took = {key: statistics.median(v) * 1e3 for key, v in times.items()}
    print(f"sampling, 10 models, samples={n}: 3 labels {took['labels']:.1f} ms "
          f"({drawn['labels']} instances), binary "
          f"{took['binary']:.1f} ms ({n} instances); per instance "
          f"{per['labels'] * 1e9:.0f} ns "
          f"vs {per['binary'] * 1e9:.0f} ns: {ratio:.2f}x (target <= 2x: "
          f"{'yes' if ratio <= 2 else 'NO'})")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "pgmpy_build_14_models_s": build_time, "rule_by_rule_s": baseline,
            "sampling_labels_s_per_instance": per["labels"],
            "sampling_binary_s_per_instance": per["binary"], "ratio": ratio}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
