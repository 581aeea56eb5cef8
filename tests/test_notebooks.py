"""Every notebook in ``notebooks/`` runs top to bottom in a real Jupyter kernel (nbclient),
within its time budget, and is committed with its outputs stripped.

The notebooks assert the numbers they show (the thesis's worked examples, bounds that contain
the real system cost), so running them checks them. The kernel is this interpreter
(a kernelspec written to a temporary directory), matplotlib draws with Agg, and the working
directory is ``notebooks/``; nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
#: Wall-clock budget of one notebook, in seconds (kernel start-up included).
BUDGET = 60.0
EXPECTED = {"01_quickstart", "02_worst_case", "03_real_data", "04_experiments", "05_explorer",
            "06_model_owner"}


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A jupyter data dir whose ``python3`` kernel is this very interpreter."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / "causalcost-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "causalcost tests", "language": "python"}))
    return root


def test_the_notebooks_are_there() -> None:
    assert {p.stem for p in PATHS} == EXPECTED


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_is_stripped(path: Path) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    for i, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} has a count"
    assert "widgets" not in notebook.get("metadata", {}), f"{path.name} keeps widget state"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs(path: Path, kernel_dir: Path, monkeypatch: pytest.MonkeyPatch,
                       tmp_path: Path) -> None:
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="causalcost-test",
        resources={"metadata": {"path": str(tmp_path)}})  # files the notebook writes land here
    start = time.perf_counter()
    try:
        client.execute(cwd=str(tmp_path))
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name}: {exc}", pytrace=False)
    seconds = time.perf_counter() - start
    print(f"{path.name}: {seconds:.1f} s")
    assert seconds < BUDGET, f"{path.name} took {seconds:.1f} s (budget {BUDGET:.0f} s)"
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    assert os.environ.get("JUPYTER_PATH") == str(kernel_dir)
