"""Benchmark: one explorer update against the pgmpy route to the same table, per shipped network.

Run from the repository root (the package must be importable)::

    python benchmarks/bench_explorer.py            # 15 rounds per network
    python benchmarks/bench_explorer.py --quick    # 5 rounds (CI's smoke run)

What is timed, in one process, medians over rounds (rounds of the two routes interleaved):

explorer update
    ``cc.explorer_view(system, settings, previous=view)`` after a slider move that changes
    the system (the class prior, or for a system that cannot be re-declared the costs): the
    declared system rebuilt, its exact interventional table, the monotonicity check, both
    model cost matrices, the bound, the high-confidence worst case, the SVG of the mutilated
    graph, and the panel's HTML.
pgmpy route
    What the same update needs in pgmpy alone: the rebuilt network's ``do([slot])``, a
    ``VariableElimination`` and the four queries ``P(Confusion | slot = x, Class = c)``
    (no bound, no picture).

Target: every explorer update under 100 ms (the issue's budget for a slider move). The pgmpy
answers are checked against the explorer's table (absolute tolerance 1e-9).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import numpy as np

import causalcost as cc

TARGET_MS = 100.0


def pgmpy_table(system: cc.System) -> np.ndarray:
    from pgmpy.inference import VariableElimination

    slot, net = system.slot, system.network
    infer = VariableElimination(net.do([slot]))
    out = np.zeros((2, 2, 4))
    positive, negative = system.positive, system.negative()
    for i, c in enumerate((positive, negative)):
        for j, x in enumerate((positive, negative)):
            q = infer.query([system.confusion_node], evidence={slot: x, system.class_node: c},
                            show_progress=False)
            states = q.state_names[system.confusion_node]
            out[i, j] = [q.values[states.index(o)] for o in cc.OUTCOMES]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="5 rounds")
    args = parser.parse_args(argv)
    rounds = 5 if args.quick else args.rounds
    warnings.simplefilter("ignore")
    print(f"{'network':<20} {'explorer ms':>12} {'pgmpy ms':>10} {'ratio':>7}  within 100 ms")
    worst = 0.0
    for name in cc.list_networks("votes"):  # the explorer moves votes
        system = cc.load_network(name)
        settings = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1))
        settings = settings.replace(high_confidence=True)
        view = cc.explorer_view(system, settings)
        ours, theirs = [], []
        for r in range(rounds):
            moved = (settings.replace(class_prior=0.2 + 0.5 * r / rounds) if settings.adjustable
                     else settings.replace(costs=cc.CostMatrix(fn=1 + r, fp=1)))
            start = time.perf_counter()
            view = cc.explorer_view(system, moved, previous=view)
            view._repr_html_()
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            table = pgmpy_table(view.system)
            theirs.append(time.perf_counter() - start)
            assert np.allclose(table, view.table.probabilities, atol=1e-9), name
        a, b = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
        worst = max(worst, a)
        within = "yes" if a < TARGET_MS else "NO"
        print(f"{name:<20} {a:>12.1f} {b:>10.1f} {b / a:>6.1f}x  {within}")
    print(f"slowest explorer update: {worst:.1f} ms (target {TARGET_MS:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
