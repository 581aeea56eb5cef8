"""What users tripped over (issue 6): readable errors, pgmpy's default states, start-up cost.

Each test reproduces a report: the call as the user wrote it, and what they should get back.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from unittest import mock

import numpy as np
import pytest

import causalcost as cc
from causalcost.network import system as system_module

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork


def two_models() -> cc.SystemBuilder:
    return (cc.SystemBuilder(class_prior=0.4)
            .add_model("images", sensitivity=0.8, specificity=0.7)
            .add_model("history", sensitivity=0.6, specificity=0.9))


# ------------------------------------------------------------------------ function fusioners
def test_a_function_of_one_tuple_says_how_it_is_called() -> None:
    with pytest.raises(cc.ValidationError,
                       match=r"cannot be called with one keyword argument per model, as it is: "
                             r"<lambda>\(images=True, history=False\)") as info:
        two_models().set_fusioner("function", function=lambda votes: all(votes))
    assert "lambda images, history: ..." in str(info.value)
    assert not isinstance(info.value, TypeError) or isinstance(info.value, cc.CausalCostError)


def test_a_failing_function_is_wrapped_with_the_call() -> None:
    def rule(images: bool, history: bool) -> bool:
        return {True: True}[history]  # KeyError on history=False

    with pytest.raises(cc.ValidationError,
                       match=r"fusioner function rule failed with KeyError: False\. It is called "
                             r"with one keyword argument per model: rule\(images=True, "
                             r"history=False\)"):
        two_models().set_fusioner("function", function=rule)


def test_numpy_booleans_are_accepted_as_votes() -> None:
    system = two_models().set_fusioner(
        "function", function=lambda images, history: np.bool_(images and history)).build()
    assert system.fusioner.rule == "function"


# ------------------------------------------------------------------------ correlated models
def test_correlated_models_without_names_say_how_to_call() -> None:
    with pytest.raises(cc.ValidationError,
                       match=r"add_correlated_models is missing first, second; it is called as "
                             r"add_correlated_models\('first_model', 'second_model', "
                             r"sensitivity=\(se1, se2\)"):
        cc.SystemBuilder(class_prior=0.5).add_correlated_models(
            sensitivity=(0.5, 0.5), specificity=(0.5, 0.5), correlation_positive=0.5,
            correlation_negative=0.0)
    with pytest.raises(cc.ValidationError, match="is missing correlation_negative"):
        cc.SystemBuilder(class_prior=0.5).add_correlated_models(
            "a", "b", sensitivity=(0.5, 0.5), specificity=(0.5, 0.5), correlation_positive=0.5)


# ------------------------------------------------------------------------ pgmpy's 0/1 states
def zero_one(labels: tuple = (0, 1)) -> DiscreteBayesianNetwork:
    """Class -> a, b -> AND, with pgmpy's default integer states 0/1 (1 = positive)."""
    zero, one = labels
    sn = [zero, one]
    net = DiscreteBayesianNetwork([("Class", "a"), ("Class", "b"), ("a", "F"), ("b", "F")])
    # columns follow the parents' states in order: 0 then 1
    net.add_cpds(
        TabularCPD("Class", 2, [[0.6], [0.4]], state_names={"Class": sn}),
        TabularCPD("a", 2, [[0.7, 0.2], [0.3, 0.8]], evidence=["Class"], evidence_card=[2],
                   state_names={"a": sn, "Class": sn}),
        TabularCPD("b", 2, [[0.9, 0.4], [0.1, 0.6]], evidence=["Class"], evidence_card=[2],
                   state_names={"b": sn, "Class": sn}),
        TabularCPD("F", 2, [[1, 1, 1, 0], [0, 0, 0, 1]], evidence=["a", "b"],
                   evidence_card=[2, 2], state_names={"F": sn, "a": sn, "b": sn}))
    return net


@pytest.mark.parametrize("labels", [(0, 1), ("0", "1")])
def test_zero_one_states_default_to_positive_one(labels) -> None:
    system = cc.System.from_pgmpy(zero_one(labels), class_node="Class", system_node="F",
                                  slot="b")
    assert system.positive == labels[1]
    assert "positive=" in repr(system) and "assumed: the class's states are 0 and 1" in repr(
        system)
    assert system.fusioner.rule == "and"  # recognised from the table, in state 1 = positive
    # AND with b forced to 1: the system says 1 iff a does: P(a = 1 | Class = 1) = 0.8
    rates = cc.error_rates(system)
    assert rates.fn_forced_p == pytest.approx(0.2) and rates.fn_forced_n == pytest.approx(1.0)
    explicit = cc.System.from_pgmpy(zero_one(labels), class_node="Class", system_node="F",
                                    slot="b", positive=labels[1])
    assert "assumed" not in repr(explicit)


def test_other_states_without_positive_name_the_fix() -> None:
    net = zero_one(("neg", "pos"))
    with pytest.raises(cc.NetworkStructureError, match=r"it has \['neg', 'pos'\]\. Pass positive"):
        cc.System.from_pgmpy(net, class_node="Class", system_node="F")


def test_messages_print_plain_names_not_numpy_reprs() -> None:
    labels = tuple(np.array(["neg", "pos"]))  # np.str_ state names, as from a DataFrame
    with pytest.raises(cc.NetworkStructureError) as info:
        cc.System.from_pgmpy(zero_one(labels), class_node="Class", system_node="F")
    assert "np.str_" not in str(info.value) and "['neg', 'pos']" in str(info.value)
    system = cc.System.from_pgmpy(zero_one(labels), class_node="Class", system_node="F",
                                  positive=labels[1])
    with pytest.raises(cc.ValidationError) as info:
        system.with_slot("nope")
    assert "np." not in str(info.value)


def test_numpy_names_from_the_builder_print_plainly() -> None:
    names = np.array(["images", "history", "labs"])  # e.g. read from a DataFrame's columns
    b = cc.SystemBuilder(class_prior=0.5)
    for m in names[:2]:
        b.add_model(m, sensitivity=0.8, specificity=0.7)
    with pytest.raises(cc.UnknownNameError) as info:
        b.set_fusioner("and", inputs=list(names))
    assert "np.str_" not in str(info.value) and "['labs']" in str(info.value)
    system = b.set_fusioner("and", inputs=list(names[:2])).build(slot=names[1])
    assert type(system.slot) is str and all(type(m) is str for m in system.models)
    assert "np.str_" not in repr(system)


# ------------------------------------------------------------------------ start-up
def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_listing_and_reading_network_files_imports_no_pgmpy() -> None:
    out = run(
        "import sys, causalcost as cc\n"
        "specs = [cc.read_network(n) for n in cc.list_networks()]\n"
        "print(len(specs), specs[0].models, specs[0].description[:10],\n"
        "      any(m.split('.')[0] == 'pgmpy' for m in sys.modules))\n"
    )
    assert out == "7 ('images', 'clinical_history') Thesis §3. False"


def test_a_spec_builds_the_same_system_as_load_network() -> None:
    spec = cc.read_network("population_and")
    assert spec.slot == "clinical_history" and spec.fusioner == "and"
    assert spec.to_dict()["models"] == ["images", "clinical_history"]
    assert spec.summary().startswith("population_and")
    np.testing.assert_array_equal(
        cc.interventional_table(spec.build()).probabilities,
        cc.interventional_table(cc.load_network("population_and")).probabilities)


# ------------------------------------------------------------------------ validate once
def test_require_slot_validates_another_slot_once() -> None:
    system = cc.load_network("majority3")
    with mock.patch.object(system_module.nx, "ancestors",
                           wraps=system_module.nx.ancestors) as ancestors:
        for _ in range(5):
            assert system.require_slot("images") == "images"
            assert system.require_slot() == "clinical_history"
            assert system.require_slot("clinical_history") == "clinical_history"
    assert ancestors.call_count == 1  # the first validation of "images"; then remembered
    for _ in range(2):  # a bad slot is refused every time, never remembered
        with pytest.raises(cc.NetworkStructureError, match="the slot must be a model"):
            system.require_slot("Fusioner")
