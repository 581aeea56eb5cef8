"""K-label label noise (stats.noisy_labels): the correction inverts the mixing for any K and
any transition, and a label audit gives the transition it was drawn from."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.stats.noisy_labels import LabelNoiseError, LabelTransition, correct_confusion


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 5), seed=st.integers(0, 10**6), strength=st.floats(0.5, 0.98))
def test_correction_inverts_the_expected_mixing(k: int, seed: int, strength: float) -> None:
    rng = np.random.default_rng(seed)
    labels = [f"l{i}" for i in range(k)]
    m = strength * np.eye(k) + (1 - strength) * rng.dirichlet(np.ones(k), size=k)
    true = rng.integers(0, 100, size=(k, k)).astype(float)
    seen = m.T @ true  # expected counts against labels drawn with P(label | true) = m
    fixed = correct_confusion(cc.Confusion(seen, labels=labels), LabelTransition(m, labels))
    np.testing.assert_allclose(fixed.to_numpy(), true, atol=1e-7 * max(1.0, true.sum()))
    assert fixed.labels == tuple(labels)
    np.testing.assert_allclose(fixed.to_numpy().sum(axis=0), seen.sum(axis=0), rtol=1e-9)


def test_audit_gives_the_transition() -> None:
    audit = cc.Confusion([[90, 5, 5], [2, 45, 3], [0, 1, 19]], labels=["a", "b", "c"])
    t = LabelTransition.from_confusion(audit)
    assert t.labels == ("a", "b", "c")
    np.testing.assert_allclose(t.matrix, audit.to_numpy() / audit.to_numpy().sum(axis=1)[:, None])
    assert t.accuracy([100, 50, 20]) == pytest.approx((90 + 45 + 19) / 170)
    assert t.to_frame().loc["b", "c"] == pytest.approx(0.06)
    with pytest.raises(cc.errors.ValidationError, match="every true class"):
        LabelTransition.from_confusion([[1, 0, 0], [0, 0, 0], [0, 0, 1]])


def test_mixed_is_the_way_from_clean_labels() -> None:
    t = LabelTransition.symmetric(0.7, ["a", "b", "c"])
    np.testing.assert_allclose(t.mixed(0).matrix, np.eye(3))
    half = LabelTransition.symmetric(0.85, ["a", "b", "c"])
    np.testing.assert_allclose(t.mixed(0.5).matrix, half.matrix)
    with pytest.raises(cc.errors.InputTypeError, match="list of label names"):
        LabelTransition.symmetric(0.85, "abc")
    with pytest.raises(LabelNoiseError):
        LabelTransition.symmetric(0.5, ["a", "b"])
