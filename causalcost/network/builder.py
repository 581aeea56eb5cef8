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
from dataclasses import dataclass
from decimal import Decimal

import networkx as nx
import numpy as np

from causalcost.errors import CPDError, NetworkStructureError, UnknownNameError, ValidationError
from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD
from causalcost.network.correlation import correlated_correctness
from causalcost.network.fusioners import make_fusioner
from causalcost.network.system import System, confusion_cpd

__all__ = ["SystemBuilder"]


@dataclass(frozen=True)
class _Node:
    name: str
    states: tuple[str, ...]
    parents: tuple[str, ...]
    rows: np.ndarray  # (n_parent_configs, n_states)


def _probability(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in [0, 1], got {value!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise CPDError(f"{name} must be a probability in [0, 1], got {v!r}")
    return v


def _complement(p: float) -> float:
    """``1 - p`` computed on the decimal the user wrote, then rounded once.

    In binary floating point ``1 - 0.8`` is 0.19999999999999996; working on the shortest
    decimal that round-trips (``repr``) gives the double nearest to 0.2, so the thesis's
    numbers come out as printed.
    """
    return float(Decimal(1) - Decimal(repr(float(p))))


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
        class_prior: float | None = None,
        *,
        class_node: str = "Class",
        positive: str = "P",
        negative: str = "N",
        name: str = "system",
    ) -> None:
        if positive == negative:
            raise ValidationError("positive and negative state names must differ")
        self._class_node = class_node
        self._states = (positive, negative)
        self._name = name
        self._nodes: dict[str, _Node] = {}
        self._models: list[str] = []
        self._fusioner: _Node | None = None
        self._class_prior = (
            None if class_prior is None else _probability("class_prior", class_prior)
        )

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
        if name == self._class_node and self._class_prior is not None:
            raise ValidationError(
                f"class_prior was given and the class node {name!r} was declared with its own "
                "CPD: give one or the other"
            )
        if name == self._class_node and tuple(states) != self._states:
            raise ValidationError(
                f"the class node's states must be {list(self._states)} (positive, negative), "
                f"got {list(states)}; set positive=/negative= on the builder"
            )
        self._add(self._make(name, states, cpd, parents))
        return self

    add_feature = add_node
    add_latent = add_node

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
        if self._class_prior is not None:
            raise ValidationError(
                "class_prior was given and a population was added: with a population the class "
                "depends on it through class_positive; drop class_prior"
            )
        self._add(self._make(name, states, [list(probabilities)], ()))
        if len(class_positive) != len(states):
            raise CPDError(
                f"class_positive needs one probability per population state ({len(states)}), "
                f"got {len(class_positive)}"
            )
        rows = [[_probability(f"class_positive[{s}]", p), _complement(p)]
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
    ) -> SystemBuilder:
        """Add a member model.

        Either by ``sensitivity`` and ``specificity`` (the model then depends on the class
        directly), or by ``parents`` and ``positive_probability``: one ``P(pred = positive)``
        per parent configuration.
        """
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
            se = _probability(f"sensitivity of {name!r}", sensitivity)
            sp = _probability(f"specificity of {name!r}", specificity)
            rows = [[se, _complement(se)], [_complement(sp), sp]]
            node = self._make(name, self._states, rows, (self._class_node,))
        else:
            if parents is None or positive_probability is None:
                raise ValidationError(f"model {name!r} needs both parents and positive_probability")
            rows = [[_probability(f"positive_probability of {name!r}", p), _complement(p)]
                    for p in positive_probability]
            node = self._make(name, self._states, rows, tuple(parents))
        self._add(node)
        self._models.append(name)
        return self

    def add_correlated_models(
        self,
        first: str,
        second: str,
        *,
        sensitivity: tuple[float, float],
        specificity: tuple[float, float],
        correlation_positive: float,
        correlation_negative: float,
        latent: str = "Difficulty",
    ) -> SystemBuilder:
        """Add two models whose correctness is correlated through a shared latent node.

        The latent node (parent: the class) has one state per joint outcome of the two
        models (both right, only the first right, only the second right, both wrong) and
        each model is a deterministic function of (class, latent), so the requested
        per-class Pearson correlation of the two correctness indicators is met exactly.
        Reachable correlations are those of :func:`causalcost.correlation_range`; others
        raise :class:`~causalcost.errors.ValidationError` stating the range.

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
        if first == second:
            raise ValidationError("the two correlated models must have different names")
        joint_p = correlated_correctness(sensitivity[0], sensitivity[1], correlation_positive,
                                         what="positives")
        joint_n = correlated_correctness(specificity[0], specificity[1], correlation_negative,
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
        rule: str = "and",
        *,
        name: str = "Fusioner",
        inputs: Sequence[str] | None = None,
        k: int | None = None,
        weights: Mapping[str, float] | Sequence[float] | None = None,
        threshold: float | None = None,
        tie: str = "negative",
        function: Callable[..., bool] | None = None,
    ) -> SystemBuilder:
        """Merge the models (all of them, or ``inputs``) with a deterministic rule.

        See :func:`causalcost.network.fusioners.make_fusioner` for the rules and their parameters.
        """
        inputs = tuple(inputs) if inputs is not None else tuple(self._models)
        unknown = [m for m in inputs if m not in self._models]
        if unknown:
            raise UnknownNameError(
                f"fusioner inputs {unknown} are not models; models: {self._models}"
            )
        rule_fn = make_fusioner(rule, inputs, k=k, weights=weights, threshold=threshold, tie=tie,
                                function=function)
        votes = itertools.product((True, False), repeat=len(inputs))  # state order (P, N)
        positive = np.fromiter((rule_fn(v) for v in votes), dtype=bool,
                               count=2 ** len(inputs))
        rows = np.column_stack([positive, ~positive]).astype(float)
        self._fusioner = self._make(name, self._states, rows, inputs)
        return self

    # -- build --------------------------------------------------------------------------
    def build(self, slot: str | None = None) -> System:
        """Assemble and validate the pgmpy network; returns a :class:`~causalcost.System`."""
        if self._fusioner is None:
            raise NetworkStructureError("no fusioner: call set_fusioner(...) before build()")
        nodes = dict(self._nodes)
        if self._fusioner.name in nodes:
            raise NetworkStructureError(f"node name {self._fusioner.name!r} is used twice")
        nodes[self._fusioner.name] = self._fusioner
        if self._class_node not in nodes:
            if self._class_prior is None:
                raise NetworkStructureError(
                    "the class has no distribution: pass class_prior=... or add_population(...)"
                )
            p = self._class_prior
            nodes[self._class_node] = self._make(self._class_node, self._states,
                                                 [[p, _complement(p)]], ())
        graph = nx.DiGraph()
        graph.add_nodes_from(nodes)
        for node in nodes.values():
            for parent in node.parents:
                if parent not in nodes:
                    raise UnknownNameError(
                        f"parent {parent!r} of {node.name!r} is not declared; declared nodes: "
                        f"{sorted(nodes)}"
                    )
                graph.add_edge(parent, node.name)
        if not nx.is_directed_acyclic_graph(graph):
            edges = nx.find_cycle(graph)
            cycle = " -> ".join([u for u, _ in edges] + [edges[0][0]])
            raise NetworkStructureError(f"the network has a cycle: {cycle}; remove one edge of it")
        for node in nodes.values():
            self._check_rows(node.name, node.rows, node.parents,
                             [nodes[p].states for p in node.parents])
        network = DiscreteBayesianNetwork()
        network.add_nodes_from(nodes)
        network.add_edges_from(graph.edges())
        network.add_cpds(*(self._cpd(n, nodes) for n in nodes.values()))
        confusion = "Confusion"
        if confusion in nodes:
            raise NetworkStructureError(
                "node name 'Confusion' is reserved for the system's confusion node"
            )
        system_node = self._fusioner.name
        network.add_edges_from([(self._class_node, confusion), (system_node, confusion)])
        network.add_cpds(confusion_cpd(confusion, self._class_node, self._states, system_node,
                                       self._states, self._states[0]))
        return System.from_pgmpy(
            network, class_node=self._class_node, system_node=system_node, slot=slot,
            positive=self._states[0], confusion_node=confusion, models=tuple(self._models),
            name=self._name,
        )

    # -- internals ----------------------------------------------------------------------
    def _add(self, node: _Node) -> None:
        if node.name in self._nodes or (self._fusioner and node.name == self._fusioner.name):
            raise NetworkStructureError(f"node name {node.name!r} is used twice")
        self._nodes[node.name] = node

    def _make(self, name: str, states: Sequence[str], cpd: object, parents: Sequence[str]) -> _Node:
        if not isinstance(name, str) or not name:
            raise ValidationError(f"node names must be non-empty strings, got {name!r}")
        states = tuple(str(s) for s in states)
        if len(states) < 2 or len(set(states)) != len(states):
            raise ValidationError(f"node {name!r} needs at least two distinct states, got {states}")
        rows = np.asarray(cpd, dtype=float)
        if rows.ndim == 1:
            rows = rows[None, :]
        if rows.ndim != 2 or rows.shape[1] != len(states):
            raise CPDError(
                f"CPD of {name!r} needs rows of {len(states)} probabilities (one per state of "
                f"{list(states)}), got shape {rows.shape}"
            )
        known = all(p == self._class_node or p in self._nodes for p in parents)
        if known:  # parents declared later are checked in build()
            self._check_rows(name, rows, parents, [self._states_of(p, name) for p in parents])
        bad_value = ~np.all(np.isfinite(rows) & (rows >= 0) & (rows <= 1), axis=1)
        bad_sum = np.abs(rows.sum(axis=1) - 1.0) > 1e-9
        bad = np.flatnonzero(bad_value | bad_sum)
        if bad.size:
            i = int(bad[0])
            if known:
                configs = itertools.product(*(self._states_of(p, name) for p in parents))
                config = next(itertools.islice(configs, i, None))
                where = ", ".join(f"{p}={s}" for p, s in zip(parents, config)) or "no parents"
            else:
                where = f"row {i}"
            row = rows[i]
            if bad_value[i]:
                raise CPDError(
                    f"CPD of {name!r} at ({where}) has a probability outside [0, 1]: {row.tolist()}"
                )
            raise CPDError(
                f"CPD of {name!r} at ({where}) sums to {row.sum():.12g}, not 1: {row.tolist()}"
            )
        return _Node(name, states, tuple(parents), rows)

    @staticmethod
    def _check_rows(name: str, rows: np.ndarray, parents: Sequence[str],
                    parent_states: Sequence[Sequence[str]]) -> None:
        n_configs = int(np.prod([len(s) for s in parent_states], dtype=np.int64))
        if rows.shape[0] != n_configs:
            raise CPDError(
                f"CPD of {name!r} needs {n_configs} row(s) (one per configuration of "
                f"{list(parents) or 'no parents'}), got {rows.shape[0]}"
            )

    def _states_of(self, node: str, child: str) -> tuple[str, ...]:
        if node == self._class_node:
            return self._states
        if node in self._nodes:
            return self._nodes[node].states
        raise UnknownNameError(
            f"parent {node!r} of {child!r} is not declared yet; declared: "
            f"{sorted([self._class_node, *self._nodes])}"
        )

    def _cpd(self, node: _Node, nodes: dict[str, _Node]) -> TabularCPD:
        return TabularCPD(
            node.name, len(node.states), node.rows.T,
            evidence=list(node.parents) or None,
            evidence_card=[len(nodes[p].states) for p in node.parents] or None,
            state_names={node.name: list(node.states),
                         **{p: list(nodes[p].states) for p in node.parents}},
        )
