"""Binary confusion matrices and system cost matrices as immutable, validated values.

Orientation, once for the whole package: **rows are the true class, columns the
prediction, order (P, N)**::

                 predicted P   predicted N
    class P          tp            fn
    class N          fp            tn

This is the seeds' layout and scikit-learn's ``confusion_matrix(y, y_hat, labels=[pos, neg])``.
Every public API names cells (``tp``, ``fn``, ``fp``, ``tn``) so nobody has to remember it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import CostMatrixError, CountError, ValidationError

__all__ = [
    "CELLS", "CLASSES", "OUTCOMES", "Confusion", "CostMatrix", "format_number", "parse_cells",
]

#: Cell names in the order of ``to_array().ravel()``.
CELLS: tuple[str, str, str, str] = ("tp", "fn", "fp", "tn")
#: Class labels in row/column order.
CLASSES: tuple[str, str] = ("P", "N")
#: The confusion node's outcomes, in table order (true class, then prediction).
OUTCOMES: tuple[str, str, str, str] = ("TP", "FN", "FP", "TN")


def _as_real(name: str, value: Any, error: type[ValidationError]) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise error(f"{name} must be finite, got {value!r}")
    return value


def parse_cells(text: str, *, what: str = "cells") -> dict[str, float]:
    """Parse ``"tp=80,fn=20,fp=40,tn=160"`` (any order, any subset) into a dict.

    Examples
    --------
    >>> parse_cells("fn=5,fp=1")
    {'fn': 5.0, 'fp': 1.0}
    """
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in CELLS:
            raise ValidationError(
                f"{what}: cannot read {part!r}; write cells as name=value with names among "
                f"{', '.join(CELLS)}, e.g. 'tp=80,fn=20,fp=40,tn=160'"
            )
        if key in out:
            raise ValidationError(f"{what}: cell {key!r} is given twice")
        try:
            out[key] = float(value)
        except ValueError:
            raise ValidationError(f"{what}: {key}={value!r} is not a number") from None
    return out


def format_number(value: float) -> str:
    """Whole numbers without a decimal point, others to six significant digits.

    >>> format_number(320.0), format_number(0.19999999999999996)
    ('320', '0.2')
    """
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


class _Cells:
    """Shared behaviour of 2x2 matrices with named cells ``tp, fn, fp, tn``."""

    tp: float
    fn: float
    fp: float
    tn: float

    def cells(self) -> tuple[float, float, float, float]:
        """The cells as ``(tp, fn, fp, tn)``."""
        return (self.tp, self.fn, self.fp, self.tn)

    def to_dict(self) -> dict[str, float]:
        """``{"tp": .., "fn": .., "fp": .., "tn": ..}``."""
        return dict(zip(CELLS, self.cells()))

    def to_array(self) -> np.ndarray:
        """The 2x2 array ``[[tp, fn], [fp, tn]]`` (rows true class, columns prediction)."""
        return np.array([[self.tp, self.fn], [self.fp, self.tn]])

    def to_frame(self) -> pd.DataFrame:
        """DataFrame with rows ``true P, true N`` and columns ``predicted P, predicted N``."""
        return pd.DataFrame(
            self.to_array(),
            index=pd.Index(list(CLASSES), name="true"),
            columns=pd.Index(list(CLASSES), name="predicted"),
        )

    def __repr__(self) -> str:
        cells = ", ".join(f"{k}={format_number(v)}" for k, v in zip(CELLS, self.cells()))
        return f"{type(self).__name__}({cells})"

    def _repr_html_(self) -> str:
        return self.to_frame().to_html()


@dataclass(frozen=True, repr=False)
class Confusion(_Cells):
    """A binary confusion matrix: how often each (true class, prediction) pair occurred.

    Cells are non-negative finite numbers. They are usually integer counts; fractional
    values are allowed for expected counts (``rates x class sizes``), and
    :attr:`is_integral` says which kind a matrix is.

    Parameters
    ----------
    tp, fn, fp, tn : float
        True positives (class P predicted P), false negatives (P predicted N),
        false positives (N predicted P), true negatives (N predicted N).

    Raises
    ------
    CountError
        If a cell is negative, infinite or NaN.
    TypeError
        If a cell is not a real number.

    Examples
    --------
    >>> m = Confusion(tp=80, fn=20, fp=40, tn=160)
    >>> m.positives, m.negatives, m.errors
    (100.0, 200.0, 60.0)
    >>> m.to_array().tolist()
    [[80.0, 20.0], [40.0, 160.0]]
    """

    tp: float
    fn: float
    fp: float
    tn: float

    def __post_init__(self) -> None:
        for f in fields(self):
            value = _as_real(f.name, getattr(self, f.name), CountError)
            if value < 0:
                raise CountError(f"confusion cell {f.name} must be >= 0, got {value!r}")
            object.__setattr__(self, f.name, value)

    # -- derived quantities -------------------------------------------------------------
    @property
    def positives(self) -> float:
        """Instances of class P (``tp + fn``)."""
        return self.tp + self.fn

    @property
    def negatives(self) -> float:
        """Instances of class N (``fp + tn``)."""
        return self.fp + self.tn

    @property
    def total(self) -> float:
        """All instances."""
        return self.tp + self.fn + self.fp + self.tn

    @property
    def errors(self) -> float:
        """Mistakes (``fn + fp``)."""
        return self.fn + self.fp

    @property
    def is_integral(self) -> bool:
        """Whether every cell is a whole number (a count rather than an expectation)."""
        return all(float(v).is_integer() for v in self.cells())

    def cost(self, costs: CostMatrix) -> float:
        """Total cost of these outcomes under ``costs`` (element-wise product, summed).

        >>> Confusion(tp=40, fn=60, fp=20, tn=180).cost(CostMatrix(fn=5, fp=1))
        320.0
        """
        return float(np.dot(self.cells(), costs.cells()))

    # -- conversions --------------------------------------------------------------------
    @classmethod
    def from_array(cls, array: Sequence[Sequence[float]] | np.ndarray) -> Confusion:
        """Build from a 2x2 array ``[[tp, fn], [fp, tn]]`` (rows true class, order P, N)."""
        arr = np.asarray(array, dtype=float)
        if arr.shape != (2, 2):
            raise ValidationError(
                f"a confusion array must have shape (2, 2) as [[tp, fn], [fp, tn]], "
                f"got shape {arr.shape}"
            )
        return cls(*(float(v) for v in arr.ravel()))

    @classmethod
    def from_mapping(cls, cells: Mapping[str, float]) -> Confusion:
        """Build from a mapping with exactly the keys ``tp``, ``fn``, ``fp``, ``tn``."""
        keys = set(cells)
        if keys != set(CELLS):
            missing = sorted(set(CELLS) - keys)
            unknown = sorted(keys - set(CELLS))
            raise ValidationError(
                "a confusion matrix needs exactly the cells tp, fn, fp, tn"
                + (f"; missing {missing}" if missing else "")
                + (f"; unknown {unknown}" if unknown else "")
            )
        return cls(**{k: cells[k] for k in CELLS})

    @classmethod
    def parse(cls, text: str) -> Confusion:
        """Parse ``"tp=80,fn=20,fp=40,tn=160"``; all four cells are required."""
        return cls.from_mapping(parse_cells(text, what="confusion matrix"))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Confusion:
        """Build from a DataFrame indexed by true class and with predictions as columns.

        Labels ``"P"`` and ``"N"`` are looked up by name, so row/column order is free.
        """
        try:
            return cls(
                tp=frame.loc["P", "P"], fn=frame.loc["P", "N"],
                fp=frame.loc["N", "P"], tn=frame.loc["N", "N"],
            )
        except KeyError as exc:
            raise ValidationError(
                "a confusion DataFrame needs index and columns labelled 'P' and 'N' "
                f"(true class rows, prediction columns); missing {exc}"
            ) from None

    @classmethod
    def from_sklearn(
        cls, matrix: Sequence[Sequence[float]] | np.ndarray, labels: Sequence[Any] = (0, 1),
        positive: Any = 1,
    ) -> Confusion:
        """Build from scikit-learn's ``confusion_matrix`` output.

        scikit-learn orders rows and columns by ``labels`` (sorted labels by default), so
        for 0/1 targets with 1 positive its matrix is ``[[tn, fp], [fn, tp]]``. Pass the
        same ``labels`` you gave scikit-learn (or its sorted default) and the positive one.

        >>> Confusion.from_sklearn([[160, 40], [20, 80]])  # labels (0, 1), positive 1
        Confusion(tp=80, fn=20, fp=40, tn=160)
        >>> Confusion.from_sklearn([[80, 20], [40, 160]], labels=["sick", "well"], positive="sick")
        Confusion(tp=80, fn=20, fp=40, tn=160)
        """
        arr = np.asarray(matrix, dtype=float)
        labels = list(labels)
        if arr.shape != (2, 2) or len(labels) != 2:
            raise ValidationError(
                f"from_sklearn needs a 2x2 matrix and two labels, got shape {arr.shape} "
                f"and labels {labels!r}"
            )
        if positive not in labels:
            raise ValidationError(f"positive label {positive!r} is not among labels {labels!r}")
        p = labels.index(positive)
        n = 1 - p
        return cls(tp=arr[p, p], fn=arr[p, n], fp=arr[n, p], tn=arr[n, n])

    def to_sklearn(self, labels: Sequence[Any] = (0, 1), positive: Any = 1) -> np.ndarray:
        """The matrix as scikit-learn prints it for ``labels`` (inverse of ``from_sklearn``)."""
        labels = list(labels)
        if len(labels) != 2 or positive not in labels:
            raise ValidationError(
                f"positive label {positive!r} must be one of two labels {labels!r}"
            )
        p = labels.index(positive)
        n = 1 - p
        out = np.empty((2, 2))
        out[p, p], out[p, n], out[n, p], out[n, n] = self.cells()
        return out

    @classmethod
    def from_predictions(
        cls, y_true: Iterable[Any], y_pred: Iterable[Any], positive: Any = 1
    ) -> Confusion:
        """Count outcomes of predictions against labels with scikit-learn.

        >>> Confusion.from_predictions([1, 1, 0, 0], [1, 0, 0, 1])
        Confusion(tp=1, fn=1, fp=1, tn=1)
        """
        from sklearn.metrics import confusion_matrix

        y_true = np.asarray(list(y_true))
        y_pred = np.asarray(list(y_pred))
        observed = set(np.unique(np.concatenate([y_true, y_pred])).tolist())
        if len(observed - {positive}) > 1:
            raise ValidationError(
                f"binary labels expected: besides the positive {positive!r} found "
                f"{sorted(map(str, observed - {positive}))}"
            )
        negatives = sorted(observed - {positive}, key=str)
        negative = negatives[0] if negatives else object()
        if not negatives:  # only positives were seen
            tp = int(np.sum((y_true == positive) & (y_pred == positive)))
            return cls(tp=tp, fn=0, fp=0, tn=0)
        cm = confusion_matrix(y_true, y_pred, labels=[positive, negative])
        return cls.from_array(cm)



@dataclass(frozen=True, repr=False)
class CostMatrix(_Cells):
    """The price of each system outcome: a cost per (true class, prediction) cell.

    A mistake never costs less than the hit of the same class:
    ``tp <= fn`` and ``tn <= fp``. Hits default to 0.

    Parameters
    ----------
    tp, fn, fp, tn : float
        Cost of a true positive, false negative, false positive and true negative.

    Raises
    ------
    CostMatrixError
        If a cost is not finite, or a hit costs more than the mistake of its class.

    Examples
    --------
    >>> CostMatrix(fn=5, fp=1)
    CostMatrix(tp=0, fn=5, fp=1, tn=0)
    >>> CostMatrix(fn=5, fp=1).to_array().tolist()
    [[0.0, 5.0], [1.0, 0.0]]
    """

    tp: float = 0.0
    fn: float = 1.0
    fp: float = 1.0
    tn: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = _as_real(f"cost {f.name}", getattr(self, f.name), CostMatrixError)
            object.__setattr__(self, f.name, value)
        if self.tp > self.fn:
            raise CostMatrixError(
                f"cost tp={self.tp:g} exceeds cost fn={self.fn:g}: a hit on a positive must not "
                "cost more than missing it; raise fn or lower tp"
            )
        if self.tn > self.fp:
            raise CostMatrixError(
                f"cost tn={self.tn:g} exceeds cost fp={self.fp:g}: a hit on a negative must not "
                "cost more than a false alarm; raise fp or lower tn"
            )

    @classmethod
    def from_mapping(cls, costs: Mapping[str, float]) -> CostMatrix:
        """Build from a mapping of cell names; missing hits default to 0, mistakes are required."""
        unknown = sorted(set(costs) - set(CELLS))
        if unknown:
            raise CostMatrixError(f"unknown cost cells {unknown}; valid cells are tp, fn, fp, tn")
        missing = [k for k in ("fn", "fp") if k not in costs]
        if missing:
            raise CostMatrixError(
                f"cost matrix needs the mistake costs fn and fp; missing {missing} "
                "(e.g. 'fn=5,fp=1')"
            )
        return cls(**dict(costs))

    @classmethod
    def parse(cls, text: str) -> CostMatrix:
        """Parse ``"fn=5,fp=1[,tp=0,tn=0]"``."""
        return cls.from_mapping(parse_cells(text, what="costs"))

    @classmethod
    def from_array(cls, array: Sequence[Sequence[float]] | np.ndarray) -> CostMatrix:
        """Build from ``[[tp, fn], [fp, tn]]``."""
        arr = np.asarray(array, dtype=float)
        if arr.shape != (2, 2):
            raise CostMatrixError(f"a cost array must have shape (2, 2), got {arr.shape}")
        return cls(*(float(v) for v in arr.ravel()))
