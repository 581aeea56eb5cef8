"""One call from predictions to a ranked table (issue 17) and warnings that never ask for what
was given (issue 16, item 12).

Each column of ``compare(sheet, y_true=..., predictions=..., scores=..., confidence=...)`` is
recomputed independently: the confusion counted row by row in Python, Eval1 by
:func:`causalcost.evaluate` (one candidate at a time), the worst and best cases by
:func:`causalcost.bound_from_rates`, the high-confidence cases by
:func:`causalcost.high_confidence_bound` on the sheet's forced runs (``side="worst"`` and
``side="best"``). Costs reached by different summation orders are compared at a relative
tolerance of 1e-12 (rounding of a handful of float64 terms).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import CausalCostWarning, ValidationError

COSTS = cc.CostMatrix(tp=0.25, fn=5, fp=1.5, tn=0.125)
FORCED_P = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
FORCED_N = cc.Confusion(tp=0, fn=100, fp=0, tn=200)
REL = 1e-12
ROOT = Path(__file__).resolve().parents[2]


def counted_sheet() -> cc.CostSheet:
    return cc.sheet_from_forced_runs(FORCED_P, FORCED_N, COSTS, slot="m", description="set")


def count(y: list[bool], vote: list[bool]) -> cc.Confusion:
    cells = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    for truth, said in zip(y, vote):
        cells[("tp" if said else "fn") if truth else ("fp" if said else "tn")] += 1
    return cc.Confusion(**cells)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), n=st.integers(4, 60), k=st.integers(1, 3),
       threshold=st.floats(0.05, 0.95))
def test_every_column_is_the_independent_one(data: st.DataObject, n: int, k: int,
                                             threshold: float) -> None:
    sheet = counted_sheet()
    y = data.draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(
        lambda v: 0 < sum(v) < len(v)))
    preds = {f"p{i}": data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
             for i in range(k)}
    scores = {f"s{i}": data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
              for i in range(k)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CausalCostWarning)
        table = cc.compare(sheet, y_true=y, predictions=preds, scores=scores,
                           threshold=threshold, confidence=0.9)
    assert table.attrs["scores_rule"].startswith(f"scores: positive where score >= {threshold:g}")
    assert "probability form: instances not declared the same" in table.attrs["instances"]
    assert "with probability at least 90 %" in table.attrs["coverage"]
    eval1 = table["eval1"].to_numpy()
    assert (np.diff(eval1) >= -REL * np.abs(eval1).max()).all()  # sorted by expected cost
    votes = {**preds, **{name: [v >= threshold for v in s] for name, s in scores.items()}}
    assert sorted(table.index) == sorted(votes)
    for name, vote in votes.items():
        model = count(y, vote)
        row = table.loc[name]
        assert row.eval1 == pytest.approx(cc.evaluate(sheet, model).eval1, rel=REL, abs=1e-9)
        plain = cc.bound_from_rates(sheet.rates, model, COSTS, assumption=sheet.assumption)
        assert row.worst_cost == pytest.approx(plain.worst_cost, rel=REL, abs=1e-9)
        assert row.best_cost == pytest.approx(plain.best_cost, rel=REL, abs=1e-9)
        for side, column in (("worst", "high_confidence_worst_cost"),
                             ("best", "high_confidence_best_cost")):
            hc = cc.high_confidence_bound(FORCED_P, FORCED_N, model, COSTS, confidence=0.9,
                                          assumption=sheet.assumption, side=side)
            expected = hc.worst_cost if side == "worst" else hc.best_cost
            assert row[column] == pytest.approx(expected, rel=REL, abs=1e-9)
        assert row.high_confidence_best_cost <= row.best_cost + 1e-9
        assert row.worst_cost <= row.high_confidence_worst_cost + 1e-9


def test_the_confusions_are_counted_row_by_row() -> None:
    y = ["sick", "well", "sick", "well", "sick"]
    made = cc.confusions_from_predictions(
        y, predictions={"a": ["sick", "sick", "well", "well", "sick"]},
        scores={"b": [0.9, 0.2, 0.6, 0.7, 0.1]}, threshold=0.5, positive="sick")
    truth = [v == "sick" for v in y]
    assert made["a"] == count(truth, [True, True, False, False, True])
    assert made["b"] == count(truth, [True, False, True, True, False])


def test_scores_without_a_threshold_are_cut_at_the_stated_default_or_refused() -> None:
    sheet = counted_sheet()
    y = [1, 0, 1, 0, 1, 0]
    table = cc.compare(sheet, y_true=y, scores={"s": [0.9, 0.2, 0.6, 0.4, 0.3, 0.8]})
    assert "0.5 (the default for probabilities in [0, 1]" in table.attrs["scores_rule"]
    assert "Scores: positive where score >= 0.5 (the default" in repr(table)
    assert "positive where score &gt;= 0.5 (the default" in table._repr_html_()
    with pytest.raises(ValidationError, match=r"outside \[0, 1\].*give threshold="):
        cc.compare(sheet, y_true=y, scores={"s": [2.0, -1.0, 0.5, 0.1, 3.0, 0.0]})
    given_cut = cc.compare(sheet, y_true=y, scores={"s": [2.0, -1.0, 0.5, 0.1, 3.0, 0.0]},
                           threshold=0.3)
    assert given_cut.attrs["scores_rule"] == "scores: positive where score >= 0.3 (threshold given)"
    cut = cc.confusions_from_predictions(y, scores={"s": [2.0, -1.0, 0.5, 0.1, 3.0, 0.0]},
                                         threshold=0.3)["s"]
    assert cut == count([v == 1 for v in y], [True, False, True, False, True, False])
    assert given_cut.loc["s", "eval1"] == pytest.approx(cc.evaluate(sheet, cut).eval1, rel=REL)
    with pytest.raises(ValidationError, match="threshold= cuts scores="):
        cc.compare(sheet, y_true=y, predictions={"p": y}, threshold=0.5)
    with pytest.raises(ValidationError, match="need y_true"):
        cc.compare(sheet, predictions={"p": y})


# ------------------------------------------------------------------ the worst case is no ranking
def near_constant_case() -> tuple[cc.CostSheet, dict[str, cc.Confusion]]:
    """Majority of three, FN 5 / FP 1: a candidate that always says P has a worst case equal to
    its expected cost (78.5), a good one a lower expected cost (62.5) but a wider bound (worst
    126.5); so do their high-confidence worst cases."""
    sheet = cc.sheet_from_network("majority3", cc.CostMatrix(fn=5, fp=1))
    return sheet, {"good": cc.Confusion(80, 20, 0, 200), "always_p": cc.Confusion(100, 0, 200, 0)}


def test_the_warning_fires_when_the_worst_case_would_rank_otherwise() -> None:
    sheet, candidates = near_constant_case()
    with pytest.warns(CausalCostWarning, match="would put 'always_p' first") as caught:
        table = cc.compare(sheet, candidates, confidence=0.95)
    assert table.index.tolist() == ["good", "always_p"]  # by expected cost, documented default
    hc = table["high_confidence_worst_cost"]
    assert hc["always_p"] < hc["good"]  # the premise, computed
    text = str(caught[0].message)
    assert "near-constant" in text and "narrow" in text and "Rank by expected cost" in text
    assert text in table.attrs["warnings"]
    # without a level the plain worst case is the one compared
    with pytest.warns(CausalCostWarning, match="ranking by the worst cost"):
        cc.compare(sheet, candidates)


def test_no_warning_when_the_rankings_agree() -> None:
    sheet, _ = near_constant_case()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CausalCostWarning)
        table = cc.compare(sheet, {"good": cc.Confusion(80, 20, 0, 200),
                                   "coin": cc.Confusion(50, 50, 100, 100)}, confidence=0.95)
    assert not any("would put" in w for w in table.attrs["warnings"])
    hc = table["high_confidence_worst_cost"]
    assert hc.idxmin() == table.index[0]


def test_the_table_has_no_duplicate_expected_column_in_print() -> None:
    sheet, candidates = near_constant_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CausalCostWarning)
        table = cc.compare(sheet, candidates, confidence=0.95)
    header = repr(table).splitlines()[1]
    assert "Eval1" in header and "expected" not in header
    assert "hc worst" in repr(table) and "hc best" in repr(table)
    assert "both at once with probability at least 90 %" in " ".join(repr(table).split())
    assert table.attrs["confidence"] == 0.95


# ----------------------------------------------------------- warnings never ask for what was given
def other_rows() -> tuple[cc.CostSheet, cc.Confusion]:
    return counted_sheet(), cc.Confusion(40, 50, 100, 110)


def test_evaluate_asks_for_a_level_only_when_none_was_given() -> None:
    sheet, model = other_rows()
    without = " ".join(cc.evaluate(sheet, model).warnings)
    assert "evaluate with a confidence level" in without
    given_ = " ".join(cc.evaluate(sheet, model, confidence=0.95).warnings)
    assert "with a confidence level" not in given_ and "--confidence" not in given_
    assert "at 95 % hold" in given_


def test_compare_asks_for_a_level_only_when_none_was_given() -> None:
    sheet, model = other_rows()
    candidates = {"a": model, "b": cc.Confusion(60, 30, 90, 120)}
    without = " ".join(cc.compare(sheet, candidates).attrs["warnings"])
    assert "compare with a confidence level" in without
    given_ = " ".join(cc.compare(sheet, candidates, confidence=0.95).attrs["warnings"])
    assert "with a confidence level" not in given_ and "--confidence" not in given_
    # the one-at-a-time path (counts beyond 2**53) says the same
    huge = {"a": cc.Confusion(2**54, 2**54, 2**55, 2**55), "b": model}
    big = " ".join(cc.compare(sheet, huge).attrs["warnings"])
    assert "with a confidence level" in big and "evaluate with" not in big


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "causalcost", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


@pytest.fixture(scope="module")
def sheet_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "sheet.json"
    done = cli("derive", "--forced-p", "tp=80,fn=20,fp=40,tn=160", "--forced-n",
               "tp=0,fn=100,fp=0,tn=200", "--slot", "m", "--costs", "fn=5,fp=1",
               "--description", "set", "-o", str(path))
    assert done.returncode == 0, done.stderr
    return path


def test_cli_evaluate_with_a_level_never_asks_for_it(sheet_file: Path, tmp_path: Path) -> None:
    one = cli("evaluate", str(sheet_file), "--model", "tp=40,fn=50,fp=100,tn=110",
              "--confidence", "0.95")
    assert one.returncode == 0, one.stderr
    assert "taken as counted on other instances" in one.stdout
    assert "with a confidence level" not in one.stdout and "--confidence 0.95" not in one.stdout
    csv = tmp_path / "c.csv"
    csv.write_text("name,tp,fn,fp,tn\na,40,50,100,110\nb,60,30,90,120\n")
    many = cli("evaluate", str(sheet_file), "--candidates", str(csv), "--confidence", "0.95")
    assert many.returncode == 0, many.stderr
    assert "with a confidence level" not in many.stdout
    bare = cli("evaluate", str(sheet_file), "--candidates", str(csv))
    assert "compare with a confidence level" in bare.stdout


def test_cli_compare_has_the_columns_and_names_the_form(sheet_file: Path) -> None:
    args = ("evaluate", str(sheet_file), "--model", "good:tp=90,fn=10,fp=40,tn=160",
            "--model", "coin:tp=50,fn=50,fp=100,tn=100", "--confidence", "0.95")
    text = cli(*args)
    assert text.returncode == 0, text.stderr
    # the table is printed in blocks of columns under 100 characters: its headers, together
    headers = " ".join(line for line in text.stdout.splitlines()
                       if line.startswith(" ") and "cost" in line)
    assert "eval1" in headers
    assert "high_confidence_worst_cost" in headers and "high_confidence_best_cost" in headers
    assert " expected_cost" not in headers  # equal to eval1, not printed twice
    assert max(len(line) for line in text.stdout.splitlines()) < 100
    assert "probability form: instances not declared the same" in " ".join(text.stdout.split())
    assert "both at once with probability at least 90 %" in " ".join(text.stdout.split())
    same = cli(*args, "--same-instances")
    assert same.returncode == 0, same.stderr
    flat = " ".join(same.stdout.split())
    assert "count form: the same instances as the sheet's forced runs, declared" in flat
    data = json.loads(cli(*args, "--json").stdout)
    assert data["form"] == "probability" and "not declared" in data["instances"]
    assert "90 %" in data["coverage"]
    row = data["candidates"][0]
    assert {"eval1", "high_confidence_worst_cost", "high_confidence_best_cost"} <= set(row)
    one = json.loads(cli("evaluate", str(sheet_file), "--model", "tp=50,fn=50,fp=100,tn=100",
                         "--same-instances", "--json").stdout)
    assert one["instances"].startswith("count form: the same instances")


def test_no_warning_for_candidates_equal_up_to_rounding() -> None:
    sheet, _ = near_constant_case()
    a = cc.Confusion(80, 20, 0, 200)
    frame = cc.candidates_frame({"a": a, "b": a})
    with warnings.catch_warnings():
        warnings.simplefilter("error", CausalCostWarning)
        table = cc.compare(sheet, frame)
    from causalcost.evaluation.ranking import ranking_disagreement

    nudged = table.copy()
    nudged.loc["b", "worst_cost"] = nudged.loc["a", "worst_cost"] * (1 - 1e-14)
    assert ranking_disagreement(nudged) == ()  # a rounding difference is no disagreement
    nudged.loc["b", ["eval1", "worst_cost"]] = [nudged.loc["a", "eval1"] + 1, 1.0]
    assert ranking_disagreement(nudged) and "'b' first" in ranking_disagreement(nudged)[0]


def test_cli_prints_the_ranking_warning_once(tmp_path: Path) -> None:
    sheet = tmp_path / "majority.json"
    done = cli("derive", "majority3", "--costs", "fn=5,fp=1", "-o", str(sheet))
    assert done.returncode == 0, done.stderr
    out = cli("evaluate", str(sheet), "--model", "good:tp=80,fn=20,fp=0,tn=200",
              "--model", "always_p:tp=100,fn=0,fp=200,tn=0")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("would put 'always_p' first") == 1
    assert "CausalCostWarning" not in out.stderr
