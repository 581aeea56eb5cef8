"""Price a K-label score slot's candidate from its probability vectors: one :class:`ScoreBound`.

The system side is, per true class ``c``, the offset vectors ``r_i`` of the class's instances
and the slot's coefficients ``A`` (:mod:`causalcost.pricing.score_vectors`): with the vector
``p`` in the slot the system says ``argmax_k (A p + r_i)_k``. The candidate side is, per class,
its vectors. Per class (the pairing never crosses classes):

* **expected** (the candidate's vectors independent of the instance): the exact share of pairs
  the system sends to each label, times the candidate's class size;
* **same instances** (the vectors measured on the offsets' own instances, pairing unknown): the
  costliest and cheapest pairing, an assignment problem; the confusion row is the pairing's
  (one pairing attaining the optimum);
* **probability** (the vectors measured on other instances): the extremes of the expected cost
  over every coupling of the two empirical distributions, a transportation problem, scaled to
  the candidate's class size. The coupling problem is solved on costs, so it gives the cost
  and not the confusion (which wrong label an error goes to): ``worst`` and ``best`` are then
  ``None`` for K > 2;
* **high confidence** (probability form, ``confidence=1 - alpha``, the linear fusion): per
  class with candidates, a worst case at least the **populations'** worst case and a best
  case at most their best case
  (:func:`~causalcost.pricing.score_vector_band.high_confidence_bounds` at
  ``delta = alpha / (classes with candidates)``, Bonferroni), so every class's two sides hold
  together with probability at least ``1 - alpha``; each is taken beyond the sample's own
  worst (best) case, which keeps it valid and keeps ``high-confidence worst >= worst``. Costs
  only: the confusions are ``None``.

K = 2 systems take the critical-score route (:func:`~causalcost.pricing.scores.price_scores`,
closed forms); on the same numbers this module agrees with it (``p = (s, 1 - s)``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from causalcost.confusion import Confusion, CostMatrix
from causalcost.cost_matrix import as_costs
from causalcost.errors import InfeasibleInputError, ValidationError
from causalcost.pricing.score_bound import FORMS, ScoreBound
from causalcost.pricing.score_fusions import check_fusion, pair_decisions
from causalcost.pricing.score_vector_band import high_confidence_bounds
from causalcost.pricing.score_vectors import (
    _Transport,
    _transport_optimum,
    decide_rows,
    outcome_counts,
    probability_bounds,
    same_instance_bounds,
)
from causalcost.score_values import PROBABILITIES, as_score_range, read_score_vectors
from causalcost.stats.intervals import _check_confidence

__all__ = ["check_class_sizes", "price_vectors"]


def _class_rows(value: Any, labels: Sequence[Any], what: str, k: int,
                score_range: tuple[float, float] | None = None) -> list[np.ndarray]:
    """Per class (in label order) a float array of shape (n_c, K); with ``score_range``
    (the candidate's side) each class's vectors go through the one reader of scores."""
    if isinstance(value, Mapping):
        unknown = [c for c in value if c not in labels]
        if unknown:
            raise ValidationError(f"{what}: classes {unknown} are not labels of the system "
                                  f"{list(labels)}")
        value = [value.get(c, np.zeros((0, k))) for c in labels]
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ValidationError(f"{what}: give one array of vectors per class, in label order "
                              f"{list(labels)} (a list), or a mapping {{label: vectors}}")
    if len(value) != len(labels):
        raise ValidationError(f"{what}: {len(value)} classes for the {len(labels)} labels "
                              f"{list(labels)}; give one array per class")
    rows = []
    for c, v in zip(labels, value):
        if np.size(v) == 0:
            rows.append(np.zeros((0, k)))
        elif score_range is not None:
            rows.append(read_score_vectors(v, f"{what} of class {c!r}", labels=labels,
                                           score_range=score_range))
        else:
            arr = np.asarray(v, dtype=float)
            if arr.ndim != 2 or arr.shape[1] != k:
                raise ValidationError(f"{what} of class {c!r} must have shape (n, {k}), got "
                                      f"{arr.shape}")
            rows.append(arr)
    return rows


def check_class_sizes(label: Any, n_t: int, n_s: int, same_instances: bool) -> None:
    """Refuse a class whose candidate vectors cannot be paired with the system's instances:
    other sizes on the same instances, or vectors of a class without instances."""
    if same_instances and n_t != n_s:
        raise InfeasibleInputError(
            f"class {label!r}: same_instances=True needs the candidate's vectors on the "
            f"system's own instances, but there are {n_s} vectors and {n_t} instances; "
            "pass same_instances=False (the probability form) for vectors counted on "
            "other instances")
    if n_t == 0 and n_s:
        raise InfeasibleInputError(
            f"class {label!r}: {n_s} candidate vectors but no instances of the class "
            "in the system's runs; the system's response to the class is unknown")


def _pairwise_class(fusion: str, matrix: Any, off: np.ndarray, vec: np.ndarray,
                    row: np.ndarray, same_instances: bool
                    ) -> tuple[np.ndarray, float, float, list[int] | None, list[int] | None]:
    """One class of a ``max`` / ``min`` fusion, from its pairwise decisions: the outcome
    counts, the worst and best cost (totals over the vectors) and, on the same instances, the
    worst and best confusion rows."""
    k = row.size
    said = pair_decisions(fusion, matrix, off, vec)
    counts = np.bincount(said.ravel(), minlength=k)
    cost = row[said]
    n_t, n_s = said.shape
    if same_instances:
        rows = []
        totals = []
        for maximize in (True, False):
            i, j = linear_sum_assignment(cost, maximize=maximize)
            rows.append(np.bincount(said[i, j], minlength=k).tolist())
            totals.append(math.fsum(cost[i, j].tolist()))
        return counts, totals[0], totals[1], rows[0], rows[1]
    problem = _Transport(cost, np.full(n_t, n_s, dtype=np.int64),
                         np.full(n_s, n_t, dtype=np.int64)).merged()
    return (counts, _transport_optimum(problem, True) * n_s,
            _transport_optimum(problem, False) * n_s, None, None)


def price_vectors(matrix: Any, offsets: Any, vectors: Any, costs: Any, *,
                  labels: Sequence[Any], same_instances: bool = True,
                  method: str = "auto",
                  score_range: tuple[float, float] = PROBABILITIES,
                  fusion: str = "linear", confidence: float | None = None) -> ScoreBound:
    """Expected, worst and best system cost of a K-label score-slot candidate.

    Parameters
    ----------
    matrix : array_like, shape (K, K), or float
        The slot's coefficients ``A`` (soft voting: the slot's weight).
    offsets : sequence or dict of arrays (n_c, K)
        Per true class, in label order (or ``{label: array}``), its instances' offset vectors.
    vectors : sequence or dict of arrays (n_c, K)
        Per true class, the candidate's vectors on instances of that class.
    costs : CostMatrix or (K, K) array
        The system's costs over ``labels``.
    labels : sequence
        The K labels.
    same_instances : bool, default True
        True: the vectors were measured on the offsets' own instances (same class sizes).
        False: on other instances (the probability form).
    method : str, default "auto"
        Passed to :func:`~causalcost.pricing.score_vectors.same_instance_bounds` or
        :func:`~causalcost.pricing.score_vectors.probability_bounds`.
    score_range : (float, float), default (0, 1)
        The range of the slot's outputs: the candidate's vectors are read by
        :func:`~causalcost.score_values.read_score_vectors` (probability vectors by default).
    fusion : {"linear", "max", "min"}, default "linear"
        How the system fuses the slot's vector with the offsets: ``argmax(A p + r)``, or
        ``argmax max(p, R)`` / ``argmax min(p, R)``
        (:mod:`causalcost.pricing.score_fusions`: priced from the pairwise decisions).
    confidence : float, optional
        ``1 - alpha``, probability form of the linear fusion only: also the high-confidence
        worst and best cost (:mod:`causalcost.pricing.score_vector_band`; the populations'
        worst case is at most the one and their best case at least the other, every class at
        once, with probability at least ``confidence``).

    Returns
    -------
    ScoreBound
        Costs are totals over the candidate's class sizes; for K > 2 in the probability form
        ``worst`` and ``best`` are ``None`` (only their costs are determined), and so are
        ``high_confidence_worst`` and ``high_confidence_best``.

    Raises
    ------
    InfeasibleInputError
        Same instances with other class sizes; vectors of a class without offsets.
    ValidationError
        Shapes that do not match one K, non-finite numbers, a confidence outside (0, 1), or
        a confidence with ``same_instances=True`` or a ``max`` / ``min`` fusion.

    Examples
    --------
    Two instances of class ``a``: the first goes to ``a`` unless the slot leans hard to ``b``;
    the candidate's two vectors, pairing unknown:

    >>> b = price_vectors(1.0, [[[0.8, 0.0, 0.0], [0.0, 0.0, 0.0]], [], []],
    ...                   [[[0.9, 0.1, 0.0], [0.1, 0.8, 0.1]], [], []],
    ...                   [[0, 1, 1], [1, 0, 1], [1, 1, 0]], labels=["a", "b", "c"])
    >>> b.worst_cost, b.expected_cost, b.best_cost
    (1.0, 0.5, 0.0)
    >>> b.worst.matrix[0]
    (1.0, 1.0, 0.0)

    The same system with 40 vectors measured on other instances, at 95 % confidence:

    >>> rng = np.random.default_rng(0)
    >>> vec = rng.dirichlet([4.0, 1.0, 1.0], 40)
    >>> off = np.array([[0.8, 0.0, 0.0], [0.0, 0.0, 0.0]])[rng.integers(0, 2, 40)]
    >>> b = price_vectors(1.0, [off, [], []], [vec, [], []], [[0, 1, 1], [1, 0, 1], [1, 1, 0]],
    ...                   labels=["a", "b", "c"], same_instances=False, confidence=0.95)
    >>> b.high_confidence_best_cost <= b.best_cost <= b.worst_cost <= b.high_confidence_worst_cost
    True
    """
    labels = tuple(labels)
    k = len(labels)
    conf = None if confidence is None else _check_confidence(confidence)
    if conf is not None and same_instances:
        raise ValidationError(
            "confidence: the high-confidence case is priced for vectors measured on other "
            "instances (same_instances=False); on the system's own instances the worst and "
            "best case are exact")
    if conf is not None and check_fusion(fusion) != "linear":
        raise ValidationError(
            f"confidence: the high-confidence case is priced for the linear fusion "
            f"argmax(A p + r), not fusion={fusion!r}; drop confidence")
    cost_matrix: CostMatrix = as_costs(costs, labels)
    c_rows = np.asarray(cost_matrix.matrix, dtype=float)
    t = _class_rows(offsets, labels, "offsets", k)
    s = _class_rows(vectors, labels, "vectors", k, as_score_range(score_range))
    expected, worst, best = [], [], []
    worst_cost, best_cost = [], []
    hc_worst, hc_best = [], []
    used = sum(1 for v in s if v.shape[0])
    for c, (off, vec) in enumerate(zip(t, s)):
        n_t, n_s = off.shape[0], vec.shape[0]
        check_class_sizes(labels[c], n_t, n_s, same_instances)
        if n_s == 0:
            zero = [0] * k
            expected.append([0.0] * k)
            worst.append(zero)
            best.append(zero)
            worst_cost.append(0.0)
            best_cost.append(0.0)
            continue
        if check_fusion(fusion) != "linear":
            counts, high, low, w_row, b_row = _pairwise_class(fusion, matrix, off, vec,
                                                              c_rows[c], same_instances)
            expected.append((counts * n_s / (n_t * n_s)).tolist())
            worst_cost.append(high)
            best_cost.append(low)
            if w_row is not None and b_row is not None:
                worst.append(w_row)
                best.append(b_row)
            continue
        counts = outcome_counts(matrix, off, vec)
        expected.append((counts * n_s / (n_t * n_s)).tolist())
        if same_instances:
            bounds = same_instance_bounds(matrix, off, vec, c_rows[c], method=method)
            for assignment, rows in ((bounds.worst_assignment, worst),
                                     (bounds.best_assignment, best)):
                said = decide_rows(matrix, off, vec[assignment])
                rows.append(np.bincount(said, minlength=k).tolist())
            worst_cost.append(bounds.worst_cost)
            best_cost.append(bounds.best_cost)
        else:
            pb = probability_bounds(matrix, off, vec, c_rows[c], method=method)
            worst_cost.append(pb.worst * n_s)
            best_cost.append(pb.best * n_s)
            if conf is not None:
                hc = high_confidence_bounds(matrix, off, vec, c_rows[c],
                                            delta=(1.0 - conf) / used)
                hc_worst.append(max(hc.worst, pb.worst) * n_s)
                hc_best.append(min(hc.best, pb.best) * n_s)
    exp = Confusion(matrix=expected, labels=labels)
    if same_instances:
        w = Confusion(matrix=worst, labels=labels)
        b = Confusion(matrix=best, labels=labels)
        w_cost, b_cost = w.cost(cost_matrix), b.cost(cost_matrix)
    elif k == 2:
        raise ValidationError("the probability form of a two-label system is priced from its "
                              "critical scores (price_scores)")
    else:
        w = b = None
        w_cost, b_cost = math.fsum(worst_cost), math.fsum(best_cost)
    extra: dict[str, Any] = {}
    if conf is not None:
        extra = dict(high_confidence_worst_cost=math.fsum(hc_worst),
                     high_confidence_best_cost=math.fsum(hc_best), confidence=conf)
    return ScoreBound(expected=exp, expected_cost=exp.cost(cost_matrix), worst=w,
                      worst_cost=float(w_cost), best=b, best_cost=float(b_cost),
                      form=FORMS[0] if same_instances else FORMS[1], costs=cost_matrix,
                      class_sizes=tuple(v.shape[0] for v in s),
                      critical_sizes=tuple(o.shape[0] for o in t), labels=labels, **extra)
