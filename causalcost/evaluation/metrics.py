"""The lecture notes' measures of a candidate, to show beside what it costs the system.

With ``a = TP, b = FN, c = FP, d = TN`` (notes 001, "Misure cost-sensitive")::

    accuracy           = (a + d) / (a + b + c + d)
    precision p        = a / (a + c)
    recall r           = a / (a + b)
    F-measure F        = 2 r p / (r + p) = 2a / (2a + b + c)
    weighted accuracy  = (w1 a + w4 d) / (w1 a + w2 b + w3 c + w4 d)

plus specificity ``d / (c + d)`` and the F-beta measure
``(1 + beta^2) p r / (beta^2 p + r)``. The notes' point is that these disagree with cost:
precision ignores ``b`` and ``d``, recall ignores ``c`` and ``d``, F ignores ``d``; the system
cost of a candidate (:func:`~causalcost.evaluation.report.evaluate`) prices every cell by what it
does to the system, and can rank candidates in another order than any of them.

The numbers are computed from the counts directly (the same definitions as scikit-learn's
``precision_score``, ``recall_score``, ``fbeta_score`` and ``accuracy_score``; the weighted
accuracy is ``accuracy_score`` with each instance weighted by its cell's weight). A ratio with
a zero denominator is undefined and given as NaN (scikit-learn's ``zero_division=np.nan``).

Examples
--------
The notes' models M1 and M2 (80 % and 90 % accuracy):

>>> from causalcost.confusion import Confusion
>>> metrics_frame({"M1": Confusion(150, 40, 60, 250), "M2": Confusion(250, 45, 5, 200)})[
...     ["accuracy", "precision", "recall"]].round(3)
    accuracy  precision  recall
M1       0.8      0.714   0.789
M2       0.9      0.980   0.847
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, Confusion, _check_real
from causalcost.errors import InputTypeError, ValidationError

__all__ = ["METRIC_COLUMNS", "candidate_metrics", "metrics_frame"]

#: The measures, in the order :func:`candidate_metrics` gives them.
METRIC_COLUMNS: tuple[str, ...] = ("accuracy", "weighted_accuracy", "precision", "recall",
                                   "specificity", "f1", "f_beta")


def _weights(weights: Any) -> np.ndarray:
    """The four cell weights ``(w1, w2, w3, w4)`` for tp, fn, fp, tn; all 1 by default."""
    if weights is None:
        return np.ones(4)
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(CELLS)
        if unknown or len(weights) != 4:
            raise ValidationError(f"weights must name the four cells tp, fn, fp, tn, got keys "
                                  f"{sorted(map(str, weights))}")
        values = [weights[c] for c in CELLS]
    elif isinstance(weights, Sequence) and not isinstance(weights, str) and len(weights) == 4:
        values = list(weights)
    else:
        raise InputTypeError("weights must be a mapping of tp, fn, fp, tn to weights or four "
                             f"weights in that order (notes' w1..w4), got {weights!r}")
    for cell, v in zip(CELLS, values):
        _check_real(f"weights[{cell!r}]", v)
    w = np.array(values, dtype=float)
    if not np.isfinite(w).all() or (w < 0).any() or not (w > 0).any():
        raise ValidationError(f"weights must be finite, >= 0 and not all 0, got {w.tolist()}")
    return w


def _beta(beta: Any) -> float:
    _check_real("beta", beta)
    b = float(beta)
    if not (np.isfinite(b) and b > 0):
        raise ValidationError(f"beta must be a finite number > 0 (F1 is beta = 1), got {beta!r}")
    return b


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _metrics(m: np.ndarray, w: np.ndarray, beta: float) -> np.ndarray:
    """The :data:`METRIC_COLUMNS` for an (n, 4) array of tp, fn, fp, tn."""
    tp, fn, fp, tn = m.T
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    b2 = beta * beta
    return np.column_stack([
        _ratio(tp + tn, tp + fn + fp + tn),
        _ratio(w[0] * tp + w[3] * tn, w[0] * tp + w[1] * fn + w[2] * fp + w[3] * tn),
        precision,
        recall,
        _ratio(tn, fp + tn),
        _ratio(2 * tp, 2 * tp + fn + fp),
        _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp),
    ])


def candidate_metrics(confusion: Confusion, *, weights: Any = None,
                      beta: float = 1.0) -> pd.Series:
    """Accuracy, weighted accuracy, precision, recall, specificity, F1 and F-beta of a candidate.

    Parameters
    ----------
    confusion : Confusion
        The candidate's confusion.
    weights : mapping or sequence of 4 floats, optional
        The notes' ``w1..w4`` for ``tp, fn, fp, tn`` in the weighted accuracy
        ``(w1 a + w4 d) / (w1 a + w2 b + w3 c + w4 d)``; all 1 (plain accuracy) by default.
    beta : float
        For ``f_beta`` (recall counts ``beta`` times as much as precision).

    Returns
    -------
    pandas.Series
        Indexed by :data:`METRIC_COLUMNS`; NaN where a denominator is 0. ``attrs`` holds
        ``beta`` and ``weights``.

    Raises
    ------
    InputTypeError
        If ``confusion`` is not a Confusion or a weight is not a number.
    ValidationError
        If the weights are negative, non-finite or all 0, or ``beta <= 0``.

    Examples
    --------
    >>> m = candidate_metrics(Confusion(tp=150, fn=40, fp=60, tn=250),
    ...                       weights={"tp": 1, "fn": 100, "fp": 1, "tn": 1})
    >>> m[["accuracy", "weighted_accuracy", "f1"]].round(4).tolist()
    [0.8, 0.0897, 0.75]
    """
    if not isinstance(confusion, Confusion):
        raise InputTypeError(f"confusion must be a Confusion, got {type(confusion).__name__}")
    w, b = _weights(weights), _beta(beta)
    row = _metrics(np.array([confusion.cells()], dtype=float), w, b)[0]
    out = pd.Series(row, index=list(METRIC_COLUMNS), dtype=float)
    out.attrs.update(beta=b, weights=dict(zip(CELLS, w.tolist())))
    return out


def metrics_frame(candidates: Any, *, weights: Any = None, beta: float = 1.0) -> pd.DataFrame:
    """:func:`candidate_metrics` for many candidates at once (vectorised).

    Parameters
    ----------
    candidates : mapping of name to Confusion, DataFrame or array of shape (n, 4)
        A frame needs columns ``tp, fn, fp, tn`` (e.g. :func:`~causalcost.compare`'s input);
        its index is kept.
    weights, beta
        As in :func:`candidate_metrics`.

    Returns
    -------
    pandas.DataFrame
        One row per candidate, columns :data:`METRIC_COLUMNS`.

    Examples
    --------
    >>> metrics_frame([[1, 0, 0, 1], [0, 1, 1, 0]])["f1"].tolist()
    [1.0, 0.0]
    """
    w, b = _weights(weights), _beta(beta)
    index: Any = None
    if isinstance(candidates, Mapping):
        index = list(candidates)
        for name, c in candidates.items():
            if not isinstance(c, Confusion):
                raise InputTypeError(f"candidate {name!r} must be a Confusion, got "
                                     f"{type(c).__name__}")
        m = np.array([c.cells() for c in candidates.values()], dtype=float).reshape(-1, 4)
    elif isinstance(candidates, pd.DataFrame):
        missing = [c for c in CELLS if c not in candidates.columns]
        if missing:
            raise ValidationError(f"the candidates frame lacks column(s) {missing}")
        index = candidates.index
        m = candidates[list(CELLS)].to_numpy(dtype=float)
    else:
        try:
            m = np.asarray(candidates, dtype=float)
        except (TypeError, ValueError):
            raise InputTypeError("candidates must be a mapping of name to Confusion, a frame "
                                 "with columns tp, fn, fp, tn or an (n, 4) array") from None
        if m.ndim != 2 or m.shape[1] != 4:
            raise ValidationError(f"candidates must have shape (n, 4), got {m.shape}")
    if not np.isfinite(m).all() or (m < 0).any():
        raise ValidationError("candidate counts must be finite and >= 0")
    return pd.DataFrame(_metrics(m, w, b), columns=list(METRIC_COLUMNS), index=index)
