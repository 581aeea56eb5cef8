"""Exact interventional tables by one tensor contraction over the mutilated network.

For the slot ``M``, class ``C`` and system prediction ``S``,

    P(C = c, S = s | do(M = x)) = sum over the other nodes of  prod_{v != M} P(v | pa(v)),

with ``M`` left as a free index ``x`` (its point mass CPD is the indicator of ``x``, so every
``x`` is obtained at once). One einsum returns ``R[c, x, s]`` for all cells; dividing by
``P(C = c) = sum_s R[c, x, s]`` gives the table. Only ancestors of ``{C, S}`` take part
(barren nodes sum to one). The confusion node is a deterministic function of ``(C, S)``
(validated when the system was built), so outcomes are read off ``R`` directly.

The contraction order is planned once per network *structure* and cached; later calls, with
the same structure and any CPD values, only run the contraction (CPD values are read on every
call). Up to 14 CPDs ``opt_einsum`` plans it; beyond, where opt_einsum would plan greedily, the
min-weight variable elimination order (:mod:`causalcost.inference.elimination`) is planned and
run step by step: on a vote divorced into a chain of count nodes it needs 60x fewer flops than
the greedy order and a few milliseconds of planning where opt_einsum takes 150 ms. Systems
whose fusioner has many inputs and whose models are independent given a shared context are
contracted around the fusioner instead (:mod:`causalcost.inference.vote_split`), which numpy runs
several times faster; that choice weighs the split's flops against the elimination order's,
which take microseconds to count, so the general plan is only searched for when it will run.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import opt_einsum as oe

from causalcost.confusion import Confusion
from causalcost.errors import ValidationError
from causalcost.inference.elimination import elimination_plan
from causalcost.inference.intervene import known_monotonicity
from causalcost.inference.table import InterventionalTable
from causalcost.inference.vote_split import plan_vote_split
from causalcost.network.scores import is_score_slot
from causalcost.network.system import System

__all__ = [
    "ExactPlan", "class_prior", "exact_table", "exact_table_of", "observed_confusion",
    "plan_exact",
]

_CACHE: OrderedDict[tuple[Any, ...], ExactPlan] = OrderedDict()
_CACHE_SIZE = 128
#: The vote split is used when its flop count is at most this multiple of the general plan's:
#: its middle step is one BLAS matrix product, which numpy runs far faster than the general
#: plan's high-dimensional einsum steps of the same size.
SPLIT_ADVANTAGE = 4.0


@dataclass(frozen=True)
class ExactPlan:
    """A planned contraction for one network structure, slot and roles."""

    method: str  # "einsum" (general) or "vote-split" (see causalcost.inference.vote_split)
    evaluate: Callable[[Mapping[str, np.ndarray]], np.ndarray]  # CPD arrays -> R[c, x, s]
    order: tuple[np.ndarray, ...]  # np.ix_ index putting class, slot and prediction in (P, N)

    def contract(self, cpds: Mapping[str, np.ndarray]) -> np.ndarray:
        """``R[c, x, s]`` with class, forced value and prediction each in (P, N) order."""
        return self.evaluate(cpds)[self.order]


def _signature(system: System, slot: str) -> tuple[Any, ...]:
    cpds = tuple(
        (c.variable, tuple(c.variables), tuple(len(c.state_names[v]) for v in c.variables))
        for c in system.graph.cpds
    )
    roles = (slot, system.class_node, system.system_node, system.positive,
             tuple(system.states(slot)), tuple(system.states(system.class_node)),
             tuple(system.states(system.system_node)))
    return (tuple(sorted(cpds)), roles)


def plan_exact(system: System, slot: str) -> ExactPlan:
    """Plan (or fetch from the cache) the contraction for ``system`` with ``slot`` intervened.

    Assumes a validated slot.
    """
    key = _signature(system, slot)
    plan = _CACHE.get(key)
    if plan is not None:
        _CACHE.move_to_end(key)
        return plan
    net = system.graph
    mutilated = nx.DiGraph(net.edges())
    mutilated.add_nodes_from(net.nodes())
    mutilated.remove_edges_from(list(mutilated.in_edges(slot)))
    targets = {system.class_node, system.system_node}
    relevant = set(targets)
    for t in targets:
        relevant |= nx.ancestors(mutilated, t)
    relevant.add(slot)
    split = plan_vote_split(
        system, slot, lambda nodes, output: _contraction(net, nodes, free=None, output=output)[:2]
    )
    output = (system.class_node, slot, system.system_node)
    # the split is weighed against the elimination order's flops (priced in microseconds):
    # when it wins, the general plan is never searched for
    if split is not None and split.cost <= SPLIT_ADVANTAGE * _elimination_cost(
            net, relevant, free=slot, output=output):
        method, evaluate = "vote-split", split
    else:
        method = "einsum"
        factors, expression, _ = _contraction(net, relevant, free=slot, output=output)

        def evaluate(cpds: Mapping[str, np.ndarray]) -> np.ndarray:
            return expression(*(cpds[n] for n in factors))

    c = system.states(system.class_node).index(system.positive)
    p = system.states(system.system_node).index(system.positive)
    slot_states = system.states(slot)
    if is_score_slot(system, slot):  # a score slot: every bin, lowest score first
        x = list(range(len(slot_states)))
    else:
        negative = next(st for st in slot_states if st != system.positive)
        x = [slot_states.index(system.positive), slot_states.index(negative)]
    plan = ExactPlan(method=method, evaluate=evaluate, order=np.ix_([c, 1 - c], x, [p, 1 - p]))
    _CACHE[key] = plan
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return plan


#: Joint index spaces up to this size are summed by one unplanned ``np.einsum`` call: a single
#: C loop beats a planned sequence of pairwise steps, each with its own Python overhead.
DIRECT_LIMIT = 1 << 12
#: Beyond this many operands opt_einsum's ``"auto"`` plans greedily, which on a vote divorced
#: into count nodes costs 60x more flops than the min-weight variable elimination order
#: (:mod:`causalcost.inference.elimination`) and, at 200 models, 150 ms of planning: the
#: elimination order is used instead, planned and run without opt_einsum (a few ms).
ELIMINATION_MIN_OPERANDS = 14


def _contraction(
    net: Any, relevant: set[str], *, free: str | None, output: tuple[str, ...],
) -> tuple[tuple[str, ...], Callable[..., np.ndarray], float]:
    """The einsum over the CPDs of ``relevant`` (except ``free``, left as an open index).

    Returns the operand order, a function of the operands and the estimated cost in flops.
    Beyond :data:`ELIMINATION_MIN_OPERANDS` operands the min-weight elimination order is
    used and run step by step (:func:`~causalcost.inference.elimination.elimination_plan`).
    """
    symbols = {node: oe.get_symbol(i) for i, node in enumerate(sorted(relevant, key=str))}
    cpds = {c.variable: c for c in net.cpds}
    factors, terms, shapes = [], [], []
    for node in sorted(relevant - {free}, key=str):
        cpd = cpds[node]
        factors.append(node)
        terms.append("".join(symbols[v] for v in cpd.variables))
        shapes.append(tuple(len(cpd.state_names[v]) for v in cpd.variables))
    kept = "".join(symbols[n] for n in output)
    equation = ",".join(terms) + "->" + kept
    sizes = {sym: dim for term, shape in zip(terms, shapes) for sym, dim in zip(term, shape)}
    space = math.prod(sizes.values())
    if space <= DIRECT_LIMIT:

        def direct(*operands: np.ndarray) -> np.ndarray:
            return np.einsum(equation, *operands, optimize=False)

        return tuple(factors), direct, float(space * len(factors))
    if len(terms) > ELIMINATION_MIN_OPERANDS:  # opt_einsum's "auto" would be greedy here
        plan = elimination_plan(terms, kept, sizes)
        return tuple(factors), plan, plan.cost
    path, info = oe.contract_path(equation, *shapes, shapes=True, optimize="auto")
    expression = oe.contract_expression(equation, *shapes, optimize=path)
    return tuple(factors), expression, float(info.opt_cost)


def _elimination_cost(net: Any, relevant: set[str], *, free: str | None,
                      output: tuple[str, ...]) -> float:
    """Flops of the min-weight elimination order over the CPDs of ``relevant``."""
    symbols = {node: oe.get_symbol(i) for i, node in enumerate(sorted(relevant, key=str))}
    cpds = {c.variable: c for c in net.cpds}
    terms = ["".join(symbols[v] for v in cpds[node].variables)
             for node in sorted(relevant - {free}, key=str)]
    sizes = {symbols[v]: n for node in relevant - {free}
             for v, n in zip(cpds[node].variables, cpds[node].values.shape)}
    return elimination_plan(terms, "".join(symbols[n] for n in output), sizes).cost


def joint_class_system(system: System, slot: str) -> np.ndarray:
    """``P(C = c, S = s | do(slot = x))`` as an array ``[c, x, s]`` in (P, N) order throughout.

    Assumes a validated slot. The plan is memoised; CPD values are read on every call.
    """
    plan = system.memo(("exact", slot), lambda: plan_exact(system, slot))
    return plan.contract({c.variable: c.values for c in system.graph.cpds})


def observed_confusion(system: System, positives: float, negatives: float) -> Confusion:
    """The system's expected confusion with every model as declared (no intervention).

    ``positives`` and ``negatives`` are the class sizes; cells are expected counts. This is
    what the real system does with the slot's own CPD, e.g. to compare with a bound.

    Examples
    --------
    Thesis §3.3: two 50 % models whose errors never overlap make the AND system miss every
    positive, where cost function 1 (independent errors) expects to miss 75 of 100.

    >>> import causalcost as cc
    >>> cc.observed_confusion(cc.load_network("anticorrelated_and"), 100, 200)
    Confusion(tp=0, fn=100, fp=0, tn=200)
    """
    for name, size in (("positives", positives), ("negatives", negatives)):
        if not (isinstance(size, (int, float, np.integer, np.floating)) and size >= 0):
            raise ValidationError(f"{name} must be a non-negative number, got {size!r}")

    def plan() -> tuple[tuple[str, ...], Any]:
        targets = {system.class_node, system.system_node}
        relevant = set(targets).union(*(nx.ancestors(system.graph, t) for t in targets))
        return _contraction(system.graph, relevant, free=None,
                            output=(system.class_node, system.system_node))[:2]

    factors, expression = system.memo(("observed",), plan)
    cpds = {c.variable: c.values for c in system.graph.cpds}
    joint = expression(*(cpds[n] for n in factors))  # [class, system] in state order
    c = system.states(system.class_node).index(system.positive)
    s = system.states(system.system_node).index(system.positive)
    on_p = joint[c] / joint[c].sum()
    on_n = joint[1 - c] / joint[1 - c].sum()
    return Confusion(tp=positives * on_p[s], fn=positives * on_p[1 - s],
                     fp=negatives * on_n[s], tn=negatives * on_n[1 - s])


def class_prior(system: System) -> float:
    """``P(Class = positive)``, which no intervention on a model changes.

    Examples
    --------
    >>> import causalcost as cc
    >>> round(class_prior(cc.load_network("population_and")), 6)  # 0.5*0.1 + 0.3*0.4 + 0.2*0.7
    0.31
    """
    slot = system.require_slot()
    joint = joint_class_system(system, slot)
    mass = joint[:, 0, :].sum(axis=1)
    return float(mass[0] / mass.sum())


def exact_table(system: System, slot: str | None = None) -> InterventionalTable:
    """``P(Conf^S | Class, do(slot = x))`` for both classes and both ``x``, exactly.

    Examples
    --------
    >>> import causalcost as cc
    >>> t = exact_table(cc.load_network("thesis_and"))
    >>> t.error_rates
    ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0)
    """
    return exact_table_of(system, system.require_slot(slot))


def exact_table_of(system: System, slot: str) -> InterventionalTable:
    """:func:`exact_table` for a slot the caller validated (assumes validated arguments)."""
    joint = joint_class_system(system, slot)
    class_mass = joint.sum(axis=2, keepdims=True)  # equal for both x: C is no descendant of it
    if not class_mass.all():
        name = "positive" if class_mass[0, 0, 0] <= 0 else "negative"
        raise ValidationError(
            f"the {name} class has probability 0 in this network: rates conditioned on it "
            "are undefined"
        )
    cond = joint / class_mass
    if is_score_slot(system, slot):  # T[c, bin, s]: the slot's states are its score bins
        return InterventionalTable.from_array(
            cond, labels=system.labels, slot=slot, slot_states=system.states(slot),
            method="exact", monotonicity=known_monotonicity(system, slot))
    table = np.zeros((2, 2, 4))
    table[0, :, :2] = cond[0]  # TP, FN
    table[1, :, 2:] = cond[1]  # FP, TN
    return InterventionalTable.trusted(slot=slot, method="exact", probabilities=table,
                                       monotonicity=known_monotonicity(system, slot))
