"""The Dask count's task graph: one task per partition, a tree reduction, no shuffle (timed
against Dask's own count in benchmarks/bench_data.py --dask-cluster)."""

from __future__ import annotations

import math
import warnings

import dask
import dask.dataframe as dd
import narwhals as nw
import numpy as np
import pandas as pd
import pytest
from dask.core import get_dependencies

import causalcost as cc
from causalcost.data.counting import (
    DASK_SPLIT_EVERY,
    _other_names,
    count_votes,
    dask_counts,
    query_parts,
)
from causalcost.data.labels import label_rule

pytestmark = pytest.mark.filterwarnings("ignore:.*narwhals-dask.*:FutureWarning")


def logged(rows: int, seed: int) -> pd.DataFrame:
    """Truth 0/1, an int model, a string model ("pos"/"neg") and a bool model."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "y": rng.integers(0, 2, rows),
        "a": rng.integers(0, 2, rows),
        "b": np.where(rng.random(rows) < 0.4, "pos", "neg"),
        "c": rng.random(rows) < 0.5,
    })


def wrapped(frame: pd.DataFrame, partitions: int) -> nw.LazyFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return nw.from_native(dd.from_pandas(frame, npartitions=partitions))


def planned(frame: nw.LazyFrame) -> tuple[object, list[object]]:
    schema = frame.collect_schema()
    rules = [label_rule("y", schema["y"]), label_rule("a", schema["a"]),
             label_rule("b", schema["b"], positive="pos"), label_rule("c", schema["c"])]
    code, other = query_parts(rules, [r.vote() for r in rules])
    lazy, _ = dask_counts(frame, code, other, list(_other_names(rules).values()),
                          [r.column for r in rules])
    return lazy, rules


@pytest.mark.parametrize("partitions", [1, 16, 100])
def test_one_task_per_partition_and_a_tree_of_at_most_32(partitions: int) -> None:
    frame = wrapped(logged(2_000, 0), partitions)
    lazy, _ = planned(frame)
    graph = dict(lazy.__dask_graph__())
    names = {(k[0] if isinstance(k, tuple) else k).rsplit("-", 1)[0] for k in graph}
    assert not any("shuffle" in n or "repartition" in n or "split" in n for n in names), names
    n = frame.to_native().npartitions
    assert n == partitions
    # the data's own tasks (one per partition), one counting task per partition, the tree
    levels = max(1, math.ceil(math.log(max(n, 2), DASK_SPLIT_EVERY)))
    tree = sum(math.ceil(n / DASK_SPLIT_EVERY ** i) for i in range(1, levels + 1))
    assert len(graph) <= 2 * n + tree, (len(graph), names)
    assert max(len(get_dependencies(graph, key)) for key in graph) <= DASK_SPLIT_EVERY


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dask_counts_equal_numpy(seed: int) -> None:
    data = logged(3_001, seed)
    frame = wrapped(data, 7)
    _, rules = planned(frame)
    got = count_votes(frame, rules, [r.vote() for r in rules])
    votes = [data["y"].to_numpy() == 1, data["a"].to_numpy() == 1,
             data["b"].to_numpy() == "pos", data["c"].to_numpy()]
    expected = np.zeros((2,) * 4, dtype=np.int64)  # index 0 = positive on every axis
    np.add.at(expected, tuple((~v).astype(int) for v in votes), 1)
    assert got.tolist() == expected.tolist()
    assert int(got.sum()) == len(data)


def test_forced_runs_on_dask_equal_pandas_with_one_compute() -> None:
    data = logged(5_000, 4)
    data["b"] = (data["b"] == "pos").astype(int)
    frame = dd.from_pandas(data, npartitions=16)
    kwargs = {"truth": "y", "models": ["a", "b", "c"], "slot": "c", "fusioner": "majority"}
    computes: list[int] = []

    class Count(dask.callbacks.Callback):
        def _start(self, dsk: object) -> None:
            computes.append(1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with Count():
            on_dask = cc.forced_runs(frame, **kwargs)
    on_pandas = cc.forced_runs(data, **kwargs)
    assert len(computes) == 1
    assert on_dask.forced_p == on_pandas.forced_p
    assert on_dask.forced_n == on_pandas.forced_n
    assert on_dask.observed == on_pandas.observed


def test_a_bad_label_on_dask_is_named() -> None:
    data = logged(400, 5)
    data.loc[17, "b"] = "maybe"  # a third label in a string column
    frame = dd.from_pandas(data, npartitions=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(cc.DataError, match="column 'b' must hold two labels.*'maybe'"):
            cc.forced_runs(frame, truth="y", models=["a", "b", "c"], slot="c",
                           fusioner="majority", positive="pos")
