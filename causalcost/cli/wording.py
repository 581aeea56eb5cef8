"""Errors in the user's words: Python argument names and Python hints become flags and commands.

The library's messages name what a Python caller typed (``positive=``, ``forced_p``,
``cc.sign_sheet``). At the command line the user typed flags, so before an error is printed
:func:`cli_wording` rewrites it: every argument name the command's parser knows becomes its flag
(read from the parser itself, so a new option is covered without a table to keep), a few
arguments whose Python name differs from the option's (``positive`` is ``--positive-label`` when
labels are read from data) are mapped by :data:`ALIASES`, and Python hints become the command
that does the same (:data:`HINTS`).
"""

from __future__ import annotations

import argparse
import re

__all__ = ["ALIASES", "HINTS", "cli_wording", "flag_names"]

#: Python argument -> the destination of the option that carries it, where they differ.
ALIASES = {
    "system_name": "name",
    "interval_method": "interval",
    "private_path": "private",
    "public_path": "public",
    "private_key_path": "key",
    "output": "output",
}

#: Python hints -> what to run at the command line instead.
HINTS = {
    "cc.load_sheet(path).save(path)":
        "causalcost derive OLD.json --costs <its costs> -o NEW.json",
    "cc.sign_sheet": "causalcost sign SHEET.json --key PRIVATE.pem",
    "cc.generate_signing_key": "causalcost keygen PRIVATE.pem PUBLIC.pem",
    "cc.verify_sheet": "causalcost verify SHEET.json --public-key PUBLIC.pem",
    # a score network: what the command line offers instead of the Python calls
    "Query its table T[c, bin, s] with cc.interventional_table; a score sheet is counted from "
    "a log of the models' scores (sheet_from_data on score runs; causalcost derive --data LOG "
    "--scores ...)":
        "Query its table T[c, bin, s] with causalcost query NETWORK; a score sheet is counted "
        "from a log of the models' scores (causalcost derive --data LOG --scores ...)",
    "declare the models with add_model(name, scores=...) or use a vote rule":
        "give each model of the network file its scores table (scores = { edges = [...], "
        "... }) or use a vote rule",
    # bound_many's ceiling on its result frame: no flag raises it, a smaller file passes
    "rows and concatenate the frames, or raise max_candidates= if the memory is there":
        "rows (a --candidates file each)",
}


def _command_parser(parser: argparse.ArgumentParser,
                    args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser that read ``args``: ``experiment ratio``'s, not the top one."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                   None)
        chosen = getattr(args, sub.dest, None) if sub is not None else None
        if sub is None or chosen not in sub.choices:
            return parser
        parser = sub.choices[chosen]


def flag_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, str]:
    """Python argument name -> the flag (or positional word) that carries it in this command.

    Examples
    --------
    >>> from causalcost.cli.app import build_parser
    >>> parser = build_parser()
    >>> args = parser.parse_args(["runs", "d.csv", "--truth", "y", "--models", "a,b",
    ...                           "--slot", "a", "--fusioner", "or"])
    >>> names = flag_names(parser, args)
    >>> names["positive"], names["k"], names["truth"]
    ('--positive-label', '--k', '--truth')
    """
    command = _command_parser(parser, args)
    by_dest: dict[str, str] = {}
    for action in command._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            by_dest[action.dest] = max(action.option_strings, key=len)
        elif isinstance(action.metavar, str):
            by_dest[action.dest] = action.metavar
    names = dict(by_dest)
    for python, dest in ALIASES.items():
        if dest in by_dest:
            names.setdefault(python, by_dest[dest])
    # the positive label of data columns: --positive-label; of a BIF file's states: --positive
    reads_data = getattr(args, "data", None) or getattr(args, "scores", None) or \
        getattr(args, "command", None) == "runs"
    if "positive_label" in by_dest and (reads_data or "positive" not in by_dest):
        names["positive"] = by_dest["positive_label"]
    return names


def cli_wording(parser: argparse.ArgumentParser, args: argparse.Namespace, text: str) -> str:
    """``text`` with Python argument names as the flags the user typed, and Python hints as
    commands.

    Examples
    --------
    >>> from causalcost.cli.app import build_parser
    >>> parser = build_parser()
    >>> args = parser.parse_args(["runs", "d.csv", "--truth", "y", "--models", "a,b",
    ...                           "--slot", "a", "--fusioner", "or"])
    >>> cli_wording(parser, args, "pass positive= naming it (got positive=None)")
    'pass --positive-label naming it (got no --positive-label)'
    >>> cli_wording(parser, args, "k_of_n needs an integer k with 1 <= k <= 2, got k=5")
    'k_of_n needs an integer k with 1 <= k <= 2, got --k 5'
    """
    for hint, command in HINTS.items():
        text = text.replace(hint, command)
    names = flag_names(parser, args)
    # a name before '=' is an argument; outside quotes and field paths ('table.forced_p')
    before = r"(?<![\w.'\"/-])"
    for python in sorted(names, key=len, reverse=True):
        flag = names[python]
        word = re.escape(python)
        text = re.sub(rf"{before}{word}=None\b", f"no {flag}", text)
        text = re.sub(rf"{before}{word}=(?=[\s,;:)]|$)", flag, text)
        text = re.sub(rf"{before}{word}=(?=\S)", f"{flag} ", text)
        if "_" in python:  # forced_p, label_accuracy: a Python name even without '='
            text = re.sub(rf"{before}{word}\b(?!['\"])", flag, text)
    return text
