"""The system's cost matrix ``C[c, s]``: the price of each (true class, system output) pair.

Orientation and the binary names as in :mod:`causalcost.confusion` (rows the true class).
A mistake never costs less than the hit of its true class, ``C[c, c] <= C[c, s]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from causalcost.cells import CELLS, _as_real, parse_cells
from causalcost.errors import CostMatrixError, InputTypeError
from causalcost.labelled import (
    _MISSING,
    LabelledMatrix,
    _cell_name,
    _read_array,
    _scalar,
    _show,
    plain_floats,
)

__all__ = ["CostMatrix", "as_costs"]


@dataclass(frozen=True, repr=False, init=False)
class CostMatrix(LabelledMatrix):
    """The price of each system outcome: a cost ``C[c, s]`` per (true class, system output).

    Costs are finite; a mistake never costs less than the hit of the same true class:
    ``C[c, c] <= C[c, s]`` (binary: ``tp <= fn`` and ``tn <= fp``). Binary hits default to 0
    and mistakes to 1.

    Parameters
    ----------
    matrix : (K, K) array-like, DataFrame or object with ``to_numpy()``
        ``C[c, s]``, rows the true class; labelled inputs are matched to ``labels`` by name.
    labels : sequence, optional
        The K labels in row order; ``("P", "N")`` for K = 2 when not given.
    tp, fn, fp, tn : float
        Instead of ``matrix``, the binary costs of a true positive, false negative, false
        positive and true negative.

    Raises
    ------
    CostMatrixError
        If a cost is not finite (or what a mistake adds, ``C[c, s] - C[c, c]``, overflows
        float64), or a hit costs more than a mistake of its class.
    InputTypeError
        If a cost is not a real number; also a ``TypeError``.

    Examples
    --------
    >>> CostMatrix(fn=5, fp=1)
    CostMatrix(tp=0, fn=5, fp=1, tn=0)
    >>> CostMatrix(fn=5, fp=1).to_array().tolist()
    [[0.0, 5.0], [1.0, 0.0]]
    >>> CostMatrix([[0, 1, 1], [5, 0, 5], [2, 2, 0]], labels=["ok", "flu", "covid"]).labels
    ('ok', 'flu', 'covid')
    """

    matrix: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]
    _what = "cost matrix"
    _error = CostMatrixError
    _defaults = {"tp": 0.0, "fn": 1.0, "fp": 1.0, "tn": 0.0}

    def __init__(self, *cells: Any, labels: Iterable[Any] | None = None, matrix: Any = _MISSING,
                 tp: Any = _MISSING, fn: Any = _MISSING, fp: Any = _MISSING,
                 tn: Any = _MISSING) -> None:
        self._setup(cells, labels, matrix, {"tp": tp, "fn": fn, "fp": fp, "tn": tn},
                    self._defaults)

    def _check(self, cells: list[Any], labels: tuple[str, ...]) -> list[float | int]:
        k = len(labels)
        out = plain_floats(cells) or [
            _as_real(f"cost {_cell_name(i, labels, 'output')}", v, CostMatrixError)
            for i, v in enumerate(cells)]
        rows = [out[c * k:(c + 1) * k] for c in range(k)]
        for c, row in enumerate(rows):
            if row[c] > min(row):
                s = next(s for s, v in enumerate(row) if row[c] > v)
                raise CostMatrixError(_hit_message(c, s, out, labels))
        for c, row in enumerate(rows):
            if not math.isfinite(max(row) - row[c]):
                s = next(s for s, v in enumerate(row) if not math.isfinite(v - row[c]))
                miss, hit = row[s], row[c]
                if k == 2:
                    m, h = CELLS[c * 2 + s], CELLS[c * 3]
                    text = f"cost {m} - {h} (what a mistake adds) overflows float64 with " \
                           f"{m}={miss:g}, {h}={hit:g}"
                else:
                    text = (f"cost (true {labels[c]!r}, output {labels[s]!r}) = {miss:g} "
                            f"minus the hit's cost {hit:g} (what a mistake adds) overflows "
                            "float64")
                raise CostMatrixError(f"{text}; rescale the costs")
        return out

    @classmethod
    def from_matrix(cls, matrix: Any, labels: Iterable[Any] | None = None) -> CostMatrix:
        """Build from a (K, K) matrix ``C[c, s]`` and its K labels; the same as
        ``CostMatrix(matrix, labels=labels)``."""
        return cls(matrix, labels=labels)

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


def _hit_message(c: int, s: int, out: list[float], labels: tuple[str, ...]) -> str:
    k = len(labels)
    hit, miss = out[c * k + c], out[c * k + s]
    if k == 2 and c == 0:
        return (f"cost tp={hit:g} exceeds cost fn={miss:g}: a hit on a positive must not cost "
                "more than missing it; raise fn or lower tp")
    if k == 2:
        return (f"cost tn={hit:g} exceeds cost fp={miss:g}: a hit on a negative must not cost "
                "more than a false alarm; raise fp or lower tn")
    a, b = labels[c], labels[s]
    return (f"cost (true {a!r}, output {a!r}) = {hit:g} exceeds cost (true {a!r}, output "
            f"{b!r}) = {miss:g}: the right output must not cost more than a wrong one for the "
            "same true class (rows are the true class); lower the first or raise the second")


def as_costs(costs: Any, labels: Iterable[Any] | None = None) -> CostMatrix:
    """``costs`` as a :class:`CostMatrix` over ``labels``: a CostMatrix (reordered by name), a
    (K, K) array (read in ``labels``' order) or an object with ``to_numpy()`` and ``labels``.

    >>> as_costs([[0, 1], [4, 0]], ["b", "a"]).reorder(["a", "b"]).matrix
    ((0.0, 4.0), (1.0, 0.0))

    Raises
    ------
    InputTypeError
        Anything else (a string, a mapping, a number).
    ValidationError
        Costs over other label names, or of another size.
    """
    if isinstance(costs, CostMatrix):
        if labels is None or costs.labels == labels:
            return costs
        return costs.reorder(labels)
    if _scalar(costs) or isinstance(costs, Mapping):
        raise InputTypeError(f"costs must be a CostMatrix or a (K, K) array of costs (rows the "
                             f"true class), got {type(costs).__name__} {_show(costs)}")
    return CostMatrix(costs, labels=labels)
