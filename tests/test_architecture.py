"""Data flows one way, and the folders show it.

Each subpackage of ``causalcost`` is one step; a module belongs to the step of its folder, so a
new module is placed without editing this test. Values used everywhere (confusion and cost
matrices, errors) are the modules at the top. The order:

values -> stats -> network -> inference -> pricing -> data -> sheet -> evaluation -> experiments
-> plotting -> explorer -> cli

No module imports from a later step, and no modules import each other in a loop. pgmpy is
imported only by the adapter ``network/_pgmpy.py`` and matplotlib only inside ``plotting/``
(STYLE.md). The package ``__init__`` (the public surface, loaded lazily) and ``__main__`` may
name anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "causalcost"

STEPS = ("values", "stats", "network", "inference", "pricing", "data", "sheet", "evaluation",
         "experiments", "plotting", "explorer", "cli")
SURFACE = {"causalcost", "causalcost.__main__"}
PGMPY_ADAPTER = "causalcost.network._pgmpy"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def step(module: str) -> str:
    """The step of a module: its subpackage, or ``values`` for modules at the top."""
    parts = module.split(".")
    if len(parts) == 2 and f"{module}" in MODULES and not MODULES[module].name == "__init__.py":
        return "values"
    return parts[1]


def imports(module: str) -> tuple[set[str], set[str]]:
    """(package modules, top-level external packages) imported anywhere in ``module``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    own, external = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.split(".")[0] != "causalcost":
                external.add(target.split(".")[0])
                continue
            for alias in node.names:  # `from pkg import module` names a module
                full = f"{target}.{alias.name}"
                own.add(full if full in MODULES else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "causalcost":
                    own.add(alias.name)
                else:
                    external.add(alias.name.split(".")[0])
    return {m for m in own if m in MODULES}, external


PLACED = sorted(m for m in MODULES if m not in SURFACE)


def test_every_folder_is_a_step() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert folders - {"network"} <= set(STEPS), f"a new folder needs a place in STEPS: {folders}"
    assert {step(m) for m in PLACED} <= set(STEPS)


def test_subpackages_named_in_the_flow_exist() -> None:
    for folder in ("network", "inference", "pricing", "sheet", "plotting", "cli"):
        assert (PACKAGE / folder / "__init__.py").exists(), folder


@pytest.mark.parametrize("module", PLACED)
def test_no_module_imports_from_a_later_step(module: str) -> None:
    own, _ = imports(module)
    here = STEPS.index(step(module))
    later = sorted(m for m in own if m not in SURFACE and STEPS.index(step(m)) > here)
    assert not later, f"{module} ({step(module)}) imports later steps: {later}"


def test_no_import_loops() -> None:
    graph = nx.DiGraph()
    for module in PLACED:
        graph.add_node(module)
        graph.add_edges_from((module, m) for m in imports(module)[0] if m not in SURFACE)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"modules that import each other in a loop: {cycles}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_pgmpy_and_matplotlib_stay_in_their_modules(module: str) -> None:
    _, external = imports(module)
    if module != PGMPY_ADAPTER:
        assert "pgmpy" not in external, module
    if module not in SURFACE and step(module) != "plotting":
        assert "matplotlib" not in external, module


def test_the_checks_see_the_imports() -> None:
    """Guard the guard: the parser finds known edges, or every test above passes vacuously."""
    own, _ = imports("causalcost.network.system")
    assert PGMPY_ADAPTER in own and "numpy" in imports("causalcost.inference.exact")[1]
    assert "causalcost.confusion" in imports("causalcost.inference.table")[0]
    assert step("causalcost.confusion") == "values"
    assert step("causalcost.pricing.bounds") == "pricing"
