"""Pearl's do-operator on a system network, and the monotonicity the worst case needs.

``do(X = x)`` removes every edge into ``X`` and fixes ``X`` to ``x`` with probability 1: the
*mutilated* graph (Pearl, *Causality*, §3.2). :func:`mutilate` returns a new pgmpy network
and never touches the caller's. (pgmpy's own ``model.do`` leaves ``X`` with a column-average
CPD instead of a point mass, so it is only right together with evidence ``X = x``.)

The worst case is valid only when the system is *monotone in the slot*: for every assignment
of everything else that feeds the system prediction, forcing the slot to P gives a
prediction at least as positive as forcing it to N. :func:`check_monotonicity` decides this
exactly by enumerating those assignments through the deterministic nodes between slot and
system prediction.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import networkx as nx
import numpy as np

from causalcost.errors import NetworkStructureError, UnknownNameError, ValidationError
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD
from causalcost.network.system import System, node_table, require_node

__all__ = [
    "MAX_ASSIGNMENTS", "MonotonicityCheck", "check_monotonicity", "known_monotonicity", "mutilate",
]

#: Largest number of boundary assignments :func:`check_monotonicity` enumerates.
MAX_ASSIGNMENTS = 1 << 24


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
    specification is about one instance seen with the slot forced both ways); their other
    parents form the *boundary*, and every boundary assignment is enumerated (vectorised),
    including ones of probability zero.

    Raises
    ------
    NetworkStructureError
        When a node between slot and system prediction is random, or there are more than
        ``MAX_ASSIGNMENTS`` boundary assignments.

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
    >>> check.is_monotone, check.violation
    (False, {'a': 'P'})
    """
    slot = system.require_slot(slot)
    net, target = system.network, system.system_node
    between = (nx.descendants(net, slot) & nx.ancestors(net, target)) | {target}
    random_nodes = sorted(n for n in between if not system.is_deterministic(n))
    if random_nodes:
        raise NetworkStructureError(
            f"nodes {random_nodes} between slot {slot!r} and {target!r} are random: per-instance "
            "monotonicity is undefined; make them deterministic or model the randomness upstream"
        )
    order = [n for n in nx.topological_sort(net) if n in between]
    boundary = sorted({p for n in order for p in net.get_parents(n)} - between - {slot})
    cards = [len(system.states(b)) for b in boundary]
    total = int(np.prod(cards, dtype=np.int64)) if cards else 1
    if total > MAX_ASSIGNMENTS:
        raise NetworkStructureError(
            f"{total} boundary assignments exceed the limit {MAX_ASSIGNMENTS}; reduce the inputs "
            "of the fusioner"
        )
    grid = np.unravel_index(np.arange(total), cards) if cards else ()
    positive = system.states(target).index(system.positive)
    outcome = {}
    slot_states = system.states(slot)
    for forced in (system.positive, system.negative()):
        values = {b: g for b, g in zip(boundary, grid)}
        values[slot] = np.full(total, slot_states.index(forced))
        for node in order:
            cpd = net.get_cpds(node)
            parents = cpd.variables[1:]
            config = np.ravel_multi_index([values[p] for p in parents],
                                          [len(cpd.state_names[p]) for p in parents]) \
                if parents else np.zeros(total, dtype=np.intp)
            values[node] = np.argmax(node_table(cpd), axis=0)[config]
        outcome[forced] = values[target] == positive
    bad = np.flatnonzero(outcome[system.negative()] & ~outcome[system.positive])
    violation = None
    if bad.size:
        i = int(bad[0])
        violation = {b: system.states(b)[int(g[i])] for b, g in zip(boundary, grid)}
    return MonotonicityCheck(slot, target, not bad.size, violation, total)


def known_monotonicity(system: System, slot: str) -> MonotonicityCheck | None:
    """:func:`check_monotonicity`, memoised per system, or None when it cannot be decided."""

    def check() -> MonotonicityCheck | None:
        try:
            return check_monotonicity(system, slot)
        except NetworkStructureError:  # random nodes between slot and system prediction
            return None

    return system.memo(("monotonicity", slot), check)
