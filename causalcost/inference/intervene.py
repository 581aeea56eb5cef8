"""Pearl's do-operator on a system network, and the monotonicity the worst case needs.

``do(X = x)`` removes every edge into ``X`` and fixes ``X`` to ``x`` with probability 1: the
*mutilated* graph (Pearl, *Causality*, §3.2). :func:`mutilate` returns a new pgmpy network
and never touches the caller's. (pgmpy's own ``model.do`` leaves ``X`` with a column-average
CPD instead of a point mass, so it is only right together with evidence ``X = x``.)

The worst case is valid only when the system is *monotone in the slot*: for every assignment
of everything else that feeds the system prediction, forcing the slot to P gives a
prediction at least as positive as forcing it to N. :func:`check_monotonicity` decides this
exactly: *by construction* when the fusioner is a vote in which the slot has a non-negative
weight (adding the slot's vote can only raise the weighted sum), else by enumerating those
assignments through the deterministic nodes between slot and system prediction, up to
``MAX_ASSIGNMENTS``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from causalcost.errors import NetworkStructureError, UnknownNameError, ValidationError
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.network.scores import is_score_slot
from causalcost.network.system import System, node_table, require_node

if TYPE_CHECKING:
    from causalcost.network._pgmpy import DiscreteBayesianNetwork

__all__ = [
    "MAX_ASSIGNMENTS", "MonotonicityCheck", "check_monotonicity", "known_monotonicity", "mutilate",
]

#: Largest number of boundary assignments :func:`check_monotonicity` enumerates (seconds at
#: most); beyond it the check refuses rather than run for minutes.
MAX_ASSIGNMENTS = 1 << 22
#: Assignments evaluated at once, so that memory stays bounded.
_BLOCK = 1 << 16


def mutilate(
    model: System | DiscreteBayesianNetwork, intervention: Mapping[str, str]
) -> DiscreteBayesianNetwork:
    """The mutilated network for ``do(node = state, ...)``: a new network, input untouched.

    Parameters
    ----------
    model : System or pgmpy.models.DiscreteBayesianNetwork
    intervention : mapping of node name to state name

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        A deep copy with every edge into each intervened node removed and its CPD replaced
        by a point mass on the given state.

    Raises
    ------
    UnknownNameError
        For a node or state the network does not have (the message lists valid ones).

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("thesis_and")
    >>> cut = cc.mutilate(system, {"clinical_history": "N"})
    >>> cut.get_parents("clinical_history"), system.network.get_parents("clinical_history")
    ([], ['Class'])
    >>> cut.get_cpds("clinical_history").get_values().ravel().tolist()
    [0.0, 1.0]
    """
    from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD

    network = model.network if isinstance(model, System) else model
    if not isinstance(network, DiscreteBayesianNetwork):
        raise TypeError(f"expected a System or DiscreteBayesianNetwork, got {type(model).__name__}")
    if not intervention:
        raise ValidationError("intervention is empty: give at least one node=state")
    out = copy.deepcopy(network)
    for node, state in intervention.items():
        require_node(network, node, "intervened node")
        states = list(network.get_cpds(node).state_names[node])
        if state not in states:
            raise UnknownNameError(
                f"state {state!r} is not a state of {node!r}; valid states: {states}"
            )
        out.remove_edges_from([(p, node) for p in list(out.get_parents(node))])
        values = np.zeros((len(states), 1))
        values[states.index(state), 0] = 1.0
        out.remove_cpds(out.get_cpds(node))
        out.add_cpds(TabularCPD(node, len(states), values, state_names={node: states}))
    return out


def check_monotonicity(system: System, slot: str | None = None) -> MonotonicityCheck:
    """Decide exactly whether the system prediction is monotone in the slot.

    Every node on a path from the slot to the system prediction must be deterministic (the
    specification is about one instance seen with the slot forced both ways). When the
    system's fusioner is a vote (``and``, ``or``, ``majority``, ``k_of_n``, ``weighted``) in
    which the slot has a non-negative weight, and the slot reaches the system prediction only
    through the fusioner (and the count nodes it is divorced into), the system is monotone by
    construction: nothing is enumerated (``method="by construction"``). Otherwise the other
    parents of the nodes between slot and system prediction form the *boundary*, and every
    boundary assignment is enumerated (vectorised, in blocks), including ones of probability
    zero (``method="enumeration"``).

    Raises
    ------
    NetworkStructureError
        When a node between slot and system prediction is random, or the enumeration would
        exceed ``MAX_ASSIGNMENTS`` (2**22) boundary assignments.

    Examples
    --------
    >>> import causalcost as cc
    >>> cc.check_monotonicity(cc.load_network("majority3")).is_monotone
    True
    >>> xor = (cc.SystemBuilder(class_prior=0.5)
    ...        .add_model("a", sensitivity=0.9, specificity=0.9)
    ...        .add_model("b", sensitivity=0.9, specificity=0.9)
    ...        .set_fusioner("function", function=lambda a, b: a != b).build(slot="b"))
    >>> check = cc.check_monotonicity(xor)
    >>> check.is_monotone, check.violation, check.method
    (False, {'a': 'P'}, 'enumeration')
    """
    if system.declaration is not None:
        raise NetworkStructureError(
            "check_monotonicity decides it from a binary network's tables; for a system "
            "declared by its labels monotonicity depends on the costs: use "
            "cc.check_monotonicity(system, costs)")
    return monotonicity_of(system, system.require_slot(slot))


def monotonicity_of(system: System, slot: str) -> MonotonicityCheck:
    """:func:`check_monotonicity` for a slot the caller validated (assumes validated arguments)."""
    net, target = system.graph, system.system_node
    if is_score_slot(system, slot):  # checked on the bin grid of the score fusioner
        f = system.fusioner
        violation = f.violation(slot)
        return MonotonicityCheck(slot, target, violation is None, violation,
                                 f.configurations(slot), method="bin grid")
    between = (nx.descendants(net, slot) & nx.ancestors(net, target)) | {target}
    random_nodes = sorted(n for n in between if not system.is_deterministic(n))
    if random_nodes:
        raise NetworkStructureError(
            f"nodes {random_nodes} between slot {slot!r} and {target!r} are random: per-instance "
            "monotonicity is undefined; make them deterministic or model the randomness upstream"
        )
    if _monotone_vote(system, slot, between):
        return MonotonicityCheck(slot, target, True, None, 0, method="by construction")
    order = [n for n in nx.topological_sort(net) if n in between]
    boundary = sorted({p for n in order for p in net.get_parents(n)} - between - {slot})
    cards = [len(system.states(b)) for b in boundary]
    total = math.prod(cards)
    if total > MAX_ASSIGNMENTS:
        shown = ", ".join(map(repr, boundary[:4])) + (", ..." if len(boundary) > 4 else "")
        raise NetworkStructureError(
            f"checking monotonicity in slot {slot!r} would enumerate {total} assignments of "
            f"{len(boundary)} other inputs ({shown}), more than the limit {MAX_ASSIGNMENTS} "
            "(2**22); declare the fusioner as a vote (and, or, majority, k_of_n, or weighted "
            "with a non-negative weight on the slot), which is monotone by construction and "
            "needs no enumeration, or use assumption='none' (assumption-free bounds)"
        )
    steps = []  # (node, parents, parent cards, state index per parent configuration)
    for node in order:
        cpd = net.get_cpds(node)
        parents = list(cpd.variables[1:])
        steps.append((node, parents, [len(cpd.state_names[p]) for p in parents],
                      np.argmax(node_table(cpd), axis=0)))
    positive = system.states(target).index(system.positive)
    slot_states = system.states(slot)
    forced_values = (slot_states.index(system.positive), slot_states.index(system.negative()))
    for start in range(0, total, _BLOCK):
        index = np.arange(start, min(total, start + _BLOCK))
        grid = np.unravel_index(index, cards) if cards else ()
        outcome = []
        for forced in forced_values:
            values = {b: g for b, g in zip(boundary, grid)}
            values[slot] = np.full(index.size, forced)
            for node, parents, parent_cards, table in steps:
                config = np.ravel_multi_index([values[p] for p in parents], parent_cards) \
                    if parents else np.zeros(index.size, dtype=np.intp)
                values[node] = table[config]
            outcome.append(values[target] == positive)
        bad = np.flatnonzero(outcome[1] & ~outcome[0])  # N at slot P although P at slot N
        if bad.size:
            i = int(bad[0])
            violation = {b: system.states(b)[int(g[i])] for b, g in zip(boundary, grid)}
            return MonotonicityCheck(slot, target, False, violation, total)
    return MonotonicityCheck(slot, target, True, None, total)


def _monotone_vote(system: System, slot: str, between: set[str]) -> bool:
    """Whether the system's fusioner makes it monotone in ``slot`` by construction.

    Reads ``system.fusioner`` (a :class:`~causalcost.network.fusioners.Fusioner`, set for
    systems built from a rule; absent or None otherwise): a vote ``sum(w_i v_i) >= t`` rises
    with the slot's vote when its weight is non-negative. That describes the system only if
    the system prediction is a deterministic function of the fusioner's inputs alone, computed
    by the nodes between them (the fusioner and the count chain it is divorced into, each fed
    only by inputs and each other), and the slot reaches it through that function alone (no
    other input descends from the slot).
    """
    fusioner = getattr(system, "fusioner", None)
    if fusioner is None or not getattr(fusioner, "is_vote", False):
        return False
    inputs = tuple(getattr(fusioner, "inputs", ()) or ())
    weights = getattr(fusioner, "weights", None)
    if slot not in inputs or weights is None or len(weights) != len(inputs):
        return False
    if not weights[inputs.index(slot)] >= 0 or between & set(inputs):
        return False
    net, target = system.graph, system.system_node
    if target in inputs:
        return False
    # the nodes computing the vote: every non-input ancestor of the prediction up to the
    # inputs must be deterministic (a random one, or the class, would feed the vote)
    region, frontier = {target}, [target]
    while frontier:
        for parent in net.get_parents(frontier.pop()):
            if parent in inputs or parent in region:
                continue
            if not system.is_deterministic(parent):
                return False
            region.add(parent)
            frontier.append(parent)
    return True


def known_monotonicity(system: System, slot: str) -> MonotonicityCheck | None:
    """:func:`check_monotonicity`, memoised per system, or None when it cannot be decided
    (random nodes between slot and prediction, or too many assignments). Assumes a validated
    slot."""

    def check() -> MonotonicityCheck | None:
        try:
            return monotonicity_of(system, slot)
        except NetworkStructureError:
            return None

    return system.memo(("monotonicity", slot), check)
