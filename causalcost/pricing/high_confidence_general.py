"""Worst and best cases for K labels that hold on new instances with a stated probability.

Stage 1: the forced runs ``F[j, c, s]``, counted on ``n1_c`` instances of class ``c``.
Stage 2: the candidate's confusion ``N[c, j]`` on ``n2_c = sum_j N[c, j]`` other instances.
Per class and forced run ``j``, the stage-2 output counts are multinomial with the stage-1
rates. Order the outputs from the dearest (``C[c, s]`` descending; the cheapest for the best
side): the number of stage-2 outputs among the first ``m`` of that order is binomial, so an
upper prediction limit (:func:`causalcost.stats.prediction.binomial_prediction_limit`) caps
it. With probability at least ``confidence`` every cap holds at once (Bonferroni over the
``K - 1`` caps of each forced run of each class with stage-2 instances, ``alpha`` split
evenly), for any system and however the candidate's predictions fall on the instances.

* **Assumption-free** (``assumption="none"``): the worst case (``sum_j`` top ``N[c, j]`` of
  forced run ``j``'s outputs) never decreases when a run's mass moves to dearer outputs, so
  each run's outputs are replaced by the dearest distribution the caps allow; the best case
  (the cheapest ``N[c, j]``) never increases when mass moves to cheaper outputs, so the best
  side takes the cheapest distribution the caps allow.
* **Monotone** (``assumption="monotone"``, the one definition of :func:`causalcost.bound`:
  per instance ``C[c, r(c)] <= C[c, r(j)]``): the monotone program couples the forced runs, so
  no single extreme distribution is known to be the dearest. Instead the stage-2 outputs
  become variables of the monotone program, constrained by the caps: its maximum (minimum) is
  at least (at most) the monotone worst (best) case of the real stage-2 outputs whenever the
  caps hold, so it bounds the real cost with the stated probability. It is solved per class
  over the integers (the relaxation beyond :data:`~causalcost.pricing.inputs.LP_COUNT_LIMIT`
  instances, still a valid bound). For K = 2 this is the binary bound's ``min(fw, fc + nw)``
  (``max(fc, fw - nc)``) at the limits, with the limit on ``fc`` capped by that on ``fw``.

Each side holds with probability at least ``confidence`` on its own; both at once with
probability at least ``2 confidence - 1``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from causalcost.errors import ValidationError
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.general import ASSUMPTIONS, general_bound
from causalcost.pricing.inputs import LP_COUNT_LIMIT, check_costs, check_counts, check_labels
from causalcost.pricing.programs import _normalised, monotone_variables
from causalcost.stats.prediction import PREDICTION_METHODS, binomial_prediction_limit

__all__ = ["general_high_confidence_bound"]

#: One cap: (the outputs it counts, the most stage-2 instances they may hold).
Cap = tuple[tuple[int, ...], int]


def _caps(stage1: np.ndarray, n1: int, n2: int, cost_row: np.ndarray, alpha: float,
          method: str) -> list[Cap]:
    """The ``K - 1`` caps of one forced run: the first ``m`` outputs from the dearest (by
    ``cost_row``, descending) hold at most the upper prediction limit of stage-2 instances."""
    return _all_caps({(0, 0): (stage1, n1, n2, cost_row)}, alpha, method)[(0, 0)]


def _all_caps(runs: dict[Any, tuple[Any, int, int, np.ndarray]], alpha: float, method: str
              ) -> dict[Any, list[Cap]]:
    """:func:`_caps` of many forced runs (key -> stage-1 outputs, n1, n2, cost row), with one
    vectorised call of the prediction limit."""
    firsts: dict[Any, list[tuple[int, ...]]] = {}
    seen, n1s, n2s = [], [], []
    for key, (stage1, n1, n2, cost_row) in runs.items():
        k = len(cost_row)
        order = sorted(range(k), key=lambda s: (-cost_row[s], s))
        firsts[key] = [tuple(order[:m]) for m in range(1, k)]
        for first in firsts[key]:
            seen.append(int(sum(int(stage1[s]) for s in first)))
            n1s.append(int(n1))
            n2s.append(int(n2))
    limits = iter(np.atleast_1d(binomial_prediction_limit(
        np.array(seen, dtype=np.int64), np.array(n1s, dtype=np.int64),
        np.array(n2s, dtype=np.int64), 1 - alpha, method)).tolist()) if seen else iter(())
    return {key: [(first, int(next(limits))) for first in found]
            for key, found in firsts.items()}


def _dearest(stage1: np.ndarray, n1: int, n2: int, cost_row: np.ndarray, alpha: float,
             method: str) -> list[int]:
    """The dearest stage-2 output counts (length K) the caps allow (by ``cost_row``; pass
    ``-cost_row`` for the cheapest)."""
    return _spread(_caps(stage1, n1, n2, cost_row, alpha, method), n2, len(cost_row))


def _spread(caps: list[Cap], n2: int, k: int) -> list[int]:
    """The output counts (length K) that fill each cap in turn, the dearest first."""
    out = [0] * k
    reached = 0
    for (first, limit) in caps:
        cum = min(n2, max(reached, limit))
        out[first[-1]] = cum - reached
        reached = cum
    last = next(s for s in range(k) if s not in caps[-1][0])
    out[last] = n2 - reached
    return out


def _monotone_capped(caps: list[list[Cap]], n_row: np.ndarray, cost_row: np.ndarray, c: int,
                     maximise: bool) -> tuple[Any, list[Any]]:
    """The monotone program of class ``c`` with the stage-2 outputs of each forced run free
    within ``caps[j]``: its maximum (or minimum) cost and the system outputs per label.

    Variables ``a[j, s0]`` (predicted ``j``, ``r(c) = s0``) and, for ``j != c``,
    ``b[j, s0, s]`` / ``o[j, s0, s]`` (predicted / not predicted ``j``, ``r(c) = s0``,
    ``r(j) = s``), zero where ``C[c, s] < C[c, s0]``.
    """
    k = len(cost_row)
    others = [j for j in range(k) if j != c]
    index, weights, used, upper = monotone_variables(cost_row, c)
    eq: list[tuple[dict[int, int], int]] = []
    for j in range(k):
        eq.append(({index[("a", j, s0)]: 1 for s0 in range(k)}, int(n_row[j])))
    for j in others:
        for s0 in range(k):
            eq.append(({**{index[("b", j, s0, s)]: 1 for s in range(k)},
                        index[("a", j, s0)]: -1}, 0))
            row = {index[("o", j, s0, s)]: 1 for s in range(k)}
            for j2 in range(k):
                if j2 != j:
                    row[index[("a", j2, s0)]] = -1
            eq.append((row, 0))
    ub: list[tuple[dict[int, int], int]] = []
    for (first, limit) in caps[c]:
        ub.append(({index[("a", j, s0)]: 1 for j in range(k) for s0 in first}, limit))
    for j in others:
        for (first, limit) in caps[j]:
            ub.append(({index[(v, j, s0, s)]: 1 for v in ("b", "o") for s0 in range(k)
                        for s in first}, limit))
    x = _solve(_normalised(weights, used, cost_row), eq, ub, upper, len(index),
               integer=int(n_row.sum()) <= LP_COUNT_LIMIT, maximise=maximise)
    outputs: list[Any] = [0] * k
    for key, i in index.items():
        if key[0] == "a" and key[1] == c:
            outputs[key[2]] += x[i]
        elif key[0] == "b":
            outputs[key[3]] += x[i]
    value = sum(Fraction(v) * Fraction(w) for v, w in zip(x, weights) if v)
    return value, outputs


def _solve(objective: np.ndarray, eq: list[tuple[dict[int, int], int]],
           ub: list[tuple[dict[int, int], int]], upper: np.ndarray, size: int, *,
           integer: bool, maximise: bool) -> list[Any]:
    """Solve with HiGHS; an integer solution is rounded and every row checked exactly."""
    rows = [*eq, *ub]
    a = np.zeros((len(rows), size))
    for r, (terms, _) in enumerate(rows):
        for i, v in terms.items():
            a[r, i] = v
    rhs = np.array([float(v) for _, v in rows])
    low = np.concatenate([rhs[:len(eq)], np.full(len(ub), -np.inf)])
    res = milp((-1.0 if maximise else 1.0) * objective,
               constraints=LinearConstraint(a, low, rhs),
               bounds=Bounds(np.zeros(size), upper),
               integrality=np.ones(size) if integer else None,
               options={"mip_rel_gap": 0.0, "presolve": True})
    if res.status != 0 or res.x is None:  # the caps hold for the stage-1 rates: never empty
        raise ArithmeticError("HiGHS found no point of the capped monotone program")
    if not integer:
        return [max(0.0, float(v)) for v in res.x]
    xi = [int(round(v)) for v in res.x]
    if any(v < 0 or abs(v - x) > 1e-6 for v, x in zip(xi, res.x)):
        raise ArithmeticError("HiGHS returned a non-integral point for an integer program")
    for r, (terms, value) in enumerate(rows):
        total = sum(v * xi[i] for i, v in terms.items())
        if total > value or (r < len(eq) and total != value):
            raise ArithmeticError("the rounded solution breaks a constraint")
    return xi


def _cost(matrix: np.ndarray, costs: np.ndarray) -> float:
    return float(sum(Fraction(v) * Fraction(float(c)) for v, c in zip(
        matrix.ravel().tolist(), costs.ravel().tolist()) if v))


def general_high_confidence_bound(forced: object, model: object, costs: object = None, *,
                                  confidence: float = 0.95, method: str = "conditional",
                                  labels: list[str] | None = None, assumption: str = "none",
                                  side: str = "worst",
                                  monotonicity: object | None = None) -> Bound:
    """Worst (or best) case on the candidate's own (stage-2) instances with probability
    ``confidence``, by the general route (any K >= 2).

    Parameters
    ----------
    forced : array (K, K, K)
        Stage-1 forced-run counts ``F[j, c, s]``; every forced run counts the same class sizes.
    model : array (K, K)
        The candidate's confusion ``N[c, j]`` on the stage-2 instances (integer counts).
    costs : array (K, K), default 0/1
        ``C[c, s]``.
    confidence : float
        Probability (over both stages) that the real cost stays at or under ``worst_cost``
        (``side="worst"``) or at or above ``best_cost`` (``side="best"``).
    method : {"conditional", "clopper-pearson"}
        The prediction limit (see :func:`~causalcost.stats.prediction.binomial_prediction_limit`).
    labels : list of str, optional
        Label names for the result.
    assumption : {"none", "monotone"}
        As in :func:`causalcost.bound` (the monotone rule per instance and cost).
    side : {"worst", "best"}
        Which case holds with the stated probability; the other is the plug-in one.
    monotonicity : object, optional
        A check result (``is_monotone``, ``violation``); ``"monotone"`` is refused if it says
        not monotone.

    Returns
    -------
    Bound
        ``form="high-confidence"``; ``expected`` and the other side are the plug-in ones
        (probability form at the stage-1 rates).

    Raises
    ------
    ValidationError
        A confidence outside (0, 1), an unknown method, side or assumption, forced runs of
        unequal class sizes.
    CountError
        Counts that are not whole non-negative numbers.
    InfeasibleInputError, MonotonicityError
        ``"monotone"`` with forced runs no monotone system gives, or a failed check.

    Examples
    --------
    >>> forced = np.zeros((3, 3, 3), dtype=int)
    >>> for j in range(3):
    ...     forced[j, :, j] = 18  # the system mostly repeats the slot ...
    ...     forced[j, :, (j + 1) % 3] = 2  # ... and sometimes not
    >>> model = [[8, 1, 1], [1, 8, 1], [1, 1, 8]]
    >>> plain = general_bound(forced, model, 1 - np.eye(3))
    >>> hc = general_high_confidence_bound(forced, model, 1 - np.eye(3))
    >>> plain.worst_cost < hc.worst_cost <= 30
    True
    >>> low = general_high_confidence_bound(forced, model, 1 - np.eye(3), side="best")
    >>> low.best_cost <= plain.best_cost
    True
    >>> mono = general_high_confidence_bound(forced, model, 1 - np.eye(3),
    ...                                      assumption="monotone")
    >>> plain.worst_cost <= mono.worst_cost <= hc.worst_cost
    True
    """
    if isinstance(confidence, bool) or not 0 < float(confidence) < 1:
        raise ValidationError(f"confidence ({confidence!r}) must lie strictly between 0 and 1")
    if method not in PREDICTION_METHODS:
        raise ValidationError(f"method ({method!r}) must be one of {list(PREDICTION_METHODS)}")
    if side not in ("worst", "best"):
        raise ValidationError(f"side ({side!r}) must be 'worst' (an upper limit on the system "
                              "cost) or 'best' (a lower limit)")
    if assumption not in ASSUMPTIONS:
        raise ValidationError(f"assumption ({assumption!r}) must be one of 'none' or "
                              "'monotone'")
    f = check_counts("forced", forced, 3, integer=True)
    k = f.shape[0]
    n = check_counts("model", model, 2, k, integer=True)
    c_arr = check_costs(1 - np.eye(k) if costs is None else costs, k)
    names = check_labels(labels, k)
    n1 = f.sum(axis=2)  # [j, c]
    for c in range(k):
        if len({int(v) for v in n1[:, c]}) != 1:
            raise ValidationError(f"the forced runs count different numbers of class "
                                  f"{names[c]!r} instances ({[int(v) for v in n1[:, c]]}); "
                                  "every forced run must run the same stage-1 instances")
    n2 = [int(v) for v in n.sum(axis=1)]
    active = [c for c in range(k) if n2[c] > 0]
    alpha = (1 - float(confidence)) / max(1, len(active) * k * (k - 1))
    plug = general_bound(f, n, c_arr, labels=list(names), assumption=assumption,
                         monotonicity=monotonicity)
    order = c_arr if side == "worst" else -c_arr  # the dearest outputs first, or the cheapest
    caps = _all_caps({(j, c): (f[j, c], int(n1[j, c]), n2[c], order[c])
                      for c in active for j in range(k)}, alpha, method)
    if assumption == "none":
        stage2 = np.zeros((k, k, k), dtype=object)
        stage2[...] = 0
        for (j, c), found in caps.items():
            stage2[j, c] = _spread(found, n2[c], k)
        hc = general_bound(stage2, n, c_arr, same_instances=True, labels=list(names))
        case, cost = (hc.worst, hc.worst_cost) if side == "worst" else (hc.best, hc.best_cost)
    else:
        case = np.zeros((k, k), dtype=object)
        case[...] = 0
        for c in active:
            _, case[c] = _monotone_capped([caps[(j, c)] for j in range(k)], n[c], c_arr[c], c,
                                          side == "worst")
        cost = _cost(case, c_arr)
    chosen = {"worst": case, "worst_cost": cost} if side == "worst" else {
        "best": case, "best_cost": cost}
    return replace(plug, **chosen, form="high-confidence", confidence=float(confidence),
                   method=method)
