"""Correlated model errors: which correlations two models' correctness can have.

Within one class, let ``A`` and ``B`` be the indicators that model 1 and model 2 are right,
with accuracies ``a = P(A)`` and ``b = P(B)``. Their joint law is fixed by ``p11 = P(A, B)``
and the Pearson correlation is

    rho = (p11 - a b) / sqrt(a (1 - a) b (1 - b)).

``p11`` can range over ``[max(0, a + b - 1), min(a, b)]``, so rho can range over

    [(max(0, a + b - 1) - a b) / s,  (min(a, b) - a b) / s],   s = sqrt(a (1 - a) b (1 - b)).

With ``a = b = 0.5`` that is all of [-1, 1]; with unequal accuracies +1 is unreachable (the
models cannot be right on exactly the same instances), and with ``a + b != 1`` neither is -1.
A model that is always or never right (``a`` in {0, 1}) has a constant indicator, whose
correlation is undefined: only rho = 0 is accepted then.
"""

from __future__ import annotations

import math

from causalcost.confusion import _as_real
from causalcost.errors import InputTypeError, ValidationError

__all__ = ["correlation_range", "correlated_correctness"]

_TOL = 1e-12


def _accuracy(name: str, value: float) -> float:
    v = _as_real(name, value, ValidationError)
    if not 0.0 <= v <= 1.0:
        raise ValidationError(f"{name} must be a probability in [0, 1], got {value!r}")
    return v


def correlation_range(a: float, b: float) -> tuple[float, float]:
    """The reachable Pearson correlations of two correctness indicators with accuracies a, b.

    Raises
    ------
    ValidationError
        If an accuracy is not a probability in [0, 1].
    InputTypeError
        If an accuracy is not a real number.

    Examples
    --------
    >>> correlation_range(0.5, 0.5)
    (-1.0, 1.0)
    >>> [round(r, 4) for r in correlation_range(0.8, 0.5)]
    [-0.5, 0.5]
    """
    a, b = _accuracy("accuracy a", a), _accuracy("accuracy b", b)
    s = math.sqrt(a * (1 - a) * b * (1 - b))
    if s == 0:
        return (0.0, 0.0)
    lo = (max(0.0, a + b - 1) - a * b) / s
    hi = (min(a, b) - a * b) / s
    return (max(-1.0, lo), min(1.0, hi))


def correlated_correctness(
    a: float, b: float, correlation: float, *, what: str = "this class"
) -> tuple[float, float, float, float]:
    """Joint law of two models' correctness with accuracies a, b and a given correlation.

    Returns ``(both right, only first right, only second right, both wrong)``.

    Raises
    ------
    ValidationError
        If ``correlation`` is outside :func:`correlation_range` ``(a, b)`` (the message gives
        the reachable range), not finite, or an accuracy is not a probability.
    InputTypeError
        If an argument is not a real number.

    Examples
    --------
    >>> [round(p, 4) for p in correlated_correctness(0.5, 0.5, 0.95)]
    [0.4875, 0.0125, 0.0125, 0.4875]
    """
    a, b = _accuracy("accuracy a", a), _accuracy("accuracy b", b)
    rho = _as_real("correlation", correlation, ValidationError)
    if not isinstance(what, str):
        raise InputTypeError(f"what must be a string naming the class, got {type(what).__name__}")
    lo, hi = correlation_range(a, b)
    if not (lo - _TOL <= rho <= hi + _TOL):
        raise ValidationError(
            f"correlation {rho:g} on {what} is not reachable with accuracies {a:g} and {b:g}: "
            f"reachable correlations lie in [{lo:.6g}, {hi:.6g}]"
        )
    s = math.sqrt(a * (1 - a) * b * (1 - b))
    p11 = a * b + rho * s
    p11 = min(max(p11, max(0.0, a + b - 1)), min(a, b))  # clamp rounding at the edges
    p10 = a - p11
    p01 = b - p11
    p00 = 1.0 - p11 - p10 - p01
    return (p11, p10, p01, max(0.0, p00))
