"""The same forced runs on every engine, and agreement with the network's exact table."""

from __future__ import annotations

import json
import math
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
from engine_frames import ENGINES as SHARED_ENGINES

import causalcost as cc
from causalcost.errors import DataError, ValidationError

ENGINES = SHARED_ENGINES
EAGER = ("pandas", "polars", "pyarrow")
LAZY = ("polars_lazy", "duckdb", "dask")


def mixed_table(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """Truth as strings, models as bool, 0/1 int, 0/1 float and strings."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    right = [rng.random(n) < p for p in (0.8, 0.7, 0.9, 0.6)]
    votes = [np.where(r, y, ~y) for r in right]
    return pd.DataFrame({
        "truth": np.where(y, "sick", "well"),
        "m_bool": votes[0],
        "m_int": votes[1].astype(np.int64),
        "m_float": votes[2].astype(float),
        "m_str": np.where(votes[3], "sick", "well"),
        "unused": rng.random(n),
    })


MODELS = ["m_bool", "m_int", "m_float", "m_str"]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return mixed_table()


@pytest.fixture(scope="module")
def reference(table: pd.DataFrame) -> cc.ForcedRuns:
    return cc.forced_runs(table, truth="truth", models=MODELS, slot="m_int",
                          fusioner="k_of_n", k=2, positive="sick")


@pytest.mark.parametrize("engine", ENGINES)
def test_identical_counts_on_every_engine(table: pd.DataFrame, reference: cc.ForcedRuns,
                                          engine: str) -> None:
    runs = cc.forced_runs(ENGINES[engine](table), truth="truth", models=MODELS, slot="m_int",
                          fusioner="k_of_n", k=2, positive="sick")
    assert runs == reference and hash(runs) == hash(reference)
    assert np.array_equal(runs.counts, reference.counts)
    assert runs.kinds.equals(reference.kinds)
    assert runs.provenance["counts_sha256"] == reference.provenance["counts_sha256"]
    assert runs.provenance["engine"] == {"polars_lazy": "polars"}.get(engine, engine)
    assert runs.provenance["rows"] == len(table) == runs.n
    assert runs.provenance["lazy"] == (engine in LAZY)


def test_pyspark_counts_the_same(table: pd.DataFrame, reference: cc.ForcedRuns) -> None:
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("PySpark needs Java")
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").getOrCreate()
    frame = spark.createDataFrame(table)
    runs = cc.forced_runs(frame, truth="truth", models=MODELS, slot="m_int", fusioner="k_of_n",
                          k=2, positive="sick")
    assert runs == reference


def test_runs_agree_with_a_row_by_row_count(table: pd.DataFrame,
                                            reference: cc.ForcedRuns) -> None:
    f = cc.make_fusioner("k_of_n", MODELS, k=2)
    y = (table.truth == "sick").to_numpy()
    votes = np.column_stack([table.m_bool, table.m_int == 1, table.m_float == 1,
                             table.m_str == "sick"])
    cells = {"forced_p": [0] * 4, "forced_n": [0] * 4, "observed": [0] * 4}
    for truth, row in zip(y, votes):
        for run, slot_vote in (("forced_p", True), ("forced_n", False), ("observed", row[1])):
            says = f((row[0], bool(slot_vote), row[2], row[3]))
            cells[run][(0 if truth else 2) + (0 if says == truth else 1)] += 1
    for run, (tp, fn, tn, fp) in cells.items():
        assert getattr(reference, run) == cc.Confusion(tp=tp, fn=fn, fp=fp, tn=tn), run
    assert reference.slot_confusion == cc.Confusion.from_predictions(y, votes[:, 1],
                                                                     positive=True)


# -- agreement with the exact interventional table ---------------------------------------------
NETWORKS = {"majority3": "majority", "experiment_or": "or"}
SAMPLES = 20_000


@pytest.fixture(scope="module")
def simulated() -> dict[str, tuple[cc.System, pd.DataFrame]]:
    out = {}
    for name in NETWORKS:
        system = cc.load_network(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sample = system.network.simulate(n_samples=SAMPLES, seed=11, show_progress=False)
        out[name] = (system, sample[[system.class_node, *system.models, system.system_node]])
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NETWORKS)
def test_forced_rates_from_sampled_data_match_the_exact_table(simulated, name: str,
                                                              engine: str) -> None:
    system, sample = simulated[name]
    runs = cc.forced_runs(ENGINES[engine](sample), truth=system.class_node,
                          models=list(system.models), slot=system.slot,
                          fusioner=NETWORKS[name], positive=system.positive)
    exact = cc.interventional_table(system).error_rates.to_dict()
    got = runs.error_rates().to_dict()
    sizes = {"P": runs.forced_p.positives, "N": runs.forced_p.negatives}
    for c in ("P", "N"):
        for x in ("P", "N"):
            e = exact[c][x]
            tolerance = 4 * math.sqrt(e * (1 - e) / sizes[c]) + 1e-12
            assert abs(got[c][x] - e) <= tolerance, (name, engine, c, x, got[c][x], e)
    # the system as deployed is the network's own fusioner column
    deployed = cc.Confusion.from_predictions(sample[system.class_node].astype(str),
                                             sample[system.system_node].astype(str),
                                             positive=system.positive)
    assert runs.observed == deployed


# -- user functions: eager yes, lazy no --------------------------------------------------------
def xor(m_bool, m_int, m_float, m_str):
    return m_bool ^ m_int ^ m_float ^ m_str


@pytest.mark.parametrize("engine", EAGER)
def test_a_function_fusioner_runs_on_eager_frames(table: pd.DataFrame, engine: str) -> None:
    runs = cc.forced_runs(ENGINES[engine](table), truth="truth", models=MODELS, slot="m_int",
                          fusioner="function", function=xor, positive="sick")
    prebuilt = cc.forced_runs(table, truth="truth", models=MODELS, slot="m_int",
                              fusioner=cc.make_fusioner("function", MODELS, function=xor),
                              positive="sick")
    assert runs == prebuilt
    assert not runs.monotone_on_data  # XOR: some instances fail only when the slot is right
    assert (runs.kinds["right_only"] > 0).all()


@pytest.mark.parametrize("engine", LAZY)
def test_a_function_fusioner_is_refused_on_lazy_frames(table: pd.DataFrame, engine: str) -> None:
    with pytest.raises(ValidationError, match=r"cannot run inside a lazy .* frame.*and, or, "
                                              r"majority, k_of_n, weighted"):
        cc.forced_runs(ENGINES[engine](table), truth="truth", models=MODELS, slot="m_int",
                       fusioner="function", function=xor, positive="sick")


# -- the slot's column, candidates, output ----------------------------------------------------
def test_the_slot_column_is_optional(table: pd.DataFrame, reference: cc.ForcedRuns) -> None:
    without = cc.forced_runs(table.drop(columns="m_int"), truth="truth", models=MODELS,
                             slot="m_int", fusioner="k_of_n", k=2, positive="sick")
    assert without.observed is None and without.slot_confusion is None
    assert (without.forced_p, without.forced_n) == (reference.forced_p, reference.forced_n)
    assert without.kinds.equals(reference.kinds)
    ignored = cc.forced_runs(table, truth="truth", models=MODELS, slot="m_int",
                             fusioner="k_of_n", k=2, positive="sick", observed=False)
    assert ignored == without and not ignored.provenance["slot_column"]
    with pytest.raises(DataError, match="column 'm_int' is not in the data"):
        cc.forced_runs(table.drop(columns="m_int"), truth="truth", models=MODELS, slot="m_int",
                       fusioner="k_of_n", k=2, positive="sick", observed=True)
    with pytest.raises(DataError, match="column 'm_str' is not in the data"):
        cc.forced_runs(table.drop(columns="m_str"), truth="truth", models=MODELS, slot="m_int",
                       fusioner="k_of_n", k=2, positive="sick")
    assert "observed: None (no column 'm_int' counted)" in repr(without)


@pytest.mark.parametrize("engine", ENGINES)
def test_with_candidate(table: pd.DataFrame, reference: cc.ForcedRuns, engine: str) -> None:
    runs = cc.forced_runs(ENGINES[engine](table), truth="truth", models=MODELS, slot="m_int",
                          fusioner="k_of_n", k=2, positive="sick")
    assert runs.with_candidate("m_int") == reference.observed  # the deployed model itself
    rng = np.random.default_rng(3)
    candidate = rng.random(len(table)) < 0.5
    f = cc.make_fusioner("k_of_n", MODELS, k=2)
    expected = [0] * 4
    for (_, row), vote in zip(table.iterrows(), candidate):
        truth = row.truth == "sick"
        says = f((bool(row.m_bool), bool(vote), row.m_float == 1, row.m_str == "sick"))
        expected[(0 if truth else 2) + (0 if says == truth else 1)] += 1
    tp, fn, tn, fp = expected
    if engine in EAGER:
        assert runs.with_candidate(candidate) == cc.Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
        labels = np.where(candidate, "sick", "well")
        assert runs.with_candidate(labels) == runs.with_candidate(candidate.astype(int))
        with pytest.raises(DataError, match="has 3 values but the runs were counted on 3000"):
            runs.with_candidate([1, 0, 1])
    else:
        with pytest.raises(DataError, match="pass the name of a column"):
            runs.with_candidate(candidate)


def test_output_forms(reference: cc.ForcedRuns) -> None:
    frame = reference.to_frame()
    assert list(frame.index) == ["forced_p", "forced_n", "observed", "slot_model"]
    assert list(frame.columns) == ["tp", "fn", "fp", "tn"]
    assert frame.loc["forced_p"].tolist() == [int(v) for v in reference.forced_p.cells()]
    kinds = reference.kinds
    assert list(kinds.columns) == ["never", "wrong_only", "always", "right_only"]
    assert kinds.index.name == "class" and list(kinds.index) == ["P", "N"]
    assert all(dtype.kind == "i" for dtype in kinds.dtypes)
    data = json.loads(json.dumps(reference.to_dict()))
    assert data["forced_p"] == {k: int(v) for k, v in reference.forced_p.to_dict().items()}
    assert data["kinds"]["P"] == kinds.loc["P"].to_dict()
    text = repr(reference)
    assert text.startswith("ForcedRuns(slot='m_int', fusioner=2 of 4, n=3000")
    assert "kinds P:" in text and "monotone_on_data: True" in text
    assert reference.table().method == "counts"


def test_data_as_mapping_and_as_path(table: pd.DataFrame, reference: cc.ForcedRuns,
                                     tmp_path) -> None:
    columns = {c: table[c].to_numpy() for c in ["truth", *MODELS]}
    assert cc.forced_runs(columns, truth="truth", models=MODELS, slot="m_int", fusioner="k_of_n",
                          k=2, positive="sick") == reference
    path = tmp_path / "runs.parquet"
    table.to_parquet(path)
    runs = cc.forced_runs(path, truth="truth", models=MODELS, slot="m_int", fusioner="k_of_n",
                          k=2, positive="sick")
    assert runs == reference and runs.provenance["file"] == str(path)


def test_argument_errors(table: pd.DataFrame) -> None:
    base = {"truth": "truth", "models": MODELS, "fusioner": "majority", "positive": "sick"}
    with pytest.raises(ValidationError, match="slot 'x' must be one of the models"):
        cc.forced_runs(table, slot="x", **base)
    with pytest.raises(ValidationError, match="cannot also be a model"):
        cc.forced_runs(table, **{**base, "truth": "m_int"}, slot="m_int")
    with pytest.raises(ValidationError, match="fusioner rule"):
        cc.forced_runs(table, slot="m_int", **{**base, "fusioner": "median"})
    with pytest.raises(DataError, match="cannot count a builtins.list"):
        cc.forced_runs([1, 2], slot="m_int", **base)
