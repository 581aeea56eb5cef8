"""Fusioners: the deterministic rules that merge the models' votes into the system's output, for
any number of labels K, written once for the network and the data layers.

Votes and outputs are label indices ``0..K-1`` in the order of ``labels``. Every rule but a
user function reads only each label's **score**: the summed weights of the models voting it
(the number of votes when the weights are 1). Weights and thresholds are the rationals their
decimal text says (a float's text is its shortest ``repr``: ``0.1`` is ``1/10``), scaled once
to integers over a common denominator (:func:`~causalcost.network.exact_votes.integer_vote`), so
scores are exact integers (``int64``, or Python integers beyond it) and every comparison, a
tie included, is exact: ``0.1 + 0.2`` ties ``0.3``, ``1e20 + 1`` beats ``1e20``, and three
weights of ``1e-13`` never lose to one of ``2e-13``.

The rules (:func:`make_fusioner` with ``labels=[...]``):

* ``"plurality"``: the label with the highest score; a tie goes to the tied label listed first
  in the tie order (``labels`` by default; ``tie=[...]`` gives another order, ``tie="slot"``
  gives it to the slot's own vote when the slot is among the tied, else the order of
  ``labels``).
* ``"weighted"``: plurality with one non-negative weight per model (ties as plurality); with a
  ``threshold``, ``label`` (the first label by default) when the weights of its voters reach
  the threshold, else the weighted plurality of the other labels.
* ``"priority"``: the first label in ``order`` that any model votes (a triage rule); if no
  model votes a label of ``order`` (it may leave labels out), plurality decides.
* ``"k_of_n"``: ``label`` when at least ``k`` models vote it, else the plurality of the other
  labels (ties as in plurality).
* ``"function"``: a user function called with one keyword argument per model (its vote, a
  label) that returns a label: ``lambda a, b, c: "covid" if "covid" in (a, b, c) else a``.

A **binary** fusioner (no ``labels``: K = 2, labels ``("P", "N")``, votes as bools, ``True`` =
positive) is the same object at K = 2, built from the binary rule names that network files
use: ``"and"`` is priority with N first (negative when any model says negative), ``"or"``
priority with P first, ``"majority"`` plurality with ties to ``tie`` (``"negative"`` by
default), ``"k_of_n"`` k-of-n for P, ``"weighted"`` the threshold rule for P (weights of any
sign), and a ``"function"`` gets one bool per model and returns a bool. These rules keep their
vote form: positive when ``sum(weights[i] * vote[i]) >= threshold`` (:meth:`Fusioner.integer_vote`),
which divorces a rule into count nodes and makes it known monotone without enumeration.

Every rule is evaluated by one vectorised routine, :meth:`Fusioner.from_scores`, on arrays of
scores (the data layer's vote patterns, the tables of the network layer) and through it on one
vote configuration (:meth:`Fusioner.output`). :func:`decision_table` lists a binary rule's
output at every combination of votes, the fusioner's CPD; a user function is called once per
combination, so it is refused beyond :data:`MAX_FUNCTION_INPUTS` models.

Examples
--------
>>> f = make_fusioner("plurality", ["m1", "m2", "m3"], labels=["ok", "flu", "covid"])
>>> f.output((1, 2, 0)), f.output((1, 1, 0)), f((  "covid", "flu", "covid"))
(0, 1, 'covid')
>>> g = make_fusioner("weighted", ["a", "b", "c"], labels=["covid", "flu", "ok"],
...                   weights=[0.1, 0.2, 0.3])
>>> g(("ok", "ok", "flu"))  # 0.1 + 0.2 ties 0.3 exactly: the first of the tied labels
'flu'
>>> make_fusioner("or", ["images", "history"])((False, True))
True
"""

from __future__ import annotations

import inspect
import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from causalcost.errors import InputTypeError, UnknownNameError, ValidationError
from causalcost.network.exact_votes import (
    exact_number,
    integer_vote,
    number_text,
    vote_sums,
    weights_by_input,
)

__all__ = ["Fusioner", "make_fusioner", "decision_table", "plain_labels", "multiclass_fusioner",
           "RULES", "K_LABEL_RULES", "FUSIONER_KINDS", "MULTICLASS_RULES", "BINARY_LABELS",
           "MAX_FUNCTION_INPUTS"]

Vote = tuple[bool, ...]

#: Rule names of a binary fusioner (and of binary network files).
RULES = ("and", "or", "majority", "k_of_n", "weighted", "function")
#: Rule names of a fusioner with ``labels=[...]`` (any K; at K = 2 the binary names too).
K_LABEL_RULES = ("plurality", "weighted", "priority", "k_of_n", "function")
#: The K-label rules that read only scores (every rule but a user function).
MULTICLASS_RULES = ("plurality", "weighted", "priority", "k_of_n")
#: Values of :attr:`Fusioner.kind` (``"table"``: a probability table read from pgmpy).
FUSIONER_KINDS = ("plurality", "weighted", "priority", "k_of_n", "function", "table")
#: The labels of a binary fusioner, positive first.
BINARY_LABELS = ("P", "N")
#: Most models a user ``function`` rule may read in :func:`decision_table` (``2**k`` calls).
MAX_FUNCTION_INPUTS = 20
#: Kept for compatibility: votes are compared exactly (no tolerance is applied).
TOLERANCE = 0.0

_KIND = {"and": "priority", "or": "priority", "majority": "plurality"}
#: The options each rule reads (binary names and K-label names).
_TAKES = {
    "and": (), "or": (), "majority": ("tie",), "function": ("function",),
    "plurality": ("tie",), "priority": ("order", "tie"),
    "weighted": ("weights", "threshold", "label", "tie"), "k_of_n": ("k", "label", "tie"),
}
_BINARY_TAKES = {"k_of_n": ("k",), "weighted": ("weights", "threshold")}
_OPTION_RULE = {"k": "k_of_n", "weights": "weighted", "threshold": "weighted", "tie": "majority",
                "function": "function", "order": "priority", "label": "k_of_n"}


def plain_labels(labels: Sequence[Any]) -> tuple[Any, ...]:
    """Labels as plain Python values (numpy strings and integers as ``str`` and ``int``).

    >>> plain_labels([np.str_("a"), np.int64(2)])
    ('a', 2)
    """
    return tuple(str(v) if isinstance(v, np.str_) else int(v) if isinstance(v, np.integer)
                 else v for v in labels)


def _label_index(labels: tuple[Any, ...], value: Any, what: str) -> int:
    """The index of ``value`` among ``labels`` (equal, or equal as text when unambiguous)."""
    value = plain_labels([value])[0]
    if value in labels:
        return labels.index(value)
    as_text = [i for i, v in enumerate(labels) if str(v) == str(value)]
    if len(as_text) == 1:
        return as_text[0]
    raise UnknownNameError(f"{what}: {value!r} is not one of the labels {list(labels)}")


@dataclass(frozen=True, eq=False)
class Fusioner:
    """A named deterministic rule over the models' votes, for K labels (build one with
    :func:`make_fusioner`).

    Attributes
    ----------
    rule : str
        The rule's name as given: one of :data:`RULES` (binary) or :data:`K_LABEL_RULES`, or
        ``"table"`` (a probability table read from pgmpy).
    labels : tuple
        The K labels, in index order (``("P", "N")`` for a binary fusioner).
    models : tuple of str
        The models whose votes it reads, in order (also :attr:`inputs`).
    tie : tuple of int or "slot"
        The tie order of label indices, or ``"slot"`` (the slot's vote wins a tie it is in).
    weights : tuple of float, or None
        One weight per model, as floats for display (1 for unweighted rules; ``None`` for a
        user function or a table).
    order : tuple of int
        ``priority``: the triage order of label indices (the first voted wins).
    label : int
        ``k_of_n`` and thresholded ``weighted``: the label index the rule counts.
    k : int or None
        ``k_of_n``: the number of votes ``label`` needs.
    threshold : float or None
        The score ``label`` needs (``k`` for ``k_of_n``); for a binary rule the threshold of
        its vote form (``None`` for a user function).
    function : callable or None
        The user's function (``function``).
    table : numpy.ndarray or None
        ``table``: ``P(output = s | votes)`` with shape ``(K,) * n + (K,)``.
    description : str
        The rule in words.
    exact_weights, exact_threshold : tuple of Fraction and Fraction, or None
        The weights and the threshold, exactly: the rationals the decisions are computed from.
    boolean : bool
        A binary fusioner whose votes are bools (``True`` = positive) and whose user function
        takes and returns bools.

    Examples
    --------
    >>> f = make_fusioner("or", ["images", "history"])
    >>> f((False, True)), f
    (True, Fusioner(OR: positive when any model says positive))
    >>> f.weights, f.threshold, f.is_vote, f.monotone, f.kind, f.labels
    ((1.0, 1.0), 1.0, True, True, 'priority', ('P', 'N'))
    """

    rule: str
    labels: tuple[Any, ...] = BINARY_LABELS
    models: tuple[str, ...] = ()
    tie: tuple[int, ...] | str = ()
    weights: tuple[float, ...] | None = None
    order: tuple[int, ...] = ()
    label: int = 0
    k: int | None = None
    threshold: float | None = None
    function: Callable[..., Any] | None = field(default=None, repr=False)
    table: np.ndarray | None = field(default=None, repr=False)
    description: str = ""
    exact_weights: tuple[Fraction, ...] | None = field(default=None, repr=False)
    exact_threshold: Fraction | None = field(default=None, repr=False)
    boolean: bool = False

    def __post_init__(self) -> None:
        if self.weights is not None and self.exact_weights is None:
            object.__setattr__(self, "exact_weights", tuple(
                exact_number(w, f"weight of {m!r}") for m, w in zip(self.models, self.weights)))
        if self.threshold is not None and self.exact_threshold is None:
            object.__setattr__(self, "exact_threshold", exact_number(self.threshold,
                                                                     "threshold"))
        if self.exact_threshold is not None:
            object.__setattr__(self, "threshold", float(self.exact_threshold))
        if self.weights is None and self.rule in MULTICLASS_RULES + tuple(_KIND):
            object.__setattr__(self, "weights", (1.0,) * len(self.models))
            object.__setattr__(self, "exact_weights", (Fraction(1),) * len(self.models))
        if not self.description:
            object.__setattr__(self, "description", self.kind)

    # -- names -------------------------------------------------------------------------
    @property
    def inputs(self) -> tuple[str, ...]:
        """The models, in the order votes are passed (the binary name of :attr:`models`)."""
        return self.models

    @property
    def kind(self) -> str:
        """The K-label name of the rule: one of :data:`FUSIONER_KINDS` (``and`` and ``or`` are
        ``priority``, ``majority`` is ``plurality``)."""
        return _KIND.get(self.rule, self.rule)

    @property
    def tie_to_slot(self) -> bool:
        """Whether a tie goes to the slot's own vote when the slot is among the tied."""
        return self.tie == "slot"

    @property
    def tie_order(self) -> tuple[int, ...]:
        """The label indices in the order that breaks ties."""
        if isinstance(self.tie, tuple) and self.tie:
            return self.tie
        return tuple(range(len(self.labels)))

    @property
    def by_scores(self) -> bool:
        """Whether the output depends on the votes only through each label's score."""
        return self.kind in MULTICLASS_RULES

    @property
    def by_counts(self) -> bool:
        """Whether the output depends on the votes only through the counts per label."""
        return self.kind in ("plurality", "priority", "k_of_n")

    @property
    def is_vote(self) -> bool:
        """Whether the rule is a vote for the first label against a threshold: every binary rule
        but ``function`` (``sum(weights[i] * vote[i]) >= threshold``)."""
        return (len(self.labels) == 2 and self.label == 0 and self.weights is not None
                and self.threshold is not None)

    @property
    def monotone(self) -> bool | None:
        """``True`` for a vote with non-negative weights and for any score rule at K = 2
        (monotone by construction), ``False`` for a vote with a negative weight, ``None``
        (unknown: check it) otherwise."""
        if self.is_vote or (len(self.labels) == 2 and self.by_scores):
            return all(w >= 0 for w in self.exact_weights or ())
        return None

    # -- exact integers ----------------------------------------------------------------
    @cached_property
    def _integers(self) -> tuple[tuple[int, ...], int | None]:
        if self.exact_weights is None:
            raise ValidationError(f"{self!r} reads no scores")
        bar = self.exact_threshold if self.exact_threshold is not None else Fraction(0)
        scaled, need = integer_vote(self.exact_weights, bar)
        return tuple(scaled), (need if self.exact_threshold is not None else None)

    @property
    def score_weights(self) -> tuple[int, ...]:
        """The weights as integers with the same decisions (a common positive factor of
        :attr:`exact_weights`): a label's score is the sum of its voters' score weights."""
        return self._integers[0]

    @property
    def score_unit(self) -> Fraction:
        """The weight that one unit of score stands for (``score_weights[i] * score_unit ==
        exact_weights[i]``)."""
        scaled = next((i for i, w in enumerate(self.score_weights) if w), None)
        if scaled is None or self.exact_weights is None:
            return Fraction(1)
        return self.exact_weights[scaled] / self.score_weights[scaled]

    def integer_vote(self) -> tuple[list[int], int]:
        """Integer weights and bar with the same decisions as the vote (exact; see
        :func:`~causalcost.network.exact_votes.integer_vote`).

        Examples
        --------
        >>> make_fusioner("weighted", ["a", "b"], weights=[0.1, 0.2], threshold=0.3).integer_vote()
        ([1, 2], 3)
        """
        if not self.is_vote:
            raise ValidationError(f"{self!r} has no vote form")
        return integer_vote(self.exact_weights or (), self.exact_threshold)  # type: ignore

    # -- evaluation --------------------------------------------------------------------
    def scores(self, votes: Sequence[np.ndarray]) -> np.ndarray:
        """``scores[row, s]``: the summed score weights of the models voting ``s``, from one
        array of label indices per model (``int64``, or Python integers beyond it)."""
        weights = self.score_weights
        columns = [np.asarray(v) for v in votes]
        return np.stack([vote_sums(weights, [c == s for c in columns])
                         for s in range(len(self.labels))], axis=1)

    def from_scores(self, scores: Any, slot_vote: Any = None) -> np.ndarray:
        """The output label index for each row of per-label scores (the one rule every path
        uses).

        Parameters
        ----------
        scores : array-like (rows, K) or (K,)
            ``scores[row, s]``: the score of label ``s`` (summed :attr:`score_weights` of its
            voters; the vote count per label for unweighted rules).
        slot_vote : int or array-like of int, optional
            The slot's own vote per row (read by ``tie="slot"``).

        Examples
        --------
        >>> f = make_fusioner("k_of_n", ["a", "b", "c"], labels=["x", "y", "z"], label="z", k=2)
        >>> f.from_scores([[1, 0, 2], [2, 1, 0], [0, 1, 1]]).tolist()
        [2, 0, 1]
        """
        if not self.by_scores:
            raise ValidationError(f"a {self.kind!r} fusioner does not decide from scores")
        table = np.asarray(scores)
        if table.ndim == 1:
            table = table[None, :]
        rows, k = table.shape
        if k != len(self.labels):
            raise ValidationError(f"scores must have one column per label {list(self.labels)}, "
                                  f"got shape {table.shape}")
        own = None if slot_vote is None else np.broadcast_to(
            np.asarray(slot_vote, dtype=np.int64), (rows,))
        if self.kind == "priority":
            order = np.asarray(self.order, dtype=np.int64)
            voted = np.asarray(table[:, order] > 0, dtype=bool)
            first = order[np.argmax(voted, axis=1)]
            hit = voted.any(axis=1)
            return first if hit.all() else np.where(hit, first, self._plurality(table, own))
        if self.kind in ("k_of_n", "weighted") and self.exact_threshold is not None:
            need = self._integers[1]
            hit = np.asarray(table[:, self.label] >= need, dtype=bool)
            rest = self._plurality(table, own, exclude=self.label)
            return np.where(hit, self.label, rest)
        return self._plurality(table, own)

    def _plurality(self, table: np.ndarray, own: np.ndarray | None,
                   exclude: int | None = None) -> np.ndarray:
        rows, k = table.shape
        among = [s for s in range(k) if s != exclude]
        top = table[:, among].max(axis=1)
        tied = np.zeros((rows, k), dtype=bool)
        tied[:, among] = np.asarray(table[:, among] == top[:, None], dtype=bool)
        order = np.asarray(self.tie_order, dtype=np.int64)
        first = order[np.argmax(tied[:, order], axis=1)]
        if self.tie_to_slot and own is not None:
            return np.where(tied[np.arange(rows), own], own, first)
        return first

    def says_first(self, votes: Sequence[np.ndarray]) -> np.ndarray:
        """Whether a two-label rule outputs the first label (positive), from one bool array per
        model (``True``: the model votes the first label).

        A vote (:attr:`is_vote`) takes its closed form, ``sum(W_i v_i) >= need`` in exact
        integers (:meth:`integer_vote`), a fast path that the tests check against
        :meth:`from_scores` on every configuration; other rules take :meth:`from_scores`.

        Examples
        --------
        >>> f = make_fusioner("majority", ["a", "b", "c"])
        >>> f.says_first([np.array([True, True]), np.array([True, False]),
        ...               np.array([False, False])]).tolist()
        [True, False]
        """
        if len(self.labels) != 2:
            raise ValidationError(f"{self!r} has {len(self.labels)} labels, not two")
        columns = [np.asarray(v, dtype=bool) for v in votes]
        if self.is_vote:
            scaled, need = self.integer_vote()
            return np.asarray(vote_sums(scaled, columns) >= need, dtype=bool)
        indices = [np.where(c, 0, 1) for c in columns]
        if not self.by_scores:
            rows = len(columns[0]) if columns else 0
            return self.apply(np.stack(indices, axis=1).reshape(rows, -1)) == 0
        return np.asarray(self.from_scores(self.scores(indices)) == 0, dtype=bool)

    def apply(self, votes: Any, slot: str | None = None) -> np.ndarray:
        """Outputs for rows of votes (``votes[row, i]``: model ``i``'s label index).

        ``slot`` names the model whose vote wins ties under ``tie="slot"``. A user function is
        called once per distinct row.

        Examples
        --------
        >>> f = make_fusioner("priority", ["a", "b"], labels=["ok", "warn", "stop"],
        ...                   order=["stop", "warn", "ok"])
        >>> f.apply(np.array([[0, 1], [2, 0], [0, 0]])).tolist()
        [1, 2, 0]
        """
        table = np.asarray(votes, dtype=np.int64)
        if table.ndim != 2 or table.shape[1] != len(self.models):
            raise ValidationError(f"votes must have one column per model {list(self.models)}, "
                                  f"got shape {table.shape}")
        own = None if slot is None else table[:, self._model_index(slot)]
        if not self.by_scores:
            self._deterministic()
            if not len(table):
                return np.zeros(0, dtype=np.int64)
            rows, inverse = np.unique(table, axis=0, return_inverse=True)
            outs = np.fromiter((self._configuration(tuple(r)) for r in rows.tolist()),
                               dtype=np.int64, count=len(rows))
            return outs[inverse.ravel()]
        return self.from_scores(self.scores([table[:, i] for i in range(table.shape[1])]), own)

    def output(self, votes: Sequence[int], slot_vote: int | None = None) -> int:
        """The output label index for one vote per model (``table``: the most likely output).

        Examples
        --------
        >>> make_fusioner("majority", ["a", "b"], tie="positive").output((0, 1))
        0
        """
        if not self.by_scores:
            return self._configuration(tuple(int(v) for v in votes))
        scores: list[int] = [0] * len(self.labels)
        for w, v in zip(self.score_weights, votes):
            scores[v] += w
        return self.from_counts(scores, slot_vote)

    def from_counts(self, counts: Sequence[Any], slot_vote: int | None = None) -> int:
        """The output for one vector of per-label scores: :meth:`from_scores` for one row, in
        plain Python (the tables call it once per count vector; the tests check it against
        :meth:`from_scores` on every configuration).

        Examples
        --------
        >>> f = make_fusioner("plurality", ["a", "b", "c"], labels=["x", "y", "z"], tie="slot")
        >>> f.from_counts([1, 1, 1], slot_vote=2), f.from_counts([1, 1, 1])
        (2, 0)
        """
        kind, label, need, order, ties = self._plan
        if kind == "priority":
            hit = next((s for s in order if counts[s] > 0), None)
            return hit if hit is not None else self._plurality_one(counts, slot_vote, ties, -1)
        if need is not None:
            if counts[label] >= need:
                return label
            return self._plurality_one(counts, slot_vote, ties, label)
        return self._plurality_one(counts, slot_vote, ties, -1)

    @cached_property
    def _plan(self) -> tuple[str, int, Any, tuple[int, ...], tuple[int, ...]]:
        """(kind, label, the integer score ``label`` needs or None, priority order, ties)."""
        threshold = self.kind in ("k_of_n", "weighted") and self.exact_threshold is not None
        return (self.kind, self.label, self._integers[1] if threshold else None, self.order,
                self.tie_order)

    def _plurality_one(self, counts: Sequence[Any], own: int | None, ties: tuple[int, ...],
                       exclude: int) -> int:
        top = max(v for s, v in enumerate(counts) if s != exclude)
        if self.tie == "slot" and own is not None and own != exclude and counts[own] == top:
            return int(own)
        return next(s for s in ties if s != exclude and counts[s] == top)

    def distribution(self, votes: Sequence[int], slot_vote: int | None = None) -> np.ndarray:
        """``P(output | votes)`` as a length-K vector (one-hot unless ``table``)."""
        if self.table is not None:
            return np.asarray(self.table[tuple(votes)], dtype=float)
        out = np.zeros(len(self.labels))
        out[self.output(votes, slot_vote)] = 1.0
        return out

    def __call__(self, votes: Sequence[Any]) -> Any:
        """The system's vote: bools in and out for a binary fusioner, labels otherwise."""
        if self.boolean:
            return self.output(tuple(0 if v else 1 for v in votes)) == 0
        index = [_label_index(self.labels, v, "vote") for v in votes]
        return self.labels[self.output(index)]

    @property
    def decide(self) -> Callable[[Vote], bool]:
        """The rule as a function of the tuple of votes (``self(votes)``)."""
        return self.__call__

    def __repr__(self) -> str:
        return f"Fusioner({self.description})"

    def to_frame(self) -> Any:
        """One row per model: its weight as written and its integer score weight (``None``
        for a user function or a table); the rule in ``frame.attrs["fusioner"]``.

        Examples
        --------
        >>> frame = make_fusioner("weighted", ["a", "b"], weights=[0.1, 0.2],
        ...                       threshold=0.3).to_frame()
        >>> frame["weight"].tolist(), frame["score_weight"].tolist(), frame.attrs["fusioner"]
        (['0.1', '0.2'], [1, 2], "weighted vote {'a': 0.1, 'b': 0.2} >= 0.3")
        """
        import pandas as pd

        scored = self.exact_weights is not None
        frame = pd.DataFrame({
            "model": list(self.models),
            "weight": [number_text(w) for w in self.exact_weights] if scored
            else [None] * len(self.models),
            "score_weight": list(self.score_weights) if scored else [None] * len(self.models),
        }).set_index("model")
        frame.attrs["fusioner"] = self.description
        return frame

    def _key(self) -> tuple[Any, ...]:
        table = None if self.table is None else (self.table.shape, self.table.tobytes())
        return (self.rule, self.labels, self.models, self.tie, self.exact_weights, self.order,
                self.label, self.k, self.exact_threshold, self.function, table, self.boolean)

    def __eq__(self, other: object) -> bool:
        """Equal rules: the same rule, labels, models and options (the same user function)."""
        if not isinstance(other, Fusioner):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # -- internals ---------------------------------------------------------------------
    def _model_index(self, model: str) -> int:
        if model not in self.models:
            raise ValidationError(f"slot {model!r} is not a fusioner input {list(self.models)}")
        return self.models.index(model)

    def _deterministic(self) -> None:
        if self.table is not None and not np.all(np.isin(self.table, (0.0, 1.0))):
            raise ValidationError("a fusioner given as a probability table has no single output "
                                  "per vote pattern; forced runs need a deterministic rule")

    def _configuration(self, votes: tuple[int, ...]) -> int:
        """A user function's or a table's output for one configuration."""
        if self.table is not None:
            return int(np.argmax(self.table[votes]))
        if self.function is None:
            raise ValidationError(f"{self!r} has no rule to call")
        name = getattr(self.function, "__name__", "function")
        if self.boolean:
            arguments: dict[str, Any] = {m: v == 0 for m, v in zip(self.models, votes)}
        else:
            arguments = {m: self.labels[v] for m, v in zip(self.models, votes)}
        try:
            result = self.function(**arguments)
        except Exception as exc:  # the user's code: say how it was called
            raise ValidationError(
                f"fusioner function {name} failed with {type(exc).__name__}: {exc}. It is "
                f"called with one keyword argument per model: {_call_text(name, arguments)}"
            ) from exc
        if not self.boolean:
            return _label_index(self.labels, result, "the fusion function returned")
        if isinstance(result, np.bool_):
            result = bool(result)
        if not isinstance(result, (bool, int)) or result not in (0, 1):
            raise ValidationError(f"fusioner function must return True or False, got "
                                  f"{result!r} for {_call_text(name, arguments)}")
        return 0 if result else 1


def make_fusioner(
    rule: str | Callable[..., Any],
    inputs: Sequence[str],
    *,
    k: int | None = None,
    weights: Mapping[str, Any] | Sequence[Any] | None = None,
    threshold: Any = None,
    tie: str | Sequence[Any] | None = None,
    function: Callable[..., Any] | None = None,
    labels: Sequence[Any] | None = None,
    order: Sequence[Any] | None = None,
    label: Any = None,
) -> Fusioner:
    """Build a fusioner for the models ``inputs`` (see the module for the rules).

    Parameters
    ----------
    rule : str or callable
        Without ``labels``: one of :data:`RULES` (binary). With ``labels``: one of
        :data:`K_LABEL_RULES` (at K = 2 the binary names too), or a function of the votes.
    inputs : sequence of str
        Model names (distinct) in the order votes are passed.
    k : int, optional
        ``k_of_n``: the number of votes needed (1 <= k <= n).
    weights, threshold : optional
        ``weighted``: one weight per input (a mapping by name or a sequence; numbers or their
        decimal text, taken exactly); the threshold the voters' weights must reach (binary:
        required; with ``labels``: optional, without it the rule is weighted plurality).
    tie : optional
        Binary ``majority``: ``"negative"`` (default) or ``"positive"``. With ``labels``:
        ``"slot"`` or a list of every label (the tie order; default the order of ``labels``).
    function : callable, optional
        ``function``: called with **one keyword argument per model** (``function(images=True,
        history=False)``): each a bool returning a bool for a binary fusioner, each a label
        returning a label otherwise. A function taking one tuple of votes does not fit: write
        ``lambda images, history: ...``.
    labels : sequence, optional
        The K labels (their order is the default tie order). Without it the fusioner is binary.
    order : sequence, optional
        ``priority``: labels, the first that any model votes wins.
    label : optional
        ``k_of_n`` and thresholded ``weighted``: the label they count (default the first
        label when K = 2).

    Raises
    ------
    ValidationError
        An unknown rule, duplicate inputs, an option the rule does not take (``k`` for
        ``and``), a bad value (named), or a function whose parameters are not the models'
        names.
    UnknownNameError
        A label that is not one of ``labels``.

    Examples
    --------
    >>> f = make_fusioner("majority", ["a", "b", "c", "d"], tie="positive")
    >>> f((True, True, False, False)), f((True, False, False, False))
    (True, False)
    >>> make_fusioner("k_of_n", ["a", "b", "c"], k=2)((True, False, True))
    True
    >>> make_fusioner("function", ["a", "b"], function=lambda a, b: a and not b)((True, False))
    True
    >>> f = make_fusioner("k_of_n", ["a", "b", "c"], labels=["ok", "flu", "covid"],
    ...                   label="covid", k=1)
    >>> f.output((0, 1, 2)), f
    (2, Fusioner(1 of 3 for 'covid'))
    """
    if callable(rule) and not isinstance(rule, str):
        if function is not None:
            raise ValidationError("give the function once: as the rule or as function=")
        rule, function = "function", rule
    if not isinstance(rule, str):
        raise InputTypeError(f"rule must be a string or a function, got {type(rule).__name__}")
    boolean = labels is None
    if boolean:
        names: tuple[Any, ...] = BINARY_LABELS
        if rule not in RULES:
            raise ValidationError(f"fusioner rule ({rule!r}) must be one of {', '.join(RULES)}")
    else:
        if isinstance(labels, str) or not isinstance(labels, (Sequence, np.ndarray)):
            raise ValidationError(f"labels must be a list of at least two labels, got "
                                  f"{labels!r}")
        names = plain_labels(labels)
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValidationError(f"labels must be at least two distinct labels, got "
                                  f"{list(names)}")
        allowed = K_LABEL_RULES + (RULES if len(names) == 2 else ())
        if rule not in allowed:
            raise ValidationError(f"fusioner {rule!r} is not a K-label rule; with {len(names)} "
                                  f"labels use one of {', '.join(dict.fromkeys(allowed))}")
    models = _models(inputs)
    given = {"k": k, "weights": weights, "threshold": threshold, "tie": tie,
             "function": function, "order": order, "label": label}
    _only_for(rule, boolean, given)
    build = _Build(rule, names, models, boolean)
    return build.fusioner(given)


@dataclass(frozen=True)
class _Build:
    """The checks and the fields of one fusioner (the steps of :func:`make_fusioner`)."""

    rule: str
    labels: tuple[Any, ...]
    models: tuple[str, ...]
    boolean: bool

    def fusioner(self, given: dict[str, Any]) -> Fusioner:
        n, rule = len(self.models), self.rule
        make: dict[str, Any] = {"labels": self.labels, "models": self.models,
                                "boolean": self.boolean}
        if rule in ("and", "or"):
            positive = rule == "or"
            what = "any model says positive" if positive else "every model says positive"
            return Fusioner(rule, order=(0, 1) if positive else (1, 0), threshold=1 if positive
                            else n, description=f"{rule.upper()}: positive when {what}", **make)
        if rule == "majority":
            tie = "negative" if given["tie"] is None else given["tie"]
            if tie not in ("negative", "positive"):
                raise ValidationError(f"tie ({tie!r}) must be 'negative' or 'positive'")
            positive_tie = tie == "positive"
            need = n // 2 if n % 2 == 0 and positive_tie else n // 2 + 1
            extra = f", ties go {tie}" if n % 2 == 0 else ""
            return Fusioner(rule, tie=(0, 1) if positive_tie else (1, 0), threshold=need,
                            description=f"majority of {n}{extra}", **make)
        if rule == "function":
            function = given["function"]
            if function is None or not callable(function):
                raise ValidationError("rule 'function' needs a callable function=...")
            name = getattr(function, "__name__", "function")
            _check_signature(function, self.models, name)
            return Fusioner(rule, function=function, description=f"user function {name}",
                            **make)
        tie = self._tie(given["tie"])
        if rule == "plurality":
            return Fusioner(rule, tie=tie, description=f"plurality of {n}, "
                            f"{self._ties_text(tie)}", **make)
        if rule == "priority":
            if not given["order"]:
                raise ValidationError("fusioner rule 'priority' needs order=[...] (labels, the "
                                      "first that any model votes wins)")
            order = self._labels(given["order"], "order", every=False)
            shown = [self.labels[i] for i in order]
            return Fusioner(rule, tie=tie, order=order, description=f"priority of {n}, order "
                            f"{shown}", **make)
        if rule == "weighted":
            if given["label"] is not None and given["threshold"] is None:
                raise ValidationError("label= names the label a weighted vote's threshold is "
                                      "for; give threshold= too, or drop label=")
            return self._weighted(given, 0 if given["label"] is None else self._label(
                given["label"]), tie)
        label = self._label(given["label"])
        need = given["k"]
        if isinstance(need, bool) or not isinstance(need, (int, np.integer)) or not (
                1 <= need <= n):
            raise ValidationError(f"k_of_n needs an integer k with 1 <= k <= {n}, got "
                                  f"k={need!r}")
        text = (f"{int(need)} of {n}" if self.boolean
                else f"{int(need)} of {n} for {self.labels[label]!r}")
        return Fusioner(rule, tie=tie, label=label, k=int(need), threshold=int(need),
                        description=text, **make)

    def _weighted(self, given: dict[str, Any], label: int, tie: tuple[int, ...] | str
                  ) -> Fusioner:
        exact = tuple(exact_number(v, f"weight of {m!r}")
                      for m, v in weights_by_input(given["weights"], self.models))
        shown = "{" + ", ".join(f"{m!r}: {number_text(w)}"
                                for m, w in zip(self.models, exact)) + "}"
        floats = tuple(float(w) for w in exact)
        make: dict[str, Any] = {"labels": self.labels, "models": self.models,
                                "boolean": self.boolean, "weights": floats,
                                "exact_weights": exact, "tie": tie}
        threshold = given["threshold"]
        if len(self.labels) > 2 or threshold is None:
            negative = [m for m, w in zip(self.models, exact) if w < 0]
            if negative or not any(exact):
                raise ValidationError(
                    f"weights of a K-label weighted vote must be >= 0 and not all 0 (scores "
                    f"are compared across labels); negative: {negative}")
        if threshold is None:
            if self.boolean:
                raise ValidationError("weighted vote needs a finite threshold, got None")
            return Fusioner("weighted", description=f"weighted plurality {list(floats)}, "
                            f"{self._ties_text(tie)}", **make)
        try:
            bar = exact_number(threshold, "threshold")
        except ValidationError:
            text = repr(threshold) if len(repr(threshold)) <= 48 else repr(threshold)[:45] + "..."
            raise ValidationError(
                f"weighted vote needs a finite threshold, got {text}: threshold must be a "
                "finite number within the range of a double (|x| <= 1.8e308)") from None
        text = f"weighted vote {shown} >= {number_text(bar)}"
        if not self.boolean:
            text = f"{self.labels[label]!r} when the {text}, else plurality of the rest"
        return Fusioner("weighted", label=label, threshold=float(bar), exact_threshold=bar,
                        description=text, **make)

    def _tie(self, tie: Any) -> tuple[int, ...] | str:
        if tie is None:
            return tuple(range(len(self.labels)))
        if isinstance(tie, str):
            if tie != "slot":
                raise ValidationError(f"tie ({tie!r}) must be 'slot' or a list of labels")
            return "slot"
        return self._labels(tie, "tie", every=True)

    def _labels(self, values: Any, what: str, every: bool) -> tuple[int, ...]:
        if isinstance(values, str) or not isinstance(values, (Sequence, np.ndarray)):
            raise ValidationError(f"{what} must be a list of the labels {list(self.labels)}, "
                                  f"got {values!r}")
        index = tuple(_label_index(self.labels, v, what) for v in values)
        if len(set(index)) != len(index):
            raise ValidationError(f"{what} lists a label twice: {list(values)}")
        if every and len(index) != len(self.labels):
            raise ValidationError(f"{what} must list every label once, in the order wanted; "
                                  f"got {list(values)} for the labels {list(self.labels)}")
        return index

    def _label(self, label: Any) -> int:
        if label is None:
            if len(self.labels) == 2:
                return 0
            raise ValidationError(f"fusioner rule {self.rule!r} needs label= (the label it "
                                  f"counts, one of {list(self.labels)})")
        return _label_index(self.labels, label, "label")

    def _ties_text(self, tie: tuple[int, ...] | str) -> str:
        order = list(self.labels) if tie == "slot" else [self.labels[i] for i in tie]
        ties = "ties to the slot's vote, else" if tie == "slot" else "ties to"
        return f"{ties} the first of {order}"


def multiclass_fusioner(kind: str | Callable[..., Any], *, labels: Sequence[Any],
                        models: Sequence[str], **options: Any) -> Fusioner:
    """Deprecated: use ``make_fusioner(rule, models, labels=[...], ...)``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     f = multiclass_fusioner("plurality", labels=["a", "b", "c"], models=["m1", "m2"])
    >>> f.output((2, 1)), seen[0].category.__name__
    (1, 'DeprecationWarning')
    """
    warnings.warn("causalcost.multiclass_fusioner is deprecated; use "
                  "causalcost.make_fusioner(rule, models, labels=[...], ...)",
                  DeprecationWarning, stacklevel=2)
    return make_fusioner(kind, models, labels=labels, **options)


def decision_table(fusioner: Fusioner) -> np.ndarray:
    """A two-label rule's output at every combination of votes: a bool array of length
    ``2**k``, ``True`` where the output is the first label (positive).

    Combinations follow ``itertools.product((True, False), repeat=k)`` (the first input
    slowest, positive first): the column order of the fusioner's CPD. A score rule is
    evaluated with numpy (never by calling Python ``2**k`` times); a user function is called
    once per combination, and refused beyond :data:`MAX_FUNCTION_INPUTS` inputs.

    Raises
    ------
    ValidationError
        A fusioner over more than two labels, or a user function over more than
        :data:`MAX_FUNCTION_INPUTS` models (the message says how many calls it would take and
        suggests a vote rule).

    Examples
    --------
    >>> decision_table(make_fusioner("and", ["a", "b"])).tolist()
    [True, False, False, False]
    >>> decision_table(make_fusioner("weighted", ["a", "b"], weights=[2, 1], threshold=2))
    array([ True,  True, False, False])
    """
    k = len(fusioner.inputs)
    if len(fusioner.labels) != 2:
        raise ValidationError(f"decision_table lists two-label rules; {fusioner!r} has "
                              f"{len(fusioner.labels)} labels")
    if not fusioner.by_scores:
        if k > MAX_FUNCTION_INPUTS:
            raise ValidationError(
                f"a function fusioner over {k} models would be called 2**{k} = {2 ** k:,} times "
                f"to tabulate it (at most {MAX_FUNCTION_INPUTS} models, 2**"
                f"{MAX_FUNCTION_INPUTS} calls); declare the rule as a vote (and, or, majority, "
                "k_of_n, or weighted with weights and a threshold), which is tabulated without "
                "calling Python per combination and can be divorced into count nodes"
            )
        return np.fromiter((fusioner.output(v) == 0 for v in itertools.product((0, 1), repeat=k)),
                           dtype=bool, count=2**k)
    index = np.arange(2**k, dtype=np.int64)
    return fusioner.says_first([((index >> (k - 1 - i)) & 1) == 0 for i in range(k)])


def _models(inputs: Sequence[str]) -> tuple[str, ...]:
    if isinstance(inputs, str):
        raise ValidationError(f"inputs must be a list of model names, got {inputs!r}")
    names = tuple(str(m) for m in inputs)
    if not names:
        raise ValidationError("a fusioner needs at least one input model")
    repeated = sorted({m for m in names if names.count(m) > 1})
    if repeated:
        raise ValidationError(f"fusioner inputs name {repeated} more than once; list each model "
                              "once")
    return names


def _only_for(rule: str, boolean: bool, given: Mapping[str, Any]) -> None:
    """Refuse an option the rule does not read (``k`` for ``and`` would be silently ignored)."""
    takes = _BINARY_TAKES.get(rule, _TAKES[rule]) if boolean else _TAKES[rule]
    extra = [key for key, value in given.items() if value is not None and key not in takes]
    if extra:
        def owner(key: str) -> str:
            return "plurality" if key == "tie" and not boolean else _OPTION_RULE[key]

        uses = "; ".join(f"{key} is for rule {owner(key)!r}" for key in extra)
        verb = "does not take" if boolean else "takes no"
        raise ValidationError(
            f"fusioner rule {rule!r} {verb} {', '.join(extra)} ({uses}); remove "
            f"{'it' if len(extra) == 1 else 'them'} or change the rule"
        )


def _call_text(label: str, arguments: Mapping[str, Any]) -> str:
    shown = list(arguments.items())
    text = ", ".join(f"{m}={v!r}" if not isinstance(v, bool) else f"{m}={v}"
                     for m, v in shown[:4]) + (", ..." if len(shown) > 4 else "")
    return f"{label}({text})"


def _check_signature(function: Callable[..., Any], names: tuple[str, ...], label: str) -> None:
    """Refuse early a function that cannot take one keyword argument per model."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # builtins without a signature: checked when called
        return
    example = dict(zip(names, itertools.cycle((True, False))))
    try:
        signature.bind(**example)
    except TypeError as exc:
        raise ValidationError(
            f"fusioner function {label}{signature} cannot be called with one keyword argument "
            f"per model, as it is: {_call_text(label, example)} ({exc}); name its parameters "
            f"after the models, e.g. lambda {', '.join(names[:3])}"
            f"{', ...' if len(names) > 3 else ''}: ..."
        ) from None
