"""The ``causalcost`` command line: the parser, and one line and exit 2 on any user error.

Subcommands live in modules by job: :mod:`~causalcost.cli.network_commands` (``query``,
``draw``, ``export``, ``networks``), :mod:`~causalcost.cli.sheet_commands` (``derive``,
``evaluate``, ``bound``), :mod:`~causalcost.cli.signing_commands` (``keygen``, ``sign``,
``verify``), :mod:`~causalcost.cli.data_commands` (``runs``),
:mod:`~causalcost.cli.roc_commands` (``roc``) and :mod:`~causalcost.cli.experiment_commands`
(``experiment coverage|ratio``); argument types are in :mod:`~causalcost.cli.parsing`. Every
subcommand has ``--help``. A user error (a :class:`~causalcost.errors.CausalCostError`, a file
that cannot be read or written, an input too large or too deep to process) prints one line to
stderr and exits with status 2; Ctrl-C prints one line and exits with 130; anything else is a
bug and shows a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from causalcost import __version__
from causalcost.cli import (
    data_commands,
    experiment_commands,
    network_commands,
    owner_commands,
    roc_commands,
    sheet_commands,
    signing_commands,
)
from causalcost.cli.common import EXIT_USER_ERROR, Parser
from causalcost.cli.parsing import shorten
from causalcost.errors import CausalCostError

__all__ = ["build_parser", "main"]

#: Status after Ctrl-C, as a shell reports a process ended by SIGINT.
EXIT_INTERRUPTED = 130


class _Overview(argparse.HelpFormatter):
    """The overview: every command and its help on one line (``experiment`` included)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog)
        self._action_max_length = 16  # the help column clears the longest command name


def build_parser() -> Parser:
    """The argument parser of the ``causalcost`` command.

    Examples
    --------
    >>> parser = build_parser()
    >>> parser.parse_args(["query", "thesis_and", "--samples", "1e5"]).samples
    100000
    """
    parser = Parser(
        prog="causalcost",
        description="Judge one model of a multi-model classifier system by its causal effect on "
                    "the whole system: interventional error rates, model-level cost matrices, "
                    "worst/best-case system bounds, cost sheets for model owners.",
        epilog="Start with: causalcost query thesis_and. Every command has --help.",
        formatter_class=_Overview,
    )
    parser.add_argument("--version", action="version", version=f"causalcost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for module in (network_commands, sheet_commands, signing_commands, data_commands,
                   roc_commands, experiment_commands, owner_commands):
        module.register(sub)
    return parser


def _one_line(command: str, message: object) -> int:
    text = shorten(" ".join(str(message).split()))
    print(f"causalcost {command}: error: {text}", file=sys.stderr)
    return EXIT_USER_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Examples
    --------
    >>> main(["bound", "--forced-p", "tp=50,fn=50,fp=0,tn=0", "--forced-n",
    ...       "tp=0,fn=100,fp=0,tn=0", "--model", "tp=50,fn=50,fp=0,tn=0", "--json"])
    ... # doctest: +ELLIPSIS
    {
      "assumption": "monotone",
    ...
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed in one line
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USER_ERROR
    command = args.command
    try:
        return int(args.func(args))
    except CausalCostError as exc:  # in the user's words: flags, not Python arguments
        from causalcost.cli.wording import cli_wording

        return _one_line(command, cli_wording(parser, args, str(exc)))
    except BrokenPipeError:  # output piped into head & co.: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file the user named
        return _one_line(command, f"{exc.strerror or exc}"
                         + (f": {exc.filename!r}" if getattr(exc, "filename", None) else ""))
    except UnicodeDecodeError as exc:
        return _one_line(command, f"an input file is not UTF-8 text ({exc.reason})")
    except RecursionError:
        return _one_line(command, "an input is nested too deeply to be read")
    except MemoryError:
        return _one_line(command, "not enough memory for the requested size; ask for fewer "
                                  "samples or a smaller input")
    except KeyboardInterrupt:  # Ctrl-C on a long run: no traceback, the shell's status
        print(f"causalcost {command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
