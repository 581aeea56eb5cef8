"""Price a score slot with K labels: the slot gives a probability vector, the system an argmax.

A K-class system fuses its members' probability vectors, by soft voting (a weighted mean of
the members' ``predict_proba`` vectors, then argmax) or stacking (a multinomial linear
meta-model on the members' vectors, then argmax). Fix one instance ``i`` and every member but
the slot; with the slot's vector ``p`` (K entries) the system says

    g_i(p) = argmax_k ( q_k + r_ik ),     q = A p,     ties: the lowest k (numpy's argmax)

where ``A`` is a K x K matrix (soft voting: ``w_slot * I``; stacking: the meta-model's
coefficients on the slot's K features) and ``r_i`` the instance's **offset vector** (the other
members' part and the intercepts). K = 2 with ``A = w I`` is the binary critical score of
:mod:`causalcost.pricing.scores` (label 0 is P, label 1 is N: ``p = (s, 1 - s)``).

**The decision, in floating point, in one stated order.** ``q_jk`` is the sum over ``l`` of
``A[k, l] * p_jl`` added left to right (``l = 0, 1, ..., K-1``; for a diagonal ``A`` it is
the one product ``A[k, k] * p_jk``, as the other terms add exact zeros), then
``z_ijk = q_jk + r_ik`` (one rounding) and ``g_i(p_j)`` is the first ``k`` with the largest
``z_ijk``. :func:`decide` computes exactly this, and every other function of this module counts
exactly these decisions: a near-tie decided one way by the rounding is counted that way.

**Expected outcomes** (:func:`outcome_counts`, :func:`expected_outcomes`): per output label
``s``, the share of pairs ``(i, j)`` with ``g_i(p_j) = s``: the candidate's vectors
independent of the instance, so the expected cost of class ``c`` is ``C[c] @ shares``. The
counts are exact integers. The brute force is ``O(n_t n_s K)`` per candidate; for K = 2 and
K = 3 (any ``A``) the counts come from dominance counts on key differences:

* K = 3: with ``X = (q1 - q0, q2 - q0, q1 - q2)`` of a vector and
  ``Y = (r0 - r1, r0 - r2, r2 - r1)`` of an instance, the output is 0 iff ``X1 <= Y1`` and
  ``X2 <= Y2``, 1 iff ``X1 > Y1`` and ``X3 >= Y3``, else 2: two 2-D dominance counts, answered
  per vector from two cumulative tables over the instances' key ranks (``O(B^2)`` to build
  for a block of ``B`` instances, then ``O(1)`` per vector and block after ranking its keys);
* K = 2: one key, one cumulative count.

Ranks come from a uniform lookup grid over the vectors' keys (exact; a key near an instance
key is searched by :func:`numpy.searchsorted`). **Exactness.** With ``|q| <= Q`` and
``|r| <= R``, the float decision of a comparison agrees with the key comparison whenever the
float keys differ by more than ``4 u (Q + R)`` (``u = 2^-53``: each of ``z``, ``X`` and ``Y``
carries one rounding); a vector with any key within the margin ``2^-48 (Q + R)`` of an
instance key (exact ties included) is recounted by the brute force against every distinct
offset vector. Offsets are deduplicated first (identical rows weigh their count), so systems
with hard votes or repeated values stay cheap; a worst case built of near-ties throughout
falls back to the brute force (``O(n_t n_s K)``). K >= 4 uses the chunked brute force over
the distinct offsets, ``O(n_s n_u K)`` per candidate with ``n_u`` distinct offset vectors.

**Same instances** (:func:`same_instance_bounds`): the candidate's ``n`` vectors were measured
on the class's ``n`` instances, pairing unknown: the worst and best total cost over every
pairing are an assignment problem on the ``n x n`` cost matrix ``C[c, g_i(p_j)]``
(:func:`scipy.optimize.linear_sum_assignment`, ``O(n^3)`` worst case, after ``O(n^2 K)`` for
the matrix). When the matrix takes only two values (``C[c] = (0, 5, 5)``: right or wrong), a
maximum bipartite matching on the pairs of the high value (the low value) gives the worst
(best) case (Hopcroft-Karp, :func:`scipy.sparse.csgraph.maximum_bipartite_matching`,
``O(n^2.5)``): the pairs left unmatched can only be paired at the other value, or the matching
was not maximum.

**Probability form** (:func:`probability_bounds`): the vectors were measured on other
instances of the class; the worst and best expected cost of one instance over every coupling
of the two empirical distributions (uniform on the vectors, uniform on the offsets) are a
transportation problem with cost ``C[c, g_i(p_j)]``. Identical vectors, identical offsets,
and then instances (vectors) with the same row (column) of costs are merged, exactly; the
reduced problem is solved by HiGHS (:func:`scipy.optimize.linprog`) with integer supplies, so
its optimum is attained at an integral flow, which is rounded, checked feasible and priced
exactly. For equal sizes the optimum over couplings is attained at a permutation (Birkhoff),
so the assignment problem gives it too (the default then: far faster than the LP). Many
candidates at once: :mod:`causalcost.pricing.score_vector_many` (closed-form cuts for K = 3
and a cost row of two values). For larger problems ``method="grid"`` groups offsets
and vectors into cells of a quantile grid over their key differences and gives each pair of
cells the **largest** member pair cost for the worst case and the **smallest** for the best
case: every coupling of the original induces one of the cells costing at least (at most) as
much, so the gridded worst is at least the true worst and the gridded best at most the true
best.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse
from scipy.optimize import linear_sum_assignment, linprog
from scipy.sparse.csgraph import maximum_bipartite_matching, maximum_flow

from causalcost.errors import InfeasibleInputError, InputTypeError, ValidationError

__all__ = ["ProbabilityBounds", "SameInstanceBounds", "decide", "decide_rows", "expected_outcomes",
           "outcome_counts", "probability_bounds", "same_instance_bounds"]

#: Float elements of one chunk of the brute force (bounds its memory: 32 MiB of float64).
_CHUNK_ELEMENTS = 1 << 22
#: Distinct offset vectors per block of the dominance tables (two (B+1)^2 tables per block).
_BLOCK = 1024
#: The margin around an instance key within which a vector is recounted by the brute force,
#: relative to ``Q + R``; the decision can disagree with the key comparison only within
#: ``4 u (Q + R) = 2^-51 (Q + R)``.
_MARGIN = 2.0 ** -48
#: Magnitudes above this would overflow ``q + r`` or the key differences.
_LARGEST = 2.0 ** 1000
#: Variables of the transportation problem solved as a linear program by default.
_LP_VARIABLES = 200_000


# ------------------------------------------------------------------------------ inputs
def _as_float_array(value: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"{what} must be an array of real numbers; cannot read it "
                             f"({exc})") from None
    return arr


def _finite(arr: np.ndarray, what: str) -> np.ndarray:
    bad = ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValidationError(f"{what} must be finite numbers: position {where} holds "
                              f"{arr[where]!r}; drop or impute it")
    if arr.size and float(np.abs(arr).max()) > _LARGEST:
        raise ValidationError(f"{what} holds magnitudes above 2^1000, where sums overflow; "
                              "rescale the scores")
    return arr


def _rows(value: Any, what: str, k: int | None = None, ndim: int = 2) -> np.ndarray:
    """``value`` as a finite float array of ``ndim`` dimensions whose last axis has K
    entries (K = ``k`` when given)."""
    arr = _as_float_array(value, what)
    if arr.ndim != ndim:
        shape = "(rows, K)" if ndim == 2 else "(candidates, rows, K)"
        raise ValidationError(f"{what} must be a {ndim}-dimensional array of shape {shape}, "
                              f"got shape {arr.shape}; give one row of K numbers per instance")
    if k is not None and arr.shape[-1] != k:
        raise ValidationError(f"{what} has {arr.shape[-1]} columns but the system has K = {k} "
                              f"labels; give one column per label")
    return _finite(arr, what)


def _slot_matrix(A: Any, k: int) -> np.ndarray:
    """``A`` as a finite K x K matrix; a number ``a`` is ``a * I`` (soft voting)."""
    arr = _as_float_array(A, "A")
    if arr.ndim == 0:
        arr = float(arr) * np.eye(k)
    if arr.shape != (k, k):
        raise ValidationError(f"A must be a K x K matrix (K = {k}, the vectors' length) or a "
                              f"number (a * I), got shape {arr.shape}")
    return _finite(arr, "A")


def _costs_row(costs_row: Any, k: int) -> np.ndarray:
    arr = _as_float_array(costs_row, "costs_row")
    if arr.shape != (k,):
        raise ValidationError(f"costs_row must hold K = {k} costs (row c of the cost matrix: "
                              f"the cost of each system output), got shape {arr.shape}")
    return _finite(arr, "costs_row")


def _inputs(A: Any, offsets: Any, vectors: Any, vector_ndim: int = 2
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, offsets, vectors) checked against one K, the vectors' number of columns."""
    v = _rows(vectors, "vectors", None, vector_ndim)
    k = v.shape[-1]
    if k < 2:
        raise ValidationError(f"vectors must have K >= 2 columns (one per label), got {k}")
    return _slot_matrix(A, k), _rows(offsets, "offsets", k), v


def _nonempty(n: int, what: str) -> None:
    if n == 0:
        raise ValidationError(f"{what} is empty; give at least one row")


# ---------------------------------------------------------------------- the decision
def _slot_part(A: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``q = A p`` per vector, added left to right over ``p``'s entries (the stated order)."""
    if not np.count_nonzero(A - np.diag(np.diag(A))):
        return vectors * np.diag(A)
    q = vectors[..., :1] * A[:, 0]
    for col in range(1, A.shape[1]):
        q = q + vectors[..., col:col + 1] * A[:, col]
    return q


def _argmax_chunks(q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``g[i, j] = argmax_k fl(q_jk + r_ik)``, chunked over the vectors."""
    n_t, k = offsets.shape
    out = np.empty((n_t, q.shape[0]), dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // max(1, n_t * k))
    for start in range(0, q.shape[0], step):
        z = q[None, start:start + step, :] + offsets[:, None, :]
        out[:, start:start + step] = z.argmax(axis=2)
    return out


def decide(A: Any, offsets: Any, vectors: Any) -> np.ndarray:
    """The system's output on every instance with every vector in the slot.

    Parameters
    ----------
    A : array_like, shape (K, K), or float
        The slot's coefficients: ``w_slot * I`` for soft voting (a number ``a`` means
        ``a * I``), the meta-model's coefficients on the slot's K features for stacking.
    offsets : array_like, shape (n_t, K)
        Per instance, the offset vector ``r_i`` (the other members' part and intercepts).
    vectors : array_like, shape (n_s, K)
        The candidate's probability vectors (finite).

    Returns
    -------
    numpy.ndarray of int, shape (n_t, n_s)
        ``g[i, j] = argmax_k (q_jk + r_ik)``, the first largest on ties, with
        ``q_j = A p_j`` added left to right over ``p_j``'s entries and one rounding for
        ``+ r_ik`` (the module's stated order). Memory beyond the result is bounded by
        chunking over the vectors; time ``O(n_t n_s K)`` (``O(n_s K^2)`` for ``q``).

    Examples
    --------
    Soft voting with the slot's weight 1: the first instance leans to label 2, the second is an
    exact tie between labels 0 and 1 for the vector (0.5, 0.5, 0), which goes to label 0:

    >>> decide(1.0, [[0.0, 0.0, 0.6], [0.2, 0.2, 0.0]], [[0.5, 0.5, 0.0], [0.1, 0.1, 0.8]])
    array([[2, 2],
           [0, 2]])
    """
    a, r, v = _inputs(A, offsets, vectors)
    return _argmax_chunks(_slot_part(a, v), r)


# ------------------------------------------------------------- offsets, deduplicated
@dataclass(frozen=True)
class _Offsets:
    """The distinct offset vectors and how many instances hold each."""

    rows: np.ndarray     # (n_u, K) distinct offset vectors
    weights: np.ndarray  # (n_u,) int64 multiplicities

    @classmethod
    def of(cls, offsets: np.ndarray) -> _Offsets:
        rows, weights = np.unique(offsets, axis=0, return_counts=True)
        return cls(rows, weights.astype(np.int64))


def _brute_counts(q: np.ndarray, offsets: _Offsets) -> np.ndarray:
    """Per vector, the weighted count of offsets giving each output: shape (K, n_vec)."""
    n_u, k = offsets.rows.shape
    out = np.empty((k, q.shape[0]), dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // max(1, n_u * k))
    for start in range(0, q.shape[0], step):
        g = (q[start:start + step, None, :] + offsets.rows[None, :, :]).argmax(axis=2)
        for s in range(k):
            out[s, start:start + step] = (g == s) @ offsets.weights
    return out


# --------------------------------------------------------------- ranks on one key axis
def _ranks(values: np.ndarray, x: np.ndarray, side: str, margin: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """``searchsorted(values, x, side)`` and whether some value lies within ``margin`` of x.

    A uniform grid over ``x``'s range answers most queries: a cell with no value within its
    edges widened by ``margin`` plus a slack (far above the rounding of the cell computation)
    has one rank for every query in it, and none of them is near a value. Queries in the other
    cells are searched exactly and checked against their two neighbours.
    """
    n = values.size
    if n == 0 or x.size == 0:
        return np.zeros(x.shape, dtype=np.int64), np.zeros(x.shape, dtype=bool)
    lo, hi = float(x.min()), float(x.max())
    span = hi - lo
    rank = np.zeros(x.shape, dtype=np.int64)
    unsure = np.ones(x.shape, dtype=bool)
    if span > 0:
        cells = int(min(1 << 16, 64 * n))
        h = span / cells
        width = margin + 2.0 ** -30 * (abs(lo) + abs(hi) + span + h)
        edges = lo + h * np.arange(cells + 1)
        below = np.searchsorted(values, edges[:-1] - width, "left")
        upto = np.searchsorted(values, edges[1:] + width, "right")
        cell = ((x - lo) * (1.0 / h)).astype(np.int64)
        np.clip(cell, 0, cells - 1, out=cell)
        rank = below[cell]
        unsure = upto[cell] != rank
    near = np.zeros(x.shape, dtype=bool)
    if unsure.any():
        xs = x[unsure]
        rank[unsure] = np.searchsorted(values, xs, side)
        padded = np.concatenate(([-np.inf], values, [np.inf]))
        left = np.searchsorted(values, xs, "left")  # padded[left] < xs <= padded[left + 1]
        near[unsure] = (xs - padded[left] <= margin) | (padded[left + 1] - xs <= margin)
    return rank, near


# --------------------------------------------------------- dominance tables (K = 2, 3)
def _rank_of(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.unique(keys)
    return values, np.searchsorted(values, keys)


@dataclass(frozen=True)
class _Block3:
    """K = 3 tables over a block of distinct offsets.

    Keys ``Y = (r0 - r1, r0 - r2, r2 - r1)`` with sorted distinct values per key; ``above``
    ``[a, b]`` is the weight of offsets whose key-1 rank is ``>= a`` and key-2 rank ``>= b``
    (output 0 for a vector ranked ``(a, b)``), ``below[a, c]`` the weight with key-1 rank
    ``< a`` and key-3 rank ``< c`` (output 1).
    """

    values: tuple[np.ndarray, np.ndarray, np.ndarray]
    above: np.ndarray
    below: np.ndarray
    total: int

    @classmethod
    def of(cls, rows: np.ndarray, weights: np.ndarray) -> _Block3:
        (v1, a), (v2, b), (v3, c) = (_rank_of(y) for y in _offset_keys3(rows))
        above = np.zeros((v1.size + 1, v2.size + 1), dtype=np.int64)
        np.add.at(above, (a, b), weights)
        above = above[::-1, ::-1].cumsum(axis=0).cumsum(axis=1)[::-1, ::-1]
        below = np.zeros((v1.size + 1, v3.size + 1), dtype=np.int64)
        np.add.at(below, (a + 1, c + 1), weights)
        below = below.cumsum(axis=0).cumsum(axis=1)
        return cls((v1, v2, v3), above, below, int(weights.sum()))

    def counts(self, q: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
        x1, x2, x3 = q[:, 1] - q[:, 0], q[:, 2] - q[:, 0], q[:, 1] - q[:, 2]
        a, near1 = _ranks(self.values[0], x1, "left", margin)
        b, near2 = _ranks(self.values[1], x2, "left", margin)
        c, near3 = _ranks(self.values[2], x3, "right", margin)
        out = np.empty((3, q.shape[0]), dtype=np.int64)
        out[0], out[1] = self.above[a, b], self.below[a, c]
        np.subtract(self.total - out[0], out[1], out=out[2])
        return out, near1 | near2 | near3


def _offset_keys3(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return rows[:, 0] - rows[:, 1], rows[:, 0] - rows[:, 2], rows[:, 2] - rows[:, 1]


@dataclass(frozen=True)
class _Block2:
    """K = 2: the sorted distinct keys ``r0 - r1`` and the weight below each rank."""

    values: np.ndarray
    below: np.ndarray  # below[a] = weight of offsets with rank < a
    total: int

    @classmethod
    def of(cls, rows: np.ndarray, weights: np.ndarray) -> _Block2:
        values, rank = _rank_of(rows[:, 0] - rows[:, 1])
        below = np.concatenate(([0], np.cumsum(np.bincount(rank, weights, values.size))))
        return cls(values, below.astype(np.int64), int(weights.sum()))

    def counts(self, q: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
        a, near = _ranks(self.values, q[:, 1] - q[:, 0], "left", margin)
        out = np.empty((2, q.shape[0]), dtype=np.int64)
        out[1] = self.below[a]
        out[0] = self.total - out[1]  # output 0 iff q1 - q0 <= r0 - r1
        return out, near


def _blocks(offsets: _Offsets) -> list[_Block2 | _Block3]:
    kind = _Block2 if offsets.rows.shape[1] == 2 else _Block3
    return [kind.of(offsets.rows[s:s + _BLOCK], offsets.weights[s:s + _BLOCK])
            for s in range(0, offsets.rows.shape[0], _BLOCK)]


def _fast_counts(q: np.ndarray, offsets: _Offsets) -> np.ndarray:
    """Per vector, the weighted count of offsets giving each output (K = 2 or 3), shape
    (K, n_vec): the dominance tables, then the brute force for vectors near an instance key."""
    scale = float(np.abs(q).max(initial=0.0)) + float(np.abs(offsets.rows).max(initial=0.0))
    margin = _MARGIN * scale
    counts = np.zeros((q.shape[1], q.shape[0]), dtype=np.int64)
    near = np.zeros(q.shape[0], dtype=bool)
    for block in _blocks(offsets):
        found, close = block.counts(q, margin)
        counts += found
        near |= close
    if near.any():
        counts[:, near] = _brute_counts(q[near], offsets)
    return counts


def _counts_per_vector(q: np.ndarray, offsets: _Offsets) -> np.ndarray:
    if q.shape[1] <= 3:
        return _fast_counts(q, offsets)
    return _brute_counts(q, offsets)


# ---------------------------------------------------------------- expected outcomes
def outcome_counts(A: Any, offsets: Any, vectors: Any) -> np.ndarray:
    """Exact counts of the pairs (instance, vector) the system sends to each output label.

    Parameters
    ----------
    A : array_like, shape (K, K), or float
        The slot's coefficients (a number ``a`` means ``a * I``).
    offsets : array_like, shape (n_t, K)
        The offset vectors of one class's instances.
    vectors : array_like, shape (n_s, K) or (m, n_s, K)
        One candidate's vectors, or ``m`` candidates' (``n_s`` each).

    Returns
    -------
    numpy.ndarray of int64, shape (K,) or (m, K)
        ``counts[s] = #{(i, j) : g_i(p_j) = s}``, summing to ``n_t * n_s`` (per candidate).
        The decisions are :func:`decide`'s, rounding included. Time: ``O(n_u^2)`` to build
        the tables for K <= 3 (``n_u`` distinct offsets, in blocks of 1024), then
        ``O(m n_s)`` plus the brute force for vectors within rounding of an instance key;
        ``O(m n_s n_u K)`` for K >= 4.

    Examples
    --------
    >>> outcome_counts(1.0, [[0.0, 0.0, 0.6], [0.2, 0.2, 0.0]],
    ...                [[0.5, 0.5, 0.0], [0.1, 0.1, 0.8]]).tolist()
    [1, 0, 3]
    """
    ndim = np.ndim(vectors) if not isinstance(vectors, (str, bytes)) else 0
    a, r, v = _inputs(A, offsets, vectors, 3 if ndim == 3 else 2)
    _nonempty(r.shape[0], "offsets")
    stack = v if v.ndim == 3 else v[None]
    m, n_s, k = stack.shape
    _nonempty(n_s, "vectors")
    q = _slot_part(a, stack.reshape(m * n_s, k))
    per_vector = _counts_per_vector(q, _Offsets.of(r))
    counts = per_vector.reshape(k, m, n_s).sum(axis=2).T
    return counts if v.ndim == 3 else counts[0]


def expected_outcomes(A: Any, offsets: Any, vectors: Any) -> np.ndarray:
    """Per output label, the share of pairs (instance, vector) the system sends there.

    The candidate's vectors independent of the instance: the expected cost of one instance of
    class ``c`` is ``C[c] @ expected_outcomes(...)``.

    Parameters
    ----------
    A, offsets, vectors
        As for :func:`outcome_counts`.

    Returns
    -------
    numpy.ndarray of float, shape (K,) or (m, K)
        ``outcome_counts(...) / (n_t * n_s)``: the exact integer counts over the number of
        pairs (one rounding each).

    Examples
    --------
    >>> expected_outcomes(1.0, [[0.0, 0.0, 0.6], [0.2, 0.2, 0.0]],
    ...                   [[0.5, 0.5, 0.0], [0.1, 0.1, 0.8]]).tolist()
    [0.25, 0.0, 0.75]
    """
    counts = outcome_counts(A, offsets, vectors)
    pairs = np.asarray(offsets).shape[0] * np.shape(vectors)[-2]
    return counts / pairs


# ------------------------------------------------------------------ same instances
class SameInstanceBounds(NamedTuple):
    """Worst and best total cost of one class over every pairing, with the pairings."""

    worst_cost: float
    best_cost: float
    worst_assignment: np.ndarray  #: worst_assignment[i] = j: instance i gets vector j
    best_assignment: np.ndarray


def _cost_matrix(A: Any, offsets: Any, vectors: Any, costs_row: Any
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(costs_row, M)`` with ``M[i, j] = costs_row[g_i(p_j)]``."""
    a, r, v = _inputs(A, offsets, vectors)
    row = _costs_row(costs_row, v.shape[1])
    return row, row[_argmax_chunks(_slot_part(a, v), r)]


def _assignment(costs: np.ndarray, maximize: bool) -> np.ndarray:
    rows, cols = linear_sum_assignment(costs, maximize=maximize)
    out = np.empty(costs.shape[0], dtype=np.int64)
    out[rows] = cols
    return out


def _matching(allowed: np.ndarray) -> np.ndarray:
    """A permutation using as many ``allowed`` pairs as possible (a maximum matching on them,
    completed by the unmatched rows and columns in order)."""
    n = allowed.shape[0]
    match = maximum_bipartite_matching(sparse.csr_matrix(allowed), perm_type="column")
    match = np.asarray(match, dtype=np.int64)
    free_rows = np.flatnonzero(match < 0)
    taken = np.zeros(n, dtype=bool)
    taken[match[match >= 0]] = True
    match[free_rows] = np.flatnonzero(~taken)
    return match


def _total(costs: np.ndarray, assignment: np.ndarray) -> float:
    return math.fsum(costs[np.arange(costs.shape[0]), assignment].tolist())


def same_instance_bounds(A: Any, offsets: Any, vectors: Any, costs_row: Any, *,
                         method: str = "auto") -> SameInstanceBounds:
    """Worst and best total cost of one class when the vectors are its instances', unpaired.

    Parameters
    ----------
    A : array_like, shape (K, K), or float
        The slot's coefficients (a number ``a`` means ``a * I``).
    offsets : array_like, shape (n, K)
        The offset vectors of the class's ``n`` instances.
    vectors : array_like, shape (n, K)
        The candidate's vectors on the same ``n`` instances, in an unknown order.
    costs_row : array_like, shape (K,)
        Row ``c`` of the cost matrix: the cost of each system output on this class.
    method : {"auto", "assignment", "matching"}
        ``"assignment"``: :func:`scipy.optimize.linear_sum_assignment` on the ``n x n`` cost
        matrix (``O(n^3)`` worst case). ``"matching"``: a maximum bipartite matching on the
        pairs of the high (low) cost, for a matrix taking at most two values
        (``O(n^2.5)``; on dense 0/1-type matrices scipy's Hopcroft-Karp measured slower than
        the assignment at n = 1000). ``"auto"``: the assignment. Either way the matrix costs
        ``O(n^2 K)``.

    Returns
    -------
    SameInstanceBounds
        ``(worst_cost, best_cost, worst_assignment, best_assignment)``: the largest and
        smallest ``sum_i costs_row[g_i(p_sigma(i))]`` over permutations ``sigma`` and
        permutations attaining them (``sigma[i]`` is the vector paired with instance ``i``).

    Raises
    ------
    InfeasibleInputError
        ``vectors`` and ``offsets`` of different lengths.
    ValidationError
        Shapes that do not match one K, non-finite numbers, an unknown method, or
        ``method="matching"`` on a matrix of more than two values.

    Examples
    --------
    A missed instance costs 5: the vector (0.9, 0.1, 0) keeps the first instance right, the
    second instance is right with either vector, so a pairing can cost 5 or nothing:

    >>> b = same_instance_bounds(1.0, [[0.0, 0.5, 0.0], [0.9, 0.0, 0.0]],
    ...                          [[0.9, 0.1, 0.0], [0.2, 0.0, 0.1]], [0, 5, 5])
    >>> b.worst_cost, b.best_cost, b.worst_assignment.tolist(), b.best_assignment.tolist()
    (5.0, 0.0, [1, 0], [0, 1])
    """
    if method not in ("auto", "assignment", "matching"):
        raise ValidationError(f"method must be 'auto', 'assignment' or 'matching', got "
                              f"{method!r}")
    row, costs = _cost_matrix(A, offsets, vectors, costs_row)
    n_t, n_s = costs.shape
    if n_t != n_s:
        raise InfeasibleInputError(
            f"same-instance bounds need one vector per instance: {n_s} vectors for {n_t} "
            "offsets; use probability_bounds for vectors measured on other instances")
    values = np.unique(costs)
    if method == "matching" and values.size > 2:
        raise ValidationError(f"method='matching' needs a cost matrix of at most two values, "
                              f"this one takes {values.size}; use method='assignment'")
    if n_t == 0:
        empty = np.zeros(0, dtype=np.int64)
        return SameInstanceBounds(0.0, 0.0, empty, empty)
    if method != "matching":
        worst, best = _assignment(costs, True), _assignment(costs, False)
    else:
        worst = _matching(costs == values[-1])
        best = _matching(costs == values[0])
    return SameInstanceBounds(_total(costs, worst), _total(costs, best), worst, best)


# --------------------------------------------------------------- probability form
class ProbabilityBounds(NamedTuple):
    """Worst and best expected cost of one instance of a class over every coupling."""

    worst: float
    best: float


@dataclass(frozen=True)
class _Transport:
    """A transportation problem between instances (rows) and vectors (columns).

    ``supply[i]`` and ``demand[j]`` are integers with equal totals (the instances' counts
    times the number of vectors, the vectors' counts times the number of instances), so a
    basic optimum is an integral flow; ``cost[i, j]`` is the cost of the pair.
    """

    cost: np.ndarray
    supply: np.ndarray
    demand: np.ndarray

    @property
    def total(self) -> int:
        return int(self.supply.sum())

    def merged(self) -> _Transport:
        """Rows (columns) of identical costs merged: the same optimum, exactly."""
        rows, row_of = np.unique(self.cost, axis=0, return_inverse=True)
        supply = np.bincount(row_of.ravel(), self.supply, rows.shape[0]).astype(np.int64)
        cols, col_of = np.unique(rows, axis=1, return_inverse=True)
        demand = np.bincount(col_of.ravel(), self.demand, cols.shape[1]).astype(np.int64)
        return _Transport(cols, supply, demand)


def _transport_of(A: np.ndarray, offsets: np.ndarray, vectors: np.ndarray, row: np.ndarray
                  ) -> _Transport:
    """The problem on distinct offsets and distinct slot parts, rows of equal costs merged."""
    r = _Offsets.of(offsets)
    q, q_count = np.unique(_slot_part(A, vectors), axis=0, return_counts=True)
    cost = row[_argmax_chunks(q, r.rows)]
    return _Transport(cost, r.weights * vectors.shape[0],
                      q_count.astype(np.int64) * offsets.shape[0]).merged()


def _lp_optimum(problem: _Transport, maximize: bool) -> float:
    """The optimal mean cost by HiGHS; the integral optimum is rounded, checked feasible and
    priced exactly (else the solver's value)."""
    n_r, n_c = problem.cost.shape
    if n_r == 1 or n_c == 1 or np.ptp(problem.cost) == 0:
        weights = np.outer(problem.supply, problem.demand) / problem.total
        return math.fsum((weights * problem.cost).ravel().tolist()) / problem.total
    rows = sparse.kron(sparse.eye(n_r), np.ones((1, n_c)))
    cols = sparse.kron(np.ones((1, n_r)), sparse.eye(n_c))
    sign = -1.0 if maximize else 1.0
    res = linprog(sign * problem.cost.ravel(), A_eq=sparse.vstack([rows, cols]).tocsr(),
                  b_eq=np.concatenate([problem.supply, problem.demand]).astype(float),
                  bounds=(0, None), method="highs")
    if res.status != 0:  # pragma: no cover - a balanced transportation problem is feasible
        raise ValidationError(f"the transportation problem was not solved: {res.message}")
    flow = np.rint(res.x).reshape(n_r, n_c)
    if (flow >= 0).all() and (flow.sum(axis=1) == problem.supply).all() \
            and (flow.sum(axis=0) == problem.demand).all():
        return math.fsum((flow * problem.cost).ravel().tolist()) / problem.total
    return sign * float(res.fun) / problem.total  # pragma: no cover - HiGHS returns a vertex


def _flow_optimum(problem: _Transport, maximize: bool) -> float:
    """A two-valued problem by a maximum flow on the pairs of the value sought (integer
    capacities): the rest of the mass can only go to pairs of the other value, or the flow
    was not maximum."""
    low, high = np.unique(problem.cost)
    sought, other = (high, low) if maximize else (low, high)
    n_r, n_c = problem.cost.shape
    rows, cols = np.nonzero(problem.cost == sought)
    source, sink = n_r + n_c, n_r + n_c + 1
    tails = np.r_[np.full(n_r, source), rows, n_r + np.arange(n_c)]
    heads = np.r_[np.arange(n_r), n_r + cols, np.full(n_c, sink)]
    capacity = np.r_[problem.supply, np.full(rows.size, problem.total), problem.demand]
    graph = sparse.csr_matrix((capacity.astype(np.int32), (tails, heads)),
                              shape=(n_r + n_c + 2, n_r + n_c + 2))
    flow = int(maximum_flow(graph, source, sink).flow_value)
    return math.fsum([flow * float(sought), (problem.total - flow) * float(other)]) \
        / problem.total


def _transport_optimum(problem: _Transport, maximize: bool) -> float:
    """The maximum flow for two cost values (totals below 2^31), else the LP."""
    if np.unique(problem.cost).size == 2 and problem.total < 2 ** 31 \
            and min(problem.cost.shape) > 1:
        return _flow_optimum(problem, maximize)
    return _lp_optimum(problem, maximize)


def _assignment_optimum(costs: np.ndarray, maximize: bool) -> float:
    return _total(costs, _assignment(costs, maximize)) / costs.shape[0]


def _cluster(keys: np.ndarray, bins: int) -> np.ndarray:
    """Each row's cell on a grid of ``bins`` quantile bins per column of ``keys``."""
    cells = np.zeros(keys.shape[0], dtype=np.int64)
    for col in keys.T:
        inner = np.unique(np.quantile(col, np.linspace(0, 1, bins + 1)[1:-1]))
        cells = cells * (inner.size + 1) + np.searchsorted(inner, col, "right")
    return np.unique(cells, return_inverse=True)[1].ravel()


def _runs(cells: np.ndarray) -> np.ndarray:
    """The starts of the runs of equal values in sorted ``cells``."""
    return np.flatnonzero(np.r_[True, np.diff(cells) != 0])


def _cell_extremes(q: np.ndarray, offsets: np.ndarray, row: np.ndarray, q_cell: np.ndarray,
                   r_cell: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pair of cells, the largest and smallest cost of a member pair (chunked over the
    offsets, each chunk reduced over its runs of cells before it is merged)."""
    n_rc, n_qc = int(r_cell.max()) + 1, int(q_cell.max()) + 1
    high = np.full((n_rc, n_qc), -np.inf)
    low = np.full((n_rc, n_qc), np.inf)
    q_order, r_order = np.argsort(q_cell, kind="stable"), np.argsort(r_cell, kind="stable")
    q_sorted, q_starts = q[q_order], _runs(q_cell[q_order])
    r_sorted, r_cells = offsets[r_order], r_cell[r_order]
    step = max(1, _CHUNK_ELEMENTS // max(1, q.shape[0] * q.shape[1]))
    for s in range(0, offsets.shape[0], step):
        costs = row[_argmax_chunks(q_sorted, r_sorted[s:s + step])]
        starts = _runs(r_cells[s:s + step])
        cells = r_cells[s:s + step][starts]
        for extreme, out in ((np.maximum, high), (np.minimum, low)):
            reduced = extreme.reduceat(extreme.reduceat(costs, q_starts, axis=1), starts, axis=0)
            out[cells] = extreme(out[cells], reduced)
    return high, low


def _grid_bounds(A: np.ndarray, offsets: np.ndarray, vectors: np.ndarray, row: np.ndarray,
                 grid: int) -> ProbabilityBounds:
    q = _slot_part(A, vectors)
    bins = max(1, int(grid ** (1.0 / (q.shape[1] - 1))))
    q_cell = _cluster(q[:, 1:] - q[:, :1], bins)
    r_cell = _cluster(offsets[:, :1] - offsets[:, 1:], bins)
    high, low = _cell_extremes(q, offsets, row, q_cell, r_cell)
    supply = np.bincount(r_cell).astype(np.int64) * vectors.shape[0]
    demand = np.bincount(q_cell).astype(np.int64) * offsets.shape[0]
    worst = _transport_optimum(_Transport(high, supply, demand).merged(), True)
    best = _transport_optimum(_Transport(low, supply, demand).merged(), False)
    return ProbabilityBounds(worst, best)


def probability_bounds(A: Any, offsets: Any, vectors: Any, costs_row: Any, *,
                       method: str = "auto", grid: int = 100) -> ProbabilityBounds:
    """Worst and best expected cost of one instance of a class, the vectors from other
    instances: the extremes over every coupling of the two empirical distributions.

    Parameters
    ----------
    A : array_like, shape (K, K), or float
        The slot's coefficients (a number ``a`` means ``a * I``).
    offsets : array_like, shape (n_t, K)
        The offset vectors of the class's instances (uniform weights).
    vectors : array_like, shape (n_s, K)
        The candidate's vectors on other instances of the class (uniform weights).
    costs_row : array_like, shape (K,)
        Row ``c`` of the cost matrix: the cost of each system output on this class.
    method : {"auto", "lp", "assignment", "grid"}
        ``"lp"``: the transportation problem on distinct offsets and vectors, rows and columns
        of equal costs merged, by HiGHS (exact: the integral optimum is priced exactly); when
        the costs take two values, by a maximum flow with integer capacities on the pairs of
        the value sought (:func:`scipy.sparse.csgraph.maximum_flow`; exact, and fast).
        ``"assignment"``: equal sizes only, the assignment problem on the ``n x n`` costs
        (Birkhoff: a permutation attains the optimum; ``O(n^3)``). ``"grid"``: outward bounds
        on at most ``grid`` cells per side (the worst at least, the best at most the exact
        values). ``"auto"``: equal sizes, the assignment (measured 8x to 700x faster than
        the LP at n = 100 to 1000), unless merging shrank the problem 64-fold (repeated
        offsets and vectors: the LP on the merged problem); other sizes, the LP up to 200,000
        variables after merging, else an error naming ``method="grid"``.
    grid : int, default 100
        With ``method="grid"``, the most cells of offsets (and of vectors): quantile bins on
        each of the K - 1 key differences.

    Returns
    -------
    ProbabilityBounds
        ``(worst, best)``: the largest and smallest ``sum_ij pi_ij costs_row[g_i(p_j)]`` over
        couplings ``pi`` (a per-instance expected cost; times the class size for a total).

    Raises
    ------
    ValidationError
        Shapes that do not match one K, non-finite numbers, empty inputs, an unknown method,
        ``"assignment"`` with other sizes, a problem too large for ``"auto"``.

    Examples
    --------
    Two instances, one always right, one right only with the first vector; the second vector
    is never right on it:

    >>> probability_bounds(1.0, [[0.9, 0.0, 0.0], [0.0, 0.3, 0.0]],
    ...                    [[0.5, 0.0, 0.0], [0.1, 0.0, 0.0]], [0, 5, 5])
    ProbabilityBounds(worst=2.5, best=0.0)
    """
    if method not in ("auto", "lp", "assignment", "grid"):
        raise ValidationError(f"method must be 'auto', 'lp', 'assignment' or 'grid', got "
                              f"{method!r}")
    a, r, v = _inputs(A, offsets, vectors)
    row = _costs_row(costs_row, v.shape[1])
    _nonempty(r.shape[0], "offsets")
    _nonempty(v.shape[0], "vectors")
    if method == "grid":
        return _grid_bounds(a, r, v, row, int(grid))
    equal = r.shape[0] == v.shape[0]
    if method == "assignment" and not equal:
        raise ValidationError(f"method='assignment' needs as many vectors as offsets, got "
                              f"{v.shape[0]} and {r.shape[0]}; use method='lp'")
    if method == "auto" and equal and 64 * np.unique(r, axis=0).shape[0] \
            * np.unique(_slot_part(a, v), axis=0).shape[0] > r.shape[0] * v.shape[0]:
        method = "assignment"  # merging cannot shrink the problem 64-fold: skip it
    if method != "assignment":
        problem = _transport_of(a, r, v, row)
        merged = not equal or problem.cost.size * 64 <= r.shape[0] * v.shape[0]
        if method == "lp" or (merged and problem.cost.size <= _LP_VARIABLES):
            return ProbabilityBounds(_transport_optimum(problem, True),
                                     _transport_optimum(problem, False))
        if not equal:
            raise ValidationError(
                f"the transportation problem has {problem.cost.size:,} variables after merging "
                f"(more than {_LP_VARIABLES:,}); pass method='lp' to solve it anyway or "
                "method='grid' for outward bounds")
    costs = row[_argmax_chunks(_slot_part(a, v), r)]
    return ProbabilityBounds(_assignment_optimum(costs, True),
                             _assignment_optimum(costs, False))


def decide_rows(A: Any, offsets: Any, vectors: Any) -> np.ndarray:
    """The system's output on each instance with its own vector: ``g_i(p_i)`` row by row.

    The same decision as :func:`decide` (the stated float order), on pairs ``(i, i)`` only.

    >>> decide_rows(1.0, [[0.0, 0.0, 0.6], [0.2, 0.2, 0.0]], [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    array([2, 0])
    """
    a, r, v = _inputs(A, offsets, vectors)
    if r.shape[0] != v.shape[0]:
        raise InfeasibleInputError(f"decide_rows pairs rows: {v.shape[0]} vectors for "
                                   f"{r.shape[0]} offsets")
    return (_slot_part(a, v) + r).argmax(axis=1)
