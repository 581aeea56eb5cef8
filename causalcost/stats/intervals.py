"""Confidence intervals for an error rate (a binomial proportion).

A model that misclassifies ``count`` of ``n`` test instances has sample error
``p = count / n``. The count is binomial, and the lecture notes (seed 001, "Intervalli di
confidenza"; seed 004, "Erro de um classificador") approximate it by a normal law, so that
with probability ``N %`` the true error lies in

.. math:: p \\pm z_N \\sqrt{p (1 - p) / n},

with ``z_N`` read from a seven-entry table (:data:`Z_TABLE`). That interval (``"notes"``, or
``"normal"`` with the exact normal quantile) is the Wald interval: it collapses to a point
when ``count`` is 0 or ``n`` and undercovers for small ``n`` or ``p`` near 0 or 1, which is
why the notes ask for ``n > 30``. The default, Wilson's score interval, inverts the score
test instead and behaves well at every ``n``; ``"beta"`` (Clopper-Pearson) inverts the exact
binomial test and never undercovers; ``"jeffreys"`` is the equal-tailed Bayesian interval
under the Jeffreys prior; ``"agresti_coull"`` is the Wald interval after adding ``z^2/2``
successes and failures (Brown, Cai and DasGupta, *Interval Estimation for a Binomial
Proportion*, Statistical Science 16, 2001). All but ``"notes"`` are computed by
:func:`statsmodels.stats.proportion.proportion_confint`.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

import numpy as np

from causalcost.errors import InputTypeError, ValidationError

__all__ = ["INTERVAL_METHODS", "Z_TABLE", "normal_quantile", "proportion_interval"]

#: The notes' table of ``z_N`` (two-sided normal quantiles to two decimals), keyed by the
#: confidence ``N / 100``. Seeds 001 and 004 print the same seven values; 68 % is the
#: "one sigma" rule (the exact quantile is 0.994), the others are ``norm.ppf`` rounded.
Z_TABLE: MappingProxyType[float, float] = MappingProxyType(
    {0.50: 0.67, 0.68: 1.00, 0.80: 1.28, 0.90: 1.64, 0.95: 1.96, 0.98: 2.33, 0.99: 2.58}
)

#: Methods accepted by :func:`proportion_interval` (``"clopper_pearson"`` and
#: ``"clopper-pearson"`` are aliases of ``"beta"``).
INTERVAL_METHODS = ("wilson", "normal", "beta", "clopper_pearson", "clopper-pearson",
                    "jeffreys", "agresti_coull", "notes")

_STATSMODELS_NAME = {"clopper_pearson": "beta", "clopper-pearson": "beta"}
_QUANTILE_SOURCES = ("exact", "notes")


def proportion_interval(
    count: int | np.ndarray,
    n: int | np.ndarray,
    confidence: float = 0.95,
    method: str = "wilson",
) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """Two-sided confidence interval for a proportion such as an error rate.

    Parameters
    ----------
    count : int or array of int
        Misclassified (or any counted) instances, ``0 <= count <= n``. Integral floats and
        numpy integers are accepted.
    n : int or array of int
        Instances, ``n >= 1``. ``count`` and ``n`` broadcast against each other.
    confidence : float
        Coverage probability, ``0 < confidence < 1``. ``method="notes"`` accepts only the
        confidences of :data:`Z_TABLE`.
    method : str
        ``"wilson"`` (default), ``"normal"``, ``"beta"`` (Clopper-Pearson; aliases
        ``"clopper_pearson"``, ``"clopper-pearson"``), ``"jeffreys"``, ``"agresti_coull"``
        or ``"notes"``: the notes' ``p +- z_N sqrt(p (1 - p) / n)`` with ``z_N`` from
        :data:`Z_TABLE`, clipped to [0, 1].

    Returns
    -------
    (low, high) : tuple of float, or tuple of two ndarrays
        Plain floats when both ``count`` and ``n`` are scalars. Always
        ``0 <= low <= high <= 1``; ``low = 0`` when ``count = 0`` and ``high = 1`` when
        ``count = n``.

    Raises
    ------
    InputTypeError
        ``count`` or ``n`` not numbers (strings, booleans), or ``confidence`` not a number.
    ValidationError
        Negative or fractional counts, ``n < 1``, ``count > n``, a confidence outside (0, 1)
        or outside the table for ``"notes"``, or an unknown method.

    Notes
    -----
    statsmodels' Jeffreys interval puts its ends at beta quantiles even when ``count`` is 0
    or ``n``, so it would exclude the estimate; following Brown, Cai and DasGupta (2001,
    §4.1.2) the lower end is set to 0 when ``count = 0`` and the upper to 1 when
    ``count = n``. The other methods give those ends already.

    Examples
    --------
    The notes' example: 12 errors in 40 instances, ``error_S(h) = 0.30`` (seed 001).

    >>> low, high = proportion_interval(12, 40, method="notes")
    >>> round(low, 3), round(high, 3)
    (0.158, 0.442)
    >>> [round(v, 4) for v in proportion_interval(12, 40)]
    [0.1807, 0.4543]
    >>> [round(v, 4) for v in proportion_interval(0, 40, method="beta")]
    [0.0, 0.0881]
    >>> low, high = proportion_interval(np.array([0, 12, 40]), 40, confidence=0.9)
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.0, 0.197, 0.937], [0.063, 0.429, 1.0])
    """
    k = _counts(count, "count")
    total = _counts(n, "n")
    if np.any(total < 1):
        raise ValidationError(f"n must be at least 1, got n={n!r}")
    if np.any(k > total):
        raise ValidationError(f"count must not exceed n; got count={count!r}, n={n!r}")
    conf = _check_confidence(confidence)
    method = _check_method(method)
    k, total = np.broadcast_arrays(k, total)
    if method == "notes":
        z = normal_quantile(conf, "notes")
        p = k / total
        margin = z * np.sqrt(p * (1 - p) / total)
        low, high = p - margin, p + margin
    else:
        from statsmodels.stats.proportion import proportion_confint

        name = _STATSMODELS_NAME.get(method, method)
        low, high = proportion_confint(k, total, alpha=1 - conf, method=name)
    low = np.where(k == 0, 0.0, np.clip(np.asarray(low, dtype=float), 0.0, 1.0))
    high = np.where(k == total, 1.0, np.clip(np.asarray(high, dtype=float), 0.0, 1.0))
    high = np.maximum(low, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def normal_quantile(confidence: float, source: str = "exact") -> float:
    """The two-sided normal quantile ``z`` with ``P(|Z| <= z) = confidence``.

    Parameters
    ----------
    confidence : float
        ``0 < confidence < 1``.
    source : {"exact", "notes"}
        ``"exact"``: ``scipy.stats.norm.ppf((1 + confidence) / 2)``. ``"notes"``: the
        value of :data:`Z_TABLE` (only its seven confidences are accepted).

    Returns
    -------
    float

    Raises
    ------
    ValidationError
        A confidence outside (0, 1), one missing from the table for ``"notes"``, or an
        unknown source.

    Examples
    --------
    >>> round(normal_quantile(0.95), 4)
    1.96
    >>> normal_quantile(0.68, "notes"), round(normal_quantile(0.68), 4)
    (1.0, 0.9945)
    """
    conf = _check_confidence(confidence)
    if source not in _QUANTILE_SOURCES:
        raise ValidationError(f"source ({source!r}) must be one of "
                              f"{', '.join(map(repr, _QUANTILE_SOURCES))}")
    from scipy import stats as _st

    if source == "exact":
        return float(_st.norm.ppf((1 + conf) / 2))
    for level, z in Z_TABLE.items():
        if math.isclose(conf, level, rel_tol=0.0, abs_tol=1e-9):
            return z
    allowed = ", ".join(f"{level:g}" for level in Z_TABLE)
    raise ValidationError(f"confidence ({confidence!r}) is not in the notes' z_N table; "
                          f"the notes' quantiles exist for {allowed}")


# ----------------------------------------------------------------------- validation helpers
# Shared by the other modules of causalcost.stats.
def _check_confidence(confidence: Any, name: str = "confidence") -> float:
    """A confidence level as a float strictly between 0 and 1."""
    if isinstance(confidence, (bool, np.bool_)) or not isinstance(
        confidence, (int, float, np.integer, np.floating)
    ):
        raise InputTypeError(f"{name} must be a number strictly between 0 and 1, got "
                             f"{type(confidence).__name__} {confidence!r}")
    value = float(confidence)
    if not 0.0 < value < 1.0:  # also refuses NaN
        raise ValidationError(f"{name} ({confidence!r}) must lie strictly between 0 and 1")
    return value


def _counts(value: Any, name: str) -> np.ndarray:
    """Non-negative whole numbers (Python or numpy integers, integral floats) as int64."""
    if isinstance(value, (str, bytes)):
        raise InputTypeError(f"{name} must be a non-negative integer, got str {value!r}")
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # ragged nested sequences
        raise ValidationError(f"{name} must be an integer or a rectangular array of them, "
                              f"got {value!r}") from exc
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputTypeError(f"{name} must be a non-negative integer or an array of them, got "
                             f"{type(value).__name__} {value!r}")
    if arr.dtype.kind == "f" and not (np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
        raise ValidationError(f"{name} must hold whole numbers, got {value!r}")
    if np.any(arr < 0) or np.any(arr > 2**53):
        raise ValidationError(f"{name} must lie between 0 and 2**53, got {value!r}")
    return arr.astype(np.int64)


def _check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in INTERVAL_METHODS:
        raise ValidationError(f"method ({method!r}) must be one of "
                              f"{', '.join(map(repr, INTERVAL_METHODS))}")
    return str(method)
