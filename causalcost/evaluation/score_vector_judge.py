"""Judge a K-label score slot's candidates (K > 2): the route of
:func:`~causalcost.evaluate` and :func:`~causalcost.compare` for score runs or a score sheet of
K labels (:mod:`causalcost.evaluation.score_judge` dispatches here on the number of labels).

A candidate is one **probability vector** per row (``predict_proba``: shape ``(rows, K)``,
columns in the order of the labels, or a DataFrame whose columns are the labels), read by the
one reader (:func:`~causalcost.score_values.read_score_vectors`). It is priced against the
system's offset vectors and the slot's coefficients
(:func:`~causalcost.pricing.score_vector_price.price_vectors`): the expected system cost, and
the worst and best case over the unknown pairing of its vectors with the instances.

**Which rows.** With :class:`~causalcost.data.score_runs.ScoreRuns` the candidate's vectors
on the runs' own rows (given in their row order, or as a DataFrame on their index, without
``y_true``) are the same instances: the worst and best case are exact, and the real system's
cost with the vectors plugged in (:meth:`~causalcost.data.score_runs.ScoreRuns.with_candidate`)
stands beside them, always between the two. Vectors made on other rows come with their own
``y_true`` and are priced in the probability form (the extremes over every coupling of the two
distributions; their costs only, for K > 2). A score sheet of K labels has no rows to plug into:
its candidates come with ``y_true``, declared (``same_instances``) or proven
(``row_fingerprint``) on the sheet's rows, else in the probability form.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> from causalcost.data.score_runs import ScoreRuns
>>> runs = ScoreRuns(slot="m", models=("m",), rule="soft vote", truth=np.array([0, 1, 2, 1]),
...                  critical=None, observed_scores=np.full((4, 3), 1 / 3),
...                  labels=("a", "b", "c"), offsets=np.zeros((4, 3)), matrix=np.eye(3))
>>> sharp = np.eye(3)[[0, 1, 2, 1]]
>>> table = compare_vectors(runs, scores={"sharp": sharp, "flat": np.eye(3)[[0, 0, 0, 0]]})
>>> table[["eval1", "worst_cost", "best_cost", "real_cost"]].to_dict("index")
{'sharp': {'eval1': 0.0, 'worst_cost': 0.0, 'best_cost': 0.0, 'real_cost': 0.0}, 'flat': {'eval1': 3.0, 'worst_cost': 3.0, 'best_cost': 3.0, 'real_cost': 3.0}}
"""  # noqa: E501

from __future__ import annotations

import warnings as _warnings
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.cost_matrix import as_costs
from causalcost.errors import CausalCostWarning, InputTypeError, ValidationError
from causalcost.evaluation.candidate_table import CandidateTable
from causalcost.evaluation.ranking import ranking_disagreement
from causalcost.evaluation.score_inputs import is_score_runs, vectors_by_class
from causalcost.evaluation.score_ranking import declared_candidates, ranked
from causalcost.evaluation.score_report import ScoreReport
from causalcost.pricing.score_vector_price import price_vectors
from causalcost.pricing.scores import FORMS, ScoreBound
from causalcost.sheet.instances import FINGERPRINT_KEY, Instances

__all__ = ["vector_costs", "price_vector_candidate", "own_confusion", "refuse_confidence",
           "evaluate_vectors", "compare_vectors"]

#: Where a candidate on score runs' own rows comes from, in words.
RUNS_ROWS = Instances(True, "runs", "the score runs' own rows (the vectors given in their row "
                                    "order, without y_true)")


def refuse_confidence(confidence: float | None, same_instances: bool) -> None:
    """The high-confidence case of K labels is the probability form's (vectors counted on
    other rows); on the same rows the worst and best case are exact."""
    if confidence is not None and same_instances:
        raise ValidationError(
            "confidence: the high-confidence worst and best case are for vectors counted on "
            "other rows than the system's (the probability form); on the same rows the worst "
            "and best case are exact: leave confidence out")


def vector_costs(pricer: Any, costs: Any = None) -> CostMatrix:
    """The system's K x K costs over the pricer's labels: a sheet's own (``costs`` must then
    equal them), else ``costs`` (a CostMatrix or (K, K) array, rows the true class), else
    counting errors (every mistake costs 1), as :meth:`ScoreRuns.price` does.

    >>> vector_costs(type("R", (), {"labels": ("a", "b", "c")})()).to_numpy().tolist()[0]
    [0.0, 1.0, 1.0]
    """
    labels = tuple(pricer.labels)
    own = getattr(pricer, "costs", None)
    given = None if costs is None else as_costs(costs, labels)
    if own is not None:
        own = as_costs(own, labels)
        if given is not None and not np.array_equal(given.to_numpy(), own.to_numpy()):
            raise ValidationError("costs= differ from the sheet's: the sheet prices with its own "
                                  "costs; leave costs= out (or re-price the sheet with "
                                  "sheet.with_costs(...))")
        return own
    if given is not None:
        return given
    k = len(labels)
    return as_costs(np.ones((k, k)) - np.eye(k), labels)


def price_vector_candidate(pricer: Any, by_class: tuple[np.ndarray, ...], costs: CostMatrix,
                           same_instances: bool, confidence: float | None = None
                           ) -> ScoreBound:
    """One candidate's :class:`~causalcost.pricing.scores.ScoreBound` from its vectors per
    class: score runs through :func:`~causalcost.pricing.score_vector_price.price_vectors` on
    their offset vectors, the slot's matrix, score range and fusion (the call
    :meth:`ScoreRuns.price` makes, in either form), a sheet through its own ``price``."""
    extra: dict[str, Any] = {} if confidence is None else {"confidence": confidence}
    if is_score_runs(pricer):
        return price_vectors(pricer.slot_matrix, pricer.offsets_by_class, by_class, costs,
                             labels=pricer.labels, same_instances=same_instances,
                             score_range=pricer.score_range, fusion=pricer.fusion, **extra)
    return pricer.price(by_class, same_instances=same_instances, **extra)


def own_confusion(by_class: tuple[np.ndarray, ...], labels: tuple[Any, ...]) -> Confusion:
    """The candidate alone: per true class, how often the argmax of its vectors (first
    largest on ties) names each label.

    >>> own_confusion((np.array([[0.6, 0.4]]), np.array([[0.5, 0.5]])), ("a", "b")).to_numpy()
    array([[1., 0.],
           [1., 0.]])
    """
    k = len(labels)
    rows = [np.bincount(np.argmax(v, axis=1), minlength=k) if v.size else np.zeros(k, int)
            for v in by_class]
    return Confusion(matrix=np.array(rows, dtype=np.int64).tolist(), labels=labels)


def accuracy_of(model: Confusion) -> float:
    """The candidate's own accuracy (NaN without rows)."""
    m = model.to_numpy()
    total = float(m.sum())
    return float(np.trace(m) / total) if total else float("nan")


@dataclass(frozen=True)
class _Candidate:
    """One candidate's vectors per class, and whether they are the runs' own rows."""

    by_class: tuple[np.ndarray, ...]
    on_runs: bool
    given: Any = None  # the vectors as given, to plug into the runs


def _read(pricer: Any, value: Any, y_true: Any, what: str) -> _Candidate:
    """A candidate's vectors: ``(y_true, vectors)`` of its own rows, vectors on ``y_true``'s
    rows, or (score runs, no ``y_true``) on the runs' own rows."""
    if isinstance(value, tuple):
        if len(value) != 2:
            raise ValidationError(f"{what}: a tuple is (y_true, vectors) of the candidate's own "
                                  "rows")
        return _Candidate(vectors_by_class(pricer, value[0], value[1], what)[0], False)
    if y_true is None:
        if not is_score_runs(pricer):
            raise ValidationError(f"{what}: y_true: the true classes of the rows the vectors "
                                  "were made on (a score sheet has no rows of its own to read "
                                  "them on)")
        return _Candidate(pricer.candidate_by_class(value, what), True, value)
    return _Candidate(vectors_by_class(pricer, y_true, value, what)[0], False)


def _instances(pricer: Any, cand: _Candidate, same_instances: bool,
               row_fingerprint: str | None) -> Instances:
    """The form of one candidate and why, in words (decide_instances' vocabulary)."""
    if is_score_runs(pricer) and row_fingerprint is not None:
        raise ValidationError("row_fingerprint: score runs record no fingerprint; vectors on "
                              "their own rows are given in the runs' row order (or as a "
                              "DataFrame on their index) without y_true")
    if cand.on_runs:
        return RUNS_ROWS
    if is_score_runs(pricer):
        if same_instances:
            raise ValidationError(
                "same_instances / row_fingerprint: score runs know their own rows; give the "
                "vectors on them in the runs' row order (or as a DataFrame on their index) "
                "without y_true, and leave same_instances out for vectors made on other rows")
        return Instances(False, "not-declared", "the vectors were given with a y_true of their "
                                                "own (other rows than the runs')")
    if same_instances:
        return Instances(True, "declared", "the same instances as the sheet's, declared "
                                           "(same_instances=True)")
    recorded = (getattr(pricer, "provenance", None) or {}).get(FINGERPRINT_KEY)
    if row_fingerprint is not None and recorded is not None:
        same = row_fingerprint == recorded
        return Instances(same, "fingerprint" if same else "fingerprint-differs",
                         "the row fingerprint " + ("matches" if same else "differs from")
                         + " the one the sheet records")
    return Instances(False, "not-declared", "instances not declared the same")


def _form_text(inst: Instances) -> str:
    word = "same instances (exact over the unknown pairing)" if inst.same else \
        "probability form"
    return f"{word}: {inst.reason}"


def _why_other(inst: Instances) -> tuple[str, ...]:
    if inst.same:
        return ()
    return (f"the worst and best cases are in the probability form ({inst.reason}): the "
            "extremes over every coupling of the candidate's and the system's distributions, "
            "scaled to the candidate's class sizes (costs only: which wrong label an error "
            "goes to is not determined)",)


def _digest(pricer: Any) -> str:
    return str(getattr(pricer, "digest", "") or "")


def _warnings_of(pricer: Any) -> list[str]:
    if is_score_runs(pricer):
        return []
    from causalcost.evaluation.score_inputs import score_sheet_warnings

    return list(score_sheet_warnings(pricer))


def evaluate_vectors(pricer: Any, candidate: Any = None, *, y_true: Any = None,
                     scores: Any = None, costs: Any = None, confidence: float | None = None,
                     same_instances: bool = False, row_fingerprint: str | None = None
                     ) -> ScoreReport:
    """One K-label score-slot candidate's report (:func:`~causalcost.evaluate` on K-label
    score runs or sheet).

    Parameters
    ----------
    pricer : ScoreRuns or score sheet of K labels
    candidate : tuple (y_true, vectors), optional
        The candidate's vectors with the true classes of their rows; or give ``scores=``
        (and ``y_true=`` for rows other than the runs').
    y_true : array-like, optional
        The true classes of the vectors' rows (labels of the system); leave it out for vectors
        on score runs' own rows.
    scores : array-like (rows, K) or DataFrame
        The candidate's probability vectors.
    costs : CostMatrix or (K, K) array, optional
        Score runs: the system's costs (default: every mistake costs 1). A sheet prices with
        its own.
    confidence : None
        ``1 - alpha``: the high-confidence worst and best case of the probability form
        (vectors on other rows; refused on the same rows, where the cases are exact).
    same_instances, row_fingerprint
        A sheet: declare or prove the vectors were made on its rows.

    Returns
    -------
    ScoreReport
        With the candidate's own confusion (``model``) and, on score runs' rows, the real
        system's confusion and cost (``real``, ``real_cost``).

    Examples
    --------
    >>> from causalcost.data.score_runs import ScoreRuns
    >>> runs = ScoreRuns(slot="m", models=("m",), rule="soft vote", critical=None,
    ...                  truth=np.array([0, 1, 2]), observed_scores=np.full((3, 3), 1 / 3),
    ...                  labels=("a", "b", "c"), offsets=np.zeros((3, 3)), matrix=np.eye(3))
    >>> r = evaluate_vectors(runs, scores=[[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.8, 0.1, 0.1]])
    >>> r.eval1, r.worst_cost, r.best_cost, r.real_cost, r.form
    (1.0, 1.0, 1.0, 1.0, 'same instances')
    """
    if candidate is not None and (y_true is not None or scores is not None):
        raise ValidationError("give the candidate once: as (y_true, vectors), or as y_true= "
                              "and scores=, not both")
    if candidate is None:
        if scores is None:
            raise ValidationError("a score slot prices a candidate from its probability "
                                  "vectors: give scores= (and y_true= for rows other than the "
                                  "runs')")
        if isinstance(scores, Mapping):
            raise ValidationError("scores= of evaluate is one candidate's vectors (an array or "
                                  "DataFrame); rank several with compare(runs, scores={name: "
                                  "vectors})")
        value = scores
    elif isinstance(candidate, tuple) and len(candidate) == 2:
        value = candidate
    else:
        raise InputTypeError(f"a score slot needs the candidate's probability vectors: "
                             f"(y_true, vectors), or scores= (with y_true=); got "
                             f"{type(candidate).__name__}")
    matrix = vector_costs(pricer, costs)
    cand = _read(pricer, value, y_true, "scores")
    inst = _instances(pricer, cand, same_instances, row_fingerprint)
    refuse_confidence(confidence, inst.same)
    b = price_vector_candidate(pricer, cand.by_class, matrix, inst.same, confidence)
    real = pricer.with_candidate(cand.given, "scores") if cand.on_runs else None
    high = {} if confidence is None else dict(
        confidence=b.confidence, high_confidence_worst_cost=b.high_confidence_worst_cost,
        high_confidence_best_cost=b.high_confidence_best_cost)
    return ScoreReport(
        eval1=b.expected_cost, worst_cost=b.worst_cost, best_cost=b.best_cost,
        expected=b.expected, worst=b.worst, best=b.best, form=b.form,
        instances=_form_text(inst), how=inst.how, slot=pricer.slot, rule=pricer.rule,
        class_sizes=tuple(int(v.shape[0]) for v in cand.by_class), costs=matrix,
        sheet_digest=_digest(pricer), warnings=(*_warnings_of(pricer), *_why_other(inst)),
        labels=tuple(pricer.labels), model=own_confusion(cand.by_class, tuple(pricer.labels)),
        real=real, real_cost=None if real is None else float(real.cost(matrix)), **high)


def _declared(names: list[Any], same_instances: bool | Collection[Any]) -> dict[Any, bool]:
    return dict(zip(names, declared_candidates(names, same_instances).tolist()))


def compare_vectors(pricer: Any, *, y_true: Any = None, scores: Mapping[Any, Any] | None = None,
                    costs: Any = None, confidence: float | None = None,
                    same_instances: bool | Collection[Any] = False,
                    row_fingerprint: str | None = None) -> pd.DataFrame:
    """Rank K-label score-slot candidates by expected system cost, ties by the worst case
    (:func:`~causalcost.compare` on K-label score runs or sheet).

    Parameters
    ----------
    pricer : ScoreRuns or score sheet of K labels
    y_true : array-like, optional
        The true classes of the rows the vectors were made on; leave it out for vectors on
        score runs' own rows. A candidate on rows of its own is given as
        ``scores={name: (its_y_true, its_vectors)}``.
    scores : mapping of name to (rows, K) array or DataFrame
        Each candidate's probability vectors.
    costs, confidence, same_instances, row_fingerprint
        As :func:`evaluate_vectors` (``same_instances`` may name some candidates).

    Returns
    -------
    pandas.DataFrame
        A :class:`~causalcost.evaluation.candidate_table.CandidateTable`, one row per candidate
        (index ``candidate``), best first: ``eval1``, ``expected_cost`` (the same number),
        ``worst_cost``, ``best_cost``, ``rank`` (equal (eval1, worst_cost) pairs share one),
        ``real_cost`` (score runs' rows: the real system with the vectors plugged in; NaN for
        candidates on other rows), ``n_{label}`` (the candidate's rows per class) and
        ``accuracy`` (the candidate alone, the argmax of its vectors). ``attrs``: ``slot``,
        ``rule``, ``labels``, ``form``, ``instances``, ``sheet_sha256``, ``warnings``.
    """
    if not isinstance(scores, Mapping) or not scores:
        raise ValidationError("scores must be a non-empty mapping name -> the candidate's "
                              "probability vectors (rows, K)")
    from causalcost.evaluation.candidates import _refuse_twins

    names = list(scores)
    _refuse_twins([str(n) for n in names])
    matrix = vector_costs(pricer, costs)
    labels = tuple(pricer.labels)
    flags = _declared(names, same_instances)
    rows, reasons, forms = {}, {}, []
    for name in names:
        what = f"scores[{name!r}]"
        cand = _read(pricer, scores[name], y_true, what)
        inst = _instances(pricer, cand, flags[name], row_fingerprint)
        reasons.setdefault(inst.same, inst)
        forms.append(inst.same)
        refuse_confidence(confidence, inst.same)
        b = price_vector_candidate(pricer, cand.by_class, matrix, inst.same, confidence)
        real = pricer.with_candidate(cand.given, what).cost(matrix) if cand.on_runs \
            else float("nan")
        rows[name] = {"eval1": b.expected_cost, "worst_cost": b.worst_cost,
                      "best_cost": b.best_cost, "real_cost": float(real),
                      **{f"n_{label}": int(v.shape[0]) for label, v in zip(labels, cand.by_class)},
                      "accuracy": accuracy_of(own_confusion(cand.by_class, labels)),
                      **({} if confidence is None else {
                          "high_confidence_worst_cost": b.high_confidence_worst_cost,
                          "high_confidence_best_cost": b.high_confidence_best_cost})}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    if frame["real_cost"].isna().all():
        frame = frame.drop(columns="real_cost")
    frame.index = pd.Index(names, name="candidate", dtype=object)
    frame = ranked(frame)
    same = np.array(forms, dtype=bool)
    texts = [f"{_form_text(reasons[s])} ({int((same == s).sum())} candidate(s))"
             for s in (True, False) if s in reasons]
    form = FORMS[0] if same.all() else FORMS[1] if not same.any() else "mixed"
    warnings = _warnings_of(pricer)
    if False in reasons:
        warnings += list(_why_other(reasons[False]))
    disagreement = ranking_disagreement(frame)
    for text in disagreement:
        _warnings.warn(text, CausalCostWarning, stacklevel=3)
    warnings += list(disagreement)
    frame = CandidateTable(frame)
    frame.attrs.update(slot=pricer.slot, rule=pricer.rule, labels=list(labels), form=form,
                       instances="; ".join(texts), sheet_sha256=_digest(pricer),
                       warnings=warnings)
    return frame
