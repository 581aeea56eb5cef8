"""Price many candidates of one K-label score slot at once: the system's side computed once.

:func:`price_vectors_many` gives, for ``m`` candidates of the same slot (each with its vectors
on instances of every class), the :class:`~causalcost.pricing.scores.ScoreBound` that
:func:`~causalcost.pricing.score_vector_price.price_vectors` gives one by one; equal to it.

* **Expected** outcomes of every candidate come from one
  :func:`~causalcost.pricing.score_vectors.outcome_counts` call per class on the ``(m, n_c,
  K)`` stack (the offsets' dominance tables built once).
* **Same instances**: the assignment problem per candidate and class, as
  :func:`~causalcost.pricing.score_vectors.same_instance_bounds`.
* **Probability form, K = 3, a cost row of two values** (``C[c] = (0, 5, 5)``: right or wrong;
  or one label costing apart from the two others): the pair's cost depends only on whether the
  label ``s`` whose cost stands apart wins, and ``s`` wins against instance ``i`` iff both
  keys ``u_t = q_s - q_t`` of the vector beat the instance's keys ``v_t = r_t - r_s`` (``>=``
  for ``t > s``, ``>`` for ``t < s``: ties go to the first label). On the ranks of the
  offsets' distinct keys, a vector beats an offset iff its ranks exceed the offset's on both
  axes: a two-dimensional dominance. The extremes over every coupling of the mass ``M`` of
  pairs where ``s`` wins (supplies ``n_s`` per instance, demands ``n_t`` per vector, total
  ``n_t n_s``) are maximum flows, and their minimum cuts have closed forms on the rank grid:

  - the **least** ``M`` is the total minus the most mass on pairs where ``s`` loses; a cut
    there is fixed by the vectors' least ranks ``(m1, m2)``:
    ``min over (m1, m2) of n_t #{vectors not >= m} + n_s #{offsets >= m1 or >= m2}``;
  - the **most** ``M``: a cut is a down-closed set of offset cells, a staircase of heights
    ``h_j`` non-increasing along the first axis: ``min over h of sum_j [n_s #{offsets in
    column j below h_j} + n_t #{vectors in column j + 1 above h_j}]``, by a dynamic program
    over the columns from the last (a prefix minimum over the heights per column, redone
    only past the steps of the column's offsets: the rest stays non-increasing).

  Both take ``O(n1 n2)`` per candidate (``n1``, ``n2`` the offsets' distinct keys), one
  column at a time for every candidate at once, each column a few whole-array operations
  (a candidate's vectors in the column added as rows of a table of steps, no cumulative
  sums). Measured (``benchmarks/bench_score_vectors.py``): about 0.3 ms of CPU per candidate
  and class of 333 instances (10^3 candidates at once), some 20 times the one-by-one exact
  route. The cost is
  ``(C[c, s] M + C[c, t] (n_t n_s - M)) / (n_t n_s)`` per instance, as the maximum flow of
  :func:`~causalcost.pricing.score_vectors.probability_bounds`. **Exactness**: the key
  comparison agrees with the float decision (the stated order) unless a vector's key lies
  within the margin ``2^-48 (Q + R)`` of an offset's key; such a candidate (exact ties
  included) is priced by :func:`~causalcost.pricing.score_vectors.probability_bounds`, as are
  cost rows of three values and K != 3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.cost_matrix import as_costs
from causalcost.errors import ValidationError
from causalcost.pricing.score_bound import FORMS, ScoreBound
from causalcost.pricing.score_fusions import check_fusion
from causalcost.pricing.score_vector_price import check_class_sizes, price_vectors
from causalcost.pricing.score_vectors import (
    _MARGIN,
    ProbabilityBounds,
    _inputs,
    _Offsets,
    _ranks,
    _slot_part,
    decide_rows,
    outcome_counts,
    probability_bounds,
    same_instance_bounds,
)
from causalcost.score_values import PROBABILITIES, as_score_range, read_score_vectors

__all__ = ["price_vectors_many", "probability_bounds_many"]

#: Elements of one (candidates, n2) slab of the column loop (bounds its memory).
_SLAB = 1 << 22


def _stacks(value: Any, labels: tuple[Any, ...], what: str, k: int,
            score_range: tuple[float, float]) -> list[np.ndarray]:
    """Per class (label order) a float array of shape (m, n_c, K), read by the one reader
    of scores (every candidate's rows one after the other)."""
    if isinstance(value, dict):
        unknown = [c for c in value if c not in labels]
        if unknown:
            raise ValidationError(f"{what}: classes {unknown} are not labels of the system "
                                  f"{list(labels)}")
        value = [value.get(c) for c in labels]
    if len(value) != len(labels):
        raise ValidationError(f"{what}: {len(value)} classes for the {len(labels)} labels "
                              f"{list(labels)}; give one array per class")
    out = [None if v is None else np.asarray(v, dtype=float) for v in value]
    m = {a.shape[0] for a in out if a is not None and a.ndim == 3}
    if len(m) > 1:
        raise ValidationError(f"{what}: every class needs the same number of candidates, got "
                              f"{sorted(m)}")
    count = m.pop() if m else 0
    rows = []
    for c, arr in zip(labels, out):
        if arr is None or arr.size == 0:
            arr = np.zeros((count, 0, k))
        if arr.ndim != 3 or arr.shape[2] != k:
            raise ValidationError(f"{what} of class {c!r} must have shape (candidates, n, {k}),"
                                  f" got {arr.shape}")
        if arr.size:
            flat = read_score_vectors(arr.reshape(-1, k), f"{what} of class {c!r} (the "
                                      f"candidates' {arr.shape[1]} rows each, one after the "
                                      "other)", labels=labels, score_range=score_range)
            arr = flat.reshape(arr.shape)
        rows.append(arr)
    return rows


def _offset_rows(value: Any, labels: tuple[Any, ...], k: int) -> list[np.ndarray]:
    if isinstance(value, dict):
        value = [value.get(c, np.zeros((0, k))) for c in labels]
    if len(value) != len(labels):
        raise ValidationError(f"offsets: {len(value)} classes for the {len(labels)} labels "
                              f"{list(labels)}; give one array per class")
    return [np.asarray(v, dtype=float).reshape(-1, k) if np.size(v) == 0 else
            np.asarray(v, dtype=float) for v in value]


# ------------------------------------------------------------ the two-valued closed form
def _apart(row: np.ndarray) -> tuple[int, float, float] | None:
    """For a K = 3 cost row of two values, the label whose cost stands apart, its cost and
    the others'; None otherwise."""
    values, counts = np.unique(row, return_counts=True)
    if row.size != 3 or values.size != 2:
        return None
    alone = values[counts == 1][0]
    s = int(np.flatnonzero(row == alone)[0])
    return s, float(alone), float(values[values != alone][0])


def _winning_mass(q: np.ndarray, offsets: np.ndarray, s: int, margin: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate (``q`` of shape (m, n_s, 3)), the least and most mass of pairs on which
    label ``s`` wins over every coupling, and whether a key lay within ``margin`` (those
    candidates' numbers are not used)."""
    m, n_s, _ = q.shape
    n_t = offsets.shape[0]
    others = [t for t in range(3) if t != s]
    u = [(q[..., s] - q[..., t]).ravel() for t in others]
    v = [offsets[:, t] - offsets[:, s] for t in others]
    sides = ["right" if s < t else "left" for t in others]
    vals = [np.unique(x) for x in v]
    n1, n2 = vals[0].size, vals[1].size
    sig = [np.searchsorted(vals[a], v[a]) for a in (0, 1)]
    rho, near = [], np.zeros(m * n_s, dtype=bool)
    for a in (0, 1):
        rank, close = _ranks(vals[a], u[a], sides[a], margin)
        rho.append(rank)
        near |= close
    near = near.reshape(m, n_s).any(axis=1)
    # the offsets' side: counts per cell, prefix sums
    cells = np.zeros((n1, n2), dtype=np.int64)
    np.add.at(cells, (sig[0], sig[1]), 1)
    below = np.zeros((n1, n2 + 1), dtype=np.int64)      # below[j, h]: column j, rank < h
    below[:, 1:] = cells.cumsum(axis=1)
    lower = np.zeros((n1 + 2, n2 + 2), dtype=np.int64)  # lower[a, b]: ranks < a and < b
    lower[1:n1 + 1, 1:n2 + 1] = cells.cumsum(axis=0).cumsum(axis=1)
    lower[n1 + 1] = lower[n1]
    lower[:, n2 + 1] = lower[:, n2]
    # the vectors by column (rank on the first axis), every candidate at once; one loop over
    # the columns from the last: the least mass (cuts fixed by the least ranks m1 = j, m2)
    # and the staircase of the most mass (heights non-decreasing from the last column)
    total = n_t * n_s
    dtype = np.int32 if 4 * (total + 1) < 2 ** 31 else np.int64
    # the vectors sorted by column, then candidate; a candidate's k-th vector of a column
    # is in layer k (each layer holds a candidate at most once: one comparison per layer)
    cand = np.repeat(np.arange(m), n_s)
    order = np.lexsort((cand, rho[0]))
    col_of, cand_of, row_of = rho[0][order], cand[order], rho[1][order]
    key = col_of * m + cand_of
    first = np.r_[True, key[1:] != key[:-1]]
    layer = np.arange(key.size) - np.maximum.accumulate(np.where(first, np.arange(key.size), 0))
    starts = np.searchsorted(col_of, np.arange(n1 + 2))
    jumps = [np.unique(sig[1][sig[0] == j]) + 1 for j in range(n1)]  # where below[j] steps
    lower_scaled = (n_s * lower).astype(dtype)
    below_scaled = (n_s * below).astype(dtype)
    # steps[r + 1] = n_t at heights h <= r: a vector of second-axis rank r, as a row
    steps = (n_t * (np.arange(n2 + 2)[None, :] <= np.arange(-1, n2 + 1)[:, None])
             ).astype(dtype)
    row_of = row_of.astype(np.int64) + 1
    # axis 0 the candidates, axis 1 the second-axis rank h
    above = np.zeros((m, n2 + 2), dtype=dtype)    # n_t #{vectors ranked >= (j, h)}
    gains = np.zeros(m, dtype=dtype)              # the most n_t above + n_s lower so far
    stairs = np.zeros((m, n2 + 1), dtype=dtype)   # the staircase's least cut, columns >= j,
    column = np.zeros((m, n2 + 2), dtype=dtype)   # its prefix minimum (non-increasing in h)
    work = np.empty((m, n2 + 2), dtype=dtype)
    reach = np.empty(m, dtype=np.int64)
    for j in range(n1, -1, -1):
        lo, hi = starts[j], starts[j + 1]
        if hi > lo:  # n_t #{vectors in column j ranked >= h}, layer by layer
            top = layer[lo:hi]
            sel = np.flatnonzero(top == 0) + lo
            reach.fill(0)
            reach[cand_of[sel]] = row_of[sel]
            np.take(steps, reach, axis=0, out=column)
            for k in range(1, int(top.max()) + 1):  # few candidates: their rows only
                sel = np.flatnonzero(top == k) + lo
                column[cand_of[sel]] += steps[row_of[sel]]
            above += column
        np.add(above, lower_scaled[j], out=work)
        np.maximum(gains, work.max(axis=1), out=gains)
        if j == 0:
            break
        # column j - 1 of offsets at height h: n_s #{offsets below h} + the vectors of
        # first-axis rank j above h (non-increasing in h: the sum with the prefix minimum so
        # far stays non-increasing), then the prefix minimum again: only past the steps of
        # the offsets' part
        if hi > lo:
            stairs += column[:, 1:]
        stairs += below_scaled[j - 1]
        for b in jumps[j - 1]:
            if b <= n2:
                np.minimum(stairs[:, b:], stairs[:, b - 1:b], out=stairs[:, b:])
    loses = n_t * n_s + n_s * n_t - gains.astype(np.int64)
    least = total - np.minimum(loses, total)
    most = stairs.min(axis=1).astype(np.int64)
    return least, most, near


def _per_instance(mass: int, total: int, alone: float, other: float) -> float:
    """The mean cost of a coupling with ``mass`` of its ``total`` on the label apart (the
    arithmetic of :func:`probability_bounds`' maximum flow)."""
    return math.fsum([mass * alone, (total - mass) * other]) / total


def probability_bounds_many(A: Any, offsets: Any, vectors: Any, costs_row: Any, *,
                            method: str = "auto") -> list[ProbabilityBounds]:
    """:func:`~causalcost.pricing.score_vectors.probability_bounds` for ``m`` candidates.

    Parameters
    ----------
    A, offsets, costs_row, method
        As for :func:`~causalcost.pricing.score_vectors.probability_bounds`.
    vectors : array_like, shape (m, n_s, K)
        Each candidate's vectors on other instances of the class.

    Returns
    -------
    list of ProbabilityBounds
        ``(worst, best)`` per candidate, equal to ``probability_bounds(A, offsets,
        vectors[i], costs_row, method=method)``. With ``method="auto"`` and K = 3, a cost
        row of two values is priced by the closed forms of the module (``O(n1 n2)`` per
        candidate, every candidate at once); candidates with a key within rounding of an
        offset's key, and every other case, by
        :func:`~causalcost.pricing.score_vectors.probability_bounds`.

    Raises
    ------
    ValidationError
        As :func:`~causalcost.pricing.score_vectors.probability_bounds` (shapes that do not
        match one K, non-finite numbers, empty inputs, an unknown method).

    Examples
    --------
    Two instances, one always right, one right only with the first vector; the second
    candidate's vectors are both right on both:

    >>> probability_bounds_many(1.0, [[0.9, 0.0, 0.0], [0.0, 0.3, 0.0]],
    ...                         [[[0.6, 0.2, 0.2], [0.1, 0.5, 0.4]],
    ...                          [[0.8, 0.1, 0.1], [0.9, 0.1, 0.0]]], [0, 5, 5])
    [ProbabilityBounds(worst=2.5, best=0.0), ProbabilityBounds(worst=0.0, best=0.0)]
    """
    a, r, stack = _inputs(A, offsets, vectors, 3)
    row = np.asarray(costs_row, dtype=float)
    m, n_s, k = stack.shape
    apart = _apart(row) if k == 3 and method == "auto" and row.shape == (3,) \
        and np.isfinite(row).all() else None
    if apart is None or m == 0 or n_s == 0 or r.shape[0] == 0:
        return [probability_bounds(a, r, v, row, method=method) for v in stack]
    s, alone, other = apart
    q = _slot_part(a, stack.reshape(m * n_s, k)).reshape(m, n_s, k)
    rows = _Offsets.of(r)
    scale = float(np.abs(q).max(initial=0.0)) + float(np.abs(rows.rows).max(initial=0.0))
    out: list[ProbabilityBounds] = []
    n_t = r.shape[0]
    step = max(1, _SLAB // (4 * (n_t + 2)))
    for start in range(0, m, step):
        least, most, near = _winning_mass(q[start:start + step], r, s, _MARGIN * scale)
        for i in range(least.size):
            if near[i]:
                out.append(probability_bounds(a, r, stack[start + i], row))
                continue
            low = _per_instance(int(least[i]), n_t * n_s, alone, other)
            high = _per_instance(int(most[i]), n_t * n_s, alone, other)
            out.append(ProbabilityBounds(max(low, high), min(low, high)))
    return out


# ------------------------------------------------------------------------------ public
def price_vectors_many(matrix: Any, offsets: Any, vectors: Any, costs: Any, *,
                       labels: Sequence[Any], same_instances: bool = True,
                       method: str = "auto", score_range: tuple[float, float] = PROBABILITIES,
                       fusion: str = "linear") -> list[ScoreBound]:
    """:func:`~causalcost.pricing.score_vector_price.price_vectors` for ``m`` candidates.

    Parameters
    ----------
    matrix, offsets, costs, labels, same_instances, method, score_range, fusion
        As for :func:`~causalcost.pricing.score_vector_price.price_vectors` (a ``max`` or
        ``min`` fusion is priced one candidate at a time, by it).
    vectors : sequence or dict of arrays (m, n_c, K)
        Per true class (label order, or ``{label: array}``), every candidate's vectors on
        instances of that class: candidate ``i`` is ``[v[i] for v in vectors]``.

    Returns
    -------
    list of ScoreBound
        One per candidate, equal to ``price_vectors`` on that candidate's vectors. The
        expected outcomes of every candidate come from one count per class; the probability
        form of K = 3 with cost rows of two values from the closed forms of the module.

    Raises
    ------
    InfeasibleInputError, ValidationError
        As :func:`~causalcost.pricing.score_vector_price.price_vectors`; candidates in
        different numbers per class.

    Examples
    --------
    >>> b = price_vectors_many(1.0, [[[0.8, 0.0, 0.0], [0.0, 0.0, 0.0]], [], []],
    ...                        [[[[0.9, 0.1, 0.0], [0.1, 0.8, 0.1]],
    ...                          [[0.9, 0.1, 0.0], [0.8, 0.1, 0.1]]], [], []],
    ...                        [[0, 1, 1], [1, 0, 1], [1, 1, 0]], labels=["a", "b", "c"])
    >>> [(x.worst_cost, x.expected_cost, x.best_cost) for x in b]
    [(1.0, 0.5, 0.0), (0.0, 0.0, 0.0)]
    """
    labels = tuple(labels)
    k = len(labels)
    cost_matrix: CostMatrix = as_costs(costs, labels)
    c_rows = np.asarray(cost_matrix.matrix, dtype=float)
    t = _offset_rows(offsets, labels, k)
    s = _stacks(vectors, labels, "vectors", k, as_score_range(score_range))
    m = s[0].shape[0]
    if check_fusion(fusion) != "linear":
        return [price_vectors(matrix, t, [v[i] for v in s], cost_matrix, labels=labels,
                              same_instances=same_instances, method=method,
                              score_range=score_range, fusion=fusion) for i in range(m)]
    if not same_instances and k == 2:
        raise ValidationError("the probability form of a two-label system is priced from its "
                              "critical scores (price_scores)")
    expected = np.zeros((m, k, k))
    worst = np.zeros((m, k, k), dtype=np.int64)
    best = np.zeros((m, k, k), dtype=np.int64)
    worst_cost = np.zeros((m, k))
    best_cost = np.zeros((m, k))
    for c, (off, stack) in enumerate(zip(t, s)):
        n_t, n_s = off.shape[0], stack.shape[1]
        check_class_sizes(labels[c], n_t, n_s, same_instances)
        if n_s == 0 or m == 0:
            continue
        counts = outcome_counts(matrix, off, stack)
        expected[:, c] = counts * n_s / (n_t * n_s)
        if same_instances:
            for i, vec in enumerate(stack):
                bounds = same_instance_bounds(matrix, off, vec, c_rows[c], method=method)
                for assignment, out in ((bounds.worst_assignment, worst),
                                        (bounds.best_assignment, best)):
                    said = decide_rows(matrix, off, vec[assignment])
                    out[i, c] = np.bincount(said, minlength=k)
        else:
            for i, (high, low) in enumerate(probability_bounds_many(matrix, off, stack,
                                                                    c_rows[c], method=method)):
                worst_cost[i, c], best_cost[i, c] = high * n_s, low * n_s
    out = []
    for i in range(m):
        exp = Confusion(matrix=expected[i].tolist(), labels=labels)
        if same_instances:
            w = Confusion(matrix=worst[i].tolist(), labels=labels)
            b = Confusion(matrix=best[i].tolist(), labels=labels)
            w_cost, b_cost = w.cost(cost_matrix), b.cost(cost_matrix)
        else:
            w = b = None
            w_cost, b_cost = math.fsum(worst_cost[i].tolist()), math.fsum(best_cost[i].tolist())
        out.append(ScoreBound(
            expected=exp, expected_cost=exp.cost(cost_matrix), worst=w,
            worst_cost=float(w_cost), best=b, best_cost=float(b_cost),
            form=FORMS[0] if same_instances else FORMS[1], costs=cost_matrix,
            class_sizes=tuple(v.shape[1] for v in s),
            critical_sizes=tuple(o.shape[0] for o in t), labels=labels))
    return out
