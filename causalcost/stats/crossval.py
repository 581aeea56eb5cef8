"""Comparing two learners by cross-validation: paired t-tests over folds.

*k-fold paired t-test* (:func:`paired_t_test`; lecture notes, seed 004, "k-fold
Cross-validation paired t-Test"). Split the data into ``k`` folds; on fold ``i`` learner A
errs at ``e_A,i`` and learner B at ``e_B,i`` after training on the other folds. With
``delta_i = e_A,i - e_B,i`` and ``delta = mean(delta_i)``, the ``N %`` interval for the mean
difference is

.. math:: \\bar\\delta \\pm t_{N, k-1}\\, s, \\qquad
   s = \\sqrt{\\frac{1}{k (k - 1)} \\sum_i (\\delta_i - \\bar\\delta)^2},

and ``delta / s`` follows Student's t on ``k - 1`` degrees of freedom when the differences
are independent normals. It is :func:`scipy.stats.ttest_rel`. The folds share training data,
so the differences are not independent and the test rejects too often (Dietterich 1998).

*5x2cv paired t-test* (:func:`five_by_two_cv_t_test`; Dietterich, *Approximate Statistical
Tests for Comparing Supervised Classification Learning Algorithms*, Neural Computation 10,
1998). Five replications of 2-fold cross-validation give differences ``p_i^(j)``
(replication ``i``, fold ``j``); with ``pbar_i`` the mean of replication ``i`` and
``s_i^2 = (p_i^(1) - pbar_i)^2 + (p_i^(2) - pbar_i)^2``,

.. math:: t = p_1^{(1)} \\Big/ \\sqrt{\\tfrac15 \\textstyle\\sum_{i=1}^5 s_i^2}

is approximately t-distributed on 5 degrees of freedom, with a type I error close to the
nominal one. :func:`five_by_two_cv_differences` produces the ``(5, 2)`` array from two
estimators with ``fit`` and ``predict`` (scikit-learn's interface).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import html_table
from causalcost.errors import InputTypeError, ValidationError
from causalcost.stats.intervals import _check_confidence

__all__ = [
    "FiveByTwoCVTest",
    "PairedTTest",
    "five_by_two_cv_differences",
    "five_by_two_cv_t_test",
    "paired_t_test",
]


@dataclass(frozen=True, repr=False)
class PairedTTest:
    """The k-fold paired t-test of learner A's fold errors against learner B's.

    Attributes
    ----------
    mean : float
        Mean of ``errors_a - errors_b`` (positive: A errs more).
    low, high : float
        ``mean -+ margin``.
    margin : float
        ``t_quantile * standard_error``.
    standard_error : float
        The notes' ``s``: sample standard deviation of the differences over ``sqrt(k)``.
    t_quantile : float
        Student's two-sided quantile on ``dof`` degrees of freedom at ``confidence``.
    statistic : float
        ``mean / standard_error``.
    p_value : float
        Two-sided.
    dof : int
        ``k - 1``.
    confidence : float
    """

    mean: float
    low: float
    high: float
    margin: float
    standard_error: float
    t_quantile: float
    statistic: float
    p_value: float
    dof: int
    confidence: float

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
        """One row: :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        verdict = "significant" if self.significant else "not significant"
        return (f"PairedTTest(mean A - B = {self.mean:.4g} +- {self.margin:.4g} at "
                f"{self.confidence * 100:g}%: [{self.low:.4g}, {self.high:.4g}], {verdict}; "
                f"t = {self.statistic:.4g} on {self.dof} dof, p = {self.p_value:.4g})")


def paired_t_test(errors_a: Any, errors_b: Any, confidence: float = 0.95) -> PairedTTest:
    """The notes' k-fold cross-validation paired t-test.

    Parameters
    ----------
    errors_a, errors_b : array-like of float, one-dimensional, same length ``k >= 2``
        Per-fold errors of the two learners on the same folds (any paired per-fold score,
        such as a cost, works the same way).
    confidence : float
        Of the interval, ``0 < confidence < 1``.

    Returns
    -------
    PairedTTest
        ``statistic`` and ``p_value`` equal those of ``scipy.stats.ttest_rel``.

    Raises
    ------
    InputTypeError
        Non-numeric errors or confidence.
    ValidationError
        Arrays that are not one-dimensional, differ in length, have fewer than 2 folds or
        hold NaN or infinities; a confidence outside (0, 1).

    Notes
    -----
    When every difference is the same the standard error is 0 and Student's statistic is
    undefined (scipy returns NaN). Here the interval is the point ``mean``; the statistic
    is 0 with ``p_value = 1`` when the differences are all 0 (identical errors: no evidence)
    and ``+-inf`` with ``p_value = 0`` otherwise.

    Examples
    --------
    >>> a = [0.12, 0.10, 0.15, 0.11, 0.13]
    >>> b = [0.10, 0.09, 0.12, 0.11, 0.10]
    >>> paired_t_test(a, b)
    PairedTTest(mean A - B = 0.018 +- 0.01619 at 95%: [0.001811, 0.03419], significant; \
t = 3.087 on 4 dof, p = 0.03668)
    """
    a, b = _real_vector(errors_a, "errors_a"), _real_vector(errors_b, "errors_b")
    if a.size != b.size:
        raise ValidationError(f"errors_a and errors_b must have the same length (one error per "
                              f"fold), got {a.size} and {b.size}")
    if a.size < 2:
        raise ValidationError(f"the paired t-test needs at least 2 folds, got {a.size}")
    conf = _check_confidence(confidence)
    delta = a - b
    k = delta.size
    mean = float(np.mean(delta))
    se = float(np.std(delta, ddof=1) / np.sqrt(k))
    from scipy import stats as _st

    t_quantile = float(_st.t.ppf((1 + conf) / 2, k - 1))
    statistic, p_value = _t_and_p(mean, se, k - 1)
    margin = t_quantile * se
    return PairedTTest(mean=mean, low=mean - margin, high=mean + margin, margin=margin,
                       standard_error=se, t_quantile=t_quantile, statistic=statistic,
                       p_value=p_value, dof=k - 1, confidence=conf)


@dataclass(frozen=True, repr=False)
class FiveByTwoCVTest:
    """Dietterich's 5x2cv paired t-test.

    Attributes
    ----------
    statistic : float
        ``p_1^(1) / sqrt(mean(s_i^2))``.
    p_value : float
        Two-sided, Student's t on 5 degrees of freedom.
    dof : int
        5.
    numerator : float
        ``p_1^(1)``, the first fold's difference of the first replication.
    variances : tuple of float
        The five ``s_i^2``.
    mean_difference : float
        Mean of all ten differences (an estimate of A's error minus B's; not used by the
        test).
    """

    statistic: float
    p_value: float
    dof: int
    numerator: float
    variances: tuple[float, ...]
    mean_difference: float

    def significant(self, alpha: float = 0.05) -> bool:
        """``p_value < alpha``."""
        return self.p_value < _check_confidence(alpha, "alpha")

    def to_dict(self) -> dict[str, Any]:
        """Every attribute and ``significant`` at 0.05."""
        return {**asdict(self), "significant": self.significant()}

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """One row: :meth:`to_dict` (``variances`` as a tuple in one cell)."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        return (f"FiveByTwoCVTest(t = {self.statistic:.4g} on {self.dof} dof, "
                f"p = {self.p_value:.4g}; mean difference A - B = {self.mean_difference:.4g})")


def five_by_two_cv_t_test(differences: Any) -> FiveByTwoCVTest:
    """Dietterich's 5x2cv paired t-test from the ten fold differences.

    Parameters
    ----------
    differences : array-like of float, shape (5, 2)
        ``differences[i, j]`` is learner A's error minus learner B's on fold ``j`` of
        replication ``i`` (for instance from :func:`five_by_two_cv_differences`).

    Returns
    -------
    FiveByTwoCVTest

    Raises
    ------
    InputTypeError
        Non-numeric differences.
    ValidationError
        A shape other than (5, 2), NaN or infinities.

    Notes
    -----
    When all five ``s_i^2`` are 0 the statistic is 0 with ``p_value = 1`` if ``p_1^(1)`` is 0,
    and ``+-inf`` with ``p_value = 0`` otherwise.

    Examples
    --------
    >>> diffs = [[0.02, 0.04], [0.01, 0.03], [0.03, 0.01], [0.00, 0.02], [0.02, 0.02]]
    >>> five_by_two_cv_t_test(diffs)
    FiveByTwoCVTest(t = 1.581 on 5 dof, p = 0.1747; mean difference A - B = 0.02)
    """
    p = _real_array(differences, "differences")
    if p.shape != (5, 2):
        raise ValidationError(f"differences must have shape (5, 2) (five replications of "
                              f"two folds), got {p.shape}")
    variances = np.sum((p - p.mean(axis=1, keepdims=True)) ** 2, axis=1)
    numerator = float(p[0, 0])
    statistic, p_value = _t_and_p(numerator, float(np.sqrt(np.mean(variances))), 5)
    return FiveByTwoCVTest(statistic=statistic, p_value=p_value, dof=5, numerator=numerator,
                           variances=tuple(float(v) for v in variances),
                           mean_difference=float(p.mean()))


def five_by_two_cv_differences(
    estimator_a: Any, estimator_b: Any, X: Any, y: Any, *, random_state: Any = None
) -> np.ndarray:
    """Five replications of stratified 2-fold cross-validation of two estimators.

    Parameters
    ----------
    estimator_a, estimator_b : object with ``fit(X, y)`` and ``predict(X)``
        Copied (``copy.deepcopy``) before every fit; the caller's estimators are not touched.
    X : array-like or pandas DataFrame, ``len(X) == len(y)``
        Features (rows are selected with ``.iloc`` for a DataFrame).
    y : array-like, one-dimensional
        Labels.
    random_state : int or numpy Generator, optional
        Seeds the shuffles (``numpy.random.default_rng``).

    Returns
    -------
    ndarray, shape (5, 2)
        Error rate of A minus that of B, on each half of each replication. Each half holds
        every class in proportion (within one instance).

    Raises
    ------
    InputTypeError
        Estimators without ``fit`` and ``predict``.
    ValidationError
        ``y`` not one-dimensional, fewer than 2 instances, or ``X`` of another length.

    Notes
    -----
    The halves are drawn with numpy, like scikit-learn's ``StratifiedKFold(2, shuffle=True)``:
    each class is shuffled and dealt alternately to the two halves, so this module needs no
    scikit-learn. Both estimators see the same halves.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.arange(40).reshape(-1, 1)
    >>> y = (X[:, 0] >= 20).astype(int)
    >>> tree = DecisionTreeClassifier(random_state=0)
    >>> d = five_by_two_cv_differences(DummyClassifier(), tree, X, y, random_state=0)
    >>> d.shape, bool(np.all(d >= 0.4))
    ((5, 2), True)
    >>> five_by_two_cv_t_test(d).significant()
    True
    """
    for est, name in ((estimator_a, "estimator_a"), (estimator_b, "estimator_b")):
        if not (callable(getattr(est, "fit", None)) and callable(getattr(est, "predict", None))):
            raise InputTypeError(f"{name} must have fit(X, y) and predict(X) methods, got "
                                 f"{type(est).__name__}")
    labels = np.asarray(y)
    if labels.ndim != 1 or labels.size < 2:
        raise ValidationError(f"y must be one-dimensional with at least 2 labels, got shape "
                              f"{labels.shape}")
    if len(X) != labels.size:
        raise ValidationError(f"X and y must have the same length, got {len(X)} and "
                              f"{labels.size}")
    rng = np.random.default_rng(random_state)
    out = np.empty((5, 2))
    for i in range(5):
        half = _stratified_halves(labels, rng)
        for j, (train, test) in enumerate(((~half, half), (half, ~half))):
            errors = [np.mean(_fit_predict(est, X, labels, train, test) != labels[test])
                      for est in (estimator_a, estimator_b)]
            out[i, j] = errors[0] - errors[1]
    return out


# ---------------------------------------------------------------------------- helpers
def _t_and_p(estimate: float, se: float, dof: int) -> tuple[float, float]:
    """Student's statistic and two-sided p-value; the degenerate ``se = 0`` as documented."""
    from scipy import stats as _st

    if se > 0:
        statistic = estimate / se
        return statistic, float(2 * _st.t.sf(abs(statistic), dof))
    if estimate == 0:
        return 0.0, 1.0
    return float(np.copysign(np.inf, estimate)), 0.0


def _stratified_halves(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask of one half; each class split as evenly as possible, sizes balanced."""
    mask = np.zeros(labels.size, dtype=bool)
    offset = 0
    for value in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == value))
        mask[members[offset::2]] = True  # alternate which half gets a class's odd one out
        offset ^= members.size % 2
    return mask


def _fit_predict(est: Any, X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> Any:
    rows = X.iloc if hasattr(X, "iloc") else np.asarray(X)
    model = copy.deepcopy(est)
    model.fit(rows[train], y[train])
    return np.asarray(model.predict(rows[test]))


def _real_array(value: Any, name: str) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise InputTypeError(f"{name} must be numbers, got str {value!r}")
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # ragged nested sequences
        raise ValidationError(f"{name} must be a rectangular array of numbers") from exc
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputTypeError(f"{name} must be numbers, got an array of dtype {arr.dtype}")
    if not np.all(np.isfinite(arr)):
        raise ValidationError(f"{name} must be finite, got {value!r}")
    return arr.astype(float)


def _real_vector(value: Any, name: str) -> np.ndarray:
    arr = _real_array(value, name)
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional (one value per fold), got "
                              f"shape {arr.shape}")
    return arr
