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
                          "--fusioner", "mean", f"--breakpoints={value}", *COSTS, "-o",
                          tmp_path / "o.json")
    assert "--breakpoints" in line
    assert "is not a whole number >= 2 (the most critical scores kept per class)" in line \
        or "keep at least 2 breakpoints per class" in line, line
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


# --------------------------------------------------- 6. a positive label the truth does not hold
POSITIVE_COMMANDS = {
    "derive_scores": ["derive", "--data", "{scores}", "--scores", *SCORE, "--fusioner", "mean",
                      *COSTS, "-o", "{out}"],
    "derive_votes": ["derive", "--data", "{votes}", *SCORE, "--fusioner", "majority", *COSTS,
                     "-o", "{out}"],
    "runs_scores": ["runs", "{scores}", *SCORE, "--fusioner", "mean"],
    "runs_votes": ["runs", "{votes}", *SCORE, "--fusioner", "majority"],
    "backtest_scores": ["backtest", "{scores}", *SCORE, "--fusioner", "mean", "--candidates",
                        "new1", *COSTS],
    "backtest_votes": ["backtest", "{votes}", *SCORE, "--fusioner", "majority", "--candidates",
                       "new1", *COSTS],
    "importance_votes": ["importance", "{votes}", "--truth", "y", "--models", "a,b,c",
                         "--fusioner", "majority", *COSTS],
    "draw_votes": ["draw", "--data", "{votes}", *SCORE, "--fusioner", "majority", "-o",
                   "{svg}"],
    "roc_scores": ["roc", "{sheet}", "--scores", "{scores}", "--truth", "y", "--score", "new1"],
}


@pytest.fixture(scope="module")
def vote_sheet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save(
        tmp_path_factory.mktemp("sheet") / "thesis.json")


def _argv(command: str, logs: dict[str, Path], tmp_path: Path, sheet: Path) -> list[str]:
    return [a.format(scores=logs["scores"], votes=logs["votes"], out=tmp_path / "o.json",
                     svg=tmp_path / "d.svg", sheet=sheet) for a in POSITIVE_COMMANDS[command]]


@pytest.mark.parametrize("label", ["7", "sick"])
@pytest.mark.parametrize("command", sorted(POSITIVE_COMMANDS))
def test_a_positive_label_the_log_does_not_hold_is_one_line(capsys, tmp_path, logs, vote_sheet,
                                                            command, label) -> None:
    argv = _argv(command, logs, tmp_path, vote_sheet)
    line = one_line_error(capsys, *argv, "--positive-label", label)
    assert f"--positive-label {label!r} is not a label of the truth column" in line, line
    assert "leave --positive-label out for 1 as the positive label" in line
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "d.svg").exists()


@pytest.mark.parametrize("command", sorted(POSITIVE_COMMANDS))
def test_a_boolean_spelling_is_still_a_positive_label(capsys, tmp_path, logs, vote_sheet,
                                                      command) -> None:
    argv = _argv(command, logs, tmp_path, vote_sheet)
    code, _, err = run(capsys, *argv, "--positive-label", "1")
    assert code == 0, err


def test_a_named_truth_label_is_taken(capsys, tmp_path, logs) -> None:
    named = tmp_path / "named.csv"
    frame = pd.read_csv(logs["scores"])
    frame.assign(y=frame["y"].map({1: "sick", 0: "well"})).to_csv(named, index=False)
    code, out, err = run(capsys, "runs", named, *SCORE, "--fusioner", "mean",
                         "--positive-label", "sick", "--json")
    assert code == 0, err
    want = cc.forced_runs(frame, truth="y", models=["a", "b", "c"], slot="b", fusioner="mean")
    assert json.loads(out)["observed"] == want.observed.to_dict()
    line = one_line_error(capsys, "runs", named, *SCORE, "--fusioner", "mean",
                          "--positive-label", "ill")
    assert "'ill'" in line
