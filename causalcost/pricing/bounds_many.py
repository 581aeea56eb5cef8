""":func:`~causalcost.pricing.bounds.bound` for many candidate models at once, fully vectorised.

The same closed forms as the scalar bounds (:mod:`causalcost.pricing.bounds`), broadcast over one
candidate per row; results are data frames of float64 columns, without witnesses.

Float64 holds every integer up to ``2**53`` exactly, and the closed forms only add, subtract and
compare counts no larger than a class size, so the count and kinds forms are exact as long as
every class size is at most ``2**53``. Beyond, the frame could not hold the counts exactly, so
such rows are refused (:class:`~causalcost.errors.CountError` naming the row) rather than
rounded: use :func:`~causalcost.pricing.bounds.bound` for them, which counts in Python integers.
A cost that overflows float64 is refused too (:class:`~causalcost.errors.OverflowInputError`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import (
    CELLS,
    EXACT_LIMIT,
    Confusion,
    CostMatrix,
    _check_real,
    _exact_cost,
)
from causalcost.confusion import format_number as _fmt
from causalcost.errors import (
    CountError,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    OverflowInputError,
    ValidationError,
)
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
    class_assumptions,
)
from causalcost.pricing.kinds import _forced, _kind_extremes, _read_kinds

__all__ = ["bound_many", "bound_many_from_rates"]

_MANY_COLUMNS = [f"{case}_{c}" for case in ("worst", "expected", "best") for c in (*CELLS, "cost")]


#: Candidates one call prices: the result frame holds 15 float64 columns per row (about 120
#: bytes), so 5 * 10**7 rows make a 6 GB frame; beyond, split the candidates into batches.
MAX_ROWS = 5 * 10**7


def _check_row_count(models: object) -> None:
    shape = getattr(models, "shape", None)
    rows = shape[0] if shape else (len(models) if hasattr(models, "__len__") else 0)
    if rows > MAX_ROWS:
        raise ValidationError(
            f"models has {rows:,} rows, more than bound_many prices at once ({MAX_ROWS:,}: the "
            f"result frame alone would take {rows * 120 / 1e9:,.0f} GB); split the candidates "
            "into batches of at most that many rows and concatenate the frames")


def _models_array(models: object, integral: bool) -> np.ndarray:
    """``models`` as an (n, 4) float array; refuses bad types, values and, if ``integral``,
    fractional counts or class sizes beyond 2**53."""
    _check_row_count(models)
    try:
        raw = np.asarray(models)
    except (ValueError, TypeError) as exc:
        raise ValidationError(f"models must be an array of shape (n, 4) with columns tp, fn, fp, "
                              f"tn; cannot read it ({exc})") from None
    if raw.ndim != 2 or raw.shape[1] != 4:
        raise ValidationError(f"models must have shape (n, 4) with columns tp, fn, fp, tn, "
                              f"got shape {raw.shape}")
    if raw.dtype.kind not in "iuf" or not isinstance(models, np.ndarray):
        # numpy turns [[1, True, ...]] into numbers: check the cells' own types (one per type)
        first: dict[type, Any] = {}
        for value in np.asarray(models, dtype=object).ravel():
            first.setdefault(type(value), value)
        for value in first.values():  # refuses strings, None, bools, complex numbers, ...
            _check_real("models cell", value)
    try:
        m = raw.astype(float)
    except OverflowError:
        raise CountError("models hold an integer beyond float64's range (about 1.8e308)") from None
    checks = [((~np.isfinite(m) | (m < 0)).any(axis=1), "must be finite and >= 0")]
    if integral:
        fractional = (m != np.round(m)).any(axis=1)
        checks.append((fractional, ("must be integer counts in the count form (use "
                                   "bound_many_from_rates for expected counts)")))
    else:
        with np.errstate(over="ignore"):
            sizes = np.stack([m[:, 0] + m[:, 1], m[:, 2] + m[:, 3]], axis=1)
        checks.append((~np.isfinite(sizes).all(axis=1), "are too large: a class size "
                                                        "overflows float64"))
    for bad, what in checks:
        rows = np.flatnonzero(bad)
        if rows.size:
            raise CountError(f"models row {rows[0]} {m[rows[0]].tolist()}: counts {what}; "
                             f"{rows.size} bad row(s) in all")
    if integral:
        _check_exact(raw, m)
    return m


def _check_exact(raw: np.ndarray, m: np.ndarray) -> None:
    """Refuse rows whose class sizes exceed 2**53 (float64 columns could not hold them)."""
    exact = raw if raw.dtype.kind in "iuO" else m  # compare integers before rounding
    big = np.asarray(exact > EXACT_LIMIT, dtype=bool).any(axis=1)
    if not big.any():  # cells up to 2**53 are exact in float64; their int64 sums too
        cells = m.astype(np.int64)
        big = ((cells[:, 0] + cells[:, 1] > EXACT_LIMIT)
               | (cells[:, 2] + cells[:, 3] > EXACT_LIMIT))
    rows = np.flatnonzero(big)
    if rows.size:
        raise CountError(
            f"models row {rows[0]}: a class size above 2**53 = {EXACT_LIMIT}, which the frame's "
            "float64 columns cannot hold exactly; use bound() for such candidates (it counts in "
            f"Python integers); {rows.size} such row(s)")


def _many(errors: tuple[Any, Any, Any, Any], rates: tuple[Any, Any, Any, Any], m: np.ndarray,
          costs: CostMatrix) -> pd.DataFrame:
    """The frame from per-row (worst FN, best FN, worst FP, best FP) and cost function 1."""
    tp, fn, fp, tn = m.T
    n_p, n_n = tp + fn, fp + tn
    wp, bp, wn, bn = errors
    ep = np.minimum(tp * rates[0] + fn * rates[1], n_p)
    en = np.minimum(tn * rates[3] + fp * rates[2], n_n)
    out = np.empty((15, m.shape[0]))
    c = costs
    with np.errstate(over="ignore", invalid="ignore"):
        for i, (errs_p, errs_n) in enumerate(((wp, wn), (ep, en), (bp, bn))):
            block = out[5 * i: 5 * i + 5]
            block[0] = np.maximum(n_p - errs_p, 0.0)
            block[1] = errs_p
            block[2] = errs_n
            block[3] = np.maximum(n_n - errs_n, 0.0)
            block[4] = c.tp * block[0] + c.fn * block[1] + c.fp * block[2] + c.tn * block[3]
    for i, case in enumerate(("worst", "expected", "best")):
        block = out[5 * i: 5 * i + 5]
        for row in np.flatnonzero(~np.isfinite(block[4])):  # float64 overflowed: exactly
            block[4, row] = _exact_cost(tuple(block[:4, row].tolist()), costs)
        rows = np.flatnonzero(~np.isfinite(block[4]))
        if rows.size:
            raise OverflowInputError(
                f"costs too large: the {case}-case system cost of models row {rows[0]} "
                f"overflows float64 ({costs!r} with {_fmt(n_p[rows[0]] + n_n[rows[0]])} "
                f"instances; {rows.size} row(s)); rescale the costs (divide them all by the "
                "same factor)")
    return pd.DataFrame(out.T, columns=_MANY_COLUMNS, copy=False)


def _check_rows(m: np.ndarray, n_p: Any, n_n: Any, what: str) -> None:
    rows = np.flatnonzero((m[:, 0] + m[:, 1] != n_p) | (m[:, 2] + m[:, 3] != n_n))
    if rows.size:
        r = m[rows[0]]
        raise InfeasibleInputError(
            f"models row {rows[0]} {r.tolist()} has {_fmt(r[0] + r[1])} positives and "
            f"{_fmt(r[2] + r[3])} negatives but {what} count {_fmt(n_p)} and {_fmt(n_n)}; "
            f"{rows.size} row(s) disagree: count every model on the same instances")


def bound_many(forced_p: Any = None, forced_n: Any = None,
               models: Any = None, costs: Any = _UNIT, *, kinds: Any = None,
               assumption: str | None = None, monotonicity: object | None = None,
               same_instances: bool | None = None,
               labels: list[str] | None = None) -> pd.DataFrame:
    """:func:`bound` for many candidates at once, fully vectorised (count or kinds form).

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P / N on the candidates' instances.
    models : array_like, shape (n, 4)
        One candidate per row, columns ``tp, fn, fp, tn`` (integer counts, each row with the
        forced runs' class totals, each class size at most ``2**53``).
    costs : CostMatrix
        As in :func:`bound`.
    kinds : DataFrame, keyword-only
        Instead of the forced runs, the instance kinds counted on the candidates' (shared)
        instances, as in :func:`bound`: exact bounds without assumption.
    assumption, monotonicity
        As in :func:`bound` (default ``"monotone"`` with forced runs, ``"none"`` with kinds).

    Returns
    -------
    pandas.DataFrame
        One row per candidate; columns ``{worst,expected,best}_{tp,fn,fp,tn,cost}``. The
        ``expected`` columns are cost function 1 (``expected_cost`` is ``Eval1``). No witnesses.

    Raises
    ------
    CountError
        If a row holds negative, non-finite or fractional counts, or a class size above
        ``2**53`` (the message names the row).
    InfeasibleInputError
        If a row's class totals differ from the forced runs' (or the kinds'), or as in
        :func:`bound`.
    OverflowInputError
        If a row's cost overflows float64.

    Examples
    --------
    >>> df = bound_many(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                 [[50, 50, 0, 0], [100, 0, 0, 0], [0, 100, 0, 0]])
    >>> df["worst_cost"].tolist(), df["expected_cost"].tolist(), df["best_cost"].tolist()
    ([100.0, 50.0, 100.0], [75.0, 50.0, 100.0], [50.0, 50.0, 100.0])

    K labels: ``bound_many(forced, candidates, costs)`` with forced runs ``F[j, c, s]`` (or a
    table), candidates of shape (n, K, K) and costs ``C[c, s]`` (keywords ``assumption``,
    ``same_instances``, ``labels`` as in :func:`~causalcost.bound`); see
    :mod:`~causalcost.pricing.many_general`. K = 2 gives the binary frame above.
    """
    if assumption is not None:
        _check_assumption(assumption)
    if kinds is None and forced_p is not None and not isinstance(forced_p, Confusion):
        candidates = forced_n if forced_n is not None else models
        matrix = models if forced_n is not None and models is not None else costs
        return _many_general(forced_p, candidates, matrix, assumption=assumption,
                             same_instances=same_instances, labels=labels,
                             monotonicity=monotonicity)
    if kinds is not None:
        if forced_p is not None or forced_n is not None:
            raise InputTypeError("give either the forced runs (forced_p and forced_n) or kinds=, "
                                 "not both")
        _check_type("costs", costs, CostMatrix)
        return _many_from_kinds(kinds, models, costs, assumption)
    if forced_p is None or forced_n is None or models is None:
        raise InputTypeError("bound_many needs forced_p and forced_n (the system's confusion "
                             "with the slot forced to P and to N) or kinds=, and the models")
    assumption = assumption or "monotone"
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    on_p, on_n = class_assumptions(costs, assumption)
    fails = _failures_from_counts(forced_p, forced_n, None, (on_p, on_n))
    m = _models_array(models, integral=True)
    n_p, n_n = forced_p.positives, forced_p.negatives
    _check_rows(m, n_p, n_n, "forced_p and forced_n")
    rates = (_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
             _ratio(fails[2], n_n))
    tp, fn, fp, tn = m.T
    wp, bp = _extremes(fails[0], fails[1], tp, fn, on_p)
    wn, bn = _extremes(fails[2], fails[3], tn, fp, on_n)
    return _many((wp, bp, wn, bn), rates, m, costs)


def _many_from_kinds(kinds: object, models: Any, costs: CostMatrix,
                     assumption: str | None) -> pd.DataFrame:
    counts = _read_kinds(kinds)
    on_p, on_n = class_assumptions(costs, assumption or "none")
    right_only = counts["P"][3] * (on_p == "monotone") + counts["N"][3] * (on_n == "monotone")
    if right_only:
        raise MonotonicityError(
            f"the kinds hold {right_only} right_only instance(s), so the system is not monotone "
            "in the slot; the kinds bound needs no assumption: drop assumption=")
    if models is None:
        raise InputTypeError("bound_many needs the models (an array of shape (n, 4))")
    m = _models_array(models, integral=True)
    n_p, n_n = sum(counts["P"]), sum(counts["N"])
    _check_rows(m, n_p, n_n, "the kinds (rows 'P' and 'N')")
    forced_p, forced_n = _forced(counts)
    fails = _failures_from_counts(forced_p, forced_n, None, "none")
    rates = (_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
             _ratio(fails[2], n_n))
    wp, bp = _kind_extremes(counts["P"], m[:, 0], np.minimum, np.maximum)
    wn, bn = _kind_extremes(counts["N"], m[:, 3], np.minimum, np.maximum)
    return _many((wp, bp, wn, bn), rates, m, costs)


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
    on_p, on_n = class_assumptions(costs, assumption)
    r = _rates_of(rates, (on_p, on_n))
    m = _models_array(models, integral=False)
    tp, fn, fp, tn = m.T
    n_p, n_n = tp + fn, fp + tn
    wp, bp = _extremes(r.fn_forced_p * n_p, r.fn_forced_n * n_p, tp, fn, on_p)
    wn, bn = _extremes(r.fp_forced_n * n_n, r.fp_forced_p * n_n, tn, fp, on_n)
    return _many((wp, bp, wn, bn), (r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n),
                 m, costs)


def _many_general(forced: Any, candidates: Any, costs: Any, *, assumption: str | None,
                  same_instances: bool | None, labels: list[str] | None,
                  monotonicity: object | None) -> pd.DataFrame:
    """:func:`bound_many` for K-label arrays; the binary vectorised forms for K = 2."""
    from causalcost.pricing.general import _check_monotonicity as check_k
    from causalcost.pricing.general import is_table
    from causalcost.pricing.inputs import check_costs, check_counts
    from causalcost.pricing.many_general import general_bound_many
    from causalcost.pricing.monotonicity import require_monotone
    from causalcost.pricing.views import binary_costs, binary_rates, matrix_of

    assumption = assumption or "none"
    if candidates is None:
        raise InputTypeError("bound_many needs the candidates (an array of shape (n, K, K))")
    _check_row_count(candidates)
    cost_arg = None if costs is _UNIT else matrix_of(costs)
    if assumption == "monotone":
        check_k(monotonicity)
        if is_table(forced):
            require_monotone(forced, cost_arg)
    n = np.asarray(matrix_of(candidates))
    k = n.shape[-1] if n.ndim == 3 else 0
    if k != 2:
        return general_bound_many(forced if is_table(forced) else matrix_of(forced), n, cost_arg,
                                  assumption=assumption, same_instances=bool(same_instances),
                                  labels=labels)
    c = binary_costs(check_costs(1 - np.eye(2) if cost_arg is None else cost_arg, 2))
    models = n.reshape(-1, 4)  # rows [[tp, fn], [fp, tn]] -> tp, fn, fp, tn
    if is_table(forced):
        return bound_many_from_rates(binary_rates(table=matrix_of(forced)), models, c,
                                     assumption=assumption)
    f = check_counts("forced", matrix_of(forced), 3, 2, integer=bool(same_instances))
    if same_instances:
        from causalcost.pricing.views import binary_confusion

        return bound_many(binary_confusion(f[0]), binary_confusion(f[1]), models, c,
                          assumption=assumption)
    needed = (bool((n[:, 0].sum(axis=1) > 0).any()), bool((n[:, 1].sum(axis=1) > 0).any()))
    return bound_many_from_rates(binary_rates(forced=f, needed=needed), models, c,
                                 assumption=assumption)
