"""Every log and sheet command with K = 2, 3, 4 labels, against the Python API and a numpy count:
derive --labels, derive SHEET --costs, evaluate (one report, a ranking), runs --labels,
experiment coverage --labels; the hostile cases exit 2 with one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.cli.app import main

sys.path.insert(0, str(Path(__file__).parents[1] / "evaluation"))
from klabel_fixtures import costs_of, labels_of, log, real_cost  # noqa: E402

KS = [2, 3, 4]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def matrix_text(m) -> str:
    return ";".join(",".join(f"{v:g}" for v in row) for row in np.asarray(m, dtype=float))


@pytest.fixture(scope="module", params=KS)
def setup(request, tmp_path_factory):
    k = request.param
    tmp = tmp_path_factory.mktemp(f"k{k}")
    frame = log(k)
    frame.to_csv(tmp / "log.csv", index=False)
    for column in ("cand", "cand2"):
        frame[["truth", column]].rename(columns={column: "prediction"}).to_csv(
            tmp / f"{column}.csv", index=False)
    code = main(["derive", "--data", str(tmp / "log.csv"), "--labels", ",".join(labels_of(k)),
                 "--truth", "truth", "--models", "m1,m2,m3", "--slot", "m2", "--fusioner",
                 "plurality", "--costs", matrix_text(costs_of(k)), "-o", str(tmp / "s.json")])
    assert code == 0
    return k, tmp, frame, cc.load_sheet(tmp / "s.json")


def test_derive_counts_the_forced_runs(setup) -> None:
    k, tmp, frame, sheet = setup
    runs = cc.forced_runs(frame, truth="truth", models=["m1", "m2", "m3"], slot="m2",
                          fusioner="plurality", labels=labels_of(k))
    np.testing.assert_array_equal(sheet.forced, runs.forced)
    np.testing.assert_array_equal(sheet.costs_array, costs_of(k))


def test_evaluate_predictions_matches_python_and_the_real_cost(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--predictions", tmp / "cand.csv",
                         "--same-instances", "--json")
    assert code == 0, err
    data = json.loads(out)
    python = cc.evaluate(sheet, (frame["truth"], frame["cand"]), same_instances=True)
    for key in ("eval1", "eval2", "worst_cost", "best_cost"):
        assert data[key] == pytest.approx(getattr(python, key), rel=1e-12)
    real = real_cost(k, frame, "cand")  # numpy count
    assert data["best_cost"] - 1e-9 <= real <= data["worst_cost"] + 1e-9
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--predictions", tmp / "cand.csv",
                         "--json")
    assert json.loads(out)["form"] == "probability"  # not declared: other rows


def test_evaluate_ranking_matches_compare(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    m = cc.label_confusion((frame["truth"], frame["m1"]), labels_of(k))
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--model", f"x:{matrix_text(m)}",
                         "--predictions", tmp / "cand.csv", "--predictions", tmp / "cand2.csv",
                         "--confidence", "0.9", "--json")
    assert code == 0, err
    data = json.loads(out)
    table = cc.compare(sheet, {"x": m}, y_true=frame["truth"],
                       predictions={"cand": frame["cand"], "cand2": frame["cand2"]},
                       confidence=0.9)
    assert [c["name"] for c in data["candidates"]] == table.index.tolist()
    for row in data["candidates"]:
        for key in ("eval1", "worst_cost", "high_confidence_worst_cost",
                    "high_confidence_best_cost", "eval1_ci_high"):
            assert row[key] == pytest.approx(table.loc[row["name"], key], rel=1e-12)


def test_derive_sheet_costs_reprices(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    new = costs_of(k) * 2 + 1
    np.fill_diagonal(new, 0.0)
    code, out, err = run(capsys, "derive", tmp / "s.json", "--costs", matrix_text(new), "-o",
                         tmp / "r.json")
    assert code == 0, err
    repriced = cc.load_sheet(tmp / "r.json")
    np.testing.assert_array_equal(repriced.costs_array, new)
    np.testing.assert_array_equal(repriced.forced, sheet.forced)
    assert repriced.provenance["repriced_from"] == sheet.digest != repriced.digest
    m = cc.label_confusion((frame["truth"], frame["cand"]), labels_of(k))
    assert cc.evaluate(repriced, m).eval1 == pytest.approx(
        float((m * np.einsum("cjs,cs->cj", sheet.table_array, new)).sum()), rel=1e-12)


def test_runs_with_labels(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    code, out, err = run(capsys, "runs", tmp / "log.csv", "--labels", ",".join(labels_of(k)),
                         "--truth", "truth", "--models", "m1,m2,m3", "--slot", "m2",
                         "--fusioner", "plurality", "--candidate", "cand", "--json")
    assert code == 0, err
    data = json.loads(out)
    for j, label in enumerate(labels_of(k)):
        assert data["forced"][label] == np.asarray(sheet.forced[j]).tolist()
    system = np.array(data["candidate"]["system"])
    assert float((system * costs_of(k)).sum()) == pytest.approx(real_cost(k, frame, "cand"))
    code, out, err = run(capsys, "runs", tmp / "log.csv", "--labels", ",".join(labels_of(k)),
                         "--truth", "truth", "--models", "m1,m2,m3", "--slot", "m2",
                         "--fusioner", "plurality")
    assert code == 0 and "slot forced to" in out


def test_hostile_cases_exit_2_in_one_line(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    m = matrix_text(np.ones((k, k)))
    huge = costs_of(k)
    huge[0, 1] = huge[1, 0] = 1e308
    assert run(capsys, "derive", tmp / "s.json", "--costs", matrix_text(huge), "-o",
               tmp / "huge.json")[0] == 0
    for argv, message in (
        (("evaluate", tmp / "s.json", "--model", f"x:{m}", "--model", f"x:{m}"),
         "two candidates are named 'x'"),
        (("evaluate", tmp / "s.json", "--model", f"cand:{m}", "--predictions",
          tmp / "cand.csv"), "two candidates are named 'cand'"),
        (("evaluate", tmp / "huge.json", "--predictions", tmp / "cand.csv"), "overflows"),
        (("experiment", "coverage", "--labels", "50", "-o", tmp / "cov"), "at most 10 labels"),
        (("evaluate", tmp / "s.json", "--model", m, "--row-fingerprint", "sha256:00"),
         "records no row fingerprint"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_backtest_and_importance_with_labels(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    log_options = ["--labels", ",".join(labels_of(k)), "--truth", "truth", "--models",
                   "m1,m2,m3", "--fusioner", "plurality"]
    code, out, err = run(capsys, "backtest", tmp / "log.csv", *log_options, "--slot", "m2",
                         "--candidates", "cand,cand2", "--sheet", tmp / "s.json", "--json")
    assert code == 0, err
    data = {c["name"]: c for c in json.loads(out)["candidates"]}
    for name in ("cand", "cand2"):
        assert data[name]["real_cost"] == pytest.approx(real_cost(k, frame, name), rel=1e-12)
        assert data[name]["inside"]
    code, out, err = run(capsys, "importance", tmp / "log.csv", *log_options, "--costs",
                         matrix_text(costs_of(k)), "--json")
    assert code == 0, err
    models = {m["model"]: m for m in json.loads(out)["models"]}
    assert models["m2"]["as_is_cost"] == pytest.approx(real_cost(k, frame, "m2"), rel=1e-12)
    for argv, message in (
        (("importance", tmp / "log.csv", *log_options[:-1], "majority", "--costs",
          matrix_text(costs_of(k))), "binary rule"),
        (("backtest", tmp / "log.csv", *log_options, "--slot", "m2", "--candidates", "cand",
          "--costs", "fn=5,fp=1"), "rows of"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, err)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.,;-e x:", max_size=30), min_size=1, max_size=3),
       st.booleans())
def test_fuzzed_k_label_candidates_exit_0_or_2(tmp_path_factory, texts, json_out) -> None:
    """Whatever is typed after --model, a sheet of K labels answers or refuses in one line."""
    folder = tmp_path_factory.getbasetemp() / "fuzz_k"
    sheet = folder / "s.json"
    if not sheet.exists():
        folder.mkdir(exist_ok=True)
        frame = log(3)
        frame.to_csv(folder / "log.csv", index=False)
        assert main(["derive", "--data", str(folder / "log.csv"), "--labels",
                     ",".join(labels_of(3)), "--truth", "truth", "--models", "m1,m2,m3",
                     "--slot", "m2", "--fusioner", "plurality", "--costs",
                     matrix_text(costs_of(3)), "-o", str(sheet)]) == 0
    argv = ["evaluate", str(sheet), *(a for t in texts for a in ("--model", t))]
    code = main([*argv, *(["--json"] if json_out else [])])
    assert code in (0, 2)
