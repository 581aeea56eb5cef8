"""MkDocs hooks: the CLI reference, generated from the argparse parser at build time, and
docstrings' Sphinx-style roles shown as plain code.

``docs/cli.md`` holds the marker ``<!-- cli-reference -->``; this hook replaces it by every
command's usage, description and options, read from :func:`causalcost.cli.app.build_parser`,
so the page cannot drift from the code.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

MARKER = "<!-- cli-reference -->"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _section(name: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    lines = [f"{'#' * level} `{name}`", ""]
    if parser.description:
        lines += [parser.description.strip(), ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        flags = (", ".join(f"`{s}`" for s in action.option_strings)
                 or f"`{action.metavar or action.dest}`")
        text = (action.help or "").replace("%(default)s", str(action.default)).replace("|", "\\|")
        text = " ".join(text.split())
        if action.choices and not isinstance(action, argparse._SubParsersAction):
            text += f" (one of: {', '.join(map(str, action.choices))})"
        rows.append(f"| {flags} | {text} |")
    if rows:
        lines += ["| argument | meaning |", "|---|---|", *rows, ""]
    for sub_name, sub in _subcommands(parser).items():
        lines += _section(f"{name} {sub_name}", sub, min(level + 1, 4))
    return lines


def cli_reference() -> str:
    """The reference in Markdown: one section per command (and sub-command)."""
    from causalcost.cli.app import build_parser

    parser = build_parser()
    lines = ["```text", parser.format_help().strip(), "```", ""]
    for name, sub in _subcommands(parser).items():
        lines += _section(f"causalcost {name}", sub, 2)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, cli_reference())
    return markdown


_ROLE = re.compile(
    r":(?:func|mod|class|meth|attr|data|exc|obj|ref):(\s*<code>)(~?)([\w.]+)(</code>)")


def _role(match: re.Match[str]) -> str:
    opening, tilde, name, closing = match.groups()
    return f"{opening}{name.rsplit('.', 1)[-1] if tilde else name}{closing}"


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """Docstrings are written with Sphinx-style roles (``:func:`name```), which Python's
    help() shows as they are; on the site, show them as plain code (``~`` keeps the last
    name, as Sphinx does)."""
    return _ROLE.sub(_role, html)
