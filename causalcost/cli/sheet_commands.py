"""Subcommands on cost sheets: ``derive``, ``evaluate``, ``bound`` (signing them:
:mod:`~causalcost.cli.signing_commands`)."""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING, Any

from causalcost.cli.common import (
    cells,
    examples,
    load_system,
    print_json,
    print_with_label_noise,
    probability,
    refuse_overwriting_inputs,
    sampling_arguments,
    vote_arguments,
)
from causalcost.cli.label_options import (
    add_derive_arguments,
    add_evaluate_arguments,
    add_score_arguments,
    matrix_text,
)
from causalcost.cli.parsing import name, output_file
from causalcost.errors import CausalCostWarning, ValidationError

if TYPE_CHECKING:
    pass

__all__ = ["register"]


def _cmd_derive(args: argparse.Namespace) -> int:
    from causalcost.cli.label_options import parse_costs, score_route
    from causalcost.confusion import Confusion
    from causalcost.network.netfile import network_path
    from causalcost.sheet.derivation import (
        network_provenance,
        sheet_from_forced_runs,
        sheet_from_network,
    )

    refuse_overwriting_inputs(args.output, "-o", {"NETWORK": args.network, "--data": args.data})
    if args.network is not None and args.network.lower().endswith(".json"):
        return _reprice(args)
    routes = [name for name, used in (("NETWORK", args.network),
                                      ("--forced-p/--forced-n", args.forced_p or args.forced_n),
                                      ("--data", args.data)) if used]
    if len(routes) != 1:
        raise ValidationError("derive takes exactly one of NETWORK, --forced-p with --forced-n, "
                              f"or --data FILE; got {', '.join(routes) or 'none'}")
    if score_route(args):
        return _score_sheet(args)
    if args.labels and not args.data:
        raise ValidationError("--labels names a log's labels: it goes with --data only (a "
                              "network file names its own labels, forced runs are binary)")
    if args.data:
        sheet = _sheet_from_data(args)
    elif args.forced_p or args.forced_n:
        if not (args.forced_p and args.forced_n):
            raise ValidationError("derive from forced runs takes both --forced-p and --forced-n")
        if not args.slot:
            raise ValidationError("derive from forced runs needs --slot NAME (the model whose "
                                  "forced runs these are)")
        sheet = sheet_from_forced_runs(
            Confusion.parse(args.forced_p), Confusion.parse(args.forced_n),
            parse_costs(args.costs, None), slot=args.slot,
            description=args.description or "forced runs given on the command line",
            system_name=args.name or "system",
            assumption=args.assumption or "monotone", confidence=args.confidence,
        )
    else:
        system = load_system(args)
        path = network_path(args.network)
        sheet = sheet_from_network(
            system, parse_costs(args.costs, system.labels), method=args.method,
            samples=args.samples, seed=args.seed, confidence=args.confidence,
            interval=args.interval, assumption=args.assumption or "monotone",
            provenance={**network_provenance(path), "network": system.name},
        )
    if sheet.label_names != ("P", "N"):
        labels = ",".join(sheet.label_names)
        sheet.save(args.output)
        print(f"wrote {args.output} (sheet of {sheet.k} labels {labels}, slot {sheet.slot!r}, "
              f"assumption {sheet.assumption})")
        print(f"  sheet: {sheet.digest}")
        return 0
    sheet.save(args.output)
    print(f"wrote {args.output} (slot {sheet.slot!r}, assumption {sheet.assumption})")
    print(f"  sheet: {sheet.digest}")
    return 0


#: derive's options that only apply when deriving afresh (not when re-pricing a sheet).
_DERIVE_ONLY = ("slot", "class_node", "system_node", "positive", "assumption", "forced_p",
                "forced_n", "data", "truth", "models", "fusioner", "k", "tie", "weights",
                "threshold", "positive_label", "description", "name", "seed", "labels", "order",
                "label", "tie_order", "bias", "breakpoints", "score_range", "score_columns")


def _reprice(args: argparse.Namespace) -> int:
    """``derive SHEET.json --costs CELLS -o OUT.json``: the sheet re-priced, not re-derived."""
    from causalcost.sheet.loading import load_sheet

    given = [f"--{key.replace('_', '-')}" for key in _DERIVE_ONLY
             if getattr(args, key, None) is not None]
    given += ["--scores"] if args.scores else []
    given += [f"--{key}" for key, default in (("method", "exact"), ("samples", 100_000),
                                              ("confidence", 0.95), ("interval", "wilson"),
                                              ("engine", None))
              if getattr(args, key) != default]
    if given:
        verb = "apply" if len(given) > 1 else "applies"
        raise ValidationError(f"derive {args.network} --costs re-prices a saved sheet (its rates "
                              f"do not depend on the costs); {', '.join(given)} {verb} only "
                              "when deriving afresh: drop them")
    from causalcost.cli.label_options import parse_costs

    parent = load_sheet(args.network)
    costs = parse_costs(args.costs, parent.label_names)
    with warnings.catch_warnings():  # said below, in the CLI's words
        warnings.simplefilter("ignore", CausalCostWarning)
        sheet = parent.with_costs(costs)
    shown = cells(costs) if "=" in args.costs else args.costs
    sheet.save(args.output)
    print(f"wrote {args.output} (slot {sheet.slot!r} re-priced with costs {shown})")
    print(f"  sheet:  {sheet.digest}")
    print(f"  parent: {parent.digest}")
    if parent.signature is not None:
        print("  unsigned: the parent's signature covers the parent's digest only; sign this "
              "sheet: causalcost sign")
    return 0


def _require_log_flags(args: argparse.Namespace, command: str) -> None:
    """A log's route needs --truth, --models, --slot and --fusioner: name the missing ones."""
    missing = [flag for flag, value in (("--truth", args.truth), ("--models", args.models),
                                        ("--slot", args.slot), ("--fusioner", args.fusioner))
               if not value]
    if missing:
        raise ValidationError(f"{command} needs {', '.join(missing)}")


def _sheet_from_data(args: argparse.Namespace) -> Any:
    from causalcost.cli.label_options import log_runs, parse_costs
    from causalcost.sheet.from_data import sheet_from_data

    _require_log_flags(args, "derive --data")
    runs = log_runs(args, command="derive --data")
    costs = parse_costs(args.costs, list(runs.label_names) if args.labels else None)
    return sheet_from_data(
        runs, costs, description=args.description or f"logged predictions in {args.data}",
        system_name=args.name or "system", assumption=args.assumption,
        confidence=args.confidence)


def _score_sheet(args: argparse.Namespace) -> int:
    """``derive --data LOG --scores``: a score sheet (``score_commands.score_derive``)."""
    from causalcost.cli.score_commands import score_derive

    _require_log_flags(args, "derive --data --scores")
    return score_derive(args)


def _cmd_show(args: argparse.Namespace) -> int:
    from causalcost.sheet.loading import load_sheet

    sheet = load_sheet(args.sheet)
    if args.json:
        print_json({**sheet.to_dict(), "signature_checked": sheet.signature_checked})
    else:
        print(sheet)
    return 0


def _named(text: str, index: int) -> tuple[str, str]:
    """``NAME:CELLS`` or ``CELLS`` (named ``model<index>``)."""
    name, sep, rest = text.partition(":")
    if sep and "=" not in name:
        if not name.strip():
            raise ValidationError(f"--model {text!r}: the name before ':' is empty; write "
                                  "NAME:CELLS or leave out the ':'")
        return name.strip(), rest
    return f"model{index}", text


def _parse_model(text: str, k: int) -> Any:
    """One ``--model``'s counts: ``tp=..,fn=..,fp=..,tn=..`` (two labels) or K rows of K
    counts ``'a,b;c,d'`` (rows: the true class)."""
    from causalcost.cli.label_options import parse_matrix
    from causalcost.confusion import Confusion

    if "=" in text:
        if k != 2:
            raise ValidationError(f"--model {text!r}: tp/fn/fp/tn cells are for two labels; this "
                                  f"sheet has {k}: give {k} rows of {k} counts, e.g. "
                                  f"'{matrix_text(k)}'")
        return Confusion.parse(text)
    return parse_matrix(text, k, "--model")


def _given_candidates(args: argparse.Namespace, sheet: Any) -> dict[str, Any]:
    """``--model`` and ``--predictions`` candidates by name (a name used twice refused)."""
    from pathlib import Path

    from causalcost.cli.label_options import read_predictions

    given: dict[str, Any] = {}

    def add(name: str, candidate: Any, where: str) -> None:
        if name in given:
            raise ValidationError(f"two candidates are named {name!r}{where}: give each "
                                  "candidate its own name (--model NAME:...)")
        given[name] = candidate

    for i, text in enumerate(args.model or [], start=1):
        name, cells_text = _named(text, i)
        add(name, _parse_model(cells_text, sheet.k), "")
    for path in args.predictions or []:
        add(Path(path).stem, read_predictions(path), f" (--predictions {path})")
    return given


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from causalcost.evaluation.comparison import compare
    from causalcost.evaluation.report import evaluate
    from causalcost.sheet.loading import load_sheet

    sheet = load_sheet(args.sheet)
    from causalcost.evaluation.score_inputs import is_score_sheet

    if args.scores or is_score_sheet(sheet):  # a score sheet: candidates as scores
        from causalcost.cli.score_commands import score_evaluate

        return score_evaluate(args, sheet)
    k = sheet.k
    if args.candidates and k != 2:
        raise ValidationError(f"--candidates reads tp,fn,fp,tn columns (two labels); this sheet "
                              f"has {k} labels: give each candidate with --model ({k} rows of "
                              f"{k} counts) or --predictions FILE")
    given = _given_candidates(args, sheet)
    candidates: Any = given
    if args.candidates:
        from causalcost.evaluation.candidates import candidates_frame, read_candidates_frame

        candidates = candidates_frame(given, read_candidates_frame(args.candidates))
    if len(candidates) == 0:
        example = ("tp=..,fn=..,fp=..,tn=.. or --candidates CSV" if k == 2 else
                   f"{k} rows of {k} counts, e.g. '{matrix_text(k)}'")
        raise ValidationError(f"give a candidate: --model {example} (rows: the true class), or "
                              "--predictions FILE")
    options = {"confidence": args.confidence, "same_instances": args.same_instances,
               "row_fingerprint": args.row_fingerprint}
    if len(candidates) == 1:
        model = (next(iter(candidates.values())) if isinstance(candidates, dict)
                 else candidates.iloc[0])
        if not isinstance(candidates, dict):
            from causalcost.confusion import Confusion

            model = Confusion(*model[["tp", "fn", "fp", "tn"]].tolist())
        report = evaluate(sheet, model, **options)
        noise = None
        if args.label_accuracy is not None:
            from causalcost.evaluation.label_noise import label_noise_range

            if hasattr(model, "columns"):  # --predictions: the candidate's counted confusion
                from causalcost.data.predictions import count_confusion

                model = count_confusion(model["truth"], model["prediction"],
                                        labels=sheet.label_names)
            noise = label_noise_range(sheet, model, args.label_accuracy)
        print_with_label_noise(report, noise, args.json)
        return 0
    if args.label_accuracy is not None:  # the label-noise range is one candidate's
        raise ValidationError(f"--label-accuracy applies to one candidate; {len(candidates)} were "
                              "given: evaluate them one at a time, or drop --label-accuracy")
    with warnings.catch_warnings():  # printed below with the others, as 'warning:' lines
        warnings.simplefilter("ignore", CausalCostWarning)
        frame = compare(sheet, candidates, **options)
    _print_ranking(sheet, frame, args.json)
    return 0


def _print_ranking(sheet: Any, frame: Any, as_json: bool) -> None:
    """The ranked candidates, as JSON or as a table with its footer and warnings."""
    labels = list(sheet.label_names)
    if as_json:
        records = frame.reset_index(names="name").to_dict(orient="records")
        extra = {k: frame.attrs[k] for k in ("coverage", "confidence") if k in frame.attrs}
        print_json({"slot": sheet.slot, "labels": labels, "assumption": sheet.assumption,
                    "sheet_sha256": frame.attrs.get("sheet_sha256", sheet.digest),
                    "form": frame.attrs.get("form"), "instances": frame.attrs.get("instances"),
                    **extra, "warnings": list(frame.attrs.get("warnings", [])),
                    "candidates": [{k: _plain(v) for k, v in r.items()} for r in records]})
        return
    from causalcost.display import wrapped
    from causalcost.evaluation.candidate_table import HIDDEN_COLUMNS, footer

    shown = frame.drop(columns=[c for c in HIDDEN_COLUMNS if c in frame.columns])
    which = "" if sheet.k == 2 else f" (labels {','.join(labels)})"
    lines = [f"candidates for slot {sheet.slot!r}{which}, ranked by expected system cost "
             f"(bounds assume: {sheet.assumption})", f"  sheet {sheet.digest}",
             shown.to_string(float_format=lambda v: f"{v:.6g}", line_width=99),
             *footer(frame.attrs),
             *(f"warning: {warning}" for warning in frame.attrs.get("warnings", []))]
    print("\n".join(wrapped(lines)))


def _plain(value: Any) -> Any:
    """A JSON value: numpy scalars as Python numbers, an undefined metric (NaN) as null."""
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and value != value else value


def _cmd_bound(args: argparse.Namespace) -> int:
    from causalcost.confusion import Confusion, CostMatrix
    from causalcost.pricing.bounds import bound

    forced_p, forced_n = Confusion.parse(args.forced_p), Confusion.parse(args.forced_n)
    model, costs = Confusion.parse(args.model), CostMatrix.parse(args.costs)
    if args.confidence is None:
        result = bound(forced_p, forced_n, model, costs, assumption=args.assumption)
    else:  # scipy's distributions load only when asked for (half a second at start-up)
        from causalcost.pricing.high_confidence import high_confidence_bound

        result = high_confidence_bound(forced_p, forced_n, model, costs,
                                       confidence=args.confidence, assumption=args.assumption)
    noise = None
    if args.label_accuracy is not None:
        from causalcost.evaluation.label_noise import label_noise_range
        from causalcost.sheet.derivation import sheet_from_forced_runs

        sheet = sheet_from_forced_runs(forced_p, forced_n, costs, slot="slot",
                                       description="forced runs given to causalcost bound",
                                       assumption=args.assumption)
        noise = label_noise_range(sheet, model, args.label_accuracy)
    print_with_label_noise(result, noise, args.json)
    return 0


def register(sub: Any) -> None:
    """Add the sheet subcommands to the ``causalcost`` parser."""
    p = sub.add_parser(
        "derive", help="derive a cost sheet for model owners",
        description="Derive a cost sheet (JSON) from exactly one source: a network (NETWORK); "
                    "the system's confusion with the slot forced to P and to N (--forced-p, "
                    "--forced-n, --slot); or logged predictions (--data FILE with --truth, "
                    "--models, --slot, --fusioner; with --scores the columns are scores and "
                    "the sheet a score sheet). --slot is needed for forced runs and "
                    "data; for a network it overrides the file's slot. Given a saved sheet "
                    "(SHEET.json) and --costs, it re-prices that sheet instead: a new sheet, "
                    "new digest, provenance naming the parent's.")
    p.add_argument("network", metavar="NETWORK", nargs="?",
                   help="a network file or shipped network (omit with --forced-p or --data); "
                        "or a saved SHEET.json to re-price with --costs (the rates are kept)")
    p.add_argument("--slot", metavar="NAME", type=name,
                   help="the model under evaluation (required with --forced-p or --data)")
    bif = p.add_argument_group("roles for BIF files (a TOML file names its own roles)")
    bif.add_argument("--class-node", metavar="NAME", type=name, help="the true-class node")
    bif.add_argument("--system-node", metavar="NAME", type=name, help="the system-prediction node")
    bif.add_argument("--positive", metavar="STATE", type=name, default=None,
                     help="positive state of a BIF file's roles (default: P)")
    sampling_arguments(p)
    p.add_argument("--costs", required=True, metavar="CELLS",
                   help="system cost matrix: fn=5,fp=1[,tp=0,tn=0] for the labels P, N, or "
                        "K rows of K costs 'a,b,c;d,e,f;g,h,i' (rows: true class) for a "
                        "network file or log of K labels")
    p.add_argument("--assumption", choices=("monotone", "none"), default=None,
                   help="bound assumption (default: monotone, checked on the network; for data, "
                        "monotone when no instance fails only because the slot is right)")
    counted = p.add_argument_group("forced runs counted elsewhere")
    counted.add_argument("--forced-p", metavar="CELLS",
                         help="system confusion with the slot forced to P, e.g. "
                              "tp=80,fn=20,fp=40,tn=160")
    counted.add_argument("--forced-n", metavar="CELLS",
                         help="system confusion with the slot forced to N")
    data = p.add_argument_group("logged predictions (--data)")
    data.add_argument("--data", metavar="FILE", help="a .csv or .parquet file, read lazily")
    vote_arguments(data, required=False)
    p.add_argument("--description", metavar="TEXT", help="provenance of forced runs or data")
    p.add_argument("--name", metavar="TEXT", help="the system's name in reports")
    p.add_argument("-o", "--output", required=True, metavar="SHEET.json", type=output_file,
                   help="where to write the sheet (written atomically; a regular file or a new "
                        "one)")
    add_derive_arguments(p)
    add_score_arguments(p)
    p.epilog = examples("causalcost derive thesis_and --costs fn=5,fp=1 -o sheet.json",
                        "causalcost derive --data log.csv --scores --truth y --models a,b,c "
                        "--slot b --fusioner mean --threshold 0.5 --costs fn=5,fp=1 -o "
                        "score_sheet.json",
                        "causalcost derive --data log.csv --labels a,b,c --truth y --models "
                        "m1,m2,m3 --slot m2 --fusioner plurality --costs '0,1,4;2,0,1;6,3,0' "
                        "-o sheet.json",
                        "causalcost derive --data log.csv --scores --labels a,b,c "
                        "--score-columns '{model}_{label}' --truth y --models m1,m2,m3 --slot "
                        "m2 --fusioner mean --costs '0,1,4;2,0,1;6,3,0' -o score_sheet3.json")
    p.set_defaults(func=_cmd_derive)

    p = sub.add_parser("show", help="show a sheet: what it holds, its digest and signature",
                       description="Read and check a sheet (a cost sheet of any K or a score "
                                   "sheet: format, digest, signature when cryptography is "
                                   "installed) and print it as text, or its fields as JSON.")
    p.add_argument("sheet", metavar="SHEET.json", help="a sheet written by 'causalcost derive'")
    p.add_argument("--json", action="store_true", help="print the checked sheet as JSON")
    p.epilog = examples("causalcost show sheet.json")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("evaluate", help="evaluate candidate models against a cost sheet",
                       description="Evaluate one candidate (a report) or several (a ranked "
                                   "comparison) against a cost sheet. Every report echoes the "
                                   "sheet's SHA-256.")
    p.add_argument("sheet", metavar="SHEET.json", help="a sheet written by 'causalcost derive'")
    p.add_argument("--model", action="append", metavar="[NAME:]CELLS",
                   help="candidate confusion, e.g. tp=50,fn=50,fp=100,tn=100; repeat to compare")
    p.add_argument("--candidates", metavar="CSV", help="CSV with columns name,tp,fn,fp,tn")
    p.add_argument("--confidence", type=probability, default=None, metavar="LEVEL",
                   help="add intervals on every cost and the worst and best cases that hold on "
                        "the candidate's own instances with this probability each, e.g. 0.95")
    p.add_argument("--same-instances", action="store_true",
                   help="declare that the candidates were counted on the very rows of the "
                        "sheet's forced runs: exact (count-form) worst and best cases; by "
                        "default they are taken as counted on other rows (probability form)")
    p.add_argument("--row-fingerprint", metavar="SHA256", default=None,
                   help="prove the rows instead: the fingerprint (causalcost.row_fingerprint) "
                        "of the rows the candidates were counted on, matched against the "
                        "sheet's")
    p.add_argument("--label-accuracy", type=probability, default=None, metavar="A",
                   help="the truth labels the candidate was counted against are right with "
                        "probability A (> 0.5): give Eval1 and the worst and best case as ranges")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_evaluate_arguments(p)
    from causalcost.cli.score_commands import add_score_candidate_arguments

    add_score_candidate_arguments(p)
    p.epilog = examples("causalcost evaluate sheet.json --model tp=50,fn=50,fp=100,tn=100 "
                        "--confidence 0.95",
                        "causalcost evaluate score_sheet.json --scores cand.csv --truth y "
                        "--score-column p --same-instances",
                        "causalcost evaluate score_sheet3.json --scores cand.csv --truth y "
                        "--score-column 'p_{label}' --same-instances",
                        "causalcost evaluate sheet3.json --model "
                        "'a:40,5,5;4,30,6;2,3,45' --model 'b:45,3,2;5,30,5;3,3,44'")
    p.set_defaults(func=_cmd_evaluate)

    p = sub.add_parser("bound", help="worst/best-case system confusion from counts",
                       description="Worst and best system confusion for a candidate, from the "
                                   "system's confusion with the slot forced to P and to N. On "
                                   "the candidate's own instances the bound is exact; counted on "
                                   "other instances, add --confidence.")
    p.add_argument("--forced-p", required=True, metavar="CELLS",
                   help="system confusion with the slot forced to P, e.g. tp=80,fn=20,fp=40,tn=160")
    p.add_argument("--forced-n", required=True, metavar="CELLS",
                   help="system confusion with the slot forced to N")
    p.add_argument("--model", required=True, metavar="CELLS",
                   help="the candidate's confusion, e.g. tp=50,fn=50,fp=100,tn=100")
    p.add_argument("--costs", default="fn=1,fp=1", metavar="CELLS",
                   help="system cost matrix (default: fn=1,fp=1: counts errors)")
    p.add_argument("--assumption", choices=("monotone", "none"), default="monotone",
                   help="monotone, or none (valid for any system) (default: monotone)")
    p.add_argument("--confidence", type=probability, default=None, metavar="LEVEL",
                   help="the forced runs were counted on other instances: a worst case that "
                        "holds on the candidate's instances with this probability")
    p.add_argument("--label-accuracy", type=probability, default=None, metavar="A",
                   help="the truth labels are right with probability A (> 0.5): also Eval1 and "
                        "the worst and best case as ranges (probability form on the rates)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.epilog = examples("causalcost bound --forced-p tp=50,fn=50,fp=0,tn=0 --forced-n "
                        "tp=0,fn=100,fp=0,tn=0 --model tp=50,fn=50,fp=0,tn=0")
    p.set_defaults(func=_cmd_bound)
