"""Confusion and CostMatrix over K labels (causalcost.confusion): the general values, their
binary views, exactness and overflow.

Independent references: a cell-by-cell Python sum in exact rational arithmetic
(``fractions.Fraction``) for costs, Python's own integers for totals, and the binary keyword
objects for K = 2 (whose behaviour tests/test_confusion.py pins).
"""

from __future__ import annotations

import dataclasses
import pickle
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.confusion import as_costs, check_labels

NAMES = ["ok", "flu", "covid", "cold", "other"]


@st.composite
def confusions(draw, big: bool = False) -> tuple[list[list[int]], list[str]]:
    k = draw(st.integers(2, 5))
    top = 2**62 if big else 10**6
    m = [[draw(st.integers(0, top)) for _ in range(k)] for _ in range(k)]
    labels = draw(st.permutations(NAMES))[:k]
    return m, labels


@st.composite
def costs(draw, k: int) -> list[list[float]]:
    out = []
    for c in range(k):
        hit = draw(st.floats(-100, 100))
        out.append([hit + (0 if s == c else draw(st.floats(0, 100))) for s in range(k)])
    return out


def exact_cost(m: list[list[int]], c: list[list[float]]) -> Fraction:
    return sum(Fraction(x) * Fraction(y) for row_m, row_c in zip(m, c)
               for x, y in zip(row_m, row_c))


# ----------------------------------------------------------------------------- round trips
@settings(max_examples=60, deadline=None)
@given(case=confusions())
def test_round_trips(case) -> None:
    m, labels = case
    n = cc.Confusion(m, labels=labels)
    assert n.labels == tuple(labels) and n.k == len(labels)
    assert n.to_numpy().tolist() == m
    assert cc.Confusion.from_matrix(n.to_numpy(), labels=labels) == n
    assert cc.Confusion(n.to_frame()) == n                       # labels read from the frame
    assert cc.Confusion.from_frame(n.to_frame()) == n
    assert cc.Confusion(n) == n                                  # anything with to_numpy/labels
    assert pickle.loads(pickle.dumps(n)) == n
    assert hash(pickle.loads(pickle.dumps(n))) == hash(n)
    assert dataclasses.replace(n) == n
    # a permuted frame is read by name
    order = list(reversed(labels))
    shuffled = n.to_frame().loc[order, labels]
    assert cc.Confusion(shuffled, labels=labels) == n
    back = n.reorder(order)
    assert back.labels == tuple(order) and back.reorder(labels) == n
    for i, t in enumerate(labels):
        for j, p in enumerate(labels):
            assert back.to_frame().loc[t, p] == m[i][j]
    # totals against Python's integers
    assert n.class_sizes == tuple(sum(r) for r in m)
    assert n.predicted_sizes == tuple(sum(col) for col in zip(*m))
    assert n.total == sum(map(sum, m))
    assert n.errors == sum(m[i][j] for i in range(len(m)) for j in range(len(m)) if i != j)


@settings(max_examples=40, deadline=None)
@given(case=confusions(big=True))
def test_big_counts_stay_exact(case) -> None:
    m, labels = case
    n = cc.Confusion(m, labels=labels)
    assert n.total == sum(map(sum, m))                            # exact beyond 2**53
    assert n.class_sizes == tuple(sum(r) for r in m)
    assert cc.Confusion(n.to_numpy(), labels=labels) == n
    assert pickle.loads(pickle.dumps(n)) == n
    if any(v > 2**53 for r in m for v in r):
        assert n.to_numpy().dtype == object


def test_exact_big_integers_in_numpy_int64_and_object_arrays() -> None:
    big = 2**60 + 1  # float(big) == 2**60
    m = np.array([[big, 1, 0], [0, big, 0], [0, 0, 1]], dtype=np.int64)
    n = cc.Confusion(m, labels=["a", "b", "c"])
    assert n.matrix[0][0] == big and n.total == 2 * big + 2 and n.errors == 1
    assert "1152921504606846977" in repr(n)
    huge = 10**30  # beyond int64: an object array of Python ints
    assert cc.Confusion([[huge, 1, 0], [0, 0, 0], [0, 0, 0]]).class_sizes[0] == huge + 1


# -------------------------------------------------------------------- K = 2 equivalence
@settings(max_examples=60, deadline=None)
@given(cells=st.tuples(*[st.integers(0, 10**6)] * 4))
def test_two_labels_are_the_binary_object(cells) -> None:
    tp, fn, fp, tn = cells
    binary = cc.Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
    general = cc.Confusion([[tp, fn], [fp, tn]], labels=["P", "N"])
    assert general == binary and hash(general) == hash(binary)
    assert repr(general) == repr(binary) == f"Confusion(tp={tp}, fn={fn}, fp={fp}, tn={tn})"
    assert binary.labels == ("P", "N") and binary.k == 2
    assert (binary.positives, binary.negatives) == binary.class_sizes
    assert binary.to_numpy().tolist() == [[tp, fn], [fp, tn]]
    named = cc.Confusion([[tp, fn], [fp, tn]], labels=["sick", "well"])
    assert named.cells() == binary.cells() and named != binary
    assert repr(named).endswith(", labels=('sick', 'well'))")
    assert named.with_labels(["P", "N"]) == binary


def test_binary_costs_are_the_general_costs() -> None:
    c = cc.CostMatrix(fn=5, fp=1)
    assert c == cc.CostMatrix([[0, 5], [1, 0]]) == cc.CostMatrix.from_matrix([[0, 5], [1, 0]],
                                                                             labels=["P", "N"])
    assert c.labels == ("P", "N") and c.to_numpy().tolist() == [[0, 5], [1, 0]]
    assert cc.CostMatrix(0, 5) == cc.CostMatrix(tp=0, fn=5, fp=1, tn=0)
    # thesis §4 example 1: 60 missed positives x 5 + 20 false alarms x 1 = 320, whichever way
    n = cc.Confusion(tp=40, fn=60, fp=20, tn=180)
    assert n.cost(c) == n.cost([[0, 5], [1, 0]]) == 320


def test_k2_and_k3_costs_against_the_exact_sum() -> None:
    m = [[40, 60], [20, 180]]
    assert cc.Confusion(m).cost(cc.CostMatrix(fn=5, fp=1)) == float(exact_cost(m, [[0, 5],
                                                                                   [1, 0]]))
    m3 = [[8, 2, 0], [1, 9, 0], [1, 0, 9]]
    c3 = [[0, 1, 1], [1, 0, 1], [5, 5, 0]]
    assert cc.Confusion(m3, labels=list("abc")).cost(cc.CostMatrix(c3, labels=list("abc"))) == 8.0


@settings(max_examples=60, deadline=None)
@given(case=confusions(), data=st.data())
def test_cost_is_the_cellwise_sum_matched_by_name(case, data) -> None:
    m, labels = case
    c = data.draw(costs(len(labels)))
    n = cc.Confusion(m, labels=labels)
    expected = float(exact_cost(m, c))
    assert n.cost(cc.CostMatrix(c, labels=labels)) == pytest.approx(expected, rel=1e-12,
                                                                    abs=1e-6)
    # the same costs written in another label order: matched by name, not position
    order = data.draw(st.permutations(labels))
    idx = [labels.index(x) for x in order]
    permuted = cc.CostMatrix([[c[i][j] for j in idx] for i in idx], labels=order)
    assert n.cost(permuted) == pytest.approx(expected, rel=1e-12, abs=1e-6)


def test_costs_over_other_labels_are_refused() -> None:
    n = cc.Confusion([[1, 0, 0], [0, 1, 0], [0, 0, 1]], labels=["covid", "flu", "ok"])
    c = cc.CostMatrix(1 - np.eye(3), labels=["covid", "flu", "Ok"])
    with pytest.raises(cc.ValidationError, match=r"labels are matched by name"):
        n.cost(c)
    with pytest.raises(cc.ValidationError, match="2 labels but the other inputs have 3"):
        n.cost(cc.CostMatrix(fn=1, fp=1))
    with pytest.raises(cc.InputTypeError, match="CostMatrix"):
        n.cost({"fn": 1})


# --------------------------------------------------------------------------- display
def test_repr_and_frame_for_three_labels() -> None:
    n = cc.Confusion([[5, 10, 0], [100, 4, 0], [2, 0, 3.5]], labels=["ok", "flu", "covid"])
    assert repr(n) == ("Confusion([[  5, 10,   0],\n"
                       "           [100,  4,   0],\n"
                       "           [  2,  0, 3.5]], labels=('ok', 'flu', 'covid'))")
    frame = n.to_frame()
    assert frame.index.name == "true" and frame.columns.name == "predicted"
    assert frame.index.tolist() == frame.columns.tolist() == ["ok", "flu", "covid"]
    assert frame.loc["flu", "ok"] == 100                       # rows the true class
    html = n._repr_html_()
    assert "covid" in html and "rows true class" in html and "<td>3.5</td>" in html
    c = cc.CostMatrix([[0, 1, 1], [5, 0, 5], [2, 2, 0]], labels=["ok", "flu", "covid"])
    assert repr(c).startswith("CostMatrix([[0, 1, 1],\n            [5, 0, 5],")
    # the repr is a constructor call
    assert eval(repr(n), {"Confusion": cc.Confusion}) == n  # noqa: S307


# ------------------------------------------------------------------------ binary views
@pytest.mark.parametrize("name", ["tp", "fn", "fp", "tn", "positives", "negatives"])
def test_binary_names_on_three_labels_say_what_to_use(name: str) -> None:
    n = cc.Confusion(np.eye(3), labels=["a", "b", "c"])
    with pytest.raises(cc.NotBinaryError, match=r"to_numpy\(\)") as info:
        getattr(n, name)
    assert isinstance(info.value, AttributeError) and isinstance(info.value, cc.CausalCostError)
    assert not hasattr(n, name)
    with pytest.raises(cc.NotBinaryError):
        n.cells()
    with pytest.raises(cc.NotBinaryError):
        cc.CostMatrix(1 - np.eye(3)).to_dict()


def test_frozen_and_equal_by_value() -> None:
    n = cc.Confusion(np.eye(3), labels=["a", "b", "c"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.labels = ("x", "y", "z")  # type: ignore[misc]
    assert n == cc.Confusion([[1, 0, 0], [0, 1, 0], [0, 0, 1]], labels=["a", "b", "c"])
    assert n != cc.Confusion(np.eye(3), labels=["a", "c", "b"])
    assert n != cc.CostMatrix(np.eye(3) * 0, labels=["a", "b", "c"])
    assert len({n, cc.Confusion(n.to_numpy(), labels=n.labels)}) == 1


# ------------------------------------------------------------------------- validation
@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: cc.Confusion([[1, -1, 0], [0, 0, 0], [0, 0, 0]], labels=list("abc")), cc.CountError,
     r"confusion cell \(true 'a', predicted 'b'\) must be >= 0, got -1.0"),
    (lambda: cc.Confusion([[1, float("nan"), 0], [0, 0, 0], [0, 0, 0]]), cc.CountError,
     r"cell \(true '0', predicted '1'\) must be finite"),
    (lambda: cc.Confusion([[1, 2, 3]]), cc.CountError, r"square \(K, K\) array"),
    (lambda: cc.Confusion([[1]]), cc.CountError, "K >= 2"),
    (lambda: cc.Confusion(np.eye(2), labels=[1, "1"]), cc.ValidationError, "distinct names"),
    (lambda: cc.Confusion(np.eye(3), labels=["a", "b"]), cc.ValidationError,
     r"3 x 3, so it has 3 labels but the other inputs have 2"),
    (lambda: cc.Confusion(np.eye(2), labels=list("ab"), tp=1), cc.InputTypeError, "not both"),
    (lambda: cc.Confusion([["a", 1], [1, 1]]), cc.InputTypeError, "tp must be a real number"),
    (lambda: cc.Confusion([[1e308, 1e308], [1, 1]]), cc.CountError, "total overflows"),
    (lambda: cc.Confusion(1, 2, 3), cc.InputTypeError, "missing the cell"),
    (lambda: cc.CostMatrix([[0, 1, 1], [1, 2, 1], [1, 1, 0]], labels=["ok", "flu", "covid"]),
     cc.CostMatrixError, r"cost \(true 'flu', output 'flu'\) = 2 exceeds cost \(true 'flu', "
     r"output 'ok'\) = 1"),
    (lambda: cc.CostMatrix([[0, 1, float("inf")], [1, 0, 1], [1, 1, 0]]), cc.CostMatrixError,
     r"cost \(true '0', output '2'\) must be finite"),
    (lambda: cc.CostMatrix([[-1e308, 1e308, 0], [1, 0, 1], [1, 1, 0]]), cc.CostMatrixError,
     "overflows float64; rescale the costs"),
    (lambda: cc.CostMatrix(tp=-1e308, fn=1e308), cc.CostMatrixError,
     r"cost fn - tp \(what a mistake adds\) overflows float64"),
    (lambda: check_labels("ab", 2), cc.InputTypeError, "list of label names"),
    (lambda: as_costs("fn=1", ("P", "N")), cc.InputTypeError, "CostMatrix"),
])
def test_bad_values_are_refused(call, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------------- 1e308 costs
def test_costs_near_float64s_limit() -> None:
    labels = ["a", "b", "c"]
    c = cc.CostMatrix([[0, 1e308, 1e308], [1e308, 0, 1e308], [1e308, 1e308, 0]], labels=labels)
    assert c.to_numpy().max() == 1e308
    one = cc.Confusion([[5, 1, 0], [0, 5, 0], [0, 0, 5]], labels=labels)
    assert one.cost(c) == 1e308                                  # fits: computed as is
    with pytest.raises(cc.OverflowInputError, match="rescale the costs"):
        cc.Confusion([[0, 2, 0], [0, 0, 0], [0, 0, 0]], labels=labels).cost(c)
    # an intermediate float64 sum overflows, the result does not: computed exactly
    mixed = cc.CostMatrix([[-8e307, 8e307, 8e307], [1, 0, 1], [1, 1, 0]], labels=labels)
    m = [[3, 2, 0], [0, 0, 0], [0, 0, 0]]  # -2.4e308 (beyond float64) + 1.6e308 = -8e307
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.float64(3) * -8e307)
    expected = float(exact_cost(m, mixed.to_numpy().tolist()))
    assert cc.Confusion(m, labels=labels).cost(mixed) == expected == pytest.approx(-8e307)
    # big counts, small costs
    big = cc.Confusion([[2**60, 1, 0], [0, 0, 0], [0, 0, 2**60]], labels=labels)
    assert big.cost(1 - np.eye(3)) == 1.0


def test_as_costs_reads_arrays_in_the_confusions_order() -> None:
    assert as_costs([[0, 4], [1, 0]], ["b", "a"]).reorder(["a", "b"]).to_numpy().tolist() == \
        [[0, 1], [4, 0]]
    frame = cc.CostMatrix([[0, 1], [4, 0]], labels=["x", "y"]).to_frame()
    assert as_costs(cc.CostMatrix(frame), ["y", "x"]).to_numpy().tolist() == [[0, 4], [1, 0]]


def test_labelled_frames_need_the_same_labels_on_both_axes() -> None:
    frame = pd.DataFrame(np.eye(3), index=["a", "b", "c"], columns=["a", "b", "C"])
    with pytest.raises(cc.ValidationError, match="same labels on its rows"):
        cc.Confusion(frame)
    plain = pd.DataFrame(np.eye(3))                               # no labels: an array
    assert cc.Confusion(plain, labels=list("xyz")).labels == ("x", "y", "z")
    with pytest.raises(cc.ValidationError, match="labelled 'P' and 'N'"):
        cc.Confusion.from_frame(pd.DataFrame([[1, 2], [3, 4]]))


@pytest.mark.parametrize(("cells", "match"), [
    ([[1.0, -1.0], [0.0, 0.0]], "fn must be >= 0, got -1.0"),
    ([[1.0, np.nan], [0.0, 0.0]], "fn must be finite, got nan"),
    ([[1.0, np.inf], [0.0, 0.0]], "fn must be finite, got inf"),
    ([[1e308, 1e308], [0.0, 0.0]], "total overflows float64"),
])
def test_numpy_arrays_are_checked_like_lists(cells, match: str) -> None:
    for given_ in (cells, np.array(cells)):
        with pytest.raises(cc.CountError, match=match):
            cc.Confusion(given_)
    assert cc.Confusion(np.array([[1, 2], [3, 4]], dtype=np.uint8)) == cc.Confusion(1, 2, 3, 4)
