"""Pricing a score slot's candidate from its scores (causalcost.pricing.scores).

Independent computations: every pairing of the candidate's scores with the instances
(``itertools.permutations``, n <= 7, ties and +-inf included) for the same-instances worst and
best case; the average over all (s, t) pairs for the expected cost; a linear program over every
coupling of the two empirical distributions (``scipy.optimize.linprog``) for the probability
form; the package's kinds bound (``bound(kinds=...)``) for hard votes (scores in {0, 1}); a
simulation for the DKW high-confidence coverage.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import linprog

import causalcost as cc
from causalcost.errors import InfeasibleInputError, InputTypeError, ValidationError
from causalcost.pricing.bounds import bound
from causalcost.pricing.kinds import kinds_frame
from causalcost.pricing.scores import price_scores, price_scores_many

VALUES = [0.0, 0.25, 0.5, 0.75, 1.0]  # few values: ties are common
score = st.sampled_from(VALUES)
critical = st.sampled_from([-math.inf, *VALUES, 0.6, math.inf])
_cost = st.floats(0, 10, allow_subnormal=False)
costs_st = st.builds(lambda tp, dfn, tn, dfp: cc.CostMatrix(tp=tp, fn=tp + dfn, fp=tn + dfp,
                                                             tn=tn), _cost, _cost, _cost, _cost)


def rights(s: tuple[float, ...], t: list[float], positive: bool) -> int:
    """The system's right answers with s[i] paired with t[i]."""
    return sum((a >= b) if positive else (a < b) for a, b in zip(s, t))


def brute(s: list[float], t: list[float], positive: bool) -> tuple[int, int]:
    """(min, max) right answers over every pairing."""
    found = {rights(p, t, positive) for p in itertools.permutations(s)}
    return min(found), max(found)


def cost(c: cc.CostMatrix, tp: float, n_p: int, tn: float, n_n: int) -> float:
    return c.tp * tp + c.fn * (n_p - tp) + c.fp * (n_n - tn) + c.tn * tn


@st.composite
def same_instances(draw: st.DrawFn) -> tuple[list[float], ...]:
    n_p, n_n = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    return (draw(st.lists(critical, min_size=n_p, max_size=n_p)),
            draw(st.lists(critical, min_size=n_n, max_size=n_n)),
            draw(st.lists(score, min_size=n_p, max_size=n_p)),
            draw(st.lists(score, min_size=n_n, max_size=n_n)))


@settings(max_examples=200, deadline=None)
@given(same_instances(), costs_st)
def test_worst_and_best_equal_every_pairing(case: tuple[list[float], ...],
                                            costs: cc.CostMatrix) -> None:
    t_p, t_n, s_p, s_n = case
    b = price_scores((t_p, t_n), (s_p, s_n), costs)
    (lo_p, hi_p), (lo_n, hi_n) = brute(s_p, t_p, True), brute(s_n, t_n, False)
    assert (b.worst.tp, b.worst.tn, b.best.tp, b.best.tn) == (lo_p, lo_n, hi_p, hi_n)
    n_p, n_n = len(t_p), len(t_n)
    assert b.worst_cost == pytest.approx(cost(costs, lo_p, n_p, lo_n, n_n), rel=1e-12, abs=1e-12)
    assert b.best_cost == pytest.approx(cost(costs, hi_p, n_p, hi_n, n_n), rel=1e-12, abs=1e-12)
    assert b.form == "same instances" and b.worst.is_integral


@settings(max_examples=200, deadline=None)
@given(st.lists(critical, max_size=9), st.lists(critical, max_size=9),
       st.lists(score, min_size=1, max_size=9), st.lists(score, min_size=1, max_size=9),
       costs_st)
def test_expected_is_the_average_over_all_pairs(t_p: list[float], t_n: list[float],
                                                s_p: list[float], s_n: list[float],
                                                costs: cc.CostMatrix) -> None:
    if not t_p or not t_n:
        with pytest.raises(InfeasibleInputError, match="no critical scores"):
            price_scores((t_p, t_n), (s_p, s_n), costs, same_instances=False)
        return
    b = price_scores((t_p, t_n), (s_p, s_n), costs, same_instances=False)
    says_p = np.mean([[a >= t for t in t_p] for a in s_p])
    says_n = np.mean([[a >= t for t in t_n] for a in s_n])
    tp, fp = len(s_p) * says_p, len(s_n) * says_n
    assert b.expected.tp == pytest.approx(tp, rel=1e-12, abs=1e-12)
    assert b.expected.fp == pytest.approx(fp, rel=1e-12, abs=1e-12)
    want = cost(costs, tp, len(s_p), len(s_n) - fp, len(s_n))
    assert b.expected_cost == pytest.approx(want, rel=1e-9, abs=1e-9)


def coupling_extremes(s: list[float], t: list[float], positive: bool) -> tuple[float, float]:
    """min and max of P(system right) over every coupling of the two empirical
    distributions: a linear program on the coupling matrix."""
    m, n = len(s), len(t)
    right = np.array([[(a >= b) if positive else (a < b) for b in t] for a in s], float)
    a_eq = np.vstack([np.kron(np.eye(m), np.ones(n)), np.kron(np.ones(m), np.eye(n))])
    b_eq = np.concatenate([np.full(m, 1 / m), np.full(n, 1 / n)])
    lo = linprog(right.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    hi = linprog(-right.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return lo.fun, -hi.fun


@settings(max_examples=80, deadline=None)
@given(st.lists(critical, min_size=1, max_size=6), st.lists(critical, min_size=1, max_size=6),
       st.lists(score, min_size=1, max_size=6), st.lists(score, min_size=1, max_size=6))
def test_probability_form_is_the_extreme_coupling(t_p: list[float], t_n: list[float],
                                                  s_p: list[float], s_n: list[float]) -> None:
    b = price_scores({"P": t_p, "N": t_n}, {"P": s_p, "N": s_n}, same_instances=False)
    assert b.form == "probability"
    for got_lo, got_hi, s, t, pos in ((b.worst.tp, b.best.tp, s_p, t_p, True),
                                      (b.worst.tn, b.best.tn, s_n, t_n, False)):
        lo, hi = coupling_extremes(s, t, pos)
        assert got_lo / len(s) == pytest.approx(lo, abs=1e-9)
        assert got_hi / len(s) == pytest.approx(hi, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(same_instances())
def test_same_instances_equals_probability_form_on_equal_sizes(
        case: tuple[list[float], ...]) -> None:
    t_p, t_n, s_p, s_n = case
    a = price_scores((t_p, t_n), (s_p, s_n))
    if not (t_p and t_n):
        return
    b = price_scores((t_p, t_n), (s_p, s_n), same_instances=False)
    for x, y in ((a.worst, b.worst), (a.best, b.best), (a.expected, b.expected)):
        np.testing.assert_allclose(x.to_numpy(), y.to_numpy(), atol=1e-9)


# --------------------------------------------------------------- hard votes: the kinds bound
def kinds_of(t: list[float], positive: bool) -> dict[str, int]:
    """Instance kinds of critical scores against hard votes 0 / 1."""
    out = {"never": 0, "wrong_only": 0, "always": 0, "right_only": 0}
    for v in t:
        if positive:
            out["never" if v <= 0 else "wrong_only" if v <= 1 else "always"] += 1
        else:
            out["never" if v > 1 else "wrong_only" if v > 0 else "always"] += 1
    return out


@settings(max_examples=200, deadline=None)
@given(st.data(), costs_st)
def test_hard_votes_equal_the_kinds_bound(data: st.DataObject, costs: cc.CostMatrix) -> None:
    n_p, n_n = data.draw(st.integers(0, 12)), data.draw(st.integers(0, 12))
    crit = st.sampled_from([-math.inf, -1.0, 0.0, 0.3, 1.0, 1.5, math.inf])
    t_p = data.draw(st.lists(crit, min_size=n_p, max_size=n_p))
    t_n = data.draw(st.lists(crit, min_size=n_n, max_size=n_n))
    vote = st.sampled_from([0.0, 1.0])
    s_p = data.draw(st.lists(vote, min_size=n_p, max_size=n_p))
    s_n = data.draw(st.lists(vote, min_size=n_n, max_size=n_n))
    b = price_scores((t_p, t_n), (s_p, s_n), costs)
    tp, tn = int(sum(s_p)), n_n - int(sum(s_n))
    model = cc.Confusion(tp=tp, fn=n_p - tp, fp=n_n - tn, tn=tn)
    k = bound(kinds=kinds_frame(kinds_of(t_p, True), kinds_of(t_n, False)), model=model,
              costs=costs)
    assert b.worst_cost == pytest.approx(k.worst_cost, rel=1e-12, abs=1e-12)
    assert b.best_cost == pytest.approx(k.best_cost, rel=1e-12, abs=1e-12)
    assert b.expected_cost == pytest.approx(k.expected_cost, rel=1e-9, abs=1e-9)


# ------------------------------------------------------------------- many candidates at once
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**31),
       st.sampled_from([True, False]))
def test_many_equals_one_by_one(m: int, n_p: int, n_n: int, seed: int, same: bool) -> None:
    rng = np.random.default_rng(seed)
    t = (np.round(rng.normal(0.5, 0.3, n_p), 1), np.round(rng.normal(0.5, 0.3, n_n), 1))
    k_p, k_n = (n_p, n_n) if same else (rng.integers(1, 9), rng.integers(1, 9))
    s = (np.round(rng.random((m, k_p)), 1), np.round(rng.random((m, k_n)), 1))
    costs = cc.CostMatrix(fn=5, fp=1)
    table = price_scores_many(t, s, costs, same_instances=same, confidence=0.9)
    for i in range(m):
        b = price_scores(t, (s[0][i], s[1][i]), costs, same_instances=same, confidence=0.9)
        row = table.iloc[i]
        assert row["eval1"] == pytest.approx(b.expected_cost, rel=1e-12)
        assert row["worst_cost"] == pytest.approx(b.worst_cost, rel=1e-12)
        assert row["best_cost"] == pytest.approx(b.best_cost, rel=1e-12)
        assert row["high_confidence_worst_cost"] == pytest.approx(b.high_confidence_worst_cost)
        assert row["high_confidence_best_cost"] == pytest.approx(b.high_confidence_best_cost)


# -------------------------------------------------------------------------- high confidence
def test_high_confidence_is_looser_and_shrinks_with_n() -> None:
    rng = np.random.default_rng(3)
    gaps = []
    for n in (50, 500, 5000):
        t = (rng.normal(0.5, 0.2, n), rng.normal(0.7, 0.2, n))
        s = (rng.beta(4, 2, n), rng.beta(2, 4, n))
        b = price_scores(t, s, same_instances=False, confidence=0.95)
        assert b.high_confidence_worst_cost >= b.worst_cost >= b.expected_cost
        assert b.high_confidence_best_cost <= b.best_cost <= b.expected_cost
        gaps.append(b.high_confidence_worst_cost / n - b.worst_cost / n)
    assert gaps[0] > gaps[1] > gaps[2] > 0


def population_extremes(s_dist: object, t_dist: object, positive: bool) -> tuple[float, float]:
    """min and max P(right) over couplings of two continuous distributions, on a fine grid:
    ``sup_x [F_T(x) - F_S(x)]`` and its mirror (Makarov)."""
    x = np.linspace(-1.5, 2.5, 200_001)
    diff = t_dist.cdf(x) - s_dist.cdf(x)  # P(S >= x) - P(T > x)
    d1, d2 = max(0.0, diff.max()), max(0.0, (-diff).max())
    return (d1, 1 - d2) if positive else (d2, 1 - d1)


def test_high_confidence_covers_the_population_case() -> None:
    """Coverage of the DKW worst and best case (confidence 0.9, both sides at once), 400
    simulated pairs of samples (60 candidate scores and 80 critical scores per class): the
    population worst case lies at or under the high-confidence worst case, and the population
    best case at or over the high-confidence best case, in at least 90 % of them (in practice
    in all: DKW with Bonferroni is conservative), while the plug-in worst case without bands
    covers it far less often."""
    rng = np.random.default_rng(11)
    s_p, t_p = stats.beta(4, 2), stats.norm(0.45, 0.2)
    s_n, t_n = stats.beta(2, 4), stats.norm(0.6, 0.2)
    lo_p, hi_p = population_extremes(s_p, t_p, True)
    lo_n, hi_n = population_extremes(s_n, t_n, False)
    reps, n_s, n_t, held, plain = 400, 60, 80, 0, 0
    for _ in range(reps):
        t = (t_p.rvs(n_t, random_state=rng), t_n.rvs(n_t, random_state=rng))
        s = (s_p.rvs(n_s, random_state=rng), s_n.rvs(n_s, random_state=rng))
        b = price_scores(t, s, same_instances=False, confidence=0.9)
        w, bb = b.high_confidence_worst, b.high_confidence_best
        held += (w.tp <= n_s * lo_p + 1e-9 and w.tn <= n_s * lo_n + 1e-9
                 and bb.tp >= n_s * hi_p - 1e-9 and bb.tn >= n_s * hi_n - 1e-9)
        plain += b.worst.tp <= n_s * lo_p + 1e-9 and b.worst.tn <= n_s * lo_n + 1e-9
    assert held / reps >= 0.9, held  # measured: 400 of 400
    assert plain / reps < 0.5, plain  # the plug-in worst case alone: 32 of 400 (the test can fail)


# ---------------------------------------------------------------------- the result, refusals
def test_result_views() -> None:
    b = price_scores({"P": [0.2, 0.9], "N": [0.5, 0.5]}, {"P": [0.3, 0.95], "N": [0.1, 0.6]},
                     cc.CostMatrix(fn=5, fp=1), confidence=0.9)
    d = b.to_dict()
    assert (d["eval1"], d["worst_cost"], d["best_cost"]) == (
        b.expected_cost, b.worst_cost, b.best_cost)
    assert d["high_confidence_worst_cost"] >= d["worst_cost"]
    frame = b.to_frame()
    assert list(frame.index) == ["expected", "worst", "best", "high_confidence_worst",
                                 "high_confidence_best"]
    assert frame.loc["worst", "cost"] == b.worst_cost
    assert repr(b).startswith("ScoreBound(form='same instances', eval1=")
    assert b.eval1 == b.expected_cost


@pytest.mark.parametrize(("critical_", "scores", "kw", "error", "match"), [
    (([0.1, np.nan], [0.5]), ([0.1, 0.2], [0.3]), {}, ValidationError, "NaN"),
    (([0.1], [0.5]), ([np.inf], [0.3]), {}, cc.ScoreValueError, "class P: row 0 holds inf"),
    (([0.1], [0.5]), ([0.2], [1.7]), {}, cc.ScoreValueError, r"outside the score range \[0, 1\]"),
    (([0.1], [0.5]), (["0.2"], [0.3]), {}, cc.ScoreValueError, "the text '0.2', not a number"),
    ({"pos": [0.1], "N": [0.5]}, ([0.1], [0.3]), {}, ValidationError, "'P' and 'N'"),
    (([0.1], [0.5]), "scores", {}, InputTypeError, "per class"),
    (([0.1], [0.5]), ([0.1], [0.3]), {"confidence": 1.0}, ValidationError, "confidence"),
    (([0.1], [0.5]), ([0.1, 0.2], [0.3]), {}, InfeasibleInputError, "same_instances=False"),
    (([], [0.5]), ([0.1], [0.3]), {"same_instances": False}, InfeasibleInputError,
     "no critical scores"),
])
def test_bad_input_is_refused(critical_: object, scores: object, kw: dict, error: type,
                              match: str) -> None:
    with pytest.raises(error, match=match):
        price_scores(critical_, scores, **kw)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_subnormal=False), min_size=1, max_size=30),
       st.integers(0, 2**31), st.sampled_from([1e-9, 1.0, 1e6]))
def test_ranks_equal_searchsorted_at_and_next_to_every_critical_score(
        t: list[float], seed: int, scale: float) -> None:
    from causalcost.pricing.scores import _ranks

    rng = np.random.default_rng(seed)
    crit = np.sort(np.array(t) * scale / 1e6)
    near = np.concatenate([crit, np.nextafter(crit, -np.inf), np.nextafter(crit, np.inf),
                           rng.choice(crit, 50) + rng.normal(0, scale, 50)])
    s = rng.permutation(near)[None, :]
    np.testing.assert_array_equal(_ranks(crit, s), np.searchsorted(crit, s, "right"))
