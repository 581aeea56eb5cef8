"""cc.backtest: each candidate's predicted system costs beside the real one.

* the real cost is checked against an independent recomputation (the rule re-applied with
  numpy to the log with the slot's column replaced by the candidate);
* the real cost lies between the exact (count-form) best and worst case on the same rows,
  for every fusioner and every candidate (hypothesis);
* the summary's Kendall tau and regret are recomputed directly (tau-b by enumerating pairs);
* a sheet derived on other rows adds that sheet's numbers, equal to ``cc.evaluate``'s.
"""

from __future__ import annotations

import itertools
import json
import math
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from owner_reference import SPECS, confusion_cells, cost_of, random_log, reference_fuse

import causalcost as cc
from causalcost.errors import CausalCostError, DataError, InputTypeError, SheetError

MODELS = ["a", "b", "c", "d"]
COSTS = cc.CostMatrix(fn=5, fp=1)


def noisy(rng: np.random.Generator, y: np.ndarray, accuracy: float) -> np.ndarray:
    return np.where(rng.random(len(y)) < accuracy, y, 1 - y).astype(int)


def tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b by enumerating the pairs."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / math.sqrt((concordant + discordant + ties_x)
                                                 * (concordant + discordant + ties_y))


@pytest.mark.parametrize(("rule", "options"), SPECS, ids=[f"{r}{o}" for r, o in SPECS])
def test_real_cost_is_the_log_rerun_with_the_candidate(rule: str, options: dict) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{rule}{options}".encode()))
    log = random_log(rng, 600, MODELS)
    y = log["y"].to_numpy()
    candidates = {f"c{i}": noisy(rng, y, acc) for i, acc in enumerate([0.5, 0.7, 0.8, 0.95])}
    runs = cc.forced_runs(log, truth="y", models=MODELS, slot="b", fusioner=rule, **options)
    result = cc.backtest(runs, candidates, costs=COSTS)
    frame = result.to_frame()
    assert list(frame.index) == list(candidates)
    assert any("real" in c for c in frame.columns)
    for name, predictions in candidates.items():
        votes = {m: log[m].to_numpy() for m in MODELS} | {"b": predictions}
        system = reference_fuse(votes, MODELS, rule, **options)
        cells = confusion_cells(y, system)
        assert result.real[name].cells() == cells
        assert frame.loc[name, "real_cost"] == pytest.approx(cost_of(cells, COSTS), rel=1e-12)
        own = confusion_cells(y, predictions)
        assert result.models[name].cells() == own
        assert frame.loc[name, "accuracy"] == pytest.approx((own[0] + own[3]) / len(y),
                                                            rel=1e-12)
    assert frame["inside"].all()
    ranks = frame["real_cost"].rank(method="min").astype(int)
    assert (frame["real_rank"] == ranks).all()


def test_columns_and_arrays_give_the_same_backtest() -> None:
    rng = np.random.default_rng(3)
    log = random_log(rng, 300, MODELS)
    log["new"] = noisy(rng, log["y"].to_numpy(), 0.8)
    runs = cc.forced_runs(log, truth="y", models=MODELS, slot="c", fusioner="majority",
                          observed=False)
    by_column = cc.backtest(runs, {"new": "new"}, costs=COSTS).to_frame()
    by_array = cc.backtest(runs, {"new": log["new"].to_numpy()}, costs=COSTS).to_frame()
    pd.testing.assert_frame_equal(by_column, by_array, rtol=1e-12)


@st.composite
def logs(draw):
    """A small log, a fusioner and three candidates, all drawn by hypothesis."""
    n = draw(st.integers(4, 40))
    rows = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    columns = {c: draw(rows) for c in ["y", *MODELS, "x1", "x2", "x3"]}
    if len(set(columns["y"])) < 2:
        columns["y"][0], columns["y"][1] = 0, 1
    rule, options = draw(st.sampled_from(SPECS))
    slot = draw(st.sampled_from(MODELS))
    costs = cc.CostMatrix(fn=draw(st.sampled_from([1.0, 3.0, 10.0])),
                          fp=draw(st.sampled_from([1.0, 0.5, 7.0])),
                          tp=draw(st.sampled_from([0.0, 0.25])), tn=0.0)
    return pd.DataFrame(columns), rule, options, slot, costs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs())
def test_real_cost_always_inside_the_exact_bounds(case) -> None:
    log, rule, options, slot, costs = case
    runs = cc.forced_runs(log, truth="y", models=MODELS, slot=slot, fusioner=rule,
                          observed=False, **options)
    frame = cc.backtest(runs, {c: c for c in ("x1", "x2", "x3")}, costs=costs).to_frame()
    tol = 1e-12 * max(1.0, frame[["real_cost", "worst_cost"]].abs().to_numpy().max())
    assert (frame["best_cost"] <= frame["real_cost"] + tol).all()
    assert (frame["real_cost"] <= frame["worst_cost"] + tol).all()
    assert (frame["best_cost"] <= frame["expected_cost"] + tol).all()
    assert (frame["expected_cost"] <= frame["worst_cost"] + tol).all()
    assert frame["inside"].all()


def test_summary_against_a_direct_computation() -> None:
    rng = np.random.default_rng(11)
    log = random_log(rng, 800, ["a", "b", "c"])
    y = log["y"].to_numpy()
    candidates = {f"m{i}": noisy(rng, y, acc)
                  for i, acc in enumerate([0.55, 0.6, 0.7, 0.75, 0.8, 0.9])}
    runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="a", fusioner="and")
    result = cc.backtest(runs, candidates, costs=COSTS)
    frame, summary = result.frame, result.summary
    real = frame["real_cost"].to_numpy()
    assert set(summary.index) == {"expected", "worst", "accuracy"}
    for rule, column, sign in (("expected", "expected_cost", 1), ("worst", "worst_cost", 1),
                               ("accuracy", "accuracy", -1)):
        score = sign * frame[column].to_numpy()
        row = summary.loc[rule]
        assert row["kendall_tau"] == pytest.approx(tau_b(score, real), rel=1e-12)
        pick = [name for name, s in zip(frame.index, score) if s == score.min()][0]
        assert row["pick"] == pick
        assert row["pick_real_cost"] == frame.loc[pick, "real_cost"]
        assert row["regret"] == pytest.approx(frame.loc[pick, "real_cost"] / real.min() - 1,
                                              rel=1e-12, abs=1e-15)
        assert 0 <= row["p_value"] <= 1
    assert (summary["regret"] >= 0).all()


def test_regret_edge_cases_and_one_candidate() -> None:
    log = pd.DataFrame({"y": [1] * 10 + [0] * 10, "other": [1] * 20})
    runs = cc.forced_runs(log, truth="y", models=["other", "slot"], slot="slot",
                          fusioner="and")
    perfect = log["y"].to_numpy()
    result = cc.backtest(runs, {"perfect": perfect, "always": np.ones(20, int)},
                         costs=cc.CostMatrix(fn=1, fp=1))
    assert result.frame.loc["perfect", "real_cost"] == 0
    assert result.frame.loc["always", "real_cost"] == 10
    by_accuracy = result.summary.loc["accuracy"]
    assert by_accuracy["pick"] == "perfect" and by_accuracy["regret"] == 0
    single = cc.backtest(runs, {"always": np.ones(20, int)}, costs=cc.CostMatrix(fn=1, fp=1))
    assert single.summary["kendall_tau"].isna().all()
    assert (single.summary["regret"] == 0).all()
    # picking a costly candidate when the best costs nothing: infinite regret
    worse = cc.backtest(runs, {"always": np.ones(20, int), "perfect": perfect},
                        costs=cc.CostMatrix(fn=1, fp=1))
    frame = worse.frame.assign(expected_cost=[0.0, 1.0])  # a rule picking "always"
    from causalcost.evaluation.backtest import _summary
    assert math.isinf(_summary(frame).loc["expected", "regret"])


def test_a_sheet_from_other_rows_adds_its_predictions() -> None:
    rng = np.random.default_rng(5)
    log = random_log(rng, 2000, ["a", "b", "c"])
    stage1, stage2 = log.iloc[:1000], log.iloc[1000:].reset_index(drop=True)
    sheet = cc.sheet_from_data(stage1, COSTS, truth="y", slot="b", fusioner="majority",
                               models=["a", "b", "c"])
    y = stage2["y"].to_numpy()
    candidates = {f"m{i}": noisy(rng, y, acc) for i, acc in enumerate([0.6, 0.75, 0.9])}
    runs = cc.forced_runs(stage2, truth="y", models=["a", "b", "c"], slot="b",
                          fusioner="majority")
    result = cc.backtest(runs, candidates, sheet=sheet, confidence=0.9)
    frame = result.to_frame()
    assert result.costs == sheet.costs and result.sheet_digest == sheet.digest
    for name in candidates:
        report = cc.evaluate(sheet, result.models[name], confidence=0.9)
        row = frame.loc[name]
        assert row["sheet_expected_cost"] == pytest.approx(report.expected_cost, rel=1e-12)
        assert row["sheet_worst_cost"] == pytest.approx(report.worst_cost, rel=1e-12)
        assert row["sheet_best_cost"] == pytest.approx(report.best_cost, rel=1e-12)
        assert row["sheet_hc_worst_cost"] == pytest.approx(report.high_confidence.worst_cost,
                                                           rel=1e-12)
        assert row["sheet_hc_worst_cost"] >= row["sheet_worst_cost"]
        assert row["sheet_inside"] == (row["sheet_best_cost"] <= row["real_cost"]
                                       <= row["sheet_worst_cost"])
        assert row["sheet_hc_holds"] == (row["real_cost"] <= row["sheet_hc_worst_cost"])
    assert {"sheet_expected", "sheet_worst", "sheet_high_confidence_worst"} \
        <= set(result.summary.index)
    assert (result.summary.loc[["sheet_expected", "sheet_worst"], "source"] == "sheet").all()
    record = json.loads(json.dumps(result.to_dict()))
    assert [c["name"] for c in record["candidates"]] == list(candidates)
    assert record["sheet_sha256"] == sheet.digest
    assert "Backtest of 3 candidate(s)" in repr(result)
    assert "<table" in result._repr_html_()


def test_bad_input_is_refused_with_the_field_named() -> None:
    log = pd.DataFrame({"y": [1, 0, 1, 0], "a": [1, 0, 0, 0], "b": [1, 1, 1, 0]})
    runs = cc.forced_runs(log, truth="y", models=["a", "b"], slot="b", fusioner="or")
    with pytest.raises(InputTypeError, match="runs must be the ForcedRuns"):
        cc.backtest(log, {"x": [1, 0, 1, 0]}, costs=COSTS)
    with pytest.raises(CausalCostError, match="candidates must be a non-empty mapping"):
        cc.backtest(runs, {}, costs=COSTS)
    with pytest.raises(CausalCostError, match="needs costs="):
        cc.backtest(runs, {"x": [1, 0, 1, 0]})
    with pytest.raises(InputTypeError, match="costs must be a CostMatrix"):
        cc.backtest(runs, {"x": [1, 0, 1, 0]}, costs={"fn": 5})
    with pytest.raises(DataError, match="predictions has 3 values"):
        cc.backtest(runs, {"x": [1, 0, 1]}, costs=COSTS)
    with pytest.raises(DataError):
        cc.backtest(runs, {"x": [1, 0, 2, 0]}, costs=COSTS)
    other = cc.sheet_from_data(log, COSTS, truth="y", slot="a", fusioner="or",
                               models=["a", "b"])
    with pytest.raises(SheetError, match="slot 'a'"):
        cc.backtest(runs, {"x": [1, 0, 1, 0]}, sheet=other)
    mine = cc.sheet_from_data(log, COSTS, truth="y", slot="b", fusioner="or",
                              models=["a", "b"])
    with pytest.raises(CausalCostError, match="differ from the sheet"):
        cc.backtest(runs, {"x": [1, 0, 1, 0]}, sheet=mine, costs=cc.CostMatrix(fn=1, fp=1))
    counted = cc.ForcedRuns(runs.counts, slot="b", models=["a", "b"], fusioner=runs.fusioner)
    with pytest.raises(DataError, match="counts alone"):
        cc.backtest(counted, {"x": [1, 0, 1, 0]}, costs=COSTS)


def test_other_rows_with_the_same_class_sizes_get_the_probability_form() -> None:
    """cc.evaluate cannot tell other rows with the sheet's class sizes from the sheet's own;
    the backtest can (it holds the runs), and prices them in the probability form."""
    from causalcost.pricing.bounds import bound_from_rates

    rng = np.random.default_rng(9)
    first = random_log(rng, 500, ["a", "b", "c"])
    second = random_log(rng, 500, ["a", "b", "c"]).assign(y=first["y"])  # same class sizes
    second[["a", "c"]] = random_log(rng, 500, ["a", "c"])[["a", "c"]]
    sheet = cc.sheet_from_data(first, COSTS, truth="y", slot="b", fusioner="and",
                               models=["a", "b", "c"])
    y = second["y"].to_numpy()
    candidates = {"m": noisy(rng, y, 0.8)}
    runs = cc.forced_runs(second, truth="y", models=["a", "b", "c"], slot="b", fusioner="and")
    row = cc.backtest(runs, candidates, sheet=sheet).frame.loc["m"]
    model = cc.Confusion(*confusion_cells(y, candidates["m"]))
    assert cc.evaluate(sheet, model).form == "probability"  # never guessed from sizes
    b = bound_from_rates(sheet.rates, model, COSTS, assumption=sheet.assumption,
                         monotonicity=sheet.monotonicity_check)
    assert row["sheet_worst_cost"] == pytest.approx(b.worst_cost, rel=1e-12)
    assert row["sheet_best_cost"] == pytest.approx(b.best_cost, rel=1e-12)
    assert row["sheet_expected_cost"] == pytest.approx(b.expected_cost, rel=1e-12)
    # the sheet of these very rows: its count-form numbers are the exact ones
    own = cc.sheet_from_data(runs, COSTS)
    same = cc.backtest(runs, candidates, sheet=own).frame.loc["m"]
    assert same["sheet_worst_cost"] == pytest.approx(same["worst_cost"], rel=1e-12)
    assert same["sheet_best_cost"] == pytest.approx(same["best_cost"], rel=1e-12)
    assert same["sheet_inside"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(4, 60))
def test_inside_for_a_non_monotone_fusioner(seed: int, n: int) -> None:
    """XOR of two models: instances that fail only when the slot is right exist, and the
    exact bounds on the rows (from the instance kinds) still hold the real cost."""
    rng = np.random.default_rng(seed)
    log = random_log(rng, n, ["a", "b"])
    log.loc[0, "y"], log.loc[1, "y"] = 1, 0
    runs = cc.forced_runs(log, truth="y", models=["a", "b"], slot="b", fusioner="function",
                          function=lambda a, b: a != b)
    y = log["y"].to_numpy()
    candidates = {f"x{i}": noisy(rng, y, acc) for i, acc in enumerate((0.3, 0.6, 0.9))}
    frame = cc.backtest(runs, candidates, costs=COSTS).to_frame()
    assert frame["inside"].all()
    for name, p in candidates.items():
        system = log["a"].to_numpy().astype(bool) != p.astype(bool)
        assert frame.loc[name, "real_cost"] == pytest.approx(
            cost_of(confusion_cells(y, system), COSTS), rel=1e-12)


def test_string_labels_take_the_runs_positive_label() -> None:
    rng = np.random.default_rng(17)
    log = random_log(rng, 200, ["a", "b", "c"])
    words = log.replace({0: "well", 1: "sick"})
    runs = cc.forced_runs(words, truth="y", models=["a", "b", "c"], slot="a", fusioner="or",
                          positive="sick")
    numeric = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="a", fusioner="or")
    candidate = noisy(rng, log["y"].to_numpy(), 0.8)
    as_words = np.where(candidate == 1, "sick", "well")
    got = cc.backtest(runs, {"m": as_words}, costs=COSTS).frame
    want = cc.backtest(numeric, {"m": candidate}, costs=COSTS).frame
    pd.testing.assert_frame_equal(got, want, rtol=1e-12)
    # 0/1 predictions need no label (1 is positive), as in forced_runs
    mixed = cc.backtest(runs, {"m": candidate}, costs=COSTS).frame
    pd.testing.assert_frame_equal(mixed, want, rtol=1e-12)
    third = as_words.copy()
    third[:3] = "unsure"
    with pytest.raises(DataError, match="two labels"):  # a third label: refused, not negative
        cc.backtest(runs, {"m": third}, costs=COSTS)
