"""The notes' measures of a candidate (evaluation.metrics) against scikit-learn and the notes.

Every measure is checked against scikit-learn's own function on the confusion expanded to
label arrays (one instance per count), with ``zero_division=np.nan``; the weighted accuracy
against ``accuracy_score`` with each instance weighted by its cell's weight, and against the
notes' formula (notes 001, "Misure cost-sensitive"). The notes' models M1 and M2 have
accuracies 80 % and 90 %.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    fbeta_score,
    precision_score,
    recall_score,
)

import causalcost as cc
from causalcost.errors import InputTypeError, ValidationError
from causalcost.evaluation.metrics import METRIC_COLUMNS, candidate_metrics, metrics_frame


def expand(m: cc.Confusion) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y_true, y_pred, cell index) with one instance per count."""
    tp, fn, fp, tn = (int(v) for v in m.cells())
    y = np.r_[np.ones(tp + fn, int), np.zeros(fp + tn, int)]
    pred = np.r_[np.ones(tp, int), np.zeros(fn, int), np.ones(fp, int), np.zeros(tn, int)]
    cell = np.r_[np.zeros(tp, int), np.ones(fn, int), np.full(fp, 2), np.full(tn, 3)]
    return y, pred, cell


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)


counts = st.integers(0, 40)
weights = st.tuples(*[st.floats(0, 10, allow_nan=False)] * 4).filter(lambda w: sum(w) > 0)


@settings(max_examples=150, deadline=None)
@given(counts, counts, counts, counts, weights, st.floats(0.1, 5))
def test_every_measure_is_scikit_learns(tp, fn, fp, tn, w, beta) -> None:
    m = cc.Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
    got = candidate_metrics(m, weights=w, beta=beta)
    y, pred, cell = expand(m)
    if y.size == 0:
        assert got.isna().all()
        return
    nan = {"zero_division": np.nan}
    ref = {
        "accuracy": accuracy_score(y, pred),
        "precision": precision_score(y, pred, **nan),
        "recall": recall_score(y, pred, **nan),
        "specificity": recall_score(y, pred, pos_label=0, **nan),
        "f1": f1_score(y, pred, **nan),
        "f_beta": fbeta_score(y, pred, beta=beta, **nan),
    }
    sample = np.asarray(w)[cell]
    ref["weighted_accuracy"] = (accuracy_score(y, pred, sample_weight=sample)
                                if sample.sum() > 0 else math.nan)
    for name, value in ref.items():
        assert same(got[name], float(value)), (name, got[name], value)


def test_the_notes_weighted_accuracy_formula() -> None:
    m = cc.Confusion(tp=150, fn=40, fp=60, tn=250)
    w1, w2, w3, w4 = 2.0, 100.0, 1.0, 0.5
    got = candidate_metrics(m, weights={"tp": w1, "fn": w2, "fp": w3, "tn": w4})
    a, b, c, d = 150, 40, 60, 250
    assert got["weighted_accuracy"] == pytest.approx((w1 * a + w4 * d)
                                                     / (w1 * a + w2 * b + w3 * c + w4 * d))
    assert candidate_metrics(m)["weighted_accuracy"] == candidate_metrics(m)["accuracy"]
    # F = 2rp / (r + p) = 2a / (2a + b + c)
    assert got["f1"] == pytest.approx(2 * a / (2 * a + b + c))
    p, r = got["precision"], got["recall"]
    assert got["f1"] == pytest.approx(2 * r * p / (r + p))
    assert got.attrs["weights"] == {"tp": w1, "fn": w2, "fp": w3, "tn": w4}


def test_the_notes_models_m1_and_m2() -> None:
    """Notes 001: M1 is 80 % accurate and costs 3910, M2 is 90 % accurate and costs 4255 under
    the cost matrix C(+|+) = -1, C(-|+) = 100, C(+|-) = 1, C(-|-) = 0: accuracy and cost rank
    them in opposite orders."""
    m1, m2 = cc.Confusion(150, 40, 60, 250), cc.Confusion(250, 45, 5, 200)
    frame = metrics_frame({"M1": m1, "M2": m2})
    assert frame["accuracy"].tolist() == [0.8, 0.9]
    cost = {"M1": -150 + 100 * 40 + 60, "M2": -250 + 100 * 45 + 5}
    assert cost == {"M1": 3910, "M2": 4255}
    # accuracy is proportional to cost when C(Y|N) = C(N|Y) = q, C(Y|Y) = C(N|N) = p
    p, q = 0.5, 3.0
    for m in (m1, m2):
        acc = candidate_metrics(m)["accuracy"]
        assert m.cost(cc.CostMatrix(tp=p, fn=q, fp=q, tn=p)) == pytest.approx(
            m.total * (q - (q - p) * acc))


def test_frame_forms_agree() -> None:
    ms = {"a": cc.Confusion(5, 1, 2, 7), "b": cc.Confusion(0, 3, 0, 4)}
    by_map = metrics_frame(ms, beta=2)
    by_frame = metrics_frame(pd.DataFrame([m.to_dict() for m in ms.values()], index=list(ms)),
                             beta=2)
    by_array = metrics_frame([m.cells() for m in ms.values()], beta=2)
    pd.testing.assert_frame_equal(by_map, by_frame)
    np.testing.assert_array_equal(by_map.to_numpy(), by_array.to_numpy())
    assert list(by_map.columns) == list(METRIC_COLUMNS)
    for name, m in ms.items():
        pd.testing.assert_series_equal(by_map.loc[name], candidate_metrics(m, beta=2),
                                       check_names=False)
    assert math.isnan(by_map.loc["b", "precision"])  # 0 / 0 is undefined, not 0


def test_bad_weights_and_beta_are_refused() -> None:
    m = cc.Confusion(1, 2, 3, 4)
    with pytest.raises(ValidationError, match="not all 0"):
        candidate_metrics(m, weights=(0, 0, 0, 0))
    with pytest.raises(ValidationError, match=">= 0"):
        candidate_metrics(m, weights=(1, -1, 1, 1))
    with pytest.raises(ValidationError, match="four cells"):
        candidate_metrics(m, weights={"tp": 1, "fn": 1})
    with pytest.raises(InputTypeError, match="w1..w4"):
        candidate_metrics(m, weights=(1, 1))
    with pytest.raises(InputTypeError, match="real number"):
        candidate_metrics(m, weights=(1, "2", 1, 1))
    with pytest.raises(ValidationError, match="beta"):
        candidate_metrics(m, beta=0)
    with pytest.raises(InputTypeError, match="Confusion"):
        candidate_metrics({"tp": 1, "fn": 1, "fp": 1, "tn": 1})
    with pytest.raises(ValidationError, match="shape"):
        metrics_frame([[1, 2, 3]])
    with pytest.raises(ValidationError, match=">= 0"):
        metrics_frame([[1, 2, 3, -4]])
    with pytest.raises(ValidationError, match="lacks"):
        metrics_frame(pd.DataFrame({"tp": [1]}))
