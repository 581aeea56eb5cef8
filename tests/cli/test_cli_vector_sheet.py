"""The K-label score sheet at the command line: ``derive --data LOG --scores --labels a,b,c
--score-columns '{model}_{label}'``, ``show``, ``verify``, re-pricing, ``evaluate --scores``
with one column per label, and one-line errors with exit 2.

Independent computation: the sheet the CLI writes against the one
:func:`~causalcost.sheet_from_data` makes from :func:`causalcost.forced_runs` on the same file
read by pandas, and the CLI's prices against the runs' own price on the same rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli.app import main
from causalcost.sheet.score_sheet import ScoreSheet
from causalcost.sheet.signature import signing_available

LABELS = ["a", "b", "c"]
COSTS = "0,1,4;2,0,1;1,3,0"
COST_MATRIX = np.array([[0, 1, 4], [2, 0, 1], [1, 3, 0]], dtype=float)
LOG = ["--scores", "--truth", "y", "--models", "m1,m2,m3", "--slot", "m2", "--fusioner",
       "mean", "--labels", "a,b,c", "--score-columns", "{model}_{label}"]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(8)
    n = 80
    y = rng.integers(0, 3, n)
    cols: dict[str, object] = {"y": [LABELS[i] for i in y]}
    for m in ("m1", "m2", "m3"):
        p = rng.dirichlet(np.ones(3), n) + 0.5 * np.eye(3)[y]
        p = p / p.sum(axis=1, keepdims=True)
        for j, label in enumerate(LABELS):
            cols[f"{m}_{label}"] = p[:, j]
    path = tmp_path_factory.mktemp("vector_log") / "log.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    return path


def library_runs(log: Path, fusioner: str = "mean", **rule) -> cc.ScoreRuns:
    return cc.forced_runs(pd.read_csv(log), truth="y", models=["m1", "m2", "m3"], slot="m2",
                          fusioner=fusioner, labels=LABELS,
                          scores={lb: "{model}_" + lb for lb in LABELS}, **rule)


def _content(sheet: ScoreSheet) -> dict:
    body = sheet.to_dict()
    return {k: v for k, v in body.items()
            if k not in ("created", "digest", "signature", "provenance")}


@pytest.fixture
def candidate_file(tmp_path, log) -> tuple[Path, np.ndarray]:
    frame = pd.read_csv(log)
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(3), len(frame))
    path = tmp_path / "cand.csv"
    pd.DataFrame({"truth": frame["y"], **{f"p_{lb}": p[:, j] for j, lb in enumerate(LABELS)}}
                 ).to_csv(path, index=False)
    return path, p


@pytest.mark.parametrize(("flags", "rule"), [
    ([], {}), (["--weights", "1,2,1"], {"weights": [1, 2, 1]}),
    (["--breakpoints", "6"], {}), (["--fusioner", "max"], {"fusioner": "max"})])
def test_derive_writes_the_library_sheet_of_the_log(capsys, tmp_path, log, flags, rule) -> None:
    path = tmp_path / "s.json"
    argv = LOG if "--fusioner" not in flags else [*LOG[:7], *LOG[9:]]
    code, out, err = run(capsys, "derive", "--data", log, *argv, *flags, "--costs", COSTS,
                         "-o", path)
    assert code == 0, err
    sheet = cc.load_sheet(path)
    breakpoints = 6 if "--breakpoints" in flags else None
    want = cc.sheet_from_data(library_runs(log, **rule), COST_MATRIX, breakpoints=breakpoints)
    assert isinstance(sheet, ScoreSheet) and sheet.k == 3
    assert _content(sheet) == _content(want)
    assert sheet.exact == (breakpoints is None)
    assert "score sheet of 3 labels" in out and sheet.digest in out
    sizes = ", ".join(f"{n} of {c}" for c, n in zip(LABELS, sheet.class_sizes))
    assert sizes in out


def test_show_verify_and_reprice(capsys, tmp_path, log) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, *LOG, "--costs", COSTS, "--breakpoints", "5",
        "-o", path)
    sheet = cc.load_sheet(path)
    code, out, _ = run(capsys, "show", path)
    assert code == 0 and out.strip() == str(sheet)
    assert "in 5 cells per class at most" in out
    code, out, _ = run(capsys, "show", path, "--json")
    assert json.loads(out)["digest"]["sha256"] == sheet.digest
    code, out, err = run(capsys, "derive", path, "--costs", "0,1,1;1,0,1;1,1,0", "-o",
                         tmp_path / "r.json")
    assert code == 0, err
    child = cc.load_sheet(tmp_path / "r.json")
    assert child.provenance["repriced_from"] == sheet.digest
    assert [o.to_dict() for o in child.offsets] == [o.to_dict() for o in sheet.offsets]
    assert child.costs.to_numpy().tolist() == (1 - np.eye(3)).tolist()
    code, out, err = run(capsys, "derive", path, "--costs", "fn=5,fp=1", "-o",
                         tmp_path / "x.json")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "3 rows of 3" in err
    if signing_available():
        assert run(capsys, "keygen", tmp_path / "o.pem", tmp_path / "o.pub")[0] == 0
        assert run(capsys, "sign", path, "--key", tmp_path / "o.pem")[0] == 0
        code, out, err = run(capsys, "verify", path, "--public-key", tmp_path / "o.pub",
                             "--json")
        assert code == 0 and json.loads(out)["sha256"] == sheet.digest, err
        data = json.loads(path.read_text())
        data["offsets"]["a"]["rows"][0][0] += 0.5
        path.write_text(json.dumps(data))
        code, out, err = run(capsys, "verify", path, "--public-key", tmp_path / "o.pub")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("same", [True, False])
def test_evaluate_prices_vectors_as_the_runs_do(capsys, tmp_path, log, candidate_file,
                                                same: bool) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, *LOG, "--costs", COSTS, "-o", path)
    cand, p = candidate_file
    flags = ["--same-instances"] if same else []
    code, out, err = run(capsys, "evaluate", path, "--scores", cand, "--score-column",
                         "p_{label}", *flags, "--json")
    assert code == 0, err
    got = json.loads(out)["candidates"][0]
    runs = library_runs(log)
    if same:
        want = runs.price(p, COST_MATRIX)
    else:
        want = cc.load_sheet(path).price(runs.candidate_by_class(p))
    assert got["worst_cost"] == want.worst_cost and got["best_cost"] == want.best_cost
    assert got["eval1"] == pytest.approx(want.expected_cost, abs=1e-12)
    assert got["form"] == ("same instances" if same else "probability")
    code, out, _ = run(capsys, "evaluate", path, "--scores", cand, "--score-column",
                       "p_{label}", *flags)
    assert code == 0 and "worst case" in out and path.name not in err


def test_evaluate_reads_label_named_columns_and_compares_files(capsys, tmp_path, log,
                                                               candidate_file) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, *LOG, "--costs", COSTS, "-o", path)
    cand, p = candidate_file
    plain = tmp_path / "plain.csv"
    frame = pd.read_csv(cand).rename(columns={f"p_{lb}": lb for lb in LABELS})
    frame[["c", "a", "truth", "b"]].to_csv(plain, index=False)  # columns found by name
    code, out, err = run(capsys, "evaluate", path, "--scores", f"one:{plain}", "--scores",
                         f"two:{cand}", "--score-column", "{label}", "--same-instances",
                         "--json")
    assert code == 2 and "no column 'a'" in err  # the second file names its columns p_*
    code, out, err = run(capsys, "evaluate", path, "--scores", f"one:{plain}", "--scores",
                         f"two:{plain}", "--same-instances", "--json")
    assert code == 0, err
    rows = json.loads(out)["candidates"]
    assert [r["name"] for r in rows] == ["one", "two"]
    want = library_runs(log).price(p, COST_MATRIX)
    assert rows[0]["worst_cost"] == rows[1]["worst_cost"] == want.worst_cost


BAD = {
    "columns_without_labels": (["--scores", "--truth", "y", "--models", "m1,m2,m3", "--slot",
                                "m2", "--fusioner", "mean", "--score-columns",
                                "{model}_{label}"], "give the labels too"),
    "labels_without_columns": (["--scores", "--truth", "y", "--models", "m1,m2,m3", "--slot",
                                "m2", "--fusioner", "mean", "--labels", "a,b,c"],
                               "--score-columns '{model}_{label}'"),
    "template_without_label": ([*LOG[:-1], "{model}_x"], "must hold both {model} and {label}"),
    "logistic_rule": ([*LOG[:8], "logistic", *LOG[9:]], "--fusioner mean"),
    "threshold": ([*LOG, "--threshold", "0.5"], "--threshold apply to scores for P"),
    "binary_costs": (LOG, "fn=/fp= cells are for the labels P, N"),
    "columns_without_scores": ([a if a != "mean" else "plurality" for a in LOG
                                if a != "--scores"], "--score-columns apply to score columns"),
    "missing_column": ([*LOG[:-1], "{model}_{label}_x"], "m1_a_x"),
    "labels_not_in_log": ([*LOG[:10], "a,b,d", *LOG[11:]], "'m1_d', 'm2_d', 'm3_d' are not "
                                                           "in the data"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_derive_user_errors_are_one_line_exit_2(capsys, tmp_path, log, case) -> None:
    argv, fragment = BAD[case]
    costs = "fn=5,fp=1" if case == "binary_costs" else COSTS
    out_path = tmp_path / "o.json"
    code, out, err = run(capsys, "derive", "--data", log, *argv, "--costs", costs, "-o",
                         out_path)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert fragment in lines[0] and "Traceback" not in err
    assert not out_path.exists()


@pytest.mark.parametrize(("edit", "flags", "fragment"), [
    (None, ["--confidence", "0.9", "--same-instances"],
     "--confidence: on the sheet's own rows (--same-instances) the worst and best case are "
     "exact"),
    (None, ["--positive", "a"], "--positive: a score sheet of 3 labels"),
    (None, ["--score-column", "p"], "give a template with {label}"),
    (lambda f: f.assign(p_a=f["p_a"] * 0.5), [], "sum"),
    (lambda f: f.assign(truth="z"), [], "'z'"),
    (lambda f: f.drop(columns="p_b"), [], "no column 'p_b'"),
    (lambda f: f.assign(p_c="x"), [], "column 'p_c'"),
])
def test_evaluate_user_errors_are_one_line_exit_2(capsys, tmp_path, log, candidate_file,
                                                  edit, flags, fragment) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, *LOG, "--costs", COSTS, "-o", path)
    cand, _ = candidate_file
    if edit is not None:
        edit(pd.read_csv(cand)).to_csv(cand, index=False)
    if "--score-column" not in flags:
        flags = [*flags, "--score-column", "p_{label}"]
    code, out, err = run(capsys, "evaluate", path, "--scores", cand, *flags)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert fragment in lines[0] and "Traceback" not in err


def test_evaluate_with_confidence_adds_the_high_confidence_case(capsys, tmp_path, log,
                                                                candidate_file) -> None:
    path = tmp_path / "s.json"
    run(capsys, "derive", "--data", log, *LOG, "--costs", COSTS, "-o", path)
    cand, _ = candidate_file
    flags = ["--score-column", "p_{label}", "--json"]
    code, out, err = run(capsys, "evaluate", path, "--scores", cand, *flags)
    plain = json.loads(out)["candidates"][0]
    code, out, err = run(capsys, "evaluate", path, "--scores", cand, *flags,
                         "--confidence", "0.8")
    high = json.loads(out)["candidates"][0]
    assert code == 0 and high["confidence"] == 0.8
    assert high["worst_cost"] == plain["worst_cost"]
    assert high["high_confidence_worst_cost"] >= high["worst_cost"]
    assert high["high_confidence_best_cost"] <= high["best_cost"]


def test_help_documents_the_flags(capsys) -> None:
    code, out, _ = run(capsys, "derive", "--help")
    assert code == 0 and "--score-columns TEMPLATE" in out and "{model}_{label}" in out
    code, out, _ = run(capsys, "evaluate", "--help")
    assert code == 0 and "template with {label}" in out
