"""The explorer: settings read off a system rebuild the same system, the headless update
function agrees with the library's own functions, and the widgets drive it."""

from __future__ import annotations

import html
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.explorer.declare import declared_system

ADJUSTABLE = ["thesis_and", "thesis_or", "anticorrelated_and", "experiment_or", "majority3"]


@pytest.mark.parametrize("name", ADJUSTABLE)
def test_shipped_systems_are_rebuilt_exactly_from_their_settings(name: str) -> None:
    system = cc.load_network(name)
    s = cc.explorer_settings(system)
    assert s.adjustable, s.reason
    rebuilt = declared_system(system, s)
    assert rebuilt is not system
    np.testing.assert_allclose(cc.interventional_table(rebuilt).probabilities,
                               cc.interventional_table(system).probabilities, atol=1e-9)
    assert cc.class_prior(rebuilt) == pytest.approx(cc.class_prior(system))


def test_a_system_of_another_shape_is_kept_and_says_why() -> None:
    system = cc.load_network("population_and")
    s = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1))
    assert not s.adjustable and "Population" in s.reason
    assert declared_system(system, s) is system
    view = cc.explorer_view(system, s)
    direct = cc.bound_from_rates(cc.interventional_table(system), s.candidate, s.costs)
    assert view.bound.worst_cost == pytest.approx(direct.worst_cost)
    assert html.escape(s.reason) in view._repr_html_()


@settings(max_examples=25, deadline=None)
@given(prior=st.floats(0.05, 0.95), rates=st.lists(st.tuples(st.floats(0.05, 0.95),
                                                             st.floats(0.05, 0.95)),
                                                   min_size=2, max_size=4),
       rule=st.sampled_from(["and", "or", "majority"]))
def test_rates_read_back_are_the_declared_ones(prior: float, rates: list, rule: str) -> None:
    builder = cc.SystemBuilder(class_prior=prior)
    names = [f"m{i}" for i in range(len(rates))]
    for name, (se, sp) in zip(names, rates):
        builder.add_model(name, sensitivity=se, specificity=sp)
    system = builder.set_fusioner(rule).build(slot=names[-1])
    s = cc.explorer_settings(system)
    assert s.class_prior == pytest.approx(prior)
    for (m, se, sp), name, (want_se, want_sp) in zip(s.rates, names, rates):
        assert m == name and se == pytest.approx(want_se) and sp == pytest.approx(want_sp)
    same = cc.error_rates(declared_system(system, s))
    assert same.to_frame().to_numpy() == pytest.approx(cc.error_rates(system).to_frame().to_numpy())


@settings(max_examples=25, deadline=None)
@given(a=st.floats(0.2, 0.8), b=st.floats(0.2, 0.8), u=st.floats(0, 1), v=st.floats(0, 1))
def test_correlation_read_back_is_the_declared_one(a: float, b: float, u: float,
                                                   v: float) -> None:
    lo, hi = cc.correlation_range(a, b)
    rho_p, rho_n = lo + u * (hi - lo), lo + v * (hi - lo)
    system = (cc.SystemBuilder(class_prior=0.4)
              .add_correlated_models("x", "y", sensitivity=(a, b), specificity=(a, b),
                                     correlation_positive=rho_p, correlation_negative=rho_n)
              .set_fusioner("or").build(slot="y"))
    s = cc.explorer_settings(system)
    assert s.correlation is not None
    assert s.correlation[:2] == ("x", "y")
    assert s.correlation[2] == pytest.approx(rho_p, abs=1e-6)
    assert s.correlation[3] == pytest.approx(rho_n, abs=1e-6)


def test_view_agrees_with_the_library_and_with_an_independent_build() -> None:
    system = cc.load_network("thesis_and")
    candidate = cc.Confusion(tp=50, fn=50, fp=100, tn=100)
    s = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1), candidate)
    view = cc.explorer_view(system, s)
    assert (view.bound.expected_cost, view.bound.worst_cost, view.bound.best_cost) == (
        320, 390, 250)  # the thesis's example: Eval1 320, worst 390, best 250
    changed = cc.explorer_view(system, s.with_rate("images", sensitivity=0.6)
                               .replace(fusioner="or", class_prior=0.25), previous=view)
    independent = (cc.SystemBuilder(class_prior=0.25)
                   .add_model("images", sensitivity=0.6, specificity=0.8)
                   .add_model("clinical_history", sensitivity=0.5, specificity=0.5)
                   .set_fusioner("or").build(slot="clinical_history"))
    rates = cc.error_rates(independent)
    assert changed.table.error_rates.to_frame().to_numpy() == pytest.approx(
        rates.to_frame().to_numpy())
    want = cc.bound_from_rates(rates, candidate, cc.CostMatrix(fn=5, fp=1))
    assert changed.bound.worst_cost == pytest.approx(want.worst_cost)
    assert changed.expected.to_frame().to_numpy() == pytest.approx(
        cc.expected_cost_matrix(rates, cc.CostMatrix(fn=5, fp=1)).to_frame().to_numpy())


def test_cost_changes_rebuild_nothing_and_high_confidence_is_above_the_plain_worst() -> None:
    system = cc.load_network("majority3")
    s = cc.explorer_settings(system)
    first = cc.explorer_view(system, s)
    second = cc.explorer_view(system, s.replace(costs=cc.CostMatrix(fn=9, fp=2),
                                                high_confidence=True), previous=first)
    assert second.system is first.system and second.picture is first.picture
    assert second.high_confidence is not None
    assert second.high_confidence.worst_cost >= second.bound.worst_cost
    third = cc.explorer_view(system, second.settings.replace(intervention="N"), previous=second)
    assert third.picture is not second.picture and "= N)" in third.picture.svg


def test_a_non_monotone_choice_uses_the_assumption_free_bound() -> None:
    system = (cc.SystemBuilder(class_prior=0.5).add_model("a", sensitivity=0.7, specificity=0.7)
              .add_model("b", sensitivity=0.6, specificity=0.6)
              .set_fusioner("function", function=lambda a, b: a != b).build(slot="b"))
    s = cc.explorer_settings(system)
    view = cc.explorer_view(system, s)
    assert not view.monotonicity.is_monotone
    assert view.bound.assumption == "none"
    assert "assumption-free" in view._repr_html_()


def test_bad_settings_are_refused_by_name() -> None:
    s = cc.explorer_settings(cc.load_network("thesis_and"))
    with pytest.raises(cc.ValidationError, match="class_prior"):
        s.replace(class_prior=1.5)
    with pytest.raises(cc.ValidationError, match="unknown explorer setting"):
        s.replace(colour="red")
    with pytest.raises(cc.ValidationError, match="fusioner"):
        s.replace(fusioner="xor")
    with pytest.raises(cc.ValidationError, match="no model"):
        s.with_rate("nobody", sensitivity=0.5)


def test_widgets_drive_the_view() -> None:
    pytest.importorskip("ipywidgets")
    explorer = cc.explore("experiment_or", cc.CostMatrix(fn=5, fp=1))
    explorer.controls["fusioner"].value = "and"
    want = cc.explorer_view(explorer.system, explorer.settings)
    assert explorer.settings.fusioner == "and"
    assert explorer.view.bound.worst_cost == pytest.approx(want.bound.worst_cost)
    assert explorer.output.value == explorer.view._repr_html_()
    explorer.controls["images sensitivity"].value = 0.9
    explorer.controls["clinical_history sensitivity"].value = 0.1
    before = explorer.view
    explorer.controls["correlation on P"].value = 1.0  # unreachable with rates 0.9 and 0.1
    assert "not reachable" in explorer.message.value
    assert explorer.view is before  # the last good view stays
    explorer.controls["correlation on P"].value = 0.0
    assert explorer.message.value == ""
    explorer.controls["candidate tp"].value = 0
    assert explorer.view.settings.candidate.tp == 0
    assert explorer.view.settings.candidate.positives == before.settings.candidate.positives


def test_explore_without_widgets_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(ImportError, match=r"causalcost\[notebooks\]"):
        cc.explore("thesis_and")


def test_other_names_and_states_are_kept_in_the_rebuild() -> None:
    system = (cc.SystemBuilder(class_prior=0.25, class_node="Diagnosis", positive="malignant",
                               negative="benign", name="clinic")
              .add_model("scan", sensitivity=0.9, specificity=0.7)
              .add_model("biopsy", sensitivity=0.8, specificity=0.95)
              .set_fusioner("or", name="Decision").build(slot="biopsy"))
    s = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1))
    view = cc.explorer_view(system, s.replace(intervention="N", fusioner="and"))
    rebuilt = view.system
    assert (rebuilt.name, rebuilt.class_node, rebuilt.system_node) == ("clinic", "Diagnosis",
                                                                        "Decision")
    assert rebuilt.positive == "malignant" and "= benign)" in view.picture.svg
    independent = (cc.SystemBuilder(class_prior=0.25)
                   .add_model("scan", sensitivity=0.9, specificity=0.7)
                   .add_model("biopsy", sensitivity=0.8, specificity=0.95)
                   .set_fusioner("and").build(slot="biopsy"))
    assert view.table.error_rates.to_frame().to_numpy() == pytest.approx(
        cc.error_rates(independent).to_frame().to_numpy())


def test_a_pgmpy_network_with_integer_states_is_explored() -> None:
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    states = {n: [0, 1] for n in "Cabs"}
    net = DiscreteBayesianNetwork([("C", "a"), ("C", "b"), ("a", "s"), ("b", "s")])
    net.add_cpds(
        TabularCPD("C", 2, [[0.7], [0.3]], state_names={"C": [0, 1]}),
        TabularCPD("a", 2, [[0.8, 0.1], [0.2, 0.9]], evidence=["C"], evidence_card=[2],
                   state_names={"a": states["a"], "C": states["C"]}),
        TabularCPD("b", 2, [[0.6, 0.3], [0.4, 0.7]], evidence=["C"], evidence_card=[2],
                   state_names={"b": states["b"], "C": states["C"]}),
        TabularCPD("s", 2, [[1, 1, 1, 0], [0, 0, 0, 1]], evidence=["a", "b"],
                   evidence_card=[2, 2], state_names={"s": [0, 1], "a": [0, 1], "b": [0, 1]}))
    system = cc.System.from_pgmpy(net, class_node="C", system_node="s", slot="b")
    s = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1))
    assert s.adjustable and s.class_prior == pytest.approx(0.3)
    assert s.rates == (("a", pytest.approx(0.9), pytest.approx(0.8)),
                       ("b", pytest.approx(0.7), pytest.approx(0.6)))
    view = cc.explorer_view(system, s.replace(intervention="N"))
    assert view.table.error_rates.to_frame().to_numpy() == pytest.approx(
        cc.error_rates(system).to_frame().to_numpy())
    assert "= 0)" in view.picture.svg  # the slot's negative state, whatever its name
