"""Bad input to the score-log commands (``derive --data --scores``, ``runs``, ``backtest``,
``show``, ``evaluate``, ``importance``, ``draw``, ``roc``): one line on stderr, exit 2, no
traceback; and the near-overflow weights of a mean, which are a plain mean (exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli import main

SCORE = ["--truth", "y", "--models", "a,b,c", "--slot", "b"]
COSTS = ["--costs", "fn=5,fp=1"]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    """Run ``argv``; assert exit 2, nothing on stdout, one error line; return it."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("causalcost") and "error:" in lines[0], lines[0]
    assert out == "", out
    return lines[0]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A score log (0/1 truth, scores a, b, c and candidates new1, new2) and a vote log."""
    rng = np.random.default_rng(11)
    n = 200
    y = rng.random(n) < 0.4
    folder = tmp_path_factory.mktemp("boundary")
    scores = pd.DataFrame({"y": y.astype(int), **{
        m: np.round(np.clip(np.where(y, 0.6, 0.4) + rng.normal(0, 0.25, n), 0, 1), 3)
        for m in "abc"}, "new1": np.round(rng.random(n), 3), "new2": np.round(rng.random(n), 3)})
    votes = pd.DataFrame({"y": y.astype(int), **{
        m: np.where(rng.random(n) < 0.8, y, ~y).astype(int)
        for m in ("a", "b", "c", "new1", "new2")}})
    paths = {"scores": folder / "scores.csv", "votes": folder / "votes.csv"}
    scores.to_csv(paths["scores"], index=False)
    votes.to_csv(paths["votes"], index=False)
    return paths


# ------------------------------------------------------------- 1. weights near the float limit
def test_mean_weights_near_the_float_limit_are_a_plain_mean(capsys, tmp_path, logs) -> None:
    out = {}
    for name, weights in (("huge", "1e308,1e308,1e308"), ("ones", "1,1,1")):
        out[name] = tmp_path / f"{name}.json"
        code, _, err = run(capsys, "derive", "--data", logs["scores"], "--scores", *SCORE,
                           "--fusioner", "mean", "--weights", weights, *COSTS, "-o", out[name])
        assert code == 0 and "Traceback" not in err, err
    huge, ones = (cc.load_sheet(out[k]) for k in ("huge", "ones"))
    assert huge.rule == ones.rule == "mean of 3 scores >= 0.5"
    assert huge.class_sizes == ones.class_sizes
    for a, b in zip(huge.critical_by_class(), ones.critical_by_class()):
        assert np.max(np.abs(a - b)) <= 4 * np.finfo(float).eps


@pytest.mark.parametrize("argv", [
    ["derive", "--data", "{scores}", "--scores", *SCORE, "--fusioner", "logistic",
     "--weights", "1e308,1e308,1", *COSTS, "-o", "{out}"],
    ["runs", "{scores}", *SCORE, "--fusioner", "logistic", "--weights", "1e308,1e308,1"],
    ["backtest", "{scores}", *SCORE, "--fusioner", "logistic", "--weights", "1,1e308,1e308",
     "--candidates", "new1", *COSTS],
])
def test_logistic_weights_that_overflow_are_one_line(capsys, tmp_path, logs, argv) -> None:
    argv = [a.format(scores=logs["scores"], out=tmp_path / "o.json") for a in argv]
    line = one_line_error(capsys, *argv)
    assert "--weights: the logistic meta-model's bias + weights . scores overflows" in line
    assert not (tmp_path / "o.json").exists()


def test_json_of_a_huge_weight_sheet_is_finite(capsys, tmp_path, logs) -> None:
    path = tmp_path / "h.json"
    assert run(capsys, "derive", "--data", logs["scores"], "--scores", *SCORE, "--fusioner",
               "mean", "--weights", "1e308,1.5e308,1e308", *COSTS, "-o", path)[0] == 0
    sheet = json.loads(path.read_text())
    assert sheet["rule"] == "mean of 3 scores >= 0.5, weights (1e+308, 1.5e+308, 1e+308)"


# ------------------------------------------------------------------------------ 2. breakpoints
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "2.5", "true", "1", "0", "-4", "1e400",
                                   "", "0x10"])
def test_bad_breakpoints_are_one_line(capsys, tmp_path, logs, value) -> None:
    line = one_line_error(capsys, "derive", "--data", logs["scores"], "--scores", *SCORE,
                          "--fusioner", "mean", "--breakpoints", value, *COSTS, "-o",
                          tmp_path / "o.json")
    assert "--breakpoints" in line
    assert not (tmp_path / "o.json").exists()


# ----------------------------------------------------------------- 4. candidates named twice
@pytest.mark.parametrize(("log", "rule", "candidates"), [
    ("scores", "mean", "new1,new1"), ("scores", "logistic", "new1,new2,new1"),
    ("votes", "majority", "new1,new1"), ("votes", "and", "new2,new1,new2"),
])
def test_backtest_refuses_a_candidate_named_twice(capsys, logs, log, rule, candidates) -> None:
    extra = ["--weights", "1,2,1"] if rule == "logistic" else []
    line = one_line_error(capsys, "backtest", logs[log], *SCORE, "--fusioner", rule, *extra,
                          "--candidates", candidates, *COSTS)
    assert f"--candidates {candidates} names " in line and "twice" in line
