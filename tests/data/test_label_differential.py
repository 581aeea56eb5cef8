"""The differential test of the data path for K labels (K = 2, 3, 4): one ``ForcedRuns`` type.

Hypothesis draws a K-label log (the true class and three or four models' votes, labels as
strings or integers) and a rule (plurality with the labels' tie order, another order or ties
to the slot; weighted plurality with dyadic weights; priority; k of n). pandas, polars and a
DuckDB relation must all count the forced runs ``F[j, c, s]``, the system as logged and the
kinds that a per-row count in plain Python gives (:func:`reference`: the rule re-run on each
row with exact fractions); a candidate plugged into the slot (an array, a column, a pandas
Series with a permuted index) must give the confusion and the cost of the same per-row re-run.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import DataError, ValidationError

ENGINES = {
    "pandas": lambda df: df,
    "polars": pl.from_pandas,
    "duckdb": lambda df: duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False)),
}
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def rule_output(rule: dict[str, Any], votes: list[Any], labels: list[Any],
                slot_vote: Any) -> Any:
    """The fused label of one row, in plain Python (exact fractions for the weights)."""
    if rule["fusioner"] == "priority":
        return next(lab for lab in rule["order"] if lab in votes)
    weights = rule.get("weights") or [1] * len(votes)
    tally = {lab: Fraction(0) for lab in labels}
    for v, w in zip(votes, weights):
        tally[v] += Fraction(w)
    if rule["fusioner"] == "k_of_n":
        if tally[rule["label"]] >= rule["k"]:
            return rule["label"]
        tally.pop(rule["label"])
    top = max(tally.values())
    tied = [lab for lab in tally if tally[lab] == top]
    tie = rule.get("tie")
    if tie == "slot" and slot_vote in tied:
        return slot_vote
    order = tie if isinstance(tie, list) else labels
    return next(lab for lab in order if lab in tied)


def reference(df: pd.DataFrame, models: list[str], slot: str, labels: list[Any],
              rule: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, dict[Any, int]]:
    """Per row: ``F[j, c, s]``, the system as logged ``[c, s]`` and the kinds."""
    k = len(labels)
    forced = np.zeros((k, k, k), dtype=np.int64)
    observed = np.zeros((k, k), dtype=np.int64)
    kinds: dict[Any, int] = {}
    for row in df.to_dict("records"):
        c = labels.index(row["truth"])
        response = []
        for j, lab in enumerate(labels):
            votes = [lab if m == slot else row[m] for m in models]
            s = labels.index(rule_output(rule, votes, labels, lab))
            forced[j, c, s] += 1
            response.append(s)
        kinds[(c, tuple(response))] = kinds.get((c, tuple(response)), 0) + 1
        votes = [row[m] for m in models]
        observed[c, labels.index(rule_output(rule, votes, labels, row[slot]))] += 1
    return forced, observed, kinds


def system_with(df: pd.DataFrame, models: list[str], slot: str, labels: list[Any],
                rule: dict[str, Any], candidate: list[Any]) -> np.ndarray:
    """The system's confusion with ``candidate`` in the slot, re-run row by row."""
    k = len(labels)
    out = np.zeros((k, k), dtype=np.int64)
    for row, p in zip(df.to_dict("records"), candidate):
        votes = [p if m == slot else row[m] for m in models]
        out[labels.index(row["truth"]), labels.index(rule_output(rule, votes, labels, p))] += 1
    return out


@st.composite
def label_logs(draw: st.DrawFn) -> dict[str, Any]:
    k = draw(st.sampled_from([2, 3, 4]))
    labels: list[Any] = (["ok", "flu", "covid", "cold"][:k] if draw(st.booleans())
                         else [3, 0, 7, 5][:k])
    models = ["m1", "m2", "m3", "m4"][: draw(st.integers(3, 4))]
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    right = draw(st.floats(0.0, 1.0))
    y = rng.integers(0, k, n)
    cols: dict[str, list[Any]] = {"truth": [labels[i] for i in y]}
    for m in [*models, "cand"]:
        vote = np.where(rng.random(n) < right, y, rng.integers(0, k, n))
        cols[m] = [labels[i] for i in vote]
    kind = draw(st.sampled_from(["plurality", "tie_order", "tie_slot", "weighted", "priority",
                                 "k_of_n"]))
    shuffled = [labels[i] for i in rng.permutation(k)]
    rule: dict[str, Any] = {
        "plurality": {"fusioner": "plurality"},
        "tie_order": {"fusioner": "plurality", "tie": shuffled},
        "tie_slot": {"fusioner": "plurality", "tie": "slot"},
        "weighted": {"fusioner": "weighted",
                     "weights": [float(w) for w in draw(st.lists(st.sampled_from(
                         [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]), min_size=len(models),
                         max_size=len(models)))]},
        "priority": {"fusioner": "priority", "order": shuffled},
        "k_of_n": {"fusioner": "k_of_n", "label": labels[-1],
                   "k": draw(st.integers(1, len(models)))},
    }[kind]
    slot = draw(st.sampled_from(models))
    return {"df": pd.DataFrame(cols), "labels": labels, "models": models, "slot": slot,
            "rule": rule, "seed": seed}


def count(data: Any, log: dict[str, Any], **extra: Any) -> cc.ForcedRuns:
    return cc.forced_runs(data, truth="truth", models=log["models"], slot=log["slot"],
                          labels=log["labels"], **log["rule"], **extra)


@SETTINGS
@given(label_logs())
def test_every_engine_counts_a_k_label_log_as_the_reference(log: dict[str, Any]) -> None:
    df, labels = log["df"], log["labels"]
    forced, observed, kinds = reference(df, log["models"], log["slot"], labels, log["rule"])
    for engine, make in ENGINES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            runs = count(make(df), log)
        assert isinstance(runs, cc.ForcedRuns) and runs.k == len(labels), engine
        np.testing.assert_array_equal(runs.forced, forced, err_msg=engine)
        np.testing.assert_array_equal(runs.observed.to_numpy(), observed, err_msg=engine)
        assert runs.kinds.counts == kinds, engine
        assert runs.n == len(df) and runs.class_sizes.sum() == len(df)
        assert runs.observed.cost(1 - np.eye(len(labels))) == observed.sum() - np.trace(observed)
        if len(labels) == 2:  # the binary views, label 0 as P
            (tp, fn), (fp, tn) = forced[0].tolist()
            assert runs.forced_p == cc.Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
        else:
            with pytest.raises(ValidationError, match="binary"):
                _ = runs.forced_p


@SETTINGS
@given(label_logs())
def test_with_candidate_is_the_rule_rerun_on_each_row(log: dict[str, Any]) -> None:
    df, labels, models, slot = log["df"], log["labels"], log["models"], log["slot"]
    k = len(labels)
    costs = np.random.default_rng(log["seed"]).integers(0, 9, (k, k)).astype(float)
    np.fill_diagonal(costs, 0.0)
    candidate = df["cand"].tolist()
    expected = system_with(df, models, slot, labels, log["rule"], candidate)
    own = np.zeros((k, k), dtype=np.int64)
    for t, p in zip(df["truth"], candidate):
        own[labels.index(t), labels.index(p)] += 1
    for engine in ("pandas", "polars"):
        runs = count(ENGINES[engine](df), log, observed=False)
        got = runs.with_candidate(candidate)
        np.testing.assert_array_equal(got.to_numpy(), expected, err_msg=engine)
        assert got.labels == tuple(map(str, labels))
        assert got.cost(costs) == pytest.approx(float((expected * costs).sum()), rel=1e-12)
        np.testing.assert_array_equal(runs.with_candidate("cand").to_numpy(), expected)
        np.testing.assert_array_equal(runs.candidate_confusion(candidate).to_numpy(), own)
    # a pandas Series is aligned by its index: a permutation of the data's index is reordered
    runs = count(df.set_axis(np.arange(100, 100 + len(df))), log)
    series = pd.Series(candidate, index=np.arange(100, 100 + len(df)))
    shuffled = series.sample(frac=1.0, random_state=log["seed"] % 1000)
    np.testing.assert_array_equal(runs.with_candidate(shuffled).to_numpy(), expected)
    with pytest.raises(DataError, match="index does not match"):
        runs.with_candidate(pd.Series(candidate))  # labels 0..n-1: not the data's


def test_k_label_runs_output_and_aliases() -> None:
    df = pd.DataFrame({"y": ["a", "b", "c", "c"], "m1": ["a", "b", "c", "a"],
                       "m2": ["a", "c", "c", "b"], "m3": ["b", "b", "a", "c"]})
    runs = cc.forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
                          fusioner="plurality", labels=["a", "b", "c"])
    frame = runs.to_frame()
    assert frame.index.names == ["forced", "true"]
    assert frame.loc[("c", "c"), "c"] == runs.forced[2, 2, 2] == 1
    text = repr(runs)
    assert text.startswith("ForcedRuns(slot='m3'") and "labels=['a', 'b', 'c']" in text
    assert "observed:" in text and "monotone_on_data" in text
    picture = runs.picture(intervention="b")
    assert "a / b / c" in picture.svg and "m3" in picture.svg
    assert runs.to_dict()["forced"] == runs.forced.tolist()
    with pytest.warns(DeprecationWarning, match="ForcedRuns"):
        assert cc.MulticlassRuns is cc.ForcedRuns
    with pytest.raises(ValidationError, match="positive= is a binary option"):
        runs.with_candidate(["a"] * 4, positive="a")
