"""Candidates for K labels (causalcost.evaluation.candidates): frames matched by label name,
names compared as text, every candidate form read by one call.

References: the numpy count of tests/data/test_predictions.py and hand-permuted matrices.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.evaluation.candidates import (
    as_confusion,
    candidate_matrices,
    candidates_frame,
    confusions_from_predictions,
    frame_labels,
)

LABELS = ["covid", "flu", "ok"]
M = [[8, 2, 0], [1, 9, 0], [1, 0, 9]]


def numpy_count(y, p, labels) -> np.ndarray:
    at = {v: i for i, v in enumerate(labels)}
    out = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(out, ([at[v] for v in y], [at[v] for v in p]), 1)
    return out


def permuted(m, labels, order):
    idx = [labels.index(x) for x in order]
    return [[m[i][j] for j in idx] for i in idx]


def test_k_label_frames_are_read_by_name() -> None:
    order = ["ok", "flu", "covid"]                               # reversed
    reordered = cc.Confusion(permuted(M, LABELS, order), labels=order)
    frame = candidates_frame({"a": cc.Confusion(M, labels=LABELS), "b": reordered},
                             labels=LABELS)
    assert frame.columns.names == ["true", "predicted"] and frame.attrs["labels"] == LABELS
    names, m = candidate_matrices(frame)
    assert names == ["a", "b"] and frame_labels(frame) == tuple(LABELS)
    np.testing.assert_array_equal(m[0], M)
    np.testing.assert_array_equal(m[1], M)                       # not read by position
    # a frame whose columns come in another order reads the same
    shuffled = frame[frame.columns[::-1]]
    np.testing.assert_array_equal(
        candidate_matrices(candidates_frame(shuffled, labels=LABELS))[1], m)
    own = candidates_frame(shuffled)                           # its own (reversed) order
    _, m2 = candidate_matrices(own)
    assert frame_labels(own) == tuple(order)
    # read over the labels asked for, by name: the same counts as the first frame
    np.testing.assert_array_equal(candidate_matrices(own, LABELS)[1], m)
    np.testing.assert_array_equal(m2[0], permuted(M, LABELS, order))
    # labels found on the first K-label candidate when not given
    assert candidates_frame({"b": reordered}).attrs["labels"] == order


def test_frames_over_other_labels_are_refused() -> None:
    frame = candidates_frame({"a": cc.Confusion(M, labels=["covid", "flu", "Ok"])})
    with pytest.raises(cc.ValidationError, match="matched by name"):
        candidates_frame(frame, labels=LABELS)
    with pytest.raises(cc.ValidationError, match="matched by name"):
        candidates_frame({"a": cc.Confusion(M, labels=["covid", "flu", "Ok"])}, labels=LABELS)
    with pytest.raises(cc.ValidationError, match="binary candidate frame"):
        candidates_frame(candidates_frame({"x": cc.Confusion(1, 2, 3, 4)}), labels=LABELS)


@pytest.mark.parametrize("labels", [None, LABELS])
def test_equal_names_are_refused(labels) -> None:
    m = np.asarray(M)
    with pytest.raises(cc.ValidationError, match="two candidates are named '1'"):
        candidates_frame({1: cc.Confusion(m, labels=LABELS),
                          "1": cc.Confusion(2 * m, labels=LABELS)}, labels=labels)
    with pytest.raises(cc.ValidationError, match="two candidates are named 'x'"):
        candidates_frame({"x": cc.Confusion(m, labels=LABELS)},
                         candidates_frame({"x": cc.Confusion(m, labels=LABELS)}), labels=labels)
    y = ["ok", "flu", "covid"]
    with pytest.raises(cc.ValidationError, match="two candidates are named '1'"):
        confusions_from_predictions(y, predictions={1: y, "1": y}, labels=labels)


def test_binary_frames_unchanged() -> None:
    frame = candidates_frame({"coin": cc.Confusion(50, 50, 100, 100)},
                             {"good": {"tp": 90, "fn": 10, "fp": 20, "tn": 180}})
    assert frame.columns.tolist() == ["tp", "fn", "fp", "tn"]
    assert frame.loc["good"].tolist() == [90, 10, 20, 180]
    names, m = candidate_matrices(frame)
    assert frame_labels(frame) == ("P", "N") and names == ["coin", "good"]
    assert m[1].tolist() == [[90, 10], [20, 180]]


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 30), seed=st.integers(0, 2**32 - 1))
def test_predictions_of_many_candidates(rows: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = rng.choice(LABELS, rows).tolist()
    preds = {f"m{i}": rng.choice(LABELS, rows).tolist() for i in range(3)}
    got = confusions_from_predictions(y, predictions=preds, labels=LABELS)
    for name, p in preds.items():
        np.testing.assert_array_equal(got[name].to_numpy(), numpy_count(y, p, LABELS))
    # Series with a permuted index are aligned with y_true, never paired by position
    index = [f"r{i}" for i in range(rows)]
    order = rng.permutation(rows)
    series = {n: pd.Series(p, index=index).iloc[order] for n, p in preds.items()}
    aligned = confusions_from_predictions(pd.Series(y, index=index), predictions=series,
                                          labels=LABELS)
    assert aligned == got


def test_scores_are_binary_by_nature() -> None:
    with pytest.raises(cc.ValidationError, match="two labels"):
        confusions_from_predictions(["ok", "flu", "covid"], scores={"s": [0.1, 0.2, 0.3]},
                                    labels=LABELS)
    # two named labels: the first is the one a high score predicts
    got = confusions_from_predictions(["a", "b", "b"], scores={"s": [0.9, 0.8, 0.1]},
                                      labels=["a", "b"])
    assert got["s"] == cc.Confusion(tp=1, fn=0, fp=1, tn=1, labels=("a", "b"))
    # scores as a Series with a permuted index are aligned too
    y = pd.Series([1, 0, 0], index=[5, 6, 7])
    s = pd.Series([0.1, 0.8, 0.9], index=[7, 6, 5])
    assert confusions_from_predictions(y, scores={"s": s})["s"] == cc.Confusion(1, 0, 1, 1)


def test_as_confusion_reads_every_form() -> None:
    y, p = ["ok", "flu", "covid", "ok"], ["ok", "ok", "covid", "flu"]
    expected = cc.Confusion(numpy_count(y, p, LABELS), labels=LABELS)
    assert as_confusion((y, p), labels=LABELS) == expected
    assert as_confusion(pd.DataFrame({"truth": y, "prediction": p}), labels=LABELS) == expected
    assert as_confusion(expected.to_frame().loc[LABELS[::-1], LABELS[::-1]],
                        labels=LABELS) == expected
    assert as_confusion(expected.to_numpy(), labels=LABELS) == expected
    assert as_confusion(expected.reorder(LABELS[::-1]), labels=LABELS) == expected
    with pytest.raises(cc.ValidationError, match="candidate 'x'.*matched by name"):
        as_confusion(expected.with_labels(["covid", "flu", "Ok"]), "x", labels=LABELS)
    with pytest.raises(TypeError, match="candidate 'x' must be"):
        as_confusion("tp=1", "x")


def test_multiclass_confusion_is_a_warning_alias() -> None:
    y, p = ["a", "b", "b"], ["a", "a", "b"]
    with pytest.warns(DeprecationWarning, match="as_confusion"):
        old = cc.multiclass_confusion((y, p), ["a", "b"])
    np.testing.assert_array_equal(old, as_confusion((y, p), labels=["a", "b"]).to_numpy())
    # evaluating a K-label sheet does not go through the deprecated name
    from causalcost.sheet.derivation import derive_labelled_sheet

    t = np.zeros((3, 3, 3))
    for j in range(3):
        t[:, j, j] = 1.0
    sheet = derive_labelled_sheet(t, [[0, 1, 1], [1, 0, 1], [5, 5, 0]], slot="m",
                             labels=["a", "b", "c"], created="2026-01-01T00:00:00+00:00")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        report = cc.evaluate(sheet, [[8, 2, 0], [1, 9, 0], [1, 0, 9]])
    assert report.eval1 == 8.0  # M1 = costs for this system: 2 + 1 + 5 (module docstring)
