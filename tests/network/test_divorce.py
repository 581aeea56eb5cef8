"""Vote fusioners divorced into count nodes (network.divorce) and recognised again (network.votes).

References, each independent of the divorced network:

* the rule's definition (``sum(w_i v_i) >= t``), evaluated at every vote combination and
  compared with what the chain of count tables computes when walked node by node;
* the same system with one fusioner table over every model (``divorce=False``): same
  interventional table (both by ``cc.interventional_table``);
* pgmpy's VariableElimination on ``model.do([slot])`` with evidence on slot and class, on the
  divorced network itself;
* a forward recursion over the number of positive votes (a Poisson-binomial distribution) for
  a 40-model AND, where no table over all models can exist.
"""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.network.divorce import DIVORCE_COLUMNS, count_values, fusioner_nodes
from causalcost.network.fusioners import decision_table, make_fusioner

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.inference import VariableElimination

OUTCOMES = ("TP", "FN", "FP", "TN")
PN = ("P", "N")


def latent_system(n: int, rule: str, divorce: bool | None, seed: int = 0,
                  **options) -> cc.System:
    """n models sharing a 3-state latent difficulty (as benchmarks/systems.py); slot m{n//2}."""
    k = n
    rng = np.random.default_rng([seed, k])
    b = cc.SystemBuilder(class_prior=0.35)
    b.add_latent("Difficulty", ["easy", "medium", "hard"], rng.dirichlet(np.ones(3), size=2),
                 parents=["Class"])
    for i in range(k):
        b.add_model(f"m{i}", parents=["Class", "Difficulty"],
                    positive_probability=rng.uniform(0.05, 0.95, size=6).tolist())
    return b.set_fusioner(rule, divorce=divorce, **options).build(slot=f"m{k // 2}")


def pgmpy_table(system: cc.System) -> np.ndarray:
    """``[c, x, outcome]`` by VariableElimination on ``do([slot])`` with evidence."""
    ve = VariableElimination(system.network.do([system.slot]))
    out = np.zeros((2, 2, 4))
    for c, cls in enumerate(PN):
        for x, forced in enumerate(PN):
            factor = ve.query([system.confusion_node],
                              evidence={system.slot: forced, system.class_node: cls},
                              show_progress=False)
            states = factor.state_names[system.confusion_node]
            out[c, x] = [factor.values[states.index(o)] for o in OUTCOMES]
    return out


def walk_chain(system: cc.System, votes: tuple[bool, ...]) -> bool:
    """The system prediction for model votes, by reading each deterministic table in turn."""
    value: dict[str, str] = {m: ("P" if v else "N") for m, v in zip(system.fusioner.inputs, votes)}
    for node in [*system.counts, system.system_node]:
        cpd = system.network.get_cpds(node)
        config = {p: value[p] for p in cpd.variables[1:]}
        states = cpd.state_names[node]
        column = [cpd.get_value(**{node: s}, **config) for s in states]
        assert sorted(column) == [0.0] * (len(states) - 1) + [1.0]
        value[node] = states[int(np.argmax(column))]
    return value[system.system_node] == "P"


RULES = [("and", {}), ("or", {}), ("majority", {}), ("majority", {"tie": "positive"}),
         ("k_of_n", {"k": 2}), ("weighted", {"weights": [2, -1, 1, 0, 3, 1, 1, 2],
                                             "threshold": 3})]


@pytest.mark.parametrize(("rule", "options"), RULES)
@pytest.mark.parametrize("k", [3, 5, 8])
def test_chain_computes_the_rule_at_every_vote_combination(rule, options, k) -> None:
    if rule == "weighted":
        options = {**options, "weights": options["weights"][:k]}
    system = latent_system(k, rule, divorce=True, **options)
    rule_fn = make_fusioner(rule, [f"m{i}" for i in range(k)], **options)
    assert system.fusioner.inputs == rule_fn.inputs and len(system.counts) == k
    for votes in itertools.product((True, False), repeat=k):
        total = sum(w for w, v in zip(rule_fn.weights, votes) if v)
        assert walk_chain(system, votes) == (total >= rule_fn.threshold), votes


@pytest.mark.parametrize(("rule", "options"), RULES)
@pytest.mark.parametrize("k", [3, 4, 5, 6, 7, 8])
def test_divorced_and_single_table_give_the_same_interventional_table(rule, options, k) -> None:
    if rule == "weighted":
        options = {**options, "weights": options["weights"][:k]}
    if rule == "k_of_n":
        options = {"k": min(k, 3)}
    divorced = latent_system(k, rule, divorce=True, **options)
    single = latent_system(k, rule, divorce=False, **options)
    assert divorced.counts and not single.counts
    assert set(single.network.get_parents("Fusioner")) == set(single.models)
    ours = cc.interventional_table(divorced).probabilities
    np.testing.assert_allclose(ours, cc.interventional_table(single).probabilities,
                               rtol=0, atol=1e-12)
    if k in (3, 6, 8):  # pgmpy's route on the divorced network itself
        np.testing.assert_allclose(ours, pgmpy_table(divorced), rtol=0, atol=1e-12)


def test_forty_model_and_builds_small_and_matches_a_forward_recursion() -> None:
    k = 40
    builder = cc.SystemBuilder(class_prior=0.3)
    rates = [(0.9 + 0.002 * i, 0.6 + 0.005 * i) for i in range(k)]
    for i, (se, sp) in enumerate(rates):
        builder.add_model(f"m{i}", sensitivity=se, specificity=sp)
    system = builder.set_fusioner("and").build(slot="m7")  # timed in bench_many_models.py
    assert len(system.counts) == k and len(system.network) == 2 * k + 3
    entries = sum(cpd.values.size for cpd in system.network.get_cpds())
    assert entries <= 20 * k  # saturated counts: two states each (O(k^2) at worst)
    assert all(len(system.states(c)) <= 2 for c in system.counts)
    table = cc.interventional_table(system).probabilities
    # AND: positive iff every model is; with the slot forced, the others are independent
    for c in range(2):
        others = np.prod([se if c == 0 else 1 - sp for i, (se, sp) in enumerate(rates) if i != 7])
        for x in range(2):
            says_p = others if x == 0 else 0.0
            got = table[c, x, :2] if c == 0 else table[c, x, 2:]
            np.testing.assert_allclose(got, [says_p, 1 - says_p], rtol=1e-12, atol=1e-300)
    check = cc.check_monotonicity(system)
    assert check.is_monotone and check.method == "by construction"
    assert system.known_monotone


def test_majority_of_many_keeps_count_states_bounded() -> None:
    # a majority of 201: counts saturate at "at_most_<...>" / "at_least_101"
    fusioner = make_fusioner("majority", [f"m{i}" for i in range(201)])
    values, _, need = count_values(fusioner)
    assert need == 101
    assert max(len(v) for v in values) <= 102
    assert sum(len(v) for v in values) < 201 * 102


def test_automatic_divorce_starts_beyond_twelve_models() -> None:
    assert DIVORCE_COLUMNS == 2**12
    assert not latent_system(12, "or", divorce=None).counts
    assert len(latent_system(13, "or", divorce=None).counts) == 13


def test_counts_have_a_role_and_are_not_slots() -> None:
    system = latent_system(4, "majority", divorce=True)
    roles = system.roles
    assert [n for n, r in roles.items() if r == "counts"] == list(system.counts)
    assert roles["Fusioner"] == "fusioner" and roles["m2"] == "slot" and roles["m0"] == "model"
    assert roles["Difficulty"] == "other" and roles["Confusion"] == "confusion"
    assert "counts=4" in repr(system)
    with pytest.raises(cc.NetworkStructureError, match="count node of the fusioner"):
        system.with_slot("Fusioner_count_2")


def test_zero_weight_first_model_gives_a_one_state_count() -> None:
    system = latent_system(4, "weighted", divorce=True, weights=[0, 1, 1, 1], threshold=2)
    assert system.states("Fusioner_count_1") == ["0"]
    single = latent_system(4, "weighted", divorce=False, weights=[0, 1, 1, 1], threshold=2)
    np.testing.assert_allclose(cc.interventional_table(system).probabilities,
                               cc.interventional_table(single).probabilities, atol=1e-12)


# ------------------------------------------------------------------------ refusals
def many(k: int) -> cc.SystemBuilder:
    b = cc.SystemBuilder(class_prior=0.5)
    for i in range(k):
        b.add_model(f"m{i}", sensitivity=0.8, specificity=0.8)
    return b


def test_non_integer_weights_cannot_be_divorced() -> None:
    weights = [0.5] * 13
    with pytest.raises(cc.ValidationError, match=r"2\*\*13 = 8,192 columns.*integer weights, "
                                                 r"got m0=0\.5"):
        many(13).set_fusioner("weighted", weights=weights, threshold=3)
    with pytest.raises(cc.ValidationError, match="integer weights"):
        many(3).set_fusioner("weighted", weights=[0.5, 1, 1], threshold=1, divorce=True)
    # integral floats are integers; below the limit fractional weights keep one table
    assert many(13).set_fusioner("weighted", weights=[2.0] * 13, threshold=3).build().counts
    assert not many(3).set_fusioner("weighted", weights=[0.5, 1, 1], threshold=1).build().counts


def test_function_fusioners_are_refused_beyond_twenty_models_without_being_called() -> None:
    calls = []

    def rule(**votes: bool) -> bool:
        calls.append(1)
        return all(votes.values())

    with pytest.raises(cc.ValidationError, match=r"called 2\*\*21 = 2,097,152 times.*vote"):
        many(21).set_fusioner("function", function=rule)
    assert calls == []  # refused before the first call
    with pytest.raises(cc.ValidationError, match="divorce=True needs a vote rule"):
        many(3).set_fusioner("function", function=rule, divorce=True)


def test_a_single_table_is_refused_beyond_its_limit() -> None:
    with pytest.raises(cc.ValidationError, match=r"2\*\*21 = 2,097,152 columns.*divorce=True"):
        many(21).set_fusioner("and", divorce=False)
    with pytest.raises(cc.ValidationError, match="divorce must be True, False or None"):
        many(2).set_fusioner("and", divorce="yes")


def test_count_names_may_not_collide() -> None:
    b = many(2).add_node("Fusioner_count_1", ["x", "y"], [0.5, 0.5])
    with pytest.raises(cc.NetworkStructureError, match="'Fusioner_count_1' is used twice"):
        b.set_fusioner("and", divorce=True)


def test_vote_tables_are_built_without_calling_the_rule() -> None:
    # a 20-model vote is tabulated by numpy: fast, and equal to the rule at sampled columns
    f = make_fusioner("weighted", [f"m{i}" for i in range(20)],
                      weights=[0.1 * (i + 1) for i in range(20)], threshold=7.3)
    table = decision_table(f)
    assert table.shape == (2**20,)
    rng = np.random.default_rng(0)
    for j in rng.integers(0, 2**20, size=300):
        votes = tuple(((int(j) >> (19 - i)) & 1) == 0 for i in range(20))
        assert table[j] == f(votes)


# ------------------------------------------------------------------------ recognition
@pytest.mark.parametrize(("rule", "options"), RULES)
@pytest.mark.parametrize("divorce", [False, True])
def test_a_bif_round_trip_recovers_models_counts_and_the_rule(rule, options, divorce,
                                                               tmp_path) -> None:
    k = 5
    if rule == "weighted":
        options = {**options, "weights": options["weights"][:k]}
    system = latent_system(k, rule, divorce=divorce, **options)
    path = os.path.join(tmp_path, "net.bif")
    system.to_bif(path)
    again = cc.load_bif(path, class_node="Class", system_node="Fusioner", slot=system.slot)
    assert again.models == system.models and again.counts == system.counts
    if rule == "weighted" and not divorce:  # one table is recognised only if it counts votes
        assert again.fusioner is None
        assert cc.check_monotonicity(again).method == "enumeration"
    else:  # the same function, perhaps under another rule's name (majority -> 3 of 5)
        assert (decision_table(again.fusioner) == decision_table(system.fusioner)).all()
        assert cc.check_monotonicity(again).method == "by construction"
    np.testing.assert_array_equal(cc.interventional_table(again).probabilities,
                                  cc.interventional_table(system).probabilities)


def test_a_declared_fusioner_must_be_what_the_tables_compute() -> None:
    system = latent_system(3, "and", divorce=False)
    kwargs = {"class_node": "Class", "system_node": "Fusioner", "slot": "m1"}
    with pytest.raises(cc.NetworkStructureError, match="is not what the tables of 'Fusioner'"):
        cc.System.from_pgmpy(system.network, fusioner=make_fusioner("or", ["m0", "m1", "m2"]),
                             **kwargs)
    ok = cc.System.from_pgmpy(system.network, fusioner=make_fusioner("and", ["m2", "m0", "m1"]),
                              **kwargs)
    assert ok.fusioner.inputs == ("m2", "m0", "m1")


def test_a_non_vote_table_is_not_recognised() -> None:
    xor = many(2).set_fusioner("function", function=lambda m0, m1: m0 != m1).build(slot="m1")
    again = cc.System.from_pgmpy(xor.network, class_node="Class", system_node="Fusioner")
    assert again.fusioner is None and not again.known_monotone


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 6), data=st.data())
def test_recognised_weighted_chains_compute_the_declared_function(k: int, data) -> None:
    weights = data.draw(st.lists(st.integers(-3, 4), min_size=k, max_size=k))
    threshold = data.draw(st.integers(-3, 8))
    f = make_fusioner("weighted", [f"m{i}" for i in range(k)], weights=weights,
                      threshold=threshold)
    nodes = fusioner_nodes(f, "F", ("P", "N"), divorce=True)
    assert len(nodes) == k + 1
    system = many(k).set_fusioner("weighted", weights=weights, threshold=threshold,
                                  divorce=True).build()
    again = cc.System.from_pgmpy(system.network, class_node="Class", system_node="Fusioner")
    assert again.models == system.models and again.counts == system.counts
    if again.fusioner is not None:  # recognition may give up; it may never be wrong
        assert (decision_table(again.fusioner) == decision_table(f)).all()
