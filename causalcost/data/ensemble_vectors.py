"""Offset vectors inside a fitted scikit-learn ensemble on K > 2 classes.

The slot's output is its ``predict_proba`` row, a probability vector ``p`` over the
ensemble's ``classes_``; the ensemble's prediction is linear in it:

* **soft voting** predicts ``classes_[argmax]`` of ``numpy.average`` of the members'
  probabilities (the first largest on ties): ``argmax_k (w_slot p_k + r_ik)`` with ``r_i``
  the other members' weighted probabilities (the division by the total weight never changes
  the order, up to rounding at near-ties; see below);
* **stacking** with a linear meta-model (``coef_`` of shape ``(K, F)``, ``intercept_``, and
  ``predict`` the class of the largest ``decision_function``: ``LogisticRegression``,
  ``RidgeClassifier``, ``LinearSVC``, ...) predicts ``argmax_k (A p + r_i)_k`` with ``A`` the
  meta-model's coefficients on the slot's K stacked columns and ``r_i`` the rest of the
  decision (the other members' columns, the passthrough features, the intercepts). A
  meta-model that is not linear in the stacked features is refused.

**The check.** The ensemble's own ``predict(X)`` must equal ``argmax(A p + r_i)`` at the slot's
observed vector on every row, ties included. The decision is computed in a stated float order
(:func:`~causalcost.pricing.score_vectors.decide_rows`) that may round a near-tie differently
from scikit-learn's arithmetic; such a row's offset for the ensemble's class is raised by the
fewest floats that make it win (counted in ``ScoreRuns.adjusted``), and a disagreement on a row
that is not a near-tie raises :class:`~causalcost.errors.EnsembleMismatchError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from causalcost.data.score_runs import ScoreRuns, _readonly
from causalcost.data.score_vector_log import class_positions
from causalcost.errors import EnsembleMismatchError, ValidationError
from causalcost.network.fusioners import plain_labels
from causalcost.pricing.score_vectors import decide_rows
from causalcost.score_values import PROBABILITIES, check_scores, read_score_vectors

__all__ = ["vector_ensemble_runs"]

#: A disagreement with the ensemble's predict is a rounding near-tie when the two entries
#: differ by at most this much relative to the magnitudes added.
_NEAR = 2.0 ** -40
#: Floats an offset may be raised by to agree with the ensemble on a near-tie.
_MOST_STEPS = 64


def _agree(matrix: np.ndarray, offsets: np.ndarray, observed: np.ndarray, said: np.ndarray,
           mismatch: Callable[[np.ndarray, np.ndarray, np.ndarray], None]
           ) -> tuple[np.ndarray, int]:
    """Offsets on which the stated decision at the observed vectors is the ensemble's own."""
    ours = decide_rows(matrix, offsets, observed)
    wrong = ours != said
    if not wrong.any():
        return offsets, 0
    q = observed @ matrix.T
    z = q + offsets
    rows = np.flatnonzero(wrong)
    gap = z[rows, ours[rows]] - z[rows, said[rows]]
    scale = (np.abs(q[rows]) + np.abs(offsets[rows])).max(axis=1)
    near = gap <= _NEAR * np.maximum(scale, 1.0)
    if not near.all():
        mismatch(ours, said, rows[~near])
    out = offsets.copy()
    for _ in range(_MOST_STEPS):
        left = rows[decide_rows(matrix, out[rows], observed[rows]) != said[rows]]
        if not left.size:
            return out, int(rows.size)
        out[left, said[left]] = np.nextafter(out[left, said[left]], np.inf)
    mismatch(ours, said, left)  # pragma: no cover - a near-tie is a few floats away
    raise AssertionError  # pragma: no cover


def _mismatch_error(index: Any, labels: tuple[Any, ...], what: str
                    ) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None]:
    def fail(ours: np.ndarray, said: np.ndarray, rows: np.ndarray) -> None:
        row = int(rows[0])
        label = row if index is None else index[row]
        raise EnsembleMismatchError(
            f"{what} disagrees with the ensemble's own predict on {rows.size} row(s), first "
            f"row {label!r} (predict says {labels[said[row]]!r}, the offsets "
            f"{labels[ours[row]]!r}); this is a defect of causalcost: please report it with "
            "the ensemble's type and parameters")
    return fail


def _voting(model: Any, x: Any, pos: int, names: list[str], call: Callable[..., Any]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    probas = [np.asarray(call(lambda e=e: e.predict_proba(x), x,
                              f"member {name!r} ({type(e).__name__}.predict_proba)"),
                         dtype=float) for name, e in zip(names, model.estimators_)]
    weights = [1.0] * len(names) if model.weights is None else [
        float(w) for (_, e), w in zip(model.estimators, model.weights)
        if not (isinstance(e, str) and e == "drop")]
    offsets = np.zeros_like(probas[pos])
    for m, (p, w) in enumerate(zip(probas, weights)):
        if m != pos:
            offsets = offsets + w * p
    shown = "" if model.weights is None or len(set(weights)) == 1 else \
        f" (weights {', '.join(f'{w:g}' for w in weights)})"
    rule = (f"soft vote of {len(names)} estimators over {probas[pos].shape[1]} classes{shown}: "
            "the class of the largest mean probability")
    return weights[pos] * np.eye(probas[pos].shape[1]), offsets, probas[pos], rule


def _stack_columns(model: Any, pos: int, k: int) -> slice:
    """The slot's K columns in ``transform``'s output (each member's width in order)."""
    widths = [k if method in ("predict_proba", "decision_function") else 1
              for method in model.stack_method_]
    start = sum(widths[:pos])
    return slice(start, start + widths[pos])


def _stacking(model: Any, x: Any, pos: int, slot: str, call: Callable[..., Any]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    k = len(model.classes_)
    method = model.stack_method_[pos]
    if method != "predict_proba":
        raise ValidationError(
            f"slot {slot!r} enters the meta-model through {method} (stack_method_), not as a "
            "probability vector; refit the StackingClassifier with stack_method="
            "'predict_proba' so the slot's output is its predict_proba row")
    table = np.asarray(call(lambda: model.transform(x), x,
                            "the stacking's members (StackingClassifier.transform)"), dtype=float)
    cols = _stack_columns(model, pos, k)
    observed = np.asarray(model.estimators_[pos].predict_proba(x), dtype=float)
    if table.shape[1] < cols.stop or not np.array_equal(table[:, cols], observed):
        raise EnsembleMismatchError(  # pragma: no cover - scikit-learn's stacking layout
            f"the stacked columns {cols.start}..{cols.stop - 1} are not slot {slot!r}'s "
            "predict_proba; this is a defect of causalcost: please report it with the ensemble")
    final = model.final_estimator_
    name = type(final).__name__
    coef = getattr(final, "coef_", None)
    intercept = getattr(final, "intercept_", None)
    if coef is None or intercept is None or np.shape(coef) != (k, table.shape[1]) \
            or not hasattr(final, "decision_function"):
        raise ValidationError(
            f"slot {slot!r}: the meta-model {name} is not a linear model with one row of "
            f"coefficients per class (coef_ of shape ({k}, {table.shape[1]})), so the "
            "ensemble's output is not linear in the slot's probability vector; use a linear "
            "final_estimator (LogisticRegression, RidgeClassifier, LinearSVC) for a "
            "K-label score slot")
    decision = np.asarray(final.decision_function(table), dtype=float)
    if not np.array_equal(np.asarray(final.predict(table)),
                          np.asarray(final.classes_)[decision.argmax(axis=1)]):
        raise ValidationError(f"slot {slot!r}: the meta-model {name} does not predict the "
                              "class of its largest decision_function, so it is not priced "
                              "as a linear argmax")
    coef = np.asarray(coef, dtype=float)
    rest = np.ones(table.shape[1], dtype=bool)
    rest[cols] = False
    offsets = table[:, rest] @ coef[:, rest].T + np.asarray(intercept, dtype=float)
    extra = " and the passthrough columns" if model.passthrough else ""
    rule = (f"stacking: {name} on the members' outputs{extra}: the class of its largest "
            "decision")
    return coef[:, cols], offsets, observed, rule


def vector_ensemble_runs(model: Any, features: Any, values: np.ndarray, *,
                         slot: str, names: list[str], pos: int, index: Any,
                         call: Callable[..., Any]) -> ScoreRuns:
    """:func:`causalcost.ensemble_runs` on K > 2 classes (see the module)."""
    labels = plain_labels(model.classes_)
    classes = class_positions(values, labels, "y", "give y with the labels the ensemble was "
                              "fitted on (its classes_)")
    if hasattr(model, "voting"):
        matrix, offsets, observed, rule = _voting(model, features, pos, names, call)
    else:
        matrix, offsets, observed, rule = _stacking(model, features, pos, slot, call)
    check_scores(offsets, "the ensemble's offsets", score_range=(-np.inf, np.inf),
                 labels=index, columns=[f"offset[{label!r}]" for label in labels])
    observed = read_score_vectors(observed, f"the slot {slot!r}'s predict_proba",
                                  labels=labels, index=index, against="X")
    said = np.asarray(call(lambda: model.predict(features), features,
                           f"the ensemble's predict ({type(model).__name__})"))
    said_pos = class_positions(said, labels, "predict")
    offsets, moved = _agree(matrix, offsets, observed, said_pos,
                            _mismatch_error(index, labels, "argmax(A p + offsets)"))
    return ScoreRuns(slot=slot, models=tuple(names), rule=rule, truth=_readonly(classes),
                     critical=None, observed_scores=_readonly(observed), index=index,
                     adjusted=moved, positive=None, score_range=PROBABILITIES, labels=labels,
                     offsets=_readonly(offsets, copy=False),
                     matrix=_readonly(np.asarray(matrix, dtype=float)))
