"""A K-label classifier system: class, optional latents, models, fusioner, slot.

The shape (the one the builder declares and :meth:`MulticlassSystem.from_pgmpy` accepts):

* the class node (K states, a root) with prior ``P(Class = c)``;
* latent nodes, each a root or a child of the class (``P(Z = z | Class = c)``): they carry
  the correlation between the models' errors, as in the binary builder;
* models (K states, the class's labels in order), each a child of the class and of at most
  one latent, ``P(M = j | Class = c[, Z = z])``: rows are the true class, so without a latent
  the table is the model's K x K confusion rates;
* the system node (K states), a function of the models' votes (a
  :class:`~causalcost.network.fusioners.Fusioner`, or a pgmpy table).

Given the class and the latents the models vote independently, which is what the exact table
(:mod:`causalcost.inference.multiclass_exact`) uses. The pgmpy network is built on demand
(:func:`causalcost.network.multiclass_pgmpy.to_pgmpy`) for reference computations and pictures.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.errors import CPDError, NetworkStructureError, UnknownNameError
from causalcost.network.fusioners import Fusioner as MulticlassFusioner

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Latent", "MulticlassModel", "MulticlassSystem"]

_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class Latent:
    """A latent node: ``probabilities[c, z] = P(Z = z | Class = c)``."""

    name: str
    states: tuple[str, ...]
    probabilities: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class MulticlassModel:
    """A member model: ``rates[c, z, j] = P(M = j | Class = c, latent = z)`` (one z without
    a latent)."""

    name: str
    latent: str | None
    rates: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class MulticlassSystem:
    """A validated K-label system (build with ``cc.SystemBuilder(labels=[...])`` or load with
    ``cc.System.from_pgmpy``; :func:`~causalcost.network.multiclass_pgmpy.to_pgmpy` gives
    its pgmpy network).

    Attributes
    ----------
    labels : tuple of str
        The K labels: the states of class, models and system output, in this order.
    class_prior : numpy.ndarray
        ``P(Class = c)``.
    latents, members : tuple
        :class:`Latent` and :class:`MulticlassModel` values, in declaration order.
    fusioner : MulticlassFusioner
    slot : str or None
        The model intervened on by default.
    class_node, system_node, name : str

    Examples
    --------
    >>> import causalcost as cc
    >>> eye = np.eye(3)
    >>> s = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["a", "b", "c"])
    ...      .add_model("m1", confusion=0.8 * eye + 0.1 * (1 - eye))
    ...      .add_model("m2", confusion=0.7 * eye + 0.15 * (1 - eye))
    ...      .set_fusioner("plurality").build(slot="m2"))
    >>> s
    MulticlassSystem(labels=['a', 'b', 'c'], models=['m1', 'm2'], fusioner='plurality', slot='m2')
    """

    labels: tuple[str, ...]
    class_prior: np.ndarray = field(repr=False)
    latents: tuple[Latent, ...]
    members: tuple[MulticlassModel, ...]
    fusioner: MulticlassFusioner
    slot: str | None = None
    class_node: str = "Class"
    system_node: str = "System"
    name: str = "system"

    is_multiclass = True

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def models(self) -> tuple[str, ...]:
        """The model names, in order."""
        return tuple(m.name for m in self.members)

    def require_slot(self, slot: str | None = None) -> str:
        """``slot`` or the system's slot, checked to be a model.

        Raises
        ------
        UnknownNameError
            No slot given and none set, or a name that is not a model.
        """
        slot = self.slot if slot is None else str(slot)
        if slot is None:
            raise UnknownNameError("no slot: pass slot= (one of the models "
                                   f"{list(self.models)}) or build(slot=...)")
        if slot not in self.models:
            raise UnknownNameError(f"slot {slot!r} is not a model; models: {list(self.models)}")
        return slot

    def picture(self, intervention: str | None = None, *, slot: str | None = None) -> Any:
        """The DAG as an SVG picture (K labels under the class and the system output, the
        fusion rule on the system node), or its graph under ``do(slot = intervention)``; see
        :func:`~causalcost.network.multiclass_picture.multiclass_picture`."""
        from causalcost.network.multiclass_picture import multiclass_picture

        return multiclass_picture(self, slot=slot, intervention=intervention)

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def with_slot(self, slot: str) -> MulticlassSystem:
        """The same system with another slot."""
        return MulticlassSystem(self.labels, self.class_prior, self.latents, self.members,
                                self.fusioner, self.require_slot(slot), self.class_node,
                                self.system_node, self.name)

    def latent_configurations(self, c: int) -> list[tuple[float, dict[str, int]]]:
        """``(P(z | Class = c), {latent: state index})`` for every joint latent state."""
        out = []
        for z in itertools.product(*(range(len(lat.states)) for lat in self.latents)):
            p = float(np.prod([lat.probabilities[c, s] for lat, s in zip(self.latents, z)]))
            out.append((p, {lat.name: s for lat, s in zip(self.latents, z)}))
        return out

    def vote_rates(self, c: int, latent_state: dict[str, int]) -> np.ndarray:
        """``P(M_i = j | Class = c, latents)``: shape (models, K)."""
        rows = [m.rates[c, 0 if m.latent is None else latent_state[m.latent]]
                for m in self.members]
        return np.asarray(rows, dtype=float)

    def to_frame(self) -> pd.DataFrame:
        """One row per node: role, parents and states."""
        import pandas as pd  # loaded when a table is asked for (start-up: issue 18)

        rows = [(self.class_node, "class", "", ", ".join(self.labels))]
        rows += [(lat.name, "latent", self.class_node, ", ".join(lat.states))
                 for lat in self.latents]
        rows += [(m.name, "slot" if m.name == self.slot else "model",
                  ", ".join([self.class_node] + ([m.latent] if m.latent else [])),
                  ", ".join(self.labels)) for m in self.members]
        rows.append((self.system_node, f"system ({self.fusioner.kind})",
                     ", ".join(self.models), ", ".join(self.labels)))
        return pd.DataFrame(rows, columns=["node", "role", "parents", "states"]).set_index("node")

    def __repr__(self) -> str:
        return (f"MulticlassSystem(labels={list(self.labels)}, models={list(self.models)}, "
                f"fusioner={self.fusioner.kind!r}, slot={self.slot!r})")


def check_rows(what: str, rows: object, width: int, count: int | None = None) -> np.ndarray:
    """A 2-D array of probability rows (each sums to 1) of the given width.

    Raises
    ------
    CPDError
        A wrong shape, a negative or non-finite entry, or a row not summing to 1 (named).
    """
    try:
        arr = np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        raise CPDError(f"{what} must be rows of probabilities, got {rows!r}") from None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != width or (count is not None and arr.shape[0] != count):
        want = f"({count}, {width})" if count is not None else f"(rows, {width})"
        raise CPDError(f"{what} must have shape {want}, got {arr.shape}")
    for r, row in enumerate(arr):
        if not np.all(np.isfinite(row)) or row.min() < 0 or abs(row.sum() - 1) > _TOL:
            raise CPDError(f"{what}: row {r} ({row.tolist()}) must be non-negative and sum "
                           f"to 1 (sums to {row.sum():.6g})")
    return arr


def check_structure(labels: Sequence[str], latents: Sequence[Latent],
                    members: Sequence[MulticlassModel]) -> None:
    """Names distinct, every model's latent declared, at least one model.

    Raises
    ------
    NetworkStructureError
    """
    names = [lat.name for lat in latents] + [m.name for m in members]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise NetworkStructureError(f"node names must be distinct; repeated: {dup}")
    if not members:
        raise NetworkStructureError("a system needs at least one model (add_model)")
    known = {lat.name for lat in latents}
    for m in members:
        if m.latent is not None and m.latent not in known:
            raise NetworkStructureError(f"model {m.name!r} depends on latent {m.latent!r}, "
                                        f"which is not declared (add_latent first)")
    if len(labels) < 2:
        raise NetworkStructureError("labels must hold at least 2 labels")
