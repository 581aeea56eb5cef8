"""``causalcost roc``: a scored candidate's thresholds priced for the system."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from causalcost.cli.common import examples, print_json
from causalcost.cli.parsing import output_file
from causalcost.errors import ValidationError

__all__ = ["register"]


def _cmd_roc(args: argparse.Namespace) -> int:
    import narwhals as nw

    from causalcost.data.frames import collect
    from causalcost.data.readers import read_table
    from causalcost.evaluation.thresholds import system_thresholds
    from causalcost.sheet.loading import load_sheet

    if args.truth == args.score:
        raise ValidationError(f"--truth and --score name the same column {args.truth!r}: the "
                              "scores and the true classes are two columns")
    sheet = load_sheet(args.sheet)
    frame = nw.from_native(read_table(args.scores), allow_series=False)
    missing = [c for c in (args.truth, args.score) if c not in frame.columns]
    if missing:
        raise ValidationError(f"{args.scores}: no column(s) {missing}; the file has "
                              f"{list(frame.columns)}")
    if isinstance(frame, nw.LazyFrame):
        frame = collect(frame.select(args.truth, args.score), "reading the scores")
    y = frame[args.truth].to_numpy()
    scores = _numbers(frame[args.score].to_list(), args.score)
    import warnings

    from causalcost.evaluation.constant_slot import ConstantSlotWarning

    with warnings.catch_warnings():  # the sweep's text and JSON carry them, printed once
        warnings.simplefilter("ignore", ConstantSlotWarning)
        sweep = system_thresholds(sheet, y, scores, positive=args.positive_label)
    if args.json:
        print_json(sweep.to_dict())
    else:
        print(sweep)
    if args.output:
        from causalcost.plotting.drawing import save_figure
        from causalcost.plotting.roc import draw_cost_by_threshold, draw_system_roc

        out = Path(args.output)
        save_figure(draw_system_roc(sweep), out)
        costs = out.with_name(f"{out.stem}_costs{out.suffix}")
        save_figure(draw_cost_by_threshold(sweep), costs)
        print(f"wrote {out} and {costs}")
    return 0


def _numbers(values: list[Any], column: str) -> list[float]:
    """The score column (read as text from a CSV file) as numbers, or a refusal naming it."""
    out, bad = [], []
    for value in values:
        try:
            out.append(float(value))
        except (TypeError, ValueError):
            bad.append(value)
    if bad:
        shown = ", ".join(sorted({repr(v) for v in bad})[:5])
        raise ValidationError(f"--score column {column!r} must hold a number in every row; "
                              f"found {shown} in {len(bad)} row(s)")
    return out


def register(sub: Any) -> None:
    """Add ``roc`` to the ``causalcost`` parser."""
    p = sub.add_parser(
        "roc", help="price every threshold of a scored candidate for the system",
        description="Sweep a scored candidate's thresholds (positive when score >= threshold): "
                    "its confusion, expected system cost (cost function 1), worst and best "
                    "case at each; the threshold that minimises the expected and the worst "
                    "system cost, beside the model-only optimum (maximum accuracy).")
    p.add_argument("sheet", metavar="SHEET.json", help="the slot's cost sheet")
    p.add_argument("--scores", required=True, metavar="FILE",
                   help="a .csv or .parquet file with the candidate's scores and the truth")
    p.add_argument("--truth", required=True, metavar="COLUMN", help="the true-class column")
    p.add_argument("--score", required=True, metavar="COLUMN", help="the score column")
    p.add_argument("--positive-label", metavar="LABEL", dest="positive_label",
                   help="the positive label when the truth column holds strings")
    p.add_argument("-o", "--output", metavar="ROC.png", type=output_file,
                   help="also draw the ROC (and ROC_costs.png: system cost against threshold)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.epilog = examples("causalcost roc sheet.json --scores scores.csv --truth y --score p -o "
                        "roc.png")
    p.set_defaults(func=_cmd_roc)
