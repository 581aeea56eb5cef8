"""The high-confidence best case (``side="best"``), checked by simulation.

A simulated system whose instances each have a *kind* (never fails, fails only when the slot
is wrong, always fails): stage 1 counts the forced runs on ``n1`` instances, stage 2 puts a
candidate on ``n2`` others, right exactly where it helps most (on the instances that fail only
when the slot is wrong), so the real system cost sits at the stage-2 best case and the plain
best case, computed from the stage-1 rates, is undercut about half of the time. The
high-confidence best case must hold (real cost >= it) in at least ``confidence`` of the runs,
within Monte-Carlo error (three standard errors).
"""

from __future__ import annotations

import numpy as np
import pytest

import causalcost as cc
from causalcost.errors import ValidationError
from causalcost.pricing.high_confidence import (
    high_confidence_bound,
    high_confidence_bound_from_rates,
)

COSTS = cc.CostMatrix(fn=5, fp=1)
#: Kind probabilities per class: never fails, fails only when the slot is wrong, always fails.
KINDS = {"P": (0.5, 0.35, 0.15), "N": (0.6, 0.3, 0.1)}
SIZES = {"P": 40, "N": 60}  # per class, in each stage
HITS = {"P": 25, "N": 40}   # the candidate's hits per class in stage 2


def _draw(rng: np.random.Generator) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Kind counts (never, wrong_only, always) per class, for stage 1 and stage 2."""
    one = {c: rng.multinomial(SIZES[c], KINDS[c]) for c in KINDS}
    two = {c: rng.multinomial(SIZES[c], KINDS[c]) for c in KINDS}
    return one, two


def _forced(kinds: dict[str, np.ndarray]) -> tuple[cc.Confusion, cc.Confusion]:
    """The forced runs: slot forced to P is right on positives, wrong on negatives."""
    (_, wo_p, al_p), (_, wo_n, al_n) = kinds["P"], kinds["N"]
    n_p, n_n = SIZES["P"], SIZES["N"]
    forced_p = cc.Confusion(tp=n_p - al_p, fn=al_p, fp=wo_n + al_n, tn=n_n - wo_n - al_n)
    forced_n = cc.Confusion(tp=n_p - wo_p - al_p, fn=wo_p + al_p, fp=al_n, tn=n_n - al_n)
    return forced_p, forced_n


def _real_cost(kinds: dict[str, np.ndarray]) -> float:
    """The candidate right first on the wrong-only instances: the system fails on the
    always-failing ones and on the wrong-only ones the candidate misses."""
    failures = {c: int(k[2] + max(0, k[1] - HITS[c])) for c, k in kinds.items()}
    return failures["P"] * COSTS.fn + failures["N"] * COSTS.fp


MODEL = cc.Confusion(tp=HITS["P"], fn=SIZES["P"] - HITS["P"], fp=SIZES["N"] - HITS["N"],
                     tn=HITS["N"])


@pytest.mark.parametrize("confidence", [0.8, 0.9])
def test_the_high_confidence_best_case_holds_with_the_stated_probability(
        confidence: float) -> None:
    rng = np.random.default_rng(11)
    runs = 1500
    held = plain_held = 0
    for _ in range(runs):
        one, two = _draw(rng)
        forced_p, forced_n = _forced(one)
        real = _real_cost(two)
        high = high_confidence_bound(forced_p, forced_n, MODEL, COSTS, confidence=confidence,
                                     side="best")
        plain = cc.bound_from_rates(cc.ErrorRates.from_forced(forced_p, forced_n), MODEL, COSTS)
        assert high.best_cost <= plain.best_cost + 1e-9  # never above the plain best case
        assert high.worst_cost == pytest.approx(plain.worst_cost, rel=1e-12)  # one-sided
        held += real >= high.best_cost - 1e-9
        plain_held += real >= plain.best_cost - 1e-9
    se = np.sqrt(confidence * (1 - confidence) / runs)
    assert held / runs >= confidence - 3 * se, (held / runs, confidence)
    # the plain best case is undercut far more often: the test could fail
    assert plain_held / runs < confidence - 3 * se, plain_held / runs


def test_the_best_case_from_known_rates_holds_with_the_stated_probability() -> None:
    """Exact rates (a network table): only the candidate's instances are random."""
    rng = np.random.default_rng(5)
    # the rates these kinds imply: class P fails with the slot right in `always`, wrong in
    # `wrong_only + always`; class N likewise
    p, n = KINDS["P"], KINDS["N"]
    rates = cc.ErrorRates(fn_forced_p=p[2], fn_forced_n=p[1] + p[2],
                          fp_forced_p=n[1] + n[2], fp_forced_n=n[2])
    confidence, runs = 0.9, 1500
    high = high_confidence_bound_from_rates(rates, MODEL, COSTS, confidence=confidence,
                                            side="best")
    plain = cc.bound_from_rates(rates, MODEL, COSTS)
    assert high.best_cost <= plain.best_cost and high.method == "binomial"
    real = np.array([_real_cost(_draw(rng)[1]) for _ in range(runs)])
    se = np.sqrt(confidence * (1 - confidence) / runs)
    assert np.mean(real >= high.best_cost - 1e-9) >= confidence - 3 * se
    assert np.mean(real >= plain.best_cost - 1e-9) < confidence - 3 * se


@pytest.mark.parametrize("assumption", ["monotone", "none"])
def test_the_best_side_mirrors_the_worst(assumption: str) -> None:
    forced_p = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
    forced_n = cc.Confusion(tp=60, fn=40, fp=30, tn=170)
    model = cc.Confusion(tp=70, fn=30, fp=50, tn=150)
    plain = cc.bound_from_rates(cc.ErrorRates.from_forced(forced_p, forced_n), model, COSTS,
                                assumption=assumption)
    worst = high_confidence_bound(forced_p, forced_n, model, COSTS, assumption=assumption)
    best = high_confidence_bound(forced_p, forced_n, model, COSTS, assumption=assumption,
                                 side="best")
    assert best.best_cost <= plain.best_cost <= plain.worst_cost <= worst.worst_cost
    assert best.worst_cost == pytest.approx(plain.worst_cost, rel=1e-12)
    assert worst.best_cost == pytest.approx(plain.best_cost, rel=1e-12)
    assert best.form == "high-confidence" and best.confidence == 0.95
    # more confidence, a lower (looser) best case
    looser = high_confidence_bound(forced_p, forced_n, model, COSTS, assumption=assumption,
                                   side="best", confidence=0.999)
    assert looser.best_cost <= best.best_cost


def test_an_unknown_side_is_refused() -> None:
    with pytest.raises(ValidationError, match="side"):
        high_confidence_bound(cc.Confusion(1, 1, 1, 1), cc.Confusion(1, 1, 1, 1),
                              cc.Confusion(1, 1, 1, 1), side="both")
