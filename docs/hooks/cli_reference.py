"""MkDocs hooks: pages generated from the code and the repository at build time.

- ``docs/cli.md`` holds the marker ``<!-- cli-reference -->``; it is replaced by every
  command's and sub-command's usage, description, options (with their help) and epilog, read
  from :func:`causalcost.cli.app.build_parser`, so the reference cannot drift from the code.
- The nav's ``Notebooks`` section gets one entry per notebook found in ``docs/notebooks/``
  (a symlink to the repository's ``notebooks/``), and the marker ``<!-- notebook-list -->``
  becomes a table of them with each notebook's own title and opening paragraph: a renamed,
  added or removed notebook never breaks the build.
- Docstrings are written for help() with reST touches; on the site their roles
  (``:func:`name```) show as plain code, ``.. math::`` as display math, simple tables as
  tables.
- A small stylesheet widens the page to the project's 100-column code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

CLI_MARKER = "<!-- cli-reference -->"
NOTEBOOK_MARKER = "<!-- notebook-list -->"
NOTEBOOK_SECTION = "Notebooks"
NOTEBOOK_DIR = "notebooks"
#: Usage lines are wrapped at this width whatever the terminal building the site.
WIDTH = 88


# --------------------------------------------------------------------------- CLI reference

@contextmanager
def _fixed_width() -> Iterator[None]:
    """argparse wraps help at the terminal's width (``COLUMNS``): fix it while formatting."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-parsers of ``parser`` by name (empty for a leaf command)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_names(parser: argparse.ArgumentParser, prefix: str = "causalcost") -> list[str]:
    """Every command and sub-command, depth first: ``causalcost experiment coverage``, ..."""
    names = []
    for name, sub in subcommands(parser).items():
        names.append(f"{prefix} {name}")
        names += command_names(sub, f"{prefix} {name}")
    return names


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _argument(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    flags = ", ".join(f"`{flag}`" for flag in action.option_strings)
    if action.nargs != 0:
        metavar = action.metavar or action.dest.upper()
        if isinstance(metavar, tuple):
            metavar = " ".join(metavar)
        if action.choices is None:
            flags += f" `{metavar}`"
    return flags


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    if action.choices is not None:
        text += f" (one of: {', '.join(f'`{choice}`' for choice in action.choices)})"
    if action.option_strings and action.required:
        text += " (required)"
    return _cell(text)


def _section(name: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    lines = [f"{'#' * level} `{name}`", ""]
    if parser.description:
        lines += [parser.description.strip(), ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    rows = [f"| {_argument(action)} | {_help(parser, action)} |"
            for action in parser._actions
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
            and action.help != argparse.SUPPRESS]
    if rows:
        lines += ["| argument | meaning |", "|---|---|", *rows, ""]
    if parser.epilog:
        lines += ["```text", parser.epilog.strip(), "```", ""]
    for sub_name, sub in subcommands(parser).items():
        lines += _section(f"{name} {sub_name}", sub, min(level + 1, 6))
    return lines


def cli_reference() -> str:
    """The reference in Markdown: the overview, then one section per command (``##``) and
    sub-command (``###``), each with its usage, description, every argument and its help."""
    from causalcost.cli.app import build_parser

    with _fixed_width():
        parser = build_parser()
        lines = ["```text", parser.format_help().strip(), "```", ""]
        for name, sub in subcommands(parser).items():
            lines += _section(f"causalcost {name}", sub, 2)
    return "\n".join(lines)


# --------------------------------------------------------------------------- notebooks

def notebooks(docs_dir: str | Path) -> list[Path]:
    """The notebooks the site shows: ``docs/notebooks/*.ipynb``, by name."""
    return sorted((Path(docs_dir) / NOTEBOOK_DIR).glob("*.ipynb"))


def notebook_nav_title(path: Path) -> str:
    """A short nav title from the file name: ``02_worst_case.ipynb`` -> ``Worst case``."""
    words = re.sub(r"^\d+[_\- ]*", "", path.stem).replace("_", " ").replace("-", " ").strip()
    return (words or path.stem)[:1].upper() + (words or path.stem)[1:]


def notebook_summary(path: Path) -> tuple[str, str]:
    """The notebook's own title (its first ``#`` heading) and its first paragraph."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return notebook_nav_title(path), ""
    title, paragraph = "", ""
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        for block in re.split(r"\n\s*\n", text):
            block = block.strip()
            if not title and block.startswith("# "):
                title = block.splitlines()[0][2:].strip()
                rest = "\n".join(block.splitlines()[1:]).strip()
                if rest and not paragraph:
                    paragraph = rest
            elif block and not paragraph and not block.startswith("#"):
                paragraph = block
            if title and paragraph:
                return title, _cell(paragraph)
    return title or notebook_nav_title(path), _cell(paragraph)


def notebook_table(docs_dir: str | Path, page_dir: str = "") -> str:
    """A table of every notebook with a link to its page (relative to ``page_dir``)."""
    up = "../" * len([part for part in page_dir.split("/") if part])
    rows = ["| notebook | what it shows |", "|---|---|"]
    for path in notebooks(docs_dir):
        title, paragraph = notebook_summary(path)
        rows.append(f"| [{_cell(title)}]({up}{NOTEBOOK_DIR}/{path.name}) | {paragraph} |")
    if len(rows) == 2:
        return "*No notebook is in `notebooks/` at the moment.*"
    return "\n".join(rows)


def _fill_notebook_section(nav: list[Any], docs_dir: str) -> bool:
    for entry in nav:
        if not isinstance(entry, dict):
            continue
        for title, value in entry.items():
            if title == NOTEBOOK_SECTION and isinstance(value, list):
                listed = {item for element in value if isinstance(element, dict)
                          for item in element.values()} | {v for v in value if isinstance(v, str)}
                for path in notebooks(docs_dir):
                    target = f"{NOTEBOOK_DIR}/{path.name}"
                    if target not in listed:
                        value.append({notebook_nav_title(path): target})
                return True
            if isinstance(value, list) and _fill_notebook_section(value, docs_dir):
                return True
    return False


# --------------------------------------------------------------------------- MkDocs events

#: The project's code is written to 100 columns: a wider page shows it without scrolling.
STYLESHEET = "assets/causalcost.css"
STYLE = """.md-grid { max-width: 76rem; }
.md-typeset pre > code { font-size: .8em; }
"""


def on_config(config: Any, **_: Any) -> Any:
    """Add every notebook present to the nav's ``Notebooks`` section, and the stylesheet."""
    if config.get("nav"):
        _fill_notebook_section(config["nav"], config["docs_dir"])
    if STYLESHEET not in config["extra_css"]:
        config["extra_css"].append(STYLESHEET)
    return config


def on_files(files: Any, config: Any, **_: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, STYLESHEET, content=STYLE))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, **_: Any) -> str:
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    if NOTEBOOK_MARKER in markdown:
        parent = PurePosixPath(page.file.src_uri).parent
        page_dir = "" if str(parent) == "." else str(parent)
        markdown = markdown.replace(NOTEBOOK_MARKER,
                                    notebook_table(config["docs_dir"], page_dir))
    return markdown


_ROLE = re.compile(
    r":(?:func|mod|class|meth|attr|data|exc|obj|ref):(\s*<code>)(~?)([\w.\s]+?)(</code>)")
_MATH = re.compile(r"<p>\.\. math::\s*(.*?)</p>", re.S)


def _role(match: re.Match[str]) -> str:
    opening, tilde, name, closing = match.groups()
    name = "".join(name.split())  # a long name may be wrapped inside the code span
    return f"{opening}{name.rsplit('.', 1)[-1] if tilde else name}{closing}"


_RST_TABLE = re.compile(r"<p>(=+(?: +=+)+)\n(.*?)\n\1</p>", re.S)
_LITERAL = re.compile(r"( ?)::</p>")


def _rst_table(match: re.Match[str]) -> str:
    """An RST simple table (``=====  =====`` borders, one header row) as an HTML table; left
    as it was if a row does not split into the border's columns (at two or more spaces)."""
    border, body = match.group(1), match.group(2)
    columns = len(border.split())
    rows = [re.split(r"\s{2,}", line.strip()) for line in body.splitlines()
            if line.strip() and line.strip() != border]
    if len(rows) < 2 or any(len(row) != columns for row in rows):
        return match.group(0)
    head = "".join(f"<th>{cell}</th>" for cell in rows[0])
    lines = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                    for row in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{lines}</tbody></table>"


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """Docstrings are written for Python's help() with reST touches: show roles
    (``:func:`name```) as plain code (``~`` keeps the last name, as Sphinx does),
    ``.. math::`` paragraphs as display math (as the Markdown pages' ``$$ ... $$``), simple
    tables as tables, and a paragraph's ``::`` (which opens a literal block) as ``:``."""
    html = _ROLE.sub(_role, html)
    html = _MATH.sub(lambda m: f'<div class="arithmatex">\\[{m.group(1).strip()}\\]</div>', html)
    html = _RST_TABLE.sub(_rst_table, html)
    return _LITERAL.sub(lambda m: "</p>" if m.group(1) else ":</p>", html)
