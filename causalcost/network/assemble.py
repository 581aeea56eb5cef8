"""From declared nodes to a validated system network (no pgmpy: see :mod:`.graph`).

:class:`~causalcost.SystemBuilder` validates each declaration as it is made; :func:`assemble`
checks what needs every node at once (the graph has no cycle, every table has one row per
parent configuration), creates the tables and the confusion node in a
:class:`~causalcost.network.graph.Graph`, and validates it as
:meth:`System.from_pgmpy <causalcost.System.from_pgmpy>` does, with the declared fusioner,
which is verified against the tables there. The pgmpy network is built from the graph when
``system.network`` is first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import networkx as nx

from causalcost.confusion import OUTCOMES
from causalcost.errors import NetworkStructureError
from causalcost.network.cpds import confusion_values
from causalcost.network.divorce import NodeTable
from causalcost.network.fusioners import Fusioner
from causalcost.network.graph import Table, graph_of
from causalcost.network.scores import ScoreFusioner
from causalcost.network.system import System

__all__ = ["assemble", "CONFUSION"]

#: Name of the confusion node the builder adds.
CONFUSION = "Confusion"


def assemble(
    nodes: Mapping[str, NodeTable],
    *,
    class_node: str,
    states: tuple[str, str],
    fusioner: Fusioner | ScoreFusioner,
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
    tables = {name: _table(node, nodes) for name, node in nodes.items()}
    tables[CONFUSION] = Table(CONFUSION, OUTCOMES,
                              confusion_values(states, states, states[0]),
                              (class_node, system_node), (states, states))
    network = graph_of(tables, [*graph.edges(), (class_node, CONFUSION),
                                (system_node, CONFUSION)])
    return System._validated(
        network, class_node=class_node, system_node=system_node, slot=slot, positive=states[0],
        confusion_node=CONFUSION, models=models, name=name, fusioner=fusioner,
    )


def _table(node: NodeTable, nodes: Mapping[str, NodeTable]) -> Table:
    return Table(node.name, node.states, node.rows.T, node.parents,
                 [nodes[p].states for p in node.parents])
