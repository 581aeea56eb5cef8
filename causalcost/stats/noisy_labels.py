"""Judging a model against labels that are themselves wrong on some instances (article 003).

A confusion matrix is counted against the labels, and no set of labels is perfect. What the
counts say about the model against the *true* class depends on how the labels' errors relate
to the model's:

* **no assumption** (the article's range): with a fraction ``1 - a_truth`` of wrong labels, the
  true accuracy lies in ``a_model +- (1 - a_truth)`` (clipped to [0, 1]) -- lower when the
  model is wrong exactly where the labels are, higher when it is right exactly there.
  :func:`confusion_range` carries this to the four cells: every confusion the true one can be
  when at most ``(1 - a_truth) n`` labels are wrong, as a polygon of corners;
* **independent errors** (the article's estimate): when the labels' errors are independent of
  the model's given the true class, the counts against the labels are, in expectation, the true
  counts mixed by the label noise, and the mixing can be undone. With one error rate for both
  classes the accuracy is ``(a_model + a_truth - 1) / (2 a_truth - 1)``
  (:func:`noisy_accuracy`); with a rate per class, :func:`correct_confusion` solves the linear
  system for each predicted column.

Labels no better than a coin (``a_truth <= 0.5``, or per-class rates adding up to 1 or more)
carry no information on the true class and are refused, and so is a correction that would need
negative counts (the counts disagree with the stated label noise).

**K labels.** The same correction holds for any number of labels: a :class:`LabelTransition`
holds ``P(observed label | true label)`` as a K x K matrix (rows the true class), the counts
against the labels are in expectation ``transition.T @ (true counts)`` in each predicted column,
and :func:`correct_confusion` solves that system (for K = 2 it agrees with the binary route).
Labels right with probability ``label_accuracy`` and wrong evenly otherwise make
:meth:`LabelTransition.symmetric`; a transition that cannot be inverted carries no information
on the class and is refused (for K = 2, rates adding up to 1).

Examples
--------
The article's example: labels 96 % right, the model agrees with them on 90 %.

>>> r = noisy_accuracy(0.90, 0.96)
>>> round(r.low, 3), round(r.high, 3), round(r.estimate, 3)
(0.86, 0.94, 0.935)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, Confusion, _check_real
from causalcost.confusion import format_number as _fmt
from causalcost.display import html_table
from causalcost.errors import InputTypeError, ValidationError

__all__ = [
    "LabelErrors",
    "LabelNoiseError",
    "NoisyAccuracy",
    "ConfusionRange",
    "noisy_accuracy",
    "correct_confusion",
    "confusion_range",
    "LabelTransition",
]


class LabelNoiseError(ValidationError):
    """Label noise that cannot be undone: labels no better than a coin, or counts that would
    need negative true counts under the stated noise."""


def _fraction(name: str, value: Any) -> float:
    _check_real(name, value)
    out = float(value)
    if not 0.0 <= out <= 1.0:
        raise ValidationError(f"{name} must be a fraction in [0, 1], got {value!r}")
    return out


def _label_accuracy(value: Any, name: str = "a_truth") -> float:
    a = _fraction(name, value)
    if a <= 0.5:
        raise LabelNoiseError(
            f"{name} = {a:g}: labels right at most half the time are no better than a coin "
            "(or systematically inverted), so they say nothing about the true class; the "
            "correction divides by 2 a_truth - 1. Relabel, or swap the labels if they are "
            "inverted")
    return a


# ----------------------------------------------------------------------------- accuracy
@dataclass(frozen=True)
class NoisyAccuracy:
    """The true accuracy of a model measured against labels that are ``label_accuracy`` right.

    Attributes
    ----------
    measured : float
        Accuracy against the labels (``a_model``).
    label_accuracy : float
        Fraction of right labels (``a_truth``).
    low, high : float
        ``measured -+ (1 - label_accuracy)`` clipped to [0, 1]: the true accuracy when the
        model's errors coincide with the labels' (low) or avoid them (high). No assumption.
    estimate : float or None
        ``(measured + label_accuracy - 1) / (2 label_accuracy - 1)``: the true accuracy when
        model and label errors are independent (one error rate for both classes). None when no
        model with independent errors can agree with the labels ``measured`` of the time
        (``measured`` above ``label_accuracy`` or below ``1 - label_accuracy``); ``note`` says so.
    note : str
    """

    measured: float
    label_accuracy: float
    low: float
    high: float
    estimate: float | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field."""
        return {"measured": self.measured, "label_accuracy": self.label_accuracy,
                "low": self.low, "high": self.high, "estimate": self.estimate, "note": self.note}

    def __repr__(self) -> str:
        est = "None" if self.estimate is None else f"{self.estimate:.4g}"
        return (f"NoisyAccuracy(measured={self.measured:.4g}, "
                f"label_accuracy={self.label_accuracy:.4g}, low={self.low:.4g}, "
                f"high={self.high:.4g}, estimate={est})")


def noisy_accuracy(a_model: float, a_truth: float) -> NoisyAccuracy:
    """The range and the independent-errors estimate of a model's true accuracy (article 003).

    Parameters
    ----------
    a_model : float
        The model's accuracy measured against the labels, in [0, 1].
    a_truth : float
        The fraction of labels that are right, in (0.5, 1].

    Returns
    -------
    NoisyAccuracy

    Raises
    ------
    LabelNoiseError
        If ``a_truth <= 0.5``.
    ValidationError
        If a value is not a fraction in [0, 1].

    Examples
    --------
    >>> noisy_accuracy(0.90, 0.96)  # article 003: 86 %, 94 % and 93.5 %
    NoisyAccuracy(measured=0.9, label_accuracy=0.96, low=0.86, high=0.94, estimate=0.9348)
    >>> noisy_accuracy(0.99, 0.96).estimate is None  # agrees more often than independence allows
    True
    """
    a = _fraction("a_model", a_model)
    t = _label_accuracy(a_truth)
    low, high = max(0.0, a - (1 - t)), min(1.0, a + (1 - t))
    estimate: float | None = (a + t - 1) / (2 * t - 1)
    note = ""
    if not 1 - t <= a <= t:
        estimate, note = None, (
            f"a model whose errors are independent of the labels' agrees with labels "
            f"{t:g} right between {1 - t:g} and {t:g} of the time; {a:g} means the errors are "
            "correlated (only the range holds)")
    return NoisyAccuracy(a, t, low, high, estimate, note)


# ----------------------------------------------------------------------- per-class rates
@dataclass(frozen=True)
class LabelErrors:
    """How often the labels are wrong, per true class.

    Parameters
    ----------
    p_labelled_n : float
        ``P(label = N | true class P)``.
    n_labelled_p : float
        ``P(label = P | true class N)``.

    Raises
    ------
    LabelNoiseError
        If ``p_labelled_n + n_labelled_p >= 1``: such labels carry no information on the class.

    Examples
    --------
    >>> LabelErrors(0.05, 0.02).matrix.tolist()  # rows label P, N; columns true class P, N
    [[0.95, 0.02], [0.05, 0.98]]
    >>> LabelErrors.from_confusion(Confusion(tp=95, fn=5, fp=4, tn=196))
    LabelErrors(p_labelled_n=0.05, n_labelled_p=0.02)
    """

    p_labelled_n: float
    n_labelled_p: float

    def __post_init__(self) -> None:
        a = _fraction("p_labelled_n", self.p_labelled_n)
        b = _fraction("n_labelled_p", self.n_labelled_p)
        object.__setattr__(self, "p_labelled_n", a)
        object.__setattr__(self, "n_labelled_p", b)
        if a + b >= 1:
            raise LabelNoiseError(
                f"p_labelled_n + n_labelled_p = {a:g} + {b:g} >= 1: labels that say P as often "
                "on true negatives as on true positives carry no information on the class "
                "(the label noise matrix is singular or inverts the classes)")

    @classmethod
    def symmetric(cls, label_accuracy: float) -> LabelErrors:
        """One error rate ``1 - label_accuracy`` for both classes (``label_accuracy > 0.5``)."""
        e = 1 - _label_accuracy(label_accuracy, "label_accuracy")
        return cls(e, e)

    @classmethod
    def from_confusion(cls, labels: Confusion) -> LabelErrors:
        """The rates of a label audit: the labels counted against a trusted truth, rows the true
        class and columns the label (``tp`` = true P labelled P, ``fn`` = true P labelled N)."""
        if not isinstance(labels, Confusion):
            raise InputTypeError(f"labels must be a Confusion of labels against the true class, "
                                 f"got {type(labels).__name__}")
        if labels.positives <= 0 or labels.negatives <= 0:
            raise ValidationError(
                f"the label audit {labels!r} needs instances of both true classes to give a "
                "label error rate per class")
        return cls(float(labels.fn) / float(labels.positives),
                   float(labels.fp) / float(labels.negatives))

    @property
    def matrix(self) -> np.ndarray:
        """``M[label, true class]`` (order P, N): expected counts against the labels are
        ``M @ (true counts)`` in each predicted column."""
        a, b = self.p_labelled_n, self.n_labelled_p
        return np.array([[1 - a, b], [a, 1 - b]])

    def accuracy(self, positives: float, negatives: float) -> float:
        """Fraction of right labels on a set with these true class sizes."""
        n = positives + negatives
        return 1 - (self.p_labelled_n * positives + self.n_labelled_p * negatives) / n

    def __repr__(self) -> str:
        return (f"LabelErrors(p_labelled_n={self.p_labelled_n:.6g}, "
                f"n_labelled_p={self.n_labelled_p:.6g})")


def as_label_errors(value: Any) -> LabelErrors:
    """A :class:`LabelErrors` from itself, a label audit (Confusion) or a pair of rates."""
    if isinstance(value, LabelErrors):
        return value
    if isinstance(value, Confusion):
        return LabelErrors.from_confusion(value)
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        return LabelErrors(*value)
    raise InputTypeError(
        "label_errors must be LabelErrors(p_labelled_n, n_labelled_p), a pair of those rates, "
        f"or a label audit as a Confusion (rows true class, columns label); got {value!r}")


def _tolerance(m: Confusion) -> float:
    return 1e-9 * max(1.0, float(m.total))


def correct_confusion(observed: Confusion, label_errors: Any) -> Confusion:
    """The confusion against the true class, from the one counted against noisy labels.

    Assumes the labels' errors are independent of the model's prediction given the true class.
    Then in each predicted column the counts against the labels are, in expectation,
    ``M @ (true counts)`` (:attr:`LabelErrors.matrix`), and the correction solves that linear
    system: an unbiased estimate of the true confusion. The same correction applies to any
    confusion counted against the same labels (a system's forced runs, too).

    Parameters
    ----------
    observed : Confusion
        Counted against the labels.
    label_errors : LabelErrors, pair of float, Confusion, LabelTransition or (K, K) array
        The label error rates per true class, or a label audit they are read from. For K
        labels: a :class:`LabelTransition` or its matrix ``P(observed label | true label)``
        (rows the true class); a K-label audit (Confusion of labels against a trusted truth)
        is read with :meth:`LabelTransition.from_confusion`.

    Returns
    -------
    Confusion
        Fractional in general; same predicted-column totals as ``observed`` (and its labels).

    Raises
    ------
    LabelNoiseError
        If the labels are no better than a coin, or a corrected cell would be negative (the
        message names it: the counts hold fewer labels of a class than its noise alone makes).

    Examples
    --------
    >>> true = Confusion(tp=80, fn=20, fp=30, tn=170)
    >>> noise = LabelErrors(0.1, 0.05)
    >>> # what the labels would show on average: 10 % of true P labelled N, 5 % of N labelled P
    >>> seen = Confusion(tp=80 * 0.9 + 30 * 0.05, fn=20 * 0.9 + 170 * 0.05,
    ...                  fp=30 * 0.95 + 80 * 0.1, tn=170 * 0.95 + 20 * 0.1)
    >>> fixed = correct_confusion(seen, noise)
    >>> [round(v, 9) for v in fixed.cells()]
    [80.0, 20.0, 30.0, 170.0]

    Three labels, labels right 90 % of the time and wrong evenly otherwise:

    >>> noise = LabelTransition.symmetric(0.9, ["ok", "flu", "covid"])
    >>> true = np.array([[50.0, 5, 5], [4, 30, 6], [1, 1, 18]])
    >>> seen = Confusion(noise.matrix.T @ true, labels=["ok", "flu", "covid"])
    >>> correct_confusion(seen, noise).to_numpy().round(9).tolist()
    [[50.0, 5.0, 5.0], [4.0, 30.0, 6.0], [1.0, 1.0, 18.0]]
    """
    if isinstance(label_errors, LabelTransition) or _is_matrix(label_errors) or (
            isinstance(observed, Confusion) and observed.k != 2):
        return _correct_k(observed, label_errors)
    if not isinstance(observed, Confusion):
        raise InputTypeError(f"observed must be a Confusion, got {type(observed).__name__}")
    errors = as_label_errors(label_errors)
    inverse = np.linalg.inv(errors.matrix)
    o = np.array([[observed.tp, observed.fn], [observed.fp, observed.tn]], dtype=float)
    true = inverse @ o  # columns are the predicted classes, rows the true class
    tol = _tolerance(observed)
    names = np.array([["tp", "fn"], ["fp", "tn"]])
    bad = true < -tol
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        label = "P" if i == 0 else "N"
        raise LabelNoiseError(
            f"correcting {observed!r} for {errors!r} needs {names[i, j]} = "
            f"{_fmt(true[i, j])} < 0: among the instances predicted {'PN'[j]}, fewer carry the "
            f"label {'NP'[i]} than label noise alone would put there, so the stated label error "
            f"rates are too high for these counts (or too few instances to correct; true "
            f"class {label})")
    true = np.where(true < 0, 0.0, true)
    return Confusion(tp=float(true[0, 0]), fn=float(true[0, 1]), fp=float(true[1, 0]),
                     tn=float(true[1, 1]))


# ------------------------------------------------------------------------------- range
@dataclass(frozen=True)
class ConfusionRange:
    """Every confusion against the true class compatible with at most ``max_wrong`` wrong labels.

    A wrong label moves one instance between the rows of its predicted column, so the true
    confusion is ``tp = tp0 + d1, fp = fp0 - d1, fn = fn0 + d2, tn = tn0 - d2`` with
    ``|d1| + |d2| <= max_wrong`` and no negative cell: a convex polygon in ``(d1, d2)``,
    described by its ``corners``. No assumption on how label errors relate to the model's.

    Attributes
    ----------
    observed : Confusion
        Counted against the labels.
    label_accuracy : float
        At least this fraction of the labels is right.
    max_wrong : float
        ``(1 - label_accuracy) * observed.total``.
    corners : tuple of (float, float)
        The polygon's corners ``(d1, d2)``, counter-clockwise.
    low, high : Confusion
        A corner of lowest and one of highest accuracy (the article's range, per cell).
    estimate : Confusion or None
        :func:`correct_confusion` with one error rate ``1 - label_accuracy`` for both classes
        (independent errors); None, with a ``note``, when that needs negative counts.
    note : str
    """

    observed: Confusion
    label_accuracy: float
    max_wrong: float
    corners: tuple[tuple[float, float], ...]
    low: Confusion
    high: Confusion
    estimate: Confusion | None
    note: str = ""

    def at(self, d1: float, d2: float) -> Confusion:
        """The true confusion after moving ``d1`` instances from ``fp`` to ``tp`` and ``d2``
        from ``tn`` to ``fn`` (negative values move the other way)."""
        o = self.observed
        cells = np.array([o.tp + d1, o.fn + d2, o.fp - d1, o.tn - d2], dtype=float)
        cells[(cells < 0) & (cells > -_tolerance(o))] = 0.0
        return Confusion(*(float(v) for v in cells))

    def contains(self, true: Confusion) -> bool:
        """Whether ``true`` is in the range (same predicted columns, few enough moves)."""
        o, tol = self.observed, _tolerance(self.observed)
        if abs((true.tp + true.fp) - (o.tp + o.fp)) > tol or abs(
                (true.fn + true.tn) - (o.fn + o.tn)) > tol:
            return False
        moved = abs(float(true.tp) - float(o.tp)) + abs(float(true.fn) - float(o.fn))
        return moved <= self.max_wrong + tol

    @property
    def confusions(self) -> tuple[Confusion, ...]:
        """The corners as confusions."""
        return tuple(self.at(d1, d2) for d1, d2 in self.corners)

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """Rows observed, low, estimate (if any), high; columns tp, fn, fp, tn, accuracy."""
        rows = {"observed": self.observed, "low": self.low}
        if self.estimate is not None:
            rows["estimate"] = self.estimate
        rows["high"] = self.high
        frame = pd.DataFrame({k: {**m.to_dict(), "accuracy": _accuracy(m)}
                              for k, m in rows.items()}).T
        return frame[[*CELLS, "accuracy"]].astype(float)

    def __repr__(self) -> str:
        return (f"ConfusionRange(observed={self.observed!r}, "
                f"label_accuracy={self.label_accuracy:.4g}, accuracy from "
                f"{_accuracy(self.low):.4g} to {_accuracy(self.high):.4g}, "
                f"{len(self.corners)} corners)")


def _accuracy(m: Confusion) -> float:
    return float(m.tp + m.tn) / float(m.total) if m.total > 0 else math.nan


def _clip(polygon: list[tuple[float, float]], a: float, b: float, c: float,
          ) -> list[tuple[float, float]]:
    """Sutherland-Hodgman: the part of a convex polygon where ``a x + b y <= c``."""
    out: list[tuple[float, float]] = []
    for i, p in enumerate(polygon):
        q = polygon[(i + 1) % len(polygon)]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _corners(o: Confusion, e: float) -> tuple[tuple[float, float], ...]:
    polygon = [(e, 0.0), (0.0, e), (-e, 0.0), (0.0, -e)]
    for a, b, c in ((1, 0, float(o.fp)), (-1, 0, float(o.tp)), (0, 1, float(o.tn)),
                    (0, -1, float(o.fn))):
        polygon = _clip(polygon, a, b, c)
    unique: list[tuple[float, float]] = []
    tol = _tolerance(o)
    for p in polygon:
        if not any(abs(p[0] - q[0]) <= tol and abs(p[1] - q[1]) <= tol for q in unique):
            unique.append(p)
    return tuple(unique) or ((0.0, 0.0),)


def confusion_range(observed: Confusion, label_accuracy: float) -> ConfusionRange:
    """The true confusions a candidate can have when at least ``label_accuracy`` of the labels
    it was counted against are right.

    Without an assumption on how the labels' errors relate to the candidate's, the true
    confusion is any one reachable by relabelling at most ``(1 - label_accuracy) n`` instances
    (:class:`ConfusionRange`); its accuracies span the article's ``a_model +- (1 - a_truth)``.
    The ``estimate`` is the correction under independent errors with one rate for both classes,
    whose accuracy is the article's ``(a_model + a_truth - 1) / (2 a_truth - 1)``.

    Parameters
    ----------
    observed : Confusion
        The candidate's confusion against the labels.
    label_accuracy : float
        Fraction of right labels, in (0.5, 1].

    Returns
    -------
    ConfusionRange

    Raises
    ------
    LabelNoiseError
        If ``label_accuracy <= 0.5``.

    Examples
    --------
    The article's 100 images, labels 96 % right, the model 90 % in agreement with them:

    >>> r = confusion_range(Confusion(tp=45, fn=5, fp=5, tn=45), 0.96)
    >>> r.low, r.high
    (Confusion(tp=45, fn=9, fp=5, tn=41), Confusion(tp=45, fn=1, fp=5, tn=49))
    >>> r.to_frame()["accuracy"].round(4).tolist()
    [0.9, 0.86, 0.9348, 0.94]
    """
    if not isinstance(observed, Confusion):
        raise InputTypeError(f"observed must be a Confusion, got {type(observed).__name__}")
    alpha = _label_accuracy(label_accuracy, "label_accuracy")
    if observed.total <= 0:
        raise ValidationError("the observed confusion has no instances")
    # the label accuracy as the decimal it was written as: 0.96 of 100 labels leaves 4 wrong
    e = float((1 - Fraction(repr(alpha))) * Fraction(float(observed.total)))
    corners = _corners(observed, e)
    # accuracy moves with d1 - d2; ties go to the corner moving fewest instances, then the
    # one moving fewer in the predicted-P column
    def extreme(sign: int) -> int:
        return min(range(len(corners)), key=lambda i: (
            -sign * (corners[i][0] - corners[i][1]), abs(corners[i][0]) + abs(corners[i][1]),
            abs(corners[i][0])))

    lo, hi = extreme(-1), extreme(1)
    base = ConfusionRange(observed, alpha, e, corners, observed, observed, None)
    low, high = base.at(*corners[lo]), base.at(*corners[hi])
    estimate, note = None, ""
    try:
        estimate = correct_confusion(observed, LabelErrors.symmetric(alpha))
    except LabelNoiseError as exc:
        note = f"no independent-errors estimate: {exc}"
    return ConfusionRange(observed, alpha, e, corners, low, high, estimate, note)


# ------------------------------------------------------------------------------ K labels
def _is_matrix(value: Any) -> bool:
    """A (K, K) array-like of numbers (not a pair of rates, not a Confusion)."""
    if isinstance(value, (Confusion, LabelErrors, str)) or hasattr(value, "cells"):
        return False
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.ndim == 2 and arr.shape[0] == arr.shape[1]


@dataclass(frozen=True, eq=False)
class LabelTransition:
    """How labels go wrong for K labels: ``matrix[c, o] = P(observed label o | true class c)``.

    Rows are the true class (each row sums to 1); the counts against the labels are, in
    expectation, ``matrix.T @ (true counts)`` in each predicted column. For K = 2 with labels
    (P, N) it is :class:`LabelErrors` (``matrix[0, 1] = p_labelled_n``,
    ``matrix[1, 0] = n_labelled_p``).

    Parameters
    ----------
    matrix : (K, K) array-like
        Rows of probabilities, rows the true class.
    labels : sequence of str, optional
        The K labels in the matrix's order (default ``"0", "1", ...``).

    Raises
    ------
    ValidationError
        Not a square matrix of probability rows, or labels of the wrong number.
    LabelNoiseError
        A matrix that cannot be inverted: such labels carry no information on the class.

    Examples
    --------
    >>> t = LabelTransition.symmetric(0.9, ["ok", "flu", "covid"])
    >>> t.matrix.round(3).tolist()
    [[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]]
    >>> round(t.accuracy([60, 30, 10]), 6)
    0.9
    """

    matrix: np.ndarray = field(repr=False)
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        try:
            m = np.array(self.matrix, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError(f"the label transition must be a K x K matrix of numbers, "
                                  f"got {self.matrix!r}") from None
        if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 2:
            raise ValidationError(f"the label transition must be a K x K matrix (K >= 2), got "
                                  f"shape {m.shape}")
        k = m.shape[0]
        labels = tuple(str(v) for v in self.labels) if self.labels else tuple(
            str(i) for i in range(k))
        if len(labels) != k or len(set(labels)) != k:
            raise ValidationError(f"the label transition needs {k} distinct labels, got "
                                  f"{list(self.labels)}")
        for c, row in enumerate(m):
            if not np.isfinite(row).all() or row.min() < 0 or abs(row.sum() - 1) > 1e-9:
                raise ValidationError(
                    f"row {labels[c]!r} of the label transition ({row.tolist()}) must be "
                    "probabilities summing to 1: P(observed label | true class), rows the true "
                    "class")
        if np.linalg.cond(m) > 1e12:
            raise LabelNoiseError(
                f"the label transition {m.round(6).tolist()} cannot be inverted: some mix of "
                "true classes gives the same labels as another, so the labels carry no "
                "information to tell them apart (for K = 2: error rates adding up to 1)")
        m.setflags(write=False)
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "labels", labels)

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @classmethod
    def symmetric(cls, label_accuracy: float, labels: Sequence[Any]) -> LabelTransition:
        """Labels right with probability ``label_accuracy`` whatever the class, and wrong
        evenly over the other K - 1 labels; refused unless ``label_accuracy > 1 / K`` (better
        than a random label)."""
        if isinstance(labels, str) or not isinstance(labels, Sequence):
            raise InputTypeError(f"labels must be a list of label names, got {labels!r}")
        k = len(labels)
        a = _fraction("label_accuracy", label_accuracy)
        if k < 2 or a <= 1 / k:
            raise LabelNoiseError(
                f"label_accuracy = {a:g} with {k} labels: labels right at most 1/{k} of the "
                "time are no better than a random label and say nothing about the true class")
        off = (1 - a) / (k - 1)
        return cls(np.full((k, k), off) + (a - off) * np.eye(k), tuple(labels))

    @classmethod
    def from_confusion(cls, audit: Any, labels: Sequence[Any] | None = None) -> LabelTransition:
        """The rates of a label audit: the labels counted against a trusted truth (rows the
        true class, columns the label), each row divided by its total."""
        m = np.asarray(audit.to_numpy() if hasattr(audit, "to_numpy") else audit, dtype=float)
        names = labels if labels is not None else getattr(audit, "labels", None)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValidationError(f"the label audit must be K x K counts, got shape {m.shape}")
        totals = m.sum(axis=1)
        if (totals <= 0).any():
            raise ValidationError(
                "the label audit needs instances of every true class to give its label error "
                f"rates; none of class {int(np.flatnonzero(totals <= 0)[0])}")
        return cls(m / totals[:, None], tuple(names) if names is not None else ())

    def mixed(self, t: float) -> LabelTransition:
        """``(1 - t) I + t matrix``: the way from no noise (``t = 0``) to this one (``t = 1``)."""
        return LabelTransition((1 - t) * np.eye(self.k) + t * self.matrix, self.labels)

    def accuracy(self, sizes: Sequence[float]) -> float:
        """Fraction of right labels on a set with these true class sizes."""
        n = np.asarray(sizes, dtype=float)
        return float(n @ np.diag(self.matrix) / n.sum())

    def to_frame(self) -> pd.DataFrame:
        """Rows the true class, columns the observed label."""
        return pd.DataFrame(self.matrix, index=pd.Index(self.labels, name="true"),
                            columns=pd.Index(self.labels, name="observed"))

    def __repr__(self) -> str:
        return (f"LabelTransition({np.round(self.matrix, 6).tolist()}, "
                f"labels={self.labels!r})")


def as_transition(value: Any, labels: Sequence[str]) -> LabelTransition:
    """A :class:`LabelTransition` over ``labels`` from itself, a (K, K) matrix of rates or a
    K-label audit (Confusion of labels against a trusted truth); labels matched by name."""
    labels = tuple(labels)
    if isinstance(value, LabelTransition):
        t = value
    elif isinstance(value, Confusion):
        t = LabelTransition.from_confusion(value)
    elif _is_matrix(value):
        arr = np.asarray(value, dtype=float)
        if arr.shape[0] != len(labels):
            raise ValidationError(f"the label transition is {arr.shape[0]} x {arr.shape[1]} but "
                                  f"the counts have {len(labels)} labels ({list(labels)}): give "
                                  "one row and one column per label")
        t = LabelTransition(arr, labels)
    else:
        raise InputTypeError(
            "label_errors for K labels must be a LabelTransition, a K x K matrix of "
            "P(observed label | true class) (rows the true class) or a label audit "
            f"(Confusion); got {value!r}")
    if t.k != len(labels):
        raise ValidationError(f"the label transition has {t.k} labels, the counts {len(labels)}"
                              f" ({list(labels)})")
    if t.labels == labels:
        return t
    if set(t.labels) != set(labels):
        if all(lab.isdigit() for lab in t.labels):  # unnamed: in the counts' order
            return LabelTransition(t.matrix, labels)
        raise ValidationError(f"the label transition's labels {list(t.labels)} are not the "
                              f"counts' labels {list(labels)}")
    order = [t.labels.index(lab) for lab in labels]
    return LabelTransition(t.matrix[np.ix_(order, order)], labels)


def _counts_of(observed: Any) -> tuple[np.ndarray, tuple[str, ...]]:
    if isinstance(observed, Confusion):
        return np.asarray(observed.to_numpy(), dtype=float), tuple(map(str, observed.labels))
    arr = np.asarray(observed.to_numpy() if hasattr(observed, "to_numpy") else observed,
                     dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InputTypeError(f"observed must be a Confusion or K x K counts, got {observed!r}")
    labels = getattr(observed, "labels", None)
    return arr, tuple(map(str, labels)) if labels is not None else tuple(
        str(i) for i in range(arr.shape[0]))


def corrected_counts(observed: np.ndarray, transition: LabelTransition) -> np.ndarray:
    """``inv(transition.matrix.T) @ observed``: the true counts behind counts against labels
    (rows the true class, columns the prediction); may hold negative cells."""
    return np.linalg.solve(transition.matrix.T, observed)


def _correct_k(observed: Any, label_errors: Any) -> Confusion:
    o, labels = _counts_of(observed)
    if isinstance(label_errors, LabelTransition) and all(lab.isdigit() for lab in labels) \
            and label_errors.k == len(labels):
        labels = label_errors.labels  # unnamed counts: in the transition's order
    t = as_transition(label_errors, labels)
    true = corrected_counts(o, t)
    tol = 1e-9 * max(1.0, float(o.sum()))
    bad = true < -tol
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise LabelNoiseError(
            f"correcting the counts for {t!r} needs {_fmt(true[i, j])} < 0 instances of true "
            f"class {labels[i]!r} predicted {labels[j]!r}: among the instances predicted "
            f"{labels[j]!r}, fewer carry the label {labels[i]!r} than label noise alone would "
            "put there, so the stated label error rates are too high for these counts")
    return Confusion.from_matrix(np.where(true < 0, 0.0, true), labels=list(labels))
