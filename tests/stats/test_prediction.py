"""Upper prediction limits for binomial counts (causalcost.stats.prediction).

Coverage is computed exactly, by summing the two binomial laws over every (stage-1,
stage-2) outcome, not estimated by simulation: the guarantee is for every failure
probability, so the tests sweep a grid of them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from causalcost.errors import CausalCostError
from causalcost.stats.prediction import PREDICTION_METHODS, binomial_prediction_limit


def exact_coverage(n: int, m: int, p: float, confidence: float, method: str) -> float:
    """P(F <= U(K)) with K ~ Bin(n, p), F ~ Bin(m, p) independent, by enumeration."""
    k = np.arange(n + 1)
    limits = binomial_prediction_limit(k, np.full_like(k, n), np.full_like(k, m), confidence,
                                       method)
    return float(np.sum(stats.binom.pmf(k, n, p) * stats.binom.cdf(limits, m, p)))


@pytest.mark.parametrize("method", PREDICTION_METHODS)
@pytest.mark.parametrize(("n", "m"), [(10, 10), (10, 200), (50, 20), (200, 200), (1000, 30)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_coverage_holds_for_every_failure_probability(
    method: str, n: int, m: int, confidence: float
) -> None:
    for p in np.linspace(0.0, 1.0, 41):
        assert exact_coverage(n, m, p, confidence, method) >= confidence - 1e-12, p


def test_the_conditional_limit_is_the_tighter_one() -> None:
    k = np.arange(0, 101, 5)
    conditional = binomial_prediction_limit(k, 100, 100)
    split = binomial_prediction_limit(k, 100, 100, method="clopper-pearson")
    assert np.all(conditional <= split) and np.any(conditional < split)


def test_the_conditional_limit_is_the_largest_plausible_count() -> None:
    """Thatcher's definition, checked one count at a time against scipy's hypergeometric."""
    k, n, m, alpha = 7, 40, 60, 0.05
    u = binomial_prediction_limit(k, n, m, 1 - alpha)
    assert stats.hypergeom.cdf(k, n + m, k + u, n) > alpha
    assert u == m or stats.hypergeom.cdf(k, n + m, k + u + 1, n) <= alpha


def test_no_stage_one_information_gives_every_instance() -> None:
    assert binomial_prediction_limit(0, 0, 25) == 25


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 500), m=st.integers(0, 500), data=st.data(),
    confidence=st.floats(0.5, 0.999), method=st.sampled_from(PREDICTION_METHODS),
)
def test_limits_lie_between_the_plug_in_estimate_and_m(
    n: int, m: int, data: st.DataObject, confidence: float, method: str
) -> None:
    k = data.draw(st.integers(0, n))
    u = binomial_prediction_limit(k, n, m, confidence, method)
    assert np.ceil(m * k / n - 1e-9) <= u <= m
    if k < n:  # more failures seen, a limit at least as high
        assert binomial_prediction_limit(k + 1, n, m, confidence, method) >= u


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"count": 5, "n": 3, "m": 1}, "must not exceed n"),
        ({"count": -1, "n": 3, "m": 1}, "count must lie between"),
        ({"count": 1.5, "n": 3, "m": 1}, "whole number"),
        ({"count": "1", "n": 3, "m": 1}, "non-negative integer"),
        ({"count": 1, "n": 3, "m": 1, "confidence": 1.0}, "strictly between 0 and 1"),
        ({"count": 1, "n": 3, "m": 1, "method": "wald"}, "must be one of 'conditional'"),
    ],
)
def test_bad_input_is_refused_with_the_field_named(kwargs: dict, message: str) -> None:
    with pytest.raises(CausalCostError, match=message):
        binomial_prediction_limit(**kwargs)
