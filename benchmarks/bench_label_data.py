"""Time K-label forced runs counted on data frame engines against one numpy bincount.

Run with ``python benchmarks/bench_label_data.py`` (10^6 rows, 5 rounds; ``--rows``,
``--rounds``). A log with string labels ``a, b, c`` (truth ``y``, four models, plurality, slot
``m2``) is counted by :func:`causalcost.forced_runs` with ``labels=`` held by pandas, polars
(eager and lazy) and DuckDB, and by the floor: the same columns as integer codes, one
``np.bincount`` of the encoded vote pattern and the plurality on the at most 3^5 patterns in
numpy. Each engine is reported as a ratio to the floor measured in the same run (medians of the
rounds, rounds interleaved). The binary ``forced_runs`` (majority) on 0/1 columns of the same
size is timed beside it, as a reference.

Target: the best engine within 10x of the floor (the floor starts from integer codes; the
engines read strings).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

LABELS = ["a", "b", "c"]
MODELS = ["m1", "m2", "m3", "m4"]


def make(rows: int, seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, rows)
    codes = {"y": y}
    for m in MODELS:
        codes[m] = np.where(rng.random(rows) < 0.7, y, rng.integers(0, 3, rows))
    names = np.array(LABELS)
    return codes, {k: names[v] for k, v in codes.items()}


def floor(codes: dict[str, np.ndarray]) -> np.ndarray:
    from causalcost.network.fusioners import make_fusioner as make_multiclass_fusioner

    cols = ["y", "m1", "m3", "m4"]
    code = np.zeros(len(codes["y"]), dtype=np.int64)
    for c in cols:
        code = code * 3 + codes[c]
    sizes = np.bincount(code, minlength=3 ** len(cols))
    pattern = np.array(np.unravel_index(np.arange(3 ** len(cols)), (3,) * len(cols))).T
    fus = make_multiclass_fusioner("plurality", MODELS, labels=LABELS)
    forced = np.zeros((3, 3, 3), dtype=np.int64)
    for j in range(3):
        votes = np.column_stack([pattern[:, 1], np.full(len(pattern), j), pattern[:, 2],
                                 pattern[:, 3]])
        np.add.at(forced[j], (pattern[:, 0], fus.apply(votes)), sizes)
    return forced


def main() -> None:
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    import causalcost as cc

    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    codes, strings = make(args.rows)
    pdf = pd.DataFrame(strings)
    frames = {"pandas": pdf, "polars": pl.DataFrame(strings),
              "polars_lazy": pl.DataFrame(strings).lazy(),
              "duckdb": duckdb.from_arrow(pa.Table.from_pandas(pdf, preserve_index=False))}
    want = floor(codes)
    binary = pl.DataFrame({k: (v == 0) for k, v in codes.items()}).lazy()
    jobs = {"floor (numpy)": lambda: floor(codes),
            "binary majority (polars lazy)": lambda: cc.forced_runs(
                binary, truth="y", models=MODELS, slot="m2", fusioner="majority")}
    for name, frame in frames.items():
        def job(frame: object = frame) -> object:
            runs = cc.forced_runs(frame, truth="y", models=MODELS, slot="m2",
                                  fusioner="plurality", labels=LABELS)
            assert np.array_equal(runs.forced, want)
            return runs
        jobs[name] = job
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(args.rounds):
        for name, job in jobs.items():
            start = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["floor (numpy)"])
    print(f"{args.rows} rows, median of {args.rounds} rounds")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"  {name:<32}{m:8.4f} s  {m / base:6.2f} x floor")


if __name__ == "__main__":
    main()
