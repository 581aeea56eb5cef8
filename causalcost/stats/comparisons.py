"""Is one model's error really lower than another's?

Two situations, two tests.

*Independent test sets* (:func:`error_difference`). Model 1 errs at rate ``e1`` on ``n1``
instances, model 2 at ``e2`` on ``n2`` other instances. The lecture notes (seed 001,
"Confrontare due modelli"; seed 004, "Comparação de dois classificadores") take
``d = e1 - e2``, approximate each rate by a normal law and add the variances, since the test
sets are independent:

.. math:: d \\pm z \\sqrt{\\frac{e_1 (1 - e_1)}{n_1} + \\frac{e_2 (1 - e_2)}{n_2}}.

The difference is significant when that interval excludes 0. Seed 004 also asks for the
probability that model 1's true error is the higher one given the observed ``d``; under the
same normal approximation it is ``Phi(d / sigma)``, one minus the one-sided p-value of
"error 1 <= error 2".

*The same test instances* (:func:`mcnemar_test`). When both models classify the same
instances the two error rates are correlated and only the discordant instances carry
information: ``b`` instances where A is right and B wrong, ``c`` where A is wrong and B right.
Under "equal error rates" each discordant instance is a fair coin, so McNemar's test compares
``b`` with ``Binomial(b + c, 1/2)`` (exact) or ``(|b - c| - 1)^2 / (b + c)`` with a
chi-square law on one degree of freedom (Dietterich, *Approximate Statistical Tests for
Comparing Supervised Classification Learning Algorithms*, Neural Computation 10, 1998).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import html_table
from causalcost.errors import InputTypeError, ValidationError
from causalcost.stats.intervals import _check_confidence, _counts, normal_quantile

__all__ = [
    "EXACT_BELOW",
    "ErrorDifference",
    "McNemarResult",
    "error_difference",
    "mcnemar_from_counts",
    "mcnemar_test",
]

#: ``mcnemar_test`` uses the exact binomial test when ``b + c`` is below this (by default).
EXACT_BELOW = 25


@dataclass(frozen=True, repr=False)
class ErrorDifference:
    """Difference ``e1 - e2`` of two error rates measured on independent test sets.

    Attributes
    ----------
    difference : float
        ``e1 - e2``: positive when model 1 errs more (the notes' ``d``).
    low, high : float
        ``difference -+ margin``.
    margin : float
        ``z * standard_error``.
    standard_error : float
        ``sqrt(e1 (1 - e1) / n1 + e2 (1 - e2) / n2)``.
    z : float
        The normal quantile used (exact, or the notes' ``z_N``).
    confidence : float
    p_value : float
        Two-sided, ``2 * (1 - Phi(|d| / standard_error))``.
    probability_first_higher : float
        ``Phi(d / standard_error)``: the normal-approximation probability that model 1's true
        error is the higher one (seed 004).
    e1, n1, e2, n2 : float, int, float, int
        The inputs.
    """

    difference: float
    low: float
    high: float
    margin: float
    standard_error: float
    z: float
    confidence: float
    p_value: float
    probability_first_higher: float
    e1: float
    n1: int
    e2: float
    n2: int

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, Any]:
        """Every attribute and ``significant``."""
        return {**asdict(self), "significant": self.significant}

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """One row with every attribute and ``significant``."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        verdict = "significant" if self.significant else "not significant"
        return (f"ErrorDifference(e1 - e2 = {self.difference:.4g} +- {self.margin:.4g} at "
                f"{self.confidence * 100:g}%: [{self.low:.4g}, {self.high:.4g}], {verdict}; "
                f"p = {self.p_value:.4g}, P(error 1 > error 2) = "
                f"{self.probability_first_higher:.4g})")


def error_difference(
    e1: float,
    n1: int,
    e2: float,
    n2: int,
    confidence: float = 0.95,
    *,
    quantile: str = "exact",
) -> ErrorDifference:
    """Normal-approximation interval for ``e1 - e2``, errors on independent test sets.

    Parameters
    ----------
    e1, e2 : float
        Sample error rates in [0, 1].
    n1, n2 : int
        Test-set sizes (at least 1; the notes ask for "sufficiently large", about 30).
    confidence : float
        ``0 < confidence < 1``.
    quantile : {"exact", "notes"}
        ``"exact"`` uses ``scipy.stats.norm.ppf``; ``"notes"`` the notes' ``z_N`` table
        (:data:`~causalcost.stats.intervals.Z_TABLE`), which accepts only its confidences.

    Returns
    -------
    ErrorDifference
        With ``difference = e1 - e2`` (the sign of the notes' definition ``d = e1 - e2``;
        seed 001's worked example reports ``|e2 - e1|``, so swap the arguments for a
        positive number).

    Raises
    ------
    InputTypeError
        Non-numeric rates, sizes or confidence.
    ValidationError
        Rates outside [0, 1] or not finite, sizes below 1 or fractional, a confidence
        outside (0, 1), an unknown ``quantile``.

    Notes
    -----
    When both rates are 0 or 1 the standard error is 0: the interval is the point ``d``,
    ``p_value`` is 0 if ``d != 0`` (1 otherwise) and ``probability_first_higher`` is 1, 0
    or 1/2 as ``d`` is positive, negative or 0.

    Examples
    --------
    Seed 001, "Un esempio": M1 errs at 0.15 on 30 instances, M2 at 0.25 on 5000.

    >>> res = error_difference(0.25, 5000, 0.15, 30)
    >>> round(res.difference, 3), round(res.margin, 3), res.significant
    (0.1, 0.128, False)
    >>> error_difference(0.15, 30, 0.25, 5000)
    ErrorDifference(e1 - e2 = -0.1 +- 0.1283 at 95%: [-0.2283, 0.02834], not significant; \
p = 0.1267, P(error 1 > error 2) = 0.06335)
    """
    rate1, rate2 = _rate(e1, "e1"), _rate(e2, "e2")
    size1, size2 = _size(n1, "n1"), _size(n2, "n2")
    conf = _check_confidence(confidence)
    if quantile not in ("exact", "notes"):
        raise ValidationError(f"quantile ({quantile!r}) must be one of 'exact', 'notes'")
    z = normal_quantile(conf, quantile)
    d = rate1 - rate2
    se = math.sqrt(rate1 * (1 - rate1) / size1 + rate2 * (1 - rate2) / size2)
    from scipy import stats as _st

    if se > 0:
        p_value = float(2 * _st.norm.sf(abs(d) / se))
        prob_first = float(_st.norm.cdf(d / se))
    else:
        p_value = 1.0 if d == 0 else 0.0
        prob_first = 0.5 if d == 0 else float(d > 0)
    margin = z * se
    return ErrorDifference(
        difference=d, low=d - margin, high=d + margin, margin=margin, standard_error=se,
        z=z, confidence=conf, p_value=p_value, probability_first_higher=prob_first,
        e1=rate1, n1=size1, e2=rate2, n2=size2,
    )


@dataclass(frozen=True, repr=False)
class McNemarResult:
    """McNemar's test of equal error rates for two models on the same instances.

    Attributes
    ----------
    statistic : float
        ``min(b, c)`` for the exact test, the chi-square statistic otherwise.
    p_value : float
        Two-sided.
    b : int
        Instances where model A is right and model B wrong.
    c : int
        Instances where model A is wrong and model B right.
    method : str
        ``"exact"``, ``"chi-square"`` or ``"chi-square, continuity corrected"``.
    n : int or None
        Instances compared (``None`` when built from the counts alone).
    """

    statistic: float
    p_value: float
    b: int
    c: int
    method: str
    n: int | None = None

    @property
    def favours(self) -> str | None:
        """``"a"`` when A is right more often on the discordant instances, ``"b"`` or None."""
        return "a" if self.b > self.c else "b" if self.c > self.b else None

    def significant(self, alpha: float = 0.05) -> bool:
        """``p_value < alpha``."""
        return self.p_value < _check_confidence(alpha, "alpha")

    def to_dict(self) -> dict[str, Any]:
        """Every attribute, ``favours`` and ``significant`` at 0.05."""
        return {**asdict(self), "favours": self.favours, "significant": self.significant()}

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """One row: :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        n = "" if self.n is None else f", n={self.n}"
        return (f"McNemarResult({self.method}: statistic = {self.statistic:.4g}, "
                f"p = {self.p_value:.4g}; b={self.b} (A right, B wrong), "
                f"c={self.c} (A wrong, B right){n})")


def mcnemar_test(
    y_true: Any, pred_a: Any, pred_b: Any, *, exact: bool | None = None, correction: bool = True
) -> McNemarResult:
    """McNemar's test on the predictions of two models for the same instances.

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like, one-dimensional, same length
        True labels and the two models' predicted labels; a prediction is right when it
        equals the true label.
    exact : bool, optional
        Exact binomial test, or the chi-square approximation. Default: exact when
        ``b + c < 25`` (:data:`EXACT_BELOW`).
    correction : bool
        Continuity correction of the chi-square statistic (ignored by the exact test).

    Returns
    -------
    McNemarResult

    Raises
    ------
    InputTypeError
        ``exact`` or ``correction`` not booleans.
    ValidationError
        Arrays that are not one-dimensional, differ in length, are empty or hold NaN.

    Examples
    --------
    >>> y = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
    >>> a = [1, 1, 0, 0, 1, 0, 1, 1, 0, 0]
    >>> b = [0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> mcnemar_test(y, a, b)
    McNemarResult(exact: statistic = 1, p = 0.125; b=6 (A right, B wrong), \
c=1 (A wrong, B right), n=10)
    """
    truth, a, b = (_labels(v, name) for v, name in
                   ((y_true, "y_true"), (pred_a, "pred_a"), (pred_b, "pred_b")))
    if not len(truth) == len(a) == len(b):
        raise ValidationError(f"y_true, pred_a and pred_b must have the same length, got "
                              f"{len(truth)}, {len(a)} and {len(b)}")
    right_a, right_b = a == truth, b == truth
    b_count = int(np.sum(right_a & ~right_b))
    c_count = int(np.sum(~right_a & right_b))
    return _mcnemar(b_count, c_count, exact, correction, n=len(truth))


def mcnemar_from_counts(
    b: int, c: int, *, exact: bool | None = None, correction: bool = True
) -> McNemarResult:
    """McNemar's test from the two discordant counts.

    Parameters
    ----------
    b : int
        Instances where model A is right and model B wrong.
    c : int
        Instances where model A is wrong and model B right.
    exact, correction
        As in :func:`mcnemar_test`.

    Returns
    -------
    McNemarResult

    Raises
    ------
    InputTypeError, ValidationError
        Counts that are not non-negative whole numbers; non-boolean options.

    Examples
    --------
    >>> res = mcnemar_from_counts(150, 86, correction=False)
    >>> res.method, round(res.statistic, 2), res.significant(), res.favours
    ('chi-square', 17.36, True, 'a')
    """
    counts = [_counts(v, name) for v, name in ((b, "b"), (c, "c"))]
    for arr, value, name in zip(counts, (b, c), ("b", "c")):
        if arr.ndim:
            raise ValidationError(f"{name} must be a single count, got {value!r}")
    return _mcnemar(int(counts[0]), int(counts[1]), exact, correction, n=None)


def _mcnemar(b: int, c: int, exact: Any, correction: Any, n: int | None) -> McNemarResult:
    """Run statsmodels' test on validated counts."""
    if exact is not None and not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be True, False or None, got {exact!r}")
    if not isinstance(correction, (bool, np.bool_)):
        raise InputTypeError(f"correction must be True or False, got {correction!r}")
    use_exact = (b + c < EXACT_BELOW) if exact is None else bool(exact)
    if use_exact:
        method = "exact"
    else:
        method = "chi-square, continuity corrected" if correction else "chi-square"
    if b + c == 0:  # no discordant instance: no evidence either way
        return McNemarResult(0.0, 1.0, b, c, method, n)
    from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar

    res = _sm_mcnemar(np.array([[0, b], [c, 0]]), exact=use_exact, correction=bool(correction))
    return McNemarResult(float(res.statistic), float(res.pvalue), b, c, method, n)


def _labels(value: Any, name: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValidationError(f"{name} is empty; McNemar's test needs at least one instance")
    if arr.dtype.kind in "fc" and np.any(np.isnan(arr)):
        raise ValidationError(f"{name} holds NaN; drop the instances without a label first")
    return arr


def _rate(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise InputTypeError(f"{name} must be an error rate in [0, 1], got "
                             f"{type(value).__name__} {value!r}")
    if not 0.0 <= float(value) <= 1.0:  # also refuses NaN
        raise ValidationError(f"{name} ({value!r}) must be an error rate in [0, 1]")
    return float(value)


def _size(value: Any, name: str) -> int:
    arr = _counts(value, name)
    if arr.ndim or arr < 1:
        raise ValidationError(f"{name} must be a single test-set size of at least 1, got "
                              f"{value!r}")
    return int(arr)
