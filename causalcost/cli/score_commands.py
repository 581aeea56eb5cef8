"""Score sheets at the command line: ``derive --data LOG --scores`` writes one, ``evaluate``
prices candidates given as **scores** (``--scores FILE``).

A score sheet (``derive --data LOG`` with a score fusioner) prices a candidate from its scores
for the positive class, not from a confusion. Each ``--scores [NAME:]FILE`` is a CSV with the
true class (``--truth``, default column ``truth``) and the candidate's score on every row
(``--score-column``, default ``score``); one file gives a report, several a ranked comparison.
``--positive`` names the positive label when the truth is not bool or 0/1.

**K labels.** ``derive --data LOG --scores --labels a,b,c --score-columns '{model}_{label}'
--fusioner mean`` reads each model's probability vector from one column per label and writes
a K-label score sheet (per class the offset vectors). Its candidates' CSVs hold the true class
and one column per label: by default the labels themselves (``a``, ``b``, ``c``), or
``--score-column`` as a template with ``{label}`` (``'p_{label}'``); the vectors are read by
:func:`~causalcost.score_values.read_score_vectors`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from causalcost.cli.common import print_json
from causalcost.errors import DataError, ValidationError

__all__ = ["add_score_candidate_arguments", "score_derive", "score_evaluate"]


def add_score_candidate_arguments(p: argparse.ArgumentParser) -> None:
    """The ``--scores`` options of ``causalcost evaluate`` (score sheets)."""
    g = p.add_argument_group("score sheets: candidates as scores")
    g.add_argument("--scores", action="append", metavar="[NAME:]FILE",
                   help="a CSV with the true class and the candidate's score for the positive "
                        "class on every row; repeat to compare (a score sheet only)")
    g.add_argument("--truth", metavar="COLUMN", default="truth",
                   help="the true-class column of --scores files (default: truth)")
    g.add_argument("--score-column", metavar="COLUMN", default=None, dest="score_column",
                   help="the score column of --scores files (default: score); a K-label "
                        "score sheet reads one column per label: a template with {label}, "
                        "e.g. 'p_{label}' (default: '{label}', the columns named by the "
                        "labels)")
    g.add_argument("--positive", metavar="LABEL", default=None,
                   help="the positive label of the truth column (needed unless it is 0/1 or "
                        "true/false)")


def _scores_file(spec: str) -> tuple[str, str, Any]:
    """One ``--scores [NAME:]FILE``: the candidate's name (the file's stem by default), the
    path and the CSV as a data frame; a missing or unreadable file is a one-line error."""
    import pandas as pd

    name, _, path = spec.rpartition(":") if ":" in spec and not Path(spec).exists() \
        else ("", "", spec)
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise DataError(f"--scores {path}: no such file") from None
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataError(f"--scores {path}: cannot read it as CSV ({exc})") from None
    return name or Path(path).stem, path, frame


def _read(spec: str, truth: str, column: str) -> tuple[str, Any, Any]:
    name, path, frame = _scores_file(spec)
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


def score_derive(args: argparse.Namespace) -> int:
    """``derive --data LOG --scores``: a score sheet of each row's critical score, or with
    ``--labels`` and ``--score-columns`` of each row's offset vector (K labels)."""
    from causalcost.cli.label_options import label_names, parse_costs, score_log_runs
    from causalcost.sheet.from_data import sheet_from_data

    vectors = args.score_columns is not None
    costs = parse_costs(args.costs, label_names(args.labels) if vectors else None)
    runs = score_log_runs(args)
    sheet = sheet_from_data(runs, costs, breakpoints=args.breakpoints,
                            description=args.description or f"logged scores in {args.data}",
                            system_name=args.name or "system")
    sheet.save(args.output)
    if vectors:
        form = "exact" if sheet.exact else f"in at most {args.breakpoints} cells per class"
        sizes = ", ".join(f"{n} of {c}" for c, n in zip(sheet.labels, sheet.class_sizes))
        print(f"wrote {args.output} (score sheet of {sheet.k} labels, slot {sheet.slot!r}, "
              f"rule {sheet.rule}, {sizes}, {form})")
    else:
        form = "exact" if sheet.exact else \
            f"on at most {args.breakpoints} breakpoints per class"
        n_p, n_n = sheet.class_sizes
        print(f"wrote {args.output} (score sheet, slot {sheet.slot!r}, rule {sheet.rule}, "
              f"{n_p} positives and {n_n} negatives, {form})")
    print(f"  sheet: {sheet.digest}")
    return 0


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
    if sheet.k != 2:
        return _vector_evaluate(args, sheet)
    read = [_read(spec, args.truth, args.score_column or "score") for spec in args.scores]
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


def _vector_read(spec: str, truth: str, template: str, sheet: Any) -> tuple[str, list[Any]]:
    """One ``--scores`` file of a K-label sheet: its name and the vectors per class."""
    import pandas as pd

    from causalcost.data.score_vector_log import class_positions
    from causalcost.score_values import read_score_vectors

    name, path, frame = _scores_file(spec)
    columns = [template.replace("{label}", label) for label in sheet.labels]
    missing = [c for c in (truth, *columns) if c not in frame.columns]
    if missing:
        raise DataError(f"--scores {path}: no column {missing[0]!r} (its columns are "
                        f"{list(map(str, frame.columns))}); a sheet of the labels "
                        f"{','.join(sheet.labels)} reads the true class (--truth) and one "
                        "column per label (--score-column, a template with {label})")
    table = frame[columns].copy()
    for c in columns:  # a CSV's text cells must each parse as a number
        if not pd.api.types.is_numeric_dtype(table[c]):
            from causalcost.score_values import parse_text_scores

            table[c] = parse_text_scores(table[c].to_numpy(), f"--scores {path} column {c!r}")
    table = table.set_axis(list(sheet.labels), axis=1)
    vectors = read_score_vectors(table, f"--scores {path}", labels=sheet.labels,
                                 score_range=sheet.score_range, against="the file")
    classes = class_positions(frame[truth].astype(str).to_numpy(), sheet.labels, truth,
                              fix=f"the sheet's labels are {list(sheet.labels)}")
    return name, [vectors[classes == c] for c in range(sheet.k)]


def _vector_evaluate(args: argparse.Namespace, sheet: Any) -> int:
    """``evaluate`` with a K-label score sheet: each file's vectors priced by the sheet."""
    refused = [flag for flag, value in (("--row-fingerprint", args.row_fingerprint),
                                        ("--positive", args.positive)) if value is not None]
    if refused:
        raise ValidationError(f"{', '.join(refused)}: a score sheet of {sheet.k} labels prices "
                              "the expected, worst and best cost of the candidate's vectors "
                              "(--same-instances for vectors on the sheet's own rows): drop "
                              f"{'them' if len(refused) > 1 else 'it'}")
    if args.confidence is not None and args.same_instances:
        raise ValidationError("--confidence: on the sheet's own rows (--same-instances) the "
                              "worst and best case are exact; drop --confidence")
    template = args.score_column or "{label}"
    if "{label}" not in template:
        raise ValidationError(f"--score-column {template!r}: a sheet of the labels "
                              f"{','.join(sheet.labels)} reads one column per label; give a "
                              "template with {label}, e.g. 'p_{label}' (default: the labels)")
    read = [_vector_read(spec, args.truth, template, sheet) for spec in args.scores]
    names = [n for n, _ in read]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ValidationError(f"--scores: the name {twice!r} is used twice; give NAME:FILE")
    same = bool(args.same_instances)
    bounds = {name: sheet.price(vectors, same_instances=same, confidence=args.confidence)
              for name, vectors in read}
    if args.json:
        print_json({"slot": sheet.slot, "rule": sheet.rule, "labels": list(sheet.labels),
                    "sheet_sha256": sheet.digest, "exact": sheet.exact,
                    "candidates": [{"name": n, **b.to_dict()} for n, b in bounds.items()]})
        return 0
    from causalcost.display import format_number

    print(f"candidates for slot {sheet.slot!r} (rule: {sheet.rule}); labels "
          f"{','.join(sheet.labels)}; sheet {sheet.digest}")
    form = next(iter(bounds.values())).form
    print(f"form: {form}" + ("" if sheet.exact else "; the sheet's cells overstate the worst "
                             "and expected costs and understate the best (valid bounds)"))
    for name, b in bounds.items():
        print(f"{name}: Eval1 (expected) {format_number(b.expected_cost)}, worst case "
              f"{format_number(b.worst_cost)}, best case {format_number(b.best_cost)}")
        if b.confidence is not None:
            print(f"  high-confidence ({format_number(100 * b.confidence)} %, both at once) "
                  f"worst case {format_number(b.high_confidence_worst_cost)}, best case "
                  f"{format_number(b.high_confidence_best_cost)}")
    if len(bounds) == 1:
        b = next(iter(bounds.values()))
        for case, confusion in (("expected", b.expected), ("worst", b.worst),
                                ("best", b.best)):
            if confusion is not None:
                print(f"  {case} system confusion (rows: true class, columns: system output):")
                print("    " + confusion.to_frame().to_string().replace("\n", "\n    "))
    return 0
