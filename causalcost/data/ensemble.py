"""Critical scores (two classes) or offset vectors (K classes) inside a fitted scikit-learn
ensemble that fuses scores.

On K > 2 classes the slot's output is its ``predict_proba`` row and the ensemble's output is
linear in it: :mod:`causalcost.data.ensemble_vectors` gives each row's offset vector. On two
classes, below, each row's critical score:

A fitted ``VotingClassifier(voting="soft")`` or ``StackingClassifier`` on two classes is a
system of score slots: each member's score is its ``predict_proba[:, 1]``, the probability
of the ensemble's positive class ``classes_[1]`` (the ensemble's ``P``; ``classes_[0]`` is
``N``). :func:`ensemble_runs` intervenes on one member, ``do(S_slot = s)``, inside the real
ensemble: every other member's output is computed on ``X`` and kept, the slot's score is set
to ``s``, and the ensemble's own fusion decides. Each row's **critical score** ``t`` is the
least score at which the ensemble says ``P`` (``-inf``: ``P`` at every score in [0, 1];
``+inf``: at none), so the result is a :class:`~causalcost.data.score_runs.ScoreRuns`.

* **Soft voting** predicts ``classes_[argmax]`` of the weighted mean of the members'
  probabilities: ``P`` iff the mean ``P``-probability is *strictly* above the mean
  ``N``-probability (a tie goes to ``classes_[0]``). Under the intervention the slot's
  probabilities are ``(1 - s, s)``; the rule is evaluated with the ensemble's own arithmetic
  (``numpy.average`` over the members in order), so ``t`` is the float at which it switches,
  ties included.
* **Stacking** predicts with its meta-model ``final_estimator_`` on the stacked outputs
  (``transform(X)``: one column per member, ``predict_proba[:, 1]`` for a probability member,
  the input columns appended with ``passthrough=True``). A ``LogisticRegression`` meta-model
  with a positive coefficient on the slot has the closed form ``t = -(intercept + sum of the
  other columns' terms) / coef_slot`` (passthrough columns are more terms). Any other
  meta-model is evaluated as it is, by its own ``predict``, after checking on a grid of
  scores (and a tree model's split points on the slot's column) that it never turns ``P``
  into ``N`` as the slot's score grows; then ``t`` is found by bisection to the float.

**The check.** The ensemble's own ``predict(X)`` must say ``P`` exactly on the rows with
``observed >= critical``, every row, ties included. :func:`ensemble_runs` asserts it before
returning. At the observed score the real member's probabilities are used: a member whose
two probabilities do not sum to exactly 1 in floating point can decide a tie, and such a row's
``t`` is moved to agree with the ensemble (counted in ``ScoreRuns.adjusted``); a disagreement
on any other row raises :class:`EnsembleMismatchError` (a defect, never a result). On such a
moved row a candidate scoring exactly the member's observed score counts as the member.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from causalcost.data.frames import align_by_index
from causalcost.data.score_runs import ScoreRuns, runs_from_scores
from causalcost.errors import (
    CausalCostError,
    DataError,
    EnsembleMismatchError,
    InputTypeError,
    MonotonicityError,
    UnknownNameError,
    ValidationError,
)
from causalcost.score_values import PROBABILITIES, check_scores

__all__ = ["EnsembleMismatchError", "ensemble_runs"]

_GRID = 65  # monotonicity probe: scores 0, 1/64, ..., 1 (plus a tree model's split points)


# ----------------------------------------------------------------------------- reading
def _ensemble_of(estimator: Any) -> Any:
    """The ensemble (the last step of a Pipeline), checked: fitted, soft."""
    from sklearn.ensemble import StackingClassifier, VotingClassifier
    from sklearn.pipeline import Pipeline

    model = estimator
    if isinstance(estimator, Pipeline):
        model = estimator.steps[-1][1]
        if isinstance(model, (VotingClassifier, StackingClassifier)):
            _require_fitted(estimator)
    if not isinstance(model, (VotingClassifier, StackingClassifier)):
        raise InputTypeError(
            f"estimator must be a fitted scikit-learn VotingClassifier(voting='soft') or "
            f"StackingClassifier (or a Pipeline ending in one), got {type(model).__name__}")
    _require_fitted(model)
    if isinstance(model, VotingClassifier) and model.voting != "soft":
        raise ValidationError(
            "estimator: VotingClassifier(voting='hard') fuses votes, not scores, so its slot "
            "has no critical score; price it from the members' votes with cc.forced_runs("
            "frame, truth=..., models=[...], slot=..., fusioner='majority') on a log of their "
            "predictions (or refit with voting='soft')")
    return model


def _features(estimator: Any, x: Any) -> Any:
    """The features the ensemble receives: ``x`` through a Pipeline's earlier steps."""
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline) and len(estimator.steps) > 1:
        return _call(lambda: estimator[:-1].transform(x), x,
                     "the pipeline's steps before the ensemble (transform)")
    return x


# ------------------------------------------------------------------ the rows X and y
def _rows(x: Any) -> int:
    """How many rows ``X`` has; refuses something without rows, and no rows at all."""
    shape = getattr(x, "shape", None)
    if shape is not None and len(shape) >= 1:
        n = int(shape[0])
    elif shape is None and hasattr(x, "__len__") and not isinstance(x, (str, bytes, dict)):
        n = len(x)
    else:
        raise InputTypeError(f"X must be the rows to count (a numpy array, a pandas DataFrame, "
                             f"a list of rows), got {'None' if x is None else type(x).__name__}")
    if n == 0:
        raise DataError("X: no rows; give the rows to count (at least one, not those the "
                        "ensemble was fitted on) with their true classes in y")
    return n


def _truth_values(y: Any, index: Any, n: int) -> np.ndarray:
    """``y`` in X's row order, one value per row of X (checked before any estimator runs)."""
    if y is None:
        raise DataError(f"y: the true class of each of the {n} rows of X is needed")
    values = np.asarray(align_by_index(y, index, "y", against="X"))
    if values.ndim != 1 or values.size != n:
        got = f"{values.size} values" if values.ndim == 1 else f"shape {values.shape}"
        raise DataError(f"y: {got} for {n} rows of X; give one true class per row of X, in its "
                        "order")
    return values


def _first_bad_cell(x: Any) -> str | None:
    """Where ``X`` first holds NaN or an infinity (row, then column), in words, or None
    (none, or X is not numbers: text for a vectoriser, say)."""
    import pandas as pd

    try:
        if isinstance(x, pd.DataFrame):
            cells = x.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float,
                                                                   na_value=np.nan)
            missing = x.isna().to_numpy() | ~np.isfinite(cells) & ~np.isnan(cells)
            if not missing.any():
                return None
            i, j = (int(v) for v in np.argwhere(missing)[0])
            value = x.iat[i, j]
            return (f"row {_label(x.index, i)!r}, column {_label(x.columns, j)!r} is "
                    f"{_what_value(value)}")
        if hasattr(x, "tocoo"):  # a scipy sparse matrix: only its stored values
            coo = x.tocoo()
            bad = ~np.isfinite(np.asarray(coo.data, dtype=float))
            if not bad.any():
                return None
            order = np.lexsort((coo.col[bad], coo.row[bad]))[0]
            i, j = int(coo.row[bad][order]), int(coo.col[bad][order])
            return f"row {i}, column {j} is {_what_value(coo.data[bad][order])}"
        cells = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    if cells.ndim != 2:
        return None
    bad = ~np.isfinite(cells)
    if not bad.any():
        return None
    i, j = (int(v) for v in np.argwhere(bad)[0])
    return f"row {i}, column {j} is {_what_value(cells[i, j])}"


def _what_value(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "missing"
    return "NaN" if math.isnan(v) else "infinite" if math.isinf(v) else "missing"


def _call(run: Callable[[], Any], x: Any, what: str) -> Any:
    """Run one of the estimator's own methods on ``X``; its ValueError (or TypeError) is the
    user's data, told in one line: a :class:`DataError` naming X, the first NaN or infinite
    cell, and the fix. An estimator that accepts NaN (HistGradientBoosting) raises nothing."""
    try:
        return run()
    except CausalCostError:
        raise
    except (ValueError, TypeError) as exc:
        said = " ".join(str(exc).split())
        said = said if len(said) <= 160 else said[:157] + "..."
        cell = _first_bad_cell(x)
        if cell is not None and "inf" in cell:
            fix = ("replace the infinite values (or drop those rows); the rows must be the "
                   "features the ensemble was fitted on")
        elif cell is not None:
            fix = ("fill or drop the missing values (e.g. a SimpleImputer step in a Pipeline "
                   "before the ensemble), or use members that accept NaN "
                   "(HistGradientBoostingClassifier)")
        else:
            fix = "give X as the ensemble was fitted on (the same features, in the same order)"
        where = f"; X's {cell}" if cell is not None else ""
        raise DataError(f"X: {what} refused it, saying \"{said}\"{where}; {fix}") from None


def _require_fitted(model: Any) -> None:
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(model)
    except NotFittedError:
        raise ValidationError(
            f"estimator: this {type(model).__name__} is not fitted; call "
            "estimator.fit(X_train, y_train) first (critical scores are read off the fitted "
            "ensemble, on data it was not fitted on)") from None


def _members(model: Any, slot: Any) -> tuple[list[str], int]:
    """The names of the fitted members in the order of ``estimators_``, and the slot's."""
    names = [n for n, e in model.estimators if not (isinstance(e, str) and e == "drop")]
    dropped = [n for n, e in model.estimators if isinstance(e, str) and e == "drop"]
    if slot not in names:
        extra = f" ({dropped} are dropped)" if dropped else ""
        raise UnknownNameError(
            f"slot: {slot!r} is not one of the ensemble's estimators {names}{extra}; name "
            "the member to intervene on as in estimator.estimators")
    return names, names.index(slot)


def _truth(values: np.ndarray, classes: np.ndarray) -> np.ndarray:
    unknown = ~np.isin(values, classes)
    if unknown.any():
        bad = sorted({str(v) for v in values[unknown]})[:5]
        raise DataError(f"y: labels {bad} ({int(unknown.sum())} row(s)) are not among the "
                        f"ensemble's classes_ {list(classes)}; give y with the labels the "
                        "ensemble was fitted on")
    return values == classes[1]


# ---------------------------------------------------------------------------- fusions
def _voting(model: Any, x: Any, pos: int, slot: str
            ) -> tuple[np.ndarray, Callable[..., Any], str, np.ndarray]:
    """Soft voting as a rule on ``[p1 of every member, p0 of every member]``."""
    names = [n for n, e in model.estimators if not (isinstance(e, str) and e == "drop")]
    probas = np.asarray([_call(lambda e=e: e.predict_proba(x), x,
                               f"member {name!r} ({type(e).__name__}.predict_proba)")
                         for name, e in zip(names, model.estimators_)], dtype=float)
    m = probas.shape[0]
    weights = None if model.weights is None else [
        float(w) for (_, e), w in zip(model.estimators, model.weights)
        if not (isinstance(e, str) and e == "drop")]
    if weights is not None and weights[pos] < 0:
        raise MonotonicityError(
            f"slot: {slot!r} has weight {weights[pos]!r} in the vote, so "
            "the ensemble says P less as its score grows and no critical score exists; give "
            "it a weight >= 0")

    def says(s: np.ndarray, real_p0: bool = False) -> np.ndarray:
        p1, p0 = s[:, :m].T, s[:, m:].T.copy()
        if not real_p0:
            p0[pos] = 1.0 - p1[pos]
        avg = np.average(np.stack([p0, p1], axis=-1), axis=0, weights=weights)
        return avg[:, 1] > avg[:, 0]  # argmax: a tie is classes_[0]

    table = np.hstack([probas[:, :, 1].T, probas[:, :, 0].T])
    shown = "" if weights is None or len(set(weights)) == 1 else \
        f" (weights {', '.join(f'{w:g}' for w in weights)})"
    rule = (f"soft vote of {m} estimators{shown}: P iff the mean probability of P exceeds "
            "that of N")
    real = says(table, real_p0=True)
    return table, says, rule, real


def _tree_splits(final: Any, col: int) -> np.ndarray:
    """Split points on column ``col`` of a tree model's trees (empty for other models)."""
    trees: list[Any] = []
    for attr in ("tree_",):
        if hasattr(final, attr):
            trees.append(getattr(final, attr))
    for est in np.ravel(getattr(final, "estimators_", [])):
        if hasattr(est, "tree_"):
            trees.append(est.tree_)
    cuts = [t.threshold[t.feature == col] for t in trees]
    for predictors in getattr(final, "_predictors", []):  # HistGradientBoosting
        for p in predictors:
            nodes = p.nodes
            cuts.append(nodes["num_threshold"][(nodes["feature_idx"] == col)
                                               & ~nodes["is_leaf"].astype(bool)])
    if not cuts:
        return np.empty(0)
    c = np.concatenate(cuts).astype(float)
    c = c[(c >= 0) & (c <= 1)]
    # a float64 tree (HistGradientBoosting) switches between thr and the next float; a float32
    # tree (the others cast X to float32) between the float32 values either side of thr
    near = c.astype(np.float32)
    low = np.where(near > c, np.nextafter(near, np.float32(-np.inf)), near)
    high = np.where(near > c, near, np.nextafter(near, np.float32(np.inf)))
    return np.concatenate([c, np.nextafter(c, np.inf), low.astype(float), high.astype(float)])


def _monotone(says: Callable[[np.ndarray], np.ndarray], table: np.ndarray, col: int,
              grid: np.ndarray, what: str, slot: str, index: Any) -> None:
    """Refuse a fusion that turns P into N as the slot's score grows on ``grid``."""
    prev, last = None, None
    for g in grid:
        forced = table.copy()
        forced[:, col] = g
        now = says(forced)
        if prev is not None and (prev & ~now).any():
            label = _label(index, int(np.argmax(prev & ~now)))
            raise MonotonicityError(
                f"slot {slot!r}: {what} is not non-decreasing in the slot's score: on row "
                f"{label!r} the ensemble says P at score {last!r} but N at {float(g)!r} (the "
                "other members fixed), so no critical score exists; use a meta-model that "
                "never lowers its output as the slot's score grows (LogisticRegression with a "
                "positive coefficient on the slot, or HistGradientBoostingClassifier("
                "monotonic_cst=...) with +1 on the slot's column), or price this slot with "
                "response patterns over score bins")
        prev, last = now, float(g)


def _stacking(model: Any, x: Any, pos: int, slot: str, index: Any
              ) -> tuple[np.ndarray, dict[str, Any], str]:
    """Stacking: the meta-features and the score_runs rule of the meta-model."""
    from sklearn.linear_model import LogisticRegression

    method = model.stack_method_[pos]
    if method != "predict_proba":
        raise ValidationError(
            f"slot {slot!r} enters the meta-model through {method} (stack_method_), not as a "
            "probability in [0, 1]; refit the StackingClassifier with stack_method="
            "'predict_proba' so the slot's score is its probability of classes_[1]")
    table = np.asarray(_call(lambda: model.transform(x), x,
                             "the stacking's members (StackingClassifier.transform)"),
                       dtype=float)
    col = pos  # two classes: one column per member, in the order of estimators_
    if not np.array_equal(table[:, col], model.estimators_[pos].predict_proba(x)[:, 1]):
        raise EnsembleMismatchError(  # pragma: no cover - scikit-learn's stacking layout
            f"the stacked column {col} is not slot {slot!r}'s predict_proba[:, 1]; this is a "
            "defect of causalcost: please report it with the ensemble")
    final = model.final_estimator_
    name = type(final).__name__
    extra = " and the passthrough columns" if model.passthrough else ""
    rule = f"stacking: {name} on the members' outputs{extra}"
    if isinstance(final, LogisticRegression) and final.coef_.shape[0] == 1:
        w = final.coef_[0].astype(float)
        if w[col] < 0:
            raise MonotonicityError(
                f"slot {slot!r}: the LogisticRegression meta-model weighs its score with the "
                f"coefficient {float(w[col])!r} < 0, so the ensemble says P less as the "
                "slot's score grows and no critical score exists; check that the member "
                "scores classes_[1] (refit the stacking without it, or with a member whose "
                "score rises with the positive class), or price this slot with response "
                "patterns over score bins")
        if w[col] > 0:
            return table, {"fusioner": "logistic", "weights": list(w), "threshold": 0.5,
                           "bias": float(final.intercept_[0])}, \
                rule + ": P iff its decision > 0 (closed form)"
    code = final.classes_[1]

    def says(s: np.ndarray) -> np.ndarray:
        return np.asarray(final.predict(s)) == code

    grid = np.unique(np.concatenate([np.linspace(0.0, 1.0, _GRID), _tree_splits(final, col)]))
    _monotone(says, table, col, grid, f"the {name} meta-model", slot, index)
    return table, {"fusioner": says, "threshold": 0.5, "grid": _GRID}, \
        rule + ": P iff its predict says classes_[1]"


# ------------------------------------------------------------------------------ public
def ensemble_runs(estimator: Any, X: Any, y: Any, *, slot: str,  # noqa: N803
                  labels: Any = None) -> ScoreRuns:
    """One member of a fitted soft-voting or stacking ensemble as a score slot, on data.

    Intervenes on the member ``slot`` inside the real ensemble (``do(slot's output = s)``,
    the other members' outputs on ``X`` kept). Two classes: returns, per row of ``X``, the
    least score of the slot at which the ensemble predicts the positive class
    ``classes_[1]`` (its critical score). K > 2 classes: the slot's output is its
    probability vector ``p`` and the ensemble predicts ``classes_[argmax(A p + r_i)]``;
    returns each row's offset vector ``r_i`` and the slot's coefficients ``A``
    (:mod:`causalcost.data.ensemble_vectors`).

    Parameters
    ----------
    estimator : VotingClassifier or StackingClassifier
        Fitted; ``VotingClassifier`` with ``voting="soft"`` (weights respected);
        ``StackingClassifier`` with the slot stacked by ``predict_proba``. Two classes: any
        ``final_estimator`` (a ``LogisticRegression`` by closed form, another by its own
        ``predict`` if it is non-decreasing in the slot's score). K classes: a linear
        ``final_estimator`` (``coef_`` per class, predicting the largest decision:
        ``LogisticRegression``, ``RidgeClassifier``, ``LinearSVC``). ``passthrough`` either
        way. A ``Pipeline`` whose last step is such an ensemble is read through its earlier
        steps (the slot's scores are then on the transformed features).
    X : array-like or pandas.DataFrame
        The rows to count (not those the ensemble was fitted on). A DataFrame's index becomes
        the runs' index: candidates' scores as a Series are aligned on it.
    y : array-like or pandas.Series
        The true class per row, labels among ``estimator.classes_``.
    slot : str
        The member's name, as in ``estimator.estimators``.
    labels : None
        Not taken: the labels are the ensemble's ``classes_``; giving labels is refused.

    Returns
    -------
    ScoreRuns
        Two classes: labels ``("P", "N")`` with ``P`` the ensemble's ``classes_[1]``
        (``positive``); ``observed_scores`` the slot's ``predict_proba[:, 1]``. K classes:
        labels ``classes_``, ``offsets`` and ``matrix``, ``observed_scores`` the slot's
        ``predict_proba`` rows. ``score_range`` (0, 1).

    Raises
    ------
    InputTypeError
        Not a VotingClassifier / StackingClassifier (or a Pipeline ending in one).
    ValidationError
        Not fitted, hard voting, a slot stacked by ``decision_function`` or ``predict``,
        ``labels=`` given; on K > 2 classes a meta-model that is not linear.
    UnknownNameError
        ``slot`` is not a fitted member's name (the names are listed).
    MonotonicityError
        The ensemble is not non-decreasing in the slot's score (a negative vote weight or
        meta-model coefficient, a meta-model that turns P into N on some row).
    DataError
        ``X`` with no rows; ``y`` of another length than ``X`` or with labels outside
        ``classes_``; ``X`` refused by the estimator's own ``predict_proba`` / ``transform``
        / ``predict`` (NaN for members that do not accept it, the wrong number of features):
        the estimator's message in one line, with the first NaN or infinite cell of ``X``
        (a DataFrame's row label and column name). Checked before any estimator runs: the
        rows of ``X`` and ``y``.
    EnsembleMismatchError
        Never expected: the critical scores disagree with the ensemble's own ``predict``.

    Examples
    --------
    >>> import causalcost as cc
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import VotingClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> vote = VotingClassifier([("lr", LogisticRegression()), ("nb", GaussianNB())],
    ...                         voting="soft").fit(X[:200], y[:200])
    >>> runs = cc.ensemble_runs(vote, X[200:], y[200:], slot="nb")
    >>> says = vote.predict(X[200:]) == 1
    >>> bool(np.array_equal(says, runs.observed_scores >= runs.critical))
    True
    >>> runs.observed == cc.Confusion.from_predictions(y[200:] == 1, says)
    True
    >>> weak = LogisticRegression(C=0.01).fit(X[:200], y[:200])  # a candidate for "nb"
    >>> runs.with_candidate(weak.predict_proba(X[200:])[:, 1])
    Confusion(tp=47, fn=7, fp=3, tn=43)

    Three classes: the slot's whole ``predict_proba`` row is what the intervention sets.

    >>> X, y = make_classification(n_samples=300, n_informative=4, n_classes=3,
    ...                            random_state=0)
    >>> vote = VotingClassifier([("lr", LogisticRegression()), ("nb", GaussianNB())],
    ...                         voting="soft").fit(X[:200], y[:200])
    >>> runs = cc.ensemble_runs(vote, X[200:], y[200:], slot="nb")
    >>> from sklearn.metrics import confusion_matrix
    >>> runs.k, runs.observed == cc.Confusion.from_matrix(
    ...     confusion_matrix(y[200:], vote.predict(X[200:])), labels=[0, 1, 2])
    (3, True)
    >>> weak = LogisticRegression(C=0.01).fit(X[:200], y[:200])
    >>> bound = runs.price(weak.predict_proba(X[200:]))
    >>> real = runs.with_candidate(weak.predict_proba(X[200:])).errors
    >>> bool(bound.best_cost <= real <= bound.worst_cost)
    True
    """
    model = _ensemble_of(estimator)
    if labels is not None:
        raise ValidationError(
            "labels: ensemble_runs takes no labels=; the labels are the ensemble's classes_ "
            f"{np.asarray(model.classes_).tolist()} (y is read through them): leave labels= out")
    names, pos = _members(model, slot)
    index = getattr(X, "index", None)
    n = _rows(X)
    values = _truth_values(y, index, n)
    features = _features(estimator, X)
    if len(model.classes_) > 2:
        from causalcost.data.ensemble_vectors import vector_ensemble_runs

        return vector_ensemble_runs(model, features, values, slot=slot, names=names, pos=pos,
                                    index=index, call=_call)
    truth = _truth(values, np.asarray(model.classes_))
    says_real = np.asarray(_call(lambda: estimator.predict(X), X,
                                 f"the ensemble's predict ({type(estimator).__name__})")
                           ) == model.classes_[1]
    if hasattr(model, "voting"):
        table, rule_fn, rule, real = _voting(model, features, pos, slot)
        if not np.array_equal(real, says_real):
            _mismatch(real, says_real, index, "the soft vote recomputed from the members")
        kw: dict[str, Any] = {"fusioner": rule_fn, "threshold": 0.5}
        movable = rule_fn(table) != real  # the slot's p0 is not 1 - p1 to the float there
    else:
        table, kw, rule = _stacking(model, features, pos, slot, index)
        movable = _near_zero(table, kw) if kw["fusioner"] == "logistic" else \
            np.zeros(n, dtype=bool)
    # the slot's score is column pos of the table (the other columns: the rule's context)
    aux = [f"_{i}" for i in range(table.shape[1])]
    aux[pos] = slot
    # the other columns are the rule's context (a member's probabilities, a meta-model's
    # passthrough features): any finite number; the slot's scores are probabilities
    check_scores(table, "the ensemble's scores", score_range=(-math.inf, math.inf),
                 labels=index, columns=aux)
    check_scores(table[:, pos], f"the slot {slot!r}'s predict_proba", labels=index)
    runs = runs_from_scores(table, tuple(aux), truth, "y", slot=pos, index=None, positive=None,
                            score_range=PROBABILITIES, **kw)
    t = np.array(runs.critical)
    obs = table[:, pos]
    wrong = (obs >= t) != says_real
    if (wrong & ~movable).any():
        _mismatch(obs >= t, says_real, index, "s >= critical", wrong & ~movable)
    t[wrong & says_real] = obs[wrong & says_real]
    t[wrong & ~says_real] = np.nextafter(obs[wrong & ~says_real], np.inf)
    if not np.array_equal(obs >= t, says_real):  # pragma: no cover - the moves above
        _mismatch(obs >= t, says_real, index, "s >= critical")
    t.setflags(write=False)
    positive = model.classes_[1]
    return dataclasses.replace(
        runs, slot=slot, models=tuple(names), rule=rule, critical=t, index=index,
        score_range=PROBABILITIES,
        adjusted=runs.adjusted + int(wrong.sum()),
        positive=positive.item() if isinstance(positive, np.generic) else positive)


def _near_zero(table: np.ndarray, kw: dict[str, Any]) -> np.ndarray:
    """Rows whose logistic decision is zero to rounding (the closed form's float may differ
    from the meta-model's own there)."""
    terms = table * np.asarray(kw["weights"])
    z = kw["bias"] + terms.sum(axis=1)
    scale = abs(kw["bias"]) + np.abs(terms).sum(axis=1)
    return np.abs(z) <= 64 * np.finfo(float).eps * np.maximum(scale, math.ulp(1.0))


def _label(index: Any, row: int) -> Any:
    """A row's label in messages: its index label as a plain value, else its position."""
    label = row if index is None else index[row]
    return label.item() if isinstance(label, np.generic) else label


def _mismatch(ours: np.ndarray, says: np.ndarray, index: Any, what: str,
              rows: np.ndarray | None = None) -> None:
    bad = (ours != says) if rows is None else rows
    row = int(np.argmax(bad))
    label = _label(index, row)
    raise EnsembleMismatchError(
        f"{what} disagrees with the ensemble's own predict on {int(bad.sum())} row(s), first "
        f"row {label!r} (predict says {'P' if says[row] else 'N'}); this is a defect of "
        "causalcost: please report it with the ensemble's type and parameters")
