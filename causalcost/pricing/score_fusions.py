"""K-label score slots whose system fuses the members' vectors by their largest or smallest
entry: ``max`` and ``min`` fusion.

A system that takes, per label, the largest (``max``) or smallest (``min``) probability any
member gives it, then the label of the largest such value (the first on ties), is not linear
in the slot's vector ``p``, but it has the same shape: fix instance ``i`` and every other
member, and with ``R_ik`` the other members' largest (smallest) probability of label ``k``
the system says

    g_i(p) = argmax_k max(p_k, R_ik)        (min fusion: argmax_k min(p_k, R_ik)).

``R_i`` plays the offset vector's part. The decision is exact in floating point (``max`` and
``min`` round nothing). It is **monotone in the slot's winning label**: if the system says
``k`` and the slot's ``p_k`` grows (its other entries shrinking, as on the simplex), ``k``'s
value can only grow and the others' only shrink, so the system keeps saying ``k``; the worst
and best case are still taken over every pairing, so no more than this is needed.

Pricing goes through the pairwise decisions (``O(n_t n_s K)`` time, chunked memory): expected
counts by counting them, the same-instance bounds by the assignment problem on the pairwise
costs and the probability form by the transportation problem, exactly as for the linear
systems of :mod:`causalcost.pricing.score_vectors` (whose fast paths are for ``A p + r``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.errors import ValidationError

__all__ = ["FUSIONS", "pair_decisions", "row_decisions"]

#: The fusions of K-label score slots: ``linear`` (``argmax(A p + r)``: soft voting,
#: stacking), ``max`` and ``min`` (``argmax max(p, R)``, ``argmax min(p, R)``).
FUSIONS = ("linear", "max", "min")
_CHUNK_ELEMENTS = 1 << 22


def check_fusion(fusion: str) -> str:
    """``fusion`` if it is one of :data:`FUSIONS`, else a :class:`ValidationError`."""
    if fusion not in FUSIONS:
        raise ValidationError(f"fusion must be one of {list(FUSIONS)}, got {fusion!r}")
    return fusion


def _combine(fusion: str) -> Any:
    return np.maximum if fusion == "max" else np.minimum


def _float_rows(value: Any, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2:
        raise ValidationError(f"{what} must have shape (rows, K), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValidationError(f"{what} must be finite numbers")
    return arr


def pair_decisions(fusion: str, matrix: Any, offsets: Any, vectors: Any) -> np.ndarray:
    """The system's output on every instance with every vector: ``g[i, j] = g_i(p_j)``.

    ``fusion="linear"`` is :func:`causalcost.pricing.score_vectors.decide` (``matrix`` the
    slot's coefficients); ``"max"`` / ``"min"`` ignore ``matrix``.

    >>> pair_decisions("max", None, [[0.5, 0.0, 0.6], [0.1, 0.1, 0.1]],
    ...                [[0.7, 0.2, 0.1], [0.2, 0.2, 0.6]])
    array([[0, 2],
           [0, 2]])
    """
    if check_fusion(fusion) == "linear":
        from causalcost.pricing.score_vectors import decide

        return decide(matrix, offsets, vectors)
    r, v = _float_rows(offsets, "offsets"), _float_rows(vectors, "vectors")
    if r.shape[1] != v.shape[1]:
        raise ValidationError(f"offsets have {r.shape[1]} columns, vectors {v.shape[1]}")
    out = np.empty((r.shape[0], v.shape[0]), dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // max(1, r.shape[0] * r.shape[1]))
    combine = _combine(fusion)
    for start in range(0, v.shape[0], step):
        out[:, start:start + step] = combine(v[None, start:start + step, :],
                                             r[:, None, :]).argmax(axis=2)
    return out


def row_decisions(fusion: str, matrix: Any, offsets: Any, vectors: Any) -> np.ndarray:
    """The system's output on each instance with its own vector: ``g_i(p_i)``.

    >>> row_decisions("min", None, [[0.5, 0.4, 0.1]], [[0.2, 0.7, 0.1]]).tolist()
    [1]
    """
    if check_fusion(fusion) == "linear":
        from causalcost.pricing.score_vectors import decide_rows

        return decide_rows(matrix, offsets, vectors)
    r, v = _float_rows(offsets, "offsets"), _float_rows(vectors, "vectors")
    if r.shape != v.shape:
        raise ValidationError(f"row decisions pair rows: offsets {r.shape}, vectors {v.shape}")
    return _combine(fusion)(v, r).argmax(axis=1)
