"""Learned systems: the structure declared, the probabilities estimated from data.

A system owner often knows the structure (which models see which features, the fusioner) but
not every probability. :func:`fit_system` keeps the declared structure and the deterministic
nodes (the fusioner, count nodes, the confusion node) and re-estimates every other CPD from a
data frame whose columns are the nodes, through pgmpy's estimators: maximum likelihood, or
Bayesian with a BDeu (or other) prior; nodes missing from the data are latent and are fitted
by expectation maximisation, starting from the declared CPDs.

What the data identify. The interventional table ``P(Conf | Class, do(slot = x))`` needs only
the joint law of the *other* models' predictions given the class: the slot's own CPD and any
latent cause shared with it do not enter it (the do-operator cuts them off). They matter for
the observational system (:func:`~causalcost.observed_confusion`), for the instance law of the
experiments, and for what-if changes of the slot, and there a latent is identified only up to
what its observed children reveal.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from causalcost.errors import NetworkStructureError, ValidationError
from causalcost.network._pgmpy import DiscreteBayesianNetwork, estimate_cpds
from causalcost.network.system import System

__all__ = ["ESTIMATORS", "fit_system"]

#: Estimators accepted by :func:`fit_system`.
ESTIMATORS = ("bayesian", "mle")


def _labels(values: pd.Series) -> list[Any]:
    return sorted({str(v) for v in values.dropna().unique().tolist()})[:5]


def fit_system(
    system: System,
    data: pd.DataFrame,
    *,
    estimator: str = "bayesian",
    prior_type: str = "BDeu",
    equivalent_sample_size: float = 5,
    max_iter: int = 100,
    seed: int = 0,
) -> System:
    """Re-estimate a declared system's probabilities from data; its structure stays.

    Parameters
    ----------
    system : System
        The declared system (structure, roles, deterministic nodes, state names).
    data : pandas.DataFrame
        One row per instance, one column per observed node, values among the node's states
        (labels, compared as strings). Deterministic nodes' columns are ignored; stochastic
        nodes without a column are latent.
    estimator : {"bayesian", "mle"}
        pgmpy's ``BayesianEstimator`` (``prior_type``, ``equivalent_sample_size``) or
        ``MaximumLikelihoodEstimator``. With latent nodes: ``ExpectationMaximization``.
    max_iter, seed
        For expectation maximisation.

    Returns
    -------
    System
        A new system, roles and slot as before; the input is untouched.

    Raises
    ------
    ValidationError
        Unknown estimator, an empty frame, a column whose values are not the node's states
        (the message names the column and the values).
    NetworkStructureError
        A latent node with no observed child (nothing reveals it).

    Examples
    --------
    >>> import causalcost as cc
    >>> true = cc.load_network("majority3")
    >>> data = true.network.simulate(5000, seed=1, show_progress=False)
    >>> learned = fit_system(true, data)
    >>> rates, fitted = cc.error_rates(true), cc.error_rates(learned)
    >>> abs(rates.fn_forced_n - fitted.fn_forced_n) < 0.05
    True
    """
    if estimator not in ESTIMATORS:
        raise ValidationError(f"estimator ({estimator!r}) must be one of "
                              f"{', '.join(map(repr, ESTIMATORS))}")
    if not isinstance(data, pd.DataFrame) or data.empty:
        raise ValidationError("data must be a non-empty pandas DataFrame, one column per node")
    net = system.network
    cpds = {cpd.variable: cpd for cpd in net.get_cpds()}
    stochastic = [n for n in net.nodes if not system.is_deterministic(n)]
    observed = [n for n in net.nodes if n in data.columns]
    latent = [n for n in stochastic if n not in data.columns]
    for node in latent:
        if not any(m in data.columns for m in net.successors(node)):
            raise NetworkStructureError(f"latent node {node!r} has no observed child: the data "
                                        "cannot identify it; add a column for it")
    state_names = {n: [str(s) for s in cpds[n].state_names[n]] for n in net.nodes}
    frame = data[observed].astype(str)
    for node in observed:
        bad = ~frame[node].isin(state_names[node])
        if bad.any() or data[node].isna().any():
            raise ValidationError(
                f"column {node!r} holds values {_labels(data[node][bad | data[node].isna()])} "
                f"outside the node's states {state_names[node]}")
    # the sub-network that explains the data: everything but the slot's deterministic
    # consequences (fusioner, counts, confusion), which the system fixes
    keep = [n for n in net.nodes if n in stochastic or (n in observed and n not in
            (system.system_node, system.confusion_node))]
    model = DiscreteBayesianNetwork(
        [(u, v) for u, v in net.edges if u in keep and v in keep], latents=set(latent))
    model.add_nodes_from(keep)
    options: dict[str, Any] = (
        {"max_iter": max_iter, "seed": seed,
         "init_cpds": {n: cpds[n] for n in keep}} if latent
        else {"prior_type": prior_type, "equivalent_sample_size": equivalent_sample_size}
        if estimator == "bayesian" else {})
    fitted = estimate_cpds(model, frame[[n for n in observed if n in keep]],
                           estimator=estimator,
                           state_names={n: state_names[n] for n in keep},
                           latent_card={n: len(state_names[n]) for n in latent},
                           options=options)
    learned = net.copy()
    for cpd in fitted:
        if cpd.variable in stochastic:
            learned.add_cpds(_with_states(cpd, cpds[cpd.variable]))
    return System.from_pgmpy(learned, class_node=system.class_node,
                             system_node=system.system_node, slot=system.slot,
                             positive=system.positive, confusion_node=system.confusion_node,
                             models=system.models, name=f"{system.name} (learned)",
                             fusioner=system.fusioner)


def _with_states(fitted: Any, declared: Any) -> Any:
    """The fitted CPD with the declared CPD's variable order and original state labels."""
    fitted = fitted.copy()
    order = list(declared.variables)
    if list(fitted.variables) != order:
        fitted.reorder_parents(order[1:])
    names = {v: list(declared.state_names[v]) for v in order}
    as_text = {v: [str(s) for s in names[v]] for v in order}
    values = fitted.get_values()
    index = [_positions(list(map(str, fitted.state_names[v])), as_text[v]) for v in order]
    table = values.reshape([len(s) for s in as_text.values()])
    for axis, idx in enumerate(index):
        table = table.take(idx, axis=axis)
    result = declared.copy()
    result.values = table.reshape(declared.values.shape)
    result.state_names = names
    return result


def _positions(fitted: list[str], declared: list[str]) -> list[int]:
    """Where each declared state sits among the fitted ones; a latent node's states come back
    from expectation maximisation as 0..k-1, in the declared order."""
    if set(declared) <= set(fitted):
        return [fitted.index(s) for s in declared]
    return list(range(len(declared)))
