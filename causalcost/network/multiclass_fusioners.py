"""Fusioners for K-label systems: how the models' votes become the system's output.

Every fusioner maps the votes (one label index per model, in model order) to an output label
index. Those that only look at how many models vote each label (plurality, priority, k-of-n)
say so with :attr:`MulticlassFusioner.by_counts`; the exact table then sums over vote *counts*
instead of vote configurations (``C(n + K - 1, K - 1)`` states instead of ``K^n``), which is
what keeps 20 to 30 models fast. Weighted plurality sums over score vectors.

* ``plurality``: the label with most votes; ties go to the first tied label of a priority
  order (the order of ``labels`` by default, or ``tie=[...]``), or with ``tie="slot"`` to the
  slot's own vote when it is among the tied labels (else the priority order).
* ``weighted``: plurality with one weight per model (ties as plurality).
* ``priority``: the first label in ``order`` that any model votes (a triage rule); if no
  model votes a label of ``order`` (an order may leave labels out), plurality decides.
* ``k_of_n``: ``label`` when at least ``k`` models vote it, else the plurality of the other
  labels' votes (ties by the priority order).
* a user function called with one keyword argument per model (its vote, a label name) and
  returning a label, as in the binary fusioners: ``lambda a, b, c: ...``.

Examples
--------
>>> f = multiclass_fusioner("plurality", labels=["a", "b", "c"], models=["m1", "m2", "m3"])
>>> f.output((1, 2, 0), slot_vote=0), f.output((1, 1, 0), slot_vote=0)
(0, 1)
>>> multiclass_fusioner("priority", labels=["a", "b", "c"], models=["m1", "m2"],
...                     order=["c", "b"]).output((1, 2), slot_vote=0)
2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalcost.errors import InputTypeError, UnknownNameError, ValidationError

__all__ = ["MulticlassFusioner", "multiclass_fusioner", "FUSIONER_KINDS"]

FUSIONER_KINDS = ("plurality", "weighted", "priority", "k_of_n", "function", "table")


def _label_index(labels: tuple[str, ...], value: object, what: str) -> int:
    if str(value) in labels:
        return labels.index(str(value))
    raise UnknownNameError(f"{what} {value!r} is not a label; labels: {list(labels)}")


@dataclass(frozen=True, eq=False)
class MulticlassFusioner:
    """A K-label fusion rule (build one with :func:`multiclass_fusioner`).

    Attributes
    ----------
    kind : str
        One of :data:`FUSIONER_KINDS`.
    labels, models : tuple of str
        The labels (index order) and the models whose votes it reads, in order.
    tie : tuple of int or "slot"
        Priority order of label indices used for ties (``"slot"``: the slot's vote first).
    weights : tuple of float
        Per-model weights (``weighted``; 1 otherwise).
    order : tuple of int
        The triage order (``priority``).
    label, k : int
        ``k_of_n``: the label and the number of votes it needs.
    function : callable or None
        The user's function (``function``): one keyword argument per model, returns a label.
    table : numpy.ndarray or None
        ``table``: ``P(output = s | votes)`` with shape ``(K,) * n + (K,)`` (from pgmpy).
    """

    kind: str
    labels: tuple[str, ...]
    models: tuple[str, ...]
    tie: tuple[int, ...] | str = ()
    weights: tuple[float, ...] = ()
    order: tuple[int, ...] = ()
    label: int = 0
    k: int = 1
    function: Callable[..., Any] | None = field(default=None, repr=False)
    table: np.ndarray | None = field(default=None, repr=False)

    @property
    def by_counts(self) -> bool:
        """Whether the output depends on the votes only through the counts per label."""
        return self.kind in ("plurality", "priority", "k_of_n")

    def _break(self, tied: list[int], slot_vote: int | None) -> int:
        if self.tie == "slot" and slot_vote is not None and slot_vote in tied:
            return slot_vote
        order = self.tie if isinstance(self.tie, tuple) and self.tie else range(len(self.labels))
        return next(s for s in order if s in tied)

    def _plurality(self, scores: Sequence[float], slot_vote: int | None,
                   among: Sequence[int] | None = None) -> int:
        among = list(range(len(self.labels))) if among is None else list(among)
        top = max(scores[s] for s in among)
        return self._break([s for s in among if scores[s] == top], slot_vote)

    def from_counts(self, counts: Sequence[float], slot_vote: int | None = None) -> int:
        """The output for votes counted per label (``by_counts`` kinds and ``weighted`` scores).

        ``counts[s]`` is the number of models (the summed weight for ``weighted``) voting ``s``.
        """
        if self.kind in ("plurality", "weighted"):
            return self._plurality(counts, slot_vote)
        if self.kind == "priority":
            hit = next((s for s in self.order if counts[s] > 0), None)
            return hit if hit is not None else self._plurality(counts, slot_vote)
        if self.kind == "k_of_n":
            if counts[self.label] >= self.k:
                return self.label
            rest = [s for s in range(len(self.labels)) if s != self.label]
            return self._plurality(counts, slot_vote, rest)
        raise ValidationError(f"a {self.kind!r} fusioner does not decide from vote counts")

    def output(self, votes: Sequence[int], slot_vote: int | None = None) -> int:
        """The output label index for one vote per model (``table``: the most likely output)."""
        if self.kind == "function":
            assert self.function is not None
            arguments = {m: self.labels[v] for m, v in zip(self.models, votes)}
            try:
                got = self.function(**arguments)
            except Exception as exc:  # the user's code: say how it was called
                raise ValidationError(
                    f"fusioner function failed with {type(exc).__name__}: {exc}. It is called "
                    f"with one keyword argument per model, each a label: {arguments}") from exc
            return _label_index(self.labels, got, "the fusion function returned")
        if self.kind == "table":
            assert self.table is not None
            return int(np.argmax(self.table[tuple(votes)]))
        scores = [0.0] * len(self.labels)
        for i, v in enumerate(votes):
            scores[v] += self.weights[i] if self.kind == "weighted" else 1
        return self.from_counts(scores, slot_vote)

    def distribution(self, votes: Sequence[int], slot_vote: int | None = None) -> np.ndarray:
        """``P(output | votes)`` as a length-K vector (one-hot unless ``table``)."""
        if self.kind == "table":
            assert self.table is not None
            return np.asarray(self.table[tuple(votes)], dtype=float)
        out = np.zeros(len(self.labels))
        out[self.output(votes, slot_vote)] = 1.0
        return out

    def __repr__(self) -> str:
        return (f"MulticlassFusioner(kind={self.kind!r}, labels={list(self.labels)}, "
                f"models={len(self.models)})")


def multiclass_fusioner(kind: str | Callable[..., Any], *, labels: Sequence[str],
                        models: Sequence[str], tie: str | Sequence[str] | None = None,
                        weights: Sequence[float] | Mapping[str, float] | None = None,
                        order: Sequence[str] | None = None, label: str | None = None,
                        k: int | None = None) -> MulticlassFusioner:
    """A validated K-label fusioner (see the module for the rules).

    Parameters
    ----------
    kind : {"plurality", "weighted", "priority", "k_of_n"} or callable
        The rule, or a function called with one keyword argument per model (its vote, a label
        name) that returns a label: ``lambda a, b, c: "covid" if "covid" in (a, b, c) else a``.
    labels, models : list of str
    tie : "slot" or list of str, optional
        Ties: ``"slot"`` (the slot's vote wins a tie it is part of) or an explicit priority
        order of labels (default: the order of ``labels``).
    weights : list of float or dict
        ``weighted``: one positive weight per model (in model order, or by model name).
    order : list of str
        ``priority``: the triage order.
    label, k : str and int
        ``k_of_n``: output ``label`` when at least ``k`` models vote it.

    Raises
    ------
    ValidationError
        An unknown kind, a missing or inconsistent option (named).
    UnknownNameError
        A label that is not one of ``labels``.

    Examples
    --------
    >>> f = multiclass_fusioner("k_of_n", labels=["ok", "flu", "covid"],
    ...                         models=["a", "b", "c"], label="covid", k=1)
    >>> f.output((0, 1, 2))
    2
    """
    names, mods = tuple(map(str, labels)), tuple(map(str, models))
    kk = len(names)
    opts: dict[str, Any] = {"weights": tuple(1.0 for _ in mods)}
    if tie is not None:
        if isinstance(tie, str):
            if tie != "slot":
                raise ValidationError(f"tie ({tie!r}) must be 'slot' or a list of labels")
            opts["tie"] = "slot"
        else:
            idx = tuple(_label_index(names, v, "tie") for v in tie)
            if sorted(idx) != list(range(kk)):
                raise ValidationError(f"tie must list every label once, got {list(tie)}")
            opts["tie"] = idx
    if callable(kind):
        return MulticlassFusioner("function", names, mods, function=kind, **opts)
    if kind not in ("plurality", "weighted", "priority", "k_of_n"):
        raise ValidationError(f"fusioner kind ({kind!r}) must be 'plurality', 'weighted', "
                              "'priority', 'k_of_n' or a function of the votes")
    if kind == "weighted" and isinstance(weights, Mapping):
        missing = [m for m in mods if m not in weights]
        extra = sorted(map(str, set(weights) - set(mods)))
        if missing or extra:
            raise ValidationError(f"weights must give one weight per model: missing {missing}, "
                                  f"not models {extra}")
        weights = [weights[m] for m in mods]
    if kind == "weighted":
        if weights is None or len(weights) != len(mods):
            raise ValidationError(f"the weighted fusioner needs weights=, one per model "
                                  f"({len(mods)})")
        w = tuple(float(v) for v in weights)
        if not all(np.isfinite(v) and v > 0 for v in w):
            raise ValidationError(f"weights must be finite and > 0, got {list(weights)}")
        opts["weights"] = w
    elif weights is not None:
        raise ValidationError(f"weights= belongs to the weighted fusioner, not {kind!r}")
    if kind == "priority":
        if not order:
            raise ValidationError("the priority fusioner needs order= (labels, first wins)")
        idx = tuple(_label_index(names, v, "order") for v in order)
        if len(set(idx)) != len(idx):
            raise ValidationError(f"order lists a label twice: {list(order)}")
        opts["order"] = idx
    if kind == "k_of_n":
        if label is None or k is None:
            raise ValidationError("the k_of_n fusioner needs label= and k=")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= len(mods):
            raise ValidationError(f"k ({k!r}) must be a whole number in 1..{len(mods)}")
        opts["label"], opts["k"] = _label_index(names, label, "label"), int(k)
    if not isinstance(kind, str):
        raise InputTypeError(f"kind must be a string or a function, got {type(kind).__name__}")
    return MulticlassFusioner(kind, names, mods, **opts)
