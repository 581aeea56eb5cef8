"""Systems (network.system), the builder (network.builder) and correlated models
(causalcost.network.correlation).

Expected numbers come from the shipped network files (their declared sensitivities,
priors and correlations), the analytic correlation range of two Bernoulli indicators
(Fréchet bounds on P(A, B), restated in causalcost/correlation.py and derived again here),
and enumeration of the network's joint distribution.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import warnings

import numpy as np
import pytest
from conftest import brute_force_table
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import causalcost as cc

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork


# ------------------------------------------------------------------------ helpers
def hand_built(*, fusioner: list[list[float]] | None = None, extra_edges=(),
               with_confusion: bool = False, confusion=None) -> DiscreteBayesianNetwork:
    """Class -> a, Class -> b, (a, b) -> Fusioner (AND by default), built with pgmpy only."""
    sn = {"Class": ["P", "N"], "a": ["P", "N"], "b": ["P", "N"], "Fusioner": ["P", "N"]}
    net = DiscreteBayesianNetwork([("Class", "a"), ("Class", "b"), ("a", "Fusioner"),
                                   ("b", "Fusioner"), *extra_edges])
    fus = fusioner or [[1, 0, 0, 0], [0, 1, 1, 1]]
    net.add_cpds(
        TabularCPD("Class", 2, [[0.4], [0.6]], state_names={"Class": sn["Class"]}),
        TabularCPD("a", 2, [[0.8, 0.3], [0.2, 0.7]], evidence=["Class"], evidence_card=[2],
                   state_names={"a": sn["a"], "Class": sn["Class"]}),
        TabularCPD("b", 2, [[0.6, 0.1], [0.4, 0.9]], evidence=["Class"], evidence_card=[2],
                   state_names={"b": sn["b"], "Class": sn["Class"]}),
        TabularCPD("Fusioner", 2, fus, evidence=["a", "b"], evidence_card=[2, 2],
                   state_names={"Fusioner": sn["Fusioner"], "a": sn["a"], "b": sn["b"]}),
    )
    if with_confusion:
        net.add_edges_from([("Class", "Confusion"), ("Fusioner", "Confusion")])
        values = confusion if confusion is not None else np.eye(4)
        net.add_cpds(TabularCPD("Confusion", 4, values, evidence=["Class", "Fusioner"],
                                evidence_card=[2, 2],
                                state_names={"Confusion": ["TP", "FN", "FP", "TN"],
                                             "Class": sn["Class"],
                                             "Fusioner": sn["Fusioner"]}))
    return net


def from_pgmpy(net, **kwargs) -> cc.System:
    return cc.System.from_pgmpy(net, class_node="Class", system_node="Fusioner", **kwargs)


def two_model_builder() -> cc.SystemBuilder:
    return (cc.SystemBuilder(class_prior=0.5)
            .add_model("a", sensitivity=0.8, specificity=0.7)
            .add_model("b", sensitivity=0.6, specificity=0.9))


# ------------------------------------------------------------------------ building
def test_builder_network_matches_the_declaration() -> None:
    # thesis §4 example 1: prior 1/3, images 80 %/80 %, slot 50 %/50 %, AND
    system = (cc.SystemBuilder(class_prior=1 / 3)
              .add_model("images", sensitivity=0.8, specificity=0.8)
              .add_model("clinical_history", sensitivity=0.5, specificity=0.5)
              .set_fusioner("and").build(slot="clinical_history"))
    net = system.network
    assert sorted(net.nodes()) == ["Class", "Confusion", "Fusioner", "clinical_history",
                                   "images"]
    assert sorted(net.edges()) == sorted([
        ("Class", "images"), ("Class", "clinical_history"), ("images", "Fusioner"),
        ("clinical_history", "Fusioner"), ("Class", "Confusion"), ("Fusioner", "Confusion")])
    assert net.get_cpds("Class").get_value(Class="P") == pytest.approx(1 / 3, abs=1e-15)
    images = net.get_cpds("images")
    assert images.get_value(images="P", Class="P") == pytest.approx(0.8)  # sensitivity
    assert images.get_value(images="N", Class="N") == pytest.approx(0.8)  # specificity
    # AND: positive only when both models are
    fus = net.get_cpds("Fusioner")
    for a, b in itertools.product("PN", repeat=2):
        expected = 1.0 if (a, b) == ("P", "P") else 0.0
        assert fus.get_value(Fusioner="P", images=a, clinical_history=b) == expected
    assert system.models == ("images", "clinical_history")
    assert system.slot == "clinical_history" and system.positive == "P"
    assert system.negative() == "N"
    assert (system.class_node, system.system_node, system.confusion_node) == \
        ("Class", "Fusioner", "Confusion")
    assert system.deterministic_nodes == {"Fusioner", "Confusion"}
    assert "slot='clinical_history'" in repr(system)
    # the same system as the shipped file: same table (brute-force enumeration of both)
    np.testing.assert_allclose(brute_force_table(system),
                               brute_force_table(cc.load_network("thesis_and")), atol=1e-15)


def test_builder_rows_follow_product_order_first_parent_slowest() -> None:
    # builder docstring: one row per parent configuration, itertools.product order.
    # Reference: pgmpy VariableElimination of P(X | parents = config) on the built network.
    states = {"Class": ["P", "N"], "L": ["l0", "l1", "l2"]}
    rows = [[0.1, 0.9], [0.2, 0.8], [0.3, 0.7], [0.4, 0.6], [0.5, 0.5], [0.6, 0.4]]
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_latent("L", states["L"], [[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]],
                          parents=["Class"])
              .add_model("a", parents=["Class", "L"], positive_probability=[r[0] for r in rows])
              .add_model("b", sensitivity=0.7, specificity=0.7)
              .set_fusioner("or").build(slot="b"))
    ve = VariableElimination(system.network)
    for row, (c, lat) in zip(rows, itertools.product(states["Class"], states["L"])):
        q = ve.query(["a"], evidence={"Class": c, "L": lat}, show_progress=False)
        assert q.values[q.state_names["a"].index("P")] == pytest.approx(row[0], abs=1e-12)


def test_from_pgmpy_derives_confusion_on_a_copy() -> None:
    net = hand_built()
    before = sorted(net.nodes())
    system = from_pgmpy(net, slot="b")
    assert sorted(net.nodes()) == before and "Confusion" not in net.nodes()  # user's untouched
    assert system.network is not net and system.confusion_node == "Confusion"
    assert system.models == ("a", "b")
    conf = system.network.get_cpds("Confusion")
    mapping = {("P", "P"): "TP", ("P", "N"): "FN", ("N", "P"): "FP", ("N", "N"): "TN"}
    for (c, s), outcome in mapping.items():  # METHOD.md: rows class, columns prediction
        assert conf.get_value(Confusion=outcome, Class=c, Fusioner=s) == 1.0
    np.testing.assert_allclose(cc.interventional_table(system).probabilities,
                               brute_force_table(system), atol=1e-12)


def test_from_pgmpy_reuses_an_existing_confusion_node() -> None:
    # the from_pgmpy docstring example: wrapping a built system's network again
    built = cc.load_network("thesis_and")
    again = cc.System.from_pgmpy(built.network, class_node="Class", system_node="Fusioner",
                                 slot="clinical_history")
    assert again.confusion_node == "Confusion"
    assert sorted(again.network.nodes()) == sorted(built.network.nodes())
    np.testing.assert_allclose(cc.interventional_table(again).probabilities,
                               brute_force_table(built), atol=1e-12)
    named = from_pgmpy(hand_built(with_confusion=True), confusion_node="Confusion", slot="a")
    assert named.confusion_node == "Confusion"


def test_with_slot_returns_a_new_system() -> None:
    system = cc.load_network("majority3")
    other = system.with_slot("images")
    assert other.slot == "images" and system.slot == "clinical_history"
    assert other.network is system.network  # read-only, shared
    assert system.require_slot() == "clinical_history"
    assert system.require_slot("lab_tests") == "lab_tests"
    with pytest.raises(dataclasses.FrozenInstanceError):
        system.slot = "images"  # type: ignore[misc]


def test_deterministic_nodes_of_correlated_models() -> None:
    # add_correlated_models makes each model a deterministic function of (class, latent)
    system = cc.load_network("experiment_or")
    assert system.deterministic_nodes == {"images", "clinical_history", "Fusioner",
                                          "Confusion"}
    assert system.is_deterministic("images") and not system.is_deterministic("Difficulty")


# ------------------------------------------------------------------------ bad CPDs
def test_builder_rejects_unnormalised_and_negative_rows() -> None:
    b = cc.SystemBuilder(class_prior=0.5)
    with pytest.raises(cc.CPDError, match=r"CPD of 'L' at \(Class=N\) sums to 0.9, not 1"):
        b.add_node("L", ["x", "y"], [[0.5, 0.5], [0.4, 0.5]], parents=["Class"])
    with pytest.raises(cc.CPDError, match=r"CPD of 'L' at \(no parents\).*outside \[0, 1\]"):
        b.add_node("L", ["x", "y"], [-0.5, 1.5])
    with pytest.raises(cc.CPDError, match=r"outside \[0, 1\]"):
        b.add_node("L", ["x", "y"], [float("nan"), 1.0])
    with pytest.raises(cc.CPDError, match=r"needs 2 row\(s\).*\['Class'\]"):
        b.add_node("L", ["x", "y"], [[0.5, 0.5]], parents=["Class"])
    with pytest.raises(cc.CPDError, match="sensitivity of 'm' must be a probability"):
        b.add_model("m", sensitivity=1.2, specificity=0.5)


def test_from_pgmpy_rejects_unnormalised_cpd() -> None:
    net = hand_built()
    net.get_cpds("a").values[:, 1] = [0.3, 0.6]  # column Class = N sums to 0.9
    with pytest.raises(cc.CPDError, match=r"CPD of 'a' is not normalised at \(Class=N\)"):
        from_pgmpy(net, slot="a")


def test_cpd_tolerance_is_tight() -> None:
    # system.CPD_ATOL = 1e-9: a column off by 1e-6 is rejected, one off by 1e-12 accepted
    net = hand_built()
    net.get_cpds("a").values[:, 1] = [0.3, 0.700001]
    with pytest.raises(cc.CPDError, match="sum to 1.000001"):
        from_pgmpy(net, slot="a")
    net = hand_built()
    net.get_cpds("a").values[:, 1] = [0.3, 0.7 + 1e-12]
    assert from_pgmpy(net, slot="a").slot == "a"


def test_from_pgmpy_rejects_negative_cpd() -> None:
    # pgmpy's TabularCPD refuses negative values at construction; mutate afterwards
    net = hand_built()
    net.get_cpds("b").values[:, 0] = [1.5, -0.5]
    with pytest.raises(cc.CPDError, match=r"CPD of 'b' has a negative.*\(Class=P\)"):
        from_pgmpy(net, slot="a")
    net = hand_built()
    net.get_cpds("b").values[:, 0] = [np.nan, 1.0]
    with pytest.raises(cc.CPDError, match="non-finite"):
        from_pgmpy(net, slot="a")


def test_from_pgmpy_rejects_missing_cpd_and_wrong_type() -> None:
    net = hand_built()
    net.remove_cpds(net.get_cpds("b"))
    with pytest.raises(cc.CPDError, match="nodes without a CPD: 'b'"):
        from_pgmpy(net)
    with pytest.raises(TypeError, match="DiscreteBayesianNetwork"):
        cc.System.from_pgmpy({"a": 1}, class_node="Class", system_node="Fusioner")


# ------------------------------------------------------------------------ bad structure
def test_builder_rejects_a_cycle() -> None:
    b = (cc.SystemBuilder()
         .add_latent("L", ["x", "y"], [[0.5, 0.5], [0.2, 0.8]], parents=["Class"])
         .add_node("Class", ["P", "N"], [[0.3, 0.7], [0.6, 0.4]], parents=["L"])
         .add_model("a", sensitivity=0.8, specificity=0.8)
         .set_fusioner("and"))
    with pytest.raises(cc.NetworkStructureError, match="cycle: .*L.*Class"):
        b.build()


def test_slot_that_does_not_reach_the_system_prediction() -> None:
    b = (two_model_builder()
         .add_node("extra", ["P", "N"], [[0.9, 0.1], [0.2, 0.8]], parents=["Class"])
         .set_fusioner("and"))
    with pytest.raises(cc.NetworkStructureError,
                       match="slot 'extra' does not reach the system prediction.*'a', 'b'"):
        b.build(slot="extra")
    system = b.build()
    with pytest.raises(cc.NetworkStructureError, match="does not reach"):
        system.with_slot("extra")


def test_class_downstream_of_the_slot_is_rejected() -> None:
    # hand-built: a -> Class -> b; (a, b) -> Fusioner. A model cannot cause the class.
    sn = ["P", "N"]
    net = DiscreteBayesianNetwork([("a", "Class"), ("Class", "b"), ("a", "Fusioner"),
                                   ("b", "Fusioner")])
    net.add_cpds(
        TabularCPD("a", 2, [[0.5], [0.5]], state_names={"a": sn}),
        TabularCPD("Class", 2, [[0.9, 0.2], [0.1, 0.8]], evidence=["a"], evidence_card=[2],
                   state_names={"Class": sn, "a": sn}),
        TabularCPD("b", 2, [[0.7, 0.2], [0.3, 0.8]], evidence=["Class"], evidence_card=[2],
                   state_names={"b": sn, "Class": sn}),
        TabularCPD("Fusioner", 2, [[1, 0, 0, 0], [0, 1, 1, 1]], evidence=["a", "b"],
                   evidence_card=[2, 2], state_names={"Fusioner": sn, "a": sn, "b": sn}),
    )
    system = from_pgmpy(net)  # fine without a slot, and with slot b
    assert from_pgmpy(net, slot="b").slot == "b"
    with pytest.raises(cc.NetworkStructureError,
                       match="class node 'Class' is a descendant of slot 'a'"):
        system.with_slot("a")


def test_non_deterministic_fusioner_is_rejected() -> None:
    net = hand_built(fusioner=[[0.9, 0.0, 0.0, 0.0], [0.1, 1.0, 1.0, 1.0]])
    with pytest.raises(cc.NetworkStructureError, match="'Fusioner' is not deterministic"):
        from_pgmpy(net, slot="a")


def test_unknown_names_list_the_valid_ones() -> None:
    net = hand_built()
    with pytest.raises(cc.UnknownNameError,
                       match=r"class node 'Klass' is not a node.*valid nodes: 'Class', "
                             r"'Fusioner', 'a', 'b'"):
        cc.System.from_pgmpy(net, class_node="Klass", system_node="Fusioner")
    system = from_pgmpy(net)
    with pytest.raises(cc.UnknownNameError, match=r"slot 'c' is not a node.*'a', 'b'"):
        system.with_slot("c")
    with pytest.raises(cc.UnknownNameError, match="node 'zz'.*valid nodes"):
        system.states("zz")
    with pytest.raises(cc.UnknownNameError, match=r"model 'c'.*valid nodes"):
        from_pgmpy(net, models=["a", "c"])
    with pytest.raises(cc.NetworkStructureError, match="positive state 'yes'"):
        from_pgmpy(net, positive="yes")
    with pytest.raises(cc.UnknownNameError, match=r"fusioner inputs \['c'\].*\['a', 'b'\]"):
        two_model_builder().set_fusioner("and", inputs=["a", "c"])
    # parents may be declared later, so an undeclared one is reported by build()
    builder = two_model_builder().add_model("m", parents=["Z"], positive_probability=[0.5, 0.5])
    with pytest.raises(cc.UnknownNameError,
                       match=r"parent 'Z' of 'm'.*\['Class', 'Fusioner', 'a', 'b', 'm'\]"):
        builder.set_fusioner("and").build()


def test_confusion_node_must_be_the_confusion_of_class_and_prediction() -> None:
    swapped = np.eye(4)[:, [0, 1, 3, 2]]  # (N, P) -> TN and (N, N) -> FP: wrong
    net = hand_built(with_confusion=True, confusion=swapped)
    with pytest.raises(cc.NetworkStructureError,
                       match=r"not the confusion of class and prediction.*must be FP"):
        from_pgmpy(net, confusion_node="Confusion")
    # the correct table passes (np.eye: TP, FN, FP, TN in product order of (Class, Fusioner))
    assert from_pgmpy(hand_built(with_confusion=True), confusion_node="Confusion").models == \
        ("a", "b")


def test_confusion_node_states_and_parents() -> None:
    net = hand_built(with_confusion=True)
    cpd = net.get_cpds("Confusion")
    net.remove_cpds(cpd)
    net.add_cpds(TabularCPD("Confusion", 4, np.eye(4), evidence=["Class", "Fusioner"],
                            evidence_card=[2, 2],
                            state_names={"Confusion": ["TP", "FP", "FN", "TN"],
                                         "Class": ["P", "N"], "Fusioner": ["P", "N"]}))
    with pytest.raises(cc.NetworkStructureError, match=r"states \['TP', 'FN', 'FP', 'TN'\]"):
        from_pgmpy(net, confusion_node="Confusion")
    net = hand_built(with_confusion=True)
    net.add_edge("a", "Confusion")
    with pytest.raises(cc.NetworkStructureError, match="must have exactly the parents"):
        from_pgmpy(net, confusion_node="Confusion")


def test_roles_must_be_binary() -> None:
    system_like = (cc.SystemBuilder(class_prior=0.5)
                   .add_node("F", ["lo", "mid", "hi"], [0.2, 0.3, 0.5])
                   .add_model("a", parents=["F"], positive_probability=[0.1, 0.5, 0.9])
                   .add_model("b", sensitivity=0.7, specificity=0.7)
                   .set_fusioner("or").build())
    with pytest.raises(cc.NetworkStructureError, match="slot 'F' must have two states"):
        system_like.with_slot("F")
    with pytest.raises(cc.NetworkStructureError, match="must be a model, not"):
        system_like.with_slot("Fusioner")


def test_builder_misuse() -> None:
    with pytest.raises(cc.NetworkStructureError, match="no fusioner"):
        two_model_builder().build()
    with pytest.raises(cc.NetworkStructureError, match="class has no distribution"):
        cc.SystemBuilder().add_model("a", sensitivity=0.5, specificity=0.5) \
            .set_fusioner("and").build()
    with pytest.raises(cc.NetworkStructureError, match="'a' is used twice"):
        two_model_builder().add_model("a", sensitivity=0.5, specificity=0.5)
    with pytest.raises(cc.ValidationError, match="either sensitivity and specificity"):
        cc.SystemBuilder(class_prior=0.5).add_model("a", sensitivity=0.5, parents=["Class"],
                                                    positive_probability=[0.5, 0.5])
    with pytest.raises(cc.ValidationError, match="drop class_prior"):
        cc.SystemBuilder(class_prior=0.5).add_population(["x", "y"], [0.5, 0.5], [0.1, 0.2])
    with pytest.raises(cc.ValidationError, match="must differ"):
        cc.SystemBuilder(class_prior=0.5, positive="P", negative="P")


# ------------------------------------------------------------------------ correlation
def correctness_joint(system: cc.System, first: str, second: str, cls: str) -> dict:
    """P(first right, second right | Class = cls) by enumerating the latent and the models."""
    net = system.network
    latent = next(p for p in net.get_parents(first) if p != system.class_node)
    lat = net.get_cpds(latent)
    m1, m2 = net.get_cpds(first), net.get_cpds(second)
    joint = {(r1, r2): 0.0 for r1 in (True, False) for r2 in (True, False)}
    for state in lat.state_names[latent]:
        p_l = lat.get_value(**{latent: state, system.class_node: cls})
        for s1, s2 in itertools.product(system.states(first), system.states(second)):
            p = (p_l * m1.get_value(**{first: s1, latent: state, system.class_node: cls})
                 * m2.get_value(**{second: s2, latent: state, system.class_node: cls}))
            joint[(s1 == cls, s2 == cls)] += p
    return joint


def pearson(joint: dict) -> tuple[float, float, float]:
    """(a, b, rho) of two indicators from their joint law."""
    a = joint[(True, True)] + joint[(True, False)]
    b = joint[(True, True)] + joint[(False, True)]
    rho = (joint[(True, True)] - a * b) / math.sqrt(a * (1 - a) * b * (1 - b))
    return a, b, rho


def test_experiment_or_correlations() -> None:
    # networks/experiment_or.toml (the slides' experiment): 50 % accurate models, correctness
    # correlated +0.95 on positives and -0.95 on negatives
    system = cc.load_network("experiment_or")
    for cls, expected in (("P", 0.95), ("N", -0.95)):
        a, b, rho = pearson(correctness_joint(system, "images", "clinical_history", cls))
        assert (a, b) == pytest.approx((0.5, 0.5), abs=1e-12)
        assert rho == pytest.approx(expected, abs=1e-12)


def test_anticorrelated_models_are_never_right_together() -> None:
    # thesis §3.3: the two models are never right on the same positive (correlation -1)
    joint = correctness_joint(cc.load_network("anticorrelated_and"), "images",
                              "clinical_history", "P")
    assert joint[(True, True)] == pytest.approx(0.0, abs=1e-15)
    assert pearson(joint)[2] == pytest.approx(-1.0, abs=1e-12)


def analytic_range(a: float, b: float) -> tuple[float, float]:
    """Fréchet bounds max(0, a+b-1) <= P(A, B) <= min(a, b) turned into correlations."""
    s = math.sqrt(a * (1 - a) * b * (1 - b))
    return ((max(0.0, a + b - 1) - a * b) / s, (min(a, b) - a * b) / s)


@pytest.mark.parametrize(("a", "b", "expected"), [
    (0.5, 0.5, (-1.0, 1.0)),    # symmetric: both extremes reachable
    (0.8, 0.5, (-0.5, 0.5)),    # by hand: s = 0.2, (0.3 - 0.4)/0.2, (0.5 - 0.4)/0.2
    (0.9, 0.9, (-1 / 9, 1.0)),  # by hand: s = 0.09, (0.8 - 0.81)/0.09, (0.9 - 0.81)/0.09
    (0.3, 0.7, (-1.0, 0.09 / 0.21)),  # a + b = 1: -1 reachable; (0.3 - 0.21)/0.21
    (1.0, 0.6, (0.0, 0.0)),     # constant indicator: only rho = 0
])
def test_correlation_range_known_values(a: float, b: float, expected) -> None:
    assert cc.correlation_range(a, b) == pytest.approx(expected, abs=1e-12)


accuracies = st.floats(0.01, 0.99, allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(a=accuracies, b=accuracies, t=st.floats(0.0, 1.0))
def test_correlation_inside_range_is_reproduced(a: float, b: float, t: float) -> None:
    lo, hi = cc.correlation_range(a, b)
    assert (lo, hi) == pytest.approx(analytic_range(a, b), abs=1e-12)
    rho = lo + t * (hi - lo)
    joint = cc.correlated_correctness(a, b, rho)
    assert all(p >= 0 for p in joint) and sum(joint) == pytest.approx(1.0, abs=1e-12)
    got_a, got_b, got_rho = pearson(dict(zip(
        [(True, True), (True, False), (False, True), (False, False)], joint)))
    assert (got_a, got_b) == pytest.approx((a, b), abs=1e-12)
    assert got_rho == pytest.approx(rho, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(a=accuracies, b=accuracies)
def test_correlation_endpoints_make_a_cell_zero(a: float, b: float) -> None:
    # at each end of the range one cell of the 2x2 joint law is 0 (Fréchet bound attained)
    for rho in cc.correlation_range(a, b):
        assert min(cc.correlated_correctness(a, b, rho)) == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(a=accuracies, b=accuracies, excess=st.floats(1e-6, 1.0))
def test_correlation_outside_range_is_rejected(a: float, b: float, excess: float) -> None:
    lo, hi = cc.correlation_range(a, b)
    for rho in (lo - excess, hi + excess):
        assume(abs(rho) <= 2)
        with pytest.raises(cc.ValidationError,
                           match=re_escape(f"[{lo:.6g}, {hi:.6g}]")):
            cc.correlated_correctness(a, b, rho)


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_builder_rejects_unreachable_correlation() -> None:
    # 0.8 and 0.5: reachable correlations are [-0.5, 0.5] (by hand, see above)
    with pytest.raises(cc.ValidationError, match=r"on positives.*\[-0.5, 0.5\]"):
        cc.SystemBuilder(class_prior=0.5).add_correlated_models(
            "m1", "m2", sensitivity=(0.8, 0.5), specificity=(0.5, 0.5),
            correlation_positive=0.9, correlation_negative=0.0)


@settings(max_examples=30, deadline=None)
@given(se=st.tuples(accuracies, accuracies), sp=st.tuples(accuracies, accuracies),
       tp=st.floats(0, 1), tn=st.floats(0, 1))
def test_builder_correlated_models_reach_the_requested_correlation(se, sp, tp, tn) -> None:
    lo_p, hi_p = cc.correlation_range(*se)
    lo_n, hi_n = cc.correlation_range(*sp)
    rho_p, rho_n = lo_p + tp * (hi_p - lo_p), lo_n + tn * (hi_n - lo_n)
    system = (cc.SystemBuilder(class_prior=0.5)
              .add_correlated_models("m1", "m2", sensitivity=se, specificity=sp,
                                     correlation_positive=rho_p, correlation_negative=rho_n)
              .set_fusioner("and").build(slot="m2"))
    for cls, (a, b), rho in (("P", se, rho_p), ("N", sp, rho_n)):
        got_a, got_b, got_rho = pearson(correctness_joint(system, "m1", "m2", cls))
        assert (got_a, got_b) == pytest.approx((a, b), abs=1e-12)
        assert got_rho == pytest.approx(rho, abs=1e-9)
