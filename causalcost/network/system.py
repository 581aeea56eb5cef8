"""A classifier system: a pgmpy network plus the roles its nodes play.

A :class:`System` holds a network (users keep using pgmpy on ``system.network``, a real
:class:`pgmpy.models.DiscreteBayesianNetwork`) and names its roles: the class node, the model
nodes, the slot (the model under evaluation), the system-prediction (fusioner) node, the count
nodes a vote fusioner may be divorced into, and the confusion node. It is validated once, when
built:

* every node has a CPD whose columns are non-negative and sum to 1;
* class, system prediction, slot and models are binary with the same two state names
  (``positive`` and one negative state), except score models, whose states are score bins
  (a system whose fusioner fuses scores, :mod:`causalcost.network.scores`);
* the slot is an ancestor of the system prediction and the class is not a descendant of it;
* the system prediction is deterministic given its parents;
* the confusion node, if present, is exactly the confusion of class and system prediction
  (states ``TP, FN, FP, TN``); if absent, it is derived and added (to a copy);
* a declared fusioner rule (``system.fusioner``, a vote or a score rule) is exactly what the
  tables compute; a network without one is checked for a vote it computes
  (:mod:`causalcost.network.votes`).

A system made by :class:`~causalcost.SystemBuilder` or read from a network file computes on a
pgmpy-free :class:`~causalcost.network.graph.Graph` (``system.graph``) and builds its pgmpy
network on first access to ``system.network``; one made by :meth:`System.from_pgmpy` computes
on the user's pgmpy network itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import networkx as nx
import numpy as np

from causalcost.confusion import OUTCOMES
from causalcost.errors import (
    CPDError,
    InputTypeError,
    NetworkStructureError,
    UnknownNameError,
)
from causalcost.network.cpds import (
    CPD_ATOL,
    check_cpd,
    confusion_cpd,
    is_deterministic,
    names,
    node_table,
    plain,
    require_node,
    states_of,
)
from causalcost.network.fusioners import Fusioner
from causalcost.network.graph import Graph
from causalcost.network.roles import (
    default_positive,
    require_binary,
    score_inputs,
    validate_roles,
)
from causalcost.network.scores import ScoreFusioner
from causalcost.network.votes import describes, recognise_vote, vote_inputs

if TYPE_CHECKING:
    import pandas as pd

    from causalcost.network._pgmpy import DiscreteBayesianNetwork
    from causalcost.network.labelled import Declaration, LabelledModel, Latent
    from causalcost.network.picture import SystemPicture

__all__ = ["System", "node_table", "is_deterministic", "CPD_ATOL", "confusion_cpd",
           "require_node"]

T = TypeVar("T")

#: The role of each kind of node, as :attr:`System.roles` names them.
ROLES = ("class", "model", "slot", "counts", "fusioner", "confusion", "other")


@dataclass(frozen=True, eq=False)
class System:
    """A classifier system declared as a causal Bayesian network, for any number of labels.

    Two shapes share this type: a network of any shape whose class, models and system
    prediction are binary (positive first: :attr:`labels` is ``(positive, negative)``), and a
    system declared by its K >= 2 labels (``SystemBuilder(prior, labels=[...])``, or
    :meth:`from_pgmpy` on a class with more than two states), which holds its class prior,
    latents and models' K x K rates (:attr:`declaration`) and builds its pgmpy network on
    demand.

    Build one with :class:`causalcost.SystemBuilder`, :func:`causalcost.load_network` or
    :meth:`System.from_pgmpy`; the constructor is not meant to be called directly.

    Attributes
    ----------
    network : pgmpy.models.DiscreteBayesianNetwork
        The network, including the confusion node. Treat it as read-only: interventions
        return new networks. Built (importing pgmpy) on first access for a system that was
        declared without pgmpy; its CPD value arrays are those the system computes on.
    graph : Graph or pgmpy.models.DiscreteBayesianNetwork
        What the system computes on: the pgmpy-free :class:`~causalcost.network.graph.Graph`
        of a declared system, or the pgmpy network of one made by :meth:`from_pgmpy`.
    class_node, system_node, confusion_node : str
        Roles: true class, system prediction (fusioner output), confusion of the two.
    models : tuple of str
        The member models (by default the inputs of the system prediction, found behind any
        count nodes).
    slot : str or None
        The model under evaluation, if chosen.
    positive : str
        The positive state of class, models and system prediction.
    name : str
        A label for reports.
    fusioner : Fusioner or None
        The rule the system prediction computes, when known: declared by the builder (and
        verified against the tables) or recognised in them. A vote with non-negative
        weights (``fusioner.monotone``) makes the system monotone in every model by
        construction (:attr:`known_monotone`).
    counts : tuple of str
        The deterministic count nodes the fusioner is divorced into (role ``"counts"``),
        first to last; empty when the models feed the system prediction directly.

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("majority3")
    >>> system.class_node, system.system_node, system.slot
    ('Class', 'Fusioner', 'clinical_history')
    >>> system.with_slot("images").slot, system.is_deterministic("Fusioner")
    ('images', True)
    >>> system.fusioner, system.counts, system.known_monotone
    (Fusioner(majority of 3), (), True)
    """

    graph: Any
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
    fusioner: Any = None  # a Fusioner; a K-label rule for a system declared by labels
    counts: tuple[str, ...] = ()
    #: Why ``positive`` was chosen without being given (``None`` when it was given).
    positive_note: str | None = field(default=None, repr=False)
    #: The pgmpy network built from ``graph`` once asked for (shared by ``with_slot`` copies).
    _pgmpy: list[Any] = field(default_factory=list, repr=False, compare=False)
    #: A system declared by its labels (``SystemBuilder(prior, labels=[...])``): its class
    #: prior, latents and models' K x K rates; ``None`` for a network of any shape.
    declaration: Declaration | None = field(default=None, repr=False)

    @property
    def network(self) -> DiscreteBayesianNetwork:
        """The pgmpy network (built from :attr:`graph` on first access; see the class doc)."""
        if self.declaration is not None:
            if not self._pgmpy or self._pgmpy[0][0] != self.slot:  # tie="slot" tables
                from causalcost.network.labelled import to_pgmpy

                self._pgmpy[:] = [(self.slot, to_pgmpy(self))]
            return self._pgmpy[0][1]
        if not isinstance(self.graph, Graph):
            return self.graph
        if not self._pgmpy:
            self._pgmpy.append(self.graph.to_pgmpy())
        return self._pgmpy[0]

    # -- labels -------------------------------------------------------------------------
    @property
    def labels(self) -> tuple[str, ...]:
        """The K labels: the states of class, models and system output, in order. A binary
        network's are ``(positive, negative)``.

        >>> import causalcost as cc
        >>> cc.load_network("thesis_and").labels
        ('P', 'N')
        """
        if self.declaration is not None:
            return self.declaration.labels
        return (str(self.positive), str(self.negative()))

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def _declared(self, what: str) -> Declaration:
        if self.declaration is None:
            raise NetworkStructureError(
                f"{what} belongs to a system declared by its labels "
                "(SystemBuilder(prior, labels=[...])); this one is a network: read its CPDs "
                "from system.network")
        return self.declaration

    @property
    def class_prior(self) -> np.ndarray:
        """``P(Class = label)`` in label order (a system declared by its labels)."""
        return self._declared("class_prior").class_prior

    @property
    def latents(self) -> tuple[Latent, ...]:
        """The latent nodes (a system declared by its labels)."""
        return self._declared("latents").latents

    @property
    def members(self) -> tuple[LabelledModel, ...]:
        """The models with their K x K rates (a system declared by its labels)."""
        return self._declared("members").members

    def latent_configurations(self, c: int) -> list[tuple[float, dict[str, int]]]:
        """``(P(z | Class = c), {latent: state index})`` for every joint latent state."""
        return self._declared("latent_configurations").latent_configurations(c)

    def vote_rates(self, c: int, latent_state: dict[str, int]) -> np.ndarray:
        """``P(M_i = j | Class = c, latents)``: shape (models, K)."""
        return self._declared("vote_rates").vote_rates(c, latent_state)

    @property
    def extra_lines(self) -> dict[str, list[str]] | None:
        """Lines a picture draws under node names: the labels under the class, the rule and
        the labels under the system output (None: the picture reads the fusioner)."""
        f = self.score_fusioner
        if f is not None:  # score nodes: "score" and their bins; the rule under the fusioner
            lines = {m: ["score", _bins_text(b)] for m, b in zip(f.inputs, f.bins)}
            lines[self.system_node] = f.lines()
            return lines
        if self.declaration is None:
            return None
        from causalcost.network.picture import rule_lines

        states = " / ".join(self.labels)
        return {self.class_node: [states], self.system_node: [*rule_lines(self.fusioner), states]}

    @classmethod
    def declared(cls, declaration: Declaration, fusioner: Any, *, slot: str | None = None,
                 class_node: str = "Class", system_node: str = "System",
                 name: str = "system") -> System:
        """A system declared by its labels (what :class:`~causalcost.SystemBuilder` builds
        with ``labels=``; assumes a checked declaration)."""
        graph = nx.DiGraph()
        taken = {class_node, system_node, *(m.name for m in declaration.members),
                 *(lat.name for lat in declaration.latents)}
        confusion = "Confusion"
        while confusion in taken:
            confusion += "_"
        graph.add_node(class_node)
        for lat in declaration.latents:
            graph.add_edge(class_node, lat.name)
        for m in declaration.members:
            graph.add_edge(class_node, m.name)
            if m.latent is not None:
                graph.add_edge(m.latent, m.name)
            graph.add_edge(m.name, system_node)
        graph.add_edge(class_node, confusion)
        graph.add_edge(system_node, confusion)
        system = cls(graph, class_node, system_node, confusion,
                     tuple(m.name for m in declaration.members), None, declaration.labels[0],
                     name, frozenset({system_node, confusion}), {}, fusioner,
                     declaration=declaration)
        return system.with_slot(slot) if slot is not None else system

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_pgmpy(
        cls,
        network: DiscreteBayesianNetwork,
        *,
        class_node: str,
        system_node: str,
        slot: str | None = None,
        positive: Any = None,
        confusion_node: str | None = None,
        models: Sequence[str] | None = None,
        name: str = "system",
        fusioner: Fusioner | ScoreFusioner | None = None,
    ) -> System:
        """Validate a user-built pgmpy network and name its roles.

        The user's network is never modified: when it has no confusion node, a copy gets a
        deterministic one named ``"Confusion"`` (or ``confusion_node``).

        Parameters
        ----------
        positive : str, optional
            The positive state of class, models and system prediction. Default ``"P"``, or
            ``1`` when the class's states are exactly ``0`` and ``1`` (pgmpy's default state
            names); the repr then says it was assumed.
        models : sequence of str, optional
            Default: the parents of the system node other than the class, looking through
            deterministic intermediate nodes (count nodes) to the models behind them.
        fusioner : Fusioner, optional
            The rule the system node computes; verified against the tables (an error if it
            does not match). Without it, a vote is recognised when the tables are exactly
            those of one (:func:`causalcost.network.votes.recognise_vote`).

        Raises
        ------
        UnknownNameError
            A role names a node or state the network does not have.
        CPDError
            A node has no CPD, or a CPD column is negative or does not sum to 1.
        NetworkStructureError
            The slot does not reach the system prediction, the class descends from the
            slot, the system prediction is not deterministic, a role is not binary or does
            not use the class's state names, the confusion node is not the confusion of class
            and system prediction, or ``fusioner`` is not what the tables compute.

        Examples
        --------
        >>> import causalcost as cc
        >>> built = cc.load_network("thesis_and")
        >>> again = cc.System.from_pgmpy(built.network, class_node="Class",
        ...                              system_node="Fusioner", slot="clinical_history")
        >>> again.models, again.fusioner
        (('images', 'clinical_history'), Fusioner(AND: positive when every model says positive))
        """
        from causalcost.network._pgmpy import DiscreteBayesianNetwork

        if not isinstance(network, DiscreteBayesianNetwork):
            raise TypeError(
                "network must be a pgmpy DiscreteBayesianNetwork, got "
                f"{type(network).__name__}"
            )
        if _multiclass(network, class_node):  # K >= 3 class states: the labelled shape
            from causalcost.network.labelled import read_pgmpy

            declaration, rule = read_pgmpy(network, class_node=class_node,
                                           system_node=system_node, models=models)
            return cls.declared(declaration, rule, slot=slot, class_node=class_node,
                                system_node=system_node, name=name)
        return cls._validated(network, class_node=class_node, system_node=system_node,
                              slot=slot, positive=positive, confusion_node=confusion_node,
                              models=models, name=name, fusioner=fusioner)

    @classmethod
    def _validated(
        cls,
        network: Any,
        *,
        class_node: str,
        system_node: str,
        slot: str | None = None,
        positive: Any = None,
        confusion_node: str | None = None,
        models: Sequence[str] | None = None,
        name: str = "system",
        fusioner: Fusioner | ScoreFusioner | None = None,
    ) -> System:
        """:meth:`from_pgmpy` on a pgmpy network or a :class:`Graph` (what the builder makes)."""
        class_node, system_node = _plain(class_node, "class_node"), _plain(system_node,
                                                                           "system_node")
        for node, role in ((class_node, "class node"), (system_node, "system node")):
            require_node(network, node, role)
        missing = [n for n in network.nodes() if network.get_cpds(n) is None]
        if missing:
            raise CPDError(f"nodes without a CPD: {names(missing)}; add one with add_cpds")
        for cpd in network.get_cpds():
            check_cpd(cpd)
        positive, note = default_positive(network, class_node, positive)
        between: tuple[str, ...] = ()
        if models is None:
            models, between = vote_inputs(network, system_node, class_node)
        if isinstance(models, str):
            raise NetworkStructureError(f"models must be a list of node names, got {models!r}")
        models = tuple(str(m) for m in models)
        for m in models:
            require_node(network, m, "model")
        if not models:
            raise NetworkStructureError(
                f"the system node {system_node!r} has no model among its parents; name the "
                "models explicitly"
            )
        if confusion_node is None and "Confusion" in network.nodes():
            confusion_node = "Confusion"  # an existing confusion node is validated, not re-added
        if confusion_node is not None:
            confusion_node = _plain(confusion_node, "confusion_node")
        if confusion_node is not None and confusion_node in network.nodes():
            net = network
        else:
            net = copy.deepcopy(network)
            confusion_node = confusion_node or "Confusion"
            if confusion_node in net.nodes():
                raise NetworkStructureError(f"node name {confusion_node!r} is already taken")
            net.add_edges_from([(class_node, confusion_node), (system_node, confusion_node)])
            net.add_cpds(confusion_cpd(
                confusion_node, class_node, states_of(net, class_node), system_node,
                states_of(net, system_node), positive,
            ))
        deterministic = frozenset(n for n in net.nodes() if is_deterministic(net.get_cpds(n)))
        scores = fusioner if isinstance(fusioner, ScoreFusioner) else None
        system = cls(net, class_node, system_node, confusion_node, models, None, positive, name,
                     deterministic, {}, scores, tuple(map(str, between)), note)
        validate_roles(system)
        system._validate_confusion()
        system = system._with_fusioner(fusioner) if scores is None else system._with_scores()
        return system.with_slot(slot) if slot is not None else system

    def _with_fusioner(self, fusioner: Fusioner | None) -> System:
        """This system with its fusioner verified (given) or recognised (not given)."""
        net, target = self.graph, self.system_node
        if fusioner is not None:
            if not isinstance(fusioner, Fusioner):
                raise InputTypeError(
                    "fusioner must be a Fusioner (causalcost.make_fusioner(rule, models, ...)), "
                    f"got {type(fusioner).__name__}")
            counts = describes(net, target, fusioner, self.positive)
            if counts is None:
                raise NetworkStructureError(
                    f"fusioner {fusioner.description!r} over {list(fusioner.inputs)} is not what "
                    f"the tables of {target!r} compute; pass the rule the network declares, or "
                    "none"
                )
            return replace(self, fusioner=fusioner, counts=tuple(map(str, counts)))
        found = recognise_vote(net, target, self.class_node, self.positive)
        if found is None:
            return self
        return replace(self, fusioner=found[0], counts=tuple(map(str, found[1])))

    def _with_scores(self) -> System:
        """This system with its score fusioner verified against the tables: the system node's
        parents are the score models, in order, each with the fusioner's bins as its states,
        and its table is the rule's decision on every combination of bins."""
        f: ScoreFusioner = self.fusioner
        net, target = self.graph, self.system_node
        cpd = net.get_cpds(target)
        parents = tuple(map(str, cpd.variables[1:]))
        if parents != f.inputs:
            raise NetworkStructureError(
                f"the score fusioner reads {list(f.inputs)}, but {target!r} has the parents "
                f"{list(parents)}: its parents must be the score models, in the rule's order")
        for m, bins in zip(f.inputs, f.bins):
            if tuple(plain(self.states(m))) != bins:
                raise NetworkStructureError(
                    f"score model {m!r} has the states {plain(self.states(m))}, but the score "
                    f"fusioner's bins for it are {list(bins)}")
        states = plain(self.states(target))
        said = np.argmax(node_table(cpd), axis=0) == states.index(plain([self.positive])[0])
        if not np.array_equal(said, f.decisions.ravel()):
            raise NetworkStructureError(
                f"the table of {target!r} is not the score rule {f.description!r} on the "
                "bins' representative scores; pass the rule the network declares")
        return self

    @property
    def score_fusioner(self) -> ScoreFusioner | None:
        """The score fusioner of a system whose models output scores over bins
        (:mod:`causalcost.network.scores`), else None."""
        return self.fusioner if isinstance(self.fusioner, ScoreFusioner) else None

    def with_slot(self, slot: str) -> System:
        """The same system with ``slot`` as the model under evaluation (validated)."""
        self._check_slot(slot)
        return replace(self, slot=str(slot))

    def require_slot(self, slot: str | None = None) -> str:
        """The slot to use: ``slot`` if given (validated once per system), else the system's own.

        Cheap and idempotent: the system's own slot was validated when it was set, and another
        slot's validation is remembered (public functions call this once, at their boundary).
        """
        if slot is not None and slot != self.slot:
            self._check_slot(slot)
            return str(slot)
        if self.slot is None:
            raise NetworkStructureError(
                f"no slot chosen: pass slot=... (one of {names(self.models)})"
            )
        return self.slot

    def _check_slot(self, slot: str) -> None:
        """Validate ``slot`` (remembered per network; errors are raised every time)."""
        key = ("valid slot", slot)
        if isinstance(slot, str) and self._plans.get(key) is True:
            return
        if isinstance(slot, str):
            slot = str(slot)
        if self.declaration is not None:
            if not isinstance(slot, str) or slot not in self.models:
                raise UnknownNameError(f"slot {slot!r} is not a model; models: "
                                       f"{list(self.models)}")
            self._plans[key] = True
            return
        if not isinstance(slot, str) or slot not in self.graph.nodes():
            raise UnknownNameError(
                f"slot {slot!r} is not a node of the network; the models are {names(self.models)}"
            )
        if slot in (self.class_node, self.system_node, self.confusion_node):
            raise NetworkStructureError(f"the slot must be a model, not the {slot!r} role node")
        if slot in self.counts:
            raise NetworkStructureError(
                f"{slot!r} is a count node of the fusioner, not a model; choose one of "
                f"{names(self.models)}"
            )
        if slot not in score_inputs(self):  # a score slot's states are its bins
            require_binary(self, slot, "slot")
        if slot not in nx.ancestors(self.graph, self.system_node):
            raise NetworkStructureError(
                f"slot {slot!r} does not reach the system prediction {self.system_node!r}: "
                f"forcing it cannot change the system; choose one of {names(self.models)}"
            )
        if self.class_node in nx.descendants(self.graph, slot):
            raise NetworkStructureError(
                f"class node {self.class_node!r} is a descendant of slot {slot!r}: a model "
                "cannot cause the true class; reverse the offending edge"
            )
        self._plans[key] = True

    # -- queries ------------------------------------------------------------------------
    def states(self, node: str) -> list[str]:
        """State names of ``node`` (for the confusion node of a system declared by its
        labels: every ``true->output`` pair)."""
        d = self.declaration
        if d is not None:
            if node == self.confusion_node:
                return [f"{c}->{s}" for c in d.labels for s in d.labels]
            latent = next((lat for lat in d.latents if lat.name == node), None)
            if latent is not None:
                return list(latent.states)
            if node not in self.graph:
                raise UnknownNameError(f"no node {node!r}; nodes: {list(self.graph.nodes)}")
            return list(d.labels)
        require_node(self.graph, node, "node")
        return states_of(self.graph, node)

    def negative(self) -> str:
        """The negative state name of the class node (K = 2)."""
        if self.declaration is not None and self.declaration.k != 2:
            raise NetworkStructureError(
                f"a system with {self.declaration.k} labels has no negative state: name a "
                f"label of {list(self.labels)}")
        return next(s for s in self.states(self.class_node) if s != self.positive)

    def is_deterministic(self, node: str) -> bool:
        """Whether ``node``'s CPD is deterministic (drawn with a double circle)."""
        require_node(self.graph, node, "node")
        return node in self._deterministic

    @property
    def deterministic_nodes(self) -> frozenset[str]:
        """All nodes whose CPD puts probability 1 on one state in every column."""
        return self._deterministic

    @property
    def known_monotone(self) -> bool:
        """Whether the system is monotone in every model *by construction*: its fusioner is a
        known vote with non-negative weights over models that feed it only through the vote
        (no model is an ancestor of another input). ``False`` means "not known", not "not
        monotone": :func:`causalcost.check_monotonicity` decides."""
        f = self.fusioner
        if f is None or getattr(f, "monotone", None) is not True:
            return False
        inputs = set(f.inputs)
        return not any(nx.descendants(self.graph, m) & inputs for m in inputs)

    @property
    def roles(self) -> dict[str, str]:
        """Every node's role: ``"class"``, ``"model"``, ``"slot"``, ``"counts"`` (a count
        node of a divorced fusioner), ``"fusioner"``, ``"confusion"`` or ``"other"``.

        >>> import causalcost as cc
        >>> cc.load_network("thesis_and").roles["clinical_history"]
        'slot'
        """
        out = {n: "other" for n in self.graph.nodes()}
        out.update({m: "model" for m in self.models})
        out.update({c: "counts" for c in self.counts})
        out.update({self.class_node: "class", self.system_node: "fusioner",
                    self.confusion_node: "confusion"})
        if self.slot is not None:
            out[self.slot] = "slot"
        return out

    def to_bif(self, path: str) -> None:
        """Write the network (with its confusion node) as BIF for pgmpy, pyAgrum, etc.

        BIF has no notion of roles; read it back with :func:`causalcost.load_bif` naming
        ``class_node``, ``system_node`` and ``positive``. The models' order and the fusion
        rule (a binary vote, or a K-label rule with its name and options) are recorded as
        ``property`` lines of the system node, which ``load_bif`` reads back (other readers
        skip them); a user function is written as its table. See :mod:`causalcost.network.bif`
        for the names BIF can carry (others are refused here, before writing) and for
        precision: pgmpy reads the file back exactly; pyAgrum reads BIF probabilities as
        32-bit floats (tables off by up to ~3e-8), so give pyAgrum the arrays instead for a
        lossless copy.

        Raises
        ------
        NetworkFileError
            A node or state name the BIF grammar cannot read back (the message names it
            and the rule).
        """
        from causalcost.network.bif import write_bif

        write_bif(self.network, path, system_node=self.system_node, models=self.models,
                  fusioner=self.fusioner, slot=self.slot)

    def memo(self, key: object, make: Callable[[], T]) -> T:
        """``make()`` once per ``key`` and set of CPD objects (internal planning cache)."""
        cpds = tuple(self.graph.cpds)
        hit = self._plans.get(key)
        if hit is not None:
            made_from, value = hit  # type: ignore[misc]
            if len(made_from) == len(cpds) and all(a is b for a, b in zip(made_from, cpds)):
                return value  # type: ignore[no-any-return]
        value = make()
        self._plans[key] = (cpds, value)
        return value

    def __repr__(self) -> str:
        models = [str(m) for m in self.models]
        if self.declaration is not None:
            return (f"System(name={self.name!r}, labels={list(self.labels)}, models={models}, "
                    f"fusioner={self.fusioner.kind!r}, slot={self.slot!r})")
        shown = (f"{models}" if len(models) <= 6 else
                 f"[{', '.join(map(repr, models[:3]))}, ..., {models[-1]!r}] ({len(models)})")
        extra = f", counts={len(self.counts)}" if self.counts else ""
        if self.positive_note:
            extra += f", positive={plain([self.positive])[0]!r} ({self.positive_note})"
        return (
            f"System(name={self.name!r}, class={self.class_node!r}, models={shown}, "
            f"system={self.system_node!r}, slot={self.slot!r}{extra}, nodes={len(self.graph)})"
        )

    def picture(self, intervention: str | None = None, *,
                slot: str | None = None) -> SystemPicture:
        """The DAG as an SVG picture, or the mutilated graph under ``do(slot = intervention)``.

        A notebook shows the system itself with this picture and its roles; see
        :func:`causalcost.system_picture` (and :func:`causalcost.intervention_picture` for the
        two side by side).

        >>> import causalcost as cc
        >>> cc.load_network("thesis_and").picture("P")
        SystemPicture('thesis_and: do(clinical_history = P)', 421x594 px)
        """
        from causalcost.network.picture import system_picture

        return system_picture(self, slot=slot, intervention=intervention)

    def to_frame(self) -> pd.DataFrame:
        """One row per node: its role, states, parents and whether it is deterministic.

        >>> import causalcost as cc
        >>> cc.load_network("thesis_and").to_frame().loc["clinical_history"].to_dict()
        {'role': 'slot', 'states': 'P, N', 'parents': 'Class', 'deterministic': False}
        """
        roles = self.roles
        rows = {str(n): {"role": roles[n],
                         "states": ", ".join(plain(self.states(n))),
                         "parents": ", ".join(str(q) for q in self.graph.predecessors(n)),
                         "deterministic": bool(n in self.deterministic_nodes)}
                for n in nx.topological_sort(self.graph)}
        import pandas as pd

        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "node"
        return frame

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def _repr_html_(self) -> str:
        from causalcost.display import html_block, html_side_by_side, html_table

        kind = (f"labels: {', '.join(self.labels)}" if self.declaration is not None
                else f"positive class state: {plain([self.positive])[0]}")
        head = [f"{len(self.models)} models: {', '.join(map(str, self.models))}; "
                f"slot: {self.slot if self.slot is not None else '(none)'}; {kind}"]
        fusioner = self.fusioner
        if fusioner is not None:
            head.append(f"fusioner: {fusioner!r}")
        return html_block(f"System {self.name!r}", head,
                          html_side_by_side(self.picture().svg,
                                            html_table(self.to_frame(), caption="Nodes")))

    def _validate_confusion(self) -> None:
        net, node = self.graph, self.confusion_node
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
                f"it has {plain(cpd.state_names[node])}"
            )
        table = node_table(cpd)
        order = cpd.variables[1:]
        cards = [len(cpd.state_names[p]) for p in order]
        grid = np.unravel_index(np.arange(table.shape[1]), cards)
        truth = {p: np.array([s == self.positive for s in plain(cpd.state_names[p])])[g]
                 for p, g in zip(order, grid)}
        c, s = truth[self.class_node], truth[self.system_node]
        expected = np.select([c & s, c & ~s, ~c & s], [0, 1, 2], 3)  # OUTCOMES order
        columns = np.arange(table.shape[1])
        wrong = np.flatnonzero(np.abs(table[expected, columns] - 1) > CPD_ATOL)
        if wrong.size:
            j = int(wrong[0])
            values = {p: plain([cpd.state_names[p][int(g[j])]])[0] for p, g in zip(order, grid)}
            raise NetworkStructureError(
                f"confusion node {node!r} is not the confusion of class and prediction: at "
                f"{values} it must be {OUTCOMES[int(expected[j])]} with probability 1, got "
                f"{dict(zip(OUTCOMES, table[:, j].round(6).tolist()))}"
            )


def _bins_text(bins: tuple[str, ...]) -> str:
    """A score node's bins in one short line: all of them, or the first and last."""
    text = " | ".join(bins)
    return text if len(text) <= 24 else f"{len(bins)} bins {bins[0]} .. {bins[-1]}"


def _multiclass(network: DiscreteBayesianNetwork, class_node: object) -> bool:
    """Whether the class node has more than two states (a K-label system)."""
    cpd = network.get_cpds(class_node) if class_node in network.nodes() else None
    return cpd is not None and cpd.variable_card > 2


def _plain(value: Any, role: str) -> str:
    """A role's node name as a plain ``str``; anything else is refused."""
    if not isinstance(value, str):
        raise InputTypeError(f"{role} must be a node name (a string), got {value!r}")
    return str(value)
