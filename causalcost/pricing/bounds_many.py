""":func:`~causalcost.pricing.bounds.bound` for many candidate models at once, fully vectorised.

The same closed forms as the scalar bounds (:mod:`causalcost.pricing.bounds`), broadcast over one
candidate per row; results are data frames, without witnesses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.errors import CountError, InfeasibleInputError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.closed_forms import (
    _UNIT,
    _check_assumption,
    _check_monotonicity,
    _check_type,
    _extremes,
    _failures_from_counts,
    _rates_of,
    _ratio,
)

__all__ = ["bound_many", "bound_many_from_rates"]

_MANY_COLUMNS = [f"{case}_{c}" for case in ("worst", "expected", "best") for c in (*CELLS, "cost")]


def _models_array(models: object, integral: bool) -> np.ndarray:
    m = np.asarray(models, dtype=float)
    if m.ndim != 2 or m.shape[1] != 4:
        raise ValidationError(f"models must have shape (n, 4) with columns tp, fn, fp, tn, "
                              f"got shape {m.shape}")
    checks = [((~np.isfinite(m) | (m < 0)).any(axis=1), "must be finite and >= 0")]
    if integral:
        fractional = (m != np.round(m)).any(axis=1)
        checks.append((fractional, ("must be integer counts in the count form (use "
                                   "bound_many_from_rates for expected counts)")))
    for bad, what in checks:
        rows = np.flatnonzero(bad)
        if rows.size:
            raise CountError(f"models row {rows[0]} {m[rows[0]].tolist()}: counts {what}; "
                             f"{rows.size} bad row(s) in all")
    return m


def _many(fails: tuple[Any, Any, Any, Any], rates: tuple[Any, Any, Any, Any], m: np.ndarray,
          costs: CostMatrix, assumption: str) -> pd.DataFrame:
    tp, fn, fp, tn = m.T
    n_p, n_n = tp + fn, fp + tn
    wp, bp = _extremes(fails[0], fails[1], tp, fn, assumption)
    wn, bn = _extremes(fails[2], fails[3], tn, fp, assumption)
    ep = np.minimum(tp * rates[0] + fn * rates[1], n_p)
    en = np.minimum(tn * rates[3] + fp * rates[2], n_n)
    out = np.empty((15, m.shape[0]))
    c = costs
    for i, (errs_p, errs_n) in enumerate(((wp, wn), (ep, en), (bp, bn))):
        block = out[5 * i: 5 * i + 5]
        block[0] = np.maximum(n_p - errs_p, 0.0)
        block[1] = errs_p
        block[2] = errs_n
        block[3] = np.maximum(n_n - errs_n, 0.0)
        block[4] = c.tp * block[0] + c.fn * block[1] + c.fp * block[2] + c.tn * block[3]
    return pd.DataFrame(out.T, columns=_MANY_COLUMNS, copy=False)


def bound_many(forced_p: Confusion, forced_n: Confusion, models: np.ndarray,
               costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
               monotonicity: object | None = None) -> pd.DataFrame:
    """:func:`bound` for many candidates at once, fully vectorised (count form).

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P / N on the candidates' instances.
    models : array_like, shape (n, 4)
        One candidate per row, columns ``tp, fn, fp, tn`` (integer counts, each row with the
        forced runs' class totals).
    costs, assumption, monotonicity
        As in :func:`bound`.

    Returns
    -------
    pandas.DataFrame
        One row per candidate; columns ``{worst,expected,best}_{tp,fn,fp,tn,cost}``. The
        ``expected`` columns are cost function 1 (``expected_cost`` is ``Eval1``). No witnesses.

    Raises
    ------
    CountError
        If a row holds negative, non-finite or fractional counts (the message names the row).
    InfeasibleInputError
        If a row's class totals differ from the forced runs', or as in :func:`bound`.

    Examples
    --------
    >>> df = bound_many(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                 [[50, 50, 0, 0], [100, 0, 0, 0], [0, 100, 0, 0]])
    >>> df["worst_cost"].tolist(), df["expected_cost"].tolist(), df["best_cost"].tolist()
    ([100.0, 50.0, 100.0], [75.0, 50.0, 100.0], [50.0, 50.0, 100.0])
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    fails = _failures_from_counts(forced_p, forced_n, None, assumption)
    m = _models_array(models, integral=True)
    n_p, n_n = forced_p.positives, forced_p.negatives
    rows = np.flatnonzero((m[:, 0] + m[:, 1] != n_p) | (m[:, 2] + m[:, 3] != n_n))
    if rows.size:
        r = m[rows[0]]
        raise InfeasibleInputError(
            f"models row {rows[0]} {r.tolist()} has {_fmt(r[0] + r[1])} positives and "
            f"{_fmt(r[2] + r[3])} negatives but forced_p and forced_n count {_fmt(n_p)} and "
            f"{_fmt(n_n)}; {rows.size} row(s) disagree: count every model on the same instances")
    rates = (_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
             _ratio(fails[2], n_n))
    return _many(fails, rates, m, costs, assumption)


def bound_many_from_rates(rates: ErrorRates | InterventionalTable, models: np.ndarray,
                          costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                          monotonicity: object | None = None) -> pd.DataFrame:
    """:func:`bound_from_rates` for many candidates at once (probability form).

    Each row's forced failures are ``F = e x n`` with that row's class sizes, so rows may have
    different sizes and results may be fractional. Columns as in :func:`bound_many`.

    Examples
    --------
    >>> df = bound_many_from_rates(ErrorRates(0.5, 1.0, 0.0, 0.0), [[50, 50, 0, 0], [5, 5, 0, 0]])
    >>> df["worst_fn"].tolist(), df["expected_fn"].tolist(), df["best_fn"].tolist()
    ([100.0, 10.0], [75.0, 7.5], [50.0, 5.0])
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption, rates)
    _check_type("costs", costs, CostMatrix)
    r = _rates_of(rates, assumption)
    m = _models_array(models, integral=False)
    n_p, n_n = m[:, 0] + m[:, 1], m[:, 2] + m[:, 3]
    fails = (r.fn_forced_p * n_p, r.fn_forced_n * n_p, r.fp_forced_n * n_n, r.fp_forced_p * n_n)
    return _many(fails, (r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n), m, costs,
                 assumption)
