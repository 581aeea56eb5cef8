"""The do-operator (``cc.mutilate``) and the monotonicity check (``cc.check_monotonicity``).

Expected structure comes from Pearl's definition (Causality §3.2, restated in METHOD.md):
do(X = x) removes every edge into X and gives X a point mass on x; everything else is
untouched. Monotonicity claims are re-checked by evaluating the fusioner CPD directly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import ALL_RULES, MONOTONE_RULES, SLOW_OK, random_systems
from hypothesis import given, settings
from hypothesis import strategies as st
from test_monotone_by_construction import with_fusioner

import causalcost as cc


def _snapshot(network):
    """Edges and a deep copy of every CPD (values and state names), to compare later."""
    return (sorted(network.edges()),
            {c.variable: (list(c.variables), np.array(c.get_values(), copy=True),
                          {k: list(v) for k, v in c.state_names.items()})
             for c in network.get_cpds()})


def _same(a, b) -> bool:
    if a[0] != b[0] or a[1].keys() != b[1].keys():
        return False
    return all(a[1][n][0] == b[1][n][0] and np.array_equal(a[1][n][1], b[1][n][1])
               and a[1][n][2] == b[1][n][2] for n in a[1])


def _fusioner_output(system: cc.System, assignment: dict[str, str]) -> str:
    """The state of the system node at ``assignment`` of its parents, read off its CPD."""
    cpd = system.network.get_cpds(system.system_node)
    states = cpd.state_names[system.system_node]
    probs = [cpd.get_value(**{system.system_node: s}, **assignment) for s in states]
    assert sorted(probs) == [0.0] * (len(states) - 1) + [1.0]  # deterministic
    return states[int(np.argmax(probs))]


def _enumerated_monotone(system: cc.System) -> bool:
    """Monotone in the slot when the fusioner's inputs are models only (all tested systems):
    every assignment of the other inputs, slot P gives a prediction at least as positive."""
    parents = system.network.get_parents(system.system_node)
    others = [p for p in parents if p != system.slot]
    pos, neg = system.positive, system.negative()
    for values in itertools.product(*(system.states(o) for o in others)):
        base = dict(zip(others, values))
        at_p = _fusioner_output(system, {**base, system.slot: pos})
        at_n = _fusioner_output(system, {**base, system.slot: neg})
        if at_n == pos and at_p != pos:
            return False
    return True


# ------------------------------------------------------------------------ mutilate
@pytest.mark.parametrize("name", cc.list_networks())
def test_mutilate_returns_a_new_network_and_leaves_the_input_alone(name: str) -> None:
    system = cc.load_network(name)
    before = _snapshot(system.network)
    slot = system.slot
    parents_before = system.network.get_parents(slot)
    for forced in system.states(slot):  # P and N, or a score slot's bins
        cut = cc.mutilate(system, {slot: forced})
        assert cut is not system.network
        assert _same(before, _snapshot(system.network))  # the input is unchanged
        # the slot has no parents and a point mass on the forced state
        assert cut.get_parents(slot) == []
        cpd = cut.get_cpds(slot)
        assert list(cpd.variables) == [slot]
        states = list(cpd.state_names[slot])
        assert states == system.states(slot)
        expected = [1.0 if s == forced else 0.0 for s in states]
        assert np.asarray(cpd.get_values()).ravel().tolist() == expected
        # every other edge and CPD is the original one
        kept = [e for e in before[0] if e[1] != slot]
        assert sorted(cut.edges()) == kept
        after = _snapshot(cut)
        for node, (variables, values, names) in before[1].items():
            if node != slot:
                assert after[1][node][0] == variables and after[1][node][2] == names
                np.testing.assert_array_equal(after[1][node][1], values)
        assert cut.check_model()
    assert parents_before == system.network.get_parents(slot)


def test_mutilate_accepts_a_pgmpy_network_and_several_nodes() -> None:
    system = cc.load_network("majority3")
    net = system.network
    before = _snapshot(net)
    cut = cc.mutilate(net, {"images": "N", "lab_tests": "P"})
    assert _same(before, _snapshot(net))
    assert cut.get_parents("images") == [] and cut.get_parents("lab_tests") == []
    assert cut.get_parents("clinical_history") == ["Class"]  # not intervened
    assert np.asarray(cut.get_cpds("images").get_values()).ravel().tolist() == [0.0, 1.0]
    assert np.asarray(cut.get_cpds("lab_tests").get_values()).ravel().tolist() == [1.0, 0.0]


def test_mutilate_unknown_names() -> None:
    system = cc.load_network("thesis_and")
    with pytest.raises(cc.UnknownNameError, match=r"'nope'.*valid nodes: .*'Class'.*'images'"):
        cc.mutilate(system, {"nope": "P"})
    with pytest.raises(cc.UnknownNameError,
                       match=r"state 'yes' is not a state of 'images'; valid states: \['P', 'N'\]"):
        cc.mutilate(system, {"images": "yes"})
    with pytest.raises(KeyError):  # UnknownNameError is also a KeyError
        cc.mutilate(system, {"nope": "P"})
    with pytest.raises(cc.ValidationError, match="intervention is empty"):
        cc.mutilate(system, {})
    with pytest.raises(TypeError, match="System or DiscreteBayesianNetwork"):
        cc.mutilate("thesis_and", {"images": "P"})


def test_pgmpy_do_is_not_a_point_mass() -> None:
    # Why mutilate exists (STYLE.md, "What not to copy from pgmpy"): pgmpy's own do keeps a
    # column average on the node. If a future pgmpy makes it a point mass this documents it.
    system = cc.load_network("thesis_and")
    values = np.asarray(system.network.do(["clinical_history"])
                        .get_cpds("clinical_history").get_values()).ravel()
    mine = np.asarray(cc.mutilate(system, {"clinical_history": "P"})
                      .get_cpds("clinical_history").get_values()).ravel()
    assert mine.tolist() == [1.0, 0.0]
    assert not np.array_equal(values, mine)


# ------------------------------------------------------------------------ monotonicity
@settings(max_examples=60, deadline=None, suppress_health_check=SLOW_OK)
@given(system=random_systems(rules=MONOTONE_RULES))
def test_monotone_rules_pass_on_random_systems(system: cc.System) -> None:
    # and / or / majority (odd, even, both ties) / k_of_n / weighted with weights >= 0
    check = cc.check_monotonicity(system)
    assert check.is_monotone and bool(check) and check.violation is None
    assert _enumerated_monotone(system)  # independent: fusioner CPD evaluated directly
    # a vote is monotone by construction once the system carries its fusioner; without
    # it, the boundary is enumerated: the other fusioner inputs, 2 states each
    assert check.method in ("by construction", "enumeration")
    enumerated = cc.check_monotonicity(with_fusioner(system, None))
    assert enumerated.is_monotone and enumerated.method == "enumeration"
    assert enumerated.assignments == 2 ** (len(system.models) - 1)
    # monotone per instance implies the aggregate specification (METHOD.md)
    assert cc.error_rates(system).is_monotone


@settings(max_examples=40, deadline=None, suppress_health_check=SLOW_OK)
@given(system=random_systems(rules=("function",)))
def test_check_agrees_with_direct_enumeration_for_user_functions(system: cc.System) -> None:
    check = cc.check_monotonicity(system)
    assert check.is_monotone == _enumerated_monotone(system)
    if not check.is_monotone:
        # the reported violation really violates: slot N gives P, slot P gives N
        neg, pos = system.negative(), system.positive
        assert _fusioner_output(system, {**check.violation, system.slot: neg}) == pos
        assert _fusioner_output(system, {**check.violation, system.slot: pos}) == neg


@pytest.mark.parametrize(("rule", "kwargs", "n"), [
    ("majority", {}, 3), ("majority", {}, 4), ("majority", {"tie": "positive"}, 4),
    ("majority", {"tie": "negative"}, 2), ("majority", {"tie": "positive"}, 2),
    ("k_of_n", {"k": 2}, 4), ("k_of_n", {"k": 4}, 4), ("and", {}, 1), ("or", {}, 3),
    ("weighted", {"weights": [0.0, 2.0, 1.0], "threshold": 2.0}, 3),
])
def test_named_monotone_rules(rule: str, kwargs: dict, n: int) -> None:
    builder = cc.SystemBuilder(class_prior=0.4)
    for i in range(n):
        builder.add_model(f"m{i}", sensitivity=0.7, specificity=0.8)
    system = builder.set_fusioner(rule, **kwargs).build(slot=f"m{n - 1}")
    check = cc.check_monotonicity(system)
    assert check.is_monotone and _enumerated_monotone(system)
    assert "monotone" in repr(check) and check.to_dict()["is_monotone"] is True


def test_xor_is_not_monotone_and_the_violation_is_real() -> None:
    xor = (cc.SystemBuilder(class_prior=0.5)
           .add_model("a", sensitivity=0.9, specificity=0.9)
           .add_model("b", sensitivity=0.9, specificity=0.9)
           .set_fusioner("function", function=lambda a, b: a != b).build(slot="b"))
    check = cc.check_monotonicity(xor)
    assert not check.is_monotone and not bool(check)
    assert set(check.violation) == {"a"}
    # re-evaluate the fusioner CPD: with a at the violating state, slot N -> P, slot P -> N
    assert _fusioner_output(xor, {**check.violation, "b": "N"}) == "P"
    assert _fusioner_output(xor, {**check.violation, "b": "P"}) == "N"
    assert "NOT monotone" in repr(check)


def test_weighted_vote_with_a_negative_slot_weight_is_not_monotone() -> None:
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("b", sensitivity=0.8, specificity=0.8)
              .add_model("slot", sensitivity=0.8, specificity=0.8)
              .set_fusioner("weighted", weights={"a": 1.0, "b": 1.0, "slot": -1.0},
                            threshold=1.0)
              .build(slot="slot"))
    check = cc.check_monotonicity(system)
    assert not check.is_monotone
    assert _fusioner_output(system, {**check.violation, "slot": "N"}) == "P"
    assert _fusioner_output(system, {**check.violation, "slot": "P"}) == "N"
    # the same weights are fine for a model with a non-negative weight
    assert cc.check_monotonicity(system, slot="a").is_monotone


def test_chain_of_deterministic_nodes_is_followed() -> None:
    # slot -> relay (relay = NOT slot, deterministic) -> AND: antitone in the slot
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("relay", parents=["a"], positive_probability=[0.0, 1.0])
              .add_model("b", sensitivity=0.8, specificity=0.8)
              .set_fusioner("and", inputs=["relay", "b"]).build(slot="a"))
    check = cc.check_monotonicity(system)
    assert not check.is_monotone and check.violation == {"b": "P"}
    # by hand: b = P, a = N -> relay = P -> AND = P; a = P -> relay = N -> AND = N
    assert _fusioner_output(system, {"relay": "P", "b": "P"}) == "P"
    assert _fusioner_output(system, {"relay": "N", "b": "P"}) == "N"


def test_random_node_between_slot_and_fusioner_is_rejected() -> None:
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("relay", parents=["a"], positive_probability=[0.9, 0.2])
              .add_model("b", sensitivity=0.8, specificity=0.8)
              .set_fusioner("and", inputs=["relay", "b"]).build(slot="a"))
    with pytest.raises(cc.NetworkStructureError, match=r"\['relay'\].*random"):
        cc.check_monotonicity(system)


@pytest.mark.parametrize("rule", ALL_RULES)
def test_fusioner_cpd_is_deterministic(rule: str) -> None:
    # every rule becomes a 0/1 table (METHOD.md: Pred^S is deterministic)
    kwargs = {"k_of_n": {"k": 1}, "weighted": {"weights": [1, 1], "threshold": 1},
              "function": {"function": lambda a, b: a and not b}}.get(rule, {})
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("b", sensitivity=0.8, specificity=0.8)
              .set_fusioner(rule, **kwargs).build(slot="b"))
    values = np.asarray(system.network.get_cpds("Fusioner").get_values())
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert system.is_deterministic("Fusioner")


@given(st.data())
@settings(max_examples=10, deadline=None, suppress_health_check=SLOW_OK)
def test_check_monotonicity_does_not_change_the_system(data) -> None:
    system = data.draw(random_systems())
    before = _snapshot(system.network)
    cc.check_monotonicity(system)
    assert _same(before, _snapshot(system.network))
