"""Data flows one way: declare -> intervene -> derive -> bound -> evaluate -> report.

Each module belongs to a step; no module imports from a later step. pgmpy is imported only in
``_pgmpy`` and matplotlib only in ``plotting`` (STYLE.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "causalcost"

STEPS = [
    ("values", {"errors", "confusion", "table", "monotonicity", "_pgmpy"}),
    ("declare", {"builder", "fusioners", "correlation", "netfile", "system"}),
    ("intervene", {"intervene", "exact", "vote_split", "sampling", "query"}),
    ("derive", {"costs"}),
    ("bound", {"bounds", "witness", "bounds_many", "_closed_forms"}),
    ("evaluate", {"sheet", "derivation", "report", "candidates", "_sheet_schema",
                  "_sheet_checks"}),
    ("report", {"layout", "plotting", "cli", "__init__", "__main__"}),
]
STEP = {module: i for i, (_, modules) in enumerate(STEPS) for module in modules}
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))


def imports(module: str) -> tuple[set[str], set[str]]:
    """(package modules, top-level external packages) imported anywhere in ``module``."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    own, external = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                own.add(node.module.split(".")[0])
            elif node.level == 1:
                own.update(alias.name for alias in node.names)
            elif node.module:
                external.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            external.update(alias.name.split(".")[0] for alias in node.names)
    return own, external


def test_every_module_has_a_step() -> None:
    assert set(MODULES) == set(STEP), "add new modules to STEPS"


@pytest.mark.parametrize("module", MODULES)
def test_no_module_imports_from_a_later_step(module: str) -> None:
    own, _ = imports(module)
    later = sorted(m for m in own if m in STEP and STEP[m] > STEP[module])
    assert not later, f"{module} ({STEPS[STEP[module]][0]}) imports later steps: {later}"


@pytest.mark.parametrize("module", MODULES)
def test_pgmpy_and_matplotlib_stay_in_their_modules(module: str) -> None:
    _, external = imports(module)
    if module != "_pgmpy":
        assert "pgmpy" not in external, module
    if module != "plotting":
        assert "matplotlib" not in external, module
