"""Judging score-slot candidates with a ScoreSheet: evaluate, compare, backtest, system_scorer.

Independent computations: every pairing of the candidate's scores with the instances
(``itertools.permutations``, n <= 7, ties included) for the same-instances worst and best case;
the average over all (score, critical score) pairs for the expected cost; the real system with
the candidate plugged in (``ScoreRuns.with_candidate`` and a real scikit-learn
``VotingClassifier`` whose member is swapped) for the backtest; hand-made cross-validation for
``GridSearchCV``.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.score_runs import ScoreRuns, score_runs
from causalcost.errors import (
    DataError,
    InputTypeError,
    SheetError,
    ValidationError,
)
from causalcost.evaluation.score_report import ScoreReport
from causalcost.pricing.scores import price_scores
from causalcost.sheet.score_sheet import score_sheet_from_runs

TOL = 1e-9
GRID = [0.0, 0.25, 0.5, 0.75, 1.0]  # few values: ties are common
COSTS = cc.CostMatrix(fn=5, fp=1)


# ------------------------------------------------------------------ independent oracles
def brute_cases(t: np.ndarray, s: np.ndarray, positive: bool) -> tuple[int, int]:
    """Min and max right answers over every pairing of s with t (permutations)."""
    counts = [sum((a >= b) if positive else (a < b) for a, b in zip(p, t))
              for p in set(itertools.permutations(s.tolist()))]
    return min(counts), max(counts)


def class_cost(right: float, n: int, positive: bool, costs: cc.CostMatrix) -> float:
    if positive:
        return costs.tp * right + costs.fn * (n - right)
    return costs.tn * right + costs.fp * (n - right)


def brute_same(runs: ScoreRuns, y: np.ndarray, s: np.ndarray, costs: cc.CostMatrix
               ) -> tuple[float, float, float]:
    """Expected (all pairs), worst and best (all pairings) system cost on the same rows."""
    worst = best = expected = 0.0
    for positive in (True, False):
        t = runs.critical[runs.truth == positive]
        sc = s[y == positive]
        if not t.size:
            continue
        low, high = brute_cases(t, sc, positive)
        a, b = class_cost(low, t.size, positive, costs), class_cost(high, t.size, positive, costs)
        worst, best = worst + max(a, b), best + min(a, b)
        says_p = np.mean([[si >= ti for ti in t] for si in sc])
        right = sc.size * (says_p if positive else 1 - says_p)
        expected += class_cost(right, sc.size, positive, costs)
    return expected, worst, best


def random_log(rng: np.random.Generator, n: int, models: int = 3
               ) -> tuple[np.ndarray, np.ndarray]:
    y = rng.random(n) < 0.5
    y[0], y[-1] = True, False  # both classes
    return y, rng.choice(GRID, size=(n, models))


def sheet_of(y: np.ndarray, log: np.ndarray, slot: int = 1, costs: cc.CostMatrix = COSTS,
             **kwargs) -> tuple[ScoreRuns, cc.ScoreSheet]:
    runs = score_runs(log, truth=y, slot=slot, **kwargs)
    return runs, score_sheet_from_runs(runs, costs)


@pytest.fixture
def small() -> tuple[ScoreRuns, cc.ScoreSheet, np.ndarray]:
    y = np.array([True, True, False, False])
    log = np.array([[0.9, 0.6], [0.3, 0.5], [0.2, 0.1], [0.6, 0.7]])
    runs, sheet = sheet_of(y, log)
    return runs, sheet, y


# ----------------------------------------------------------------------------- evaluate
def test_evaluate_same_instances_against_every_pairing() -> None:
    rng = np.random.default_rng(24)
    for _ in range(150):
        n = int(rng.integers(2, 8))
        y, log = random_log(rng, n)
        costs = cc.CostMatrix(tp=float(rng.integers(0, 2)), fn=float(rng.integers(2, 9)),
                              fp=float(rng.integers(1, 5)), tn=0.0)
        runs, sheet = sheet_of(y, log, slot=int(rng.integers(0, 3)), costs=costs,
                               threshold=float(rng.choice([0.3, 0.5, 0.6])))
        s = rng.choice(GRID, size=n)
        r = cc.evaluate(sheet, (y, s), same_instances=True)
        expected, worst, best = brute_same(runs, y, s, costs)
        assert r.form == "same instances" and r.how == "declared"
        assert r.eval1 == pytest.approx(expected, abs=TOL)
        assert r.worst_cost == pytest.approx(worst, abs=TOL)
        assert r.best_cost == pytest.approx(best, abs=TOL)
        real = runs.with_candidate(s).cost(costs)
        assert best - TOL <= real <= worst + TOL


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(GRID), st.sampled_from(GRID),
                          st.sampled_from(GRID)), min_size=2, max_size=7))
def test_evaluate_keywords_and_tuple_agree_with_brute_force(rows: list) -> None:
    y = np.array([r[0] for r in rows])
    if y.all() or not y.any():
        y[0] = not y[0]
    log = np.array([r[1:3] for r in rows])
    s = np.array([r[3] for r in rows])
    runs, sheet = sheet_of(y, log)
    by_tuple = cc.evaluate(sheet, (y, s), same_instances=True)
    by_kw = cc.evaluate(sheet, y_true=y.astype(int), scores=s, same_instances=True)
    expected, worst, best = brute_same(runs, y, s, COSTS)
    for r in (by_tuple, by_kw):
        assert (r.eval1, r.worst_cost, r.best_cost) == pytest.approx((expected, worst, best),
                                                                     abs=TOL)


def test_evaluate_probability_form_is_the_default_and_says_why(small) -> None:
    runs, sheet, y = small
    s = [0.8, 0.2, 0.1, 0.9]
    r = cc.evaluate(sheet, (y, s), confidence=0.9)
    direct = price_scores(runs.critical_by_class, ([0.8, 0.2], [0.1, 0.9]), COSTS,
                          same_instances=False, confidence=0.9)
    assert isinstance(r, ScoreReport)
    assert (r.form, r.how) == ("probability", "not-declared")
    assert r.instances == "probability form: instances not declared the same"
    assert (r.eval1, r.worst_cost, r.best_cost) == (direct.expected_cost, direct.worst_cost,
                                                    direct.best_cost)
    assert r.high_confidence_worst_cost == direct.high_confidence_worst_cost
    assert r.high_confidence_best_cost == direct.high_confidence_best_cost
    assert r.high_confidence_worst_cost >= r.worst_cost >= r.eval1 >= r.best_cost \
        >= r.high_confidence_best_cost
    assert any("probability form" in w for w in r.warnings)
    assert r.sheet_digest == sheet.digest and r.slot == sheet.slot


def test_report_views(small) -> None:
    _, sheet, y = small
    r = cc.evaluate(sheet, (y, [0.8, 0.2, 0.1, 0.9]), confidence=0.95, same_instances=True)
    frame = r.to_frame()
    assert frame.index.tolist() == ["worst", "expected", "best", "high_confidence_worst",
                                    "high_confidence_best"]
    assert frame.loc["worst", "cost"] == r.worst_cost
    assert (frame[["tp", "fn"]].sum(axis=1) == 2).all()
    d = r.to_dict()
    assert d["eval1"] == d["expected_cost"] == r.eval1
    assert d["form"] == "same instances" and d["sheet_sha256"] == sheet.digest
    assert d["high_confidence_worst_cost"] == r.high_confidence_worst_cost
    text = str(r)
    assert "Eval1" in text and sheet.digest in text and "same instances" in text
    assert repr(r).startswith("ScoreReport(slot='m1', eval1=")


def test_evaluate_with_a_mapping_of_scores_per_class(small) -> None:
    runs, sheet, y = small
    r = cc.evaluate(sheet, {"P": [0.8, 0.2], "N": [0.1, 0.9]}, same_instances=True)
    assert r.worst_cost == cc.evaluate(sheet, (y, [0.8, 0.2, 0.1, 0.9]),
                                       same_instances=True).worst_cost


def test_evaluate_labels_need_positive(small) -> None:
    _, sheet, y = small
    labels = np.where(y, "sick", "well")
    with pytest.raises(DataError, match="positive="):
        cc.evaluate(sheet, (labels, [0.8, 0.2, 0.1, 0.9]))
    named = cc.evaluate(sheet, (labels, [0.8, 0.2, 0.1, 0.9]), positive="sick")
    assert named.eval1 == cc.evaluate(sheet, (y, [0.8, 0.2, 0.1, 0.9])).eval1


def test_evaluate_series_are_aligned_by_index(small) -> None:
    _, sheet, y = small
    truth = pd.Series(y, index=list("abcd"))
    scores = pd.Series([0.9, 0.1, 0.2, 0.8], index=list("dcba"))  # a: 0.8, b: 0.2, ...
    a = cc.evaluate(sheet, (truth, scores), same_instances=True)
    b = cc.evaluate(sheet, (y, [0.8, 0.2, 0.1, 0.9]), same_instances=True)
    assert (a.eval1, a.worst_cost, a.best_cost) == (b.eval1, b.worst_cost, b.best_cost)


def test_evaluate_bad_inputs(small) -> None:
    _, sheet, y = small
    with pytest.raises(DataError, match="3 scores for 4 rows"):
        cc.evaluate(sheet, (y, [0.1, 0.2, 0.3]))
    with pytest.raises(cc.ScoreValueError, match="row 1 is missing"):
        cc.evaluate(sheet, (y, [0.1, math.nan, 0.3, 0.4]))
    with pytest.raises(InputTypeError, match="scores"):
        cc.evaluate(sheet, cc.Confusion(tp=1, fn=1, fp=1, tn=1))
    with pytest.raises(ValidationError, match="scores"):
        cc.evaluate(sheet)
    with pytest.raises(ValidationError, match="once"):
        cc.evaluate(sheet, (y, [0.1] * 4), y_true=y, scores=[0.1] * 4)
    with pytest.raises(SheetError, match="same instances"):
        cc.evaluate(sheet, ([1, 0, 0], [0.1, 0.2, 0.3]), same_instances=True)


def test_a_vote_sheet_refuses_score_keywords_in_evaluate() -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    with pytest.raises(ValidationError, match="ScoreSheet"):
        cc.evaluate(sheet, y_true=[1, 0], scores=[0.2, 0.4])


def test_row_fingerprint_proves_the_rows() -> None:
    rng = np.random.default_rng(5)
    y, log = random_log(rng, 7)
    runs = score_runs(log, truth=y, slot=1)
    ids = [f"r{i}" for i in range(7)]
    sheet = score_sheet_from_runs(runs, COSTS, row_ids=ids)
    s = rng.choice(GRID, size=7)
    proven = cc.evaluate(sheet, (y, s), row_fingerprint=cc.row_fingerprint(ids))
    declared = cc.evaluate(sheet, (y, s), same_instances=True)
    assert (proven.form, proven.how) == ("same instances", "fingerprint")
    assert "row fingerprint" in proven.instances
    assert proven.worst_cost == declared.worst_cost
    other = cc.evaluate(sheet, (y, s), row_fingerprint=cc.row_fingerprint(["x", "y"]))
    assert (other.form, other.how) == ("probability", "fingerprint-differs")
    with pytest.raises(ValidationError, match="contradicts"):
        cc.evaluate(sheet, (y, s), same_instances=True,
                    row_fingerprint=cc.row_fingerprint(["x", "y"]))
    unprinted = score_sheet_from_runs(runs, COSTS)
    with pytest.raises(ValidationError, match="no row fingerprint"):
        cc.evaluate(unprinted, (y, s), row_fingerprint=cc.row_fingerprint(ids))


# ------------------------------------------------------------------------------ compare
def test_compare_equals_evaluate_and_ranks() -> None:
    rng = np.random.default_rng(7)
    for same in (True, False):
        for breakpoints in (None, 3):
            y = rng.random(60) < 0.4
            log = np.clip(rng.normal(0.4, 0.2, (60, 3)) + 0.3 * y[:, None], 0, 1)
            runs = score_runs(log, truth=y, slot=0)
            sheet = score_sheet_from_runs(runs, COSTS, breakpoints=breakpoints)
            candidates = {f"c{k}": np.clip(rng.normal(0.5, 0.3, 60) + 0.3 * k * y, 0, 1)
                          for k in range(6)}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = cc.compare(sheet, y_true=y, scores=candidates, same_instances=same,
                                   confidence=0.9)
            assert table.columns[:6].tolist() == [
                "eval1", "expected_cost", "worst_cost", "best_cost",
                "high_confidence_worst_cost", "high_confidence_best_cost"]
            for name, s in candidates.items():
                r = cc.evaluate(sheet, (y, s), same_instances=same, confidence=0.9)
                row = table.loc[name]
                assert row["eval1"] == pytest.approx(r.eval1, rel=1e-12)
                assert row["worst_cost"] == pytest.approx(r.worst_cost, rel=1e-12)
                assert row["best_cost"] == pytest.approx(r.best_cost, rel=1e-12, abs=1e-12)
                assert row["high_confidence_worst_cost"] == pytest.approx(
                    r.high_confidence_worst_cost, rel=1e-12)
                assert row["high_confidence_best_cost"] == pytest.approx(
                    r.high_confidence_best_cost, rel=1e-12, abs=1e-12)
            key = list(zip(table["eval1"], table["worst_cost"]))
            assert key == sorted(key)
            assert table["rank"].iloc[0] == 1
            assert table.attrs["form"] == ("same instances" if same else "probability")
            assert table.attrs["sheet_sha256"] == sheet.digest
            assert table.attrs["slot"] == sheet.slot
            assert table.index.name == "candidate"


def test_compare_ties_share_a_rank(small) -> None:
    _, sheet, y = small
    table = cc.compare(sheet, y_true=y, scores={"a": [0.9] * 4, "b": [0.9] * 4,
                                                "c": [0.0] * 4})
    assert table.loc[["a", "b"], "rank"].tolist() == [1, 1] or \
        table.loc[["a", "b"], "rank"].tolist() == [2, 2]
    assert table["rank"].max() <= 3


def test_compare_mixed_declared_and_own_rows(small) -> None:
    runs, sheet, y = small
    table = cc.compare(sheet, y_true=y, same_instances=["a"],
                       scores={"a": [0.8, 0.8, 0.0, 0.0], "b": [0.8, 0.2, 0.1, 0.9],
                               "c": ([1, 0, 0], [0.9, 0.3, 0.4])})
    assert table.attrs["form"] == "mixed"
    assert "(1 candidate(s))" in table.attrs["instances"]
    assert "(2 candidate(s))" in table.attrs["instances"]
    assert table.loc["c", ["n_p", "n_n"]].tolist() == [1, 2]
    c = price_scores(runs.critical_by_class, ([0.9], [0.3, 0.4]), COSTS, same_instances=False)
    assert table.loc["c", "worst_cost"] == pytest.approx(c.worst_cost)
    a = brute_same(runs, y, np.array([0.8, 0.8, 0.0, 0.0]), COSTS)
    assert table.loc["a", ["eval1", "worst_cost", "best_cost"]].tolist() == pytest.approx(a)
    with pytest.raises(ValidationError, match="rows of their own"):
        cc.compare(sheet, y_true=y, same_instances=True,
                   scores={"a": [0.8, 0.8, 0.0, 0.0], "c": ([1, 0, 0], [0.9, 0.3, 0.4])})


def test_compare_refuses_vote_inputs_on_a_score_sheet(small) -> None:
    _, sheet, y = small
    with pytest.raises(ValidationError, match="needs|scores"):
        cc.compare(sheet, y_true=y, predictions={"a": [1, 0, 0, 1]})
    with pytest.raises(ValidationError, match="scores"):
        cc.compare(sheet, {"a": cc.Confusion(1, 1, 1, 1)})
    with pytest.raises(ValidationError, match="threshold"):
        cc.compare(sheet, y_true=y, scores={"a": [0.1] * 4}, threshold=0.5)
    with pytest.raises(DataError, match="scores\\['a'\\]"):
        cc.compare(sheet, y_true=y, scores={"a": [0.1] * 3, "b": [0.2] * 4})
    with pytest.raises(cc.ScoreValueError, match=r"scores\['a'\]: row 1 is missing"):
        cc.compare(sheet, y_true=y, scores={"a": [0.1, np.nan, 0.2, 0.3]})
    with pytest.raises(ValidationError, match="not among"):
        cc.compare(sheet, y_true=y, scores={"a": [0.1] * 4}, same_instances=["z"])


def test_a_vote_sheet_keeps_cutting_scores_into_votes() -> None:
    sheet = cc.sheet_from_network("thesis_and", COSTS)
    y = [1] * 30 + [0] * 60
    s = np.linspace(0, 1, 90)
    by_scores = cc.compare(sheet, y_true=y, scores={"s": s})
    by_votes = cc.compare(sheet, y_true=y, predictions={"s": (s >= 0.5).astype(int)})
    assert by_scores.loc["s", "eval1"] == by_votes.loc["s", "eval1"]
    assert "0.5" in by_scores.attrs["scores_rule"]


def test_compare_many_candidates_is_vectorised() -> None:
    import time

    rng = np.random.default_rng(1)
    y = rng.random(1000) < 0.3
    log = rng.random((1000, 3))
    runs, sheet = sheet_of(y, log)
    block = rng.random((10_000, 1000))
    scores = dict(zip((f"c{i}" for i in range(10_000)), block))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cc.CausalCostWarning)  # worst-case order note
        table = cc.compare(sheet, y_true=y, scores=scores, same_instances=True)
    took = time.perf_counter() - start
    assert len(table) == 10_000
    assert took < 10  # about 1 s on the benchmark machine; generous on a shared runner
    name = table.index[17]
    r = cc.evaluate(sheet, (y, scores[name]), same_instances=True)
    assert table.loc[name, "worst_cost"] == pytest.approx(r.worst_cost)


def test_hard_votes_on_a_mean_sheet_equal_the_majority_vote_sheet() -> None:
    """0/1 scores of three models, mean >= 0.5: the majority vote. Compared with scores on the
    score sheet and with votes on the vote sheet of the same log: the same numbers."""
    rng = np.random.default_rng(9)
    for _ in range(20):
        n = int(rng.integers(8, 60))
        y = rng.random(n) < 0.5
        y[0], y[-1] = True, False
        votes = np.where(rng.random((n, 3)) < 0.75, y[:, None], ~y[:, None]).astype(int)
        frame = pd.DataFrame(votes, columns=["a", "b", "c"])
        frame["y"] = y.astype(int)
        score_sheet = score_sheet_from_runs(
            score_runs(frame, truth="y", models=["a", "b", "c"], slot="b"), COSTS)
        vote_sheet = cc.sheet_from_data(cc.forced_runs(
            frame, truth="y", models=["a", "b", "c"], slot="b", fusioner="majority"), COSTS)
        candidates = {f"c{k}": (rng.random(n) < 0.5).astype(int) for k in range(5)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            by_scores = cc.compare(score_sheet, y_true=y, same_instances=True,
                                   scores={k: v.astype(float) for k, v in candidates.items()})
            by_votes = cc.compare(vote_sheet, y_true=y, same_instances=True,
                                  predictions=candidates)
        columns = ["eval1", "worst_cost", "best_cost"]
        got = by_scores.loc[list(candidates), columns].to_numpy(dtype=float)
        want = by_votes.loc[list(candidates), columns].to_numpy(dtype=float)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        acc = by_votes.loc[list(candidates), "accuracy"].to_numpy(dtype=float)
        np.testing.assert_allclose(by_scores.loc[list(candidates), "accuracy"], acc)


def test_compare_prints_narrow_and_warns_on_worst_case_order(small) -> None:
    _, sheet, y = small
    with pytest.warns(cc.CausalCostWarning, match="worst case is not a ranking"):
        table = cc.compare(sheet, y_true=y, scores={"spread": [0.0, 0.45, 0.0, 0.45],
                                                    "flat": [0.0, 0.0, 0.0, 0.0]})
    text = str(table)
    assert "Eval1" in text and "worst_tp" not in text and "accuracy" in text
    assert "worst_tp" in table.columns
    assert any("not a ranking" in w for w in table.attrs["warnings"])


# ----------------------------------------------------------------------------- backtest
def test_backtest_real_cost_inside_on_random_cases() -> None:
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(2, 40))
        y, log = random_log(rng, n)
        runs = score_runs(log, truth=y, slot=int(rng.integers(0, 3)))
        candidates = {f"c{k}": rng.choice(GRID, size=n) for k in range(4)}
        result = cc.backtest(runs, candidates, costs=COSTS)
        frame = result.to_frame()
        assert frame.columns[:7].tolist() == ["real_cost", "real_rank", "accuracy",
                                              "expected_cost", "best_cost", "worst_cost",
                                              "inside"]
        assert frame["inside"].all()
        for name, s in candidates.items():
            assert frame.loc[name, "real_cost"] == runs.with_candidate(s).cost(COSTS)
            assert result.real[name] == runs.with_candidate(s)
            if n <= 7:
                e, w, b = brute_same(runs, y, s, COSTS)
                assert frame.loc[name, ["expected_cost", "worst_cost", "best_cost"]
                                 ].tolist() == pytest.approx([e, w, b], abs=TOL)
            acc = np.mean((s >= 0.5) == y)
            assert frame.loc[name, "accuracy"] == pytest.approx(acc)


def test_backtest_with_a_sheet_of_other_rows() -> None:
    rng = np.random.default_rng(2)
    y = rng.random(400) < 0.4
    log = np.clip(rng.normal(0.4, 0.2, (400, 3)) + 0.3 * y[:, None], 0, 1)
    sheet_runs = score_runs(log[:200], truth=y[:200], slot=1)
    runs = score_runs(log[200:], truth=y[200:], slot=1)
    sheet = score_sheet_from_runs(sheet_runs, COSTS)
    candidates = {f"c{k}": np.clip(rng.normal(0.4, 0.3, 200) + 0.2 * k * y[200:], 0, 1)
                  for k in range(4)}
    result = cc.backtest(runs, candidates, sheet=sheet)
    frame = result.to_frame()
    assert {"sheet_expected_cost", "sheet_worst_cost", "sheet_inside", "sheet_hc_worst_cost",
            "sheet_hc_holds"} <= set(frame.columns)
    assert result.sheet_digest == sheet.digest
    assert any("probability form" in w for w in result.warnings)
    for name, s in candidates.items():
        r = cc.evaluate(sheet, (y[200:], s), confidence=0.95)
        assert frame.loc[name, "sheet_worst_cost"] == r.worst_cost
        assert frame.loc[name, "sheet_hc_worst_cost"] == r.high_confidence_worst_cost
    d = result.to_dict()
    assert d["sheet_sha256"] == sheet.digest and len(d["candidates"]) == 4
    with pytest.raises(ValidationError, match="differ"):
        cc.backtest(runs, candidates, sheet=sheet, costs=cc.CostMatrix(fn=2, fp=1))
    with pytest.raises(InputTypeError, match="ScoreSheet"):
        cc.backtest(runs, candidates, sheet=cc.sheet_from_network("thesis_and", COSTS))
    with pytest.raises(DataError, match="scores for 200 rows"):
        cc.backtest(runs, {"short": np.zeros(5)}, costs=COSTS)


def test_backtest_real_soft_voting_ensemble() -> None:
    """A soft VotingClassifier of three models on feature groups (breast cancer); five
    candidates for the middle slot: the real ensemble with the member swapped agrees with
    with_candidate, and its cost lies inside [best, worst] of the sheet of these rows."""
    from sklearn.compose import ColumnTransformer
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier, VotingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X_fit, X_log, y_fit, y_log = train_test_split(X, y, test_size=0.5, random_state=0,
                                                  stratify=y)
    groups = [list(range(0, 10)), list(range(10, 20)), list(range(20, 30))]

    def on(group: list[int], model) -> object:
        pick = ColumnTransformer([("g", "passthrough", group)])
        return make_pipeline(pick, StandardScaler(), model)

    members = [("a", on(groups[0], LogisticRegression(max_iter=500))),
               ("b", on(groups[1], LogisticRegression(C=0.1, max_iter=500))),
               ("c", on(groups[2], GaussianNB()))]
    ensemble = VotingClassifier(members, voting="soft").fit(X_fit, y_fit)
    proba = np.column_stack([m.predict_proba(X_log)[:, 1] for m in ensemble.estimators_])
    log = pd.DataFrame(proba, columns=["a", "b", "c"])
    log["y"] = y_log
    runs = score_runs(log, truth="y", models=["a", "b", "c"], slot="b")
    said = ensemble.predict(X_log) == 1
    assert runs.observed.tp == int((said & (y_log == 1)).sum())
    assert runs.observed.fp == int((said & (y_log == 0)).sum())
    candidates = {
        "logistic": LogisticRegression(max_iter=500), "tree": DecisionTreeClassifier(
            max_depth=3, random_state=0), "forest": RandomForestClassifier(
            n_estimators=30, random_state=0), "knn": KNeighborsClassifier(15),
        "bayes": GaussianNB()}
    fitted = {k: on(groups[1], m).fit(X_fit, y_fit) for k, m in candidates.items()}
    scores = {k: m.predict_proba(X_log)[:, 1] for k, m in fitted.items()}
    result = cc.backtest(runs, scores, costs=COSTS)
    frame = result.to_frame()
    assert frame["inside"].all()
    for name, model in fitted.items():
        swapped = VotingClassifier(members, voting="soft").fit(X_fit, y_fit)
        swapped.estimators_[1] = model
        real = swapped.predict(X_log) == 1
        cost = 5 * int((~real & (y_log == 1)).sum()) + int((real & (y_log == 0)).sum())
        assert frame.loc[name, "real_cost"] == cost
        assert frame.loc[name, "best_cost"] - TOL <= cost <= frame.loc[name, "worst_cost"] + TOL


# ------------------------------------------------------------------------------- scorer
def test_system_scorer_picks_the_hand_computed_argmin() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=300) > 0.6).astype(int)
    log = np.clip(rng.normal(0.4, 0.2, (300, 3)) + 0.3 * y[:, None], 0, 1)
    runs, sheet = sheet_of(y, log)
    t_p, t_n = runs.critical_by_class
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    grid = [1e-4, 1e-3, 1e-2, 0.1, 1.0, 100.0]
    by_hand = []
    for c in grid:
        total = []
        for train, test in cv.split(X, y):
            s = LogisticRegression(C=c).fit(X[train], y[train]).predict_proba(X[test])[:, 1]
            yt = y[test] == 1
            sp, sn = s[yt], s[~yt]
            p_pos = np.mean(sp[:, None] >= t_p[None, :])  # all pairs, independence
            p_neg = np.mean(sn[:, None] >= t_n[None, :])
            total.append(5 * sp.size * (1 - p_pos) + 1 * sn.size * p_neg)
        by_hand.append(np.mean(total))
    search = GridSearchCV(LogisticRegression(), {"C": grid}, cv=cv,
                          scoring=cc.system_scorer(sheet)).fit(X, y)
    assert -search.cv_results_["mean_test_score"] == pytest.approx(by_hand, rel=1e-12)
    assert search.best_params_["C"] == grid[int(np.argmin(by_hand))]
    assert len(set(np.round(by_hand, 9))) > 1  # the grid does discriminate
    named = GridSearchCV(LogisticRegression(), {"C": grid}, cv=cv,
                         scoring=cc.system_scorer(sheet, positive="sick")).fit(
        X, np.where(y == 1, "sick", "well"))
    assert -named.cv_results_["mean_test_score"] == pytest.approx(by_hand, rel=1e-12)


def test_system_scorer_criteria_and_errors(small) -> None:
    from sklearn.linear_model import LogisticRegression

    _, sheet, _ = small
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    s = model.predict_proba(X)[:, 1]
    for criterion in ("expected", "worst", "high_confidence_worst"):
        got = cc.system_scorer(sheet, criterion, confidence=0.9)(model, X, y)
        r = cc.evaluate(sheet, (y, s), confidence=0.9)
        want = {"expected": r.eval1, "worst": r.worst_cost,
                "high_confidence_worst": r.high_confidence_worst_cost}[criterion]
        assert got == pytest.approx(-want)
    with pytest.raises(ValidationError, match="criterion"):
        cc.system_scorer(sheet, "best")
    with pytest.raises(DataError, match="positive="):
        cc.system_scorer(sheet)(model, X, np.where(y == 1, "a", "b"))


# ---------------------------------------------------------------------------------- CLI
@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.random(50) < 0.4
    log = np.clip(rng.normal(0.4, 0.2, (50, 3)) + 0.3 * y[:, None], 0, 1)
    sheet = score_sheet_from_runs(score_runs(log, truth=y, slot=1), COSTS)
    sheet.save(tmp_path / "s.json")
    a, b = rng.random(50), np.where(y, 0.8, 0.2)
    labels = np.where(y, "sick", "well")
    pd.DataFrame({"y": labels, "p": a}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"y": labels, "p": b}).to_csv(tmp_path / "b.csv", index=False)
    pd.DataFrame({"y": [1, 0], "p": [0.3, 0.2]}).to_csv(tmp_path / "c.csv", index=False)
    return tmp_path, sheet, y, a, b


def test_cli_evaluate_scores_report_and_ranking(files, capsys) -> None:
    import json

    from causalcost.cli.app import main

    path, sheet, y, a, b = files
    common = ["--truth", "y", "--score-column", "p", "--positive", "sick"]
    assert main(["evaluate", str(path / "s.json"), "--scores", str(path / "a.csv"), *common,
                 "--same-instances", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = cc.evaluate(sheet, (y, a), same_instances=True)
    assert out["eval1"] == pytest.approx(r.eval1) and out["worst_cost"] == r.worst_cost
    assert out["form"] == "same instances" and out["sheet_sha256"] == sheet.digest
    assert main(["evaluate", str(path / "s.json"), "--scores", str(path / "a.csv"),
                 "--scores", f"good:{path / 'b.csv'}", *common, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in out["candidates"]] == ["good", "a"]
    assert out["form"] == "probability"
    assert main(["evaluate", str(path / "s.json"), "--scores", str(path / "a.csv"),
                 *common]) == 0
    assert "Eval1" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--model", "tp=1,fn=1,fp=1,tn=1"], "--scores FILE"),
    ([], "needs the candidate's scores"),
    (["--scores", "MISSING", "--truth", "y", "--score-column", "p"], "no such file"),
    (["--scores", "A", "--truth", "y", "--score-column", "p"], "--positive"),
    (["--scores", "A", "--truth", "y", "--score-column", "q"], "no column 'q'"),
    (["--scores", "A", "--scores", "C", "--truth", "y", "--score-column", "p", "--positive",
      "sick"], "not among its labels"),
])
def test_cli_evaluate_scores_errors_are_one_line(files, capsys, extra, message) -> None:
    from causalcost.cli.app import main

    path = files[0]
    extra = [str(path / "a.csv") if e == "A" else str(path / "c.csv") if e == "C" else
             str(path / "missing.csv") if e == "MISSING" else e for e in extra]
    assert main(["evaluate", str(path / "s.json"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize("version, key", [("1.3.2", "needs_proba"), ("1.4.0", "response_method"),
                                          ("1.9.1", "response_method")])
def test_proba_scorer_for_every_supported_scikit_learn(monkeypatch, version, key) -> None:
    """scikit-learn >= 1.2 (pyproject): response_method from 1.4, needs_proba before."""
    import sklearn
    import sklearn.metrics

    from causalcost.evaluation.score_scorer import make_proba_scorer

    seen = {}
    monkeypatch.setattr(sklearn, "__version__", version)
    monkeypatch.setattr(sklearn.metrics, "make_scorer",
                        lambda f, **kw: seen.update(kw) or "scorer")
    assert make_proba_scorer(len, pos_label="x") == "scorer"
    assert seen["greater_is_better"] is False and seen["pos_label"] == "x"
    assert {"needs_proba": True, "response_method": "predict_proba"}[key] == seen[key]
    assert ({"needs_proba", "response_method"} - {key}).isdisjoint(seen)
