"""Pictures of K-label systems: the same layered SVG as a binary system's, with the K labels
under the class and the system nodes and the fusion rule on the system node.

The picture code (:mod:`causalcost.network.picture`) draws anything with a graph, roles and
states; :class:`KLabelSketch` is that view of a
:class:`~causalcost.network.multiclass_system.MulticlassSystem` (class -> latents -> models ->
system -> confusion), built without pgmpy.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from causalcost.errors import UnknownNameError

__all__ = ["KLabelSketch", "k_label_sketch", "k_label_rule", "multiclass_picture"]


def k_label_rule(fusioner: Any) -> list[str]:
    """The fusion rule in a few words for the system node.

    >>> from types import SimpleNamespace
    >>> k_label_rule(SimpleNamespace(kind="k_of_n", k=2, label=1, labels=("a", "b", "c"),
    ...                              models=("m1", "m2", "m3")))
    ['b if 2 of 3 vote b']
    """
    kind = fusioner.kind
    if kind == "k_of_n":
        return [f"{fusioner.labels[fusioner.label]} if {fusioner.k} of {len(fusioner.models)} "
                f"vote {fusioner.labels[fusioner.label]}"]
    if kind == "priority":
        return ["first voted of", " > ".join(fusioner.labels[i] for i in fusioner.order)]
    if kind == "weighted":
        return ["weighted plurality"]
    if kind == "function":
        return ["user function"]
    if kind == "table":
        return ["table"]
    return [kind]


@dataclass(frozen=True)
class KLabelSketch:
    """What a picture needs of a K-label system (a :class:`~causalcost.network.picture.Drawable`).

    Attributes
    ----------
    name : str
    graph : networkx.DiGraph
    class_node, system_node, confusion_node : str
    slot : str or None
    models : tuple of str
    labels : tuple of str
    rule : list of str
        The fusion rule's lines, drawn on the system node.
    """

    name: str
    graph: nx.DiGraph = field(repr=False)
    class_node: str
    system_node: str
    confusion_node: str
    slot: str | None
    models: tuple[str, ...]
    labels: tuple[str, ...]
    rule: list[str] = field(default_factory=list)

    @property
    def deterministic_nodes(self) -> frozenset[str]:
        """The system output and the confusion (functions of their parents)."""
        return frozenset({self.system_node, self.confusion_node})

    @property
    def extra_lines(self) -> dict[Hashable, list[str]]:
        """Lines under node names: the K labels on the class, the rule and the labels on the
        system output."""
        states = " / ".join(self.labels)
        return {self.class_node: [states], self.system_node: [*self.rule, states]}

    def require_slot(self, slot: str | None = None) -> str:
        """``slot`` (or the sketch's own) checked to be one of the models."""
        slot = self.slot if slot is None else slot
        if slot is None or slot not in self.models:
            raise UnknownNameError(f"slot {slot!r} is not a model; models: {list(self.models)}")
        return slot

    def states(self, node: str) -> list[str]:
        """The K labels (for the confusion node: every (true, output) pair)."""
        if node == self.confusion_node:
            return [f"{c}->{s}" for c in self.labels for s in self.labels]
        if node not in self.graph:
            raise UnknownNameError(f"no node {node!r}; nodes: {list(self.graph.nodes)}")
        return list(self.labels)


def k_label_sketch(system: Any) -> KLabelSketch:
    """The structure of a K-label system as a :class:`KLabelSketch`.

    >>> import numpy as np, causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["low", "mid", "high"])
    ...      .add_model("m1", confusion=0.8 * eye + 0.1 * (1 - eye))
    ...      .add_model("m2", confusion=0.7 * eye + 0.15 * (1 - eye))
    ...      .set_fusioner("plurality").build(slot="m2"))
    >>> edges = sorted(k_label_sketch(s).graph.edges)
    >>> len(edges), edges.pop(0)
    (6, ('Class', 'Confusion'))
    """
    graph = nx.DiGraph()
    taken = {system.class_node, system.system_node, *system.models,
             *(lat.name for lat in system.latents)}
    confusion = "Confusion"
    while confusion in taken:
        confusion += "_"
    graph.add_node(system.class_node)
    for lat in system.latents:
        graph.add_edge(system.class_node, lat.name)
    for m in system.members:
        graph.add_edge(system.class_node, m.name)
        if m.latent is not None:
            graph.add_edge(m.latent, m.name)
        graph.add_edge(m.name, system.system_node)
    graph.add_edge(system.class_node, confusion)
    graph.add_edge(system.system_node, confusion)
    return KLabelSketch(name=system.name, graph=graph, class_node=system.class_node,
                        system_node=system.system_node, confusion_node=confusion,
                        slot=system.slot, models=tuple(system.models),
                        labels=tuple(map(str, system.labels)),
                        rule=k_label_rule(system.fusioner))


def multiclass_picture(system: Any, *, slot: str | None = None,
                       intervention: str | None = None) -> Any:
    """The SVG picture of a K-label system (or its graph under ``do(slot = intervention)``).

    >>> import numpy as np, causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["low", "mid", "high"])
    ...      .add_model("m1", confusion=0.8 * eye + 0.1 * (1 - eye))
    ...      .add_model("m2", confusion=0.7 * eye + 0.15 * (1 - eye))
    ...      .set_fusioner("plurality").build(slot="m2"))
    >>> svg = multiclass_picture(s, intervention="high").svg
    >>> "plurality" in svg and "low / mid / high" in svg
    True
    """
    from causalcost.network.picture import system_picture

    return system_picture(k_label_sketch(system), slot=slot, intervention=intervention)
