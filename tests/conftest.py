"""Shared helpers for the foundation tests: an independent brute-force reference and a
hypothesis strategy that generates small random classifier systems.

The brute force is deliberately naive: it builds the mutilated network with
``cc.mutilate(system, {slot: x})``, iterates ``itertools.product`` over *every* state of
*every* node, multiplies one CPD entry per node (looked up by state *name* through pgmpy's
``TabularCPD.get_value``, not through the array layout ``causalcost.inference.exact`` relies on) and
accumulates ``P(Class = c, Confusion = k)``. Nothing of causalcost's inference code is used.

Test files import the helpers with ``from conftest import ...`` (pytest puts this directory
on ``sys.path`` under its default import mode).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck
from hypothesis import strategies as st

import causalcost as cc

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.models import DiscreteBayesianNetwork

OUTCOMES = ("TP", "FN", "FP", "TN")

#: Upper bound on the size of the joint state space of a generated system, so that the
#: itertools.product brute force stays fast (a few milliseconds per example).
MAX_JOINT_STATES = 4000

#: Health checks to relax for tests drawing random systems: building a pgmpy network per
#: example can look "slow" to hypothesis on a loaded machine; it is not a test problem.
SLOW_OK = [HealthCheck.too_slow]

#: Fusioner rules the random-system strategy can draw ("function" = a random truth table).
ALL_RULES = ("and", "or", "majority", "k_of_n", "weighted", "function")
#: Rules that are monotone by construction (METHOD.md, "Specification (monotonicity)").
MONOTONE_RULES = ("and", "or", "majority", "k_of_n", "weighted")


# ------------------------------------------------------------------------ brute force
def _lookup_tables(network: DiscreteBayesianNetwork, nodes: Sequence[str]):
    """Per node: (positions of its variables in ``nodes``, dict state-index tuple -> prob)."""
    states = {n: list(network.get_cpds(n).state_names[n]) for n in nodes}
    tables = []
    for node in nodes:
        cpd = network.get_cpds(node)
        variables = list(cpd.variables)
        positions = [nodes.index(v) for v in variables]
        table = {}
        for combo in itertools.product(*(range(len(states[v])) for v in variables)):
            named = {v: states[v][i] for v, i in zip(variables, combo)}
            table[combo] = float(cpd.get_value(**named))
        tables.append((positions, table))
    return states, tables


def brute_force_joint(network: DiscreteBayesianNetwork, a: str, b: str) -> dict:
    """``P(a, b)`` by summing the product of every CPD over the full joint state space."""
    nodes = sorted(network.nodes())
    states, tables = _lookup_tables(network, nodes)
    ia, ib = nodes.index(a), nodes.index(b)
    joint: dict[tuple[str, str], float] = {}
    for combo in itertools.product(*(range(len(states[n])) for n in nodes)):
        p = 1.0
        for positions, table in tables:
            p *= table[tuple(combo[i] for i in positions)]
            if p == 0.0:
                break
        if p:
            key = (states[a][combo[ia]], states[b][combo[ib]])
            joint[key] = joint.get(key, 0.0) + p
    return joint


def joint_size(network: DiscreteBayesianNetwork) -> int:
    """Number of joint states the brute force iterates over."""
    return math.prod(len(network.get_cpds(n).state_names[n]) for n in network.nodes())


def brute_force_table(system: cc.System, slot: str | None = None) -> np.ndarray:
    """``P(Confusion = k | Class = c, do(slot = x))`` as an array ``[c, x, k]``.

    Classes and forced values in order (positive, negative), outcomes (TP, FN, FP, TN):
    the layout documented for ``InterventionalTable.probabilities``.
    """
    slot = slot or system.slot
    pos, neg = system.positive, system.negative()
    out = np.zeros((2, 2, 4))
    for x, forced in enumerate((pos, neg)):
        mutilated = cc.mutilate(system, {slot: forced})
        joint = brute_force_joint(mutilated, system.class_node, system.confusion_node)
        for c, cls in enumerate((pos, neg)):
            mass = sum(p for (ci, _), p in joint.items() if ci == cls)
            for k, outcome in enumerate(OUTCOMES):
                out[c, x, k] = joint.get((cls, outcome), 0.0) / mass
    return out


@pytest.fixture(scope="session")
def shipped() -> dict[str, cc.System]:
    """Every shipped network, loaded once."""
    return {name: cc.load_network(name) for name in cc.list_networks()}


# ------------------------------------------------------------------------ random systems
_weights = st.integers(0, 4)


@st.composite
def distributions(draw, k: int) -> list[float]:
    """A probability vector over ``k`` states, often with exact zeros (deterministic rows)."""
    w = [draw(_weights) for _ in range(k)]
    if sum(w) == 0:
        w[draw(st.integers(0, k - 1))] = 1
    total = sum(w)
    return [wi / total for wi in w]


probabilities = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.25, 0.9]),
                          st.floats(0.0, 1.0, allow_nan=False))
#: Probabilities bounded away from 0 and 1 (class priors: both classes must be possible).
open_probabilities = st.floats(0.05, 0.95, allow_nan=False)


@st.composite
def fusioner_kwargs(draw, rules: Sequence[str], names: Sequence[str]) -> dict:
    """Arguments for ``SystemBuilder.set_fusioner`` with a rule drawn from ``rules``."""
    rule = draw(st.sampled_from(list(rules)))
    n = len(names)
    if rule == "majority":
        return {"rule": rule, "tie": draw(st.sampled_from(["negative", "positive"]))}
    if rule == "k_of_n":
        return {"rule": rule, "k": draw(st.integers(1, n))}
    if rule == "weighted":
        weights = [draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])) for _ in names]
        threshold = draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0]))
        return {"rule": rule, "weights": dict(zip(names, weights)), "threshold": threshold}
    if rule == "function":
        truth = {votes: draw(st.booleans())
                 for votes in itertools.product((True, False), repeat=n)}

        def random_rule(**votes: bool) -> bool:
            return truth[tuple(votes[m] for m in names)]

        return {"rule": rule, "function": random_rule}
    return {"rule": rule}


@st.composite
def random_systems(draw, rules: Sequence[str] = ALL_RULES, max_models: int = 4) -> cc.System:
    """A small random system: 1-4 models, optional latent and population, random CPDs.

    * optional shared latent node (2-3 states, parent Class or none) feeding some models;
    * optional Population root (2-3 states) driving the class, with multi-valued feature
      nodes (2-3 states, parent Population and sometimes Class) feeding some models;
    * random CPDs (often with exact 0/1 entries), random state names for the class;
    * a fusioner drawn from ``rules``; the slot is a random model.

    The joint state space is kept below ``MAX_JOINT_STATES`` so the brute force is fast.
    """
    pos, neg = draw(st.sampled_from([("P", "N"), ("sick", "well")]))
    n = draw(st.integers(1, max_models))
    names = [f"m{i}" for i in range(n)]
    use_population = draw(st.booleans())
    use_latent = draw(st.booleans())
    size = 2 * 2**n * 2 * 4  # class, models, fusioner, confusion
    builder = cc.SystemBuilder(
        None if use_population else draw(open_probabilities), positive=pos, negative=neg,
        name="random",
    )
    states = {"Class": [pos, neg]}
    if use_population:
        k = draw(st.integers(2, 3))
        pop = [f"pop{i}" for i in range(k)]
        builder.add_population(pop, draw(distributions(k)),
                               [draw(open_probabilities) for _ in pop])
        states["Population"] = pop
        size *= k
    latent = None
    if use_latent:
        k = draw(st.integers(2, 3))
        if size * k <= MAX_JOINT_STATES:
            latent = "Latent"
            parents = draw(st.sampled_from([[], ["Class"]]))
            rows = [draw(distributions(k)) for _ in range(2 if parents else 1)]
            states[latent] = [f"l{i}" for i in range(k)]
            builder.add_latent(latent, states[latent], rows, parents=parents)
            size *= k
    for name in names:
        parents = ["Class"]
        if use_population and draw(st.booleans()):
            k = draw(st.integers(2, 3))
            if size * k <= MAX_JOINT_STATES:
                feature = f"F_{name}"
                fparents = draw(st.sampled_from([["Population"], ["Population", "Class"]]))
                n_rows = math.prod(len(states[p]) for p in fparents)
                states[feature] = [f"{feature}_{i}" for i in range(k)]
                builder.add_feature(feature, states[feature],
                                    [draw(distributions(k)) for _ in range(n_rows)],
                                    parents=fparents)
                size *= k
                parents = [feature]
        if latent is not None and draw(st.booleans()):
            parents.append(latent)
        n_rows = math.prod(len(states[p]) for p in parents)
        builder.add_model(name, parents=parents,
                          positive_probability=[draw(probabilities) for _ in range(n_rows)])
    builder.set_fusioner(**draw(fusioner_kwargs(rules, names)))
    return builder.build(slot=draw(st.sampled_from(names)))
