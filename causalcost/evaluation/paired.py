"""Two candidates on the same instances: is one cheaper for the system?

Cost function 1 prices every instance the candidate sees: an instance of class ``c`` costs the
system ``M[c, hit]`` or ``M[c, mistake]`` in expectation, ``M`` the sheet's expected cost
matrix. Two candidates measured on the same instances differ, instance by instance, only
where one is right and the other wrong, so their difference in expected system cost is a sum
of paired per-instance differences. :func:`paired_cost_difference` gives it with a paired
interval from a bootstrap over instances (a multinomial redraw of the per-class 2 x 2 table of
(A right?, B right?), which is what resampling instances does) and the probability, under
that resampling, that A is the cheaper one. The sheet's rates are held fixed: both candidates
share them, and their uncertainty moves both costs together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import html_table
from causalcost.errors import ValidationError
from causalcost.sheet.costsheet import CostSheet

__all__ = ["PairedDifference", "paired_cost_difference"]


@dataclass(frozen=True)
class PairedDifference:
    """Expected system cost of candidate A minus that of B, on the same instances.

    Attributes
    ----------
    difference : float
        ``Eval1(A) - Eval1(B)`` on these instances (negative: A is cheaper).
    low, high : float
        The paired bootstrap interval at ``confidence``.
    probability_a_cheaper : float
        Share of bootstrap replicates in which A costs less than B.
    confidence : float
    n : int
        Instances.
    discordant : int
        Instances on which exactly one of the two candidates is right.
    """

    difference: float
    low: float
    high: float
    probability_a_cheaper: float
    confidence: float
    n: int
    discordant: int

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """One row with every attribute and ``significant``."""
        return pd.DataFrame([{**self.__dict__, "significant": self.significant}])

    def __repr__(self) -> str:
        verdict = "significant" if self.significant else "not significant"
        return (f"PairedDifference(Eval1(A) - Eval1(B) = {self.difference:.6g} "
                f"[{self.low:.6g}, {self.high:.6g}] at {self.confidence:.0%}, {verdict}; "
                f"P(A cheaper) = {self.probability_a_cheaper:.3f}; n={self.n}, "
                f"discordant={self.discordant})")


def _as_bool(values: Any, name: str, positive: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    labels = set(np.unique(arr).tolist())
    if positive is None:
        if labels <= {0, 1}:
            return arr == 1
        raise ValidationError(f"{name} holds labels {sorted(map(str, labels))[:5]}: name the "
                              "positive one with positive=...")
    others = labels - {positive}
    if len(others) > 1:
        raise ValidationError(f"{name} holds more than two labels: {sorted(map(str, labels))[:5]}")
    return arr == positive


def paired_cost_difference(
    sheet: CostSheet,
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    positive: Any = None,
    confidence: float = 0.95,
    replicates: int = 4000,
    seed: int = 0,
) -> PairedDifference:
    """Compare two candidates' expected system cost on the same instances.

    Parameters
    ----------
    sheet : CostSheet
        The slot's sheet (its expected cost matrix prices each instance).
    y_true, pred_a, pred_b : array-like
        True classes and the two candidates' predictions on the same instances (bool, 0/1 or
        labels with ``positive`` naming the positive one).
    positive : label, optional
        The positive label (needed unless the arrays are bool or 0/1).
    confidence, replicates, seed
        Of the paired bootstrap.

    Returns
    -------
    PairedDifference

    Examples
    --------
    >>> import numpy as np, causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(600) < 1 / 3
    >>> a = np.where(rng.random(600) < 0.9, y, ~y)      # right 90 % of the time
    >>> b = np.where(rng.random(600) < 0.6, y, ~y)      # right 60 % of the time
    >>> d = paired_cost_difference(sheet, y, a, b)
    >>> d.difference < 0, d.significant, d.probability_a_cheaper > 0.99
    (True, True, True)
    """
    if not isinstance(sheet, CostSheet):
        raise ValidationError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    if isinstance(confidence, bool) or not 0 < confidence < 1:
        raise ValidationError(f"confidence ({confidence!r}) must lie strictly between 0 and 1")
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise ValidationError(f"replicates ({replicates!r}) must be a positive integer")
    y = _as_bool(y_true, "y_true", positive)
    a, b = _as_bool(pred_a, "pred_a", positive), _as_bool(pred_b, "pred_b", positive)
    if not len(y) == len(a) == len(b) or len(y) == 0:
        raise ValidationError(f"y_true, pred_a and pred_b must have the same, non-zero length; "
                              f"got {len(y)}, {len(a)} and {len(b)}")
    m = sheet.expected_cost_matrix
    cost = {True: (m.tp, m.fn), False: (m.tn, m.fp)}  # (hit, mistake) per class
    # per class, counts of (A right?, B right?) and each cell's cost difference A - B
    cells, deltas = [], []
    for cls in (True, False):
        rows = y == cls
        ra, rb = a[rows] == cls, b[rows] == cls
        hit, miss = cost[cls]
        for ar in (True, False):
            for br in (True, False):
                cells.append(int(np.sum((ra == ar) & (rb == br))))
                deltas.append((hit if ar else miss) - (hit if br else miss))
    counts, delta = np.array(cells), np.array(deltas, dtype=float)
    n = int(counts.sum())
    rng = np.random.default_rng(seed)
    boot = rng.multinomial(n, counts / n, size=replicates) @ delta
    tail = (1 - confidence) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    discordant = int(counts[[1, 2, 5, 6]].sum())
    return PairedDifference(difference=float(counts @ delta), low=float(low), high=float(high),
                            probability_a_cheaper=float(np.mean(boot < 0)),
                            confidence=float(confidence), n=n, discordant=discordant)
