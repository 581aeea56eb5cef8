"""Subcommands for the system owner judging candidates and slots on a log: ``backtest`` (the
candidates' predicted system costs beside the real ones) and ``importance`` (which slot to
improve). Both read a log the way ``runs`` and ``derive --data`` do."""

from __future__ import annotations

import argparse
from typing import Any

from causalcost.cli.common import model_names, print_json, probability, vote_arguments
from causalcost.cli.label_options import (
    SCORE_RULES,
    add_derive_arguments,
    log_runs,
    parse_costs,
    rule_options,
    score_columns,
)
from causalcost.cli.parsing import name
from causalcost.errors import ValidationError

__all__ = ["register"]

_BACKTEST_EXAMPLE = ("example:\n"
                     "  causalcost backtest log.csv --truth y --models a,b,c --slot b "
                     "--fusioner majority --candidates new1,new2 --sheet sheet.json")
_IMPORTANCE_EXAMPLE = ("example:\n"
                       "  causalcost importance log.csv --truth y --models a,b,c --fusioner "
                       "majority --costs fn=5,fp=1 --removal-tie negative")


def _cmd_backtest(args: argparse.Namespace) -> int:
    from causalcost.evaluation.backtest import backtest
    from causalcost.sheet.loading import load_sheet

    candidates = model_names(args.candidates) if args.candidates else []
    if not candidates:
        raise ValidationError("--candidates must list the candidates' prediction columns, "
                              "e.g. new1,new2")
    twice = sorted({c for c in candidates if candidates.count(c) > 1})
    if twice:
        raise ValidationError(f"--candidates {args.candidates} names {', '.join(twice)} twice: "
                              "list each candidate column once")
    clash = sorted(set(candidates) & {*model_names(args.models), args.truth})
    if clash:
        raise ValidationError(f"--candidates {', '.join(clash)} also named in --models or "
                              "--truth; a candidate is a column of its own")
    sheet = load_sheet(args.sheet) if args.sheet else None
    if args.costs is None and sheet is None:
        raise ValidationError("backtest needs --costs (e.g. fn=5,fp=1, or K rows of K costs "
                              "with --labels) or --sheet SHEET.json, whose costs are used")
    scores = args.fusioner in SCORE_RULES  # a log of score columns: candidates are scores
    runs = log_runs(args, command="backtest",
                    **({} if args.labels or scores else {"observed": False}))
    costs = None if args.costs is None else parse_costs(
        args.costs, list(runs.labels) if args.labels else None)
    if scores:
        given = score_columns(args, candidates, "--candidates")
        result = backtest(runs, given, sheet, costs, confidence=args.confidence)
        if args.json:
            print_json(result.to_dict())
        else:
            print(repr(result))
        return 0
    import numpy as np

    if costs is not None and sheet is not None and not np.array_equal(
            np.asarray(costs.to_numpy(), dtype=float), sheet.costs_array):
        raise ValidationError(f"--costs {args.costs} differ from the sheet's "
                              f"{sheet.costs_array.tolist()}: leave --costs out or give the "
                              "sheet's")
    result = backtest(runs, {c: c for c in candidates}, sheet, costs,
                      confidence=args.confidence)
    if args.json:
        print_json(result.to_dict())
    else:
        print(repr(result))
    return 0


def _cmd_importance(args: argparse.Namespace) -> int:
    from causalcost.cli.common import read_rows
    from causalcost.evaluation.importance import slot_importance

    if args.fusioner in SCORE_RULES:
        raise ValidationError(f"importance replaces each model by a perfect, a constant and a "
                              f"removed one in a vote; --fusioner {args.fusioner} fuses scores, "
                              "whose removal changes the rule itself: price score-slot "
                              "candidates with backtest or evaluate --scores")
    options = rule_options(args)
    if args.removal_tie is not None:  # a binary majority's option: refused with --labels
        if args.labels:
            raise ValidationError("--removal-tie is for a binary majority; with --labels a "
                                  "removed model's plurality ties follow --tie-order")
        options["removal_tie"] = args.removal_tie
    result = slot_importance(read_rows(args.data, engine=args.engine),
                             costs=parse_costs(args.costs, options.get("labels")),
                             truth=args.truth, models=model_names(args.models),
                             fusioner=args.fusioner, confidence=args.confidence, **options)
    if args.plot:
        from causalcost.plotting.drawing import save_figure
        from causalcost.plotting.importance import draw_slot_importance

        save_figure(draw_slot_importance(result), args.plot)
    if args.json:
        print_json(result.to_dict())
    else:
        print(repr(result))
        if args.plot:
            print(f"wrote {args.plot}")
    return 0


def register(sub: Any) -> None:
    """Add ``backtest`` and ``importance`` to the ``causalcost`` parser."""
    p = sub.add_parser(
        "backtest", help="candidates' predicted system costs beside the real ones",
        description="Plug each candidate (a prediction column of the log) into the slot and "
                    "put the real system cost beside what the sheets predict: the expected "
                    "cost and the exact worst and best case on these rows, and with --sheet "
                    "(derived on other rows) that sheet's expected, worst, best and "
                    "high-confidence worst case, each with an inside/outside flag; then, for "
                    "each selection rule, Kendall's tau against the real costs and the regret "
                    "of its pick.",
        epilog=_BACKTEST_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", metavar="FILE", help="a .csv or .parquet file, read lazily")
    p.add_argument("--slot", required=True, metavar="NAME", type=name,
                   help="the slot the candidates are for")
    vote_arguments(p, required=True)
    p.add_argument("--candidates", required=True, metavar="C1,C2",
                   help="the candidates' prediction columns in FILE, e.g. new1,new2")
    p.add_argument("--costs", metavar="CELLS",
                   help="system cost matrix, e.g. fn=5,fp=1 (default: the sheet's)")
    p.add_argument("--sheet", metavar="SHEET.json",
                   help="a sheet of the slot derived on other rows: add its predictions")
    p.add_argument("--confidence", type=probability, default=0.95, metavar="LEVEL",
                   help="level of the sheet's high-confidence worst case (default: 0.95)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_derive_arguments(p, "runs of K labels (--costs as K x K rows)")
    p.set_defaults(func=_cmd_backtest)

    p = sub.add_parser(
        "importance", help="which slot to improve: system cost per slot version",
        description="For every model of the log: the system cost with the model as is, "
                    "replaced by a perfect model, by a constant P, by a constant N, and with "
                    "its votes removed where the fusioner defines it (AND, OR, majority), with "
                    "Wilson intervals per class.",
        epilog=_IMPORTANCE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", metavar="FILE", help="a .csv or .parquet file, read lazily")
    vote_arguments(p, required=True)
    p.add_argument("--costs", required=True, metavar="CELLS",
                   help="system cost matrix, e.g. fn=5,fp=1[,tp=0,tn=0], or with --labels "
                        "K rows of K costs 'a,b,c;d,e,f;g,h,i' (rows: the true class)")
    p.add_argument("--confidence", type=probability, default=0.95, metavar="LEVEL",
                   help="level of the intervals (default: 0.95)")
    p.add_argument("--removal-tie", choices=("negative", "positive"), default=None,
                   dest="removal_tie",
                   help="majority: where a tie goes once a model's votes are removed and an "
                        "even number is left (default: removal not defined there)")
    p.add_argument("--plot", metavar="OUT.png",
                   help="also write the bar chart (.png or .svg)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_derive_arguments(p, "a log of K labels (--costs as K x K rows)")
    p.set_defaults(func=_cmd_importance)
