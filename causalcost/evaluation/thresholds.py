"""Sweep a scored candidate's threshold and price every operating point for the system.

A candidate for the slot is usually a scoring model whose owner picks a threshold. The
threshold best for the model alone (maximum accuracy, Youden's J) is in general not the one
best for the system: an AND system punishes the slot's false negatives, an OR system its false
positives, by amounts the cost sheet knows. :func:`system_thresholds` computes, at every
threshold, the candidate's confusion, its ROC point and the sheet's expected system cost
(cost function 1, ``Eval1``) with the worst and best case, and returns the thresholds that
minimise the expected and the worst-case cost beside the model-only optimum.

Threshold semantics, everywhere in this module: **predict positive when score >= threshold**
(scikit-learn's ``roc_curve`` and ``FixedThresholdClassifier`` use the same rule). By default
the thresholds are every distinct score and ``+inf`` (predict nothing positive), in decreasing
order, so the rows are the points of ``roc_curve(..., drop_intermediate=False)``.

The sweep is vectorised: the scores of each class are sorted once, the counts at every threshold
come from binary searches, and the costs from the closed forms over all rows at once
(:func:`~causalcost.pricing.bounds_many.bound_many_from_rates`, or
:func:`~causalcost.pricing.bounds_many.bound_many` when the sheet's forced runs were counted on
these very instances, declared with ``same_instances=True``), so the numbers are those
:func:`~causalcost.evaluation.report.evaluate` gives for each threshold's confusion.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> sweep = system_thresholds(sheet, [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.4, 0.2])
>>> sweep.frame[["threshold", "tp", "fp", "expected_cost", "worst_cost", "accuracy"]].round(3)
   threshold  tp  fp  expected_cost  worst_cost  accuracy
0        inf   0   0           15.0        15.0     0.500
1        0.9   1   0           11.0        13.0     0.667
2        0.8   2   0            7.0         8.0     0.833
3        0.7   2   1            7.2         8.6     0.667
4        0.6   3   1            3.2         3.6     0.833
5        0.4   3   2            3.4         3.6     0.667
6        0.2   3   3            3.6         3.6     0.500
>>> print(sweep)
Candidate for slot 'clinical_history': 7 thresholds, AUC 0.8889 (positive when score >= threshold)
chosen by                                     threshold   expected      worst       best  accuracy
lowest expected system cost (Eval1)                 0.6        3.2        3.6          3    0.8333
lowest worst-case system cost                       0.6        3.2        3.6          3    0.8333
highest accuracy (model only)                       0.8          7          8          5    0.8333
highest Youden's J = TPR - FPR (model only)         0.6        3.2        3.6          3    0.8333

The AND system punishes the slot's false negatives: of the two thresholds of highest accuracy,
the one that misses a positive costs the system more than twice as much in the worst case.
"""

from __future__ import annotations

import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.data.labels import votes_from_values
from causalcost.display import html_table
from causalcost.errors import DataError, InputTypeError
from causalcost.evaluation.constant_slot import (
    ConstantSlotWarning,
    constant_slot_notes,
    constant_vote,
)
from causalcost.evaluation.evaluating import evaluate
from causalcost.pricing.bounds_many import bound_many, bound_many_from_rates
from causalcost.pricing.costs import ModelCostMatrix
from causalcost.sheet.costsheet import CostSheet

__all__ = ["OperatingPoint", "ThresholdSweep", "SWEEP_COLUMNS", "system_thresholds"]

#: Columns of :attr:`ThresholdSweep.frame`.
SWEEP_COLUMNS: tuple[str, ...] = ("threshold", "tp", "fn", "fp", "tn", "expected_cost",
                                  "worst_cost", "best_cost", "fpr", "tpr", "accuracy")

#: What each operating point optimises, as reports name it.
CRITERIA: dict[str, str] = {
    "expected": "lowest expected system cost (Eval1)",
    "worst": "lowest worst-case system cost",
    "accuracy": "highest accuracy (model only)",
    "youden": "highest Youden's J = TPR - FPR (model only)",
}


@dataclass(frozen=True)
class OperatingPoint:
    """One threshold of a sweep: the candidate's confusion there and what it costs the system.

    Attributes
    ----------
    criterion : str
        Why it was chosen: ``"expected"``, ``"worst"``, ``"accuracy"`` or ``"youden"``
        (:data:`CRITERIA`).
    threshold : float
        Predict positive when ``score >= threshold``.
    confusion : Confusion
        The candidate's confusion at the threshold.
    expected_cost, worst_cost, best_cost : float
        The system cost by cost function 1 (``Eval1``), and its worst and best case.
    accuracy, fpr, tpr : float
        The candidate's own accuracy and ROC point.
    constant : {"P", "N"} or None
        ``"P"`` / ``"N"`` when the threshold makes the slot vote that label on every instance
        of the evaluation set (the system is then the system with the slot forced to it,
        :mod:`causalcost.evaluation.constant_slot`), else ``None``.
    """

    criterion: str
    threshold: float
    confusion: Confusion
    expected_cost: float
    worst_cost: float
    best_cost: float
    accuracy: float
    fpr: float
    tpr: float
    constant: str | None = None

    @property
    def youden(self) -> float:
        """Youden's J, ``tpr - fpr``."""
        return self.tpr - self.fpr

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field, the confusion as ``{"tp", "fn", "fp", "tn"}``."""
        return {"criterion": self.criterion, "threshold": self.threshold,
                **self.confusion.to_dict(), "expected_cost": self.expected_cost,
                "worst_cost": self.worst_cost, "best_cost": self.best_cost,
                "accuracy": self.accuracy, "fpr": self.fpr, "tpr": self.tpr,
                "constant": self.constant}

    def __repr__(self) -> str:
        return (f"OperatingPoint(criterion={self.criterion!r}, threshold={self.threshold:.6g}, "
                f"expected_cost={_fmt(self.expected_cost)}, worst_cost={_fmt(self.worst_cost)}, "
                f"best_cost={_fmt(self.best_cost)}, accuracy={self.accuracy:.4g}"
                + (f", constant={self.constant!r})" if self.constant else ")"))


@dataclass(frozen=True, eq=False)
class ThresholdSweep:
    """Every threshold of a scored candidate, priced for the system, and the ones to pick.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per threshold, decreasing (columns :data:`SWEEP_COLUMNS`): the candidate's
        ``tp, fn, fp, tn`` when predicting positive where ``score >= threshold``, the system's
        ``expected_cost`` (``Eval1``), ``worst_cost`` and ``best_cost``, the ROC point
        ``fpr, tpr`` and the candidate's ``accuracy``.
    expected_optimum, worst_case_optimum : OperatingPoint
        The thresholds of lowest expected and lowest worst-case system cost (ties: the lower
        other system cost, then the higher threshold).
    model_only_optimum : OperatingPoint
        **The** model-only point: highest accuracy (ties: the higher threshold).
    youden_optimum : OperatingPoint
        The other usual model-only point: highest Youden's J.
    auc : float
        Area under the ROC curve (scikit-learn's ``roc_auc_score``).
    roc : tuple of three arrays
        ``(fpr, tpr, thresholds)`` from scikit-learn's ``roc_curve`` (its default thinning).
    positives, negatives : int
        The class sizes of the evaluation set.
    expected_cost_matrix : ModelCostMatrix
        Cost function 1 of the sheet: the iso-cost lines on the ROC have slope
        :attr:`iso_cost_slope`.
    slot, assumption, form, sheet_digest : str
        As in :class:`~causalcost.evaluation.report.Report`.
    warnings : tuple of str
        What :func:`~causalcost.evaluation.report.evaluate` warns about for these class sizes.
    constant_slot : tuple of str
        When chosen points make the slot vote one label on every instance, what the system
        then is (:func:`~causalcost.evaluation.constant_slot.constant_slot_notes`); also raised as
        :class:`~causalcost.evaluation.constant_slot.ConstantSlotWarning`.
    """

    frame: pd.DataFrame = field(repr=False)
    expected_optimum: OperatingPoint
    worst_case_optimum: OperatingPoint
    model_only_optimum: OperatingPoint
    youden_optimum: OperatingPoint
    auc: float
    roc: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False)
    positives: int
    negatives: int
    expected_cost_matrix: ModelCostMatrix = field(repr=False)
    slot: str = ""
    assumption: str = "monotone"
    form: str = "probability"
    sheet_digest: str = field(default="", repr=False)
    warnings: tuple[str, ...] = field(default=(), repr=False)
    constant_slot: tuple[str, ...] = field(default=(), repr=False)

    @property
    def points(self) -> dict[str, OperatingPoint]:
        """The four chosen points by criterion."""
        return {"expected": self.expected_optimum, "worst": self.worst_case_optimum,
                "accuracy": self.model_only_optimum, "youden": self.youden_optimum}

    @property
    def iso_cost_slope(self) -> float:
        """Slope ``dTPR / dFPR`` of the lines of equal expected system cost on the ROC plane.

        ``Eval1 = P k_FN + N k_TN + P TPR (k_TP - k_FN) + N FPR (k_FP - k_TN)`` with ``k`` the
        sheet's cost function 1, so the slope is ``N (k_FP - k_TN) / (P (k_FN - k_TP))``:
        ``inf`` when the cost does not depend on TPR, NaN when it depends on neither.
        """
        k, p, n = self.expected_cost_matrix, self.positives, self.negatives
        rise, run = n * (k.fp - k.tn), p * (k.fn - k.tp)
        if run == 0:
            return float("inf") if rise != 0 else float("nan")
        return float(rise / run)

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """The chosen points, one row per criterion (columns of :meth:`OperatingPoint.to_dict`)."""
        frame = pd.DataFrame([p.to_dict() for p in self.points.values()]).set_index("criterion")
        frame.attrs.update(auc=self.auc, slot=self.slot, assumption=self.assumption,
                           form=self.form)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: the chosen points, the AUC, the class sizes and the sheet."""
        return {"slot": self.slot, "constant_slot": list(self.constant_slot), "auc": self.auc,
                "positives": self.positives,
                "negatives": self.negatives, "thresholds": len(self.frame),
                "assumption": self.assumption, "form": self.form,
                "sheet_sha256": self.sheet_digest, "warnings": list(self.warnings),
                "points": {k: _json_point(p.to_dict()) for k, p in self.points.items()}}

    def __str__(self) -> str:
        lines = [f"Candidate for slot {self.slot!r}: {len(self.frame)} thresholds, "
                 f"AUC {self.auc:.4f} (positive when score >= threshold)",
                 f"{'chosen by':<44} {'threshold':>10} {'expected':>10} {'worst':>10} "
                 f"{'best':>10} {'accuracy':>9}"]
        for key, p in self.points.items():
            lines.append(f"{CRITERIA[key]:<44} {p.threshold:>10.4g} {_fmt(p.expected_cost):>10} "
                         f"{_fmt(p.worst_cost):>10} {_fmt(p.best_cost):>10} {p.accuracy:>9.4f}"
                         + (f"  slot always {p.constant}" if p.constant else ""))
        lines += [f"warning: {w}" for w in (*self.warnings, *self.constant_slot)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        e, w, m = self.expected_optimum, self.worst_case_optimum, self.model_only_optimum
        return (f"ThresholdSweep(slot={self.slot!r}, thresholds={len(self.frame)}, "
                f"auc={self.auc:.4f}, expected_optimum={e.threshold:.6g} "
                f"(cost {_fmt(e.expected_cost)}), worst_case_optimum={w.threshold:.6g} "
                f"(worst {_fmt(w.worst_cost)}), model_only_optimum={m.threshold:.6g} "
                f"(accuracy {m.accuracy:.4g})"
                + "".join(f", {k} optimum: slot always {p.constant}"
                          for k, p in self.points.items() if p.constant) + ")")


def _json_point(point: dict[str, Any]) -> dict[str, Any]:
    """A point with its threshold JSON can hold: ``+inf`` (no score reaches it: N for every
    score) and ``-inf`` (P for every score) as the strings ``"+inf"`` / ``"-inf"``, and
    ``predicts`` saying which of the three rules the point applies."""
    t = point["threshold"]
    if np.isfinite(t):
        return {**point, "predicts": "P when score >= threshold"}
    return {**point, "threshold": "+inf" if t > 0 else "-inf",
            "predicts": "N for every score" if t > 0 else "P for every score"}


# ------------------------------------------------------------------------------ the sweep
def _scores(scores: Any, n: int) -> np.ndarray:
    try:
        values = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise DataError("scores must be numbers, one per instance") from None
    if values.ndim != 1 or len(values) != n:
        raise DataError(f"scores must be one number per instance: {n} labels, scores of shape "
                        f"{values.shape}")
    bad = ~np.isfinite(values)
    if bad.any():
        shown = sorted(set(values[bad].tolist()), key=str)[:5]
        raise DataError(f"scores must be finite; found {shown} in {int(bad.sum())} row(s)")
    return values


def _thresholds(thresholds: Any, values: np.ndarray) -> np.ndarray:
    if thresholds is None:
        return np.concatenate([[np.inf], np.unique(values)[::-1]])
    try:
        t = np.asarray(thresholds, dtype=float)
    except (TypeError, ValueError):
        raise DataError("thresholds must be numbers") from None
    if t.ndim != 1 or t.size == 0 or np.isnan(t).any():
        raise DataError(f"thresholds must be a non-empty list of numbers (inf allowed, not NaN), "
                        f"got shape {t.shape}")
    return np.unique(t)[::-1]


def _counts(truth: np.ndarray, values: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``(len(t), 4)`` counts tp, fn, fp, tn of predicting positive where ``score >= t``."""
    pos, neg = np.sort(values[truth]), np.sort(values[~truth])
    tp = pos.size - np.searchsorted(pos, t, side="left")
    fp = neg.size - np.searchsorted(neg, t, side="left")
    return np.column_stack([tp, pos.size - tp, fp, neg.size - fp]).astype(float)


def _costs(sheet: CostSheet, m: np.ndarray, form: str) -> pd.DataFrame:
    kwargs: dict[str, Any] = {"assumption": sheet.assumption,
                              "monotonicity": sheet.monotonicity_check}
    if form == "counts":
        return bound_many(sheet.forced_p, sheet.forced_n, m, sheet.costs, **kwargs)
    return bound_many_from_rates(sheet.rates, m, sheet.costs, **kwargs)


def _point(frame: pd.DataFrame, i: int, criterion: str) -> OperatingPoint:
    r = frame.iloc[i]
    return OperatingPoint(
        criterion=criterion, threshold=float(r.threshold),
        confusion=Confusion(tp=int(r.tp), fn=int(r.fn), fp=int(r.fp), tn=int(r.tn)),
        expected_cost=float(r.expected_cost), worst_cost=float(r.worst_cost),
        best_cost=float(r.best_cost), accuracy=float(r.accuracy), fpr=float(r.fpr),
        tpr=float(r.tpr), constant=constant_vote(Confusion(int(r.tp), int(r.fn), int(r.fp),
                                                           int(r.tn))))


def _best(*keys: np.ndarray) -> int:
    """The first row (lowest index) minimising ``keys`` lexicographically."""
    n = len(keys[0])
    return int(np.lexsort((np.arange(n), *reversed(keys)))[0])


def system_thresholds(sheet: CostSheet, y_true: Any, scores: Any, *, positive: Any = None,
                      thresholds: Any = None, same_instances: bool = False) -> ThresholdSweep:
    """Price every threshold of a scored candidate for the system; pick the system's optima.

    Parameters
    ----------
    sheet : CostSheet
        The slot's cost sheet.
    y_true : array-like
        True labels of the candidate's evaluation set (bool, 0/1, or strings with
        ``positive=``).
    scores : array-like of float
        The candidate's score per instance; higher means more positive.
    positive : optional
        The positive label of ``y_true`` when it holds strings; a named label ``y_true``
        does not hold (``"7"`` on 0/1 labels) is refused with a ``DataError``.
    thresholds : array-like of float, optional
        The thresholds to price (default: every distinct score and ``inf``).
    same_instances : bool, default False
        Declare that ``y_true`` and ``scores`` are the very rows the sheet's forced runs were
        counted on: the worst and best cases are then exact (count form), as
        :func:`~causalcost.evaluation.report.evaluate` with ``same_instances=True``. Never inferred
        from equal class sizes.

    Returns
    -------
    ThresholdSweep
        Rows in decreasing threshold; predict positive when ``score >= threshold``.

    Raises
    ------
    DataError
        If labels or scores are not readable, differ in length, scores are not finite, or
        ``y_true`` holds one class only (no ROC without both classes).
    SheetError, MonotonicityError, ...
        As :func:`~causalcost.evaluation.report.evaluate` for these class sizes.

    Examples
    --------
    The notes' ROC example (ten instances, class sizes 5 and 5):

    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> y = ["+", "+", "-", "-", "-", "+", "-", "+", "-", "+"]
    >>> s = [0.95, 0.93, 0.87, 0.85, 0.85, 0.85, 0.76, 0.53, 0.43, 0.25]
    >>> sweep = system_thresholds(sheet, y, s, positive="+")
    >>> sweep.frame[["threshold", "tp", "fp", "tpr", "fpr"]].iloc[:4]
       threshold  tp  fp  tpr  fpr
    0        inf   0   0  0.0  0.0
    1       0.95   1   0  0.2  0.0
    2       0.93   2   0  0.4  0.0
    3       0.87   2   1  0.4  0.2
    >>> round(sweep.auc, 2), sweep.expected_optimum.threshold
    (0.56, 0.25)
    """
    from causalcost.evaluation.general import refuse_labels

    refuse_labels(sheet, "system_thresholds (a ROC sweep)",
                  "rank K-label candidates by their predictions with cc.compare(sheet, "
                  "y_true=..., predictions={...})")
    if not isinstance(sheet, CostSheet):
        raise InputTypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    if positive is None and tuple(sheet.label_names) != ("P", "N"):
        positive = sheet.label_names[0]  # a sheet of two named labels: its first, by name
    truth = votes_from_values(y_true, "y_true", positive, truth=True)
    values = _scores(scores, len(truth))
    n_p = int(truth.sum())
    n_n = truth.size - n_p
    if n_p == 0 or n_n == 0:
        raise DataError(f"y_true holds {n_p} positives and {n_n} negatives: a threshold sweep "
                        "(and its ROC) needs instances of both classes")
    t = _thresholds(thresholds, values)
    m = _counts(truth, values, t)
    # one evaluation for the refusals, the warnings and the form every row shares
    first = Confusion(*(int(v) for v in m[0])).with_labels(list(sheet.label_names))
    report = evaluate(sheet, first, same_instances=same_instances)
    costs = _costs(sheet, m, report.form)
    frame = pd.DataFrame(m.astype(np.int64), columns=["tp", "fn", "fp", "tn"])
    frame.insert(0, "threshold", t)
    for case in ("expected", "worst", "best"):
        frame[f"{case}_cost"] = costs[f"{case}_cost"].to_numpy()
    frame["fpr"] = m[:, 2] / n_n
    frame["tpr"] = m[:, 0] / n_p
    frame["accuracy"] = (m[:, 0] + m[:, 3]) / truth.size
    from sklearn.metrics import roc_auc_score, roc_curve

    roc = roc_curve(truth, values)
    e, w = frame["expected_cost"].to_numpy(), frame["worst_cost"].to_numpy()
    points = {"expected": _point(frame, _best(e, w), "expected"),
              "worst": _point(frame, _best(w, e), "worst"),
              "accuracy": _point(frame, _best(-frame["accuracy"].to_numpy()), "accuracy"),
              "youden": _point(frame, _best((frame["fpr"] - frame["tpr"]).to_numpy()), "youden")}
    notes = constant_slot_notes(sheet, [(CRITERIA[k], p.threshold, p.constant)
                                        for k, p in points.items()], truth.size)
    for note in notes:
        _warnings.warn(note, ConstantSlotWarning, stacklevel=2)
    return ThresholdSweep(
        frame=frame, expected_optimum=points["expected"], worst_case_optimum=points["worst"],
        model_only_optimum=points["accuracy"], youden_optimum=points["youden"],
        auc=float(roc_auc_score(truth, values)), roc=(roc[0], roc[1], roc[2]),
        positives=n_p, negatives=n_n, expected_cost_matrix=sheet.expected_cost_matrix,
        slot=sheet.slot, assumption=report.assumption, form=report.form,
        sheet_digest=sheet.digest, warnings=report.warnings, constant_slot=notes)
