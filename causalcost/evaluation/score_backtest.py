"""The backtest of score-slot candidates: :func:`~causalcost.backtest` on
:class:`~causalcost.data.score_runs.ScoreRuns` (a log read with a score fusioner, or
:func:`~causalcost.ensemble_runs`).

Each candidate's scores are plugged into the slot on the log's rows
(:meth:`~causalcost.data.score_runs.ScoreRuns.with_candidate`: the real system says P
where the score reaches the row's critical score), and beside the real cost stand the numbers
the score sheet of these very rows gives (exact worst and best case over the pairing, so the
real cost always lies between them), and with ``sheet=`` those of a score sheet counted on
other rows. The table is the one :class:`~causalcost.Backtest` the vote backtest returns, with
the same columns.

Runs of K > 2 labels take each candidate's probability vectors (``(rows, K)``, or a DataFrame
whose columns are the labels, on the log's index): the real system says the argmax of
``matrix @ p + offset`` row by row, the candidate alone is judged by the argmax of its vectors
(``accuracy``), and the exact worst and best case are those of the runs' own offsets
(:func:`~causalcost.pricing.score_vector_price.price_vectors`); the confusions and costs are
then K x K arrays (rows the true class), as the K-label vote backtest gives them.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> from causalcost.data.score_runs import score_runs
>>> rng = np.random.default_rng(3)
>>> y = rng.random(300) < 0.4
>>> log = np.clip(rng.normal(0.4, 0.2, (300, 3)) + 0.25 * y[:, None], 0, 1)
>>> runs = score_runs(log, truth=y, slot=1)
>>> result = cc.backtest(runs, {"sharp": np.where(y, 0.8, 0.2), "noisy": rng.random(300)},
...                      costs=cc.CostMatrix(fn=5, fp=1))
>>> bool(result.to_frame()["inside"].all())
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion
from causalcost.errors import InputTypeError, SheetError, ValidationError
from causalcost.evaluation.backtest_result import Backtest, inside, summary_of
from causalcost.evaluation.score_inputs import is_score_sheet, score_sheet_warnings

__all__ = ["backtest_scores", "backtest_vectors", "same_critical", "same_offsets"]


def same_critical(sheet: Any, runs: Any) -> bool:
    """Whether a score sheet holds exactly the runs' critical scores (an exact sheet of the
    same rows' distribution): only then are its same-instances cases exact on these rows."""
    if not sheet.exact or tuple(sheet.class_sizes) != tuple(runs.class_sizes):
        return False
    return all(np.array_equal(a, b) for a, b in zip(sheet.critical_by_class("worse"),
                                                     runs.critical_by_class))


def _cut(scores: Mapping[str, Any], threshold: float | None) -> float:
    """Where a candidate's scores are cut for its own accuracy (0.5 for probabilities)."""
    from causalcost.evaluation.candidates import score_rule

    return score_rule(scores, threshold)[0]


def _check(runs: Any, candidates: Any, sheet: Any) -> None:
    if not isinstance(candidates, Mapping) or not candidates:
        raise ValidationError("candidates must be a non-empty mapping name -> the candidate's "
                              "scores on the runs' rows (an array in the log's order, or a "
                              "Series on its index)")
    if sheet is not None:
        if not is_score_sheet(sheet):
            raise InputTypeError(f"sheet must be a ScoreSheet for score runs, got "
                                 f"{type(sheet).__name__}")
        if sheet.slot != runs.slot:
            raise SheetError(f"the sheet prices slot {sheet.slot!r} but the runs force slot "
                             f"{runs.slot!r}: give the sheet of slot {runs.slot!r}")


def backtest_scores(runs: Any, candidates: Mapping[str, Any], sheet: Any, costs: Any,
                    confidence: float = 0.95, threshold: float | None = None) -> Backtest:
    """:func:`~causalcost.backtest` for a score slot (``runs`` a ``ScoreRuns``).

    Columns as :class:`~causalcost.Backtest`: ``real_cost``, ``real_rank``, ``accuracy``
    (the candidate alone, its scores cut at ``threshold``: 0.5 for probabilities by default),
    ``expected_cost``, ``best_cost``, ``worst_cost``, ``inside`` (the sheet of these rows,
    exact over the pairing); with ``sheet`` the ``sheet_*`` columns (probability form unless
    the sheet holds exactly these rows' critical scores).
    """
    from causalcost.sheet.score_sheet import score_sheet_from_runs

    if runs.k != 2:
        return backtest_vectors(runs, candidates, sheet, costs, confidence, threshold)
    _check(runs, candidates, sheet)
    by_class = {name: runs.candidate_by_class(scores, f"candidates[{name!r}]")
                for name, scores in candidates.items()}
    cut = _cut({str(k): np.concatenate(v) for k, v in by_class.items()}, threshold)
    own_sheet = score_sheet_from_runs(runs, costs, description="the backtest's rows")
    same_rows = sheet is not None and same_critical(sheet, runs)
    rows, real, models = {}, {}, {}
    warnings = list(score_sheet_warnings(sheet)) if sheet is not None else []
    if sheet is not None and not same_rows:
        warnings.append("sheet: the worst and best cases are in the probability form (the "
                        "sheet's critical scores are not these rows'): they hold for the "
                        "score distributions, not for every pairing on these rows")
    for name, scores in candidates.items():
        per_class = by_class[name]
        system = runs.with_candidate(scores, f"candidates[{name!r}]")
        tp, fp = int((per_class[0] >= cut).sum()), int((per_class[1] >= cut).sum())
        model = Confusion(tp=tp, fn=per_class[0].size - tp, fp=fp, tn=per_class[1].size - fp)
        real[name], models[name] = system, model
        b = own_sheet.price(per_class, same_instances=True)
        row: dict[str, Any] = {"real_cost": system.cost(costs),
                               "accuracy": (model.tp + model.tn) / model.total,
                               "expected_cost": b.expected_cost, "best_cost": b.best_cost,
                               "worst_cost": b.worst_cost}
        row["inside"] = inside(row["real_cost"], row["best_cost"], row["worst_cost"])
        if sheet is not None:
            o = sheet.price(per_class, same_instances=same_rows, confidence=confidence)
            row.update(sheet_expected_cost=o.expected_cost, sheet_best_cost=o.best_cost,
                       sheet_worst_cost=o.worst_cost,
                       sheet_inside=inside(row["real_cost"], o.best_cost, o.worst_cost),
                       sheet_hc_worst_cost=o.high_confidence_worst_cost,
                       sheet_hc_holds=inside(row["real_cost"], -math.inf,
                                             float(o.high_confidence_worst_cost)))  # type: ignore[arg-type]
        rows[name] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.Index(list(rows), name="candidate", dtype=object)
    frame.insert(1, "real_rank", frame["real_cost"].rank(method="min").astype(int))
    for column in [c for c in frame if c in ("inside", "sheet_inside", "sheet_hc_holds")]:
        frame[column] = frame[column].astype(bool)
    return Backtest(frame=frame, summary=summary_of(frame), real=real, models=models,
                    slot=runs.slot, costs=costs, confidence=confidence,
                    sheet_digest=None if sheet is None else sheet.digest,
                    warnings=tuple(warnings))


def same_offsets(sheet: Any, runs: Any) -> bool:
    """Whether a K-label score sheet holds exactly the runs' offset vectors (per class, in the
    same order) and slot matrix: only then are its same-instances cases exact on these rows."""
    mine, theirs = runs.offsets_by_class, sheet.offsets_by_class
    return (len(mine) == len(theirs)
            and np.array_equal(np.asarray(sheet.slot_matrix), runs.slot_matrix)
            and all(np.array_equal(a, b) for a, b in zip(mine, theirs)))


def _check_vectors(runs: Any, candidates: Any, sheet: Any, costs: Any,
                   threshold: float | None) -> None:
    if threshold is not None:
        raise ValidationError("threshold= cuts a score for two labels; a candidate of "
                              f"K = {runs.k} labels is judged alone by the argmax of its "
                              "vectors: leave threshold out")
    if not isinstance(candidates, Mapping) or not candidates:
        raise ValidationError("candidates must be a non-empty mapping name -> the candidate's "
                              "probability vectors on the runs' rows ((rows, K) in the log's "
                              "order, or a DataFrame on its index)")
    if sheet is None:
        if costs is None:
            raise ValidationError(f"backtest needs costs= (a {runs.k} x {runs.k} matrix, rows "
                                  "the true class) or a sheet=, whose costs are used")
        return
    if getattr(sheet, "k", 2) != runs.k or not hasattr(sheet, "offsets_by_class"):
        raise InputTypeError(f"sheet must be a score sheet of the runs' {runs.k} labels, got "
                             f"{type(sheet).__name__} of {getattr(sheet, 'k', 2)} labels")
    if sheet.slot != runs.slot:
        raise SheetError(f"the sheet prices slot {sheet.slot!r} but the runs force slot "
                         f"{runs.slot!r}: give the sheet of slot {runs.slot!r}")
    if [str(v) for v in sheet.labels] != [str(v) for v in runs.labels]:
        raise SheetError(f"the sheet's labels {list(sheet.labels)} are not the runs' "
                         f"{list(runs.labels)} (in this order)")


def backtest_vectors(runs: Any, candidates: Mapping[str, Any], sheet: Any, costs: Any,
                     confidence: float = 0.95, threshold: float | None = None) -> Backtest:
    """:func:`~causalcost.backtest` for a score slot of K > 2 labels (``runs`` a K-label
    ``ScoreRuns``): the columns of :class:`~causalcost.Backtest` without the high-confidence
    ones (not priced for K labels); ``real`` and ``models`` hold K x K arrays.

    Examples
    --------
    >>> from causalcost.data.score_runs import ScoreRuns
    >>> runs = ScoreRuns(slot="m", models=("m",), rule="soft vote", critical=None,
    ...                  truth=np.array([0, 1, 2]), observed_scores=np.full((3, 3), 1 / 3),
    ...                  labels=("a", "b", "c"), offsets=np.zeros((3, 3)), matrix=np.eye(3))
    >>> result = backtest_vectors(runs, {"right": np.eye(3), "wrong": np.eye(3)[[1, 2, 0]]},
    ...                           None, np.ones((3, 3)) - np.eye(3))
    >>> result.to_frame()[["real_cost", "worst_cost", "inside"]].to_dict("index")
    {'right': {'real_cost': 0.0, 'worst_cost': 0.0, 'inside': True}, 'wrong': {'real_cost': 3.0, 'worst_cost': 3.0, 'inside': True}}
    """  # noqa: E501
    from causalcost.evaluation.candidate_reading import unique_names
    from causalcost.evaluation.score_vector_judge import (
        accuracy_of,
        own_confusion,
        price_vector_candidate,
        vector_costs,
    )

    _check_vectors(runs, candidates, sheet, costs, threshold)
    names = unique_names(list(candidates))
    matrix = vector_costs(runs if sheet is None else sheet, costs)
    labels = tuple(runs.labels)
    same_rows = sheet is not None and same_offsets(sheet, runs)
    warnings = list(score_sheet_warnings(sheet)) if sheet is not None else []
    if sheet is not None and not same_rows:
        warnings.append("sheet: the worst and best cases are in the probability form (the "
                        "sheet's offset vectors are not these rows'): they hold for the "
                        "distributions, not for every pairing on these rows")
    rows, real, models = {}, {}, {}
    for name, vectors in zip(names, candidates.values()):
        what = f"candidates[{name!r}]"
        by_class = runs.candidate_by_class(vectors, what)
        system = runs.with_candidate(vectors, what)
        model = own_confusion(by_class, labels)
        real[name], models[name] = system.to_numpy(), model.to_numpy()
        b = price_vector_candidate(runs, by_class, matrix, True)
        row: dict[str, Any] = {"real_cost": float(system.cost(matrix)),
                               "accuracy": accuracy_of(model),
                               "expected_cost": b.expected_cost, "best_cost": b.best_cost,
                               "worst_cost": b.worst_cost}
        row["inside"] = inside(row["real_cost"], row["best_cost"], row["worst_cost"])
        if sheet is not None:
            o = price_vector_candidate(sheet, by_class, matrix, same_rows)
            row.update(sheet_expected_cost=o.expected_cost, sheet_best_cost=o.best_cost,
                       sheet_worst_cost=o.worst_cost,
                       sheet_inside=inside(row["real_cost"], o.best_cost, o.worst_cost))
        rows[name] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.Index(names, name="candidate", dtype=object)
    frame.insert(1, "real_rank", frame["real_cost"].rank(method="min").astype(int))
    for column in [c for c in frame if c in ("inside", "sheet_inside")]:
        frame[column] = frame[column].astype(bool)
    return Backtest(frame=frame, summary=summary_of(frame), real=real, models=models,
                    slot=runs.slot, costs=matrix.to_numpy(), confidence=confidence,  # type: ignore[arg-type]
                    sheet_digest=None if sheet is None else sheet.digest,
                    warnings=tuple(warnings))
