"""Input checks for the bounds of any K: forced runs, the candidate's confusion, the costs.

Shapes and orientation, stated once (see :mod:`causalcost.pricing.general`): the forced
runs are ``F[j, c, s]`` (slot forced to label ``j``, true class ``c``, system output ``s``), the
candidate's confusion ``N[c, j]`` (true, predicted) and the costs ``C[c, s]`` (true, system
output). Counts are kept as exact Python ints (object arrays) when every entry is integral;
the helpers after the checks assume validated arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from causalcost.errors import CostMatrixError, CountError, InputTypeError, ValidationError

__all__ = ["LP_COUNT_LIMIT", "as_table_array", "check_costs", "check_counts", "check_labels",
           "is_table",
           "is_integral"]

#: Counts the linear programs accept (HiGHS computes in float64; beyond this the integer
#: optimum could not be read back exactly).
LP_COUNT_LIMIT = 2**50


def _array(name: str, value: object, ndim: int, k: int | None) -> np.ndarray:
    if isinstance(value, (str, bytes)) or value is None:
        raise InputTypeError(f"{name} must be an array of numbers, got {type(value).__name__}")
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        value = value.to_numpy()
    try:
        arr = np.asarray(value, dtype=object)
    except (TypeError, ValueError) as err:  # ragged nested lists
        raise InputTypeError(f"{name} must be a rectangular array of numbers ({err})") from None
    want = "(K, K, K)" if ndim == 3 else "(K, K)"
    if arr.ndim != ndim or len(set(arr.shape)) != 1 or arr.shape[0] < 2:
        raise ValidationError(
            f"{name} must have shape {want} with K >= 2 labels, got shape {arr.shape}")
    if k is not None and arr.shape[0] != k:
        raise ValidationError(
            f"{name} has {arr.shape[0]} labels but the other inputs have {k}; give every "
            "array over the same labels")
    for v in arr.flat:
        if isinstance(v, (bool, np.bool_)) or not isinstance(
                v, (int, float, np.integer, np.floating)):
            raise InputTypeError(f"{name} must hold real numbers, got {v!r}")
    return arr


def is_integral(arr: np.ndarray) -> bool:
    """Whether every entry of ``arr`` is a whole number."""
    return all(float(v).is_integer() if not isinstance(v, (int, np.integer)) else True
               for v in arr.flat)


def check_counts(name: str, value: object, ndim: int, k: int | None = None, *,
                 integer: bool = False) -> np.ndarray:
    """Non-negative finite counts of shape (K,)*ndim; exact ints (object array) when integral.

    Raises
    ------
    CountError
        A negative, infinite or NaN count, or a fractional one when ``integer``.
    """
    arr = _array(name, value, ndim, k)
    for idx, v in np.ndenumerate(arr):
        f = float(v)
        if not np.isfinite(f) or f < 0:
            raise CountError(f"{name}{list(idx)} = {v!r}: counts must be finite and >= 0")
        if integer and not (isinstance(v, (int, np.integer)) or f.is_integer()):
            raise CountError(
                f"{name}{list(idx)} = {v!r} is not a whole number; the count form needs "
                "integer counts (pass same_instances=False for the probability form)")
    if is_integral(arr):
        return np.vectorize(int, otypes=[object])(arr)
    return arr.astype(float)


def check_costs(value: object, k: int | None = None) -> np.ndarray:
    """A finite (K, K) cost matrix ``C[c, s]`` in which a hit never costs more than a miss.

    Raises
    ------
    CostMatrixError
        A non-finite cost, or ``C[c, c] > C[c, s]`` for some ``s`` (the cell is named).
    """
    arr = _array("costs", value, 2, k).astype(float)
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise CostMatrixError(f"costs{list(bad)} = {arr[bad]!r}: every cost must be finite")
    for c in range(arr.shape[0]):
        for s in range(arr.shape[0]):
            if arr[c, c] > arr[c, s]:
                raise CostMatrixError(
                    f"costs[{c}, {c}] = {arr[c, c]:g} exceeds costs[{c}, {s}] = {arr[c, s]:g}: "
                    "the right output must not cost more than a wrong one in the same row "
                    "(rows are the true class); lower the diagonal or raise that cell")
    return arr


def check_labels(labels: Sequence[Any] | None, k: int) -> tuple[str, ...]:
    """The K label names (``"0" .. "K-1"`` when not given), distinct."""
    if labels is None:
        return tuple(str(i) for i in range(k))
    if isinstance(labels, str):
        raise InputTypeError(f"labels must be a list of label names, got {labels!r}")
    labels = tuple(str(v) for v in labels)
    if len(labels) != k:
        raise ValidationError(f"labels has {len(labels)} names but the arrays have {k} labels")
    if len(set(labels)) != k:
        raise ValidationError(f"labels must be distinct, got {list(labels)}")
    return labels


def as_table_array(table: object) -> np.ndarray:
    """A (K, K, K) table ``T[c, j, s]`` from an array or anything with ``to_numpy()``.

    Raises
    ------
    ValidationError
        A wrong shape, or a row ``T[c, j, :]`` that is not a distribution.
    """
    arr = np.asarray(table.to_numpy() if hasattr(table, "to_numpy") else table, dtype=float)
    if arr.ndim != 3 or len(set(arr.shape)) != 1 or arr.shape[0] < 2:
        raise ValidationError(f"the interventional table must have shape (K, K, K), got "
                              f"{arr.shape}")
    if not np.all(np.isfinite(arr)) or arr.min() < 0 or not np.allclose(arr.sum(axis=2), 1,
                                                                        atol=1e-9):
        raise ValidationError("every row T[c, j, :] of the interventional table must be a "
                              "probability distribution over the system outputs")
    return arr


def is_table(value: object) -> bool:
    """Whether ``value`` is an interventional table ``T[c, j, s]`` object (rates, not counts):
    it has ``to_numpy()`` and a ``probabilities`` array."""
    return hasattr(value, "to_numpy") and hasattr(value, "probabilities")
