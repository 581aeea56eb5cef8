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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.data.frames import require_columns
from causalcost.data.labels import label_rule, votes_from_values
from causalcost.data.runs import ForcedRuns
from causalcost.display import format_cells, html_block, html_table, wrapped
from causalcost.errors import DataError, InputTypeError, SheetError, ValidationError
from causalcost.evaluation.ranking import kinds_of
from causalcost.evaluation.report import evaluate
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.from_data import sheet_from_data

__all__ = ["Backtest", "backtest", "RULES", "inside"]

#: Selection rules the summary scores: rule -> (column it minimises, source).
RULES: dict[str, tuple[str, str]] = {
    "expected": ("expected_cost", "runs"),
    "worst": ("worst_cost", "runs"),
    "accuracy": ("accuracy", "runs"),
    "sheet_expected": ("sheet_expected_cost", "sheet"),
    "sheet_worst": ("sheet_worst_cost", "sheet"),
    "sheet_high_confidence_worst": ("sheet_hc_worst_cost", "sheet"),
}
#: Relative tolerance of the inside/outside flags (costs summed in different orders).
REL_TOL = 1e-12


def inside(value: float, low: float, high: float) -> bool:
    """Whether ``low <= value <= high`` up to a relative tolerance of 1e-12 (``high`` may be
    ``inf``: an upper bound only when ``low`` is ``-inf``).

    >>> inside(1.0, 1.0 + 1e-15, 2.0), inside(2.1, 1.0, 2.0)
    (True, False)
    """
    finite = [abs(v) for v in (value, low, high) if math.isfinite(v)]
    tol = REL_TOL * max([1.0, *finite])
    return low - tol <= value <= high + tol


@dataclass(frozen=True)
class Backtest:
    """Candidates' predicted system costs beside the real system cost with each plugged in.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per candidate (index ``candidate``, in the order given): ``real_cost`` (the
        real system's cost with the candidate in the slot) and ``real_rank`` (1 = lowest),
        ``accuracy`` (the candidate alone), ``expected_cost``, ``best_cost``, ``worst_cost``
        (the sheet of these runs: exact worst and best on these rows) and ``inside``
        (``best_cost <= real_cost <= worst_cost``); with a sheet also ``sheet_expected_cost``,
        ``sheet_best_cost``, ``sheet_worst_cost``, ``sheet_inside``, ``sheet_hc_worst_cost``
        and ``sheet_hc_holds`` (``real_cost <= sheet_hc_worst_cost``).
    summary : pandas.DataFrame
        One row per selection rule (index ``rule``): ``source`` (``"runs"`` or ``"sheet"``),
        ``kendall_tau`` and ``p_value`` (the rule's ordering against the real costs; NaN with
        fewer than two candidates or when either side is constant), ``pick`` (the candidate
        the rule chooses; ties go to the first given), ``pick_real_cost`` and ``regret``
        (``pick_real_cost / min(real_cost) - 1``; 0 when both are 0, ``inf`` when only the
        best is 0).
    real : dict of str to Confusion
        The real system's confusion with each candidate in the slot.
    models : dict of str to Confusion
        Each candidate's own confusion on the rows.
    slot : str
    costs : CostMatrix
    confidence : float
        Level of the sheet's high-confidence worst case.
    sheet_digest : str or None
        The digest of the sheet given (``None`` without one).
    warnings : tuple of str
        What the sheets' reports said (declared assumptions, other instances).
    """

    frame: pd.DataFrame
    summary: pd.DataFrame
    real: Mapping[str, Confusion]
    models: Mapping[str, Confusion]
    slot: str
    costs: CostMatrix
    confidence: float
    sheet_digest: str | None = None
    warnings: tuple[str, ...] = field(default=())

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``slot``, ``costs``, ``confidence``, ``sheet_sha256``, ``warnings``,
        ``candidates`` (one record per row of :attr:`frame`, with the ``real`` and ``model``
        confusions) and ``summary`` (one record per rule; NaN written as null)."""
        def plain(value: Any) -> Any:
            value = value.item() if hasattr(value, "item") else value
            return None if isinstance(value, float) and not math.isfinite(value) else value

        candidates = []
        for name, row in self.frame.iterrows():
            record = {"name": name, **{k: plain(v) for k, v in row.items()}}
            record["real"] = _cells(self.real[name])
            record["model"] = _cells(self.models[name])
            candidates.append(record)
        summary = [{"rule": rule, **{k: plain(v) for k, v in row.items()}}
                   for rule, row in self.summary.iterrows()]
        costs = self.costs.to_dict() if hasattr(self.costs, "to_dict") else \
            np.asarray(self.costs, dtype=float).tolist()
        return {"slot": self.slot, "costs": costs, "confidence": self.confidence,
                "sheet_sha256": self.sheet_digest, "warnings": list(self.warnings),
                "candidates": candidates, "summary": summary}

    def _lines(self) -> list[str]:
        best = self.frame["real_cost"].idxmin()
        outside = [str(n) for n in self.frame.index[~self.frame["inside"]]]
        lines = [f"Backtest of {len(self.frame)} candidate(s) for slot {self.slot!r} "
                 f"(costs {_cost_text(self.costs)})",
                 f"  lowest real system cost: {best!r} ({_fmt(self.frame.loc[best, 'real_cost'])})",
                 "  real cost between the exact best and worst case on these rows: "
                 + ("every candidate" if not outside else f"not for {', '.join(outside)}")]
        if "sheet_inside" in self.frame:
            f = self.frame
            lines.append(f"  sheet {self.sheet_digest}: real cost inside its worst/best case for "
                         f"{int(f['sheet_inside'].sum())} of {len(f)}, below its "
                         f"{self.confidence:.0%} high-confidence worst case for "
                         f"{int(f['sheet_hc_holds'].sum())} of {len(f)}")
        return lines

    def __repr__(self) -> str:
        shown = self.frame.to_string(float_format=lambda v: f"{v:.6g}", line_width=99)
        rules = self.summary.to_string(float_format=lambda v: f"{v:.4g}", line_width=99)
        return "\n".join(wrapped([*self._lines(), shown, "Selection rules against the real costs:",
                                  rules, *(f"warning: {w}" for w in self.warnings)]))

    def _repr_html_(self) -> str:
        return html_block("Backtest", [line.strip() for line in self._lines()],
                          html_table(self.frame, caption="Candidates: predicted and real "
                                                         "system cost"),
                          html_table(self.summary, caption="Selection rules against the real "
                                                           "costs"),
                          notes=[f"warning: {w}" for w in self.warnings])


def _cells(confusion: Any) -> Any:
    """A confusion as JSON: the binary cells by name, a K x K array as nested lists."""
    if hasattr(confusion, "to_dict"):
        return {k: int(v) for k, v in confusion.to_dict().items()}
    return np.asarray(confusion).astype(int).tolist()


def _cost_text(costs: Any) -> str:
    if isinstance(costs, CostMatrix):
        return format_cells(costs)
    return ";".join(",".join(_fmt(float(v)) for v in row) for row in np.asarray(costs))


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


def _regret(pick: float, best: float) -> float:
    if best == 0:
        return 0.0 if pick == 0 else math.inf
    return pick / best - 1.0


def _summary(frame: pd.DataFrame) -> pd.DataFrame:
    from scipy.stats import kendalltau

    real = frame["real_cost"].to_numpy(dtype=float)
    best = float(real.min())
    rows = {}
    for rule, (column, source) in RULES.items():
        if column not in frame:
            continue
        score = frame[column].to_numpy(dtype=float)
        score = -score if rule == "accuracy" else score  # lower is better for every rule
        tau, p = math.nan, math.nan
        if len(score) >= 2 and np.ptp(score) > 0 and np.ptp(real) > 0:
            result = kendalltau(score, real)
            tau, p = float(result.statistic), float(result.pvalue)
        i = int(np.argmin(score))  # the first of tied minima
        rows[rule] = {"source": source, "kendall_tau": tau, "p_value": p,
                      "pick": frame.index[i], "pick_real_cost": float(real[i]),
                      "regret": _regret(float(real[i]), best)}
    summary = pd.DataFrame.from_dict(rows, orient="index")
    summary.index.name = "rule"
    return summary


def backtest(runs: ForcedRuns, candidates: Mapping[str, Any], sheet: CostSheet | None = None,
             costs: CostMatrix | None = None, *, confidence: float = 0.95,
             positive: Any = None) -> Backtest:
    """Put candidates' predicted system costs beside the real system cost with each plugged in.

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
        No candidates, no costs, or costs that differ from the sheet's.

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
    if _k_label_runs(runs):  # K labels: the same table from the K x K route
        return _backtest_labels(runs, candidates, sheet, costs, confidence, positive)
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


# ------------------------------------------------------------------------------ K labels
def _k_label_runs(runs: object) -> bool:
    """Runs of K labels (the one place that tells the two runs types apart)."""
    return isinstance(runs, ForcedRuns) and runs.labels is not None


def _label_costs(runs: Any, sheet: Any, costs: Any) -> np.ndarray:
    from causalcost.cost_matrix import as_costs
    from causalcost.evaluation.label_report import is_label_sheet

    labels = [str(v) for v in runs.labels]
    if sheet is not None:
        if not is_label_sheet(sheet):
            raise InputTypeError(f"runs of K labels need a sheet of K labels, got "
                                 f"{type(sheet).__name__}")
        if sheet.slot != runs.slot:
            raise SheetError(f"the sheet prices slot {sheet.slot!r} but the runs force slot "
                             f"{runs.slot!r}: give the sheet of slot {runs.slot!r}")
        if list(sheet.labels) != labels:
            raise SheetError(f"the sheet's labels {list(sheet.labels)} are not the runs' "
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


def _backtest_labels(runs: Any, candidates: Mapping[str, Any], sheet: Any, costs: Any,
                     confidence: float, positive: Any) -> Backtest:
    from causalcost.evaluation.label_candidates import unique_names
    from causalcost.evaluation.label_report import compare_labels
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
        own = compare_labels(own_sheet, models, same_instances=True)
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
            other = compare_labels(sheet, models, confidence=confidence,
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
    return Backtest(frame=frame, summary=_summary(frame), real=real, models=models,
                    slot=runs.slot, costs=matrix, confidence=confidence,  # type: ignore[arg-type]
                    sheet_digest=None if sheet is None else sheet.digest,
                    warnings=tuple(warnings))
