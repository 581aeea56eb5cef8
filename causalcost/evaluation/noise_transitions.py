"""The transition route of :func:`~causalcost.evaluation.label_noise.label_noise_range`
(a sheet of K labels): the candidate corrected for each label transition ``P(observed label |
true class)`` of a set -- symmetric noise up to a rate, the way to given error rates, or a
given list -- priced by the sheet, and the lowest and highest cost over the set; with
``label_accuracy`` also Eval1's range with no assumption on the label errors
(:func:`eval1_any_errors`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.confusion import format_number as _fmt
from causalcost.errors import InputTypeError, ValidationError
from causalcost.evaluation.noise_result import COSTS, LabelNoiseRange, cost_frame
from causalcost.sheet.costsheet import CostSheet
from causalcost.stats.noisy_labels import LabelNoiseError, LabelTransition, correct_confusion

__all__ = ["eval1_any_errors", "transition_range"]


def _price_k(sheet: CostSheet, n: np.ndarray) -> np.ndarray:
    """``(m, 3)``: Eval1, worst and best cost of K x K confusions on other instances."""
    from causalcost.evaluation.pricing_many import price_many

    priced = price_many(sheet, n, [f"t{i}" for i in range(len(n))], np.zeros(len(n), bool))
    return np.column_stack([priced[c] for c in COSTS]).astype(float)


def transition_range(sheet: CostSheet, candidate: Any, label_accuracy: Any, label_errors: Any,
                     transitions: Any, steps: int | None) -> LabelNoiseRange:
    """The range over a set of label transitions, for a sheet of K labels (see
    :func:`~causalcost.evaluation.label_noise.label_noise_range`)."""
    from causalcost.evaluation.candidate_reading import candidate_matrices
    from causalcost.stats.noisy_labels import as_transition, corrected_counts

    labels = tuple(map(str, sheet.label_names))
    if steps is None:
        steps = 101
    if isinstance(steps, bool) or not isinstance(steps, int) or not 2 <= steps <= 100_000:
        raise ValidationError(f"steps must be a whole number from 2 to 100000, got {steps!r}")
    _, n = candidate_matrices({"candidate": candidate}, list(labels), None, None)
    o = np.asarray(n[0], dtype=float)
    if o.sum() <= 0:
        raise ValidationError("the candidate's confusion has no instances")
    observed = Confusion.from_matrix(o, labels=list(labels))
    estimate = None
    if label_errors is not None:
        errors = as_transition(label_errors, labels)
        estimate = correct_confusion(observed, errors)
    grid = np.linspace(0.0, 1.0, steps)
    if transitions is not None:
        if isinstance(transitions, (str, LabelTransition)) or not hasattr(transitions, "__len__"):
            raise InputTypeError("transitions must be a list of label transitions (each a "
                                 "LabelTransition or K x K matrix)")
        family = "the given transitions"
        chosen = [as_transition(t, labels) for t in transitions]
        if not chosen:
            raise ValidationError("transitions is empty: give at least one label transition")
    elif label_accuracy is not None:
        top = LabelTransition.symmetric(label_accuracy, labels)
        a = float(label_accuracy)
        family = (f"labels right with probability from {_fmt(a)} to 1, wrong evenly "
                  f"(symmetric noise up to {_fmt(1 - a)})")
        chosen = [top.mixed(t) for t in grid]
    elif label_errors is not None:
        family = "label noise from none to the given label_errors"
        chosen = [errors.mixed(t) for t in grid]
    else:
        raise ValidationError("give label_accuracy (the fraction of right labels), "
                              "label_errors (a K x K label transition) or transitions=")
    tol = 1e-9 * max(1.0, float(o.sum()))
    kept, fixed = [], []
    for t in chosen:
        true = corrected_counts(o, t)
        if (true >= -tol).all():
            kept.append(t)
            fixed.append(np.maximum(true, 0.0))
    note = ""
    if len(kept) < len(chosen):
        note = (f"{len(chosen) - len(kept)} of {len(chosen)} transitions left out: their "
                "correction needs negative counts (they cannot have produced these counts)")
    if not kept:
        raise LabelNoiseError(f"every transition given needs negative counts to correct "
                              f"{observed!r}: none can have produced these counts")
    corrected = np.array(fixed)
    costs = _price_k(sheet, corrected)
    known = _price_k(sheet, np.array([o] + ([estimate.to_numpy()] if estimate is not None
                                             else []), dtype=float))
    free = None
    if label_accuracy is not None:
        free = eval1_any_errors(np.asarray(sheet.m1, dtype=float), o, label_accuracy)
    return LabelNoiseRange(
        frame=cost_frame(costs, known, estimate is not None), labels=labels, observed=observed,
        estimate=estimate, estimate_basis="" if estimate is None else
        "the given label transition (independent errors)", family=family,
        label_accuracy=None if label_accuracy is None else float(label_accuracy),
        transitions=tuple(kept), corrected=corrected, costs=costs, note=note, slot=sheet.slot,
        assumption=str(sheet.assumption), eval1_any_errors=free)


def eval1_any_errors(m1: np.ndarray, observed: np.ndarray,
                     label_accuracy: float) -> tuple[float, float]:
    """Lowest and highest ``sum(N * m1)`` over the true confusions ``N`` reachable from the
    counts ``observed`` by relabelling at most ``(1 - label_accuracy) n`` instances.

    A wrong label moves one instance within its predicted column, from its label's row to its
    true class's row; Eval1 is linear, so the highest moves the instances whose move gains most
    (each into its column's dearest row), up to the budget, and the lowest mirrors it.

    >>> m1 = np.array([[0.0, 2.0], [5.0, 1.0]])
    >>> eval1_any_errors(m1, np.array([[45.0, 5], [5, 45]]), 0.96)  # 4 of 100 labels wrong
    (60.0, 100.0)
    """
    from fractions import Fraction

    o = np.asarray(observed, dtype=float)
    budget = float((1 - Fraction(repr(float(label_accuracy)))) * Fraction(float(o.sum())))
    base = float((o * m1).sum())
    out = []
    for sign in (-1.0, 1.0):
        target = m1.max(axis=0) if sign > 0 else m1.min(axis=0)
        gain = sign * (target[None, :] - m1)  # per instance moved out of cell (a, j)
        order = np.argsort(-gain, axis=None)
        left, total = budget, 0.0
        for flat in order:
            a, j = np.unravel_index(flat, gain.shape)
            if left <= 0 or gain[a, j] <= 0:
                break
            take = min(left, o[a, j])
            total += float(take * gain[a, j])
            left -= take
        out.append(float(base + sign * total))
    return out[0], out[1]
