"""``causalcost experiment coverage|ratio``: the seeds' experiments, with CSV and pictures."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from causalcost.cli.common import count, examples, probability, seed
from causalcost.errors import ValidationError
from causalcost.files import output_target, write_atomic

__all__ = ["register"]


def _sizes(text: str) -> list[int]:
    try:
        return [count(part) for part in text.split(",") if part.strip()]
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"sizes {text!r}: {exc}") from None


def _costs(text: str | None) -> Any:
    from causalcost.confusion import CostMatrix

    return None if text is None else CostMatrix.parse(text)


def _output_folder(text: str) -> str:
    """``-o DIR``: not empty, and not an existing file (checked when the line is read)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the folder is empty: give a folder for the CSV and "
                                         "pictures, e.g. -o results")
    if os.path.lexists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder: give a folder for the CSV "
                                         "and pictures")
    return text


def _folder(path: str, names: tuple[str, ...]) -> Path:
    """The output folder, made if missing; the files it will get are checked before any work
    (a device or a folder where a file goes is refused, not replaced)."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ValidationError(f"-o {path!r} is a file: give a folder for the CSV and pictures")
    for file_name in names:
        if folder.is_dir():
            output_target(folder / file_name, flag="-o")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _coverage_options(args: argparse.Namespace) -> dict[str, Any]:
    """The system, costs and engine options of ``experiment coverage``; with ``--labels K`` a
    simulated K-label system (no NETWORK, engine or workers; --costs as K x K rows)."""
    if args.labels is None:
        return {"system": args.network, "costs": _costs(args.costs), "engine": args.engine,
                "workers": args.workers, "progress": False if args.quiet else None}
    from causalcost.cli.label_options import parse_matrix
    from causalcost.experiments.plurality import LABEL_LIMIT

    if args.network is not None:
        raise ValidationError("--labels simulates its own K-label system: leave out NETWORK")
    if args.engine != "counts" or args.workers != 1:
        raise ValidationError("--engine and --workers apply to the binary experiment; leave "
                              "them out with --labels")
    if args.labels > LABEL_LIMIT:
        raise ValidationError(f"--labels {args.labels}: the experiment simulates at most "
                              f"{LABEL_LIMIT} labels (its work grows as K**3); give fewer")
    costs = None if args.costs is None else parse_matrix(args.costs, args.labels, "--costs")
    return {"labels": args.labels, "costs": costs}


def _cmd_coverage(args: argparse.Namespace) -> int:
    from causalcost.experiments.coverage import COLUMNS, coverage_experiment
    from causalcost.plotting.drawing import save_figure
    from causalcost.plotting.experiments import draw_coverage_curves, draw_coverage_heatmap

    options = _coverage_options(args)
    folder = _folder(args.output, ("coverage.csv", "coverage_heatmap.png", "coverage_curves.png"))
    result = coverage_experiment(n1=args.n1, n2=args.n2, repetitions=args.repetitions,
                                 seed=args.seed, confidence=args.confidence, **options)
    frame = result.frame
    write_atomic(folder / "coverage.csv", frame[list(COLUMNS)].to_csv(index=False))
    save_figure(draw_coverage_heatmap(result), folder / "coverage_heatmap.png")
    save_figure(draw_coverage_curves(result), folder / "coverage_curves.png")
    print(f"coverage of the worst case on {result.system}: {len(frame)} cells (n1 x n2), "
          f"{int(frame['repetitions'].iloc[0])} repetitions each")
    for label, column in (("plain", "p_plain"),
                          (f"high-confidence ({result.confidence:.0%})", "p_high_confidence")):
        print(f"  {label} worst case holds in {frame[column].min():.1%} to "
              f"{frame[column].max():.1%} of the repetitions")
    print(f"wrote {folder / 'coverage.csv'}, coverage_heatmap.png and coverage_curves.png")
    return 0


def _cmd_ratio(args: argparse.Namespace) -> int:
    from causalcost.experiments.ratio import RATIO_COLUMNS, ratio_experiment
    from causalcost.plotting.drawing import save_figure
    from causalcost.plotting.experiments import draw_ratio_histogram

    folder = _folder(args.output, ("ratio.csv", "ratio.png"))
    result = ratio_experiment(
        args.network, n=args.n, repetitions=args.repetitions, seed=args.seed,
        costs=_costs(args.costs), confidence=args.confidence, engine=args.engine,
        progress=False if args.quiet else None)
    write_atomic(folder / "ratio.csv", result.frame[list(RATIO_COLUMNS)].to_csv(index=False))
    save_figure(draw_ratio_histogram(result), folder / "ratio.png")
    summary = result.summary()
    print(f"real system cost / worst case on {result.system}: {len(result.frame)} repetitions "
          f"of n={result.n}")
    print(f"  above 1 (worst case exceeded): {summary.loc['ratio_plain', 'share_above_1']:.2%} "
          f"plain, {summary.loc['ratio_high_confidence', 'share_above_1']:.2%} "
          f"high-confidence; largest {summary.loc['ratio_plain', 'max']:.4g}")
    print(summary.to_string(float_format=lambda v: f"{v:.4g}"))
    print(f"wrote {folder / 'ratio.csv'} and ratio.png")
    return 0


def _common(p: argparse.ArgumentParser, per: str) -> None:
    p.add_argument("--repetitions", type=count, metavar="R",
                   help=f"repetitions{per} (default: %(default)s)")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help="results depend only on the seed (default: 0)")
    p.add_argument("--costs", metavar="CELLS", help="system costs (default: fn=1,fp=1)")
    p.add_argument("--confidence", type=probability, default=0.95, metavar="LEVEL",
                   help="of the high-confidence bound (default: 0.95)")
    p.add_argument("--engine", choices=("counts", "instances"), default="counts",
                   help="counts: multinomial cell counts (fast); instances: per-instance "
                        "sampling from the network (the validation path) (default: counts)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("-o", "--output", required=True, metavar="DIR", type=_output_folder,
                   help="folder for the CSV and the PNG pictures")


def register(sub: Any) -> None:
    """Add ``experiment coverage`` and ``experiment ratio`` to the ``causalcost`` parser."""
    from causalcost.cli.common import Parser

    p = sub.add_parser("experiment", help="the seeds' two experiments (coverage, ratio)",
                       description="Simulate the two-stage evaluation of the seeds: forced runs "
                                   "on n1 instances, the candidate on n2 others.")
    p.epilog = examples("causalcost experiment coverage --repetitions 1000 -o results/",
                        "causalcost experiment ratio --repetitions 5000 -o results/")
    kinds = p.add_subparsers(dest="experiment", metavar="EXPERIMENT", parser_class=Parser)
    kinds.required = True

    c = kinds.add_parser(
        "coverage", help="P(worst case >= real cost) over a grid of (n1, n2)",
        description="Experiment 1: how often the plain and the high-confidence worst case hold. "
                    "Writes DIR/coverage.csv (n1, n2, repetitions, p_plain, p_high_confidence, "
                    "tightness_high_confidence, tightness_plain) and two PNG pictures.")
    c.add_argument("network", metavar="NETWORK", nargs="?", default=None,
                   help="the system (default: the slides' experiment_or)")
    grid = "10,31,100,316,1000,3162,10000"
    c.add_argument("--n1", type=_sizes, default=_sizes(grid), metavar="SIZES",
                   help=f"forced-run sizes (default: {grid})")
    c.add_argument("--n2", type=_sizes, default=_sizes(grid), metavar="SIZES",
                   help=f"candidate sizes (default: {grid})")
    c.add_argument("--workers", type=count, default=1, metavar="W",
                   help="processes; the results do not depend on it (default: 1)")
    _common(c, " per (n1, n2) cell")
    c.add_argument("--labels", type=count, default=None, metavar="K",
                   help="simulate a K-label plurality system instead (K >= 2; --costs as K x K "
                        "rows 'a,b,c;d,e,f;g,h,i'; no NETWORK)")
    c.epilog = examples("causalcost experiment coverage --repetitions 1000 -o results/",
                        "causalcost experiment coverage --labels 3 --n1 30,300 --n2 30,300 "
                        "--repetitions 200 -o results/")
    c.set_defaults(func=_cmd_coverage, repetitions=1000)

    r = kinds.add_parser(
        "ratio", help="the distribution of real cost / worst case",
        description="Experiment 2: real cost over the plain and the high-confidence worst case, "
                    "and over cost function 1. Writes DIR/ratio.csv (one row per repetition: "
                    "ratio_plain, ratio_high_confidence, ratio_expected) and DIR/ratio.png. "
                    "Without NETWORK, a new random two-model OR system per repetition.")
    r.add_argument("network", metavar="NETWORK", nargs="?", default=None,
                   help="the system (default: random two-model systems)")
    r.add_argument("--n", type=count, default=20_000, metavar="N",
                   help="instances in each stage (default: 20000)")
    _common(r, "")
    r.epilog = examples("causalcost experiment ratio --repetitions 5000 -o results/")
    r.set_defaults(func=_cmd_ratio, repetitions=100_000)
