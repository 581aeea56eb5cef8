"""Declare a classifier system and get a validated pgmpy network back.

>>> import causalcost as cc
>>> system = (
...     cc.SystemBuilder(class_prior=1/3)
...     .add_model("images", sensitivity=0.8, specificity=0.8)
...     .add_model("clinical_history", sensitivity=0.5, specificity=0.5)
...     .set_fusioner("and")
...     .build(slot="clinical_history")
... )
>>> sorted(system.network.nodes())
['Class', 'Confusion', 'Fusioner', 'clinical_history', 'images']

Conditional tables are written the way people read them: **one row per configuration of the
parents** (``itertools.product`` order over the parents' states, first parent slowest), each
row a distribution over the node's states. Every row is validated when it is added.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from causalcost.errors import CPDError, NetworkStructureError, UnknownNameError, ValidationError
from causalcost.network.correlation import correlated_correctness
from causalcost.network.divorce import NodeTable as _Node
from causalcost.network.divorce import fusioner_nodes, should_divorce
from causalcost.network.fusioners import Fusioner, make_fusioner
from causalcost.network.labelled import LabelledDeclaration
from causalcost.network.scores import (
    SCORE_FUSIONERS,
    ScoreBins,
    ScoreFusioner,
    score_bins,
    score_fusioner,
)
from causalcost.network.tables import (
    check_distributions,
    check_row_count,
    complement,
    declaration,
    pair,
    probability,
)

if TYPE_CHECKING:  # pgmpy loads with build(), not with the declarations
    from causalcost.network.system import System

__all__ = ["SystemBuilder"]


class SystemBuilder:
    """Fluent declaration of a system: class, optional population/features/latents, models,
    fusioner. :meth:`build` returns a validated :class:`~causalcost.System`.

    Parameters
    ----------
    class_prior : float, optional
        ``P(Class = positive)``. Omit it when the class depends on a population
        (:meth:`add_population`).
    class_node : str
        Name of the class node.
    positive, negative : str
        State names of the positive and negative class (and of every model's prediction).
    name : str
        Label of the system in reports.

    Examples
    --------
    Three models voting by majority:

    >>> import causalcost as cc
    >>> b = cc.SystemBuilder(class_prior=0.3)
    >>> for m in ("a", "b", "c"):
    ...     _ = b.add_model(m, sensitivity=0.9, specificity=0.8)
    >>> cc.error_rates(b.set_fusioner("majority").build(slot="c"))
    ErrorRates(e_P(P)=0.01, e_P(N)=0.19, e_N(P)=0.36, e_N(N)=0.04)
    """

    def __init__(
        self,
        class_prior: float | Sequence[float] | None = None,
        *,
        class_node: str = "Class",
        positive: str = "P",
        negative: str = "N",
        name: str = "system",
        labels: Sequence[object] | None = None,
        system_node: str = "System",
    ) -> None:
        self._labelled: LabelledDeclaration | None = None
        if labels is not None:
            if (positive, negative) != ("P", "N"):
                raise ValidationError("positive=/negative= name the two states of a binary "
                                      "system; with labels=[...] the labels name them all "
                                      "(drop positive=/negative=)")
            self._labelled = LabelledDeclaration(class_prior, labels,  # type: ignore[arg-type]
                                                 class_node=class_node,
                                                 system_node=system_node, name=name)
            return
        if isinstance(class_prior, (list, tuple, np.ndarray)):
            raise ValidationError("class_prior is one probability P(Class = positive) for a "
                                  "binary system; give labels=[...] for one probability per "
                                  "label")
        for label, value in (("class_node", class_node), ("positive", positive),
                             ("negative", negative), ("name", name)):
            if not isinstance(value, str) or not value:
                raise ValidationError(f"{label} must be a non-empty string, got {value!r}")
        if positive == negative:
            raise ValidationError("positive and negative state names must differ")
        self._class_node = str(class_node)
        self._states = (str(positive), str(negative))
        self._name = str(name)
        self._nodes: dict[str, _Node] = {}
        self._models: list[str] = []
        self._fusioner: list[_Node] | None = None  # the count nodes, then the fusioner node
        self._rule: Fusioner | ScoreFusioner | None = None
        self._scores: dict[str, ScoreBins] = {}  # score models: their bins
        self._class_prior = (
            None if class_prior is None else probability("class_prior", class_prior)
        )

    @property
    def models(self) -> tuple[str, ...]:
        """The models declared so far, in order."""
        if self._labelled is not None:
            return tuple(m.name for m in self._labelled.models)
        return tuple(self._models)

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels: ``labels=`` as given, or ``(positive, negative)``."""
        if self._labelled is not None:
            return self._labelled.labels
        return self._states

    def _binary_only(self, what: str, instead: str) -> None:
        if self._labelled is not None:
            raise ValidationError(f"{what} declares a binary network; with labels=[...] "
                                  f"use {instead}")

    def add_latent(self, name: str, states: Sequence[str],
                   probabilities: Sequence[Sequence[float]] | Sequence[float] | np.ndarray,
                   *, parents: Sequence[str] = ()) -> SystemBuilder:
        """Add a latent node (e.g. a difficulty) that correlates the models' errors.

        With ``labels=``: ``probabilities`` is one distribution over ``states`` (a root) or
        one row per label (``P(latent | Class = label)``). Without: as :meth:`add_node`.
        """
        if self._labelled is None:
            return self.add_node(name, states, probabilities, parents=parents)
        if parents:
            raise ValidationError("with labels=[...] a latent's parent is the class (give one "
                                  "row per label) or none; drop parents=")
        self._labelled.add_latent(name, states, probabilities)
        return self

    # -- generic nodes ------------------------------------------------------------------
    def add_node(
        self,
        name: str,
        states: Sequence[str],
        cpd: Sequence[Sequence[float]] | Sequence[float] | np.ndarray,
        *,
        parents: Sequence[str] = (),
    ) -> SystemBuilder:
        """Add any discrete node (a feature, a latent "difficulty", ...).

        ``cpd`` has one row per parent configuration (a single row, or a flat list, for a
        root node), each a distribution over ``states``. Parents may be declared in any
        order; they must all exist by :meth:`build`.
        """
        self._binary_only("add_node", "add_latent(name, states, probabilities)")
        name = _plain_name(name, "node name")
        if name == self._class_node and self._class_prior is not None:
            raise ValidationError(
                f"class_prior was given and the class node {name!r} was declared with its own "
                "CPD: give one or the other"
            )
        if name == self._class_node and tuple(map(str, states)) != self._states:
            raise ValidationError(
                f"the class node's states must be {list(self._states)} (positive, negative), "
                f"got {list(states)}; set positive=/negative= on the builder"
            )
        self._add(self._make(name, states, cpd, parents))
        return self

    add_feature = add_node

    def add_population(
        self,
        states: Sequence[str],
        probabilities: Sequence[float],
        class_positive: Sequence[float],
        *,
        name: str = "Population",
    ) -> SystemBuilder:
        """Add a Population root and make the class depend on it.

        ``class_positive[i]`` is ``P(Class = positive | Population = states[i])``.
        """
        self._binary_only("add_population", "class_prior=[...] (one probability per label)")
        if self._class_prior is not None:
            raise ValidationError(
                "class_prior was given and a population was added: with a population the class "
                "depends on it through class_positive; drop class_prior"
            )
        name = _plain_name(name, "the population's name")
        self._add(self._make(name, states, [list(probabilities)], ()))
        if len(class_positive) != len(states):
            raise CPDError(
                f"class_positive needs one probability per population state ({len(states)}), "
                f"got {len(class_positive)}"
            )
        rows = [[probability(f"class_positive[{s}]", p), complement(p)]
                for s, p in zip(states, class_positive)]
        self._add(self._make(self._class_node, self._states, rows, (name,)))
        return self

    # -- models -------------------------------------------------------------------------
    def add_model(
        self,
        name: str,
        *,
        sensitivity: float | None = None,
        specificity: float | None = None,
        parents: Sequence[str] | None = None,
        positive_probability: Sequence[float] | None = None,
        confusion: object = None,
        latent: str | None = None,
        scores: Mapping[str, object] | None = None,
    ) -> SystemBuilder:
        """Add a member model.

        Either by ``sensitivity`` and ``specificity`` (the model then depends on the class
        directly), or by ``parents`` and ``positive_probability``: one ``P(pred = positive)``
        per parent configuration. With ``labels=``: by its K x K ``confusion`` rates (rows:
        the true label, each summing to 1; an array or an object with ``to_numpy()``), or,
        with ``latent=``, a mapping from each state of that latent to its K x K rates.

        A model that outputs a **score** (binary systems): ``scores=`` declares its score node
        over bins, ``{"edges": [...], "beta": {"P": (a, b), "N": (a, b)}}`` or ``{"values":
        [...], "probabilities": {"P": [...], "N": [...]}}`` (see
        :func:`causalcost.network.scores.score_bins`); fuse the scores with
        ``set_fusioner("mean" | "max" | "min" | "logistic" | function)``.

        Examples
        --------
        >>> import causalcost as cc
        >>> b = cc.SystemBuilder(class_prior=0.5).add_model(
        ...     "a", scores={"edges": [0, 0.5, 1], "beta": {"P": [3, 1], "N": [1, 3]}})
        >>> b.add_model("b", sensitivity=0.9, specificity=0.9)
        Traceback (most recent call last):
        ...
        causalcost.errors.ValidationError: model 'b': the models declared so far output scores (a); a score system's models all declare scores=
        """  # noqa: E501
        if scores is not None:
            others = [k for k, v in (("sensitivity", sensitivity), ("specificity", specificity),
                                     ("parents", parents),
                                     ("positive_probability", positive_probability),
                                     ("confusion", confusion), ("latent", latent))
                      if v is not None]
            if others:
                raise ValidationError(f"model {name!r}: scores= declares a score model, which "
                                      f"takes no {', '.join(others)}")
            self._binary_only("add_model(..., scores=...)", "confusion= (score slots are "
                              "binary: labels P, N)")
            name = _plain_name(name, "model name")
            if self._models and not self._scores:
                raise ValidationError(f"model {name!r}: the models declared so far vote "
                                      f"({', '.join(self._models)}); a score system's models "
                                      "all declare scores=")
            bins = score_bins(scores, classes=self._states, name=f"model {name!r}: scores")
            self._add(self._make(name, bins.labels, bins.probabilities.tolist(),
                                 (self._class_node,)))
            self._models.append(name)
            self._scores[name] = bins
            return self
        if self._labelled is None and self._scores:
            raise ValidationError(f"model {name!r}: the models declared so far output scores "
                                  f"({', '.join(self._scores)}); a score system's models all "
                                  "declare scores=")
        if self._labelled is not None:
            given = [k for k, v in (("sensitivity", sensitivity), ("specificity", specificity),
                                    ("parents", parents),
                                    ("positive_probability", positive_probability))
                     if v is not None]
            if given or confusion is None:
                raise ValidationError(f"model {name!r}: with labels=[...] give confusion= (K x "
                                      "K rates, rows the true label)"
                                      + (f", not {', '.join(given)}" if given else ""))
            self._labelled.add_model(name, confusion, latent)
            return self
        if confusion is not None or latent is not None:
            raise ValidationError(f"model {name!r}: confusion=/latent= declare a model of a "
                                  "system built with labels=[...]; a binary model takes "
                                  "sensitivity= and specificity=")
        name = _plain_name(name, "model name")
        by_rates = sensitivity is not None or specificity is not None
        by_table = parents is not None or positive_probability is not None
        if by_rates == by_table:
            raise ValidationError(
                f"model {name!r}: give either sensitivity and specificity, or parents and "
                "positive_probability"
            )
        if by_rates:
            if sensitivity is None or specificity is None:
                raise ValidationError(f"model {name!r} needs both sensitivity and specificity")
            se = probability(f"sensitivity of {name!r}", sensitivity)
            sp = probability(f"specificity of {name!r}", specificity)
            rows = [[se, complement(se)], [complement(sp), sp]]
            node = self._make(name, self._states, rows, (self._class_node,))
        else:
            if parents is None or positive_probability is None:
                raise ValidationError(f"model {name!r} needs both parents and positive_probability")
            rows = [[probability(f"positive_probability of {name!r}", p), complement(p)]
                    for p in positive_probability]
            node = self._make(name, self._states, rows, tuple(parents))
        self._add(node)
        self._models.append(name)
        return self

    def add_correlated_models(
        self,
        first: str | None = None,
        second: str | None = None,
        *,
        sensitivity: Sequence[float] | None = None,
        specificity: Sequence[float] | None = None,
        correlation_positive: float | None = None,
        correlation_negative: float | None = None,
        latent: str = "Difficulty",
    ) -> SystemBuilder:
        """Add two models whose correctness is correlated through a shared latent node.

        Called as ``add_correlated_models("images", "history", sensitivity=(0.8, 0.5),
        specificity=(0.8, 0.5), correlation_positive=0.3, correlation_negative=0.0)``: the two
        model names first, then a pair (first model, second model) for each rate and the
        Pearson correlation of the two models' correctness on positives and on negatives.

        The latent node (parent: the class) has one state per joint outcome of the two
        models (both right, only the first right, only the second right, both wrong) and
        each model is a deterministic function of (class, latent), so the requested
        per-class Pearson correlation of the two correctness indicators is met exactly.
        Reachable correlations are those of :func:`causalcost.correlation_range`; others
        raise :class:`~causalcost.errors.ValidationError` stating the range.

        Raises
        ------
        ValidationError
            A missing name or argument (the message shows the full call), a rate that is not
            a pair, or an unreachable correlation.

        Examples
        --------
        The seeds' experiment: 50 %/50 % models, +0.95 on positives, -0.95 on negatives.

        >>> import causalcost as cc
        >>> b = cc.SystemBuilder(class_prior=0.5).add_correlated_models(
        ...     "m1", "m2", sensitivity=(0.5, 0.5), specificity=(0.5, 0.5),
        ...     correlation_positive=0.95, correlation_negative=-0.95)
        >>> cc.error_rates(b.set_fusioner("or").build(slot="m2"))
        ErrorRates(e_P(P)=0, e_P(N)=0.5, e_N(P)=1, e_N(N)=0.5)
        """
        self._binary_only("add_correlated_models", "add_latent and add_model(..., latent=)")
        given = {"first": first, "second": second, "sensitivity": sensitivity,
                 "specificity": specificity, "correlation_positive": correlation_positive,
                 "correlation_negative": correlation_negative}
        missing = [k for k, v in given.items() if v is None]
        if missing:
            raise ValidationError(
                f"add_correlated_models is missing {', '.join(missing)}; it is called as "
                "add_correlated_models('first_model', 'second_model', sensitivity=(se1, se2), "
                "specificity=(sp1, sp2), correlation_positive=rho_p, correlation_negative=rho_n)"
            )
        first = _plain_name(first, "first (a model name)")
        second = _plain_name(second, "second (a model name)")
        latent = _plain_name(latent, "latent (a node name)")
        if first == second:
            raise ValidationError("the two correlated models must have different names")
        se = pair("sensitivity", sensitivity)
        sp = pair("specificity", specificity)
        joint_p = correlated_correctness(se[0], se[1], correlation_positive,  # type: ignore
                                         what="positives")
        joint_n = correlated_correctness(sp[0], sp[1], correlation_negative,  # type: ignore
                                         what="negatives")
        kinds = ("both_right", f"only_{first}_right", f"only_{second}_right", "both_wrong")
        self._add(self._make(latent, kinds, [list(joint_p), list(joint_n)], (self._class_node,)))
        right = {kinds[0]: (True, True), kinds[1]: (True, False), kinds[2]: (False, True),
                 kinds[3]: (False, False)}
        pos, neg = self._states
        for i, model in enumerate((first, second)):
            rows = []
            for cls, kind in itertools.product(self._states, kinds):
                correct = right[kind][i]
                says_positive = correct if cls == pos else not correct
                rows.append([1.0, 0.0] if says_positive else [0.0, 1.0])
            self._add(self._make(model, (pos, neg), rows, (self._class_node, latent)))
            self._models.append(model)
        return self

    # -- fusioner -----------------------------------------------------------------------
    def set_fusioner(
        self,
        rule: str | Callable[..., object] = "and",
        *,
        name: str = "Fusioner",
        inputs: Sequence[str] | None = None,
        k: int | None = None,
        weights: Mapping[str, float] | Sequence[float] | None = None,
        threshold: float | None = None,
        tie: str | None = None,
        function: Callable[..., bool] | None = None,
        divorce: bool | None = None,
        order: Sequence[str] | None = None,
        label: str | None = None,
        bias: float | None = None,
    ) -> SystemBuilder:
        """Merge the models (all of them, or ``inputs``) with a deterministic rule.

        Score models (``add_model(name, scores=...)``) are fused by a score rule on their
        bins' representative scores: ``"mean"`` (``weights=``, default equal, ``threshold=``
        default 0.5), ``"max"``, ``"min"``, ``"logistic"`` (``weights=``, ``bias=``,
        ``threshold=``) or a function of a ``(rows, models)`` array of scores returning the
        fused score or the decision (:func:`causalcost.network.scores.score_fusioner`).

        With ``labels=``: ``rule`` is ``"plurality"``, ``"weighted"`` (``weights=``),
        ``"priority"`` (``order=``), ``"k_of_n"`` (``label=``, ``k=``) or a function of one
        keyword argument per model returning a label; ``tie=`` is ``"slot"`` or a list of
        labels (see :func:`causalcost.network.fusioners.make_fusioner`).

        See :func:`causalcost.network.fusioners.make_fusioner` for the rules and their
        parameters (a ``function`` is called with one keyword argument per model).

        ``divorce`` chooses how a vote is declared (:mod:`causalcost.network.divorce`):
        ``False``, one fusioner node over every model (the seeds' shape; ``2**k`` columns);
        ``True``, a chain of deterministic count nodes (``<name>_count_1 ..``), polynomial in
        the number of models; ``None`` (default), the chain only when the single table would
        pass 2**12 columns (more than 12 models). Either way the system computes the same
        vote and carries it as ``system.fusioner``.

        Raises
        ------
        ValidationError
            A bad rule or option, a vote that cannot be divorced (non-integer weights over
            more than 12 models), or a function fusioner over more than 20 models.

        Examples
        --------
        >>> import causalcost as cc
        >>> b = cc.SystemBuilder(class_prior=0.3)
        >>> for i in range(40):
        ...     _ = b.add_model(f"m{i}", sensitivity=0.9, specificity=0.9)
        >>> system = b.set_fusioner("and").build(slot="m0")
        >>> len(system.counts), system.states("Fusioner_count_2"), system.known_monotone
        (40, ['at_most_1', '2'], True)
        """
        if self._labelled is not None:
            binary = [flag for flag, value in (("name", None if name == "Fusioner" else name),
                                               ("inputs", inputs), ("divorce", divorce))
                      if value is not None]
            if binary:
                raise ValidationError(f"{', '.join(binary)} apply to binary fusioners; with "
                                      "labels=[...] give the rule and tie=, weights=, "
                                      "threshold=, order=, label=, k= or function=")
            options = {key: value for key, value in (
                ("tie", tie), ("weights", weights), ("threshold", threshold), ("order", order),
                ("label", label), ("k", k), ("function", function)) if value is not None}
            self._labelled.set_fusioner(rule, options)
            return self
        if order is not None or label is not None:
            raise ValidationError("order= and label= apply to systems declared with "
                                  "labels=[...]")
        if self._scores:
            return self._set_score_fusioner(rule, name=name, inputs=inputs, weights=weights,
                                            threshold=threshold, bias=bias,
                                            ignored={"k": k, "tie": tie, "function": function,
                                                     "divorce": divorce})
        if bias is not None or (isinstance(rule, str) and rule in SCORE_FUSIONERS):
            what = f"rule {rule!r}" if bias is None else "bias"
            raise ValidationError(f"{what} fuses scores, and no model declares scores=: declare "
                                  "the models with add_model(name, scores=...) or use a vote "
                                  "rule")
        if isinstance(inputs, str):
            raise ValidationError(f"inputs must be a list of model names, got {inputs!r}")
        inputs = (tuple(str(m) for m in inputs) if inputs is not None
                  else tuple(self._models))
        unknown = [m for m in inputs if m not in self._models]
        if unknown:
            raise UnknownNameError(
                f"fusioner inputs {unknown} are not models; models: {self._models}"
            )
        name = _plain_name(name, "the fusioner's name")
        fusioner = make_fusioner(rule, inputs, k=k, weights=weights, threshold=threshold,
                                 tie=tie, function=function)
        nodes = fusioner_nodes(fusioner, name, self._states,
                               divorce=should_divorce(fusioner, divorce))
        taken = [n.name for n in nodes if n.name in self._nodes or n.name == self._class_node]
        if taken:
            raise NetworkStructureError(
                f"node name {taken[0]!r} is used twice (the fusioner's nodes are {name!r} and "
                f"its count nodes {name}_count_1, ...); rename the node or pass name=..."
            )
        self._fusioner, self._rule = nodes, fusioner
        return self

    def _set_score_fusioner(self, rule: object, *, name: str, inputs: Sequence[str] | None,
                            weights: object, threshold: float | None, bias: float | None,
                            ignored: Mapping[str, object]) -> SystemBuilder:
        """:meth:`set_fusioner` for score models: the rule's table over every bin combination."""
        given = sorted(k for k, v in ignored.items() if v is not None)
        if given:
            raise ValidationError(f"{', '.join(given)} apply to vote fusioners; a score "
                                  "fusioner takes weights=, threshold= and bias= (logistic)")
        if isinstance(rule, str) and rule not in SCORE_FUSIONERS:
            raise ValidationError(f"rule {rule!r} is a vote, but the models output scores "
                                  f"({', '.join(self._scores)}): use one of "
                                  f"{', '.join(SCORE_FUSIONERS)} or a function of the scores")
        if isinstance(inputs, str):
            raise ValidationError(f"inputs must be a list of model names, got {inputs!r}")
        chosen = tuple(str(m) for m in inputs) if inputs is not None else tuple(self._models)
        unknown = [m for m in chosen if m not in self._scores]
        if unknown:
            raise UnknownNameError(f"fusioner inputs {unknown} are not score models; models: "
                                   f"{self._models}")
        name = _plain_name(name, "the fusioner's name")
        if name in self._nodes or name == self._class_node:
            raise NetworkStructureError(f"node name {name!r} is used twice; pass name=...")
        fusioner = score_fusioner(
            rule, chosen, [self._scores[m].labels for m in chosen],  # type: ignore[arg-type]
            [self._scores[m].values for m in chosen], threshold=threshold,
            weights=weights, bias=bias)  # type: ignore[arg-type]
        node = _Node(name, self._states, chosen, fusioner.rows())
        self._fusioner, self._rule = [node], fusioner
        return self

    # -- build --------------------------------------------------------------------------
    def build(self, slot: str | None = None) -> System:
        """Assemble and validate the system; returns a :class:`~causalcost.System`."""
        from causalcost.network.assemble import assemble

        if self._labelled is not None:
            from causalcost.network.system import System

            declaration, rule = self._labelled.declare()
            d = self._labelled
            return System.declared(declaration, rule, slot=slot, class_node=d.class_node,
                                   system_node=d.system_node, name=d.name)
        if self._fusioner is None or self._rule is None:
            raise NetworkStructureError("no fusioner: call set_fusioner(...) before build()")
        nodes = dict(self._nodes)
        for node in self._fusioner:
            if node.name in nodes:
                raise NetworkStructureError(f"node name {node.name!r} is used twice")
            nodes[node.name] = node
        if self._class_node not in nodes:
            if self._class_prior is None:
                raise NetworkStructureError(
                    "the class has no distribution: pass class_prior=... or add_population(...)"
                )
            p = self._class_prior
            nodes[self._class_node] = self._make(self._class_node, self._states,
                                                 [[p, complement(p)]], ())
        for node in nodes.values():
            for parent in node.parents:
                if parent not in nodes:
                    raise UnknownNameError(
                        f"parent {parent!r} of {node.name!r} is not declared; declared nodes: "
                        f"{sorted(nodes)}"
                    )
        return assemble(
            nodes, class_node=self._class_node, states=self._states, fusioner=self._rule,
            system_node=self._fusioner[-1].name, models=tuple(self._models), name=self._name,
            slot=slot, check_rows=check_row_count,
        )

    # -- internals ----------------------------------------------------------------------
    def _add(self, node: _Node) -> None:
        fusioner = {n.name for n in self._fusioner or ()}
        if node.name in self._nodes or node.name in fusioner:
            raise NetworkStructureError(f"node name {node.name!r} is used twice")
        self._nodes[node.name] = node

    def _make(self, name: str, states: Sequence[str], cpd: object, parents: Sequence[str]) -> _Node:
        name, states, parents, rows = declaration(name, states, cpd, parents)
        if all(p == self._class_node or p in self._nodes for p in parents):
            # parents declared later are checked in build()
            parent_states = [self._states_of(p, name) for p in parents]
            check_row_count(name, rows, parents, parent_states)
            check_distributions(name, rows, parents, parent_states)
        else:
            check_distributions(name, rows, parents, None)
        return _Node(name, states, parents, rows)

    def _states_of(self, node: str, child: str) -> tuple[str, ...]:
        if node == self._class_node:
            return self._states
        if node in self._nodes:
            return self._nodes[node].states
        raise UnknownNameError(
            f"parent {node!r} of {child!r} is not declared yet; declared: "
            f"{sorted([self._class_node, *self._nodes])}"
        )


def _plain_name(value: object, what: str) -> str:
    """A node name as a plain ``str`` (a numpy string would print as ``np.str_('a')``)."""
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{what} must be a non-empty string, got {value!r}")
    return str(value)
