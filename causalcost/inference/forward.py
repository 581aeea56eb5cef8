"""The forward sampler's plan and its kernel: one chunk of paired instances.

A :class:`SamplingPlan` depends only on the network's *structure* (variables, parents, state
names, which nodes are deterministic) and the roles, so it is cached on that and shared by
every system of the same shape; the CPD *values* are read afresh on each call
(:meth:`SamplingPlan.read`), so changing a CPD, even in place, is never served from a stale
cache.

Nodes are visited in a canonical topological order (lexicographic among ready nodes), and
every random node draws its uniforms from **its own stream**: the ``i``-th random node uses
the ``i``-th child of ``numpy.random.SeedSequence(seed)``. A chunk of ``m`` instances takes the
next ``m`` numbers of each stream, so the instances drawn do not depend on how a run is cut
into chunks: the counts for a seed are identical whatever the chunk size.

State indices are kept as ``uint8`` (``uint16`` for nodes with more states), so a chunk costs
about one byte per node per instance plus a few transient ``float64`` and ``intp`` arrays.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from causalcost.network.scores import is_score_slot
from causalcost.network.system import System

__all__ = ["SamplingPlan", "plan_sampling"]

_CACHE: OrderedDict[tuple[Any, ...], SamplingPlan] = OrderedDict()
_CACHE_SIZE = 32


def _dtype(card: int) -> type[np.unsignedinteger[Any]]:
    return np.uint8 if card <= 0xFF else np.uint16 if card <= 0xFFFF else np.uint32


@dataclass(frozen=True)
class _Step:
    node: str
    parents: tuple[str, ...]
    parent_cards: tuple[int, ...]
    card: int
    deterministic: bool
    downstream: bool  # descends from the slot: drawn once per forced value
    stream: int | None  # index of the node's uniform stream (random nodes only)


@dataclass(frozen=True)
class SamplingPlan:
    """The sampling order and roles for one network structure and slot (no CPD values)."""

    steps: tuple[_Step, ...]
    slot: str
    #: State index of the slot forced to P, to N; for a score slot, every bin in order.
    slot_values: tuple[int, ...]
    class_node: str
    class_positive: int
    system_node: str
    system_positive: int

    @property
    def streams(self) -> int:
        """Number of random nodes, each with its own uniform stream."""
        return sum(step.stream is not None for step in self.steps)

    @property
    def bytes_per_instance(self) -> int:
        """Approximate memory of one instance in a chunk (state indices, kept uniforms and
        transient arrays)."""
        kept = sum(8 for s in self.steps if s.downstream and s.stream is not None)
        return len(self.steps) + kept + 64

    def read(self, system: System) -> list[np.ndarray]:
        """The current CPD values in the form the kernel uses, one array per step.

        Binary nodes: the probability of their first state per parent configuration (the
        draw gathers only the configurations that occur). Other nodes: cumulative
        probabilities (random) or the state index (deterministic) per configuration.
        """
        cpds = {c.variable: c for c in system.graph.cpds}
        out = []
        for step in self.steps:
            table = np.asarray(cpds[step.node].values, dtype=float).reshape(step.card, -1)
            if step.card == 2:
                out.append(table[0])
            elif step.deterministic:
                out.append(np.argmax(table, axis=0).astype(_dtype(step.card)))
            else:
                out.append(np.cumsum(table, axis=0)[:-1])
        return out

    def chunk(self, tables: Sequence[np.ndarray], generators: Sequence[np.random.Generator],
              m: int) -> np.ndarray:
        """Outcome counts ``[class, forced value, outcome]`` of ``m`` paired instances."""
        by_output = self.chunk_outputs(tables, generators, m)  # [class, forced, output]
        counts = np.zeros((2, len(self.slot_values), 4), dtype=np.int64)
        counts[0, :, :2] = by_output[0]  # TP, FN
        counts[1, :, 2:] = by_output[1]  # FP, TN
        return counts

    def chunk_outputs(self, tables: Sequence[np.ndarray],
                      generators: Sequence[np.random.Generator], m: int) -> np.ndarray:
        """Counts ``[class, forced state, output]`` of ``m`` instances, each seen under every
        forced state of the slot (:attr:`slot_values`), classes and outputs positive first."""
        upstream: dict[str, np.ndarray] = {}
        uniforms: dict[str, np.ndarray] = {}
        for step, table in zip(self.steps, tables):
            u = generators[step.stream].random(m) if step.stream is not None else None
            if step.downstream:
                if u is not None:
                    uniforms[step.node] = u
            else:
                upstream[step.node] = _draw(step, table, upstream, u, m)
        not_positive = (upstream[self.class_node] != self.class_positive).view(np.uint8)
        counts = np.zeros((2, len(self.slot_values), 2), dtype=np.int64)
        kind = _dtype(max(self.slot_values) + 1)
        for x, forced in enumerate(self.slot_values):
            values = dict(upstream)
            values[self.slot] = np.full(m, forced, dtype=kind)
            for step, table in zip(self.steps, tables):
                if step.downstream:
                    values[step.node] = _draw(step, table, values, uniforms.get(step.node), m)
            says_negative = (values[self.system_node] != self.system_positive).view(np.uint8)
            code = np.bincount(not_positive * 2 + says_negative, minlength=4)
            counts[:, x, :] = code.reshape(2, 2)  # [class, output]: TP, FN / FP, TN
        return counts


def _draw(step: _Step, table: np.ndarray, values: dict[str, np.ndarray],
          u: np.ndarray | None, m: int) -> np.ndarray:
    """State indices of ``step.node`` for ``m`` instances given its parents' ``values``."""
    if step.parents:
        config = values[step.parents[0]].astype(np.intp)
        for parent, card in zip(step.parents[1:], step.parent_cards[1:]):
            config *= card
            config += values[parent]
        gathered = table[config] if table.ndim == 1 else table[:, config]
    else:
        gathered = table[0] if table.ndim == 1 else table[:, 0]
    if step.card == 2:  # gathered: probability of the first state
        if step.deterministic:
            second = gathered < 0.5
        else:
            assert u is not None
            second = u >= gathered
        if np.ndim(second) == 0:
            return np.full(m, second, dtype=np.uint8)
        return second.view(np.uint8)
    if step.deterministic:  # gathered: state index
        return gathered if np.ndim(gathered) else np.full(m, gathered, dtype=gathered.dtype)
    assert u is not None
    out = np.zeros(m, dtype=_dtype(step.card))
    for row in gathered:  # cumulative probabilities of the first card - 1 states
        out += u >= row
    return out


def _structure(system: System, slot: str) -> tuple[Any, ...]:
    """What the plan depends on: every CPD's variables and state names, and the roles."""
    net = system.graph
    cpds = tuple(sorted(
        ((str(c.variable), tuple(map(str, c.variables)),
          tuple(tuple(map(str, c.state_names[v])) for v in c.variables)) for c in net.cpds),
    ))
    return (cpds, slot, system.class_node, system.system_node, system.positive,
            system.deterministic_nodes)


def plan_sampling(system: System, slot: str) -> SamplingPlan:
    """The plan for ``system`` with ``slot`` intervened (assumes a validated slot).

    Memoised on the system (per set of CPD objects) and cached across systems on the
    network's structure.

    Examples
    --------
    The slot's descendants are drawn under both interventions; each random node has its own
    stream of uniforms.

    >>> import causalcost as cc
    >>> plan = plan_sampling(cc.load_network("thesis_and"), "clinical_history")
    >>> [(step.node, step.downstream, step.stream) for step in plan.steps]
    [('Class', False, 0), ('images', False, 1), ('Fusioner', True, None)]
    """
    return system.memo(("sampling", slot), lambda: _cached(system, slot))


def _cached(system: System, slot: str) -> SamplingPlan:
    key = _structure(system, slot)
    plan = _CACHE.get(key)
    if plan is None:
        plan = _make(system, slot)
        _CACHE[key] = plan
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return plan


def _make(system: System, slot: str) -> SamplingPlan:
    net = system.graph
    graph = nx.DiGraph(net.edges())
    graph.add_nodes_from(net.nodes())
    graph.remove_edges_from(list(graph.in_edges(slot)))
    targets = {system.class_node, system.system_node}
    relevant = set(targets).union(*(nx.ancestors(graph, t) for t in targets))
    below = nx.descendants(graph, slot)
    cpds = {c.variable: c for c in net.cpds}
    steps = []
    streams = 0
    for node in nx.lexicographical_topological_sort(graph, key=str):
        if node not in relevant or node == slot:
            continue
        cpd = cpds[node]
        deterministic = node in system.deterministic_nodes
        steps.append(_Step(
            node=node, parents=tuple(cpd.variables[1:]),
            parent_cards=tuple(len(cpd.state_names[p]) for p in cpd.variables[1:]),
            card=len(cpd.state_names[node]), deterministic=deterministic,
            downstream=node in below, stream=None if deterministic else streams,
        ))
        streams += not deterministic
    states = system.states(slot)
    if is_score_slot(system, slot):  # every score bin, lowest first
        forced: tuple[int, ...] = tuple(range(len(states)))
    else:
        negative = next(s for s in states if s != system.positive)
        forced = (states.index(system.positive), states.index(negative))
    return SamplingPlan(
        steps=tuple(steps), slot=slot, slot_values=forced,
        class_node=system.class_node,
        class_positive=system.states(system.class_node).index(system.positive),
        system_node=system.system_node,
        system_positive=system.states(system.system_node).index(system.positive),
    )
