"""Closed forms and input checks shared by the scalar and vectorised bounds.

:func:`_extremes` is the per-class worst/best error count of :mod:`~causalcost.pricing.bounds`
(see the theory there); it broadcasts, so :mod:`~causalcost.pricing.bounds` and
:mod:`~causalcost.pricing.bounds_many` use
the same formula. The checks validate once, at the public boundary; the helpers that follow
them assume validated arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from causalcost.confusion import Confusion, CostMatrix, _exact
from causalcost.confusion import format_number as _fmt
from causalcost.errors import (
    CountError,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    ValidationError,
)
from causalcost.inference.table import ErrorRates, InterventionalTable

#: Accepted values of ``assumption``.
ASSUMPTIONS: tuple[str, str] = ("monotone", "none")
_UNIT = CostMatrix(fn=1, fp=1)


# ------------------------------------------------------------------ closed forms (scalar or array)
def _extremes(fc: Any, fw: Any, nc: Any, nw: Any, assumption: str) -> tuple[Any, Any]:
    """Worst and best errors of one class; numpy-broadcasting. Assumes validated arguments."""
    if assumption == "monotone":
        return np.minimum(fw, fc + nw), np.maximum(fc, fw - nc)
    worst = np.minimum(fc, nc) + np.minimum(fw, nw)
    return worst, np.maximum(0.0, fc - nw) + np.maximum(0.0, fw - nc)


def _extremes_exact(fc: Any, fw: Any, nc: Any, nw: Any, assumption: str) -> tuple[Any, Any]:
    """:func:`_extremes` for scalars in Python arithmetic: exact for integer counts of any size."""
    fc, fw, nc, nw = (_exact(v) for v in (fc, fw, nc, nw))
    if assumption == "monotone":
        return min(fw, fc + nw), max(fc, fw - nc)
    return min(fc, nc) + min(fw, nw), max(0, fc - nw) + max(0, fw - nc)


def class_assumptions(costs: CostMatrix, assumption: str) -> tuple[str, str]:
    """The assumption each class (P, N) rests on: the one monotone rule, per cost.

    ``"monotone"`` says ``C[c, r(c)] <= C[c, r(j)]`` per instance
    (:mod:`~causalcost.pricing.monotonicity`); for K = 2 that is "no ``right_only``
    instance" in a class whose mistake costs more than its hit, and nothing at all in a class
    whose mistake costs what its hit costs: that class takes the assumption-free extremes.

    >>> class_assumptions(CostMatrix(fn=5, fp=1), "monotone")
    ('monotone', 'monotone')
    >>> class_assumptions(CostMatrix(fn=0, fp=1), "monotone")
    ('none', 'monotone')
    """
    if assumption != "monotone":
        return assumption, assumption
    return ("monotone" if costs.fn > costs.tp else "none",
            "monotone" if costs.fp > costs.tn else "none")


def _pair(assumption: str | tuple[str, str]) -> tuple[str, str]:
    return (assumption, assumption) if isinstance(assumption, str) else assumption


def _ratio(a: float, n: float) -> float:
    return min(1.0, a / n) if n > 0 else 0.0


# ------------------------------------------------------------------------------ validation
def _check_assumption(assumption: object) -> None:
    if not isinstance(assumption, str) or assumption not in ASSUMPTIONS:
        raise ValidationError(f"assumption ({assumption!r}) must be one of 'monotone' or 'none'")


def _check_monotonicity(monotonicity: object | None, assumption: str,
                        rates: object = None) -> None:
    """Refuse ``assumption="monotone"`` against a failed network check.

    The check is ``monotonicity`` if given, else the one a network-computed table carries.
    """
    if monotonicity is None and isinstance(rates, InterventionalTable):
        monotonicity = rates.monotonicity
    if monotonicity is None or assumption == "none":
        return
    try:
        is_monotone, violation = monotonicity.is_monotone, monotonicity.violation  # type: ignore
    except AttributeError:
        raise InputTypeError("monotonicity must be a network-check result with attributes "
                             f"is_monotone and violation, got {type(monotonicity).__name__}"
                             ) from None
    if not isinstance(is_monotone, (bool, np.bool_)):
        raise InputTypeError(f"monotonicity.is_monotone must be a bool, got {is_monotone!r}")
    if not is_monotone:
        if isinstance(violation, Mapping) and violation:
            where = " (violated with " + ", ".join(f"{k}={v}" for k, v in violation.items()) + ")"
        else:
            where = f" (violated with {violation})" if violation else ""
        raise MonotonicityError(
            f"the network check found the system is not monotone in the slot{where}, so the "
            "monotone bounds do not hold; pass assumption='none' (--assumption none)")


def _check_type(name: str, value: object, kind: type) -> None:
    if not isinstance(value, kind):
        raise InputTypeError(f"{name} must be {kind.__name__}, got {type(value).__name__}")


def _monotone_message(cls: str, fc: str, fw: str, vc: float, vw: float) -> str:
    return ("with the slot forced to the correct class the system fails more often than forced "
            f"to the wrong class ({cls}: {fc}={_fmt(vc)} > {fw}={_fmt(vw)}): the system is not "
            "monotone in the slot; use assumption='none' (--assumption none)")


def _failures_from_counts(forced_p: Confusion, forced_n: Confusion, model: Confusion | None,
                          assumption: str | tuple[str, str]) -> tuple[int, int, int, int]:
    """Check the count form; return ``(F_P(P), F_P(N), F_N(N), F_N(P))`` as exact ints.

    ``assumption`` is one for both classes or a pair (P, N) from :func:`class_assumptions`."""
    named = [("forced_p", forced_p), ("forced_n", forced_n)]
    if model is not None:
        named.append(("model", model))
    for name, m in named:
        _check_type(name, m, Confusion)
        bad = [f"{k}={_fmt(v)}" for k, v in m.to_dict().items() if not float(v).is_integer()]
        if bad:
            raise CountError(f"{name} must hold integer counts in the count form, got "
                             f"{', '.join(bad)}; for expected (fractional) counts use "
                             "bound_from_rates")
    if len({(m.positives, m.negatives) for _, m in named}) > 1:
        totals = "; ".join(f"{n} has {_fmt(m.positives)} positives and {_fmt(m.negatives)} "
                           "negatives" for n, m in named)
        raise InfeasibleInputError(
            f"class totals disagree: {totals}; the forced runs and the model must be counted on "
            "the same instances")
    on_p, on_n = _pair(assumption)
    if on_p == "monotone" and forced_p.fn > forced_n.fn:
        raise InfeasibleInputError(
            _monotone_message("positives", "F_P(P)", "F_P(N)", forced_p.fn, forced_n.fn))
    if on_n == "monotone" and forced_n.fp > forced_p.fp:
        raise InfeasibleInputError(
            _monotone_message("negatives", "F_N(N)", "F_N(P)", forced_n.fp, forced_p.fp))
    return tuple(int(v) for v in (forced_p.fn, forced_n.fn, forced_n.fp, forced_p.fp))


def _rates_of(rates: ErrorRates | InterventionalTable,
              assumption: str | tuple[str, str]) -> ErrorRates:
    if isinstance(rates, InterventionalTable):
        rates = rates.error_rates
    _check_type("rates", rates, ErrorRates)
    on_p, on_n = _pair(assumption)
    if on_p == "monotone" and rates.fn_forced_p > rates.fn_forced_n:
        raise InfeasibleInputError(_monotone_message(
            "positives", "e_P(P)", "e_P(N)", rates.fn_forced_p, rates.fn_forced_n))
    if on_n == "monotone" and rates.fp_forced_n > rates.fp_forced_p:
        raise InfeasibleInputError(_monotone_message(
            "negatives", "e_N(N)", "e_N(P)", rates.fp_forced_n, rates.fp_forced_p))
    return rates
