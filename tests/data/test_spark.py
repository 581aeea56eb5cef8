"""PySpark: the same counts as the row-by-row reference on every fusioner, with nulls, string
labels, ``with_candidate``, and a stopped session.

These tests need PySpark and Java. Without them they are skipped, unless the environment
variable ``CAUSALCOST_REQUIRE_SPARK=1`` is set (as ``.ci/run`` does), which turns the skip into
a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from numpy_reference import reference_counts

import causalcost as cc
from causalcost.errors import DataError


def _need_spark() -> None:
    missing = []
    try:
        import pyspark  # noqa: F401
    except ImportError:
        missing.append("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        missing.append("java")
    if missing:
        reason = f"PySpark tests need {' and '.join(missing)}"
        if os.environ.get("CAUSALCOST_REQUIRE_SPARK") == "1":
            pytest.fail(f"{reason}, and CAUSALCOST_REQUIRE_SPARK=1 forbids skipping them",
                        pytrace=False)
        pytest.skip(reason, allow_module_level=True)


_need_spark()

ROWS = 400
MODELS = ["m_bool", "m_int", "m_str", "m_text"]
SCHEMA = "truth string, m_bool boolean, m_int int, m_str string, m_text string, cand int"
FUSIONERS: dict[str, dict[str, Any]] = {
    "and": {}, "or": {}, "majority": {"tie": "positive"}, "majority_neg": {"tie": "negative"},
    "k_of_n": {"k": 3}, "weighted": {"weights": [2, 1, 1, 3], "threshold": 4},
    "weighted_fractional": {"weights": [0.25, 0.5, 0.125, 0.375], "threshold": 0.625},
}


def rows(seed: int = 11, n: int = ROWS) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    v = [np.where(rng.random(n) < p, y, ~y) for p in (0.8, 0.7, 0.75, 0.6, 0.85)]
    return [("sick" if y[i] else "well", bool(v[0][i]), int(v[1][i]),
             "sick" if v[2][i] else "well", "1" if v[3][i] else "0", int(v[4][i]))
            for i in range(n)]


POSITIVE = {"truth": "sick", "m_bool": True, "m_int": 1, "m_str": "sick", "m_text": "1"}


def reference(data: list[tuple[Any, ...]], slot: str, rule: str, **options: Any) -> list:
    columns = {m: [r[1 + i] for r in data] for i, m in enumerate(MODELS)}
    return reference_counts([r[0] for r in data], columns, slot, POSITIVE, rule,
                            **options).tolist()


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[1]").appName("causalcost-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "1").getOrCreate())
    yield session
    session.stop()


@pytest.fixture(scope="module")
def table(spark: Any) -> Any:
    return spark.createDataFrame(rows(), schema=SCHEMA)


@pytest.mark.parametrize("name", FUSIONERS)
def test_every_fusioner_counts_as_the_reference(table: Any, name: str) -> None:
    rule = name.removesuffix("_neg").removesuffix("_fractional")
    runs = cc.forced_runs(table, truth="truth", models=MODELS, slot="m_int", fusioner=rule,
                          positive="sick", **FUSIONERS[name])
    assert runs.counts.tolist() == reference(rows(), "m_int", rule, **FUSIONERS[name])
    assert runs.provenance["engine"] == "pyspark" and runs.provenance["lazy"]


def test_the_same_runs_as_pandas(table: Any) -> None:
    import pandas as pd

    frame = pd.DataFrame(rows(), columns=[c.split()[0] for c in SCHEMA.split(", ")])
    options = {"truth": "truth", "models": MODELS, "slot": "m_str", "fusioner": "majority",
               "tie": "positive", "positive": "sick"}
    assert cc.forced_runs(table, **options) == cc.forced_runs(frame, **options)


def test_the_flipped_positive_label_counts_the_other_class(spark: Any) -> None:
    data = [(r[0], r[3]) for r in rows()]
    frame = spark.createDataFrame(data, schema="truth string, m_str string")
    runs = cc.forced_runs(frame, truth="truth", models=["m_str"], slot="m_str", fusioner="or",
                          positive="well")
    y = np.array([r[0] == "well" for r in data])
    vote = np.array([r[1] == "well" for r in data])
    assert runs.forced_p.positives == int(y.sum())
    assert runs.slot_confusion == cc.Confusion.from_predictions(y, vote, positive=True)


def test_nulls_and_third_labels_are_named(spark: Any) -> None:
    data = rows(n=40)
    data[5] = (data[5][0], None, *data[5][2:])
    frame = spark.createDataFrame(data, schema=SCHEMA)
    with pytest.raises(DataError, match=r"column 'm_bool' has 1 row\(s\) with no label"):
        cc.forced_runs(frame, truth="truth", models=MODELS, slot="m_int", fusioner="or",
                       positive="sick")
    data = rows(n=40)
    data[7] = ("unsure", *data[7][1:])
    frame = spark.createDataFrame(data, schema=SCHEMA)
    with pytest.raises(DataError, match=r"column 'truth' must hold two labels.*'unsure'"):
        cc.forced_runs(frame, truth="truth", models=MODELS, slot="m_int", fusioner="or",
                       positive="sick")


def test_with_candidate_counts_the_system_with_a_column_in_the_slot(table: Any) -> None:
    runs = cc.forced_runs(table, truth="truth", models=MODELS, slot="m_int", fusioner="k_of_n",
                          k=2, positive="sick")
    got = runs.with_candidate("cand", positive=1)
    data = rows()
    f = cc.make_fusioner("k_of_n", MODELS, k=2)
    cells = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    for r in data:
        votes = (r[1], r[5] == 1, r[3] == "sick", r[4] == "1")
        says, truth = f(votes), r[0] == "sick"
        cells[("t" if says == truth else "f") + ("p" if says else "n")] += 1
    assert got == cc.Confusion(**cells)
    with pytest.raises(DataError, match=r"lazy pyspark frame"):
        runs.with_candidate(np.ones(ROWS, dtype=int))


def test_a_stopped_session_is_an_error_not_a_hang(spark: Any) -> None:
    """Last in the file: it stops the module's session (the fixture's stop is then a no-op)."""
    frame = spark.createDataFrame(rows(n=20), schema=SCHEMA)
    runs = cc.forced_runs(frame, truth="truth", models=MODELS, slot="m_int", fusioner="or",
                          positive="sick")
    assert runs.n == 20
    spark.stop()
    assert runs.to_dict()["n"] == 20  # the counts stay usable
    with pytest.raises(DataError, match=r"the Spark session of this data frame was stopped"):
        runs.with_candidate("cand", positive=1)
    with pytest.raises(DataError, match=r"session of this data frame was stopped"):
        cc.forced_runs(frame, truth="truth", models=MODELS, slot="m_int", fusioner="and",
                       positive="sick")
