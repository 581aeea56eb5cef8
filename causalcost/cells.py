"""Numbers in a confusion or cost matrix: validated one cell at a time, added exactly.

The helpers behind :mod:`causalcost.confusion` (which re-exports them for the rest of the
package): a cell is a finite real number; a count is stored as a float up to ``2**53`` and as
an exact Python int beyond, so that sums of counts stay exact at any size; a cost (a sum of
count x cost) is computed in float64 and, when that overflows, once more in exact rational
arithmetic, and refused only when the result itself cannot be held in a float64.
These helpers assume nothing about the matrix's shape; the names of the four binary cells
(``tp, fn, fp, tn``) and their text form (``"tp=80,fn=20,fp=40,tn=160"``) live here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.display import EXACT_LIMIT, format_number, html_table
from causalcost.errors import (
    CountError,
    InputTypeError,
    OverflowInputError,
    ValidationError,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CELLS", "CLASSES", "OUTCOMES", "parse_cells"]

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


def _exact_dot(counts: Sequence[float | int], costs: Sequence[float]) -> float:
    """``sum(counts x costs)`` in exact rational arithmetic, rounded once: an intermediate
    overflow of float64 cannot spoil it; ``inf`` if the result itself does not fit."""
    exact = sum(Fraction(c) * Fraction(v) for c, v in zip(costs, counts, strict=True))
    try:
        return float(exact)
    except OverflowError:
        return math.inf


def _exact_cost(cells: tuple[float | int, ...], costs: Any) -> float:
    """:func:`_exact_dot` of four binary cells and a binary cost matrix."""
    return _exact_dot(cells, costs.cells())


def matrix_cost(counts: Sequence[float | int], costs: Sequence[float], what: str,
                shown_costs: str | Callable[[], str]) -> float:
    """``sum(counts x costs)`` (flat, same order); refuses a result that overflows float64.

    Computed in float64; when that overflows (possibly only in an intermediate sum, with costs
    of both signs) it is recomputed exactly, and refused only if the result cannot be held.
    Assumes validated cells (finite, and counts whose total fits in float64). ``shown_costs``
    (text, or a function giving it) describes the costs in the message.

    >>> matrix_cost([1e308, 1.0], [1.0, -1.0], "cost", "..."), matrix_cost([2, 3], [1, 2], "", "")
    (1e+308, 8.0)
    """
    with np.errstate(all="ignore"):
        value = float(np.dot(np.array([float(v) for v in counts]),
                             np.asarray(costs, dtype=float)))
    if not math.isfinite(value):
        value = _exact_dot(counts, costs)
    if not math.isfinite(value):
        total = _sum(*counts)
        shown = format_number(total) if abs(total) < 10**20 else f"{float(total):.6g}"
        costs_text = shown_costs() if callable(shown_costs) else shown_costs
        raise OverflowInputError(
            f"costs too large: the {what} overflows float64 (costs {costs_text or '0'} with "
            f"{shown} instances); rescale the costs (divide them all by the same factor)")
    return value


def _cost(cells: tuple[float | int, ...], costs: Any, what: str = "cost") -> float:
    """``sum(cells x costs)`` for four binary cells and a matrix with named cells (``costs``
    has ``cells()`` and ``to_dict()``); see :func:`matrix_cost`."""
    shown = ", ".join(f"{k}={format_number(v)}" for k, v in costs.to_dict().items() if v)
    return matrix_cost(cells, costs.cells(), what, shown)


class _Cells:
    """Shared behaviour of 2x2 matrices with named cells ``tp, fn, fp, tn`` (the slot's model
    cost matrices; confusion and system cost matrices are :mod:`causalcost.confusion`'s)."""

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
        return cells_array(self.cells(), 2)

    def to_frame(self) -> pd.DataFrame:
        """DataFrame with rows ``true P, true N`` and columns ``predicted P, predicted N``."""
        return label_frame(self.to_array(), CLASSES)

    def __repr__(self) -> str:
        cells = ", ".join(f"{k}={format_number(v)}" for k, v in zip(CELLS, self.cells()))
        return f"{type(self).__name__}({cells})"

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=f"{type(self).__name__}: rows true class, "
                                                   "columns prediction")


def cells_array(cells: Sequence[float | int], k: int) -> np.ndarray:
    """A (k, k) array of ``cells`` (row by row); object dtype when a cell is an exact int
    beyond 2**53, float otherwise."""
    exact = any(isinstance(v, int) for v in cells)
    return np.array(cells, dtype=object if exact else float).reshape(k, k)


def label_frame(matrix: np.ndarray, labels: Sequence[str], rows: str = "true",
                columns: str = "predicted") -> pd.DataFrame:
    """A (K, K) matrix as a DataFrame, labels on both axes (rows the true class)."""
    import pandas as pd

    names = list(labels)
    return pd.DataFrame(matrix, index=pd.Index(names, name=rows),
                        columns=pd.Index(names, name=columns))
