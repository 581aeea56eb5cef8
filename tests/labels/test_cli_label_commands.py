"""The command line for sheets of K labels: derive --labels, evaluate --model K x K or
--predictions, one-line errors with exit 2, help with examples."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli.app import build_parser, main

LABELS = ["a", "b", "c"]
COSTS = "0,1,4;2,0,1;6,3,0"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("multiclass_cli")
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 3, n)
    cols = {"y": y}
    for m in ["m1", "m2", "m3", "cand"]:
        cols[m] = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    ints = pd.DataFrame(cols)
    strings = ints.map(lambda v: LABELS[v])
    strings.to_csv(tmp / "log.csv", index=False)
    ints.to_csv(tmp / "ints.csv", index=False)
    pd.DataFrame({"truth": strings["y"], "prediction": strings["cand"]}).to_csv(
        tmp / "cand.csv", index=False)
    return {"log": tmp / "log.csv", "ints": tmp / "ints.csv", "cand": tmp / "cand.csv",
            "dir": tmp, "frame": strings}


def derive(capsys, files, *extra: str, log: str = "log", labels: str = "a,b,c",
           out: str = "sheet.json") -> tuple[int, str, str]:
    return run(capsys, "derive", "--data", str(files[log]), "--labels", labels, "--truth", "y",
               "--models", "m1,m2,m3", "--slot", "m2", "--costs", COSTS, "-o",
               str(files["dir"] / out), *extra)


def test_derive_then_evaluate_matches_python(capsys, files) -> None:
    code, out, err = derive(capsys, files, "--fusioner", "plurality")
    assert code == 0 and err == "" and "sheet of 3 labels" in out
    sheet = cc.load_sheet(files["dir"] / "sheet.json")
    df = files["frame"]
    runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="plurality", labels=LABELS)
    np.testing.assert_array_equal(sheet.forced, runs.forced)
    assert sheet.digest in out
    # --predictions on the sheet's rows, declared: the exact kinds form
    code, out, err = run(capsys, "evaluate", str(files["dir"] / "sheet.json"), "--predictions",
                         str(files["cand"]), "--json", "--same-instances")
    assert code == 0, err
    data = json.loads(out)
    python = cc.evaluate(sheet, (df["y"].tolist(), df["cand"].tolist()), same_instances=True)
    assert data["form"] == "kinds" and data["worst_cost"] == pytest.approx(python.worst_cost)
    assert data["eval1"] == pytest.approx(python.eval1, rel=1e-12)
    real = runs.with_candidate(df["cand"].tolist()).cost([[0, 1, 4], [2, 0, 1], [6, 3, 0]])
    assert data["best_cost"] - 1e-9 <= real <= data["worst_cost"] + 1e-9
    # --model: K x K counts, rows the true class
    code, out, err = run(capsys, "evaluate", str(files["dir"] / "sheet.json"), "--model",
                         "40,5,5;4,30,6;2,3,45", "--confidence", "0.9")
    assert code == 0 and "worst at 90%" in out and "prediction" in out
    r = cc.evaluate(sheet, [[40, 5, 5], [4, 30, 6], [2, 3, 45]], confidence=0.9)
    assert cc.display.format_number(r.high_confidence.worst_cost) in out
    # two candidates: a ranking
    code, out, err = run(capsys, "evaluate", str(files["dir"] / "sheet.json"), "--model",
                         "x:40,5,5;4,30,6;2,3,45", "--predictions", str(files["cand"]),
                         "--json")
    data = json.loads(out)
    assert [c["name"] for c in data["candidates"]] == ["x", "cand"] or \
        [c["name"] for c in data["candidates"]] == ["cand", "x"]
    evals = [c["eval1"] for c in data["candidates"]]
    assert evals == sorted(evals)


def test_integer_labels_and_other_rules(capsys, files) -> None:
    code, out, err = derive(capsys, files, "--fusioner", "priority", "--order", "2,0,1",
                            log="ints", labels="0,1,2", out="ints.json")
    assert code == 0, err
    sheet = cc.load_sheet(files["dir"] / "ints.json")
    df = pd.read_csv(files["ints"])
    runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="priority", order=[2, 0, 1], labels=[0, 1, 2])
    np.testing.assert_array_equal(sheet.forced, runs.forced)
    assert sheet.labels == ("0", "1", "2")
    code, out, err = derive(capsys, files, "--fusioner", "plurality", "--tie-order", "slot",
                            out="slot.json")
    assert code == 0, err
    code, out, err = derive(capsys, files, "--fusioner", "k_of_n", "--label", "b", "--k", "2",
                            out="kofn.json")
    assert code == 0, err
    runs = cc.forced_runs(files["frame"], truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="k_of_n", label="b", k=2, labels=LABELS)
    np.testing.assert_array_equal(cc.load_sheet(files["dir"] / "kofn.json").forced, runs.forced)


@pytest.mark.parametrize("argv,message", [
    (("--fusioner", "majority"), "--fusioner majority is a binary rule"),
    (("--fusioner", "plurality", "--tie", "positive"), "--tie are binary options"),
    (("--fusioner", "priority"), "needs --order"),
])
def test_derive_errors_are_one_line(capsys, files, argv, message) -> None:
    code, out, err = derive(capsys, files, *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_derive_label_errors_name_the_flag(capsys, files) -> None:
    code, out, err = run(capsys, "derive", "--data", str(files["log"]), "--labels", "a,b",
                         "--truth", "y", "--models", "m1,m2,m3", "--slot", "m2", "--fusioner",
                         "plurality", "--costs", "0,1;1,0", "-o", "x.json")
    assert code == 2 and "column 'y' holds 'c'" in err and "--labels" in err
    code, out, err = run(capsys, "derive", "--data", str(files["log"]), "--labels", "a,b,c",
                         "--truth", "y", "--models", "m1,m2,m3", "--slot", "m2", "--fusioner",
                         "plurality", "--costs", "fn=5,fp=1", "-o", "x.json")
    assert code == 2 and ("--costs 'fn=5,fp=1': fn=/fp= cells are for the labels P, N; for "
                          "the labels a,b,c give 3 rows of 3 costs, e.g. '0,1,1;1,0,1;1,1,0'"
                          in err)


def test_evaluate_errors_are_one_line(capsys, files) -> None:
    derive(capsys, files, "--fusioner", "plurality", out="e.json")
    sheet = str(files["dir"] / "e.json")
    for argv, message in (
        (("--model", "1,2;3,4"), "--model '1,2;3,4' must be 3 x 3"),
        (("--model", "tp=5,fn=1,fp=1,tn=5"), "tp/fn/fp/tn cells are for two labels"),
        ((), "give a candidate"),
        (("--model", "1,2,3;4,5,6;7,8,9", "--model", "1,2,3;4,5,6;7,8,9", "--label-accuracy",
          "0.9"), "--label-accuracy applies to one candidate"),
        (("--candidates", str(files["log"])), "--candidates reads tp,fn,fp,tn columns"),
        (("--predictions", str(files["log"])), "needs the columns truth and prediction"),
        (("--predictions", str(files["dir"] / "missing.csv")), "no such file"),
    ):
        code, out, err = run(capsys, "evaluate", sheet, *argv)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_label_accuracy_on_a_k_label_sheet_is_the_python_range(capsys, files) -> None:
    derive(capsys, files, "--fusioner", "plurality", out="n.json")
    sheet_path = files["dir"] / "n.json"
    model = [[30, 5, 5], [4, 30, 6], [2, 3, 45]]
    code, out, err = run(capsys, "evaluate", str(sheet_path), "--model",
                         ";".join(",".join(str(v) for v in row) for row in model),
                         "--label-accuracy", "0.95", "--json")
    assert code == 0, err
    data = json.loads(out)
    expected = cc.label_noise_range(cc.load_sheet(sheet_path), model, 0.95).to_dict()
    assert json.dumps(data["label_noise"], sort_keys=True) == json.dumps(expected, sort_keys=True)


def test_predictions_on_a_binary_sheet(capsys, tmp_path) -> None:
    """One evaluate command for every K: a binary sheet takes --predictions too."""
    code, out, err = run(capsys, "derive", "thesis_and", "--costs", "fn=5,fp=1", "-o",
                         str(tmp_path / "b.json"))
    assert code == 0
    rng = np.random.default_rng(1)
    truth = rng.choice(["P", "N"], 200)
    pred = np.where(rng.random(200) < 0.8, truth, rng.choice(["P", "N"], 200))
    pd.DataFrame({"truth": truth, "prediction": pred}).to_csv(tmp_path / "p.csv", index=False)
    code, out, err = run(capsys, "evaluate", str(tmp_path / "b.json"), "--predictions",
                         str(tmp_path / "p.csv"), "--json")
    assert code == 0, err
    expected = cc.evaluate(cc.load_sheet(tmp_path / "b.json"),
                           cc.count_confusion(truth, pred, labels=["P", "N"]))
    assert json.loads(out)["eval1"] == pytest.approx(expected.eval1, rel=1e-12)


def test_help_shows_the_new_options_and_examples(capsys) -> None:
    for command, flags in (("derive", ("--labels", "--order", "--label", "--tie-order")),
                           ("evaluate", ("--predictions",))):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        out = capsys.readouterr().out
        assert all(f in out for f in flags)
        assert "--labels" in out or "'a:40,5,5;4,30,6;2,3,45'" in out
        assert "examples:" in out
