"""Every ``--help`` says its defaults and shows an example, for every subcommand at any depth.

Generic on purpose: the parser is walked, so a subcommand or option added later is checked
too. For every subcommand:

* every option whose default is not ``None`` (set on the option or with ``set_defaults``)
  shows that default in its help text as ``default: VALUE`` (flags without a value,
  ``--help`` and ``--version`` aside);
* its help ends with an ``example:`` (or ``examples:``) section of indented
  ``causalcost ...`` lines, kept as written (not re-wrapped), and each example parses with the
  real parser into that very subcommand.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator

import pytest

from causalcost.cli.app import build_parser

#: Actions that take no value: their default (False, None, a constant) is not a setting.
NO_VALUE = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction,
            argparse._HelpAction, argparse._VersionAction, argparse._CountAction,
            argparse._SubParsersAction)


def walk(parser: argparse.ArgumentParser,
         path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """(path, parser) of every subcommand, at any depth."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from walk(sub, (*path, name))


SUBCOMMANDS = list(walk(build_parser()))
IDS = [" ".join(path) for path, _ in SUBCOMMANDS]


def shown(default: object) -> list[str]:
    """The ways a default may be written in a help text."""
    if isinstance(default, (list, tuple)):
        return [",".join(str(v) for v in default), ", ".join(str(v) for v in default)]
    forms = [str(default)]
    if isinstance(default, int) and not isinstance(default, bool):
        forms += [f"{default:,}", f"{default:_}"]
    return forms


def expanded_help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The action's help as ``--help`` prints it (``%(default)s`` and the like filled in)."""
    return " ".join(parser._get_formatter()._expand_help(action).split())


def examples(parser: argparse.ArgumentParser) -> list[str]:
    """The indented ``causalcost ...`` lines under the help's ``example(s):`` heading."""
    lines = parser.format_help().splitlines()
    heading = [i for i, line in enumerate(lines) if re.fullmatch(r"examples?:", line.strip())]
    if not heading:
        return []
    found = []
    for line in lines[heading[-1] + 1:]:
        if not line.startswith(" ") or not line.strip():
            break
        found.append(line.strip())
    return found


def test_the_walk_sees_every_subcommand() -> None:
    assert {"query", "derive", "evaluate", "bound", "experiment", "experiment coverage",
            "experiment ratio", "keygen", "runs", "roc"} <= set(IDS)


@pytest.mark.parametrize(("path", "parser"), SUBCOMMANDS, ids=IDS)
def test_every_default_is_shown(path: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
    missing = []
    for action in parser._actions:
        if isinstance(action, NO_VALUE):
            continue
        default = parser.get_default(action.dest)
        if default is None or default is argparse.SUPPRESS:
            continue
        text = expanded_help(parser, action)
        if not any(re.search(rf"\bdefault:? {re.escape(form)}(?![\w.])", text)
                   for form in shown(default)):
            missing.append(f"{'/'.join(action.option_strings) or action.dest} "
                           f"(default {default!r}): {text!r}")
    assert not missing, f"causalcost {' '.join(path)} --help hides defaults: {missing}"


@pytest.mark.parametrize(("path", "parser"), SUBCOMMANDS, ids=IDS)
def test_every_help_has_an_example_that_parses(path: tuple[str, ...],
                                               parser: argparse.ArgumentParser) -> None:
    lines = examples(parser)
    assert lines, f"causalcost {' '.join(path)} --help has no 'example:' section"
    for line in lines:
        words = shlex.split(line.split("  #")[0])
        assert words[0] == "causalcost", line
        assert tuple(words[1:1 + len(path)]) == path, f"{line!r} is not an example of {path}"
        try:
            args = build_parser().parse_args(words[1:])
        except SystemExit as exc:  # pragma: no cover - the failure message
            raise AssertionError(f"the example {line!r} does not parse") from exc
        assert args.command == path[0]


def test_example_lines_are_kept_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The formatter keeps an epilog's indented lines whole (a command longer than the
    terminal is not wrapped) and still wraps the prose."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse's width
    parser = dict(SUBCOMMANDS)[("bound",)]
    rows = parser.format_help().splitlines()
    (example,) = examples(parser)
    assert len(example) > 100 and f"  {example}" in rows
    prose = [row for row in rows if row.strip() and row.strip() != example]
    assert max(len(row) for row in prose) <= 80
    assert " ".join((parser.description or "").split()) in " ".join(" ".join(rows).split())


def test_ratio_repetitions_is_not_per_cell() -> None:
    """``experiment ratio`` has no grid: its repetitions are systems, not cells."""
    ratio = dict(SUBCOMMANDS)[("experiment", "ratio")]
    reps = next(a for a in ratio._actions if a.dest == "repetitions")
    assert "cell" not in expanded_help(ratio, reps)
    coverage = dict(SUBCOMMANDS)[("experiment", "coverage")]
    reps = next(a for a in coverage._actions if a.dest == "repetitions")
    assert "cell" in expanded_help(coverage, reps)
