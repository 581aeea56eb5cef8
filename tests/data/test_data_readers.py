"""Lazy CSV / parquet scans, their errors, and candidates' confusions from predictions."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.metrics import confusion_matrix

import causalcost as cc
from causalcost.errors import DataError

ROWS = 2000


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, ROWS)
    return pd.DataFrame({"y": y, "a": rng.integers(0, 2, ROWS), "b": (rng.random(ROWS) < 0.5),
                         "c": np.where(rng.random(ROWS) < 0.6, y, 1 - y)})


def runs_of(data: object) -> cc.ForcedRuns:
    return cc.forced_runs(data, truth="y", models=["a", "b", "c"], slot="c",
                          fusioner="majority")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet"])
def test_read_table_is_lazy_and_counts_like_memory(table: pd.DataFrame, tmp_path,
                                                   engine: str, suffix: str) -> None:
    path = tmp_path / f"runs{suffix}"
    if suffix == ".parquet":
        table.to_parquet(path)
    else:
        table.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    frame = cc.read_table(path, engine=engine)
    assert isinstance(frame, pl.LazyFrame if engine == "polars" else duckdb.DuckDBPyRelation)
    runs = runs_of(frame)
    assert runs == runs_of(table) and runs.provenance["lazy"]


def test_read_table_errors(tmp_path) -> None:
    with pytest.raises(DataError, match="no such file"):
        cc.read_table(tmp_path / "missing.csv")
    with pytest.raises(DataError, match=r"unknown extension '.json'; use .csv"):
        cc.read_table(tmp_path / "runs.json")
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"this is not parquet")
    for engine in ("polars", "duckdb"):
        with pytest.raises(DataError, match=rf"cannot read .*broken.parquet as PARQUET with "
                                            rf"{engine}"):
            cc.read_table(broken, engine=engine)
    with pytest.raises(DataError, match="engine must be one of polars, duckdb"):
        cc.read_table(broken, engine="spark")
    with pytest.raises(DataError, match="no such file"):
        cc.forced_runs(str(tmp_path / "missing.parquet"), truth="y", models=["a"], slot="a",
                       fusioner="or")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_bad_line_past_any_sample_names_the_column(tmp_path, engine: str) -> None:
    """Columns are read as text (no type inference from the first rows): a bad value late
    in the file is a label error naming the column, on both engines."""
    path = tmp_path / "late.csv"
    lines = ["y,a,b"] + ["1,0,1"] * 20_000 + ["1,oops,1"]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"column 'a' holds strings: pass positive=.*found "
                                        r"'oops' in 1 row\(s\)"):
        cc.forced_runs(cc.read_table(path, engine=engine), truth="y", models=["a", "b"],
                       slot="b", fusioner="and")


def test_bad_labels_in_a_file_name_the_column(tmp_path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("y,a,b,c\n1,0.9,1,1\n0,0.2,0,0\n1,1,1,1\n")
    for engine in ("polars", "duckdb"):
        with pytest.raises(DataError, match=r"column 'a' must hold 0/1 .* found '0.2', '0.9'"):
            runs_of(cc.read_table(path, engine=engine))


# -- candidates ---------------------------------------------------------------------------------
def test_confusion_from_predictions_matches_confusion(table: pd.DataFrame) -> None:
    expected = cc.Confusion.from_predictions(table.y, table.c)
    for data in (table, pl.from_pandas(table).lazy(), {"y": table.y, "c": table.c}):
        assert cc.confusion_from_predictions(data, "y", "c") == expected
    labels = pd.DataFrame({"t": np.where(table.y == 1, "pos", "neg"),
                           "p": np.where(table.c == 1, "pos", "neg")})
    assert cc.confusion_from_predictions(labels, "t", "p", positive="pos") == expected
    with pytest.raises(DataError, match="column 't' holds strings"):
        cc.confusion_from_predictions(labels, "t", "p")


def test_confusion_at_threshold_matches_sklearn() -> None:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 500)
    scores = rng.random(500)
    for threshold in (0.0, 0.3, 0.5, 0.99, 1.5):
        (tn, fp), (fn, tp) = confusion_matrix(y, (scores >= threshold).astype(int), labels=[0, 1])
        got = cc.confusion_at_threshold(y, scores, threshold)
        assert got == cc.Confusion(tp=tp, fn=fn, fp=fp, tn=tn), threshold
    strings = np.where(y == 1, "sick", "well")
    assert cc.confusion_at_threshold(strings, scores, 0.5, positive="sick") == \
        cc.confusion_at_threshold(y, scores, 0.5)


def test_confusion_at_threshold_errors() -> None:
    with pytest.raises(DataError, match="scores must be finite; found \\[nan\\] in 1 row"):
        cc.confusion_at_threshold([1, 0], [0.5, float("nan")], 0.5)
    with pytest.raises(DataError, match="one number per instance"):
        cc.confusion_at_threshold([1, 0], [0.5], 0.5)
    with pytest.raises(DataError, match="column 'y_true' must hold 0/1"):
        cc.confusion_at_threshold([1, 2], [0.5, 0.1], 0.5)
    with pytest.raises(DataError, match="threshold must be a finite number"):
        cc.confusion_at_threshold([1, 0], [0.5, 0.1], float("inf"))
