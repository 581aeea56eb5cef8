"""Judge score-slot candidates with a :class:`~causalcost.ScoreSheet`: the score route of
:func:`~causalcost.evaluate` and :func:`~causalcost.compare` (both dispatch here on the sheet's
type).

A candidate is its **scores** for the positive class on rows whose true classes are
``y_true``. The sheet prices them (:meth:`~causalcost.ScoreSheet.price`, vectorised for many
candidates by :meth:`~causalcost.ScoreSheet.price_many`): the expected cost, the worst and best
case, and with a confidence level the high-confidence worst and best case. The worst and best
case are exact over the unknown pairing only for a candidate declared (``same_instances``) or
proven (``row_fingerprint``) scored on the sheet's own rows; otherwise the probability form,
and the report says which and why.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> from causalcost.data.score_runs import score_runs
>>> rng = np.random.default_rng(0)
>>> y = rng.random(200) < 0.4
>>> log = np.clip(rng.normal(0.4, 0.2, (200, 3)) + 0.3 * y[:, None], 0, 1)
>>> sheet = cc.sheet_from_data(score_runs(log, truth=y, slot=2), cc.CostMatrix(fn=5, fp=1))
>>> table = cc.compare(sheet, y_true=y, scores={"sharp": np.where(y, 0.9, 0.1),
...                                               "blunt": np.full(200, 0.5)})
>>> table.index.tolist(), table.attrs["form"]
(['sharp', 'blunt'], 'probability')
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import CausalCostWarning, InputTypeError, ValidationError
from causalcost.evaluation.candidate_table import CandidateTable
from causalcost.evaluation.ranking import ranking_disagreement
from causalcost.evaluation.score_inputs import (
    given_by_class,
    is_score_runs,
    score_instances,
    score_matrix,
    score_sheet_warnings,
    scores_by_class,
    vector_slot,
)
from causalcost.evaluation.score_ranking import SCORE_COLUMNS, declared_candidates, ranked
from causalcost.evaluation.score_report import ScoreReport
from causalcost.pricing.scores import FORMS
from causalcost.sheet.instances import Instances, other_instances_advice

__all__ = ["evaluate_scores", "compare_scores", "refuse_vote_inputs", "SCORE_COLUMNS"]


def refuse_vote_inputs(candidates: Any = None, predictions: Any = None,
                       threshold: Any = None) -> None:
    """A score sheet prices scores: refuse votes, confusions and a cut, saying what it needs."""
    if predictions is not None:
        raise ValidationError("predictions=: a score sheet prices a candidate from its scores, "
                              "not its predicted labels (two candidates with one confusion move "
                              "a score-fusing system differently); give scores={name: scores} "
                              "with y_true")
    if candidates is not None:
        raise ValidationError("candidates: a score sheet prices a candidate from its scores, "
                              "not a confusion; give scores={name: scores} with y_true")
    if threshold is not None:
        raise ValidationError("threshold=: a score sheet prices the scores themselves (the "
                              "system's fusion rule decides); leave threshold out (it cuts "
                              "scores into votes for a vote sheet)")


def _vector_route(pricer: Any, positive: Any, costs: Any) -> bool:
    """Whether ``pricer`` is a K-label score slot (priced from vectors); refuse two-label
    score runs (the verbs route them to :mod:`causalcost.evaluation.score_runs_judge`) and
    ``costs=`` for a score sheet (it prices with its own)."""
    if vector_slot(pricer):
        if positive is not None:
            raise ValidationError("positive= names the positive class of two labels; a slot of "
                                  f"K = {pricer.k} labels matches y_true's labels to its own "
                                  "by name")
        return True
    if is_score_runs(pricer):
        raise InputTypeError("score runs of two labels are judged by causalcost.evaluate / "
                             "causalcost.compare (through the runs' own sheet, "
                             "causalcost.evaluation.score_runs_judge), not by this sheet route")
    if costs is not None:
        raise ValidationError("costs=: a score sheet prices with its own costs; leave costs= "
                              "out (or re-price the sheet with sheet.with_costs(...))")
    return False


def coverage_of(confidence: float) -> str:
    """What the high-confidence columns of a score comparison promise, in words."""
    level = f"{confidence:.0%}".replace("%", " %")
    return (f"the worst case over the populations' score distributions is at most hc worst "
            f"and the best case at least hc best, both at once with probability at least "
            f"{level} (DKW bands on the candidate's and the sheet's scores)")


def _why_other(inst: Instances, confidence: float | None) -> tuple[str, ...]:
    if inst.same:
        return ()
    advice = other_instances_advice(None) if confidence is None else coverage_of(confidence)
    return (f"the worst and best cases are in the probability form ({inst.reason}): the "
            "extremes over every coupling of the candidate's and the sheet's score "
            f"distributions, scaled to the candidate's class sizes; {advice}",)


def _form_text(inst: Instances) -> str:
    word = "same instances (exact over the unknown pairing)" if inst.same else \
        "probability form"
    return f"{word}: {inst.reason}"


def _candidate(candidate: Any, y_true: Any, scores: Any, positive: Any,
               score_range: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """One candidate's scores per class from ``(y_true, scores)``, the keywords, or a mapping
    ``{"P": .., "N": ..}`` of scores per class."""
    if candidate is not None and (y_true is not None or scores is not None):
        raise ValidationError("give the candidate once: as (y_true, scores), or as y_true= "
                              "and scores=, not both")
    if candidate is None:
        if scores is None:
            raise ValidationError("a score sheet prices a candidate from its scores: give "
                                  "y_true= and scores= (or a tuple (y_true, scores))")
        if isinstance(scores, Mapping):
            raise ValidationError("scores= of evaluate is one candidate's scores (an array); "
                                  "rank several with compare(sheet, y_true=..., scores={name: "
                                  "scores})")
        return scores_by_class(y_true, scores, positive, score_range=score_range)
    if isinstance(candidate, tuple) and len(candidate) == 2:
        return scores_by_class(candidate[0], candidate[1], positive, score_range=score_range)
    if isinstance(candidate, Mapping) and {str(k) for k in candidate} == {"P", "N"}:
        return given_by_class(candidate, score_range)
    raise InputTypeError(f"a score sheet needs the candidate's scores: (y_true, scores), "
                         f"y_true= and scores=, or {{'P': scores, 'N': scores}}; got "
                         f"{type(candidate).__name__} (a confusion or predicted labels cannot "
                         "price a score slot)")


def evaluate_scores(sheet: Any, candidate: Any = None, *, y_true: Any = None,
                    scores: Any = None, positive: Any = None, confidence: float | None = None,
                    same_instances: bool = False, row_fingerprint: str | None = None,
                    costs: Any = None) -> ScoreReport:
    """One score-slot candidate's report (:func:`~causalcost.evaluate` on a score sheet).

    A slot of K > 2 labels (score runs or a sheet of K labels) takes the candidate's
    probability vectors instead
    (:func:`~causalcost.evaluation.score_vector_judge.evaluate_vectors`).

    Parameters
    ----------
    sheet : ScoreSheet
    candidate : tuple (y_true, scores) or mapping {"P": scores, "N": scores}, optional
        The candidate's scores for the positive class with the true classes of their rows, or
        already split by class. Or give ``y_true=`` and ``scores=``.
    y_true, scores : array-like, optional
        The true classes (bool, 0/1, or two labels with ``positive=``) and the candidate's
        score on each row (a pandas Series is aligned on ``y_true``'s index).
    positive : optional
        The positive label of ``y_true`` (needed for labels other than bool and 0/1).
    confidence : float, optional
        Add the high-confidence worst and best case.
    same_instances : bool, default False
        Declare the scores were made on the very rows the sheet's critical scores were
        counted on: the worst and best case are then exact over the unknown pairing.
    row_fingerprint : str, optional
        Prove it instead (:func:`~causalcost.row_fingerprint` of the rows, against the one the
        sheet records).

    Returns
    -------
    ScoreReport

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> runs = score_runs(np.array([[0.9, 0.6], [0.3, 0.5], [0.2, 0.1], [0.6, 0.7]]),
    ...                   truth=[1, 1, 0, 0], slot=1)
    >>> sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    >>> r = evaluate_scores(sheet, y_true=[1, 1, 0, 0], scores=[0.8, 0.2, 0.1, 0.9])
    >>> r.eval1, r.worst_cost, r.best_cost, r.form
    (3.5, 6.0, 1.0, 'probability')
    >>> print(r.instances)
    probability form: instances not declared the same
    """
    if _vector_route(sheet, positive, costs):
        from causalcost.evaluation.score_vector_judge import evaluate_vectors

        return evaluate_vectors(sheet, candidate, y_true=y_true, scores=scores, costs=costs,
                                confidence=confidence, same_instances=same_instances,
                                row_fingerprint=row_fingerprint)
    per_class = _candidate(candidate, y_true, scores, positive, sheet.score_range)
    sizes = (int(per_class[0].size), int(per_class[1].size))
    inst = score_instances(sheet, sizes, same_instances=same_instances,
                           row_fingerprint=row_fingerprint)
    b = sheet.price(per_class, same_instances=inst.same, confidence=confidence)
    warnings = (*score_sheet_warnings(sheet), *_why_other(inst, confidence))
    return ScoreReport(eval1=b.expected_cost, worst_cost=b.worst_cost, best_cost=b.best_cost,
                       expected=b.expected, worst=b.worst, best=b.best, form=b.form,
                       instances=_form_text(inst), how=inst.how, slot=sheet.slot,
                       rule=sheet.rule, class_sizes=sizes, costs=sheet.costs,
                       sheet_digest=sheet.digest, warnings=warnings, confidence=b.confidence,
                       high_confidence_worst_cost=b.high_confidence_worst_cost,
                       high_confidence_best_cost=b.high_confidence_best_cost,
                       high_confidence_worst=b.high_confidence_worst,
                       high_confidence_best=b.high_confidence_best)


def _split(y_true: Any, scores: Mapping[Any, Any], names: list[Any], positive: Any,
           score_range: tuple[float, float]
           ) -> list[tuple[list[Any], tuple[np.ndarray, np.ndarray]]]:
    """Blocks of candidates on one set of rows: the shared ``y_true`` in one block, each
    candidate given with its own rows ``(y_true, scores)`` in a block of its own."""
    own = [n for n in names if isinstance(scores[n], tuple)]
    shared = [n for n in names if not isinstance(scores[n], tuple)]
    blocks = []
    if shared:
        if y_true is None:
            raise ValidationError("y_true: the true classes of the rows the scores were made on "
                                  "(or give each candidate as (y_true, scores) of its own rows)")
        blocks.append((shared, score_matrix(y_true, scores, shared, positive, score_range)))
    for n in own:
        if len(scores[n]) != 2:
            raise ValidationError(f"scores[{n!r}]: a tuple is (y_true, scores) of the "
                                  "candidate's own rows")
        p, q = scores_by_class(scores[n][0], scores[n][1], positive, f"scores[{n!r}]",
                               score_range)
        blocks.append(([n], (p[None, :], q[None, :])))
    return blocks


def compare_scores(sheet: Any, *, y_true: Any = None, scores: Mapping[Any, Any] | None = None,
                   positive: Any = None, confidence: float | None = None,
                   same_instances: bool | Collection[Any] = False,
                   row_fingerprint: str | None = None, costs: Any = None) -> pd.DataFrame:
    """Rank score-slot candidates by expected system cost, ties by the worst case
    (:func:`~causalcost.compare` on a score sheet).

    A slot of K > 2 labels (score runs or a sheet of K labels) takes each candidate's
    probability vectors instead
    (:func:`~causalcost.evaluation.score_vector_judge.compare_vectors`).

    Every candidate on the shared ``y_true`` is priced in one vectorised pass
    (:meth:`~causalcost.ScoreSheet.price_many`). A candidate scored on rows of its own is
    given as ``scores={name: (its_y_true, its_scores)}``: rows of its own are other rows than
    the sheet's, so it is refused with ``same_instances``.

    Returns
    -------
    pandas.DataFrame
        One row per candidate (index ``candidate``), best first: ``eval1``, ``expected_cost``
        (the same number), ``worst_cost``, ``best_cost``, with ``confidence``
        ``high_confidence_worst_cost`` and ``high_confidence_best_cost``, ``rank`` (equal
        (eval1, worst_cost) pairs share one), ``n_p`` and ``n_n`` (the candidate's scores per
        class), ``accuracy`` (the candidate alone, its scores cut at 0.5; NaN unless every
        score is in [0, 1]) and the system's right answers per class in each case
        (``expected_tp``, ``expected_tn``, ``worst_tp``, ...; kept in the frame, not printed).
        A :class:`~causalcost.evaluation.candidate_table.CandidateTable`, printed narrow. ``attrs``: ``slot``, ``rule``, ``form``
        (``"same instances"``, ``"probability"`` or ``"mixed"``), ``instances`` (the form and
        why), ``sheet_sha256``, ``confidence``, ``warnings``.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> runs = score_runs(np.array([[0.9, 0.6], [0.3, 0.5], [0.2, 0.1], [0.6, 0.7]]),
    ...                   truth=[1, 1, 0, 0], slot=1)
    >>> sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    >>> t = compare_scores(sheet, y_true=[1, 1, 0, 0], same_instances=True,
    ...                    scores={"a": [0.8, 0.2, 0.1, 0.9], "b": [0.8, 0.8, 0.0, 0.0]})
    >>> t[["eval1", "worst_cost", "best_cost", "rank"]].to_dict("index")
    {'b': {'eval1': 0.0, 'worst_cost': 0.0, 'best_cost': 0.0, 'rank': 1}, 'a': {'eval1': 3.5, 'worst_cost': 6.0, 'best_cost': 1.0, 'rank': 2}}
    >>> print(t.attrs["instances"])
    same instances (exact over the unknown pairing): the same instances as the sheet's forced runs, declared (same_instances=True, --same-instances) (2 candidate(s))
    """  # noqa: E501
    if _vector_route(sheet, positive, costs):
        from causalcost.evaluation.score_vector_judge import compare_vectors

        return compare_vectors(sheet, y_true=y_true, scores=scores, costs=costs,
                               confidence=confidence, same_instances=same_instances,
                               row_fingerprint=row_fingerprint)
    if not isinstance(scores, Mapping) or not scores:
        raise ValidationError("scores must be a non-empty mapping name -> the candidate's "
                              "scores on y_true's rows")
    from causalcost.evaluation.candidates import _refuse_twins

    names = list(scores)
    _refuse_twins([str(n) for n in names])  # one row per name: 1 and "1" would be two "1"
    blocks = _split(y_true, scores, names, positive, sheet.score_range)
    own = {n for n in names if isinstance(scores[n], tuple)}
    same = declared_candidates(names, same_instances)
    proven = None
    if row_fingerprint is not None:  # names the rows of the shared y_true
        if y_true is None:
            raise ValidationError("row_fingerprint names the rows of y_true: give y_true= "
                                  "with the candidates' scores on those rows")
        s_p, s_n = blocks[0][1]
        proven = score_instances(sheet, (s_p.shape[1], s_n.shape[1]),
                                 same_instances=bool(same.any()),
                                 row_fingerprint=row_fingerprint)
        if proven.same:
            same = np.array([n not in own for n in names], dtype=bool)
    flag = dict(zip(names, same.tolist()))
    if any(flag[n] for n in own):
        raise ValidationError(
            f"candidates {sorted(str(n) for n in own if flag[n])!r} are given with rows of their "
            "own ((y_true, scores)) but declared on the sheet's rows: candidates on the sheet's "
            "rows share one y_true; leave same_instances out for them")
    parts, reasons = [], {}
    for block_names, (s_p, s_n) in blocks:
        sizes = (s_p.shape[1], s_n.shape[1])
        block_same = np.array([flag[n] for n in block_names], dtype=bool)
        for value in (True, False):
            rows = block_same == value
            if not rows.any():
                continue
            inst = proven if proven is not None and proven.same == value else \
                score_instances(sheet, sizes, same_instances=value)
            reasons.setdefault(value, inst)
            part = sheet.price_many((s_p[rows], s_n[rows]), same_instances=value,
                                    confidence=confidence,
                                    names=[n for n, r in zip(block_names, rows) if r])
            part.insert(3, "n_p", sizes[0])
            part.insert(4, "n_n", sizes[1])
            part["accuracy"] = _accuracy(s_p[rows], s_n[rows])
            parts.append(part)
    frame = pd.concat(parts).loc[names] if len(parts) > 1 else parts[0]
    frame.index = pd.Index(list(frame.index), name="candidate", dtype=object)
    frame = ranked(frame)
    texts = [f"{_form_text(reasons[s])} ({int((same == s).sum())} candidate(s))"
             for s in (True, False) if s in reasons]
    form = FORMS[0] if same.all() else FORMS[1] if not same.any() else "mixed"
    warnings = [*score_sheet_warnings(sheet)]
    if False in reasons:
        warnings += list(_why_other(reasons[False], confidence))
    disagreement = ranking_disagreement(frame)
    for text in disagreement:  # the one warning that changes how to read the table
        _warnings.warn(text, CausalCostWarning, stacklevel=3)
    warnings += list(disagreement)
    frame = CandidateTable(frame)
    frame.attrs.update(slot=sheet.slot, rule=sheet.rule, form=form, instances="; ".join(texts),
                       sheet_sha256=sheet.digest, warnings=warnings,
                       **({} if confidence is None else {
                           "confidence": confidence, "coverage": coverage_of(confidence)}))
    return frame


def _accuracy(s_p: np.ndarray, s_n: np.ndarray) -> np.ndarray:
    """The candidate alone: its accuracy with its scores cut at 0.5, for probabilities (every
    score in [0, 1]); NaN for other scores (no cut is guessed)."""
    n = s_p.shape[1] + s_n.shape[1]
    if not n or any(x.size and (x.min() < 0 or x.max() > 1) for x in (s_p, s_n)):
        return np.full(s_p.shape[0], np.nan)
    return ((s_p >= 0.5).sum(axis=1) + (s_n < 0.5).sum(axis=1)) / n
