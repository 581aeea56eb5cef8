"""check_monotonicity without enumeration (vote fusioners) and its enumeration limit.

A vote ``sum(w_i v_i) >= t`` can only rise when the slot's vote goes from N to P if the
slot's weight is non-negative, so such systems are monotone *by construction*. Every claim
here is checked against the exact enumeration of the same network (the system without its
fusioner description), which test_intervene.py checks against the fusioner CPD itself.

The fusioner description is ``system.fusioner`` (set by the builder, or recognised in the
tables by ``System.from_pgmpy``); :func:`with_fusioner` sets or removes it on a copy.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from test_divorced import divorced

import causalcost as cc
from causalcost.inference import intervene
from causalcost.network.fusioners import make_fusioner

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

PN = ["P", "N"]


def with_fusioner(system: cc.System, fusioner) -> cc.System:
    """A copy of ``system`` whose ``fusioner`` attribute is ``fusioner`` (None: removed)."""
    if any(f.name == "fusioner" for f in dataclasses.fields(system)):
        return dataclasses.replace(system, fusioner=fusioner, _plans={})
    copy = dataclasses.replace(system, _plans={})
    object.__setattr__(copy, "fusioner", fusioner)
    return copy


def vote_system(n: int, rule: str, slot: int, **kwargs) -> cc.System:
    builder = cc.SystemBuilder(class_prior=0.4)
    for i in range(n):
        builder.add_model(f"m{i}", sensitivity=0.6 + 0.03 * i, specificity=0.9 - 0.02 * i)
    system = builder.set_fusioner(rule, **kwargs).build(slot=f"m{slot}")
    inputs = [f"m{i}" for i in range(n)]
    return with_fusioner(system, make_fusioner(rule, inputs, **kwargs))


@pytest.mark.parametrize(("rule", "kwargs"), [
    ("and", {}), ("or", {}), ("majority", {}), ("majority", {"tie": "positive"}),
    ("k_of_n", {"k": 3}),
    # a negative weight elsewhere does not matter: the slot's own weight is non-negative
    ("weighted", {"weights": [1.0, -2.0, 0.5, 3.0, 0.0, 1.0, 2.0, 1.0], "threshold": 2.5}),
])
@pytest.mark.parametrize("slot", [0, 4, 7])
def test_votes_are_monotone_by_construction(rule: str, kwargs: dict, slot: int) -> None:
    if rule == "weighted" and kwargs["weights"][slot] < 0:
        pytest.skip("covered by the negative-weight test")
    system = vote_system(8, rule, slot, **kwargs)
    check = cc.check_monotonicity(system)
    assert check.method == "by construction" and check.assignments == 0
    assert check.is_monotone and check.violation is None
    assert "by construction" in repr(check) and check.to_dict()["method"] == "by construction"
    # independent: enumerate the same network without the fusioner's description
    enumerated = cc.check_monotonicity(with_fusioner(system, None))
    assert enumerated.method == "enumeration" and enumerated.is_monotone
    assert enumerated.assignments == 2 ** 7
    # tables carry the same verdict
    assert cc.exact_table(system).monotonicity.method == "by construction"


def test_negative_slot_weight_is_enumerated_and_fails() -> None:
    weights = [1.0, 1.0, -1.0]
    system = vote_system(3, "weighted", 2, weights=weights, threshold=1.0)
    check = cc.check_monotonicity(system)
    assert check.method == "enumeration" and not check.is_monotone
    assert check.violation == {"m0": "P", "m1": "N"}  # 1 >= 1 with slot N; 0 < 1 with slot P


def test_user_function_is_enumerated() -> None:
    system = vote_system(3, "function", 0, function=lambda m0, m1, m2: m0 != m1)
    check = cc.check_monotonicity(system)
    assert check.method == "enumeration" and not check.is_monotone


def test_slot_reaching_the_fusioner_through_another_input_is_enumerated() -> None:
    # relay = NOT a (deterministic), and a vote over (a, relay) with weights (1, 2) and
    # threshold 2: a = P -> relay = N -> 1 < 2 -> N; a = N -> relay = P -> 2 -> P. The
    # slot's weight is +1, yet the system is antitone in it: by construction must not apply.
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_model("a", sensitivity=0.8, specificity=0.8)
              .add_model("relay", parents=["a"], positive_probability=[0.0, 1.0])
              .set_fusioner("weighted", inputs=["a", "relay"],
                            weights={"a": 1.0, "relay": 2.0}, threshold=2.0)
              .build(slot="a"))
    system = with_fusioner(system, make_fusioner("weighted", ["a", "relay"],
                                                 weights={"a": 1.0, "relay": 2.0},
                                                 threshold=2.0))
    check = cc.check_monotonicity(system)
    assert check.method == "enumeration" and not check.is_monotone


def test_divorced_vote_is_monotone_by_construction() -> None:
    k = 40
    system = with_fusioner(divorced(k, 21, 5), None)  # as if the vote were not recognised
    models = [f"m{i}" for i in range(1, k + 1)]
    # without the description: the count chain is enumerated; count_5 (6 states) and the
    # 34 models after the slot m6 form the boundary: 6 * 2**34 assignments, over the limit
    with pytest.raises(cc.NetworkStructureError, match=f"{6 * 2**34} assignments"):
        cc.check_monotonicity(system)
    assert cc.exact_table(system).monotonicity is None  # undecided, not wrong
    voted = with_fusioner(system, make_fusioner("k_of_n", models, k=21))
    check = cc.check_monotonicity(voted)
    assert check.method == "by construction" and check.is_monotone
    # a late slot leaves a small boundary (count_36 and 3 models): enumeration agrees
    late = with_fusioner(divorced(k, 21, 36), None)
    enumerated = cc.check_monotonicity(late)
    assert enumerated.is_monotone and enumerated.assignments == 37 * 2**3
    assert cc.check_monotonicity(with_fusioner(late, voted.fusioner)).method == "by construction"


# ------------------------------------------------------------------------ the limit
def all_negative_chain(n: int) -> cc.System:
    """System = slot XOR (every b_i is N): antitone in the slot only at that one assignment.

    The slot's value travels down a chain of deterministic 4-state nodes
    ``d_i = (slot, flag_i)`` with ``flag_i = flag_{i-1} and b_i == N``; the fusioner says
    ``slot XOR flag_n``. The check's boundary is ``b_1..b_n``: ``2**n`` assignments, the
    violating one (all N) enumerated last.
    """
    bs = [f"b{i}" for i in range(1, n + 1)]
    ds = [f"d{i}" for i in range(1, n + 1)]
    states = ["PT", "PF", "NT", "NF"]  # (slot, flag)
    edges = [("Class", "slot"), ("slot", ds[0]), (bs[0], ds[0]), (ds[-1], "Fusioner")]
    edges += [("Class", b) for b in bs]
    for i in range(1, n):
        edges += [(ds[i - 1], ds[i]), (bs[i], ds[i])]
    net = DiscreteBayesianNetwork(edges)
    cpds = [TabularCPD("Class", 2, [[0.5], [0.5]], state_names={"Class": PN})]
    for node in ["slot", *bs]:
        cpds.append(TabularCPD(node, 2, [[0.8, 0.3], [0.2, 0.7]], evidence=["Class"],
                               evidence_card=[2], state_names={node: PN, "Class": PN}))

    def onehot(column_states: list[str]) -> np.ndarray:
        table = np.zeros((4, len(column_states)))
        for j, state in enumerate(column_states):
            table[states.index(state), j] = 1.0
        return table

    # columns (slot, b_1): PP, PN, NP, NN
    cpds.append(TabularCPD(ds[0], 4, onehot(["PF", "PT", "NF", "NT"]), evidence=["slot", bs[0]],
                           evidence_card=[2, 2],
                           state_names={ds[0]: states, "slot": PN, bs[0]: PN}))
    chained = [s[0] + ("T" if s[1] == "T" and b == "N" else "F") for s in states for b in PN]
    for i in range(1, n):  # columns (d_{i-1}, b_i) in product order
        cpds.append(TabularCPD(ds[i], 4, onehot(chained), evidence=[ds[i - 1], bs[i]],
                               evidence_card=[4, 2],
                               state_names={ds[i]: states, ds[i - 1]: states, bs[i]: PN}))
    says_p = np.array([[0.0, 1.0, 1.0, 0.0]])  # PT, PF, NT, NF -> slot XOR flag
    cpds.append(TabularCPD("Fusioner", 2, np.vstack([says_p, 1 - says_p]), evidence=[ds[-1]],
                           evidence_card=[4],
                           state_names={"Fusioner": PN, ds[-1]: states}))
    net.add_cpds(*cpds)
    return cc.System.from_pgmpy(net, class_node="Class", system_node="Fusioner",
                                models=["slot", *bs], slot="slot")


def test_violation_in_a_later_block_is_found() -> None:
    n = 17  # 2**17 assignments: two blocks of 2**16; the violation is the very last one
    check = cc.check_monotonicity(all_negative_chain(n))
    assert not check.is_monotone and check.assignments == 2**n
    assert check.violation == {f"b{i}": "N" for i in range(1, n + 1)}


def test_too_many_assignments_are_refused_with_the_count_and_the_way_out() -> None:
    system = all_negative_chain(23)
    with pytest.raises(cc.NetworkStructureError) as info:
        cc.check_monotonicity(system)
    message = str(info.value)
    assert "8388608 assignments" in message and str(intervene.MAX_ASSIGNMENTS) in message
    assert "2**22" in message and "vote" in message and "assumption='none'" in message
    # the tables still compute; their monotonicity is left undecided
    table = cc.exact_table(system)
    assert table.monotonicity is None
    # the network's own rates: e_P(P) = P(e_n = P | C = P) (XOR flips), by hand
    all_n = 0.2**23
    assert table.error_rates.fn_forced_p == pytest.approx(all_n, abs=1e-15)
    np.testing.assert_allclose(table.probabilities.sum(axis=2), 1.0, atol=1e-12)
