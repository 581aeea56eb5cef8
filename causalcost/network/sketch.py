"""The structure of a system known only from logged data: what the pictures draw for it.

Forced runs counted from a log (:class:`~causalcost.data.runs.ForcedRuns`) know the true-class
column, the models' prediction columns in the fusioner's input order, the slot and the
fusioner's rule, but no probabilities. :func:`vote_sketch` turns that into a
:class:`VoteSketch`, which the pictures (:func:`~causalcost.network.picture.system_picture`,
:func:`~causalcost.plotting.drawing.draw_system`) draw as they draw a network: the class above
the models, the models into the fusioner (labelled with its rule: ``majority``, ``OR``,
``2 of 3``, the weights and threshold of a weighted vote), and the confusion node comparing the
system's vote with the truth. No pgmpy is needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import networkx as nx

from causalcost.errors import InputTypeError, UnknownNameError, ValidationError
from causalcost.network.fusioners import Fusioner

__all__ = ["VoteSketch", "data_picture", "data_sketch", "rule_words", "vote_sketch"]


@dataclass(frozen=True)
class VoteSketch:
    """A system's structure without probabilities: class -> models -> fusioner -> confusion.

    Attributes
    ----------
    name : str
        What the system is (the pictures' title).
    network : networkx.DiGraph
    class_node, system_node, confusion_node : str
    slot : str or None
    fusioner : Fusioner
    models : tuple of str
        In the fusioner's input order.
    labels : tuple of str
        The states of the class, the models and the system output (the fusioner's labels;
        ``("P", "N")`` for a binary system).
    """

    name: str
    network: nx.DiGraph = field(repr=False)
    class_node: str
    system_node: str
    confusion_node: str
    slot: str | None
    fusioner: Fusioner
    models: tuple[str, ...]
    labels: tuple[str, ...] = ("P", "N")

    @property
    def extra_lines(self) -> dict[str, list[str]] | None:
        """Lines under node names for K labels: the labels on the class, the rule and the
        labels on the system output (a binary sketch draws the rule on its own)."""
        if self.labels == ("P", "N"):
            return None
        from causalcost.network.picture import rule_lines

        states = " / ".join(self.labels)
        return {self.class_node: [states], self.system_node: [*rule_lines(self.fusioner), states]}

    @property
    def graph(self) -> nx.DiGraph:
        """The structure as a networkx graph (what a system's pictures are drawn from)."""
        return self.network

    @property
    def deterministic_nodes(self) -> frozenset[str]:
        """The fusioner and the confusion node (functions of their parents)."""
        return frozenset({self.system_node, self.confusion_node})

    def require_slot(self, slot: str | None = None) -> str:
        """``slot`` (or the sketch's own) checked to be one of the models."""
        slot = self.slot if slot is None else slot
        if slot is None:
            raise ValidationError("this system has no slot: pass slot= (one of "
                                  f"{list(self.models)})")
        if slot not in self.models:
            raise UnknownNameError(f"slot {slot!r} is not a model; valid models: "
                                   f"{list(self.models)}")
        return slot

    def states(self, node: str) -> list[str]:
        """The labels (the confusion node: ``TP, FN, FP, TN``, or every ``true->output`` pair
        for K labels)."""
        if node == self.confusion_node:
            if self.labels == ("P", "N"):
                return ["TP", "FN", "FP", "TN"]
            return [f"{c}->{s}" for c in self.labels for s in self.labels]
        if node not in self.network:
            raise UnknownNameError(f"no node {node!r}; nodes: {list(self.network.nodes)}")
        return list(self.labels)


def rule_words(fusioner: Fusioner) -> str:
    """The rule in a few words, one string (:func:`~causalcost.network.picture.rule_lines`
    joined): ``majority``, ``OR``, ``2 of 3``, ``weighted vote 1,2,1 \u2265 2``; for K labels
    ``plurality``, ``first voted of z > x``, ``y if 2 of 3 vote y``, ...

    >>> from causalcost.network.fusioners import make_fusioner
    >>> rule_words(make_fusioner("weighted", ["a", "b"], weights=[1, 2], threshold=2))
    'weighted vote 1,2 \u2265 2'
    """
    from causalcost.network.picture import rule_lines

    words = " ".join(rule_lines(fusioner))
    return "weighted vote " + words[2:] if words.startswith("w ") else words


def _free(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    return name


def vote_sketch(models: Sequence[str], fusioner: Fusioner, *, truth: str,
                slot: str | None = None, name: str | None = None) -> VoteSketch:
    """The structure behind logged predictions: ``truth -> models -> fusioner -> confusion``.

    Parameters
    ----------
    models : sequence of str
        The prediction columns, in the fusioner's input order.
    fusioner : Fusioner
        The system's rule over ``models``.
    truth : str
        The true-class column (the class node).
    slot : str, optional
        The model under evaluation (highlighted).
    name : str, optional
        The title; by default the rule over the models.

    Raises
    ------
    InputTypeError
        ``fusioner`` is not a Fusioner.
    ValidationError
        The models are not the fusioner's inputs, or a name repeats.

    Examples
    --------
    >>> from causalcost.network.fusioners import make_fusioner
    >>> s = vote_sketch(["a", "b", "c"], make_fusioner("majority", ["a", "b", "c"]),
    ...                 truth="y", slot="a")
    >>> s.name, s.system_node, sorted(s.network.predecessors(s.system_node))
    ('majority over a, b, c', 'Fusioner', ['a', 'b', 'c'])
    """
    if not isinstance(fusioner, Fusioner):
        raise InputTypeError(f"fusioner must be a Fusioner, got {type(fusioner).__name__}")
    models = tuple(str(m) for m in models)
    if models != tuple(fusioner.inputs):
        raise ValidationError(f"models {list(models)} must be the fusioner's inputs in order, "
                              f"{list(fusioner.inputs)}")
    if len(set(models)) != len(models) or truth in models:
        raise ValidationError(f"the truth column {truth!r} and the models {list(models)} must "
                              "all differ")
    taken = {truth, *models}
    system_node = _free("Fusioner", taken)
    confusion_node = _free("Confusion", taken | {system_node})
    graph = nx.DiGraph()
    graph.add_nodes_from([truth, *models, system_node, confusion_node])
    graph.add_edges_from((truth, m) for m in models)
    graph.add_edges_from((m, system_node) for m in models)
    graph.add_edges_from([(system_node, confusion_node), (truth, confusion_node)])
    labels = tuple(str(v) for v in fusioner.labels)
    sketch = VoteSketch(name or f"{rule_words(fusioner)} over {', '.join(models)}", graph,
                        truth, system_node, confusion_node, None, fusioner, models, labels)
    if slot is not None:
        sketch.require_slot(slot)
        sketch = VoteSketch(sketch.name, graph, truth, system_node, confusion_node, slot,
                            fusioner, models, labels)
    return sketch


def data_picture(models: Sequence[str], fusioner: Fusioner, *, slot: str | None,
                 provenance: Mapping[str, Any] | None = None,
                 intervention: str | None = None, title: str | None = None) -> Any:
    """The picture of the system behind logged data (what ``ForcedRuns.picture`` returns).

    The class node is the truth column (``provenance["truth"]``, else ``Class``); the title
    says what the system is: the rule, the models and where the data came from (the file and
    the rows counted), e.g. ``system from log.csv (1,000 rows): majority over a, b, c``.

    Returns
    -------
    SystemPicture
        As :func:`~causalcost.network.picture.system_picture`.

    Examples
    --------
    >>> from causalcost.network.fusioners import make_fusioner
    >>> p = data_picture(["a", "b"], make_fusioner("or", ["a", "b"]), slot="a",
    ...                  provenance={"truth": "y", "rows": 1200, "file": "/logs/run.csv"})
    >>> p.title
    'system from run.csv (1,200 rows): OR over a, b'
    """
    from causalcost.network.picture import system_picture

    return system_picture(data_sketch(models, fusioner, slot=slot, provenance=provenance),
                          intervention=intervention, title=title)


def data_sketch(models: Sequence[str], fusioner: Fusioner, *, slot: str | None,
                provenance: Mapping[str, Any] | None = None) -> VoteSketch:
    """:func:`vote_sketch` named after the data: the truth column from ``provenance`` (else
    ``Class``) and a name saying the rule, the models, the file and the rows counted.

    >>> from causalcost.network.fusioners import make_fusioner
    >>> data_sketch(["a", "b"], make_fusioner("and", ["a", "b"]), slot=None,
    ...             provenance={"engine": "pandas", "rows": 10, "truth": "y"}).name
    'system from pandas data (10 rows): AND over a, b'
    """
    info = dict(provenance or {})
    truth = str(info.get("truth") or "Class")
    where = (PurePath(str(info["file"])).name if info.get("file")
             else f"{info['engine']} data" if info.get("engine") else "data")
    rows = f" ({info['rows']:,} rows)" if isinstance(info.get("rows"), int) else ""
    sketch = vote_sketch(models, fusioner, truth=truth, slot=slot)
    return VoteSketch(f"system from {where}{rows}: {sketch.name}", sketch.network,
                      sketch.class_node, sketch.system_node, sketch.confusion_node,
                      sketch.slot, fusioner, sketch.models, sketch.labels)
