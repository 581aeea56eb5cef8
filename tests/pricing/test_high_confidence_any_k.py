"""The K-label high-confidence bound: both sides, both assumptions (one monotone rule).

* K = 2: the general route equals the binary closed forms (``cc.high_confidence_bound`` on
  Confusions) on random monotone systems, both sides, both assumptions, both limits.
* Coverage by simulation (K = 3, 4): instances are drawn with response vectors that obey the
  monotone rule for the costs; an adversarial candidate picks, per instance, the dearest (for
  the worst side) or the cheapest (best side) forced output. The real cost must stay within
  the high-confidence case in at least ``confidence`` of the draws, while the plug-in case is
  broken often (so the simulation can tell a bound that is too tight).
* Order: plug-in <= monotone <= assumption-free on the worst side (mirrored on the best).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import causalcost as cc
from causalcost.errors import InfeasibleInputError, ValidationError
from causalcost.pricing.general import general_bound
from causalcost.pricing.high_confidence_general import general_high_confidence_bound
from causalcost.pricing.views import binary_confusion, binary_costs

COSTS = {
    2: np.array([[0.0, 5.0], [1.0, 0.0]]),
    3: np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [3.0, 3.0, 0.0]]),
    4: np.array([[0, 1, 2, 4], [2, 0, 1, 1], [3, 3, 0, 1], [1, 2, 5, 0]], dtype=float),
}


def population(k: int, costs: np.ndarray, rng: np.random.Generator) -> list[tuple[list, Any]]:
    """Per class, a distribution over the response vectors the monotone rule allows."""
    out = []
    for c in range(k):
        allowed = [r for r in itertools.product(range(k), repeat=k)
                   if all(costs[c, r[c]] <= costs[c, r[j]] for j in range(k))]
        out.append((allowed, rng.dirichlet(np.full(len(allowed), 0.3))))
    return out


def draw(k: int, pop: list, costs: np.ndarray, n1: int, n2: int, side: str,
         rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """Stage-1 forced runs, the adversarial candidate's confusion and its real cost."""
    forced = np.zeros((k, k, k), dtype=np.int64)
    model = np.zeros((k, k), dtype=np.int64)
    real = 0.0
    for c, (allowed, p) in enumerate(pop):
        first = np.array([allowed[i] for i in rng.choice(len(allowed), n1, p=p)])
        for j in range(k):
            np.add.at(forced[j, c], first[:, j], 1)
        second = np.array([allowed[i] for i in rng.choice(len(allowed), n2, p=p)])
        by_label = costs[c][second]  # (n2, K): each instance's cost per prediction
        pick = by_label.argmax(axis=1) if side == "worst" else by_label.argmin(axis=1)
        np.add.at(model[c], pick, 1)
        real += float(by_label[np.arange(n2), pick].sum())
    return forced, model, real


def misses(k: int, assumption: str, side: str, draws: int, n: int, seed: int
           ) -> tuple[int, int]:
    """(high-confidence misses, plug-in misses) over ``draws`` simulated evaluations."""
    rng = np.random.default_rng(seed)
    costs = COSTS[k]
    pop = population(k, costs, rng)
    high = plain = 0
    for _ in range(draws):
        forced, model, real = draw(k, pop, costs, n, n, side, rng)
        hc = general_high_confidence_bound(forced, model, costs, confidence=0.9,
                                           assumption=assumption, side=side)
        plug = general_bound(forced, model, costs, assumption=assumption)
        if side == "worst":
            high += real > hc.worst_cost + 1e-9
            plain += real > plug.worst_cost + 1e-9
        else:
            high += real < hc.best_cost - 1e-9
            plain += real < plug.best_cost - 1e-9
    return high, plain


@pytest.mark.parametrize("side", ["worst", "best"])
@pytest.mark.parametrize(("k", "draws"), [(3, 200), (4, 60)])
def test_assumption_free_coverage(k: int, draws: int, side: str) -> None:
    high, plain = misses(k, "none", side, draws, n=20, seed=k)
    assert high <= 0.1 * draws
    assert plain >= 0.05 * draws  # the adversary breaks the plug-in case: the check has teeth


@pytest.mark.parametrize("side", ["worst", "best"])
@pytest.mark.parametrize(("k", "draws"), [(3, 40), (4, 20)])
def test_monotone_coverage(k: int, draws: int, side: str) -> None:
    high, plain = misses(k, "monotone", side, draws, n=20, seed=10 + k)
    assert high <= 0.1 * draws
    assert plain >= 0.05 * draws


@pytest.mark.parametrize("seed", range(30))
def test_k2_general_route_equals_the_binary_forms(seed: int) -> None:
    rng = np.random.default_rng(seed)
    costs = np.array([[rng.integers(0, 2), rng.integers(2, 6)], [rng.integers(1, 4), 0]],
                     dtype=float)
    pop = population(2, costs, rng)
    for side, assumption, method in itertools.product(("worst", "best"), ("none", "monotone"),
                                                      ("conditional", "clopper-pearson")):
        forced, model, _ = draw(2, pop, costs, int(rng.integers(5, 40)),
                                int(rng.integers(1, 40)), side, rng)
        general = general_high_confidence_bound(forced, model, costs, confidence=0.9,
                                                assumption=assumption, side=side,
                                                method=method)
        binary = cc.high_confidence_bound(
            binary_confusion(forced[0]), binary_confusion(forced[1]), binary_confusion(model),
            binary_costs(costs), confidence=0.9, assumption=assumption, side=side,
            method=method)
        for key in ("worst_cost", "best_cost", "expected_cost"):
            assert getattr(general, key) == pytest.approx(getattr(binary, key), rel=1e-12,
                                                          abs=1e-12), (side, assumption, key)
        arrays = cc.high_confidence_bound(forced, model, costs, confidence=0.9,
                                          assumption=assumption, side=side, method=method)
        assert arrays.worst_cost == pytest.approx(binary.worst_cost, rel=1e-12)
        assert arrays.best_cost == pytest.approx(binary.best_cost, rel=1e-12)


@pytest.mark.parametrize("k", [3, 4])
def test_monotone_sits_between_plug_in_and_assumption_free(k: int) -> None:
    rng = np.random.default_rng(k)
    costs = COSTS[k]
    pop = population(k, costs, rng)
    for side in ("worst", "best"):
        forced, model, _ = draw(k, pop, costs, 40, 30, side, rng)
        plug = general_bound(forced, model, costs, assumption="monotone")
        mono = cc.high_confidence_bound(forced, model, costs, assumption="monotone", side=side)
        free = cc.high_confidence_bound(forced, model, costs, side=side)
        assert mono.form == free.form == "high-confidence" and mono.assumption == "monotone"
        if side == "worst":
            assert plug.worst_cost <= mono.worst_cost + 1e-9 <= free.worst_cost + 2e-9
            assert mono.best_cost == pytest.approx(plug.best_cost, rel=1e-12)
            assert np.asarray(mono.worst).sum() == model.sum()
        else:
            assert free.best_cost - 1e-9 <= mono.best_cost <= plug.best_cost + 1e-9
            assert mono.worst_cost == pytest.approx(plug.worst_cost, rel=1e-12)


def test_refusals_name_the_option() -> None:
    forced = np.zeros((3, 3, 3), dtype=int)
    for j in range(3):
        forced[j, :, j] = 5
    model = np.eye(3, dtype=int) * 4
    with pytest.raises(ValidationError, match="side .* must be 'worst'"):
        cc.high_confidence_bound(forced, model, 1 - np.eye(3), side="middle")
    with pytest.raises(ValidationError, match="assumption"):
        cc.high_confidence_bound(forced, model, 1 - np.eye(3), assumption="maybe")
    bad = forced.copy()
    bad[0, 0] = [0, 5, 0]  # right label forced: always wrong; forced to label 1: always right
    bad[1, 0] = [5, 0, 0]
    with pytest.raises(InfeasibleInputError, match="monotone"):
        cc.high_confidence_bound(bad, model, 1 - np.eye(3), assumption="monotone")
