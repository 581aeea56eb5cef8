"""The score sheet at the command line: ``derive --data LOG --scores``, ``show``, ``sign`` and
``verify``, re-pricing, and one-line errors with exit 2.

Independent computation: the sheet the CLI writes against the one
:func:`~causalcost.sheet_from_data` makes from :func:`score_runs` on the same file read by
pandas.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli.app import main
from causalcost.data.score_runs import score_runs
from causalcost.sheet.score_sheet import ScoreSheet
from causalcost.sheet.signature import signing_available

COSTS = cc.CostMatrix(fn=5, fp=1)
SCORE = ["--truth", "y", "--models", "a,b,c", "--slot", "b"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(4)
    n = 240
    y = rng.random(n) < 0.4
    frame = pd.DataFrame({"y": y.astype(int), **{
        m: np.round(np.clip(np.where(y, 0.6, 0.4) + rng.normal(0, 0.25, n), 0, 1), 3)
        for m in "abc"}})
    path = tmp_path_factory.mktemp("scores") / "log.csv"
    frame.to_csv(path, index=False)
    return path


def expected(log: Path, breakpoints: int | None = None, **rule) -> ScoreSheet:
    runs = score_runs(pd.read_csv(log), truth="y", models=["a", "b", "c"], slot="b", **rule)
    return cc.sheet_from_data(runs, COSTS, breakpoints=breakpoints)


@pytest.mark.parametrize(("flags", "rule"), [
    (["--fusioner", "mean", "--threshold", "0.5"], {"fusioner": "mean"}),
    (["--fusioner", "mean", "--weights", "1,2,1", "--threshold", "0.45"],
     {"fusioner": "mean", "weights": [1, 2, 1], "threshold": 0.45}),
    (["--fusioner", "max", "--threshold", "0.7"], {"fusioner": "max", "threshold": 0.7}),
    (["--fusioner", "min"], {"fusioner": "min"}),
    (["--fusioner", "logistic", "--weights", "2,3,1", "--bias", "-3"],
     {"fusioner": "logistic", "weights": [2, 3, 1], "bias": -3.0}),
])
@pytest.mark.parametrize("breakpoints", [None, 12])
def test_derive_scores_writes_the_sheet_of_the_log(capsys, tmp_path, log, flags, rule,
                                                   breakpoints) -> None:
    out_path = tmp_path / "s.json"
    extra = [] if breakpoints is None else ["--breakpoints", str(breakpoints)]
    code, out, err = run(capsys, "derive", "--data", log, "--scores", *SCORE, *flags, *extra,
                         "--costs", "fn=5,fp=1", "-o", out_path)
    assert code == 0 and err == "", err
    sheet = cc.load_sheet(out_path)
    want = expected(log, **rule, breakpoints=breakpoints)
    assert isinstance(sheet, ScoreSheet)
    assert [c.to_dict() for c in sheet.critical] == [c.to_dict() for c in want.critical]
    assert (sheet.rule, sheet.slot, sheet.models, sheet.costs) == \
        (want.rule, want.slot, want.models, want.costs)
    assert sheet.exact == want.exact
    if rule["fusioner"] in ("mean", "logistic"):  # many distinct critical scores (max, min: one)
        assert sheet.exact == (breakpoints is None)
    assert sheet.digest in out and "score sheet, slot 'b'" in out
    assert f"{sheet.class_sizes[0]} positives" in out


@pytest.mark.parametrize("engine", ["pandas", "polars", "duckdb"])
def test_every_engine_gives_the_same_sheet(capsys, tmp_path, log, engine) -> None:
    pytest.importorskip(engine)
    code, _, err = run(capsys, "derive", "--data", log, "--scores", *SCORE, "--fusioner", "mean",
                       "--engine", engine, "--costs", "fn=5,fp=1", "-o", tmp_path / "e.json")
    assert code == 0, err
    sheet = cc.load_sheet(tmp_path / "e.json")
    assert [c.to_dict() for c in sheet.critical] == \
        [c.to_dict() for c in expected(log, fusioner="mean").critical]


def test_show_prints_either_kind_of_sheet(capsys, tmp_path, log) -> None:
    path = tmp_path / "s.json"
    assert run(capsys, "derive", "--data", log, "--scores", *SCORE, "--fusioner", "mean",
               "--breakpoints", "8", "--costs", "fn=5,fp=1", "-o", path)[0] == 0
    sheet = cc.load_sheet(path)
    code, out, err = run(capsys, "show", path)
    assert code == 0 and err == ""
    assert out.strip() == str(sheet)
    assert "on 8 breakpoints" in out and sheet.digest in out
    code, out, _ = run(capsys, "show", path, "--json")
    data = json.loads(out)
    assert data["digest"]["sha256"] == sheet.digest and data["signature_checked"] is False
    vote = cc.sheet_from_network("thesis_and", COSTS).save(tmp_path / "v.json")
    code, out, _ = run(capsys, "show", vote)
    assert code == 0 and "Cost sheet for slot 'clinical_history'" in out


def test_reprice_a_score_sheet(capsys, tmp_path, log) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, "--scores", *SCORE, "--fusioner", "mean", "--costs",
        "fn=5,fp=1", "-o", path)
    code, out, err = run(capsys, "derive", path, "--costs", "fn=9,fp=1", "-o",
                         tmp_path / "r.json")
    assert code == 0, err
    parent, child = cc.load_sheet(path), cc.load_sheet(tmp_path / "r.json")
    assert child.provenance["repriced_from"] == parent.digest != child.digest
    assert child.costs == cc.CostMatrix(fn=9, fp=1)
    assert [c.to_dict() for c in child.critical] == [c.to_dict() for c in parent.critical]


@pytest.mark.skipif(not signing_available(), reason="needs cryptography")
def test_sign_and_verify_a_score_sheet_at_the_command_line(capsys, tmp_path, log) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, "--scores", *SCORE, "--fusioner", "mean", "--costs",
        "fn=5,fp=1", "-o", path)
    assert run(capsys, "keygen", tmp_path / "o.pem", tmp_path / "o.pub")[0] == 0
    code, out, err = run(capsys, "sign", path, "--key", tmp_path / "o.pem")
    assert code == 0 and "signed" in out, err
    code, out, err = run(capsys, "verify", path, "--public-key", tmp_path / "o.pub", "--json")
    assert code == 0, err
    assert json.loads(out)["sha256"] == cc.load_sheet(path).digest
    code, out, _ = run(capsys, "show", path)
    assert "signed by ed25519:" in out
    data = json.loads(path.read_text())
    data["rule"] = "something else"
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, "verify", path, "--public-key", tmp_path / "o.pub")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "changed after it was signed" in err


BAD = {
    "mean_without_scores": (["--data", "{log}", *SCORE, "--fusioner", "mean"],
                            "--fusioner mean fuses scores: add --scores"),
    "scores_with_a_vote_rule": (["--data", "{log}", "--scores", *SCORE, "--fusioner",
                                 "majority"], "--scores takes a score rule"),
    "breakpoints_without_scores": (["--data", "{log}", *SCORE, "--fusioner", "majority",
                                    "--breakpoints", "5"], "--breakpoints apply to score"),
    "bias_without_logistic": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "mean",
                               "--bias", "1"], "--bias is the logistic"),
    "labels": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "mean", "--labels",
                "P,N"], "--labels apply to vote rules"),
    "assumption": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "mean",
                    "--assumption", "none"], "--assumption apply to vote rules"),
    "no_data": (["thesis_and", "--scores", "--fusioner", "mean"], "give --data FILE"),
    "missing_truth": (["--data", "{log}", "--scores", "--models", "a,b,c", "--slot", "b",
                       "--fusioner", "mean"], "needs --truth"),
    "unknown_column": (["--data", "{log}", "--scores", "--truth", "y", "--models", "a,b,z",
                        "--slot", "b", "--fusioner", "mean"], "column 'z' is not in the data"),
    "max_with_weights": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "max",
                          "--weights", "1,1,1"], "--weights: the 'max' fusioner"),
    "weights_length": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "mean",
                        "--weights", "1,1"], "--weights: 2 weights for 3"),
    "logistic_threshold": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "logistic",
                            "--weights", "1,1,1", "--threshold", "2"], "--threshold: "),
    "breakpoints_one": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "mean",
                         "--breakpoints", "1"], "keep at least 2 breakpoints"),
    "k_labels_costs": (["--data", "{log}", "--scores", *SCORE, "--fusioner", "mean",
                        "--costs", "0,1,1;1,0,1;1,1,0"], "--costs"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_user_errors_are_one_line_exit_2(capsys, tmp_path, log, case) -> None:
    argv, fragment = BAD[case]
    argv = [a.replace("{log}", str(log)) for a in argv]
    if "--costs" not in argv:
        argv += ["--costs", "fn=5,fp=1"]
    out_path = tmp_path / "o.json"
    code, out, err = run(capsys, "derive", *argv, "-o", out_path)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert fragment in lines[0] and "Traceback" not in err
    assert not out_path.exists()


def test_evaluate_refuses_a_confusion_for_a_score_sheet_in_one_line(capsys, tmp_path, log) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, "--scores", *SCORE, "--fusioner", "mean", "--costs",
        "fn=5,fp=1", "-o", path)
    code, out, err = run(capsys, "evaluate", path, "--model", "tp=1,fn=1,fp=1,tn=1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "a score sheet prices a candidate from its scores" in err and "--scores" in err


def test_a_truth_of_two_named_labels_needs_positive_label(capsys, tmp_path, log) -> None:
    named = tmp_path / "named.csv"
    frame = pd.read_csv(log)
    frame.assign(y=frame["y"].map({1: "sick", 0: "well"})).to_csv(named, index=False)
    argv = ["derive", "--data", named, "--scores", *SCORE, "--fusioner", "mean", "--costs",
            "fn=5,fp=1", "-o", tmp_path / "n.json"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and "--positive-label" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, *argv, "--positive-label", "sick")
    assert code == 0, err
    sheet = cc.load_sheet(tmp_path / "n.json")
    want = expected(log, fusioner="mean")
    assert [c.to_dict() for c in sheet.critical] == [c.to_dict() for c in want.critical]


# ------------------------------------------------------- runs, backtest, importance on scores
@pytest.fixture(scope="module")
def candidates_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(11)
    n = 300
    y = rng.random(n) < 0.4
    frame = pd.DataFrame({"y": y.astype(int), **{
        m: np.round(np.clip(np.where(y, 0.6, 0.4) + rng.normal(0, 0.25, n), 0, 1), 3)
        for m in "abc"},
        "new1": np.round(rng.random(n), 3),
        "new2": np.round(np.clip(0.6 * y + 0.4 * rng.random(n), 0, 1), 3)})
    path = tmp_path_factory.mktemp("candidates") / "log.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_runs_on_score_columns_matches_the_library(capsys, candidates_log) -> None:
    path, frame = candidates_log
    code, out, err = run(capsys, "runs", path, *SCORE, "--fusioner", "mean", "--weights",
                         "1,2,1", "--candidate", "new2", "--json")
    assert code == 0 and err == "", err
    got = json.loads(out)
    runs = score_runs(frame, truth="y", models=["a", "b", "c"], slot="b", weights=[1, 2, 1])
    t_p, t_n = runs.critical_by_class
    assert got["critical"] == {"P": t_p.tolist(), "N": t_n.tolist()}
    assert got["observed"] == runs.observed.to_dict()
    assert got["candidate"]["system"] == runs.with_candidate(frame["new2"].to_numpy()).to_dict()
    code, out, err = run(capsys, "runs", path, *SCORE, "--fusioner", "mean")
    assert code == 0 and "critical score quantiles" in out and "ScoreRuns(" in out


def test_backtest_on_score_columns_matches_the_library(capsys, candidates_log) -> None:
    path, frame = candidates_log
    code, out, err = run(capsys, "backtest", path, *SCORE, "--fusioner", "logistic",
                         "--weights", "2,3,1", "--bias", "-3", "--candidates", "new1,new2",
                         "--costs", "fn=5,fp=1", "--json")
    assert code == 0 and err == "", err
    got = json.loads(out)
    runs = score_runs(frame, truth="y", models=["a", "b", "c"], slot="b", fusioner="logistic",
                      weights=[2, 3, 1], bias=-3.0)
    want = cc.backtest(runs, {c: frame[c].to_numpy() for c in ("new1", "new2")},
                       costs=COSTS).to_dict()
    assert got == json.loads(json.dumps(want))
    for c in ("new1", "new2"):  # the real cost with each candidate, counted by hand
        says = frame[c].to_numpy() >= runs.critical
        truth = frame["y"].to_numpy() == 1
        real = 5 * int((truth & ~says).sum()) + int((~truth & says).sum())
        assert real == runs.with_candidate(frame[c].to_numpy()).cost(COSTS)


@pytest.mark.parametrize("argv, words", [
    (["importance", "{log}", "--truth", "y", "--models", "a,b,c", "--fusioner", "mean",
      "--costs", "fn=5,fp=1"], "fuses scores"),
    (["runs", "{log}", *SCORE, "--fusioner", "mean", "--k", "2"], "--k only for vote rules"),
    (["runs", "{log}", *SCORE, "--fusioner", "mean", "--bias", "1"], "--bias"),
    (["runs", "{log}", *SCORE, "--fusioner", "majority", "--bias", "1"], "vote rules have none"),
    (["runs", "{log}", *SCORE, "--fusioner", "mean", "--confidence", "0.9"], "critical scores"),
    (["backtest", "{log}", *SCORE, "--fusioner", "mean", "--candidates", "zz", "--costs",
      "fn=5,fp=1"], "--candidates zz: no such column"),
])
def test_score_log_commands_refuse_in_one_line(capsys, candidates_log, argv, words) -> None:
    path, _ = candidates_log
    code, out, err = run(capsys, *[str(path) if a == "{log}" else a for a in argv])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert words in err
