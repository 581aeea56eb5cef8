"""The high-confidence worst case (causalcost.pricing.high_confidence).

Coverage is measured by simulation, with the two stages drawn independently from one
instance law: the real system cost on the stage-2 instances must stay at or under the bound
in at least ``confidence`` of the repetitions (less three binomial standard errors of the
estimate), at every (n1, n2) of a log grid from 10 to 10^4, on the slides' experiment system
(50 %/50 % models, correctness correlation +0.95 on positives and -0.95 on negatives, OR:
slides, "Experimentación") and on random monotone systems.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import causalcost as cc
from causalcost.experiments.law import InstanceLaw, two_model_law
from causalcost.experiments.simulate import draw_stages
from causalcost.pricing.bounds_many import bound_many_from_rates
from causalcost.pricing.high_confidence import (
    high_confidence_bound,
    high_confidence_worst_cost_many,
)

GRID = (10, 100, 1000, 10_000)
REPETITIONS = 1500
COSTS = cc.CostMatrix(fn=5, fp=1)


def costs_of(confusions: np.ndarray, costs: cc.CostMatrix) -> np.ndarray:
    return confusions @ np.array([costs.tp, costs.fn, costs.fp, costs.tn], dtype=float)


def plain_worst_costs(stage_one: np.ndarray, models: np.ndarray, costs: cc.CostMatrix,
                      ) -> np.ndarray:
    """The plain worst case: stage-1 rates applied to the candidate's stage-2 class sizes."""
    out = np.empty(len(models))
    for i, (s, m) in enumerate(zip(stage_one, models)):
        rates = cc.ErrorRates.from_forced(cc.Confusion(*s[:4]), cc.Confusion(*s[4:]))
        out[i] = cc.bound_from_rates(rates, cc.Confusion(*m), costs).worst_cost
    return out


def random_monotone_law(rng: np.random.Generator) -> InstanceLaw:
    def table() -> np.ndarray:
        t = np.zeros((2, 4))
        t[:, :3] = rng.dirichlet(np.full(6, 0.7)).reshape(2, 3)
        return t
    return InstanceLaw(prior=float(rng.uniform(0.1, 0.9)), positive=table(), negative=table())


def coverage(law: InstanceLaw, n1: int, n2: int, seed: int, confidence: float = 0.95,
             ) -> tuple[float, float]:
    draws = draw_stages(law, n1, n2, REPETITIONS, np.random.default_rng(seed))
    real = costs_of(draws.system, COSTS)
    high = high_confidence_worst_cost_many(draws.stage_one, draws.model, COSTS,
                                           confidence=confidence)
    return float(np.mean(real <= high + 1e-9)), float(np.mean(high))


def tolerance(confidence: float) -> float:
    return 3 * math.sqrt(confidence * (1 - confidence) / REPETITIONS)


@pytest.mark.parametrize("n1", GRID)
@pytest.mark.parametrize("n2", GRID)
def test_coverage_on_the_slides_experiment_system(n1: int, n2: int) -> None:
    law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    held, _ = coverage(law, n1, n2, seed=n1 * 7 + n2)
    assert held >= 0.95 - tolerance(0.95), (n1, n2, held)


@pytest.mark.parametrize("seed", range(6))
def test_coverage_on_random_monotone_systems(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    law = random_monotone_law(rng)
    for n1, n2 in ((10, 10), (30, 1000), (1000, 30), (300, 300), (10_000, 10_000)):
        held, _ = coverage(law, n1, n2, seed=seed * 31 + n1 + n2, confidence=0.9)
        assert held >= 0.9 - tolerance(0.9), (seed, n1, n2, held)


def test_the_plain_bound_fails_where_the_high_confidence_one_holds() -> None:
    """The slides' finding: at small sizes the plain worst case is often exceeded."""
    law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    draws = draw_stages(law, 30, 30, 400, np.random.default_rng(5))
    real = costs_of(draws.system, COSTS)
    plain = plain_worst_costs(draws.stage_one, draws.model, COSTS)
    high = high_confidence_worst_cost_many(draws.stage_one, draws.model, COSTS)
    assert np.mean(real <= plain + 1e-9) < 0.9 < np.mean(real <= high + 1e-9)
    assert np.all(high >= plain - 1e-9)  # never below the plain bound


def test_it_approaches_the_plain_bound_as_the_stages_grow() -> None:
    law = two_model_law(0.5, 0.5, correlation=(0.95, -0.95), fusioner="or")
    ratios = []
    for n in (100, 10_000, 1_000_000):
        draws = draw_stages(law, n, n, 50, np.random.default_rng(n))
        high = high_confidence_worst_cost_many(draws.stage_one, draws.model, COSTS)
        plain = plain_worst_costs(draws.stage_one, draws.model, COSTS)
        ratios.append(float(np.mean(high / plain)))
    assert ratios[0] > ratios[1] > ratios[2] >= 1.0
    assert ratios[2] < 1.01


def test_scalar_and_vectorised_forms_agree() -> None:
    law = two_model_law(0.7, 0.6, correlation=(0.3, -0.2), fusioner="and", prior=0.3)
    draws = draw_stages(law, 200, 150, 40, np.random.default_rng(3))
    many = high_confidence_worst_cost_many(draws.stage_one, draws.model, COSTS)
    for row, s in enumerate(draws.stage_one):
        one = high_confidence_bound(cc.Confusion(*s[:4]), cc.Confusion(*s[4:]),
                                    cc.Confusion(*draws.model[row]), COSTS)
        assert one.worst_cost == pytest.approx(many[row])
        assert one.form == "high-confidence" and one.confidence == 0.95


def test_the_result_keeps_the_point_estimate_and_says_what_it_is() -> None:
    forced_p = cc.Confusion(tp=50, fn=0, fp=50, tn=0)
    forced_n = cc.Confusion(tp=25, fn=25, fp=25, tn=25)
    model = cc.Confusion(tp=25, fn=25, fp=25, tn=25)
    plain = cc.bound_from_rates(cc.ErrorRates.from_forced(forced_p, forced_n), model)
    high = high_confidence_bound(forced_p, forced_n, model)
    assert high.expected_cost == plain.expected_cost and high.best_cost == plain.best_cost
    assert high.worst_cost >= plain.worst_cost
    assert high.to_dict()["confidence"] == 0.95 and high.to_dict()["method"] == "conditional"
    assert "95" in str(high)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"confidence": 1.5}, "strictly between 0 and 1"),
     ({"method": "wald"}, "must be one of"),
     ({"assumption": "maybe"}, "assumption")],
)
def test_bad_options_are_refused(kwargs: dict, message: str) -> None:
    c = cc.Confusion(5, 5, 5, 5)
    with pytest.raises(cc.CausalCostError, match=message):
        high_confidence_bound(c, c, c, **kwargs)


def test_fractional_candidates_are_refused() -> None:
    c = cc.Confusion(5, 5, 5, 5)
    with pytest.raises(cc.CausalCostError, match="integer count"):
        high_confidence_bound(c, c, cc.Confusion(5.5, 4.5, 5, 5))


def test_bound_many_gives_the_plain_rows_used_here() -> None:
    """Guard the helper: plain_worst_costs equals the vectorised probability form."""
    rates = cc.ErrorRates(0.1, 0.6, 0.3, 0.2)
    models = np.array([[10, 5, 3, 12], [4, 4, 4, 4]])
    frame = bound_many_from_rates(rates, models, COSTS)
    for row, m in enumerate(models):
        assert frame["worst_cost"].iloc[row] == pytest.approx(
            cc.bound_from_rates(rates, cc.Confusion(*m), COSTS).worst_cost)
