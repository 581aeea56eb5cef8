"""The checks on a system's roles: binary nodes sharing the class's states, the structure the
do-operator needs, a deterministic fusioner, and the confusion node.

Functions of a :class:`~causalcost.System` under construction (it is valid once they pass,
with the confusion node's check, which stays with the class); they assume the nodes named by
the roles exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

from causalcost.errors import NetworkStructureError
from causalcost.network.cpds import states_of
from causalcost.network.text import plain

if TYPE_CHECKING:
    from causalcost.network._pgmpy import DiscreteBayesianNetwork

__all__ = ["default_positive", "require_binary", "score_inputs", "validate_roles"]


def score_inputs(system: Any) -> tuple[str, ...]:
    """The score models of a system whose fusioner fuses scores (their states are score bins,
    :mod:`causalcost.network.scores`); ``()`` for a vote system."""
    return tuple(getattr(system.fusioner, "inputs", ())) \
        if getattr(system.fusioner, "is_score", False) else ()


def default_positive(network: DiscreteBayesianNetwork, class_node: str,
                     positive: Any) -> tuple[Any, str | None]:
    """The positive state and why it was chosen: as given; else ``1`` when the class's states
    are 0 and 1 (pgmpy's default names), with a note for the repr; else ``"P"``."""
    if positive is not None:
        return positive, None
    states = states_of(network, class_node)
    if sorted(str(s) for s in states) == ["0", "1"]:
        one = next(s for s in states if str(s) == "1")
        return one, "assumed: the class's states are 0 and 1; pass positive= to choose"
    return "P", None


def require_binary(system: Any, node: str, role: str) -> None:
    """``node`` has two states: the positive one and the class's negative one."""
    states = plain(states_of(system.graph, node))
    if len(states) != 2 or system.positive not in states:
        hint = ("Pass positive=... to name the positive state"
                if node == system.class_node else
                f"Its states must be the class's, {plain(system.states(system.class_node))}")
        raise NetworkStructureError(
            f"{role} {node!r} must have two states, one of them the positive state "
            f"{plain([system.positive])[0]!r}; it has {states}. {hint}"
        )
    if node != system.class_node:
        class_states = plain(states_of(system.graph, system.class_node))
        if set(map(str, states)) != set(map(str, class_states)):
            raise NetworkStructureError(
                f"{role} {node!r} has the states {states}, but the class "
                f"{system.class_node!r} has {class_states}: a prediction must use the class's "
                "state names (positive and negative); rename the states"
            )


def validate_roles(system: Any) -> None:
    """Every role check of the module docstring of :mod:`causalcost.network.system`."""
    net = system.graph
    require_binary(system, system.class_node, "class node")
    require_binary(system, system.system_node, "system node")
    upstream = nx.ancestors(net, system.system_node)
    scores = score_inputs(system)
    for m in system.models:
        if m not in scores:  # a score model's states are its bins
            require_binary(system, m, "model")
        if m not in upstream:
            raise NetworkStructureError(
                f"model {m!r} does not reach the system node {system.system_node!r}"
            )
    if system.class_node in nx.descendants(net, system.system_node):
        raise NetworkStructureError(
            f"class node {system.class_node!r} descends from system node "
            f"{system.system_node!r}"
        )
    if system.system_node not in system.deterministic_nodes:
        raise NetworkStructureError(
            f"system node {system.system_node!r} is not deterministic given its parents: a "
            "fusioner maps model predictions to one output; make each CPD column a 0/1 vector"
        )
