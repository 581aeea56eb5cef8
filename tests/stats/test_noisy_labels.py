"""Noisy ground truth (stats.noisy_labels) against article 003 and simulation.

Article 003 ("La verdad nunca es perfecta"): 100 images labelled by annotators 96 % right, a
model 90 % in agreement with the labels. Its true accuracy is between 0.90 - (1 - 0.96) = 86 %
and 0.90 + (1 - 0.96) = 94 %, and, with errors independent of the labels',
(0.90 + 0.96 - 1) / (2 x 0.96 - 1) = 93.5 %.

The per-class correction is checked by simulation: true classes, a classifier and labels with
known error rates drawn instance by instance; averaged over repetitions, the corrected
confusion equals the true one within sampling error. The range is checked by relabelling
instances one by one: every relabelling of at most ``(1 - a) n`` instances is in the range,
and its corners are reached by such relabellings.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcost.confusion import Confusion
from causalcost.errors import ValidationError
from causalcost.stats.noisy_labels import (
    LabelErrors,
    LabelNoiseError,
    confusion_range,
    correct_confusion,
    noisy_accuracy,
)


def test_the_articles_numbers() -> None:
    r = noisy_accuracy(0.90, 0.96)
    assert r.low == pytest.approx(0.86)
    assert r.high == pytest.approx(0.94)
    assert r.estimate == pytest.approx(0.86 / 0.92)
    assert round(r.estimate, 3) == 0.935  # "93.5 %"
    assert r.low <= r.estimate <= r.high


def test_the_articles_paradox_the_estimate_is_above_the_measurement() -> None:
    """Article: under independence the true accuracy is above the 1:1 line when the measured
    accuracy is above 0.5."""
    for a in np.linspace(0.55, 0.95, 9):
        assert noisy_accuracy(float(a), 0.96).estimate > a
    assert noisy_accuracy(0.5, 0.96).estimate == pytest.approx(0.5)


def test_range_is_clipped_and_impossible_estimates_are_none() -> None:
    r = noisy_accuracy(0.99, 0.9)
    assert (r.low, r.high) == (pytest.approx(0.89), 1.0)
    assert r.estimate is None and "correlated" in r.note
    assert noisy_accuracy(0.05, 0.9).low == 0.0
    assert noisy_accuracy(0.9, 1.0).estimate == pytest.approx(0.9)


@pytest.mark.parametrize("bad", [0.5, 0.3, 0.0])
def test_labels_no_better_than_a_coin_are_refused(bad: float) -> None:
    with pytest.raises(LabelNoiseError, match="coin"):
        noisy_accuracy(0.9, bad)
    with pytest.raises(LabelNoiseError, match="coin"):
        confusion_range(Confusion(10, 2, 3, 20), bad)
    with pytest.raises(LabelNoiseError, match="no information"):
        LabelErrors(0.6, 0.4)
    with pytest.raises(ValidationError, match=r"\[0, 1\]"):
        noisy_accuracy(1.2, 0.9)


def test_label_errors_from_an_audit_and_their_matrix() -> None:
    errors = LabelErrors.from_confusion(Confusion(tp=90, fn=10, fp=6, tn=194))
    assert (errors.p_labelled_n, errors.n_labelled_p) == (0.1, 0.03)
    assert errors.matrix.sum(axis=0).tolist() == [1.0, 1.0]  # columns are distributions
    assert errors.accuracy(100, 200) == pytest.approx(1 - 16 / 300)
    symmetric = LabelErrors.symmetric(0.96)
    assert symmetric.p_labelled_n == symmetric.n_labelled_p == pytest.approx(0.04)
    with pytest.raises(ValidationError, match="both true classes"):
        LabelErrors.from_confusion(Confusion(tp=5, fn=1, fp=0, tn=0))


@settings(max_examples=100, deadline=None)
@given(st.tuples(*[st.integers(0, 500)] * 4).filter(lambda c: sum(c) > 0),
       st.floats(0, 0.45), st.floats(0, 0.45))
def test_correction_undoes_the_expected_mixing(cells, a, b) -> None:
    true = Confusion(*cells)
    m = LabelErrors(a, b).matrix
    seen = [m @ np.array([true.tp, true.fp]), m @ np.array([true.fn, true.tn])]
    observed = Confusion(tp=seen[0][0], fn=seen[1][0], fp=seen[0][1], tn=seen[1][1])
    fixed = correct_confusion(observed, (a, b))
    np.testing.assert_allclose(fixed.cells(), true.cells(), atol=1e-8 * max(1, sum(cells)))


def test_correction_is_unbiased_on_simulated_noisy_labels() -> None:
    rng = np.random.default_rng(2024)
    n, prior, sens, spec = 2000, 0.3, 0.85, 0.9
    a, b = 0.08, 0.04  # P(label N | true P), P(label P | true N)
    errors = LabelErrors(a, b)
    fixed, true = [], []
    for _ in range(400):
        y = rng.random(n) < prior
        pred = np.where(y, rng.random(n) < sens, rng.random(n) >= spec)
        flip = np.where(y, rng.random(n) < a, rng.random(n) < b)  # independent of pred
        label = y ^ flip

        def count(truth, pred=pred):
            return [int(np.sum(truth & pred)), int(np.sum(truth & ~pred)),
                    int(np.sum(~truth & pred)), int(np.sum(~truth & ~pred))]

        true.append(count(y))
        fixed.append(correct_confusion(Confusion(*count(label)), errors).cells())
    fixed_, true_ = np.array(fixed), np.array(true)
    diff = fixed_ - true_
    se = diff.std(axis=0, ddof=1) / np.sqrt(len(diff))
    assert (np.abs(diff.mean(axis=0)) < 4 * se).all(), (diff.mean(axis=0), se)
    assert (se < 0.5).all()  # precise enough to see a bias of one instance per set


def test_uncorrected_counts_are_off_by_more_than_sampling_error() -> None:
    """Guard for the test above: the same simulation without correction is visibly biased."""
    rng = np.random.default_rng(7)
    n, a, b = 2000, 0.08, 0.04
    gaps = []
    for _ in range(200):
        y = rng.random(n) < 0.3
        pred = np.where(y, rng.random(n) < 0.85, rng.random(n) >= 0.9)
        label = y ^ np.where(y, rng.random(n) < a, rng.random(n) < b)
        gaps.append(int(np.sum(label & pred)) - int(np.sum(y & pred)))
    gaps_ = np.array(gaps)
    assert abs(gaps_.mean()) > 6 * gaps_.std(ddof=1) / np.sqrt(len(gaps_))


def test_a_correction_needing_negative_counts_is_refused() -> None:
    # every instance predicted P is labelled P: 10 % label noise cannot leave none labelled N
    with pytest.raises(LabelNoiseError, match="fp = .* < 0"):
        correct_confusion(Confusion(tp=50, fn=10, fp=0, tn=40), (0.1, 0.1))


@settings(max_examples=60, deadline=None)
@given(st.tuples(*[st.integers(0, 60)] * 4).filter(lambda c: sum(c) > 0),
       st.floats(0.51, 1.0))
def test_range_accuracies_are_the_articles(cells, alpha) -> None:
    observed = Confusion(*cells)
    r = confusion_range(observed, alpha)
    measured = (cells[0] + cells[3]) / sum(cells)
    ref = noisy_accuracy(measured, alpha)
    acc = r.to_frame()["accuracy"]
    assert acc["low"] == pytest.approx(ref.low, abs=1e-9)
    assert acc["high"] == pytest.approx(ref.high, abs=1e-9)
    if r.estimate is not None and ref.estimate is not None:
        assert acc["estimate"] == pytest.approx(ref.estimate, abs=1e-9)
        assert r.contains(r.estimate)
    for corner in r.confusions:
        assert r.contains(corner)
        assert corner.tp + corner.fp == pytest.approx(cells[0] + cells[2])


def relabel(y: np.ndarray, pred: np.ndarray, flips: np.ndarray) -> Confusion:
    t = y ^ flips
    return Confusion(int(np.sum(t & pred)), int(np.sum(t & ~pred)), int(np.sum(~t & pred)),
                     int(np.sum(~t & ~pred)))


def test_every_relabelling_within_the_budget_is_in_the_range_and_no_more() -> None:
    rng = np.random.default_rng(3)
    label = rng.random(100) < 0.4
    pred = np.where(label, rng.random(100) < 0.8, rng.random(100) < 0.15)
    observed = relabel(label, pred, np.zeros(100, bool))
    r = confusion_range(observed, 0.93)  # at most 7 wrong labels
    assert r.max_wrong == 7
    for _ in range(500):
        k = rng.integers(0, 8)
        flips = np.zeros(100, bool)
        flips[rng.choice(100, size=k, replace=False)] = True
        assert r.contains(relabel(label, pred, flips))
    # every corner is reached by flipping its moves' worth of instances
    for (d1, d2), corner in zip(r.corners, r.confusions):
        flips = np.zeros(100, bool)
        for column, d in ((pred, d1), (~pred, d2)):
            source = column & (~label if d > 0 else label)
            flips[np.flatnonzero(source)[: int(round(abs(d)))]] = True
        assert relabel(label, pred, flips) == corner
    eight = np.zeros(100, bool)
    eight[np.flatnonzero(pred & label)[:8]] = True  # 8 true-P-labelled instances are N
    assert not r.contains(relabel(label, pred, eight))


def test_perfect_labels_leave_the_confusion_alone() -> None:
    observed = Confusion(30, 5, 8, 57)
    r = confusion_range(observed, 1.0)
    assert r.low == r.high == r.estimate == observed
    assert r.corners == ((0.0, 0.0),)
    assert "accuracy from 0.87 to 0.87" in repr(r)
