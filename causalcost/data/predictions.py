"""A candidate's confusion matrix from its predictions, or from scores and a threshold.

The same label rules as the forced runs (:mod:`causalcost.data.labels`): bool, 0/1 or strings
with ``positive=``; counted by one group-by on the engine holding the data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.data.counting import count_votes
from causalcost.data.frames import as_frame, fills_nulls, require_columns
from causalcost.data.labels import label_rule, votes_from_values
from causalcost.errors import DataError

__all__ = ["confusion_from_predictions", "confusion_at_threshold"]


def confusion_from_predictions(
    data: Any, truth: str, prediction: str, *, positive: Any = None
) -> Confusion:
    """Count a model's outcomes from a truth column and a prediction column of ``data``.

    Parameters
    ----------
    data : data frame, mapping or path
        As in :func:`causalcost.forced_runs` (any engine; one group-by, counts come back).
    truth, prediction : str
        Column names.
    positive : optional
        The positive label of string columns (bool and 0/1 columns: ``True``/``1``).

    Examples
    --------
    >>> confusion_from_predictions({"y": ["sick", "sick", "well"], "m": ["sick", "well", "well"]},
    ...                            "y", "m", positive="sick")
    Confusion(tp=1, fn=1, fp=0, tn=1)
    """
    frame, _ = as_frame(data)
    dtypes = require_columns(frame, [truth, prediction])
    rules = [label_rule(c, dtypes[c], positive) for c in (truth, prediction)]
    counts = count_votes(frame, rules, [r.vote(fill=fills_nulls(frame)) for r in rules])
    (tp, fn), (fp, tn) = counts.tolist()
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)


def confusion_at_threshold(
    y_true: Any, scores: Any, threshold: float, *, positive: Any = None
) -> Confusion:
    """Count outcomes of predicting positive where ``scores >= threshold``.

    Parameters
    ----------
    y_true : array-like
        True labels (bool, 0/1, or strings with ``positive=``).
    scores : array-like of float
        One finite score per instance; higher means more positive.
    threshold : float
        Predict positive where ``score >= threshold``.
    positive : optional
        The positive label of ``y_true`` when it holds strings.

    Examples
    --------
    >>> confusion_at_threshold([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1], 0.5)
    Confusion(tp=1, fn=1, fp=1, tn=1)
    """
    truth = votes_from_values(y_true, "y_true", positive)
    try:
        values = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise DataError("scores must be numbers (one per instance)") from None
    if values.ndim != 1 or len(values) != len(truth):
        raise DataError(f"scores must be one number per instance: {len(truth)} labels, "
                        f"scores of shape {values.shape}")
    bad = ~np.isfinite(values)
    if bad.any():
        shown = sorted(set(values[bad].tolist()), key=str)[:5]
        raise DataError(f"scores must be finite; found {shown} in {int(bad.sum())} row(s)")
    if isinstance(threshold, bool) or not np.isfinite(float(threshold)):
        raise DataError(f"threshold must be a finite number, got {threshold!r}")
    predicted = values >= float(threshold)
    code = (~truth).astype(np.int64) * 2 + (~predicted).astype(np.int64)
    tp, fn, fp, tn = np.bincount(code, minlength=4).tolist()
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
