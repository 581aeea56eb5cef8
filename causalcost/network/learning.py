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

import math
import warnings
from numbers import Real
from typing import Any

import pandas as pd

from causalcost.errors import (
    InputTypeError,
    NetworkStructureError,
    NoDataWarning,
    ValidationError,
)
from causalcost.network._pgmpy import DiscreteBayesianNetwork, estimate_cpds
from causalcost.network.system import System

__all__ = ["ESTIMATORS", "PRIOR_TYPES", "fit_system"]

#: Estimators accepted by :func:`fit_system`.
ESTIMATORS = ("bayesian", "mle")
#: Priors of the Bayesian estimator (pgmpy's names; ``"dirichlet"`` needs pseudo-counts that
#: :func:`fit_system` does not take).
PRIOR_TYPES = ("BDeu", "K2")


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
    prior_type : {"BDeu", "K2"}
        The Bayesian estimator's prior (case-insensitive, as pgmpy).
    equivalent_sample_size : float
        The BDeu prior's weight, in rows (> 0).
    max_iter, seed
        For expectation maximisation: ``max_iter`` >= 1, ``seed`` an integer.

    Returns
    -------
    System
        A new system, roles and slot as before, named ``"<name> (learned from N rows)"``;
        the input is untouched.

    Raises
    ------
    InputTypeError
        ``system`` is not a :class:`System` or ``data`` not a DataFrame.
    ValidationError
        Unknown estimator or prior, ``equivalent_sample_size`` <= 0, ``max_iter`` < 1, an
        empty frame, a column whose values are not the node's states (the message names the
        column and the values).
    NetworkStructureError
        A latent node with no observed child (nothing reveals it).

    Warns
    -----
    NoDataWarning
        A CPD column had no rows (say the data hold one class only: every model's column for
        the other class): its probabilities are the prior alone (BDeu / K2: uniform) or, with
        ``"mle"``, pgmpy's uniform fill, not learned. One warning names every such column
        (node and the parents' states, e.g. model ``'images'``, class state ``'N'``); rates
        that depend on them are not measured. Observed nodes with a latent parent are not
        checked (expectation maximisation spreads the rows over the latent's states).

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
    _check_options(system, data, estimator, prior_type, equivalent_sample_size, max_iter, seed)
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
    _warn_empty_columns(system, frame, state_names, latent, estimator, prior_type)
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
                             models=system.models,
                             name=f"{system.name} (learned from {len(data):,} rows)",
                             fusioner=system.fusioner)


def _check_options(system: Any, data: Any, estimator: Any, prior_type: Any, ess: Any,
                   max_iter: Any, seed: Any) -> None:
    """Refuse what pgmpy would answer with a bare ValueError, UnboundLocalError or a silently
    wrong fit; each message names the argument."""
    if not isinstance(system, System):
        raise InputTypeError(f"system must be a causalcost System (e.g. load_network(...) or "
                             f"SystemBuilder(...).build()), got {type(system).__name__}")
    if not isinstance(data, pd.DataFrame):
        raise InputTypeError(f"data must be a pandas DataFrame, one column per node, got "
                             f"{type(data).__name__}")
    if data.empty:
        raise ValidationError("data must be a non-empty pandas DataFrame, one column per node")
    if estimator not in ESTIMATORS:
        raise ValidationError(f"estimator ({estimator!r}) must be one of "
                              f"{', '.join(map(repr, ESTIMATORS))}")
    if not isinstance(prior_type, str) or prior_type.lower() not in {
            p.lower() for p in PRIOR_TYPES}:
        raise ValidationError(f"prior_type ({prior_type!r}) must be one of "
                              f"{', '.join(map(repr, PRIOR_TYPES))}")
    if (isinstance(ess, bool) or not isinstance(ess, Real) or not math.isfinite(ess)
            or ess <= 0):
        raise ValidationError(f"equivalent_sample_size ({ess!r}) must be a finite number > 0 "
                              "(the BDeu prior's weight, in rows)")
    for name, value, low in (("max_iter", max_iter, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValidationError(f"{name} ({value!r}) must be an integer >= {low}")


def _warn_empty_columns(system: System, frame: pd.DataFrame, state_names: dict[str, list[str]],
                        latent: list[str], estimator: str, prior_type: str) -> None:
    """One :class:`NoDataWarning` naming every CPD column no row of ``frame`` falls in."""
    net = system.network
    empty = []
    for node in frame.columns:
        if system.is_deterministic(node):
            continue
        parents = list(net.predecessors(node))
        if not parents or any(p in latent or p not in frame.columns for p in parents):
            continue  # a root has rows (data is not empty); latent parents: EM spreads them
        seen = set(frame[parents].itertuples(index=False, name=None))
        grid = pd.MultiIndex.from_product([state_names[p] for p in parents]).tolist()
        for states in grid:
            states = states if isinstance(states, tuple) else (states,)
            if states not in seen:
                empty.append(_column_name(system, node, dict(zip(parents, states, strict=True))))
    if not empty:
        return
    fill = ("pgmpy's uniform fill" if estimator == "mle"
            else f"the {prior_type} prior alone (uniform)")
    shown = "; ".join(empty[:8]) + (f"; and {len(empty) - 8} more" if len(empty) > 8 else "")
    warnings.warn(
        f"fit_system: data has no rows for {len(empty)} CPD column(s), whose probabilities "
        f"are therefore {fill}, not learned: {shown}. Rates that depend on them are not "
        "measured: add rows for those states (e.g. instances of the missing class) or keep "
        "the declared system", NoDataWarning, stacklevel=3)


def _column_name(system: System, node: str, parents: dict[str, str]) -> str:
    """``model 'images', class state 'N'`` for a model given the class; generic otherwise."""
    if node in system.models and list(parents) == [system.class_node]:
        return f"model {node!r}, class state {parents[system.class_node]!r}"
    kind = "model" if node in system.models else "node"
    given = ", ".join(f"{p}={s!r}" for p, s in parents.items())
    return f"{kind} {node!r}" + (f" given {given}" if given else "")


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
