"""Declare a K-label system: ``cc.SystemBuilder(prior, labels=[...])``.

``SystemBuilder`` with ``labels=`` returns a :class:`MulticlassSystemBuilder`; without it the
binary builder is unchanged.

>>> import causalcost as cc
>>> eye = np.eye(3)
>>> system = (
...     cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
...     .add_latent("Difficulty", ["easy", "hard"], [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]])
...     .add_model("a", confusion={"easy": 0.9 * eye + 0.05 * (1 - eye),
...                                "hard": 0.5 * eye + 0.25 * (1 - eye)}, latent="Difficulty")
...     .add_model("b", confusion=0.8 * eye + 0.1 * (1 - eye))
...     .add_model("c", confusion=0.7 * eye + 0.15 * (1 - eye))
...     .set_fusioner("plurality", tie="slot")
...     .build(slot="c"))
>>> round(float(cc.interventional_table(system).to_numpy()[2, 2, 2]), 6)
0.97
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from causalcost.errors import InputTypeError, NetworkStructureError, ValidationError
from causalcost.network.fusioners import Fusioner, make_fusioner
from causalcost.network.multiclass_system import (
    Latent,
    MulticlassModel,
    MulticlassSystem,
    check_rows,
    check_structure,
)

__all__ = ["MulticlassSystemBuilder"]


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputTypeError(f"{what} must be a non-empty string, got {value!r}")
    return value


class MulticlassSystemBuilder:
    """Fluent declaration of a K-label system (class, latents, models, fusioner).

    Parameters
    ----------
    class_prior : list of float
        ``P(Class = label)`` for each label, in the order of ``labels``.
    labels : list of str
        The K >= 2 labels: the states of the class, of every model and of the system output.
    class_node, system_node, name : str
        Node names and the system's name in reports.
    """

    def __init__(self, class_prior: Sequence[float] | None = None, *, labels: Sequence[Any],
                 class_node: str = "Class", system_node: str = "System",
                 name: str = "system") -> None:
        if isinstance(labels, str) or not isinstance(labels, Sequence):
            raise InputTypeError(f"labels must be a list of label names, got {labels!r}")
        self._labels = tuple(str(v) for v in labels)
        if len(self._labels) < 2 or len(set(self._labels)) != len(self._labels):
            raise ValidationError(f"labels must be at least 2 distinct names, got {list(labels)}")
        if class_prior is None:
            raise ValidationError("class_prior is required: one probability per label "
                                  f"({list(self._labels)})")
        self._prior = check_rows("class_prior", class_prior, len(self._labels), 1)[0]
        self._class_node = _name(class_node, "class_node")
        self._system_node = _name(system_node, "system_node")
        self._name = _name(name, "name")
        self._latents: list[Latent] = []
        self._models: list[MulticlassModel] = []
        self._fusion: tuple[Any, dict[str, Any]] | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels."""
        return self._labels

    def add_latent(self, name: str, states: Sequence[str],
                   probabilities: Sequence[float] | Sequence[Sequence[float]]
                   ) -> MulticlassSystemBuilder:
        """Add a latent node (e.g. a difficulty) that correlates the models' errors.

        ``probabilities``: one distribution over ``states`` (a root), or one row per label
        (``P(latent | Class = label)``).
        """
        name = _name(name, "latent name")
        states = tuple(str(s) for s in states)
        if len(states) < 1 or len(set(states)) != len(states):
            raise ValidationError(f"latent {name!r}: states must be distinct, got {list(states)}")
        rows = check_rows(f"probabilities of latent {name!r}", probabilities, len(states))
        if rows.shape[0] == 1:
            rows = np.repeat(rows, len(self._labels), axis=0)
        elif rows.shape[0] != len(self._labels):
            raise ValidationError(f"probabilities of latent {name!r} must be one row, or one "
                                  f"row per label ({len(self._labels)}), got {rows.shape[0]}")
        self._latents.append(Latent(name, states, rows))
        return self

    def add_model(self, name: str, *, confusion: object,
                  latent: str | None = None) -> MulticlassSystemBuilder:
        """Add a member model by its K x K confusion rates (rows: true class, each sums to 1).

        With ``latent=``, ``confusion`` maps each state of that latent to its K x K rates.
        """
        name = _name(name, "model name")
        k = len(self._labels)
        if latent is None:
            if isinstance(confusion, Mapping):
                raise ValidationError(f"model {name!r}: confusion per latent state needs "
                                      "latent=")
            rates = check_rows(f"confusion of {name!r}", confusion, k, k)[:, None, :]
        else:
            lat = next((x for x in self._latents if x.name == latent), None)
            if lat is None:
                raise NetworkStructureError(f"model {name!r}: latent {latent!r} is not declared "
                                            "(add_latent first)")
            if not isinstance(confusion, Mapping) or set(map(str, confusion)) != set(lat.states):
                raise ValidationError(f"model {name!r}: confusion must map every state of "
                                      f"{latent!r} ({list(lat.states)}) to K x K rates")
            table = {str(z): v for z, v in confusion.items()}
            rates = np.stack([check_rows(f"confusion of {name!r} given {latent}={z}",
                                         table[z], k, k) for z in lat.states], axis=1)
        self._models.append(MulticlassModel(name, latent, rates))
        return self

    def set_fusioner(self, kind: str | Callable[..., Any],
                     **options: Any) -> MulticlassSystemBuilder:
        """The fusion rule: see :func:`~causalcost.network.fusioners.make_fusioner`
        (``tie=``, ``weights=``, ``order=``, ``label=``, ``k=``)."""
        self._fusion = (kind, dict(options))
        return self

    def build(self, slot: str | None = None) -> MulticlassSystem:
        """The validated :class:`~causalcost.network.multiclass_system.MulticlassSystem`.

        Raises
        ------
        NetworkStructureError
            No model, repeated names, no fusioner.
        """
        check_structure(self._labels, self._latents, self._models)
        if self._fusion is None:
            raise NetworkStructureError("no fusioner: call set_fusioner(...) before build()")
        kind, options = self._fusion
        models = [m.name for m in self._models]
        fusioner: Fusioner = make_fusioner(kind, models, labels=self._labels, **options)
        system = MulticlassSystem(self._labels, self._prior, tuple(self._latents),
                                  tuple(self._models), fusioner, None, self._class_node,
                                  self._system_node, self._name)
        return system.with_slot(slot) if slot is not None else system
