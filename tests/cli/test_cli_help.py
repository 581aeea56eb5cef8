"""Help everywhere: the overview lists every command on one line with its help, and every
subcommand has a description and every flag a help text (the usability issue)."""

from __future__ import annotations

import argparse
import re

import pytest

from causalcost.cli import main
from causalcost.cli.app import build_parser


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(path, parser, one-line help) of every subcommand, at any depth."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), sub, helps.get(name)
                yield from _walk(sub, (*path, name))


def test_overview_lists_every_command_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    commands = _subcommands(build_parser())
    helps = {choice.dest: choice.help for choice in commands._choices_actions}
    assert len(helps) >= 13
    for name, text in helps.items():
        assert re.search(rf"(?m)^    {name} +{re.escape(text)}$", out), name


def test_every_subcommand_and_flag_has_help() -> None:
    seen = []
    for path, sub, line in _walk(build_parser()):
        seen.append(" ".join(path))
        assert line and sub.description, path
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue  # its commands are walked one by one
            assert action.help and action.help != argparse.SUPPRESS, (path, action.dest)
    assert {"export", "bound", "derive", "experiment coverage", "keygen"} <= set(seen)


def test_specific_help_texts(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    commands = _subcommands(parser).choices
    assert "BIF" in commands["export"].description
    derive = commands["derive"].format_help()
    assert "--slot is needed for forced runs and data" in " ".join(derive.split())
    bound = {a.dest: a.help for a in commands["bound"]._actions}
    assert "forced to P" in bound["forced_p"] and "forced to N" in bound["forced_n"]
    assert "candidate" in bound["model"]
    assert "1e5" in {a.dest: a.help for a in commands["query"]._actions}["samples"]
