"""One reader of scores: every public entry that reads scores refuses the same cell with the
same error (:class:`causalcost.ScoreValueError`), whatever the entry and the engine.

Random logs get NaN, missing, infinite, text and out-of-range values in random cells; the
entries that read a log (``forced_runs`` on pandas, polars and DuckDB, ``score_runs`` on numpy)
must name the first bad cell in row order (then the models' order), and the entries that read
a candidate's scores (``evaluate``, ``compare``, ``backtest``, ``ScoreRuns.with_candidate``,
the scikit-learn scorer, ``price_scores``) the first bad row of the candidate.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.score_runs import score_runs
from causalcost.evaluation.score_scorer import score_system_cost
from causalcost.pricing.scores import price_scores
from causalcost.score_values import check_scores, read_scores

MODELS = ["a", "b", "c"]
#: The bad values a cell may get, and whether a numeric engine frame can hold them.
BAD = [math.nan, None, math.inf, -math.inf, 1.5, -0.25, 1 + 1e-6, "0.4", "high"]
NUMERIC_BAD = [v for v in BAD if not isinstance(v, str)]


def _is_bad(v: Any) -> bool:
    return v is None or isinstance(v, str) or not (math.isfinite(v) and 0 <= v <= 1)


def _first_bad(rows: list[list[Any]]) -> tuple[int, int] | None:
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            if _is_bad(v):
                return i, j
    return None


@st.composite
def logs(draw: Any, numeric: bool = False) -> tuple[pd.DataFrame, list[Any]]:
    """A log (truth y, scores a, b, c) with a few bad cells, and a candidate's scores with a
    few bad cells; rows labelled 100, 101, ... (so a position is never taken for a label)."""
    n = draw(st.integers(2, 12))
    good = st.floats(0, 1, allow_nan=False)
    bad = st.sampled_from(NUMERIC_BAD if numeric else BAD)
    cells = [[draw(good) for _ in MODELS] for _ in range(n)]
    for _ in range(draw(st.integers(0, 3))):
        cells[draw(st.integers(0, n - 1))][draw(st.integers(0, 2))] = draw(bad)
    candidate: list[Any] = [draw(good) for _ in range(n)]
    for _ in range(draw(st.integers(1, 3))):
        candidate[draw(st.integers(0, n - 1))] = draw(bad)
    y = [i % 2 for i in range(n)]
    frame = pd.DataFrame({"y": y, **{m: [r[j] for r in cells] for j, m in enumerate(MODELS)}},
                         index=pd.RangeIndex(100, 100 + n))
    return frame, candidate


def _log_message(frame: pd.DataFrame) -> str | None:
    """The cell a log entry names: text first (a column's type, the models' order, its first
    text cell), then the first bad cell in row order."""
    for m in MODELS:
        text = [i for i, v in enumerate(frame[m]) if isinstance(v, str)]
        if text:
            return f"score column {m!r}: row {frame.index[text[0]]} holds the text"
    rows = frame[MODELS].astype(object).where(frame[MODELS].notna(), None).values.tolist()
    first = _first_bad(rows)
    if first is None:
        return None
    i, j = first
    return f"score column {MODELS[j]!r}(:| on) row {frame.index[i]}\\b"


def _refuses(call: Any, pattern: str | None) -> None:
    if pattern is None:
        call()
        return
    with pytest.raises(cc.ScoreValueError) as info:
        call()
        pytest.fail(f"no error, expected {pattern!r}")
    assert re.search(pattern, str(info.value)), (pattern, str(info.value))
    assert "\n" not in str(info.value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs())
def test_every_log_entry_refuses_the_first_bad_cell(case: tuple[pd.DataFrame, list[Any]]
                                                    ) -> None:
    frame, _ = case
    pattern = _log_message(frame)
    for fusioner in ("mean", "max", "logistic"):
        weights = [1.0, 2.0, 1.0] if fusioner == "logistic" else None
        _refuses(lambda f=fusioner, w=weights: cc.forced_runs(
            frame, truth="y", models=MODELS, slot="b", fusioner=f, weights=w), pattern)
    _refuses(lambda: score_runs(frame, truth="y", models=MODELS, slot="b"), pattern)
    _refuses(lambda: cc.forced_runs(frame, truth="y", models=MODELS, slot="a", scores=True,
                                    fusioner=lambda s: s.mean(axis=1)), pattern)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(numeric=True))
def test_every_engine_refuses_the_same_cell(case: tuple[pd.DataFrame, list[Any]]) -> None:
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    frame, _ = case
    frame = frame.astype({m: float for m in MODELS})
    pattern = _log_message(frame)
    # other engines have positions, not labels: the same row, counted from 0
    positional = None if pattern is None else re.sub(
        r"row (\d+)", lambda m: f"row {int(m[1]) - 100}", pattern)
    plain = frame.reset_index(drop=True)
    for data in (pl.from_pandas(plain), pl.from_pandas(plain).lazy(), duckdb.from_df(plain)):
        _refuses(lambda d=data: cc.forced_runs(d, truth="y", models=MODELS, slot="c",
                                               fusioner="mean"), positional)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs())
def test_every_candidate_entry_refuses_the_first_bad_row(
        case: tuple[pd.DataFrame, list[Any]]) -> None:
    frame, candidate = case
    good = frame.copy()
    good[MODELS] = 0.5
    good["a"] = np.linspace(0, 1, len(good))
    runs = cc.forced_runs(good, truth="y", models=MODELS, slot="b", fusioner="mean")
    sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    y = good["y"]
    # text first (the scores' type), then the first bad value in row order
    i = next((k for k, v in enumerate(candidate) if isinstance(v, str)),
             next(k for k, v in enumerate(candidate) if _is_bad(v)))
    row = rf"row {frame.index[i]}\b"
    as_series = pd.Series(candidate, index=frame.index, dtype=object)
    _refuses(lambda: cc.evaluate(sheet, y_true=y, scores=as_series), row)
    _refuses(lambda: cc.compare(sheet, y_true=y, scores={"new": candidate}), row)
    _refuses(lambda: cc.backtest(runs, {"new": as_series}, costs=cc.CostMatrix(fn=5, fp=1)), row)
    _refuses(lambda: runs.with_candidate(candidate), row)
    _refuses(lambda: score_system_cost(y, candidate, sheet=sheet), row)
    positions = rf"row {i}\b"  # positions: a list has no labels
    _refuses(lambda: read_scores(candidate, "scores", rows=len(candidate)), positions)
    if not any(isinstance(v, str) or v is None for v in candidate):
        _refuses(lambda: price_scores(([0.5],) * 2, ([0.5], candidate), same_instances=False),
                 None if all(not _is_bad(v) for v in candidate) else
                 rf"class N: row {i}\b")


def test_the_range_is_declared_once_and_recorded_on_the_sheet(tmp_path: Any) -> None:
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "a": [3.0, -2.0, 0.5, -0.1],
                          "b": [1.2, -4.0, 2.0, 0.3]})
    with pytest.raises(cc.ScoreValueError, match=r"score column 'a' on row 0 holds 3.0 .and 5 "
                                                 r"other bad score.s.., outside the score "
                                                 r"range \[0, 1\]"):
        cc.forced_runs(frame, truth="y", models=["a", "b"], slot="b", fusioner="logistic",
                       weights=[1.0, 1.0])
    runs = cc.forced_runs(frame, truth="y", models=["a", "b"], slot="b", fusioner="logistic",
                          weights=[1.0, 1.0], score_range=(-10, 10))
    sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    assert runs.score_range == sheet.score_range == (-10.0, 10.0)
    loaded = cc.load_sheet(sheet.save(tmp_path / "s.json"))
    assert loaded.score_range == (-10.0, 10.0) and loaded.digest == sheet.digest
    assert cc.evaluate(loaded, y_true=frame["y"], scores=[5.0, -5.0, 9.0, 0.0]).eval1 >= 0
    with pytest.raises(cc.ScoreValueError, match=r"row 2 holds 11.0, outside the score range "
                                                 r"\[-10, 10\]"):
        cc.evaluate(loaded, y_true=frame["y"], scores=[5.0, -5.0, 11.0, 0.0])
    # an open range asks only for finite numbers
    runs = cc.forced_runs(frame, truth="y", models=["a", "b"], slot="b", fusioner="logistic",
                          weights=[1.0, 1.0], score_range=(-math.inf, math.inf))
    sheet = cc.sheet_from_data(runs, cc.CostMatrix(fn=5, fp=1))
    assert cc.load_sheet(sheet.save(tmp_path / "o.json")).score_range == (-math.inf, math.inf)
    with pytest.raises(cc.ScoreValueError, match=r"row 0 holds inf; scores must be finite"):
        cc.evaluate(sheet, y_true=frame["y"], scores=[math.inf, 0.0, 1.0, 0.0])


def test_a_probability_rounded_past_one_is_a_probability() -> None:
    arr = np.array([1.0000000000000002, -1e-17, 0.5])
    assert check_scores(arr) is arr
    with pytest.raises(cc.ScoreValueError, match="outside the score range"):
        check_scores(np.array([1.000001]))


def test_an_infinite_slot_score_is_refused_where_it_counted_a_wrong_tp() -> None:
    # the reproduction of the issue: min of (inf, 0.9, 0.3) is 0.3, so the system never says
    # P, yet the infinite score passed "s >= t" with t = +inf
    log = pd.DataFrame({"y": [1, 0], "a": [np.inf, .2], "b": [.9, .8], "c": [.3, .1]})
    with pytest.raises(cc.ScoreValueError, match=r"score column 'a' on row 0 holds inf"):
        cc.forced_runs(log, truth="y", models=["a", "b", "c"], slot="a", fusioner="min",
                       threshold=.5)


def test_a_user_fusioner_returning_nan_is_refused() -> None:
    log = pd.DataFrame({"y": [1, 0, 1], "a": [0.2, 0.5, 0.9], "b": [0.1, 0.8, 0.3]})

    def fused(s: np.ndarray) -> np.ndarray:
        return np.where(s[:, 1] > 0.7, np.nan, s.mean(axis=1))

    with pytest.raises(cc.ValidationError, match=r"fusioner function returned NaN for the "
                                                 r"scores"):
        cc.forced_runs(log, truth="y", models=["a", "b"], slot="a", fusioner=fused,
                       scores=True)
