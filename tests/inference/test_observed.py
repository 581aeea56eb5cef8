"""The real system's confusion (no intervention) against the thesis and against pgmpy."""

from __future__ import annotations

import pytest

import causalcost as cc
from causalcost.network._pgmpy import variable_elimination

COSTS = cc.CostMatrix(fn=5, fp=1)


@pytest.mark.parametrize("name", cc.list_networks())
def test_observed_confusion_matches_pgmpy_variable_elimination(name: str) -> None:
    system = cc.load_network(name)
    ve = variable_elimination(system.network)
    expected = {}
    for true_class, size in (("P", 100.0), ("N", 200.0)):
        dist = ve.query([system.system_node], evidence={system.class_node: true_class},
                        show_progress=False)
        expected[true_class] = size * dist.get_value(**{system.system_node: "P"})
    m = cc.observed_confusion(system, 100, 200)
    assert m.tp == pytest.approx(expected["P"], abs=1e-9)
    assert m.fp == pytest.approx(expected["N"], abs=1e-9)
    assert (m.positives, m.negatives) == pytest.approx((100, 200))


@pytest.mark.parametrize(
    "name, candidate, cost",
    [
        # thesis §4 example 1: 60 % of 100 positives missed, 10 % of 200 negatives: 300 + 20
        ("thesis_and", cc.Confusion(tp=50, fn=50, fp=100, tn=100), 320),
        # thesis §4 example 2: 45 % missed, 75 % false alarms: 225 + 150
        ("thesis_or", cc.Confusion(tp=40, fn=60, fp=100, tn=100), 375),
    ],
)
def test_independent_errors_make_cost_function_1_exact(
    name: str, candidate: cc.Confusion, cost: float
) -> None:
    system = cc.load_network(name)
    real = cc.observed_confusion(system, 100, 200).cost(COSTS)
    assert real == pytest.approx(cost, rel=1e-12)
    sheet = cc.sheet_from_network(system, COSTS)
    assert cc.evaluate(sheet, candidate).eval1 == pytest.approx(real, rel=1e-12)


def test_anticorrelated_errors_reach_the_worst_case() -> None:
    # thesis §3.3: cost function 1 expects 75 on 100 positives (c_FN = 1); the real system
    # misses all 100, which is exactly the worst case
    system = cc.load_network("anticorrelated_and")
    unit = cc.CostMatrix(fn=1, fp=0)
    real = cc.observed_confusion(system, 100, 0)
    assert real.fn == pytest.approx(100)
    result = cc.bound_from_rates(cc.error_rates(system), cc.Confusion(tp=50, fn=50, fp=0, tn=0),
                                 unit)
    assert result.expected_cost == pytest.approx(75)
    assert result.worst_cost == pytest.approx(real.cost(unit))


def test_bad_class_sizes() -> None:
    with pytest.raises(cc.ValidationError, match="positives must be a non-negative number"):
        cc.observed_confusion(cc.load_network("thesis_and"), -1, 200)
