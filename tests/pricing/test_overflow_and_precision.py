"""Issue 7: costs that overflow float64 are refused, counts beyond 2**53 stay exact.

Reference values are computed here with Python integers and fractions.Fraction (exact), from
the closed forms of design/METHOD.md written out independently of the package.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import CostMatrixError, CountError, OverflowInputError
from causalcost.pricing.high_confidence import high_confidence_worst_cost_many

FLOAT_MAX = sys.float_info.max
BIG = 2**60 + 1  # a count float64 cannot hold: float(BIG) == 2**60
HUGE_COSTS = cc.CostMatrix(fn=1e308, fp=1e308)
# 150 positives / 150 negatives; AND-like forced runs (monotone)
FORCED_P, FORCED_N = cc.Confusion(100, 50, 100, 50), cc.Confusion(0, 150, 50, 100)
MODEL = cc.Confusion(50, 100, 75, 75)


# ---------------------------------------------------------------------------- overflow
def test_issue_7_bound_with_huge_costs_is_refused() -> None:
    # worst case: 150 FN + 100 FP at 1e308 each: far beyond float64's 1.8e308
    with pytest.raises(OverflowInputError, match=r"costs too large: the worst-case system cost "
                       r"overflows float64 \(costs fn=1e\+308, fp=1e\+308 with 300 instances\); "
                       r"rescale the costs"):
        cc.bound(FORCED_P, FORCED_N, MODEL, HUGE_COSTS)
    with pytest.raises(OverflowInputError, match="with 300 instances"):
        cc.bound(FORCED_P, FORCED_N, MODEL, HUGE_COSTS, assumption="none")
    with pytest.raises(OverflowInputError, match="rescale the costs"):
        cc.bound_many(FORCED_P, FORCED_N, [MODEL.cells()], HUGE_COSTS)
    rates = cc.ErrorRates.from_forced(FORCED_P, FORCED_N)
    with pytest.raises(OverflowInputError, match="rescale the costs"):
        cc.bound_from_rates(rates, MODEL, HUGE_COSTS)
    with pytest.raises(OverflowInputError, match="models row 0"):
        cc.bound_many_from_rates(rates, [MODEL.cells()], HUGE_COSTS)
    with pytest.raises(OverflowInputError, match="cost function 1"):
        cc.evaluate_costs(rates, HUGE_COSTS, MODEL)
    with pytest.raises(OverflowInputError):
        cc.perfect_slot_cost(rates, HUGE_COSTS, 150, 150)
    with pytest.raises(OverflowInputError, match="overflows float64"):
        MODEL.cost(HUGE_COSTS)
    with pytest.raises(OverflowInputError):
        cc.high_confidence_bound(FORCED_P, FORCED_N, MODEL, HUGE_COSTS)
    with pytest.raises(OverflowInputError, match="row 0"):
        high_confidence_worst_cost_many(np.array([[*FORCED_P.cells(), *FORCED_N.cells()]]),
                                        np.array([MODEL.cells()]), HUGE_COSTS)


def test_issue_7_negative_hit_costs_are_refused_not_minus_infinity() -> None:
    # hits cost -1e308 (a reward), mistakes 0: the best case has many hits -> -inf before
    costs = cc.CostMatrix(tp=-1e308, fn=0, fp=0, tn=-1e308)
    with pytest.raises(OverflowInputError, match="overflows float64"):
        cc.bound(FORCED_P, FORCED_N, MODEL, costs)
    with pytest.raises(OverflowInputError):
        cc.bound_many(FORCED_P, FORCED_N, [MODEL.cells()], costs)


def test_large_finite_costs_give_finite_json() -> None:
    # the same counts at 1e305 per mistake: at most 300 x 1e305 = 3e307, finite
    costs = cc.CostMatrix(fn=1e305, fp=1e305)
    b = cc.bound(FORCED_P, FORCED_N, MODEL, costs)
    text = json.dumps(b.to_dict(), allow_nan=False)  # no Infinity, no NaN
    assert "Infinity" not in text
    # worst FN = min(150, 50 + 100) = 150, FP = min(100, 50 + 75) = 100 (METHOD.md)
    assert b.worst_cost == pytest.approx(250 * 1e305, rel=1e-12)


def test_cost_matrix_accepts_only_finite_values() -> None:
    for bad in (np.inf, -np.inf, np.nan, 10**400, -(10**400)):
        with pytest.raises(CostMatrixError, match="must be finite"):
            cc.CostMatrix(fn=bad, fp=1)
    with pytest.raises(CostMatrixError, match="must be finite"):
        cc.CostMatrix.parse("fn=1e999,fp=1")
    # what a mistake adds must be finite too (cost function 2 multiplies it)
    with pytest.raises(CostMatrixError, match=r"fn - tp .* overflows float64"):
        cc.CostMatrix(tp=-1e308, fn=1e308, fp=1)
    with pytest.raises(CostMatrixError, match=r"fp - tn .* overflows float64"):
        cc.CostMatrix(fn=1, tn=-1e308, fp=1e308)
    assert cc.CostMatrix(fn=FLOAT_MAX, fp=FLOAT_MAX).fn == FLOAT_MAX  # finite is fine


def test_confusion_total_must_fit_in_float64() -> None:
    with pytest.raises(CountError, match="total overflows float64"):
        cc.Confusion(1e308, 1e308, 0, 0)
    with pytest.raises(CountError, match="beyond float64's range"):
        cc.Confusion(10**400, 0, 0, 0)


def exact_cost(cells: tuple, costs: cc.CostMatrix) -> Fraction:
    return sum(Fraction(c) * Fraction(v) for c, v in zip(costs.cells(), cells, strict=True))


@settings(max_examples=200, deadline=None)
@given(scale=st.floats(1e300, FLOAT_MAX), hit=st.floats(-1, 0), n=st.integers(1, 400))
def test_cost_is_finite_and_right_or_refused(scale: float, hit: float, n: int) -> None:
    try:
        costs = cc.CostMatrix(tp=hit * scale, fn=scale, fp=scale / 2, tn=hit * scale / 3)
    except CostMatrixError:  # refused only when what a mistake adds overflows
        assert Fraction(scale) - Fraction(hit * scale) > FLOAT_MAX
        return
    model = cc.Confusion(n, n, n, n)
    exact = exact_cost(model.cells(), costs)
    try:
        value = model.cost(costs)
    except OverflowInputError:
        assert abs(exact) > FLOAT_MAX * (1 - 1e-9)  # refused only when it really overflows
    else:
        assert np.isfinite(value) and value == pytest.approx(float(exact), rel=1e-12)


# ---------------------------------------------------------------------------- precision
def worst_best_monotone(fc: int, fw: int, nc: int, nw: int) -> tuple[int, int]:
    """METHOD.md: worst = min(nc, fc) + min(nw, fw - min(nc, fc)); best = max(fc, fw - nc)."""
    return min(nc, fc) + min(nw, fw - min(nc, fc)), max(fc, fw - nc)


def test_issue_7_count_form_exact_above_2_53() -> None:
    # 2**60 + 1 positives; the system misses 1 of them forced to P and all forced to N; the
    # model gets 1 right. Worst FN = min(1 + BIG - 1, BIG) = BIG, so worst TP = 0 exactly; in
    # float64 BIG is 2**60 and the worst TP came out as -1 clipped to 0 or off by one.
    forced_p, forced_n = cc.Confusion(BIG - 1, 1, 0, 0), cc.Confusion(0, BIG, 0, 0)
    model = cc.Confusion(2, BIG - 2, 0, 0)
    b = cc.bound(forced_p, forced_n, model)
    worst, best = worst_best_monotone(1, BIG, 2, BIG - 2)
    assert (worst, best) == (BIG - 1, BIG - 2)
    assert int(b.worst.fn) == BIG - 1 and int(b.worst.tp) == 1
    assert int(b.best.fn) == BIG - 2 and int(b.best.tp) == 2
    assert b.worst.fn != float(BIG - 1) or BIG - 1 == float(BIG - 1)  # not a rounded float
    assert isinstance(b.worst.fn, int) and b.worst.positives == BIG
    assert repr(b.worst) == f"Confusion(tp=1, fn={BIG - 1}, fp=0, tn=0)"
    w = b.worst_witness.positives
    assert w.hits == 2 and w.mistakes == BIG - 2 and w.errors == BIG - 1
    # the views keep the exact counts too
    assert b.to_frame().loc["worst", "fn"] == BIG - 1
    assert b.worst_witness.to_frame()["system_errors"].xs("P").sum() == BIG - 1
    assert json.loads(json.dumps(b.to_dict()))["worst"]["fn"] == BIG - 1
    assert f"{BIG - 1} system errors" in b.worst_witness.describe()


@st.composite
def huge_class(draw: st.DrawFn) -> tuple[int, int, int, int]:
    n = draw(st.integers(2**53, 2**70))
    fc = draw(st.integers(0, n))
    fw = draw(st.integers(fc, n))
    return n, fc, fw, draw(st.integers(0, n))


@settings(max_examples=200, deadline=None)
@given(p=huge_class(), q=huge_class(), assumption=st.sampled_from(["monotone", "none"]))
def test_count_form_is_exact_for_any_size(p: tuple, q: tuple, assumption: str) -> None:
    (n_p, fcp, fwp, tp), (n_n, fcn, fwn, tn) = p, q
    forced_p = cc.Confusion(n_p - fcp, fcp, fwn, n_n - fwn)
    forced_n = cc.Confusion(n_p - fwp, fwp, fcn, n_n - fcn)
    model = cc.Confusion(tp, n_p - tp, n_n - tn, tn)
    b = cc.bound(forced_p, forced_n, model, assumption=assumption)
    for (n, fc, fw, nc), errs in ((p, (b.worst.fn, b.best.fn)), (q, (b.worst.fp, b.best.fp))):
        nw = n - nc
        if assumption == "monotone":
            ref = worst_best_monotone(fc, fw, nc, nw)
        else:
            ref = (min(fc, nc) + min(fw, nw), max(0, fc - nw) + max(0, fw - nc))
        assert tuple(int(e) for e in errs) == ref and all(e == r for e, r in zip(errs, ref))
    assert int(b.worst.tp) + int(b.worst.fn) == n_p and int(b.worst.fp) + int(b.worst.tn) == n_n
    assert b.worst_witness.system_confusion() == b.worst
    assert b.worst_cost == pytest.approx(float(b.worst.fn + b.worst.fp), rel=1e-12)


def test_confusion_keeps_huge_counts_exact() -> None:
    m = cc.Confusion(BIG, 1, 0, 3)
    assert m.tp == BIG and m.positives == BIG + 1 and m.total == BIG + 4
    assert cc.Confusion.parse(f"tp={BIG},fn=1,fp=0,tn=3") == m
    arr = m.to_array()
    assert arr.dtype == object and arr[0, 0] == BIG
    assert cc.Confusion.from_array(arr) == m
    assert cc.Confusion.from_array(np.array([[BIG, 1], [0, 3]], dtype=np.int64)) == m
    assert cc.Confusion.from_mapping(m.to_dict()) == m
    assert cc.Confusion.from_sklearn(m.to_sklearn()) == m
    assert json.loads(json.dumps(m.to_dict()))["tp"] == BIG
    # small counts stay floats, as before
    assert cc.Confusion(1, 2, 3, 4).to_dict() == {"tp": 1.0, "fn": 2.0, "fp": 3.0, "tn": 4.0}
    assert isinstance(cc.Confusion(1, 2, 3, 4).tp, float)


@pytest.mark.parametrize("models", [
    [[BIG, 0, 0, 0]],
    np.array([[BIG, 0, 0, 0]], dtype=np.int64),
    np.array([[BIG, 0, 0, 0]], dtype=object),
    [[2**53, 1, 0, 0]],  # each cell fits, the class size does not
    np.array([[2.0**54, 0, 0, 0]]),
])
def test_bound_many_refuses_class_sizes_above_2_53(models: object) -> None:
    n = int(np.asarray(models, dtype=object)[0, :2].sum())
    with pytest.raises(CountError, match=r"row 0: a class size above 2\*\*53 .* use bound\(\)"):
        cc.bound_many(cc.Confusion(n, 0, 0, 0), cc.Confusion(0, n, 0, 0), models)


def test_bound_many_at_2_53_is_exact() -> None:
    n = 2**53
    frame = cc.bound_many(cc.Confusion(n - 1, 1, 0, 0), cc.Confusion(0, n, 0, 0),
                          np.array([[3, n - 3, 0, 0]], dtype=np.int64))
    # worst = min(n, 1 + n - 3) = n - 2, best = max(1, n - 3) = n - 3 (exact in float64)
    assert frame.loc[0, "worst_fn"] == n - 2 and frame.loc[0, "worst_tp"] == 2
    assert frame.loc[0, "best_fn"] == n - 3 and frame.loc[0, "best_tp"] == 3
