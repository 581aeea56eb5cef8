"""The threshold sweep (evaluation.thresholds) prices every threshold as ``evaluate`` does.

References: a plain loop over the thresholds that counts the confusion with a Python
comparison ``score >= t`` and calls the public :func:`causalcost.evaluate` on it (the one-at-a-
time path, count form or probability form as the sheet allows); scikit-learn's ``roc_curve``
and ``roc_auc_score``; and the lecture notes' ROC table (notes 001, "Come costruire una roc
curve": ten instances, TP and FP at each threshold).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score, roc_curve

import causalcost as cc
from causalcost.errors import DataError, InputTypeError
from causalcost.evaluation.thresholds import SWEEP_COLUMNS, system_thresholds

COSTS = cc.CostMatrix(tp=0.25, fn=5, fp=1.5, tn=0.125)
FORCED_P = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
FORCED_N = cc.Confusion(tp=0, fn=100, fp=0, tn=200)

SHEETS = {
    "and": lambda: cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)),
    "or": lambda: cc.sheet_from_network("thesis_or", COSTS),
    "none": lambda: cc.sheet_from_network("majority3", COSTS, assumption="none"),
    "counts": lambda: cc.sheet_from_forced_runs(FORCED_P, FORCED_N, COSTS, slot="s",
                                                description="set"),
    "counts-none": lambda: cc.sheet_from_forced_runs(FORCED_P, FORCED_N, COSTS, slot="s",
                                                     description="set", assumption="none"),
}
_CACHE: dict[str, cc.CostSheet] = {}


def sheet(name: str) -> cc.CostSheet:
    if name not in _CACHE:
        _CACHE[name] = SHEETS[name]()
    return _CACHE[name]


def loop(sheet_: cc.CostSheet, y: np.ndarray, s: np.ndarray, thresholds: list[float],
         same: bool = False):
    """One evaluate() per threshold, the confusion counted instance by instance."""
    rows = []
    for t in thresholds:
        cells = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
        for label, score in zip(y.tolist(), s.tolist()):
            said = score >= t
            cells[("tp" if said else "fn") if label else ("fp" if said else "tn")] += 1
        report = cc.evaluate(sheet_, cc.Confusion(**cells), same_instances=same)
        rows.append((t, cells, report))
    return rows


def data(n_pos: int, n_neg: int, seed: int, levels: int | None = None):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    s = rng.normal(size=y.size) + 1.2 * y
    if levels:  # ties: few distinct scores
        s = np.round(s * levels / 4) / levels
    order = rng.permutation(y.size)
    return y[order], s[order]


@pytest.mark.parametrize("name", list(SHEETS))
@pytest.mark.parametrize("levels", [None, 3])
def test_the_sweep_equals_a_loop_of_evaluate(name: str, levels: int | None) -> None:
    sh = sheet(name)
    y, s = data(100, 200, seed=len(name), levels=levels)  # the forced runs' class sizes
    same = name.startswith("counts")  # declared the sheet's own rows (the count form)
    sweep = system_thresholds(sh, y, s, same_instances=same)
    f = sweep.frame
    assert list(f.columns) == list(SWEEP_COLUMNS)
    expected_t = [math.inf, *sorted(set(s.tolist()), reverse=True)]
    assert f["threshold"].tolist() == expected_t
    for i, (t, cells, report) in enumerate(loop(sh, y, s, expected_t, same)):
        row = f.iloc[i]
        assert [row.tp, row.fn, row.fp, row.tn] == list(cells.values()), t
        assert row.expected_cost == pytest.approx(report.eval1, rel=1e-12, abs=1e-9)
        assert row.expected_cost == pytest.approx(report.expected_cost, rel=1e-12, abs=1e-9)
        assert row.worst_cost == pytest.approx(report.worst_cost, rel=1e-12, abs=1e-9)
        assert row.best_cost == pytest.approx(report.best_cost, rel=1e-12, abs=1e-9)
        assert report.form == sweep.form
    assert sweep.form == ("counts" if name.startswith("counts") else "probability")
    assert sweep.assumption == sh.assumption


@pytest.mark.parametrize("name", ["and", "counts"])
def test_the_chosen_points_are_the_loops_optima(name: str) -> None:
    sh = sheet(name)
    y, s = data(100, 200, seed=7, levels=5)
    sweep = system_thresholds(sh, y, s)
    rows = loop(sh, y, s, sweep.frame["threshold"].tolist())
    expected = min(rows, key=lambda r: (r[2].eval1, r[2].worst_cost, -r[0]))
    worst = min(rows, key=lambda r: (r[2].worst_cost, r[2].eval1, -r[0]))
    accuracy = min(rows, key=lambda r: (-(r[1]["tp"] + r[1]["tn"]), -r[0]))
    youden = min(rows, key=lambda r: (-(r[1]["tp"] / 100 - r[1]["fp"] / 200), -r[0]))
    for point, ref in ((sweep.expected_optimum, expected), (sweep.worst_case_optimum, worst),
                       (sweep.model_only_optimum, accuracy), (sweep.youden_optimum, youden)):
        assert point.threshold == ref[0]
        assert point.confusion == cc.Confusion(**ref[1])
        assert point.worst_cost == pytest.approx(ref[2].worst_cost)
        assert point.expected_cost == pytest.approx(ref[2].eval1)
    assert sweep.model_only_optimum.criterion == "accuracy"
    assert set(sweep.to_frame().index) == {"expected", "worst", "accuracy", "youden"}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=25)
       .filter(lambda rows: 0 < sum(r[0] for r in rows) < len(rows)),
       st.sampled_from(["and", "or", "none"]))
def test_random_small_sets_match_the_loop(rows, name) -> None:
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] / 6 for r in rows])
    sh = sheet(name)
    sweep = system_thresholds(sh, y, s)
    for i, (_, cells, report) in enumerate(loop(sh, y, s, sweep.frame["threshold"].tolist())):
        row = sweep.frame.iloc[i]
        assert [row.tp, row.fn, row.fp, row.tn] == list(cells.values())
        assert row.worst_cost == pytest.approx(report.worst_cost, abs=1e-9)
        assert row.expected_cost == pytest.approx(report.eval1, abs=1e-9)


def test_rows_are_scikit_learns_roc_points_and_auc() -> None:
    y, s = data(150, 250, seed=3, levels=4)
    sweep = system_thresholds(sheet("and"), y, s)
    fpr, tpr, thresholds = roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_array_equal(sweep.frame["threshold"], thresholds)
    np.testing.assert_allclose(sweep.frame["fpr"], fpr)
    np.testing.assert_allclose(sweep.frame["tpr"], tpr)
    assert sweep.auc == roc_auc_score(y, s)
    for mine, theirs in zip(sweep.roc, roc_curve(y, s)):
        np.testing.assert_array_equal(mine, theirs)


def test_the_notes_roc_table() -> None:
    """Notes 001: counts at each threshold of the ten-instance example (ties collapsed)."""
    labels = "+ + - - - + - + - +".split()
    scores = [0.95, 0.93, 0.87, 0.85, 0.85, 0.85, 0.76, 0.53, 0.43, 0.25]
    sweep = system_thresholds(sheet("and"), labels, scores, positive="+")
    table = {  # threshold: (TP, FP, TN, FN), from the notes' table
        0.25: (5, 5, 0, 0), 0.43: (4, 5, 0, 1), 0.53: (4, 4, 1, 1), 0.76: (3, 4, 1, 2),
        0.85: (3, 3, 2, 2), 0.87: (2, 1, 4, 3), 0.93: (2, 0, 5, 3), 0.95: (1, 0, 5, 4),
        math.inf: (0, 0, 5, 5),
    }
    got = {r.threshold: (r.tp, r.fp, r.tn, r.fn) for r in sweep.frame.itertuples()}
    assert got == table


def test_given_thresholds_are_priced_as_the_loop() -> None:
    y, s = data(40, 60, seed=11)
    sh = sheet("or")
    grid = [0.9, -1.0, 0.3, 0.3, 2.5, -math.inf]
    sweep = system_thresholds(sh, y, s, thresholds=grid)
    assert sweep.frame["threshold"].tolist() == [2.5, 0.9, 0.3, -1.0, -math.inf]
    for i, (_, cells, report) in enumerate(loop(sh, y, s, sweep.frame["threshold"].tolist())):
        row = sweep.frame.iloc[i]
        assert [row.tp, row.fn, row.fp, row.tn] == list(cells.values())
        assert row.worst_cost == pytest.approx(report.worst_cost)


def test_iso_cost_lines_are_lines_of_equal_eval1() -> None:
    y, s = data(120, 180, seed=5)
    sweep = system_thresholds(sheet("and"), y, s)
    k, p, n = sweep.expected_cost_matrix, sweep.positives, sweep.negatives

    def eval1(fpr: float, tpr: float) -> float:  # cost function 1, linear in the ROC point
        return k.tp * p * tpr + k.fn * p * (1 - tpr) + k.fp * n * fpr + k.tn * n * (1 - fpr)

    e = sweep.expected_optimum
    assert eval1(e.fpr, e.tpr) == pytest.approx(e.expected_cost)
    assert k.evaluate(e.confusion) == pytest.approx(e.expected_cost)
    for step in (-0.2, 0.1, 0.3):
        moved = eval1(e.fpr + step, e.tpr + sweep.iso_cost_slope * step)
        assert moved == pytest.approx(e.expected_cost)
    # no ROC point is below the iso-cost line through the optimum in cost
    assert (sweep.frame["expected_cost"] >= e.expected_cost - 1e-9).all()


def test_slope_is_vertical_or_undefined_when_eval1_ignores_a_rate() -> None:
    y, s = data(30, 30, seed=1)
    flat_p = cc.derive_sheet(cc.ErrorRates(0.3, 0.3, 0.5, 0.1), COSTS, slot="s", prior=0.5,
                             monotonicity="declared", provenance={"source": "test"})
    assert system_thresholds(flat_p, y, s).iso_cost_slope == math.inf
    flat = cc.derive_sheet(cc.ErrorRates(0.3, 0.3, 0.2, 0.2), COSTS, slot="s", prior=0.5,
                           monotonicity="declared", provenance={"source": "test"})
    assert math.isnan(system_thresholds(flat, y, s).iso_cost_slope)


def test_the_result_reads_well() -> None:
    y, s = data(50, 100, seed=2)
    sweep = system_thresholds(sheet("and"), y, s)
    assert repr(sweep).startswith("ThresholdSweep(slot='clinical_history', thresholds=151")
    text = str(sweep)
    assert "lowest worst-case system cost" in text and "highest accuracy (model only)" in text
    d = sweep.to_dict()
    assert d["points"]["worst"]["threshold"] == sweep.worst_case_optimum.threshold
    assert d["sheet_sha256"] == sheet("and").digest
    assert "OperatingPoint(criterion='expected'" in repr(sweep.expected_optimum)
    with pytest.raises(AttributeError):
        sweep.auc = 0.5  # frozen


def test_other_instances_than_a_count_sheets_get_the_probability_form_and_a_warning() -> None:
    y, s = data(90, 210, seed=4)
    sweep = system_thresholds(sheet("counts"), y, s)
    assert sweep.form == "probability"
    assert any("other instances" in w for w in sweep.warnings)


def test_bad_input_is_refused_with_the_reason() -> None:
    sh = sheet("and")
    with pytest.raises(DataError, match="both classes"):
        system_thresholds(sh, [1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(DataError, match="finite"):
        system_thresholds(sh, [1, 0], [0.1, float("nan")])
    with pytest.raises(DataError, match="one number per instance"):
        system_thresholds(sh, [1, 0, 1], [0.1, 0.2])
    with pytest.raises(DataError, match="numbers"):
        system_thresholds(sh, [1, 0], ["high", "low"])
    with pytest.raises(DataError, match="positive="):
        system_thresholds(sh, ["sick", "well"], [0.9, 0.1])
    with pytest.raises(DataError, match="not NaN"):
        system_thresholds(sh, [1, 0], [0.9, 0.1], thresholds=[0.5, float("nan")])
    with pytest.raises(InputTypeError, match="CostSheet"):
        system_thresholds({"rates": None}, [1, 0], [0.9, 0.1])


def test_a_hundred_thousand_distinct_scores_give_one_row_each() -> None:
    # the speed of this sweep is measured in benchmarks/bench_thresholds.py, not here
    rng = np.random.default_rng(0)
    y = rng.random(100_000) < 1 / 3
    s = rng.normal(size=y.size) + y
    assert np.unique(s).size == y.size
    sweep = system_thresholds(sheet("and"), y, s)
    assert len(sweep.frame) == 100_001
    assert sweep.frame["threshold"].is_monotonic_decreasing
