"""Ranking several candidates against one sheet, for any number of labels: :func:`compare`
(from confusions, or straight from predictions and scores), with the high-confidence columns,
the coverage said in words, and a warning when a ranking by the worst case would disagree with
the expected cost.

For two labels the binary closed forms are the fast path (the vectorised ranking of
:mod:`causalcost.evaluation.ranking`); for K labels the general route
(:mod:`causalcost.evaluation.general`, priced by :mod:`causalcost.evaluation.pricing_many`),
which tests check equals the fast path at K = 2. One candidate's report is
:func:`causalcost.evaluate`.
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion
from causalcost.errors import (
    CausalCostError,
    CausalCostWarning,
    DataError,
    ValidationError,
)
from causalcost.evaluation.binary_path import uncertainty as _uncertainty
from causalcost.evaluation.candidate_table import CandidateTable
from causalcost.evaluation.candidates import (
    candidates_frame,
    confusions_from_predictions,
    score_rule,
)
from causalcost.evaluation.evaluating import evaluate, sheet_warnings
from causalcost.evaluation.metrics import metrics_frame
from causalcost.evaluation.ranking import (
    coverage_text,
    declared_rows,
    kinds_of,
    rank_candidates,
    ranking_disagreement,
)
from causalcost.evaluation.report_value import METRIC_COLUMNS
from causalcost.pricing.bounds import Bound
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.instances import Instances, decide_instances

__all__ = ["compare"]


def _add_intervals(frame: pd.DataFrame, cells: pd.DataFrame, sheet: CostSheet,
                   confidence: float, same: pd.Series) -> None:
    """Eval1 and worst-case intervals per candidate, the high-confidence worst and best cases,
    and the significance against the next."""
    check = sheet.monotonicity_check
    low, high, worst, hc_worst, hc_best = [], [], [], [], []
    for name in frame.index:
        model = Confusion(*cells.loc[name, ["tp", "fn", "fp", "tn"]].tolist())
        exact = None
        if same[name]:
            exact = Bound(worst=model, best=model, worst_cost=frame.loc[name, "worst_cost"],
                          best_cost=frame.loc[name, "best_cost"], expected=model,
                          expected_cost=frame.loc[name, "eval1"], assumption=sheet.assumption,
                          form="counts", worst_witness=None, best_witness=None,  # type: ignore[arg-type]
                          costs=sheet.costs, model=model)
        try:
            intervals, up, down = _uncertainty(sheet, model, confidence, check, exact)
        except CausalCostError as exc:
            raise type(exc)(f"candidate {name!r}: {exc}") from None
        f = intervals.frame
        low.append(f.loc["eval1", "ci_low"])
        high.append(f.loc["eval1", "ci_high"])
        worst.append(f.loc["worst_cost", "ci_high"])
        hc_worst.append(up.worst_cost)
        hc_best.append(down.best_cost)
    frame["eval1_ci_low"], frame["eval1_ci_high"], frame["worst_ci_high"] = low, high, worst
    frame["high_confidence_worst_cost"] = np.array(hc_worst, dtype=float)
    frame["high_confidence_best_cost"] = np.array(hc_best, dtype=float)
    nxt = np.append(np.array(low[1:], dtype=float), np.inf)
    frame["better_than_next"] = np.array(high, dtype=float) < nxt
    frame.loc[frame.index[-1], "better_than_next"] = False
    frame.attrs["confidence"] = confidence


def _all_candidates(sheet: CostSheet, candidates: Any, y_true: Any,
                    predictions: Mapping[str, Any] | None, scores: Mapping[str, Any] | None,
                    threshold: float | None, positive: Any) -> tuple[Any, str | None]:
    """The candidates given as confusions, predictions and scores, as one frame, and the rule
    that cut the scores (None without scores)."""
    if predictions is None and scores is None:
        if y_true is not None:
            raise ValidationError("y_true is given without predictions= or scores=")
        if candidates is None:
            raise ValidationError("no candidates to compare: give candidates (confusions), or "
                                  "y_true with predictions= or scores=")
        if threshold is not None:
            raise ValidationError("threshold= cuts scores=: give scores, or leave it out")
        return candidates, None
    if y_true is None:
        raise ValidationError("predictions= and scores= need y_true (the true classes of the "
                              "same rows)")
    if positive is None and sheet.provenance:
        positive = sheet.provenance.get("positive")
    if scores is None and threshold is not None:
        raise ValidationError("threshold= cuts scores=: give scores, or leave it out")
    rule = score_rule(scores, threshold) if scores is not None else (None, None)
    made = _confusions(sheet, y_true, predictions, scores, rule[0], positive)
    return candidates_frame(*([candidates] if candidates is not None else []), made), rule[1]



def _confusions(sheet: CostSheet, y_true: Any, predictions: Any, scores: Any,
                threshold: float | None, positive: Any) -> dict[str, Confusion]:
    """Each candidate's confusion, read the way the sheet names its labels: by the positive
    label when one is given or recorded; by name for labels other than P, N; and for the
    labels P, N as bool / 0-1 values, or else as the names "P" and "N"."""
    own = list(sheet.label_names)
    named = positive is None and own != ["P", "N"]
    try:
        return confusions_from_predictions(y_true, predictions=predictions, scores=scores,
                                           threshold=threshold, positive=positive,
                                           labels=own if named else None)
    except DataError as first:
        if named or positive is not None or scores is not None:
            raise
        try:
            return confusions_from_predictions(y_true, predictions=predictions, labels=own)
        except DataError:
            raise first from None


def _check_level(confidence: Any) -> None:
    """A confidence level is a number in (0, 1), or None."""
    if confidence is None:
        return
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.number)) \
            or not 0 < float(confidence) < 1:
        raise ValidationError(f"confidence must be None or a number in (0, 1), e.g. 0.95; got "
                              f"{confidence!r}")


def compare(sheet: CostSheet | Any,
            candidates: Mapping[str, Confusion | Mapping[str, float]] | pd.DataFrame
            | None = None,
            *, y_true: Any = None, predictions: Mapping[str, Any] | None = None,
            scores: Mapping[str, Any] | None = None, threshold: float | None = None,
            positive: Any = None, confidence: float | None = None,
            same_instances: bool | Collection[str] = False,
            row_fingerprint: str | None = None, costs: Any = None) -> pd.DataFrame:
    """Evaluate several candidates and rank them by expected system cost (Eval1), ties broken
    by the worst-case cost.

    All candidates are evaluated in one vectorised pass (:mod:`causalcost.evaluation.ranking`):
    fifty thousand take a fraction of a second, with the numbers :func:`evaluate` gives.

    **How to choose.** Rank by expected cost (the default order): it is what the system pays on
    average with the candidate in the slot. Guard with the high-confidence worst case (with
    ``confidence``): a candidate whose worst case is too high for the system owner is out,
    whatever its rank. Do not rank by the plain worst case: a near-constant candidate (one
    that nearly always says the same class) has narrow bounds, so its worst case can be low
    while its expected cost is high; a warning says so when the two rankings disagree.

    Parameters
    ----------
    sheet : CostSheet
    candidates : mapping of name to Confusion, or DataFrame, optional
        E.g. the output of :func:`~causalcost.evaluation.candidates.read_candidates_csv`, or a frame
        with columns ``tp, fn, fp, tn`` indexed by name
        (:func:`~causalcost.evaluation.candidates.read_candidates_frame`, the fast route for files).
    y_true : array-like, optional
        The true classes of the rows the ``predictions`` and ``scores`` were made on.
    predictions : mapping of name to array-like, optional
        Candidates as predicted labels on ``y_true``'s rows
        (:func:`~causalcost.evaluation.candidates.confusions_from_predictions`).
    scores : mapping of name to array-like, optional
        Candidates as scores for the positive class: positive where ``score >= threshold``
        for a vote sheet. For a :class:`~causalcost.ScoreSheet` the scores are priced as
        scores (no cut; :func:`~causalcost.evaluation.score_judge.compare_scores`: one row per
        candidate with ``eval1``, ``worst_cost``, ``best_cost`` and with ``confidence`` the
        high-confidence columns; ``predictions=``, ``candidates`` and ``threshold=`` are
        refused there). For a slot of K > 2 labels (score runs of K labels, e.g. from
        :func:`~causalcost.ensemble_runs`, or a score sheet of K labels) each candidate is
        its probability vectors, shape ``(rows, K)`` or a DataFrame whose columns are the
        labels (:func:`~causalcost.evaluation.score_vector_judge.compare_vectors`): on the
        runs' own rows (no ``y_true``) the worst and best case are exact and ``real_cost``
        is the real system's cost with the vectors plugged in.
    threshold : float, optional
        The cut for ``scores``: positive where ``score >= threshold``. Without it, scores that
        are probabilities (all in [0, 1]) are cut at the documented default 0.5, and
        ``attrs["scores_rule"]`` (printed under the table) says so; other scores are refused
        (:func:`~causalcost.evaluation.candidates.score_rule`).
    positive : label, optional
        The positive label of ``y_true`` and ``predictions``; by default the one the sheet
        records (a sheet from data), else bool or 0/1 labels (1 positive) are needed.
    confidence : float, optional
        Add intervals and the high-confidence worst and best cases (columns below).
    same_instances : bool or collection of names, default False
        Declare that all candidates (``True``) or the named ones were counted on the very rows
        of the sheet's forced runs: their worst and best cases are exact (count form). By
        default every candidate is taken as counted on other instances (probability form);
        equal class sizes are never taken as proof.
    row_fingerprint : str, optional
        :func:`~causalcost.row_fingerprint` of the rows the candidates were counted on,
        matched against the sheet's (:func:`evaluate`).
    costs : CostMatrix or (K, K) array, optional
        Score runs of K labels only (they carry no costs): the system's costs, rows the true
        class; by default every mistake costs 1 (as :meth:`ScoreRuns.price`).

    Returns
    -------
    pandas.DataFrame
        One row per candidate (index ``candidate``), best first (by ``eval1``, the expected
        cost, then ``worst_cost``); columns ``eval1``, ``eval2``, ``perfect_slot_cost``,
        ``expected_cost`` (equal to ``eval1``: kept, it is a documented column),
        ``worst_cost``, ``best_cost`` and ``rank``
        (1 is best; equal (eval1, worst_cost) pairs share a rank), then the candidate's own
        ``accuracy``, ``precision``, ``recall`` and ``f1`` (NaN where undefined), so one sees
        where accuracy and system cost disagree. With ``confidence``: ``eval1_ci_low``,
        ``eval1_ci_high``, ``worst_ci_high`` (:func:`~causalcost.cost_intervals`, exact box),
        ``high_confidence_worst_cost`` and ``high_confidence_best_cost`` (the real system cost
        on the candidate's instances stays below the first and above the second, each with
        probability at least ``confidence``; both at once with at least ``2 confidence - 1``;
        on the sheet's own instances the exact cases) and ``better_than_next``: the
        candidate's Eval1 interval lies wholly below the next
        ranked candidate's (a conservative test: non-overlapping intervals), ``False`` for the
        last. ``attrs`` holds the
        ``assumption``, the ``form`` (``"counts"``, ``"probability"``, or ``"mixed"`` when
        only some candidates were counted on the sheet's own instances), ``instances`` (the
        form and why, in words), ``coverage`` (with ``confidence``, in words), ``confidence``,
        ``scores_rule`` (with ``scores``: the cut, and whether it was given or the default),
        the ``slot``, ``sheet_sha256`` (the sheet's digest) and ``warnings`` (the sheet's, and
        one for each kind of doubt about candidates: other instances, far from the prior, a
        ranking by the worst case that disagrees with the ranking by expected cost; that last
        one is also issued as a :class:`~causalcost.CausalCostWarning`). Printing the table
        shows ``eval1`` once (``expected_cost``, the same number, stays in the frame) and these
        notes under it.

    Raises
    ------
    ValidationError
        If there are no candidates; otherwise as :func:`evaluate` (the message names the
        candidate).

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.sheet.derivation import derive_sheet
    >>> sheet = derive_sheet(cc.ErrorRates(0.2, 1.0, 0.2, 0.0), cc.CostMatrix(fn=5, fp=1),
    ...                      slot="clinical_history", prior=1 / 3, monotonicity="declared",
    ...                      provenance={"source": "thesis §4, example 1"})
    >>> table = compare(sheet, {"coin": cc.Confusion(50, 50, 100, 100),
    ...                         "good": cc.Confusion(90, 10, 20, 180)})
    >>> table.index.tolist(), table["rank"].tolist()
    (['good', 'coin'], [1, 2])
    >>> table.loc["good", ["eval1", "worst_cost"]].tolist()
    [144.0, 170.0]

    From predictions, with the high-confidence worst and best cases:

    >>> y = [1] * 30 + [0] * 60
    >>> table = compare(sheet, y_true=y, confidence=0.9,
    ...                 predictions={"always_no": [0] * 90, "half": [1, 0] * 45})
    >>> table.index.tolist(), [c for c in table.columns if "high_confidence" in c]
    (['half', 'always_no'], ['high_confidence_worst_cost', 'high_confidence_best_cost'])
    >>> bool((table["high_confidence_worst_cost"] >= table["worst_cost"]).all())
    True
    """
    _check_level(confidence)
    from causalcost.evaluation.score_inputs import is_score_runs, is_score_slot

    if is_score_slot(sheet):  # a score slot: priced as scores
        from causalcost.evaluation.score_judge import compare_scores, refuse_vote_inputs

        refuse_vote_inputs(candidates, predictions, threshold)
        if is_score_runs(sheet) and sheet.k == 2:  # through the runs' own sheet
            from causalcost.evaluation.score_runs_judge import compare_on_runs

            return compare_on_runs(sheet, y_true=y_true, scores=scores, positive=positive,
                                   costs=costs, confidence=confidence,
                                   same_instances=same_instances,
                                   row_fingerprint=row_fingerprint)
        return compare_scores(sheet, y_true=y_true, scores=scores, positive=positive,
                              confidence=confidence, same_instances=same_instances,
                              row_fingerprint=row_fingerprint, costs=costs)
    if costs is not None:
        raise ValidationError("costs= prices score runs of K labels; a cost sheet prices with "
                              "its own costs")
    if not isinstance(sheet, CostSheet):
        raise TypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    from causalcost.evaluation.general import is_label_sheet

    if is_label_sheet(sheet):  # K labels, or two not named P, N: the general route
        from causalcost.evaluation.general import compare_general

        if scores is not None or threshold is not None or positive is not None:
            raise ValidationError("scores=, threshold= and positive= are for two labels (one "
                                  "cut on a score); give K labels' candidates as predictions=")
        return compare_general(sheet, candidates, y_true=y_true, predictions=predictions,
                               confidence=confidence, same_instances=same_instances,
                               row_fingerprint=row_fingerprint)
    candidates, rule = _all_candidates(sheet, candidates, y_true, predictions, scores,
                                       threshold, positive)
    own = sheet_warnings(sheet)
    frame, warnings, form = rank_candidates(sheet, candidates, evaluate, own,
                                            same_instances=same_instances,
                                            row_fingerprint=row_fingerprint,
                                            confidence=confidence)
    cells = candidates_frame(candidates)
    metrics = metrics_frame(cells.loc[frame.index])
    for column in METRIC_COLUMNS:  # the notes' metrics, beside the system costs
        frame[column] = metrics[column].to_numpy()
    _, same = declared_rows(sheet, cells.index.tolist(), same_instances, row_fingerprint)
    same_by_name = pd.Series(same, index=cells.index)
    extra: dict[str, Any] = {} if rule is None else {"scores_rule": rule}
    if confidence is not None:
        _add_intervals(frame, cells, sheet, confidence, same_by_name)
        extra["coverage"] = coverage_text(confidence, exact=bool(same.all()))
        if same.any() and not same.all():
            extra["coverage"] += (f"; for the {int(same.sum())} candidate(s) on the sheet's own "
                                  "instances the cases are exact and hold with certainty")
    counted = sheet.forced_p is not None and sheet.forced_n is not None
    how = decide_instances(sheet, *(sheet.class_counts or (0, 0)),
                           row_fingerprint=row_fingerprint) if row_fingerprint else None
    texts = []
    if same.any():
        reason = how if how is not None and how.same else Instances(
            True, "declared", decide_instances(
                sheet, *(sheet.class_counts or (0, 0)), same_instances=True).reason)
        texts.append(f"{reason.text('kinds' if kinds_of(sheet) is not None else 'counts')} "
                     f"({int(same.sum())} candidate(s))")
    if not same.all():
        reason = how if how is not None and not how.same else Instances(
            False, "not-declared" if counted else "no-forced-runs", "")
        text = (reason.text() if reason.reason else decide_instances(
            sheet, *(sheet.class_counts or (0, 0))).text())
        texts.append(f"{text} ({int((~same).sum())} candidate(s))")
    disagreement = ranking_disagreement(frame)
    for text in disagreement:  # the one warning that changes how to read the table
        _warnings.warn(text, CausalCostWarning, stacklevel=2)
    frame.attrs.update(assumption=sheet.assumption, form=form, slot=sheet.slot,
                       sheet_sha256=sheet.digest, instances="; ".join(texts), **extra,
                       warnings=[*own, *warnings, *disagreement])
    table = CandidateTable(frame)
    table.attrs.update(frame.attrs)
    return table
