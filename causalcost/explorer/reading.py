"""The explorer's settings read off a system (:func:`explorer_settings`), for any K.

A binary network's models are read through their class-given rates (directly, or through one
latent whose only parent is the class, which may correlate two models' correctness); a system
declared by its labels gives its declaration (prior, each model's rates, latents, rule).

Examples
--------
>>> import numpy as np, causalcost as cc
>>> eye = np.eye(3)
>>> system = (cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
...           .add_model("a", confusion=0.9 * eye + 0.05 * (1 - eye))
...           .add_model("b", confusion=0.8 * eye + 0.1 * (1 - eye))
...           .add_model("c", confusion=0.7 * eye + 0.15 * (1 - eye))
...           .set_fusioner("plurality", tie="slot").build(slot="c"))
>>> s = cc.explorer_settings(system)
>>> s.class_prior, s.fusioner, s.fusioner_options
((0.6, 0.3, 0.1), 'plurality', (('tie', 'slot'),))
>>> s.with_accuracy("a", "covid", 0.6).confusion_of("a")[2]
(0.2, 0.2, 0.6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.confusion import Confusion, CostMatrix, as_costs
from causalcost.errors import InputTypeError, ValidationError
from causalcost.explorer.settings import (
    LABEL_FUSIONER_CHOICES,
    ExplorerSettings,
    as_matrix,
    binary_rates,
)
from causalcost.inference.exact import class_prior
from causalcost.network.cpds import node_table, states_of
from causalcost.network.scores import refuse_score_system
from causalcost.network.system import System

__all__ = ["explorer_settings", "refuse_k_labels"]

_ONLY = ": only the costs, the candidate and the intervention can change"


def explorer_settings(system: System, costs: Any = None, candidate: Any = None,
                      ) -> ExplorerSettings:
    """The explorer's settings for ``system``: its prior, rates, latents and fusioner.

    Parameters
    ----------
    system : System
        A binary network, or a system declared by its labels
        (``SystemBuilder(prior, labels=[...])``, any K).
    costs : CostMatrix or (K, K) array-like, optional
        Default: 1 for every mistake.
    candidate : Confusion or (K, K) array-like, optional
        Default: the slot model's own rates on 1,000 instances drawn at the class prior.

    Examples
    --------
    >>> import causalcost as cc
    >>> s = cc.explorer_settings(cc.load_network("experiment_or"))
    >>> s.rates, s.correlation
    ((('images', 0.5, 0.5), ('clinical_history', 0.5, 0.5)), \
('images', 'clinical_history', 0.95, -0.95))
    >>> cc.explorer_settings(cc.load_network("population_and")).reason
    "the class node 'Class' has parents (['Population']): only the costs, the candidate and the \
intervention can change"
    """
    by_labels = isinstance(system, System) and system.declaration is not None
    refuse_score_system(system, "the explorer", "its table over the slot's score bins is "
                        "cc.interventional_table(system), and a candidate's scores are priced "
                        "by a score sheet (cc.sheet_from_data on a log of scores)")
    if not by_labels:
        refuse_k_labels(system)
        if not isinstance(system, System):
            raise InputTypeError(f"system must be a causalcost System, got "
                                 f"{type(system).__name__}")
    slot = system.require_slot()
    if by_labels:
        read = _declared(system)
    else:
        read = _network(system)
    labels = read["labels"]
    k = len(labels)
    costs = as_costs(CostMatrix(1 - np.eye(k), labels=list(labels)) if costs is None and
                     by_labels else CostMatrix(fn=1, fp=1) if costs is None else costs,
                     list(labels) if by_labels else None)
    if candidate is None:
        candidate = _default_candidate(read["prior"], dict(read["confusions"])[slot], labels,
                                       by_labels)
    elif not isinstance(candidate, Confusion):
        candidate = Confusion(candidate, labels=list(labels))
    elif by_labels:
        candidate = candidate.reorder(labels)
    reason = read["reason"]
    settings = ExplorerSettings(
        labels=labels, class_prior=read["class_prior"], confusions=read["confusions"],
        fusioner=read["fusioner"], costs=costs, candidate=candidate, intervention=labels[0],
        fusioner_options=read.get("options", ()), correlation=read.get("correlation"),
        adjustable=not reason, reason=f"{reason}{_ONLY}" if reason else "",
        fixed=read.get("fixed", ()), by_labels=by_labels)
    settings.check()
    return settings


def _default_candidate(prior: np.ndarray, rates: Any, labels: tuple[str, ...],
                       by_labels: bool) -> Confusion:
    """The slot model's own rates on 1,000 instances drawn at the class prior (rows keep
    their size); unreadable binary rates stand in as 0.8."""
    rates = np.asarray(rates, dtype=float)
    if not by_labels:  # the binary rule, as it always was: round se x positives
        se, sp = (0.8, 0.8) if np.isnan(rates[0, 0]) else (rates[0, 0], rates[1, 1])
        pos = round(1000 * float(prior[0]))
        neg = 1000 - pos
        return Confusion(tp=round(se * pos), fn=pos - round(se * pos),
                         fp=neg - round(sp * neg), tn=round(sp * neg))
    k = len(labels)
    sizes = np.round(1000 * prior)
    counts = np.round(sizes[:, None] * rates)
    counts[np.arange(k), np.arange(k)] += sizes - counts.sum(axis=1)
    return Confusion(np.maximum(counts, 0), labels=list(labels))


def refuse_k_labels(system: object) -> None:
    """A network of more than two labels that was not declared by its labels has no
    settings the explorer can move: refuse it in one line.

    >>> refuse_k_labels(object())  # no labels: nothing to refuse
    """
    labels = getattr(system, "labels", None)
    if labels is not None and len(labels) > 2:
        raise ValidationError(
            f"the explorer reads a system of {len(labels)} labels ({', '.join(map(str, labels))}) "
            "from its declaration: declare it with cc.SystemBuilder(prior, labels=[...]), or "
            "price it with cc.interventional_table(system) and cc.evaluate / cc.compare")


# ------------------------------------------------------------------- a declared system
def _declared(system: System) -> dict[str, Any]:
    d = system.declaration
    assert d is not None
    labels = tuple(map(str, d.labels))
    rule, options = _options_of(system)
    reason = ""
    if system.fusioner is None or system.fusioner.rule == "table":
        reason = "the system node is a probability table, not a fusion rule"
    prior = np.asarray(d.class_prior, dtype=float)
    return {"labels": labels, "class_prior": tuple(float(v) for v in d.class_prior),
            "prior": prior, "fusioner": rule, "options": options, "reason": reason,
            "confusions": tuple((m.name, as_matrix(np.round(_marginal(system, m), 12)))
                                for m in d.members),
            "fixed": tuple(m.name for m in d.members if m.latent is not None)}


def _options_of(system: System) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """The rule and the options that declare ``system``'s fusioner again."""
    f = system.fusioner
    labels = tuple(map(str, system.labels))
    if f is None or f.rule not in LABEL_FUSIONER_CHOICES or (
            f.rule == "weighted" and f.threshold is not None):
        return "as declared", ()
    options: list[tuple[str, Any]] = []
    if f.rule in ("plurality", "weighted"):
        tie = f.tie if f.tie == "slot" else tuple(labels[i] for i in f.tie)
        if tie == "slot" or tie != labels:
            options.append(("tie", tie))
    if f.rule == "weighted":
        weights = f.exact_weights if f.exact_weights is not None else f.weights
        options.append(("weights", tuple((m, w) for m, w in zip(f.models, weights))))
    if f.rule == "priority":
        options.append(("order", tuple(labels[i] for i in f.order)))
    if f.rule == "k_of_n":
        options += [("label", labels[f.label]), ("k", f.k)]
    return f.rule, tuple(options)


def _marginal(system: System, member: Any) -> np.ndarray:
    if member.latent is None:
        return np.asarray(member.rates[:, 0, :], dtype=float)
    lat = next(x for x in system.latents if x.name == member.latent)
    return np.einsum("cz,czj->cj", lat.probabilities, member.rates)


# --------------------------------------------------------------------- a binary network
def _network(system: System) -> dict[str, Any]:
    net = system.graph
    confusions = []
    reason = ""
    class_parents = list(net.get_parents(system.class_node))
    if class_parents:
        reason = f"the class node {system.class_node!r} has parents ({class_parents})"
    for m in system.models:
        given = _class_given(system, m)
        if given is None:
            reason = reason or (f"model {m!r} depends on {list(net.get_parents(m))}, not on "
                                "the class (and a latent)")
            given = np.array([np.nan, np.nan])
        confusions.append((m, binary_rates(round(float(given[0]), 12),
                                           round(float(1 - given[1]), 12))))
    latents: dict[str, list[str]] = {}
    for m in system.models:
        for p in net.get_parents(m):
            if p != system.class_node:
                latents.setdefault(p, []).append(m)
    correlation = None
    shared = [(lat, ms) for lat, ms in latents.items() if len(ms) == 2]
    if not reason and (len(shared) > 1 or any(len(ms) > 2 for ms in latents.values())):
        reason = "more than two models share latents"
    if shared and not reason:
        latent, (a, b) = shared[0]
        rho = _correctness_correlation(system, a, b, latent)
        correlation = (a, b, round(rho[0], 9), round(rho[1], 9))
    elif latents and not reason:
        reason = f"model(s) {sorted(m for ms in latents.values() for m in ms)} depend on a " \
                 "latent no other model shares"
    if system.fusioner is None and not reason:
        reason = "the fusioner is not a rule over the models"
    prior = class_prior(system)
    return {"labels": ("P", "N"), "class_prior": prior, "prior": np.array([prior, 1 - prior]),
            "confusions": tuple(confusions), "fusioner": "as declared",
            "correlation": correlation, "reason": reason}


def _class_given(system: System, node: str) -> np.ndarray | None:
    """``P(node = positive | Class)`` as ``[given P, given N]`` when ``node`` depends on the
    class directly, or through one latent whose only parent is the class; else None."""
    net, cls = system.graph, system.class_node
    parents = list(net.get_parents(node))
    cpd = net.get_cpds(node)
    table = node_table(cpd)
    pos_row = list(states_of(net, node)).index(system.positive)
    class_col = [list(states_of(net, cls)).index(s) for s in (system.positive, system.negative())]
    if parents == [cls]:
        return table[pos_row, class_col]
    if len(parents) != 2 or cls not in parents:
        return None
    latent = next(p for p in parents if p != cls)
    if list(net.get_parents(latent)) != [cls]:
        return None
    prior = node_table(net.get_cpds(latent))[:, class_col]  # [latent state, class]
    order = cpd.variables[1:]
    cards = [len(states_of(net, p)) for p in order]
    grid = table[pos_row].reshape(cards)
    if order[0] != cls:
        grid = grid.T  # -> [class, latent]
    return np.einsum("cl,lc->c", grid[class_col], prior)


def _correctness_correlation(system: System, a: str, b: str, latent: str) -> tuple[float, float]:
    """Per-class Pearson correlation of the correctness of ``a`` and ``b`` sharing ``latent``."""
    net, cls = system.graph, system.class_node
    class_states = list(states_of(net, cls))
    out = []
    for c, truth in ((system.positive, True), (system.negative(), False)):
        ci = class_states.index(c)
        prior = node_table(net.get_cpds(latent))[:, ci]
        right = []
        for m in (a, b):
            cpd = net.get_cpds(m)
            order = cpd.variables[1:]
            cards = [len(states_of(net, p)) for p in order]
            pos = node_table(cpd)[list(states_of(net, m)).index(system.positive)].reshape(cards)
            column = pos[ci] if order[0] == cls else pos[:, ci]
            right.append(column if truth else 1 - column)
        pa, pb = (float(prior @ r) for r in right)
        joint = float(prior @ (right[0] * right[1]))
        spread = np.sqrt(pa * (1 - pa) * pb * (1 - pb))
        out.append(0.0 if spread < 1e-12 else float((joint - pa * pb) / spread))
    return out[0], out[1]
