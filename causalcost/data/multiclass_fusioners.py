"""K-label fusioners: the system's output from K-label votes, evaluated on numpy arrays.

Votes and outputs are label indices ``0..K-1`` in the order of ``labels``. The rules:

* ``"plurality"``: the label with the most votes; a tie goes to the tied label listed first in
  the tie order (``labels`` by default; ``tie=[...]`` gives another order, ``tie="slot"``
  gives it to the slot's own vote when the slot is among the tied, else the order of
  ``labels``).
* ``"weighted"``: weighted plurality, one non-negative weight per model; ties (within
  ``1e-12``) as in plurality.
* ``"priority"``: the first label in ``order`` that any model votes (a triage rule: the
  gravest finding any model reports).
* ``"k_of_n"``: ``label`` when at least ``k`` models vote it, otherwise the plurality of the
  other votes (ties as in plurality). For K = 2 this is the binary k-of-n with ``label`` as P.

Rules run on the small table of counted vote patterns (never on the data's rows), see
:mod:`causalcost.data.multiclass_runs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from causalcost.errors import ValidationError

__all__ = ["MulticlassFusioner", "NetworkRule", "make_multiclass_fusioner", "MULTICLASS_RULES",
           "plain_labels"]

#: The K-label rules.
MULTICLASS_RULES = ("plurality", "weighted", "priority", "k_of_n")
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class MulticlassFusioner:
    """A K-label fusion rule over named models (label indices in, label index out).

    Attributes
    ----------
    rule : str
        One of :data:`MULTICLASS_RULES`.
    inputs : tuple of str
        The models, in input order.
    labels : tuple
        The K labels (as the user gave them).
    weights : tuple of float
        One weight per input (1 for plain plurality).
    order : tuple of int
        The tie order (plurality, weighted, k_of_n) or the priority order (priority), as
        label indices.
    tie_to_slot : bool
        Ties go to the slot's own vote when it is among the tied.
    label, k : int or None
        For ``k_of_n``: the label index and the number of votes it needs.

    Examples
    --------
    >>> f = make_multiclass_fusioner("plurality", ["a", "b", "c"], labels=["x", "y", "z"])
    >>> f.apply(np.array([[0, 1, 1], [0, 1, 2], [2, 1, 0]])).tolist()
    [1, 0, 0]
    >>> f
    MulticlassFusioner(plurality of 3, ties to the first of ['x', 'y', 'z'])
    """

    rule: str
    inputs: tuple[str, ...]
    labels: tuple[Any, ...]
    weights: tuple[float, ...]
    order: tuple[int, ...]
    tie_to_slot: bool = False
    label: int | None = None
    k: int | None = None

    @property
    def description(self) -> str:
        """A short text naming the rule."""
        n = len(self.inputs)
        order = [self.labels[i] for i in self.order]
        if self.rule == "priority":
            return f"priority of {n}, order {order}"
        if self.rule == "k_of_n":
            return f"{self.k} of {n} for {self.labels[self.label]!r}"  # type: ignore[index]
        ties = "ties to the slot's vote, else" if self.tie_to_slot else "ties to"
        if self.rule == "weighted":
            return f"weighted plurality {list(self.weights)}, {ties} the first of {order}"
        return f"plurality of {n}, {ties} the first of {order}"

    def __repr__(self) -> str:
        return f"MulticlassFusioner({self.description})"

    def apply(self, votes: np.ndarray, slot: str | None = None) -> np.ndarray:
        """Outputs for rows of votes (``votes[row, i]``: input ``i``'s label index).

        ``slot`` names the input whose vote wins ties under ``tie="slot"``.
        """
        votes = np.asarray(votes, dtype=np.int64)
        if votes.ndim != 2 or votes.shape[1] != len(self.inputs):
            raise ValidationError(f"votes must have one column per model {list(self.inputs)}, "
                                  f"got shape {votes.shape}")
        kk, rows = len(self.labels), votes.shape[0]
        if self.rule == "priority":
            rank = np.empty(kk, dtype=np.int64)
            rank[list(self.order)] = np.arange(kk)
            return np.asarray(self.order, dtype=np.int64)[rank[votes].min(axis=1)]
        tally = np.zeros((rows, kk))
        for i, w in enumerate(self.weights):
            np.add.at(tally, (np.arange(rows), votes[:, i]), w)
        if self.rule == "k_of_n":
            assert self.label is not None and self.k is not None
            hit = tally[:, self.label] >= self.k
            tally[:, self.label] = -np.inf
            return np.where(hit, self.label, self._plurality(tally, votes, slot))
        return self._plurality(tally, votes, slot)

    def _plurality(self, tally: np.ndarray, votes: np.ndarray, slot: str | None) -> np.ndarray:
        top = tally.max(axis=1, keepdims=True)
        tied = tally >= top - _TOLERANCE
        order = np.asarray(self.order, dtype=np.int64)
        first = order[np.argmax(tied[:, order], axis=1)]
        if self.tie_to_slot and slot is not None:
            own = votes[:, self.inputs.index(slot)]
            return np.where(tied[np.arange(len(own)), own], own, first)
        return first


def plain_labels(labels: Sequence[Any]) -> tuple[Any, ...]:
    """Labels as plain Python values (numpy strings and integers as ``str`` and ``int``).

    >>> plain_labels([np.str_("a"), np.int64(2)])
    ('a', 2)
    """
    return tuple(str(v) if isinstance(v, np.str_) else int(v) if isinstance(v, np.integer)
                 else v for v in labels)


def _order(value: Sequence[Any], labels: tuple[Any, ...], name: str) -> tuple[int, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValidationError(f"{name} must be a list of the labels {list(labels)}, got "
                              f"{value!r}")
    out = []
    for v in value:
        if v not in labels:
            raise ValidationError(f"{name}: {v!r} is not one of the labels {list(labels)}")
        out.append(labels.index(v))
    if sorted(out) != list(range(len(labels))):
        raise ValidationError(f"{name} must list every label once, in the order wanted; got "
                              f"{list(value)} for the labels {list(labels)}")
    return tuple(out)


def make_multiclass_fusioner(
    rule: str, models: Sequence[str], *, labels: Sequence[Any], tie: Any = None,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    order: Sequence[Any] | None = None, label: Any = None, k: int | None = None,
) -> MulticlassFusioner:
    """Build a K-label fusioner (see the module for the rules).

    Parameters
    ----------
    rule : {"plurality", "weighted", "priority", "k_of_n"}
    models : sequence of str
        The inputs, in order.
    labels : sequence
        The K labels; their order is the default tie order.
    tie : list of labels or "slot", optional
        Another tie order, or ``"slot"`` (ties to the slot's vote).
    weights : mapping or sequence of float
        For ``weighted``: one non-negative weight per model.
    order : list of labels
        For ``priority``: every label once, the first that any model votes wins.
    label, k
        For ``k_of_n``: the label and how many votes it needs (``1 <= k <= len(models)``).

    Raises
    ------
    ValidationError
        An unknown rule, options that do not belong to it, or bad values (named).

    Examples
    --------
    >>> f = make_multiclass_fusioner("priority", ["a", "b"], labels=["ok", "warn", "stop"],
    ...                              order=["stop", "warn", "ok"])
    >>> f.apply(np.array([[0, 1], [2, 0], [0, 0]])).tolist()
    [1, 2, 0]
    """
    if rule not in MULTICLASS_RULES:
        raise ValidationError(f"fusioner {rule!r} is not a K-label rule; use one of "
                              f"{', '.join(MULTICLASS_RULES)}")
    models = tuple(models)
    labels = plain_labels(labels)
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise ValidationError(f"labels must be at least two distinct labels, got {list(labels)}")
    if not models or len(set(models)) != len(models):
        raise ValidationError(f"models {list(models)} must name distinct columns")
    extra = {"weights": weights, "order": order, "label": label, "k": k}
    allowed = {"plurality": (), "weighted": ("weights",), "priority": ("order",),
               "k_of_n": ("label", "k")}[rule]
    wrong = sorted(n for n, v in extra.items() if v is not None and n not in allowed)
    if wrong:
        raise ValidationError(f"fusioner {rule!r} takes no {', '.join(wrong)}")
    if rule == "priority" and tie is not None:
        raise ValidationError("fusioner 'priority' has no ties; drop tie=")
    missing = [n for n in allowed if extra[n] is None]
    if missing:
        raise ValidationError(f"fusioner {rule!r} needs {', '.join(f'{m}=' for m in missing)}")
    tie_to_slot = isinstance(tie, str) and tie == "slot"
    ties = tuple(range(len(labels))) if tie is None or tie_to_slot else _order(tie, labels,
                                                                                 "tie")
    w = tuple(1.0 for _ in models)
    if weights is not None:
        if isinstance(weights, Mapping):
            if sorted(weights) != sorted(models):
                raise ValidationError(f"weights must name the models {list(models)}, got "
                                      f"{list(weights)}")
            weights = [weights[m] for m in models]
        w = tuple(float(v) for v in weights)
        if len(w) != len(models) or not all(np.isfinite(v) and v >= 0 for v in w):
            raise ValidationError(f"weights must be {len(models)} finite non-negative "
                                  f"numbers, one per model; got {list(weights)}")
    if rule == "priority":
        return MulticlassFusioner(rule, models, labels, w, _order(order, labels, "order"))
    index = None
    if rule == "k_of_n":
        if label not in labels:
            raise ValidationError(f"label {label!r} is not one of the labels {list(labels)}")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not (
                1 <= k <= len(models)):
            raise ValidationError(f"k must be a whole number from 1 to {len(models)}, got {k!r}")
        index, k = labels.index(label), int(k)
    return MulticlassFusioner(rule, models, labels, w, ties, tie_to_slot, index, k)


@dataclass(frozen=True, eq=False)
class NetworkRule:
    """A fusioner of the network layer (:func:`causalcost.multiclass_fusioner`) applied to
    counted vote patterns, one pattern at a time (the patterns are few; the data's rows are
    never visited). Every deterministic kind works, a user ``function`` included, on any
    engine; the stochastic ``table`` kind is refused.

    Examples
    --------
    >>> import causalcost as cc
    >>> f = cc.multiclass_fusioner(lambda m1, m2: "b" if "b" in (m1, m2) else m1,
    ...                            labels=["a", "b"], models=["m1", "m2"])
    >>> NetworkRule.wrap(f, ("a", "b")).apply(np.array([[0, 0], [0, 1]])).tolist()
    [0, 1]
    """

    rule: Any
    inputs: tuple[str, ...]
    labels: tuple[Any, ...]

    @classmethod
    def wrap(cls, fusioner: Any, labels: tuple[Any, ...]) -> NetworkRule:
        """Check that ``fusioner`` reads these labels and is deterministic."""
        if getattr(fusioner, "kind", None) == "table":
            raise ValidationError("a fusioner given as a probability table has no single "
                                  "output per vote pattern; forced runs need a deterministic "
                                  "rule")
        if tuple(fusioner.labels) != tuple(str(v) for v in labels):
            raise ValidationError(f"the fusioner's labels {list(fusioner.labels)} differ from "
                                  f"labels={list(labels)} (compared as text, in order)")
        return cls(fusioner, tuple(fusioner.models), tuple(labels))

    @property
    def description(self) -> str:
        """The rule's kind and size."""
        return f"{self.rule.kind} of {len(self.inputs)}"

    def apply(self, votes: np.ndarray, slot: str | None = None) -> np.ndarray:
        """Outputs for rows of votes (label indices, one column per input)."""
        at = self.inputs.index(slot) if slot is not None else None
        return np.asarray([self.rule.output(tuple(int(v) for v in row),
                                            slot_vote=None if at is None else int(row[at]))
                           for row in np.asarray(votes).tolist()], dtype=np.int64)

    def __repr__(self) -> str:
        return f"NetworkRule({self.description})"
