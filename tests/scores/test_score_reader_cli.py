"""The one reader of scores at the command line: every command that reads score columns or a
candidate's scores (``runs``, ``backtest``, ``derive --data --scores``, ``evaluate --scores``)
refuses the same bad cell in one line with exit 2, and ``--score-range`` declares another
range (recorded on the sheet)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli.app import main

LOG = ["--truth", "y", "--models", "a,b,c", "--slot", "b", "--fusioner", "mean"]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _log(tmp_path: Path, name: str, **bad: tuple[int, object]) -> Path:
    rng = np.random.default_rng(2)
    n = 30
    y = (np.arange(n) % 3 == 0).astype(int)
    frame = pd.DataFrame({"y": y, **{m: np.round(rng.random(n), 3).astype(object)
                                     for m in ("a", "b", "c", "new1")}})
    for column, (row, value) in bad.items():
        frame.loc[row, column] = value
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def _one_line_error(result: tuple[int, str, str], pattern: str) -> None:
    code, _, err = result
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert pattern in lines[0], lines[0]


@pytest.mark.parametrize(("column", "value", "says"), [
    ("a", "high", "score column 'a': row 4 holds the text 'high', not a number"),
    ("c", "", "score column 'c' on row 4 is missing (NaN or null)"),
    ("a", "inf", "score column 'a' on row 4 holds inf; scores must be finite"),
    ("b", "1.7", "score column 'b' on row 4 holds 1.7, outside the score range [0, 1]"),
])
def test_every_log_command_refuses_the_same_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 column: str, value: object, says: str) -> None:
    log = _log(tmp_path, "log.csv", **{column: (4, value)})
    for argv in (["runs", log, *LOG],
                 ["backtest", log, *LOG, "--candidates", "new1", "--costs", "fn=5,fp=1"],
                 ["derive", "--data", log, *LOG, "--scores", "--costs", "fn=5,fp=1", "-o",
                  tmp_path / "s.json"]):
        _one_line_error(run(capsys, *argv), says)


@pytest.mark.parametrize(("value", "says"), [
    ("0.4x", "row 7 holds the text '0.4x', not a number"),
    ("nan", "row 7 is missing (NaN or null)"),
    ("-inf", "row 7 holds -inf; scores must be finite"),
    ("-0.5", "row 7 holds -0.5, outside the score range [0, 1]"),
])
def test_every_candidate_command_refuses_the_same_row(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      value: str, says: str) -> None:
    log = _log(tmp_path, "log.csv", new1=(7, value))
    sheet = tmp_path / "sheet.json"
    assert run(capsys, "derive", "--data", log, *LOG, "--scores", "--costs", "fn=5,fp=1",
               "-o", sheet)[0] == 0
    for argv in (["runs", log, *LOG, "--candidate", "new1"],
                 ["backtest", log, *LOG, "--candidates", "new1", "--costs", "fn=5,fp=1"],
                 ["evaluate", sheet, "--scores", log, "--truth", "y", "--score-column",
                  "new1"]):
        _one_line_error(run(capsys, *argv), says)


def test_a_declared_range_is_used_and_recorded(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path, "margins.csv", b=(3, 4.5), new1=(5, -2.0))
    argv = ["derive", "--data", log, *LOG, "--scores", "--costs", "fn=5,fp=1"]
    _one_line_error(run(capsys, *argv, "-o", tmp_path / "x.json"),
                    "score column 'b' on row 3 holds 4.5, outside the score range [0, 1]")
    code, _, err = run(capsys, *argv, "--score-range=-5,5", "-o", tmp_path / "m.json")
    assert code == 0, err
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["score_range"] == [-5, 5]
    sheet = cc.load_sheet(tmp_path / "m.json")
    assert sheet.score_range == (-5.0, 5.0)
    frame = pd.read_csv(log)
    direct = cc.evaluate(sheet, y_true=frame["y"], scores=frame["new1"])
    code, out, err = run(capsys, "evaluate", tmp_path / "m.json", "--scores", log, "--truth",
                         "y", "--score-column", "new1", "--json")
    assert code == 0, err
    assert json.loads(out)["eval1"] == pytest.approx(direct.eval1, rel=1e-12)
    _one_line_error(run(capsys, "runs", log, *LOG, "--fusioner", "majority",
                         "--score-range=0,1"), "--score-range is the range of a score rule")
