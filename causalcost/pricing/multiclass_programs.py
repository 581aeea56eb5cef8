"""The linear programs behind the K-label bounds: the monotone program and transportation.

Both are solved per true class ``c`` with HiGHS (:func:`scipy.optimize.milp`, gap 0). In the
count forms the program is solved over the integers, the solution is rounded, checked to
satisfy every constraint *exactly* in Python integers, and its cost recomputed exactly: the
result is the exact integer optimum, never a float approximation of it. The probability form
solves the linear relaxation (fractional masses are what it prices).

**Monotone program** (see :mod:`causalcost.pricing.multiclass`): variables ``a[j, s0]``
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
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from causalcost.errors import InfeasibleInputError

__all__ = ["ClassCase", "monotone_class", "transport_class", "transport_relaxation"]

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
    if hi > lo:
        out[mask] = (obj[mask] - lo) / (hi - lo)
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
    return float(np.dot(np.asarray(xs, dtype=float), np.asarray(weights, dtype=float)))


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
    others = [j for j in range(k) if j != c]
    index: dict[tuple[Any, ...], int] = {}
    for j, s0 in itertools.product(range(k), range(k)):
        index[("a", j, s0)] = len(index)
    for j in others:
        for s0, s in itertools.product(range(k), range(k)):
            index[("b", j, s0, s)] = len(index)
            index[("o", j, s0, s)] = len(index)
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
