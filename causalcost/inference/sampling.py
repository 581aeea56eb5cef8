"""Interventional tables by vectorised forward sampling of the mutilated network.

Instances are drawn in topological order, one numpy operation per node. Nodes that do not
descend from the slot are drawn once; the slot's descendants are drawn twice, with the slot
forced to P and to N, **from the same uniform numbers** (common random numbers). Each
simulated instance is therefore seen under both interventions, exactly as when a real system
is run once with the slot forced to P and once forced to N on the same evaluation set:
:func:`simulate_forced_runs` returns those two confusion matrices, and :func:`sampled_table`
turns the counts into a table with a binomial confidence interval per cell.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from causalcost.confusion import Confusion
from causalcost.errors import ValidationError
from causalcost.inference.intervene import known_monotonicity
from causalcost.inference.table import InterventionalTable
from causalcost.network.system import System, node_table

__all__ = ["sampled_table", "simulate_forced_runs", "outcome_counts"]

_CACHE: OrderedDict[tuple[Any, ...], _Plan] = OrderedDict()


@dataclass(frozen=True)
class _Step:
    node: str
    parents: tuple[str, ...]
    strides: tuple[int, ...]
    lookup: np.ndarray | None  # deterministic: state index per parent configuration
    cumulative: np.ndarray | None  # random: (card - 1, n_configs) cumulative probabilities
    downstream: bool  # descends from the slot: drawn once per forced value


@dataclass(frozen=True)
class _Plan:
    steps: tuple[_Step, ...]
    slot: str
    slot_values: tuple[int, int]
    class_node: str
    class_positive: int
    system_node: str
    system_positive: int


def _plan(system: System, slot: str) -> _Plan:
    net = system.network
    signature = (id(net), slot, system.positive,
                 tuple((tuple(c.variables), tuple(c.state_names[c.variable]), c.values.shape,
                        c.values.tobytes()) for c in net.cpds))
    cached = _CACHE.get(signature)
    if cached is not None:
        return cached
    graph = nx.DiGraph(net.edges())
    graph.add_nodes_from(net.nodes())
    graph.remove_edges_from(list(graph.in_edges(slot)))
    targets = {system.class_node, system.system_node}
    relevant = set(targets).union(*(nx.ancestors(graph, t) for t in targets))
    below = nx.descendants(graph, slot)
    steps = []
    for node in nx.topological_sort(graph):
        if node not in relevant or node == slot:
            continue
        cpd = net.get_cpds(node)
        parents = tuple(cpd.variables[1:])
        cards = [len(cpd.state_names[p]) for p in parents]
        strides = tuple(int(np.prod(cards[i + 1:], dtype=np.int64)) for i in range(len(cards)))
        table = node_table(cpd)
        if system.is_deterministic(node):
            lookup, cumulative = np.argmax(table, axis=0).astype(np.intp), None
        else:
            lookup, cumulative = None, np.cumsum(table, axis=0)[:-1]
        steps.append(_Step(node, parents, strides, lookup, cumulative, node in below))
    states = system.states(slot)
    negative = next(s for s in states if s != system.positive)
    plan = _Plan(
        steps=tuple(steps), slot=slot,
        slot_values=(states.index(system.positive), states.index(negative)),
        class_node=system.class_node,
        class_positive=system.states(system.class_node).index(system.positive),
        system_node=system.system_node,
        system_positive=system.states(system.system_node).index(system.positive),
    )
    _CACHE[signature] = plan
    if len(_CACHE) > 32:
        _CACHE.popitem(last=False)
    return plan


def _draw(step: _Step, values: dict[str, np.ndarray], u: np.ndarray | None, n: int) -> np.ndarray:
    if step.parents:
        config = values[step.parents[0]] * step.strides[0]
        for p, s in zip(step.parents[1:], step.strides[1:]):
            config = config + values[p] * s
    else:
        config = np.zeros(n, dtype=np.intp)
    if step.lookup is not None:
        return step.lookup[config]
    assert step.cumulative is not None and u is not None
    out = (u >= step.cumulative[0][config]).astype(np.intp)
    for row in step.cumulative[1:]:
        out += u >= row[config]
    return out


def outcome_counts(
    system: System, slot: str | None = None, *, samples: int = 100_000, seed: int | None = None
) -> np.ndarray:
    """Counts ``[class, forced value, outcome]`` from ``samples`` paired simulated instances."""
    slot = system.require_slot(slot)
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValidationError(f"samples must be a positive integer, got {samples!r}")
    n = int(samples)
    plan = _plan(system, slot)
    rng = np.random.default_rng(seed)
    upstream: dict[str, np.ndarray] = {}
    uniforms: dict[str, np.ndarray] = {}
    for step in plan.steps:
        u = rng.random(n) if step.lookup is None else None
        if step.downstream:
            if u is not None:
                uniforms[step.node] = u
        else:
            upstream[step.node] = _draw(step, upstream, u, n)
    is_positive = upstream[plan.class_node] == plan.class_positive
    counts = np.zeros((2, 2, 4))
    for x, forced in enumerate(plan.slot_values):
        values = dict(upstream)
        values[plan.slot] = np.full(n, forced, dtype=np.intp)
        for step in plan.steps:
            if step.downstream:
                values[step.node] = _draw(step, values, uniforms.get(step.node), n)
        says_positive = values[plan.system_node] == plan.system_positive
        code = np.bincount((~is_positive) * 2 + (~says_positive), minlength=4)
        counts[0, x, :2] = code[:2]  # TP, FN
        counts[1, x, 2:] = code[2:]  # FP, TN
    return counts


def simulate_forced_runs(
    system: System, slot: str | None = None, *, samples: int = 100_000, seed: int | None = None
) -> tuple[Confusion, Confusion]:
    """The system's confusion with the slot forced to P and forced to N on the same instances.

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("thesis_and")
    >>> forced_p, forced_n = simulate_forced_runs(system, samples=3000, seed=1)
    >>> forced_p.positives == forced_n.positives, forced_n.fn == forced_n.positives
    (True, True)
    """
    counts = outcome_counts(system, slot, samples=samples, seed=seed)
    forced = []
    for x in range(2):
        tp, fn = counts[0, x, :2]
        fp, tn = counts[1, x, 2:]
        forced.append(Confusion(tp=tp, fn=fn, fp=fp, tn=tn))
    return forced[0], forced[1]


def sampled_table(
    system: System,
    slot: str | None = None,
    *,
    samples: int = 100_000,
    seed: int | None = None,
    confidence: float = 0.95,
    interval: str = "wilson",
) -> InterventionalTable:
    """``P(Conf^S | Class, do(slot = x))`` estimated from ``samples`` simulated instances.

    Each cell carries a binomial confidence interval (``interval``: ``"wilson"`` or
    ``"clopper-pearson"``, from statsmodels) on the number of simulated instances of its class.

    Examples
    --------
    >>> import causalcost as cc
    >>> t = sampled_table(cc.load_network("thesis_and"), samples=20_000, seed=0)
    >>> lo, hi = t.lower[0, 0, 1], t.upper[0, 0, 1]   # e_P(P), exactly 0.2
    >>> bool(lo < 0.2 < hi)
    True
    """
    counts = outcome_counts(system, slot, samples=samples, seed=seed)
    slot = system.require_slot(slot)
    return InterventionalTable.from_counts(
        slot, counts, method="sampling", confidence=confidence, interval_method=interval,
        seed=seed, monotonicity=known_monotonicity(system, slot),
    )
