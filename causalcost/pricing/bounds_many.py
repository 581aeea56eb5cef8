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

from collections.abc import Callable
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
    CausalCostError,
    CountError,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    OverflowInputError,
    ValidationError,
)
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.chunks import (
    MAX_OUTPUT_BYTES,
    Offences,
    check_output_size,
    chunk_spans,
    labels_of,
)
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


#: Binary candidates one call prices by default: the result frame holds 15 float64 columns
#: per row (120 bytes), and :data:`~causalcost.pricing.chunks.MAX_OUTPUT_BYTES` (2 GiB) holds
#: 17,895,697 such rows; raise it per call with ``max_candidates=``.
MAX_ROWS = MAX_OUTPUT_BYTES // (8 * len(_MANY_COLUMNS))

# the checks in the order the unchunked computation makes them (Offences ranks)
_NEGATIVE, _FRACTIONAL, _EXACT, _TOTALS, _OVERFLOW = range(5)
_CASES = ("worst", "expected", "best")


def _raw_models(models: object) -> np.ndarray:
    """``models`` as an (n, 4) array, read in place if it is one (no float copy); refuses a
    bad shape and cells that are not real numbers (strings, None, bools, complex)."""
    try:
        raw = np.asarray(models)
    except (ValueError, TypeError) as exc:
        raise ValidationError(f"models must be an array of shape (n, 4) with columns tp, fn, fp, "
                              f"tn; cannot read it ({exc})") from None
    if raw.ndim != 2 or raw.shape[1] != 4:
        raise ValidationError(f"models must have shape (n, 4) with columns tp, fn, fp, tn, "
                              f"got shape {raw.shape}")
    numeric = all(getattr(d, "kind", "O") in "iuf" for d in getattr(models, "dtypes", ["O"]))
    if raw.dtype.kind not in "iuf" or not (isinstance(models, np.ndarray) or numeric):
        # numpy turns [[1, True, ...]] into numbers: check the cells' own types (one per type),
        # a chunk of rows at a time
        first: dict[type, Any] = {}
        rows = models.iloc if hasattr(models, "iloc") else models
        for start, stop in chunk_spans(raw.shape[0], 4):
            for value in np.asarray(rows[start:stop], dtype=object).ravel():  # type: ignore[index]
                first.setdefault(type(value), value)
        for value in first.values():
            _check_real("models cell", value)
    return raw


def _row_error(kind: type[CausalCostError], values: np.ndarray,
               text: str) -> Callable[[int, int], Callable[[int], CausalCostError]]:
    """For :meth:`Offences.add`: the error naming the first offending row, its counts (read
    from the chunk ``values`` at once) and how many rows offend."""
    def make(row: int, local: int) -> Callable[[int], CausalCostError]:
        cells = values[local].tolist()
        return lambda count: kind(text.format(row=row, cells=cells, count=count))
    return make


def _chunk_counts(raw: np.ndarray, start: int, integral: bool, offences: Offences) -> np.ndarray:
    """A chunk of ``models`` as floats; its rows with negative, non-finite or (``integral``)
    fractional counts, or class sizes beyond 2**53 (float64) or float64's range, are recorded
    in ``offences``."""
    try:
        m = raw.astype(float)
    except OverflowError:
        raise CountError("models hold an integer beyond float64's range (about 1.8e308)") from None
    offences.add(_NEGATIVE, (~np.isfinite(m) | (m < 0)).any(axis=1), start, _row_error(
        CountError, m, "models row {row} {cells}: counts must be finite and >= 0; {count} bad "
        "row(s) in all"))
    if offences.blocking(_FRACTIONAL):
        return m
    if integral:
        offences.add(_FRACTIONAL, (m != np.round(m)).any(axis=1), start, _row_error(
            CountError, m, "models row {row} {cells}: counts must be integer counts in the count "
            "form (use bound_many_from_rates for expected counts); {count} bad row(s) in all"))
        if not offences.blocking(_EXACT):
            offences.add(_EXACT, _beyond_exact(raw, m), start, _row_error(
                CountError, m, "models row {row}: a class size above 2**53 = "
                f"{EXACT_LIMIT}, which the frame's float64 columns cannot hold exactly; use "
                "bound() for such candidates (it counts in Python integers); {count} such "
                "row(s)"))
    else:
        with np.errstate(over="ignore"):
            sizes = np.stack([m[:, 0] + m[:, 1], m[:, 2] + m[:, 3]], axis=1)
        offences.add(_FRACTIONAL, ~np.isfinite(sizes).all(axis=1), start, _row_error(
            CountError, m, "models row {row} {cells}: counts are too large: a class size "
            "overflows float64; {count} bad row(s) in all"))
    return m


def _beyond_exact(raw: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Rows with a cell or a class size above 2**53 (float64 columns could not hold them); the
    cells are compared as the caller's integers, before rounding to float."""
    exact = raw if raw.dtype.kind in "iuO" else m
    big = np.asarray(exact > EXACT_LIMIT, dtype=bool).any(axis=1)
    # cells up to 2**53 are exact in float64 and their int64 sums cannot overflow
    cells = np.where(big[:, None], 0.0, m).astype(np.int64)
    return (big | (cells[:, 0] + cells[:, 1] > EXACT_LIMIT)
            | (cells[:, 2] + cells[:, 3] > EXACT_LIMIT))


def _check_totals(m: np.ndarray, start: int, n_p: Any, n_n: Any, what: str,
                  offences: Offences) -> None:
    """Record rows whose class totals differ from the forced runs' (or the kinds')."""
    offences.add(_TOTALS, (m[:, 0] + m[:, 1] != n_p) | (m[:, 2] + m[:, 3] != n_n), start,
                 lambda row, local: _totals_error(m[local], row, n_p, n_n, what))


def _totals_error(r: np.ndarray, row: int, n_p: Any, n_n: Any,
                  what: str) -> Callable[[int], CausalCostError]:
    text = (f"models row {row} {r.tolist()} has {_fmt(r[0] + r[1])} positives and "
            f"{_fmt(r[2] + r[3])} negatives but {what} count {_fmt(n_p)} and {_fmt(n_n)}; ")
    return lambda count: InfeasibleInputError(
        f"{text}{count} row(s) disagree: count every model on the same instances")


def _fill(out: np.ndarray, errors: tuple[Any, Any, Any, Any], rates: tuple[Any, Any, Any, Any],
          m: np.ndarray, costs: CostMatrix, start: int, offences: Offences) -> None:
    """One chunk's 15 rows of ``out`` (its columns transposed) from per-row (worst FN, best FN,
    worst FP, best FP) and cost function 1; costs that overflow float64 are recorded."""
    tp, fn, fp, tn = m.T
    n_p, n_n = tp + fn, fp + tn
    wp, bp, wn, bn = errors
    ep = np.minimum(tp * rates[0] + fn * rates[1], n_p)
    en = np.minimum(tn * rates[3] + fp * rates[2], n_n)
    c = costs
    with np.errstate(over="ignore", invalid="ignore"):
        for i, (errs_p, errs_n) in enumerate(((wp, wn), (ep, en), (bp, bn))):
            block = out[5 * i: 5 * i + 5]
            block[0] = np.maximum(n_p - errs_p, 0.0)
            block[1] = errs_p
            block[2] = errs_n
            block[3] = np.maximum(n_n - errs_n, 0.0)
            block[4] = c.tp * block[0] + c.fn * block[1] + c.fp * block[2] + c.tn * block[3]
    for i, case in enumerate(_CASES):
        block = out[5 * i: 5 * i + 5]
        for row in np.flatnonzero(~np.isfinite(block[4])):  # float64 overflowed: exactly
            block[4, row] = _exact_cost(tuple(block[:4, row].tolist()), costs)
        offences.add(_OVERFLOW + i, ~np.isfinite(block[4]), start, _overflow_error(
            case, costs, n_p + n_n))


def _overflow_error(case: str, costs: CostMatrix,
                    sizes: np.ndarray) -> Callable[[int, int], Callable[[int], CausalCostError]]:
    def make(row: int, local: int) -> Callable[[int], CausalCostError]:
        text = (f"costs too large: the {case}-case system cost of models row {row} overflows "
                f"float64 ({costs!r} with {_fmt(sizes[local])} instances; ")
        return lambda count: OverflowInputError(
            f"{text}{count} row(s)); rescale the costs (divide them all by the same factor)")
    return make


def _price_many(models: Any, costs: CostMatrix, rates: tuple[Any, Any, Any, Any],
                extremes: Callable[[np.ndarray], tuple[Any, Any, Any, Any]], *, integral: bool,
                totals: tuple[Any, Any, str] | None, max_candidates: int | None) -> pd.DataFrame:
    """The frame of :func:`bound_many`, :data:`~causalcost.pricing.chunks.CHUNK_CELLS` cells
    at a time: ``extremes(m)`` gives a chunk's (worst FN, best FN, worst FP, best FP),
    ``totals`` the class sizes every row must have (and what counted them). The frame is the
    only allocation for every row; errors are those of the whole input (see
    :class:`~causalcost.pricing.chunks.Offences`)."""
    check_output_size("models", models, 2, max_candidates)
    raw = _raw_models(models)
    out = np.empty((len(_MANY_COLUMNS), raw.shape[0]))
    offences = Offences()
    for start, stop in chunk_spans(raw.shape[0], 4):
        m = _chunk_counts(raw[start:stop], start, integral, offences)
        if totals is not None and not offences.blocking(_TOTALS):
            _check_totals(m, start, *totals, offences)
        if not offences.blocking(_OVERFLOW):  # a bad row anywhere: only count the others
            _fill(out[:, start:stop], extremes(m), rates, m, costs, start, offences)
    offences.raise_first()
    return pd.DataFrame(out.T, columns=_MANY_COLUMNS, copy=False)


def bound_many(forced_p: Any = None, forced_n: Any = None,
               models: Any = None, costs: Any = _UNIT, *, kinds: Any = None,
               assumption: str | None = None, monotonicity: object | None = None,
               same_instances: bool | None = None,
               labels: list[str] | None = None,
               max_candidates: int | None = None) -> pd.DataFrame:
    """:func:`bound` for many candidates at once, fully vectorised (count or kinds form).

    The candidates are priced a chunk at a time
    (:data:`~causalcost.pricing.chunks.CHUNK_CELLS` cells: 2**20 binary candidates), written
    into the result frame, so the memory beside the frame stays bounded (about 100 MB) and
    the frame is what a single pass over every row would give, bit for bit. The frame itself
    holds every row: 15 float64 columns (120 bytes) per binary candidate, ``3 + 3 K**2`` per
    K-label one. A frame above :data:`~causalcost.pricing.chunks.MAX_OUTPUT_BYTES` (2 GiB:
    17,895,697 binary candidates, 8,947,848 of K = 3) is refused before anything is
    allocated; pass the candidates in batches, or raise ``max_candidates=``.

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
    max_candidates : int, optional, keyword-only
        The most candidates (rows) this call prices; default ``None``: as many as a 2 GiB
        result frame holds (see above). Raise it if the memory for the frame is there.

    Returns
    -------
    pandas.DataFrame
        One row per candidate; columns ``{worst,expected,best}_{tp,fn,fp,tn,cost}``. The
        ``expected`` columns are cost function 1 (``expected_cost`` is ``Eval1``). No witnesses.

    Raises
    ------
    ValidationError
        If the result frame would exceed the ceiling (more than ``max_candidates`` rows, by
        default more than a 2 GiB frame holds): one line naming the argument, the count, the
        ceiling and the fix, raised from the shape alone.
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

    A billion candidates would make a 112 GiB frame: refused at once, from the shape alone
    (the broadcast array below costs no memory):

    >>> billion = np.broadcast_to(np.array([50, 50, 0, 0]), (10**9, 4))
    >>> bound_many(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), billion)
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: models has 1,000,000,000 candidates, more than ...

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
                             monotonicity=monotonicity, max_candidates=max_candidates)
    if kinds is not None:
        if forced_p is not None or forced_n is not None:
            raise InputTypeError("give either the forced runs (forced_p and forced_n) or kinds=, "
                                 "not both")
        _check_type("costs", costs, CostMatrix)
        return _many_from_kinds(kinds, models, costs, assumption, max_candidates)
    if forced_p is None or forced_n is None or models is None:
        raise InputTypeError("bound_many needs forced_p and forced_n (the system's confusion "
                             "with the slot forced to P and to N) or kinds=, and the models")
    assumption = assumption or "monotone"
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    on_p, on_n = class_assumptions(costs, assumption)
    fails = _failures_from_counts(forced_p, forced_n, None, (on_p, on_n))
    n_p, n_n = forced_p.positives, forced_p.negatives
    rates = (_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
             _ratio(fails[2], n_n))

    def extremes(m: np.ndarray) -> tuple[Any, Any, Any, Any]:
        wp, bp = _extremes(fails[0], fails[1], m[:, 0], m[:, 1], on_p)
        wn, bn = _extremes(fails[2], fails[3], m[:, 3], m[:, 2], on_n)
        return wp, bp, wn, bn

    return _price_many(models, costs, rates, extremes, integral=True,
                       totals=(n_p, n_n, "forced_p and forced_n"), max_candidates=max_candidates)


def _many_from_kinds(kinds: object, models: Any, costs: CostMatrix,
                     assumption: str | None, max_candidates: int | None) -> pd.DataFrame:
    counts = _read_kinds(kinds)
    on_p, on_n = class_assumptions(costs, "none" if assumption is None else assumption)
    right_only = counts["P"][3] * (on_p == "monotone") + counts["N"][3] * (on_n == "monotone")
    if right_only:
        raise MonotonicityError(
            f"the kinds hold {right_only} right_only instance(s), so the system is not monotone "
            "in the slot; the kinds bound needs no assumption: drop assumption=")
    if models is None:
        raise InputTypeError("bound_many needs the models (an array of shape (n, 4))")
    n_p, n_n = sum(counts["P"]), sum(counts["N"])
    forced_p, forced_n = _forced(counts)
    fails = _failures_from_counts(forced_p, forced_n, None, "none")
    rates = (_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
             _ratio(fails[2], n_n))

    def extremes(m: np.ndarray) -> tuple[Any, Any, Any, Any]:
        wp, bp = _kind_extremes(counts["P"], m[:, 0], np.minimum, np.maximum)
        wn, bn = _kind_extremes(counts["N"], m[:, 3], np.minimum, np.maximum)
        return wp, bp, wn, bn

    return _price_many(models, costs, rates, extremes, integral=True,
                       totals=(n_p, n_n, "the kinds (rows 'P' and 'N')"),
                       max_candidates=max_candidates)


def bound_many_from_rates(rates: ErrorRates | InterventionalTable, models: np.ndarray,
                          costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                          monotonicity: object | None = None,
                          max_candidates: int | None = None) -> pd.DataFrame:
    """:func:`bound_from_rates` for many candidates at once (probability form).

    Each row's forced failures are ``F = e x n`` with that row's class sizes, so rows may have
    different sizes and results may be fractional. Columns, chunks and the ceiling on the
    frame (``max_candidates``, default a 2 GiB frame) as in :func:`bound_many`.

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

    def extremes(m: np.ndarray) -> tuple[Any, Any, Any, Any]:
        tp, fn, fp, tn = m.T
        n_p, n_n = tp + fn, fp + tn
        wp, bp = _extremes(r.fn_forced_p * n_p, r.fn_forced_n * n_p, tp, fn, on_p)
        wn, bn = _extremes(r.fp_forced_n * n_n, r.fp_forced_p * n_n, tn, fp, on_n)
        return wp, bp, wn, bn

    return _price_many(models, costs,
                       (r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n), extremes,
                       integral=False, totals=None, max_candidates=max_candidates)


def _many_general(forced: Any, candidates: Any, costs: Any, *, assumption: str | None,
                  same_instances: bool | None, labels: list[str] | None,
                  monotonicity: object | None, max_candidates: int | None) -> pd.DataFrame:
    """:func:`bound_many` for K-label arrays; the binary vectorised forms for K = 2."""
    from causalcost.pricing.general import _check_monotonicity as check_k
    from causalcost.pricing.general import is_table
    from causalcost.pricing.inputs import check_costs, check_counts
    from causalcost.pricing.many_general import general_bound_many
    from causalcost.pricing.monotonicity import require_monotone
    from causalcost.pricing.views import binary_costs, binary_rates, matrix_of

    assumption = "none" if assumption is None else assumption
    if candidates is None:
        raise InputTypeError("bound_many needs the candidates (an array of shape (n, K, K))")
    check_output_size("candidates", candidates, labels_of(candidates), max_candidates)
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
                                  labels=labels, max_candidates=max_candidates)
    c = binary_costs(check_costs(1 - np.eye(2) if cost_arg is None else cost_arg, 2))
    models = n.reshape(-1, 4)  # rows [[tp, fn], [fp, tn]] -> tp, fn, fp, tn
    if is_table(forced):
        return bound_many_from_rates(binary_rates(table=matrix_of(forced)), models, c,
                                     assumption=assumption, max_candidates=max_candidates)
    f = check_counts("forced", matrix_of(forced), 3, 2, integer=bool(same_instances))
    if same_instances:
        from causalcost.pricing.views import binary_confusion

        return bound_many(binary_confusion(f[0]), binary_confusion(f[1]), models, c,
                          assumption=assumption, max_candidates=max_candidates)
    needed = [False, False]  # the classes some candidate has instances of, a chunk at a time
    for start, stop in chunk_spans(len(models), 4):
        part = models[start:stop]
        needed[0] |= bool((part[:, :2].sum(axis=1) > 0).any())
        needed[1] |= bool((part[:, 2:].sum(axis=1) > 0).any())
    return bound_many_from_rates(binary_rates(forced=f, needed=(needed[0], needed[1])), models, c,
                                 assumption=assumption, max_candidates=max_candidates)

