"""Check that one extra of causalcost works alone: ``python scripts/check_extra.py EXTRA``.

Run it in a fresh virtual environment holding ``pip install '.[EXTRA]'`` and nothing else
(``.ci/run`` builds one per extra with uv). ``EXTRA`` is ``none`` (the plain ``pip install .``),
``polars``, ``duckdb``, ``dask``, ``arrow`` or ``spark``. The script

1. checks that the other extras' engines are absent (else the check would prove nothing);
2. counts forced runs of one table on the extra's engine: in memory, from a CSV file and from
   a parquet file read with the extra's path engine, and through the ``causalcost runs`` and
   ``causalcost derive --data`` commands;
3. compares every count with a row-by-row count in plain Python.

It exits 0 when everything agrees and stops at the first difference or error otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import causalcost as cc

#: Engines each extra brings (the core brings pandas, which every extra may use).
BRINGS = {"none": set(), "polars": {"polars"}, "duckdb": {"duckdb"},
          "dask": {"dask", "pyarrow"}, "arrow": {"pyarrow"}, "spark": {"pyspark"}}
ENGINES = {"polars", "duckdb", "dask", "pyarrow", "pyspark"}
MODELS = ["a", "b", "c"]
COLUMNS = ["y", *MODELS]


def table(n: int = 600, seed: int = 7) -> list[tuple[int, int, int, int]]:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        y = int(rng.random() < 0.4)
        rows.append((y, *(y if rng.random() < p else 1 - y for p in (0.8, 0.65, 0.7))))
    return rows


def expected(rows: list[tuple[int, ...]], slot: str = "b") -> list:
    """Counts (class, forced-P vote, forced-N vote, slot vote), index 0 = P, by a loop."""
    counts = [[[[0, 0] for _ in range(2)] for _ in range(2)] for _ in range(2)]
    where = MODELS.index(slot)
    for y, *votes in rows:
        system = []
        for forced in (1, 0):
            row = [forced if i == where else v for i, v in enumerate(votes)]
            system.append(int(sum(row) * 2 > len(row)))  # majority of 3
        counts[1 - y][1 - system[0]][1 - system[1]][1 - votes[where]] += 1
    return counts


def count(data: Any) -> Any:
    return cc.forced_runs(data, truth="y", models=MODELS, slot="b", fusioner="majority")


def agree(label: str, runs: Any, rows: list[tuple[int, ...]]) -> None:
    got = runs.counts.tolist()
    if got != expected(rows):
        raise SystemExit(f"FAIL {label}: counts {got} != {expected(rows)}")
    print(f"ok   {label}: {runs.n} rows on {runs.provenance['engine']}")


def write_csv(path: Path, rows: list[tuple[int, ...]]) -> Path:
    path.write_text(",".join(COLUMNS) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                       for r in rows))
    return path


def cli(label: str, rows: list[tuple[int, ...]], path: Path, engine: str | None,
        folder: Path) -> None:
    flags = ["--truth", "y", "--models", ",".join(MODELS), "--fusioner", "majority"]
    flags += ["--engine", engine] if engine else []
    run = subprocess.run([sys.executable, "-m", "causalcost", "runs", str(path), "--slot", "b",
                          *flags, "--json"], capture_output=True, text=True, cwd=folder)
    if run.returncode != 0:
        raise SystemExit(f"FAIL {label}: causalcost runs exited {run.returncode}: "
                         f"{run.stderr.strip()}")
    out = json.loads(run.stdout)
    e = expected(rows)
    tp = sum(e[0][0][j][k] for j in range(2) for k in range(2))  # class P, forced-P vote P
    if out["forced_p"]["tp"] != tp or out["n"] != len(rows):
        raise SystemExit(f"FAIL {label}: causalcost runs said {out['forced_p']}, n={out['n']}")
    sheet = folder / "sheet.json"
    run = subprocess.run([sys.executable, "-m", "causalcost", "derive", "--data", str(path),
                          "--slot", "b", *flags, "--costs", "fn=5,fp=1", "-o", str(sheet)],
                         capture_output=True, text=True, cwd=folder)
    if run.returncode != 0 or not sheet.exists():
        raise SystemExit(f"FAIL {label}: causalcost derive --data exited {run.returncode}: "
                         f"{run.stderr.strip()}")
    print(f"ok   {label}: causalcost runs and derive --data")


def check_none(rows: list[tuple[int, ...]], folder: Path) -> None:
    import pandas as pd

    agree("pandas", count(pd.DataFrame(rows, columns=COLUMNS)), rows)
    path = write_csv(folder / "log.csv", rows)
    agree("CSV path, default engine", count(path), rows)
    agree("CSV, read_table()", count(cc.read_table(path)), rows)
    cli("CLI on CSV", rows, path, None, folder)


def check_polars(rows: list[tuple[int, ...]], folder: Path) -> None:
    import polars as pl

    frame = pl.DataFrame(rows, schema=COLUMNS, orient="row")
    agree("polars", count(frame), rows)
    agree("polars lazy", count(frame.lazy()), rows)
    frame.write_parquet(folder / "log.parquet")
    path = write_csv(folder / "log.csv", rows)
    agree("CSV, engine polars", count(cc.read_table(path, engine="polars")), rows)
    agree("parquet, engine polars",
          count(cc.read_table(folder / "log.parquet", engine="polars")), rows)
    cli("CLI on CSV, --engine polars", rows, path, "polars", folder)
    cli("CLI on parquet, --engine polars", rows, folder / "log.parquet", "polars", folder)


def check_duckdb(rows: list[tuple[int, ...]], folder: Path) -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE log (y INTEGER, a INTEGER, b INTEGER, c INTEGER)")
    con.executemany("INSERT INTO log VALUES (?, ?, ?, ?)", rows)
    agree("DuckDB relation", count(con.table("log")), rows)
    parquet = folder / "log.parquet"
    con.execute(f"COPY log TO '{parquet}' (FORMAT parquet)")
    path = write_csv(folder / "log.csv", rows)
    agree("CSV, engine duckdb", count(cc.read_table(path, engine="duckdb")), rows)
    agree("parquet, engine duckdb", count(cc.read_table(parquet, engine="duckdb")), rows)
    cli("CLI on CSV, --engine duckdb", rows, path, "duckdb", folder)
    cli("CLI on parquet, --engine duckdb", rows, parquet, "duckdb", folder)


def check_dask(rows: list[tuple[int, ...]], folder: Path) -> None:
    import dask.dataframe as dd
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame(rows, columns=COLUMNS), npartitions=3)
    agree("Dask", count(frame), rows)
    frame.to_csv(folder / "log.csv", index=False)  # a directory of parts: 0.part, ...
    frame.to_parquet(folder / "log.parquet", write_index=False)
    agree("CSV parts, engine dask", count(cc.read_table(folder / "log.csv", engine="dask")),
          rows)
    agree("parquet parts, engine dask",
          count(cc.read_table(folder / "log.parquet", engine="dask")), rows)
    cli("CLI on CSV parts, --engine dask", rows, folder / "log.csv", "dask", folder)


def check_arrow(rows: list[tuple[int, ...]], folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = pa.table({c: [r[i] for r in rows] for i, c in enumerate(COLUMNS)})
    agree("pyarrow", count(frame), rows)
    pq.write_table(frame, folder / "log.parquet")
    agree("parquet path, default engine", count(folder / "log.parquet"), rows)
    cli("CLI on parquet", rows, folder / "log.parquet", None, folder)


def check_spark(rows: list[tuple[int, ...]], folder: Path) -> None:
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("causalcost-check")
             .config("spark.ui.enabled", "false").getOrCreate())
    try:
        frame = spark.createDataFrame(rows, schema="y int, a int, b int, c int")
        runs = count(frame)
        agree("PySpark", runs, rows)
        got = runs.with_candidate("c")
        # c in the slot b: the majority of (a, c, c) is c
        tp = sum(1 for y, _a, _b, c in rows if y == 1 and c == 1)
        if got.tp != tp:
            raise SystemExit(f"FAIL PySpark with_candidate: tp {got.tp} != {tp}")
        print("ok   PySpark with_candidate")
    finally:
        spark.stop()


CHECKS: dict[str, Callable[[list[tuple[int, ...]], Path], None]] = {
    "none": check_none, "polars": check_polars, "duckdb": check_duckdb, "dask": check_dask,
    "arrow": check_arrow, "spark": check_spark}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CHECKS:
        print(f"usage: check_extra.py {{{','.join(CHECKS)}}}", file=sys.stderr)
        return 2
    extra = argv[0]
    present = {m for m in ENGINES if importlib.util.find_spec(m) is not None}
    stray = present - BRINGS[extra]
    if stray:
        print(f"FAIL: {', '.join(sorted(stray))} installed beside causalcost[{extra}]: check "
              "the extra in a fresh environment", file=sys.stderr)
        return 1
    print(f"causalcost[{extra}] from {Path(cc.__file__).parent}; engines present: "
          f"{', '.join(sorted(present)) or 'none (pandas only)'}")
    rows = table()
    with tempfile.TemporaryDirectory() as folder:
        CHECKS[extra](rows, Path(folder))
    print(f"causalcost[{extra}] works alone")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
