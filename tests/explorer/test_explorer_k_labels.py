"""The explorer on systems declared by K labels: settings read back, the rebuild, and the
view's numbers against independent builds, a brute-force table and independent bounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.errors import ValidationError
from causalcost.explorer.declare import declared_system

LABELS = ["ok", "flu", "covid"]
EYE = np.eye(3)


def rates(a: float, k: int = 3) -> np.ndarray:
    return a * np.eye(k) + (1 - a) / (k - 1) * (1 - np.eye(k))


def system3(rule: object = "plurality", **options: object) -> cc.System:
    b = cc.SystemBuilder([0.5, 0.3, 0.2], labels=LABELS)
    b.add_model("a", confusion=rates(0.9))
    b.add_model("b", confusion=[[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.1, 0.6]])
    b.add_model("c", confusion=rates(0.6))
    return b.set_fusioner(rule, **options).build(slot="c")


COSTS = cc.CostMatrix([[0, 1, 2], [4, 0, 1], [20, 6, 0]], labels=LABELS)
CAND = cc.Confusion([[400, 60, 40], [30, 250, 20], [20, 20, 160]], labels=LABELS)


def brute_table(system: cc.System) -> np.ndarray:
    """``T[c, j, s]`` by enumerating every vote of the other models (no latents)."""
    d = system.declaration
    k, names = len(d.labels), list(system.models)
    slot = names.index(system.slot)
    t = np.zeros((k, k, k))
    others = [i for i in range(len(names)) if i != slot]
    for c in range(k):
        for j in range(k):
            for votes in itertools.product(range(k), repeat=len(others)):
                p = np.prod([d.members[i].rates[c, 0, v] for i, v in zip(others, votes)])
                full = [0] * len(names)
                full[slot] = j
                for i, v in zip(others, votes):
                    full[i] = v
                t[c, j, system.fusioner.output(tuple(full), j)] += p
    return t


RULES = [("plurality", {}), ("plurality", {"tie": "slot"}),
         ("weighted", {"weights": {"a": 2, "b": 1, "c": 1.5}}),
         ("priority", {"order": ["covid", "flu", "ok"]}),
         ("k_of_n", {"label": "covid", "k": 2}),
         (lambda a, b, c: a if a == b else c, {})]


@pytest.mark.parametrize("rule,options", RULES)
def test_settings_rebuild_the_same_system(rule: object, options: dict) -> None:
    system = system3(rule, **options)
    s = cc.explorer_settings(system, COSTS, CAND)
    assert isinstance(s, cc.ExplorerSettings) and s.by_labels and s.adjustable
    assert s.class_prior == pytest.approx((0.5, 0.3, 0.2))
    np.testing.assert_allclose(s.confusion_of("b"), [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1],
                                                     [0.3, 0.1, 0.6]])
    assert s.fusioner == (rule if isinstance(rule, str) else "as declared")
    rebuilt = declared_system(system, s)
    assert rebuilt is not system
    want = brute_table(system)
    np.testing.assert_allclose(cc.interventional_table(system).to_numpy(), want, atol=1e-12)
    np.testing.assert_allclose(cc.interventional_table(rebuilt).to_numpy(), want, atol=1e-12)


def independent_view_numbers(system: cc.System, costs, cand):
    t = cc.interventional_table(system)
    check = cc.check_monotonicity(system, costs)
    b = cc.bound(t, cand, costs, assumption="monotone" if check.is_monotone else "none",
                 monotonicity=check if check.is_monotone else None)
    return t, check, b


@settings(max_examples=15, deadline=None)
@given(prior=st.lists(st.floats(0.05, 1.0), min_size=3, max_size=3),
       acc=st.lists(st.floats(0.2, 0.95), min_size=3, max_size=3),
       row=st.integers(0, 2), rule=st.sampled_from(["plurality", "tie slot"]))
def test_view_numbers_equal_an_independent_build(prior, acc, row, rule) -> None:
    base = system3()
    p = np.array(prior) / sum(prior)
    s = cc.explorer_settings(base, COSTS, CAND).replace(
        class_prior=tuple(p), fusioner="plurality",
        fusioner_options=(("tie", "slot"),) if rule == "tie slot" else ())
    s = s.with_accuracy("a", LABELS[row], acc[0]).with_accuracy("c", LABELS[2 - row], acc[1])
    view = cc.explorer_view(base, s)
    assert isinstance(view, cc.ExplorerView)
    # the same system, declared by hand
    a = rates(0.9)
    a[row] = rates(acc[0])[row]
    c = rates(0.6)
    c[2 - row] = rates(acc[1])[2 - row]
    b = cc.SystemBuilder(list(p), labels=LABELS)
    b.add_model("a", confusion=a)
    b.add_model("b", confusion=[[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.1, 0.6]])
    b.add_model("c", confusion=c)
    own = b.set_fusioner("plurality", **({"tie": "slot"} if rule == "tie slot" else {})).build(
        slot="c")
    t, check, bd = independent_view_numbers(own, COSTS, CAND)
    np.testing.assert_allclose(view.table.to_numpy(), brute_table(own), atol=1e-12)
    np.testing.assert_allclose(view.table.to_numpy(), t.to_numpy(), atol=1e-12)
    assert view.monotonicity.is_monotone == check.is_monotone
    m1 = np.einsum("cjs,cs->cj", t.to_numpy(), COSTS.to_numpy())
    np.testing.assert_allclose(view.cost_matrices.m1, m1, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(view.cost_matrices.m2, m1 - np.diag(m1)[:, None], atol=1e-12)
    for name in ("worst_cost", "expected_cost", "best_cost"):
        assert getattr(view.bound, name) == pytest.approx(getattr(bd, name), rel=1e-12)
    assert view.bound.expected_cost == pytest.approx(float((CAND.to_numpy() * m1).sum()))


def test_not_monotone_costs_give_the_assumption_free_bound() -> None:
    base = system3("weighted", weights={"a": 2, "b": 1, "c": 1.5})
    costs = cc.CostMatrix([[0, 1, 1], [5, 0, 1], [20, 5, 0]], labels=LABELS)
    view = cc.explorer_view(base, cc.explorer_settings(base, costs, CAND))
    assert not view.monotonicity.is_monotone
    direct = cc.bound(cc.interventional_table(base), CAND, costs, assumption="none")
    assert view.bound.worst_cost == pytest.approx(direct.worst_cost, rel=1e-12)
    assert "assumption-free" in view._repr_html_()


def test_controls_reuse_and_refusals() -> None:
    base = system3()
    s = cc.explorer_settings(base, COSTS, CAND)
    first = cc.explorer_view(base, s)
    cheaper = cc.explorer_view(base, s.replace(costs=cc.CostMatrix(np.ones((3, 3)) - EYE,
                                                                   labels=LABELS)),
                               previous=first)
    assert cheaper.system is first.system and cheaper.table is first.table
    again = cc.explorer_view(base, s.with_accuracy("a", "ok", 0.5), previous=first)
    assert again.system is not first.system
    assert s.with_accuracy("a", "ok", 0.5).confusion_of("a")[0] == (0.5, 0.25, 0.25)
    with pytest.raises(ValidationError, match="class_prior"):
        s.replace(class_prior=(0.5, 0.5, 0.5))
    with pytest.raises(ValidationError, match="rows of probabilities"):
        s.with_confusion("a", np.eye(3) * 0.5)
    with pytest.raises(ValidationError, match="intervention"):
        s.replace(intervention="P")
    with pytest.raises(ValidationError, match="labels"):
        s.replace(costs=cc.CostMatrix(fn=1, fp=1))
    view = cc.explorer_view(base, s.replace(intervention="covid"))
    assert "covid" in view.picture.svg


def test_costs_and_candidate_are_matched_by_name() -> None:
    base = system3()
    order = [2, 0, 1]
    names = [LABELS[i] for i in order]
    c = COSTS.to_numpy()[np.ix_(order, order)]
    n = CAND.to_numpy()[np.ix_(order, order)]
    s = cc.explorer_settings(base, cc.CostMatrix(c, labels=names), cc.Confusion(n, labels=names))
    np.testing.assert_allclose(s.costs.to_numpy(), COSTS.to_numpy())
    np.testing.assert_allclose(s.candidate.to_numpy(), CAND.to_numpy())


def test_a_model_with_a_latent_keeps_its_rates_per_latent_state() -> None:
    b = cc.SystemBuilder([0.6, 0.3, 0.1], labels=LABELS)
    b.add_latent("Difficulty", ["easy", "hard"], [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]])
    b.add_model("a", confusion={"easy": rates(0.9), "hard": rates(0.5)}, latent="Difficulty")
    b.add_model("b", confusion={"easy": rates(0.8), "hard": rates(0.4)}, latent="Difficulty")
    b.add_model("c", confusion=rates(0.7))
    system = b.set_fusioner("plurality", tie="slot").build(slot="c")
    s = cc.explorer_settings(system)
    assert s.fixed == ("a", "b")
    np.testing.assert_allclose(s.confusion_of("a")[0], 0.8 * rates(0.9)[0] + 0.2 * rates(0.5)[0])
    same = cc.explorer_view(system, s)
    np.testing.assert_allclose(same.table.to_numpy(), cc.interventional_table(system).to_numpy(),
                               atol=1e-12)
    moved = cc.explorer_view(system, s.with_accuracy("c", "flu", 0.9))
    b2 = cc.SystemBuilder([0.6, 0.3, 0.1], labels=LABELS)
    b2.add_latent("Difficulty", ["easy", "hard"], [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]])
    b2.add_model("a", confusion={"easy": rates(0.9), "hard": rates(0.5)}, latent="Difficulty")
    b2.add_model("b", confusion={"easy": rates(0.8), "hard": rates(0.4)}, latent="Difficulty")
    c = rates(0.7)
    c[1] = [0.05, 0.9, 0.05]
    b2.add_model("c", confusion=c)
    own = b2.set_fusioner("plurality", tie="slot").build(slot="c")
    np.testing.assert_allclose(moved.table.to_numpy(), cc.interventional_table(own).to_numpy(),
                               atol=1e-12)
    with pytest.raises(ValidationError, match="latent"):
        cc.explorer_view(system, s.with_accuracy("a", "ok", 0.5))


def test_four_labels_and_two_labels_declared_by_name() -> None:
    for k in (2, 4):
        labels = [f"l{i}" for i in range(k)]
        b = cc.SystemBuilder(list(np.full(k, 1 / k)), labels=labels)
        for m, a in (("x", 0.8), ("y", 0.7), ("z", 0.6)):
            b.add_model(m, confusion=rates(a, k))
        system = b.set_fusioner("plurality", tie="slot").build(slot="z")
        costs = cc.CostMatrix(np.arange(k * k, dtype=float).reshape(k, k) * (1 - np.eye(k)),
                              labels=labels)
        view = cc.explorer_view(system, cc.explorer_settings(system, costs))
        np.testing.assert_allclose(view.table.to_numpy(), brute_table(system), atol=1e-12)
        t, check, bd = independent_view_numbers(system, costs, view.settings.candidate)
        assert view.bound.worst_cost == pytest.approx(bd.worst_cost, rel=1e-12)
        assert view.settings.candidate.to_numpy().sum() == pytest.approx(1000)


def test_widgets_drive_the_k_label_view() -> None:
    pytest.importorskip("ipywidgets")
    base = system3()
    explorer = cc.explore(base, COSTS, CAND)
    c = explorer.controls
    assert "prior covid" in c and "a accuracy on flu" in c and "cost covid -> ok" in c
    c["a accuracy on flu"].value = 0.5
    c["cost covid -> ok"].value = 30.0
    c["candidate right on covid"].value = 150
    c["prior ok"].value = 1.0
    c["intervention"].value = "flu"
    s = explorer.settings
    assert explorer.message.value == ""
    assert s.confusion_of("a")[1] == (0.25, 0.5, 0.25)
    assert s.costs.to_numpy()[2, 0] == 30.0
    assert s.candidate.to_numpy()[2].tolist() == [25.0, 25.0, 150.0]
    assert s.class_prior == pytest.approx(np.array([1.0, 0.3, 0.2]) / 1.5)
    by_hand = cc.explorer_view(base, s)
    assert explorer.view.bound.worst_cost == pytest.approx(by_hand.bound.worst_cost)
    np.testing.assert_allclose(explorer.view.table.to_numpy(), by_hand.table.to_numpy())
    c["fusioner"].value = "as declared"
    assert explorer.message.value == "" and explorer.settings.fusioner == "as declared"


def test_settings_of_another_system_are_refused_by_name() -> None:
    base = system3()
    s = cc.explorer_settings(base, COSTS, CAND)
    with pytest.raises(cc.errors.InputTypeError, match="binary network"):
        cc.explorer_view(cc.load_network("thesis_and"), s)
    with pytest.raises(ValidationError, match="labels"):
        cc.explorer_settings(base, cc.CostMatrix(fn=5, fp=1))
    with pytest.raises(ValidationError, match="tie"):
        cc.explorer_view(base, s.replace(fusioner_options={"tie": "nonsense"}))


def test_widgets_leave_a_latent_model_as_declared() -> None:
    pytest.importorskip("ipywidgets")
    b = cc.SystemBuilder([0.6, 0.3, 0.1], labels=LABELS)
    b.add_latent("Difficulty", ["easy", "hard"], [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]])
    b.add_model("a", confusion={"easy": rates(0.9), "hard": rates(0.5)}, latent="Difficulty")
    b.add_model("c", confusion=rates(0.7))
    system = b.set_fusioner("plurality", tie="slot").build(slot="c")
    explorer = cc.explore(system)
    assert not any(name.startswith("a accuracy") for name in explorer.controls)
    explorer.controls["c accuracy on ok"].value = 0.4
    assert explorer.message.value == ""
    assert explorer.settings.confusion_of("c")[0] == pytest.approx((0.4, 0.3, 0.3))
    np.testing.assert_allclose(explorer.view.table.to_numpy(),
                               cc.explorer_view(system, explorer.settings).table.to_numpy())


def test_one_settings_type_and_one_view_for_k_2_3_4() -> None:
    """A binary network and systems declared by 2, 3 and 4 labels go through the same types;
    the two-label declared system and the binary network of the same rates give the same
    numbers (the general route against the binary closed forms); K = 4 against independent
    pricing of the view's own exact table."""
    binary = (cc.SystemBuilder(class_prior=0.3).add_model("a", sensitivity=0.9, specificity=0.8)
              .add_model("b", sensitivity=0.7, specificity=0.6).set_fusioner("or").build(slot="b"))
    two = (cc.SystemBuilder([0.3, 0.7], labels=["P", "N"])
           .add_model("a", confusion=[[0.9, 0.1], [0.2, 0.8]])
           .add_model("b", confusion=[[0.7, 0.3], [0.4, 0.6]])
           .set_fusioner("k_of_n", label="P", k=1).build(slot="b"))
    costs, cand = cc.CostMatrix(fn=5, fp=1), cc.Confusion(tp=20, fn=10, fp=15, tn=55)
    views = [cc.explorer_view(s, cc.explorer_settings(s, costs, cand)) for s in (binary, two)]
    assert [type(v.settings) for v in views] == [cc.ExplorerSettings] * 2
    assert [type(v) for v in views] == [cc.ExplorerView] * 2
    assert views[0].settings.rates == views[1].settings.rates
    for a, b in zip(views[0].to_frame()["cost"][:3], views[1].to_frame()["cost"][:3]):
        assert a == pytest.approx(b, rel=1e-12)
    np.testing.assert_allclose(views[0].expected.to_numpy(), views[1].expected.to_numpy(),
                               rtol=1e-12)
    four_labels = [f"l{i}" for i in range(4)]
    b4 = cc.SystemBuilder([0.4, 0.3, 0.2, 0.1], labels=four_labels)
    for name, acc in (("a", 0.9), ("b", 0.7), ("c", 0.6)):
        b4.add_model(name, confusion=rates(acc, 4))
    four = b4.set_fusioner("plurality").build(slot="c")
    costs4 = cc.CostMatrix(1 - np.eye(4) + np.arange(4)[:, None], labels=four_labels)
    view = cc.explorer_view(four, cc.explorer_settings(four, costs4))
    t = view.table.to_numpy()
    m1 = np.einsum("cjs,cs->cj", t, costs4.to_numpy())
    n = view.settings.candidate.to_numpy()
    assert view.bound.expected_cost == pytest.approx(float((n * m1).sum()), rel=1e-12)
    np.testing.assert_allclose(view.cost_matrices.m1, m1, rtol=1e-12)
    assert "labels=['l0', 'l1', 'l2', 'l3']" in repr(view)


def test_the_old_k_label_names_warn_and_are_the_one_types() -> None:
    for old, new in (("LabelExplorerSettings", "ExplorerSettings"),
                     ("LabelExplorerView", "ExplorerView")):
        with pytest.warns(DeprecationWarning, match=f"causalcost.{new}"):
            assert getattr(cc, old) is getattr(cc, new)
