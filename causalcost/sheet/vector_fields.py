"""A K-label score sheet's own fields: checked and normalised when the sheet is made, and
written as the JSON body of its format (:mod:`causalcost.sheet.score_format`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.errors import ValidationError
from causalcost.sheet.critical import _readonly
from causalcost.sheet.offset_cells import OffsetCells

__all__ = ["vector_content", "vector_parts"]


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
