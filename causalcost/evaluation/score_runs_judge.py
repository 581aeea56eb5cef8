"""Judge score-slot candidates on two-label score runs: :func:`~causalcost.evaluate`,
:func:`~causalcost.compare` and :func:`~causalcost.system_scorer` given
:class:`~causalcost.data.score_runs.ScoreRuns` of labels P, N, so the same calls take score
runs of every K (K > 2: :mod:`causalcost.evaluation.score_vector_judge`).

The runs are priced through their own exact score sheet
(:func:`~causalcost.sheet.score_sheet.score_sheet_from_runs`, the costs given, every mistake
costing 1 by default): scores on the runs' own rows (in their row order, or a Series on their
index, without ``y_true``) are the same instances, so the worst and best case are exact, and
the real system's cost with the scores plugged in
(:meth:`~causalcost.data.score_runs.ScoreRuns.with_candidate`) stands beside them. Scores made
on other rows come with their own ``y_true`` and are priced in the probability form, as the
sheet prices them.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> from causalcost.data.score_runs import score_runs
>>> runs = score_runs(np.array([[0.9, 0.6], [0.3, 0.5], [0.2, 0.1], [0.6, 0.7]]),
...                   truth=[1, 1, 0, 0], slot=1)
>>> r = cc.evaluate(runs, scores=[0.8, 0.2, 0.1, 0.9], costs=cc.CostMatrix(fn=5, fp=1))
>>> r.eval1, r.worst_cost, r.best_cost, r.real_cost
(3.5, 6.0, 1.0, 6.0)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CostMatrix
from causalcost.errors import ValidationError
from causalcost.evaluation.score_report import ScoreReport

__all__ = ["runs_sheet", "evaluate_on_runs", "compare_on_runs"]

#: What the reports say about scores given on the runs' own rows.
OWN_ROWS = ("same instances (exact over the unknown pairing): the score runs' own rows (the "
            "scores given in their row order, without y_true)")


def runs_sheet(runs: Any, costs: Any = None) -> Any:
    """The exact score sheet of the runs' own rows, priced with ``costs`` (every mistake
    costing 1 by default, as :meth:`ScoreRuns.price`)."""
    from causalcost.sheet.score_sheet import score_sheet_from_runs

    return score_sheet_from_runs(runs, CostMatrix(fn=1, fp=1) if costs is None else costs,
                                 description="the score runs' own rows")


def _truth(runs: Any) -> Any:
    """The runs' truth (True is P) on their index: scores given as a Series align on it."""
    truth = np.asarray(runs.truth, dtype=bool)
    return truth if runs.index is None else pd.Series(truth, index=runs.index)


def _refuse_declarations(same_instances: Any, row_fingerprint: str | None) -> None:
    if (same_instances is not False and same_instances is not None
            and not (isinstance(same_instances, Collection) and not same_instances)) \
            or row_fingerprint is not None:
        raise ValidationError(
            "same_instances / row_fingerprint: score runs know their own rows; give the scores "
            "on them in the runs' row order (or as a Series on their index) without y_true, "
            "and leave same_instances out for scores made on other rows")


def evaluate_on_runs(runs: Any, candidate: Any = None, *, y_true: Any = None,
                     scores: Any = None, positive: Any = None, costs: Any = None,
                     confidence: float | None = None, same_instances: bool = False,
                     row_fingerprint: str | None = None) -> ScoreReport:
    """One candidate's :class:`ScoreReport` on two-label score runs: on their own rows with
    the real system's confusion and cost (``real``, ``real_cost``), else the probability
    form of the runs' sheet."""
    from causalcost.evaluation.score_judge import evaluate_scores

    sheet = runs_sheet(runs, costs)
    if candidate is not None or y_true is not None:  # scores made on other rows
        _refuse_declarations(same_instances, row_fingerprint)
        return dataclasses.replace(
            evaluate_scores(sheet, candidate, y_true=y_true, scores=scores, positive=positive,
                            confidence=confidence), sheet_digest="")
    if positive is not None:
        raise ValidationError("positive= names the positive label of a y_true; scores on the "
                              "runs' own rows are for the runs' positive class")
    if row_fingerprint is not None:
        raise ValidationError("row_fingerprint: scores on the runs' own rows need no proof; "
                              "give them without y_true")
    if isinstance(scores, Mapping):
        raise ValidationError("scores= of evaluate is one candidate's scores (an array); rank "
                              "several with compare(runs, scores={name: scores})")
    report = evaluate_scores(sheet, y_true=_truth(runs), scores=scores, confidence=confidence,
                             same_instances=True)
    real = runs.with_candidate(scores)
    return dataclasses.replace(report, instances=OWN_ROWS, how="runs", real=real,
                               real_cost=float(real.cost(sheet.costs)), sheet_digest="")


def compare_on_runs(runs: Any, *, y_true: Any = None, scores: Mapping[Any, Any] | None = None,
                    positive: Any = None, costs: Any = None, confidence: float | None = None,
                    same_instances: bool | Collection[Any] = False,
                    row_fingerprint: str | None = None) -> pd.DataFrame:
    """Rank candidates on two-label score runs: the table of
    :func:`~causalcost.evaluation.score_judge.compare_scores` on the runs' sheet, with
    ``real_cost`` (the real system with the scores plugged in) for candidates on the runs'
    own rows (NaN for those given as ``(y_true, scores)`` of rows of their own)."""
    from causalcost.evaluation.score_judge import compare_scores

    sheet = runs_sheet(runs, costs)
    if y_true is not None:  # every shared candidate on other rows
        _refuse_declarations(same_instances, row_fingerprint)
        frame = compare_scores(sheet, y_true=y_true, scores=scores, positive=positive,
                               confidence=confidence)
        frame.attrs["sheet_sha256"] = ""
        return frame
    if positive is not None or row_fingerprint is not None:
        raise ValidationError("positive= / row_fingerprint: scores on the runs' own rows are "
                              "for the runs' positive class and need no proof; give them "
                              "without y_true")
    if not isinstance(scores, Mapping) or not scores:
        raise ValidationError("scores must be a non-empty mapping name -> the candidate's "
                              "scores on the runs' rows")
    _refuse_declarations(same_instances, None)
    own = [n for n in scores if not isinstance(scores[n], tuple)]
    frame = compare_scores(sheet, y_true=_truth(runs), scores=scores, confidence=confidence,
                           same_instances=own)
    real = {n: float(runs.with_candidate(scores[n], f"scores[{n!r}]").cost(sheet.costs))
            for n in own}
    frame.insert(list(frame.columns).index("rank") + 1, "real_cost",
                 [real.get(n, float("nan")) for n in frame.index])
    others = len(scores) - len(own)
    texts = [f"{OWN_ROWS} ({len(own)} candidate(s))"] if own else []
    if others:
        texts.append(frame.attrs["instances"].split("; ")[-1])
    frame.attrs["instances"] = "; ".join(texts)
    frame.attrs["sheet_sha256"] = ""
    return frame
