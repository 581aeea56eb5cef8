"""The instance law of a declared system, exactly or one sampled instance at a time.

Intervening on the slot changes only its descendants, and those are deterministic (the
fusioner, a chain of count nodes, the confusion node). So every instance carries, beside the
slot's own vote, the system's output under ``do(slot = P)`` and under ``do(slot = N)``: the
values of everything else are shared by the two worlds. :func:`law_from_system` sums the
network's joint over the slot's non-descendants (one ``einsum``) and evaluates the
deterministic part both ways; :func:`sample_instances` draws instances by ancestral sampling
and evaluates them the same way. The two are independent routes to the same law, which is
what the experiments' engines are checked against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from causalcost.errors import NetworkStructureError, ValidationError
from causalcost.experiments.law import InstanceLaw
from causalcost.network.scores import refuse_score_system
from causalcost.network.system import System

__all__ = ["InstanceSample", "law_from_system", "sample_instances"]

#: Largest joint (states of the slot's non-descendants) summed exactly.
MAX_JOINT_STATES = 2**22


@dataclass(frozen=True)
class _Parts:
    """The network split at the slot; assumes a validated system."""

    shared: list[str]          # the slot's non-descendants, in topological order
    downstream: list[str]      # its deterministic descendants (confusion node excluded)
    cards: dict[str, int]
    cpds: dict[str, Any]


def _parts(system: System, slot: str) -> _Parts:
    net = system.graph
    order = list(nx.topological_sort(net))
    below = nx.descendants(net, slot) - {system.confusion_node}
    for node in below:
        if not system.is_deterministic(node):
            raise NetworkStructureError(
                f"node {node!r} descends from the slot {slot!r} but is not deterministic: the "
                "two forced worlds of an instance would not share its value")
    cpds = {cpd.variable: cpd for cpd in net.get_cpds()}
    cards = {n: int(cpds[n].values.shape[0]) for n in order}
    return _Parts([n for n in order if n not in below and n != system.confusion_node],
                  [n for n in order if n in below], cards, cpds)


def _column(cpd: Any, values: dict[str, np.ndarray]) -> np.ndarray:
    """The CPD's columns at the parents' values: shape (states, instances)."""
    table = np.asarray(cpd.values, dtype=float)
    parents = list(cpd.variables[1:])
    return table[(slice(None), *(values[p] for p in parents))]


def _system_outputs(system: System, parts: _Parts, slot: str,
                    values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """System output index under do(slot = P) and do(slot = N), given the shared values."""
    states = list(parts.cpds[slot].state_names[slot])
    out = {}
    for forced in ("P", "N"):
        label = system.positive if forced == "P" else next(
            s for s in states if s != system.positive)
        world = dict(values)
        world[slot] = np.full(next(iter(values.values())).shape, states.index(label))
        for node in parts.downstream:
            world[node] = np.argmax(_column(parts.cpds[node], world), axis=0)
        out[forced] = world[system.system_node]
    return out


def _features(system: System, parts: _Parts, slot: str, values: dict[str, np.ndarray],
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per instance: positive class?, slot right?, kind (index into ``KINDS``)."""
    outputs = _system_outputs(system, parts, slot, values)
    positive = {n: list(parts.cpds[n].state_names[n]).index(system.positive)
                for n in (system.class_node, slot, system.system_node)}
    is_pos = values[system.class_node] == positive[system.class_node]
    right = (values[slot] == positive[slot]) == is_pos
    sys_pos = {f: outputs[f] == positive[system.system_node] for f in ("P", "N")}
    ok_right = np.where(is_pos, sys_pos["P"], ~sys_pos["N"])
    ok_wrong = np.where(is_pos, sys_pos["N"], ~sys_pos["P"])
    # KINDS order: never, wrong_only, always, right_only
    kind = np.select([ok_right & ok_wrong, ok_right, ~ok_wrong], [0, 1, 2], default=3)
    return is_pos, right, kind


def _cell_table(positive: np.ndarray, right: np.ndarray, kind: np.ndarray,
                weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted counts of the (slot right?, kind) cells per class: two (2, 4) arrays."""
    index = np.where(right, 0, 4) + kind
    return tuple(  # type: ignore[return-value]
        np.bincount(index[c], weights=None if weights is None else weights[c],
                    minlength=8).reshape(2, 4)
        for c in (positive, ~positive))


def _slot_of(system: System, slot: str | None) -> str:
    slot = slot if slot is not None else system.slot
    if slot is None:
        raise ValidationError("the system has no slot: pass slot=... or build it with one")
    system.require_slot(slot)
    return slot


def law_from_system(system: System, slot: str | None = None) -> InstanceLaw:
    """The exact instance law of a declared system, with the slot's model as the candidate.

    Parameters
    ----------
    system : System
    slot : str, optional
        The model whose correctness and effect define the cells (default: the system's slot).

    Returns
    -------
    InstanceLaw

    Raises
    ------
    ValidationError
        No slot, or a joint too large to sum exactly (more than 2**22 states of the slot's
        non-descendants; use :func:`sample_instances`).
    NetworkStructureError
        A descendant of the slot that is not deterministic.

    Examples
    --------
    The slides' experiment system, shipped as ``experiment_or``:

    >>> import causalcost as cc
    >>> law = law_from_system(cc.load_network("experiment_or"))
    >>> law.monotone, round(float(law.positive[0, 0]), 4), law.prior
    (True, 0.4875, 0.5)
    """
    refuse_score_system(system, "the law of instance kinds", "a score slot's instances "
                        "are described by their critical scores (cc.forced_runs on a log of "
                        "scores)")
    slot = _slot_of(system, slot)
    parts = _parts(system, slot)
    shape = tuple(parts.cards[n] for n in parts.shared)
    if int(np.prod(shape, dtype=float)) > MAX_JOINT_STATES:
        raise ValidationError(
            f"the slot's non-descendants have {np.prod(shape, dtype=float):.3g} joint states, "
            f"more than the {MAX_JOINT_STATES} summed exactly; simulate with "
            "sample_instances (engine='instances') instead")
    letter = {n: chr(ord("a") + i) if i < 26 else chr(ord("A") + i - 26)
              for i, n in enumerate(parts.shared)}
    if len(parts.shared) > 52:
        raise ValidationError("more than 52 shared nodes: use sample_instances instead")
    operands: list[Any] = []
    for n in parts.shared:
        cpd = parts.cpds[n]
        operands += [np.asarray(cpd.values, dtype=float), [letter[v] for v in cpd.variables]]
    subscripts = ",".join("".join(op) for op in operands[1::2])
    joint = np.einsum(f"{subscripts}->{''.join(letter[n] for n in parts.shared)}",
                      *operands[0::2])
    grid = np.indices(shape).reshape(len(shape), -1)
    values = {n: grid[i] for i, n in enumerate(parts.shared)}
    pos, neg = _cell_table(*_features(system, parts, slot, values), joint.ravel())
    prior = pos.sum()
    return InstanceLaw(prior=float(prior), positive=pos / pos.sum(), negative=neg / neg.sum())


@dataclass(frozen=True)
class InstanceSample:
    """Instances drawn from a network: per instance, its class, the slot's correctness and kind.

    Attributes
    ----------
    positive : ndarray of bool
        True class is positive.
    slot_right : ndarray of bool
        The slot's own model gets the instance right.
    kind : ndarray of int
        Index into :data:`~causalcost.pricing.witness.KINDS`.
    """

    positive: np.ndarray
    slot_right: np.ndarray
    kind: np.ndarray

    def cell_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Counts of the (slot right?, kind) cells per class, as two (2, 4) arrays."""
        return _cell_table(self.positive, self.slot_right, self.kind)


def sample_instances(system: System, n: int, rng: np.random.Generator,
                     slot: str | None = None) -> InstanceSample:
    """Draw ``n`` instances by ancestral sampling and evaluate both forced worlds on each.

    Examples
    --------
    >>> import numpy as np, causalcost as cc
    >>> s = sample_instances(cc.load_network("experiment_or"), 1000, np.random.default_rng(0))
    >>> s.positive.shape, sorted(set(s.kind.tolist())) <= [0, 1, 2, 3]
    ((1000,), True)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValidationError(f"n ({n!r}) must be a positive integer")
    slot = _slot_of(system, slot)
    parts = _parts(system, slot)
    values: dict[str, np.ndarray] = {}
    for node in parts.shared:
        columns = _column(parts.cpds[node], values) if parts.cpds[node].variables[1:] else (
            np.repeat(np.asarray(parts.cpds[node].values, dtype=float)[:, None], n, axis=1))
        cdf = np.cumsum(columns, axis=0)
        u = rng.random(n)
        values[node] = np.minimum((u[None, :] > cdf).sum(axis=0), parts.cards[node] - 1)
    is_pos, right, kind = _features(system, parts, slot, values)
    return InstanceSample(positive=is_pos, slot_right=right, kind=kind)
