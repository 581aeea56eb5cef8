"""What the explorer's controls hold, read from a system, and the system they declare.

A system declared by its models' rates (each model depends on the class, two of them possibly
through a shared latent that correlates their correctness) and a fusioner can be rebuilt from
a handful of numbers: the class prior, each model's sensitivity and specificity, the latent's
two correlations and the fusioner's rule. :func:`explorer_settings` reads those numbers off
any such system (the shipped networks, or one made with :class:`~causalcost.SystemBuilder`);
:func:`declared_system` builds the system they describe. A system of another shape (a
population node, features between the class and the models) cannot be re-declared from
rates: its settings say so (``adjustable`` is False) and the explorer keeps the system as it
is while the costs, the candidate and the intervention still move.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Real

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import InputTypeError, ValidationError
from causalcost.explorer.labels import LabelExplorerSettings, label_explorer_settings
from causalcost.inference.exact import class_prior
from causalcost.network.builder import SystemBuilder
from causalcost.network.cpds import node_table, states_of
from causalcost.network.fusioners import Fusioner
from causalcost.network.system import System

__all__ = ["ExplorerSettings", "explorer_settings", "declared_system", "FUSIONER_CHOICES",
           "refuse_k_labels"]

#: The fusioner choices the explorer offers: the system's own rule, or a standard vote.
FUSIONER_CHOICES = ("as declared", "and", "or", "majority")


@dataclass(frozen=True)
class ExplorerSettings:
    """Everything the explorer's controls set.

    Attributes
    ----------
    class_prior : float
        ``P(Class = positive)``.
    rates : tuple of (str, float, float)
        ``(model, sensitivity, specificity)`` for each model, in the system's order.
    correlation : tuple of (str, str, float, float) or None
        ``(first, second, on positives, on negatives)``: the Pearson correlation of two models'
        correctness through their shared latent, when the system has one.
    fusioner : str
        One of :data:`FUSIONER_CHOICES`.
    costs : CostMatrix
        The system's cost matrix.
    candidate : Confusion
        The candidate model's confusion matrix (for the bound).
    high_confidence : bool
        Also show the worst case that holds with probability ``confidence`` on the
        candidate's own instances.
    confidence : float
    intervention : str
        The state the slot is forced to in the picture: ``"P"`` or ``"N"``.
    adjustable : bool
        Whether the rates, correlation, prior and fusioner can be changed (see the module
        notes); ``reason`` says why not.
    reason : str
    """

    class_prior: float
    rates: tuple[tuple[str, float, float], ...]
    correlation: tuple[str, str, float, float] | None
    fusioner: str
    costs: CostMatrix
    candidate: Confusion
    high_confidence: bool = False
    confidence: float = 0.95
    intervention: str = "P"
    adjustable: bool = True
    reason: str = ""

    def replace(self, **changes: object) -> ExplorerSettings:
        """A copy with ``changes`` (field names), checked.

        >>> import causalcost as cc
        >>> s = cc.explorer_settings(cc.load_network("thesis_and"))
        >>> s.replace(fusioner="or").fusioner
        'or'
        """
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValidationError(f"unknown explorer setting(s) {sorted(unknown)}; valid: "
                                  f"{[f.name for f in dataclasses.fields(self)]}")
        new = dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        new.check()
        return new

    def with_rate(self, model: str, *, sensitivity: float | None = None,
                  specificity: float | None = None) -> ExplorerSettings:
        """A copy with one model's rates changed."""
        names = [m for m, _, _ in self.rates]
        if model not in names:
            raise ValidationError(f"no model {model!r} among {names}")
        rates = tuple((m, se if m != model or sensitivity is None else float(sensitivity),
                       sp if m != model or specificity is None else float(specificity))
                      for m, se, sp in self.rates)
        return self.replace(rates=rates)

    def check(self) -> None:
        """Raise :class:`ValidationError` naming the first setting out of range or of the
        wrong shape (``rates`` must be ``(model, sensitivity, specificity)`` triples)."""
        _check_rates(self.rates)
        if self.adjustable:  # otherwise the system is kept as it is: its rates are not used
            _probability("class_prior", self.class_prior, open_interval=True)
            for m, se, sp in self.rates:
                _probability(f"sensitivity of {m!r}", se)
                _probability(f"specificity of {m!r}", sp)
        if self.correlation is not None:
            if not isinstance(self.correlation, tuple) or len(self.correlation) != 4:
                raise ValidationError(
                    f"correlation must be None or (first model, second model, on positives, "
                    f"on negatives), got {self.correlation!r}")
            for where, rho in zip(("positives", "negatives"), self.correlation[2:]):
                if not _is_real(rho) or not -1 <= rho <= 1:
                    raise ValidationError(f"correlation on {where} must lie in [-1, 1], "
                                          f"got {rho!r}")
        if self.fusioner not in FUSIONER_CHOICES:
            raise ValidationError(f"fusioner must be one of {FUSIONER_CHOICES}, got "
                                  f"{self.fusioner!r}")
        if not isinstance(self.costs, CostMatrix):
            raise ValidationError("costs must be a CostMatrix")
        if not isinstance(self.candidate, Confusion):
            raise ValidationError("candidate must be a Confusion")
        if self.intervention not in ("P", "N"):
            raise ValidationError(f"intervention must be 'P' or 'N', got {self.intervention!r}")
        for name in ("high_confidence", "adjustable"):
            if not isinstance(getattr(self, name), bool):
                raise ValidationError(f"{name} must be True or False, got "
                                      f"{getattr(self, name)!r}")
        _probability("confidence", self.confidence, open_interval=True)

    def declaration(self) -> tuple[object, ...]:
        """The part that defines the system (what a rebuild depends on)."""
        return (self.class_prior, self.rates, self.correlation, self.fusioner)


def _is_real(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _probability(name: str, value: float, *, open_interval: bool = False) -> None:
    ok = _is_real(value) and (0 < value < 1 if open_interval else 0 <= value <= 1)
    if not ok:
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise ValidationError(f"{name} must be a number in {interval}, got {value!r}")


def _check_rates(rates: object) -> None:
    """``rates`` is a tuple of ``(model name, sensitivity, specificity)`` triples."""
    shape = ("rates must be a tuple of (model, sensitivity, specificity) triples, one per "
             "model in the system's order (or use with_rate(model, sensitivity=...))")
    if not isinstance(rates, tuple):
        raise ValidationError(f"{shape}; got {type(rates).__name__} {rates!r}")
    for entry in rates:
        if not isinstance(entry, tuple) or len(entry) != 3 or not isinstance(entry[0], str):
            raise ValidationError(f"{shape}; got the entry {entry!r}")


# --------------------------------------------------------------------------- reading
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


def refuse_k_labels(system: object) -> None:
    """The explorer's controls are a positive class's sensitivity and specificity and the
    AND / OR / majority votes: refuse a system of more than two labels in one line.

    Examples
    --------
    >>> refuse_k_labels(object())  # no labels: nothing to refuse
    """
    labels = getattr(system, "labels", None)
    if labels is not None and len(labels) > 2:
        raise ValidationError(
            f"the explorer's controls (sensitivity and specificity per model, AND / OR / "
            f"majority) are for two labels, and this system has {len(labels)} "
            f"({', '.join(map(str, labels))}); price a K-label system with "
            "cc.interventional_table(system) and cc.evaluate / cc.compare on its sheet")


def explorer_settings(system: System, costs: CostMatrix | None = None,
                      candidate: Confusion | None = None,
                      ) -> ExplorerSettings | LabelExplorerSettings:
    """The explorer's settings for ``system``: its prior, rates, correlation and fusioner.

    Parameters
    ----------
    system : System
        A binary network, or a system declared by its labels
        (``SystemBuilder(prior, labels=[...])``, any K), whose settings are
        :class:`~causalcost.explorer.labels.LabelExplorerSettings` (class prior as K
        probabilities, each model's K x K confusion rates, the fusion rule and its options,
        K x K costs, the candidate's K x K confusion).
    costs : CostMatrix, optional
        Defaults to unit costs for every error.
    candidate : Confusion, optional
        Defaults to a candidate with the slot model's own rates on 1,000 instances drawn at
        the class prior.

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
    if isinstance(system, System) and system.declaration is not None:
        return label_explorer_settings(system, costs, candidate)
    refuse_k_labels(system)
    if not isinstance(system, System):
        raise InputTypeError(f"system must be a causalcost System, got {type(system).__name__}")
    slot = system.require_slot()
    net = system.graph
    rates: list[tuple[str, float, float]] = []
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
        rates.append((m, round(float(given[0]), 12), round(float(1 - given[1]), 12)))
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
    if candidate is None:
        se, sp = next((se, sp) for m, se, sp in rates if m == slot)
        pos = round(1000 * prior)
        neg = 1000 - pos
        se, sp = (0.8, 0.8) if np.isnan(se) else (se, sp)
        candidate = Confusion(tp=round(se * pos), fn=pos - round(se * pos),
                              fp=neg - round(sp * neg), tn=round(sp * neg))
    settings = ExplorerSettings(
        class_prior=prior, rates=tuple(rates), correlation=correlation, fusioner="as declared",
        costs=costs if costs is not None else CostMatrix(fn=1, fp=1), candidate=candidate,
        adjustable=not reason,
        reason=(f"{reason}: only the costs, the candidate and the intervention can change"
                if reason else ""))
    settings.check()
    return settings


# --------------------------------------------------------------------------- building
def declared_system(base: System, settings: ExplorerSettings) -> System:
    """The system ``settings`` declare, built with :class:`~causalcost.SystemBuilder`.

    ``base`` gives the names, the slot and (for ``fusioner="as declared"``) the rule. An
    unadjustable setting returns ``base`` itself.

    Raises
    ------
    ValidationError
        A correlation the two models' rates cannot reach (the message gives the range).
    """
    if not settings.adjustable:
        return base
    builder = SystemBuilder(class_prior=settings.class_prior, class_node=base.class_node,
                            positive=str(base.positive), negative=str(base.negative()),
                            name=base.name)
    pair = settings.correlation
    rates = {m: (se, sp) for m, se, sp in settings.rates}
    for m, se, sp in settings.rates:
        if pair is not None and m == pair[1]:
            continue
        if pair is not None and m == pair[0]:
            a, b = pair[0], pair[1]
            builder.add_correlated_models(
                a, b, sensitivity=(rates[a][0], rates[b][0]),
                specificity=(rates[a][1], rates[b][1]),
                correlation_positive=pair[2], correlation_negative=pair[3])
        else:
            builder.add_model(m, sensitivity=se, specificity=sp)
    _set_fusioner(builder, base.fusioner, settings.fusioner, [m for m, _, _ in settings.rates],
                  base.system_node)
    return builder.build(slot=base.require_slot())


def _set_fusioner(builder: SystemBuilder, own: Fusioner | None, choice: str,
                  models: list[str], name: str) -> None:
    if choice != "as declared":
        builder.set_fusioner(choice, name=name, inputs=models)  # majority: a tie is negative
        return
    assert own is not None
    if own.rule in ("and", "or") or (own.rule == "majority" and len(own.inputs) % 2):
        builder.set_fusioner(own.rule, name=name, inputs=list(own.inputs))
    elif own.is_vote:  # the same decisions, from the rule's vote form
        assert own.exact_weights is not None
        builder.set_fusioner("weighted", name=name, inputs=list(own.inputs),
                             weights=dict(zip(own.inputs, own.exact_weights)),
                             threshold=own.exact_threshold)
    else:
        inputs = list(own.inputs)
        builder.set_fusioner("function", name=name, inputs=inputs,
                             function=lambda **votes: own(tuple(votes[m] for m in inputs)))
