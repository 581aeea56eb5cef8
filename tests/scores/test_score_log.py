"""Critical scores of a score log on every engine: ``cc.forced_runs`` with a score fusioner.

Independent checks: the numpy route (``critical_scores`` / ``score_runs`` on the same arrays)
gives the same critical scores (rel 1e-9, infinities equal) and the same observed confusion
exactly; the rule evaluated directly on every row (``ScoreRule.decide`` on the row's scores)
agrees with ``observed >= critical`` on random logs; the majority vote's forced runs of the
same 0/1 log equal the mean rule's ``forced_at(1)`` / ``forced_at(0)``.
"""

from __future__ import annotations

import os
import shutil
import warnings
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from engine_frames import ENGINES as SHARED_ENGINES
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.critical_scores import critical_scores
from causalcost.data.score_runs import score_runs
from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.network.score_rules import score_rule

RTOL = 1e-9  # critical scores: engines and numpy agree to this relative tolerance
ATOL = 1e-12

ENGINES = {**SHARED_ENGINES,
    "mapping": lambda df: {c: df[c].to_numpy() for c in df.columns},
}
MODELS = ["a", "b", "c", "d"]
RULES: dict[str, dict[str, Any]] = {
    "mean": {"fusioner": "mean", "weights": [1.0, 2.0, 0.5, 1.5], "threshold": 0.5},
    "mean_mapping": {"fusioner": "mean", "weights": {"d": 1.5, "a": 1.0, "b": 2.0, "c": 0.5},
                     "threshold": 0.3},
    "logistic": {"fusioner": "logistic", "weights": [1.5, -0.7, 2.0, 0.9], "bias": -1.2,
                 "threshold": 0.4},
    "max": {"fusioner": "max", "threshold": 0.7},
    "min": {"fusioner": "min", "threshold": 0.3},
}
GRID = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.9, 1.0, 1 / 3, 2 / 3]


def score_log(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Scores of four models (a quarter of them on a grid of boundary values), truth 0/1."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = np.clip(rng.normal(0.5, 0.25, (n, 4)) + 0.15 * y[:, None], 0, 1)
    on_grid = rng.random((n, 4)) < 0.25
    s[on_grid] = rng.choice(GRID, on_grid.sum())
    return pd.DataFrame({"y": y.astype(int), **{m: s[:, i] for i, m in enumerate(MODELS)}},
                        index=pd.RangeIndex(100, 100 + n))


def numpy_weights(kw: dict[str, Any]) -> dict[str, Any]:
    w = kw.get("weights")
    return {**kw, "weights": [w[m] for m in MODELS]} if isinstance(w, dict) else kw


def same_critical(got: np.ndarray, want: np.ndarray) -> None:
    assert np.array_equal(np.isposinf(got), np.isposinf(want))
    assert np.array_equal(np.isneginf(got), np.isneginf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=RTOL, atol=ATOL)


@pytest.fixture(scope="module")
def log() -> pd.DataFrame:
    return score_log()


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_gives_the_numpy_critical_scores(log: pd.DataFrame, engine: str,
                                                      rule: str) -> None:
    kw = RULES[rule]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # narwhals' Dask plug-in notice
        runs = cc.forced_runs(ENGINES[engine](log), truth="y", models=MODELS, slot="c", **kw)
    assert isinstance(runs, cc.ScoreRuns)
    s = log[MODELS].to_numpy()
    want = critical_scores(s, slot=2, **numpy_weights(kw))
    same_critical(runs.critical, want)
    reference = score_runs(log, truth="y", models=MODELS, slot="c", **numpy_weights(kw))
    assert runs.observed == reference.observed
    assert np.array_equal(runs.truth, log["y"].to_numpy() == 1)
    assert np.array_equal(runs.observed_scores, s[:, 2])
    decide = score_rule(n_models=4, slot=2, **numpy_weights(kw)).decide(s)
    assert np.array_equal(runs.observed_scores >= runs.critical, decide)  # 0 disagreements
    assert runs.provenance["rows"] == len(log) and runs.provenance["slot"] == "c"


@pytest.mark.parametrize("engine", ["pandas", "polars_lazy", "duckdb", "dask"])
def test_a_function_rule_is_collected_and_bisected(log: pd.DataFrame, engine: str) -> None:
    def product(s: np.ndarray) -> np.ndarray:  # non-decreasing in every score on [0, 1]
        return s.prod(axis=1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        runs = cc.forced_runs(ENGINES[engine](log), truth="y", models=MODELS, slot="b",
                              fusioner=product, scores=True, threshold=0.02)
    want = score_runs(log, truth="y", models=MODELS, slot="b", fusioner=product,
                      threshold=0.02)
    assert np.array_equal(runs.critical, want.critical) and runs.observed == want.observed
    assert runs.rule == want.rule


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_file_is_scanned_and_its_text_parsed(log: pd.DataFrame, tmp_path: Any,
                                               suffix: str) -> None:
    path = tmp_path / f"log{suffix}"
    if suffix == ".csv":
        log.to_csv(path, index=False, float_format="%.17g")
    else:
        pq.write_table(pa.Table.from_pandas(log, preserve_index=False), path)
    runs = cc.forced_runs(path, truth="y", models=MODELS, slot="a", fusioner="mean",
                          weights=[1, 2, 3, 4])
    want = critical_scores(log[MODELS].to_numpy(), slot=0, weights=[1, 2, 3, 4])
    same_critical(runs.critical, want)
    assert runs.provenance["file"] == str(path) and runs.index is None


def test_a_csv_score_that_is_not_a_number_is_refused(tmp_path: Any) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("y,a,b\n1,0.5,0.2\n0,high,0.1\n")
    with pytest.raises(cc.ScoreValueError, match=r"score column 'a': row 1 holds the text "
                                                 r"'high', not a number"):
        cc.forced_runs(path, truth="y", models=["a", "b"], slot="b", fusioner="mean")


def test_pandas_keeps_its_index_and_other_engines_are_positional(log: pd.DataFrame) -> None:
    runs = cc.forced_runs(log, truth="y", models=MODELS, slot="d", fusioner="max")
    assert runs.index.equals(log.index)
    shuffled = log["a"].sample(frac=1.0, random_state=1)  # aligned by index, not position
    assert runs.with_candidate(shuffled) == runs.with_candidate(log["a"].to_numpy())
    lazy = cc.forced_runs(pl.from_pandas(log).lazy(), truth="y", models=MODELS, slot="d",
                          fusioner="max")
    assert lazy.index is None
    assert lazy.with_candidate(log["a"].to_numpy()) == runs.with_candidate(log["a"])


# ------------------------------------------------------------------ random logs, the rule
ROW = st.lists(st.one_of(st.sampled_from(GRID), st.floats(0, 1)), min_size=3, max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["mean", "logistic", "max", "min"]),
       st.sampled_from(["pandas", "polars_lazy", "duckdb"]),
       st.lists(ROW, min_size=1, max_size=25), st.integers(0, 2), st.integers(0, 2**31))
def test_observed_scores_agree_with_the_rule_on_every_row(kind: str, engine: str,
                                                          rows: list[list[float]], slot: int,
                                                          seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = np.array(rows, dtype=float)
    y = rng.random(len(s)) < 0.5
    kw: dict[str, Any] = {"fusioner": kind,
                          "threshold": float(rng.choice([0.3, 0.5, 1 / 3, 0.6]))}
    if kind == "mean":
        kw["weights"] = list(rng.integers(1, 4, 3) / 2)
    elif kind == "logistic":
        kw["weights"] = list(np.round(rng.normal(0, 2, 3), 1))
        kw["weights"][slot] = abs(kw["weights"][slot]) + 0.5
        kw["bias"] = float(np.round(rng.normal(), 2))
    names = ["m0", "m1", "m2"]
    frame = pd.DataFrame({"y": y, **{m: s[:, i] for i, m in enumerate(names)}})
    runs = cc.forced_runs(ENGINES[engine](frame), truth="y", models=names, slot=names[slot],
                          **kw)
    decide = score_rule(n_models=3, slot=slot, **kw).decide(s)
    assert np.array_equal(runs.observed_scores >= runs.critical, decide)
    same_critical(runs.critical, critical_scores(s, slot=slot, **kw))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([3, 5]), st.integers(1, 60), st.integers(0, 2**31),
       st.sampled_from(["pandas", "polars_lazy", "duckdb"]))
def test_a_mean_of_0_1_scores_is_the_majority_vote(m: int, n: int, seed: int,
                                                   engine: str) -> None:
    rng = np.random.default_rng(seed)
    names = [f"m{i}" for i in range(m)]
    frame = pd.DataFrame({"y": rng.integers(0, 2, n),
                          **{c: rng.integers(0, 2, n) for c in names}})
    slot = names[int(rng.integers(m))]
    scores = cc.forced_runs(ENGINES[engine](frame), truth="y", models=names, slot=slot,
                            fusioner="mean", threshold=0.5)
    votes = cc.forced_runs(frame, truth="y", models=names, slot=slot, fusioner="majority")
    assert scores.forced_at(1.0) == votes.forced_p
    assert scores.forced_at(0.0) == votes.forced_n
    assert scores.observed == votes.observed


# --------------------------------------------------------------------------- bad inputs
def test_a_missing_column_is_named(log: pd.DataFrame) -> None:
    with pytest.raises(DataError, match=r"column 'z' is not in the data"):
        cc.forced_runs(log, truth="y", models=["a", "z"], slot="a", fusioner="mean")
    with pytest.raises(DataError, match=r"column 'truth' is not in the data"):
        cc.forced_runs(log, truth="truth", models=["a", "b"], slot="a", fusioner="max")


@pytest.mark.parametrize("fusioner", ["mean", "max", "min", "logistic"])
@pytest.mark.parametrize("engine", ["pandas", "polars_lazy", "duckdb", "dask"])
def test_nan_and_null_scores_are_refused_with_the_column_and_row(engine: str,
                                                                 fusioner: str) -> None:
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "a": [0.1, 0.2, 0.3, 0.4],
                          "b": [0.5, np.nan, np.nan, 0.1]})
    weights = {"weights": [1.0, 1.0]} if fusioner == "logistic" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(cc.ScoreValueError, match=r"score column 'b' on row 1 is missing "
                                                     r"\(NaN or null\) \(and 1 other"):
            cc.forced_runs(ENGINES[engine](frame), truth="y", models=["a", "b"], slot="a",
                           fusioner=fusioner, **weights)


@pytest.mark.parametrize("engine", ["pandas", "polars_lazy", "duckdb"])
def test_string_scores_are_refused(engine: str) -> None:
    frame = pd.DataFrame({"y": [1, 0], "a": [0.1, 0.2], "b": ["high", "low"]})
    with pytest.raises(cc.ScoreValueError, match=r"score column 'b': row 0 holds the text "
                                                 r"'high', not a number"):
        cc.forced_runs(ENGINES[engine](frame), truth="y", models=["a", "b"], slot="a",
                       fusioner="mean")


@pytest.mark.parametrize("engine", ["pandas", "polars_lazy"])
def test_a_truth_of_three_labels_is_refused_as_not_binary(engine: str) -> None:
    frame = pd.DataFrame({"y": ["cat", "dog", "eel"], "a": [0.1, 0.2, 0.3],
                          "b": [0.5, 0.6, 0.1]})
    with pytest.raises(DataError, match=r"truth: column 'y' holds 3 labels \('cat', 'dog', "
                                        r"'eel'\); one score per model is a binary "
                                        r"system .*labels=\[\.\.\.\] with scores="):
        cc.forced_runs(ENGINES[engine](frame), truth="y", models=["a", "b"], slot="a",
                       fusioner="mean", positive="cat")


def test_string_truth_with_positive_works_as_for_votes() -> None:
    frame = pd.DataFrame({"y": ["sick", "well", "sick"], "a": [0.9, 0.2, 0.3],
                          "b": [0.5, 0.6, 0.1]})
    runs = cc.forced_runs(frame, truth="y", models=["a", "b"], slot="a", fusioner="max",
                          threshold=0.5, positive="sick")
    assert runs.truth.tolist() == [True, False, True] and runs.positive == "sick"
    assert runs.observed == cc.Confusion(tp=1, fn=1, fp=1, tn=0)


def test_labels_with_a_score_fusioner_ask_for_the_vector_columns(log: pd.DataFrame) -> None:
    with pytest.raises(ValidationError, match=r"^a log of probability vectors names each "
                                              r"model's column for each label: scores="):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="mean", labels=[0, 1])


@pytest.mark.parametrize("option", [{"k": 2}, {"tie": "positive"},
                                    {"observed": True}, {"function": min},
                                    {"order": [0, 1]}, {"label": 1}])
def test_vote_options_are_refused_with_a_score_fusioner(log: pd.DataFrame,
                                                        option: dict[str, Any]) -> None:
    (name,) = option
    with pytest.raises(ValidationError, match=rf"^{name}= is an option of the vote fusioners; "
                                              r"the 'mean' fusioner reads score columns"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="mean", **option)


def test_score_options_and_flags_are_checked(log: pd.DataFrame) -> None:
    with pytest.raises(ValidationError, match=r"^bias= is an option of the score fusioners"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="majority", bias=1)
    with pytest.raises(ValidationError, match=r"a function as fusioner fuses score columns: "
                                              r"pass scores=True"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner=np.max)
    with pytest.raises(ValidationError, match=r"scores=True needs a score fusioner"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="majority",
                       scores=True)
    with pytest.raises(ValidationError, match=r"the 'mean' fusioner reads score columns; "
                                              r"scores=False"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="mean",
                       scores=False)
    with pytest.raises(ValidationError, match=r"weights: a mapping must give one weight per "
                                              r"model .*no weight for \['d'\]"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="mean",
                       weights={"a": 1, "b": 1, "c": 1})
    with pytest.raises(InputTypeError, match=r"weights must be numbers"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="a", fusioner="mean",
                       weights="abcd")
    with pytest.raises(ValidationError, match=r"slot 'z' must be one of the models"):
        cc.forced_runs(log, truth="y", models=MODELS, slot="z", fusioner="mean")


# ------------------------------------------------------------------------------ PySpark
def _spark_or_skip() -> None:
    missing = [name for name, ok in (("pyspark", _has_pyspark()),
                                     ("java", shutil.which("java") is not None
                                      or bool(os.environ.get("JAVA_HOME")))) if not ok]
    if missing:
        reason = f"the PySpark test needs {' and '.join(missing)}"
        if os.environ.get("CAUSALCOST_REQUIRE_SPARK") == "1":
            pytest.fail(f"{reason}, and CAUSALCOST_REQUIRE_SPARK=1 forbids skipping it",
                        pytrace=False)
        pytest.skip(reason)


def _has_pyspark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_pyspark_gives_the_numpy_critical_scores() -> None:
    _spark_or_skip()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("causalcost-score-log")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1").getOrCreate())
    try:
        log = score_log(n=60, seed=3)
        frame = spark.createDataFrame(log.reset_index(drop=True))
        for kw in (RULES["mean"], RULES["max"]):
            runs = cc.forced_runs(frame, truth="y", models=MODELS, slot="c", **kw)
            same_critical(runs.critical, critical_scores(log[MODELS].to_numpy(), slot=2, **kw))
            assert runs.provenance["engine"] == "pyspark"
    finally:
        spark.stop()


# ------------------------------------------------------------- the float step, the switch
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["mean", "logistic"]), st.lists(ROW, min_size=1, max_size=25),
       st.integers(0, 2**31))
def test_the_critical_score_is_the_rules_float_step(kind: str, rows: list[list[float]],
                                                    seed: int) -> None:
    """P at t and N at the float below, for the rule on every column (numpy) and, with the
    slot last (where the other models' part and the slot's term add in the rule's order), on
    a lazy engine; no row needs the observed-score fix."""
    rng = np.random.default_rng(seed)
    s = np.array(rows, dtype=float)
    kw: dict[str, Any] = {"fusioner": kind, "threshold": float(rng.choice([0.3, 0.5, 0.6]))}
    kw["weights"] = list(rng.integers(1, 4, 3) / 2) if kind == "mean" else \
        [float(v) for v in np.round(rng.normal(0, 2, 2), 1)] + [1.5]
    if kind == "logistic":
        kw["bias"] = float(np.round(rng.normal(), 2))
    rule = score_rule(n_models=3, slot=2, **kw)
    frame = pd.DataFrame({"y": rng.random(len(s)) < 0.5, "m0": s[:, 0], "m1": s[:, 1],
                          "m2": s[:, 2]})
    for runs in (score_runs(frame, truth="y", models=["m0", "m1", "m2"], slot="m2", **kw),
                 cc.forced_runs(pl.from_pandas(frame).lazy(), truth="y",
                                models=["m0", "m1", "m2"], slot="m2", **kw)):
        t = runs.critical
        fin = np.isfinite(t)
        assert rule.decide_at(s[fin], 2, t[fin]).all()
        assert not rule.decide_at(s[fin], 2, np.nextafter(t[fin], -np.inf)).any()
        assert runs.adjusted == 0


@pytest.mark.parametrize("kw", [RULES["mean"], RULES["logistic"],
                                {"fusioner": "mean", "threshold": 0.1, "weights": [3, 1e-3]},
                                {"fusioner": "logistic", "threshold": 0.999,
                                 "weights": [1e3, 2.0], "bias": 5.0}])
def test_the_switch_is_the_least_passing_sum(kw: dict[str, Any]) -> None:
    """The rule says P iff the weighted sum reaches ``switch``: checked at the switch, the
    float below it, and on a million random sums around it."""
    m = len(kw["weights"])
    rule = score_rule(n_models=m, **kw)
    u, half = rule.switch
    below = np.nextafter(u, -np.inf)
    assert rule.decide_total(np.array([u]))[0] and not rule.decide_total(np.array([below]))[0]
    assert half == (u - below) / 2
    rng = np.random.default_rng(0)
    sums = u + rng.normal(0, 1e-12, 10**6) * max(abs(u), 1.0)
    assert np.array_equal(rule.decide_total(sums), sums >= u)
    s = rng.random((1000, m))
    assert np.array_equal(rule.decides(list(s.T)), rule.decide(s))


def test_infinite_scores_are_refused_even_when_the_range_is_open() -> None:
    frame = pd.DataFrame({"y": [1, 0], "a": [np.inf, 0.2], "b": [-np.inf, 0.1],
                          "c": [0.5, 0.5]})
    with pytest.raises(cc.ScoreValueError, match=r"score column 'a' on row 0 holds inf \(and 1 "
                                                 r"other bad score\(s\)\); scores must be finite"):
        cc.forced_runs(frame, truth="y", models=["a", "b", "c"], slot="c", fusioner="mean",
                       score_range=(-np.inf, np.inf))
    with pytest.raises(cc.ScoreValueError, match=r"score column 'a' on row 0 holds inf"):
        cc.forced_runs(frame, truth="y", models=["a", "b", "c"], slot="c", fusioner="mean")


def test_the_runs_keep_their_scores_when_the_pandas_log_changes(log: pd.DataFrame) -> None:
    frame = log.copy()
    runs = cc.forced_runs(frame, truth="y", models=MODELS, slot="d", fusioner="mean")
    before = runs.observed_scores.copy()
    frame.loc[frame.index[0], "d"] = 0.123
    assert np.array_equal(runs.observed_scores, before)
    assert not runs.observed_scores.flags.writeable and not runs.critical.flags.writeable


@pytest.mark.parametrize("slot", MODELS)
@pytest.mark.parametrize("rule", ["mean", "logistic", "max", "min"])
@pytest.mark.parametrize("engine", ["pandas", "polars_lazy", "duckdb"])
def test_critical_scores_are_the_rules_own_float_step_on_every_engine_to_the_bit(
        log: pd.DataFrame, engine: str, rule: str, slot: str) -> None:
    """Whatever the slot's place in the sum: the engine's critical scores equal numpy's to the
    bit, and the rule evaluated directly (``ScoreRule.decide``, every column) says P at each
    finite critical score and N one float below it, so "P iff score >= t" at every score."""
    kw = dict(RULES[rule])
    pos = MODELS.index(slot)
    if kw.get("weights") is not None and kw["weights"][pos] <= 0:
        pytest.skip("the rule decreases in this slot's score")
    runs = cc.forced_runs(ENGINES[engine](log), truth="y", models=MODELS, slot=slot, **kw)
    s = log[MODELS].to_numpy()
    want = critical_scores(s, slot=pos, **kw)
    assert np.array_equal(runs.critical, want)  # bitwise: the same operations in each route
    rule_ = score_rule(n_models=4, slot=pos, **kw)
    fin = np.isfinite(want)
    at, below = s.copy(), s.copy()
    at[:, pos], below[:, pos] = want, np.nextafter(want, -np.inf)
    assert rule_.decide(at)[fin].all()
    assert not rule_.decide(below)[fin].any()
