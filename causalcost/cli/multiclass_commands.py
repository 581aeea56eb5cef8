"""The K-label side of ``derive`` and ``evaluate`` (multi-class sheets, version 3).

``causalcost derive --data LOG --labels a,b,c ...`` counts the K forced runs on the log and
writes a multi-class sheet; ``causalcost evaluate SHEET --model 'a,b,c;d,e,f;g,h,i'`` (the
candidate's K x K counts, rows the true class) or ``--predictions FILE`` (columns ``truth``,
``prediction``) prices candidates against one. The binary commands call in here only when
``--labels`` is given or the sheet is a multi-class one.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from causalcost.cli.common import model_names, print_json
from causalcost.errors import DataError, ValidationError

__all__ = ["add_derive_arguments", "add_evaluate_arguments", "coverage_multiclass",
           "derive_multiclass", "evaluate_multiclass_cli", "parse_matrix"]

#: K-label fusioner rules on the command line.
RULES = ("plurality", "weighted", "priority", "k_of_n")


def add_derive_arguments(p: argparse.ArgumentParser) -> None:
    """The multi-class options of ``derive``."""
    g = p.add_argument_group("multi-class systems (--data with --labels)")
    g.add_argument("--labels", metavar="A,B,C",
                   help="the K labels in order (axes, default tie order); makes a multi-class "
                        "sheet: --fusioner plurality, weighted, priority or k_of_n, --costs as "
                        "K x K rows 'a,b,c;d,e,f;g,h,i' (rows: true class)")
    g.add_argument("--order", metavar="A,B,C",
                   help="for priority: every label, the first one any model votes wins")
    g.add_argument("--label", metavar="LABEL", help="for k_of_n with --labels: the label "
                                                    "that needs --k votes")
    g.add_argument("--tie-order", metavar="A,B,C|slot", dest="tie_order",
                   help="plurality ties: another label order, or 'slot' (the slot's vote) "
                        "(default: the order of --labels)")


def add_evaluate_arguments(p: argparse.ArgumentParser) -> None:
    """The multi-class options of ``evaluate``."""
    p.add_argument("--predictions", action="append", metavar="FILE",
                   help="multi-class sheets: a CSV with columns truth,prediction (one row per "
                        "instance); repeat to compare")


def _labels(text: str, flag: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if len(names) < 2 or any(not n for n in names) or len(set(names)) != len(names):
        raise ValidationError(f"{flag} must list at least two distinct labels, e.g. a,b,c; got "
                              f"{text!r}")
    return names


def parse_matrix(text: str, k: int, flag: str) -> list[list[float]]:
    """``'a,b,c;d,e,f;g,h,i'`` as a K x K list of numbers (rows separated by ';').

    >>> parse_matrix("0,1;2,0", 2, "--costs")
    [[0.0, 1.0], [2.0, 0.0]]
    """
    rows = [r for r in text.split(";")]
    try:
        matrix = [[float(v) for v in row.split(",")] for row in rows]
    except ValueError:
        raise ValidationError(f"{flag} {text!r} must be {k} rows of {k} numbers, rows separated "
                              "by ';' and cells by ',' (rows: true class)") from None
    if len(matrix) != k or any(len(r) != k for r in matrix):
        raise ValidationError(f"{flag} {text!r} must be {k} x {k} (one row and one column per "
                              f"label); got {len(matrix)} row(s) of "
                              f"{sorted({len(r) for r in matrix})} cell(s)")
    if any(v != v or v in (float("inf"), float("-inf")) for r in matrix for v in r):
        raise ValidationError(f"{flag} {text!r} holds a number that is not finite")
    return matrix


def derive_multiclass(args: argparse.Namespace) -> int:
    """``derive --data LOG --labels ...``."""
    import narwhals as nw

    from causalcost.data.forced_runs import forced_runs
    from causalcost.data.readers import read_table
    from causalcost.sheet.derivation import derive_labelled_sheet

    if not args.data:
        raise ValidationError("--labels derives a multi-class sheet from logged predictions: "
                              "give --data FILE")
    if args.network or args.forced_p or args.forced_n:
        raise ValidationError("--labels goes with --data only, not NETWORK or --forced-p/-n")
    missing = [flag for flag, value in (("--truth", args.truth), ("--models", args.models),
                                        ("--slot", args.slot), ("--fusioner", args.fusioner))
               if not value]
    if missing:
        raise ValidationError(f"derive --data --labels needs {', '.join(missing)}")
    if args.fusioner not in RULES:
        raise ValidationError(f"--fusioner {args.fusioner} is a binary rule; with --labels use "
                              f"one of {', '.join(RULES)}")
    binary = [flag for flag, value in (("--tie", args.tie), ("--threshold", args.threshold),
                                       ("--positive-label", args.positive_label)) if value]
    if binary:
        raise ValidationError(f"{', '.join(binary)} are binary options; with --labels use "
                              "--tie-order, --order, --label, --k or --weights")
    labels = _labels(args.labels, "--labels")
    costs = parse_matrix(args.costs, len(labels), "--costs")
    models = model_names(args.models)
    tie: Any = None
    if args.tie_order:
        tie = "slot" if args.tie_order.strip() == "slot" else _labels(args.tie_order,
                                                                       "--tie-order")
    frame = nw.from_native(read_table(args.data, engine=args.engine))
    schema = frame.collect_schema()
    columns = [c for c in dict.fromkeys([args.truth, *models]) if c in schema]
    # a CSV's integer labels are compared as text, like the labels given on the command line
    frame = frame.with_columns(*(nw.col(c).cast(nw.String) for c in columns))
    try:
        runs = forced_runs(
            frame, truth=args.truth, slot=args.slot, labels=labels, models=models,
            fusioner=args.fusioner, tie=tie, weights=args.weights,
            order=_labels(args.order, "--order") if args.order else None, label=args.label,
            k=args.k)
    except (DataError, ValidationError) as exc:  # name the flags, not the Python arguments
        text = str(exc).replace("labels=", "--labels").replace("give labels ", "give --labels ")
        raise type(exc)(text) from None
    sheet = derive_labelled_sheet(
        runs, costs, assumption=args.assumption or "none", system_name=args.name or "system",
        provenance={"file": args.data,
                    "description": args.description or f"logged predictions in {args.data}"})
    sheet.save(args.output)
    print(f"wrote {args.output} (multi-class sheet, labels {','.join(labels)}, slot "
          f"{sheet.slot!r}, assumption {sheet.assumption}, {sheet.digest})")
    return 0


def _read_predictions(path: str) -> Any:
    import pandas as pd

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise DataError(f"--predictions {path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise DataError(f"--predictions {path}: cannot read it as CSV ({exc})") from None
    missing = [c for c in ("truth", "prediction") if c not in frame.columns]
    if missing:
        raise DataError(f"--predictions {path}: needs the columns truth and prediction "
                        f"(missing {', '.join(missing)}); it has {list(frame.columns)}")
    return frame[["truth", "prediction"]]


def _plain(value: Any) -> Any:
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and value != value else value


def evaluate_multiclass_cli(args: argparse.Namespace, sheet: Any) -> int:
    """``evaluate`` against a multi-class sheet."""
    from causalcost.evaluation.multiclass_report import compare_multiclass, evaluate_multiclass

    unsupported = [flag for flag, value in (("--candidates", args.candidates),
                                            ("--label-accuracy", args.label_accuracy))
                   if value is not None]
    if unsupported:
        raise ValidationError(f"{', '.join(unsupported)} applies to binary sheets; give a "
                              "multi-class candidate with --model or --predictions")
    k = sheet.k
    given: dict[str, Any] = {}
    for i, text in enumerate(args.model or [], start=1):
        name, sep, cells = text.partition(":")
        key, matrix = (name.strip(), cells) if sep else (f"model{i}", text)
        if not key:
            raise ValidationError(f"--model {text!r}: the name before ':' is empty")
        given[key] = parse_matrix(matrix, k, "--model")
    for path in args.predictions or []:
        key = Path(path).stem
        if key in given:
            raise ValidationError(f"two candidates are named {key!r}")
        given[key] = _read_predictions(path)
    if not given:
        raise ValidationError(f"give a candidate: --model with {k} x {k} counts, e.g. "
                              f"'{';'.join(','.join('0' for _ in range(k)) for _ in range(k))}'"
                              " (rows: true class), or --predictions FILE")
    if len(given) == 1:
        report = evaluate_multiclass(sheet, next(iter(given.values())),
                                     confidence=args.confidence)
        if args.json:
            print_json(report.to_dict())
        else:
            print(report)
        return 0
    frame = compare_multiclass(sheet, given, confidence=args.confidence)
    if args.json:
        records = frame.reset_index(names="name").to_dict(orient="records")
        print_json({"slot": sheet.slot, "labels": list(sheet.labels),
                    "assumption": sheet.assumption, "sheet_sha256": sheet.digest,
                    "warnings": list(frame.attrs.get("warnings", [])),
                    "candidates": [{k: _plain(v) for k, v in r.items()} for r in records]})
    else:
        print(f"candidates for slot {sheet.slot!r} (labels {','.join(sheet.labels)}), ranked "
              f"by expected system cost (bounds assume: {sheet.assumption}); sheet "
              f"{sheet.digest}")
        print(frame.to_string(float_format=lambda v: f"{v:.6g}"))
        for warning in frame.attrs.get("warnings", []):
            print(f"warning: {warning}")
    return 0


def coverage_multiclass(args: argparse.Namespace) -> int:
    """``experiment coverage --labels K``: the coverage experiment on a K-label system."""
    from causalcost.experiments.multiclass_coverage import COLUMNS, multiclass_coverage
    from causalcost.files import write_atomic
    from causalcost.plotting.drawing import save_figure
    from causalcost.plotting.experiments import draw_coverage_curves, draw_coverage_heatmap

    if args.network is not None:
        raise ValidationError("--labels simulates its own K-label system: leave out NETWORK")
    if args.engine != "counts" or args.workers != 1:
        raise ValidationError("--engine and --workers apply to the binary experiment; leave "
                              "them out with --labels")
    k = args.labels
    costs = None if args.costs is None else parse_matrix(args.costs, k, "--costs")
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise ValidationError(f"-o {args.output!r} is a file: give a folder for the CSV and "
                              "pictures")
    folder.mkdir(parents=True, exist_ok=True)
    result = multiclass_coverage(k, n1=args.n1, n2=args.n2, repetitions=args.repetitions,
                                 seed=args.seed, costs=costs, confidence=args.confidence)
    write_atomic(folder / "coverage.csv", result.frame[list(COLUMNS)].to_csv(index=False))
    save_figure(draw_coverage_heatmap(result), folder / "coverage_heatmap.png")
    save_figure(draw_coverage_curves(result), folder / "coverage_curves.png")
    print(repr(result))
    print(f"wrote {folder / 'coverage.csv'}, coverage_heatmap.png and coverage_curves.png")
    return 0
