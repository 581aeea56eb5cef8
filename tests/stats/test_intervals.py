"""Confidence intervals for an error rate (causalcost.stats.intervals).

Expected values come from statsmodels and scipy directly, from the lecture notes' formula and
table (seeds 001 and 004), and from coverage computed by enumeration of the binomial law.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from causalcost.errors import CausalCostError, InputTypeError, ValidationError
from causalcost.stats.intervals import (
    INTERVAL_METHODS,
    Z_TABLE,
    normal_quantile,
    proportion_interval,
)

STATSMODELS_METHODS = ("normal", "wilson", "beta", "jeffreys", "agresti_coull")
#: Methods whose interval always contains the estimate count / n (at confidence >= 0.5).
CONTAINING = ("wilson", "beta", "jeffreys", "agresti_coull", "normal")
CASES = [(1, 10), (3, 10), (12, 40), (7, 31), (150, 1000), (999, 1000), (5, 7)]


# ------------------------------------------------------------------ the notes' z_N table
def test_z_table_is_the_notes_table() -> None:
    # lecture notes 001, "Intervalli di confidenza [2]" and "Distribuzione Normale"; the
    # same row in notes 004, "Valores de z_N": 50 68 80 90 95 98 99 -> 0.67 ... 2.58
    assert dict(Z_TABLE) == {0.50: 0.67, 0.68: 1.00, 0.80: 1.28, 0.90: 1.64, 0.95: 1.96,
                             0.98: 2.33, 0.99: 2.58}
    with pytest.raises(TypeError):
        Z_TABLE[0.5] = 1.0  # type: ignore[index]


@pytest.mark.parametrize(("confidence", "z"), sorted(Z_TABLE.items()))
def test_z_table_agrees_with_the_normal_law_to_two_decimals(confidence: float, z: float) -> None:
    # Each entry is P(|Z| <= z_N) = N% to the table's two decimals. 68 % is the one-sigma
    # rule: P(|Z| <= 1.00) = 0.6827, while norm.ppf gives 0.9945 for exactly 68 %.
    assert round(stats.norm.cdf(z) - stats.norm.cdf(-z), 2) == confidence
    assert abs(normal_quantile(confidence) - z) < 0.006
    assert normal_quantile(confidence, "notes") == z


def test_notes_quantile_accepts_a_computed_confidence() -> None:
    assert normal_quantile(1 - 0.05, "notes") == 1.96
    assert normal_quantile(0.1 * 9.5, "notes") == 1.96  # 0.9500000000000001


# ------------------------------------------------------------------ against the sources
@pytest.mark.parametrize("confidence", sorted(Z_TABLE))
@pytest.mark.parametrize(("count", "n"), CASES)
def test_notes_method_is_the_notes_formula(count: int, n: int, confidence: float) -> None:
    # lecture notes 001: error_S(h) +- z_N sqrt(error_S(h) (1 - error_S(h)) / n)
    p = count / n
    half = Z_TABLE[confidence] * math.sqrt(p * (1 - p) / n)
    low, high = proportion_interval(count, n, confidence, method="notes")
    assert low == pytest.approx(max(0.0, p - half), rel=1e-12, abs=1e-15)
    assert high == pytest.approx(min(1.0, p + half), rel=1e-12, abs=1e-15)


def test_notes_example_twelve_errors_in_forty() -> None:
    # lecture notes 001, "Esempio": h misclassifies 12 of 40, error_S(h) = .30; at 95 %
    # the notes' interval is .30 +- 1.96 sqrt(.3 * .7 / 40) = .30 +- .142.
    low, high = proportion_interval(12, 40, 0.95, method="notes")
    assert (round(low, 3), round(high, 3)) == (0.158, 0.442)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
@pytest.mark.parametrize("method", STATSMODELS_METHODS)
@pytest.mark.parametrize(("count", "n"), CASES)
def test_matches_statsmodels(count: int, n: int, confidence: float, method: str) -> None:
    expected = proportion_confint(count, n, alpha=1 - confidence, method=method)
    got = proportion_interval(count, n, confidence, method=method)
    np.testing.assert_allclose(got, np.clip(expected, 0, 1), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(("count", "n"), [*CASES, (0, 10), (10, 10), (0, 1), (1, 1)])
def test_wilson_and_clopper_pearson_match_scipy_binomtest(count: int, n: int) -> None:
    # An implementation independent of statsmodels: scipy.stats.binomtest(...).proportion_ci
    result = stats.binomtest(count, n)
    for method, scipy_method in (("wilson", "wilson"), ("beta", "exact")):
        ci = result.proportion_ci(confidence_level=0.95, method=scipy_method)
        got = proportion_interval(count, n, 0.95, method=method)
        np.testing.assert_allclose(got, (ci.low, ci.high), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("alias", ["clopper_pearson", "clopper-pearson"])
def test_clopper_pearson_aliases(alias: str) -> None:
    for count, n in CASES:
        assert proportion_interval(count, n, method=alias) == proportion_interval(
            count, n, method="beta")


def test_jeffreys_ends_are_exact_at_zero_and_n() -> None:
    # statsmodels puts Jeffreys' lower end above 0 at count = 0 (it would exclude the
    # estimate 0); Brown, Cai & DasGupta (2001) set it to 0, and the upper end to 1 at n.
    assert proportion_confint(0, 10, method="jeffreys")[0] > 0
    low, high = proportion_interval(0, 10, method="jeffreys")
    assert low == 0.0
    assert high == pytest.approx(stats.beta.ppf(0.975, 0.5, 10.5), rel=1e-12)
    low, high = proportion_interval(10, 10, method="jeffreys")
    assert high == 1.0
    assert low == pytest.approx(stats.beta.ppf(0.025, 10.5, 0.5), rel=1e-12)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
@pytest.mark.parametrize("n", [1, 2, 30, 500])
def test_ends_at_count_zero_and_n(method: str, n: int) -> None:
    assert proportion_interval(0, n, method=method)[0] == 0.0
    assert proportion_interval(n, n, method=method)[1] == 1.0


# ------------------------------------------------------------------ types and vectorising
def test_scalars_give_python_floats_and_accept_numpy_and_integral_floats() -> None:
    reference = proportion_interval(3, 10)
    assert all(type(v) is float for v in reference)
    assert proportion_interval(np.int64(3), np.uint16(10)) == reference
    assert proportion_interval(3.0, 10.0) == reference
    assert proportion_interval(np.float32(3), 10) == reference


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_arrays_match_the_scalar_calls(method: str) -> None:
    counts = np.array([[0, 1, 5], [10, 17, 40]])
    ns = np.array([[10, 10, 10], [40, 40, 40]])
    low, high = proportion_interval(counts, ns, 0.9, method=method)
    assert low.shape == high.shape == counts.shape
    for idx in np.ndindex(counts.shape):
        expected = proportion_interval(int(counts[idx]), int(ns[idx]), 0.9, method=method)
        assert (low[idx], high[idx]) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # a scalar n broadcasts against an array of counts
    low2, high2 = proportion_interval([0, 1, 5], 10, 0.9, method=method)
    np.testing.assert_array_equal(low2, low[0])
    np.testing.assert_array_equal(high2, high[0])


# ------------------------------------------------------------------ properties
@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 2000), data=st.data(), confidence=st.floats(0.5, 0.999),
       method=st.sampled_from(CONTAINING))
def test_interval_contains_the_estimate_inside_unit_interval(
    n: int, data: st.DataObject, confidence: float, method: str
) -> None:
    count = data.draw(st.integers(0, n))
    low, high = proportion_interval(count, n, confidence, method=method)
    assert 0.0 <= low <= count / n <= high <= 1.0


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 500), data=st.data(), factor=st.integers(2, 6),
       method=st.sampled_from(("wilson", "beta", "jeffreys", "agresti_coull")))
def test_interval_narrows_as_n_grows_at_fixed_estimate(
    n: int, data: st.DataObject, factor: int, method: str
) -> None:
    count = data.draw(st.integers(0, n))
    low, high = proportion_interval(count, n, method=method)
    low_big, high_big = proportion_interval(count * factor, n * factor, method=method)
    assert high_big - low_big < high - low


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 1000), data=st.data(), levels=st.lists(
    st.floats(0.5, 0.999), min_size=2, max_size=2, unique=True),
    method=st.sampled_from(STATSMODELS_METHODS))
def test_higher_confidence_gives_a_nested_wider_interval(
    n: int, data: st.DataObject, levels: list[float], method: str
) -> None:
    count = data.draw(st.integers(0, n))
    lower, higher = sorted(levels)
    low_a, high_a = proportion_interval(count, n, lower, method=method)
    low_b, high_b = proportion_interval(count, n, higher, method=method)
    assert low_b <= low_a + 1e-12 and high_a <= high_b + 1e-12


def test_wilson_coverage_by_simulation_at_n50_p03() -> None:
    n, p, confidence, draws = 50, 0.3, 0.95, 20_000
    # Exact coverage by enumerating the 51 counts: the binomial is discrete, so Wilson's
    # coverage at this (n, p) is 0.9567, not 0.95.
    k = np.arange(n + 1)
    low_k, high_k = proportion_interval(k, n, confidence)
    exact = float(stats.binom.pmf(k, n, p)[(low_k <= p) & (p <= high_k)].sum())
    assert exact == pytest.approx(0.9567, abs=5e-5)
    # Simulated coverage: a binomial proportion over `draws` with sd sqrt(c(1-c)/draws),
    # about 0.0014; 4 sd bounds a false failure by 1e-4.
    counts = np.random.default_rng(20240601).binomial(n, p, size=draws)
    low, high = proportion_interval(counts, n, confidence)
    simulated = float(np.mean((low <= p) & (p <= high)))
    sd = math.sqrt(exact * (1 - exact) / draws)
    assert abs(simulated - exact) < 4 * sd
    # ... and so within discreteness (|exact - 0.95| < 0.007) + Monte Carlo error of 0.95
    assert abs(simulated - confidence) < 0.007 + 4 * sd


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((5, 3), {}, ValidationError, r"count must not exceed n; got count=5, n=3"),
        ((-1, 3), {}, ValidationError, r"count must lie between 0 and 2\*\*53, got -1"),
        ((0, 0), {}, ValidationError, r"n must be at least 1, got n=0"),
        ((1.5, 3), {}, ValidationError, r"count must hold whole numbers, got 1.5"),
        ((1, float("nan")), {}, ValidationError, r"n must hold whole numbers"),
        (("1", 3), {}, InputTypeError, r"count must be a non-negative integer, got str '1'"),
        ((True, 3), {}, InputTypeError, r"count must be a non-negative integer .*bool True"),
        ((1, [[3], [3, 4]]), {}, ValidationError, r"n must be an integer or a rectangular"),
        ((1, 3), {"confidence": 1.0}, ValidationError,
         r"confidence \(1.0\) must lie strictly between 0 and 1"),
        ((1, 3), {"confidence": 95}, ValidationError, r"confidence \(95\) must lie strictly"),
        ((1, 3), {"confidence": float("nan")}, ValidationError, r"strictly between 0 and 1"),
        ((1, 3), {"confidence": "95%"}, InputTypeError, r"confidence must be a number"),
        ((1, 3), {"method": "wald"}, ValidationError,
         r"method \('wald'\) must be one of 'wilson', 'normal', 'beta', 'clopper_pearson'"),
        ((1, 3), {"method": None}, ValidationError, r"method \(None\) must be one of"),
        ((1, 3), {"method": "notes", "confidence": 0.97}, ValidationError,
         r"confidence \(0.97\) is not in the notes' z_N table; .* for 0.5, 0.68, 0.8, 0.9, "
         r"0.95, 0.98, 0.99"),
    ],
)
def test_bad_input_is_refused_with_the_value_named(
    args: tuple, kwargs: dict, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        proportion_interval(*args, **kwargs)
    with pytest.raises(CausalCostError):
        proportion_interval(*args, **kwargs)


def test_value_errors_are_value_errors_and_type_errors_type_errors() -> None:
    with pytest.raises(ValueError):
        proportion_interval(5, 3)
    with pytest.raises(TypeError):
        proportion_interval("5", 3)


def test_unknown_quantile_source() -> None:
    with pytest.raises(ValidationError, match=r"source \('table'\) must be one of 'exact'"):
        normal_quantile(0.95, "table")
