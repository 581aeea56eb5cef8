"""Tables computed from a network carry its exact monotonicity check, and the bounds use it."""

from __future__ import annotations

import pytest

import causalcost as cc


def negative_weight_system() -> cc.System:
    # a P vote of slot "b" pulls the weighted sum below the threshold: not monotone in b
    return (
        cc.SystemBuilder(class_prior=0.4)
        .add_model("a", sensitivity=0.8, specificity=0.7)
        .add_model("b", sensitivity=0.6, specificity=0.9)
        .set_fusioner("weighted", weights={"a": 1.0, "b": -0.6}, threshold=0.5)
        .build(slot="b")
    )


@pytest.mark.parametrize("method", ["exact", "sampling"])
def test_tables_carry_the_network_check(method: str) -> None:
    table = cc.interventional_table(cc.load_network("thesis_and"), method=method, seed=0,
                                    samples=2000)
    assert table.monotonicity is not None and table.monotonicity.is_monotone
    assert table.to_dict()["monotone"] is True
    bad = cc.interventional_table(negative_weight_system(), method=method, seed=0, samples=2000)
    assert bad.monotonicity is not None and not bad.monotonicity.is_monotone
    assert bad.monotonicity.violation == {"a": "P"}


def hidden_reversal_system() -> cc.System:
    """Majority of three, except that the slot's vote is reversed when only ``a`` says P.

    The reversal and the plain "slot decides" context (only ``c`` says P) are equally likely,
    so the aggregate rates tie (they look monotone) while the network is not monotone.
    """

    def rule(a: bool, b: bool, c: bool) -> bool:
        if a and not c:
            return not b
        return (a and b) or (a and c) or (b and c)

    builder = cc.SystemBuilder(class_prior=0.5)
    for name in ("a", "b", "c"):
        builder.add_model(name, sensitivity=0.95, specificity=0.95)
    return builder.set_fusioner("function", function=rule).build(slot="b")


def test_bound_from_a_non_monotone_network_table_is_refused() -> None:
    table = cc.interventional_table(hidden_reversal_system())
    model = cc.Confusion(tp=60, fn=40, fp=10, tn=90)
    # the aggregate rates alone look monotone (e_P(P) <= e_P(N), e_N(N) <= e_N(P)) ...
    assert table.error_rates.is_monotone
    # ... but the network check is exact, and the table carries it
    with pytest.raises(cc.MonotonicityError, match="a=P, c=N"):
        cc.bound_from_rates(table, model)
    with pytest.raises(cc.MonotonicityError):
        cc.derive_sheet(table, cc.CostMatrix(fn=5, fp=1))
    free = cc.bound_from_rates(table, model, assumption="none")
    assert free.assumption == "none"
    assert free.best_cost <= free.expected_cost <= free.worst_cost
    # bare rates carry no check: only the aggregate condition can be tested then
    assert cc.bound_from_rates(table.error_rates, model).assumption == "monotone"
