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
from collections.abc import Mapping
from numbers import Real
from typing import Any

import pandas as pd

from causalcost.errors import (
    DataError,
    InputTypeError,
    NetworkStructureError,
    NoDataWarning,
    UnknownNameError,
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


def fit_system(
    system: System,
    data: pd.DataFrame,
    *,
    estimator: str = "bayesian",
    prior_type: str = "BDeu",
    equivalent_sample_size: float = 5,
    max_iter: int = 100,
    seed: int = 0,
    state_names: Mapping[str, Mapping[Any, str]] | None = None,
) -> System:
    """Re-estimate a declared system's probabilities from data; its structure stays.

    Parameters
    ----------
    system : System
        The declared system (structure, roles, deterministic nodes, state names).
    data : pandas.DataFrame
        One row per instance, one column per observed node, values among the node's states.
        A value is read as the state it spells: ``str(value)``, or ``str(value).strip()``,
        equal to the state's name (``"P "`` is ``"P"``; the number ``1`` is a state named
        ``"1"``). Nothing else is guessed: ``1``/``0``, ``True``/``False`` or ``"p"``/``"n"``
        for states ``"P"``/``"N"`` are refused until ``state_names`` (or the caller) says
        which is which. Deterministic nodes' columns are ignored; stochastic nodes without a
        column are latent.
    estimator : {"bayesian", "mle"}
        pgmpy's ``BayesianEstimator`` (``prior_type``, ``equivalent_sample_size``) or
        ``MaximumLikelihoodEstimator``. With latent nodes: ``ExpectationMaximization``.
    prior_type : {"BDeu", "K2"}
        The Bayesian estimator's prior (case-insensitive, as pgmpy).
    equivalent_sample_size : float
        The BDeu prior's weight, in rows (> 0).
    max_iter, seed
        For expectation maximisation: ``max_iter`` >= 1, ``seed`` an integer.
    state_names : mapping, optional
        ``{column: {value: state}}``: the states that a column's values stand for, e.g.
        ``{"images": {1: "P", 0: "N"}}``. Values of the column not in its mapping are read as
        above. Each ``state`` must be one of the node's states.

    Returns
    -------
    System
        A new system, roles and slot as before, named ``"<name> (learned from N rows)"``;
        the input is untouched.

    Raises
    ------
    InputTypeError
        ``system`` is not a :class:`System`, ``data`` not a DataFrame, or ``state_names`` not
        a mapping of mappings.
    DataError
        A column with values (or nulls) that are not the node's states: one line naming the
        column, a few of those values, the node's states and the fix (map the column, or
        ``state_names``).
    ValidationError
        Unknown estimator or prior, ``equivalent_sample_size`` <= 0, ``max_iter`` < 1, an
        empty frame, ``state_names`` naming a column that is not an observed node
        (:class:`~causalcost.errors.UnknownNameError`) or mapping a value to a non-state.
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

    A column spelled otherwise than the states is refused until the mapping is said:

    >>> spelled = data.assign(images=data["images"] == "P")  # True / False
    >>> fit_system(true, spelled)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: column 'images' holds values [False, True] that are not ...
    >>> said = fit_system(true, spelled, state_names={"images": {True: "P", False: "N"}})
    >>> cc.error_rates(said) == fitted
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
    names = {n: [str(s) for s in cpds[n].state_names[n]] for n in net.nodes}
    spellings = _check_spellings(state_names, observed, names)
    frame = pd.DataFrame({node: _as_states(data[node], node, names[node], spellings.get(node))
                          for node in observed}, index=data.index)
    _warn_empty_columns(system, frame, names, latent, estimator, prior_type)
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
                           state_names={n: names[n] for n in keep},
                           latent_card={n: len(names[n]) for n in latent},
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


def _check_spellings(given: object, observed: list[str],
                     states: dict[str, list[str]]) -> dict[str, Mapping[Any, str]]:
    """``state_names`` checked: columns that are observed nodes, each a mapping to states."""
    if given is None:
        return {}
    example = "e.g. {'images': {1: 'P', 0: 'N'}}"
    if not isinstance(given, Mapping):
        raise InputTypeError(f"state_names must map a column to a mapping {{value: state}} "
                             f"({example}), got {type(given).__name__}")
    for column, mapping in given.items():
        if column not in observed:
            raise UnknownNameError(f"state_names names {column!r}, which is not a column of "
                                   f"data that is a node; such columns: {observed}")
        if not isinstance(mapping, Mapping):
            raise InputTypeError(f"state_names[{column!r}] must be a mapping {{value: state}} "
                                 f"({example}), got {type(mapping).__name__}")
        for value, state in mapping.items():
            if str(state) not in states[column]:
                raise ValidationError(
                    f"state_names[{column!r}] maps {value!r} to {state!r}, which is not a state "
                    f"of node {column!r}; its states are {states[column]}")
    return dict(given)


def _as_states(column: pd.Series, node: str, states: list[str],
               mapping: Mapping[Any, str] | None) -> pd.Series:
    """The column as the node's state names: through ``mapping`` first, then every value whose
    ``str()`` (or ``str().strip()``) is a state's name; anything else refused."""
    values = column if not mapping else column.map(lambda v: _mapped(mapping, v))
    text = values.astype(str)
    known = text.isin(states) & values.notna()
    if not known.all():
        text = text.where(known, text.str.strip())
        known = text.isin(states) & values.notna()
    if not known.all():
        raise DataError(_not_states(column[~known], node, states))
    return text


def _mapped(mapping: Mapping[Any, str], value: Any) -> Any:
    try:
        return str(mapping[value]) if value in mapping else value
    except TypeError:  # an unhashable value: not in the mapping
        return value


def _not_states(bad: pd.Series, node: str, states: list[str]) -> str:
    """One line: the column, a few of its values that are not states (and its nulls), the
    states, the fix."""
    found = [v.item() if hasattr(v, "item") else v  # numpy scalars as Python's
             for v in pd.unique(bad.dropna().astype(object)).tolist()]
    found.sort(key=lambda v: (type(v).__name__, str(v)))
    nulls = int(bad.isna().sum())
    shown = ", ".join(repr(v) for v in found[:5]) + (
        f", ... ({len(found)} distinct)" if len(found) > 5 else "")
    said = ", ".join(f"{v!r}: ..." for v in found[:3]) + (", ..." if len(found) > 3 else "")
    held = " and ".join(([f"values [{shown}]"] if found else [])
                        + ([f"{nulls:,} null(s)"] if nulls else []))
    fixes = ([f"say which state each stands for: data[{node!r}].map({{{said}}}) or "
              f"state_names={{{node!r}: {{{said}}}}}"] if found else []) + (
        [f"drop the null rows (data.dropna(subset=[{node!r}])) or fill them with a state"]
        if nulls else [])
    return (f"column {node!r} holds {held} that are not states of node {node!r} {states} "
            f"({len(bad):,} row(s)); {'; '.join(fixes)}")


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
