"""The meet-in-the-middle contraction around a many-input fusioner (inference.vote_split).

It is an optimisation of the exact table, so every test compares it with an independent
route: the general einsum plan over the same mutilated network, and brute-force enumeration.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import SLOW_OK, brute_force_table, fusioner_kwargs
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.inference import exact
from causalcost.inference.vote_split import MIN_VOTES


def general_route(system: cc.System) -> np.ndarray:
    """``R[c, x, s]`` from the general einsum contraction (no vote split)."""
    net, slot = system.network, system.slot
    graph = nx.DiGraph(net.edges())
    graph.remove_edges_from(list(graph.in_edges(slot)))
    targets = {system.class_node, system.system_node}
    relevant = set(targets).union(*(nx.ancestors(graph, t) for t in targets)) | {slot}
    factors, expression, _ = exact._contraction(
        net, relevant, free=slot, output=(system.class_node, slot, system.system_node))
    return expression(*(net.get_cpds(n).values for n in factors))


@st.composite
def many_model_systems(draw: st.DrawFn) -> cc.System:
    """7-10 models sharing a latent "difficulty" (and the class), any fusioner, any slot."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(MIN_VOTES + 1, 10))
    levels = draw(st.integers(2, 3))
    builder = cc.SystemBuilder(class_prior=float(rng.uniform(0.1, 0.9)))
    builder.add_latent("Difficulty", [f"d{i}" for i in range(levels)],
                       rng.dirichlet(np.ones(levels), size=2), parents=["Class"])
    names = [f"m{i}" for i in range(k)]
    for name in names:
        builder.add_model(name, parents=["Class", "Difficulty"],
                          positive_probability=rng.uniform(0, 1, size=2 * levels).tolist())
    rules = ("and", "or", "majority", "k_of_n", "weighted", "function")
    builder.set_fusioner(**draw(fusioner_kwargs(rules, names)))
    return builder.build(slot=draw(st.sampled_from(names)))


@settings(max_examples=40, deadline=None, suppress_health_check=SLOW_OK)
@given(many_model_systems())
def test_split_equals_general_contraction(system: cc.System) -> None:
    plan = exact.plan_exact(system, system.slot)
    assert plan.method == "vote-split"
    np.testing.assert_allclose(plan.evaluate({c.variable: c.values
                                              for c in system.network.cpds}),
                               general_route(system), rtol=0, atol=1e-12)


@settings(max_examples=3, deadline=None, suppress_health_check=SLOW_OK)
@given(many_model_systems())
def test_split_equals_brute_force(system: cc.System) -> None:
    np.testing.assert_allclose(cc.interventional_table(system).probabilities,
                               brute_force_table(system), rtol=0, atol=1e-12)


def test_private_features_fall_back_to_the_general_plan() -> None:
    # each model sees its own 3-state feature: the shared context would be 3^8 states wide,
    # so the split is not worth it and the general plan must be used (and be right)
    rng = np.random.default_rng(7)
    builder = cc.SystemBuilder(class_prior=0.4)
    for i in range(8):
        builder.add_node(f"F{i}", ["a", "b", "c"], rng.dirichlet(np.ones(3), size=2),
                         parents=["Class"])
        builder.add_model(f"m{i}", parents=[f"F{i}"], positive_probability=[0.9, 0.5, 0.1])
    system = builder.set_fusioner("majority").build(slot="m3")
    assert exact.plan_exact(system, "m3").method == "einsum"
    rates = cc.error_rates(system)
    assert rates.fn_forced_p <= rates.fn_forced_n  # majority is monotone


def test_slot_upstream_of_the_context_falls_back() -> None:
    # the slot feeds a node that other models read: models are not independent of the slot
    builder = cc.SystemBuilder(class_prior=0.5).add_model("slot", sensitivity=0.7,
                                                          specificity=0.8)
    builder.add_node("Echo", ["P", "N"], [[0.9, 0.1], [0.2, 0.8]], parents=["slot"])
    for i in range(MIN_VOTES + 1):
        builder.add_model(f"m{i}", parents=["Echo"], positive_probability=[0.8, 0.3])
    system = builder.set_fusioner("majority").build(slot="slot")
    plan = exact.plan_exact(system, "slot")
    assert plan.method == "einsum"
    np.testing.assert_allclose(plan.evaluate({c.variable: c.values
                                              for c in system.network.cpds}),
                               general_route(system), atol=1e-12)


@pytest.mark.parametrize("k", [8, 15])
def test_benchmark_shape_uses_the_split(k: int) -> None:
    rng = np.random.default_rng(k)
    builder = cc.SystemBuilder(class_prior=0.3).add_latent(
        "Difficulty", ["easy", "medium", "hard"], rng.dirichlet(np.ones(3), size=2),
        parents=["Class"])
    for i in range(k):
        builder.add_model(f"m{i}", parents=["Class", "Difficulty"],
                          positive_probability=rng.uniform(0.05, 0.95, size=6).tolist())
    system = builder.set_fusioner("majority", divorce=False).build(slot=f"m{k - 1}")
    plan = exact.plan_exact(system, system.slot)
    assert plan.method == "vote-split"
    np.testing.assert_allclose(plan.evaluate({c.variable: c.values
                                              for c in system.network.cpds}),
                               general_route(system), rtol=0, atol=1e-12)
    # the same vote divorced into count nodes: the split does not apply (the slot is not an
    # input of the fusioner node), the general plan gives the same table
    builder.set_fusioner("majority", divorce=True)
    divorced = builder.build(slot=f"m{k - 1}")
    assert divorced.counts and exact.plan_exact(divorced, divorced.slot).method == "einsum"
    np.testing.assert_allclose(cc.exact_table(divorced).probabilities,
                               cc.exact_table(system).probabilities, rtol=0, atol=1e-12)
