"""A score log's runs: per row the critical score, the truth and the slot's observed score.

:class:`ScoreRuns` is what :func:`causalcost.forced_runs` with a score rule, :func:`score_runs`
(numpy arrays or a pandas DataFrame) and :func:`causalcost.ensemble_runs` return: the system
forced to a score ``s`` says P on exactly the rows whose critical score is at most ``s``
(:mod:`causalcost.data.critical_scores` computes them). It gives the forced runs at any score,
the system as logged, the real system with a candidate's scores in the slot, and the price of
a candidate (:mod:`causalcost.pricing.scores`).
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
from causalcost.pricing.scores import ScoreBound, price_scores
from causalcost.score_values import PROBABILITIES, as_score_range, read_scores

__all__ = ["ScoreRuns", "runs_from_scores", "score_runs", "truth_votes"]


def _readonly(a: np.ndarray, copy: bool = True) -> np.ndarray:
    """``a`` read-only: a copy, or ``a`` itself (``copy=False``, for an array just made)."""
    a = np.array(a) if copy else a
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class ScoreRuns:
    """A score slot's critical scores on a log, per row and per class (P, N).

    The system forced to score ``s`` says P on exactly the rows with ``critical <= s``; at
    the observed slot scores this agrees exactly with the fusion rule. Build it with
    :func:`causalcost.forced_runs` and a score fusioner (any engine), or :func:`score_runs`
    (numpy arrays, pandas).

    Attributes
    ----------
    slot : str
        The slot's column.
    models : tuple of str
        Every score column, the slot among them.
    rule : str
        The fusion rule in words.
    truth : numpy.ndarray of bool
        Per row: is it of class P.
    critical : numpy.ndarray of float
        Per row: the critical score (``-inf`` always P, ``+inf`` never P).
    observed_scores : numpy.ndarray of float
        Per row: the slot's observed score.
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
    labels : tuple of str
        ``("P", "N")``.
    provenance : dict
        Where the log came from (read by :func:`causalcost.forced_runs`): the engine, whether
        it was lazy, the file, the rows, the columns and the rule.

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
    critical: np.ndarray
    observed_scores: np.ndarray
    index: pd.Index | None = None
    adjusted: int = 0
    positive: Any = True
    score_range: tuple[float, float] = PROBABILITIES
    labels: tuple[str, str] = field(default=CLASSES)
    provenance: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "score_range", as_score_range(self.score_range))

    @cached_property
    def critical_by_class(self) -> tuple[np.ndarray, np.ndarray]:
        """Per class (P, N): the sorted critical scores."""
        return (_readonly(np.sort(self.critical[self.truth])),
                _readonly(np.sort(self.critical[~self.truth])))

    @cached_property
    def observed_by_class(self) -> tuple[np.ndarray, np.ndarray]:
        """Per class (P, N): the slot's observed scores, in row order."""
        return (_readonly(self.observed_scores[self.truth]),
                _readonly(self.observed_scores[~self.truth]))

    @property
    def class_sizes(self) -> tuple[int, int]:
        """Rows per class (P, N)."""
        n_p = int(self.truth.sum())
        return n_p, int(self.truth.size - n_p)

    def _confusion(self, says: np.ndarray) -> Confusion:
        p, n = self.truth, ~self.truth
        tp, fp = int((says & p).sum()), int((says & n).sum())
        n_p, n_n = self.class_sizes
        return Confusion(tp=tp, fn=n_p - tp, fp=fp, tn=n_n - fp)

    @property
    def observed(self) -> Confusion:
        """The system's confusion as logged (the slot at its observed scores)."""
        return self._confusion(self.observed_scores >= self.critical)

    def forced_at(self, score: float) -> Confusion:
        """The system's confusion with the slot forced to ``score`` on every row: P on exactly
        the rows whose critical score is at most ``score``."""
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
        return read_scores(scores, what, rows=self.truth.size, index=self.index,
                           against="the log", score_range=self.score_range)

    def with_candidate(self, scores: Any, what: str = "scores") -> Confusion:
        """The real system confusion with a candidate's scores on the log's rows (a Series is
        aligned by index; other Series are refused): P where ``score >= critical``."""
        return self._confusion(self._aligned(scores, what) >= self.critical)

    def candidate_by_class(self, scores: Any, what: str = "scores"
                           ) -> tuple[np.ndarray, np.ndarray]:
        """A candidate's scores on the log's rows, split by class (P, N)."""
        arr = self._aligned(scores, what)
        return arr[self.truth], arr[~self.truth]

    def price(self, scores: Any, costs: Any = None, *, confidence: float | None = None
              ) -> ScoreBound:
        """Price a candidate from its scores on the log's own rows (same instances):
        :func:`~causalcost.pricing.scores.price_scores`.

        >>> runs = score_runs(np.array([[0.2, 0.9], [0.7, 0.1]]), truth=[1, 0], slot=1)
        >>> runs.price([0.95, 0.05]).worst_cost
        0.0
        """
        kwargs = {} if costs is None else {"costs": costs}
        return price_scores(self.critical_by_class, self.candidate_by_class(scores),
                            same_instances=True, confidence=confidence,
                            score_range=self.score_range, **kwargs)

    def to_frame(self) -> pd.DataFrame:
        """One row per log row: ``truth`` (P/N), ``critical``, ``observed`` (the slot's
        score) and ``system`` (P/N as logged)."""
        return pd.DataFrame({
            "truth": np.where(self.truth, "P", "N"), "critical": self.critical,
            "observed": self.observed_scores,
            "system": np.where(self.observed_scores >= self.critical, "P", "N")},
            index=self.index)

    def to_dict(self) -> dict[str, Any]:
        """Plain values: the slot, the rule, sizes, the observed confusion and the sorted
        critical scores per class (``-inf`` / ``inf`` as floats)."""
        t_p, t_n = self.critical_by_class
        return {"slot": self.slot, "models": list(self.models), "rule": self.rule,
                "labels": list(self.labels), "positive": self.positive,
                "n": dict(zip(self.labels, self.class_sizes)),
                "observed": self.observed.to_dict(), "adjusted": self.adjusted,
                "critical": {"P": t_p.tolist(), "N": t_n.tolist()}}

    def __repr__(self) -> str:
        def spread(t: np.ndarray) -> str:
            if not t.size:
                return "none"
            q = np.quantile(t, [0.0, 0.5, 1.0], method="lower")
            return "..".join(format_number(float(v)) for v in q)

        t_p, t_n = self.critical_by_class
        return (f"ScoreRuns(slot={self.slot!r}, rule={self.rule!r}, "
                f"n={dict(zip(self.labels, self.class_sizes))}, observed={self.observed!r}, "
                f"critical P min..median..max {spread(t_p)}, N {spread(t_n)})")


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
    another length, or of more than two labels (score systems are binary), is refused."""
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
            f"{', ...' if len(labels) > 6 else ''}); a score system is binary (P, N): the "
            "slot's score is its score for the positive class. Map the truth to two labels "
            "(the positive one and the rest), or count votes with labels=[...]")
    y = votes_from_values(values, name=name, positive=positive)
    return y, positive if positive is not None else (True if values.dtype == bool else 1)
