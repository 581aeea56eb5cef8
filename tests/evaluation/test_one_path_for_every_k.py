"""The binary / K-label twins merged into one path: K-label runs give ``cc.Confusion``, one
reader counts many candidates (checked against a numpy count), one Series alignment, one rule
wording and one monotonicity result for every K."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.predictions import PredictionReader, align_series, count_confusion
from causalcost.errors import DataError
from causalcost.evaluation.candidate_reading import count_confusions, label_confusion
from causalcost.network.fusioners import make_fusioner
from causalcost.network.labelled import rule_words as label_rule_words
from causalcost.network.picture import rule_lines
from causalcost.network.sketch import rule_words


@pytest.mark.parametrize("k", [2, 3, 4])
def test_k_label_runs_return_confusions_with_labels_and_costs(k: int) -> None:
    labels = ["ok", "flu", "covid", "cold"][:k]
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, 60)
    votes = {m: np.where(rng.random(60) < 0.7, y, rng.integers(0, k, 60)) for m in "abc"}
    df = pd.DataFrame({"truth": np.array(labels)[y],
                       **{m: np.array(labels)[v] for m, v in votes.items()}})
    runs = cc.forced_runs(df, truth="truth", models=list("abc"), slot="b",
                          fusioner="plurality", labels=labels)
    cand = np.array(labels)[rng.integers(0, k, 60)]
    system, own = runs.with_candidate(cand), runs.candidate_confusion(cand)
    for m in (runs.observed, runs.slot_model, system, own):
        assert isinstance(m, cc.Confusion) and m.labels == tuple(labels)
    # the candidate's own confusion is a numpy count of (truth, candidate)
    count = np.zeros((k, k))
    np.add.at(count, (y, [labels.index(v) for v in cand]), 1)
    np.testing.assert_array_equal(own.to_numpy(), count)
    costs = rng.integers(0, 9, (k, k)).astype(float)
    np.fill_diagonal(costs, 0.0)
    assert system.cost(costs) == pytest.approx(float((system.to_numpy() * costs).sum()),
                                               rel=1e-12)
    with pytest.warns(DeprecationWarning, match="Confusion"):
        from causalcost.data.runs import LabelConfusion
        assert LabelConfusion(count, labels) == cc.Confusion(count, labels=labels)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_count_many_equals_one_count_per_candidate(k: int, rows: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = [f"l{i}" for i in range(k)]
    y = np.array(labels, dtype=object)[rng.integers(0, k, rows)]
    preds = [np.array(labels, dtype=object)[rng.integers(0, k, rows)] for _ in range(n)]
    many = PredictionReader(y, labels=labels).count_many(preds)
    for i, p in enumerate(preds):
        brute = np.zeros((k, k), dtype=np.int64)
        for t, v in zip(y, p):
            brute[labels.index(t), labels.index(v)] += 1
        np.testing.assert_array_equal(many[i], brute)
        np.testing.assert_array_equal(many[i], count_confusion(y, p, labels=labels).to_numpy())
    names, again = count_confusions(y, {f"c{i}": p for i, p in enumerate(preds)}, labels)
    np.testing.assert_array_equal(again, many)


def test_one_reader_refuses_what_it_cannot_pair_or_name() -> None:
    labels = ["a", "b", "c"]
    y = pd.Series(["a", "b", "c"], index=[10, 11, 12])
    shuffled = pd.Series(["c", "b", "a"], index=[12, 11, 10])
    assert label_confusion((y, shuffled), labels).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(DataError, match="index does not match"):
        count_confusions(y, {"x": pd.Series(["a", "b", "c"])}, labels)
    with pytest.raises(DataError, match="no index to align it with"):
        count_confusions(["a", "b", "c"], {"x": shuffled}, labels)
    with pytest.raises(DataError, match=r"predictions\['x'\] holds 'd'"):
        count_confusions(["a", "b", "c"], {"x": ["a", "b", "d"]}, labels)
    with pytest.raises(DataError, match="read as the same label"):
        count_confusions([1, 2, 3], {"x": [1, "1", 3]}, ["1", "2", "3"])
    with pytest.raises(cc.ValidationError, match="two candidates are named '1'"):
        count_confusions(["a"], {1: ["a"], "1": ["a"]}, labels)
    assert align_series(pd.Series([5, 6]), None, "p").tolist() == [5, 6]


def test_one_rule_wording_for_every_k() -> None:
    binary = [("majority", {}, ["majority"], "majority"), ("or", {}, ["OR"], "OR"),
              ("k_of_n", {"k": 2}, ["2 of 3"], "2 of 3"),
              ("weighted", {"weights": [1, 2, 1], "threshold": 2}, ["w 1,2,1", "\u2265 2"],
               "weighted vote 1,2,1 \u2265 2")]
    for rule, options, lines, words in binary:
        f = make_fusioner(rule, ["a", "b", "c"], **options)
        assert rule_lines(f) == label_rule_words(f) == lines and rule_words(f) == words
    f = make_fusioner("priority", ["a", "b", "c"], labels=["x", "y", "z"], order=["z", "x"])
    assert rule_lines(f) == label_rule_words(f) == ["first voted of", "z > x"]
    assert rule_words(f) == "first voted of z > x"
    f = make_fusioner("plurality", ["a", "b", "c"], labels=["x", "y", "z"])
    assert rule_lines(f) == ["plurality"]


def test_one_monotonicity_result_for_every_k() -> None:
    b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    for m in "abcd":
        b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    s = b.set_fusioner("plurality").build(slot="d")
    from causalcost.pricing.monotonicity import check_monotonicity

    ok, bad = check_monotonicity(s, 1 - np.eye(3)), check_monotonicity(
        s, [[0, 1, 5], [1, 0, 1], [1, 1, 0]])
    binary = cc.check_monotonicity(cc.load_network("thesis_or"))
    for check in (ok, bad, binary):
        assert isinstance(check, cc.MonotonicityCheck)
    assert ok.is_monotone and ok.checked == ok.assignments > 0 and ok.slot == "d"
    assert not bad.is_monotone and "class 'x'" in bad.violation and "NOT monotone" in repr(bad)
    assert "NOT monotone" in bad._repr_html_()
    assert bad.to_frame().loc[0, "is_monotone"] == False  # noqa: E712
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning, match="MonotonicityCheck"):
            from causalcost.pricing.monotonicity import CostMonotonicity
            CostMonotonicity(True, None, 3)
