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
from collections.abc import Sequence
from typing import Any

from causalcost.cli.common import model_names, vote_options
from causalcost.errors import DataError, ValidationError

__all__ = ["SCORE_RULES", "add_derive_arguments", "add_evaluate_arguments",
           "add_score_arguments", "label_runs", "log_runs", "matrix_text", "parse_costs",
           "parse_matrix", "read_predictions", "rule_options", "score_columns",
           "score_log_runs", "score_route"]

#: K-label fusioner rules on the command line.
RULES = ("plurality", "weighted", "priority", "k_of_n")
#: Score fusioner rules on the command line (``--scores``: the model columns are scores).
SCORE_RULES = ("mean", "max", "min", "logistic")


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


def matrix_text(k: int, hit: str = "0", miss: str = "0") -> str:
    """A K x K example in the command line's form (rows separated by ';').

    >>> matrix_text(2), matrix_text(3, miss="1")
    ('0,0;0,0', '0,1,1;1,0,1;1,1,0')
    """
    return ";".join(",".join(hit if i == j else miss for j in range(k)) for i in range(k))


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
                              "--tie-order, --order, --label, --k, --weights or --threshold")
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


def parse_costs(text: str, labels: Sequence[str] | None, flag: str = "--costs") -> Any:
    """``--costs`` for any K: K rows of K costs ``'a,b,c;d,e,f;g,h,i'`` (rows: the true
    class, in the order of ``labels``), or for the labels P, N (a binary log, network or
    sheet: ``labels`` None or ``("P", "N")``) the cells ``fn=..,fp=..[,tp=..,tn=..]``. Cells
    with other labels are refused: which label ``fn`` misses is not said.

    >>> parse_costs("0,1,2;1,0,1;4,2,0", ["a", "b", "c"]).labels
    ('a', 'b', 'c')
    >>> parse_costs("fn=5,fp=1", None).to_numpy().tolist()
    [[0.0, 5.0], [1.0, 0.0]]
    >>> parse_costs("0,5;1,0", None) == parse_costs("fn=5,fp=1", ("P", "N"))
    True
    """
    from causalcost.confusion import CostMatrix

    names = ("P", "N") if labels is None else tuple(str(x) for x in labels)
    if "=" in text:
        if names != ("P", "N"):
            k = len(names)
            example = matrix_text(k, hit="0", miss="1")
            raise ValidationError(f"{flag} {text!r}: fn=/fp= cells are for the labels P, N; "
                                  f"for the labels {','.join(names)} give {k} rows of {k} "
                                  f"costs, e.g. '{example}' (rows: the true class)")
        return CostMatrix.parse(text)
    return CostMatrix(parse_matrix(text, len(names), flag), labels=list(names))


def rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """The fusioner's options for any K: ``labels=`` and the K-label options with
    ``--labels``, else ``positive=`` and the binary vote options."""
    if args.labels:
        return {"labels": label_names(args.labels), **label_options(args)}
    return {"positive": args.positive_label, **vote_options(args)}


def log_runs(args: argparse.Namespace, *, command: str, **extra: Any) -> Any:
    """The forced runs counted on ``args.data`` with the log options of ``args``, any K; a
    score rule (``--fusioner mean``, ``max``, ``min``, ``logistic``) gives the log's critical
    scores (:func:`score_log_runs`)."""
    if getattr(args, "fusioner", None) in SCORE_RULES:
        vote_only = [flag for flag, value in (("--labels", args.labels),
                                              ("--k", getattr(args, "k", None)),
                                              ("--tie", getattr(args, "tie", None)))
                     if value is not None]
        if vote_only:
            raise ValidationError(f"{', '.join(vote_only)} only for vote rules; --fusioner "
                                  f"{args.fusioner} fuses scores: leave it out")
        if getattr(args, "bias", None) is not None and args.fusioner != "logistic":
            raise ValidationError(f"--bias is the logistic meta-model's intercept; --fusioner "
                                  f"{args.fusioner} has none: leave it out")
        return score_log_runs(args)
    if getattr(args, "score_range", None) is not None:
        raise ValidationError("--score-range is the range of a score rule's scores (--fusioner "
                              "mean, max, min or logistic); vote rules read votes: leave it out")
    if getattr(args, "bias", None) is not None:
        raise ValidationError("--bias is the logistic meta-model's intercept (--fusioner "
                              "logistic, on score columns); vote rules have none: leave it out")
    if args.labels:
        return label_runs(args, command=command)
    from causalcost.cli.common import read_rows
    from causalcost.data.forced_runs import forced_runs

    return forced_runs(read_rows(args.data, engine=args.engine), truth=args.truth,
                       models=model_names(args.models), slot=args.slot, fusioner=args.fusioner,
                       positive=args.positive_label, **vote_options(args), **extra)


def read_predictions(path: str) -> Any:
    """``--predictions FILE``: a CSV with columns truth,prediction (labels as text)."""
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




# ------------------------------------------------------------------ score columns (--scores)
def breakpoint_count(text: str) -> int:
    """``--breakpoints B``: a whole number >= 2.

    >>> breakpoint_count("200")
    200
    """
    from causalcost.cli.parsing import count

    try:
        value = count(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number >= 2 (the most critical scores kept per class), "
            "e.g. 200; leave --breakpoints out for an exact sheet") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"{text!r}: keep at least 2 breakpoints per class")
    return value


def add_score_arguments(p: argparse.ArgumentParser) -> None:
    """``derive --data``'s options for a log of score columns (a score sheet)."""
    g = p.add_argument_group("score columns (--data with --scores: a score sheet)")
    g.add_argument("--scores", action="store_true",
                   help="the model columns hold scores for P (not votes): --fusioner mean, max, "
                        "min or logistic with --threshold (default 0.5) and --weights; writes a "
                        "score sheet of each instance's critical score")
    g.add_argument("--breakpoints", type=breakpoint_count, default=None, metavar="B",
                   help="keep at most B critical scores per class, those between rounded "
                        "outward so every bound stays valid (default: every one, exact); "
                        "with --score-columns at most B cells of offset vectors per class, "
                        "each priced at the corner that keeps every bound valid")
    g.add_argument("--score-columns", metavar="TEMPLATE", dest="score_columns", default=None,
                   help="K labels: with --labels a,b,c the models give probability vectors; "
                        "TEMPLATE names each model's column for each label with {model} and "
                        "{label} (e.g. '{model}_{label}' reads m1_a, m1_b, m1_c, ...). "
                        "--fusioner mean (soft voting; --weights), max or min; writes a K-label "
                        "score sheet of each instance's offset vector, --costs as K x K rows")


def score_route(args: argparse.Namespace) -> bool:
    """Whether ``derive`` reads score columns: ``--scores`` with a score fusioner. A score
    fusioner without ``--scores`` (or the other way round) and the vote-only options are
    refused in one line each."""
    scores = bool(getattr(args, "scores", False))
    rule = getattr(args, "fusioner", None)
    vectors = getattr(args, "score_columns", None) is not None
    if not scores:
        extra = [flag for flag, value in (("--bias", args.bias),
                                          ("--breakpoints", args.breakpoints),
                                          ("--score-range", getattr(args, "score_range", None)),
                                          ("--score-columns", getattr(args, "score_columns",
                                                                      None)))
                 if value is not None]
        if rule in SCORE_RULES:
            raise ValidationError(f"--fusioner {rule} fuses scores: add --scores (the model "
                                  "columns hold scores for P), or give a vote rule")
        if extra:
            raise ValidationError(f"{', '.join(extra)} apply to score columns: add --scores "
                                  "with --fusioner mean, max, min or logistic")
        return False
    if not args.data:
        raise ValidationError("--scores reads a log of score columns: give --data FILE")
    if rule is not None and rule not in SCORE_RULES:
        raise ValidationError(f"--scores takes a score rule, --fusioner {', '.join(SCORE_RULES)}"
                              f"; {rule} fuses votes (drop --scores for a log of votes)")
    vote_only = [flag for flag, value in (
        ("--labels", None if vectors else args.labels), ("--k", args.k), ("--tie", args.tie),
        ("--assumption", args.assumption), ("--order", getattr(args, "order", None)),
        ("--label", getattr(args, "label", None)),
        ("--tie-order", getattr(args, "tie_order", None))) if value is not None]
    if vote_only:
        hint = (" (or, for probability vectors over K labels, name each label's column with "
                "--score-columns '{model}_{label}')" if "--labels" in vote_only else "")
        raise ValidationError(f"{', '.join(vote_only)} apply to vote rules; a score sheet is "
                              "of the labels P, N and its critical scores assume a rule "
                              f"non-decreasing in the slot's score: drop them{hint}")
    if vectors:
        _vector_route(args, rule)
    if args.bias is not None and rule != "logistic":
        raise ValidationError(f"--bias is the logistic meta-model's intercept; --fusioner "
                              f"{rule} has none: drop it")
    return True


def _vector_route(args: argparse.Namespace, rule: str | None) -> None:
    """``--score-columns``: the flags a K-label score sheet takes, the others refused."""
    if not args.labels:
        raise ValidationError("--score-columns names each label's column: give the labels too, "
                              "--labels a,b,c (in the order of the vectors' entries)")
    template = args.score_columns
    if "{label}" not in template or "{model}" not in template:
        raise ValidationError(f"--score-columns {template!r} must hold both {{model}} and "
                              "{label}, e.g. '{model}_{label}' (the column of model m1's "
                              "probability for label a is then m1_a)")
    if rule is not None and rule not in ("mean", "max", "min"):
        raise ValidationError(f"--score-columns reads probability vectors, fused by --fusioner "
                              f"mean (soft voting: the weighted mean of the vectors, then the "
                              f"first largest), max or min (per label the largest or smallest "
                              f"member's probability); {rule} is not priced for K labels")
    extra = [flag for flag, value in (("--threshold", args.threshold), ("--bias", args.bias),
                                      ("--positive-label", args.positive_label))
             if value is not None]
    if extra:
        raise ValidationError(f"{', '.join(extra)} apply to scores for P (two labels); a soft "
                              "vote over K labels says the first largest mean: drop them")


def score_columns(args: argparse.Namespace, columns: Sequence[str], what: str) -> dict[str, Any]:
    """Columns of ``args.data`` as float scores, one per row in the log's order (the reader
    of :func:`score_log_runs`): a candidate's scores for the slot."""
    import narwhals as nw

    from causalcost.cli.common import read_rows

    frame = nw.from_native(read_rows(args.data, engine=args.engine))
    schema = frame.collect_schema()
    missing = [c for c in columns if c not in schema]
    if missing:
        raise DataError(f"{what} {', '.join(missing)}: no such column in {args.data}; its "
                        f"columns are {list(schema)}")
    got = frame.select(*(nw.col(c) for c in columns))
    if isinstance(got, nw.LazyFrame):
        got = got.collect()
    # read as the log's own columns are: a text file's cells must each parse as a number;
    # the rest of the rule (missing, range) is the runs' reader's (ScoreRuns.with_candidate)
    from causalcost.score_values import parse_text_scores

    return {c: parse_text_scores(got.get_column(c).to_numpy(), f"{what} {c}")
            if schema[c] == nw.String else got.get_column(c).to_numpy() for c in columns}


def score_log_runs(args: argparse.Namespace) -> Any:
    """The critical scores of ``args.data``'s score columns (:class:`ScoreRuns`), or with
    ``--labels`` and ``--score-columns`` each row's offset vector (K labels).

    The log is read by the CLI's reader (lazily where the engine can) and
    :func:`~causalcost.forced_runs` with the score rule computes each row's critical score in
    the engine; with ``--score-columns TEMPLATE`` the template's ``{label}`` is filled in per
    label and ``{model}`` left to :func:`~causalcost.forced_runs` (``scores={label:
    '{model}_' + label}``).
    """
    import narwhals as nw

    from causalcost.cli.common import read_rows
    from causalcost.data.forced_runs import forced_runs

    frame = nw.from_native(read_rows(args.data, engine=args.engine))
    models = model_names(args.models)
    template = getattr(args, "score_columns", None)
    labels = label_names(args.labels) if template else []
    scores = {label: template.replace("{label}", label) for label in labels}
    columns = [t.replace("{model}", m) for m in models for t in scores.values()] or models
    schema = frame.collect_schema()
    text = [m for m in columns if schema.get(m) == nw.String]
    if text:  # a text file's columns are read as text: each cell must parse as a number
        from causalcost.score_values import parse_text_scores

        got = frame.select(*(nw.col(m) for m in text))
        got = got.collect() if isinstance(got, nw.LazyFrame) else got
        for m in text:
            parse_text_scores(got.get_column(m).to_numpy(), f"score column {m!r}")
        frame = frame.with_columns(*(nw.col(m).cast(nw.Float64()) for m in text))
    weights = None if args.weights is None else [float(w) for w in args.weights]
    try:
        if template:
            return forced_runs(frame, truth=args.truth, models=models, slot=args.slot,
                               fusioner=args.fusioner, labels=labels, scores=scores,
                               weights=weights,
                               score_range=getattr(args, "score_range", None))
        return forced_runs(frame, truth=args.truth, models=model_names(args.models),
                           slot=args.slot, fusioner=args.fusioner,
                           threshold=0.5 if args.threshold is None else float(args.threshold),
                           weights=None if args.weights is None else [float(w) for w in
                                                                      args.weights],
                           bias=getattr(args, "bias", None) or 0.0,
                           positive=args.positive_label,
                           score_range=getattr(args, "score_range", None))
    except (DataError, ValidationError) as exc:  # the library names its arguments: the flags
        text = str(exc)
        for word in ("weights", "threshold", "models", "truth", "slot", "positive",
                     "score_range", "labels", "scores"):
            if text.startswith(f"{word}:"):
                flag = "score-columns" if word == "scores" else word.replace("_", "-")
                text = f"--{flag}{text[len(word):]}"
        raise type(exc)(text) from None
