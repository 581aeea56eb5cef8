"""Run every notebook in ``notebooks/`` top to bottom, without Jupyter.

Each notebook's code cells are executed in order in one namespace, the way a kernel would run
them: IPython magics and shell escapes (lines starting with ``%`` or ``!``) are skipped, a
cell's last bare expression is evaluated like a Jupyter output (so its ``repr`` is built), and
``display`` just takes the ``repr`` of its arguments. Matplotlib uses the ``Agg`` backend and
``ipywidgets`` is hidden, so the notebooks' headless fallback runs even where the widgets are
installed. Afterwards a few numbers the tour computes are checked against the thesis.
"""

from __future__ import annotations

import ast
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
#: Wall-clock budget of one notebook, in seconds.
BUDGET = 30.0


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else source
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in text.splitlines())


def _display(*objects: Any, **_: Any) -> None:
    for obj in objects:
        repr(obj)


def _run_cell(source: str, namespace: dict[str, Any], name: str) -> None:
    """Exec ``source``; a trailing expression is evaluated and its repr built, as Jupyter does."""
    tree = ast.parse(source, filename=name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, name, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, name, "eval"), namespace)
        if value is not None:
            repr(value)


def run_notebook(path: Path) -> dict[str, Any]:
    """Execute the code cells of ``path`` in one fresh namespace and return the namespace."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook.get("nbformat") == 4, f"{path.name}: not an nbformat-4 notebook"
    namespace: dict[str, Any] = {"__name__": "__main__", "display": _display}
    for i, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") != "code":
            continue
        name = f"<{path.name} cell {i}>"
        try:
            _run_cell(_source(cell), namespace, name)
        except Exception as exc:
            raise AssertionError(f"{name} failed: {type(exc).__name__}: {exc}") from exc
    return namespace


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> None:
    """No widgets (``import ipywidgets`` raises ImportError) and no interactive figures."""
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    monkeypatch.chdir(NOTEBOOKS)


def test_there_are_notebooks() -> None:
    assert PATHS, f"no notebooks found in {NOTEBOOKS}"


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_is_committed_clean(path: Path) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    for i, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has stored outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} was executed"


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_runs(path: Path, headless: None) -> None:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        run_notebook(path)
    elapsed = time.perf_counter() - start
    assert elapsed < BUDGET, f"{path.name} took {elapsed:.1f} s (budget {BUDGET:.0f} s)"


@pytest.fixture(scope="module")
def tour() -> dict[str, Any]:
    path = NOTEBOOKS / "tour.ipynb"
    if not path.exists():
        pytest.skip("notebooks/tour.ipynb is missing")
    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        mp.setitem(sys.modules, "ipywidgets", None)
        mp.chdir(NOTEBOOKS)
        warnings.simplefilter("ignore", FutureWarning)
        return run_notebook(path)


def test_tour_error_rates_are_the_thesis_numbers(tour: dict[str, Any]) -> None:
    check = tour["rates_check"]
    assert check["causalcost (exact)"].tolist() == pytest.approx(check["thesis"].tolist(),
                                                                 abs=1e-12)
    assert tour["errors"]["exact inside CI"].all()


def test_tour_thesis_worked_examples(tour: dict[str, Any]) -> None:
    assert tour["eval1_and"] == pytest.approx(320)
    assert tour["eval2_and"] == pytest.approx(220)
    assert tour["eval1_or"] == pytest.approx(375)
    assert tour["eval2_or"] == pytest.approx(275)
    assert tour["real_cost_and"] == pytest.approx(320)  # independent errors: Eval1 is exact


def test_tour_worst_case_of_thesis_3_3(tour: dict[str, Any]) -> None:
    assert (tour["worst_33"], tour["expected_33"], tour["best_33"]) == (100, 75, 50)
    witness = tour["b"].worst_witness.to_frame()
    assert witness["system_errors"].loc["P"].sum() == 100
    assert tour["anti_real_cost"] == pytest.approx(100)
    assert tour["anti_bound"].worst_cost == pytest.approx(100)


def test_tour_pgmpy_cell_and_interactive_defaults(tour: dict[str, Any]) -> None:
    assert tour["ours_fp"] == 0.0  # a false positive among positives is impossible
    assert tour["widgets"] is None  # the headless fallback ran
    assert tour["explored"].eval1 == pytest.approx(320)


def test_tour_ranking(tour: dict[str, Any]) -> None:
    ranking = tour["ranking"]
    assert ranking.index[0] == "perfect"
    assert ranking["eval1"].is_monotonic_increasing
    assert ranking.loc["thesis (50 %/50 %)", "eval1"] == pytest.approx(320)


def test_experiments_notebook_reproduces_the_slides() -> None:
    """Slides, "Resultados": the plain worst case's hold probability rises toward 1 with both
    stage sizes; real / worst is at most 1 up to rare outliers. The high-confidence bound
    holds at its level in every cell."""
    path = NOTEBOOKS / "04_experiments.ipynb"
    if not path.exists():
        pytest.skip("notebooks/04_experiments.ipynb is missing")
    ns = run_notebook(path)
    f = ns["coverage"].frame
    corner = f[(f.n1 == 10_000) & (f.n2 == 10_000)].p_plain.item()
    assert f[(f.n1 == 10) & (f.n2 == 10)].p_plain.item() < 0.5 < corner
    assert (f.p_high_confidence >= 0.95 - 3 * (0.95 * 0.05 / 500) ** 0.5).all()
    summary = ns["ratio"].summary()
    assert summary.loc["ratio_plain", "share_above_1"] < 0.01
    assert summary.loc["ratio_high_confidence", "max"] <= 1
    assert ns["high"].worst_cost >= ns["plain"].worst_cost


def test_operating_points_notebook_prefers_the_system_threshold() -> None:
    """On held-out rows of the breast-cancer data, the threshold that minimises the system's
    worst case costs the real system no more than the model-only (max accuracy) one."""
    path = NOTEBOOKS / "03_operating_points.ipynb"
    if not path.exists():
        pytest.skip("notebooks/03_operating_points.ipynb is missing")
    ns = run_notebook(path)
    real = ns["real"]
    assert real["worst-case optimum"] <= real["model-only optimum (max accuracy)"]
    assert ns["sweep"].worst_case_optimum.worst_cost <= ns["sweep"].model_only_optimum.worst_cost
