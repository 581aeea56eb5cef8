"""K-label bounds against brute force over every multiset of instances (MULTICLASS.md).

An instance of class ``c`` is a pair (response vector ``r`` in K^K, prediction ``p``); its
system cost is ``C[c, r(p)]``. For K = 3 and every multiset of 1 to 3 such instances (83,
3,403 and 95,284 multisets), the true worst and best cost given what the bound sees (the
forced runs ``F[j, s]`` and the prediction counts ``N[c, j]``; or the kind counts and
``N[c, j]``) is the max / min over the multisets that produce it. Restricting to instances
with ``C[c, r(c)] <= C[c, r(j)]`` for every ``j`` gives the monotone truth. Every bound must
equal its truth exactly (count forms are exact, not merely valid).
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import numpy as np
import pytest

import causalcost as cc
from causalcost.pricing.general import _free_class
from causalcost.pricing.programs import transport_class, transport_relaxation

K = 3
VECTORS = list(itertools.product(range(K), repeat=K))
ITEMS = [(r, p) for r in VECTORS for p in range(K)]
#: Cost rows (true class 1): 0/1, all different, ties between wrong outputs.
COSTS = {
    "zero-one": 1 - np.eye(K),
    "distinct": np.array([[0.0, 2.0, 5.0], [3.0, 0.0, 1.0], [4.0, 7.0, 0.5]]),
    "ties": np.array([[0.0, 1.0, 1.0], [2.0, 1.0, 2.0], [3.0, 3.0, 0.0]]),
}


@cache
def truth(name: str, c: int) -> dict[str, dict]:
    """Per observed key: (max, min) over all multisets and over the monotone ones."""
    cost = COSTS[name][c]
    forced: dict = {}
    kinds: dict = {}
    for n in range(1, 4):
        for multiset in itertools.combinations_with_replacement(ITEMS, n):
            f = [[0] * K for _ in range(K)]
            npred = [0] * K
            total = 0.0
            monotone = True
            for r, p in multiset:
                for j in range(K):
                    f[j][r[j]] += 1
                npred[p] += 1
                total += cost[r[p]]
                monotone &= all(cost[r[c]] <= cost[r[j]] for j in range(K))
            fk = (tuple(map(tuple, f)), tuple(npred))
            kk = (tuple(sorted(Counter(r for r, _ in multiset).items())), tuple(npred))
            for table, key in ((forced, fk), (kinds, kk)):
                entry = table.setdefault(key, [-np.inf, np.inf, -np.inf, np.inf])
                entry[0], entry[1] = max(entry[0], total), min(entry[1], total)
                if monotone:
                    entry[2], entry[3] = max(entry[2], total), min(entry[3], total)
    return {"forced": forced, "kinds": kinds}


def class_inputs(c: int, f: tuple, npred: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Forced runs and model with only class ``c`` populated."""
    forced = np.zeros((K, K, K), dtype=int)
    for j in range(K):
        forced[j, c] = f[j]
    model = np.zeros((K, K), dtype=int)
    model[c] = npred
    return forced, model


@pytest.mark.parametrize("name", list(COSTS))
@pytest.mark.parametrize("c", range(K))
def test_assumption_free_equals_brute_force(name: str, c: int) -> None:
    """Every observed key through the per-class rule; a sample through the public function
    (count and probability forms; the validation around the rule costs ~1 ms a call)."""
    table = truth(name, c)["forced"]
    for (f, npred), (hi, lo, _, _) in table.items():
        worst, best = _free_class(np.array(f, dtype=object), np.array(npred, dtype=object),
                                  COSTS[name][c])
        assert float(np.dot(worst, COSTS[name][c])) == pytest.approx(hi, rel=1e-12, abs=1e-12)
        assert float(np.dot(best, COSTS[name][c])) == pytest.approx(lo, rel=1e-12, abs=1e-12)
    for key in _sample(list(table), 150, seed=20 + c, small=60):
        f, npred = key
        hi, lo, _, _ = table[key]
        forced, model = class_inputs(c, f, npred)
        b = cc.bound(forced, model, COSTS[name], same_instances=True)
        assert b.worst_cost == pytest.approx(hi, rel=1e-12, abs=1e-12), key
        assert b.best_cost == pytest.approx(lo, rel=1e-12, abs=1e-12), key
        # the probability form on the same numbers prices the same greedy masses
        p = cc.bound(forced, model, COSTS[name])
        assert p.worst_cost == pytest.approx(hi, rel=1e-12, abs=1e-12)
        assert p.best_cost == pytest.approx(lo, rel=1e-12, abs=1e-12)


def _sample(keys: list, size: int, seed: int, small: int = 100) -> list:
    """A fixed random sample of ``small`` keys with at most 2 instances and ``size`` with 3
    (every key is checked against the truth of *every* multiset that produces it; the
    monotone program needs HiGHS solves, so not every key is run)."""
    rng = np.random.default_rng(seed)
    out = []
    for part, count in (([k for k in keys if sum(k[1]) <= 2], small),
                        ([k for k in keys if sum(k[1]) > 2], size)):
        chosen = rng.choice(len(part), size=min(count, len(part)), replace=False)
        out += [part[i] for i in sorted(chosen)]
    return out


@pytest.mark.parametrize("name", list(COSTS))
@pytest.mark.parametrize("c", range(K))
def test_monotone_equals_brute_force(name: str, c: int) -> None:
    table = truth(name, c)["forced"]
    checked = feasible = 0
    for key in _sample(list(table), 150, seed=c):
        f, npred = key
        _, _, hi, lo = table[key]
        forced, model = class_inputs(c, f, npred)
        if hi == -np.inf:  # no monotone system gives these forced runs
            with pytest.raises(cc.InfeasibleInputError):
                cc.bound(forced, model, COSTS[name], same_instances=True,
                                    assumption="monotone")
            checked += 1
            continue
        b = cc.bound(forced, model, COSTS[name], same_instances=True,
                                assumption="monotone")
        assert b.worst_cost == pytest.approx(hi, rel=1e-12, abs=1e-12), key
        assert b.best_cost == pytest.approx(lo, rel=1e-12, abs=1e-12), key
        # the LP relaxation (probability form) is valid: never inside the exact bound
        p = cc.bound(forced, model, COSTS[name], assumption="monotone")
        assert p.worst_cost >= hi - 1e-9 and p.best_cost <= lo + 1e-9
        checked += 1
        feasible += 1
    assert feasible > 50 and checked > feasible  # both branches were exercised


@pytest.mark.parametrize("name", list(COSTS))
@pytest.mark.parametrize("c", range(K))
def test_kinds_equal_brute_force(name: str, c: int) -> None:
    table = truth(name, c)["kinds"]
    for key in _sample(list(table), 200, seed=10 + c):
        kinds_items, npred = key
        hi, lo, _, _ = table[key]
        model = np.zeros((K, K), dtype=int)
        model[c] = npred
        kinds = {(c, r): n for r, n in kinds_items}
        b = cc.bound(model=model, costs=COSTS[name], kinds=kinds)
        assert (b.worst_cost, b.best_cost) == pytest.approx((hi, lo), rel=1e-12, abs=1e-12)
        assert b.form == "kinds" and b.assumption == "none"
        # and the kinds bound is never looser than the assumption-free forced-run bound
        forced = np.zeros((K, K, K), dtype=int)
        for r, n in kinds_items:
            for j in range(K):
                forced[j, c, r[j]] += n
        free = cc.bound(forced, model, COSTS[name], same_instances=True)
        assert free.best_cost - 1e-9 <= b.best_cost <= b.worst_cost <= free.worst_cost + 1e-9


def test_transportation_relaxation_has_integral_vertices() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        vectors = [tuple(rng.integers(0, 4, size=4)) for _ in range(int(rng.integers(1, 8)))]
        vectors = sorted(set(vectors))
        supplies = [int(v) for v in rng.integers(1, 9, size=len(vectors))]
        cuts = np.sort(rng.integers(0, sum(supplies) + 1, size=3))
        n_row = [int(v) for v in np.diff([0, *cuts, sum(supplies)])]
        cost = rng.uniform(0, 10, size=4)
        for maximise in (True, False):
            x = transport_relaxation(vectors, supplies, n_row, cost, maximise=maximise)
            assert np.allclose(x, np.round(x), atol=1e-9)
            value = float(np.dot(np.round(x), [cost[t[j]] for t in vectors for j in range(4)]))
            (hi_cost, _), (lo_cost, _) = transport_class(vectors, supplies, n_row, cost)
            assert value == pytest.approx(float(hi_cost if maximise else lo_cost), rel=1e-12)


def test_kinds_frame_and_mapping_by_names_agree() -> None:
    labels = ["cat", "dog", "eel"]
    mapping = {("cat", ("cat", "dog", "eel")): 2, ("dog", ("cat", "dog", "dog")): 1}
    model = [[1, 1, 0], [0, 0, 1], [0, 0, 0]]
    costs = COSTS["distinct"]
    a = cc.bound(model=model, costs=costs, kinds=mapping, labels=labels)
    kinds = cc.read_kinds(mapping, 3, labels)
    b = cc.bound(model=model, costs=costs, kinds=kinds.to_frame())
    assert a.labels == b.labels == tuple(labels)
    # hand count: class cat, predictions cat and dog on two (cat, dog, eel) instances: outputs
    # cat (0) and dog (2); class dog predicted eel on (cat, dog, dog): output dog (0)
    assert a.worst_cost == b.worst_cost == pytest.approx(2.0)
    assert np.array_equal(a.worst.astype(int), b.worst.astype(int))
