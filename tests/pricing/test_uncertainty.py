"""Intervals on a candidate's system costs (causalcost.pricing.uncertainty).

The point values are checked against the thesis's worked example and against
``evaluate_costs`` / ``bound_from_rates``; the intervals' coverage is measured by simulation:
stage-1 counts and the candidate's confusion are drawn from known rates and accuracies, and
the population value of each cost (true rates, true accuracies, the candidate's class sizes)
must fall inside the 90 % interval in about 90 % of the draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import causalcost as cc
from causalcost.pricing.uncertainty import COST_NAMES, _costs, cost_intervals

COSTS = cc.CostMatrix(fn=5, fp=1)


def test_point_values_are_the_thesis_numbers() -> None:
    # thesis §4, example 1: Eval1 320, Eval2 220, perfect slot 100, worst 390, best 250
    ci = cost_intervals((cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200)),
                        cc.Confusion(50, 50, 100, 100), COSTS)
    assert ci.frame["estimate"].tolist() == [320, 220, 100, 320, 390, 250]
    assert (ci.frame.ci_low <= ci.frame.estimate).all()
    assert (ci.frame.estimate <= ci.frame.ci_high).all()


@pytest.mark.parametrize("seed", range(5))
def test_point_values_agree_with_the_scalar_functions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    fcp, fwp = sorted(rng.random(2))
    fcn, fwn = sorted(rng.random(2))
    rates = cc.ErrorRates(fcp, fwp, fwn, fcn)
    model = cc.Confusion(*rng.integers(1, 50, 4))
    ci = cost_intervals(rates, model, COSTS).frame.estimate
    ev, b = cc.evaluate_costs(rates, COSTS, model), cc.bound_from_rates(rates, model, COSTS)
    reference = [ev.eval1, ev.eval2, ev.perfect_slot_cost, b.expected_cost, b.worst_cost,
                 b.best_cost]
    assert ci.tolist() == pytest.approx(reference)


def test_exact_rates_and_a_fixed_model_leave_no_uncertainty() -> None:
    ci = cost_intervals(cc.ErrorRates(0.2, 1, 0.2, 0), cc.Confusion(50, 50, 100, 100), COSTS,
                        model_is_sample=False)
    assert (ci.frame.ci_low == ci.frame.ci_high).all()


@pytest.mark.parametrize(
    ("rates", "accuracy", "n1", "n2"),
    [((0.1, 0.6, 0.5, 0.2), (0.7, 0.8), 200, 150),
     ((0.0, 0.5, 1.0, 0.5), (0.5, 0.5), 400, 400),     # the slides' system, OR
     ((0.2, 0.3, 0.4, 0.1), (0.9, 0.6), 1000, 300)],
)
@pytest.mark.parametrize("method", ["box", "bootstrap"])
def test_coverage_by_simulation(rates: tuple, accuracy: tuple, n1: int, n2: int,
                                method: str) -> None:
    """The box is exact (at least 90 % for every cost); the bootstrap is checked on the smooth
    costs only (Eval1, Eval2, perfect slot, expected): it runs short at the bounds' kinks."""
    rng = np.random.default_rng(42)
    sizes = np.array([n2 // 2, n2 - n2 // 2], dtype=float)
    truth = _costs(np.array([rates]), np.array([accuracy]) * sizes, sizes, COSTS, "monotone")[0]
    runs, inside = 300, np.zeros(len(COST_NAMES))
    for i in range(runs):
        k = rng.binomial(n1 // 2, rates)  # failures per forced run, half the instances each class
        half = n1 // 2
        forced_p = cc.Confusion(half - k[0], k[0], k[2], half - k[2])
        forced_n = cc.Confusion(half - k[1], k[1], k[3], half - k[3])
        hits = rng.binomial(sizes.astype(int), accuracy)
        model = cc.Confusion(hits[0], sizes[0] - hits[0], sizes[1] - hits[1], hits[1])
        f = cost_intervals((forced_p, forced_n), model, COSTS, confidence=0.9, replicates=400,
                           seed=i, method=method).frame
        inside += (f.ci_low.to_numpy() - 1e-9 <= truth) & (truth <= f.ci_high.to_numpy() + 1e-9)
    coverage = inside / runs
    checked = coverage if method == "box" else coverage[:4]
    tolerance = 3 * math.sqrt(0.9 * 0.1 / runs) + (0.03 if method == "bootstrap" else 0)
    assert (checked >= 0.9 - tolerance).all(), dict(zip(COST_NAMES, coverage))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"confidence": 0}, "confidence"), ({"replicates": 0}, "replicates"),
     ({"seed": -1}, "seed"), ({"assumption": "x"}, "assumption")],
)
def test_bad_options(kwargs: dict, message: str) -> None:
    with pytest.raises(cc.CausalCostError, match=message):
        cost_intervals(cc.ErrorRates(0.2, 1, 0.2, 0), cc.Confusion(5, 5, 5, 5), **kwargs)


def test_fractional_candidates_need_model_is_sample_false() -> None:
    with pytest.raises(cc.CausalCostError, match="model_is_sample"):
        cost_intervals(cc.ErrorRates(0.2, 1, 0.2, 0), cc.Confusion(5.5, 4.5, 5, 5))
