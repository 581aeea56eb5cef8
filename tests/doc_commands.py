"""The command lines a document shows, and a scratch folder laid out like the repository root.

Shared by ``test_doc_commands.py``, ``test_readme.py`` and ``test_docs.py`` (pytest puts this
folder on ``sys.path``). A document shows a command in a shell code block (a line continued
with ``\\`` is one command, a line chained with ``&&`` gives each ``causalcost`` part) or in
an inline code span of its prose (`` `causalcost runs ...` ``, possibly broken across lines).
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: The folder of shipped sample logs, as a command line names it (from the repository root).
PREFIX = "examples/"

_FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.S | re.M)
_SHELL = {"", "bash", "sh", "console", "shell"}
_INLINE = re.compile(r"`(causalcost [^`]+)`")


def documents() -> list[Path]:
    """The README and every Markdown page of ``docs/`` (the notebooks' folder aside)."""
    pages = [p for p in sorted((ROOT / "docs").rglob("*.md"))
             if not {"hooks", "notebooks"} & set(p.relative_to(ROOT / "docs").parts)]
    return [ROOT / "README.md", *pages]


def _block_commands(block: str) -> list[str]:
    joined = re.sub(r"[ \t]*\\\n\s*", " ", block)
    return [part.strip() for line in joined.splitlines() for part in line.split("&&")
            if part.strip().startswith("causalcost ")]


def commands(text: str) -> list[str]:
    """Every ``causalcost ...`` command of a Markdown text, in the order it shows them:
    shell blocks (continuations joined, ``&&`` split) and inline code spans of the prose."""
    found: list[tuple[int, str]] = []
    prose, last = [], 0
    for fence in _FENCE.finditer(text):
        prose.append((last, text[last:fence.start()]))
        last = fence.end()
        if fence.group(1) in _SHELL:
            found += [(fence.start(), c) for c in _block_commands(fence.group(2))]
    prose.append((last, text[last:]))
    for start, part in prose:
        found += [(start + m.start(), " ".join(m.group(1).split()))
                  for m in _INLINE.finditer(part)]
    return [c for _, c in sorted(found, key=lambda f: f[0])]


def words(command: str) -> list[str]:
    """The command's words, a trailing ``# comment`` dropped."""
    return shlex.split(command, comments=True)


def reads_examples(command: str) -> bool:
    """Whether the command reads a shipped sample log: a word naming ``examples/...``, alone
    or after ``NAME:`` or ``--option=``."""
    return any(re.match(rf"(?:[^=:/]*[=:])?{PREFIX}", w) for w in words(command))


def with_examples(folder: Path) -> Path:
    """``folder`` given a copy of ``examples/``: run there, a command line behaves as from
    the repository root, and whatever it writes lands in ``folder``."""
    shutil.copytree(EXAMPLES, folder / "examples",
                    ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    return folder
