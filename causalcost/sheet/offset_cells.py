"""A K-label score sheet's system side: per class its instances' offset vectors, exact or in
cells.

A slot giving a probability vector ``p`` to a system that says ``argmax_k (A p + r)_k``
(:mod:`causalcost.pricing.score_vectors`) is described, per instance, by its **offset vector**
``r``. :class:`OffsetCells` keeps one class's vectors, exact or grouped into at most ``B``
cells (boxes); :func:`~causalcost.sheet.offset_pricing.price_offset_cells` prices a candidate
against every class, each bound on the corner of each cell that keeps it valid.
:class:`~causalcost.sheet.score_sheet.ScoreSheet` holds one :class:`OffsetCells` per label
when it has K > 2 labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from causalcost.errors import SheetError, ValidationError
from causalcost.sheet.critical import (
    MAX_COUNT,
    _counts,
    _json_counts,
    _readonly,
    breakpoint_count,
    json_kind,
    json_rows,
)

__all__ = ["OffsetCells"]


@dataclass(frozen=True, eq=False)
class OffsetCells:
    """One class's offset vectors (a K-label score slot), exact or grouped into cells.

    A K-label score sheet keeps, per true class, what the system adds to the slot's part on
    each of the class's instances: the **offset vector** ``r`` (the system says
    ``argmax_k (A p + r)_k``, :mod:`causalcost.pricing.score_vectors`). Exact: every
    instance's vector, in the log's row order. On cells (``breakpoints=B``): at most ``B``
    boxes, each holding ``count`` instances whose vectors lie between the box's ``lower`` and
    ``upper`` corners entry by entry.

    **Rounding outward.** The decision is monotone in each entry: raising ``r_k`` (leaving the
    rest) can only move the system towards ``k``, in floating point too (a rounded sum is
    monotone in each term). So on the box's corner with the true class's entry at ``upper`` and
    every other at ``lower`` (:meth:`corner` ``favour=True``) the system says the true class
    whenever any vector of the box does; on the opposite corner it says a wrong label whenever
    any vector of the box does. The sheet prices each bound on the corner that keeps it
    valid (:mod:`causalcost.sheet.score_sheet`).

    Attributes
    ----------
    lower : numpy.ndarray of float, shape (rows, K)
        The offset vectors (exact) or each cell's lower corner.
    upper : numpy.ndarray of float or None
        Each cell's upper corner (entry by entry at least ``lower``); ``None``: exact.
    counts : numpy.ndarray of int or None
        Instances per row (``None``: one each).

    Examples
    --------
    >>> cells = OffsetCells.of([[0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.9, 0.0, 0.1]],
    ...                        breakpoints=2)
    >>> cells.size, cells.exact, cells.counts.tolist()
    (3, False, [2, 1])
    >>> cells.corner(0, favour=True)[0].tolist(), cells.corner(0, favour=False)[0].tolist()
    ([0.3, 0.4, 0.3], [0.2, 0.5, 0.3])
    """

    lower: np.ndarray
    upper: np.ndarray | None = None
    counts: np.ndarray | None = None

    def __post_init__(self) -> None:
        low = np.asarray(self.lower, dtype=float)
        if low.ndim != 2 or (low.size == 0 and low.shape[0] != 0):
            raise ValidationError(f"offsets: one vector of K entries per row, got shape "
                                  f"{low.shape}")
        if not np.isfinite(low).all():
            raise ValidationError("offsets: finite numbers (an offset vector is the other "
                                  "members' part and the intercepts)")
        object.__setattr__(self, "lower", _readonly(low))
        if self.upper is not None:
            high = np.asarray(self.upper, dtype=float)
            if high.shape != low.shape or not np.isfinite(high).all():
                raise ValidationError(f"upper: finite corners of the shape of the lower ones "
                                      f"{low.shape}, got {high.shape}")
            if (high < low).any():
                raise ValidationError("upper: each cell's upper corner is at least its lower "
                                      "corner in every entry")
            object.__setattr__(self, "upper", _readonly(high))
        if self.counts is not None:
            counts = _counts(self.counts, "counts", low.shape[0])
            if (counts < 1).any():
                raise ValidationError("counts: every cell holds at least one instance")
            object.__setattr__(self, "counts", _readonly(counts))

    @classmethod
    def of(cls, offsets: Any, breakpoints: int | None = None, k: int | None = None
           ) -> OffsetCells:
        """The offset vectors ``offsets`` (shape (rows, K)), exact or in at most
        ``breakpoints`` cells.

        Cells: identical vectors share one row; while more distinct vectors remain than
        ``breakpoints``, the cell of the largest spread (its widest entry's range times its
        instances) is split at the median of that entry. Exact when the distinct vectors
        fit (they are then kept once each, with their counts).
        """
        r = np.asarray(offsets, dtype=float)
        if r.size == 0:
            r = r.reshape(0, k if k is not None else (r.shape[-1] if r.ndim == 2 else 0))
        if r.ndim != 2:
            raise ValidationError(f"offsets: shape (rows, K), got {r.shape}")
        if breakpoints is None:
            return cls(r)
        kept = breakpoint_count(breakpoints)
        distinct, counts = np.unique(r, axis=0, return_counts=True)
        if distinct.shape[0] <= kept:
            return cls(distinct, None, counts)
        cells = _split_cells(distinct, counts, kept)
        low = np.array([distinct[c].min(axis=0) for c in cells])
        high = np.array([distinct[c].max(axis=0) for c in cells])
        n = np.array([counts[c].sum() for c in cells], dtype=np.int64)
        order = np.lexsort(low.T[::-1])
        return cls(low[order], high[order], n[order])

    @property
    def k(self) -> int:
        """The number of labels (entries per vector)."""
        return int(self.lower.shape[1])

    @property
    def size(self) -> int:
        """How many instances."""
        return int(self.lower.shape[0] if self.counts is None else self.counts.sum())

    @property
    def exact(self) -> bool:
        """Whether every instance's vector is kept (no cell wider than one vector)."""
        return self.upper is None or bool(np.array_equal(self.upper, self.lower))

    @property
    def cells(self) -> int:
        """Rows kept (vectors, or cells)."""
        return int(self.lower.shape[0])

    def corner(self, c: int, favour: bool) -> np.ndarray:
        """Per instance (rows repeated by their counts) the vector the system is priced on:
        exact, the vector; on cells, the corner that makes the system say class ``c`` the
        most (``favour=True``: ``c``'s entry upper, the rest lower) or the least."""
        if self.upper is None:
            rows = self.lower
        else:
            take = np.zeros(self.k, dtype=bool)
            take[c] = True
            if not favour:
                take = ~take
            rows = np.where(take, self.upper, self.lower)
        return rows if self.counts is None else np.repeat(rows, self.counts, axis=0)

    def leads(self, c: int, rounding: str) -> np.ndarray:
        """Per instance and label ``k`` the lead ``r_c - r_k`` of class ``c``'s entry (the
        other members' margin for the true class), cells read at their ``"down"`` or ``"up"``
        end (equal on an exact sheet); column ``c`` is dropped."""
        if rounding not in ("down", "up"):
            raise ValidationError(f"rounding must be 'down' or 'up', got {rounding!r}")
        high = self.lower if self.upper is None else self.upper
        own, rest = (self.lower, high) if rounding == "down" else (high, self.lower)
        lead = np.delete(own[:, [c]] - rest, c, axis=1)
        return lead if self.counts is None else np.repeat(lead, self.counts, axis=0)

    def to_dict(self) -> dict[str, Any]:
        """Plain values: ``rows`` (the vectors, or the lower corners), ``upper`` and
        ``counts`` (``null`` on an exact sheet of one row per instance)."""
        return {"rows": self.lower.tolist(),
                "upper": None if self.upper is None else self.upper.tolist(),
                "counts": None if self.counts is None else self.counts.tolist()}

    @classmethod
    def from_dict(cls, data: Any, name: str, k: int) -> OffsetCells:
        """Read :meth:`to_dict`'s form for ``k`` labels, checking every value's JSON type
        (:class:`~causalcost.errors.SheetError` naming the field, e.g. ``offsets.a.rows``).

        >>> OffsetCells.from_dict({"rows": [[0.1, "x", 0.0]], "upper": None, "counts": None},
        ...                       "offsets.a", 3)
        Traceback (most recent call last):
        ...
        causalcost.errors.SheetError: offsets.a.rows: rows of 3 finite numbers, got the string 'x' at row 0, entry 1
        """  # noqa: E501
        keys = ("rows", "upper", "counts")
        if not isinstance(data, Mapping):
            raise SheetError(f"{name}: an object with keys {list(keys)}, got {json_kind(data)}")
        unknown = sorted(str(key) for key in set(data) - set(keys))
        missing = [key for key in keys if key not in data]
        if unknown or missing:
            raise SheetError(f"{name}: unknown keys {unknown}, missing {missing}; the keys are "
                             f"{list(keys)}")
        low = json_rows(data["rows"], f"{name}.rows", k)
        high = None if data["upper"] is None else json_rows(data["upper"], f"{name}.upper", k)
        if high is not None and len(high) != len(low):
            raise SheetError(f"{name}.upper: {len(high)} corners for {len(low)} rows; one "
                             "upper corner per cell")
        if high is not None:
            for i, (a, b) in enumerate(zip(low, high)):
                if any(y < x for x, y in zip(a, b)):
                    raise SheetError(f"{name}.upper: row {i} lies below its lower corner; "
                                     "each upper corner is at least the lower in every entry")
        counts = None if data["counts"] is None else \
            _json_counts(data["counts"], f"{name}.counts", len(low))
        if counts is not None and any(v < 1 for v in counts):
            raise SheetError(f"{name}.counts: every cell holds at least one instance (a count "
                             ">= 1)")
        if counts is not None and sum(counts) > MAX_COUNT:
            raise SheetError(f"{name}: more than 2**53 instances in all; counts of a sheet are "
                             "exact whole numbers below 2**53")
        return cls(np.array(low, dtype=float).reshape(-1, k),
                   None if high is None else np.array(high, dtype=float).reshape(-1, k),
                   None if counts is None else np.array(counts, dtype=np.int64))


def _split_cells(rows: np.ndarray, counts: np.ndarray, kept: int) -> list[np.ndarray]:
    """Row indices of at most ``kept`` cells of ``rows`` (distinct vectors weighing
    ``counts``): the cell of the largest spread (widest entry's range times its instances) is
    split at the median of that entry, until ``kept`` cells or none can be split."""
    import heapq

    def entry(cell: np.ndarray) -> tuple[float, int]:
        span = rows[cell].max(axis=0) - rows[cell].min(axis=0)
        j = int(np.argmax(span))
        return float(span[j]) * float(counts[cell].sum()), j

    start = np.arange(rows.shape[0])
    spread, j = entry(start)
    heap = [(-spread, 0, j, start)]
    done: list[np.ndarray] = []
    tick = 1
    while heap and len(heap) + len(done) < kept:
        spread, _, j, cell = heapq.heappop(heap)
        if spread == 0:
            done.append(cell)
            continue
        values = rows[cell, j]
        middle = float(np.median(values))
        left = values <= middle if middle < values.max() else values < middle
        for part in (cell[left], cell[~left]):
            s, jj = entry(part)
            heapq.heappush(heap, (-s, tick, jj, part))
            tick += 1
    return done + [cell for *_, cell in heap]
