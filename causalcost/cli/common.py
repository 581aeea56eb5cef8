"""What every ``causalcost`` subcommand shares: the parser class, argument types, output."""

from __future__ import annotations

import argparse
import json
from typing import Any, NoReturn

from causalcost.cli.parsing import (
    count,
    exact_number,
    exact_numbers,
    finite_number,
    name,
    probability,
    sample_count,
    seed,
    shorten,
)
from causalcost.errors import ValidationError

__all__ = ["EXIT_USER_ERROR", "HelpFormatter", "Parser", "cells", "count", "examples",
           "finite_number", "load_system", "model_names", "network_arguments", "print_json",
           "print_with_label_noise", "probability", "read_rows", "refuse_overwriting_inputs",
           "sampling_arguments", "seed", "vote_arguments", "vote_options"]

EXIT_USER_ERROR = 2


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, except that an epilog's or description's indented lines (example
    commands) are kept as written rather than re-wrapped; other lines wrap as usual."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        prose: list[str] = []
        for line in [*text.splitlines(), ""]:
            if line.strip() and not line.startswith(" "):
                prose.append(line)
                if not line.rstrip().endswith(":"):
                    continue
            if prose:
                out.append(super()._fill_text(" ".join(prose), width, indent))
                prose = []
            if line.startswith(" ") and line.strip():
                out.append(indent + line.rstrip())
        return "\n".join(out)


def examples(*commands: str) -> str:
    """An epilog of example invocations, one per line, shown as written by ``--help``.

    >>> print(examples("causalcost networks"))
    example:
      causalcost networks
    """
    return ("example:\n" if len(commands) == 1 else "examples:\n") + "\n".join(
        f"  {command}" for command in commands)


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and keeps its examples' lines)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        text = shorten(" ".join(message.split()))
        self.exit(EXIT_USER_ERROR, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def network_arguments(p: argparse.ArgumentParser, *, slot_help: str = "",
                      optional: bool = False) -> None:
    """NETWORK, --slot and the BIF roles."""
    p.add_argument("network", metavar="NETWORK", nargs="?" if optional else None,
                   help="a network file (.toml or .bif) or a shipped network's name "
                        "(see 'causalcost networks')")
    p.add_argument("--slot", metavar="NAME", type=name,
                   help=slot_help or "the model under evaluation (default: the file's slot)")
    bif = p.add_argument_group("roles for BIF files (a TOML file names its own roles)")
    bif.add_argument("--class-node", metavar="NAME", type=name, help="the true-class node")
    bif.add_argument("--system-node", metavar="NAME", type=name,
                     help="the system-prediction (fusioner) node")
    bif.add_argument("--positive", metavar="STATE", type=name, default=None,
                     help="positive state of class, models and system prediction (default: P)")


def sampling_arguments(p: argparse.ArgumentParser) -> None:
    """--method, --samples, --seed, --confidence, --interval."""
    p.add_argument("--method", choices=("exact", "sampling"), default="exact",
                   help="exact contraction or forward sampling with intervals "
                        "(default: exact)")
    p.add_argument("--samples", type=sample_count, default=100_000, metavar="N",
                   help="simulated instances for --method sampling, e.g. 1e5 (default: 100000; "
                        "at most 1e9, about two minutes per slot)")
    p.add_argument("--seed", type=seed, default=None, metavar="S", help="random seed for sampling")
    p.add_argument("--confidence", type=probability, default=0.95, metavar="LEVEL",
                   help="confidence level of intervals (default: 0.95)")
    p.add_argument("--interval", choices=("wilson", "clopper-pearson"), default="wilson",
                   help="binomial interval for sampled cells (default: wilson)")


def load_system(args: argparse.Namespace) -> Any:
    """The System named by NETWORK (TOML or shipped by name; BIF with its roles)."""
    from causalcost.network.netfile import load_bif, load_network, network_path

    path = network_path(args.network)
    bif_flags = [flag for flag, value in (("--class-node", args.class_node),
                                          ("--system-node", args.system_node),
                                          ("--positive", args.positive)) if value is not None]
    if path.suffix.lower() == ".bif":
        missing = [flag for flag, value in (("--class-node", args.class_node),
                                            ("--system-node", args.system_node)) if not value]
        if missing:
            raise ValidationError(f"a BIF file needs {' and '.join(missing)} to name its roles")
        return load_bif(path, class_node=args.class_node, system_node=args.system_node,
                        positive=args.positive or "P", slot=args.slot)
    if bif_flags:
        verb, it = ("applies", "it") if len(bif_flags) == 1 else ("apply", "them")
        raise ValidationError(f"{' and '.join(bif_flags)} {verb} to BIF files only: the TOML "
                              f"network {args.network!r} names its own roles; drop {it}")
    return load_network(path, slot=args.slot)


def refuse_overwriting_inputs(output: str, flag: str, inputs: dict[str, str | None]) -> None:
    """Refuse an output path that names one of the command's input files (by any name): the
    write would destroy the input (a network, a data file, a private key)."""
    import os

    from causalcost.sheet.signing import _same_file

    for source, path in inputs.items():
        if path and os.path.exists(path) and _same_file(output, path):
            raise ValidationError(f"{flag} {output!r} is the file given as {source}: writing "
                                  f"would destroy it; give another path to {flag}")


def cells(confusion: Any) -> str:
    """A confusion or cost matrix as the user writes it: ``tp=50 fn=50 fp=100 tn=100``
    (counts as integers, never ``50.0``; costs to six significant digits)."""
    from causalcost.display import format_cells

    return format_cells(confusion)


def print_json(data: Any) -> None:
    """JSON on stdout, never with NaN or Infinity (they are not JSON)."""
    try:
        print(json.dumps(data, indent=2, allow_nan=False))
    except ValueError:
        raise ValidationError("a result is not finite and cannot be written as JSON; rescale "
                              "the inputs") from None


def vote_arguments(group: Any, *, required: bool) -> None:
    """The logged-data arguments shared by ``runs`` and ``derive --data``: the truth and model
    columns, the fusioner and its options, the positive label and the engine."""
    group.add_argument("--truth", required=required, metavar="COLUMN", type=name,
                       help="the true-class column")
    group.add_argument("--models", required=required, metavar="A,B,C",
                       help="the models' prediction columns, in the fusioner's input order")
    group.add_argument("--fusioner", required=required, metavar="RULE",
                       choices=("and", "or", "majority", "k_of_n", "weighted", "plurality",
                                "priority", "mean", "max", "min", "logistic"),
                       help="the system's rule: and, or, majority, k_of_n, weighted (with "
                            "--labels: plurality, weighted, priority, k_of_n); on score columns "
                            "mean, max, min, logistic (derive: with --scores)")
    group.add_argument("--k", type=int, metavar="K", help="for k_of_n")
    group.add_argument("--tie", choices=("negative", "positive"), help="majority ties")
    group.add_argument("--weights", type=exact_numbers, metavar="W1,W2,..",
                       help="for weighted: one weight per model, e.g. 1,2,1")
    group.add_argument("--threshold", type=exact_number, metavar="T",
                       help="for weighted: positive when the weighted vote reaches T (with "
                            "--labels: --label wins when its weighted vote reaches T); for a "
                            "score rule: P when the fused score reaches T (default 0.5)")
    from causalcost.cli.parsing import finite_number, score_range

    group.add_argument("--bias", type=finite_number, default=None, metavar="B",
                       help="for --fusioner logistic: the meta-model's intercept (default: 0)")
    group.add_argument("--score-range", type=score_range, default=None, metavar="LOW,HIGH",
                       dest="score_range",
                       help="for a score rule: the scores it takes (default 0,1, probabilities;"
                            " --score-range=-inf,inf for margins); every score must lie in it")
    group.add_argument("--positive-label", metavar="LABEL", dest="positive_label", type=name,
                       help="the positive label when the columns hold strings")
    group.add_argument("--engine", choices=("polars", "duckdb", "dask", "pandas"), default=None,
                       help="the engine that reads the file (default: polars when installed, "
                            "else pandas)")


def read_rows(path: str, engine: str | None = None) -> Any:
    """The data file named on the command line, read lazily; a file with a header and no rows
    is refused here, in those words (its empty columns would otherwise be read as text)."""
    from causalcost.data.readers import read_table

    if _no_rows(path):
        from causalcost.errors import DataError

        raise DataError(f"{path}: the file has a header but no rows: there is nothing to count; "
                        "give a file with one row per instance")
    return read_table(path, engine=engine)


def _no_rows(path: str) -> bool:
    """Whether ``path`` certainly has no data rows (a CSV of a header alone, an empty parquet
    file); False when unsure: the reader then says what is wrong."""
    import os

    suffix = os.path.splitext(path)[1].lower()
    if not os.path.isfile(path):  # a FIFO would block here; folders and globs: read_table
        return False
    try:
        if suffix in (".csv", ".tsv"):
            with open(path, "rb") as handle:
                lines = (line for line in handle if line.strip())
                return next(lines, None) is not None and next(lines, None) is None
        if suffix in (".parquet", ".pq"):
            import polars as pl

            return int(pl.scan_parquet(path).select(pl.len()).collect().item()) == 0
    except Exception:  # unreadable, not a file, not parquet: read_table says so
        return False
    return False


def model_names(text: str) -> list[str]:
    """``--models a,b,c`` as a list of column names."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValidationError(f"--models must list model columns, e.g. a,b,c; got {text!r}")
    return names


def vote_options(args: argparse.Namespace) -> dict[str, Any]:
    """The fusioner options given on the command line (``--k``, ``--tie``, ...)."""
    return {key: getattr(args, key) for key in ("k", "tie", "weights", "threshold")
            if getattr(args, key) is not None}


def print_with_label_noise(result: Any, noise: Any, as_json: bool) -> None:
    """A report or bound, followed by its label-noise range when one was asked for."""
    if as_json:
        print_json({**result.to_dict(),
                    **({"label_noise": noise.to_dict()} if noise is not None else {})})
        return
    print(result)
    if noise is not None:
        print(noise)
