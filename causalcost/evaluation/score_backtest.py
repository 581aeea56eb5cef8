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

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import InputTypeError, SheetError, ValidationError
from causalcost.evaluation.backtest_result import Backtest, inside, summary_of
from causalcost.evaluation.score_inputs import is_score_sheet, score_sheet_warnings

__all__ = ["backtest_scores", "same_critical"]


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


def backtest_scores(runs: Any, candidates: Mapping[str, Any], sheet: Any, costs: CostMatrix,
                    confidence: float = 0.95, threshold: float | None = None) -> Backtest:
    """:func:`~causalcost.backtest` for a score slot (``runs`` a ``ScoreRuns``).

    Columns as :class:`~causalcost.Backtest`: ``real_cost``, ``real_rank``, ``accuracy``
    (the candidate alone, its scores cut at ``threshold``: 0.5 for probabilities by default),
    ``expected_cost``, ``best_cost``, ``worst_cost``, ``inside`` (the sheet of these rows,
    exact over the pairing); with ``sheet`` the ``sheet_*`` columns (probability form unless
    the sheet holds exactly these rows' critical scores).
    """
    from causalcost.sheet.score_sheet import score_sheet_from_runs

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
