"""Value types: Confusion and CostMatrix (causalcost.confusion).

Orientation reference: METHOD.md "Orientation and names" (rows = true class, columns =
prediction, order (P, N)) and scikit-learn's ``confusion_matrix``, which sorts labels by
default (so 0/1 targets give ``[[tn, fp], [fn, tp]]``) and follows ``labels=`` otherwise.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix

import causalcost as cc
from causalcost.confusion import format_number, parse_cells

counts = st.integers(0, 10**6)
reals = st.floats(0, 1e6, allow_nan=False, allow_infinity=False)
confusions = st.builds(cc.Confusion, tp=counts, fn=counts, fp=counts, tn=counts)


@st.composite
def cost_matrices(draw) -> cc.CostMatrix:
    tp = draw(st.floats(-100, 100))
    tn = draw(st.floats(-100, 100))
    return cc.CostMatrix(tp=tp, fn=tp + draw(st.floats(0, 100)), fp=tn + draw(st.floats(0, 100)),
                         tn=tn)


# ------------------------------------------------------------------------ Confusion
def test_cells_and_derived_counts() -> None:
    # thesis §4 example 1 system confusion with the images model: 80/20 on 100 positives,
    # 40/160 on 200 negatives
    m = cc.Confusion(tp=80, fn=20, fp=40, tn=160)
    assert (m.positives, m.negatives, m.total, m.errors) == (100, 200, 300, 60)
    assert m.to_array().tolist() == [[80, 20], [40, 160]]
    assert m.to_dict() == {"tp": 80, "fn": 20, "fp": 40, "tn": 160}
    assert cc.CELLS == ("tp", "fn", "fp", "tn")
    assert m.is_integral and not cc.Confusion(0.5, 1, 1, 1).is_integral
    assert repr(m) == "Confusion(tp=80, fn=20, fp=40, tn=160)"
    # Confusion.cost docstring: thesis §4, cost function 1, example 1 real system cost 320
    # = 60 missed positives x 5 + 20 false alarms x 1
    assert cc.Confusion(tp=40, fn=60, fp=20, tn=180).cost(cc.CostMatrix(fn=5, fp=1)) == 320


def test_frame_layout() -> None:
    m = cc.Confusion(tp=1, fn=2, fp=3, tn=4)
    frame = m.to_frame()
    assert frame.loc["P", "N"] == 2 and frame.loc["N", "P"] == 3  # rows true, columns pred
    assert frame.index.name == "true" and frame.columns.name == "predicted"
    # label lookup is by name: a reordered frame gives the same matrix
    shuffled = frame.loc[["N", "P"], ["N", "P"]]
    assert cc.Confusion.from_frame(shuffled) == m
    with pytest.raises(cc.ValidationError, match="labelled 'P' and 'N'"):
        cc.Confusion.from_frame(pd.DataFrame([[1, 2], [3, 4]]))


@settings(max_examples=100, deadline=None)
@given(m=confusions)
def test_confusion_round_trips(m: cc.Confusion) -> None:
    assert cc.Confusion.from_array(m.to_array()) == m
    assert cc.Confusion.from_frame(m.to_frame()) == m
    assert cc.Confusion.from_mapping(m.to_dict()) == m
    text = ",".join(f"{k}={int(v)}" for k, v in m.to_dict().items())
    assert cc.Confusion.parse(text) == m
    assert cc.Confusion.from_sklearn(m.to_sklearn()) == m
    assert cc.Confusion.from_sklearn(m.to_sklearn(["sick", "well"], "sick"), ["sick", "well"],
                                     "sick") == m


@settings(max_examples=100, deadline=None)
@given(m=st.builds(cc.Confusion, tp=reals, fn=reals, fp=reals, tn=reals))
def test_fractional_confusion_round_trips(m: cc.Confusion) -> None:
    assert cc.Confusion.from_array(m.to_array()) == m
    assert cc.Confusion.from_mapping(m.to_dict()) == m
    assert cc.Confusion.parse(",".join(f"{k}={v!r}" for k, v in m.to_dict().items())) == m


def test_sklearn_orientation() -> None:
    # sklearn, labels (0, 1) sorted: [[tn, fp], [fn, tp]]
    y_true = [1] * 80 + [1] * 20 + [0] * 40 + [0] * 160
    y_pred = [1] * 80 + [0] * 20 + [1] * 40 + [0] * 160
    sk = confusion_matrix(y_true, y_pred)
    assert sk.tolist() == [[160, 40], [20, 80]]
    m = cc.Confusion.from_sklearn(sk)  # default labels (0, 1), positive 1
    assert m == cc.Confusion(tp=80, fn=20, fp=40, tn=160)
    np.testing.assert_array_equal(m.to_sklearn(), sk)
    # string labels with an explicit order: ["sick", "well"], positive "sick"
    names = {1: "sick", 0: "well"}
    sk2 = confusion_matrix([names[v] for v in y_true], [names[v] for v in y_pred],
                           labels=["sick", "well"])
    assert sk2.tolist() == [[80, 20], [40, 160]]
    assert cc.Confusion.from_sklearn(sk2, labels=["sick", "well"], positive="sick") == m
    # the same matrix read with the positive label "well" swaps the roles
    assert cc.Confusion.from_sklearn(sk2, labels=["sick", "well"], positive="well") == \
        cc.Confusion(tp=160, fn=40, fp=20, tn=80)
    with pytest.raises(cc.ValidationError, match=r"positive label 'x' is not among labels"):
        cc.Confusion.from_sklearn(sk2, labels=["sick", "well"], positive="x")
    with pytest.raises(cc.ValidationError, match="2x2 matrix"):
        cc.Confusion.from_sklearn(np.eye(3))


labels01 = st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from([0, 1])), max_size=60)


@settings(max_examples=100, deadline=None)
@given(pairs=labels01)
def test_from_predictions_matches_sklearn_and_counting(pairs) -> None:
    y_true = [t for t, _ in pairs]
    y_pred = [p for _, p in pairs]
    m = cc.Confusion.from_predictions(y_true, y_pred)
    # by counting
    assert m.tp == sum(t == 1 and p == 1 for t, p in pairs)
    assert m.fn == sum(t == 1 and p == 0 for t, p in pairs)
    assert m.fp == sum(t == 0 and p == 1 for t, p in pairs)
    assert m.tn == sum(t == 0 and p == 0 for t, p in pairs)
    # sklearn with labels=[positive, negative] is [[tp, fn], [fp, tn]] (METHOD.md)
    if pairs:
        sk = confusion_matrix(y_true, y_pred, labels=[1, 0])
        np.testing.assert_array_equal(m.to_array(), sk)


@settings(max_examples=50, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(["sick", "well"]),
                                st.sampled_from(["sick", "well"])), min_size=1, max_size=40))
def test_from_predictions_string_labels(pairs) -> None:
    y_true = [t for t, _ in pairs]
    y_pred = [p for _, p in pairs]
    m = cc.Confusion.from_predictions(y_true, y_pred, positive="sick")
    sk = confusion_matrix(y_true, y_pred, labels=["sick", "well"])
    np.testing.assert_array_equal(m.to_array(), sk)


def test_from_predictions_rejects_more_than_two_labels() -> None:
    with pytest.raises(cc.ValidationError, match="binary labels expected"):
        cc.Confusion.from_predictions([0, 1, 2], [0, 1, 1])


@pytest.mark.parametrize(("cells", "message"), [
    ({"tp": -1}, "tp must be >= 0, got -1.0"),
    ({"fn": math.inf}, "fn must be finite, got inf"),
    ({"fp": -math.inf}, "fp must be finite"),
    ({"tn": math.nan}, "tn must be finite, got nan"),
    ({"tn": np.float64(-0.5)}, "tn must be >= 0"),
])
def test_bad_counts(cells: dict, message: str) -> None:
    base = {"tp": 1, "fn": 1, "fp": 1, "tn": 1} | cells
    with pytest.raises(cc.CountError, match=message):
        cc.Confusion(**base)


def test_bad_types_and_shapes() -> None:
    with pytest.raises(TypeError, match="tp must be a real number"):
        cc.Confusion(tp="80", fn=1, fp=1, tn=1)
    with pytest.raises(TypeError, match="fn must be a real number"):
        cc.Confusion(tp=1, fn=True, fp=1, tn=1)
    with pytest.raises(cc.ValidationError, match=r"shape \(2, 2\)"):
        cc.Confusion.from_array([1, 2, 3, 4])
    with pytest.raises(cc.ValidationError, match=r"missing \['tn'\]; unknown \['tx'\]"):
        cc.Confusion.from_mapping({"tp": 1, "fn": 1, "fp": 1, "tx": 1})
    with pytest.raises(cc.ValidationError, match="cannot read 'tq=3'"):
        cc.Confusion.parse("tp=1,fn=2,fp=3,tq=3")
    with pytest.raises(cc.ValidationError, match="'tp' is given twice"):
        parse_cells("tp=1,tp=2")
    with pytest.raises(cc.ValidationError, match="tp='x' is not a number"):
        parse_cells("tp=x")


def test_confusion_is_frozen() -> None:
    m = cc.Confusion(1, 2, 3, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.tp = 5  # type: ignore[misc]
    assert m.tp == 1
    assert hash(m) == hash(cc.Confusion(1.0, 2.0, 3.0, 4.0))  # frozen values are hashable


# ------------------------------------------------------------------------ CostMatrix
def test_cost_matrix_defaults_and_layout() -> None:
    # thesis §4: c_FN = 5, c_FP = 1, hits free
    c = cc.CostMatrix(fn=5, fp=1)
    assert c.cells() == (0, 5, 1, 0)
    assert c.to_array().tolist() == [[0, 5], [1, 0]]
    assert c.to_frame().loc["P", "N"] == 5
    assert cc.CostMatrix() == cc.CostMatrix(tp=0, fn=1, fp=1, tn=0)  # the slides: count errors
    assert repr(c) == "CostMatrix(tp=0, fn=5, fp=1, tn=0)"


@settings(max_examples=100, deadline=None)
@given(c=cost_matrices())
def test_cost_matrix_round_trips(c: cc.CostMatrix) -> None:
    assert cc.CostMatrix.from_array(c.to_array()) == c
    assert cc.CostMatrix.from_mapping(c.to_dict()) == c
    assert cc.CostMatrix.parse(",".join(f"{k}={v!r}" for k, v in c.to_dict().items())) == c


@settings(max_examples=100, deadline=None)
@given(m=confusions, c=cost_matrices())
def test_cost_is_the_cellwise_sum(m: cc.Confusion, c: cc.CostMatrix) -> None:
    expected = m.tp * c.tp + m.fn * c.fn + m.fp * c.fp + m.tn * c.tn
    assert m.cost(c) == pytest.approx(expected, rel=1e-12, abs=1e-6)


def test_hit_costing_more_than_a_mistake_is_rejected() -> None:
    with pytest.raises(cc.CostMatrixError, match="cost tp=2 exceeds cost fn=1"):
        cc.CostMatrix(tp=2, fn=1, fp=1, tn=0)
    with pytest.raises(cc.CostMatrixError, match="cost tn=3 exceeds cost fp=1"):
        cc.CostMatrix(tp=0, fn=1, fp=1, tn=3)
    with pytest.raises(cc.CostMatrixError, match="cost fn must be finite"):
        cc.CostMatrix(fn=math.inf)
    with pytest.raises(cc.CostMatrixError, match="cost fp must be finite"):
        cc.CostMatrix(fp=math.nan)
    with pytest.raises(cc.CostMatrixError, match=r"missing \['fp'\]"):
        cc.CostMatrix.parse("fn=5")
    with pytest.raises(cc.CostMatrixError, match=r"unknown cost cells \['xx'\]"):
        cc.CostMatrix.from_mapping({"fn": 1, "fp": 1, "xx": 2})
    with pytest.raises(cc.CostMatrixError, match=r"shape \(2, 2\)"):
        cc.CostMatrix.from_array([[1, 2, 3]])
    # equal costs are allowed (c_TP <= c_FN, METHOD.md)
    assert cc.CostMatrix(tp=1, fn=1, fp=2, tn=2).cells() == (1, 1, 2, 2)


def test_cost_matrix_is_frozen() -> None:
    c = cc.CostMatrix(fn=5, fp=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.fn = 0  # type: ignore[misc]
    assert c.fn == 5


def test_errors_are_value_errors() -> None:
    # errors.py: every error derives from CausalCostError and the built-in it refines
    with pytest.raises(ValueError):
        cc.Confusion(-1, 0, 0, 0)
    with pytest.raises(cc.CausalCostError):
        cc.CostMatrix(tp=2, fn=1)


# ------------------------------------------------------------------ issue 7: user errors
@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: cc.Confusion.parse(None), cc.InputTypeError, "must be a string"),
    (lambda: cc.CostMatrix.parse(5), cc.InputTypeError, "must be a string"),
    (lambda: cc.Confusion(tp=10**400, fn=0, fp=0, tn=0), cc.CountError,
     r"tp must be finite: \(an integer near 2\*\*1328\) is beyond float64's range"),
    (lambda: cc.Confusion.from_array([["a", "b"], ["c", "d"]]), cc.InputTypeError,
     "tp must be a real number, got str 'a'"),
    (lambda: cc.Confusion.from_array([[1, True], [0, 0]]), cc.InputTypeError,
     "fn must be a real number, got bool"),
    (lambda: cc.Confusion.from_array([[1, 2], [3]]), cc.ValidationError, r"shape \(2, 2\)"),
    (lambda: cc.correlation_range("x", 0.5), cc.InputTypeError, "accuracy a must be a real"),
    (lambda: cc.correlated_correctness(0.5, 0.5, math.nan), cc.ValidationError,
     "correlation must be finite"),
    (lambda: cc.Confusion.from_sklearn([[1, 2], [3, 4]], labels=[1, 1]), cc.ValidationError,
     r"labels must be two different labels .* got \[1, 1\]"),
    (lambda: cc.Confusion.from_sklearn([[1, 2], [3, 4]], labels=None), cc.InputTypeError,
     "labels must be a sequence of two labels"),
    (lambda: cc.Confusion(1, 1, 1, 1).to_sklearn(labels=["a", "a"], positive="a"),
     cc.ValidationError, "two different labels"),
    (lambda: cc.Confusion.from_mapping(None), cc.InputTypeError, "must be a mapping"),
    (lambda: cc.CostMatrix.from_mapping([("fn", 1)]), cc.InputTypeError, "must be a mapping"),
    (lambda: cc.Confusion.from_frame(None), cc.InputTypeError, "pandas DataFrame"),
    (lambda: cc.Confusion.from_predictions(None, [1]), cc.InputTypeError, "sequences"),
    (lambda: cc.Confusion.from_predictions([1, 0], [1]), cc.ValidationError, "same length"),
    (lambda: cc.Confusion(1, 1, 1, 1).cost("fn=1"), cc.InputTypeError, "CostMatrix"),
    (lambda: cc.CostMatrix.from_array([["x", 1], [1, 0]]), cc.InputTypeError, "real number"),
    (lambda: cc.Confusion(1e308, 1e308, 1, 1), cc.CountError, "total overflows float64"),
])
def test_user_errors_are_causalcost_errors(call, error: type, match: str) -> None:
    with pytest.raises(error, match=match) as info:
        call()
    assert isinstance(info.value, cc.CausalCostError)
    # each also derives from the built-in it refines, so generic handlers keep working
    assert isinstance(info.value, TypeError if error is cc.InputTypeError else ValueError)


def test_counts_beyond_2_53_stay_exact() -> None:
    big = 2**60 + 1  # float(big) == 2**60
    m = cc.Confusion(tp=big, fn=1, fp=0, tn=0)
    assert m.tp == big and m.positives == big + 1 and m.errors == 1
    assert repr(m) == f"Confusion(tp={big}, fn=1, fp=0, tn=0)"
    assert cc.Confusion.parse(f"tp={big},fn=1,fp=0,tn=0") == m
    assert parse_cells(f"tp={big},fn=80")["tp"] == big
    assert parse_cells("fn=80") == {"fn": 80.0}  # small values stay floats
    assert cc.Confusion(np.int64(big), 1, 0, 0) == m
    assert format_number(big) == str(big) and format_number(float(big)) == "1.15292e+18"
