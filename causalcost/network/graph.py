"""A network without pgmpy: the graph and tables a built :class:`~causalcost.System` computes on.

:class:`~causalcost.SystemBuilder` and network files declare every table themselves, so the
system they build needs no pgmpy object to be validated, queried or sampled: it keeps a
:class:`Graph` (a :class:`networkx.DiGraph` with one :class:`Table` per node) and builds the
pgmpy network only when ``system.network`` is asked for (importing pgmpy, and scikit-learn
with it, takes over a second). Both speak the part of pgmpy's interface the library reads
(``get_cpds``, ``get_parents``, ``cpds``; ``variable``, ``variables``, ``state_names``,
``values``, ``get_values``), so every check and every computation runs unchanged on either.

The pgmpy network built from a :class:`Graph` shares its value arrays: a CPD changed in place
through ``system.network`` (``cpd.values[:] = ...``) is what the next query reads.

Examples
--------
>>> import causalcost as cc
>>> system = cc.load_network("thesis_and")
>>> type(system.graph).__name__, system.graph.get_parents("Fusioner")
('Graph', ['images', 'clinical_history'])
>>> system.graph.get_cpds("images").get_values().tolist()
[[0.8, 0.2], [0.2, 0.8]]
>>> system.network.get_cpds("images").values is system.graph.get_cpds("images").values
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

if TYPE_CHECKING:
    from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD

__all__ = ["Graph", "Table"]


class Table:
    """One node's conditional probability table, laid out as pgmpy's ``TabularCPD``.

    ``values`` has shape ``(card, *parent cards)``; :meth:`get_values` is the 2-D view with
    one column per parent configuration, first parent slowest (``itertools.product`` order).
    """

    __slots__ = ("state_names", "values", "variable", "variables")

    def __init__(self, variable: str, states: Sequence[Any], values: np.ndarray,
                 parents: Sequence[str] = (), parent_states: Sequence[Sequence[Any]] = ()
                 ) -> None:
        self.variable = variable
        self.variables = [variable, *parents]
        self.state_names: dict[str, list[Any]] = {variable: list(states)}
        self.state_names.update({p: list(s) for p, s in zip(parents, parent_states)})
        shape = (len(states), *(len(s) for s in parent_states))
        self.values = np.array(values, dtype=float, order="C").reshape(shape)

    @property
    def cardinality(self) -> np.ndarray:
        """States per variable, in ``variables`` order."""
        return np.array(self.values.shape)

    def get_values(self) -> np.ndarray:
        """The table as ``(states, parent configurations)``."""
        return self.values.reshape(self.values.shape[0], -1)

    def to_pgmpy(self) -> TabularCPD:
        """pgmpy's ``TabularCPD`` of this table, sharing its value array."""
        from causalcost.network._pgmpy import TabularCPD

        parents = self.variables[1:]
        cpd = TabularCPD(self.variable, self.values.shape[0], self.get_values(),
                         evidence=parents or None,
                         evidence_card=list(self.values.shape[1:]) or None,
                         state_names={v: list(self.state_names[v]) for v in self.variables})
        cpd.values = self.values  # the same array: in-place changes are seen by both
        return cpd

    def __repr__(self) -> str:
        given = f" | {', '.join(self.variables[1:])}" if len(self.variables) > 1 else ""
        return f"Table(P({self.variable}{given}), shape={self.values.shape})"


class Graph(nx.DiGraph):
    """A DAG with one :class:`Table` per node (see the module docstring)."""

    def __init__(self, incoming_graph_data: Any = None, **attr: Any) -> None:
        super().__init__(incoming_graph_data, **attr)
        self.cpds: list[Table] = []
        self._tables: dict[str, Table] = {}

    def add_cpds(self, *tables: Table) -> None:
        """Add tables (one per node; a node's table replaces its previous one)."""
        for table in tables:
            old = self._tables.get(table.variable)
            if old is not None:
                self.cpds.remove(old)
            self._tables[table.variable] = table
            self.cpds.append(table)

    def get_cpds(self, node: str | None = None) -> Any:
        """The table of ``node`` (``None`` if it has none), or every table."""
        if node is None:
            return list(self.cpds)
        if node not in self:
            raise ValueError(f"node {node!r} is not in the network")
        return self._tables.get(node)

    def get_parents(self, node: str) -> list[str]:
        """The parents of ``node``, in the order their edges were added (as pgmpy)."""
        return list(self.predecessors(node))

    def to_pgmpy(self) -> DiscreteBayesianNetwork:
        """The same network as pgmpy's ``DiscreteBayesianNetwork`` (value arrays shared)."""
        from causalcost.network._pgmpy import DiscreteBayesianNetwork

        network = DiscreteBayesianNetwork()
        network.add_nodes_from(self.nodes())
        network.add_edges_from(self.edges())
        network.add_cpds(*(table.to_pgmpy() for table in self.cpds))
        return network


def graph_of(tables: Mapping[str, Table], edges: Sequence[tuple[str, str]]) -> Graph:
    """A :class:`Graph` with ``tables`` (in order) and ``edges``."""
    graph = Graph()
    graph.add_nodes_from(tables)
    graph.add_edges_from(edges)
    graph.add_cpds(*tables.values())
    return graph
