"""The exact monotonicity check on K-label systems, its use by the monotone bound, and the
high-confidence worst case's coverage checked by simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import causalcost as cc
from causalcost.pricing.programs import transport_class


def small_system(seed: int, fusion: str, opts: dict, k: int = 3, n: int = 4,
                 zeros: bool = False) -> cc.MulticlassSystem:
    rng = np.random.default_rng(seed)
    labels = [f"L{i}" for i in range(k)]
    b = cc.SystemBuilder(list(rng.dirichlet(np.ones(k))), labels=labels)
    for i in range(n):
        rates = rng.dirichlet(np.ones(k), size=k)
        if zeros:  # some votes impossible: the check must only look at reachable ones
            rates[:, 0] = 0.0
            rates /= rates.sum(axis=1, keepdims=True)
        b.add_model(f"m{i}", confusion=rates)
    return b.set_fusioner(fusion, **opts).build(slot=f"m{n - 1}")


def brute_monotone(system: cc.MulticlassSystem, costs: np.ndarray) -> bool:
    """Every vote configuration of the other models with positive probability, every class."""
    k = system.k
    slot = system.models.index(system.slot)
    f = system.fusioner
    for c in range(k):
        support = [np.flatnonzero(m.rates[c, 0]) for m in system.members]
        others = [i for i in range(len(system.models)) if i != slot]
        for combo in itertools.product(*(support[i] for i in others)):
            votes = [0] * len(system.models)
            for i, v in zip(others, combo):
                votes[i] = int(v)
            outs = []
            for j in range(k):
                votes[slot] = j
                outs.append(f.output(votes, j))
            if any(costs[c, outs[j]] < costs[c, outs[c]] for j in range(k)):
                return False
    return True


COST_CASES = [1 - np.eye(3), np.array([[0, 1, 5], [1, 0, 1], [1, 1, 0]], float),
              np.array([[0, 3, 1], [2, 0, 2], [1, 4, 0]], float)]
FUSIONS = [("plurality", {}), ("plurality", {"tie": "slot"}), ("priority", {"order": ["L2"]}),
           ("k_of_n", {"label": "L1", "k": 2}), ("weighted", {"weights": [2, 1, 1, 1.5]})]


@pytest.mark.parametrize("fusion,opts", FUSIONS)
@pytest.mark.parametrize("zeros", [False, True])
def test_check_equals_enumeration(fusion: str, opts: dict, zeros: bool) -> None:
    seen = set()
    for seed, costs in itertools.product(range(3), COST_CASES):
        system = small_system(seed, fusion, opts, zeros=zeros)
        got = cc.check_monotonicity(system, costs)
        assert got.is_monotone == brute_monotone(system, costs)
        assert (got.violation is None) == got.is_monotone
        seen.add(got.is_monotone)
    if fusion == "plurality" and not zeros:
        assert seen == {True, False}  # both answers occur in these cases


def test_plurality_with_zero_one_costs_is_monotone() -> None:
    for seed in range(5):
        system = small_system(seed, "plurality", {}, k=4, n=5)
        assert cc.check_monotonicity(system, 1 - np.eye(4)).is_monotone


def test_check_refuses_a_user_function_over_too_many_configurations() -> None:
    b = cc.SystemBuilder([0.5, 0.5, 0.0], labels=["x", "y", "z"])
    for i in range(16):
        b.add_model(f"m{i}", confusion=np.full((3, 3), 1 / 3))
    system = b.set_fusioner(lambda **v: v["m0"]).build(slot="m15")
    with pytest.raises(cc.ValidationError, match="vote configurations"):
        cc.check_monotonicity(system, 1 - np.eye(3))


def test_monotone_bound_refused_when_the_check_fails() -> None:
    system = small_system(0, "plurality", {})
    costs = COST_CASES[1]
    check = cc.check_monotonicity(system, costs)
    assert not check.is_monotone
    forced = np.zeros((3, 3, 3), dtype=int)
    for j in range(3):
        forced[j, :, j] = 3
    with pytest.raises(cc.MonotonicityError, match="not monotone"):
        cc.bound(forced, np.eye(3, dtype=int) * 3, costs, same_instances=True,
                            assumption="monotone", monotonicity=check)


def _stage(rng: np.random.Generator, probs: np.ndarray, n: int) -> dict:
    """Kinds of ``n`` instances per class: response vectors drawn from ``probs[c]``."""
    vectors = list(itertools.product(range(3), repeat=3))
    out: dict = {}
    for c in range(3):
        draws = rng.multinomial(n, probs[c])
        for v, count in zip(vectors, draws):
            if count:
                out[(c, v)] = int(count)
    return out


def test_high_confidence_worst_case_covers_by_simulation() -> None:
    """Stage 1 and stage 2 drawn from the same population of response vectors; the
    candidate's predictions placed adversarially on the stage-2 instances (the kinds worst
    case, which no placement exceeds). The high-confidence worst case must cover the real
    cost in at least ``confidence`` of the runs (up to simulation error); the plain one does
    not."""
    rng = np.random.default_rng(2026)
    probs = rng.dirichlet(np.full(27, 0.3), size=3)
    costs = np.array([[0, 1, 4], [2, 0, 1], [3, 1, 0]], float)
    model = np.array([[7, 2, 1], [2, 6, 2], [1, 1, 8]])
    runs, hc_ok, plain_ok = 300, 0, 0
    for _ in range(runs):
        stage1 = cc.read_kinds(_stage(rng, probs, 10), 3)
        stage2 = cc.read_kinds(_stage(rng, probs, 10), 3)
        real = 0.0
        for c in range(3):
            vectors, supplies = stage2.by_class(c)
            (hi, _), _ = transport_class(vectors, supplies, list(model[c]), costs[c])
            real += float(hi)
        forced = stage1.forced()
        hc = cc.high_confidence_bound(forced, model, costs, confidence=0.9)
        plain = cc.bound(forced, model, costs)
        assert hc.worst_cost >= plain.worst_cost - 1e-9
        hc_ok += real <= hc.worst_cost + 1e-9
        plain_ok += real <= plain.worst_cost + 1e-9
    se = np.sqrt(0.9 * 0.1 / runs)
    assert hc_ok / runs >= 0.9 - 3 * se
    assert plain_ok < hc_ok  # the plain worst case misses more often


def test_high_confidence_refuses_bad_input() -> None:
    forced = np.zeros((3, 3, 3), dtype=int)
    forced[0, 0, 0] = 2
    forced[1, 0, 0] = 1
    forced[2, 0, 0] = 2
    with pytest.raises(cc.ValidationError, match="same stage-1 instances"):
        cc.high_confidence_bound(forced, np.eye(3, dtype=int))
    with pytest.raises(cc.ValidationError, match="confidence"):
        cc.high_confidence_bound(forced, np.eye(3, dtype=int), confidence=1.0)


def _instances(system: cc.MulticlassSystem, n: int, rng: np.random.Generator) -> dict:
    """Kinds of ``n`` simulated instances per class: each instance's response vector is the
    fusioner's output for its drawn votes with the slot forced to each label."""
    k = system.k
    slot = system.models.index(system.slot)
    kinds: dict = {}
    for c in range(k):
        for _ in range(n):
            votes = [int(rng.choice(k, p=m.rates[c, 0])) for m in system.members]
            r = []
            for j in range(k):
                votes[slot] = j
                r.append(system.fusioner.output(votes, j))
            kinds[(c, tuple(r))] = kinds.get((c, tuple(r)), 0) + 1
    return kinds


@pytest.mark.parametrize("fusion,opts", FUSIONS)
def test_monotone_bound_contains_the_exact_kinds_bound_on_simulated_instances(
        fusion: str, opts: dict) -> None:
    """On instances simulated from a system the check calls monotone, the monotone count
    bound (from the forced runs only) contains the exact kinds bound (from every response
    vector), which the assumption-free bound contains in turn."""
    rng = np.random.default_rng(9)
    checked = 0
    for seed, costs in itertools.product(range(4), COST_CASES):
        system = small_system(seed, fusion, opts)
        if not cc.check_monotonicity(system, costs).is_monotone:
            continue
        kinds = cc.read_kinds(_instances(system, 6, rng), 3)
        model = np.zeros((3, 3), dtype=int)
        for c, size in enumerate(kinds.class_sizes()):
            model[c] = rng.multinomial(int(size), np.ones(3) / 3)
        exact = cc.bound(model=model, costs=costs, kinds=kinds)
        forced = kinds.forced()
        mono = cc.bound(forced, model, costs, same_instances=True,
                                   assumption="monotone")
        free = cc.bound(forced, model, costs, same_instances=True)
        assert free.best_cost - 1e-9 <= mono.best_cost <= exact.best_cost + 1e-9
        assert exact.worst_cost - 1e-9 <= mono.worst_cost <= free.worst_cost + 1e-9
        checked += 1
    assert checked >= 3
