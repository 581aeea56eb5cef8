"""The exact two-label route of :func:`~causalcost.evaluation.label_noise.label_noise_range`.

With at least a fraction ``label_accuracy`` of the labels right, the true confusion is any one
of a polygon of confusions (:func:`~causalcost.stats.noisy_labels.confusion_range`). Each cost
is piecewise linear in the true confusion: ``Eval1`` is linear, and the worst and best cases
are sums of minima and maxima of linear functions of the cells and class sizes
(:mod:`~causalcost.pricing.closed_forms`). On the polygon the pieces meet along straight lines
("kinks"), so each cost takes its extremes at a corner of the polygon, where a kink line
crosses an edge, or where two kink lines cross. All those points are priced at once
(:func:`~causalcost.pricing.bounds_many.bound_many_from_rates`) and the extremes read off.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.errors import InputTypeError, ValidationError
from causalcost.evaluation.noise_result import LabelNoiseRange, cost_frame
from causalcost.pricing.bounds_many import bound_many_from_rates
from causalcost.sheet.costsheet import CostSheet
from causalcost.stats.noisy_labels import (
    ConfusionRange,
    LabelNoiseError,
    as_label_errors,
    confusion_range,
    correct_confusion,
)

__all__ = ["exact_range"]


# ------------------------------------------------------------------------ the kink points
def _kink_lines(sheet: CostSheet, o: Confusion) -> list[tuple[float, float, float]]:
    """Lines ``c0 + c1 d1 + c2 d2 = 0`` across which a closed form changes its piece.

    The true confusion is ``tp0 + d1, fn0 + d2, fp0 - d1, tn0 - d2``; the class sizes are
    ``P0 + d1 + d2`` and ``N0 - d1 - d2``. The closed forms compare a forced-failure count
    ``e x class size`` (or a difference of two) with a cell, for every rate and cell of a class.
    """
    r = sheet.rates
    tp, fn, fp, tn = (np.array(v, dtype=float) for v in (
        (o.tp, 1, 0), (o.fn, 0, 1), (o.fp, -1, 0), (o.tn, 0, -1)))
    n_p = np.array((o.positives, 1, 1), dtype=float)
    n_n = np.array((o.negatives, -1, -1), dtype=float)
    lines = []
    for size, cells, e_right, e_wrong in ((n_p, (tp, fn), r.fn_forced_p, r.fn_forced_n),
                                          (n_n, (tn, fp), r.fp_forced_n, r.fp_forced_p)):
        for rate in (e_right, e_wrong, e_wrong - e_right):
            for cell in cells:
                line = rate * size - cell
                if line[1] != 0 or line[2] != 0:
                    lines.append((float(line[0]), float(line[1]), float(line[2])))
    return lines


def _candidate_points(sheet: CostSheet, rng: ConfusionRange) -> np.ndarray:
    """Every point where a cost can take an extreme over the polygon, as ``(d1, d2)`` rows."""
    corners = [np.array(p) for p in rng.corners]
    points = list(corners)
    lines = _kink_lines(sheet, rng.observed)

    def f(line: tuple[float, float, float], p: np.ndarray) -> float:
        return line[0] + line[1] * p[0] + line[2] * p[1]

    for line in lines:  # kink lines across the polygon's edges
        for i, p in enumerate(corners):
            q = corners[(i + 1) % len(corners)]
            fp_, fq = f(line, p), f(line, q)
            if fp_ * fq < 0:
                points.append(p + fp_ / (fp_ - fq) * (q - p))
    for a, b in itertools.combinations(lines, 2):  # two kink lines crossing inside
        det = a[1] * b[2] - a[2] * b[1]
        if det != 0:
            points.append(np.array([(-a[0] * b[2] + a[2] * b[0]) / det,
                                    (-a[1] * b[0] + a[0] * b[1]) / det]))
    pts = np.array(points, dtype=float)
    return pts[_inside(rng, pts)]


def _inside(rng: ConfusionRange, pts: np.ndarray) -> np.ndarray:
    o = rng.observed
    tol = 1e-9 * max(1.0, float(o.total))
    d1, d2 = pts[:, 0], pts[:, 1]
    return ((np.abs(d1) + np.abs(d2) <= rng.max_wrong + tol)
            & (d1 >= -float(o.tp) - tol) & (d1 <= float(o.fp) + tol)
            & (d2 >= -float(o.fn) - tol) & (d2 <= float(o.tn) + tol))


def _cells(o: Confusion, pts: np.ndarray) -> np.ndarray:
    d1, d2 = pts[:, 0], pts[:, 1]
    m = np.column_stack([o.tp + d1, o.fn + d2, o.fp - d1, o.tn - d2]).astype(float)
    return np.maximum(m, 0.0)  # only rounding below 0 inside the polygon


def _price(sheet: CostSheet, m: np.ndarray) -> np.ndarray:
    """``(n, 3)``: Eval1, worst and best cost of each row (probability form)."""
    df = bound_many_from_rates(sheet.rates, m, sheet.costs, assumption=sheet.assumption,
                               monotonicity=sheet.monotonicity_check)
    return df[["expected_cost", "worst_cost", "best_cost"]].to_numpy()


def exact_range(sheet: CostSheet, candidate: Any, label_accuracy: float | None,
                label_errors: Any) -> LabelNoiseRange:
    """The exact range over every relabelling of at most ``(1 - label_accuracy) n``
    instances, for a sheet of two labels (see
    :func:`~causalcost.evaluation.label_noise.label_noise_range`).

    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> exact_range(sheet, cc.Confusion(50, 50, 100, 100), 0.96, None).range_of("eval1")
    (260.0, 380.0)
    """
    if not isinstance(sheet, CostSheet):
        raise InputTypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    if not isinstance(candidate, Confusion):
        raise InputTypeError(f"candidate must be a Confusion, got {type(candidate).__name__}")
    estimate: Confusion | None
    if label_errors is not None:
        errors = as_label_errors(label_errors)
        estimate = correct_confusion(candidate, errors)
        basis = "the given label error rates (independent errors)"
        if label_accuracy is None:
            label_accuracy = errors.accuracy(float(estimate.positives), float(estimate.negatives))
            if label_accuracy <= 0.5:
                raise LabelNoiseError(
                    f"the label error rates {errors!r} make the labels right only "
                    f"{label_accuracy:.4g} of the time on these class sizes: no better than a "
                    "coin")
    elif label_accuracy is None:
        raise ValidationError("give label_accuracy (the fraction of right labels) or "
                              "label_errors (their error rates per true class)")
    rng = confusion_range(candidate, label_accuracy)
    if label_errors is None:
        estimate = rng.estimate
        basis = "independent label errors, one rate for both classes"
    pts = _candidate_points(sheet, rng)
    costs = _price(sheet, _cells(candidate, pts))
    fixed = [candidate] + ([estimate] if estimate is not None else [])
    known = _price(sheet, np.array([m.cells() for m in fixed], dtype=float))
    frame = cost_frame(costs, known, estimate is not None)
    return LabelNoiseRange(
        frame=frame, labels=candidate.labels, observed=candidate, estimate=estimate,
        estimate_basis=basis, family=f"every relabelling of at most {_fmt(rng.max_wrong)} of "
        f"{_fmt(candidate.total)} instances", label_accuracy=rng.label_accuracy,
        confusions=rng, note=rng.note if estimate is None else "", slot=sheet.slot,
        assumption=sheet.assumption, eval1_any_errors=(float(costs[:, 0].min()),
                                                       float(costs[:, 0].max())))
