"""The system an explorer's settings declare (:func:`declared_system`), for any K.

A binary network is rebuilt with the binary :class:`~causalcost.SystemBuilder` (each model's
sensitivity and specificity, the correlated pair through its latent, the rule); a system
declared by its labels with ``SystemBuilder(prior, labels=[...])`` (each model's confusion
rates, its latents and the rates per latent state of the models that depend on them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.explorer.settings import ExplorerSettings
from causalcost.network.builder import SystemBuilder
from causalcost.network.fusioners import Fusioner
from causalcost.network.system import System

__all__ = ["declared_system"]


def declared_system(base: System, settings: ExplorerSettings) -> System:
    """The system ``settings`` declare.

    ``base`` gives the names, the slot, the latents of a system declared by its labels and
    (for ``fusioner="as declared"``) the rule. An unadjustable setting returns ``base``
    itself.

    Raises
    ------
    ValidationError
        A correlation the two models' rates cannot reach (the message gives the range).

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("thesis_and")
    >>> s = cc.explorer_settings(system).with_rate("images", sensitivity=0.6)
    >>> cc.error_rates(declared_system(system, s)).fn_forced_p
    0.4
    """
    if not settings.adjustable:
        return base
    if settings.by_labels:
        builder = _labels_builder(base, settings)
    else:
        builder = _binary_builder(base, settings)
    return builder.build(slot=base.require_slot())


def _labels_builder(base: System, settings: ExplorerSettings) -> SystemBuilder:
    d = base.declaration
    assert d is not None
    builder = SystemBuilder(list(settings.prior), labels=list(settings.labels),
                            class_node=base.class_node, system_node=base.system_node,
                            name=base.name)
    for lat in d.latents:
        builder.add_latent(lat.name, list(lat.states), lat.probabilities)
    rates = dict(settings.confusions)
    for m in d.members:
        if m.latent is None:
            builder.add_model(m.name, confusion=np.asarray(rates[m.name]))
        else:
            builder.add_model(m.name, confusion={z: m.rates[:, i, :] for i, z in enumerate(
                next(x for x in d.latents if x.name == m.latent).states)}, latent=m.latent)
    if settings.fusioner == "as declared":
        own = base.fusioner
        assert own is not None
        inputs, names = list(own.models), list(own.labels)
        at = inputs.index(base.slot) if base.slot in inputs else None

        def rule(**votes: Any) -> Any:
            index = tuple(names.index(votes[m]) for m in inputs)
            return names[own.output(index, None if at is None else index[at])]

        builder.set_fusioner(rule)
    else:
        options = dict(settings.fusioner_options)
        if "weights" in options and not isinstance(options["weights"], dict):
            options["weights"] = dict(options["weights"])
        if isinstance(options.get("tie"), tuple):
            options["tie"] = list(options["tie"])
        builder.set_fusioner(settings.fusioner, **options)
    return builder


def _binary_builder(base: System, settings: ExplorerSettings) -> SystemBuilder:
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
    return builder


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
