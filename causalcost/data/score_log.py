"""Critical scores of a score log on any data frame engine.

A log of a score-fusing system holds one row per instance: the true class and every model's
score (the slot's among them). :func:`causalcost.forced_runs` with a score fusioner
(``"mean"``, ``"max"``, ``"min"``, ``"logistic"``, or a function with ``scores=True``) reads
it here, from the engine holding it (pandas, polars eager or lazy, pyarrow, DuckDB, Dask,
PySpark, a mapping of columns, a ``.csv`` / ``.parquet`` path), into a
:class:`~causalcost.data.score_runs.ScoreRuns`:

* a closed-form rule is written once (:class:`~causalcost.network.score_rules.ScoreRule`)
  and evaluated as narwhals column expressions, so the engine does the arithmetic: per row,
  for max and min the other models' max or min and a flag for missing scores; for a weighted
  sum its parts, the sum of the terms before the slot (with the slot last, the other models'
  sum) and the scores after the slot as they are (weighted in numpy, where they are read:
  the same product, and a column the engine holds is handed over without a copy). Only
  those columns, the truth and the slot's observed score come back (a column can cost more
  to hand over than to compute: none more is asked for, and the other models' sum, whose
  NaN flags a missing score, is added from the parts in numpy, in the engine's order);
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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import pandas as pd

from causalcost.data.critical_scores import exact_rows, summed_parts
from causalcost.data.frames import Frame, as_frame, collect, engine_error, require_columns
from causalcost.data.score_runs import ScoreRuns, _readonly, runs_from_scores, truth_votes
from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.network.score_rules import Ops, score_rule

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
    columns = [_score_column(m, dtypes[m], "file" in source) for m in names]
    missing = nw.any_horizontal(*(c.is_null() | c.is_nan() for c in columns),
                                ignore_nulls=False).alias("__missing")
    native = frame.to_native()
    index = native.index if isinstance(native, pd.DataFrame) else None
    provenance = {**source, "truth": truth, "models": list(names), "slot": slot,
                  "positive": positive if positive is None or isinstance(
                      positive, (str, bool, int)) else repr(positive),
                  "rule": rule.describe()}
    what = f"computing the critical scores of the score columns {list(names)}"
    if not rule.closed_form:  # a function of every score: bisection on numpy
        got = _collect(frame.select(nw.col(truth).alias("__truth"), missing,
                                   *(c.alias(f"__s{i}") for i, c in enumerate(columns))), what)
        _refuse_missing(frame, _flags(got), columns, names, index)
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
    parts = frame.select(  # the scores after the slot as they are: weighted in numpy
        nw.col(truth).alias("__truth"), *([] if linear else [missing]),
        columns[pos].alias("__observed"),
        *([] if summed else [rule.rest(columns, pos, ENGINE_OPS).alias("__rest")]),
        *([] if before is None or last else [before.alias("__before")]),
        *(c.alias(f"__after{i}") for i, c in enumerate(columns[pos + 1:] if linear else [])))
    got = _collect(parts, what)
    before_v = None if before is None or last else np.asarray(got["__before"], dtype=float)
    after_v = [np.asarray(got[f"__after{i}"], dtype=float) for i in range(len(after))]
    observed = np.asarray(got["__observed"], dtype=float)
    rest_v = (summed_parts(before_v, after_v, (rule.weights or ())[pos + 1:]) if summed else
              np.asarray(got["__rest"], dtype=float))
    _refuse_missing(frame, np.isnan(rest_v) | np.isnan(observed) if linear else
                    _flags(got), columns, names, index)
    y, shown = truth_votes(got["__truth"], truth, positive, observed.size)
    t, moved = exact_rows(rule, pos, observed, rest_v, rest_v if last else before_v, after_v,
                          weighted=False)
    # a pandas column may be the caller's own memory: copied (other engines' are not shared)
    return ScoreRuns(slot=slot, models=tuple(names), rule=rule.describe(),
                     truth=_readonly(y, copy=False), critical=_readonly(t, copy=False),
                     observed_scores=_readonly(observed, copy=index is not None),
                     index=index, adjusted=moved, positive=shown, score_range=rule.score_range,
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


def _score_column(name: str, dtype: Any, text_ok: bool) -> nw.Expr:
    """A score column as float64: numbers and booleans (0/1); text only from a CSV file,
    whose columns are read as text and parsed here by the engine."""
    numeric = dtype.is_numeric() or dtype == nw.Boolean
    if not numeric and not (text_ok and dtype == nw.String):
        raise DataError(f"score column {name!r} holds {dtype} values, not numbers: give each "
                        "model's score of the positive class as a number (a probability or a "
                        "margin); votes are read by the vote fusioners (and, or, majority, ...)")
    return nw.col(name).cast(nw.Float64())


def _flags(got: Any) -> np.ndarray:
    """The collected ``__missing`` column as booleans."""
    flags = got["__missing"]
    return np.asarray([bool(v) for v in flags]) if flags.dtype == object else \
        np.asarray(flags, dtype=bool)


def _refuse_missing(frame: Frame, bad: np.ndarray, columns: Sequence[nw.Expr],
                    names: Sequence[str], index: Any) -> None:
    """A null or NaN score is refused, naming the first such column and its row count."""
    if not bad.any():
        return
    counts = collect(frame.select(*((c.is_null() | c.is_nan()).sum().alias(f"__n{i}")
                                    for i, c in enumerate(columns))), "counting missing scores")
    per_column = {m: int(counts.get_column(f"__n{i}").to_numpy()[0])
                  for i, m in enumerate(names)}
    column = next((m for m, n in per_column.items() if n), None)
    if column is None:
        raise DataError(f"the weighted sum of the scores {list(names)} is undefined (NaN) on "
                        f"{int(bad.sum())} row(s): infinite scores of both signs; give finite "
                        "scores")
    row = int(np.flatnonzero(bad)[0])
    label = row if index is None else index[row]
    label = label.item() if isinstance(label, np.generic) else label
    others = {m: n for m, n in per_column.items() if n and m != column}
    raise DataError(
        f"score column {column!r} is null or NaN on {per_column[column]} row(s) (the first "
        f"at row {label!r})" + (f", and {others}" if others else "")
        + "; drop or impute those rows: a missing score has no critical score")
