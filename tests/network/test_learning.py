"""Learned systems (causalcost.network.learning): declared structure, estimated probabilities.

Data are simulated from a shipped network by pgmpy's own sampler; the learned system's exact
interventional rates must agree with the generating network's within sampling error.
"""

from __future__ import annotations

import numpy as np
import pytest

import causalcost as cc
from causalcost.network.learning import fit_system


def simulate(name: str, n: int, seed: int):  # noqa: ANN201 - a pandas frame
    system = cc.load_network(name)
    return system, system.network.simulate(n, seed=seed, show_progress=False)


def rate_vector(system: cc.System) -> np.ndarray:
    r = cc.error_rates(system)
    return np.array([r.fn_forced_p, r.fn_forced_n, r.fp_forced_p, r.fp_forced_n])


@pytest.mark.parametrize("name", ["thesis_and", "majority3", "population_and"])
@pytest.mark.parametrize("estimator", ["mle", "bayesian"])
def test_learned_rates_match_the_generating_network(name: str, estimator: str) -> None:
    system, data = simulate(name, 20_000, seed=3)
    learned = fit_system(system, data, estimator=estimator)
    assert learned.slot == system.slot and learned.models == system.models
    # 20,000 instances, about a third positive: 4 standard errors of a rate near 0.5
    assert np.abs(rate_vector(learned) - rate_vector(system)).max() < 4 * np.sqrt(0.25 / 6000)
    assert system.network is not learned.network  # the declared system is untouched


def test_a_latent_cause_is_fitted_by_expectation_maximisation() -> None:
    system, data = simulate("experiment_or", 20_000, seed=4)
    learned = fit_system(system, data.drop(columns=["Difficulty"]), max_iter=50)
    observed = cc.observed_confusion(system, 1000, 1000)
    fitted = cc.observed_confusion(learned, 1000, 1000)
    assert abs(observed.tp - fitted.tp) < 30 and abs(observed.fp - fitted.fp) < 30
    assert np.abs(rate_vector(learned) - rate_vector(system)).max() < 0.03


def test_the_learned_system_is_an_ordinary_system(tmp_path) -> None:  # noqa: ANN001
    system, data = simulate("thesis_and", 5000, seed=5)
    learned = fit_system(system, data)
    sheet = cc.sheet_from_network(learned, cc.CostMatrix(fn=5, fp=1))
    assert sheet.assumption == "monotone" and sheet.monotonicity["is_monotone"]
    assert cc.interventional_table(learned, method="sampling", samples=2000, seed=0).has_intervals


def test_bad_data_is_refused_with_the_column_named() -> None:
    system, data = simulate("thesis_and", 500, seed=6)
    bad = data.astype(str)  # pgmpy returns categoricals; a user's frame holds plain labels
    bad.loc[bad.index[:3], "images"] = "maybe"
    with pytest.raises(cc.CausalCostError, match=r"column 'images' holds values \['maybe'\]"):
        fit_system(system, bad)
    with pytest.raises(cc.CausalCostError, match="estimator"):
        fit_system(system, data, estimator="guess")
    with pytest.raises(cc.CausalCostError, match="no observed child"):
        fit_system(system, data[["Class"]])
