"""Exact interventional tables (inference.exact, inference.query) against independent routes.

References, in order of independence:

* brute-force enumeration of the mutilated network's joint distribution (conftest.py);
* pgmpy's ``VariableElimination`` on ``network.do([slot])`` with evidence ``slot = x``
  (pgmpy's ``do`` leaves a column-average CPD on the slot, which the evidence then overrides);
* the thesis's worked numbers (seeds/002_c815aea2daaf5faa.txt, §3.3 and §4).

pgmpy's ``CausalInference.query`` is *not* a reference: it drops the class evidence on the
population network (pgmpy issues #1701 and #3543); a regression test pins that down.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import OUTCOMES, SLOW_OK, brute_force_table, random_systems
from hypothesis import given, settings

import causalcost as cc
from causalcost.inference.exact import exact_table

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.inference import CausalInference, VariableElimination

#: The shipped vote networks (a score network: tests/scores/test_score_network.py).
NETWORKS = cc.list_networks("votes")


def _pgmpy_table(system: cc.System, slot: str) -> np.ndarray:
    """``[c, x, k]`` by variable elimination on pgmpy's own ``do`` with evidence on the slot."""
    intervened = system.network.do([slot])
    inference = VariableElimination(intervened)
    pos, neg = system.positive, system.negative()
    out = np.zeros((2, 2, 4))
    for c, cls in enumerate((pos, neg)):
        for x, forced in enumerate((pos, neg)):
            factor = inference.query([system.confusion_node],
                                     evidence={slot: forced, system.class_node: cls},
                                     show_progress=False)
            states = factor.state_names[system.confusion_node]
            for k, outcome in enumerate(OUTCOMES):
                out[c, x, k] = factor.values[states.index(outcome)]
    return out


# ------------------------------------------------------------------------ brute force
def test_every_shipped_network_is_checked() -> None:
    # the six vote networks of networks/*.toml; a new one must come with its own checks
    # (soft_vote3, a score network: tests/scores/test_score_network.py)
    assert set(NETWORKS) == {"anticorrelated_and", "experiment_or", "majority3",
                             "population_and", "thesis_and", "thesis_or"}
    assert set(cc.list_networks()) == set(NETWORKS) | {"soft_vote3"}


@pytest.mark.parametrize("name", NETWORKS)
def test_shipped_table_matches_brute_force(name: str, shipped) -> None:
    system = shipped[name]
    for slot in system.models:  # the file's slot and every other model
        expected = brute_force_table(system, slot)  # brute-force enumeration
        table = cc.interventional_table(system, slot)
        assert table.slot == slot and table.method == "exact"
        np.testing.assert_allclose(table.probabilities, expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(exact_table(system, slot).probabilities, expected,
                                   rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=SLOW_OK)
@given(system=random_systems())
def test_random_table_matches_brute_force(system: cc.System) -> None:
    expected = brute_force_table(system)  # brute-force enumeration
    table = cc.interventional_table(system)
    np.testing.assert_allclose(table.probabilities, expected, rtol=0, atol=1e-12)
    # rates are read off the right cells: e_P(x) = FN | P, e_N(x) = FP | N
    rates = table.error_rates
    assert rates.fn_forced_p == pytest.approx(expected[0, 0, 1], abs=1e-12)
    assert rates.fn_forced_n == pytest.approx(expected[0, 1, 1], abs=1e-12)
    assert rates.fp_forced_p == pytest.approx(expected[1, 0, 2], abs=1e-12)
    assert rates.fp_forced_n == pytest.approx(expected[1, 1, 2], abs=1e-12)


def test_plan_cache_does_not_reuse_cpd_values() -> None:
    # Two systems with the same structure and different CPDs share a contraction plan; each
    # must still give its own numbers (brute-force enumeration of each).
    def build(se: float) -> cc.System:
        return (cc.SystemBuilder(class_prior=0.4)
                .add_model("a", sensitivity=se, specificity=0.7)
                .add_model("b", sensitivity=0.6, specificity=0.9)
                .set_fusioner("or").build(slot="b"))

    first, second = build(0.8), build(0.3)
    for system in (first, second, first):
        np.testing.assert_allclose(cc.interventional_table(system).probabilities,
                                   brute_force_table(system), rtol=0, atol=1e-12)
    # OR: with the slot forced to N the system misses a positive iff "a" does: 1 - se
    assert cc.error_rates(first).fn_forced_n == pytest.approx(0.2, abs=1e-12)
    assert cc.error_rates(second).fn_forced_n == pytest.approx(0.7, abs=1e-12)


def test_class_with_zero_probability_is_rejected() -> None:
    # P(Class = P) = 0: e_P(x) conditions on an impossible event
    system = (cc.SystemBuilder(class_prior=0.0)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("b", sensitivity=0.8, specificity=0.8)
              .set_fusioner("and").build(slot="b"))
    with pytest.raises(cc.ValidationError, match="positive class has probability 0"):
        cc.interventional_table(system)


def test_unknown_method_and_missing_slot() -> None:
    system = cc.load_network("thesis_and")
    with pytest.raises(cc.ValidationError, match="exact"):
        cc.interventional_table(system, method="magic")
    bare = cc.load_network("thesis_and").network
    no_slot = cc.System.from_pgmpy(bare, class_node="Class", system_node="Fusioner")
    with pytest.raises(cc.NetworkStructureError, match="no slot chosen.*'clinical_history'"):
        cc.interventional_table(no_slot)


# ------------------------------------------------------------------------ pgmpy reference
@pytest.mark.parametrize("name", NETWORKS)
def test_shipped_table_matches_pgmpy_variable_elimination(name: str, shipped) -> None:
    system = shipped[name]
    expected = _pgmpy_table(system, system.slot)  # pgmpy VariableElimination on do([slot])
    np.testing.assert_allclose(cc.interventional_table(system).probabilities, expected,
                               rtol=0, atol=1e-10)


def test_pgmpy_causal_inference_drops_class_evidence_on_population_and() -> None:
    """Regression: pgmpy 1.1.2 ``CausalInference.query`` ignores ``Class = P`` here.

    It reports a nonzero P(FP | Class = P), which is impossible (FP needs class N). Our table
    has exactly 0 there. pgmpy issues #1701 and #3543.
    """
    system = cc.load_network("population_and")
    ours = cc.interventional_table(system).probabilities
    inference = CausalInference(system.network)
    worst = 0.0
    for x, forced in enumerate(("P", "N")):
        factor = inference.query(["Confusion"], do={system.slot: forced},
                                 evidence={"Class": "P"}, show_progress=False)
        states = factor.state_names["Confusion"]
        theirs = np.array([factor.values[states.index(k)] for k in OUTCOMES])
        # impossible outcomes given Class = P: FP and TN, exactly 0 in our table
        assert ours[0, x, 2] == 0.0 and ours[0, x, 3] == 0.0
        worst = max(worst, float(np.max(np.abs(theirs - ours[0, x]))))
    if worst <= 1e-3:
        pytest.xfail(
            "pgmpy CausalInference.query now agrees with the interventional table on "
            "population_and: the bug of pgmpy issues #1701/#3543 seems fixed; turn this "
            "regression test into an agreement test"
        )
    assert worst > 1e-3


# ------------------------------------------------------------------------ thesis numbers
@pytest.mark.parametrize(("name", "expected"), [
    # thesis §4, example 1 (AND, images 80 %/80 %): e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0
    ("thesis_and", (0.2, 1.0, 0.2, 0.0)),
    # thesis §4, example 2 (OR, images 25 % / 50 %): 0, 0.75, 1, 0.5
    ("thesis_or", (0.0, 0.75, 1.0, 0.5)),
])
def test_thesis_error_rates(name: str, expected: tuple[float, ...]) -> None:
    rates = cc.error_rates(cc.load_network(name))
    got = (rates.fn_forced_p, rates.fn_forced_n, rates.fp_forced_p, rates.fp_forced_n)
    assert got == pytest.approx(expected, abs=1e-12)


def test_anticorrelated_and_thesis_3_3() -> None:
    system = cc.load_network("anticorrelated_and")
    rates = cc.error_rates(system)
    # thesis §3.3: the other model is right on half the positives, so with the slot forced
    # to P the AND system misses half of them; forced to N it misses them all
    assert rates.fn_forced_p == pytest.approx(0.5, abs=1e-12)
    assert rates.fn_forced_n == pytest.approx(1.0, abs=1e-12)
    # Observationally (slot keeps its own CPD, no do) the two models are never right on the
    # same positive, so the AND system misses every positive: P(Fusioner = N | Class = P) = 1
    # (thesis §3.3: "the real system costs 100" on 100 positives with c_FN = 1).
    factor = VariableElimination(system.network).query(
        ["Fusioner"], evidence={"Class": "P"}, show_progress=False)
    states = factor.state_names["Fusioner"]
    assert factor.values[states.index("N")] == pytest.approx(1.0, abs=1e-12)
    # and that differs from the interventional e_P(P) = 0.5: observing is not intervening
    assert abs(factor.values[states.index("N")] - rates.fn_forced_p) > 0.4


def test_class_marginal_is_unchanged_by_the_intervention() -> None:
    # Class is not a descendant of the slot, so P(Class | do(slot)) = P(Class) (METHOD.md).
    # Brute force on the mutilated population network vs the population file's numbers:
    # P(Class = P) = 0.5*0.1 + 0.3*0.4 + 0.2*0.7 = 0.31.
    from conftest import brute_force_joint

    system = cc.load_network("population_and")
    for forced in ("P", "N"):
        joint = brute_force_joint(cc.mutilate(system, {system.slot: forced}), "Class",
                                  "Confusion")
        mass = sum(p for (c, _), p in joint.items() if c == "P")
        assert mass == pytest.approx(0.31, abs=1e-12)
