"""The ``causalcost`` command line.

Every subcommand has ``--help``. User errors print one line to stderr and exit with status 2;
anything else is a bug and shows a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from causalcost import __version__
from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import CausalCostError, ValidationError

__all__ = ["main"]

EXIT_USER_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USER_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# -- shared argument groups -----------------------------------------------------------------
def _network_arguments(p: argparse.ArgumentParser, *, slot_help: str = "") -> None:
    p.add_argument("network", metavar="NETWORK",
                   help="a network file (.toml or .bif) or a shipped network's name "
                        "(see 'causalcost networks')")
    p.add_argument("--slot", metavar="NAME",
                   help=slot_help or "the model under evaluation (default: the file's slot)")
    bif = p.add_argument_group("roles for BIF files")
    bif.add_argument("--class-node", metavar="NAME", help="the true-class node")
    bif.add_argument("--system-node", metavar="NAME", help="the system-prediction (fusioner) node")
    bif.add_argument("--positive", metavar="STATE", default="P",
                     help="positive state of class, models and system prediction (default: P)")


def _sampling_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", choices=("exact", "sampling"), default="exact",
                   help="exact contraction (default) or forward sampling with intervals")
    p.add_argument("--samples", type=int, default=100_000, metavar="N",
                   help="simulated instances for --method sampling (default: 100000)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="random seed for sampling")
    p.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                   help="confidence level of sampled intervals (default: 0.95)")
    p.add_argument("--interval", choices=("wilson", "clopper-pearson"), default="wilson",
                   help="binomial interval for sampled cells (default: wilson)")


def _load_system(args: argparse.Namespace) -> Any:
    from causalcost.network.netfile import load_bif, load_network, network_path

    path = network_path(args.network)
    if path.suffix.lower() == ".bif":
        missing = [flag for flag, value in (("--class-node", args.class_node),
                                            ("--system-node", args.system_node)) if not value]
        if missing:
            raise ValidationError(f"a BIF file needs {' and '.join(missing)} to name its roles")
        return load_bif(path, class_node=args.class_node, system_node=args.system_node,
                        positive=args.positive, slot=args.slot)
    return load_network(path, slot=args.slot)


def _table(system: Any, args: argparse.Namespace) -> Any:
    from causalcost.inference.query import interventional_table

    return interventional_table(system, method=args.method, samples=args.samples, seed=args.seed,
                                confidence=args.confidence, interval=args.interval)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


# -- subcommands ----------------------------------------------------------------------------
def _cmd_query(args: argparse.Namespace) -> int:
    from causalcost.inference.intervene import check_monotonicity

    system = _load_system(args)
    table = _table(system, args)
    if args.json:
        _print_json(table.to_dict())
        return 0
    print(f"system {system.name!r}: slot {table.slot!r}, method {table.method}")
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


def _cmd_draw(args: argparse.Namespace) -> int:
    from causalcost.plotting.drawing import draw_intervention, draw_system, save_figure

    system = _load_system(args)
    if args.do is None:
        fig = draw_system(system, slot=args.slot)
    else:
        fig = draw_intervention(system, slot=args.slot, value=args.do)
    save_figure(fig, args.output)
    print(f"wrote {args.output}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    system = _load_system(args)
    if Path(args.output).suffix.lower() != ".bif":
        raise ValidationError(f"--output must end in .bif, got {args.output!r}")
    system.to_bif(args.output)
    print(f"wrote {args.output}; read it back with: causalcost query {args.output} "
          f"--class-node {system.class_node} --system-node {system.system_node} "
          f"--positive {system.positive} --slot {system.slot or '<model>'}")
    return 0


def _cmd_networks(args: argparse.Namespace) -> int:
    from causalcost.network.netfile import list_networks, load_network

    for name in list_networks():
        s = load_network(name)
        print(f"{name:20s} slot={s.slot!s:18s} models={', '.join(s.models)}")
    return 0


def _cmd_derive(args: argparse.Namespace) -> int:
    from causalcost.network.netfile import network_path
    from causalcost.sheet.derivation import (
        network_provenance,
        sheet_from_forced_runs,
        sheet_from_network,
    )

    costs = CostMatrix.parse(args.costs)
    if args.forced_p or args.forced_n:
        if not (args.forced_p and args.forced_n) or args.network:
            raise ValidationError(
                "derive from data takes --forced-p and --forced-n (and no NETWORK)")
        if not args.slot:
            raise ValidationError("derive from data needs --slot NAME")
        sheet = sheet_from_forced_runs(
            Confusion.parse(args.forced_p), Confusion.parse(args.forced_n), costs,
            slot=args.slot, description=args.description or "forced runs given on the command line",
            system_name=args.name or "system",
            assumption=args.assumption, confidence=args.confidence,
        )
    else:
        if not args.network:
            raise ValidationError("derive needs NETWORK, or --forced-p and --forced-n")
        system = _load_system(args)
        path = network_path(args.network)
        sheet = sheet_from_network(
            system, costs, method=args.method, samples=args.samples, seed=args.seed,
            confidence=args.confidence, interval=args.interval, assumption=args.assumption,
            provenance={**network_provenance(path), "network": system.name},
        )
    sheet.save(args.output)
    print(f"wrote {args.output} (slot {sheet.slot!r}, assumption {sheet.assumption})")
    return 0


def _parse_named_model(text: str, index: int) -> tuple[str, Confusion]:
    name, sep, cells = text.partition(":")
    if sep and "=" not in name:
        return name.strip(), Confusion.parse(cells)
    return f"model{index}", Confusion.parse(text)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from causalcost.sheet.candidates import read_candidates_csv
    from causalcost.sheet.costsheet import load_sheet
    from causalcost.sheet.report import compare, evaluate

    sheet = load_sheet(args.sheet)
    candidates: dict[str, Confusion] = {}
    for i, text in enumerate(args.model or [], start=1):
        name, model = _parse_named_model(text, i)
        if name in candidates:
            raise ValidationError(f"two candidates are named {name!r}")
        candidates[name] = model
    if args.candidates:
        for name, model in read_candidates_csv(args.candidates).items():
            if name in candidates:
                raise ValidationError(f"two candidates are named {name!r}")
            candidates[name] = model
    if not candidates:
        raise ValidationError(
            "give a candidate with --model tp=..,fn=..,fp=..,tn=.. or --candidates CSV"
        )
    if len(candidates) == 1:
        report = evaluate(sheet, next(iter(candidates.values())))
        if args.json:
            _print_json(report.to_dict())
        else:
            print(report)
        return 0
    frame = compare(sheet, candidates)
    if args.json:
        records = frame.reset_index(names="name").to_dict(orient="records")
        _print_json({"slot": sheet.slot, "assumption": sheet.assumption,
                     "candidates": [{k: _plain(v) for k, v in r.items()} for r in records]})
    else:
        print(f"candidates for slot {sheet.slot!r}, ranked by expected system cost "
              f"(bounds assume: {sheet.assumption})")
        print(frame.to_string(float_format=lambda v: f"{v:.6g}"))
    return 0


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _cmd_bound(args: argparse.Namespace) -> int:
    from causalcost.pricing.bounds import bound

    result = bound(Confusion.parse(args.forced_p), Confusion.parse(args.forced_n),
                   Confusion.parse(args.model), CostMatrix.parse(args.costs),
                   assumption=args.assumption)
    if args.json:
        _print_json(result.to_dict())
    else:
        print(result)
    return 0


# -- parser ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``causalcost`` command."""
    parser = _Parser(
        prog="causalcost",
        description="Judge one model of a multi-model classifier system by its causal effect on "
                    "the whole system: interventional error rates, model-level cost matrices, "
                    "worst/best-case system bounds.",
        epilog="Start with: causalcost query thesis_and",
    )
    parser.add_argument("--version", action="version", version=f"causalcost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("query", help="P(Conf | Class, do(slot = x)) and the four error rates",
                       description="Print the interventional table P(Conf^S | Class, do(slot = x)) "
                                   "and the slot's four interventional error rates.")
    _network_arguments(p)
    _sampling_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_query)

    p = sub.add_parser("draw", help="draw the DAG (and the mutilated graph) to PNG or SVG",
                       description="Draw the system's DAG in layers; with --do, the mutilated "
                                   "graph for do(slot = x) beside it.")
    _network_arguments(p)
    p.add_argument("--do", choices=("P", "N"), default=None,
                   help="also draw the graph mutilated by do(slot = P or N)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="a .png or .svg path")
    p.set_defaults(func=_cmd_draw)

    p = sub.add_parser("export", help="write a network as BIF (for pgmpy, pyAgrum, ...)")
    _network_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE.bif")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("networks", help="list the shipped networks")
    p.set_defaults(func=_cmd_networks)

    p = sub.add_parser("derive", help="derive a cost sheet for model owners",
                       description="Derive a cost sheet (JSON) from a network, or from the "
                                   "system's confusion with the slot forced to P and to N.")
    p.add_argument("network", metavar="NETWORK", nargs="?",
                   help="a network file or shipped network (omit with --forced-p/--forced-n)")
    p.add_argument("--slot", metavar="NAME", help="the model under evaluation")
    bif = p.add_argument_group("roles for BIF files")
    bif.add_argument("--class-node", metavar="NAME")
    bif.add_argument("--system-node", metavar="NAME")
    bif.add_argument("--positive", metavar="STATE", default="P")
    _sampling_arguments(p)
    p.add_argument("--costs", required=True, metavar="CELLS",
                   help="system cost matrix, e.g. fn=5,fp=1[,tp=0,tn=0]")
    p.add_argument("--assumption", choices=("monotone", "none"), default="monotone",
                   help="bound assumption (default: monotone, checked on the network)")
    p.add_argument("--forced-p", metavar="CELLS", help="system confusion with the slot forced to P")
    p.add_argument("--forced-n", metavar="CELLS", help="system confusion with the slot forced to N")
    p.add_argument("--description", metavar="TEXT", help="provenance of forced runs")
    p.add_argument("--name", metavar="TEXT", help="the system's name in reports, for forced runs")
    p.add_argument("-o", "--output", required=True, metavar="SHEET.json")
    p.set_defaults(func=_cmd_derive)

    p = sub.add_parser("evaluate", help="evaluate candidate models against a cost sheet",
                       description="Evaluate one candidate (a report) or several (a ranked "
                                   "comparison) against a cost sheet.")
    p.add_argument("sheet", metavar="SHEET.json")
    p.add_argument("--model", action="append", metavar="[NAME:]CELLS",
                   help="candidate confusion, e.g. tp=50,fn=50,fp=100,tn=100; repeat to compare")
    p.add_argument("--candidates", metavar="CSV", help="CSV with columns name,tp,fn,fp,tn")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_evaluate)

    p = sub.add_parser("bound", help="worst/best-case system confusion from counts",
                       description="Worst and best system confusion for a candidate, from the "
                                   "system's confusion with the slot forced to P and to N on the "
                                   "same instances as the candidate's confusion.")
    p.add_argument("--forced-p", required=True, metavar="CELLS")
    p.add_argument("--forced-n", required=True, metavar="CELLS")
    p.add_argument("--model", required=True, metavar="CELLS")
    p.add_argument("--costs", default="fn=1,fp=1", metavar="CELLS",
                   help="system cost matrix (default: fn=1,fp=1: counts errors)")
    p.add_argument("--assumption", choices=("monotone", "none"), default="monotone")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_bound)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except CausalCostError as exc:
        message = str(exc).replace("\n", " ")
        print(f"causalcost {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USER_ERROR
    except BrokenPipeError:  # output piped into head & co.: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, json.JSONDecodeError) as exc:
        print(f"causalcost {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
