"""16.5 and 16.10: every path engine reads the same file into the same rows, or refuses it.

Each awkward file (duplicate or numeric headers, a quoted ``"y""q"`` header, quoted labels
holding commas, quotes and line breaks, CRLF line ends and a byte-order mark, blank lines, a
200 000-character field, a FIFO) is read by polars, DuckDB, Dask and pandas and counted
against the row-by-row reference, or refused by every engine with the same reason. Directories
of parts as Spark, Dask and Hive-style writers leave them, and globs, are read as one table.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy_reference import PATH_ENGINES, reference_counts

import causalcost as cc
from causalcost.data.readers import table_parts
from causalcost.errors import DataError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning",
                                        "ignore:.*inplace.*:Warning")


def count(path: Path | str, engine: str, truth: str = "y", models: tuple[str, ...] = ("a", "b"),
          positive: object = None) -> np.ndarray:
    runs = cc.forced_runs(cc.read_table(path, engine=engine), truth=truth, models=list(models),
                          slot=models[-1], fusioner="or", positive=positive)
    return runs.counts


def expected(rows: list[dict[str, object]], truth: str = "y",
             models: tuple[str, ...] = ("a", "b"), positive: object = "1") -> list:
    return reference_counts([r[truth] for r in rows], {m: [r[m] for r in rows] for m in models},
                            models[-1], {"truth": positive, **dict.fromkeys(models, positive)},
                            "or").tolist()


ROWS = [{"y": y, "a": a, "b": b} for y, a, b in
        [("1", "0", "1"), ("0", "0", "0"), ("1", "1", "1"), ("0", "1", "0"), ("1", "0", "0")]]


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_duplicate_and_empty_header_names_are_refused(engine: str, tmp_path: Path) -> None:
    dup = write(tmp_path / "dup.csv", "y,a,b,a\n1,0,1,1\n")
    with pytest.raises(DataError, match=r"names column 'a' twice \(columns 2 and 4\)"):
        cc.read_table(dup, engine=engine)
    empty = write(tmp_path / "empty.csv", "y,,b\n1,0,1\n")
    with pytest.raises(DataError, match=r"column 2 of the header has no name"):
        cc.read_table(empty, engine=engine)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_numeric_headers_stay_headers(engine: str, tmp_path: Path) -> None:
    lines = ["0,1,2"] + [f"{r['y']},{r['a']},{r['b']}" for r in ROWS]
    path = write(tmp_path / "numbers.csv", "\n".join(lines) + "\n")
    rows = [{"0": r["y"], "1": r["a"], "2": r["b"]} for r in ROWS]
    assert count(path, engine, "0", ("1", "2")).tolist() == expected(rows, "0", ("1", "2"))


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_quoted_names_and_labels_are_read_as_rfc_4180(engine: str, tmp_path: Path) -> None:
    pos, neg = 'sick, "very"\nindeed', "well"
    def quote(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    body = [f"{quote(pos if r['y'] == '1' else neg)},{r['a']},{r['b']}" for r in ROWS]
    path = write(tmp_path / "quoted.csv", '"y""q",a,"b"\n' + "\n".join(body) + "\n")
    assert cc.read_table(path, engine="pandas").columns.tolist() == ['y"q', "a", "b"]
    rows = [{'y"q': pos if r["y"] == "1" else neg, "a": r["a"], "b": r["b"]} for r in ROWS]
    got = cc.forced_runs(cc.read_table(path, engine=engine), truth='y"q', models=["a", "b"],
                         slot="b", fusioner="or", positive=pos).counts
    want = reference_counts([r['y"q'] for r in rows], {m: [r[m] for r in rows] for m in "ab"},
                            "b", {"truth": pos, "a": "1", "b": "1"}, "or")
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_crlf_line_ends_and_a_byte_order_mark(engine: str, tmp_path: Path) -> None:
    body = "\r\n".join(["y,a,b", *(f"{r['y']},{r['a']},{r['b']}" for r in ROWS)]) + "\r\n"
    path = tmp_path / "windows.csv"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert count(path, engine).tolist() == expected(ROWS)


@pytest.mark.parametrize("engine", PATH_ENGINES)
@pytest.mark.parametrize("where", ["middle", "end", "start"])
def test_a_blank_line_is_refused_by_every_engine(engine: str, where: str,
                                                 tmp_path: Path) -> None:
    lines = ["y,a,b", *(f"{r['y']},{r['a']},{r['b']}" for r in ROWS)]
    at = {"middle": 3, "end": len(lines), "start": 0}[where]
    lines.insert(at, "")
    path = write(tmp_path / "blank.csv", "\n".join(lines) + "\n")
    reason = r"the first line \(the header\) is empty" if at == 0 else rf"line {at + 1} is blank"
    with pytest.raises(DataError, match=reason):
        cc.read_table(path, engine=engine)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_a_200k_character_field_is_read(engine: str, tmp_path: Path) -> None:
    note = "x" * 200_000
    body = [f"{r['y']},{r['a']},{r['b']},{note}" for r in ROWS]
    path = write(tmp_path / "long.csv", "y,a,b,note\n" + "\n".join(body) + "\n")
    assert count(path, engine).tolist() == expected(ROWS)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_a_fifo_is_refused_without_blocking(engine: str, tmp_path: Path) -> None:
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            cc.read_table(fifo, engine=engine)
        except BaseException as exc:  # noqa: BLE001 - the outcome is asserted below
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # unblock the reader before failing
        with open(fifo, "w"):
            pass
        pytest.fail("read_table blocked on a FIFO with no writer")
    assert len(outcome) == 1 and isinstance(outcome[0], DataError)
    assert "not a regular file" in str(outcome[0])


def test_duplicate_pandas_columns_are_a_data_error_naming_the_input() -> None:
    frame = pd.DataFrame([[1, 0, 1]], columns=["y", "a", "a"])
    with pytest.raises(DataError, match=r"data \(a pandas DataFrame\) has duplicate column"):
        cc.forced_runs(frame, truth="y", models=["a", "b"], slot="b", fusioner="or")


# -- directories of parts and globs -------------------------------------------------------------
def table(n: int = 200, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return pd.DataFrame({"y": y.astype(int), "a": (rng.random(n) < 0.5).astype(int),
                         "b": np.where(rng.random(n) < 0.7, y, ~y).astype(int)})


def reference_of(frame: pd.DataFrame) -> list:
    rows = frame.astype(str).to_dict("records")
    return expected(rows)


def spark_like(folder: Path, frame: pd.DataFrame, fmt: str, suffix: bool) -> Path:
    """Parts as Spark writes them: part-0000i files, .crc checksums, _SUCCESS; an empty part."""
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        part = frame.iloc[rows]
        name = f"part-0000{i}-c000" + (f".{fmt}" if suffix else "")
        if fmt == "csv":
            part.to_csv(folder / name, index=False)
        else:
            part.to_parquet(folder / name, index=False)
        (folder / f".{name}.crc").write_bytes(b"crc\x00\x01")
    (folder / "_SUCCESS").write_bytes(b"")
    if fmt == "csv":
        (folder / "part-00009-c000.csv").write_bytes(b"")  # an empty partition
    return folder


@pytest.mark.parametrize("engine", PATH_ENGINES)
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("suffix", [True, False])
def test_spark_style_directories(engine: str, fmt: str, suffix: bool, tmp_path: Path) -> None:
    frame = table()
    folder = spark_like(tmp_path / (f"runs.{fmt}" if not suffix else "runs"), frame, fmt,
                        suffix)
    assert count(folder, engine).tolist() == reference_of(frame)
    if suffix:
        assert count(str(folder / f"*.{fmt}"), engine).tolist() == reference_of(frame)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_parts_without_a_suffix_in_a_plain_directory(engine: str, tmp_path: Path) -> None:
    frame = table()
    folder = spark_like(tmp_path / "runs", frame, "parquet", suffix=False)
    assert table_parts(folder)[0] == "parquet"  # the PAR1 signature of every part
    assert count(folder, engine).tolist() == reference_of(frame)
    csv_folder = spark_like(tmp_path / "logs", frame, "csv", suffix=False)
    with pytest.raises(DataError, match=r"cannot tell the format of .*name the directory"):
        cc.read_table(csv_folder, engine=engine)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_hive_style_partition_directories(engine: str, tmp_path: Path) -> None:
    frame = table(300)
    root = tmp_path / "runs"
    for key, part in frame.groupby(frame.index % 3):
        folder = root / f"day=2024-01-0{key + 1}"
        folder.mkdir(parents=True)
        part.to_parquet(folder / "part-0.parquet", index=False)
    (root / "_common_metadata").write_bytes(b"PAR1 not data")
    assert count(root, engine).tolist() == reference_of(frame)
    assert count(str(root / "*" / "*.parquet"), engine).tolist() == reference_of(frame)


@pytest.mark.parametrize("engine", PATH_ENGINES)
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_what_dask_writes(engine: str, fmt: str, tmp_path: Path) -> None:
    import dask.dataframe as dd

    frame = table(250)
    folder = tmp_path / f"runs.{fmt}"
    parts = dd.from_pandas(frame, npartitions=4)
    if fmt == "csv":
        parts.to_csv(folder, index=False)  # 0.part, 1.part, ...: named by the directory
    else:
        parts.to_parquet(folder, write_index=False)
    assert count(folder, engine).tolist() == reference_of(frame)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_parts_that_disagree_are_refused(engine: str, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    table().to_csv(folder / "part-0.csv", index=False)
    table()[["y", "b", "a"]].to_csv(folder / "part-1.csv", index=False)
    with pytest.raises(DataError, match=r"the parts' headers differ"):
        cc.read_table(folder, engine=engine)
    table().to_parquet(folder / "part-2.parquet", index=False)
    with pytest.raises(DataError, match=r"parts of different formats"):
        cc.read_table(folder, engine=engine)
    with pytest.raises(DataError, match=r"no file matches"):
        cc.read_table(str(folder / "*.pq"), engine=engine)
    side = tmp_path / "side"
    side.mkdir()
    (side / "_SUCCESS").write_bytes(b"")
    with pytest.raises(DataError, match=r"no data files"):
        cc.read_table(side, engine=engine)


# -- engines from the command line, and the default without polars ----------------------------
def test_the_runs_command_counts_the_same_on_every_path_engine(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    import json

    from causalcost.cli import main

    frame = table()
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    e = np.array(reference_of(frame))
    for engine in PATH_ENGINES:
        capsys.readouterr()
        assert main(["runs", str(path), "--truth", "y", "--models", "a,b", "--slot", "b",
                     "--fusioner", "or", "--engine", engine, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["provenance"]["engine"] == engine
        assert out["forced_p"]["tp"] == int(e[0, 0].sum()), engine
        assert out["forced_n"]["fp"] == int(e[1, :, 0].sum()), engine


def test_without_polars_the_default_engine_is_pandas(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "polars" else real(name, *a))
    frame = table()
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    assert isinstance(cc.read_table(path), pd.DataFrame)
    runs = cc.forced_runs(path, truth="y", models=["a", "b"], slot="b", fusioner="or")
    assert runs.provenance["engine"] == "pandas"
    assert runs.counts.tolist() == reference_of(frame)
