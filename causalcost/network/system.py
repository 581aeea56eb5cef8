"""A classifier system: a pgmpy network plus the roles its nodes play.

A :class:`System` wraps a real :class:`pgmpy.models.DiscreteBayesianNetwork` (users keep using
pgmpy on ``system.network``) and names its roles: the class node, the model nodes, the slot
(the model under evaluation), the system-prediction (fusioner) node and the confusion node.
It is validated once, when built:

* every node has a CPD whose columns are non-negative and sum to 1;
* class, system prediction, slot and models are binary and share the positive state name;
* the slot is an ancestor of the system prediction and the class is not a descendant of it;
* the system prediction is deterministic given its parents;
* the confusion node, if present, is exactly the confusion of class and system prediction
  (states ``TP, FN, FP, TN``); if absent, it is derived and added (to a copy).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import networkx as nx
import numpy as np

from causalcost.confusion import OUTCOMES
from causalcost.errors import CPDError, NetworkStructureError, UnknownNameError
from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD

__all__ = ["System", "node_table", "is_deterministic", "CPD_ATOL"]

T = TypeVar("T")

#: Tolerance on CPD column sums.
CPD_ATOL = 1e-9


def _names(items: Iterable[str]) -> str:
    return ", ".join(repr(str(i)) for i in sorted(map(str, items)))


def require_node(network: DiscreteBayesianNetwork, node: str, role: str) -> None:
    """Raise :class:`UnknownNameError` listing valid nodes when ``node`` is not in ``network``."""
    if node not in network.nodes():
        raise UnknownNameError(
            f"{role} {node!r} is not a node of the network; valid nodes: {_names(network.nodes())}"
        )


def node_table(cpd: TabularCPD) -> np.ndarray:
    """A CPD as a 2-D array: rows are the node's states, columns parent configurations.

    Columns follow ``itertools.product`` over the parents in ``cpd.variables[1:]`` order
    (first parent slowest), which is pgmpy's layout.
    """
    return np.asarray(cpd.get_values(), dtype=float)


def check_cpd(cpd: TabularCPD) -> None:
    """Raise :class:`CPDError` if any column of ``cpd`` is negative, non-finite or unnormalised."""
    table = node_table(cpd)
    bad_value = ~np.all(np.isfinite(table) & (table >= 0), axis=0)
    bad_sum = np.abs(table.sum(axis=0) - 1.0) > CPD_ATOL
    bad = np.flatnonzero(bad_value | bad_sum)
    if not bad.size:
        return
    j = int(bad[0])
    node, parents = cpd.variable, cpd.variables[1:]
    cards = [len(cpd.state_names[p]) for p in parents]
    config = np.unravel_index(j, cards) if parents else ()
    where = ", ".join(f"{p}={cpd.state_names[p][int(i)]}" for p, i in zip(parents, config))
    where = where or "no parents"
    column = table[:, j]
    if bad_value[j]:
        raise CPDError(
            f"CPD of {node!r} has a negative or non-finite probability at ({where}): "
            f"{column.tolist()}; every probability must lie in [0, 1]"
        )
    raise CPDError(
        f"CPD of {node!r} is not normalised at ({where}): its probabilities sum to "
        f"{float(column.sum()):.12g}, not 1; rescale that column"
    )


def is_deterministic(cpd: TabularCPD) -> bool:
    """Whether every column of ``cpd`` puts probability 1 on one state."""
    table = node_table(cpd)
    return bool(np.all((np.abs(table) < CPD_ATOL) | (np.abs(table - 1) < CPD_ATOL)))


def confusion_cpd(
    name: str, class_node: str, class_states: Sequence[str], system_node: str,
    system_states: Sequence[str], positive: str,
) -> TabularCPD:
    """The deterministic confusion node: TP, FN, FP, TN from (class, system prediction)."""
    values = np.zeros((4, len(class_states) * len(system_states)))
    for j, (c, s) in enumerate(itertools.product(class_states, system_states)):
        values[_outcome(c == positive, s == positive), j] = 1.0
    return TabularCPD(
        name, 4, values, evidence=[class_node, system_node],
        evidence_card=[len(class_states), len(system_states)],
        state_names={name: list(OUTCOMES), class_node: list(class_states),
                     system_node: list(system_states)},
    )


def _outcome(true_positive: bool, predicted_positive: bool) -> int:
    """Index in ``OUTCOMES`` of (true class, prediction)."""
    return {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}[
        (true_positive, predicted_positive)
    ]


@dataclass(frozen=True, eq=False)
class System:
    """A binary classifier system declared as a causal Bayesian network.

    Build one with :class:`causalcost.SystemBuilder`, :func:`causalcost.load_network` or
    :meth:`System.from_pgmpy`; the constructor is not meant to be called directly.

    Attributes
    ----------
    network : pgmpy.models.DiscreteBayesianNetwork
        The network, including the confusion node. Treat it as read-only: interventions
        return new networks.
    class_node, system_node, confusion_node : str
        Roles: true class, system prediction (fusioner output), confusion of the two.
    models : tuple of str
        The member models (by default the parents of the system prediction).
    slot : str or None
        The model under evaluation, if chosen.
    positive : str
        The positive state of class, models and system prediction.
    name : str
        A label for reports.

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("majority3")
    >>> system.class_node, system.system_node, system.slot
    ('Class', 'Fusioner', 'clinical_history')
    >>> system.with_slot("images").slot, system.is_deterministic("Fusioner")
    ('images', True)
    """

    network: DiscreteBayesianNetwork
    class_node: str
    system_node: str
    confusion_node: str
    models: tuple[str, ...]
    slot: str | None = None
    positive: str = "P"
    name: str = "system"
    _deterministic: frozenset[str] = field(default=frozenset(), repr=False)
    #: Per-network memo of planned computations (shared by ``with_slot`` copies, which
    #: share the network); entries check the identity of the CPD objects they were made from.
    _plans: dict[object, object] = field(default_factory=dict, repr=False, compare=False)

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_pgmpy(
        cls,
        network: DiscreteBayesianNetwork,
        *,
        class_node: str,
        system_node: str,
        slot: str | None = None,
        positive: str = "P",
        confusion_node: str | None = None,
        models: Sequence[str] | None = None,
        name: str = "system",
    ) -> System:
        """Validate a user-built pgmpy network and name its roles.

        The user's network is never modified: when it has no confusion node, a copy gets a
        deterministic one named ``"Confusion"`` (or ``confusion_node``).

        Raises
        ------
        UnknownNameError
            A role names a node or state the network does not have.
        CPDError
            A node has no CPD, or a CPD column is negative or does not sum to 1.
        NetworkStructureError
            The slot does not reach the system prediction, the class descends from the
            slot, the system prediction is not deterministic, a role is not binary, or the
            confusion node is not the confusion of class and system prediction.

        Examples
        --------
        >>> import causalcost as cc
        >>> built = cc.load_network("thesis_and")
        >>> again = cc.System.from_pgmpy(built.network, class_node="Class",
        ...                              system_node="Fusioner", slot="clinical_history")
        >>> again.models
        ('images', 'clinical_history')
        """
        if not isinstance(network, DiscreteBayesianNetwork):
            raise TypeError(
                "network must be a pgmpy DiscreteBayesianNetwork, got "
                f"{type(network).__name__}"
            )
        for node, role in ((class_node, "class node"), (system_node, "system node")):
            require_node(network, node, role)
        missing = [n for n in network.nodes() if network.get_cpds(n) is None]
        if missing:
            raise CPDError(f"nodes without a CPD: {_names(missing)}; add one with add_cpds")
        for cpd in network.get_cpds():
            check_cpd(cpd)
        if models is None:
            models = [p for p in network.get_parents(system_node) if p != class_node]
        models = tuple(models)
        for m in models:
            require_node(network, m, "model")
        if not models:
            raise NetworkStructureError(
                f"the system node {system_node!r} has no model among its parents; name the "
                "models explicitly"
            )
        if confusion_node is None and "Confusion" in network.nodes():
            confusion_node = "Confusion"  # an existing confusion node is validated, not re-added
        if confusion_node is not None and confusion_node in network.nodes():
            net = network
        else:
            net = copy.deepcopy(network)
            confusion_node = confusion_node or "Confusion"
            if confusion_node in net.nodes():
                raise NetworkStructureError(f"node name {confusion_node!r} is already taken")
            net.add_edges_from([(class_node, confusion_node), (system_node, confusion_node)])
            net.add_cpds(confusion_cpd(
                confusion_node, class_node, _states(net, class_node), system_node,
                _states(net, system_node), positive,
            ))
        deterministic = frozenset(n for n in net.nodes() if is_deterministic(net.get_cpds(n)))
        system = cls(net, class_node, system_node, confusion_node, models, None, positive, name,
                     deterministic, {})
        system._validate_roles()
        return system.with_slot(slot) if slot is not None else system

    def with_slot(self, slot: str) -> System:
        """The same system with ``slot`` as the model under evaluation (validated)."""
        if slot not in self.network.nodes():
            raise UnknownNameError(
                f"slot {slot!r} is not a node of the network; the models are {_names(self.models)}"
            )
        if slot in (self.class_node, self.system_node, self.confusion_node):
            raise NetworkStructureError(f"the slot must be a model, not the {slot!r} role node")
        self._require_binary(slot, "slot")
        if slot not in nx.ancestors(self.network, self.system_node):
            raise NetworkStructureError(
                f"slot {slot!r} does not reach the system prediction {self.system_node!r}: "
                f"forcing it cannot change the system; choose one of {_names(self.models)}"
            )
        if self.class_node in nx.descendants(self.network, slot):
            raise NetworkStructureError(
                f"class node {self.class_node!r} is a descendant of slot {slot!r}: a model "
                "cannot cause the true class; reverse the offending edge"
            )
        return replace(self, slot=slot)

    def require_slot(self, slot: str | None = None) -> str:
        """The slot to use: ``slot`` if given (validated), else the system's own."""
        if slot is not None and slot != self.slot:
            return self.with_slot(slot).slot  # type: ignore[return-value]
        if self.slot is None:
            raise NetworkStructureError(
                f"no slot chosen: pass slot=... (one of {_names(self.models)})"
            )
        return self.slot

    # -- queries ------------------------------------------------------------------------
    def states(self, node: str) -> list[str]:
        """State names of ``node``."""
        require_node(self.network, node, "node")
        return _states(self.network, node)

    def negative(self) -> str:
        """The negative state name of the class node."""
        return next(s for s in self.states(self.class_node) if s != self.positive)

    def is_deterministic(self, node: str) -> bool:
        """Whether ``node``'s CPD is deterministic (drawn with a double circle)."""
        require_node(self.network, node, "node")
        return node in self._deterministic

    @property
    def deterministic_nodes(self) -> frozenset[str]:
        """All nodes whose CPD puts probability 1 on one state in every column."""
        return self._deterministic

    def to_bif(self, path: str) -> None:
        """Write the network (with its confusion node) as BIF for pgmpy, pyAgrum, etc.

        BIF has no notion of roles; read it back with :func:`causalcost.load_bif` naming
        ``class_node``, ``system_node`` and ``positive``.
        """
        from causalcost.network._pgmpy import bif_writer

        writer = bif_writer(self.network)
        write = getattr(writer, "write", None) or writer.write_bif  # renamed in pgmpy 1.1
        write(str(path))

    def memo(self, key: object, make: Callable[[], T]) -> T:
        """``make()`` once per ``key`` and set of CPD objects (internal planning cache)."""
        cpds = tuple(self.network.cpds)
        hit = self._plans.get(key)
        if hit is not None:
            made_from, value = hit  # type: ignore[misc]
            if len(made_from) == len(cpds) and all(a is b for a, b in zip(made_from, cpds)):
                return value  # type: ignore[no-any-return]
        value = make()
        self._plans[key] = (cpds, value)
        return value

    def __repr__(self) -> str:
        return (
            f"System(name={self.name!r}, class={self.class_node!r}, models={list(self.models)}, "
            f"system={self.system_node!r}, slot={self.slot!r}, nodes={len(self.network)})"
        )

    # -- validation ---------------------------------------------------------------------
    def _require_binary(self, node: str, role: str) -> None:
        states = _states(self.network, node)
        if len(states) != 2 or self.positive not in states:
            raise NetworkStructureError(
                f"{role} {node!r} must have two states, one of them the positive state "
                f"{self.positive!r}; it has {states}. Pass positive=... to name the positive state"
            )

    def _validate_roles(self) -> None:
        net = self.network
        self._require_binary(self.class_node, "class node")
        self._require_binary(self.system_node, "system node")
        for m in self.models:
            self._require_binary(m, "model")
            if m not in nx.ancestors(net, self.system_node):
                raise NetworkStructureError(
                    f"model {m!r} does not reach the system node {self.system_node!r}"
                )
        if self.class_node in nx.descendants(net, self.system_node):
            raise NetworkStructureError(
                f"class node {self.class_node!r} descends from system node {self.system_node!r}"
            )
        if self.system_node not in self._deterministic:
            raise NetworkStructureError(
                f"system node {self.system_node!r} is not deterministic given its parents: a "
                "fusioner maps model predictions to one output; make each CPD column a 0/1 vector"
            )
        self._validate_confusion()

    def _validate_confusion(self) -> None:
        net, node = self.network, self.confusion_node
        parents = set(net.get_parents(node))
        if parents != {self.class_node, self.system_node}:
            raise NetworkStructureError(
                f"confusion node {node!r} must have exactly the parents {self.class_node!r} and "
                f"{self.system_node!r}; it has {sorted(parents)}"
            )
        cpd = net.get_cpds(node)
        if list(cpd.state_names[node]) != list(OUTCOMES):
            raise NetworkStructureError(
                f"confusion node {node!r} must have the states {list(OUTCOMES)} in that order; "
                f"it has {cpd.state_names[node]}"
            )
        table = node_table(cpd)
        order = cpd.variables[1:]
        configs = itertools.product(*(cpd.state_names[p] for p in order))
        for j, config in enumerate(configs):
            values = dict(zip(order, config))
            expected = _outcome(values[self.class_node] == self.positive,
                                values[self.system_node] == self.positive)
            if abs(table[expected, j] - 1.0) > CPD_ATOL:
                raise NetworkStructureError(
                    f"confusion node {node!r} is not the confusion of class and prediction: at "
                    f"{values} it must be {OUTCOMES[expected]} with probability 1, got "
                    f"{dict(zip(OUTCOMES, table[:, j].round(6).tolist()))}"
                )


def _states(network: DiscreteBayesianNetwork, node: str) -> list[str]:
    return list(network.get_cpds(node).state_names[node])
