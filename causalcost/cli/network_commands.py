"""Subcommands on a network: ``query``, ``draw``, ``export``, ``networks``."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import Any

from causalcost.cli.common import (
    examples,
    load_system,
    model_names,
    network_arguments,
    print_json,
    sampling_arguments,
    vote_arguments,
    vote_options,
)
from causalcost.cli.parsing import output_file
from causalcost.errors import CausalCostError, ValidationError
from causalcost.files import write_atomic_with

__all__ = ["register"]


def _table(system: Any, args: argparse.Namespace) -> Any:
    from causalcost.inference.query import interventional_table

    return interventional_table(system, method=args.method, samples=args.samples, seed=args.seed,
                                confidence=args.confidence, interval=args.interval)


def _cmd_query(args: argparse.Namespace) -> int:
    from causalcost.inference.intervene import check_monotonicity

    system = load_system(args)
    table = _table(system, args)
    if args.json:
        data = table.to_dict()
        if not table.is_binary:  # the rule by name (a table read from BIF without one)
            data["fusioner"] = system.fusioner.description
        print_json(data)
        return 0
    print(f"system {system.name!r}: slot {table.slot!r}, method {table.method}")
    if not table.is_binary:
        print(f"fusioner: {system.fusioner.description}")
        _print_labelled(table)
        return 0
    print(table)
    print()
    print("interventional error rates (system failure rate, by true class and forced slot value)")
    print(table.error_rates.to_frame().to_string(float_format=lambda v: f"{v:.6g}"))
    if table.has_intervals:
        assert table.lower is not None and table.upper is not None and table.counts is not None
        print(f"\n{table.confidence:.0%} {table.interval_method} intervals "
              "(--json gives every cell's interval and standard error):")
        for label, c, x, k in (("e_P(P)", 0, 0, 1), ("e_P(N)", 0, 1, 1),
                               ("e_N(P)", 1, 0, 2), ("e_N(N)", 1, 1, 2)):
            print(f"  {label} = {table.probabilities[c, x, k]:.4f}  "
                  f"[{table.lower[c, x, k]:.4f}, {table.upper[c, x, k]:.4f}]  "
                  f"n = {int(table.counts[c, x, k])}")
    try:
        check = check_monotonicity(system)
        verdict = "monotone" if check.is_monotone else f"NOT monotone (e.g. at {check.violation})"
        print(f"\nsystem is {verdict} in slot {table.slot!r}")
    except CausalCostError as exc:
        print(f"\nmonotonicity not decided: {exc}")
    return 0


def _print_labelled(table: Any) -> None:
    """The K x K x K table: one K x K block per true class (rows: the forced slot label,
    columns: the system's output), with intervals when sampled."""
    labels = list(table.labels)
    print(f"labels: {', '.join(labels)}")
    print(table)
    print("(one block per true class; rows: the forced slot label; columns: the output)")
    if table.has_intervals:
        print(f"\n{table.confidence:.0%} {table.interval_method} intervals per cell, "
              f"{table.samples} instances per class (--json gives ci_low and ci_high)")
    if table.monotonicity is not None and getattr(table.monotonicity, "method", None) == \
            "bin grid":  # a score slot: the rule on the grid of score bins decides it
        check = table.monotonicity
        verdict = "monotone" if check.is_monotone else f"NOT monotone (e.g. at {check.violation})"
        print(f"\nsystem is {verdict} in slot {table.slot!r} (checked on the score bins)")
        return
    print("\nmonotonicity of a K-label system depends on the costs: check it with "
          "cc.check_monotonicity(system, costs)")


_DATA_FLAGS = (("--truth", "truth"), ("--models", "models"), ("--fusioner", "fusioner"),
               ("--k", "k"), ("--tie", "tie"), ("--weights", "weights"),
               ("--threshold", "threshold"), ("--positive-label", "positive_label"))


def _data_system(args: argparse.Namespace) -> Any:
    """The system behind ``--data``: its forced runs counted, drawn as a sketch."""
    from causalcost.data.forced_runs import forced_runs
    from causalcost.data.readers import read_table
    from causalcost.network.sketch import data_sketch

    bif = [flag for flag, value in (("--class-node", args.class_node),
                                    ("--system-node", args.system_node),
                                    ("--positive", args.positive)) if value is not None]
    if bif:
        raise ValidationError(f"{', '.join(bif)} apply to BIF networks, not to --data; drop "
                              f"{'it' if len(bif) == 1 else 'them'} (use --positive-label for "
                              "the data's positive label)")
    missing = [flag for flag, value in (("--truth", args.truth), ("--models", args.models),
                                        ("--slot", args.slot), ("--fusioner", args.fusioner))
               if not value]
    if missing:
        raise ValidationError(f"draw --data needs {', '.join(missing)} (as causalcost runs)")
    runs = forced_runs(read_table(args.data, engine=args.engine), truth=args.truth,
                       models=model_names(args.models), slot=args.slot, fusioner=args.fusioner,
                       positive=args.positive_label, **vote_options(args))
    return data_sketch(runs.models, runs.fusioner, slot=runs.slot,
                       provenance={**runs.provenance, "file": args.data})


def _cmd_draw(args: argparse.Namespace) -> int:
    from causalcost.plotting.drawing import FORMATS, draw_intervention, draw_system, save_figure

    if (args.network is None) == (args.data is None):
        raise ValidationError("draw takes exactly one of NETWORK or --data FILE; got "
                              f"{'both' if args.network else 'neither'}")
    suffix = Path(args.output).suffix.lower()
    if suffix not in FORMATS:  # before any data is read
        raise ValidationError(f"--output must end in {' or '.join(FORMATS)}, got "
                              f"{args.output!r}")
    if args.data is None:
        given = [flag for flag, key in _DATA_FLAGS if getattr(args, key) is not None]
        if given:
            raise ValidationError(f"{', '.join(given)} go with --data FILE, not with a "
                                  "network; drop them or draw the data's system with --data")
        system = load_system(args)
    else:
        system = _data_system(args)
    if args.do is None:
        fig = draw_system(system, slot=args.slot)
    else:
        fig = draw_intervention(system, slot=args.slot, value=args.do)
    save_figure(fig, args.output)
    print(f"wrote {args.output}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    if Path(args.output).suffix.lower() != ".bif":
        raise ValidationError(f"--output must end in .bif, got {args.output!r}")
    system = load_system(args)
    # pgmpy's writer takes a path: it writes a temporary file beside the target, which
    # is synced and renamed over it (a failed export leaves an old file intact)
    write_atomic_with(args.output, lambda temporary: system.to_bif(str(temporary)))
    print(f"wrote {args.output}; read it back with:")
    labelled = system.declaration is not None and system.k > 2
    print(f"  causalcost query {args.output} --class-node {system.class_node} "
          f"--system-node {system.system_node} \\")  # a shell line continued
    positive = "" if labelled else f"--positive {system.positive} "
    print(f"    {positive}--slot {system.slot or '<model>'}")
    return 0


def _cmd_networks(args: argparse.Namespace) -> int:
    from causalcost.network.netfile import list_networks, shipped_summary

    for name in list_networks():  # read, not declared: no pgmpy, no scipy
        spec = shipped_summary(name)
        print(f"{name:20s} slot={spec['slot']!s:18s} {spec['fusioner']:9s} "
              f"models={', '.join(spec['models'])}")
        if spec["description"]:  # wrapped under the name, lines under 100 characters
            for line in textwrap.wrap(" ".join(str(spec["description"]).split()), width=77):
                print(f"{'':20s} {line}")
    return 0


def register(sub: Any) -> None:
    """Add the network subcommands to the ``causalcost`` parser."""
    p = sub.add_parser("query", help="P(Conf | Class, do(slot = x)) and the four error rates",
                       description="Print the interventional table P(Conf^S | Class, do(slot = x)) "
                                   "and the slot's four interventional error rates.")
    network_arguments(p)
    sampling_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.epilog = examples("causalcost query thesis_and --json")
    p.set_defaults(func=_cmd_query)

    p = sub.add_parser("draw", help="draw the DAG (and the mutilated graph) to PNG or SVG",
                       description="Draw the system's DAG in layers, the fusioner labelled "
                                   "with its rule; with --do, the mutilated graph for "
                                   "do(slot = x) beside it. Give a network (NETWORK), or "
                                   "logged predictions (--data FILE with --truth, --models, "
                                   "--slot, --fusioner, as causalcost runs) to draw the "
                                   "system behind them.")
    network_arguments(p, optional=True)
    data = p.add_argument_group("logged predictions (--data)")
    data.add_argument("--data", metavar="FILE", help="a .csv or .parquet file, read lazily")
    vote_arguments(data, required=False)
    p.add_argument("--do", default=None, metavar="STATE",
                   help="also draw the graph mutilated by do(slot = STATE): P or N, or a "
                        "label of a K-label system")
    p.add_argument("-o", "--output", required=True, metavar="FILE", type=output_file,
                   help="a .png or .svg path")
    p.epilog = examples("causalcost draw thesis_and --do P -o dag.svg")
    p.set_defaults(func=_cmd_draw)

    p = sub.add_parser("export", help="write a network as BIF (for pgmpy, pyAgrum, ...)",
                       description="Write the network as a BIF file that pgmpy reads back "
                                   "exactly (pyAgrum reads BIF probabilities at float32 "
                                   "precision). The command prints how to query it back.")
    network_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE.bif", type=output_file,
                   help="the .bif path to write (written atomically)")
    p.epilog = examples("causalcost export thesis_and -o thesis_and.bif")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("networks", help="list the shipped networks",
                       description="List the shipped networks with their slot, fusioner, "
                                   "models and description (read without building them). Give "
                                   "a name to any command that takes NETWORK.")
    p.epilog = examples("causalcost networks")
    p.set_defaults(func=_cmd_networks)
