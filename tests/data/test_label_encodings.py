"""16.4: the positive label is never reinterpreted, on any engine, in any encoding.

Every engine (pandas, polars eager and lazy, pyarrow, a DuckDB relation, Dask, and a CSV and a
parquet file read by each path engine) counts a table whose truth and model columns use one
label encoding (bool, 0/1, 0/1 as text, yes/no, t/f, T/F, Y/N, P/N, arbitrary strings with
a comma and quotes) with each way of naming the positive label, and must give the counts of
the row-by-row reference (:mod:`numpy_reference`), or refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from numpy_reference import ENGINES, as_engine, reference_counts

import causalcost as cc
from causalcost.errors import DataError

ROWS = 48
MODELS = ("a", "b", "c")
#: encoding -> (positive value, negative value, [(positive=, the label it names), ...]).
ENCODINGS: dict[str, tuple[Any, Any, list[tuple[Any, Any]]]] = {
    "bool": (True, False, [(None, True), (True, True), (False, False), ("false", False)]),
    "0/1": (1, 0, [(None, 1), (1, 1), (0, 0), ("0", 0)]),
    "0/1 text": ("1", "0", [(None, "1"), ("0", "0"), (0, "0")]),
    "yes/no": ("yes", "no", [("yes", "yes"), ("no", "no")]),
    "t/f": ("t", "f", [("t", "t"), ("f", "f")]),
    "T/F": ("T", "F", [("T", "T"), ("F", "F")]),
    "Y/N": ("Y", "N", [("Y", "Y"), ("N", "N")]),
    "P/N": ("P", "N", [("P", "P"), ("N", "N")]),
    "strings": ('sick, "very"', "well", [('sick, "very"', 'sick, "very"'),
                                          ("well", "well")]),
}


def encoded(encoding: str, seed: int = 7) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    pos, neg, _ = ENCODINGS[encoding]
    rng = np.random.default_rng(seed)
    y = rng.random(ROWS) < 0.4
    votes = {m: np.where(rng.random(ROWS) < p, y, ~y) for m, p in zip(MODELS, (0.8, 0.6, 0.7))}
    raw = {"truth": y, **votes}
    columns = {}
    for name, vote in raw.items():
        values = [pos if v else neg for v in vote]
        columns[name] = (np.array(values, dtype=bool) if encoding == "bool"
                         else np.array(values, dtype=np.int64) if encoding == "0/1"
                         else np.array(values, dtype=object))
    return pd.DataFrame(columns), {k: np.asarray(columns[k]) for k in raw}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_engine_reads_every_encoding_as_the_reference(engine: str, encoding: str,
                                                            tmp_path: Path) -> None:
    table, values = encoded(encoding)
    data = as_engine(engine, table, tmp_path)
    for positive, label in ENCODINGS[encoding][2]:
        runs = cc.forced_runs(data, truth="truth", models=list(MODELS), slot="b",
                              fusioner="k_of_n", k=2, positive=positive)
        expected = reference_counts(values["truth"], {m: values[m] for m in MODELS}, "b",
                                    dict.fromkeys(("truth", *MODELS), label), "k_of_n", k=2)
        assert runs.counts.tolist() == expected.tolist(), (engine, encoding, positive)


@pytest.mark.parametrize("engine", ENGINES)
def test_strings_without_a_positive_label_are_refused(engine: str, tmp_path: Path) -> None:
    table, _ = encoded("yes/no")
    with pytest.raises(DataError, match=r"column 'truth' holds strings: pass positive="):
        cc.forced_runs(as_engine(engine, table, tmp_path), truth="truth", models=list(MODELS),
                       slot="b", fusioner="and")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_positive_label_a_column_cannot_hold_is_refused(engine: str, tmp_path: Path) -> None:
    table, _ = encoded("0/1")
    with pytest.raises((DataError, cc.ValidationError), match=r"positive"):
        cc.forced_runs(as_engine(engine, table, tmp_path), truth="truth", models=list(MODELS),
                       slot="b", fusioner="and", positive=2)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_misspelled_positive_label_is_refused_not_counted(engine: str,
                                                            tmp_path: Path) -> None:
    table, _ = encoded("yes/no")
    with pytest.raises(DataError, match=r"is positive='Yes' spelled as in the data"):
        cc.forced_runs(as_engine(engine, table, tmp_path), truth="truth", models=list(MODELS),
                       slot="b", fusioner="and", positive="Yes")
