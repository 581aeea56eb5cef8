"""``causalcost runs``: forced runs, kinds and the deployed system, counted from logged data."""

from __future__ import annotations

import argparse
from typing import Any

from causalcost.cli.common import (
    cells,
    examples,
    print_json,
    probability,
    vote_arguments,
)
from causalcost.cli.parsing import name
from causalcost.confusion import format_number
from causalcost.errors import ValidationError

__all__ = ["register"]


def _score_runs(args: argparse.Namespace, runs: Any) -> int:
    """``runs`` on a log of score columns: the critical scores per class, the system as
    logged, and with ``--candidate`` the system with that score column in the slot."""
    import numpy as np

    from causalcost.cli.label_options import score_columns

    if args.confidence is not None:
        raise ValidationError("--confidence gives the forced votes' rates intervals; a score "
                              "log has critical scores, not rates: leave it out")
    out = runs.to_dict()
    system = None
    if args.candidate:
        scores = score_columns(args, [args.candidate], "--candidate")[args.candidate]
        system = runs.with_candidate(scores)
        out["candidate"] = {"column": args.candidate, "system": system.to_dict()}
    if args.json:
        print_json(out)
        return 0
    print(repr(runs))
    levels = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
    for label, t in zip(runs.labels, runs.critical_by_class):
        finite = t[np.isfinite(t)]
        shown = ", ".join(format_number(float(q)) for q in np.quantile(finite, levels)) \
            if finite.size else "none"
        print(f"class {label}: {t.size} rows; always P (t = -inf) {int((t == -np.inf).sum())}, "
              f"never P (t = +inf) {int((t == np.inf).sum())}; critical score quantiles "
              f"0, .1, .25, .5, .75, .9, 1: {shown}")
    if system is not None:
        print(f"with {args.candidate} in the slot: {system!r}")
    return 0


def _cmd_runs(args: argparse.Namespace) -> int:
    import numpy as np

    from causalcost.cli.label_options import log_runs

    if args.labels and args.confidence is not None:
        raise ValidationError("--confidence gives the binary rates' intervals; leave it out "
                              "with --labels")
    from causalcost.data.score_runs import ScoreRuns

    runs = log_runs(args, command="runs")
    if isinstance(runs, ScoreRuns):
        return _score_runs(args, runs)
    labels = list(runs.label_names)
    general: dict[str, Any] = {"slot": runs.slot, "labels": labels, "n": int(runs.n),
                               "forced": {label: np.asarray(runs.forced[j]).astype(int).tolist()
                                          for j, label in enumerate(labels)}}
    # a binary log adds its views: forced_p, forced_n, observed cells, kinds by class, ...
    out = {**general, **runs.to_dict()} if not args.labels else general
    if args.labels and runs.observed is not None:
        out["observed"] = runs.observed.to_numpy().astype(int).tolist()
    table = None
    if args.confidence is not None:
        table = runs.table(confidence=args.confidence)
        out["table"] = table.to_dict()  # every cell with ci_low, ci_high, n
    if args.candidate:
        system = runs.with_candidate(args.candidate)
        out["candidate"] = {"column": args.candidate, "system": (
            system.to_numpy().astype(int).tolist() if args.labels else
            {k: int(v) for k, v in system.to_dict().items()})}
    if args.json:
        print_json(out)
        return 0
    if args.labels:
        _print_label_runs(runs, out)
        return 0
    _print_runs(runs)
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
              f"{cells(runs.with_candidate(args.candidate))}")
    return 0


def _print_label_runs(runs: Any, out: dict[str, Any]) -> None:
    import numpy as np

    def rows(m: Any) -> str:
        return "; ".join(",".join(str(int(v)) for v in row) for row in np.asarray(m))

    labels = out["labels"]
    print(f"forced runs of slot {runs.slot!r} in {runs.n} instances, labels "
          f"{','.join(labels)} (rows: true class, columns: system output)")
    for j, label in enumerate(labels):
        print(f"  slot forced to {label}: {rows(runs.forced[j])}")
    if "observed" in out:
        print(f"  as deployed: {rows(out['observed'])}")
    if "candidate" in out:
        print(f"the system with column {out['candidate']['column']!r} in the slot: "
              f"{rows(out['candidate']['system'])}")


def _print_runs(runs: Any) -> None:
    """The forced runs in words and plain counts (no Python reprs)."""
    pos, neg = runs.forced_p.positives, runs.forced_p.negatives
    print(f"forced runs of slot {runs.slot!r} in {runs.n} instances "
          f"({format_number(pos)} positive, {format_number(neg)} negative)")
    print(f"  fusioner:          {runs.fusioner.description}")
    print(f"  slot forced to P:  {cells(runs.forced_p)}")
    print(f"  slot forced to N:  {cells(runs.forced_n)}")
    print("  as deployed:       " + (cells(runs.observed) if runs.has_slot_column else
                                     f"not counted (no column {runs.slot!r})"))
    kinds = runs.kinds
    for label, cls in (("positives", "P"), ("negatives", "N")):
        print(f"  {label} by kind: " + ", ".join(
            f"{kind} {int(kinds.loc[cls, kind])}" for kind in kinds.columns))
    right_only = int(kinds["right_only"].sum())
    print("  monotone on the data: " + (
        "yes (no instance fails only when the slot is right)" if runs.monotone_on_data else
        f"no ({right_only} instance{'s' if right_only != 1 else ''} fail only when the slot "
        "is right)"))


def register(sub: Any) -> None:
    """Add ``runs`` to the ``causalcost`` parser."""
    p = sub.add_parser(
        "runs", help="count forced runs and instance kinds from logged predictions",
        description="Count, in one group-by on the file's engine, the system's confusion with "
                    "the slot forced to P and to N, the instance kinds (never, wrong_only, "
                    "always, right_only) and the system as deployed, from a table with one row "
                    "per instance.")
    p.add_argument("data", metavar="FILE", help="a .csv or .parquet file, read lazily")
    p.add_argument("--slot", required=True, metavar="NAME", type=name,
                   help="the model under evaluation")
    vote_arguments(p, required=True)
    p.add_argument("--candidate", metavar="COLUMN", type=name,
                   help="also the real system with this prediction column in the slot")
    p.add_argument("--confidence", type=probability, default=None, metavar="LEVEL",
                   help="also the four rates with binomial intervals at this level")
    p.add_argument("--json", action="store_true", help="print JSON")
    from causalcost.cli.label_options import add_derive_arguments

    add_derive_arguments(p, "counts K forced runs")
    p.epilog = examples("causalcost runs log.csv --truth y --models mean,error,worst --slot "
                        "error --fusioner majority",
                        "causalcost runs log.csv --labels a,b,c --truth y --models m1,m2,m3 "
                        "--slot m2 --fusioner plurality")
    p.set_defaults(func=_cmd_runs)
