"""From declared nodes to a validated pgmpy network: the one step of the builder that needs pgmpy.

:class:`~causalcost.SystemBuilder` validates each declaration as it is made, without pgmpy;
:func:`assemble` checks what needs every node at once (the graph has no cycle, every table has
one row per parent configuration), creates the pgmpy CPDs and the confusion node, and hands
the network to :meth:`System.from_pgmpy <causalcost.System.from_pgmpy>` with the declared
fusioner, which is verified against the tables there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import networkx as nx

from causalcost.errors import NetworkStructureError
from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD
from causalcost.network.cpds import confusion_cpd
from causalcost.network.divorce import NodeTable
from causalcost.network.fusioners import Fusioner
from causalcost.network.system import System

__all__ = ["assemble", "CONFUSION"]

#: Name of the confusion node the builder adds.
CONFUSION = "Confusion"


def assemble(
    nodes: Mapping[str, NodeTable],
    *,
    class_node: str,
    states: tuple[str, str],
    fusioner: Fusioner,
    system_node: str,
    models: tuple[str, ...],
    name: str,
    slot: str | None,
    check_rows: Callable[[str, Any, Sequence[str], Sequence[Sequence[str]]], None],
) -> System:
    """The validated :class:`~causalcost.System` of declared ``nodes`` (every parent declared)."""
    if CONFUSION in nodes:
        raise NetworkStructureError(
            f"node name {CONFUSION!r} is reserved for the system's confusion node")
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((p, node.name) for node in nodes.values() for p in node.parents)
    if not nx.is_directed_acyclic_graph(graph):
        edges = nx.find_cycle(graph)
        cycle = " -> ".join([u for u, _ in edges] + [edges[0][0]])
        raise NetworkStructureError(f"the network has a cycle: {cycle}; remove one edge of it")
    for node in nodes.values():
        check_rows(node.name, node.rows, node.parents, [nodes[p].states for p in node.parents])
    network = DiscreteBayesianNetwork()
    network.add_nodes_from(nodes)
    network.add_edges_from(graph.edges())
    network.add_edges_from([(class_node, CONFUSION), (system_node, CONFUSION)])
    network.add_cpds(*(_cpd(node, nodes) for node in nodes.values()),
                     confusion_cpd(CONFUSION, class_node, states, system_node, states, states[0]))
    return System.from_pgmpy(
        network, class_node=class_node, system_node=system_node, slot=slot, positive=states[0],
        confusion_node=CONFUSION, models=models, name=name, fusioner=fusioner,
    )


def _cpd(node: NodeTable, nodes: Mapping[str, NodeTable]) -> TabularCPD:
    return TabularCPD(
        node.name, len(node.states), node.rows.T,
        evidence=list(node.parents) or None,
        evidence_card=[len(nodes[p].states) for p in node.parents] or None,
        state_names={node.name: list(node.states),
                     **{p: list(nodes[p].states) for p in node.parents}},
    )
