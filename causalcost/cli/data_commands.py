"""``causalcost runs``: forced runs, kinds and the deployed system, counted from logged data."""

from __future__ import annotations

import argparse
from typing import Any

from causalcost.cli.common import print_json, probability
from causalcost.cli.parsing import finite_number, finite_numbers
from causalcost.errors import ValidationError

__all__ = ["register"]


def _cmd_runs(args: argparse.Namespace) -> int:
    from causalcost.data.forced_runs import forced_runs
    from causalcost.data.readers import read_table

    models = [n.strip() for n in args.models.split(",") if n.strip()]
    if not models:
        raise ValidationError(f"--models must list model columns, e.g. a,b,c; got "
                              f"{args.models!r}")
    options: dict[str, Any] = {}
    for key in ("k", "tie", "weights", "threshold"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    runs = forced_runs(read_table(args.data, engine=args.engine), truth=args.truth,
                       models=models, slot=args.slot, fusioner=args.fusioner,
                       positive=args.positive_label, **options)
    out = runs.to_dict()
    table = None
    if args.confidence is not None:
        table = runs.table(confidence=args.confidence)
        out["table"] = table.to_dict()  # every cell with ci_low, ci_high, n
    if args.candidate:
        out["candidate"] = {"column": args.candidate,
                            "system": {k: int(v) for k, v in
                                       runs.with_candidate(args.candidate).to_dict().items()}}
    if args.json:
        print_json(out)
    else:
        print(repr(runs))
        if table is not None:
            print(f"\ninterventional error rates with {args.confidence:.0%} "
                  f"{table.interval_method} intervals:")
            for label, c, x, k in (("e_P(P)", 0, 0, 1), ("e_P(N)", 0, 1, 1),
                                   ("e_N(P)", 1, 0, 2), ("e_N(N)", 1, 1, 2)):
                print(f"  {label} = {table.probabilities[c, x, k]:.4f}  "
                      f"[{table.lower[c, x, k]:.4f}, {table.upper[c, x, k]:.4f}]  "  # type: ignore[index]
                      f"n = {int(table.counts[c, x, k])}")  # type: ignore[index]
        if args.candidate:
            print(f"the system with column {args.candidate!r} in the slot: "
                  f"{runs.with_candidate(args.candidate)!r}")
    return 0


def register(sub: Any) -> None:
    """Add ``runs`` to the ``causalcost`` parser."""
    p = sub.add_parser(
        "runs", help="count forced runs and instance kinds from logged predictions",
        description="Count, in one group-by on the file's engine, the system's confusion with "
                    "the slot forced to P and to N, the instance kinds (never, wrong_only, "
                    "always, right_only) and the system as deployed, from a table with one row "
                    "per instance.")
    p.add_argument("data", metavar="FILE", help="a .csv or .parquet file, read lazily")
    p.add_argument("--truth", required=True, metavar="COLUMN", help="the true-class column")
    p.add_argument("--models", required=True, metavar="A,B,C",
                   help="the models' prediction columns, in the fusioner's input order")
    p.add_argument("--slot", required=True, metavar="NAME", help="the model under evaluation")
    p.add_argument("--fusioner", required=True,
                   choices=("and", "or", "majority", "k_of_n", "weighted"),
                   help="the system's rule")
    p.add_argument("--k", type=int, metavar="K", help="for k_of_n")
    p.add_argument("--tie", choices=("negative", "positive"), help="majority ties")
    p.add_argument("--weights", type=finite_numbers, metavar="W1,W2,..",
                   help="for weighted: one weight per model, e.g. 1,2,1")
    p.add_argument("--threshold", type=finite_number, metavar="T",
                   help="for weighted: positive when the weighted vote reaches T")
    p.add_argument("--positive-label", metavar="LABEL", dest="positive_label",
                   help="the positive label when the columns hold strings")
    p.add_argument("--engine", choices=("polars", "duckdb"), default="polars",
                   help="the engine that scans the file (default: polars)")
    p.add_argument("--candidate", metavar="COLUMN",
                   help="also the real system with this prediction column in the slot")
    p.add_argument("--confidence", type=probability, default=None, metavar="LEVEL",
                   help="also the four rates with binomial intervals at this level")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_runs)
