"""The backtest of K-label runs: the same :class:`~causalcost.evaluation.backtest_result.Backtest`
table from the K x K route (``forced_runs(..., labels=[...])``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causalcost.data.runs import ForcedRuns
from causalcost.errors import SheetError, ValidationError
from causalcost.evaluation.backtest_result import Backtest, inside, summary_of

__all__ = ["backtest_labels", "k_label_runs"]


def k_label_runs(runs: object) -> bool:
    """Runs of K labels (the one place that tells the two runs types apart)."""
    return isinstance(runs, ForcedRuns) and runs.labels is not None


def _label_costs(runs: Any, sheet: Any, costs: Any) -> np.ndarray:
    from causalcost.cost_matrix import as_costs

    labels = [str(v) for v in runs.labels]
    if sheet is not None:
        if sheet.slot != runs.slot:
            raise SheetError(f"the sheet prices slot {sheet.slot!r} but the runs force slot "
                             f"{runs.slot!r}: give the sheet of slot {runs.slot!r}")
        if list(sheet.label_names) != labels:
            raise SheetError(f"the sheet's labels {list(sheet.label_names)} are not the runs' "
                             f"{labels} (in this order)")
    if costs is None:
        if sheet is None:
            raise ValidationError("backtest needs costs= (a K x K matrix, rows the true class) "
                                  "or a sheet=, whose costs are used")
        return sheet.costs_array
    matrix = np.asarray(as_costs(costs, labels).to_numpy(), dtype=float)  # matched by name
    if sheet is not None and not np.array_equal(matrix, sheet.costs_array):
        raise ValidationError("costs= differ from the sheet's: the real cost and the sheet's "
                              "predictions would be priced differently; leave costs= out or "
                              "pass the sheet's")
    return matrix


def _row_aligned(runs: Any, predictions: Any, name: str) -> Any:
    """A pandas Series in the order of the log's rows (paired by index, never by position)."""
    if not isinstance(predictions, pd.Series):
        return predictions
    import narwhals as nw

    from causalcost.data.predictions import align_series

    native = nw.to_native(runs._counter.frame) if runs._counter is not None else None  # noqa: SLF001
    index = native.index if isinstance(native, pd.DataFrame) else None
    return align_series(predictions, index, f"candidate {name!r}'s predictions",
                        against="the log").to_numpy()


def backtest_labels(runs: Any, candidates: Mapping[str, Any], sheet: Any, costs: Any,
                     confidence: float, positive: Any) -> Backtest:
    from causalcost.evaluation.candidate_reading import unique_names
    from causalcost.evaluation.comparison import compare
    from causalcost.sheet.derivation import derive_labelled_sheet

    if positive is not None:
        raise ValidationError("positive= names the positive class of two labels; runs of K "
                              "labels match the candidates' labels by name")
    if not isinstance(candidates, Mapping) or not candidates:
        raise ValidationError("candidates must be a non-empty mapping name -> predictions (an "
                              "array aligned with the runs' rows, or a column name)")
    names = unique_names(list(candidates))
    matrix = _label_costs(runs, sheet, costs)
    own_sheet = derive_labelled_sheet(runs, matrix, created=None,
                                 provenance={"description": "the backtest's rows"})
    real, models, real_cost = {}, {}, {}
    for name, predictions in zip(names, candidates.values()):
        given = _row_aligned(runs, predictions, name)
        system = runs.with_candidate(given)
        real_cost[name] = system.cost(matrix)
        real[name] = system.to_numpy()
        models[name] = runs.candidate_confusion(given).to_numpy()
    import warnings as _w

    with _w.catch_warnings():  # the ranking's warning is about choosing, not this table
        _w.simplefilter("ignore")
        own = compare(own_sheet, models, same_instances=True)
    frame = pd.DataFrame(index=pd.Index(names, name="candidate", dtype=object))
    frame["real_cost"] = [real_cost[n] for n in names]
    frame["accuracy"] = [float(np.trace(models[n]) / models[n].sum()) for n in names]
    for column in ("expected_cost", "best_cost", "worst_cost"):
        frame[column] = own.loc[names, column].to_numpy(dtype=float)
    frame["inside"] = [inside(r, b, w) for r, b, w in
                       zip(frame["real_cost"], frame["best_cost"], frame["worst_cost"])]
    warnings: list[str] = []
    if sheet is not None:
        same_rows = bool(sheet.forced is not None and np.array_equal(sheet.forced, runs.forced)
                         and sheet.kinds is not None and sheet.kinds == own_sheet.kinds)
        with _w.catch_warnings():
            _w.simplefilter("ignore")
            other = compare(sheet, models, confidence=confidence,
                                   same_instances=same_rows)
        other = other.loc[names]
        frame["sheet_expected_cost"] = other["expected_cost"].to_numpy(dtype=float)
        frame["sheet_best_cost"] = other["best_cost"].to_numpy(dtype=float)
        frame["sheet_worst_cost"] = other["worst_cost"].to_numpy(dtype=float)
        frame["sheet_inside"] = [inside(r, b, w) for r, b, w in zip(
            frame["real_cost"], frame["sheet_best_cost"], frame["sheet_worst_cost"])]
        frame["sheet_hc_worst_cost"] = other["high_confidence_worst_cost"].to_numpy(dtype=float)
        frame["sheet_hc_holds"] = [inside(r, -math.inf, h) for r, h in zip(
            frame["real_cost"], frame["sheet_hc_worst_cost"])]
        warnings += [f"sheet: {w}" for w in other.attrs.get("warnings", [])]
    frame.insert(1, "real_rank", frame["real_cost"].rank(method="min").astype(int))
    return Backtest(frame=frame, summary=summary_of(frame), real=real, models=models,
                    slot=runs.slot, costs=matrix, confidence=confidence,  # type: ignore[arg-type]
                    sheet_digest=None if sheet is None else sheet.digest,
                    warnings=tuple(warnings))
