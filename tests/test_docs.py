"""The documentation is true: every Python block of the home page and the user guide runs as
written, the CLI reference covers every command of the parser, every public name is on an API
page, and (where MkDocs is installed) the site builds with ``--strict``."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import causalcost as cc

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [DOCS / "index.md", DOCS / "jupyter.md", *sorted((DOCS / "guide").glob("*.md"))]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict[str, object] = {"__name__": "__main__"}
    blocks = python_blocks(page)
    assert blocks, f"{page.name} has no example"
    for i, block in enumerate(blocks):
        exec(compile(block, f"{page.name}[python {i}]", "exec"), namespace)


def test_every_guide_step_has_a_page() -> None:
    names = {p.stem for p in PAGES}
    assert {"declare", "intervene", "price", "sheet", "data", "statistics", "experiments"} <= names


def _hook():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("cli_reference",
                                                  DOCS / "hooks" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_covers_every_command_and_option() -> None:
    import argparse

    from causalcost.cli.app import build_parser

    text = _hook().cli_reference()

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    assert f"## `{name} {sub_name}`" in text, f"{name} {sub_name} missing"
                    walk(sub, f"{name} {sub_name}")
            elif (action.option_strings and name != "causalcost"
                  and not isinstance(action, argparse._HelpAction)):
                assert f"`{action.option_strings[0]}`" in text, f"{name} {action.option_strings}"

    walk(build_parser(), "causalcost")
    assert "<!-- cli-reference -->" in (DOCS / "cli.md").read_text(encoding="utf-8")


def test_every_public_name_is_on_an_api_page() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md"))
    documented = set(re.findall(r"^\s+- (\w+)$", text, re.M))
    whole_modules = {block.split()[0] for block in text.split("\n::: ")[1:]
                     if "members:" not in block.split("\n## ")[0]}
    missing = []
    for name in cc.__all__:
        module = getattr(getattr(cc, name), "__module__", None)
        if name not in documented and module not in whole_modules:
            missing.append(name)
    assert not missing, f"not on any API page: {missing}"


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs not installed")
def test_site_builds_strictly(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                             str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "site" / "cli" / "index.html").exists()
    assert "causalcost derive" in (tmp_path / "site" / "cli" / "index.html").read_text()
