"""Critical scores: where a score-fusing system switches to P, per instance of a log.

A binary system (labels P, N, positive first) fuses the real scores of its models; the slot's
output is a score ``s``. Fix one logged instance and every other model's score: the system's
output is a function of ``s`` alone. For a fusion rule that is non-decreasing in the slot's
score there is a **critical score** ``t`` in ``[-inf, +inf]`` with

    the system says P  iff  s >= t      (t = -inf: always P; t = +inf: never P)

so the system forced to score ``s`` says P on exactly the instances with ``t <= s``.
:func:`critical_scores` computes ``t`` per row:

* ``"mean"``: the weighted mean of the scores against a threshold, ``sum(w s) / sum(w) >= tau``
  (soft voting); every weight > 0, and ``t = (tau sum(w) - sum_{m != slot} w_m s_m) /
  w_slot``.
* ``"max"`` / ``"min"``: ``max(s) >= tau`` (``t = -inf`` where another score reaches ``tau``,
  else ``tau``) / ``min(s) >= tau`` (``t = +inf`` where another score is below ``tau``, else
  ``tau``).
* ``"logistic"``: a meta-model ``sigmoid(bias + sum w_m s_m) >= tau`` (stacking), ``w_slot >
  0`` and ``0 < tau < 1``; ``t = (logit(tau) - bias - sum_{m != slot} w_m s_m) / w_slot``.
* a function of the scores: ``f(S)`` on a ``(rows, models)`` array returns per row the
  system's fused score (compared ``>= threshold``) or its decision (booleans). It is checked
  non-decreasing in the slot on a grid of the stated ``score_range`` (a rule that is not is
  refused, naming a row and two scores where it fails), and ``t`` is found by bisection
  between the grid's last N and first P, to the resolution of float64.

**Exact at the observed scores.** A closed form is computed in floating point, so on a row
whose scores sit on the rule's boundary (a mean of 0.1 and 0.2 against 0.3) it can disagree
with the rule by one rounding. After computing ``t``, the rule itself is evaluated at the
observed scores on every row and ``t`` is moved to agree exactly: if the rule says P but
``s_obs < t``, ``t = s_obs``; if it says N but ``s_obs >= t``, ``t`` is the next float above
``s_obs``. So "the system says P iff ``s_obs >= t``" holds on every row of the log, with no
exception (:attr:`ScoreRuns.adjusted` counts the rows moved).

:func:`score_runs` reads a log (a pandas DataFrame or numpy arrays: truth, score columns, the
slot) into a :class:`ScoreRuns`: per class the critical scores and the slot's observed
scores; the pricing of a candidate's scores is :mod:`causalcost.pricing.scores`.
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
from causalcost.data.frames import align_by_index
from causalcost.data.labels import votes_from_values
from causalcost.display import format_number
from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.network.score_rules import SCORE_FUSIONERS, ScoreRule, _row_label, score_rule
from causalcost.pricing.scores import ScoreBound, price_scores

__all__ = ["SCORE_FUSIONERS", "ScoreRule", "ScoreRuns", "critical_scores", "score_rule",
           "score_runs"]


def critical_scores(scores: Any, slot: int | str, fusioner: str | Callable[[np.ndarray], Any]
                    = "mean", *, threshold: float = 0.5, weights: Sequence[float] | None = None,
                    bias: float = 0.0, score_range: tuple[float, float] = (0.0, 1.0),
                    grid: int = 65) -> np.ndarray:
    """Each row's critical score in the slot: the system says P iff the slot's score >= it.

    Parameters
    ----------
    scores : array (rows, models) or DataFrame
        Every model's score per row (a DataFrame: its columns are the models).
    slot : int or str
        The slot's column: a position, or a column name of a DataFrame.
    fusioner, threshold, weights, bias, score_range, grid
        The rule (:func:`score_rule`).

    Returns
    -------
    numpy.ndarray
        ``t`` per row in ``[-inf, +inf]``, exact at the observed scores: the rule evaluated on
        the row says P iff ``scores[row, slot] >= t[row]``.

    Raises
    ------
    DataError
        NaN or non-numeric scores, an unknown slot column.
    ValidationError
        A bad rule (:func:`score_rule`).
    MonotonicityError
        A function that is not non-decreasing in the slot's score (row and scores named).

    Examples
    --------
    The mean of 0.1, 0.2 and the slot against 0.3 ... 0.1 + 0.2 is not 0.3 in floating point,
    yet the rule at the observed scores and ``s >= t`` agree:

    >>> s = np.array([[0.1, 0.2, 0.6], [0.4, 0.4, 0.1]])
    >>> t = critical_scores(s, slot=2, threshold=0.3)
    >>> t.round(12).tolist(), (s[:, 2] >= t).tolist()
    ([0.6, 0.1], [True, True])
    >>> critical_scores(s, slot=0, fusioner="max", threshold=0.5).tolist()
    [-inf, 0.5]
    """
    s, names = _score_array(scores)
    pos = _slot_position(slot, names, s.shape[1])
    rule = score_rule(fusioner, threshold=threshold, weights=weights, bias=bias,
                      n_models=s.shape[1], slot=pos, score_range=score_range, grid=grid)
    index = scores.index if isinstance(scores, pd.DataFrame) else None
    return _exact(rule, s, pos, index)[0]


def _snapped(rule: ScoreRule, s: np.ndarray, slot: int, t: np.ndarray,
             steps: int = 64) -> np.ndarray:
    """Each finite critical score moved to the float at which the rule, computed in floating
    point, switches: the rule says P at ``t`` and N just below it. Rounding makes the rule a
    non-decreasing step of the float score whose step a closed form can miss by a few units in
    the last place; then "P iff score >= t" holds for every float score, not only near one."""
    t = t.copy()
    for _ in range(steps):
        finite = np.isfinite(t)
        if not finite.any():
            break
        at = np.where(finite, t, 0.0)
        below = np.nextafter(at, -np.inf)
        up = finite & ~rule.decide_at(s, slot, at)  # N at t: the step is higher
        down = finite & ~up & rule.decide_at(s, slot, below)  # P just below t: lower
        if not (up.any() or down.any()):
            break
        t[up] = np.nextafter(t[up], np.inf)
        t[down] = below[down]
    return t


def _exact(rule: ScoreRule, s: np.ndarray, slot: int, index: Any) -> tuple[np.ndarray, int]:
    """The critical scores made to agree with the rule at the observed scores, and the number
    of rows moved."""
    t = _snapped(rule, s, slot, np.array(rule.critical(s, slot, index), dtype=float))
    says = rule.decide(s)
    obs = s[:, slot]
    low = says & (obs < t)       # the rule says P: t may not exceed the observed score
    high = ~says & (obs >= t)    # the rule says N: t must exceed it
    t[low] = obs[low]
    t[high] = np.nextafter(obs[high], np.inf)
    return t, int(low.sum() + high.sum())


def _score_array(scores: Any, names: Sequence[str] | None = None
                 ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The scores as a float (rows, models) array and the models' names; NaN refused."""
    if isinstance(scores, pd.DataFrame):
        names = tuple(str(c) for c in scores.columns)
        try:
            s = scores.to_numpy(dtype=float)
        except (TypeError, ValueError):
            bad = [str(c) for c in scores.columns
                   if not pd.api.types.is_numeric_dtype(scores[c])]
            raise DataError(f"score columns must be numeric; {bad} are not: give each model's "
                            "score of the positive class as a number") from None
        index: Any = scores.index
    else:
        try:
            s = np.asarray(scores, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"scores must be numbers, one column per model; cannot read them "
                            f"({exc})") from None
        if s.ndim != 2:
            raise DataError(f"scores must be a 2-dimensional array (rows, models), got shape "
                            f"{s.shape}")
        names = tuple(names) if names is not None else tuple(f"m{i}" for i in
                                                             range(s.shape[1]))
        index = None
    bad = np.isnan(s)
    if bad.any():
        row, col = (int(v) for v in np.argwhere(bad)[0])
        label = _row_label(index, row)
        raise DataError(f"score column {names[col]!r} is NaN on row {label!r} "
                        f"({int(bad[:, col].sum())} row(s)); drop or impute those rows: a "
                        "missing score has no critical score")
    return s, names


def _slot_position(slot: Any, names: tuple[str, ...], m: int) -> int:
    if isinstance(slot, (int, np.integer)) and not isinstance(slot, bool):
        if not 0 <= slot < m:
            raise DataError(f"slot: column position {slot} is out of range for {m} score "
                            "columns")
        return int(slot)
    if str(slot) not in names:
        raise DataError(f"slot: {slot!r} is not one of the score columns {list(names)}; name "
                        "the slot's column among models")
    return names.index(str(slot))


# -------------------------------------------------------------------------- the runs
def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class ScoreRuns:
    """A score slot's critical scores on a log, per row and per class (P, N).

    The system forced to score ``s`` says P on exactly the rows with ``critical <= s``; at
    the observed slot scores this agrees exactly with the fusion rule. Build it with
    :func:`score_runs`.

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
    score_range : (float, float) or None
        For a rule given as a function: the scores the critical scores are exact for.
    labels : tuple of str
        ``("P", "N")``.

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
    score_range: tuple[float, float] | None = None
    labels: tuple[str, str] = field(default=CLASSES)

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
        values = align_by_index(scores, self.index, what, against="the log")
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as exc:
            raise DataError(f"{what} must be numbers, one per row of the log ({exc})") from None
        if arr.shape != self.truth.shape:
            raise DataError(f"{what}: {arr.size} scores for {self.truth.size} rows of the log; "
                            "give the candidate's score on every row, in the log's order (or "
                            "as a Series on its index)")
        if not np.isfinite(arr).all():
            row = int(np.argwhere(~np.isfinite(arr))[0][0])
            label = _row_label(self.index, row)
            raise DataError(f"{what} must be finite: row {label!r} holds {arr[row]!r}")
        return arr

    def with_candidate(self, scores: Any) -> Confusion:
        """The real system confusion with a candidate's scores on the log's rows (a Series is
        aligned by index; other Series are refused): P where ``score >= critical``."""
        return self._confusion(self._aligned(scores) >= self.critical)

    def candidate_by_class(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        """A candidate's scores on the log's rows, split by class (P, N)."""
        arr = self._aligned(scores)
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
                            same_instances=True, confidence=confidence, **kwargs)

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
        s, names = _score_array(data[list(models)])
        index: pd.Index | None = data.index
        truth_values = data[truth] if isinstance(truth, str) else \
            align_by_index(truth, data.index, "truth", against="the log")
        truth_name = truth if isinstance(truth, str) else "truth"
    else:
        s, names = _score_array(data, models)
        if len(names) != s.shape[1]:
            raise DataError(f"models: {len(names)} names for {s.shape[1]} score columns")
        index = None
        truth_values = align_by_index(truth, None, "truth", against="the scores")
        truth_name = "truth"
    pos = _slot_position(slot, names, s.shape[1])
    values = np.asarray(truth_values)
    if values.shape != (s.shape[0],):
        raise DataError(f"truth: {values.size} values for {s.shape[0]} rows of scores; give "
                        "one true class per row")
    y = votes_from_values(values, name=str(truth_name), positive=positive)
    rule = score_rule(fusioner, threshold=threshold, weights=weights, bias=bias,
                      n_models=s.shape[1], slot=pos, score_range=score_range, grid=grid)
    t, moved = _exact(rule, s, pos, index)
    shown_positive = positive if positive is not None else (
        True if values.dtype == bool else 1)
    return ScoreRuns(slot=names[pos], models=names, rule=rule.describe(), truth=_readonly(y),
                     critical=_readonly(t), observed_scores=_readonly(s[:, pos]), index=index,
                     adjusted=moved, positive=shown_positive,
                     score_range=rule.score_range)
