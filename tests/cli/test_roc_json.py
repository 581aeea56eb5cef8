"""``causalcost roc``: strict JSON when a chosen threshold is "every score" (+inf), scores
read from text, and ``--positive-label`` naming the positive class of a 0/1 truth column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from causalcost.cli import main


def strict_json(text: str) -> dict:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in JSON output")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("roc") / "sheet.json"
    assert main(["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", str(path)]) == 0
    return path


def roc(capsys: pytest.CaptureFixture[str], sheet: Path, scores: Path, *extra: str):
    capsys.readouterr()
    code = main(["roc", str(sheet), "--scores", str(scores), "--truth", "y", "--score", "s",
                 *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_constant_scores_give_an_explicit_every_score_threshold(
        capsys: pytest.CaptureFixture[str], sheet: Path, tmp_path: Path) -> None:
    scores = tmp_path / "constant.csv"
    scores.write_text("y,s\n1,0.5\n0,0.5\n1,0.5\n")
    code, out, err = roc(capsys, sheet, scores, "--json")
    assert code == 0, err
    data = strict_json(out)
    thresholds = {p["threshold"] for p in data["points"].values()}
    assert thresholds <= {0.5, "+inf"} and "+inf" in thresholds
    for point in data["points"].values():
        if point["threshold"] == "+inf":  # no score reaches it: nothing predicted positive
            assert point["predicts"] == "N for every score"
            assert point["tp"] == point["fp"] == 0
        else:
            assert point["predicts"] == "P when score >= threshold"
            assert point["tp"] + point["fp"] == 3  # every row reaches 0.5


def test_a_zero_one_classifier_prices_its_two_thresholds(
        capsys: pytest.CaptureFixture[str], sheet: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    y = rng.random(200) < 0.4
    s = np.where(rng.random(200) < 0.8, y, ~y).astype(int)
    scores = tmp_path / "binary.csv"
    pd.DataFrame({"y": y.astype(int), "s": s}).to_csv(scores, index=False)
    code, out, err = roc(capsys, sheet, scores, "--json")
    assert code == 0, err
    data = strict_json(out)
    assert data["thresholds"] == 3  # +inf, 1, 0
    assert data["auc"] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    for point in data["points"].values():
        t = point["threshold"]
        assert t in (0.0, 1.0, "+inf")
        predicted = np.zeros(200, bool) if t == "+inf" else s >= t
        assert point["tp"] == int((predicted & y).sum())
        assert point["fp"] == int((predicted & ~y).sum())


def test_positive_label_zero_flips_the_auc(capsys: pytest.CaptureFixture[str], sheet: Path,
                                           tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.5).astype(int)
    s = rng.normal(y, 1.0)
    scores = tmp_path / "scores.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(scores, index=False)
    code, out, err = roc(capsys, sheet, scores, "--json")
    assert code == 0, err
    auc = strict_json(out)["auc"]
    code, out, err = roc(capsys, sheet, scores, "--json", "--positive-label", "0")
    assert code == 0, err
    flipped = strict_json(out)
    assert auc == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert flipped["auc"] == pytest.approx(1 - auc, rel=1e-12)
    assert flipped["positives"] == int((y == 0).sum())


def test_a_score_that_is_not_a_number_is_named(capsys: pytest.CaptureFixture[str], sheet: Path,
                                               tmp_path: Path) -> None:
    scores = tmp_path / "bad.csv"
    scores.write_text("y,s\n1,0.5\n0,high\n1,0.2\n")
    code, out, err = roc(capsys, sheet, scores)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--score column 's'" in err and "'high'" in err and "1 row(s)" in err
