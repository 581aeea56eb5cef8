"""Systems declared by their labels: ``cc.SystemBuilder(prior, labels=[...])``.

A system declared with ``labels=`` (K >= 2 labels) has this shape, which
:meth:`causalcost.System.from_pgmpy` also accepts for a class with more than two states:

* the class node (K states, a root) with prior ``P(Class = c)``;
* latent nodes, each a root or a child of the class (``P(Z = z | Class = c)``): they carry
  the correlation between the models' errors;
* models (K states, the class's labels in order), each a child of the class and of at most
  one latent, ``P(M = j | Class = c[, Z = z])``: rows are the true class, so without a latent
  the table is the model's K x K confusion rates;
* the system node (K states), a function of the models' votes (a fusion rule from
  :mod:`causalcost.network.fusioners`, or a pgmpy table).

Given the class and the latents the models vote independently, which the exact engine
(:mod:`causalcost.inference.label_votes`) uses. The pgmpy network is built on demand
(:func:`to_pgmpy`) for reference computations, BIF export and pictures.

>>> import numpy as np, causalcost as cc
>>> eye = np.eye(3)
>>> system = (
...     cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
...     .add_latent("Difficulty", ["easy", "hard"], [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]])
...     .add_model("a", confusion={"easy": 0.9 * eye + 0.05 * (1 - eye),
...                                "hard": 0.5 * eye + 0.25 * (1 - eye)}, latent="Difficulty")
...     .add_model("b", confusion=0.8 * eye + 0.1 * (1 - eye))
...     .add_model("c", confusion=0.7 * eye + 0.15 * (1 - eye))
...     .set_fusioner("plurality", tie="slot")
...     .build(slot="c"))
>>> round(float(cc.interventional_table(system).to_numpy()[2, 2, 2]), 6)
0.97
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalcost.errors import (
    CPDError,
    InputTypeError,
    NetworkStructureError,
    UnknownNameError,
    ValidationError,
)

__all__ = ["Latent", "LabelledModel", "Declaration", "LabelledDeclaration", "read_pgmpy",
           "to_pgmpy", "fusion_table", "MAX_TABLE_ENTRIES", "rule_words"]

_TOL = 1e-9
#: Largest system-node table written to pgmpy (K^(n+1) entries).
MAX_TABLE_ENTRIES = 20_000_000


@dataclass(frozen=True, eq=False)
class Latent:
    """A latent node: ``probabilities[c, z] = P(Z = z | Class = c)``."""

    name: str
    states: tuple[str, ...]
    probabilities: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class LabelledModel:
    """A member model: ``rates[c, z, j] = P(M = j | Class = c, latent = z)`` (one z without
    a latent)."""

    name: str
    latent: str | None
    rates: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class Declaration:
    """What a system declared by its labels holds: labels, class prior, latents, models.

    >>> d = Declaration(("a", "b"), np.array([0.5, 0.5]), (),
    ...                 (LabelledModel("m", None, np.eye(2)[:, None, :]),))
    >>> d.vote_rates(1, {}).tolist()
    [[0.0, 1.0]]
    """

    labels: tuple[str, ...]
    class_prior: np.ndarray = field(repr=False)
    latents: tuple[Latent, ...]
    members: tuple[LabelledModel, ...]

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def latent_configurations(self, c: int) -> list[tuple[float, dict[str, int]]]:
        """``(P(z | Class = c), {latent: state index})`` for every joint latent state."""
        out = []
        for z in itertools.product(*(range(len(lat.states)) for lat in self.latents)):
            p = float(np.prod([lat.probabilities[c, s] for lat, s in zip(self.latents, z)]))
            out.append((p, {lat.name: s for lat, s in zip(self.latents, z)}))
        return out

    def vote_rates(self, c: int, latent_state: Mapping[str, int]) -> np.ndarray:
        """``P(M_i = j | Class = c, latents)``: shape (models, K)."""
        rows = [m.rates[c, 0 if m.latent is None else latent_state[m.latent]]
                for m in self.members]
        return np.asarray(rows, dtype=float)


def check_rows(what: str, rows: object, width: int, count: int | None = None) -> np.ndarray:
    """A 2-D array of probability rows (each sums to 1) of the given width.

    Raises
    ------
    CPDError
        A wrong shape, a negative or non-finite entry, or a row not summing to 1 (named).
    """
    try:
        arr = np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        raise CPDError(f"{what} must be rows of probabilities, got {rows!r}") from None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != width or (count is not None and arr.shape[0] != count):
        want = f"({count}, {width})" if count is not None else f"(rows, {width})"
        raise CPDError(f"{what} must have shape {want}, got {arr.shape}")
    for r, row in enumerate(arr):
        if not np.all(np.isfinite(row)) or row.min() < 0 or abs(row.sum() - 1) > _TOL:
            raise CPDError(f"{what}: row {r} ({row.tolist()}) must be non-negative and sum "
                           f"to 1 (sums to {row.sum():.6g})")
    return arr


def check_structure(labels: Sequence[str], latents: Sequence[Latent],
                    members: Sequence[LabelledModel], roles: Sequence[str] = ()) -> None:
    """Names distinct (also from the role nodes), every model's latent declared, a model.

    Raises
    ------
    NetworkStructureError
    """
    names = [*roles, *(lat.name for lat in latents), *(m.name for m in members)]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise NetworkStructureError(f"node names must be distinct; repeated: {dup}")
    if not members:
        raise NetworkStructureError("a system needs at least one model (add_model)")
    known = {lat.name for lat in latents}
    for m in members:
        if m.latent is not None and m.latent not in known:
            raise NetworkStructureError(f"model {m.name!r} depends on latent {m.latent!r}, "
                                        f"which is not declared (add_latent first)")
    if len(labels) < 2:
        raise NetworkStructureError("labels must hold at least 2 labels")


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputTypeError(f"{what} must be a non-empty string, got {value!r}")
    return value


class LabelledDeclaration:
    """The declarations of :class:`~causalcost.SystemBuilder` given ``labels=`` (K >= 2).

    The builder keeps one of these and forwards ``add_latent``, ``add_model``,
    ``set_fusioner`` and ``build`` to it.
    """

    def __init__(self, class_prior: Sequence[float] | None, labels: Sequence[Any], *,
                 class_node: str = "Class", system_node: str = "System",
                 name: str = "system") -> None:
        if isinstance(labels, str) or not isinstance(labels, Sequence):
            raise InputTypeError(f"labels must be a list of label names, got {labels!r}")
        self.labels = tuple(str(v) for v in labels)
        if len(self.labels) < 2 or len(set(self.labels)) != len(self.labels):
            raise ValidationError(f"labels must be at least 2 distinct names, got {list(labels)}")
        if class_prior is None:
            raise ValidationError("class_prior is required: one probability per label "
                                  f"({list(self.labels)})")
        self.prior = check_rows("class_prior", class_prior, len(self.labels), 1)[0]
        self.class_node = _name(class_node, "class_node")
        self.system_node = _name(system_node, "system_node")
        self.name = _name(name, "name")
        self.latents: list[Latent] = []
        self.models: list[LabelledModel] = []
        self.fusion: tuple[Any, dict[str, Any]] | None = None

    def add_latent(self, name: str, states: Sequence[str],
                   probabilities: Sequence[float] | Sequence[Sequence[float]]) -> None:
        """See :meth:`causalcost.SystemBuilder.add_latent`."""
        name = _name(name, "latent name")
        states = tuple(str(s) for s in states)
        if len(states) < 1 or len(set(states)) != len(states):
            raise ValidationError(f"latent {name!r}: states must be distinct, got {list(states)}")
        rows = check_rows(f"probabilities of latent {name!r}", probabilities, len(states))
        if rows.shape[0] == 1:
            rows = np.repeat(rows, len(self.labels), axis=0)
        elif rows.shape[0] != len(self.labels):
            raise ValidationError(f"probabilities of latent {name!r} must be one row, or one "
                                  f"row per label ({len(self.labels)}), got {rows.shape[0]}")
        self.latents.append(Latent(name, states, rows))

    def add_model(self, name: str, confusion: object, latent: str | None) -> None:
        """See :meth:`causalcost.SystemBuilder.add_model` (``confusion=``)."""
        name = _name(name, "model name")
        k = len(self.labels)
        if hasattr(confusion, "to_numpy") and not isinstance(confusion, Mapping):
            confusion = confusion.to_numpy()  # a confusion-like object (rows: true class)
        if latent is None:
            if isinstance(confusion, Mapping):
                raise ValidationError(f"model {name!r}: confusion per latent state needs "
                                      "latent=")
            rates = check_rows(f"confusion of {name!r}", confusion, k, k)[:, None, :]
        else:
            lat = next((x for x in self.latents if x.name == latent), None)
            if lat is None:
                raise NetworkStructureError(f"model {name!r}: latent {latent!r} is not declared "
                                            "(add_latent first)")
            if not isinstance(confusion, Mapping) or set(map(str, confusion)) != set(lat.states):
                raise ValidationError(f"model {name!r}: confusion must map every state of "
                                      f"{latent!r} ({list(lat.states)}) to K x K rates")
            table = {str(z): v for z, v in confusion.items()}
            rates = np.stack([check_rows(f"confusion of {name!r} given {latent}={z}",
                                         table[z], k, k) for z in lat.states], axis=1)
        self.models.append(LabelledModel(name, latent, rates))

    def set_fusioner(self, kind: str | Callable[..., Any], options: dict[str, Any]) -> None:
        """See :meth:`causalcost.SystemBuilder.set_fusioner`."""
        self.fusion = (kind, dict(options))

    def declare(self) -> tuple[Declaration, Any]:
        """The checked declaration and its fusion rule (``SystemBuilder.build`` makes the
        :class:`~causalcost.System`).

        Raises
        ------
        NetworkStructureError
            No model, repeated names, no fusioner.
        """
        from causalcost.network.fusioners import make_fusioner

        check_structure(self.labels, self.latents, self.models,
                        (self.class_node, self.system_node))
        if self.fusion is None:
            raise NetworkStructureError("no fusioner: call set_fusioner(...) before build()")
        kind, options = self.fusion
        fusioner = make_fusioner(kind, [m.name for m in self.models], labels=self.labels,
                                 **options)
        return Declaration(self.labels, self.prior, tuple(self.latents),
                           tuple(self.models)), fusioner


# -- pgmpy -------------------------------------------------------------------------------
def _values(network: Any, node: str, parents: list[str]) -> np.ndarray:
    """The CPD of ``node`` as an array indexed ``[parents..., node]``."""
    cpd = network.get_cpds(node)
    if cpd is None:
        raise CPDError(f"node {node!r} has no CPD; add one with add_cpds")
    arr = np.asarray(cpd.values, dtype=float)  # axes: node, evidence... (cpd.variables order)
    order = [str(v) for v in cpd.variables]
    perm = [order.index(p) for p in parents] + [0]
    return np.transpose(arr, perm)


def _states(network: Any, node: str) -> tuple[str, ...]:
    cpd = network.get_cpds(node)
    if cpd is None:
        raise CPDError(f"node {node!r} has no CPD; add one with add_cpds")
    return tuple(str(s) for s in cpd.state_names[node])


def read_pgmpy(network: Any, *, class_node: str, system_node: str,
               models: Sequence[str] | None = None) -> tuple[Declaration, Any]:
    """The declaration and fusion rule of a pgmpy network of the module's shape
    (:meth:`causalcost.System.from_pgmpy` makes the system).

    The labels are the class node's states in order; the system node's table (deterministic
    or not) becomes a ``table`` fusioner. ``models`` orders the models (default: the system
    node's CPD order).

    Raises
    ------
    UnknownNameError
        ``class_node`` or ``system_node`` is not in the network.
    NetworkStructureError
        A node outside the accepted shape (named, with why).
    CPDError
        A missing CPD.
    """
    from causalcost.network.fusioners import Fusioner

    nodes = set(map(str, network.nodes()))
    for node, role in ((class_node, "class_node"), (system_node, "system_node")):
        if node not in nodes:
            raise UnknownNameError(f"{role} {node!r} is not a node of the network; nodes: "
                                   f"{sorted(nodes)}")
    labels = _states(network, class_node)
    if list(network.predecessors(class_node)):
        raise NetworkStructureError(f"the class node {class_node!r} must be a root (no parents)")
    cpd = network.get_cpds(system_node)
    if cpd is None:
        raise CPDError(f"node {system_node!r} has no CPD; add one with add_cpds")
    found = [str(m) for m in cpd.variables[1:]]
    if models is not None and sorted(map(str, models)) == sorted(found):
        found = [str(m) for m in models]
    models = found
    if not models or class_node in models:
        raise NetworkStructureError(f"the system node {system_node!r} must have the models, and "
                                    "only them, as parents")
    latents: list[Latent] = []
    members: list[LabelledModel] = []
    prior = _values(network, class_node, [])
    for node in sorted(nodes - {class_node, system_node, *models}):
        parents = [str(p) for p in network.predecessors(node)]
        if parents not in ([], [class_node]):
            raise NetworkStructureError(f"node {node!r}: besides class, models and system only "
                                        "latents with no parent or the class as parent are "
                                        f"accepted, got parents {parents}")
        table = _values(network, node, parents)
        if not parents:
            table = np.repeat(table[None, :], len(labels), axis=0)
        latents.append(Latent(node, _states(network, node), table))
    names = {lat.name for lat in latents}
    for m in models:
        parents = [str(p) for p in network.predecessors(m)]
        extra = [p for p in parents if p != class_node]
        if class_node not in parents or len(extra) > 1 or any(p not in names for p in extra):
            raise NetworkStructureError(f"model {m!r}: parents must be the class and at most one "
                                        f"latent, got {parents}")
        if _states(network, m) != labels:
            raise NetworkStructureError(f"model {m!r}: states {list(_states(network, m))} must "
                                        f"be the class's labels {list(labels)} in order")
        table = _values(network, m, [class_node, *extra])
        rates = table[:, None, :] if not extra else table
        members.append(LabelledModel(m, extra[0] if extra else None, rates))
    if _states(network, system_node) != labels:
        raise NetworkStructureError(f"the system node's states must be the class's labels "
                                    f"{list(labels)} in order")
    check_structure(labels, latents, members)
    fusion = _values(network, system_node, list(models))
    fusioner = Fusioner("table", labels, tuple(models), table=fusion)
    return Declaration(labels, prior, tuple(latents), tuple(members)), fusioner


def _count_keys(fusioner: Any, k: int, n: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """How a vote-reading rule sees each model's vote: ``(group per model, strides, weights)``.

    Models of equal weight form a group; a configuration's key is
    ``sum_i strides[group[i], vote[i]]``: the vote counts per (group, label) in mixed radix,
    which fixes the score vector the rule reads. The weights are the rule's integer score
    weights (:attr:`~causalcost.network.fusioners.Fusioner.score_weights`), the unit its
    threshold is in: the scores are exact integers, compared as the rule compares them.
    """
    weights = [int(w) for w in fusioner.score_weights] if fusioner.kind == "weighted" \
        else [1] * n
    distinct = sorted(set(weights))
    group = np.array([distinct.index(w) for w in weights])
    sizes = np.bincount(group, minlength=len(distinct))
    strides = np.zeros((len(distinct), k), dtype=np.int64)
    step = 1
    for g, size in enumerate(sizes):
        for s in range(k):
            strides[g, s] = step
            step *= int(size) + 1
    return group, strides, distinct


#: Codes up to this bound are tallied with ``np.bincount`` (no sort); beyond, ``np.unique``.
LOOKUP_LIMIT = 1 << 22


def distinct_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(distinct codes, how many of each, inverse or None)`` of non-negative integer codes:
    a tally by ``np.bincount`` when the codes are small (the inverse is then the codes
    themselves: None), else ``np.unique``."""
    top = int(codes.max()) + 1 if codes.size else 1
    if top <= LOOKUP_LIMIT:
        tally = np.bincount(codes, minlength=top)
        present = np.flatnonzero(tally)
        return present, tally[present], None
    unique, inverse, counts = np.unique(codes, return_inverse=True, return_counts=True)
    return unique, counts, inverse.ravel()


def decide_code(fusioner: Any, code: int, strides: np.ndarray, sizes: np.ndarray,
                weights: Sequence[int], by_slot: bool) -> int:
    """The rule's output for one ``key * K + slot vote`` code (see :func:`_count_keys`)."""
    k = strides.shape[1]
    key, vote = divmod(int(code), k)
    scores = [0] * k
    for g in range(strides.shape[0]):
        for s in range(k):
            scores[s] += (key // int(strides[g, s])) % (int(sizes[g]) + 1) * weights[g]
    return int(fusioner.from_counts(scores, vote if by_slot else None))


def decide_keys(fusioner: Any, keys: np.ndarray, strides: np.ndarray, sizes: np.ndarray,
                weights: Sequence[int], slot_votes: np.ndarray | None = None) -> np.ndarray:
    """The rule's output for each count key (and slot vote, for ``tie="slot"``), each
    distinct pair decided once."""
    k = strides.shape[1]
    pair = keys.astype(np.int64) * k + (0 if slot_votes is None else slot_votes)
    codes, _, inverse = distinct_codes(pair)
    out = np.array([decide_code(fusioner, c, strides, sizes, weights, slot_votes is not None)
                    for c in codes.tolist()], dtype=np.int64)
    if inverse is not None:
        return out[inverse]
    lookup = np.zeros(int(codes[-1]) + 1, dtype=np.int64)
    lookup[codes] = out
    return lookup[pair]


def fusion_table(system: Any, slot: str | None = None) -> np.ndarray:
    """``P(output | votes)`` with shape ``(K,) * n + (K,)`` (votes in model order).

    >>> import causalcost as cc
    >>> s = (cc.SystemBuilder([0.5, 0.3, 0.2], labels=["a", "b", "c"])
    ...      .add_model("m1", confusion=np.eye(3)).add_model("m2", confusion=np.eye(3))
    ...      .set_fusioner("plurality", tie="slot").build(slot="m2"))
    >>> fusion_table(s)[2, 1].tolist()  # a tie between c and b: the slot's vote (b) wins
    [0.0, 1.0, 0.0]
    """
    k, n = system.k, len(system.models)
    columns = _fusion_columns(system, slot)  # [output, votes]
    return np.ascontiguousarray(columns.T).reshape((k,) * n + (k,))


def _fusion_columns(system: Any, slot: str | None = None) -> np.ndarray:
    """:func:`fusion_table` as pgmpy lays a CPD out: shape ``(K, K^n)``, [output, votes].

    Vote-reading rules are decided once per distinct count vector and spread over the grid
    with numpy (a 14-model, 3-label table is filled in well under a second); with
    ``tie="slot"`` the slot's vote breaks ties, so ``slot`` is needed.

    Raises
    ------
    NetworkStructureError
        A table beyond :data:`MAX_TABLE_ENTRIES` entries.
    """
    f = system.fusioner
    k, n = system.k, len(system.models)
    if f.table is not None:
        return np.asarray(f.table, dtype=float).reshape(k ** n, k).T
    if k ** (n + 1) > MAX_TABLE_ENTRIES:
        raise NetworkStructureError(f"the system node's table would have {k}^{n + 1} entries; "
                                    "the pgmpy network is only built for smaller systems")
    slot_index = system.models.index(system.require_slot(slot)) if f.tie == "slot" else None
    out = np.zeros((k, k ** n))
    if f.kind in ("plurality", "priority", "k_of_n", "weighted"):
        group, strides, weights = _count_keys(f, k, n)
        sizes = np.bincount(group, minlength=len(weights))
        keys = np.zeros(1, dtype=np.int64)
        for i in range(n):  # model 0 slowest, as in the table's C order
            keys = (keys[:, None] + strides[group[i]][None, :]).ravel()
        votes = None
        if slot_index is not None:
            shape = [1] * n
            shape[slot_index] = k
            votes = np.broadcast_to(np.arange(k).reshape(shape), (k,) * n).ravel()
        outputs = decide_keys(f, keys, strides, sizes, weights, votes)
    else:
        outputs = np.array([f.output(v, v[slot_index] if slot_index is not None else None)
                            for v in itertools.product(range(k), repeat=n)], dtype=np.int64)
    out[outputs, np.arange(k ** n)] = 1.0
    return out


def to_pgmpy(system: Any) -> Any:
    """The pgmpy ``DiscreteBayesianNetwork`` of a system declared by its labels (new on each
    call; without a confusion node). With ``tie="slot"`` the table is written for the
    system's slot."""
    from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD

    d = system.declaration
    if d is None:  # a network of any shape already is one
        return system.network
    labels = list(d.labels)
    k = d.k
    cls, sysn = system.class_node, system.system_node
    edges = [(cls, lat.name) for lat in d.latents]
    edges += [(p, m.name) for m in d.members for p in [cls] + ([m.latent] if m.latent else [])]
    edges += [(m, sysn) for m in system.models]
    net = DiscreteBayesianNetwork(edges)
    net.add_node(cls)
    cpds = [TabularCPD(cls, k, d.class_prior.reshape(k, 1), state_names={cls: labels})]
    for lat in d.latents:
        cpds.append(TabularCPD(lat.name, len(lat.states), lat.probabilities.T,
                               evidence=[cls], evidence_card=[k],
                               state_names={lat.name: list(lat.states), cls: labels}))
    states = {lat.name: lat for lat in d.latents}
    for m in d.members:
        if m.latent is None:
            cpds.append(TabularCPD(m.name, k, m.rates[:, 0, :].T, evidence=[cls],
                                   evidence_card=[k], state_names={m.name: labels, cls: labels}))
        else:
            lat = states[m.latent]
            z = len(lat.states)
            cpds.append(TabularCPD(m.name, k, m.rates.reshape(k * z, k).T,
                                   evidence=[cls, lat.name], evidence_card=[k, z],
                                   state_names={m.name: labels, cls: labels,
                                                lat.name: list(lat.states)}))
    cpds.append(system_cpd(sysn, _fusion_columns(system), list(system.models), labels))
    net.add_cpds(*cpds)
    return net


#: System tables beyond this many entries skip pgmpy's three copies of the values.
LARGE_TABLE = 1 << 20


def system_cpd(node: str, columns: np.ndarray, models: list[str], labels: list[str],
               large: int | None = None) -> Any:
    """The system node's ``TabularCPD`` from its ``(K, K^n)`` columns.

    pgmpy's constructor copies the values three times (0.5 s for 14 models and 3 labels); a
    table of more than ``large`` entries (default :data:`LARGE_TABLE`) is given to a CPD
    constructed on its first model only, whose variables, cardinality, values and state
    names are then set to the whole table's (the same attributes pgmpy's constructor sets;
    the tests compare the two).
    """
    from causalcost.network._pgmpy import TabularCPD

    k, n = len(labels), len(models)
    names = {node: labels, **{m: labels for m in models}}
    if columns.size <= (LARGE_TABLE if large is None else large):
        return TabularCPD(node, k, columns, evidence=models, evidence_card=[k] * n,
                          state_names=names)
    cpd = TabularCPD(node, k, np.full((k, k), 1 / k), evidence=models[:1], evidence_card=[k],
                     state_names={node: labels, models[0]: labels})
    cpd.variables = [node, *models]
    cpd.cardinality = np.full(n + 1, k, dtype=int)
    cpd.values = np.ascontiguousarray(columns, dtype=float).reshape((k,) * (n + 1))
    cpd.store_state_names(cpd.variables, cpd.cardinality, names)
    return cpd


def rule_words(fusioner: Any) -> list[str]:
    """The fusion rule in a few words for the system node of a picture (one function for any
    K: :func:`causalcost.network.picture.rule_lines`).

    >>> from types import SimpleNamespace
    >>> rule_words(SimpleNamespace(kind="k_of_n", k=2, label=1, labels=("a", "b", "c"),
    ...                            models=("m1", "m2", "m3")))
    ['b if 2 of 3 vote b']
    """
    from causalcost.network.picture import rule_lines

    return rule_lines(fusioner)


def __getattr__(name: str) -> Any:
    """``multiclass_to_pgmpy``: the deprecated name of ``System.network``."""
    if name == "multiclass_to_pgmpy":
        import warnings

        warnings.warn("multiclass_to_pgmpy is deprecated: every System builds its pgmpy network "
                      "as system.network", DeprecationWarning, stacklevel=3)
        return to_pgmpy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
