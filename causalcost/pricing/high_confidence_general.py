"""A worst case for K labels that holds on new instances with a stated probability.

Stage 1: the forced runs ``F[j, c, s]``, counted on ``n1_c`` instances of class ``c``.
Stage 2: the candidate's confusion ``N[c, j]`` on ``n2_c = sum_j N[c, j]`` other instances.
Per class and forced run ``j``, the stage-2 output counts are multinomial with the stage-1
rates. Order the outputs from the dearest (``C[c, s]`` descending); the number of stage-2
outputs among the ``m`` dearest is binomial, so an upper prediction limit
(:func:`causalcost.stats.prediction.binomial_prediction_limit`) bounds it. The assumption-free
worst case (``sum_j`` top ``N[c, j]`` of forced run ``j``'s outputs) never decreases when
mass moves to dearer outputs, so replacing each forced run's outputs by the dearest
distribution those limits allow gives a worst case that the real cost exceeds with
probability at most ``1 - confidence`` (Bonferroni over the ``K - 1`` limits of each forced
run of each class with stage-2 instances), whatever the system and however the candidate's
predictions fall on the instances. Only the assumption-free form is given: the monotone
program couples the forced runs, and its monotonicity under these moves is not established.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from causalcost.errors import ValidationError
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.general import general_bound
from causalcost.pricing.inputs import check_costs, check_counts, check_labels
from causalcost.stats.prediction import PREDICTION_METHODS, binomial_prediction_limit

__all__ = ["general_high_confidence_bound"]


def _dearest(stage1: np.ndarray, n1: int, n2: int, cost_row: np.ndarray, alpha: float,
             method: str) -> list[int]:
    """The dearest stage-2 output counts (length K) the prediction limits allow."""
    k = len(cost_row)
    order = sorted(range(k), key=lambda s: (-cost_row[s], s))
    out = [0] * k
    reached = 0
    for m in range(1, k):
        seen = int(sum(stage1[s] for s in order[:m]))
        limit = int(binomial_prediction_limit(seen, n1, n2, 1 - alpha, method))
        cum = min(n2, max(reached, limit))
        out[order[m - 1]] = cum - reached
        reached = cum
    out[order[-1]] = n2 - reached
    return out


def general_high_confidence_bound(forced: object, model: object, costs: object = None, *,
                                  confidence: float = 0.95, method: str = "conditional",
                                  labels: list[str] | None = None) -> Bound:
    """Worst case on the candidate's own (stage-2) instances with probability ``confidence``.

    Parameters
    ----------
    forced : array (K, K, K)
        Stage-1 forced-run counts ``F[j, c, s]``; every forced run counts the same class sizes.
    model : array (K, K)
        The candidate's confusion ``N[c, j]`` on the stage-2 instances (integer counts).
    costs : array (K, K), default 0/1
        ``C[c, s]``.
    confidence : float
        Probability (over both stages) that the real cost stays at or under ``worst_cost``.
    method : {"conditional", "clopper-pearson"}
        The prediction limit (see :func:`~causalcost.stats.prediction.binomial_prediction_limit`).

    Returns
    -------
    Bound
        ``form="high-confidence"``, ``assumption="none"``; ``best`` and ``expected`` are the
        plug-in ones (probability form), ``worst`` the high-confidence worst case.

    Raises
    ------
    ValidationError
        A confidence outside (0, 1), an unknown method, forced runs of unequal class sizes.
    CountError
        Counts that are not whole non-negative numbers.

    Examples
    --------
    >>> forced = np.zeros((3, 3, 3), dtype=int)
    >>> for j in range(3):
    ...     forced[j, :, j] = 18  # the system mostly repeats the slot ...
    ...     forced[j, :, (j + 1) % 3] = 2  # ... and sometimes not
    >>> model = [[8, 1, 1], [1, 8, 1], [1, 1, 8]]
    >>> plain = general_bound(forced, model, 1 - np.eye(3))
    >>> hc = general_high_confidence_bound(forced, model, 1 - np.eye(3))
    >>> plain.worst_cost < hc.worst_cost <= 30
    True
    """
    if not 0 < float(confidence) < 1:
        raise ValidationError(f"confidence ({confidence!r}) must be in (0, 1)")
    if method not in PREDICTION_METHODS:
        raise ValidationError(f"method ({method!r}) must be one of {list(PREDICTION_METHODS)}")
    f = check_counts("forced", forced, 3, integer=True)
    k = f.shape[0]
    n = check_counts("model", model, 2, k, integer=True)
    c_arr = check_costs(1 - np.eye(k) if costs is None else costs, k)
    names = check_labels(labels, k)
    n1 = f.sum(axis=2)  # [j, c]
    for c in range(k):
        if len({int(v) for v in n1[:, c]}) != 1:
            raise ValidationError(f"the forced runs count different numbers of class "
                                  f"{names[c]!r} instances ({[int(v) for v in n1[:, c]]}); "
                                  "every forced run must run the same stage-1 instances")
    n2 = [int(v) for v in n.sum(axis=1)]
    active = [c for c in range(k) if n2[c] > 0]
    alpha = (1 - float(confidence)) / max(1, len(active) * k * (k - 1))
    plug = general_bound(f, n, c_arr, labels=list(names))
    stage2 = np.zeros((k, k, k), dtype=object)
    stage2[...] = 0
    for c in active:
        for j in range(k):
            stage2[j, c] = _dearest(f[j, c], int(n1[j, c]), n2[c], c_arr[c], alpha, method)
    hc = general_bound(stage2, n, c_arr, same_instances=True, labels=list(names))
    return replace(plug, worst=hc.worst, worst_cost=hc.worst_cost, form="high-confidence",
                   confidence=float(confidence), method=method)
