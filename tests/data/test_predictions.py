"""One reader of predictions for any number of labels (causalcost.data.predictions).

References: a numpy count (``np.add.at`` on label positions found by a Python dict) and
scikit-learn's ``confusion_matrix(y, y_hat, labels=labels)``, whose rows are the true class in
the order of ``labels``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix

import causalcost as cc
from causalcost.data.predictions import PredictionReader, count_confusion

LABELS = ["ok", "flu", "covid", "cold"]


def numpy_count(y: list, p: list, labels: list) -> np.ndarray:
    at = {v: i for i, v in enumerate(labels)}
    out = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(out, ([at[v] for v in y], [at[v] for v in p]), 1)
    return out


@st.composite
def predictions(draw) -> tuple[list[str], list[str], list[str]]:
    k = draw(st.integers(2, 4))
    labels = draw(st.permutations(LABELS))[:k]
    rows = draw(st.integers(0, 40))
    y = draw(st.lists(st.sampled_from(labels), min_size=rows, max_size=rows))
    p = draw(st.lists(st.sampled_from(labels), min_size=rows, max_size=rows))
    return y, p, labels


@settings(max_examples=80, deadline=None)
@given(case=predictions())
def test_counts_match_numpy_and_sklearn(case) -> None:
    y, p, labels = case
    n = count_confusion(y, p, labels=labels)
    assert n.labels == tuple(labels)
    expected = numpy_count(y, p, labels)
    np.testing.assert_array_equal(n.to_numpy(), expected)
    if y:
        np.testing.assert_array_equal(expected, confusion_matrix(y, p, labels=labels))
        # numpy text arrays take the vectorised path: the same counts
        np.testing.assert_array_equal(
            count_confusion(np.array(y), np.array(p), labels=labels).to_numpy(), expected)


@settings(max_examples=60, deadline=None)
@given(case=predictions(), seed=st.integers(0, 2**32 - 1))
def test_permuted_index_is_aligned_never_paired_by_position(case, seed) -> None:
    y, p, labels = case
    index = [f"row{i}" for i in range(len(y))]
    truth = pd.Series(y, index=index)
    order = np.random.default_rng(seed).permutation(len(y))
    shuffled = pd.Series(p, index=index).iloc[order]            # same rows, another order
    n = count_confusion(truth, shuffled, labels=labels)
    np.testing.assert_array_equal(n.to_numpy(), numpy_count(y, p, labels))


def test_mismatched_indexes_are_refused() -> None:
    y = pd.Series(["a", "b", "c"], index=[0, 1, 2])
    with pytest.raises(cc.DataError, match="index does not match"):
        count_confusion(y, pd.Series(["a", "b", "c"], index=[0, 1, 5]), labels=list("abc"))
    with pytest.raises(cc.DataError, match="index does not match"):
        count_confusion(y, pd.Series(["a", "b", "c"], index=[0, 0, 1]), labels=list("abc"))
    with pytest.raises(cc.DataError, match="has 2 values but y_true has 3"):
        count_confusion(y, ["a", "b"], labels=list("abc"))
    # one side without an index: paired by position (the array's order is the rows' order)
    assert count_confusion(y, np.array(["a", "c", "c"]), labels=list("abc")).errors == 1


def test_binary_series_are_aligned_too() -> None:
    y = pd.Series([1, 1, 0, 0], index=[3, 2, 1, 0])
    p = pd.Series([1, 0, 0, 1], index=[0, 1, 2, 3])  # by index: row 3 -> 1, 2 -> 0, ...
    # aligned: (y, p) = (1, 1) at 3, (1, 0) at 2, (0, 0) at 1, (0, 1) at 0
    assert count_confusion(y, p) == cc.Confusion(tp=1, fn=1, fp=1, tn=1)
    assert count_confusion(y, p.to_numpy()) == cc.Confusion(tp=1, fn=1, fp=1, tn=1)
    assert count_confusion(y, p.iloc[::-1]) == cc.Confusion(tp=1, fn=1, fp=1, tn=1)


def test_labels_are_matched_by_value_or_name() -> None:
    # integers against string labels (a sheet's labels are names), integral floats too
    n = count_confusion([0, 1, 2, 2.0], np.array([0, 2, 2, 1]), labels=["0", "1", "2"])
    np.testing.assert_array_equal(n.to_numpy(), [[1, 0, 0], [0, 0, 1], [0, 1, 1]])
    # the order of labels= is the rows' order
    m = count_confusion(["a", "b"], ["a", "a"], labels=["b", "a"])
    assert m.labels == ("b", "a") and m.to_numpy().tolist() == [[0, 1], [0, 1]]
    # positive= with two labels puts the positive first
    assert count_confusion(["a", "b"], ["a", "a"], labels=["b", "a"], positive="a").labels == \
        ("a", "b")


@pytest.mark.parametrize(("y", "p", "labels", "match"), [
    (["a", "b"], ["a", "x"], ["a", "b"], r"y_pred holds 'x' \(1 row\(s\)\), which is not one"),
    (np.array(["a", "b"]), np.array(["a", "x"]), ["a", "b"], r"y_pred holds 'x' \(1 row"),
    (["a", None], ["a", "a"], ["a", "b"], "y_true has 1 row"),
    ([1, "1"], [1, 1], ["1", "2"], "holds both 1 and '1'"),
    (["a", "b"], ["a", "b"], ["a", "b", "a"], "distinct names"),
    ([True, False], [True, True], ["1", "0"], "holds True"),
])
def test_values_outside_the_labels_are_named(y, p, labels, match) -> None:
    with pytest.raises((cc.DataError, cc.ValidationError), match=match):
        count_confusion(y, p, labels=labels)


def test_positive_with_more_than_two_labels_is_refused() -> None:
    with pytest.raises(cc.ValidationError, match="positive one of two labels"):
        count_confusion(["a"], ["a"], labels=list("abc"), positive="a")
    with pytest.raises(cc.ValidationError, match="not one of the labels"):
        count_confusion(["a"], ["a"], labels=list("ab"), positive="z")


def test_without_labels_binary_rules_then_the_sorted_union() -> None:
    assert count_confusion([1, 0, 1], [1, 1, 0]) == cc.Confusion(tp=1, fn=1, fp=1, tn=0)
    assert count_confusion(["s", "w"], ["s", "s"], positive="s") == cc.Confusion(1, 0, 1, 0)
    with pytest.raises(cc.DataError, match="positive="):
        count_confusion(["s", "w"], ["s", "s"])  # two strings: the positive is never guessed
    n = count_confusion(["ok", "flu", "covid"], ["ok", "ok", "flu"])
    assert n.labels == ("covid", "flu", "ok")                 # sorted union, K > 2
    np.testing.assert_array_equal(n.to_numpy(),
                                  numpy_count(["ok", "flu", "covid"], ["ok", "ok", "flu"],
                                              ["covid", "flu", "ok"]))
    assert count_confusion([0, 2, 10], [10, 2, 0]).labels == ("0", "2", "10")  # numeric order
    with pytest.raises(cc.DataError, match="third label|two labels"):
        count_confusion(["a", "b", "c"], ["a", "a", "a"], positive="a")


def test_reader_counts_many_candidates_once() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 500)
    reader = PredictionReader(y, labels=[0, 1, 2])
    for _ in range(5):
        p = rng.integers(0, 3, 500)
        np.testing.assert_array_equal(reader.confusion(p).to_numpy(),
                                      numpy_count(y.tolist(), p.tolist(), [0, 1, 2]))


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_frame_columns_with_labels(engine: str) -> None:
    y = ["ok", "flu", "covid", "ok", "flu", None]
    p = ["ok", "covid", "covid", "flu", "flu", "ok"]
    data = {"y": y[:5], "m": p[:5]}
    if engine == "polars":
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame(data).lazy()
    else:
        frame = pd.DataFrame(data)
    labels = ["ok", "flu", "covid"]
    n = cc.confusion_from_predictions(frame, "y", "m", labels=labels)
    np.testing.assert_array_equal(n.to_numpy(), numpy_count(y[:5], p[:5], labels))
    # more than two values and no labels: their sorted union
    assert cc.confusion_from_predictions(frame, "y", "m").labels == ("covid", "flu", "ok")
    with pytest.raises(cc.DataError, match="1 row"):
        cc.confusion_from_predictions(pd.DataFrame({"y": y, "m": p}), "y", "m", labels=labels)
    with pytest.raises(cc.DataError, match="'cold'"):
        cc.confusion_from_predictions(pd.DataFrame({"y": y[:5], "m": p[:4] + ["cold"]}), "y",
                                      "m", labels=labels)


def test_frame_columns_binary_unchanged() -> None:
    data = {"y": ["sick", "sick", "well"], "m": ["sick", "well", "well"]}
    assert cc.confusion_from_predictions(data, "y", "m", positive="sick") == \
        cc.Confusion(tp=1, fn=1, fp=0, tn=1)
    with pytest.raises(cc.DataError, match="positive="):
        cc.confusion_from_predictions(data, "y", "m")
    assert cc.confusion_from_predictions(data, "y", "m", labels=["well", "sick"]).labels == \
        ("well", "sick")


@settings(max_examples=80, deadline=None)
@given(values=st.one_of(
    st.lists(st.integers(-(2**40), 2**40), max_size=30).map(np.array),
    st.lists(st.integers(-3, 3), max_size=30).map(lambda v: np.array(v, dtype=np.int8)),
    st.lists(st.booleans(), max_size=30).map(lambda v: np.array(v, dtype=bool)),
    st.lists(st.sampled_from(["a", "bb", "c"]), max_size=30).map(np.array)))
def test_factorize_fast_paths_against_pandas(values) -> None:
    from causalcost.data.predictions import _factorize

    codes, uniques = _factorize(values)
    assert codes.shape == values.shape
    assert [uniques[c] for c in codes] == values.tolist()          # codes index the values
    assert sorted(map(str, uniques.tolist())) == sorted(map(str, pd.unique(values).tolist()))


def test_scores_series_are_aligned_with_the_truth() -> None:
    y = pd.Series([1, 1, 0, 0], index=["a", "b", "c", "d"])
    s = pd.Series([0.9, 0.4, 0.6, 0.1], index=["a", "b", "c", "d"])
    expected = cc.confusion_at_threshold(y.to_numpy(), s.to_numpy(), 0.5)
    assert cc.confusion_at_threshold(y, s.iloc[[3, 1, 0, 2]], 0.5) == expected
    with pytest.raises(cc.DataError, match="index does not match"):
        cc.confusion_at_threshold(y, s.set_axis(["a", "b", "c", "x"]), 0.5)
