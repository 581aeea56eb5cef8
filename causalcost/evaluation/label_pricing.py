"""Price many K-label candidates against a sheet at once: costs 1 and 2, the worst and best
cases, and the high-confidence cases.

Orientation, as everywhere: the candidate's confusion ``N[c, j]``, the sheet's table
``T[c, j, s]``, forced runs ``F[j, c, s]`` and costs ``C[c, s]`` (rows the true class).

The assumption-free worst case of class ``c`` lets the ``N[c, j]`` instances predicted ``j``
take the dearest outputs forced run ``j`` gives on class ``c`` (the best case: the cheapest):
a greedy take in cost order, computed here for every candidate at once with cumulative sums
(``min(mass_s, max(0, N[c, j] - mass before s)))``). It is the same arithmetic as
:func:`causalcost.bound` (tests check it at rel 1e-12). The monotone assumption and
the exact kinds bound are linear programs, priced one candidate at a time by
:func:`_one_at_a_time`, the single place that calls the general bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.errors import (
    CausalCostError,
    InfeasibleInputError,
    OverflowInputError,
    ValidationError,
)

__all__ = ["eval1_interval", "free_bounds", "high_confidence_cases", "price_many", "who"]


def who(name: str) -> str:
    """How an error names a candidate (``""``: the one candidate of ``evaluate``)."""
    return f"candidate {name!r}" if name else "the candidate"


def _order(costs: np.ndarray, dear: bool) -> np.ndarray:
    """Per class, the outputs from the dearest (or cheapest) on, ties by label order."""
    k = costs.shape[0]
    key = -costs if dear else costs
    return np.stack([np.lexsort((np.arange(k), key[c])) for c in range(k)])


def free_bounds(mass: np.ndarray, n: np.ndarray, costs: np.ndarray,
                ) -> tuple[np.ndarray, np.ndarray]:
    """Assumption-free worst and best system confusions of many candidates.

    Parameters
    ----------
    mass : array (m, K, K, K) or (K, K, K)
        ``mass[c, j, s]``: outputs of forced run ``j`` on class ``c`` (counts, or rates times
        the candidate's class size), per candidate or shared.
    n : array (m, K, K)
        The candidates' confusions.
    costs : array (K, K)

    Returns
    -------
    (worst, best) : arrays (m, K, K)
        System confusions ``[candidate, true, output]``.

    Examples
    --------
    >>> f = np.array([[[2, 1], [0, 3]], [[1, 2], [1, 2]]])  # [c, j, s]
    >>> w, b = free_bounds(f, np.array([[[2, 1], [1, 2]]]), np.array([[0., 1.], [4., 0.]]))
    >>> w[0].tolist(), b[0].tolist()
    ([[1.0, 2.0], [2.0, 1.0]], [[2.0, 1.0], [0.0, 3.0]])
    """
    k = costs.shape[0]
    mass = np.broadcast_to(np.asarray(mass, dtype=float), (n.shape[0], k, k, k))
    amount = np.asarray(n, dtype=float)[..., None]  # [m, c, j, 1]
    out = []
    for dear in (True, False):
        order = _order(costs, dear)  # [c, i]
        index = np.broadcast_to(order[None, :, None, :], mass.shape)
        sorted_mass = np.take_along_axis(mass, index, axis=-1)
        before = np.cumsum(sorted_mass, axis=-1) - sorted_mass
        taken = np.minimum(sorted_mass, np.maximum(amount - before, 0.0)).sum(axis=2)
        result = np.zeros_like(taken)  # [m, c, s]
        np.put_along_axis(result, np.broadcast_to(order[None], taken.shape), taken, axis=-1)
        out.append(result)
    return out[0], out[1]


def _finite(values: np.ndarray, names: list[str], what: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(len(names), -1).any(axis=1))[0])
        raise OverflowInputError(f"{who(names[i])}: the {what} overflows float64 (costs "
                                 "or counts too large); rescale the sheet's costs or the counts")


def _one_at_a_time(sheet: Any, n: np.ndarray, names: list[str], same: np.ndarray,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Worst and best confusions by the general bound, one candidate at a time (the monotone
    programs and the kinds bound)."""
    from causalcost.pricing.bounds import bound

    k = sheet.k
    worst = np.zeros(n.shape)
    best = np.zeros(n.shape)
    rates = np.transpose(sheet.table_array, (1, 0, 2))  # as forced runs [j, c, s] of one each
    for i, name in enumerate(names):
        model = n[i].tolist()
        try:
            with np.errstate(over="ignore"):
                if same[i] and sheet.kinds is not None:
                    b = bound(kinds=sheet.kinds, model=[[int(v) for v in r]
                                                                   for r in model],
                                         costs=sheet.costs)
                elif same[i]:
                    b = bound(sheet.forced.tolist(), model, sheet.costs,
                                         same_instances=True, assumption=sheet.assumption,
                                         labels=list(sheet.labels))
                else:
                    b = bound(rates, model, sheet.costs, assumption=sheet.assumption,
                                         labels=list(sheet.labels))
        except OverflowError:
            raise OverflowInputError(f"{who(name)}: the worst or best cost overflows "
                                     "float64; rescale the sheet's costs or the counts"
                                     ) from None
        except CausalCostError as exc:
            raise type(exc)(f"{who(name)}: {exc}") from None
        worst[i] = np.asarray(b.to_numpy("worst"), dtype=float).reshape(k, k)
        best[i] = np.asarray(b.to_numpy("best"), dtype=float).reshape(k, k)
    return worst, best


def price_many(sheet: Any, n: np.ndarray, names: list[str], same: np.ndarray,
               ) -> dict[str, np.ndarray]:
    """The six costs (and the system confusions) of every candidate.

    ``same[i]``: candidate ``i`` was counted on the sheet's own instances (declared or
    proven); its worst and best cases are the count form, or the kinds bound when the sheet
    holds kinds. Otherwise the probability form on the candidate's class sizes.

    Returns
    -------
    dict
        ``eval1``, ``eval2``, ``perfect_slot_cost``, ``expected_cost``, ``worst_cost``,
        ``best_cost`` (arrays (m,)); ``expected``, ``worst``, ``best`` (arrays (m, K, K)).
    """
    t = sheet.table_array  # [c, j, s]
    costs = sheet.costs_array
    nf = n.astype(float)
    sizes = nf.sum(axis=2)  # [m, c]
    if (sizes.sum(axis=1) <= 0).any():
        i = int(np.flatnonzero(sizes.sum(axis=1) <= 0)[0])
        raise ValidationError(f"{who(names[i])}: the confusion has no instances")
    with np.errstate(over="ignore", invalid="ignore"):
        m1 = np.einsum("cjs,cs->cj", t, costs)
        eval1 = np.einsum("mcj,cj->m", nf, m1)
        eval2 = np.einsum("mcj,cj->m", nf, m1 - np.diag(m1)[:, None])
        perfect = sizes @ np.diag(m1)
        expected = np.einsum("mcj,cjs->mcs", nf, t)
    if sheet.forced is not None:
        seen = np.asarray(sheet.forced, dtype=float).sum(axis=2).T  # [c, j]
        unseen = (sizes[:, :, None] > 0) & (seen[None] == 0) & ~same[:, None, None]
        if unseen.any():
            i, c, j = (int(v) for v in np.argwhere(unseen)[0])
            raise InfeasibleInputError(
                f"{who(names[i])}: forced run {sheet.labels[j]!r} holds no instance of "
                f"class {sheet.labels[c]!r}, so its rates are unknown while the candidate has "
                "instances of that class")
    if sheet.assumption == "none" and not (same.any() and sheet.kinds is not None):
        worst = np.zeros(n.shape)
        best = np.zeros(n.shape)
        if (~same).any():
            mass = t[None] * sizes[~same][:, :, None, None]
            worst[~same], best[~same] = free_bounds(mass, n[~same], costs)
        if same.any():
            f = np.transpose(np.asarray(sheet.forced, dtype=float), (1, 0, 2))  # [c, j, s]
            _same_sizes(sheet, sizes, names, same)
            worst[same], best[same] = free_bounds(f, n[same], costs)
    else:
        if same.any():
            _same_sizes(sheet, sizes, names, same)
        worst, best = _one_at_a_time(sheet, n, names, same)
    with np.errstate(over="ignore", invalid="ignore"):
        out = {"eval1": eval1, "eval2": eval2, "perfect_slot_cost": perfect,
               "expected_cost": np.einsum("mcs,cs->m", expected, costs),
               "worst_cost": np.einsum("mcs,cs->m", worst, costs),
               "best_cost": np.einsum("mcs,cs->m", best, costs)}
    for key, value in out.items():
        _finite(value, names, key.replace("_", " "))
    out.update(expected=expected, worst=worst, best=best)
    return out


def _same_sizes(sheet: Any, sizes: np.ndarray, names: list[str], same: np.ndarray) -> None:
    """On the sheet's own instances the class sizes are the sheet's, and counts are whole."""
    own = np.asarray(sheet.class_sizes, dtype=float)
    bad = same & (sizes != own[None]).any(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        from causalcost.errors import SheetError

        raise SheetError(
            f"{who(names[i])} has class sizes {sizes[i].tolist()} but the sheet's forced "
            f"runs counted {own.tolist()}: it cannot have been counted on the same instances "
            "(declared or proven); count it on those rows, or leave same_instances out for the "
            "probability form")


def eval1_interval(sheet: Any, n: np.ndarray, confidence: float,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """An interval on Eval1 per candidate with probability at least ``confidence``.

    Eval1 is ``sum N[c, j] mu[c, j]`` with ``mu[c, j]`` the mean cost of forced run ``j`` on
    class ``c``, estimated from its ``n1`` counted instances. Each ``mu`` lies within
    Hoeffding's radius ``(max C[c] - min C[c]) sqrt(log(2 m / alpha) / (2 n1))`` of its
    estimate (clipped to the cost range), all ``m`` cells the candidate uses at once by
    Bonferroni: a conservative interval, conditional on the candidate's own counts.
    """
    forced = np.asarray(sheet.forced, dtype=float)  # [j, c, s]
    costs = sheet.costs_array
    n1 = forced.sum(axis=2).T  # [c, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.einsum("jcs,cs->cj", forced, costs) / n1
    low_c, high_c = costs.min(axis=1)[:, None], costs.max(axis=1)[:, None]
    used = np.maximum((n > 0).sum(axis=(1, 2)), 1)  # cells per candidate
    alpha = 1.0 - float(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        radius = (high_c - low_c)[None] * np.sqrt(
            np.log(2.0 * used / alpha)[:, None, None] / (2.0 * n1[None]))
        low = np.clip(mu[None] - radius, low_c[None], high_c[None])
        high = np.clip(mu[None] + radius, low_c[None], high_c[None])
    nf = n.astype(float)
    low = np.where(nf > 0, low, 0.0)
    high = np.where(nf > 0, high, 0.0)
    return (nf * low).sum(axis=(1, 2)), (nf * high).sum(axis=(1, 2))


def high_confidence_cases(sheet: Any, model: np.ndarray, confidence: float,
                          method: str = "conditional") -> tuple[Any, float]:
    """The high-confidence worst case (a bound object) and best cost on the candidate's own
    instances, assumption-free (so valid under the monotone assumption too).

    The best case mirrors the worst: each forced run's stage-2 outputs are replaced by the
    cheapest distribution the prediction limits allow, and the assumption-free best case
    never increases when mass moves to cheaper outputs.
    """
    from causalcost.pricing.bounds import bound
    from causalcost.pricing.high_confidence import high_confidence_bound
    from causalcost.pricing.high_confidence_general import _dearest

    labels = list(sheet.labels)
    costs = sheet.costs_array
    forced = np.asarray(sheet.forced).astype(np.int64)
    model = np.asarray(model)
    if not (model == np.round(model)).all():
        from causalcost.errors import CountError

        raise CountError("the high-confidence cases need whole counts in the candidate's "
                         "confusion (they count its instances)")
    model = model.astype(np.int64)
    worst = high_confidence_bound(forced.tolist(), model.tolist(), costs,
                                             confidence=confidence, method=method,
                                             labels=labels)
    k = sheet.k
    n1 = forced.sum(axis=2)
    n2 = model.sum(axis=1)
    active = [c for c in range(k) if n2[c] > 0]
    alpha = (1 - float(confidence)) / max(1, len(active) * k * (k - 1))
    stage2 = np.zeros((k, k, k), dtype=np.int64)
    for c in active:
        for j in range(k):
            stage2[j, c] = _dearest(forced[j, c], int(n1[j, c]), int(n2[c]), -costs[c], alpha,
                                    method)
    best = bound(stage2.tolist(), model.tolist(), costs, same_instances=True,
                            labels=labels)
    return worst, float(best.best_cost)
