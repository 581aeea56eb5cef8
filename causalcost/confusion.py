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
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.display import EXACT_LIMIT, format_number, html_table
from causalcost.errors import (
    CostMatrixError,
    CountError,
    InputTypeError,
    OverflowInputError,
    ValidationError,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CELLS", "CLASSES", "OUTCOMES", "Confusion", "CostMatrix", "format_number", "parse_cells",
]

#: Cell names in the order of ``to_array().ravel()``.
CELLS: tuple[str, str, str, str] = ("tp", "fn", "fp", "tn")
#: Class labels in row/column order.
CLASSES: tuple[str, str] = ("P", "N")
#: The confusion node's outcomes, in table order (true class, then prediction).
OUTCOMES: tuple[str, str, str, str] = ("TP", "FN", "FP", "TN")
_REAL = (int, float, np.integer, np.floating)


def _check_real(name: str, value: Any) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, _REAL):
        raise InputTypeError(f"{name} must be a real number, got {type(value).__name__} "
                             f"{_show(value)}")


def _show(value: Any) -> str:
    """``repr`` of a bad value, short even for a huge integer or a long string."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and (
            abs(int(value)) > 10**30):
        return f"(an integer near 2**{abs(int(value)).bit_length() - 1})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _as_real(name: str, value: Any, error: type[ValidationError]) -> float:
    """A finite float; integers must fit in float64's range."""
    _check_real(name, value)
    try:
        value = float(value)
    except OverflowError:
        raise error(f"{name} must be finite: {_show(value)} is beyond float64's range "
                    "(about 1.8e308)") from None
    if not math.isfinite(value):
        raise error(f"{name} must be finite, got {value!r}")
    return value


def _as_count(name: str, value: Any, error: type[ValidationError]) -> float | int:
    """A finite cell, exact: floats as given, integers as floats up to 2**53, ints beyond."""
    _check_real(name, value)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if abs(value) <= EXACT_LIMIT:
            return float(value)
        try:
            float(value)
        except OverflowError:
            raise error(f"{name} must be finite: {_show(value)} is beyond float64's range "
                        "(about 1.8e308)") from None
        return value
    return _as_real(name, value, error)


def _exact(value: float | int) -> float | int:
    """Integral values as Python ints (for exact sums), fractional ones unchanged."""
    return int(value) if isinstance(value, int) or float(value).is_integer() else value


def _num(value: float | int) -> float | int:
    """The stored form of a computed cell: a float, or a Python int beyond 2**53."""
    if isinstance(value, int) and abs(value) > EXACT_LIMIT:
        return value
    return float(value)


def _sum(*values: float | int) -> float | int:
    """Exact sum of integral cells (any size); a float sum as soon as one is fractional."""
    try:
        return _num(sum(_exact(v) for v in values))
    except OverflowError:
        raise CountError("the cells add up beyond float64's range (about 1.8e308): "
                         "rescale the counts") from None


def parse_cells(text: str, *, what: str = "cells") -> dict[str, float]:
    """Parse ``"tp=80,fn=20,fp=40,tn=160"`` (any order, any subset) into a dict.

    Integers above ``2**53`` stay exact Python ints; every other value is a float.

    Examples
    --------
    >>> parse_cells("fn=5,fp=1")
    {'fn': 5.0, 'fp': 1.0}
    """
    if not isinstance(text, str):
        raise InputTypeError(f"{what} must be a string such as 'tp=80,fn=20,fp=40,tn=160', got "
                             f"{type(text).__name__} {_show(text)}")
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
        out[key] = _parse_number(what, key, value.strip())
    return out


def _parse_number(what: str, key: str, value: str) -> float:
    try:
        return _num(int(value))  # type: ignore[return-value]
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        raise ValidationError(f"{what}: {key}={value!r} is not a number") from None


def _read_array(array: Any, what: str, error: type[ValidationError]) -> np.ndarray:
    """``array`` as a (2, 2) numpy array of its elements (validated later, cell by cell)."""
    try:  # object dtype keeps each element's own type: a bool stays a bool (and is refused)
        arr = np.asarray(array, dtype=object)
    except (ValueError, TypeError) as exc:
        raise error(f"{what} must be a 2x2 array [[tp, fn], [fp, tn]]; cannot read it ({exc})") \
            from None
    if arr.shape != (2, 2):
        raise error(f"{what} must have shape (2, 2) as [[tp, fn], [fp, tn]], got shape "
                    f"{arr.shape}")
    return arr


def _cells_array(cells: tuple[float | int, ...]) -> np.ndarray:
    """A 2x2 array; object dtype when a cell is an exact int beyond 2**53."""
    exact = any(isinstance(v, int) for v in cells)
    return np.array([[cells[0], cells[1]], [cells[2], cells[3]]],
                    dtype=object if exact else float)


def _exact_cost(cells: tuple[float | int, ...], costs: _Cells) -> float:
    """``sum(cells x costs)`` in exact rational arithmetic, rounded once: an intermediate
    overflow of float64 cannot spoil it; ``inf`` if the result itself does not fit."""
    exact = sum(Fraction(c) * Fraction(v) for c, v in zip(costs.cells(), cells, strict=True))
    try:
        return float(exact)
    except OverflowError:
        return math.inf


def _cost(cells: tuple[float | int, ...], costs: _Cells, what: str = "cost") -> float:
    """``sum(cells x costs)``; refuses a result that overflows float64 (assumes valid cells).

    Computed in float64; when that overflows (possibly only in an intermediate sum, with costs
    of both signs) it is recomputed exactly, and refused only if the result cannot be held.
    """
    with np.errstate(all="ignore"):
        value = float(np.dot(np.array([float(v) for v in cells]), np.array(costs.cells())))
    if not math.isfinite(value):
        value = _exact_cost(cells, costs)
    if not math.isfinite(value):
        costs_text = ", ".join(f"{k}={format_number(v)}" for k, v in costs.to_dict().items()
                               if v)
        raise OverflowInputError(
            f"costs too large: the {what} overflows float64 (costs {costs_text or '0'} with "
            f"{format_number(_sum(*cells))} instances); rescale the costs (divide them all by "
            "the same factor)")
    return value


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
        return _cells_array(self.cells())

    def to_frame(self) -> pd.DataFrame:
        """DataFrame with rows ``true P, true N`` and columns ``predicted P, predicted N``."""
        import pandas as pd

        return pd.DataFrame(
            self.to_array(),
            index=pd.Index(list(CLASSES), name="true"),
            columns=pd.Index(list(CLASSES), name="predicted"),
        )

    def __repr__(self) -> str:
        cells = ", ".join(f"{k}={format_number(v)}" for k, v in zip(CELLS, self.cells()))
        return f"{type(self).__name__}({cells})"

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=f"{type(self).__name__}: rows true class, "
                                                   "columns prediction")


@dataclass(frozen=True, repr=False)
class Confusion(_Cells):
    """A binary confusion matrix: how often each (true class, prediction) pair occurred.

    Cells are non-negative finite numbers. They are usually integer counts; fractional
    values are allowed for expected counts (``rates x class sizes``), and
    :attr:`is_integral` says which kind a matrix is.

    Cells are stored as floats, which hold every integer up to ``2**53`` exactly. Integer
    counts beyond that (given as Python or numpy integers) are kept as exact Python ints, and
    the derived counts (``positives``, ``errors``, ...) add them exactly, so the count form of
    the bounds stays exact at any size (``to_array`` then has dtype ``object``).

    Parameters
    ----------
    tp, fn, fp, tn : float
        True positives (class P predicted P), false negatives (P predicted N),
        false positives (N predicted P), true negatives (N predicted N).

    Raises
    ------
    CountError
        If a cell is negative, infinite, NaN or beyond float64's range, or the cells' total
        overflows float64.
    InputTypeError
        If a cell is not a real number (a string, None, a bool, ...); also a ``TypeError``.

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
            value = _as_count(f.name, getattr(self, f.name), CountError)
            if value < 0:
                raise CountError(f"confusion cell {f.name} must be >= 0, got {value!r}")
            object.__setattr__(self, f.name, value)
        total = _sum(*self.cells())
        try:
            finite = math.isfinite(float(total))
        except OverflowError:
            finite = False
        if not finite:
            raise CountError(
                f"confusion cells too large: their total overflows float64 (cells "
                f"{', '.join(format_number(v) for v in self.cells())}); rescale them")

    # -- derived quantities -------------------------------------------------------------
    @property
    def positives(self) -> float:
        """Instances of class P (``tp + fn``)."""
        return _sum(self.tp, self.fn)

    @property
    def negatives(self) -> float:
        """Instances of class N (``fp + tn``)."""
        return _sum(self.fp, self.tn)

    @property
    def total(self) -> float:
        """All instances."""
        return _sum(self.tp, self.fn, self.fp, self.tn)

    @property
    def errors(self) -> float:
        """Mistakes (``fn + fp``)."""
        return _sum(self.fn, self.fp)

    @property
    def is_integral(self) -> bool:
        """Whether every cell is a whole number (a count rather than an expectation)."""
        return all(float(v).is_integer() for v in self.cells())

    def cost(self, costs: CostMatrix) -> float:
        """Total cost of these outcomes under ``costs`` (element-wise product, summed).

        >>> Confusion(tp=40, fn=60, fp=20, tn=180).cost(CostMatrix(fn=5, fp=1))
        320.0

        Raises
        ------
        OverflowInputError
            If the cost overflows float64 (it would be infinite or NaN).
        """
        if not isinstance(costs, CostMatrix):
            raise InputTypeError(f"costs must be a CostMatrix, got {type(costs).__name__}")
        return _cost(self.cells(), costs)

    # -- conversions --------------------------------------------------------------------
    @classmethod
    def from_array(cls, array: Sequence[Sequence[float]] | np.ndarray) -> Confusion:
        """Build from a 2x2 array ``[[tp, fn], [fp, tn]]`` (rows true class, order P, N).

        Integer arrays (and object arrays of Python ints) keep counts beyond ``2**53`` exact.

        >>> Confusion.from_array([[80, 20], [40, 160]])
        Confusion(tp=80, fn=20, fp=40, tn=160)
        """
        arr = _read_array(array, "a confusion array", ValidationError)
        return cls(*(v.item() if isinstance(v, np.generic) else v for v in arr.ravel()))

    @classmethod
    def from_mapping(cls, cells: Mapping[str, float]) -> Confusion:
        """Build from a mapping with exactly the keys ``tp``, ``fn``, ``fp``, ``tn``."""
        if not isinstance(cells, Mapping):
            raise InputTypeError(f"cells must be a mapping such as {{'tp': 80, 'fn': 20, "
                                 f"'fp': 40, 'tn': 160}}, got {type(cells).__name__}")
        keys = set(cells)
        if keys != set(CELLS):
            missing = sorted(set(CELLS) - keys)
            unknown = sorted(map(str, keys - set(CELLS)))
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
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise InputTypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
        try:
            cells = {k: frame.loc[t, p] for k, (t, p) in
                     zip(CELLS, (("P", "P"), ("P", "N"), ("N", "P"), ("N", "N")))}
        except KeyError as exc:
            raise ValidationError(
                "a confusion DataFrame needs index and columns labelled 'P' and 'N' "
                f"(true class rows, prediction columns); missing {exc}"
            ) from None
        return cls(**{k: v.item() if isinstance(v, np.generic) else v for k, v in cells.items()})

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
        arr = _read_array(matrix, "from_sklearn's matrix (a 2x2 matrix)", ValidationError)
        p, n = _label_positions(labels, positive)
        cells = [arr[p, p], arr[p, n], arr[n, p], arr[n, n]]
        return cls(*(v.item() if isinstance(v, np.generic) else v for v in cells))

    def to_sklearn(self, labels: Sequence[Any] = (0, 1), positive: Any = 1) -> np.ndarray:
        """The matrix as scikit-learn prints it for ``labels`` (inverse of ``from_sklearn``)."""
        p, n = _label_positions(labels, positive)
        out = np.empty((2, 2), dtype=self.to_array().dtype)
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

        try:
            y_true = np.asarray(list(y_true))
            y_pred = np.asarray(list(y_pred))
            observed = set(np.unique(np.concatenate([y_true, y_pred])).tolist())
            others = observed - {positive}
        except (TypeError, ValueError) as exc:
            raise InputTypeError(f"y_true and y_pred must be sequences of hashable, comparable "
                                 f"labels and positive one such label ({exc})") from None
        if y_true.ndim != 1 or y_true.shape != y_pred.shape:
            raise ValidationError(f"y_true and y_pred must be flat sequences of the same length, "
                                  f"got shapes {y_true.shape} and {y_pred.shape}")
        if len(others) > 1:
            raise ValidationError(
                f"binary labels expected: besides the positive {positive!r} found "
                f"{sorted(map(str, others))}"
            )
        if not others:  # only positives were seen
            tp = int(np.sum((y_true == positive) & (y_pred == positive)))
            return cls(tp=tp, fn=0, fp=0, tn=0)
        cm = confusion_matrix(y_true, y_pred, labels=[positive, others.pop()])
        return cls.from_array(cm)


def _label_positions(labels: Any, positive: Any) -> tuple[int, int]:
    """Row of the positive and of the negative label in scikit-learn's order."""
    try:
        labels = list(labels)
    except TypeError:
        raise InputTypeError(f"labels must be a sequence of two labels, got "
                             f"{type(labels).__name__}") from None
    if len(labels) != 2 or _same(labels[0], labels[1]):
        raise ValidationError(f"labels must be two different labels (as given to scikit-learn), "
                              f"got {_show(labels)}")
    if not any(_same(label, positive) for label in labels):
        raise ValidationError(f"positive label {_show(positive)} is not among labels "
                              f"{_show(labels)}")
    p = 0 if _same(labels[0], positive) else 1
    return p, 1 - p


def _same(a: Any, b: Any) -> bool:
    """Whether two labels are equal (labels that cannot be compared are different)."""
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):
        return False


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
        If a cost is not finite (or what a mistake adds, ``fn - tp`` or ``fp - tn``, overflows
        float64), or a hit costs more than the mistake of its class.
    InputTypeError
        If a cost is not a real number; also a ``TypeError``.

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
        for mistake, hit in (("fn", "tp"), ("fp", "tn")):
            if not math.isfinite(getattr(self, mistake) - getattr(self, hit)):
                raise CostMatrixError(
                    f"cost {mistake} - {hit} (what a mistake adds) overflows float64 with "
                    f"{mistake}={getattr(self, mistake):g}, {hit}={getattr(self, hit):g}; "
                    "rescale the costs")

    @classmethod
    def from_mapping(cls, costs: Mapping[str, float]) -> CostMatrix:
        """Build from a mapping of cell names; missing hits default to 0, mistakes are required."""
        if not isinstance(costs, Mapping):
            raise InputTypeError(f"costs must be a mapping such as {{'fn': 5, 'fp': 1}}, got "
                                 f"{type(costs).__name__}")
        unknown = sorted(map(str, set(costs) - set(CELLS)))
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
        """Build from ``[[tp, fn], [fp, tn]]``.

        >>> CostMatrix.from_array([[0, 5], [1, 0]])
        CostMatrix(tp=0, fn=5, fp=1, tn=0)
        """
        arr = _read_array(array, "a cost array", CostMatrixError)
        return cls(*(v.item() if isinstance(v, np.generic) else v for v in arr.ravel()))
