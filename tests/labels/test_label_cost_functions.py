"""Cost functions 1 and 2 for K labels, and the expected case between the bounds."""

from __future__ import annotations

import numpy as np
import pytest

import causalcost as cc


@pytest.mark.parametrize("k", [3, 4, 5])
@pytest.mark.parametrize("assumption", ["none", "monotone"])
def test_eval1_is_the_expected_cost_between_the_bounds(k: int, assumption: str) -> None:
    rng = np.random.default_rng(k)
    for _ in range(20):
        t = rng.dirichlet(np.ones(k), size=(k, k))
        costs = rng.uniform(1, 5, size=(k, k))
        costs[np.arange(k), np.arange(k)] = rng.uniform(0, 1, size=k)
        if assumption == "monotone":  # make the slot's right label the cheapest per class
            for c in range(k):
                t[c, c] = np.eye(k)[c]
        n = rng.integers(0, 20, size=(k, k))
        table = cc.MulticlassTable(tuple("abcde"[:k]), "m", "exact", t)
        cm = cc.model_cost_matrices(table, costs)
        eval1, eval2 = cm.evaluate(n)
        # independent sums over every (c, j, s)
        direct = sum(n[c, j] * t[c, j, s] * costs[c, s]
                     for c in range(k) for j in range(k) for s in range(k))
        assert eval1 == pytest.approx(direct, rel=1e-12)
        perfect = sum(n[c].sum() * (t[c, c] @ costs[c]) for c in range(k))
        assert eval2 == pytest.approx(direct - perfect, rel=1e-9, abs=1e-9)
        assert np.allclose(np.diag(cm.m2), 0.0)
        b = cc.bound(table, n, costs, assumption=assumption)
        assert b.expected_cost == pytest.approx(eval1, rel=1e-12)
        assert b.best_cost - 1e-9 <= b.expected_cost <= b.worst_cost + 1e-9
        assert cm.to_frame().shape == (2 * k, k)
