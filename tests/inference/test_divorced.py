"""Exact tables on "divorced" vote networks: models feed a chain of deterministic count nodes.

Parent divorcing declares a k-model vote through ``count_1 <- m_1`` and
``count_i <- (count_{i-1}, m_i)`` (``count_i`` has ``i + 1`` states: how many of the first
``i`` models say positive), then ``Fusioner <- count_k``, so the network stays polynomial in
``k``. The networks here are built by hand with pgmpy TabularCPDs and checked against
independent routes: brute-force enumeration (conftest.py), pgmpy's VariableElimination on
``model.do([slot])`` with evidence on the slot, and the same vote declared directly (one
fusioner CPD over all models), which must give the same table.
"""

from __future__ import annotations

import warnings

import numpy as np
import opt_einsum as oe
import pytest
from conftest import OUTCOMES, brute_force_table

import causalcost as cc
from causalcost.inference import exact
from causalcost.inference.elimination import elimination_path

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

PN = ["P", "N"]


def _rates(k: int, seed: int) -> list[tuple[float, float]]:
    rng = np.random.default_rng([seed, k])
    return [tuple(rng.uniform(0.55, 0.95, 2)) for _ in range(k)]


def divorced(k: int, need: int, slot: int, seed: int = 0) -> cc.System:
    """``need``-of-``k`` vote over models ``m1..mk`` (parent Class), declared as a count chain."""
    models = [f"m{i}" for i in range(1, k + 1)]
    counts = [f"count_{i}" for i in range(1, k + 1)]
    edges = [("Class", m) for m in models] + [(models[0], counts[0]), (counts[-1], "Fusioner")]
    for i in range(1, k):
        edges += [(counts[i - 1], counts[i]), (models[i], counts[i])]
    net = DiscreteBayesianNetwork(edges)
    cpds = [TabularCPD("Class", 2, [[0.3], [0.7]], state_names={"Class": PN})]
    for m, (se, sp) in zip(models, _rates(k, seed)):
        cpds.append(TabularCPD(m, 2, [[se, 1 - sp], [1 - se, sp]], evidence=["Class"],
                               evidence_card=[2], state_names={m: PN, "Class": PN}))

    def names(i: int) -> list[str]:
        return [str(c) for c in range(i + 1)]

    cpds.append(TabularCPD(counts[0], 2, [[0, 1], [1, 0]], evidence=[models[0]],
                           evidence_card=[2], state_names={counts[0]: names(1), models[0]: PN}))
    for i in range(1, k):
        table = np.zeros((i + 2, (i + 1) * 2))
        for c in range(i + 1):
            table[c + 1, 2 * c] = 1.0  # m_i = P: one more positive vote
            table[c, 2 * c + 1] = 1.0  # m_i = N
        cpds.append(TabularCPD(counts[i], i + 2, table, evidence=[counts[i - 1], models[i]],
                               evidence_card=[i + 1, 2],
                               state_names={counts[i]: names(i + 1), counts[i - 1]: names(i),
                                            models[i]: PN}))
    fusion = np.array([[1.0 if c >= need else 0.0 for c in range(k + 1)]])
    cpds.append(TabularCPD("Fusioner", 2, np.vstack([fusion, 1 - fusion]), evidence=[counts[-1]],
                           evidence_card=[k + 1],
                           state_names={"Fusioner": PN, counts[-1]: names(k)}))
    net.add_cpds(*cpds)
    return cc.System.from_pgmpy(net, class_node="Class", system_node="Fusioner", models=models,
                                slot=models[slot])


def direct(k: int, need: int, slot: int, seed: int = 0) -> cc.System:
    """The same vote with one fusioner CPD over all models (SystemBuilder)."""
    builder = cc.SystemBuilder(class_prior=0.3)
    for i, (se, sp) in enumerate(_rates(k, seed)):
        builder.add_model(f"m{i + 1}", sensitivity=float(se), specificity=float(sp))
    return builder.set_fusioner("k_of_n", k=need).build(slot=f"m{slot + 1}")


def pgmpy_table(system: cc.System) -> np.ndarray:
    """``[c, x, k]`` by pgmpy's VariableElimination on ``do([slot])`` with evidence."""
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


@pytest.mark.parametrize(("k", "need", "slot"), [(3, 2, 0), (4, 2, 1), (4, 3, 3), (4, 1, 2)])
def test_small_divorced_network_matches_brute_force(k: int, need: int, slot: int) -> None:
    system = divorced(k, need, slot)
    expected = brute_force_table(system)  # itertools.product over every node's states
    table = cc.exact_table(system)
    np.testing.assert_allclose(table.probabilities, expected, rtol=0, atol=1e-12)
    # the vote declared directly gives the same table (brute force of that network too)
    np.testing.assert_allclose(cc.exact_table(direct(k, need, slot)).probabilities, expected,
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize(("k", "need", "slot"), [(9, 5, 4), (12, 1, 0), (12, 12, 11), (30, 16, 7)])
def test_divorced_network_matches_pgmpy_and_is_not_vote_split(k: int, need: int,
                                                               slot: int) -> None:
    system = divorced(k, need, slot)
    plan = exact.plan_exact(system, system.slot)
    # the fusioner's only input is count_k: the vote split (which needs the slot among the
    # fusioner's inputs) must not be chosen
    assert plan.method == "einsum"
    np.testing.assert_allclose(cc.exact_table(system).probabilities, pgmpy_table(system),
                               rtol=0, atol=1e-12)
    if k <= 12:  # the direct vote (2^(k+1)-entry fusioner CPD) agrees
        np.testing.assert_allclose(cc.exact_table(system).probabilities,
                                   cc.exact_table(direct(k, need, slot)).probabilities,
                                   rtol=0, atol=1e-12)


def test_many_models_plan_eliminates_the_chain() -> None:
    # 120 models: the greedy path builds intermediates over several count indices; the
    # min-weight elimination order keeps every intermediate near one count node's size
    k = 120
    system = divorced(k, 61, 60)
    plan = exact.plan_exact(system, system.slot)
    assert plan.method == "einsum"
    table = cc.exact_table(system)
    # reference: P(count) by a plain forward recursion over the chain, per class and forced x
    rates = _rates(k, 0)
    for c in range(2):
        for x in range(2):
            dist = np.array([1.0])  # P(count_0 = 0) = 1
            for i, (se, sp) in enumerate(rates):
                p = (1.0 if x == 0 else 0.0) if i == 60 else (se if c == 0 else 1 - sp)
                dist = np.append(dist * (1 - p), 0.0) + np.insert(dist * p, 0, 0.0)
            says_p = dist[61:].sum()
            got = table.probabilities[c, x, :2] if c == 0 else table.probabilities[c, x, 2:]
            np.testing.assert_allclose(got, [says_p, 1 - says_p], rtol=0, atol=1e-12)


def _chain_equation(system: cc.System):
    net, slot = system.network, system.slot
    relevant = set(net.nodes()) - {system.confusion_node}
    factors, _, _ = exact._contraction(net, relevant, free=slot,
                                       output=(system.class_node, slot, system.system_node))
    symbols = {n: oe.get_symbol(i) for i, n in enumerate(sorted(relevant, key=str))}
    terms = ["".join(symbols[v] for v in net.get_cpds(n).variables) for n in factors]
    shapes = [net.get_cpds(n).values.shape for n in factors]
    output = "".join(symbols[n] for n in (system.class_node, slot, system.system_node))
    return factors, terms, shapes, output


@pytest.mark.parametrize(("k", "factor"), [(20, 3), (60, 10)])
def test_elimination_path_is_cheaper_than_greedy_and_exact(k: int, factor: float) -> None:
    system = divorced(k, k // 2, k // 3)
    factors, terms, shapes, output = _chain_equation(system)
    equation = ",".join(terms) + "->" + output
    sizes = {s: d for t, sh in zip(terms, shapes) for s, d in zip(t, sh)}
    path = elimination_path(terms, output, sizes)
    _, greedy = oe.contract_path(equation, *shapes, shapes=True, optimize="greedy")
    _, ours = oe.contract_path(equation, *shapes, shapes=True, optimize=path)
    assert ours.opt_cost < greedy.opt_cost / factor  # flops
    assert ours.largest_intermediate <= 2 * 2 * 2 * (k + 1)  # class, slot, two counts at most
    operands = [system.network.get_cpds(n).values for n in factors]
    np.testing.assert_allclose(oe.contract(equation, *operands, optimize=path),
                               oe.contract(equation, *operands, optimize="greedy"),
                               rtol=1e-12, atol=1e-15)


def test_elimination_path_on_random_tensor_networks() -> None:
    # random small equations: the path contracts to the same tensor as numpy's own einsum
    rng = np.random.default_rng(3)
    letters = "abcdefgh"
    for _ in range(40):
        n_terms = int(rng.integers(1, 6))
        terms = ["".join(rng.choice(list(letters), size=int(rng.integers(1, 4)), replace=False))
                 for _ in range(n_terms)]
        present = sorted(set("".join(terms)))
        output = "".join(v for v in present if rng.random() < 0.3)
        sizes = {v: int(rng.integers(1, 4)) for v in letters}
        operands = [rng.random([sizes[v] for v in t]) for t in terms]
        equation = ",".join(terms) + "->" + output
        path = elimination_path(terms, output, sizes)
        np.testing.assert_allclose(oe.contract(equation, *operands, optimize=path),
                                   np.einsum(equation, *operands), rtol=1e-12)
