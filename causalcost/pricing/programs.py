"""The linear programs behind the K-label bounds: the monotone program and transportation.

Both are solved per true class ``c`` with HiGHS (:func:`scipy.optimize.milp`, gap 0). In the
count forms the program is solved over the integers, the solution is rounded, checked to
satisfy every constraint *exactly* in Python integers, and its cost recomputed exactly: the
result is the exact integer optimum, never a float approximation of it. The probability form
solves the linear relaxation (fractional masses are what it prices).

**Monotone program** (see :mod:`causalcost.pricing.general`): variables ``a[j, s0]``
(instances predicted ``j`` with ``r(c) = s0``) and, for ``j != c``, ``b[j, s0, s]`` /
``o[j, s0, s]`` (predicted / not predicted ``j``, with ``r(c) = s0`` and ``r(j) = s``),
zero wherever ``C[c, s] < C[c, s0]``.

**Transportation** (kinds): ``x[t, j]`` instances of response vector ``t`` predicted ``j``;
supplies the kind counts, demands ``N[c, j]``; value ``C[c, t(j)]``. Its constraint matrix is
totally unimodular, so the relaxation's vertices are integral; the integer solve makes that
explicit and :func:`transport_relaxation` lets tests check it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.linalg import qr
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from causalcost.errors import InfeasibleInputError

__all__ = ["ClassCase", "monotone_class", "monotone_many", "monotone_variables",
           "transport_class", "transport_relaxation"]

#: One class's extreme: (cost, system outputs per label s as a length-K list).
ClassCase = tuple[Any, list[Any]]


def _normalised(objective: list[float], used: list[bool], cost_row: np.ndarray) -> np.ndarray:
    """The objective with the row's costs mapped to [0, 1] (``(C - min) / (max - min)``).

    Every feasible point counts each instance once in the objective (the class size), so the
    shift and the positive scale leave the optimum unchanged; HiGHS treats objective
    coefficients below about 1e-9 as zero, so without it costs like ``(0, 1e-12)`` would be
    taken as equal. Costs of one row closer than ~1e-9 of the row's range still are.
    """
    obj = np.asarray(objective, dtype=float)
    mask = np.asarray(used, dtype=bool)
    out = np.zeros_like(obj)
    lo, hi = float(np.min(cost_row)), float(np.max(cost_row))
    if hi > lo:  # halves first: costs near float64's limit must not overflow the range
        out[mask] = (obj[mask] / 2 - lo / 2) / (hi / 2 - lo / 2)
    return out


def _solve(objective: np.ndarray, a_eq: np.ndarray, b_eq: np.ndarray, upper: np.ndarray,
           integer: bool, maximise: bool) -> np.ndarray | None:
    sign = -1.0 if maximise else 1.0
    res = milp(sign * objective, constraints=LinearConstraint(a_eq, b_eq, b_eq),
               bounds=Bounds(np.zeros(len(objective)), upper),
               integrality=np.ones(len(objective)) if integer else None,
               options={"mip_rel_gap": 0.0, "presolve": True})
    if res.status != 0 or res.x is None:
        return None
    return np.asarray(res.x)


def _exact_solution(x: np.ndarray, a_eq: np.ndarray, b_eq: list[int]) -> list[int]:
    """Round an integer solve and check every equality in Python integers."""
    xi = [int(round(v)) for v in x]
    if any(v < 0 for v in xi) or any(abs(v - r) > 1e-6 for v, r in zip(x, xi)):
        raise ArithmeticError("HiGHS returned a non-integral point for an integer program")
    rows = a_eq.astype(int).tolist()
    if any(sum(a * v for a, v in zip(row, xi) if a) != b for row, b in zip(rows, b_eq)):
        raise ArithmeticError("the rounded solution breaks a constraint")
    return xi


def _value(xs: list[Any], weights: list[float], integer: bool) -> Any:
    if integer:
        return sum(Fraction(v) * Fraction(w) for v, w in zip(xs, weights) if v)
    return sum(Fraction(float(v)) * Fraction(w) for v, w in zip(xs, weights) if v)


def _monotone_program(forced: np.ndarray, n_row: Any, cost_row: np.ndarray, c: int
                      ) -> tuple[np.ndarray, list[Any], list[float], list[bool], np.ndarray,
                                 dict[tuple[Any, ...], int]]:
    """The monotone program of class ``c``: ``(a_eq, rhs, weights, used, upper, index)``.

    Rows ``k .. 2k - 1`` of ``a_eq`` / ``rhs`` are the candidate's ``N[c, j]``; the rest
    depend on the forced runs only. Assumes validated arguments."""
    k = len(cost_row)
    others = [j for j in range(k) if j != c]
    index, weights, used, upper = monotone_variables(cost_row, c)
    rows: list[dict[int, int]] = []
    rhs: list[Any] = []

    def add(terms: dict[int, int], value: Any) -> None:
        rows.append(terms)
        rhs.append(value)

    for s0 in range(k):
        add({index[("a", j, s0)]: 1 for j in range(k)}, forced[c, s0])
    for j in range(k):
        add({index[("a", j, s0)]: 1 for s0 in range(k)}, n_row[j])
    for j in others:
        for s0 in range(k):
            add({**{index[("b", j, s0, s)]: 1 for s in range(k)}, index[("a", j, s0)]: -1}, 0)
            add({**{index[("o", j, s0, s)]: 1 for s in range(k)}, index[("a", j, s0)]: 1},
                forced[c, s0])
        for s in range(k):
            terms = {index[(v, j, s0, s)]: 1 for s0 in range(k) for v in ("b", "o")}
            add(terms, forced[j, s])
    a_eq = np.zeros((len(rows), len(index)))
    for r, terms in enumerate(rows):
        for i, v in terms.items():
            a_eq[r, i] = v
    return a_eq, rhs, weights, used, upper, index


def monotone_variables(cost_row: np.ndarray, c: int) -> tuple[
        dict[tuple[Any, ...], int], list[float], list[bool], np.ndarray]:
    """The variables of the monotone program of class ``c``: ``(index, weights, used,
    upper)``. ``index`` numbers ``("a", j, s0)`` and, for ``j != c``, ``("b", j, s0, s)`` and
    ``("o", j, s0, s)``; ``weights`` are their costs in the objective (``used`` marks the
    terms that count an instance); ``upper`` is 0 where ``C[c, s] < C[c, s0]`` (the monotone
    rule), else unbounded."""
    k = len(cost_row)
    index: dict[tuple[Any, ...], int] = {}
    for j, s0 in itertools.product(range(k), range(k)):
        index[("a", j, s0)] = len(index)
    for j in (j for j in range(k) if j != c):
        for s0, s in itertools.product(range(k), range(k)):
            index[("b", j, s0, s)] = len(index)
            index[("o", j, s0, s)] = len(index)
    upper = np.full(len(index), np.inf)
    weights = [0.0] * len(index)
    used = [key[0] == "b" or (key[0] == "a" and key[1] == c) for key in index]
    for key, i in index.items():
        if key[0] == "a" and key[1] == c:
            weights[i] = float(cost_row[key[2]])
        elif key[0] in ("b", "o"):
            s0, s = key[2], key[3]
            if cost_row[s] < cost_row[s0]:
                upper[i] = 0.0
            if key[0] == "b":
                weights[i] = float(cost_row[s])
    return index, weights, used, upper


def monotone_class(forced: np.ndarray, n_row: np.ndarray, cost_row: np.ndarray, c: int,
                   *, integer: bool) -> tuple[ClassCase, ClassCase]:
    """Worst and best (cost, output counts) of class ``c`` under the monotone rule.

    ``forced[j, s]`` is forced run ``j``'s outputs on class ``c``; ``n_row[j] = N[c, j]``.
    Assumes validated, consistent arguments (every ``forced[j]`` and ``n_row`` sum to ``n_c``).

    Raises
    ------
    InfeasibleInputError
        If no monotone system has these forced runs (the message names class and label).
    """
    k = len(cost_row)
    a_eq, rhs, weights, used, upper, index = _monotone_program(forced, n_row, cost_row, c)
    b_eq = np.array([float(v) for v in rhs])
    out = []
    for maximise in (True, False):
        x = _solve(_normalised(weights, used, cost_row), a_eq, b_eq, upper, integer, maximise)
        if x is None:
            raise InfeasibleInputError(
                f"class {c}: no system that is monotone in the slot has these forced runs (the "
                f"outputs with the slot forced to the right label {c} cannot be paired with "
                "those of the other forced runs without the right label ever being dearer); "
                "use assumption='none'")
        xs: list[Any] = (_exact_solution(x, a_eq, [int(v) for v in rhs]) if integer
                         else [max(0.0, float(v)) for v in x])
        outputs = [0 if integer else 0.0] * k
        for key, i in index.items():
            if key[0] == "a" and key[1] == c:
                outputs[key[2]] += xs[i]
            elif key[0] == "b":
                outputs[key[3]] += xs[i]
        out.append((_value(xs, weights, integer), outputs))
    return out[0], out[1]


def _transport_matrix(supplies: list[Any], n_row: list[Any]) -> tuple[np.ndarray, list[Any]]:
    m, k = len(supplies), len(n_row)
    a_eq = np.zeros((m + k, m * k))
    for t in range(m):
        a_eq[t, t * k:(t + 1) * k] = 1
    for j in range(k):
        a_eq[m + j, j::k] = 1
    return a_eq, [*supplies, *n_row]


def transport_class(vectors: list[tuple[int, ...]], supplies: list[Any], n_row: list[Any],
                    cost_row: np.ndarray, *, integer: bool = True) -> tuple[ClassCase, ClassCase]:
    """Worst and best (cost, output counts) of one class from its response-vector counts.

    ``vectors[t]`` is a response vector (output index per forced label), ``supplies[t]`` its
    count; ``n_row[j] = N[c, j]``. Assumes validated arguments with equal totals.
    """
    k = len(n_row)
    if not vectors:
        zero = 0 if integer else 0.0
        return (zero, [zero] * k), (zero, [zero] * k)
    a_eq, rhs = _transport_matrix(supplies, n_row)
    weights = [float(cost_row[t[j]]) for t in vectors for j in range(k)]
    b_eq = np.array([float(v) for v in rhs])
    out = []
    for maximise in (True, False):
        x = _solve(_normalised(weights, [True] * len(weights), cost_row), a_eq, b_eq,
                   np.full(len(weights), np.inf), integer, maximise)
        if x is None:  # equal totals make transportation always feasible
            raise InfeasibleInputError("the kinds and the model count different class sizes")
        xs: list[Any] = (_exact_solution(x, a_eq, [int(v) for v in rhs]) if integer
                         else [max(0.0, float(v)) for v in x])
        outputs = [0 if integer else 0.0] * k
        for t, vec in enumerate(vectors):
            for j in range(k):
                outputs[vec[j]] += xs[t * k + j]
        out.append((_value(xs, weights, integer), outputs))
    return out[0], out[1]


def transport_relaxation(vectors: list[tuple[int, ...]], supplies: list[int], n_row: list[int],
                         cost_row: np.ndarray, *, maximise: bool) -> np.ndarray:
    """The transportation LP's vertex solution by dual simplex (no integrality imposed)."""
    k = len(n_row)
    a_eq, rhs = _transport_matrix(supplies, n_row)
    weights = np.array([float(cost_row[t[j]]) for t in vectors for j in range(k)])
    res = linprog(-weights if maximise else weights, A_eq=a_eq, b_eq=np.array(rhs, float),
                  bounds=(0, None), method="highs-ds")
    return np.asarray(res.x)


# ------------------------------------------------------------------ many candidates at once
def _basis(a: np.ndarray, cost: np.ndarray, x: np.ndarray, y: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray] | None:
    """An optimal basis (columns, inverse) from a vertex ``x`` and duals ``y`` of
    ``min cost . x, a x = b, x >= 0`` (``a`` of full row rank), or ``None``.

    The support of ``x`` is completed with zero-reduced-cost columns; the basis is kept only
    if its own duals are feasible (``cost - a^T y_B >= 0``): then it is optimal for every
    right-hand side ``b`` with ``B^-1 b >= 0``."""
    r = a.shape[0]
    reduced = cost - a.T @ y
    support = [int(i) for i in np.flatnonzero(x > 1e-9)]
    extra = [int(i) for i in np.argsort(np.abs(reduced))
             if abs(reduced[i]) <= 1e-7 and x[i] <= 1e-9]
    q = np.zeros((r, 0))
    cols: list[int] = []
    # the rest by |reduced cost|: a degenerate vertex may need columns the solver's duals
    # price above zero (its basis held row logicals at zero instead)
    rest = [int(i) for i in np.argsort(np.abs(reduced), kind="stable")
            if i not in support and i not in extra]
    for i in [*support, *extra, *rest]:  # Gram-Schmidt: keep the columns that add a dimension
        v = a[:, i] - q @ (q.T @ a[:, i])
        norm = float(np.linalg.norm(v))
        if norm > 1e-9:
            q = np.column_stack([q, v / norm])
            cols.append(i)
        elif i in support:
            return None
        if len(cols) == r:
            break
    if len(cols) < r:
        return None
    b = a[:, cols]
    y_b = np.linalg.solve(b.T, cost[cols])
    if np.min(cost - a.T @ y_b) < -1e-7:
        # primal feasible (it holds the support), not yet dual feasible: degenerate pivots
        return _primal_simplex(a, cost, a @ np.where(x > 1e-9, x, 0.0), np.array(cols))
    return np.array(cols), np.linalg.inv(b)


def _primal_simplex(a: np.ndarray, cost: np.ndarray, b: np.ndarray, cols: np.ndarray,
                    max_pivots: int = 500) -> tuple[np.ndarray, np.ndarray] | None:
    """From a primal-feasible basis ``cols`` of ``min cost . x, a x = b, x >= 0`` to an optimal
    one (primal simplex, dense, Bland's rule, so degenerate pivots cannot cycle), or ``None``
    (too many pivots, or unbounded)."""
    cols = np.array(cols)
    for _ in range(max_pivots):
        inv = np.linalg.inv(a[:, cols])
        xb = np.maximum(inv @ b, 0.0)
        reduced = cost - a.T @ (inv.T @ cost[cols])
        reduced[cols] = 0.0
        entering = np.flatnonzero(reduced < -1e-9)
        if entering.size == 0:
            return cols, inv
        q = int(entering[0])  # Bland: the lowest index
        d = inv @ a[:, q]
        up = np.flatnonzero(d > 1e-12)
        if up.size == 0:
            return None
        ratios = xb[up] / d[up]
        ties = up[ratios <= ratios.min() + 1e-12]
        p = int(ties[np.argmin(cols[ties])])  # Bland: the lowest index leaves
        cols[p] = q
    return None


def _same_basis(cols: np.ndarray, bases: list[tuple[np.ndarray, np.ndarray]]) -> bool:
    return any(np.array_equal(np.sort(cols), np.sort(other)) for other, _ in bases)


def _dual_simplex(a: np.ndarray, cost: np.ndarray, b: np.ndarray, cols: np.ndarray,
                  max_pivots: int = 200) -> tuple[np.ndarray, np.ndarray] | None:
    """From a dual-feasible basis ``cols`` to an optimal one for ``b`` (dual simplex, dense,
    Bland's rule on ties), or ``None`` (too many pivots, or no feasible point).

    A basis optimal for one right-hand side stays dual feasible for every other (the reduced
    costs do not depend on ``b``), so the neighbouring region's basis is a few pivots away."""
    cols = np.array(cols)
    n = a.shape[1]
    for _ in range(max_pivots):
        inv = np.linalg.inv(a[:, cols])
        xb = inv @ b
        if xb.min() >= -1e-9:
            return cols, inv
        p = int(np.flatnonzero(xb < -1e-9)[0])  # Bland: the first infeasible row
        y = np.linalg.solve(a[:, cols].T, cost[cols])
        reduced = cost - a.T @ y
        alpha = inv[p] @ a
        basic = np.zeros(n, dtype=bool)
        basic[cols] = True
        enter = np.flatnonzero((alpha < -1e-9) & ~basic)
        if enter.size == 0:
            return None
        ratios = np.maximum(reduced[enter], 0.0) / -alpha[enter]
        best = ratios.min()
        q = int(enter[np.flatnonzero(ratios <= best + 1e-12)[0]])
        cols[p] = q
    return None


def monotone_many(forced: np.ndarray, n_rows: np.ndarray, cost_row: np.ndarray, c: int, *,
                  integer: bool) -> tuple[np.ndarray, np.ndarray]:
    """Worst and best output counts of class ``c`` for many candidate rows ``N[c, :]`` at once.

    The program depends on a candidate only through the right-hand side (its row
    ``N[c, :]``), so an optimal basis found for one row is optimal for every row it keeps
    feasible (``B^-1 b >= 0``): each row is checked against the bases found so far (one
    matrix product for all rows) and only a row no basis covers is solved (HiGHS, dual
    simplex), adding its basis. In the count form a row whose basic solution is not integral
    is solved as an integer program (:func:`monotone_class`). Returns two ``(m, K)`` arrays
    (floats; whole numbers in the count form). Assumes validated arguments.
    """
    k = len(cost_row)
    m = n_rows.shape[0]
    a_eq, rhs, weights, used, upper, index = _monotone_program(forced, [0] * k, cost_row, c)
    keep = np.flatnonzero(upper != 0)
    a_all = a_eq[:, keep]
    _, tri, piv = qr(a_all.T, pivoting=True)
    diag = np.abs(np.diag(tri))
    rank = int(np.sum(diag > 1e-9 * max(1.0, diag.max())))
    rows = np.sort(piv[:rank])
    a = a_all[rows]
    base = np.array([float(v) for v in rhs])
    rhs_all = np.repeat(base[:, None], m, axis=1)
    rhs_all[k:2 * k] = np.asarray(n_rows, dtype=float).T
    b_all = rhs_all[rows]
    to_out = np.zeros((k, len(keep)))
    for col, i in enumerate(keep):
        key = next(key for key, v in index.items() if v == i)
        if key[0] == "a" and key[1] == c:
            to_out[key[2], col] = 1
        elif key[0] == "b":
            to_out[key[3], col] = 1
    obj = _normalised(weights, used, cost_row)[keep]
    solved: dict[int, tuple[Any, Any]] = {}  # rows solved alone: both senses at once
    results = []
    for maximise in (True, False):
        cost = -obj if maximise else obj
        out = np.full((m, k), np.nan)
        pending = np.arange(m)
        bases: list[tuple[np.ndarray, np.ndarray]] = []
        while pending.size:
            for cols, inv in bases[-1:]:  # earlier bases were tried on these rows already
                # einsum, not BLAS: small matrices, where threaded BLAS only adds overhead
                xb = np.einsum("ij,jk->ik", inv, b_all[:, pending])
                ok = (xb >= -1e-9).all(axis=0)
                if integer:
                    ok &= (np.abs(xb - np.round(xb)) <= 1e-7).all(axis=0)
                    xb = np.round(xb)
                if ok.any():
                    x = np.zeros((len(keep), int(ok.sum())))
                    x[cols] = np.maximum(xb[:, ok], 0.0)
                    out[pending[ok]] = (to_out @ x).T
                    pending = pending[~ok]
            if not pending.size:
                break
            row = int(pending[0])
            if bases:  # a few dual simplex pivots from the last optimal basis, if they do
                moved = _dual_simplex(a, cost, b_all[:, row], bases[-1][0])
                if moved is not None and not _same_basis(moved[0], bases):
                    xb = moved[1] @ b_all[:, row]
                    if not integer or (np.abs(xb - np.round(xb)) <= 1e-7).all():
                        bases.append(moved)
                        continue
            res = linprog(cost, A_eq=a, b_eq=b_all[:, row], bounds=(0, None), method="highs-ds")
            found = None if res.status != 0 else _basis(a, cost, np.asarray(res.x),
                                                        np.asarray(res.eqlin.marginals))
            if found is not None:
                bases.append(found)
                before = pending.size
                cols, inv = found
                xb = inv @ b_all[:, pending[:1]]
                usable = (xb >= -1e-9).all() and (
                    not integer or (np.abs(xb - np.round(xb)) <= 1e-7).all())
                if usable or before == 0:
                    continue
            # no reusable basis: this row's own optimum, if the LP gave a usable one
            if res.status == 0:
                x = np.maximum(np.asarray(res.x), 0.0)
                if integer:
                    x = np.round(x)
                exact = np.abs(np.asarray(res.x) - x).max() <= 1e-7 and np.array_equal(
                    a_all @ x, rhs_all[:, row])
                if exact or not integer:
                    out[row] = to_out @ x
                    pending = pending[1:]
                    continue
            # else solve it alone as an integer program (exactly, as one candidate)
            if row not in solved:
                solved[row] = monotone_class(forced, n_rows[row], cost_row, c, integer=integer)
            (_, w), (_, b) = solved[row]
            out[row] = np.asarray(w if maximise else b, dtype=float)
            pending = pending[1:]
        results.append(out)
    return results[0], results[1]
