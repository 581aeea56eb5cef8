"""K-label forced runs from logs: every engine against a per-row count in plain Python, K = 2
against the binary runs, real costs inside the bounds, refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from engine_frames import ENGINES as SHARED_ENGINES
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import DataError, ValidationError

warnings.filterwarnings("ignore", message=".*narwhals-dask.*", category=FutureWarning)

ENGINES = SHARED_ENGINES
LABELS = ["cat", "dog", "fox"]
MODELS = ["m1", "m2", "m3", "m4"]


def log(n: int = 2000, seed: int = 0, labels: list = LABELS, models: list = MODELS,
        right: float = 0.6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    k = len(labels)
    y = rng.integers(0, k, n)
    cols = {"truth": [labels[i] for i in y]}
    for m in models:
        wrong = rng.integers(0, k, n)
        vote = np.where(rng.random(n) < right, y, wrong)
        cols[m] = [labels[i] for i in vote]
    return pd.DataFrame(cols)


# -- an independent reference: one row at a time, plain Python ---------------------------------
def plurality(votes: list, labels: list, weights: list | None = None, tie: list | None = None,
              slot_vote=None) -> object:
    weights = weights or [1.0] * len(votes)
    tally = {lab: 0.0 for lab in labels}
    for v, w in zip(votes, weights):
        tally[v] += w
    top = max(tally.values())
    tied = [lab for lab in labels if tally[lab] >= top - 1e-12]
    if slot_vote is not None and slot_vote in tied:
        return slot_vote
    for lab in (tie or labels):
        if lab in tied:
            return lab
    raise AssertionError


def reference(df: pd.DataFrame, slot: str, labels: list, rule) -> np.ndarray:
    k = len(labels)
    forced = np.zeros((k, k, k), dtype=np.int64)
    for _, row in df.iterrows():
        c = labels.index(row["truth"])
        for j, lab in enumerate(labels):
            votes = [lab if m == slot else row[m] for m in MODELS]
            forced[j, c, labels.index(rule(votes, lab))] += 1
    return forced


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return log()


@pytest.fixture(scope="module")
def expected(table: pd.DataFrame) -> np.ndarray:
    return reference(table, "m2", LABELS, lambda votes, _: plurality(votes, LABELS))


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_counts_as_plain_python(table: pd.DataFrame, expected: np.ndarray,
                                             engine: str) -> None:
    runs = cc.forced_runs(ENGINES[engine](table), truth="truth", models=MODELS, slot="m2",
                          fusioner="plurality", labels=LABELS)
    assert isinstance(runs, cc.ForcedRuns) and runs.k == 3
    np.testing.assert_array_equal(runs.forced, expected)
    assert runs.n == len(table)
    assert runs.provenance["engine"] == {"polars_lazy": "polars"}.get(engine, engine)
    # the kinds imply the same forced runs, and the deployed system agrees with a direct count
    np.testing.assert_array_equal(runs.kinds.forced().astype(np.int64), expected)
    deployed = np.zeros((3, 3), dtype=np.int64)
    for _, row in table.iterrows():
        deployed[LABELS.index(row["truth"]),
                 LABELS.index(plurality([row[m] for m in MODELS], LABELS))] += 1
    np.testing.assert_array_equal(runs.observed.to_numpy(), deployed)
    # a candidate column counted by the engine
    np.testing.assert_array_equal(runs.with_candidate("m1").to_numpy(),
                                  _system_with(table, "m2", table["m1"].tolist()))


def _system_with(df: pd.DataFrame, slot: str, predictions: list, rule=None) -> np.ndarray:
    rule = rule or (lambda votes: plurality(votes, LABELS))
    out = np.zeros((3, 3), dtype=np.int64)
    for (_, row), p in zip(df.iterrows(), predictions):
        votes = [p if m == slot else row[m] for m in MODELS]
        out[LABELS.index(row["truth"]), LABELS.index(rule(votes))] += 1
    return out


@pytest.mark.parametrize("engine", ["pandas", "polars", "pyarrow"])
def test_candidate_array_on_eager_frames(table: pd.DataFrame, engine: str) -> None:
    rng = np.random.default_rng(5)
    pred = [LABELS[i] for i in rng.integers(0, 3, len(table))]
    runs = cc.forced_runs(ENGINES[engine](table), truth="truth", models=MODELS, slot="m2",
                          fusioner="plurality", labels=LABELS)
    np.testing.assert_array_equal(runs.with_candidate(pred).to_numpy(),
                                  _system_with(table, "m2", pred))
    own = runs.candidate_confusion(pred).to_numpy()
    assert own.sum() == len(table)
    assert own[0, 1] == sum(1 for t, p in zip(table["truth"], pred) if t == "cat" and p == "dog")


def test_lazy_frame_refuses_an_array(table: pd.DataFrame) -> None:
    runs = cc.forced_runs(pl.from_pandas(table).lazy(), truth="truth", models=MODELS, slot="m2",
                          fusioner="plurality", labels=LABELS)
    with pytest.raises(DataError, match="lazy polars"):
        runs.with_candidate(["cat"] * len(table))


@pytest.mark.parametrize("case", ["tie_order", "tie_slot", "weighted", "priority", "k_of_n"])
def test_other_rules_against_plain_python(case: str) -> None:
    df = log(400, seed=3)
    order = ["fox", "cat", "dog"]
    w = [0.5, 1.0, 0.25, 0.75]
    options, rule = {
        "tie_order": ({"fusioner": "plurality", "tie": order},
                      lambda v, lab: plurality(v, LABELS, tie=order)),
        "tie_slot": ({"fusioner": "plurality", "tie": "slot"},
                     lambda v, lab: plurality(v, LABELS, slot_vote=lab)),
        "weighted": ({"fusioner": "weighted", "weights": dict(zip(MODELS, w))},
                     lambda v, lab: plurality(v, LABELS, weights=w)),
        "priority": ({"fusioner": "priority", "order": order},
                     lambda v, lab: next(x for x in order if x in v)),
        "k_of_n": ({"fusioner": "k_of_n", "label": "dog", "k": 2},
                   lambda v, lab: "dog" if v.count("dog") >= 2
                   else plurality([x for x in v if x != "dog"], ["cat", "fox"])),
    }[case]
    runs = cc.forced_runs(df, truth="truth", models=MODELS, slot="m3", labels=LABELS, **options)
    np.testing.assert_array_equal(runs.forced, reference(df, "m3", LABELS, rule))


def test_tie_goes_to_the_first_listed_label() -> None:
    df = pd.DataFrame({"y": ["b"], "m1": ["c"], "m2": ["b"], "m3": ["a"]})
    for labels, want in ((["a", "b", "c"], "a"), (["c", "b", "a"], "c")):
        runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
                              fusioner="plurality", labels=labels)
        assert runs.observed.to_numpy()[labels.index("b"), labels.index(want)] == 1


@pytest.mark.parametrize("rule,binary", [("plurality", {"fusioner": "majority"}),
                                         ("k_of_n", {"fusioner": "k_of_n", "k": 2})])
def test_two_labels_give_the_binary_runs(rule: str, binary: dict) -> None:
    df = log(1500, seed=7, labels=["sick", "well"], models=["a", "b", "c"])
    MODELS3 = ["a", "b", "c"]
    extra = {"label": "sick", "k": 2} if rule == "k_of_n" else {}
    multi = cc.forced_runs(df, truth="truth", models=MODELS3, slot="b", fusioner=rule,
                           labels=["sick", "well"], **extra)
    bin_ = cc.forced_runs(df, truth="truth", models=MODELS3, slot="b", positive="sick",
                          **binary)
    for j, conf in enumerate((bin_.forced_p, bin_.forced_n)):
        (tp, fn), (fp, tn) = multi.forced[j].tolist()
        assert (tp, fn, fp, tn) == (conf.tp, conf.fn, conf.fp, conf.tn)
    # kinds: class P (index 0) right when the slot says P; never = right under both
    k = multi.kinds.counts
    assert k.get((0, (0, 1)), 0) == bin_.kinds.loc["P", "wrong_only"]
    assert k.get((0, (0, 0)), 0) == bin_.kinds.loc["P", "never"]
    assert k.get((1, (1, 1)), 0) == bin_.kinds.loc["N", "never"]
    assert k.get((1, (0, 1)), 0) == bin_.kinds.loc["N", "wrong_only"]
    pred = df["a"].tolist()
    c = bin_.with_candidate(pred, positive="sick")
    assert multi.with_candidate(pred).to_numpy().tolist() == [[c.tp, c.fn], [c.fp, c.tn]]


def test_integer_labels_and_the_kinds_bound() -> None:
    df = log(300, seed=11, labels=[0, 1, 2])
    runs = cc.forced_runs(df, truth="truth", models=MODELS, slot="m1", fusioner="plurality",
                          labels=[0, 1, 2])
    pred = df["m4"].tolist()
    costs = np.array([[0, 1, 4], [2, 0, 1], [5, 3, 0]], dtype=float)
    n = runs.candidate_confusion(pred).to_numpy()
    real = runs.with_candidate(pred).cost(costs)
    b = cc.bound(kinds=runs.kinds, model=n.tolist(), costs=costs)
    assert b.best_cost - 1e-9 <= real <= b.worst_cost + 1e-9
    assert b.labels == ("0", "1", "2")
    # cc.bound takes K-label kinds too (the contract's other spelling): the same bound
    same = cc.bound(kinds=runs.kinds, model=n.tolist(), costs=costs)
    assert (same.worst_cost, same.best_cost) == (b.worst_cost, b.best_cost)
    np.testing.assert_array_equal(np.asarray(same.worst), np.asarray(b.worst))


small_logs = st.integers(0, 2**31 - 1).flatmap(lambda seed: st.tuples(
    st.just(seed), st.integers(3, 60), st.floats(0.0, 1.0)))


@settings(max_examples=40, deadline=None)
@given(small_logs, st.lists(st.integers(0, 9), min_size=9, max_size=9),
       st.sampled_from(["plurality", "priority", "weighted"]))
def test_real_cost_lies_inside_every_bound(case, cells, rule) -> None:
    seed, n, right = case
    df = log(n, seed=seed, right=right)
    options = {"plurality": {}, "priority": {"order": ["dog", "fox", "cat"]},
               "weighted": {"weights": [1.0, 2.0, 0.5, 1.5]}}[rule]
    runs = cc.forced_runs(df, truth="truth", models=MODELS, slot="m1", fusioner=rule,
                          labels=LABELS, **options)
    costs = np.array(cells, dtype=float).reshape(3, 3)
    np.fill_diagonal(costs, 0.0)
    pred = [LABELS[i] for i in np.random.default_rng(seed).integers(0, 3, n)]
    n_conf = runs.candidate_confusion(pred).to_numpy()
    real = runs.with_candidate(pred).cost(costs)
    kinds = cc.bound(kinds=runs.kinds, model=n_conf.tolist(), costs=costs)
    free = cc.bound(runs.forced.tolist(), n_conf.tolist(), costs,
                               same_instances=True)
    tol = 1e-9 * max(1.0, abs(real))
    assert kinds.best_cost - tol <= real <= kinds.worst_cost + tol
    assert free.best_cost - tol <= kinds.best_cost and kinds.worst_cost <= free.worst_cost + tol


def test_unknown_values_are_refused_with_column_and_value() -> None:
    df = log(50)
    df.loc[3, "m3"] = "wolf"
    with pytest.raises(DataError, match=r"column 'm3' holds 'wolf' \(1 row"):
        cc.forced_runs(df, truth="truth", models=MODELS, slot="m1", fusioner="plurality",
                       labels=LABELS)
    df = log(50, labels=[0, 1, 2])
    df["m2"] = df["m2"].astype(object)
    df.loc[0, "m2"] = None
    for engine in ("pandas", "polars_lazy", "duckdb"):
        frame = ENGINES[engine](df.assign(m2=df["m2"].astype("Int64")))
        with pytest.raises(DataError, match="column 'm2' holds a null"):
            cc.forced_runs(frame, truth="truth", models=MODELS, slot="m1",
                           fusioner="plurality", labels=[0, 1, 2])
    with pytest.raises(DataError, match="column 'truth' holds 2"):
        cc.forced_runs(log(50, labels=[0, 1, 2]), truth="truth", models=MODELS, slot="m1",
                       fusioner="plurality", labels=[0, 1])
    with pytest.raises(DataError, match="'1' differ"):
        cc.forced_runs(log(50, labels=[0, 1, 2]), truth="truth", models=MODELS, slot="m1",
                       fusioner="plurality", labels=["0", "1", "2"])


def test_refusals_of_options() -> None:
    df = log(30)
    base = {"truth": "truth", "models": MODELS, "slot": "m1", "labels": LABELS}
    with pytest.raises(ValidationError, match="not a K-label rule"):
        cc.forced_runs(df, fusioner="majority", **base)
    with pytest.raises(ValidationError, match="needs order="):
        cc.forced_runs(df, fusioner="priority", **base)
    with pytest.raises(ValidationError, match="takes no weights"):
        cc.forced_runs(df, fusioner="plurality", weights=[1, 1, 1, 1], **base)
    with pytest.raises(ValidationError, match="every label once"):
        cc.forced_runs(df, fusioner="plurality", tie=["cat", "dog"], **base)
    with pytest.raises(ValidationError, match="'wolf' is not one of the labels"):
        cc.forced_runs(df, fusioner="k_of_n", label="wolf", k=2, **base)
    with pytest.raises(ValidationError, match="binary log's option"):
        cc.forced_runs(df, fusioner="plurality", positive="cat", **base)
    with pytest.raises(ValidationError, match="give labels="):
        cc.forced_runs(df, truth="truth", models=MODELS, slot="m1", fusioner="majority",
                       order=LABELS)
    with pytest.raises(DataError, match="'m9' is not in the data"):
        cc.forced_runs(df, truth="truth", models=[*MODELS[:3], "m9"], slot="m1",
                       fusioner="plurality", labels=LABELS)
    runs = cc.forced_runs(df, fusioner="plurality", **base)
    with pytest.raises(DataError, match="30 rows"):
        runs.with_candidate(["cat"] * 29)
    with pytest.raises(DataError, match="column 'predictions' holds 'wolf'"):
        runs.with_candidate(["wolf"] * 30)


def test_views() -> None:
    runs = cc.forced_runs(log(40), truth="truth", models=MODELS, slot="m1",
                          fusioner="plurality", labels=LABELS)
    frame = runs.to_frame()
    assert frame.shape == (9, 3) and list(frame.columns) == LABELS
    assert frame.loc[("dog", "fox"), "cat"] == runs.forced[1, 2, 0]
    assert "forced to 'cat'" in repr(runs) and "<table" in runs._repr_html_()
    assert runs.to_dict()["forced"] == runs.forced.tolist()
    assert runs == cc.forced_runs(pl.from_pandas(log(40)), truth="truth", models=MODELS,
                                  slot="m1", fusioner="plurality", labels=LABELS)


@pytest.mark.parametrize("engine", ["pandas", "polars_lazy", "duckdb"])
def test_network_fusioners_run_on_the_counted_patterns(engine: str) -> None:
    df = log(300, seed=9)
    built = cc.multiclass_fusioner("plurality", labels=LABELS, models=MODELS)
    mine = cc.forced_runs(df, truth="truth", models=MODELS, slot="m3", fusioner="plurality",
                          labels=LABELS)
    theirs = cc.forced_runs(ENGINES[engine](df), truth="truth", slot="m3", fusioner=built,
                            labels=LABELS)
    np.testing.assert_array_equal(theirs.forced, mine.forced)

    def triage(m1: str, m2: str, m3: str, m4: str) -> str:  # a user function, on any engine
        return "fox" if [m1, m2, m3, m4].count("fox") >= 2 else m1

    rule = cc.multiclass_fusioner(triage, labels=LABELS, models=MODELS)
    runs = cc.forced_runs(ENGINES[engine](df), truth="truth", slot="m3", fusioner=rule,
                          labels=LABELS)
    np.testing.assert_array_equal(runs.forced, reference(
        df, "m3", LABELS, lambda v, _: triage(*v)))
    with pytest.raises(ValidationError, match="differ from labels"):
        cc.forced_runs(df, truth="truth", slot="m3", fusioner=built, labels=LABELS[::-1])
