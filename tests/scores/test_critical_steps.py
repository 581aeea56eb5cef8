"""The float step of a weighted sum's rule, found one operation at a time (``_sum_steps``).

Adversarial checks of the fast route of ``exact_rows`` for ``"mean"`` and ``"logistic"``:
scores and weights spanning many magnitudes, scores one or two units in the last place from
small dyadic values (so that sums land exactly on the threshold and on the midpoints where
rounding ties to even), negative, zero, subnormal and huge scores, every slot position.
Independent checks on every row:

* the rule evaluated directly (``ScoreRule.decide`` with the slot's column replaced: the
  weighted mean divided by the weights' sum, or the sigmoid, not the switch comparison) says
  P at the critical score and N at the float below it;
* the search of the previous release (the closed form from the other models' sum, snapped by
  ``exact_critical`` with the rule's sum added in full) gives the same critical score to the
  bit wherever its closed form was finite;
* polars and DuckDB give numpy's critical scores to the bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from engine_frames import ENGINES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import causalcost as cc
import causalcost.data.critical_scores as cs
from causalcost.data.critical_scores import critical_scores as _critical_scores
from causalcost.data.critical_scores import exact_critical
from causalcost.network.score_rules import float_key, key_float, score_rule

#: The steps are checked on scores of every magnitude: the rule's range is declared open.
OPEN = {"score_range": (-math.inf, math.inf)}


def critical_scores(s: Any, slot: int, **kw: Any) -> np.ndarray:
    """:func:`causalcost.data.critical_scores.critical_scores` on an open score range."""
    return _critical_scores(s, slot, **OPEN, **kw)

BASES = [0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 1 / 3, 2 / 3]


def near(base: float, units: int) -> float:
    """The float ``units`` steps from ``base`` (keys: -0.0 sits just below +0.0)."""
    return float(key_float(float_key(np.array([base])) + units)[0])


#: a score: a small dyadic or decimal value moved by up to three units in the last place, a
#: value scaled by a power of two (magnitudes 2^-60 .. 2^60), any float in [-1, 2], or an
#: extreme (0, -0, subnormal, the largest floats)
SCORE = st.one_of(
    st.builds(near, st.sampled_from(BASES), st.integers(-3, 3)),
    st.builds(lambda b, k, s: s * b * 2.0**k, st.sampled_from(BASES[1:]), st.integers(-60, 60),
              st.sampled_from([1.0, -1.0])),
    st.floats(-1, 2),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e300,
                     -1e300]),
)
#: a positive weight over many magnitudes, dyadic or not
WEIGHT = st.one_of(st.sampled_from([1.0, 2.0, 0.5, 1.5, 3.0, 0.1, 1 / 3]),
                   st.builds(lambda m, k: m * 2.0**k, st.floats(1, 2), st.integers(-40, 40)))
THRESHOLD = st.one_of(st.sampled_from([0.5, 0.3, 1 / 3, 0.1, 0.75, 0.0, -0.25, 1.0, 2.5]),
                      st.floats(-2, 2))


def previous_release(rule: Any, s: np.ndarray, slot: int) -> np.ndarray:
    """The critical scores as the previous release found them: the closed form from the
    other models' sum, snapped by walking, galloping and bisecting on the rule's full sum."""
    before, after = rule.split(list(s.T), slot)

    def decide(values: np.ndarray, rows: Any) -> np.ndarray:
        return rule.decide_split(None if before is None else before[rows],
                                 [a[rows] for a in after], slot, values)

    with np.errstate(all="ignore"):
        t = rule.critical(s, slot)
        return exact_critical(t, s[:, slot], None, decide)[0]


def check_steps(rule: Any, s: np.ndarray, slot: int, t: np.ndarray) -> None:
    """The rule itself says P at each finite ``t`` and N one float below; a row whose parts
    are not all finite keeps the closed form; the previous release agrees to the bit."""
    with np.errstate(all="ignore"):
        terms = np.delete(s * np.asarray(rule.weights), slot, axis=1)  # the other models'
        parts = np.isfinite(terms).all(axis=1)
        closed = rule.critical(s, slot)
        assert np.array_equal(t[~parts], closed[~parts], equal_nan=True)
        fin = np.isfinite(t) & parts
        at, below = s[fin].copy(), s[fin].copy()
        at[:, slot] = t[fin]
        below[:, slot] = key_float(float_key(t[fin]) - 1)
        assert rule.decide(at).all()
        assert not rule.decide(below).any()
        top = (t == math.inf) & parts  # never P at a float score
        highest = s[top].copy()
        highest[:, slot] = np.finfo(float).max
        assert not rule.decide(highest).any()
        old = previous_release(rule, s, slot)
        same = np.isfinite(closed)  # the previous release kept a non-finite closed form
        assert np.array_equal(t[same].view(np.int64), old[same].view(np.int64))


@st.composite
def sum_rules(draw: st.DrawFn) -> tuple[dict[str, Any], np.ndarray, int]:
    m = draw(st.integers(1, 5))
    rows = draw(st.integers(1, 40))
    s = np.array(draw(st.lists(st.lists(SCORE, min_size=m, max_size=m), min_size=rows,
                               max_size=rows)), dtype=float)
    slot = draw(st.integers(0, m - 1))
    if draw(st.booleans()):
        kw = {"fusioner": "mean", "weights": draw(st.lists(WEIGHT, min_size=m, max_size=m)),
              "threshold": draw(THRESHOLD)}
    else:
        w = draw(st.lists(st.one_of(WEIGHT, WEIGHT.map(lambda v: -v)), min_size=m,
                          max_size=m))
        w[slot] = abs(w[slot])
        kw = {"fusioner": "logistic", "weights": w, "bias": draw(st.floats(-3, 3)),
              "threshold": draw(st.sampled_from([0.5, 0.1, 0.9, 1 / 3, 0.999, 1e-6]))}
    return kw, s, slot


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sum_rules())
@example(({"fusioner": "mean", "weights": [1.0, 2.0, 0.5, 1.5], "threshold": 0.5},
          np.array([[0.5, 0.5, 0.5, 0.5], [near(0.5, 1), 0.5, near(0.5, -1), 0.5],
                    [1.0, 0.75, 0.0, 1 / 3], [0.1, 0.2, 0.3, 0.4]]), 1))
@example(({"fusioner": "mean", "weights": [1e-30, 1.0, 1e30], "threshold": 0.3},
          np.array([[0.3, 0.3, 0.3], [1e300, 0.1, 0.2], [5e-324, 0.3, 0.3]]), 1))
def test_the_step_is_the_rules_own_and_the_previous_releases(
        case: tuple[dict[str, Any], np.ndarray, int]) -> None:
    kw, s, slot = case
    rule = score_rule(n_models=s.shape[1], slot=slot, **kw)
    with np.errstate(all="ignore"):
        t = critical_scores(s, slot, **kw)
    check_steps(rule, s, slot, t)


@st.composite
def tied_rows(draw: st.DrawFn) -> tuple[dict[str, Any], np.ndarray, int]:
    """Rows whose partial sums land exactly on the threshold's midpoint: the last term after
    the slot is the switch's rounding midpoint less a float one or two binades apart."""
    m = draw(st.integers(2, 4))
    slot = draw(st.integers(0, m - 2))
    w = [1.0] * m
    kw = {"fusioner": "mean", "weights": w, "threshold": draw(st.sampled_from([0.5, 0.75,
                                                                              1 / 3, 0.3]))}
    rule = score_rule(n_models=m, slot=slot, **kw)
    u, half = rule.switch
    rows = []
    for _ in range(draw(st.integers(1, 20))):
        row = [draw(st.builds(near, st.sampled_from(BASES), st.integers(-2, 2)))
               for _ in range(m)]
        y = draw(st.sampled_from([0.5, 1.0, 2.0, 0.25, u / 2, u / 4]))
        mid = u - half  # exact: half a unit below u, one more bit than u holds
        row[-1] = near((u - y) - half if math.isfinite(mid) else 0.0, draw(st.integers(-1, 1)))
        rows.append(row)
    return kw, np.array(rows), slot


@settings(max_examples=200, deadline=None)
@given(tied_rows())
def test_partial_sums_on_the_rounding_midpoint(
        case: tuple[dict[str, Any], np.ndarray, int]) -> None:
    kw, s, slot = case
    rule = score_rule(n_models=s.shape[1], slot=slot, **kw)
    check_steps(rule, s, slot, critical_scores(s, slot, **kw))


def test_every_route_of_the_search_is_taken_and_agrees(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """Random scores resolve with two checks per operation, a few with a third; thresholds
    near 0 and at the largest floats go to the full search. Each agrees with the rule."""
    searched = []
    real = cs._searched

    def counting(*args: Any) -> np.ndarray:
        searched.append(args[-1].size)
        return real(*args)

    monkeypatch.setattr(cs, "_searched", counting)
    rng = np.random.default_rng(5)
    s = np.clip(rng.normal(0.5, 0.25, (20000, 4)), 0, 1)
    w = [1.0, 2.0, 0.5, 1.5]
    rule = score_rule("mean", weights=w, threshold=0.5, n_models=4, slot=1)
    check_steps(rule, s, 1, critical_scores(s, 1, weights=w, threshold=0.5))
    assert sum(searched) < 20  # nearly every row settled by the checks of one operation
    searched.clear()
    # at threshold 0 with the others' scores 0 the step is at -0.0 or among the subnormals,
    # where a float's neighbours are not found by the guess's formula; a term of +inf keeps
    # the closed form
    hard = np.array([[0.0, 0.3, 0.0, 0.0], [5e-324, 0.1, -5e-324, 0.0], [-0.0, 0.0, 0.0, 0.0],
                     [0.0, 0.0, 1e-310, -2e-310], [np.inf, 0.5, 0.5, 0.5],
                     [0.5, 0.5, 0.5, -np.inf]])
    zero = score_rule("mean", weights=w, threshold=0.0, n_models=4, slot=1)
    with np.errstate(all="ignore"):  # past the reader, which refuses infinite scores
        t = cs.exact_for_rule(zero, hard, 1, None)[0]
    check_steps(zero, hard, 1, t)
    assert sum(searched) == len(hard)
    assert t[4] == -np.inf and t[5] == np.inf
    # terms near the largest float: the mean's weights are scaled to a largest weight in
    # [1, 2) (a power of two: the same decisions), so the others' sum stays finite here and
    # the step is found (past the reader, which refuses scores beyond [0, 1])
    big = np.array([[1.7e308, 0.5, 1.7e308, 0.5]])
    with np.errstate(over="ignore"):
        t = cs.exact_for_rule(rule, big, 1, None)[0]
        assert np.isfinite(t[0])
        check_steps(rule, big, 1, t)


@pytest.mark.parametrize("slot", range(4))
def test_a_threshold_at_the_largest_floats(slot: int) -> None:
    """Weights and scores near overflow: the step is found, or +inf where no float passes."""
    w = [1e300, 1.0, 3.0, 1e-3]  # weights 2^1021 apart are refused (the mean would drop one)
    s = np.array([[1.0, 0.5, 0.5, 0.5], [0.1, 1e308, -1e308, 0.2], [1.7e308, 0.0, 0.0, 0.0],
                  [-1.7e308, 1.7e308, 1.0, 1.0], [1.5e8, 1e307, 1e307, 1e307]])
    kw = {"fusioner": "mean", "weights": w, "threshold": 1.5e8}  # the switch near 1.5e308
    assert math.isfinite(score_rule(n_models=4, **kw).switch[1])
    rule = score_rule(n_models=4, slot=slot, **kw)
    with np.errstate(all="ignore"):  # past the reader, which refuses scores beyond [0, 1]
        t = cs.exact_for_rule(rule, s, slot, None)[0]
    check_steps(rule, s, slot, t)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sum_rules(), st.sampled_from(["pandas", "polars_lazy", "duckdb"]))
def test_engines_give_numpys_steps_to_the_bit(case: tuple[dict[str, Any], np.ndarray, int],
                                              engine: str) -> None:
    kw, s, slot = case
    with np.errstate(over="ignore"):  # a NaN sum is refused: keep finite terms
        s = s[np.isfinite(s * np.asarray(kw["weights"])).all(axis=1)]
    if not s.size:
        return
    names = [f"m{i}" for i in range(s.shape[1])]
    frame = pd.DataFrame({"y": np.arange(len(s)) % 2 == 0, **dict(zip(names, s.T))})
    with np.errstate(all="ignore"):
        want = critical_scores(s, slot, **kw)
        runs = cc.forced_runs(ENGINES[engine](frame), truth="y", models=names,
                              slot=names[slot], **OPEN, **kw)
    assert np.array_equal(runs.critical.view(np.int64), want.view(np.int64))


def test_a_lazy_polars_log_of_many_rows_matches_numpy_to_the_bit() -> None:
    """Several blocks, every slot: the engine's parts and numpy's arrays give one answer."""
    rng = np.random.default_rng(11)
    n = 3 * cs._SUM_BLOCK + 17
    s = rng.random((n, 4)) * rng.choice([1e-3, 1.0, 1e3], (n, 4))
    names = list("abcd")
    frame = pl.DataFrame({"y": rng.random(n) < 0.5, **dict(zip(names, s.T))}).lazy()
    w = [0.7, 3.0, 1e-2, 2.0]
    for slot in range(4):
        runs = cc.forced_runs(frame, truth="y", models=names, slot=names[slot],
                              fusioner="mean", weights=w, threshold=0.4, **OPEN)
        want = critical_scores(s, slot, weights=w, threshold=0.4)
        assert np.array_equal(runs.critical.view(np.int64), want.view(np.int64))
        rule = score_rule("mean", weights=w, threshold=0.4, n_models=4, slot=slot)
        check_steps(rule, s[:5000], slot, want[:5000])


@pytest.mark.parametrize("w0", [0.5, 1.0, 2.0, 2.0**-30, 2.0**30])
@pytest.mark.parametrize("tau", [1e-310, 3e-308, 1e-300, 0.5, 1e300])
def test_a_slot_first_with_a_power_of_two_weight(w0: float, tau: float) -> None:
    """Slot first, weight 2^k: the step is the level divided by the weight, where that is
    exact; among the subnormals and near the largest floats it is not, and is searched."""
    rng = np.random.default_rng(int(w0 * 7 + 3))
    scale = tau * rng.choice([0.5, 1.0, 2.0, 3.0], (60, 3))
    s = scale * rng.random((60, 3))
    s[:10] = [[0.0, tau, tau], [0.0, 5e-324, 0.0], [0.0, -tau, 3 * tau], [0.0, 1e308, 1e308],
              [0.0, tau / 3, tau / 3], [0.0, 0.0, 0.0], [0.0, -0.0, 2.5e-323],
              [0.0, 1.7e308, -1.7e308], [0.0, tau, -tau], [0.0, 2 * tau, 2 * tau]]
    kw = {"fusioner": "mean", "weights": [w0, 1.0, 1.5], "threshold": tau}
    rule = score_rule(n_models=3, slot=0, **kw)
    with np.errstate(all="ignore"):
        t = critical_scores(s, 0, **kw)
    check_steps(rule, s, 0, t)


@pytest.mark.parametrize("w0", [0.5, 2.0, 1.5])
def test_a_level_no_finite_float_reaches(w0: float) -> None:
    """u near the largest float and a term after the slot of -1.65e308: no finite left
    operand reaches u, so the last addition's level is +inf; the slot's product reaches it
    by overflowing (a weight > 1) or never (< 1)."""
    kw = {"fusioner": "mean", "weights": [w0, 1.5], "threshold": 1e308 / (w0 + 1.5)}
    rule = score_rule(n_models=2, slot=0, **kw)
    assert math.isfinite(rule.switch[1])
    s = np.array([[0.0, -1.1e308], [0.0, -1e307], [0.0, 0.0], [0.0, 1e307]])
    with np.errstate(all="ignore"):
        t = critical_scores(s, 0, **kw)
    check_steps(rule, s, 0, t)
    assert np.isfinite(t[0]) == (w0 > 1)


def test_a_guess_beyond_the_largest_float_is_searched() -> None:
    """-1.7e308 before the slot and u near 1e308: the guess overflows to +inf, where the
    check of the float below cannot be made; the slot's product reaches u by overflowing."""
    kw = {"fusioner": "mean", "weights": [1.0, 1.5, 1.0], "threshold": 1e308 / 3.5}
    rule = score_rule(n_models=3, slot=1, **kw)
    s = np.array([[-1.7e308, 0.0, 0.0], [-1e308, 0.0, 0.0], [0.0, 0.0, 0.0]])
    with np.errstate(all="ignore"):
        t = critical_scores(s, 1, **kw)
    check_steps(rule, s, 1, t)
    assert np.isfinite(t).all()


def test_blocks_shared_out_to_threads_give_the_same_bits(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Small blocks over three threads (some rows searched on the full sum inside them) give
    the critical scores of one thread, to the bit."""
    rng = np.random.default_rng(3)
    s = rng.random((5000, 3))
    s[::50, 0] = 0.0  # threshold 0 with the others at 0: steps among the subnormals
    s[::50, 2] = 0.0
    kw = {"fusioner": "mean", "weights": [1.0, 1.5, 0.5], "threshold": 0.0}
    monkeypatch.setattr(cs, "_SUM_BLOCK", 256)
    monkeypatch.setattr(cs, "_cores", lambda: 1)
    alone = critical_scores(s, 1, **kw)
    monkeypatch.setattr(cs, "_cores", lambda: 3)
    shared = critical_scores(s, 1, **kw)
    assert np.array_equal(alone.view(np.int64), shared.view(np.int64))
    check_steps(score_rule(n_models=3, slot=1, **kw), s, 1, shared)


def test_terms_given_weighted_or_as_scores_give_the_same_bits() -> None:
    """exact_rows with the terms after the slot as products (``ScoreRule.split``) or as the
    scores, weighted where they are read: one answer, to the bit."""
    rng = np.random.default_rng(9)
    s = rng.random((3000, 4)) * rng.choice([1e-3, 1.0, 7.0], (3000, 4))
    w = [0.3, 1.7, 2.0, 0.9]
    for slot in range(3):
        rule = score_rule("mean", weights=w, threshold=0.45, n_models=4, slot=slot)
        cols = list(s.T)
        before, products = rule.split(cols, slot)
        rest = np.asarray(rule.rest(cols, slot))
        given = cs.exact_rows(rule, slot, s[:, slot], rest, before, products)[0]
        scores = cs.exact_rows(rule, slot, s[:, slot], rest, before, cols[slot + 1:],
                               weighted=False)[0]
        assert np.array_equal(given.view(np.int64), scores.view(np.int64))
        weights = rule.weights or ()  # the rule's (scaled by a power of two), as it adds them
        assert np.array_equal(cs.summed_parts(before, cols[slot + 1:], weights[slot + 1:]),
                              rest)
        check_steps(rule, s, slot, scores)
