"""Critical scores of a score log on any data frame engine.

A log of a score-fusing system holds one row per instance: the true class and every model's
score (the slot's among them). :func:`causalcost.forced_runs` with a score fusioner
(``"mean"``, ``"max"``, ``"min"``, ``"logistic"``, or a function with ``scores=True``) reads
it here, from the engine holding it (pandas, polars eager or lazy, pyarrow, DuckDB, Dask,
PySpark, a mapping of columns, a ``.csv`` / ``.parquet`` path), into a
:class:`~causalcost.data.score_runs.ScoreRuns`:

* a closed-form rule is written once (:class:`~causalcost.network.score_rules.ScoreRule`)
  and evaluated as narwhals column expressions, so the engine does the arithmetic: per row,
  for max and min the other models' max or min; for a weighted sum its parts, the sum of the
  terms before the slot (with the slot last, the other models' sum) and the scores after the
  slot as they are (weighted in numpy, where they are read: the same product, and a column
  the engine holds is handed over without a copy). Only those columns, the truth and the
  slot's observed score come back (a column can cost more to hand over than to compute: none
  more is asked for, and the other models' sum is added from the parts in numpy, in the
  engine's order). The one rule of scores (:mod:`causalcost.score_values`) runs in the engine
  too: a row with a score that is null, NaN, infinite or outside the score range comes back
  with a NaN observed score, and is then refused naming its first bad cell, as on numpy;
* the exactness step then runs on them in numpy, the same step as for numpy arrays
  (:func:`~causalcost.data.critical_scores.exact_rows`): each critical score is the float at
  which the rule, computed from these parts with the rule's own operations, switches to P.
  A weighted sum is added left to right in the models' order on every engine and in numpy,
  so the decision is the same float computation everywhere;
* a rule given as a function needs every score: the score columns are collected and its
  critical scores found by bisection on numpy
  (:func:`~causalcost.data.score_runs.runs_from_scores`).

Rows: a pandas frame keeps its index (a candidate's Series is aligned on it); other engines
give positions, in the order the engine returns the rows of a projection (the source order for
polars, pyarrow, DuckDB relations and Dask).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import pandas as pd

from causalcost.data.critical_scores import exact_rows, summed_parts
from causalcost.data.frames import Frame, as_frame, collect, engine_error, require_columns
from causalcost.data.score_runs import ScoreRuns, _readonly, runs_from_scores, truth_votes
from causalcost.errors import InputTypeError, ScoreValueError, ValidationError
from causalcost.network.score_rules import Ops, row_label, score_rule
from causalcost.score_values import (
    ROUNDING,
    as_score_range,
    check_scores,
    numeric_scores,
    parse_text_scores,
    range_text,
)

__all__ = ["ENGINE_OPS", "score_log_runs"]

#: The rule's closed forms as narwhals column expressions (run by the engine).
ENGINE_OPS = Ops(where=lambda c, a, b: nw.when(c).then(a).otherwise(b),
                 maximum=lambda cols: nw.max_horizontal(*cols),
                 minimum=lambda cols: nw.min_horizontal(*cols),
                 constant=lambda v: nw.lit(v, nw.Float64()))


def score_log_runs(data: Any, *, truth: str, models: Sequence[str], slot: str,
                   fusioner: str | Callable[[np.ndarray], Any] = "mean",
                   threshold: float = 0.5,
                   weights: Mapping[str, float] | Sequence[float] | None = None,
                   bias: float = 0.0, positive: Any = None,
                   score_range: tuple[float, float] = (0.0, 1.0), grid: int = 65
                   ) -> ScoreRuns:
    """A score slot's critical scores on a log held by any engine (see the module).

    Parameters are those of :func:`causalcost.forced_runs` with a score fusioner; ``weights``
    is a mapping by model name or a sequence in the order of ``models``.

    Examples
    --------
    >>> import polars as pl
    >>> log = pl.LazyFrame({"y": [1, 0, 1], "a": [0.9, 0.2, 0.4], "b": [0.3, 0.4, 0.8]})
    >>> runs = score_log_runs(log, truth="y", models=["a", "b"], slot="b",
    ...                       weights={"a": 1, "b": 3})
    >>> runs.critical.round(12).tolist(), runs.observed
    ([0.366666666667, 0.6, 0.533333333333], Confusion(tp=1, fn=1, fp=0, tn=1))
    >>> runs.provenance["engine"], runs.provenance["lazy"]
    ('polars', True)
    """
    names = _model_names(models, truth, slot)
    frame, source = as_frame(data)
    dtypes = require_columns(frame, [truth, *names])
    pos = names.index(slot)
    rule = score_rule(fusioner, threshold=threshold, weights=_weights(weights, names),
                      bias=bias, n_models=len(names), slot=pos, score_range=score_range,
                      grid=grid)
    index = _index_of(frame)
    rng = as_score_range(score_range)
    columns = [_score_column(frame, m, dtypes[m], "file" in source, index) for m in names]
    # the one rule of scores (causalcost.score_values), run by the engine: a row is bad where
    # a score is null, NaN, infinite or outside the range (refused after collecting)
    missing = nw.any_horizontal(*(_bad(c, rng) for c in columns),
                                ignore_nulls=False).alias("__missing")
    provenance = {**source, "truth": truth, "models": list(names), "slot": slot,
                  "positive": positive if positive is None or isinstance(
                      positive, (str, bool, int)) else repr(positive),
                  "rule": rule.describe()}
    what = f"computing the critical scores of the score columns {list(names)}"
    if not rule.closed_form:  # a function of every score: bisection on numpy
        got = _collect(frame.select(nw.col(truth).alias("__truth"), missing,
                                   *(c.alias(f"__s{i}") for i, c in enumerate(columns))), what)
        _refuse_bad(frame, _flags(got), columns, names, index, rng)
        s = np.column_stack([got[f"__s{i}"].astype(float)
                             for i in range(len(names))])
        return runs_from_scores(s, tuple(names), got["__truth"], truth,
                                slot=slot, index=index, positive=positive,
                                provenance={**provenance, "rows": s.shape[0]},
                                fusioner=fusioner, threshold=threshold,
                                weights=_weights(weights, names), bias=bias,
                                score_range=score_range, grid=grid)
    linear = rule.kind in ("mean", "logistic")  # a missing score makes the sum NaN
    # a weighted sum comes back in parts (the sum before the slot, each term after it), so
    # the rule is evaluated near each critical score with its own operations, as on numpy
    before, after = rule.split(columns, pos, ENGINE_OPS) if linear else (None, [])
    last = linear and before is not None and not after  # the sum before the slot is the rest
    summed = linear and bool(after)  # the rest is then added from the parts, in numpy
    # a bad row (a score null, NaN, infinite or out of range) comes back with a NaN observed
    # score: no column more to hand over (DuckDB's cost grows with the columns)
    observed_or_nan = nw.when(missing).then(nw.lit(math.nan, nw.Float64())).otherwise(
        columns[pos])
    parts = frame.select(  # the scores after the slot as they are: weighted in numpy
        nw.col(truth).alias("__truth"), observed_or_nan.alias("__observed"),
        *([] if summed else [rule.rest(columns, pos, ENGINE_OPS).alias("__rest")]),
        *([] if before is None or last else [before.alias("__before")]),
        *(c.alias(f"__after{i}") for i, c in enumerate(columns[pos + 1:] if linear else [])))
    got = _collect(parts, what)
    observed = np.asarray(got["__observed"], dtype=float)
    _refuse_bad(frame, np.isnan(observed), columns, names, index, rng)
    before_v = None if before is None or last else np.asarray(got["__before"], dtype=float)
    after_v = [np.asarray(got[f"__after{i}"], dtype=float) for i in range(len(after))]
    rest_v = (summed_parts(before_v, after_v, (rule.weights or ())[pos + 1:]) if summed else
              np.asarray(got["__rest"], dtype=float))
    y, shown = truth_votes(got["__truth"], truth, positive, observed.size)
    t, moved = exact_rows(rule, pos, observed, rest_v, rest_v if last else before_v, after_v,
                          weighted=False)
    # a pandas column may be the caller's own memory: copied (other engines' are not shared)
    return ScoreRuns(slot=slot, models=tuple(names), rule=rule.describe(),
                     truth=_readonly(y, copy=False), critical=_readonly(t, copy=False),
                     observed_scores=_readonly(observed, copy=index is not None),
                     index=index, adjusted=moved, positive=shown,
                     score_range=as_score_range(score_range),
                     provenance={**provenance, "rows": int(t.size)})


def _collect(frame: Frame, what: str) -> dict[str, np.ndarray]:
    """Run the query and return its columns as numpy arrays (nulls: NaN in float columns,
    None elsewhere). Results have one row per log row, so the engines hand over whole
    columns: a polars query runs on the in-memory engine (columns in one piece, read without
    a copy) and a DuckDB relation is fetched straight into numpy (no pandas frame to build).
    Other engines go through :func:`~causalcost.data.frames.collect`."""
    try:
        if isinstance(frame, nw.LazyFrame) and frame.implementation.is_duckdb():
            fetched = frame.to_native().fetchnumpy()
            return {name: _unmasked(a) for name, a in fetched.items()}
        if isinstance(frame, nw.LazyFrame) and frame.implementation is nw.Implementation.POLARS:
            got = frame.collect(engine="in-memory")
            return {name: got.get_column(name).to_numpy() for name in got.columns}
    except Exception as exc:  # the engine's own error types: a data error
        raise engine_error(frame, exc, what) from exc
    got = collect(frame, what)
    return {name: got.get_column(name).to_numpy() for name in got.columns}


def _unmasked(a: np.ndarray) -> np.ndarray:
    """A column DuckDB returns as a masked array (it has nulls): NaN or None there."""
    if not isinstance(a, np.ma.MaskedArray):
        return np.asarray(a)
    if a.dtype.kind == "f":
        return a.filled(np.nan)
    return np.where(np.ma.getmaskarray(a), None, a.data.astype(object))


def _model_names(models: Any, truth: str, slot: Any) -> list[str]:
    if models is None or isinstance(models, str):
        raise ValidationError("models must list the score columns, the slot among them, e.g. "
                              "models=['a', 'b', 'c']")
    names = [str(m) for m in models]
    if len(set(names)) != len(names):
        raise ValidationError(f"models {names} name a column twice")
    if not isinstance(slot, str) or slot not in names:
        raise ValidationError(f"slot {slot!r} must be one of the models {names}")
    if truth in names:
        raise ValidationError(f"truth column {truth!r} cannot also be a model")
    return names


def _weights(weights: Any, names: Sequence[str]) -> list[float] | None:
    """Weights in the order of ``names``: a mapping by model name, or a sequence as given."""
    if weights is None or not isinstance(weights, Mapping):
        if isinstance(weights, str):
            raise InputTypeError("weights must be numbers, one per model (a list in the order "
                                 "of models, or a mapping model -> weight)")
        return None if weights is None else list(weights)
    unknown = [k for k in weights if k not in names]
    absent = [m for m in names if m not in weights]
    if unknown or absent:
        raise ValidationError(
            f"weights: a mapping must give one weight per model {list(names)}"
            + (f"; {unknown} are not models" if unknown else "")
            + (f"; no weight for {absent}" if absent else ""))
    return [weights[m] for m in names]


def _index_of(frame: Frame) -> Any:
    """A pandas frame's index (rows are named by it); other engines' rows are positions."""
    native = frame.to_native()
    return native.index if isinstance(native, pd.DataFrame) else None


def _score_column(frame: Frame, name: str, dtype: Any, text_ok: bool, index: Any) -> nw.Expr:
    """A score column as float64: numbers and booleans (0/1); text only from a CSV file
    (``text_ok``), whose cells must each parse as a number (then the engine casts them).
    Any other column is refused by the one reader of scores, naming its first cell that is
    not a number."""
    numeric = dtype.is_numeric() or dtype == nw.Boolean
    what = f"score column {name!r}"
    if not numeric:
        values = collect(frame.select(nw.col(name)), f"reading {what}").get_column(
            name).to_numpy()
        if text_ok and dtype == nw.String:  # a text file's cells: each must parse
            parse_text_scores(values, what, index)
            return nw.col(name).cast(nw.Float64())
        # names the first text cell, or the first missing one (a column of nulls alone)
        check_scores(numeric_scores(values, what, index), what, score_range=(-math.inf,
                                                                             math.inf),
                     labels=index)
        raise ScoreValueError(f"{what} holds {dtype} values, not numbers: give each model's "
                              "score of the positive class as a number (a probability or a "
                              "margin); votes are read by the vote fusioners (and, or, "
                              "majority, ...)")
    return nw.col(name).cast(nw.Float64())


def _bad(column: nw.Expr, score_range: tuple[float, float]) -> nw.Expr:
    """Per row: the score is null, NaN, infinite or outside ``score_range`` (up to
    :data:`~causalcost.score_values.ROUNDING` at its ends), as in
    :func:`~causalcost.score_values.check_scores`. With finite ends two comparisons say it
    all: NaN fails one of them on every engine (IEEE comparisons are false; polars, DuckDB
    and Spark order NaN above every number), an infinity fails one, and a null makes them
    null (read as bad)."""
    low, high = score_range
    tests = [] if math.isfinite(low) and math.isfinite(high) else [column.is_finite()]
    if math.isfinite(low):
        tests.append(column >= low - ROUNDING * max(1.0, abs(low)))
    if math.isfinite(high):
        tests.append(column <= high + ROUNDING * max(1.0, abs(high)))
    inside = tests[0]
    for test in tests[1:]:
        inside = inside & test
    return ~inside.fill_null(False)


def _flags(got: Any) -> np.ndarray:
    """The collected ``__missing`` column as booleans."""
    flags = got["__missing"]
    return np.asarray([bool(v) for v in flags]) if flags.dtype == object else \
        np.asarray(flags, dtype=bool)


def _refuse_bad(frame: Frame, bad: np.ndarray, columns: Sequence[nw.Expr],
               names: Sequence[str], index: Any, score_range: tuple[float, float]) -> None:
    """Bad scores are refused by the one reader of scores, on the score columns collected
    (only when a row is bad): the same message, naming the same first cell, as on numpy."""
    if not bad.any():
        return
    got = collect(frame.select(*(c.alias(f"__s{i}") for i, c in enumerate(columns))),
                  "reading the bad scores")
    s = np.column_stack([np.asarray(got.get_column(f"__s{i}").to_numpy(), dtype=float)
                         for i in range(len(names))])
    check_scores(s, "scores", score_range=score_range, labels=index, columns=names)
    row = int(np.flatnonzero(bad)[0])  # pragma: no cover - the engine and numpy agree
    raise ScoreValueError(f"the scores of row {row_label(index, row)!r} are not numbers in "
                          f"the score range {range_text(score_range)}; drop or fix that row")
