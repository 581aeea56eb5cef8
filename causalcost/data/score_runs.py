"""A score log's runs: per row what the system needs from the slot, the truth and the slot's
observed output, for a system of any K labels.

:class:`ScoreRuns` is what :func:`causalcost.forced_runs` with a score rule, :func:`score_runs`
(numpy arrays or a pandas DataFrame) and :func:`causalcost.ensemble_runs` return. It gives the
system forced to any output of the slot, the system as logged, the real system with a
candidate's outputs in the slot, and the price of a candidate. Per row it holds:

* **K = 2** (labels P, N; the slot's output is its score for P): the **critical score**
  ``t``: the system forced to a score ``s`` says P on exactly the rows with ``t <= s``
  (:mod:`causalcost.data.critical_scores`; priced by the closed forms of
  :mod:`causalcost.pricing.scores`);
* **K labels** (the slot's output is a probability vector ``p``): the **offset vector**
  ``r`` and the slot's coefficients ``A``: the system says ``argmax_k (A p + r)_k``
  (:mod:`causalcost.pricing.score_vectors`). K = 2 has this form too
  (:attr:`ScoreRuns.offsets_by_class`, with ``p = (s, 1 - s)``); its critical scores are the
  fast path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion
from causalcost.data.critical_scores import exact_for_rule, score_array, slot_position
from causalcost.data.frames import align_by_index
from causalcost.data.labels import votes_from_values
from causalcost.display import format_number
from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.network.score_rules import score_rule
from causalcost.pricing.score_fusions import check_fusion, row_decisions
from causalcost.pricing.scores import ScoreBound, price_scores
from causalcost.score_values import (
    PROBABILITIES,
    as_score_range,
    read_score_vectors,
    read_scores,
)

__all__ = ["ScoreRuns", "runs_from_scores", "score_runs", "truth_votes"]


def _readonly(a: np.ndarray, copy: bool = True) -> np.ndarray:
    """``a`` read-only: a copy, or ``a`` itself (``copy=False``, for an array just made)."""
    a = np.array(a) if copy else a
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class ScoreRuns:
    """A score slot's runs on a log: per row what the system needs from the slot.

    Two labels: the system forced to score ``s`` says P on exactly the rows with
    ``critical <= s``; at the observed slot scores this agrees exactly with the fusion rule.
    K labels: the slot gives a probability vector ``p`` and the system says
    ``argmax_k (matrix @ p + offsets[i])_k`` (first largest on ties). Build it with
    :func:`causalcost.forced_runs` and a score fusioner (any engine), :func:`score_runs`
    (numpy arrays, pandas) or :func:`causalcost.ensemble_runs` (a fitted scikit-learn
    ensemble). Every method takes the slot's outputs in the form of the system: one score
    per row for two labels, one vector per row (shape ``(rows, K)``, columns in label order)
    for K labels.

    Attributes
    ----------
    slot : str
        The slot's column.
    models : tuple of str
        Every score column, the slot among them.
    rule : str
        The fusion rule in words.
    truth : numpy.ndarray
        Per row the true class: two labels, a bool (is it of class P); K labels, the
        label's position in ``labels`` (:attr:`classes` gives positions for every K).
    critical : numpy.ndarray of float or None
        Two labels: per row the critical score (``-inf`` always P, ``+inf`` never P).
        ``None`` for K labels.
    observed_scores : numpy.ndarray of float
        Per row the slot's observed output: its score (two labels), its vector (K labels,
        shape ``(rows, K)``).
    index : pandas.Index or None
        The log's row labels (candidates' Series are aligned on it).
    adjusted : int
        Rows whose computed critical score was moved by floating-point rounding to agree
        with the rule at the observed score.
    positive : object
        The positive label of the truth column (``True`` for a boolean truth).
    score_range : (float, float)
        The scores the rule takes (``(0, 1)``, a fusion of probabilities, unless declared):
        the log's scores lie in it and a candidate's are checked against it
        (:mod:`causalcost.score_values`).
    labels : tuple
        ``("P", "N")``, or the K labels (the truth's, e.g. an ensemble's ``classes_``).
    provenance : dict
        Where the log came from (read by :func:`causalcost.forced_runs`): the engine, whether
        it was lazy, the file, the rows, the columns and the rule.
    offsets : numpy.ndarray or None
        K labels: per row the offset vector (the other members' part and the intercepts),
        shape ``(rows, K)``. ``None`` for two labels (see :attr:`offsets_by_class`).
    matrix : numpy.ndarray or None
        K labels: the slot's coefficients ``A`` (K x K; soft voting: the slot's weight times
        the identity). ``None`` for two labels.
    fusion : {"linear", "max", "min"}
        K labels: how the system fuses the slot's vector ``p`` with a row's offsets ``r``:
        ``argmax(matrix @ p + r)`` (soft voting, stacking), or ``argmax max(p, r)`` /
        ``argmax min(p, r)`` with ``r`` the other members' largest / smallest probability of
        each label (:mod:`causalcost.pricing.score_fusions`). ``"linear"`` for two labels.

    Examples
    --------
    >>> frame = pd.DataFrame({"y": [1, 1, 0, 0], "a": [0.9, 0.3, 0.2, 0.6],
    ...                       "b": [0.6, 0.5, 0.1, 0.7]})
    >>> runs = score_runs(frame, truth="y", models=["a", "b"], slot="b")
    >>> runs.critical.round(12).tolist()
    [0.1, 0.7, 0.8, 0.4]
    >>> runs.observed, runs.forced_at(1.0)
    (Confusion(tp=1, fn=1, fp=1, tn=1), Confusion(tp=2, fn=0, fp=2, tn=0))
    >>> runs.with_candidate([0.8, 0.8, 0.0, 0.0])
    Confusion(tp=2, fn=0, fp=0, tn=2)
    """

    slot: str
    models: tuple[str, ...]
    rule: str
    truth: np.ndarray
    critical: np.ndarray | None
    observed_scores: np.ndarray
    index: pd.Index | None = None
    adjusted: int = 0
    positive: Any = True
    score_range: tuple[float, float] = PROBABILITIES
    labels: tuple[Any, ...] = field(default=CLASSES)
    provenance: dict[str, Any] = field(default_factory=dict, repr=False)
    offsets: np.ndarray | None = field(default=None, repr=False)
    matrix: np.ndarray | None = field(default=None, repr=False)
    fusion: str = "linear"

    def __post_init__(self) -> None:
        check_fusion(self.fusion)
        object.__setattr__(self, "score_range", as_score_range(self.score_range))
        object.__setattr__(self, "labels", tuple(self.labels))
        if len(self.labels) != 2 and (self.offsets is None or self.matrix is None):
            raise ValidationError(f"a score slot with {len(self.labels)} labels is given by "
                                  "its offset vectors and matrix (offsets=, matrix=)")

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @cached_property
    def classes(self) -> np.ndarray:
        """Per row the position of its true class in :attr:`labels` (P is 0 for two)."""
        if self.k == 2:
            return _readonly(np.where(self.truth, 0, 1), copy=False)
        return self.truth

    def _rows_of(self, values: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(_readonly(values[self.classes == c]) for c in range(self.k))

    def _binary_only(self, what: str) -> None:
        if self.k != 2:
            raise ValidationError(
                f"{what} belongs to a two-label score slot; this one has K = {self.k} labels "
                f"{list(self.labels)}, whose rows hold offset vectors: use offsets_by_class")

    @cached_property
    def critical_by_class(self) -> tuple[np.ndarray, np.ndarray]:
        """Per class (P, N): the sorted critical scores (two labels only)."""
        self._binary_only("critical_by_class")
        assert self.critical is not None
        return (_readonly(np.sort(self.critical[self.truth])),
                _readonly(np.sort(self.critical[~self.truth])))

    @cached_property
    def offsets_by_class(self) -> tuple[np.ndarray, ...]:
        """Per class, in label order: the offset vectors of its rows, in row order.

        Two labels: the same decisions written as offsets, with :attr:`slot_matrix` the
        identity and the slot's score ``s`` as the vector ``(s, 1 - s)``: row ``i`` says P iff
        ``s >= 1 - s + (2 t_i - 1)``, i.e. ``s >= t_i`` up to one rounding (critical scores
        beyond the score range are clipped to a value past it).
        """
        if self.k != 2:
            assert self.offsets is not None
            return self._rows_of(self.offsets)
        assert self.critical is not None
        finite = np.abs(self.critical[np.isfinite(self.critical)])
        ends = [abs(v) for v in self.score_range if math.isfinite(v)]
        far = 2.0 * max([1.0, *ends, *(finite.max(initial=0.0),)]) + 4.0
        shifted = np.clip(2.0 * self.critical - 1.0, -far, far)
        return self._rows_of(np.column_stack([np.zeros_like(shifted), shifted]))

    @property
    def slot_matrix(self) -> np.ndarray:
        """The slot's coefficients ``A`` (the identity for two labels)."""
        return np.eye(2) if self.matrix is None else self.matrix

    @cached_property
    def observed_by_class(self) -> tuple[np.ndarray, ...]:
        """Per class (label order): the slot's observed outputs, in row order."""
        return self._rows_of(self.observed_scores)

    @property
    def class_sizes(self) -> tuple[int, ...]:
        """Rows per class, in label order."""
        return tuple(int(v) for v in np.bincount(self.classes, minlength=self.k))

    def _confusion(self, says: np.ndarray) -> Confusion:
        if self.k != 2:
            cells = np.zeros((self.k, self.k), dtype=np.int64)
            np.add.at(cells, (self.classes, says), 1)
            return Confusion(matrix=cells.tolist(), labels=self.labels)
        p, n = self.truth, ~self.truth
        tp, fp = int((says & p).sum()), int((says & n).sum())
        n_p, n_n = self.class_sizes
        return Confusion(tp=tp, fn=n_p - tp, fp=fp, tn=n_n - fp)

    def _says(self, outputs: np.ndarray) -> np.ndarray:
        """The system's output per row with the slot's ``outputs`` in it: P (True) / N for
        two labels, label positions for K."""
        if self.k == 2:
            return outputs >= self.critical
        return row_decisions(self.fusion, self.slot_matrix, self.offsets, outputs)

    @property
    def observed(self) -> Confusion:
        """The system's confusion as logged (the slot at its observed outputs)."""
        return self._confusion(self._says(self.observed_scores))

    def forced_at(self, score: Any) -> Confusion:
        """The system's confusion with the slot forced to ``score`` on every row: P on exactly
        the rows whose critical score is at most ``score`` (two labels); for K labels
        ``score`` is one probability vector, in label order."""
        if self.k != 2:
            vector = read_score_vectors([score] if np.ndim(score) == 1 else score, "score",
                                        labels=self.labels, rows=1,
                                        score_range=self.score_range)
            return self._confusion(self._says(np.repeat(vector, self.truth.size, axis=0)))
        if isinstance(score, bool) or not isinstance(score, (int, float, np.integer,
                                                              np.floating)):
            raise InputTypeError(f"score must be a number, got {type(score).__name__}")
        if math.isnan(score):
            raise ValidationError("score must be a number, not NaN: the score the slot is "
                                  "forced to on every row")
        s = float(score)
        t_p, t_n = self.critical_by_class
        tp = int(np.searchsorted(t_p, s, "right"))
        fp = int(np.searchsorted(t_n, s, "right"))
        n_p, n_n = self.class_sizes
        return Confusion(tp=tp, fn=n_p - tp, fp=fp, tn=n_n - fp)

    def _aligned(self, scores: Any, what: str = "scores") -> np.ndarray:
        if self.k != 2:
            return read_score_vectors(scores, what, labels=self.labels, rows=self.truth.size,
                                      index=self.index, against="the log",
                                      score_range=self.score_range)
        return read_scores(scores, what, rows=self.truth.size, index=self.index,
                           against="the log", score_range=self.score_range)

    def with_candidate(self, scores: Any, what: str = "scores") -> Confusion:
        """The real system confusion with a candidate's outputs on the log's rows (a Series
        or DataFrame is aligned by index; other indexes are refused): two labels, P where
        ``score >= critical``; K labels, ``argmax(matrix @ p + offsets)`` row by row.

        >>> runs = score_runs(np.array([[0.2, 0.9], [0.7, 0.1]]), truth=[1, 0], slot=1)
        >>> runs.with_candidate([0.95, 0.05])
        Confusion(tp=1, fn=0, fp=0, tn=1)
        """
        return self._confusion(self._says(self._aligned(scores, what)))

    def candidate_by_class(self, scores: Any, what: str = "scores") -> tuple[np.ndarray, ...]:
        """A candidate's outputs on the log's rows, split by class (label order)."""
        return self._rows_of(self._aligned(scores, what))

    def price(self, scores: Any, costs: Any = None, *, confidence: float | None = None
              ) -> ScoreBound:
        """Price a candidate from its outputs on the log's own rows (same instances):
        :func:`~causalcost.pricing.scores.price_scores` for two labels,
        :func:`~causalcost.pricing.score_vector_price.price_vectors` for K (its costs
        default to counting errors).

        >>> runs = score_runs(np.array([[0.2, 0.9], [0.7, 0.1]]), truth=[1, 0], slot=1)
        >>> runs.price([0.95, 0.05]).worst_cost
        0.0
        """
        if self.k != 2:
            from causalcost.pricing.score_vector_price import price_vectors  # scipy's solvers

            if confidence is not None:
                raise ValidationError(
                    "confidence: the high-confidence case is priced for vectors measured on "
                    "other instances; on the log's own rows the worst and best case are exact")
            grid = np.ones((self.k, self.k)) - np.eye(self.k)
            return price_vectors(self.slot_matrix, self.offsets_by_class,
                                 self.candidate_by_class(scores),
                                 grid if costs is None else costs, labels=self.labels,
                                 score_range=self.score_range, fusion=self.fusion)
        kwargs = {} if costs is None else {"costs": costs}
        return price_scores(self.critical_by_class, self.candidate_by_class(scores),
                            same_instances=True, confidence=confidence,
                            score_range=self.score_range, **kwargs)

    def _label_names(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(self.labels, dtype=object)[positions]

    def to_frame(self) -> pd.DataFrame:
        """One row per log row: ``truth``, then two labels ``critical`` and ``observed`` (the
        slot's score), K labels ``observed[label]`` and ``offset[label]`` per label, then
        ``system`` (the label said as logged)."""
        said = self._says(self.observed_scores)
        if self.k == 2:
            return pd.DataFrame({
                "truth": np.where(self.truth, "P", "N"), "critical": self.critical,
                "observed": self.observed_scores, "system": np.where(said, "P", "N")},
                index=self.index)
        assert self.offsets is not None
        columns: dict[str, Any] = {"truth": self._label_names(self.classes)}
        for name, values in (("observed", self.observed_scores), ("offset", self.offsets)):
            columns.update({f"{name}[{label}]": values[:, c]
                            for c, label in enumerate(self.labels)})
        columns["system"] = self._label_names(said)
        return pd.DataFrame(columns, index=self.index)

    def to_dict(self) -> dict[str, Any]:
        """Plain values: the slot, the rule, sizes, the observed confusion and per class the
        sorted critical scores (two labels; ``-inf`` / ``inf`` as floats) or the offset
        vectors and the slot's matrix (K labels)."""
        out: dict[str, Any] = {
            "slot": self.slot, "models": list(self.models), "rule": self.rule,
            "labels": list(self.labels), "positive": self.positive,
            "n": dict(zip(self.labels, self.class_sizes)), "adjusted": self.adjusted}
        if self.k == 2:
            t_p, t_n = self.critical_by_class
            return {**out, "observed": self.observed.to_dict(),
                    "critical": {"P": t_p.tolist(), "N": t_n.tolist()}}
        return {**out, "observed": [list(row) for row in self.observed.matrix],
                "fusion": self.fusion, "matrix": self.slot_matrix.tolist(),
                "offsets": {str(label): rows.tolist()
                            for label, rows in zip(self.labels, self.offsets_by_class)}}

    def __repr__(self) -> str:
        def spread(t: np.ndarray) -> str:
            if not t.size:
                return "none"
            q = np.quantile(t, [0.0, 0.5, 1.0], method="lower")
            return "..".join(format_number(float(v)) for v in q)

        head = (f"ScoreRuns(slot={self.slot!r}, rule={self.rule!r}, "
                f"n={dict(zip(self.labels, self.class_sizes))}, observed={self.observed!r}")
        if self.k != 2:
            return f"{head}, K={self.k})"
        t_p, t_n = self.critical_by_class
        return f"{head}, critical P min..median..max {spread(t_p)}, N {spread(t_n)})"


def score_runs(data: Any, *, truth: Any, models: Sequence[str] | None = None, slot: Any,
               fusioner: str | Callable[[np.ndarray], Any] = "mean", threshold: float = 0.5,
               weights: Sequence[float] | None = None, bias: float = 0.0,
               positive: Any = None, score_range: tuple[float, float] = (0.0, 1.0),
               grid: int = 65) -> ScoreRuns:
    """A score slot's critical scores on a log: truth, every model's score, the slot.

    Parameters
    ----------
    data : pandas.DataFrame or array (rows, models)
        The log. A DataFrame: ``models`` name its score columns. An array: one column per
        model (``models`` then names them, ``m0 ..`` by default).
    truth : str or array-like
        The true class: a column of ``data``, or one value per row (a Series is aligned by
        index). Booleans (True is P), 0/1 (1 is P) or any two labels with ``positive=``.
    models : list of str
        The score columns, in the order of ``weights``.
    slot : str or int
        The slot's column (a name among ``models`` or a position).
    fusioner, threshold, weights, bias, score_range, grid
        The fusion rule: :func:`score_rule`.
    positive : optional
        The positive label of ``truth``.

    Returns
    -------
    ScoreRuns

    Raises
    ------
    DataError
        Unknown columns, NaN or non-numeric scores, a truth column that is not two labels,
        a truth of another length.
    ValidationError
        A bad rule (:func:`score_rule`).
    MonotonicityError
        A function that is not non-decreasing in the slot.

    Examples
    --------
    >>> frame = pd.DataFrame({"sick": [True, False], "x": [0.8, 0.3], "y": [0.1, 0.2]})
    >>> score_runs(frame, truth="sick", models=["x", "y"], slot="y").critical.round(9).tolist()
    [0.2, 0.7]
    >>> score_runs(frame, truth="sick", models=["x", "z"], slot="z")
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: models: no column 'z' in the log; its columns are ['sick', 'x', 'y']
    """  # noqa: E501
    if isinstance(data, pd.DataFrame):
        if models is None:
            raise DataError("models: name the score columns of the log (the slot among them), "
                            "e.g. models=['a', 'b', 'c']")
        if isinstance(models, str):
            raise InputTypeError("models must be a list of column names, not one string")
        columns = [str(c) for c in data.columns]
        for name in [*models, *([truth] if isinstance(truth, str) else [])]:
            if str(name) not in columns:
                what = "truth" if name is truth else "models"
                raise DataError(f"{what}: no column {name!r} in the log; its columns are "
                                f"{columns}")
        s, names = score_array(data[list(models)], score_range=as_score_range(score_range))
        index: pd.Index | None = data.index
        truth_values = data[truth] if isinstance(truth, str) else \
            align_by_index(truth, data.index, "truth", against="the log")
        truth_name = truth if isinstance(truth, str) else "truth"
    else:
        s, names = score_array(data, models, as_score_range(score_range))
        if len(names) != s.shape[1]:
            raise DataError(f"models: {len(names)} names for {s.shape[1]} score columns")
        index = None
        truth_values = align_by_index(truth, None, "truth", against="the scores")
        truth_name = "truth"
    return runs_from_scores(s, names, truth_values, str(truth_name), slot=slot, index=index,
                            positive=positive, fusioner=fusioner, threshold=threshold,
                            weights=weights, bias=bias, score_range=score_range, grid=grid)


def runs_from_scores(s: np.ndarray, names: tuple[str, ...], truth_values: Any, truth_name: str,
                     *, slot: Any, index: pd.Index | None, positive: Any,
                     provenance: dict[str, Any] | None = None, **rule: Any) -> ScoreRuns:
    """:class:`ScoreRuns` from a checked ``(rows, models)`` score array, on numpy: the rule's
    critical scores (closed form or bisection) made exact (:func:`exact_critical`)."""
    pos = slot_position(slot, names, s.shape[1])
    y, shown_positive = truth_votes(truth_values, truth_name, positive, s.shape[0])
    built = score_rule(n_models=s.shape[1], slot=pos, **rule)
    t, moved = exact_for_rule(built, s, pos, index)
    return ScoreRuns(slot=names[pos], models=names, rule=built.describe(), truth=_readonly(y),
                     critical=_readonly(t), observed_scores=_readonly(s[:, pos]), index=index,
                     adjusted=moved, positive=shown_positive,
                     score_range=as_score_range(rule.get("score_range")),
                     provenance=provenance or {})


def truth_votes(values: Any, name: str, positive: Any, rows: int) -> tuple[np.ndarray, Any]:
    """A score log's truth as booleans (True is P) and the positive label shown; a truth of
    another length, or of more than two labels (one score per model is binary), is refused."""
    values = np.asarray(values)
    if values.shape != (rows,):
        raise DataError(f"truth: {values.size} values for {rows} rows of scores; give "
                        "one true class per row")
    labels = () if values.dtype == bool else pd.unique(pd.Series(values).dropna())
    if len(labels) > 2:
        shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v)
                          for v in sorted(labels[:6], key=str))
        raise DataError(
            f"truth: column {name!r} holds {len(labels)} labels ({shown}"
            f"{', ...' if len(labels) > 6 else ''}); one score per model is a binary "
            "system (P, N): the slot's score is its score for the positive class. Map the "
            "truth to two labels (the positive one and the rest), or read each model's "
            "probability vector: labels=[...] with scores={label: '{model}_' + label} (the "
            "columns of each label)")
    y = votes_from_values(values, name=name, positive=positive)
    return y, positive if positive is not None else (True if values.dtype == bool else 1)
