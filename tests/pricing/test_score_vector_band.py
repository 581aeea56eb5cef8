"""The K-label probability form's high-confidence worst and best case (score_vector_band).

Where each expectation comes from:

* **the certificate** (the one deterministic claim of the construction): ``u(r) + v(p)`` is
  at least (at most, for the best case) the cost of the system's decision for every offset and
  vector, checked pair by pair against :func:`~causalcost.pricing.score_vectors.decide` on
  fresh points, points far outside the fitting data, exact ties on a grid and near-ties a few
  ulps from a K-way tie;
* **coverage by simulation**: fixed discrete populations (atoms with integer weights), whose
  worst and best case over couplings are computed exactly by ``probability_bounds`` on the
  atoms repeated by their weights; samples are drawn with replacement and the bounds must hold,
  both sides together, in at least ``confidence`` of the repetitions less three binomial
  standard errors ``3 sqrt(c (1 - c) / N)`` of the estimate. The same simulation run on the
  sample's own worst and best case (no confidence) must fall below that line: the simulation
  can see a bound that does not cover;
* the ordering ``high-confidence worst >= worst >= expected >= best >= high-confidence best``
  of :func:`price_vectors` on random data (hypothesis), its totals recomputed class by class,
  and monotonicity in the confidence.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcost.errors import InputTypeError, ValidationError
from causalcost.pricing import score_vector_band as band
from causalcost.pricing.score_vector_band import high_confidence_bounds
from causalcost.pricing.score_vector_price import price_vectors
from causalcost.pricing.score_vectors import (
    _slot_matrix,
    _slot_part,
    decide,
    probability_bounds,
)

FEW = settings(max_examples=12, deadline=None)
SOME = settings(max_examples=60, deadline=None)


def three_se(c: float, n: int) -> float:
    return 3.0 * math.sqrt(c * (1.0 - c) / n)


# ------------------------------------------------------------------------ strategies
def _matrix(draw, k: int):
    kind = draw(st.sampled_from(["scalar", "diagonal", "general"]))
    if kind == "scalar":
        return draw(st.sampled_from([1.0, 0.5, 1 / 3, 2.0]))
    if kind == "diagonal":
        return np.diag(draw(st.lists(st.sampled_from([0.5, 1.0, 1 / 3, 3.0]), min_size=k,
                                     max_size=k)))
    values = st.floats(-2, 2, allow_nan=False).map(lambda x: round(x, 2))
    return np.array(draw(st.lists(values, min_size=k * k, max_size=k * k))).reshape(k, k)


def _points(kind: str, k: int, n: int, A, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, probability vectors): continuous, on a grid of thirds (exact ties), or
    near-ties (offsets a few ulps from a K-way tie with some vector)."""
    if kind == "continuous":
        return rng.random((n, k)) * 2 - 0.5, rng.dirichlet(np.ones(k), n)
    thirds = rng.multinomial(3, np.full(k, 1.0 / k), n) / 3
    if kind == "grid":
        return rng.integers(0, 4, (n, k)) / 3, thirds
    vectors = thirds
    q = _slot_part(_slot_matrix(A, k), vectors)
    level = rng.choice([0.0, 0.3, 7.0, 1e3])
    offsets = level - q[rng.integers(0, n, n)]
    for _ in range(3):
        step = rng.integers(-1, 2, offsets.shape)
        offsets = np.where(step > 0, np.nextafter(offsets, np.inf), offsets)
        offsets = np.where(step < 0, np.nextafter(offsets, -np.inf), offsets)
    return offsets, vectors


@st.composite
def fitted(draw):
    """A certificate fitted on one sample and fresh offsets and vectors to check it on."""
    k = draw(st.sampled_from([2, 3, 4]))
    A = _matrix(draw, k)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    kind = draw(st.sampled_from(["continuous", "grid", "near ties"]))
    fit_r, fit_v = _points(kind, k, draw(st.integers(1, 30)), A, rng)
    new_r, new_v = _points(kind, k, 25, A, rng)
    far = draw(st.sampled_from([1.0, 10.0]))  # fresh offsets far outside the fitting range
    new_r = np.concatenate([new_r, far * new_r, fit_r])
    new_v = np.concatenate([new_v, fit_v])
    row = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 5.0]), min_size=k,
                                 max_size=k)))
    bins = draw(st.sampled_from([2, 3, 8]))
    return A, k, fit_r, fit_v, new_r, new_v, row, bins


# ------------------------------------------------------------------ the certificate
@SOME
@given(fitted(), st.booleans())
def test_the_certificate_bounds_every_pair(case, maximize):
    A, k, fit_r, fit_v, new_r, new_v, row, bins = case
    a = _slot_matrix(A, k)
    q_fit, q_new = _slot_part(a, fit_v), _slot_part(a, new_v)
    scale = max(np.abs(q_new).max(), np.abs(q_fit).max()) + \
        max(np.abs(new_r).max(), np.abs(fit_r).max())
    widen = band._WIDEN * scale + np.finfo(float).tiny
    y_fit, x_fit = fit_r[:, :1] - fit_r[:, 1:], q_fit[:, 1:] - q_fit[:, :1]
    grid = band._Grid.of(y_fit, x_fit, bins)
    mass = np.bincount(grid.cell(x_fit), minlength=grid.boxes + 1)[:-1].astype(float)
    which = 0 if maximize else 1
    prices = band._prices(y_fit, grid.lo, grid.hi, row, widen)[which]
    cert = band._Certificate.fit(prices, np.ones(len(y_fit)), mass, row, maximize)
    u = cert.u(band._prices(new_r[:, :1] - new_r[:, 1:], grid.lo, grid.hi, row, widen)[which])
    sums = u[:, None] + cert.v[grid.cell(q_new[:, 1:] - q_new[:, :1])][None, :]
    cost = row[decide(a, new_r, new_v)]
    slack = 1e-12 * (1 + np.abs(sums))  # two float subtractions and one addition
    if maximize:
        assert (sums >= cost - slack).all()
    else:
        assert (sums <= cost + slack).all()
    # the values stay within a window of the costs' span (Hoeffding's widths)
    assert np.ptp(cert.v) <= np.ptp(row) + 1e-12


# --------------------------------------------------------------------- coverage
def population(atoms: list[list[float]], weights: list[int]) -> np.ndarray:
    """The atoms repeated by their integer weights: the population as uniform rows."""
    return np.repeat(np.array(atoms, dtype=float), weights, axis=0)


#: K = 3, soft vote: six offsets (the second wrong whatever the slot says, the first and the
#: fourth right whatever it says) and five vectors, with unequal weights.
R3 = population([[0.9, 0.0, 0.0], [0.0, 2.0, 0.0], [0.5, 0.2, 0.4], [0.2, 0.0, 0.1],
                 [0.6, 0.0, 0.3], [0.3, 0.35, 0.0]], [3, 1, 2, 2, 1, 3])
P3 = population([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1], [0.3, 0.6, 0.1],
                 [0.45, 0.45, 0.1]], [2, 1, 3, 1, 1])
COSTS3 = np.array([0.0, 5.0, 2.0])


def simulate(offsets_pop: np.ndarray, vectors_pop: np.ndarray, row: np.ndarray, A, n: int,
             reps: int, confidence: float, seed: int) -> dict[str, float]:
    """The share of repetitions where the bounds hold, both sides together, for the
    high-confidence bounds and for the sample's own worst and best case."""
    exact = probability_bounds(A, offsets_pop, vectors_pop, row)
    rng = np.random.default_rng(seed)
    held, plain, slack = 0, 0, []
    for _ in range(reps):
        r = offsets_pop[rng.integers(0, offsets_pop.shape[0], n)]
        v = vectors_pop[rng.integers(0, vectors_pop.shape[0], n)]
        hc = high_confidence_bounds(A, r, v, row, delta=1 - confidence)
        held += hc.worst >= exact.worst - 1e-9 and hc.best <= exact.best + 1e-9
        own = probability_bounds(A, r, v, row)
        plain += own.worst >= exact.worst - 1e-9 and own.best <= exact.best + 1e-9
        slack.append(hc.worst - exact.worst)
    return {"coverage": held / reps, "plain": plain / reps, "slack": float(np.mean(slack)),
            "worst": exact.worst, "best": exact.best}


def test_coverage_on_a_discrete_population():
    reps, confidence = 80, 0.9
    out = simulate(R3, P3, COSTS3, 1.0, 240, reps, confidence, seed=1)
    assert (out["worst"], out["best"]) == pytest.approx((23 / 12, 5 / 12))  # the LP, exactly
    line = confidence - three_se(confidence, reps)
    assert out["coverage"] >= line
    assert out["plain"] < line  # the sample's own extremes do not cover: the test can fail
    assert out["slack"] < 0.25 * np.ptp(COSTS3)  # and the bound is not the trivial one


def test_coverage_on_a_continuous_like_population_k4():
    """K = 4, stacking-like general A: 120 offsets (a fifth pushed to label 2, wrong whatever
    the slot says) and 120 vectors drawn once from Dirichlet laws are the populations; 40
    repetitions of 180 draws each at 80 % confidence."""
    rng = np.random.default_rng(7)
    A = np.array([[1.0, 0.2, 0.0, 0.0], [0.0, 0.8, 0.1, 0.0], [0.1, 0.0, 1.2, 0.0],
                  [0.0, 0.0, 0.3, 0.9]])
    r_pop = rng.dirichlet([4, 1, 1, 1], 120) + rng.dirichlet([3, 1, 1, 1], 120) - 0.4
    r_pop[:24, 2] += 3.0
    p_pop = rng.dirichlet([3, 1, 1, 1], 120)
    row = np.array([0.0, 1.0, 3.0, 1.0])
    reps, confidence = 40, 0.8
    out = simulate(r_pop, p_pop, row, A, 180, reps, confidence, seed=2)
    assert out["best"] == pytest.approx(0.6)  # the fifth pushed to label 2 costs 3 each
    assert out["coverage"] >= confidence - three_se(confidence, reps)


def test_the_bound_closes_in_on_the_population_as_n_grows():
    """At 8,000 draws per side the high-confidence worst (best) case lies within 3 % of the
    costs' span above (below) the population's, from about 6 % at 2,000 draws: Hoeffding's
    ``t`` (3.0 % and 6.0 % of the span here) and no more, so the certificate fitted on a third
    of the draws prices the population as tightly as its grid allows."""
    gaps = []
    for n in (2000, 8000):
        rng = np.random.default_rng(3)
        r = R3[rng.integers(0, R3.shape[0], n)]
        v = P3[rng.integers(0, P3.shape[0], n)]
        hc = high_confidence_bounds(1.0, r, v, COSTS3, delta=0.05)
        assert hc.worst >= 23 / 12 and hc.best <= 5 / 12
        gaps.append(max(hc.worst - 23 / 12, 5 / 12 - hc.best) / 5.0)
    assert gaps[1] < 0.03 and gaps[1] < gaps[0] < 0.07


# ----------------------------------------------------------------- price_vectors
@st.composite
def priced(draw):
    k = draw(st.sampled_from([3, 4]))
    A = _matrix(draw, k)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    kind = draw(st.sampled_from(["continuous", "grid", "near ties"]))
    offsets, vectors = [], []
    for _ in range(k):
        n_t, n_s = draw(st.integers(1, 20)), draw(st.integers(0, 20))
        offsets.append(_points(kind, k, n_t, A, rng)[0])
        vectors.append(_points(kind, k, max(n_s, 1), A, rng)[1][:n_s])
    costs = rng.integers(0, 4, (k, k)).astype(float)
    np.fill_diagonal(costs, 0.0)
    confidence = draw(st.sampled_from([0.5, 0.9, 0.95]))
    return A, offsets, vectors, costs, confidence


@FEW
@given(priced())
def test_price_vectors_orders_the_cases_and_sums_the_classes(case):
    A, offsets, vectors, costs, confidence = case
    labels = [f"l{i}" for i in range(len(offsets))]
    b = price_vectors(A, offsets, vectors, costs, labels=labels, same_instances=False,
                      confidence=confidence)
    tol = 1e-9 * (1 + abs(b.worst_cost))
    assert b.high_confidence_worst_cost >= b.worst_cost - tol
    assert b.worst_cost >= b.expected_cost - tol
    assert b.expected_cost >= b.best_cost - tol
    assert b.best_cost >= b.high_confidence_best_cost - tol
    assert b.confidence == confidence
    assert b.high_confidence_worst is None and b.high_confidence_best is None
    # class by class: alpha split over the classes with candidates, scaled to their sizes
    used = sum(1 for v in vectors if len(v))
    worst = best = 0.0
    for c, (off, vec) in enumerate(zip(offsets, vectors)):
        if len(vec):
            hc = high_confidence_bounds(A, off, vec, costs[c], delta=(1 - confidence) / used)
            pb = probability_bounds(A, off, vec, costs[c])
            worst += len(vec) * max(hc.worst, pb.worst)
            best += len(vec) * min(hc.best, pb.best)
            # each class within its costs' range
            assert costs[c].min() <= hc.best and hc.worst <= costs[c].max()
    assert b.high_confidence_worst_cost == pytest.approx(worst, rel=1e-12, abs=1e-12)
    assert b.high_confidence_best_cost == pytest.approx(best, rel=1e-12, abs=1e-12)


@FEW
@given(fitted())
def test_monotone_in_the_confidence(case):
    A, _, r, v, *_, row, bins = case
    bounds = [high_confidence_bounds(A, r, v, row, delta=d, bins=bins)
              for d in (0.5, 0.2, 0.05, 0.001)]
    worst = [b.worst for b in bounds]
    best = [b.best for b in bounds]
    assert worst == sorted(worst)
    assert best == sorted(best, reverse=True)


def test_a_class_with_candidates_is_wider_than_its_sample():
    """Well away from the trivial bound, the high-confidence case widens the sample's case:
    at 95 % confidence and 400 draws both sides move (Hoeffding's t alone is about 0.13 of
    the span per side)."""
    rng = np.random.default_rng(4)
    r, v = R3[rng.integers(0, R3.shape[0], 400)], P3[rng.integers(0, P3.shape[0], 400)]
    b = price_vectors(1.0, [r, r[:0], r[:0]], [v, v[:0], v[:0]],
                      np.c_[COSTS3, [1, 0, 1], [1, 1, 0]].T, labels="abc",
                      same_instances=False, confidence=0.95)
    assert b.worst_cost < b.high_confidence_worst_cost < 400 * COSTS3.max()
    assert 0.0 < b.best_cost and b.high_confidence_best_cost < b.best_cost
    assert b.to_dict()["high_confidence_worst"] is None
    assert "high_confidence_worst_cost=" in repr(b)


# ---------------------------------------------------------------------- edges, errors
def test_fewer_than_two_draws_give_the_costs_range():
    hc = high_confidence_bounds(1.0, [[0.1, 0.2, 0.3]], [[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]],
                                [0.0, 4.0, 1.0], delta=0.05)
    assert (hc.worst, hc.best) == (4.0, 0.0)


def test_bad_input_names_the_field():
    r, v = R3[:4], P3[:4]
    with pytest.raises(ValidationError, match="delta must lie strictly between 0 and 1"):
        high_confidence_bounds(1.0, r, v, COSTS3, delta=1.0)
    with pytest.raises(InputTypeError, match="delta must be a number"):
        high_confidence_bounds(1.0, r, v, COSTS3, delta="0.05")
    with pytest.raises(ValidationError, match="bins must be an integer of at least 2"):
        high_confidence_bounds(1.0, r, v, COSTS3, delta=0.05, bins=1)
    with pytest.raises(ValidationError, match="costs_row must hold K = 3 costs"):
        high_confidence_bounds(1.0, r, v, [0.0, 1.0], delta=0.05)
    with pytest.raises(ValidationError, match="vectors is empty"):
        high_confidence_bounds(1.0, r, v[:0], COSTS3, delta=0.05)
    costs = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(ValidationError, match="same_instances=False"):
        price_vectors(1.0, [r, [], []], [v, [], []], costs, labels="abc", confidence=0.9)
    with pytest.raises(ValidationError, match=r"confidence \(1.5\) must lie strictly"):
        price_vectors(1.0, [r, [], []], [v, [], []], costs, labels="abc",
                      same_instances=False, confidence=1.5)
    with pytest.raises(ValidationError, match="linear fusion argmax"):
        price_vectors(1.0, [r, [], []], [v, [], []], costs, labels="abc", fusion="max",
                      same_instances=False, confidence=0.9)


def test_large_k_cuts_only_the_first_axes():
    """K = 10 at two bins per axis would be 512 boxes: eight axes are cut (256 boxes), and
    the bound stays valid (the certificate holds on every pair)."""
    assert band._axes_cut(10, 2) == 8 and band._axes_cut(3, 8) == 2
    rng = np.random.default_rng(5)
    r, v = rng.random((60, 10)), rng.dirichlet(np.ones(10), 60)
    row = rng.integers(0, 3, 10).astype(float)
    hc = high_confidence_bounds(1.0, r, v, row, delta=0.1)
    pb = probability_bounds(1.0, r, v, row)
    assert row.min() <= hc.best and hc.worst <= row.max()
    assert pb.best >= row.min() and pb.worst <= row.max()
