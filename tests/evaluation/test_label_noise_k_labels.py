"""Label noise for K labels: the correction against simulated noisy labels and the K = 2
binary route, the range against independent pricing of every transition in the set."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import InputTypeError, ValidationError
from causalcost.evaluation.label_noise import LabelNoiseRange, label_noise_range
from causalcost.sheet.derivation import derive_labelled_sheet
from causalcost.stats.noisy_labels import (
    LabelErrors,
    LabelNoiseError,
    LabelTransition,
    correct_confusion,
)

LABELS = ["ok", "flu", "covid"]


def sheet_k(seed: int = 0, k: int = 3) -> cc.CostSheet:
    rng = np.random.default_rng(seed)
    t = rng.dirichlet(np.ones(k), size=(k, k))  # [c, j, s]
    costs = rng.uniform(0.5, 5, size=(k, k))
    np.fill_diagonal(costs, 0.0)
    labels = LABELS if k == 3 else [f"l{i}" for i in range(k)]
    return derive_labelled_sheet(t, costs, slot="m", labels=labels,
                                 created="2026-01-01T00:00:00+00:00")


def test_correction_undoes_simulated_label_noise() -> None:
    """Draw true classes and predictions, corrupt the labels independently with a transition,
    count against the noisy labels: the correction lands on the true counts within sampling."""
    rng = np.random.default_rng(1)
    n = 400_000
    truth = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    model = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.05, 0.15, 0.8]])
    pred = (rng.random(n)[:, None] > np.cumsum(model[truth], axis=1)).sum(axis=1)
    noise = LabelTransition([[0.9, 0.07, 0.03], [0.05, 0.85, 0.1], [0.02, 0.08, 0.9]], LABELS)
    label = (rng.random(n)[:, None] > np.cumsum(noise.matrix[truth], axis=1)).sum(axis=1)
    seen = np.zeros((3, 3))
    np.add.at(seen, (label, pred), 1)
    true = np.zeros((3, 3))
    np.add.at(true, (truth, pred), 1)
    fixed = correct_confusion(cc.Confusion(seen, labels=LABELS), noise).to_numpy()
    # sampling error of a cell ~ sqrt(n p); the inverse amplifies it a little
    assert np.abs(fixed - true).max() < 6 * np.sqrt(n * 0.4) * 1.5
    assert np.abs(fixed - true).max() / n < 0.005
    assert fixed.sum(axis=0) == pytest.approx(seen.sum(axis=0))  # predicted columns kept


@settings(max_examples=30, deadline=None)
@given(a=st.floats(0.0, 0.45), b=st.floats(0.0, 0.45),
       cells=st.lists(st.integers(20, 200), min_size=4, max_size=4))
def test_two_labels_agree_with_the_binary_route(a: float, b: float, cells: list) -> None:
    tp, fn, fp, tn = cells
    true = np.array([[tp, fn], [fp, tn]], dtype=float)
    m = np.array([[1 - a, a], [b, 1 - b]])
    seen = m.T @ true
    observed = cc.Confusion(tp=seen[0, 0], fn=seen[0, 1], fp=seen[1, 0], tn=seen[1, 1])
    binary = correct_confusion(observed, LabelErrors(a, b))
    general = correct_confusion(observed, LabelTransition(m, ["P", "N"]))
    np.testing.assert_allclose(general.to_numpy(), binary.to_numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(general.to_numpy(), true, rtol=1e-9, atol=1e-7)


def test_symmetric_transition_and_refusals() -> None:
    t = LabelTransition.symmetric(0.8, LABELS)
    assert t.matrix == pytest.approx(np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1],
                                               [0.1, 0.1, 0.8]]))
    with pytest.raises(LabelNoiseError, match="random label"):
        LabelTransition.symmetric(1 / 3, LABELS)
    with pytest.raises(LabelNoiseError, match="cannot be inverted"):
        LabelTransition(np.full((3, 3), 1 / 3), LABELS)
    with pytest.raises(ValidationError, match="sum"):
        LabelTransition([[0.9, 0.2, 0.0], [0, 1, 0], [0, 0, 1]], LABELS)
    with pytest.raises(LabelNoiseError, match="too high"):
        correct_confusion(cc.Confusion([[10, 0, 0], [0, 10, 0], [0, 0, 10]], labels=LABELS),
                          LabelTransition.symmetric(0.6, LABELS))


def test_transition_labels_are_matched_by_name() -> None:
    noise = LabelTransition([[0.9, 0.1, 0.0], [0.0, 0.8, 0.2], [0.05, 0.05, 0.9]], LABELS)
    order = [2, 0, 1]
    shuffled = LabelTransition(noise.matrix[np.ix_(order, order)], [LABELS[i] for i in order])
    true = np.array([[50.0, 5, 5], [6, 40, 4], [3, 2, 35]])
    seen = cc.Confusion(noise.matrix.T @ true, labels=LABELS)
    np.testing.assert_allclose(correct_confusion(seen, noise).to_numpy(), true, rtol=1e-9)
    np.testing.assert_allclose(correct_confusion(seen, shuffled).to_numpy(),
                               correct_confusion(seen, noise).to_numpy(), rtol=1e-12)
    with pytest.raises(ValidationError, match="labels"):
        correct_confusion(seen, LabelTransition(noise.matrix, ["a", "b", "c"]))


def priced(sheet: cc.CostSheet, m: np.ndarray) -> np.ndarray:
    r = cc.evaluate(sheet, cc.Confusion(m, labels=list(sheet.labels)))
    return np.array([r.eval1, r.worst_cost, r.best_cost])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_range_over_given_transitions_is_min_and_max_of_each(seed: int) -> None:
    sheet = sheet_k(seed)
    rng = np.random.default_rng(seed)
    cand = rng.integers(5, 80, size=(3, 3)) + np.diag([200, 150, 100])
    ts = [LabelTransition.symmetric(a, LABELS) for a in (1.0, 0.97, 0.93)]
    ts.append(LabelTransition(rng.dirichlet(np.ones(3), size=3) * 0.1 + 0.9 * np.eye(3),
                              LABELS))
    r = label_noise_range(sheet, cand, transitions=ts)
    fixed = [np.linalg.solve(t.matrix.T, cand) for t in ts]
    ok = [f for f in fixed if (f >= -1e-9).all()]  # those that can have made the counts
    assert isinstance(r, LabelNoiseRange) and not r.exact and len(r.transitions) == len(ok) >= 1
    assert (r.note == "") == (len(ok) == len(ts))
    want = np.array([priced(sheet, np.maximum(f, 0)) for f in ok])
    np.testing.assert_allclose(r.frame["low"], want.min(axis=0), rtol=1e-9)
    np.testing.assert_allclose(r.frame["high"], want.max(axis=0), rtol=1e-9)
    np.testing.assert_allclose(r.frame["observed"], priced(sheet, cand), rtol=1e-12)
    assert np.isnan(r.frame["estimate"]).all()


def test_symmetric_family_holds_every_rate_up_to_the_bound() -> None:
    sheet = sheet_k(4)
    true = np.array([[300, 20, 10], [15, 150, 15], [5, 10, 80]])
    cand = LabelTransition.symmetric(0.9, LABELS).matrix.T @ true  # what 90 % labels show
    r = label_noise_range(sheet, cand, 0.9, label_errors=LabelTransition.symmetric(0.95, LABELS),
                          steps=51)
    lo, hi = r.frame["low"].to_numpy(), r.frame["high"].to_numpy()
    # any symmetric rate in between, priced independently, falls inside (up to a grid step)
    for a in np.random.default_rng(0).uniform(0.9, 1.0, 25):
        v = priced(sheet, np.linalg.solve(LabelTransition.symmetric(a, LABELS).matrix.T, cand))
        slack = 0.02 * np.abs(hi - lo) + 1e-9
        assert (v >= lo - slack).all() and (v <= hi + slack).all()
    # the ends are attained: clean labels and the noisiest
    assert priced(sheet, cand)[0] in (pytest.approx(lo[0]), pytest.approx(hi[0]))
    est = np.linalg.solve(LabelTransition.symmetric(0.95, LABELS).matrix.T, cand)
    np.testing.assert_allclose(r.estimate.to_numpy(), est, rtol=1e-12)
    np.testing.assert_allclose(r.frame["estimate"], priced(sheet, est), rtol=1e-9)
    assert "symmetric noise up to 0.1" in str(r) and r.to_dict()["transitions"] == 51
    np.testing.assert_allclose(r.corrected[-1], true, rtol=1e-9)  # the noisiest end


def test_way_to_the_given_errors_and_left_out_transitions() -> None:
    sheet = sheet_k(5)
    cand = np.array([[100, 2, 2], [2, 100, 2], [2, 2, 100]])
    errors = LabelTransition.symmetric(0.8, LABELS)  # too noisy for counts this clean
    with pytest.raises(LabelNoiseError):
        correct_confusion(cand, errors)
    r = label_noise_range(sheet, cand, label_errors=LabelTransition.symmetric(0.99, LABELS))
    assert r.note == "" and len(r.transitions) == 101
    r = label_noise_range(sheet, cand, 0.8, steps=11)
    assert "left out" in r.note and 1 <= len(r.transitions) < 11
    assert (r.corrected >= 0).all()


def test_k_label_argument_errors() -> None:
    sheet = sheet_k(6)
    cand = np.eye(3) * 50 + 5
    with pytest.raises(ValidationError, match="label_accuracy"):
        label_noise_range(sheet, cand)
    with pytest.raises(ValidationError, match="steps"):
        label_noise_range(sheet, cand, 0.9, steps=1)
    with pytest.raises(InputTypeError):
        label_noise_range(sheet, cand, transitions=LabelTransition.symmetric(0.9, LABELS))
    binary = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    # two labels with steps=: the same transition family as for K labels (one route)
    r = label_noise_range(binary, cc.Confusion(tp=50, fn=5, fp=5, tn=50), 0.9, steps=5)
    low, high = r.range_of("eval1")
    assert low <= r.frame.loc["eval1", "observed"] <= high


def test_four_labels() -> None:
    sheet = sheet_k(7, k=4)
    cand = np.eye(4) * 100 + 3
    ts = [LabelTransition.symmetric(a, sheet.labels) for a in (1.0, 0.98)]
    r = label_noise_range(sheet, cand, transitions=ts)
    want = np.array([priced(sheet, np.linalg.solve(t.matrix.T, cand)) for t in ts])
    np.testing.assert_allclose(r.frame["high"], want.max(axis=0), rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 4), seed=st.integers(0, 10**6), alpha=st.floats(0.8, 1.0))
def test_eval1_with_no_assumption_equals_a_linear_program(k: int, seed: int,
                                                          alpha: float) -> None:
    """Over every confusion reachable by at most (1 - alpha) n relabellings (N >= 0, the
    predicted columns kept, half the L1 move within the budget), Eval1's extremes by scipy's
    linprog equal the greedy ones."""
    from scipy.optimize import linprog

    from causalcost.evaluation.label_noise import eval1_any_errors

    rng = np.random.default_rng(seed)
    m1 = rng.uniform(0, 10, size=(k, k))
    o = rng.integers(0, 60, size=(k, k)).astype(float)
    o[0, 0] += 1
    budget = (1 - alpha) * o.sum()
    kk = k * k
    # variables: N (kk), u (kk) with u >= |N - O|
    a_ub = np.block([[np.eye(kk), -np.eye(kk)], [-np.eye(kk), -np.eye(kk)],
                     [np.zeros((1, kk)), np.full((1, kk), 0.5)]])
    b_ub = np.concatenate([o.ravel(), -o.ravel(), [budget]])
    a_eq = np.hstack([np.kron(np.ones((1, k)), np.eye(k)), np.zeros((k, kk))])
    b_eq = o.sum(axis=0)
    bounds = [(0, None)] * (2 * kk)
    found = []
    for sign in (1, -1):
        res = linprog(np.concatenate([sign * m1.ravel(), np.zeros(kk)]), A_ub=a_ub, b_ub=b_ub,
                      A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
        assert res.status == 0
        found.append(sign * res.fun)
    lo, hi = eval1_any_errors(m1, o, alpha)
    scale = 1e-6 * max(1.0, float(np.abs(m1).max() * o.sum()))
    assert lo == pytest.approx(found[0], abs=scale) and hi == pytest.approx(found[1], abs=scale)


def test_range_reports_eval1_with_no_assumption() -> None:
    sheet = sheet_k(8)
    cand = np.array([[300, 20, 10], [15, 150, 15], [5, 10, 80]])
    r = label_noise_range(sheet, cand, 0.95)
    lo, hi = r.eval1_any_errors
    e_lo, e_hi = r.range_of("eval1")
    assert lo <= e_lo + 1e-9 and e_hi <= hi + 1e-9  # independent errors are one way among all
    assert "no assumption" in str(r) and r.to_dict()["eval1_any_errors"] == [lo, hi]
    assert label_noise_range(sheet, cand, transitions=[np.eye(3)]).eval1_any_errors is None


@settings(max_examples=20, deadline=None)
@given(cells=st.lists(st.integers(0, 200), min_size=4, max_size=4), alpha=st.floats(0.55, 1.0))
def test_eval1_with_no_assumption_is_the_binary_polygon_range_for_two_labels(cells: list,
                                                                           alpha: float) -> None:
    from causalcost.evaluation.label_noise import eval1_any_errors

    if sum(cells) == 0:
        cells[0] = 1
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    m = cc.Confusion(*cells)
    binary = label_noise_range(sheet, m, alpha).range_of("eval1")
    general = eval1_any_errors(np.asarray(sheet.m1, dtype=float), m.to_numpy(), alpha)
    assert general == (pytest.approx(binary[0], rel=1e-9, abs=1e-9),
                       pytest.approx(binary[1], rel=1e-9, abs=1e-9))


def test_k_label_inputs_of_the_wrong_shape_are_named() -> None:
    sheet = sheet_k(9)
    cand = np.eye(3) * 50 + 5
    with pytest.raises(ValidationError, match="2 x 2 but the counts have 3 labels"):
        label_noise_range(sheet, cand, label_errors=[[0.9, 0.1], [0.1, 0.9]])
    with pytest.raises(ValidationError, match="no instances"):
        label_noise_range(sheet, np.zeros((3, 3)), 0.9)
    with pytest.raises(ValidationError, match="fraction"):
        label_noise_range(sheet, cand, float("nan"))


def test_one_result_type_for_every_k() -> None:
    """K = 2 (the exact polygon) and K = 3 (transitions) give the same type, whose frame,
    to_dict keys and printing are one; the old K-label name warns and is that type."""
    binary = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    two = label_noise_range(binary, cc.Confusion(tp=50, fn=50, fp=100, tn=100), 0.96)
    three = label_noise_range(sheet_k(3), np.eye(3) * 60 + 4, 0.95)
    assert type(two) is type(three) is LabelNoiseRange
    assert two.exact and not three.exact and two.labels == ("P", "N")
    assert list(two.frame.columns) == list(three.frame.columns)
    common = {"labels", "label_accuracy", "family", "estimate_basis", "note", "eval1",
              "worst_cost", "best_cost", "eval1_any_errors"}
    assert common <= set(two.to_dict()) and common <= set(three.to_dict())
    # the binary range is assumption-free, so it is Eval1's any-errors range itself
    assert two.to_dict()["eval1_any_errors"] == list(two.range_of("eval1")) == [260.0, 380.0]
    assert two.to_dict()["max_wrong_labels"] == 12.0 and three.to_dict()["transitions"] == 101
    assert repr(two).startswith("LabelNoiseRange(slot=") and "transitions=101" in repr(three)
    assert str(two).startswith("Given labels that are at least 96% right")
    with pytest.raises(ValidationError, match="exact over every relabelling"):
        two.extreme("worst_cost")
    with pytest.warns(DeprecationWarning, match="causalcost.LabelNoiseRange"):
        assert cc.TransitionRange is LabelNoiseRange
