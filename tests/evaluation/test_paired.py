"""Two candidates on the same instances (causalcost.evaluation.paired)."""

from __future__ import annotations

import numpy as np
import pytest

import causalcost as cc
from causalcost.evaluation.paired import paired_cost_difference

COSTS = cc.CostMatrix(fn=5, fp=1)


@pytest.fixture(scope="module")
def sheet() -> cc.CostSheet:
    return cc.sheet_from_network("thesis_and", COSTS)


def data(seed: int, n: int, acc_a: float, acc_b: float) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 1 / 3
    u = rng.random(n)  # shared: the two candidates' errors are correlated
    return y, np.where(u < acc_a, y, ~y), np.where(u < acc_b, y, ~y)


def test_the_difference_is_the_difference_of_eval1(sheet: cc.CostSheet) -> None:
    y, a, b = data(0, 500, 0.85, 0.7)
    d = paired_cost_difference(sheet, y, a, b)
    eval1 = [cc.evaluate(sheet, cc.Confusion.from_predictions(y, p, positive=True)).eval1
             for p in (a, b)]
    assert d.difference == pytest.approx(eval1[0] - eval1[1])
    assert d.low <= d.difference <= d.high and d.n == 500


def test_equal_candidates_are_not_significant(sheet: cc.CostSheet) -> None:
    y, a, _ = data(1, 300, 0.8, 0.8)
    d = paired_cost_difference(sheet, y, a, a.copy())
    assert d.difference == 0 and d.discordant == 0 and not d.significant


def test_coverage_of_the_paired_interval(sheet: cc.CostSheet) -> None:
    """The per-instance expected difference is known for this design; the 90 % interval of
    the total, divided by n, covers it in about 90 % of repeated samples."""
    m = sheet.expected_cost_matrix
    prior, acc_a, acc_b, n, runs = 1 / 3, 0.85, 0.75, 400, 300
    # a right on u < 0.85, b right on u < 0.75: discordant only where 0.75 <= u < 0.85
    truth = 0.1 * (prior * (m.tp - m.fn) + (1 - prior) * (m.tn - m.fp))
    inside = 0
    for seed in range(runs):
        y, a, b = data(seed, n, acc_a, acc_b)
        d = paired_cost_difference(sheet, y, a, b, confidence=0.9, replicates=1000, seed=seed)
        inside += d.low / n <= truth <= d.high / n
    assert inside / runs >= 0.9 - 3 * np.sqrt(0.09 / runs) - 0.02


def test_labels_and_errors(sheet: cc.CostSheet) -> None:
    y = np.array(["pos", "neg", "pos", "neg"])
    a = np.array(["pos", "neg", "neg", "neg"])
    d = paired_cost_difference(sheet, y, a, y, positive="pos")
    assert d.discordant == 1
    with pytest.raises(cc.CausalCostError, match="positive="):
        paired_cost_difference(sheet, y, a, y)
    with pytest.raises(cc.CausalCostError, match="same, non-zero length"):
        paired_cost_difference(sheet, [True], [True, False], [True])
