"""Every notebook in ``notebooks/`` runs top to bottom in a real Jupyter kernel (nbclient),
within its time budget, and is committed with its outputs stripped.

The notebooks assert the numbers they show (the thesis's worked examples, bounds that contain
the real system cost), so running them checks them. The kernel is this interpreter
(a kernelspec written to a temporary directory), matplotlib draws with Agg, and the working
directory is ``notebooks/``; nothing is downloaded.

Every cell that draws (calls a ``draw_*`` function or asks for a picture) must leave a picture
among its outputs, ``image/png`` or ``image/svg+xml``, as Jupyter and the documentation site
show them; no output may be a figure printed as text (``<Figure size 1000x420 with 3 Axes>``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
EXPECTED = {"01_quickstart", "02_worst_case", "03_real_data", "04_experiments", "05_explorer",
            "06_model_owner", "07_k_labels", "08_score_slots", "09_k_label_scores"}
#: A cell that draws: a call of a ``draw_*`` function or of a picture method, or a system alone
#: on its last line (its display is its picture).
DRAWS = re.compile(r"\b(?:draw_\w+|\w*picture)\(")
PICTURES = ("image/png", "image/svg+xml")


def drawing_cells(notebook: dict) -> list[int]:
    """Indices of the code cells that draw."""
    return [i for i, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "code"
            and DRAWS.search("".join(cell["source"]) if isinstance(cell["source"], list)
                             else cell["source"])]


def test_drawing_cells_are_found() -> None:
    """The five plots of notebooks 03 and 04 (issue 18) and the pictures of 01 are seen."""
    found = {path.stem: drawing_cells(json.loads(path.read_text(encoding="utf-8")))
             for path in PATHS}
    assert len(found["03_real_data"]) == 2 and len(found["04_experiments"]) == 3
    assert len(found["01_quickstart"]) == 2
    assert sum(map(len, found.values())) >= 7


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
    print(f"{path.name}: {seconds:.1f} s")  # reported, not asserted: no timings in unit tests
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    for i in drawing_cells(notebook):
        shown = {kind for o in notebook.cells[i].outputs for kind in o.get("data", {})}
        assert shown & set(PICTURES), f"{path.name} cell {i} shows no picture, only {shown}"
    as_text = [c.source for c in notebook.cells if c.cell_type == "code" for o in c.outputs
               if re.match(r"<Figure size", o.get("data", {}).get("text/plain", ""))
               and not set(PICTURES) & set(o.get("data", {}))]
    assert not as_text, f"{path.name}: figures printed as text in {as_text}"
    assert os.environ.get("JUPYTER_PATH") == str(kernel_dir)


def test_notebook_04_says_how_many_repetitions_it_runs() -> None:
    """The text states the repetitions the code runs (it once said 1000 and ran 500)."""
    cells = json.loads((NOTEBOOKS / "04_experiments.ipynb").read_text(encoding="utf-8"))["cells"]
    text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    code = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    said = re.search(r"For each `\(n1, n2\)`, (\d+) repetitions", text)
    run = re.search(r"coverage_experiment\(.*?repetitions=([\d_]+)", code, re.S)
    assert said and run and int(said.group(1)) == int(run.group(1))
    said = re.search(r"repetitions, here ([\d,]+)", text)
    run = re.search(r"ratio_experiment\(.*?repetitions=([\d_]+)", code, re.S)
    assert said and run and int(said.group(1).replace(",", "")) == int(run.group(1))
