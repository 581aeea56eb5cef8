"""A score rule's weights in float64: a mean's scaled by a power of two (the same decisions,
no overflow in their sum), a logistic meta-model's refused where ``bias + w . s`` overflows.

Read by :func:`causalcost.network.score_rules.score_rule`, which builds every score rule.
"""

from __future__ import annotations

import math
import sys

from causalcost.errors import OverflowInputError

__all__ = ["refuse_logistic_overflow", "scaled_mean_weights"]


def scaled_mean_weights(w: tuple[float, ...]) -> tuple[tuple[float, ...], int]:
    """A mean's weights divided by ``2 ** e`` so that the largest lies in [1, 2), and ``e``.

    Why this is safe: the rule computes ``(w_1 s_1 + ... + w_m s_m) / (w_1 + ... + w_m)``
    in floating point. Multiplying every weight by a power of two ``2 ** -e`` is exact, and so
    multiplies every product ``w_m s_m``, every partial sum and the weights' sum by exactly
    ``2 ** -e`` as well: binary floating point rounds ``x * 2 ** k`` to exactly
    ``round(x) * 2 ** k`` as long as nothing overflows or falls into the subnormal range. The
    quotient, where the two factors cancel, is then the same float, and so is every decision
    and every critical score (the least float sum at which the rule says P is scaled
    exactly too). Wherever the unscaled computation does not overflow (and its products are not
    subnormal) the scaled rule decides exactly as the weights given; where it would overflow
    (weights near 1e308, whose sum is infinite) the scaled rule still computes the mean.
    Weights 1 (the default) are left as they are (``e = 0``).

    Raises
    ------
    OverflowInputError
        Weights so far apart that the smallest, scaled with the largest, leaves the normal
        float range (it would count as 0, or lose digits).
    """
    exponent = math.frexp(max(abs(v) for v in w))[1] - 1  # max|w| = m * 2**(e+1), m in [.5, 1)
    if not exponent:
        return w, 0
    scaled = tuple(math.ldexp(v, -exponent) for v in w)
    lost = [v for v, s in zip(w, scaled, strict=True)
            if abs(s) < sys.float_info.min or math.ldexp(s, exponent) != v]
    if lost:
        raise OverflowInputError(
            f"weights: {lost[0]!r} is too small beside {max(w)!r} for float64 (their ratio "
            f"exceeds 2**1021, so the mean would count it as 0); drop that model from models, "
            "or give weights of comparable size")
    return scaled, exponent


def refuse_logistic_overflow(w: tuple[float, ...], bias: float,
                              score_range: tuple[float, float]) -> None:
    """Refuse a logistic rule whose ``bias + w . s`` can overflow float64 for scores in
    ``score_range`` (an overflowing sum would make the decision, and the critical scores,
    wrong). A logistic rule cannot be rescaled: its bias and weights are on the log-odds
    scale, where the size matters. A range with an infinite end bounds no score: the weights
    and bias are then checked at scores of size 1 (probabilities)."""
    ends = [abs(float(v)) for v in score_range] if score_range else []
    big = max(ends) if ends and all(math.isfinite(v) for v in ends) else 1.0
    exponent = math.frexp(max(abs(v) for v in w))[1]
    # the sum of |w| computed on weights scaled down, so that fsum itself cannot overflow
    total = math.fsum(math.ldexp(abs(v), -exponent) for v in w)
    try:
        bound = math.ldexp(total, exponent) * big + abs(bias)
    except OverflowError:
        bound = math.inf
    if not math.isfinite(bound):
        raise OverflowInputError(
            f"weights: the logistic meta-model's bias + weights . scores overflows float64 "
            f"for weights {list(w)} and bias {bias!r} (|bias| + sum of |weights| x {big:g} "
            "is infinite); log-odds cannot be rescaled: give weights and a bias that fit in "
            "float64 (a fitted LogisticRegression's coef_[0] and intercept_[0])")
