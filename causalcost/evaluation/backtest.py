"""A reality check in one call: candidates' predicted system costs beside the real ones.

A system owner holds a log (the truth and every other model's predictions on some rows) and
the predictions of several candidates for one slot on the same rows. :func:`backtest` plugs
each candidate into the slot with :meth:`~causalcost.ForcedRuns.with_candidate` (the real
system cost, on the very rows the forced runs were counted on) and puts beside it

* the numbers a cost sheet derived from these runs gives (:func:`~causalcost.sheet_from_data`):
  the expected cost (cost function 1) and the worst and best cases, which on the same rows are
  exact (count form, from the instance kinds), so the real cost always lies between them;
* with ``sheet=`` (a sheet derived on *other* rows, the situation a model owner is in): that
  sheet's expected cost, worst and best case (probability form on the candidate's class
  sizes; the exact count form only when the sheet's forced runs and instance kinds are the
  runs' own, not merely when the class sizes agree) and the worst case that holds with
  probability ``confidence`` on the candidate's rows (:func:`~causalcost.high_confidence_bound`),
  each with a flag saying whether the real cost lies inside;
* a summary: for each selection rule (lowest expected cost, lowest worst case, lowest
  high-confidence worst case, highest accuracy), Kendall's tau between the rule's ordering and
  the real costs' (:func:`scipy.stats.kendalltau`, tau-b, ties allowed), and the rule's
  *regret*: the real cost of the candidate it picks over the lowest real cost, minus one.

Examples
--------
>>> import numpy as np, pandas as pd, causalcost as cc
>>> rng = np.random.default_rng(1)
>>> y = rng.random(400) < 0.4
>>> def model(acc): return np.where(rng.random(400) < acc, y, ~y)
>>> log = pd.DataFrame({"y": y, "a": model(0.8), "b": model(0.7), "c": model(0.75)})
>>> runs = cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="b",
...                       fusioner="majority")
>>> result = backtest(runs, {"weak": model(0.6), "strong": model(0.9)},
...                   costs=cc.CostMatrix(fn=5, fp=1))
>>> bool(result.to_frame()["inside"].all())
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.data.frames import require_columns
from causalcost.data.labels import label_rule, votes_from_values
from causalcost.data.runs import ForcedRuns
from causalcost.errors import DataError, InputTypeError, SheetError, ValidationError
from causalcost.evaluation.backtest_labels import backtest_labels, k_label_runs
from causalcost.evaluation.backtest_result import RULES, Backtest, inside
from causalcost.evaluation.backtest_result import summary_of as _summary
from causalcost.evaluation.ranking import kinds_of
from causalcost.evaluation.report import evaluate
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.from_data import sheet_from_data

__all__ = ["Backtest", "backtest", "RULES", "inside"]


def _own_confusion(runs: ForcedRuns, predictions: Any, positive: Any) -> Confusion:
    """The candidate's own confusion on the rows the runs were counted on."""
    counter = runs._counter  # noqa: SLF001 - kept by forced_runs for exactly this
    positive = counter.positive if positive is None else positive
    if isinstance(predictions, str):
        dtype = require_columns(counter.frame, [predictions])[predictions]
        counts = counter.count([label_rule(predictions, dtype, positive)])
        (tp, fn), (fp, tn) = counts.sum(axis=(1, 2)).tolist()
    else:
        y = counter.row_votes()[0]
        vote = votes_from_values(predictions, "predictions", positive)
        tp, fn = int((y & vote).sum()), int((y & ~vote).sum())
        fp, tn = int((~y & vote).sum()), int((~y & ~vote).sum())
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)


def _costs(sheet: CostSheet | None, costs: CostMatrix | None) -> CostMatrix:
    if costs is not None and not isinstance(costs, CostMatrix):
        raise InputTypeError(f"costs must be a CostMatrix, got {type(costs).__name__}")
    if sheet is None:
        if costs is None:
            raise ValidationError("backtest needs costs=CostMatrix(...) (or a sheet=, whose "
                                  "costs are used)")
        return costs
    if costs is not None and costs.cells() != sheet.costs.cells():
        raise ValidationError(f"costs={costs!r} differ from the sheet's {sheet.costs!r}: the "
                              "real cost and the sheet's predictions would be priced "
                              "differently; leave costs= out or pass the sheet's")
    return sheet.costs


def _check(runs: Any, candidates: Any, sheet: Any) -> None:
    if not isinstance(runs, ForcedRuns):
        raise InputTypeError(f"runs must be the ForcedRuns of the rows the candidates were run "
                             f"on (causalcost.forced_runs), got {type(runs).__name__}")
    if runs._counter is None:  # noqa: SLF001
        raise DataError("backtest needs runs counted by causalcost.forced_runs(...) on the "
                        "data, so that candidates can be plugged in; these were built from "
                        "counts alone")
    if not isinstance(candidates, Mapping) or not candidates:
        raise ValidationError("candidates must be a non-empty mapping name -> predictions (an "
                              "array aligned with the runs' rows, or a column name)")
    if sheet is not None:
        if not isinstance(sheet, CostSheet):
            raise InputTypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
        if sheet.slot != runs.slot:
            raise SheetError(f"the sheet prices slot {sheet.slot!r} but the runs force slot "
                             f"{runs.slot!r}: give the sheet of slot {runs.slot!r}")


def _same_counts(sheet: CostSheet, runs: ForcedRuns) -> bool:
    """Whether the sheet was counted on rows indistinguishable from the runs' (same forced
    runs and same instance kinds): only then is its count-form bound exact on these rows."""
    kinds = kinds_of(sheet)
    return (kinds is not None and sheet.forced_p == runs.forced_p
            and sheet.forced_n == runs.forced_n
            and kinds.to_numpy().tolist() == runs.kinds.to_numpy().tolist())



def backtest(runs: ForcedRuns, candidates: Mapping[str, Any], sheet: CostSheet | None = None,
             costs: CostMatrix | None = None, *, confidence: float = 0.95,
             positive: Any = None, threshold: float | None = None) -> Backtest:
    """Put candidates' predicted system costs beside the real system cost with each plugged in.

    Score runs (:class:`~causalcost.data.score_runs.ScoreRuns`, a log read with a score
    fusioner) take each candidate's **scores** on the log's rows and give the same table
    (:func:`~causalcost.evaluation.score_backtest.backtest_scores`): the real system cost with
    the scores plugged in, the exact worst and best case of the runs' own score sheet, and
    with a :class:`~causalcost.ScoreSheet` ``sheet=`` its numbers.

    Parameters
    ----------
    runs : ForcedRuns or runs of K labels
        The forced runs (:func:`~causalcost.forced_runs`) of the rows the candidates were run
        on: the log with the truth and the other models' predictions. Runs of K labels
        (``forced_runs(..., labels=[...])``) give the same table: ``costs`` is then a K x K
        matrix (or an object with ``.to_numpy()``), the sheet one of K labels, and the
        ``real`` and ``models`` confusions K x K arrays (rows the true class).
    candidates : mapping of str to predictions
        Name -> the candidate's predictions: an array aligned with the rows of the data the
        runs were counted on (eager frames), or the name of a column of that data (any
        engine).
    sheet : CostSheet, optional
        A sheet of the same slot, typically derived on *other* rows: adds its expected cost,
        worst and best case and high-confidence worst case, and its selection rules.
    costs : CostMatrix, optional
        The system's cost matrix; defaults to the sheet's (required without a sheet; refused
        when it differs from the sheet's).
    confidence : float, default 0.95
        Level of the sheet's high-confidence worst case.
    positive : optional
        The candidates' positive label (default: the runs').
    threshold : float, optional
        Score runs only: where each candidate's scores are cut for its own ``accuracy``
        (0.5 by default for probabilities; needed for other scores).

    Returns
    -------
    Backtest

    Raises
    ------
    DataError
        Runs built from counts alone, predictions of the wrong length or not binary labels.
    SheetError
        A sheet of another slot.
    ValidationError
        No candidates, two candidates whose names are the same text (``1`` and ``"1"``), no
        costs, or costs that differ from the sheet's.

    Examples
    --------
    Thesis §3.3 in data: AND of two models, the other model right on half of 100 positives
    (and on all of 100 negatives).

    >>> import pandas as pd, causalcost as cc
    >>> log = pd.DataFrame({"y": [1] * 100 + [0] * 100, "other": [1] * 50 + [0] * 150})
    >>> runs = cc.forced_runs(log, truth="y", models=["other", "slot"], slot="slot",
    ...                       fusioner="and")
    >>> result = backtest(runs, {"perfect": log["y"], "half": [1, 0] * 50 + [0] * 100},
    ...                   costs=cc.CostMatrix(fn=1, fp=1))
    >>> result.to_frame()[["real_cost", "best_cost", "worst_cost", "inside"]]
    ... # doctest: +NORMALIZE_WHITESPACE
               real_cost  best_cost  worst_cost  inside
    candidate
    perfect         50.0       50.0        50.0    True
    half            75.0       50.0       100.0    True
    >>> s = result.summary.loc["accuracy"]
    >>> s["pick"], float(s["regret"])
    ('perfect', 0.0)
    """
    from causalcost.data.score_runs import ScoreRuns
    from causalcost.evaluation.candidates import _refuse_twins

    if isinstance(candidates, Mapping):  # one row per name: 1 and "1" would be two rows "1"
        _refuse_twins([str(name) for name in candidates])
    if isinstance(runs, ScoreRuns):  # a score slot: the candidates' scores plugged in
        from causalcost.evaluation.score_backtest import backtest_scores

        if positive is not None:
            raise ValidationError("positive= names the label of predicted votes; score runs "
                                  "take each candidate's score for the runs' positive class")
        if runs.k != 2:  # K labels: probability vectors, K x K costs (checked there)
            return backtest_scores(runs, candidates, sheet, costs, confidence, threshold)
        return backtest_scores(runs, candidates, sheet, _costs(sheet, costs), confidence,
                               threshold)
    if threshold is not None:
        raise ValidationError("threshold= cuts a score candidate for its accuracy: it is for "
                              "score runs; leave it out for runs of votes")
    if k_label_runs(runs):  # K labels: the same table from the K x K route
        return backtest_labels(runs, candidates, sheet, costs, confidence, positive)
    _check(runs, candidates, sheet)
    matrix = _costs(sheet, costs)
    own_sheet = sheet_from_data(runs, matrix, description="the backtest's rows")
    sizes = (runs.forced_p.positives, runs.forced_p.negatives)
    rows, real, models, warnings = {}, {}, {}, []
    same_rows = sheet is not None and _same_counts(sheet, runs)
    for name, predictions in candidates.items():
        system = runs.with_candidate(predictions, positive=positive)
        model = _own_confusion(runs, predictions, positive)
        if (model.positives, model.negatives) != sizes:  # same rows: proven by the counts
            raise DataError(f"candidate {name!r} was counted on {model.total:g} rows, the runs "
                            f"on {runs.n}")
        real[name], models[name] = system, model
        report = evaluate(own_sheet, model, same_instances=True)  # the runs' own rows
        row: dict[str, Any] = {"real_cost": system.cost(matrix),
                               "accuracy": (model.tp + model.tn) / model.total,
                               "expected_cost": report.expected_cost,
                               "best_cost": report.best_cost, "worst_cost": report.worst_cost}
        row["inside"] = inside(row["real_cost"], row["best_cost"], row["worst_cost"])
        warnings += [w for w in report.warnings if w not in warnings]
        if sheet is not None:
            other = evaluate(sheet, model, confidence=confidence, same_instances=same_rows)
            assert other.high_confidence is not None
            predicted = other.expected_cost, other.best_cost, other.worst_cost
            row.update(sheet_expected_cost=predicted[0], sheet_best_cost=predicted[1],
                       sheet_worst_cost=predicted[2],
                       sheet_inside=inside(row["real_cost"], predicted[1], predicted[2]),
                       sheet_hc_worst_cost=other.high_confidence.worst_cost,
                       sheet_hc_holds=inside(row["real_cost"], -math.inf,
                                             other.high_confidence.worst_cost))
            warnings += [f"sheet: {w}" for w in other.warnings
                         if f"sheet: {w}" not in warnings]
        rows[name] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.Index(list(rows), name="candidate", dtype=object)
    frame.insert(1, "real_rank", frame["real_cost"].rank(method="min").astype(int))
    for column in [c for c in frame if c == "inside" or c.startswith("sheet_i")
                   or c == "sheet_hc_holds"]:
        frame[column] = frame[column].astype(bool)
    return Backtest(frame=frame, summary=_summary(frame), real=real, models=models,
                    slot=runs.slot, costs=matrix, confidence=confidence,
                    sheet_digest=None if sheet is None else sheet.digest,
                    warnings=tuple(warnings))

