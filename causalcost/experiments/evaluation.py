"""What one simulated two-stage evaluation measures: real cost, plain and high-confidence worst.

Vectorised over repetitions; the inputs are the counts a :class:`~causalcost.experiments.
simulate.StageDraws` holds. The plain worst case is the probability form on the stage-1 rates
(:func:`~causalcost.bound_from_rates`), the high-confidence one
:func:`~causalcost.pricing.high_confidence.high_confidence_worst_cost_many`, and the estimate
cost function 1 (:func:`~causalcost.expected_cost_matrix`) — the same closed forms as the
public functions, applied to arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from causalcost.confusion import CostMatrix
from causalcost.experiments.simulate import StageDraws
from causalcost.pricing.closed_forms import _extremes
from causalcost.pricing.high_confidence import high_confidence_worst_cost_many

__all__ = ["Measured", "measure"]


@dataclass(frozen=True)
class Measured:
    """Per repetition: the real system cost and what the sheet would have said."""

    real: np.ndarray
    plain_worst: np.ndarray
    high_confidence_worst: np.ndarray
    expected: np.ndarray


def _rate(count: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.divide(count, n, out=np.zeros(count.shape), where=n > 0)


def measure(draws: StageDraws, costs: CostMatrix, *, confidence: float, method: str,
            assumption: str) -> Measured:
    """Real cost, plain worst case, high-confidence worst case and cost function 1 per row.

    Assumes validated arguments (the experiments check them once).
    """
    s, m = draws.stage_one.astype(float), draws.model.astype(float)
    tp, fn, fp, tn = m.T
    n1_p, n1_n = s[:, 0] + s[:, 1], s[:, 2] + s[:, 3]
    weights = np.array([costs.tp, costs.fn, costs.fp, costs.tn])
    worst, expected = [], []
    for right, wrong, n1, hits, misses in ((s[:, 1], s[:, 5], n1_p, tp, fn),
                                           (s[:, 6], s[:, 2], n1_n, tn, fp)):
        e_right, e_wrong = _rate(right, n1), _rate(wrong, n1)
        size = hits + misses
        worst.append(_extremes(e_right * size, e_wrong * size, hits, misses, assumption)[0])
        expected.append(np.minimum(hits * e_right + misses * e_wrong, size))
    n2_p, n2_n = tp + fn, fp + tn

    def cost(fails_p: np.ndarray, fails_n: np.ndarray) -> np.ndarray:
        return (fails_p * costs.fn + (n2_p - fails_p) * costs.tp
                + fails_n * costs.fp + (n2_n - fails_n) * costs.tn)

    high = high_confidence_worst_cost_many(draws.stage_one, draws.model, costs,
                                           confidence=confidence, method=method,
                                           assumption=assumption)
    return Measured(real=draws.system.astype(float) @ weights, plain_worst=cost(*worst),
                    high_confidence_worst=high,
                    expected=cost(*expected))
