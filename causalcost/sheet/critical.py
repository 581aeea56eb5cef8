"""One class's system side of a score sheet, exact or rounded outward.

Two labels (:class:`CriticalScores`): a score sheet (:mod:`causalcost.sheet.score_sheet`)
keeps, per class, the critical scores of the owner's instances on sorted finite
*breakpoints*: ``at[k]`` equal to ``b[k]``, ``between[k]`` strictly between ``b[k]`` and
``b[k + 1]``, ``always`` at ``-inf`` and ``never`` at ``+inf``. Nothing *between* means exact;
a score in a gap is read rounded up or down, whichever keeps a bound valid.

K labels: :mod:`causalcost.sheet.offset_cells` (per class the instances' offset vectors, exact
or in cells read at the corner that keeps a bound valid); the JSON readers here serve both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from causalcost.errors import InputTypeError, SheetError, ValidationError

__all__ = ["MAX_COUNT", "CriticalScores", "breakpoint_count", "json_kind", "json_rows"]


def breakpoint_count(value: Any, name: str = "breakpoints") -> int:
    """``breakpoints=``: the most finite critical scores kept per class, a whole number >= 2.

    Examples
    --------
    >>> breakpoint_count(200), breakpoint_count(np.int64(3)), breakpoint_count(8.0)
    (200, 3, 8)
    >>> breakpoint_count(float("nan"))
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: breakpoints must be a whole number >= 2 (the most finite critical scores kept per class), got nan; give e.g. breakpoints=200, or leave it out for an exact sheet
    """  # noqa: E501
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a whole number >= 2 (the most finite critical "
                             f"scores kept per class), got {type(value).__name__} {value!r}; "
                             f"give e.g. {name}=200, or leave it out for an exact sheet")
    number = float(value) if isinstance(value, (float, np.floating)) else int(value)
    if not (math.isfinite(number) and number == int(number) and number >= 2):
        raise ValidationError(f"{name} must be a whole number >= 2 (the most finite critical "
                              f"scores kept per class), got {number!r}; give e.g. {name}=200, "
                              "or leave it out for an exact sheet")
    return int(number)


def _counts(values: Any, name: str, size: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.shape != (size,):
        raise ValidationError(f"{name}: {arr.size} counts where {size} are needed")
    if arr.size and (arr.dtype.kind not in "iu" and not np.all(np.mod(arr, 1) == 0)):
        raise ValidationError(f"{name}: counts must be whole numbers")
    arr = arr.astype(np.int64)
    if (arr < 0).any():
        raise ValidationError(f"{name}: counts cannot be negative")
    return arr


@dataclass(frozen=True, eq=False)
class CriticalScores:
    """One class's critical scores, exact or on breakpoints (see the module).

    Attributes
    ----------
    breakpoints : numpy.ndarray of float
        Sorted distinct finite values.
    at : numpy.ndarray of int
        Critical scores equal to each breakpoint.
    between : numpy.ndarray of int
        Critical scores strictly between consecutive breakpoints (one fewer).
    always, never : int
        Critical scores ``-inf`` (the system says P whatever the slot's score) and ``+inf``
        (never P).

    Examples
    --------
    >>> c = CriticalScores.of([0.2, 0.5, 0.5, 0.9, float("inf")], breakpoints=2)
    >>> c.breakpoints.tolist(), c.at.tolist(), c.between.tolist(), c.never
    ([0.2, 0.9], [1, 1], [2], 1)
    >>> c.values("up").tolist(), c.values("down").tolist()
    ([0.2, 0.9, 0.9, 0.9, inf], [0.2, 0.2, 0.2, 0.9, inf])
    """

    breakpoints: np.ndarray
    at: np.ndarray
    between: np.ndarray
    always: int = 0
    never: int = 0

    def __post_init__(self) -> None:
        b = np.asarray(self.breakpoints, dtype=float).reshape(-1)
        if not np.isfinite(b).all():
            raise ValidationError("breakpoints must be finite numbers (infinite critical "
                                  "scores are counted by 'always' and 'never')")
        if (np.diff(b) <= 0).any():
            raise ValidationError("breakpoints must be strictly increasing")
        object.__setattr__(self, "breakpoints", _readonly(b))
        object.__setattr__(self, "at", _readonly(_counts(self.at, "at", b.size)))
        object.__setattr__(self, "between",
                           _readonly(_counts(self.between, "between", max(b.size - 1, 0))))
        for name in ("always", "never"):
            value = getattr(self, name)
            if isinstance(value, bool) or int(value) != value or value < 0:
                raise ValidationError(f"{name}: a count of instances, got {value!r}")
            object.__setattr__(self, name, int(value))

    @classmethod
    def of(cls, critical: Any, breakpoints: int | None = None) -> CriticalScores:
        """The distribution of ``critical`` (a 1-d array; ``-inf`` / ``+inf`` allowed), exact
        or on at most ``breakpoints`` finite values (quantiles of the distinct values, the
        smallest and the largest among them)."""
        t = np.asarray(critical, dtype=float).reshape(-1)
        if np.isnan(t).any():
            raise ValidationError("critical scores cannot be NaN")
        finite = np.sort(t[np.isfinite(t)])
        always, never = int((t == -np.inf).sum()), int((t == np.inf).sum())
        distinct = np.unique(finite)
        if breakpoints is not None:
            kept = breakpoint_count(breakpoints)
            if distinct.size > kept:
                ranks = np.unique(np.round(np.linspace(0, distinct.size - 1,
                                                       kept)).astype(int))
                distinct = distinct[ranks]
        if distinct.size == 0:
            return cls(np.zeros(0), np.zeros(0, int), np.zeros(0, int), always, never)
        at = np.searchsorted(finite, distinct, "right") - np.searchsorted(finite, distinct,
                                                                          "left")
        below = np.searchsorted(finite, distinct, "left")  # strictly below each breakpoint
        between = np.diff(below) - at[:-1]
        return cls(distinct, at, between, always, never)

    @property
    def size(self) -> int:
        """How many instances."""
        return int(self.at.sum() + self.between.sum()) + self.always + self.never

    @property
    def exact(self) -> bool:
        """Whether every critical score is a breakpoint (nothing rounded)."""
        return not self.between.any()

    def values(self, rounding: str) -> np.ndarray:
        """Every critical score, sorted, those in a gap rounded ``"up"`` or ``"down"``."""
        if rounding not in ("up", "down"):
            raise ValidationError(f"rounding must be 'up' or 'down', got {rounding!r}")
        counts = self.at.copy()  # per breakpoint, the scores read as it: sorted by building
        if rounding == "up":
            counts[1:] += self.between
        else:
            counts[:-1] += self.between
        return np.concatenate([np.full(self.always, -np.inf),
                               np.repeat(self.breakpoints, counts),
                               np.full(self.never, np.inf)])

    def to_dict(self) -> dict[str, Any]:
        """Plain values (finite floats and counts)."""
        return {"breakpoints": self.breakpoints.tolist(), "at": self.at.tolist(),
                "between": self.between.tolist(), "always": self.always, "never": self.never}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], name: str = "critical") -> CriticalScores:
        """Read :meth:`to_dict`'s form, refusing unknown or missing keys and checking every
        value's JSON type before use (:class:`~causalcost.errors.SheetError` naming the
        field, e.g. ``critical.P.at``).

        Examples
        --------
        >>> CriticalScores.from_dict({"breakpoints": [0.5], "at": [None], "between": [],
        ...                           "always": 0, "never": 0}, "critical.P")
        Traceback (most recent call last):
        ...
        causalcost.errors.SheetError: critical.P.at: a list of counts (whole numbers >= 0), got null at position 0
        """  # noqa: E501
        keys = ("breakpoints", "at", "between", "always", "never")
        if not isinstance(data, Mapping):
            raise SheetError(f"{name}: an object with keys {list(keys)}, got "
                             f"{json_kind(data)}")
        unknown = sorted(str(k) for k in set(data) - set(keys))
        missing = [k for k in keys if k not in data]
        if unknown or missing:
            raise SheetError(f"{name}: unknown keys {unknown}, missing {missing}; the keys are "
                             f"{list(keys)}")
        b = data["breakpoints"]
        if not isinstance(b, list):
            raise SheetError(f"{name}.breakpoints: a list of finite numbers in increasing "
                             f"order, got {json_kind(b)}")
        for k, v in enumerate(b):
            if isinstance(v, bool) or not isinstance(v, (int, float)) \
                    or not math.isfinite(float(v)):
                raise SheetError(f"{name}.breakpoints: finite numbers in increasing order, got "
                                 f"{json_kind(v)} at position {k}")
            if k and not float(b[k - 1]) < float(v):
                raise SheetError(f"{name}.breakpoints: finite numbers in strictly increasing "
                                 f"order, got {b[k - 1]!r} then {v!r} at position {k}")
        at = _json_counts(data["at"], f"{name}.at", len(b))
        between = _json_counts(data["between"], f"{name}.between", max(len(b) - 1, 0))
        always, never = (_json_count(data[k], f"{name}.{k}") for k in ("always", "never"))
        if sum(at) + sum(between) + always + never > MAX_COUNT:
            raise SheetError(f"{name}: more than 2**53 instances in all; counts of a sheet are "
                             "exact whole numbers below 2**53")
        return cls(np.array(b, dtype=float), np.array(at, dtype=np.int64),
                   np.array(between, dtype=np.int64), always, never)


#: The largest count a sheet file may hold (float64 counts every whole number up to it).
MAX_COUNT = 2**53


def json_kind(value: Any) -> str:
    """A JSON value described in a message: ``null``, ``true``, ``the number 3``, ``the string
    'x'``, ``a list of 2 values``, ``an object``, shortened (never Python's type names).

    >>> json_kind(None), json_kind([1, 2]), json_kind("x" * 60)[:24]
    ('null', 'a list of 2 values', "the string 'xxxxxxxxxxxx")
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value) if isinstance(value, float) or abs(value) < 10**15 else \
            f"an integer of {len(str(abs(value)))} digits"
        return f"the number {text}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {shown!r}"
    if isinstance(value, list):
        return f"a list of {len(value)} value{'' if len(value) == 1 else 's'}"
    if isinstance(value, Mapping):
        return "an object"
    return "a value that is not JSON"


def _json_count(value: Any, name: str) -> int:
    """A count read from JSON: a whole number in [0, 2**53] (``3.0`` reads as 3)."""
    ok = not isinstance(value, bool) and (
        isinstance(value, int) or (isinstance(value, float) and value.is_integer()))
    if not ok or not 0 <= value <= MAX_COUNT:
        raise SheetError(f"{name}: a count of instances (a whole number from 0 to 2**53), got "
                         f"{json_kind(value)}")
    return int(value)


def _json_counts(values: Any, name: str, size: int) -> list[int]:
    if not isinstance(values, list):
        raise SheetError(f"{name}: a list of {size} counts (whole numbers >= 0), got "
                         f"{json_kind(values)}")
    out = []
    for k, v in enumerate(values):
        try:
            out.append(_json_count(v, name))
        except SheetError:
            raise SheetError(f"{name}: a list of counts (whole numbers >= 0), got "
                             f"{json_kind(v)} at position {k}") from None
    if len(out) != size:
        raise SheetError(f"{name}: {len(out)} counts where the breakpoints need {size}")
    return out


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


def json_rows(value: Any, name: str, k: int) -> list[list[float]]:
    """A list of rows of ``k`` finite numbers read from JSON (:class:`SheetError` naming the
    field, the row and the entry).

    >>> json_rows([[1, 2.5]], "matrix", 2)
    [[1.0, 2.5]]
    """
    if not isinstance(value, list):
        raise SheetError(f"{name}: a list of rows of {k} finite numbers, got "
                         f"{json_kind(value)}")
    out = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != k:
            raise SheetError(f"{name}: rows of {k} finite numbers, got {json_kind(row)} at "
                             f"row {i}")
        for j, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, (int, float)) \
                    or not math.isfinite(float(v)):
                raise SheetError(f"{name}: rows of {k} finite numbers, got {json_kind(v)} at "
                                 f"row {i}, entry {j}")
        out.append([float(v) for v in row])
    return out
