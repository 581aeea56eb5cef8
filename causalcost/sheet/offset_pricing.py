"""A K-label score sheet's pricing: a candidate's probability vectors against each class's
offset vectors (:class:`~causalcost.sheet.offset_cells.OffsetCells`), exact or at the corner
of each cell that keeps a bound valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from causalcost.errors import InputTypeError, ValidationError
from causalcost.sheet.offset_cells import OffsetCells

if TYPE_CHECKING:
    from causalcost.pricing.scores import ScoreBound

__all__ = ["class_vectors", "price_offset_cells", "price_vector_candidates"]


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
