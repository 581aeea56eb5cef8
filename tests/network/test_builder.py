"""SystemBuilder corner cases: conflicting declarations and readable structure errors."""

from __future__ import annotations

import pytest

import causalcost as cc


def test_class_prior_and_class_cpd_conflict() -> None:
    builder = cc.SystemBuilder(class_prior=0.5)
    with pytest.raises(cc.ValidationError, match="class_prior was given"):
        builder.add_node("Class", ["P", "N"], [0.3, 0.7])


def test_forward_references_and_cycle_message() -> None:
    # parents may be declared after their children ...
    system = (
        cc.SystemBuilder(class_prior=0.5)
        .add_model("m", parents=["A"], positive_probability=[0.9, 0.1])
        .add_node("A", ["x", "y"], [[0.8, 0.2], [0.3, 0.7]], parents=["Class"])
        .set_fusioner("or")
        .build(slot="m")
    )
    assert system.network.get_parents("m") == ["A"]
    # ... but a loop among them is named in full
    builder = (
        cc.SystemBuilder(class_prior=0.5)
        .add_node("A", ["x", "y"], [[0.5, 0.5], [0.5, 0.5]], parents=["B"])
        .add_node("B", ["x", "y"], [[0.5, 0.5], [0.5, 0.5]], parents=["A"])
        .add_model("m", parents=["A"], positive_probability=[0.9, 0.1])
        .set_fusioner("or")
    )
    with pytest.raises(cc.NetworkStructureError, match=r"cycle: (A -> B -> A|B -> A -> B)"):
        builder.build(slot="m")


def test_deferred_row_count_is_checked_at_build() -> None:
    builder = (
        cc.SystemBuilder(class_prior=0.5)
        .add_model("m", parents=["A"], positive_probability=[0.9, 0.1, 0.5])  # A has 2 states
        .add_node("A", ["x", "y"], [[0.8, 0.2], [0.3, 0.7]], parents=["Class"])
        .set_fusioner("or")
    )
    with pytest.raises(cc.CPDError, match=r"CPD of 'm' needs 2 row\(s\).*got 3"):
        builder.build()


def test_class_states_must_match_builder() -> None:
    with pytest.raises(cc.ValidationError, match="class node's states"):
        cc.SystemBuilder().add_node("Class", ["N", "P"], [0.5, 0.5])


def test_complement_is_the_decimal_complement() -> None:
    # thesis §4: an 80 % model misses 20 % of positives, printed as 0.2, not 0.19999999999999996
    system = (
        cc.SystemBuilder(class_prior=1 / 3)
        .add_model("images", sensitivity=0.8, specificity=0.8)
        .add_model("slot", sensitivity=0.5, specificity=0.5)
        .set_fusioner("and")
        .build(slot="slot")
    )
    assert system.network.get_cpds("images").get_values()[1, 0] == 0.2
    assert cc.error_rates(system).fn_forced_p == 0.2
