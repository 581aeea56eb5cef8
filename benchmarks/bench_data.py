"""Time forced runs counted on data frame engines against one numpy bincount.

Run with ``python benchmarks/bench_data.py`` (10^7 rows, 5 rounds). A table of logged
predictions (truth ``y`` and three models ``a``, ``b``, ``c``, 0/1 int8 columns; majority vote,
slot ``c``) is counted by :func:`causalcost.forced_runs` (forced runs, the system as deployed,
and the kinds) held by pandas, polars (eager and lazy) and DuckDB, and by the floor: one
``np.bincount`` over the same four encoded columns (``y*8 + a*4 + b*2 + c``), which is all the
information the counts need. Each engine is reported as a ratio to the bincount measured in the
same run, medians of the rounds; rounds are interleaved so a slow spell hits all alike.

Targets: the best engine within 5x of bincount, none slower than 20x.

Long fields: a CSV file with one 200 000- and one 1 000 000-character field is read and
counted by every path engine (polars, DuckDB, Dask, pandas), each timed against Python's
:mod:`csv` module reading the same file in the same run. Reading is linear in the field's
length when the 1 MB file takes about 5x the 200 k one (a quadratic sniffer would take 25x);
target: every engine's growth below 10x.

``--dask-cluster`` instead counts a Dask frame held by a ``distributed.LocalCluster`` (two
worker processes) against Dask's own count of the same frame on the same cluster (see
:func:`dask_cluster`; target: within 2x), e.g.
``python benchmarks/bench_data.py --dask-cluster --rows 1e7 --partitions 16``.

``--big`` (not for CI) also writes a 10^8-row parquet file (int64 columns: 3 GiB once in memory)
in chunks and counts it through DuckDB in a fresh process with a memory limit (``--memory-limit``,
default 512MB), reporting the time, the peak RSS and the RSS before counting.

The peak is the operating system's for that fresh process alone: a minimal parent (a Python
that imports nothing but ``subprocess`` and ``resource``) starts it and reads
``getrusage(RUSAGE_CHILDREN).ru_maxrss`` once it has exited. Reading ``RUSAGE_SELF`` inside the
child, as this script did before, is wrong on Linux: a process keeps the high-water mark of the
process it was forked from across ``exec``, so the child reported this script's own peak (it
had just written the parquet file in 10^7-row chunks): 933 MiB for 10^8 rows.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

MODELS = ["a", "b", "c"]
SLOT = "c"


def make_columns(rows: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Truth with prior 0.3 and three models with 80-90 % accuracy, as 0/1 int8 columns."""
    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.3).astype(np.int8)
    out = {"y": y}
    for name, accuracy in zip(MODELS, (0.85, 0.8, 0.9)):
        right = rng.random(rows) < accuracy
        out[name] = np.where(right, y, 1 - y).astype(np.int8)
    return out


def bincount(columns: dict[str, np.ndarray]) -> np.ndarray:
    code = (columns["y"].astype(np.intp) << 3) | (columns["a"] << 2) | (columns["b"] << 1) \
        | columns["c"]
    return np.bincount(code, minlength=16)


def runner(data: object) -> Callable[[], object]:
    import causalcost as cc

    def run() -> object:
        runs = cc.forced_runs(data, truth="y", models=MODELS, slot=SLOT, fusioner="majority")
        return runs.kinds, runs.observed

    return run


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def engines(columns: dict[str, np.ndarray]) -> dict[str, object]:
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    frame = pd.DataFrame(columns)
    table = pa.table(columns)
    con = duckdb.connect()
    return {
        "pandas": frame,
        "polars": pl.DataFrame(columns),
        "polars lazy": pl.DataFrame(columns).lazy(),
        "duckdb": con.from_arrow(table),
    }


def check(columns: dict[str, np.ndarray], datas: dict[str, object]) -> None:
    """Every engine's counts equal the bincount's, decoded in numpy."""
    import causalcost as cc
    from causalcost.network.fusioners import make_fusioner

    counts = bincount(columns).reshape(2, 2, 2, 2)  # y, a, b, c (0 = N, 1 = P)
    f = make_fusioner("majority", MODELS)
    expected = np.zeros((2, 2))  # truth x forced-P vote
    for y, a, b, c in np.ndindex(2, 2, 2, 2):
        expected[1 - y, 1 - int(f((bool(a), bool(b), True)))] += counts[y, a, b, c]
    for name, data in datas.items():
        runs = cc.forced_runs(data, truth="y", models=MODELS, slot=SLOT, fusioner="majority")
        got = runs.forced_p.to_array()
        assert np.array_equal(got, expected), (name, got, expected)


def bench(rows: int, rounds: int) -> None:
    columns = make_columns(rows)
    datas = engines(columns)
    check(columns, datas)
    fns = {"bincount": lambda: bincount(columns), **{k: runner(v) for k, v in datas.items()}}
    for fn in fns.values():  # warm up
        fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            times[name].append(timed(fn))
    base = statistics.median(times["bincount"])
    print(f"{rows:,} rows, 3 models, majority, slot {SLOT!r}; median of {rounds} rounds")
    print("| engine | ms (median) | min ms | ratio to bincount |")
    print("| --- | ---: | ---: | ---: |")
    ratios = {}
    for name, ts in times.items():
        med = statistics.median(ts)
        ratios[name] = med / base
        print(f"| {name} | {med * 1e3:.1f} | {min(ts) * 1e3:.1f} | {med / base:.1f}x |")
    engines_only = {k: v for k, v in ratios.items() if k != "bincount"}
    best = min(engines_only, key=engines_only.__getitem__)
    worst = max(engines_only, key=engines_only.__getitem__)
    b, w = engines_only[best], engines_only[worst]
    print(f"best {best} {b:.1f}x (target <= 5x: {'yes' if b <= 5 else 'NO'}); "
          f"worst {worst} {w:.1f}x (target <= 20x: {'yes' if w <= 20 else 'NO'})")


_BIG_CHILD = """
import sys, time, duckdb
import causalcost as cc
import causalcost.data.forced_runs, narwhals, polars, pandas  # noqa: F401 (imports in the baseline)
duckdb.execute("SET memory_limit='{limit}'")
duckdb.execute("SET enable_progress_bar=false")
rss = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS"))
start = time.perf_counter()
runs = cc.forced_runs(cc.read_table(sys.argv[1], engine="duckdb"), truth="y", models={models!r},
                      slot={slot!r}, fusioner="majority")
elapsed = time.perf_counter() - start
print(runs.n, runs.forced_p, runs.forced_n, f"{{elapsed:.1f}} s", f"{{rss / 1024:.0f}} MiB",
      sep="; ")
"""

#: The minimal parent: runs the child given as its arguments, passes its output through and
#: prints the child's peak resident set size (KiB on Linux, bytes on macOS) as the last line.
_PEAK_PARENT = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""


def child_peak(argv: list[str]) -> tuple[str, float]:
    """Run ``argv`` in a fresh process; its output and its own peak RSS in MiB, as the OS
    measured it (started from the minimal parent :data:`_PEAK_PARENT`, never from this one)."""
    done = subprocess.run([sys.executable, "-c", _PEAK_PARENT, *argv], capture_output=True,
                          text=True, check=True)
    *out, peak = done.stdout.strip().splitlines()
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return "\n".join(out), int(peak) * unit / 2**20



def big(rows: int, chunk: int, limit: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.parquet"
        start = time.perf_counter()
        writer = None
        for i, offset in enumerate(range(0, rows, chunk)):
            columns = make_columns(min(chunk, rows - offset), seed=i)
            table = pa.table({k: v.astype(np.int64) for k, v in columns.items()})
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=1_000_000)
        assert writer is not None
        writer.close()
        size = path.stat().st_size / 2**20
        print(f"wrote {rows:,} rows to parquet ({size:.0f} MiB on disk, "
              f"{rows * 4 * 8 / 2**30:.1f} GiB as int64 columns in memory) in "
              f"{time.perf_counter() - start:.1f} s")
        code = _BIG_CHILD.format(limit=limit, models=MODELS, slot=SLOT)
        out, peak = child_peak([sys.executable, "-c", code, str(path)])
        print(f"DuckDB, memory_limit {limit}: rows; forced_p; forced_n; time; "
              "RSS after imports, before counting; peak RSS of the counting process")
        print(f"{out.strip()}; {peak:.0f} MiB")


def dask_cluster(rows: int, rounds: int, partitions: int) -> None:
    """Forced runs counted on a Dask frame held by a local cluster, against Dask's own count.

    A ``distributed.LocalCluster`` of two worker processes (one thread each) holds the frame
    (``partitions`` pandas partitions, persisted on the workers before timing). The baseline
    is Dask's own count of the same rows by the same four columns,
    ``df[cols].value_counts(split_out=1)`` (``df.groupby(cols).size(split_out=1)`` where this
    Dask has no ``DataFrame.value_counts``), computed on the same cluster; the ratio is of
    medians over interleaved rounds. Target: within 2x.
    """
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster, wait

    import causalcost as cc

    columns = make_columns(rows)
    cols = ["y", *MODELS]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        frame = client.persist(dd.from_pandas(pd.DataFrame(columns), npartitions=partitions))
        wait(frame)
        if hasattr(frame, "value_counts"):
            baseline_name = "df[cols].value_counts(split_out=1)"

            def baseline() -> object:
                return frame[cols].value_counts(split_out=1).compute()
        else:
            baseline_name = "df.groupby(cols).size(split_out=1)"

            def baseline() -> object:
                return frame.groupby(cols).size(split_out=1).compute()

        def ours() -> object:
            return cc.forced_runs(frame, truth="y", models=MODELS, slot=SLOT,
                                  fusioner="majority")

        check(columns, {"dask cluster": frame})
        counted = baseline()
        assert int(counted.sum()) == rows
        fns = {baseline_name: baseline, "causalcost forced_runs": ours}
        for fn in fns.values():  # warm up
            fn()
        times: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(rounds):
            for name, fn in fns.items():
                times[name].append(timed(fn))
    base = statistics.median(times[baseline_name])
    print(f"Dask on a LocalCluster (2 worker processes), {rows:,} rows in {partitions} "
          f"partitions; median of {rounds} rounds")
    print("| count | ms (median) | min ms | ratio to Dask's own |")
    print("| --- | ---: | ---: | ---: |")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"| {name} | {med * 1e3:.1f} | {min(ts) * 1e3:.1f} | {med / base:.2f}x |")
    ratio = statistics.median(times["causalcost forced_runs"]) / base
    print(f"target (within 2x of Dask's own count): {'yes' if ratio <= 2 else 'NO'} "
          f"({ratio:.2f}x)")


def long_fields(rounds: int) -> None:
    import csv

    import causalcost as cc

    engines = ("polars", "duckdb", "dask", "pandas")
    with tempfile.TemporaryDirectory() as tmp:
        times: dict[str, dict[int, float]] = {e: {} for e in ("csv module", *engines)}
        for size in (200_000, 1_000_000):
            path = Path(tmp) / f"long{size}.csv"
            rows = [f"{i % 2},{(i // 2) % 2},{(i // 3) % 2},{'x' * size if i == 7 else 'n'}"
                    for i in range(50)]
            path.write_text("y,a,b,note\n" + "\n".join(rows) + "\n")

            def read_csv(path: Path = path) -> None:
                with open(path, newline="") as handle:
                    csv.field_size_limit(10**8)
                    sum(1 for _ in csv.reader(handle))

            def count(engine: str, path: Path = path) -> None:
                cc.forced_runs(cc.read_table(path, engine=engine), truth="y",
                               models=["a", "b"], slot="b", fusioner="or")

            jobs = {"csv module": read_csv, **{e: (lambda e=e: count(e)) for e in engines}}
            for job in jobs.values():
                job()  # warm up: imports, first-query set-up
            for name, job in jobs.items():
                times[name][size] = median_ms(job, rounds)
        print("\nCSV with one long field, 50 rows; median of rounds")
        print("| reader | 200k chars ms | 1M chars ms | growth (linear ~5x) |")
        print("| --- | ---: | ---: | ---: |")
        worst = 0.0
        for name, t in times.items():
            growth = t[1_000_000] / t[200_000]
            worst = max(worst, growth) if name != "csv module" else worst
            print(f"| {name} | {t[200_000]:.1f} | {t[1_000_000]:.1f} | {growth:.1f}x |")
        print(f"worst engine growth {worst:.1f}x (target < 10x: {'yes' if worst < 10 else 'NO'})")


def median_ms(job: Callable[[], None], rounds: int) -> float:
    spent = []
    for _ in range(rounds):
        start = time.perf_counter()
        job()
        spent.append((time.perf_counter() - start) * 1e3)
    return statistics.median(spent)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, default=1e7, help="rows (default 1e7)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--quick", action="store_true", help="10^6 rows, 3 rounds")
    parser.add_argument("--big", action="store_true",
                        help="also count a 10^8-row parquet through DuckDB (slow; not for CI)")
    parser.add_argument("--big-rows", type=float, default=1e8, help="rows of --big")
    parser.add_argument("--memory-limit", default="512MB", help="DuckDB memory_limit for --big")
    parser.add_argument("--dask-cluster", action="store_true",
                        help="only count on a Dask frame held by a distributed.LocalCluster "
                             "(2 worker processes) against Dask's own count of the same frame")
    parser.add_argument("--partitions", type=int, default=16,
                        help="partitions of the --dask-cluster frame (default 16)")
    args = parser.parse_args(argv)
    rows, rounds = (10**6, 3) if args.quick else (int(args.rows), args.rounds)
    if args.dask_cluster:
        dask_cluster(rows, rounds, args.partitions)
        return
    bench(rows, rounds)
    long_fields(rounds)
    if args.big:
        big(int(args.big_rows), 10**7, args.memory_limit)


if __name__ == "__main__":
    main()
