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


def test_every_bound_refuses_a_failed_check_under_monotone() -> None:
    # a MonotonicityCheck that found a violation (as check_monotonicity returns it): every bound
    # function refuses the monotone worst case and accepts assumption="none"
    check = cc.MonotonicityCheck(slot="b", system_node="S", is_monotone=False,
                                 violation={"a": "P"}, assignments=4)
    forced_p, forced_n = cc.Confusion(50, 50, 20, 180), cc.Confusion(0, 100, 0, 200)
    model = cc.Confusion(50, 50, 20, 180)
    rates = cc.ErrorRates.from_forced(forced_p, forced_n)
    calls = {
        "bound": lambda **kw: cc.bound(forced_p, forced_n, model, **kw),
        "bound_from_rates": lambda **kw: cc.bound_from_rates(rates, model, **kw),
        "bound_many": lambda **kw: cc.bound_many(forced_p, forced_n, [model.cells()], **kw),
        "bound_many_from_rates": lambda **kw: cc.bound_many_from_rates(rates, [model.cells()],
                                                                       **kw),
        "worst_case_confusion": lambda **kw: cc.worst_case_confusion(forced_p, forced_n, model,
                                                                     **kw),
        "high_confidence_bound": lambda **kw: cc.high_confidence_bound(forced_p, forced_n, model,
                                                                       **kw),
    }
    for name, call in calls.items():
        with pytest.raises(cc.MonotonicityError, match=r"violated with a=P.*assumption='none'"):
            call(monotonicity=check)
        call(monotonicity=check, assumption="none")  # no assumption: the check is irrelevant
        ok = cc.MonotonicityCheck("b", "S", True, None, 4)
        call(monotonicity=ok)  # a passed check changes nothing
        assert name  # every function was exercised
