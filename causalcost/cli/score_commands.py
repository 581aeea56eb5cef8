"""``causalcost evaluate`` on a score sheet: candidates given as **scores** (``--scores FILE``).

A score sheet (``derive --data LOG`` with a score fusioner) prices a candidate from its scores
for the positive class, not from a confusion. Each ``--scores [NAME:]FILE`` is a CSV with the
true class (``--truth``, default column ``truth``) and the candidate's score on every row
(``--score-column``, default ``score``); one file gives a report, several a ranked comparison.
``--positive`` names the positive label when the truth is not bool or 0/1.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from causalcost.cli.common import print_json
from causalcost.errors import DataError, ValidationError

__all__ = ["add_score_candidate_arguments", "score_evaluate"]


def add_score_candidate_arguments(p: argparse.ArgumentParser) -> None:
    """The ``--scores`` options of ``causalcost evaluate`` (score sheets)."""
    g = p.add_argument_group("score sheets: candidates as scores")
    g.add_argument("--scores", action="append", metavar="[NAME:]FILE",
                   help="a CSV with the true class and the candidate's score for the positive "
                        "class on every row; repeat to compare (a score sheet only)")
    g.add_argument("--truth", metavar="COLUMN", default="truth",
                   help="the true-class column of --scores files (default: truth)")
    g.add_argument("--score-column", metavar="COLUMN", default="score", dest="score_column",
                   help="the score column of --scores files (default: score)")
    g.add_argument("--positive", metavar="LABEL", default=None,
                   help="the positive label of the truth column (needed unless it is 0/1 or "
                        "true/false)")


def _read(spec: str, truth: str, column: str) -> tuple[str, Any, Any]:
    import pandas as pd

    name, _, path = spec.rpartition(":") if ":" in spec and not Path(spec).exists() \
        else ("", "", spec)
    name = name or Path(path).stem
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise DataError(f"--scores {path}: no such file") from None
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataError(f"--scores {path}: cannot read it as CSV ({exc})") from None
    missing = [c for c in (truth, column) if c not in frame.columns]
    if missing:
        raise DataError(f"--scores {path}: no column {missing[0]!r} (its columns are "
                        f"{list(map(str, frame.columns))}); name them with --truth and "
                        "--score-column")
    scores = frame[column].to_numpy()
    if scores.dtype == object:  # a CSV's cells are text: each must parse as a number
        from causalcost.score_values import parse_text_scores

        scores = parse_text_scores(scores, f"--scores {path} column {column!r}")
    return name, frame[truth].to_numpy(), scores


def score_evaluate(args: argparse.Namespace, sheet: Any) -> int:
    """``causalcost evaluate`` with a score sheet; refuses confusions, needs ``--scores``."""
    from causalcost.evaluation.comparison import compare
    from causalcost.evaluation.evaluating import evaluate
    from causalcost.evaluation.score_inputs import is_score_sheet

    if not is_score_sheet(sheet):
        raise ValidationError("--scores: this is a cost sheet of votes; give its candidates as "
                              "--model, --candidates or --predictions (a score sheet prices "
                              "scores)")
    if args.model or args.candidates or getattr(args, "predictions", None):
        raise ValidationError("a score sheet prices a candidate from its scores: give "
                              "--scores FILE (not --model, --candidates or --predictions)")
    if not args.scores:
        raise ValidationError("a score sheet needs the candidate's scores: --scores FILE with "
                              "the columns truth and score (--truth, --score-column)")
    if args.label_accuracy is not None:
        raise ValidationError("--label-accuracy is for cost sheets of votes; leave it out")
    read = [_read(spec, args.truth, args.score_column) for spec in args.scores]
    options = {"confidence": args.confidence, "same_instances": args.same_instances,
               "row_fingerprint": args.row_fingerprint, "positive": args.positive}
    if len(read) == 1:
        _, y, s = read[0]
        report = evaluate(sheet, (y, s), **options)
        print_json(report.to_dict()) if args.json else print(report)
        return 0
    names = [n for n, _, _ in read]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ValidationError(f"--scores: the name {twice!r} is used twice; give NAME:FILE")
    import numpy as np

    first = read[0][1]
    if all(len(y) == len(first) and np.array_equal(y, first) for _, y, _ in read):
        table = compare(sheet, y_true=first, scores={n: s for n, _, s in read}, **options)
    else:  # each file on rows of its own: only the probability form (compare says so)
        table = compare(sheet, scores={n: (y, s) for n, y, s in read}, **options)
    _print_table(sheet, table, args.json)
    return 0


def _print_table(sheet: Any, table: Any, as_json: bool) -> None:
    if as_json:
        records = table.reset_index(names="name").to_dict(orient="records")
        print_json({"slot": sheet.slot, "rule": sheet.rule, "sheet_sha256": sheet.digest,
                    "form": table.attrs["form"], "instances": table.attrs["instances"],
                    "warnings": list(table.attrs["warnings"]),
                    "candidates": [{k: v.item() if hasattr(v, "item") else v
                                    for k, v in r.items()} for r in records]})
        return
    from causalcost.display import wrapped

    print(f"candidates for slot {sheet.slot!r} (rule: {sheet.rule}); sheet {sheet.digest}")
    print(table)
    print("\n".join(wrapped([f"warning: {w}" for w in table.attrs["warnings"]])))
