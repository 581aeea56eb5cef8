"""The K-label options of the general commands and the steps they share.

Every command that reads a log or a sheet takes K labels: ``derive --data LOG --labels a,b,c``
counts the K forced runs and writes a sheet of K labels; ``derive SHEET --costs 'K x K'``
re-prices one; ``evaluate SHEET --model 'NAME:a,b,c;d,e,f;g,h,i'`` (the candidate's K x K
counts, rows the true class) or ``--predictions FILE`` (columns ``truth``, ``prediction``)
prices candidates; ``runs LOG --labels ...`` counts the forced runs;
``experiment coverage --labels K`` simulates a K-label system. The commands
(:mod:`~causalcost.cli.sheet_commands`, :mod:`~causalcost.cli.data_commands`,
:mod:`~causalcost.cli.experiment_commands`) call in here when ``--labels`` is given or the
sheet has K labels.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from causalcost.cli.common import model_names, print_json, print_with_label_noise
from causalcost.errors import DataError, ValidationError

__all__ = ["add_derive_arguments", "add_evaluate_arguments", "coverage_labels",
           "derive_labels", "evaluate_labels_cli", "label_runs", "parse_matrix",
           "reprice_labels", "runs_labels"]

#: K-label fusioner rules on the command line.
RULES = ("plurality", "weighted", "priority", "k_of_n")


def add_derive_arguments(p: argparse.ArgumentParser, what: str = "makes a sheet of K "
                         "labels") -> None:
    """The K-label options of a command that reads a log (``derive``, ``runs``)."""
    g = p.add_argument_group("K labels (a log with --labels)")
    g.add_argument("--labels", metavar="A,B,C",
                   help=f"the K labels in order (axes, default tie order); {what}: --fusioner "
                        "plurality, weighted, priority or k_of_n, --costs as K x K rows "
                        "'a,b,c;d,e,f;g,h,i' (rows: true class)")
    g.add_argument("--order", metavar="A,B,C",
                   help="for priority: every label, the first one any model votes wins")
    g.add_argument("--label", metavar="LABEL", help="for k_of_n with --labels: the label "
                                                    "that needs --k votes")
    g.add_argument("--tie-order", metavar="A,B,C|slot", dest="tie_order",
                   help="plurality ties: another label order, or 'slot' (the slot's vote) "
                        "(default: the order of --labels)")


def add_evaluate_arguments(p: argparse.ArgumentParser) -> None:
    """The K-label options of ``evaluate``."""
    p.add_argument("--predictions", action="append", metavar="FILE",
                   help="sheets of K labels: a CSV with columns truth,prediction (one row per "
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


def label_names(text: str) -> list[str]:
    """``--labels a,b,c`` as a list (two or more distinct names)."""
    return _labels(text, "--labels")


def label_options(args: argparse.Namespace) -> dict[str, Any]:
    """The K-label rule's options from the command line (refusing the binary ones)."""
    binary = [flag for flag, value in (("--tie", args.tie),
                                       ("--positive-label", args.positive_label)) if value]
    if binary:
        raise ValidationError(f"{', '.join(binary)} are binary options; with --labels use "
                              "--tie-order, --order, --label, --k, --weights or --threshold "
                              "(the first label is the positive one at K = 2)")
    if args.fusioner not in RULES:
        raise ValidationError(f"--fusioner {args.fusioner} is a binary rule; with --labels use "
                              f"one of {', '.join(RULES)}")
    tie_order, order = getattr(args, "tie_order", None), getattr(args, "order", None)
    tie: Any = None
    if tie_order:
        tie = "slot" if tie_order.strip() == "slot" else _labels(tie_order, "--tie-order")
    return {"tie": tie, "weights": args.weights, "k": args.k, "threshold": args.threshold,
            "order": _labels(order, "--order") if order else None,
            "label": getattr(args, "label", None)}


def label_runs(args: argparse.Namespace, *, command: str = "derive --data") -> Any:
    """The K forced runs counted on ``args.data`` with the log options of ``args``."""
    import narwhals as nw

    from causalcost.data.forced_runs import forced_runs
    from causalcost.data.readers import read_table

    missing = [flag for flag, value in (("--truth", args.truth), ("--models", args.models),
                                        ("--slot", args.slot), ("--fusioner", args.fusioner))
               if not value]
    if missing:
        raise ValidationError(f"{command} --labels needs {', '.join(missing)}")
    options = label_options(args)
    labels = _labels(args.labels, "--labels")
    models = model_names(args.models)
    frame = nw.from_native(read_table(args.data, engine=args.engine))
    schema = frame.collect_schema()
    columns = [c for c in dict.fromkeys([args.truth, *models]) if c in schema]
    # a CSV's integer labels are compared as text, like the labels given on the command line
    frame = frame.with_columns(*(nw.col(c).cast(nw.String) for c in columns))
    try:
        runs = forced_runs(
            frame, truth=args.truth, slot=args.slot, labels=labels, models=models,
            fusioner=args.fusioner, **options)
    except (DataError, ValidationError) as exc:  # name the flags, not the Python arguments
        text = str(exc).replace("labels=", "--labels").replace("give labels ", "give --labels ")
        raise type(exc)(text) from None
    return runs


def derive_labels(args: argparse.Namespace) -> int:
    """``derive --data LOG --labels ...``."""
    from causalcost.sheet.derivation import derive_labelled_sheet

    if not args.data:
        raise ValidationError("--labels derives a sheet of K labels from logged predictions: "
                              "give --data FILE")
    if args.network or args.forced_p or args.forced_n:
        raise ValidationError("--labels goes with --data only, not NETWORK or --forced-p/-n")
    labels = _labels(args.labels, "--labels")
    costs = parse_matrix(args.costs, len(labels), "--costs")
    runs = label_runs(args)
    sheet = derive_labelled_sheet(
        runs, costs, assumption=args.assumption or "none", system_name=args.name or "system",
        provenance={"file": args.data,
                    "description": args.description or f"logged predictions in {args.data}"})
    sheet.save(args.output)
    print(f"wrote {args.output} (sheet of {len(labels)} labels {','.join(labels)}, slot "
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


def _named_matrix(text: str, index: int, k: int) -> tuple[str, list[list[float]]]:
    name, sep, cells = text.partition(":")
    key, matrix = (name.strip(), cells) if sep else (f"model{index}", text)
    if not key:
        raise ValidationError(f"--model {text!r}: the name before ':' is empty")
    return key, parse_matrix(matrix, k, "--model")


def _confusion_of(candidate: Any, sheet: Any) -> Any:
    """A K-label candidate (K x K counts, or a frame of truth and prediction) as its
    confusion over the sheet's labels."""
    from causalcost.confusion import Confusion
    from causalcost.data.predictions import count_confusion

    if hasattr(candidate, "columns"):
        return count_confusion(candidate["truth"], candidate["prediction"],
                               labels=sheet.label_names)
    return Confusion(candidate, labels=sheet.label_names)


def evaluate_labels_cli(args: argparse.Namespace, sheet: Any) -> int:
    """``evaluate`` against a sheet of K labels: one report, or the ranked table."""
    import warnings

    from causalcost.errors import CausalCostWarning
    from causalcost.evaluation.comparison import compare
    from causalcost.evaluation.report import evaluate

    if args.candidates is not None:
        raise ValidationError("--candidates applies to sheets of two labels; give a K-label "
                              "candidate with --model or --predictions")
    k = sheet.k
    given: dict[str, Any] = {}
    for i, text in enumerate(args.model or [], start=1):
        key, matrix = _named_matrix(text, i, k)
        if key in given:
            raise ValidationError(f"two candidates are named {key!r}: give each --model its own "
                                  "NAME:")
        given[key] = matrix
    for path in args.predictions or []:
        key = Path(path).stem
        if key in given:
            raise ValidationError(f"two candidates are named {key!r} (--predictions {path}): "
                                  "give each candidate its own name")
        given[key] = _read_predictions(path)
    if not given:
        raise ValidationError(f"give a candidate: --model with {k} x {k} counts, e.g. "
                              f"'{';'.join(','.join('0' for _ in range(k)) for _ in range(k))}'"
                              " (rows: true class), or --predictions FILE")
    options = {"confidence": args.confidence, "same_instances": args.same_instances,
               "row_fingerprint": args.row_fingerprint}
    if len(given) == 1:
        candidate = next(iter(given.values()))
        report = evaluate(sheet, candidate, **options)
        noise = None
        if args.label_accuracy is not None:
            from causalcost.evaluation.label_noise import label_noise_range

            noise = label_noise_range(sheet, _confusion_of(candidate, sheet),
                                      args.label_accuracy)
        print_with_label_noise(report, noise, args.json)
        return 0
    if args.label_accuracy is not None:  # the label-noise range is one candidate's
        raise ValidationError(f"--label-accuracy applies to one candidate; {len(given)} were "
                              "given: evaluate them one at a time, or drop --label-accuracy")
    with warnings.catch_warnings():  # printed below with the others, as 'warning:' lines
        warnings.simplefilter("ignore", CausalCostWarning)
        frame = compare(sheet, given, **options)
    if args.json:
        records = frame.reset_index(names="name").to_dict(orient="records")
        extra = {key: frame.attrs[key] for key in ("coverage", "confidence")
                 if key in frame.attrs}
        print_json({"slot": sheet.slot, "labels": list(sheet.labels),
                    "assumption": sheet.assumption, "sheet_sha256": sheet.digest,
                    "form": frame.attrs.get("form"), "instances": frame.attrs.get("instances"),
                    **extra, "warnings": list(frame.attrs.get("warnings", [])),
                    "candidates": [{key: _plain(v) for key, v in r.items()}
                                   for r in records]})
    else:
        from causalcost.display import wrapped
        from causalcost.evaluation.candidate_table import HIDDEN_COLUMNS, footer

        shown = frame.drop(columns=[c for c in HIDDEN_COLUMNS if c in frame.columns])
        lines = [f"candidates for slot {sheet.slot!r} (labels {','.join(sheet.labels)}), "
                 f"ranked by expected system cost (bounds assume: {sheet.assumption})",
                 f"  sheet {sheet.digest}",
                 shown.to_string(float_format=lambda v: f"{v:.6g}", line_width=99),
                 *footer(frame.attrs),
                 *(f"warning: {warning}" for warning in frame.attrs.get("warnings", []))]
        print("\n".join(wrapped(lines)))
    return 0


def reprice_labels(parent: Any, text: str) -> Any:
    """``derive SHEET --costs 'K x K'``: the sheet of K labels priced with other costs (a new
    sheet, new digest, provenance naming the parent's, unsigned)."""
    from dataclasses import replace
    from datetime import datetime, timezone

    from causalcost import __version__

    costs = parse_matrix(text, parent.k, "--costs")
    if hasattr(parent, "with_costs"):  # the sheet re-prices itself
        return parent.with_costs(costs)
    return replace(parent, costs=costs,
                   provenance={**parent.provenance, "repriced_from": parent.digest},
                   created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                   causalcost_version=__version__, signature=None)


def runs_labels(args: argparse.Namespace) -> int:
    """``runs LOG --labels ...``: the K forced runs, the kinds and the deployed system."""
    import numpy as np

    if args.confidence is not None:
        raise ValidationError("--confidence gives the binary rates' intervals; leave it out "
                              "with --labels")
    runs = label_runs(args, command="runs")
    labels = list(runs.labels)
    out: dict[str, Any] = {"slot": runs.slot, "labels": labels, "n": int(runs.n),
                           "forced": {lab: np.asarray(runs.forced[j]).tolist()
                                      for j, lab in enumerate(labels)}}
    observed = getattr(runs, "observed", None)
    if observed is not None:
        out["observed"] = observed.to_numpy().astype(np.int64).tolist()
    if args.candidate:
        out["candidate"] = {"column": args.candidate,
                            "system": runs.with_candidate(args.candidate).to_numpy()
                            .astype(np.int64).tolist()}
    if args.json:
        print_json(out)
        return 0
    print(f"forced runs of slot {runs.slot!r} in {runs.n} instances, labels "
          f"{','.join(labels)} (rows: true class, columns: system output)")
    for j, lab in enumerate(labels):
        print(f"  slot forced to {lab}: " + "; ".join(
            ",".join(str(int(v)) for v in row) for row in np.asarray(runs.forced[j])))
    if observed is not None:
        print("  as deployed: " + "; ".join(",".join(str(int(v)) for v in row)
                                           for row in observed.to_numpy()))
    if args.candidate:
        print(f"the system with column {args.candidate!r} in the slot: " + "; ".join(
            ",".join(str(int(v)) for v in row) for row in out["candidate"]["system"]))
    return 0


def coverage_labels(args: argparse.Namespace) -> int:
    """``experiment coverage --labels K``: the coverage experiment on a K-label system."""
    from causalcost.experiments.coverage import coverage_experiment
    from causalcost.experiments.label_coverage import COLUMNS
    from causalcost.files import write_atomic
    from causalcost.plotting.drawing import save_figure
    from causalcost.plotting.experiments import draw_coverage_curves, draw_coverage_heatmap

    if args.network is not None:
        raise ValidationError("--labels simulates its own K-label system: leave out NETWORK")
    if args.engine != "counts" or args.workers != 1:
        raise ValidationError("--engine and --workers apply to the binary experiment; leave "
                              "them out with --labels")
    k = args.labels
    from causalcost.experiments.label_coverage import LABEL_LIMIT

    if k > LABEL_LIMIT:
        raise ValidationError(f"--labels {k}: the experiment simulates at most {LABEL_LIMIT} "
                              "labels (its work grows as K**3); give fewer")
    costs = None if args.costs is None else parse_matrix(args.costs, k, "--costs")
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise ValidationError(f"-o {args.output!r} is a file: give a folder for the CSV and "
                              "pictures")
    folder.mkdir(parents=True, exist_ok=True)
    result = coverage_experiment(labels=k, n1=args.n1, n2=args.n2, repetitions=args.repetitions,
                                 seed=args.seed, costs=costs, confidence=args.confidence)
    write_atomic(folder / "coverage.csv", result.frame[list(COLUMNS)].to_csv(index=False))
    save_figure(draw_coverage_heatmap(result), folder / "coverage_heatmap.png")
    save_figure(draw_coverage_curves(result), folder / "coverage_curves.png")
    print(repr(result))
    print(f"wrote {folder / 'coverage.csv'}, coverage_heatmap.png and coverage_curves.png")
    return 0
