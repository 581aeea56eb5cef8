"""K-label systems to and from pgmpy networks (pgmpy itself is reached through ``_pgmpy``).

:func:`from_pgmpy` accepts the shape of :mod:`causalcost.network.multiclass_system`: a root
class node with K states; latent nodes with no parent or the class as parent; model nodes
whose parents are the class and at most one latent, with the class's states in order; a
system node whose parents are exactly the models, with the class's states in order. The
labels are the class node's state names in order. The system node's table (deterministic or
not) becomes a ``table`` fusioner.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from causalcost.errors import CPDError, NetworkStructureError, UnknownNameError
from causalcost.network.fusioners import Fusioner as MulticlassFusioner
from causalcost.network.multiclass_system import (
    Latent,
    MulticlassModel,
    MulticlassSystem,
    check_structure,
)

__all__ = ["from_pgmpy", "to_pgmpy", "multiclass_to_pgmpy", "MAX_TABLE_ENTRIES"]

#: Largest system-node table written to pgmpy (K^(n+1) entries).
MAX_TABLE_ENTRIES = 20_000_000


def _values(network: Any, node: str, parents: list[str]) -> np.ndarray:
    """The CPD of ``node`` as an array indexed ``[parents..., node]`` (parents in the given
    order)."""
    cpd = network.get_cpds(node)
    if cpd is None:
        raise CPDError(f"node {node!r} has no CPD; add one with add_cpds")
    arr = np.asarray(cpd.values, dtype=float)  # axes: node, evidence... (cpd.variables order)
    order = list(cpd.variables)
    perm = [order.index(p) for p in parents] + [0]
    return np.transpose(arr, perm)


def _states(network: Any, node: str) -> tuple[str, ...]:
    cpd = network.get_cpds(node)
    if cpd is None:
        raise CPDError(f"node {node!r} has no CPD; add one with add_cpds")
    return tuple(str(s) for s in cpd.state_names[node])


def from_pgmpy(network: Any, *, class_node: str, system_node: str, slot: str | None = None,
               name: str = "system") -> MulticlassSystem:
    """A :class:`MulticlassSystem` from a pgmpy network with K-state nodes.

    Raises
    ------
    UnknownNameError
        ``class_node`` or ``system_node`` is not in the network.
    NetworkStructureError
        A node outside the accepted shape (named, with why).
    CPDError
        A missing CPD.

    Examples
    --------
    >>> import causalcost as cc
    >>> eye = np.eye(3)
    >>> built = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["a", "b", "c"])
    ...          .add_model("m1", confusion=0.8 * eye + 0.1 * (1 - eye))
    ...          .add_model("m2", confusion=0.6 * eye + 0.2 * (1 - eye))
    ...          .set_fusioner("plurality").build(slot="m1"))
    >>> again = cc.System.from_pgmpy(cc.multiclass_to_pgmpy(built), class_node="Class",
    ...                              system_node="System", slot="m1")
    >>> again.labels, again.fusioner.kind
    (('a', 'b', 'c'), 'table')
    """
    nodes = set(map(str, network.nodes()))
    for node, role in ((class_node, "class_node"), (system_node, "system_node")):
        if node not in nodes:
            raise UnknownNameError(f"{role} {node!r} is not a node of the network; nodes: "
                                   f"{sorted(nodes)}")
    labels = _states(network, class_node)
    if list(network.predecessors(class_node)):
        raise NetworkStructureError(f"the class node {class_node!r} must be a root (no parents)")
    models = [str(m) for m in network.predecessors(system_node)]
    if not models or class_node in models:
        raise NetworkStructureError(f"the system node {system_node!r} must have the models, and "
                                    "only them, as parents")
    latents: list[Latent] = []
    members: list[MulticlassModel] = []
    prior = _values(network, class_node, [])
    for node in sorted(nodes - {class_node, system_node, *models}):
        parents = [str(p) for p in network.predecessors(node)]
        if parents not in ([], [class_node]):
            raise NetworkStructureError(f"node {node!r}: besides class, models and system only "
                                        "latents with no parent or the class as parent are "
                                        f"accepted, got parents {parents}")
        table = _values(network, node, parents)
        if not parents:
            table = np.repeat(table[None, :], len(labels), axis=0)
        latents.append(Latent(node, _states(network, node), table))
    names = {lat.name for lat in latents}
    for m in models:
        parents = [str(p) for p in network.predecessors(m)]
        extra = [p for p in parents if p != class_node]
        if class_node not in parents or len(extra) > 1 or any(p not in names for p in extra):
            raise NetworkStructureError(f"model {m!r}: parents must be the class and at most one "
                                        f"latent, got {parents}")
        if _states(network, m) != labels:
            raise NetworkStructureError(f"model {m!r}: states {list(_states(network, m))} must "
                                        f"be the class's labels {list(labels)} in order")
        table = _values(network, m, [class_node, *extra])
        rates = table[:, None, :] if not extra else table
        members.append(MulticlassModel(m, extra[0] if extra else None, rates))
    if _states(network, system_node) != labels:
        raise NetworkStructureError(f"the system node's states must be the class's labels "
                                    f"{list(labels)} in order")
    check_structure(labels, latents, members)
    fusion = _values(network, system_node, models)
    fusioner = MulticlassFusioner("table", labels, tuple(models), table=fusion)
    system = MulticlassSystem(labels, prior, tuple(latents), tuple(members), fusioner, None,
                              class_node, system_node, name)
    return system.with_slot(slot) if slot is not None else system


def fusion_table(system: MulticlassSystem) -> np.ndarray:
    """``P(output | votes)`` with shape ``(K,) * n + (K,)`` (votes in model order).

    Raises
    ------
    NetworkStructureError
        A table beyond :data:`MAX_TABLE_ENTRIES` entries.
    """
    f = system.fusioner
    if f.table is not None:
        return np.asarray(f.table, dtype=float)
    k, n = system.k, len(system.models)
    if k ** (n + 1) > MAX_TABLE_ENTRIES:
        raise NetworkStructureError(f"the system node's table would have {k}^{n + 1} entries; "
                                    "the pgmpy network is only built for smaller systems")
    out = np.zeros((k,) * n + (k,))
    for votes in itertools.product(range(k), repeat=n):
        out[votes + (f.output(votes),)] = 1.0
    return out


def to_pgmpy(system: MulticlassSystem) -> Any:
    """The pgmpy ``DiscreteBayesianNetwork`` of ``system`` (new on each call).

    With ``tie="slot"`` the slot's vote is the system's slot (the table is written for it).
    """
    from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD

    labels = list(system.labels)
    k = system.k
    cls, sysn = system.class_node, system.system_node
    edges = [(cls, lat.name) for lat in system.latents]
    edges += [(p, m.name) for m in system.members
              for p in [cls] + ([m.latent] if m.latent else [])]
    edges += [(m, sysn) for m in system.models]
    net = DiscreteBayesianNetwork(edges)
    net.add_node(cls)
    cpds = [TabularCPD(cls, k, system.class_prior.reshape(k, 1), state_names={cls: labels})]
    for lat in system.latents:
        cpds.append(TabularCPD(lat.name, len(lat.states), lat.probabilities.T,
                               evidence=[cls], evidence_card=[k],
                               state_names={lat.name: list(lat.states), cls: labels}))
    states = {lat.name: lat for lat in system.latents}
    for m in system.members:
        if m.latent is None:
            cpds.append(TabularCPD(m.name, k, m.rates[:, 0, :].T, evidence=[cls],
                                   evidence_card=[k], state_names={m.name: labels, cls: labels}))
        else:
            lat = states[m.latent]
            z = len(lat.states)
            cpds.append(TabularCPD(m.name, k, m.rates.reshape(k * z, k).T,
                                   evidence=[cls, lat.name], evidence_card=[k, z],
                                   state_names={m.name: labels, cls: labels,
                                                lat.name: list(lat.states)}))
    table = _slot_table(system) if system.fusioner.tie == "slot" else fusion_table(system)
    n = len(system.models)
    cpds.append(TabularCPD(sysn, k, table.reshape(k ** n, k).T, evidence=list(system.models),
                           evidence_card=[k] * n,
                           state_names={sysn: labels, **{m: labels for m in system.models}}))
    net.add_cpds(*cpds)
    return net


def _slot_table(system: MulticlassSystem) -> np.ndarray:
    slot = system.models.index(system.require_slot())
    k, n = system.k, len(system.models)
    if k ** (n + 1) > MAX_TABLE_ENTRIES:
        raise NetworkStructureError(f"the system node's table would have {k}^{n + 1} entries; "
                                    "the pgmpy network is only built for smaller systems")
    out = np.zeros((k,) * n + (k,))
    for votes in itertools.product(range(k), repeat=n):
        out[votes + (system.fusioner.output(votes, votes[slot]),)] = 1.0
    return out


#: The public name of :func:`to_pgmpy` (``cc.multiclass_to_pgmpy``).
multiclass_to_pgmpy = to_pgmpy
