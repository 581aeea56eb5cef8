"""Parent divorcing: a vote fusioner over many models as a chain of deterministic count nodes.

A fusioner's CPD lists its output for every combination of its ``k`` inputs: ``2**k`` columns
(an AND over 30 models asks for 16 GiB). A vote ``sum_i w_i v_i >= t`` with integer weights
can instead be *divorced* (Olesen et al., "A MUNIN network for the median nerve", 1989; Koller
& Friedman, *Probabilistic Graphical Models*, §5.4) into running counts::

    count_1 = w_1 v_1,   count_i = count_{i-1} + w_i v_i,   Fusioner = [count_k >= t]

each count a deterministic node with parents ``(count_{i-1}, model_i)``: the network holds
``O(k)`` nodes of at most ``O(k)`` states each (for unit weights), and any engine, ours or
pgmpy's VariableElimination, contracts it along the chain.

The counts *saturate* where the outcome is already decided, which keeps the chain exact and
small: with ``R+`` (``R-``) the sum of the positive (negative) weights still to come, a running
sum ``>= t - R-`` stays positive whatever follows, and one ``< t - R+`` stays negative. Such sums
collapse into one state each, labelled ``at_least_<n>`` and ``at_most_<n>``; the others are
labelled by their value (``"0"``, ``"1"``, ...). An AND or an OR therefore needs two states per
count, whatever ``k``; a majority of 200 at most 101. (A count after inputs of weight 0 only has
one state.)

Small votes keep the seeds' shape (models straight into the fusioner): a vote is divorced when
its table would exceed :data:`DIVORCE_COLUMNS` columns, or when asked.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from causalcost.errors import ValidationError
from causalcost.network.exact_votes import number_text
from causalcost.network.fusioners import Fusioner, decision_table

__all__ = [
    "DIVORCE_COLUMNS", "MAX_TABLE_COLUMNS", "MAX_COUNT_STATES", "NodeTable", "fusioner_nodes",
    "count_values", "should_divorce",
]

#: A vote whose fusioner table would have more columns than this is divorced by default.
DIVORCE_COLUMNS = 1 << 12
#: No fusioner table is ever built with more columns (``divorce=False`` beyond it is refused).
MAX_TABLE_COLUMNS = 1 << 20
#: Most states one count node may take (weights with many distinct partial sums are refused).
MAX_COUNT_STATES = 1 << 12


@dataclass(frozen=True)
class NodeTable:
    """A node as the builder declares it: states, parents, one CPD row per parent configuration
    (``itertools.product`` order over the parents' states, first parent slowest)."""

    name: str
    states: tuple[str, ...]
    parents: tuple[str, ...]
    rows: np.ndarray  # (n_parent_configs, n_states)


def should_divorce(fusioner: Fusioner, divorce: bool | None) -> bool:
    """Whether ``fusioner`` is declared as a count chain (``divorce=None``: when its table
    would exceed :data:`DIVORCE_COLUMNS` columns); refuses what cannot be declared either way.

    Raises
    ------
    ValidationError
        Divorce asked of a user function or of non-integer weights, or a table beyond
        :data:`MAX_TABLE_COLUMNS` columns that cannot be divorced (the message says why and
        what to change).

    Examples
    --------
    >>> from causalcost.network.fusioners import make_fusioner
    >>> should_divorce(make_fusioner("and", [f"m{i}" for i in range(12)]), None)
    False
    >>> should_divorce(make_fusioner("and", [f"m{i}" for i in range(13)]), None)
    True
    """
    k = len(fusioner.inputs)
    columns = 2**k
    if divorce is not None and not isinstance(divorce, bool):
        raise ValidationError(f"divorce must be True, False or None (automatic), got {divorce!r}")
    if divorce is False or (divorce is None and columns <= DIVORCE_COLUMNS):
        if columns > MAX_TABLE_COLUMNS:
            raise ValidationError(
                f"a fusioner table over {k} models has 2**{k} = {columns:,} columns, more than "
                f"the limit 2**{MAX_TABLE_COLUMNS.bit_length() - 1}; use divorce=True (or the "
                "default) with a vote rule, which declares it as a chain of count nodes"
            )
        return False
    if not fusioner.is_vote:
        if divorce:
            raise ValidationError(
                "divorce=True needs a vote rule (and, or, majority, k_of_n, weighted): a user "
                "function has no running count to divorce it into"
            )
        decision_table(fusioner)  # raises: too many calls of the function (beyond 20 models)
        return False
    weights = fusioner.exact_weights or ()
    fractional = [(m, w) for m, w in zip(fusioner.inputs, weights) if w.denominator != 1]
    if fractional:
        shown = ", ".join(f"{m}={number_text(w)}" for m, w in fractional[:3])
        why = (f"over {k} models its table would have 2**{k} = {columns:,} columns, so it must "
               "be divorced into count nodes, and " if divorce is None else "")
        raise ValidationError(
            f"the weighted fusioner cannot be divorced: {why}a running count needs integer "
            f"weights, got {shown}{', ...' if len(fractional) > 3 else ''}; scale the weights "
            "and the threshold to integers (0.5, 1.5 >= 2 is 1, 3 >= 4)"
        )
    return True


def count_values(fusioner: Fusioner) -> tuple[list[list[int]], list[tuple[int, int]], int]:
    """The values each count node takes, saturated where the outcome is decided.

    Returns ``(values, bounds, need)``: ``values[i]`` the sorted values of ``count_{i+1}``,
    ``bounds[i] = (low, high)`` its saturation bounds, and ``need`` the integer threshold (the
    vote is positive when the full sum is at least ``need``).

    Examples
    --------
    >>> from causalcost.network.fusioners import make_fusioner
    >>> values, bounds, need = count_values(make_fusioner("majority", ["a", "b", "c", "d"]))
    >>> values, need
    ([[0, 1], [0, 1, 2], [1, 2, 3], [2, 3]], 3)
    """
    weights = _integer_weights(fusioner)
    need = math.ceil(fusioner.exact_threshold)  # type: ignore[arg-type]
    k = len(weights)
    # exact Python integers (weights such as 1e20 + 1 overflow int64 and round in floats)
    rest_pos = list(itertools.accumulate([max(w, 0) for w in weights][::-1]))[::-1] + [0]
    rest_neg = list(itertools.accumulate([min(w, 0) for w in weights][::-1]))[::-1] + [0]
    values, bounds = [], []
    big = max(map(abs, weights), default=0) * (k + 1) + abs(need) >= 2**62
    current = np.zeros(1, dtype=object if big else np.int64)  # Python ints beyond int64
    for i in range(k):
        # after input i, sums >= high are positive whatever follows, sums < low + 1 negative
        high = need - rest_neg[i + 1]
        low = need - rest_pos[i + 1] - 1
        current = np.unique(np.clip(np.concatenate([current, current + weights[i]]), low, high))
        if len(current) > MAX_COUNT_STATES:
            raise ValidationError(
                f"divorcing the weighted fusioner needs more than {MAX_COUNT_STATES} states "
                f"for the count after {fusioner.inputs[i]!r} (its weights have that many "
                "distinct partial sums); use small integer weights"
            )
        values.append([int(v) for v in current])
        bounds.append((int(low), int(high)))
    return values, bounds, need


def _integer_weights(fusioner: Fusioner) -> list[int]:
    """The vote's weights as exact integers (a count chain needs integer weights)."""
    exact = fusioner.exact_weights or ()
    fractional = [(m, w) for m, w in zip(fusioner.inputs, exact) if w.denominator != 1]
    if fractional:
        raise ValidationError(
            "a running count needs integer weights, got "
            + ", ".join(f"{m}={number_text(w)}" for m, w in fractional[:3])
            + "; scale the weights and the threshold to integers")
    return [int(w) for w in exact]


def _labels(values: list[int], low: int, high: int, floor: int, ceiling: int) -> tuple[str, ...]:
    """``"3"``; ``"at_most_3"`` / ``"at_least_5"`` where sums beyond the bound were merged."""
    out = []
    for v in values:
        if v == low and floor < low:
            out.append(f"at_most_{v}")
        elif v == high and ceiling > high:
            out.append(f"at_least_{v}")
        else:
            out.append(str(v))
    return tuple(out)


def fusioner_nodes(
    fusioner: Fusioner, name: str, states: tuple[str, str], *, divorce: bool
) -> list[NodeTable]:
    """The nodes declaring ``fusioner`` as node ``name`` (states positive, negative).

    Without divorce: one node over every input (its table from
    :func:`~causalcost.network.fusioners.decision_table`). With divorce: count nodes
    ``<name>_count_1 .. <name>_count_k`` (``count_1`` reads the first input, ``count_i`` the
    previous count and input ``i``), then the fusioner node, a threshold on ``count_k``.

    Examples
    --------
    >>> from causalcost.network.fusioners import make_fusioner
    >>> nodes = fusioner_nodes(make_fusioner("and", ["a", "b", "c"]), "F", ("P", "N"),
    ...                        divorce=True)
    >>> [(n.name, n.states, n.parents) for n in nodes]  # doctest: +NORMALIZE_WHITESPACE
    [('F_count_1', ('0', '1'), ('a',)),
     ('F_count_2', ('at_most_1', '2'), ('F_count_1', 'b')),
     ('F_count_3', ('at_most_2', '3'), ('F_count_2', 'c')),
     ('F', ('P', 'N'), ('F_count_3',))]
    """
    inputs = fusioner.inputs
    if not divorce:
        positive = decision_table(fusioner)
        rows = np.column_stack([positive, ~positive]).astype(float)
        return [NodeTable(name, states, inputs, rows)]
    return list(_count_chain(fusioner, name, tuple(states)))


@functools.lru_cache(maxsize=1)
def _count_chain(fusioner: Fusioner, name: str, states: tuple[str, str]
                 ) -> tuple[NodeTable, ...]:
    """The divorced nodes of :func:`fusioner_nodes`, kept for the last rule only: the builder
    declares them and the system it builds checks its tables against them (read-only rows,
    the very arrays the builder holds; one chain is kept, as large as one system's tables)."""
    inputs = fusioner.inputs
    weights = _integer_weights(fusioner)
    values, bounds, need = count_values(fusioner)
    nodes: list[NodeTable] = []
    previous: list[int] = [0]
    floor = ceiling = 0
    parent: tuple[str, ...] = ()
    # counts in int64 while they fit, else exact Python integers (weights like 1e20)
    dtype = object if sum(abs(w) for w in weights) >= 2**62 else np.int64
    for i, (current, (low, high)) in enumerate(zip(values, bounds)):
        floor += min(weights[i], 0)
        ceiling += max(weights[i], 0)
        before = np.asarray(previous, dtype=dtype)
        # row 2p + b: the count after this input from value previous[p] and a vote that is
        # positive (b = 0) or negative (b = 1), saturated to [low, high]
        after = np.clip(np.stack([before + weights[i], before], axis=1).ravel(), low, high)
        rows = np.zeros((len(previous) * 2, len(current)))
        rows[np.arange(len(after)), np.searchsorted(np.asarray(current, dtype=dtype), after)] = 1.0
        count = f"{name}_count_{i + 1}"
        nodes.append(NodeTable(count, _labels(current, low, high, floor, ceiling),
                               (*parent, inputs[i]), rows))
        previous, parent = current, (count,)
    positive = np.array([v >= need for v in previous])
    rows = np.column_stack([positive, ~positive]).astype(float)
    nodes.append(NodeTable(name, states, parent, rows))
    for node in nodes:
        node.rows.setflags(write=False)
    return tuple(nodes)
