"""bound_many's ceiling on its result frame at the command line: ``evaluate`` with more
candidates than one call prices prints one line (in flags, not Python keywords) and exits 2.

A real file past the 2 GiB ceiling holds some 18 million rows, so the ceiling is lowered here
to two candidates' frame; the error path is the one a large file takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from causalcost.cli import main
from causalcost.pricing import chunks

MODELS = ["a:tp=50,fn=50,fp=100,tn=100", "b:tp=90,fn=10,fp=20,tn=180",
          "c:tp=60,fn=40,fp=50,tn=150"]


@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sheet") / "sheet.json"
    assert main(["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("given", ["csv", "flags"])
def test_evaluate_past_the_ceiling_is_one_line_and_exit_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        sheet: Path, given: str) -> None:
    if given == "csv":
        csv = tmp_path / "candidates.csv"
        csv.write_text("name,tp,fn,fp,tn\n" + "".join(
            f"{m.split(':')[0]},{','.join(v.split('=')[1] for v in m.split(':')[1].split(','))}\n"
            for m in MODELS))
        argv = ["evaluate", str(sheet), "--candidates", str(csv)]
    else:
        argv = ["evaluate", str(sheet)] + [w for m in MODELS for w in ("--model", m)]
    capsys.readouterr()
    assert main(argv) == 0  # under the ceiling: ranked
    capsys.readouterr()
    monkeypatch.setattr(chunks, "MAX_OUTPUT_BYTES", 2 * 120)  # two binary rows
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("causalcost evaluate: error: models has 3 candidates, more than "
                               "bound_many prices at once (2: "), lines[0]
    assert lines[0].endswith("split the candidates into batches of at most 2 rows (a "
                             "--candidates file each)"), lines[0]
    assert "max_candidates" not in lines[0]  # no flag sets it: not offered at the command line
