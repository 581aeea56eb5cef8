"""Costs as ranges over label noise (evaluation.label_noise), against brute force.

The reference prices a dense grid and many random points of the polygon of true confusions
(:func:`~causalcost.stats.noisy_labels.confusion_range`) with the public :func:`causalcost.compare`
(vectorised) and its corners with :func:`causalcost.evaluate`, on sheets without forced runs
(probability form): no point may fall outside the computed range, and the grid's extremes must
come within a grid step of its ends. The ends themselves are attained: they are costs of
confusions in the polygon.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import ValidationError
from causalcost.evaluation.label_noise import label_noise_range
from causalcost.stats.noisy_labels import LabelNoiseError, confusion_range, correct_confusion

COSTS = cc.CostMatrix(tp=0.25, fn=5, fp=1.5, tn=0.125)


def rates_sheet(rates: cc.ErrorRates, assumption: str) -> cc.CostSheet:
    return cc.derive_sheet(rates, COSTS, slot="s", prior=1 / 3, assumption=assumption,
                           monotonicity="declared" if assumption == "monotone" else None,
                           provenance={"source": "test"})


def polygon_points(r, rng: np.random.Generator, k: int = 40) -> list[tuple[float, float]]:
    """A grid over the polygon's bounding box and random points, kept when inside."""
    o, e = r.observed, r.max_wrong
    lo1, hi1 = max(-float(o.tp), -e), min(float(o.fp), e)
    lo2, hi2 = max(-float(o.fn), -e), min(float(o.tn), e)
    grid = [(x, y) for x in np.linspace(lo1, hi1, k) for y in np.linspace(lo2, hi2, k)]
    grid += list(zip(rng.uniform(lo1, hi1, 2000), rng.uniform(lo2, hi2, 2000)))
    return [(x, y) for x, y in grid if abs(x) + abs(y) <= e]


def costs(sheet: cc.CostSheet, m: cc.Confusion) -> np.ndarray:
    rep = cc.evaluate(sheet, m)
    return np.array([rep.eval1, rep.worst_cost, rep.best_cost])


def check_against_brute_force(sheet: cc.CostSheet, observed: cc.Confusion, alpha: float,
                              seed: int = 0, k: int = 40) -> None:
    result = label_noise_range(sheet, observed, alpha)
    lo, hi = result.frame["low"].to_numpy(), result.frame["high"].to_numpy()
    r = result.confusions
    points = polygon_points(r, np.random.default_rng(seed), k)
    frame = pd.DataFrame([r.at(*p).to_dict() for p in points])
    priced = cc.compare(sheet, frame.set_axis([f"p{i}" for i in range(len(frame))]))
    values = np.vstack([priced[["eval1", "worst_cost", "best_cost"]].to_numpy(),
                        [costs(sheet, c) for c in r.confusions]])
    scale = 1e-9 * max(1.0, float(np.abs(values).max()))
    assert (values >= lo - scale).all() and (values <= hi + scale).all()
    # a grid step moves a cell, a class size and a forced-failure count by at most the step
    # in d1 plus the one in d2, and each costs at most max|cost| per instance
    o, e = observed, r.max_wrong
    steps = (min(float(o.fp), e) + min(float(o.tp), e) + min(float(o.tn), e)
             + min(float(o.fn), e)) / (k - 1)
    slack = 4 * max(abs(v) for v in COSTS.cells()) * steps + scale
    assert (values.min(axis=0) <= lo + slack).all()
    assert (values.max(axis=0) >= hi - slack).all()
    observed_costs = costs(sheet, observed)
    np.testing.assert_allclose(result.frame["observed"], observed_costs, rtol=1e-12)


THESIS = cc.ErrorRates(0.2, 1.0, 0.2, 0.0)
MIXED = cc.ErrorRates(0.4, 0.6, 0.5, 0.3)
CASES = [  # (assumption, rates, observed); the last two have an extreme where kinks cross
    ("monotone", THESIS, cc.Confusion(50, 50, 100, 100)),
    ("monotone", THESIS, cc.Confusion(3, 40, 2, 80)),
    ("monotone", THESIS, cc.Confusion(90, 2, 5, 3)),
    ("monotone", cc.ErrorRates(0.2, 0.6, 0.5, 0.1), cc.Confusion(60, 40, 80, 120)),
    ("none", cc.ErrorRates(0.3, 0.6, 0.5, 0.1), cc.Confusion(50, 50, 100, 100)),
    ("none", MIXED, cc.Confusion(40, 60, 100, 100)),
    ("none", MIXED, cc.Confusion(60, 40, 60, 140)),
]


@pytest.mark.parametrize(("assumption", "rates", "observed"), CASES)
def test_ranges_hold_every_polygon_point_and_reach_its_extremes(assumption, rates,
                                                                observed) -> None:
    check_against_brute_force(rates_sheet(rates, assumption), observed, 0.9, k=150)


def test_the_kinks_matter() -> None:
    """Guard for the test above: pricing the polygon's corners alone misses the best case of
    the last case, whose lowest point is where two kink lines cross inside the polygon."""
    sheet, observed = rates_sheet(MIXED, "none"), cc.Confusion(60, 40, 60, 140)
    result = label_noise_range(sheet, observed, 0.9)
    corners = [costs(sheet, c)[2] for c in result.confusions.confusions]
    assert result.range_of("best_cost")[0] < min(corners) - 50


@settings(max_examples=25, deadline=None)
@given(st.tuples(*[st.integers(0, 30)] * 4).filter(lambda c: sum(c) > 4),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
       st.floats(0.6, 1.0), st.booleans())
def test_ranges_on_random_sheets(cells, a, b, c, d, alpha, monotone) -> None:
    if monotone:  # e_P(P) <= e_P(N) and e_N(N) <= e_N(P)
        rates = cc.ErrorRates(min(a, b), max(a, b), max(c, d), min(c, d))
    else:
        rates = cc.ErrorRates(a, b, c, d)
    sheet = rates_sheet(rates, "monotone" if monotone else "none")
    check_against_brute_force(sheet, cc.Confusion(*cells), alpha, k=25)


def test_exact_ends_are_costs_of_polygon_corners_or_kinks() -> None:
    """The ends are attained: each equals the cost of some confusion in the range."""
    sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    observed = cc.Confusion(tp=50, fn=50, fp=100, tn=100)
    result = label_noise_range(sheet, observed, 0.96)
    # costs summed from rates in different orders: equal up to rounding (rel 1e-12)
    ends = result.range_of("eval1")
    assert ends == pytest.approx((260.0, 380.0), rel=1e-12)  # 12 labels moved: fn <-> tn
    low = cc.evaluate(sheet, result.confusions.at(0, -12))
    assert low.eval1 == pytest.approx(ends[0], rel=1e-12) == 260.0
    r = result.confusions
    assert r.low.fn == 62 and r.high.fn == 38  # more instances truly positive, fewer
    assert "worst case between 320.4 and 459.6" in str(result)


def test_estimate_follows_the_given_label_errors() -> None:
    sheet = rates_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), "monotone")
    observed = cc.Confusion(80, 20, 30, 170)
    result = label_noise_range(sheet, observed, 0.95, label_errors=(0.05, 0.02))
    fixed = correct_confusion(observed, (0.05, 0.02))
    assert result.estimate == fixed
    np.testing.assert_allclose(result.frame["estimate"], costs(sheet, fixed))
    assert (result.frame["low"] <= result.frame["estimate"]).all()
    assert (result.frame["estimate"] <= result.frame["high"]).all()
    assert result.to_dict()["worst_cost"]["estimate"] == pytest.approx(
        cc.evaluate(sheet, fixed).worst_cost)
    symmetric = label_noise_range(sheet, observed, 0.95)
    assert symmetric.estimate == confusion_range(observed, 0.95).estimate


def test_no_estimate_when_independence_is_impossible() -> None:
    sheet = rates_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), "monotone")
    result = label_noise_range(sheet, cc.Confusion(50, 10, 0, 40), 0.9)
    assert result.estimate is None
    assert result.frame["estimate"].isna().all()
    assert result.to_dict()["eval1"]["estimate"] is None
    assert "no independent-errors estimate" in str(result)


def test_refusals() -> None:
    sheet = rates_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), "monotone")
    m = cc.Confusion(50, 10, 20, 40)
    with pytest.raises(ValidationError, match="label_accuracy"):
        label_noise_range(sheet, m)
    with pytest.raises(LabelNoiseError, match="coin"):
        label_noise_range(sheet, m, 0.5)
    with pytest.raises(LabelNoiseError, match="< 0"):
        label_noise_range(sheet, cc.Confusion(50, 10, 0, 40), label_errors=(0.1, 0.1))
    with pytest.raises(ValidationError, match="cost must be one of"):
        label_noise_range(sheet, m, 0.9).range_of("eval2")
