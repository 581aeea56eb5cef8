"""What every ``causalcost`` subcommand shares: the parser class, argument types, output."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, NoReturn

from causalcost.errors import ValidationError

__all__ = ["EXIT_USER_ERROR", "Parser", "count", "network_arguments", "print_json",
           "probability", "sampling_arguments", "seed", "load_system"]

EXIT_USER_ERROR = 2


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USER_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def count(text: str) -> int:
    """A whole number of instances: ``100000``, ``1e5`` or ``1_000_000``; not ``1.5`` or ``-3``."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value != int(value) or value < 1 or value > 2**53:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number between 1 and 2**53")
    return int(value)


def seed(text: str) -> int:
    """A non-negative integer seed."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0 or value >= 2**63:
        raise argparse.ArgumentTypeError(f"seed {text!r} must lie between 0 and 2**63 - 1")
    return value


def probability(text: str) -> float:
    """A level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must lie strictly between 0 and 1")
    return value


def network_arguments(p: argparse.ArgumentParser, *, slot_help: str = "",
                      optional: bool = False) -> None:
    """NETWORK, --slot and the BIF roles."""
    p.add_argument("network", metavar="NETWORK", nargs="?" if optional else None,
                   help="a network file (.toml or .bif) or a shipped network's name "
                        "(see 'causalcost networks')")
    p.add_argument("--slot", metavar="NAME",
                   help=slot_help or "the model under evaluation (default: the file's slot)")
    bif = p.add_argument_group("roles for BIF files (a TOML file names its own roles)")
    bif.add_argument("--class-node", metavar="NAME", help="the true-class node")
    bif.add_argument("--system-node", metavar="NAME", help="the system-prediction (fusioner) node")
    bif.add_argument("--positive", metavar="STATE", default=None,
                     help="positive state of class, models and system prediction (default: P)")


def sampling_arguments(p: argparse.ArgumentParser) -> None:
    """--method, --samples, --seed, --confidence, --interval."""
    p.add_argument("--method", choices=("exact", "sampling"), default="exact",
                   help="exact contraction (default) or forward sampling with intervals")
    p.add_argument("--samples", type=count, default=100_000, metavar="N",
                   help="simulated instances for --method sampling, e.g. 1e5 (default: 100000)")
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
        raise ValidationError(f"{', '.join(bif_flags)} apply to BIF files only: a TOML network "
                              "names its own roles; drop the flag")
    return load_network(path, slot=args.slot)


def print_json(data: Any) -> None:
    """JSON on stdout, never with NaN or Infinity (they are not JSON)."""
    try:
        print(json.dumps(data, indent=2, allow_nan=False))
    except ValueError:
        raise ValidationError("a result is not finite and cannot be written as JSON; rescale "
                              "the inputs") from None
