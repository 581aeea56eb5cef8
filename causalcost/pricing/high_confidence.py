"""A worst case that still holds on new instances, with a stated probability.

The plain worst case (:func:`~causalcost.bound_from_rates`) treats the forced-run rates as if
they had been counted on the candidate's own instances. When the forced runs were counted on
``n1`` instances (stage 1) and the candidate measured on ``n2`` others (stage 2), the stage-2
instances hold their own, unseen, numbers of system failures, and the plain worst case is
exceeded with real probability at small sizes.

Per class ``c`` and forced value (the slot forced to the right class, or to the wrong one),
the stage-2 failure count ``F`` is binomial with the same failure probability as the stage-1
count ``K``. The worst case is non-decreasing in every failure count (monotone:
``min(fw, fc + nw)``; assumption-free: ``min(fc, nc) + min(fw, nw)``), and the system's cost
is non-decreasing in its failures (a mistake never costs less than a hit). So replacing each
stage-2 failure count by an upper prediction limit (:func:`causalcost.stats.prediction.
binomial_prediction_limit`) at level ``alpha / L`` (``L`` the number of limits used, at most
four: Bonferroni) gives a worst case that the real system cost on the stage-2 instances
exceeds with probability at most ``alpha``, over both samples, whatever the system is — as
long as the worst case itself is valid (the monotone assumption holds, or ``"none"`` is used)
and both stages are drawn from the same population. Each limit is at least the plug-in
estimate, so the high-confidence worst case is never below the plain one; it approaches it as
``n1`` and ``n2`` grow.

Under the monotone assumption the stage-2 counts satisfy ``fc <= fw``, so the limit for
``fc`` is capped by the limit for ``fw`` (still an upper limit on ``fc``).

The **high-confidence best case** (``side="best"``) is the mirror: the best case is also
non-decreasing in every failure count (monotone: ``max(fc, fw - nc)``; assumption-free:
``max(0, fc - nw) + max(0, fw - nc)``), so replacing each stage-2 failure count by a *lower*
prediction limit at level ``alpha / L`` gives a best case that the real system cost falls below
with probability at most ``alpha``. The lower limit on ``F`` among ``n2`` is ``n2`` minus the
upper limit on the ``n2 - F`` successes (the stage-1 successes ``n1 - K`` in the role of the
failures), never above the plug-in estimate; under the monotone assumption the limit for
``fw`` is raised to the limit for ``fc`` (``fw >= fc``). Each side holds with probability at
least ``confidence`` on its own; both at once with probability at least ``2 confidence - 1``
(union bound).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from causalcost.confusion import EXACT_LIMIT, Confusion, CostMatrix, _exact_cost
from causalcost.errors import CountError, InfeasibleInputError, OverflowInputError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.bounds import Bound, bound, bound_from_rates
from causalcost.pricing.closed_forms import _UNIT, _check_assumption, _check_type, _extremes
from causalcost.stats.prediction import PREDICTION_METHODS, binomial_prediction_limit

__all__ = ["SIDES", "high_confidence_bound", "high_confidence_bound_from_rates",
           "high_confidence_worst_cost_many"]

#: The two one-sided guarantees: an upper limit on the system cost, or a lower one.
SIDES = ("worst", "best")


def _stage_one(forced_p: Confusion, forced_n: Confusion) -> dict[str, tuple[float, float, float]]:
    """Per class: (failures with the slot right, failures with it wrong, class size)."""
    if (forced_p.positives, forced_p.negatives) != (forced_n.positives, forced_n.negatives):
        raise InfeasibleInputError(
            "forced_p and forced_n must count the same stage-1 instances: class sizes "
            f"{forced_p.positives:g}/{forced_p.negatives:g} against "
            f"{forced_n.positives:g}/{forced_n.negatives:g} (positives/negatives)"
        )
    return {"P": (forced_p.fn, forced_n.fn, forced_p.positives),
            "N": (forced_n.fp, forced_p.fp, forced_p.negatives)}


def _limits(right: Any, wrong: Any, n1: Any, n2: Any, alpha: float, method: str,
            assumption: str) -> tuple[Any, Any]:
    """Upper prediction limits on stage-2 (right, wrong) failures; assumes validated input."""
    u_right = binomial_prediction_limit(right, n1, n2, 1 - alpha, method)
    u_wrong = binomial_prediction_limit(wrong, n1, n2, 1 - alpha, method)
    if assumption == "monotone":
        u_right = np.minimum(u_right, u_wrong)
    return u_right, u_wrong


def _lower_limits(right: Any, wrong: Any, n1: Any, n2: Any, alpha: float, method: str,
                  assumption: str) -> tuple[Any, Any]:
    """Lower prediction limits on stage-2 (right, wrong) failures: ``n2`` minus the upper
    limits on the successes; assumes validated input."""
    l_right = n2 - binomial_prediction_limit(n1 - right, n1, n2, 1 - alpha, method)
    l_wrong = n2 - binomial_prediction_limit(n1 - wrong, n1, n2, 1 - alpha, method)
    if assumption == "monotone":
        l_wrong = np.maximum(l_wrong, l_right)
    return l_right, l_wrong


def _check_side(side: object) -> str:
    if side not in SIDES:
        raise ValidationError(f"side ({side!r}) must be 'worst' (an upper limit on the system "
                              "cost) or 'best' (a lower limit)")
    return str(side)


def _limit_count(n2_p: Any, n2_n: Any) -> Any:
    """How many limits the union bound spends alpha on: two per class present in stage 2."""
    return 2 * ((np.asarray(n2_p) > 0).astype(int) + (np.asarray(n2_n) > 0).astype(int))


def high_confidence_bound(
    forced_p: Any,
    forced_n: Any,
    model: Any = None,
    costs: Any = _UNIT,
    *,
    confidence: float = 0.95,
    method: str = "conditional",
    assumption: str | None = None,
    monotonicity: object | None = None,
    side: str = "worst",
    labels: list[str] | None = None,
) -> Bound:
    """Worst (or best) case that holds on the candidate's own instances with a stated probability.

    Any K: ``high_confidence_bound(forced, candidate, costs)`` with stage-1 forced-run counts
    ``F[j, c, s]`` and the candidate's ``N[c, j]`` (arrays, rows the true class) gives the
    worst (or best) case of :mod:`~causalcost.pricing.high_confidence_general`, with
    ``assumption="none"`` (the default for arrays) or ``"monotone"`` (the one rule of
    :func:`~causalcost.bound`, per instance and cost); for K = 2 the binary forms below,
    which give the same numbers.

    Parameters
    ----------
    forced_p, forced_n : Confusion
        Stage 1: the system's confusion with the slot forced to P / to N, counted on the same
        ``n1`` instances (integer counts).
    model : Confusion
        Stage 2: the candidate's confusion on ``n2`` other instances from the same population
        (integer counts).
    costs : CostMatrix, default ``CostMatrix(fn=1, fp=1)``
        The system's cost matrix.
    confidence : float, default 0.95
        ``1 - alpha``: the probability, over both samples, that the real system cost on the
        stage-2 instances (with the candidate in the slot) does not exceed ``worst_cost``.
    method : {"conditional", "clopper-pearson"}
        The prediction limit (see :mod:`causalcost.stats.prediction`).
    assumption, monotonicity
        As in :func:`~causalcost.bound`.
    side : {"worst", "best"}
        ``"worst"`` (default): an upper limit, the real cost exceeds ``worst_cost`` with
        probability at most ``1 - confidence``. ``"best"``: the mirror, a lower limit, the real
        cost falls below ``best_cost`` with probability at most ``1 - confidence``.

    Returns
    -------
    Bound
        With ``side="worst"``: ``worst`` / ``worst_cost`` at the stated confidence
        (``form="high-confidence"``, ``confidence`` and ``method`` set), ``best`` the plain best
        case (the guarantee is one-sided). With ``side="best"``: ``best`` / ``best_cost`` at
        the stated confidence and ``worst`` the plain worst case. ``expected`` is cost
        function 1 at the stage-1 rates.

    Raises
    ------
    CountError, InfeasibleInputError, MonotonicityError, ValidationError
        As in :func:`~causalcost.bound`, and for a confidence outside (0, 1) or an unknown
        method.

    Examples
    --------
    The slides' experiment at n1 = n2 = 100: 50 %/50 % models, OR fusioner, the slot 50 %.

    >>> import causalcost as cc
    >>> forced_p = cc.Confusion(tp=50, fn=0, fp=50, tn=0)
    >>> forced_n = cc.Confusion(tp=25, fn=25, fp=25, tn=25)
    >>> model = cc.Confusion(tp=25, fn=25, fp=25, tn=25)
    >>> plain = cc.bound_from_rates(cc.ErrorRates.from_forced(forced_p, forced_n), model)
    >>> high = cc.high_confidence_bound(forced_p, forced_n, model, confidence=0.95)
    >>> plain.worst_cost, high.worst_cost, high.confidence, high.method
    (75.0, 81.0, 0.95, 'conditional')
    >>> low = cc.high_confidence_bound(forced_p, forced_n, model, side="best")
    >>> plain.best_cost, low.best_cost   # the mirror: a lower limit, never above the plain one
    (25.0, 19.0)
    """
    if not isinstance(forced_p, Confusion):  # K labels: forced runs, candidate, costs
        return _general_high_confidence(forced_p, forced_n, model, costs, confidence, method,
                                        assumption, side, labels, monotonicity)
    assumption = assumption or "monotone"
    for name, value in (("forced_p", forced_p), ("forced_n", forced_n)):
        _check_type(name, value, Confusion)
        if value.total > EXACT_LIMIT:
            raise CountError(f"{name} counts {value.total:g} instances; the prediction limits "
                             f"are computed in float64, exact only up to 2**53 = {EXACT_LIMIT}")
    _check_options(model, costs, confidence, assumption)
    side = _check_side(side)
    if not isinstance(method, str) or method not in PREDICTION_METHODS:
        raise ValidationError(
            f"method ({method!r}) must be one of {', '.join(map(repr, PREDICTION_METHODS))}"
        )
    # The plain bound on the stage-1 rates validates the rates and the assumption.
    rates = ErrorRates.from_forced(forced_p, forced_n)
    plain = bound_from_rates(rates, model, costs, assumption=assumption, monotonicity=monotonicity)
    stage = _stage_one(forced_p, forced_n)
    alpha = (1 - confidence) / max(1, int(_limit_count(model.positives, model.negatives)))
    limits = _limits if side == "worst" else _lower_limits
    u = {}
    for c, n2 in (("P", model.positives), ("N", model.negatives)):
        right, wrong, n1 = stage[c]
        u[c] = limits(int(right), int(wrong), int(n1), int(n2), alpha, method, assumption)
    return _assemble(u, model, costs, plain, assumption, confidence, method, side)


def _assemble(u: dict[str, tuple[Any, Any]], model: Confusion, costs: CostMatrix, plain: Bound,
              assumption: str, confidence: float, method: str, side: str = "worst") -> Bound:
    """The count-form bound at the limits ``u`` (per class: failures with the slot right,
    wrong), keeping the plain bound's point estimate and its other side."""
    n2_p, n2_n = int(model.positives), int(model.negatives)
    high_p = Confusion(tp=n2_p - int(u["P"][0]), fn=int(u["P"][0]),
                       fp=int(u["N"][1]), tn=n2_n - int(u["N"][1]))
    high_n = Confusion(tp=n2_p - int(u["P"][1]), fn=int(u["P"][1]),
                       fp=int(u["N"][0]), tn=n2_n - int(u["N"][0]))
    high = bound(high_p, high_n, model, costs, assumption=assumption)
    if side == "best":
        return replace(high, worst=plain.worst, worst_cost=plain.worst_cost,
                       worst_witness=plain.worst_witness, expected=plain.expected,
                       expected_cost=plain.expected_cost, form="high-confidence",
                       confidence=float(confidence), method=method)
    return replace(high, best=plain.best, best_cost=plain.best_cost,
                   best_witness=plain.best_witness, expected=plain.expected,
                   expected_cost=plain.expected_cost, form="high-confidence",
                   confidence=float(confidence), method=method)


def _check_options(model: Confusion, costs: CostMatrix, confidence: object,
                   assumption: str) -> None:
    _check_assumption(assumption)
    _check_type("model", model, Confusion)
    _check_type("costs", costs, CostMatrix)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
        0 < confidence < 1
    ):
        raise ValidationError(f"confidence ({confidence!r}) must lie strictly between 0 and 1")
    for value, name in ((model.tp, "model.tp"), (model.fn, "model.fn"), (model.fp, "model.fp"),
                        (model.tn, "model.tn")):
        if value != round(value):
            raise ValidationError(f"{name} ({value:g}) must be an integer count: the "
                                  "high-confidence bound counts the candidate's instances")
    if model.total > EXACT_LIMIT:
        raise CountError(f"model counts {model.total:g} instances; the prediction limits are "
                         f"computed in float64, exact only up to 2**53 = {EXACT_LIMIT}")


def high_confidence_bound_from_rates(
    rates: ErrorRates | InterventionalTable,
    model: Confusion,
    costs: CostMatrix = _UNIT,
    *,
    confidence: float = 0.95,
    assumption: str = "monotone",
    monotonicity: object | None = None,
    side: str = "worst",
) -> Bound:
    """The high-confidence worst (or best) case when the rates are known exactly (an exact
    network table).

    The candidate's instances still hold their own failure counts: with the rate ``p`` known,
    the stage-2 count is ``Binomial(n2, p)`` and its upper limit is that binomial's quantile at
    ``1 - alpha / L`` (``L`` limits, Bonferroni), never below ``n2 p``. With ``side="best"``
    the lower limit is the quantile at ``alpha / L``, never above ``n2 p`` (see
    :func:`high_confidence_bound`).

    Examples
    --------
    >>> import causalcost as cc
    >>> b = high_confidence_bound_from_rates(cc.ErrorRates(0.2, 1.0, 0.2, 0.0),
    ...                                      cc.Confusion(50, 50, 100, 100),
    ...                                      cc.CostMatrix(fn=5, fp=1))
    >>> b.worst_cost >= 390, b.method   # thesis §4, example 1: plain worst case 390
    (True, 'binomial')
    >>> high_confidence_bound_from_rates(cc.ErrorRates(0.2, 1.0, 0.2, 0.0),
    ...                                  cc.Confusion(50, 50, 100, 100), cc.CostMatrix(fn=5, fp=1),
    ...                                  side="best").best_cost <= 250   # plain best case 250
    True
    """
    _check_options(model, costs, confidence, assumption)
    side = _check_side(side)
    plain = bound_from_rates(rates, model, costs, assumption=assumption, monotonicity=monotonicity)
    r = rates.error_rates if isinstance(rates, InterventionalTable) else rates
    alpha = (1 - confidence) / max(1, int(_limit_count(model.positives, model.negatives)))
    from scipy import stats as _st

    u = {}
    for c, n2, right, wrong in (("P", model.positives, r.fn_forced_p, r.fn_forced_n),
                                ("N", model.negatives, r.fp_forced_n, r.fp_forced_p)):
        limits = []
        for p_fail in (right, wrong):
            if side == "worst":
                q = _st.binom.ppf(1 - alpha, int(n2), p_fail) if n2 > 0 else 0
                limits.append(int(min(n2, max(q, np.ceil(n2 * p_fail - 1e-9)))))
            else:  # P(F < q) < alpha for the alpha-quantile q
                q = _st.binom.ppf(alpha, int(n2), p_fail) if n2 > 0 else 0
                limits.append(int(max(0, min(q, np.floor(n2 * p_fail + 1e-9)))))
        if assumption == "monotone":
            if side == "worst":
                limits[0] = min(limits)
            else:
                limits[1] = max(limits)
        u[c] = (limits[0], limits[1])
    return _assemble(u, model, costs, plain, assumption, confidence, "binomial", side)


def high_confidence_worst_cost_many(
    stage_one: np.ndarray,
    models: np.ndarray,
    costs: CostMatrix = _UNIT,
    *,
    confidence: float = 0.95,
    method: str = "conditional",
    assumption: str = "monotone",
) -> np.ndarray:
    """Vectorised high-confidence worst-case cost: one (stage 1, candidate) pair per row.

    Parameters
    ----------
    stage_one : array of shape (r, 8)
        Per row the forced-run counts ``forced_p`` (tp, fn, fp, tn) then ``forced_n``.
    models : array of shape (r, 4)
        The candidates' confusions (tp, fn, fp, tn) on their own instances.
    costs, confidence, method, assumption
        As in :func:`high_confidence_bound`.

    Returns
    -------
    ndarray of shape (r,)
        Equal, row by row, to ``high_confidence_bound(...).worst_cost`` (assumes consistent
        counts: used by simulations that generate them).

    Examples
    --------
    >>> import numpy as np
    >>> high_confidence_worst_cost_many(np.array([[50, 0, 50, 0, 25, 25, 25, 25]]),
    ...                                 np.array([[25, 25, 25, 25]])).tolist()
    [81.0]
    """
    s = np.asarray(stage_one, dtype=np.int64)
    m = np.asarray(models, dtype=np.int64)
    tp, fn, fp, tn = m.T
    n2_p, n2_n = tp + fn, fp + tn
    n1_p, n1_n = s[:, 0] + s[:, 1], s[:, 2] + s[:, 3]
    alpha = (1 - confidence) / np.maximum(1, _limit_count(n2_p, n2_n))
    worst = []
    for right, wrong, n1, n2, hits, misses in (
        (s[:, 1], s[:, 5], n1_p, n2_p, tp, fn),   # positives: fn with slot P / with slot N
        (s[:, 6], s[:, 2], n1_n, n2_n, tn, fp),   # negatives: fp with slot N / with slot P
    ):
        u_right = _vector_limit(right, n1, n2, alpha, method)
        u_wrong = _vector_limit(wrong, n1, n2, alpha, method)
        if assumption == "monotone":
            u_right = np.minimum(u_right, u_wrong)
        worst.append(_extremes(u_right, u_wrong, hits, misses, assumption)[0])
    fails_p, fails_n = worst
    with np.errstate(over="ignore", invalid="ignore"):
        cost = (fails_p * costs.fn + (n2_p - fails_p) * costs.tp
                + fails_n * costs.fp + (n2_n - fails_n) * costs.tn).astype(float)
    for row in np.flatnonzero(~np.isfinite(cost)):  # float64 overflowed: recompute exactly
        cells = (n2_p[row] - fails_p[row], fails_p[row], fails_n[row], n2_n[row] - fails_n[row])
        cost[row] = _exact_cost(tuple(int(v) for v in cells), costs)
    rows = np.flatnonzero(~np.isfinite(cost))
    if rows.size:
        raise OverflowInputError(
            f"costs too large: the high-confidence worst-case cost of row {rows[0]} overflows "
            f"float64 ({costs!r} with {n2_p[rows[0]] + n2_n[rows[0]]} instances); rescale the "
            "costs (divide them all by the same factor)")
    return cost


def _vector_limit(k: np.ndarray, n: np.ndarray, m: np.ndarray, alpha: np.ndarray,
                  method: str) -> np.ndarray:
    """Prediction limits with a per-row alpha (rows grouped by their alpha)."""
    out = np.empty(k.shape, dtype=np.int64)
    for a in np.unique(alpha):
        rows = alpha == a
        out[rows] = binomial_prediction_limit(k[rows], n[rows], m[rows], 1 - a, method)
    return out


def _general_high_confidence(forced: Any, candidate: Any, costs: Any, unit: Any,
                             confidence: float, method: str, assumption: str | None,
                             side: str, labels: list[str] | None,
                             monotonicity: object | None = None) -> Bound:
    """:func:`high_confidence_bound` for K-label arrays: the general route for K > 2, the
    binary closed forms (the same limits and programs) for K = 2."""
    from causalcost.pricing.high_confidence_general import general_high_confidence_bound
    from causalcost.pricing.inputs import check_costs, check_counts
    from causalcost.pricing.views import binary_confusion, binary_costs, matrix_of

    assumption = "none" if assumption is None else assumption
    _check_assumption(assumption)
    side = _check_side(side)
    if costs is None or costs is _UNIT:
        costs = unit if unit is not _UNIT else None
    f = check_counts("forced", matrix_of(forced), 3, integer=True)
    k = f.shape[0]
    if k > 2:
        return general_high_confidence_bound(
            f, matrix_of(candidate), costs=None if costs is None else matrix_of(costs),
            confidence=confidence, method=method, labels=labels, assumption=assumption,
            side=side, monotonicity=monotonicity)
    n = check_counts("model", matrix_of(candidate), 2, 2, integer=True)
    c = binary_costs(check_costs(1 - np.eye(2) if costs is None else matrix_of(costs), 2))
    b = high_confidence_bound(binary_confusion(f[0]), binary_confusion(f[1]),
                              binary_confusion(n), c, confidence=confidence, method=method,
                              assumption=assumption, side=side, monotonicity=monotonicity)
    return replace(b, labels=tuple(labels) if labels is not None else ("P", "N"))
