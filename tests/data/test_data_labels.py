"""Truth and prediction columns that are not binary labels give a clear error on every engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from engine_frames import ENGINES as SHARED_ENGINES

import causalcost as cc
from causalcost.data.labels import votes_from_values
from causalcost.errors import CausalCostError, DataError

ENGINES = SHARED_ENGINES

GOOD = {"a": [1, 0, 1, 1, 0, 1], "b": [True, True, False, False, True, False]}
CASES = {
    "null truth": ({"y": [1.0, 0, None, 1, 0, 1]}, {},
                   r"column 'y' has 1 row\(s\) with no label \(null or NaN\)"),
    "fraction": ({"y": [1, 0, 1, 1, 0, 1], "a": [1, 0.5, 1, 0.7, 0, 0.5]}, {},
                 r"column 'a' must hold 0/1 .*found 0.5, 0.7 in 3 row\(s\)"),
    "other numbers": ({"y": [1, 0, 2, 3, 0, 1]}, {},
                      r"column 'y' must hold 0/1 .*found 2, 3 in 2 row\(s\)"),
    "huge and negative": ({"y": [1, 0, 1, 1, 0, 1], "a": [1, 0, 2**40, -3, 0, 1]}, {},
                          r"column 'a' must hold 0/1 .*found -3, 1099511627776 in 2 row\(s\)"),
    "third label": ({"y": ["s", "w", "s", "x", "w", "s"]}, {"positive": "s"},
                    r"column 'y' must hold two labels, the positive 's' and one other; found "
                    r"'s', 'w', 'x'$"),
    "misspelt positive": ({"y": ["S", "W", "S", "W", "W", "S"]}, {"positive": "s"},
                          r"found 'S', 'W'; is positive='s' spelled as in the data\?"),
    "strings without positive": ({"y": ["s", "w", "s", "w", "w", "s"]}, {},
                                 r"column 'y' holds strings: pass positive="),
    "null string": ({"y": ["s", None, "s", "w", "w", "s"]}, {"positive": "s"},
                    r"column 'y' has 1 row\(s\) with no label"),
    "missing column": ({"y": [1, 0, 1, 1, 0, 1], "a": None}, {},
                       r"column 'a' is not in the data; its columns are: 'b', 'y'"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES)
def test_bad_labels_raise_a_data_error_naming_column_and_values(engine: str, case: str) -> None:
    columns, options, match = CASES[case]
    data = {**GOOD, **columns}
    frame = pd.DataFrame({k: v for k, v in data.items() if v is not None})
    with pytest.raises(DataError, match=match) as info:
        cc.forced_runs(ENGINES[engine](frame), truth="y", models=["a", "b"], slot="b",
                       fusioner="and", **options)
    assert isinstance(info.value, (CausalCostError, ValueError))


def test_a_null_among_booleans_is_named() -> None:
    frame = pd.DataFrame({"y": [1, 0, 1], "a": pd.array([True, None, False], dtype="boolean"),
                          "b": [True, True, False]})
    for native in (frame, pl.from_pandas(frame).lazy()):
        with pytest.raises(DataError, match="column 'a' has 1 row"):
            cc.forced_runs(native, truth="y", models=["a", "b"], slot="b", fusioner="and")
    with pytest.raises(DataError, match="column 'a' holds Python objects"):
        cc.forced_runs(frame.astype({"a": object}), truth="y", models=["a", "b"], slot="b",
                       fusioner="and")


def test_unsupported_types_are_refused() -> None:
    frame = pl.DataFrame({"y": [1, 0], "a": [pl.date(2024, 1, 1)] * 2, "b": [1, 0]})
    with pytest.raises(DataError, match="column 'a' has type Date"):
        cc.forced_runs(frame.with_columns(a=pl.date(2024, 1, 1)), truth="y", models=["a", "b"],
                       slot="b", fusioner="and")


def test_every_accepted_form_reads_the_same_votes() -> None:
    truth = [True, False, True, True, False]
    forms = {
        "bool": (truth, None),
        "int": ([int(v) for v in truth], None),
        "float": ([float(v) for v in truth], None),
        "string": (["yes" if v else "no" for v in truth], "yes"),
        "positive zero": ([0 if v else 1 for v in truth], 0),
    }
    frames = {}
    for name, (values, positive) in forms.items():
        df = pd.DataFrame({"y": values, "a": values, "b": values})
        runs = cc.forced_runs(df, truth="y", models=["a", "b"], slot="b", fusioner="or",
                              positive=positive)
        frames[name] = runs.counts
        assert runs.observed == cc.Confusion(tp=3, fn=0, fp=0, tn=2), name
    categorical = pd.DataFrame({"y": pd.Categorical(["P", "N", "P", "P", "N"])}).assign(
        a=lambda d: d.y, b=lambda d: d.y)
    runs = cc.forced_runs(pl.from_pandas(categorical), truth="y", models=["a", "b"], slot="b",
                          fusioner="or", positive="P")
    assert np.array_equal(runs.counts, frames["bool"])
    assert all(np.array_equal(c, frames["bool"]) for c in frames.values())


def test_votes_from_values() -> None:
    assert votes_from_values(np.array([True, False])).tolist() == [True, False]
    assert votes_from_values(np.array([True, False]), positive=0).tolist() == [False, True]
    assert votes_from_values([0, 1, 1]).tolist() == [False, True, True]
    assert votes_from_values(["n", "p"], positive="p").tolist() == [False, True]
    with pytest.raises(DataError, match=r"found None in 1 row|no label"):
        votes_from_values([True, None, False])
    with pytest.raises(DataError, match="found 0.25, 0.5"):
        votes_from_values([0.5, 1.0, 0.25])
    with pytest.raises(DataError, match="one-dimensional"):
        votes_from_values([[1, 0], [0, 1]])
    with pytest.raises(DataError, match="found 'a', 'b', 'c'"):
        votes_from_values(["a", "b", "c"], positive="a")
