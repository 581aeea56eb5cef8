"""Many candidates' monotone bounds at once on degenerate programs: a table with structural
zeros (every forced run leaves most outputs impossible) makes the solver's optimal vertex
degenerate, and the bases reused across candidates must then be found by degenerate pivots.
Checked against one program per candidate (``monotone_class``), and through ``bound_many``."""

from __future__ import annotations

import numpy as np
import pytest

import causalcost as cc
from causalcost.pricing.programs import monotone_class, monotone_many


def degenerate_table(k: int) -> np.ndarray:
    """Right when the slot is right, else the slot's vote (0.5), the truth (0.3) or a third
    label (0.2): ``T[c, j, s]``."""
    t = np.zeros((k, k, k))
    for c in range(k):
        for j in range(k):
            if j == c:
                t[c, j, c] = 1.0
                continue
            third = next((s for s in range(k) if s not in (c, j)), c)
            t[c, j, j] += 0.5
            t[c, j, c] += 0.3
            t[c, j, third] += 0.2
    return t


@pytest.mark.parametrize("k", [3, 4])
def test_many_rows_equal_one_program_each(k: int) -> None:
    t = degenerate_table(k)
    costs = 1.0 + (np.arange(k * k).reshape(k, k) % 4)
    np.fill_diagonal(costs, 0.0)
    rows = np.random.default_rng(k).dirichlet(np.ones(k), size=120)
    for c in range(k):
        worst, best = monotone_many(t[c], rows, costs[c], c, integer=False)
        for i in range(0, 120, 5):
            (_, w), (_, b) = monotone_class(t[c], rows[i], costs[c], c, integer=False)
            assert worst[i] @ costs[c] == pytest.approx(np.asarray(w, float) @ costs[c],
                                                        rel=1e-9, abs=1e-12)
            assert best[i] @ costs[c] == pytest.approx(np.asarray(b, float) @ costs[c],
                                                       rel=1e-9, abs=1e-12)


def test_bound_many_probability_form_equals_bound_one_at_a_time() -> None:
    k = 3
    labels = ["a", "b", "c"]
    table = cc.InterventionalTable.from_array(degenerate_table(k), slot="m", labels=labels)
    costs = 1.0 + (np.arange(k * k).reshape(k, k) % 4)
    np.fill_diagonal(costs, 0.0)
    rng = np.random.default_rng(1)
    candidates = np.array([[rng.multinomial(40 + 10 * c, rng.dirichlet(np.ones(k)))
                            for c in range(k)] for _ in range(30)])
    many = cc.bound_many(table, candidates, costs, assumption="monotone")
    for i in range(0, 30, 3):
        one = cc.bound(table, candidates[i], costs, assumption="monotone")
        assert many["worst_cost"].iloc[i] == pytest.approx(one.worst_cost, rel=1e-9)
        assert many["best_cost"].iloc[i] == pytest.approx(one.best_cost, rel=1e-9)
        assert one.best_cost <= many["expected_cost"].iloc[i] + 1e-9 <= one.worst_cost + 2e-9
