"""Upper prediction limits for a binomial count on new instances.

A system owner counts ``count`` failures among ``n`` instances (stage 1); a model owner will
look at ``m`` other instances from the same distribution (stage 2). How many failures can the
stage-2 instances hold? An *upper prediction limit* ``U`` satisfies

.. math:: P(F \\le U) \\ge 1 - \\alpha \\quad\\text{for every failure probability } p,

where ``F ~ Binomial(m, p)`` is the stage-2 count and the probability is over both samples.
It is what a worst case needs, since the worst case is non-decreasing in the failure counts.

Two constructions, both valid for every ``p`` (not only asymptotically):

``"conditional"`` (default; Thatcher 1964)
    Given the total ``T = K + F``, the stage-1 count ``K`` is hypergeometric (``T`` failures
    spread uniformly over ``n + m`` instances) whatever ``p`` is. ``U`` is the largest ``f``
    for which observing ``count`` or fewer stage-1 failures is still plausible at level
    ``alpha``: ``P(K <= count | T = count + f) > alpha``. That probability decreases in ``f``,
    so ``F > U`` happens exactly when the observed ``K`` falls in the lower ``alpha`` tail of
    its conditional law, which has probability at most ``alpha`` for every ``T``.
``"clopper-pearson"``
    Split ``alpha`` in two: the exact (Clopper-Pearson) upper confidence limit ``p_U`` at
    ``alpha / 2``, then the ``1 - alpha / 2`` quantile of ``Binomial(m, p_U)``. By the union
    bound and the monotonicity of binomial quantiles in ``p``, ``P(F > U) <= alpha``. Looser
    than the conditional limit, and simpler to explain.

Both are at least the plug-in estimate ``ceil(m * count / n)`` (a larger limit stays valid),
so a high-confidence worst case is never below the plain one.
"""

from __future__ import annotations

import numpy as np

from causalcost.errors import ValidationError

__all__ = ["PREDICTION_METHODS", "binomial_prediction_limit", "clopper_pearson_interval"]

#: Constructions accepted by :func:`binomial_prediction_limit`.
PREDICTION_METHODS = ("conditional", "clopper-pearson")


def binomial_prediction_limit(
    count: int | np.ndarray,
    n: int | np.ndarray,
    m: int | np.ndarray,
    confidence: float = 0.95,
    method: str = "conditional",
) -> np.ndarray | int:
    """Upper prediction limit for the failures among ``m`` new instances.

    Parameters
    ----------
    count, n : int or array of int
        Failures observed among ``n`` instances (``0 <= count <= n``).
    m : int or array of int
        The number of new instances (``m >= 0``).
    confidence : float
        ``1 - alpha``: the probability, over both samples, that the new failures do not
        exceed the limit (``0 < confidence < 1``).
    method : {"conditional", "clopper-pearson"}
        See the module notes; both hold for every failure probability.

    Returns
    -------
    int or ndarray of int
        ``U`` with ``P(F <= U) >= confidence``, ``ceil(m * count / n) <= U <= m`` (``U = m``
        when ``n = 0``: no stage-1 information). Arrays broadcast.

    Raises
    ------
    ValidationError
        Counts that are not non-negative integers, ``count > n``, a confidence outside
        (0, 1) or an unknown method.

    Examples
    --------
    20 failures in 100 instances; how many among 100 new ones, at 95 %?

    >>> int(binomial_prediction_limit(20, 100, 100))
    31
    >>> int(binomial_prediction_limit(20, 100, 100, method="clopper-pearson"))
    38
    >>> binomial_prediction_limit([0, 5], [10, 10], [10, 10]).tolist()
    [3, 9]
    """
    k, n_, m_ = (_counts(v, name) for v, name in ((count, "count"), (n, "n"), (m, "m")))
    if np.any(k > n_):
        raise ValidationError(f"count must not exceed n; got count={count!r}, n={n!r}")
    if not 0 < confidence < 1 or isinstance(confidence, bool):
        raise ValidationError(f"confidence ({confidence!r}) must lie strictly between 0 and 1")
    if method not in PREDICTION_METHODS:
        raise ValidationError(
            f"method ({method!r}) must be one of {', '.join(map(repr, PREDICTION_METHODS))}"
        )
    k, n_, m_ = np.broadcast_arrays(k, n_, m_)
    alpha = 1.0 - confidence
    if method == "conditional":
        limit = _conditional(k, n_, m_, alpha)
    else:
        limit = _clopper_pearson(k, n_, m_, alpha)
    plug_in = np.ceil(m_ * np.divide(k, n_, out=np.ones(k.shape), where=n_ > 0) - 1e-9)
    limit = np.where(n_ == 0, m_, np.minimum(m_, np.maximum(limit, plug_in))).astype(np.int64)
    return int(limit) if limit.ndim == 0 else limit


def _counts(value: object, name: str) -> np.ndarray:
    """Non-negative integer array (Python and numpy integers, or integral floats)."""
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged input and the like
        raise ValidationError(f"{name} must be a non-negative integer or an array of them") from exc
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ValidationError(f"{name} must be a non-negative integer, got {value!r}")
    if arr.dtype.kind == "f" and not (np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
        raise ValidationError(f"{name} must be a whole number, got {value!r}")
    if np.any(arr < 0) or np.any(arr > 2**53):
        raise ValidationError(f"{name} must lie between 0 and 2**53, got {value!r}")
    return arr.astype(np.int64)


def _conditional(k: np.ndarray, n: np.ndarray, m: np.ndarray, alpha: float) -> np.ndarray:
    """Largest f in [0, m] with P(K <= k | K + F = k + f) > alpha; assumes validated input.

    The conditional tail probability decreases in f, so a vectorised bisection finds the
    limit in about log2(m) hypergeometric evaluations per entry.
    """
    from scipy import stats as _st

    lo = np.zeros(k.shape, dtype=np.int64)  # f = 0 always qualifies (the tail is 1)
    hi = m.astype(np.int64).copy()
    while True:
        todo = lo < hi
        if not np.any(todo):
            return lo
        mid = (lo + hi + 1) // 2
        tail = _st.hypergeom.cdf(k, n + m, k + mid, n)
        ok = tail > alpha
        lo = np.where(todo & ok, mid, lo)
        hi = np.where(todo & ~ok, mid - 1, hi)


def _clopper_pearson(k: np.ndarray, n: np.ndarray, m: np.ndarray, alpha: float) -> np.ndarray:
    """Binomial(m, p_U) quantile at 1 - alpha/2, p_U the exact upper limit at alpha/2."""
    from scipy import stats as _st

    with np.errstate(invalid="ignore", divide="ignore"):
        p_upper = np.where(k >= n, 1.0, _st.beta.ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)))
    quantile = _st.binom.ppf(1 - alpha / 2, m, np.nan_to_num(p_upper, nan=1.0))
    return np.nan_to_num(quantile, nan=0.0).astype(np.int64)


def clopper_pearson_interval(count: int, n: int, confidence: float) -> tuple[float, float]:
    """The exact two-sided interval for a proportion; assumes validated ``0 <= count <= n``.

    Examples
    --------
    >>> [round(v, 4) for v in clopper_pearson_interval(20, 100, 0.95)]
    [0.1267, 0.2918]
    """
    from scipy import stats as _st

    alpha = 1 - confidence
    low = 0.0 if count == 0 else float(_st.beta.ppf(alpha / 2, count, n - count + 1))
    high = 1.0 if count == n else float(_st.beta.ppf(1 - alpha / 2, count + 1, n - count))
    return low, high
