"""Issue 16.9 / 16.10: fit_system says when a probability is not learned, and refuses bad
arguments with a causalcost error naming them (not pgmpy's ValueError / UnboundLocalError)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import causalcost as cc
from causalcost.network.learning import fit_system


@pytest.fixture(scope="module")
def majority3() -> tuple[cc.System, pd.DataFrame]:
    system = cc.load_network("majority3")
    return system, system.network.simulate(3000, seed=2, show_progress=False)


def model_column(system: cc.System, model: str, class_state: str) -> np.ndarray:
    """``P(model | Class = class_state)`` over the model's states."""
    cpd = system.network.get_cpds(model)
    assert list(cpd.variables) == [model, system.class_node]
    j = list(cpd.state_names[system.class_node]).index(class_state)
    return cpd.get_values()[:, j]


@pytest.mark.parametrize("estimator", ["bayesian", "mle"])
@pytest.mark.parametrize("present", ["P", "N"])
def test_one_class_data_warns_naming_each_column(majority3: tuple, estimator: str,
                                                 present: str) -> None:
    system, data = majority3
    missing = "N" if present == "P" else "P"
    one = data[data[system.class_node] == present]
    with pytest.warns(cc.NoDataWarning) as record:
        learned = fit_system(system, one, estimator=estimator)
    ours = [w for w in record if issubclass(w.category, cc.NoDataWarning)]
    assert len(ours) == 1  # one warning naming every column
    text = str(ours[0].message)
    for model in system.models:
        assert f"model {model!r}, class state {missing!r}" in text
        # the warning is true: those columns are uniform (the BDeu prior, or pgmpy's fill)
        np.testing.assert_allclose(model_column(learned, model, missing), [0.5, 0.5],
                                   rtol=1e-12)
        # and the present class's columns are learned: they differ from uniform
        assert abs(model_column(learned, model, present)[0] - 0.5) > 0.05
    assert f"model {system.class_node!r}" not in text  # the class prior had data
    assert ("BDeu prior" in text) == (estimator == "bayesian")
    assert ("uniform fill" in text) == (estimator == "mle")
    assert issubclass(cc.NoDataWarning, cc.CausalCostWarning)
    assert ours[0].filename == __file__  # points at the caller, not into the package


def test_data_with_both_classes_does_not_warn(majority3: tuple) -> None:
    system, data = majority3
    with warnings.catch_warnings():
        warnings.simplefilter("error", cc.NoDataWarning)
        fit_system(system, data)


def test_a_latent_like_node_is_named_generically_and_fixed_nodes_skipped() -> None:
    # experiment_or: Difficulty depends on the class; the models are deterministic given
    # (Class, Difficulty), so the system fixes them and only Difficulty's column is unlearned
    system = cc.load_network("experiment_or")
    data = system.network.simulate(4000, seed=5, show_progress=False)
    one = data[data["Class"] == "P"]
    with pytest.warns(cc.NoDataWarning) as rec:
        learned = fit_system(system, one)
    text = str(next(w.message for w in rec if issubclass(w.category, cc.NoDataWarning)))
    assert "1 CPD column(s)" in text and "node 'Difficulty' given Class='N'" in text
    assert "images" not in text and "clinical_history" not in text
    cpd = learned.network.get_cpds("Difficulty")
    j = list(cpd.state_names["Class"]).index("N")
    np.testing.assert_allclose(cpd.get_values()[:, j], np.full(4, 0.25), rtol=1e-12)


# ---------------------------------------------------------------------- 16.10: arguments
@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"system": None}, cc.InputTypeError, "system must be a causalcost System"),
        ({"system": "majority3"}, cc.InputTypeError, "system must be"),
        ({"data": None}, cc.InputTypeError, "data must be a pandas DataFrame"),
        ({"prior_type": "bogus"}, cc.ValidationError, "prior_type ('bogus') must be one of"),
        ({"prior_type": "dirichlet"}, cc.ValidationError, "prior_type ('dirichlet')"),
        ({"equivalent_sample_size": -1}, cc.ValidationError, "equivalent_sample_size (-1)"),
        ({"equivalent_sample_size": float("nan")}, cc.ValidationError,
         "equivalent_sample_size (nan)"),
        ({"max_iter": 0}, cc.ValidationError, "max_iter (0) must be an integer >= 1"),
        ({"max_iter": 2.5}, cc.ValidationError, "max_iter (2.5)"),
        ({"seed": -1}, cc.ValidationError, "seed (-1) must be an integer >= 0"),
        ({"estimator": "bogus"}, cc.ValidationError, "estimator ('bogus')"),
    ],
)
def test_bad_arguments_are_refused_by_name(majority3: tuple, kwargs: dict, error: type,
                                           needle: str) -> None:
    system, data = majority3
    # max_iter = 0 used to reach pgmpy's EM and fail with UnboundLocalError: drop a column
    args = {"system": system, "data": data.drop(columns=["images"]), **kwargs}
    with pytest.raises(error) as info:
        fit_system(args.pop("system"), args.pop("data"), **args)
    assert isinstance(info.value, cc.CausalCostError)
    assert needle in str(info.value)


def test_prior_type_is_case_insensitive_like_pgmpy(majority3: tuple) -> None:
    system, data = majority3
    a = fit_system(system, data, prior_type="bdeu")
    b = fit_system(system, data, prior_type="BDeu")
    k2 = fit_system(system, data, prior_type="K2")
    np.testing.assert_allclose(model_column(a, "images", "P"), model_column(b, "images", "P"),
                               rtol=1e-12)
    # K2 adds one pseudo-count per cell, BDeu 5 / 4: the columns differ slightly
    assert not np.allclose(model_column(k2, "images", "P"), model_column(a, "images", "P"),
                           rtol=0, atol=1e-9)
