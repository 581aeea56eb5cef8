"""A K-label score sheet's system side: per class its instances' offset vectors, exact or in
cells, and the sheet's pricing of a candidate's probability vectors against them.

A slot giving a probability vector ``p`` to a system that says ``argmax_k (A p + r)_k``
(:mod:`causalcost.pricing.score_vectors`) is described, per instance, by its **offset vector**
``r``. :class:`OffsetCells` keeps one class's vectors, exact or grouped into at most ``B``
cells (boxes); :func:`price_offset_cells` prices a candidate against every class, each bound
on the corner of each cell that keeps it valid. :class:`~causalcost.sheet.score_sheet.ScoreSheet`
holds one :class:`OffsetCells` per label when it has K > 2 labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from causalcost.errors import InputTypeError, SheetError, ValidationError
from causalcost.sheet.critical import (
    MAX_COUNT,
    _counts,
    _json_counts,
    _readonly,
    breakpoint_count,
    json_kind,
    json_rows,
)

if TYPE_CHECKING:
    from causalcost.pricing.scores import ScoreBound

__all__ = ["OffsetCells", "class_vectors", "price_offset_cells", "price_vector_candidates",
           "vector_content", "vector_parts"]


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


def price_offset_cells(matrix: Any, offsets: tuple[OffsetCells, ...], vectors: Any,
                       costs: Any, *, labels: tuple[Any, ...], same_instances: bool,
                       score_range: tuple[float, float] = (0.0, 1.0),
                       fusion: str = "linear", confidence: float | None = None
                       ) -> ScoreBound:
    """A K-label sheet's :class:`~causalcost.pricing.scores.ScoreBound`: exact offsets are
    priced as they are (:func:`~causalcost.pricing.score_vector_price.price_vectors`); cells
    at the corner, and with the cost row, that keep each bound valid.

    **Why the bounds stay valid.** For true class ``c`` with cost row ``C[c]``, let ``d`` be
    the cost of the right answer and ``M`` (``m``) the largest (smallest) cost of a wrong one.
    The worst and expected costs are priced on the row ``C'[c] = (d at c, M elsewhere)``: on
    the corner disfavouring ``c`` when ``d <= M`` (the system says a wrong label whenever any
    vector of the cell does, each wrong answer costing ``M``, at least its own cost), and
    favouring ``c`` when ``d > M`` (it says ``c``, the dearer answer, whenever any vector
    does). So for every pair of an instance and a candidate vector the priced cost is at least
    the exact one, and so is the expectation over pairs, the costliest pairing and the
    costliest coupling. The best cost is priced the mirror way (``m``; the corner favouring
    ``c`` when ``d <= m``), at most the exact one for every pair. When every wrong label of a
    row costs the same this changes no cost and the worst and best confusions are kept (those
    of the corners); otherwise they are ``None``: the costs bound the sheet's system, the
    corners' confusions do not say which wrong label an error goes to. The expected confusion
    is the worse corners' in either case. The same holds for every fusion of
    :mod:`causalcost.pricing.score_fusions`: with ``max`` / ``min`` the system says
    ``argmax_k max(p_k, r_k)`` (``min``), again monotone in each entry of ``r`` and exact in
    floating point.

    Examples
    --------
    Class ``a``'s three instances, two of them in one cell; errors to ``c`` cost 4:

    >>> rows = [[0.5, 0.3, 0.2], [0.45, 0.35, 0.2], [0.2, 0.6, 0.2]]
    >>> none = OffsetCells.of([], k=3)
    >>> exact = (OffsetCells.of(rows), none, none)
    >>> cells = (OffsetCells.of(rows, breakpoints=2), none, none)
    >>> vectors = [[[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.4, 0.3, 0.3]], [], []]
    >>> costs = [[0, 1, 4], [1, 0, 1], [1, 1, 0]]
    >>> for offsets in (exact, cells):
    ...     b = price_offset_cells(1.0, offsets, vectors, costs, labels=("a", "b", "c"),
    ...                            same_instances=True)
    ...     print(b.best_cost, b.worst_cost, b.worst is None)
    1.0 2.0 False
    1.0 8.0 True
    """
    import dataclasses

    from causalcost.cost_matrix import as_costs
    from causalcost.pricing.score_vector_price import price_vectors

    cost_matrix = as_costs(costs, labels)
    extra: dict[str, Any] = {} if confidence is None else {"confidence": confidence}
    if all(o.exact for o in offsets):
        bound = price_vectors(matrix, [o.corner(c, True) for c, o in enumerate(offsets)],
                              vectors, cost_matrix, labels=labels,
                              same_instances=same_instances, score_range=score_range,
                              fusion=fusion, **extra)
        return dataclasses.replace(bound, costs=cost_matrix)
    if confidence is not None:
        raise ValidationError(
            "confidence: the high-confidence case is computed on every offset vector; this "
            "sheet keeps them on cells (breakpoints=): derive the sheet without breakpoints, "
            "or leave confidence out")
    full = np.asarray(cost_matrix.to_numpy(), dtype=float)
    k = len(labels)
    sides = {}
    for side in ("worse", "better"):
        rows, corners = np.empty_like(full), []
        for c in range(k):
            right, wrong = full[c, c], np.delete(full[c], c)
            edge = wrong.max() if side == "worse" else wrong.min()
            rows[c] = edge
            rows[c, c] = right
            favour = right > edge if side == "worse" else right <= edge
            corners.append(offsets[c].corner(c, favour))
        sides[side] = price_vectors(matrix, corners, vectors, rows, labels=labels,
                                    same_instances=same_instances, score_range=score_range,
                                    fusion=fusion), rows
    (worse, rows_w), (better, rows_b) = sides["worse"], sides["better"]
    kept = np.array_equal(rows_w, full) and np.array_equal(rows_b, full)
    return dataclasses.replace(
        worse, costs=cost_matrix, worst=worse.worst if kept else None,
        best=better.best if kept else None, best_cost=better.best_cost)


def class_vectors(vectors: Any, labels: tuple[str, ...], score_range: tuple[float, float],
                  many: bool = False) -> list[np.ndarray]:
    """A candidate's probability vectors per class (label order), each read by
    :func:`~causalcost.score_values.read_score_vectors` under the sheet's rule: a sequence of
    one array per label, or ``{label: array}`` (labels compared as text); arrays (n_c, K), or
    (candidates, n_c, K) with ``many``. An absent or empty class has no vectors.

    >>> class_vectors({"b": [[0.2, 0.7, 0.1]]}, ("a", "b", "c"), (0.0, 1.0))[1].tolist()
    [[0.2, 0.7, 0.1]]
    """
    from causalcost.score_values import read_score_vectors

    k = len(labels)
    if isinstance(vectors, Mapping):
        given = {str(c): v for c, v in vectors.items()}
        unknown = sorted(set(given) - set(labels))
        if unknown:
            raise ValidationError(f"vectors: classes {unknown} are not labels of the sheet "
                                  f"{list(labels)}")
        per_class = [given.get(c) for c in labels]
    elif isinstance(vectors, (str, bytes)) or not isinstance(vectors, (Sequence, np.ndarray)):
        raise InputTypeError(f"vectors must be given per class: a sequence of {k} arrays "
                             f"(label order {list(labels)}) or {{label: array}}, got "
                             f"{type(vectors).__name__}")
    else:
        per_class = list(vectors)
        if len(per_class) != k:
            raise ValidationError(f"vectors: {len(per_class)} classes for the {k} labels "
                                  f"{list(labels)}; give one array per class")
    out = []
    for label, value in zip(labels, per_class):
        what = f"vectors of class {label!r}"
        if value is None or (not isinstance(value, pd.DataFrame) and np.size(value) == 0):
            out.append(np.zeros((0, 0, k)) if many else np.zeros((0, k)))
        elif many:
            arr = np.asarray(value)
            if arr.ndim != 3 or arr.shape[2] != k:
                raise ValidationError(f"{what} must have shape (candidates, n, {k}), got "
                                      f"{arr.shape}")
            flat = read_score_vectors(arr.reshape(-1, k), what, labels=labels,
                                      score_range=score_range)
            out.append(flat.reshape(arr.shape))
        else:
            out.append(read_score_vectors(value, what, labels=labels,
                                          score_range=score_range))
    return out


def price_vector_candidates(matrix: Any, offsets: tuple[OffsetCells, ...], vectors: Any,
                            costs: Any, *, labels: tuple[str, ...],
                            score_range: tuple[float, float], same_instances: bool,
                            names: Sequence[Any] | None = None,
                            fusion: str = "linear") -> pd.DataFrame:
    """Many candidates, one row each (:func:`price_offset_cells` one after another): per
    class a (candidates, n_c, K) array. Columns ``eval1``, ``worst_cost``, ``best_cost`` and
    per class the right answers ``expected_right[label]``, ``worst_right[label]`` and
    ``best_right[label]`` (NaN where the bound has no confusion).

    >>> offsets = tuple(OffsetCells.of(r, k=3) for r in ([[0.5, 0.3, 0.2]], [], []))
    >>> table = price_vector_candidates(1.0, offsets, [[[[0.1, 0.8, 0.1]], [[0.9, 0.0, 0.1]]],
    ...                                 [], []], 1 - np.eye(3), labels=("a", "b", "c"),
    ...                                 score_range=(0.0, 1.0), same_instances=True)
    >>> table["worst_cost"].tolist(), table["worst_right[a]"].tolist()
    ([1.0, 0.0], [0.0, 1.0])
    """
    import math

    k = len(labels)
    per_class = class_vectors(vectors, labels, score_range, many=True)
    counts = {v.shape[0] for v in per_class if v.shape[1]}
    if len(counts) > 1:
        raise ValidationError(f"vectors: the classes give {sorted(counts)} candidates; every "
                              "class needs one array per candidate")
    m = counts.pop() if counts else 0
    if names is not None and len(names) != m:
        raise ValidationError(f"names: {len(names)} names for {m} candidates")
    columns = ["eval1", "worst_cost", "best_cost"] + [
        f"{case}_right[{label}]" for case in ("expected", "worst", "best") for label in labels]
    rows = []
    for j in range(m):
        b = price_offset_cells(matrix, offsets,
                               [v[j] if v.shape[1] else np.zeros((0, k)) for v in per_class],
                               costs, labels=labels, same_instances=same_instances,
                               score_range=score_range, fusion=fusion)
        row = [b.expected_cost, b.worst_cost, b.best_cost]
        for confusion in (b.expected, b.worst, b.best):
            row += [math.nan if confusion is None else float(confusion.matrix[c][c])
                    for c in range(k)]
        rows.append(row)
    index = pd.Index(list(names) if names is not None else range(m), name="candidate")
    return pd.DataFrame(rows, index=index, columns=columns, dtype=float)


def vector_parts(labels: Any, costs: Any, matrix: Any, offsets: Any, fusion: Any = "linear"
                 ) -> tuple[tuple[str, ...], Any, np.ndarray, tuple[OffsetCells, ...], str]:
    """A K-label score sheet's fields checked and normalised: the labels as text (K >= 3,
    distinct), the K x K costs, the slot's K x K finite matrix (read-only) and one
    :class:`OffsetCells` of K entries per label, and the fusion
    (:data:`~causalcost.pricing.score_fusions.FUSIONS`).

    >>> parts = vector_parts([0, 1, 2], 1 - np.eye(3), 2 * np.eye(3),
    ...                      [OffsetCells.of([[0.0, 1.0, 0.0]])] * 3)
    >>> parts[0], parts[2][0].tolist()
    (('0', '1', '2'), [2.0, 0.0, 0.0])
    >>> vector_parts(["a", "b"], 1 - np.eye(2), np.eye(2), [])
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: labels: a K-label score sheet has K >= 3 distinct labels, got ['a', 'b'] (two labels: critical scores)
    """  # noqa: E501
    from causalcost.cost_matrix import as_costs
    from causalcost.pricing.score_fusions import FUSIONS

    if fusion not in FUSIONS:
        raise ValidationError(f"fusion: one of {list(FUSIONS)} (how the system fuses the "
                              f"members' vectors), got {fusion!r}")
    if offsets is None or matrix is None:
        raise ValidationError("a K-label score sheet needs both offsets= (per class) and "
                              "matrix= (the slot's K x K coefficients)")
    names = tuple(str(v) for v in labels)
    k = len(names)
    if k < 3 or len(set(names)) != k:
        raise ValidationError(f"labels: a K-label score sheet has K >= 3 distinct labels, got "
                              f"{list(names)} (two labels: critical scores)")
    a = np.asarray(matrix, dtype=float)
    if a.shape != (k, k) or not np.isfinite(a).all():
        raise ValidationError(f"matrix: the slot's coefficients, {k} x {k} finite numbers, got "
                              f"shape {a.shape}")
    cells = tuple(offsets)
    if len(cells) != k or not all(isinstance(o, OffsetCells) for o in cells):
        raise ValidationError(f"offsets: one OffsetCells per label {list(names)}")
    bad = next((c for c, o in zip(names, cells) if o.k != k and o.cells), None)
    if bad is not None:
        raise ValidationError(f"offsets of class {bad!r}: vectors of {k} entries, one per "
                              "label")
    return names, as_costs(costs, names), _readonly(a), cells, str(fusion)


def vector_content(costs: Any, rule: str, models: tuple[str, ...], matrix: np.ndarray,
                   labels: tuple[str, ...], offsets: tuple[OffsetCells, ...],
                   fusion: str = "linear") -> dict[str, Any]:
    """The K-label fields of a score sheet's JSON (:mod:`causalcost.sheet.score_format`):
    ``costs`` (K rows), ``rule``, ``models``, ``fusion``, ``matrix`` and ``offsets`` per
    label.

    >>> from causalcost.cost_matrix import as_costs
    >>> body = vector_content(as_costs(1 - np.eye(3), ("a", "b", "c")), "mean", ("m1", "m2"),
    ...                       np.eye(3), ("a", "b", "c"), (OffsetCells.of([[0.1, 0.2, 0.7]]),
    ...                       OffsetCells.of([], k=3), OffsetCells.of([], k=3)))
    >>> body["offsets"]["a"], body["costs"][0]
    ({'rows': [[0.1, 0.2, 0.7]], 'upper': None, 'counts': None}, [0.0, 1.0, 1.0])
    """
    return {"costs": np.asarray(costs.to_numpy(), dtype=float).tolist(), "rule": rule,
            "models": list(models), "fusion": fusion, "matrix": matrix.tolist(),
            "offsets": {c: o.to_dict() for c, o in zip(labels, offsets)}}
