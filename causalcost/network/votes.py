"""Which vote a network's fusioner computes: verified, never assumed.

A :class:`~causalcost.System` built from a rule carries its
:class:`~causalcost.network.fusioners.Fusioner` (``system.fusioner``), which lets inference know
the system monotone without enumerating. A network read from pgmpy or a BIF file has only
tables, so :func:`recognise_vote` recovers the rule when the tables are exactly those of one:

* a fusioner over binary models whose output depends only on how many say positive, and
  rises with it (AND, OR, majority, k-of-n);
* a chain of count nodes as :mod:`causalcost.network.divorce` declares it (what
  ``System.to_bif`` writes for a divorced system): the weights are read off the count tables
  and the threshold off the fusioner's. Unit-weight votes are always recovered; integer
  weights mostly (where saturated counts leave a weight open, a few candidates are tried).

Either way the candidate rule is then rebuilt and compared with every table it implies
(:func:`describes`), so a recognised rule is never a guess; an unrecognised one only means
that :func:`causalcost.check_monotonicity` enumerates instead. :func:`vote_inputs` finds the
models behind any chain of deterministic intermediate nodes, recognised or not.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.errors import ValidationError
from causalcost.network.cpds import CPD_ATOL, is_deterministic, node_table, states_of
from causalcost.network.divorce import MAX_TABLE_COLUMNS, fusioner_nodes
from causalcost.network.fusioners import Fusioner, decision_table, make_fusioner

if TYPE_CHECKING:
    from causalcost.network._pgmpy import DiscreteBayesianNetwork

__all__ = ["describes", "recognise_vote", "vote_inputs"]

_COUNT_LABEL = re.compile(r"^(?:at_most_|at_least_)?(-?\d+)$")


def describes(network: DiscreteBayesianNetwork, system_node: str, fusioner: Fusioner,
              positive: Any) -> tuple[str, ...] | None:
    """The count nodes through which ``network`` computes ``fusioner`` at ``system_node``
    (``()`` for one table over the inputs), or ``None`` if its tables compute anything else."""
    cpd = network.get_cpds(system_node)
    parents = tuple(cpd.variables[1:])
    if sorted(parents) == sorted(fusioner.inputs):
        return () if _table_matches(network, system_node, fusioner, positive) else None
    states = tuple(states_of(network, system_node))
    if len(states) != 2 or states[0] != positive or not fusioner.is_vote:
        return None
    try:
        expected = fusioner_nodes(fusioner, system_node, states, divorce=True)  # type: ignore
    except ValidationError:  # weights that cannot be divorced
        return None
    rename: dict[str, str] = {}
    node: str | None = system_node
    for want in reversed(expected):
        if node is None or node not in network.nodes():
            return None
        got = network.get_cpds(node)
        got_parents = tuple(got.variables[1:])
        if len(got_parents) != len(want.parents) or tuple(got.state_names[node]) != want.states:
            return None
        upstream = None
        for g, w in zip(got_parents, want.parents):
            if w in fusioner.inputs:
                if g != w or tuple(got.state_names[g]) != (positive, _other(got, g, positive)):
                    return None
            else:
                rename[w], upstream = g, g
        table = node_table(got)
        # |difference| <= CPD_ATOL everywhere (NaN fails), without allclose's overhead
        if table.shape != want.rows.T.shape or not np.abs(table - want.rows.T).max(
                initial=0.0) <= CPD_ATOL:
            return None
        node = upstream
    return tuple(rename[n.name] for n in expected[:-1])


def recognise_vote(network: DiscreteBayesianNetwork, system_node: str, class_node: str,
                   positive: Any) -> tuple[Fusioner, tuple[str, ...]] | None:
    """The vote computed at ``system_node`` and its count nodes, or ``None`` if there is none
    (or it cannot be proved from the tables).

    Examples
    --------
    >>> import causalcost as cc
    >>> net = cc.load_network("majority3").network
    >>> recognise_vote(net, "Fusioner", "Class", "P")
    (Fusioner(2 of 3), ())
    """
    cpd = network.get_cpds(system_node)
    parents = list(cpd.variables[1:])
    if class_node in parents or not parents:
        return None
    if len(parents) == 1 and not _is_vote_input(network, parents[0], positive):
        candidates = _chain_rules(network, system_node, class_node, positive)
    else:
        candidates = [_counting_rule(network, system_node, parents, positive)]
    for candidate in candidates:
        if candidate is not None:
            counts = describes(network, system_node, candidate, positive)
            if counts is not None:
                return candidate, counts
    return None


def vote_inputs(network: DiscreteBayesianNetwork, system_node: str, class_node: str
                ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(models, intermediates)`` behind ``system_node``: its parents other than the class,
    where a deterministic parent whose states are not the class's is an intermediate (a count
    node) and is replaced by its own parents, in order.

    Examples
    --------
    >>> import causalcost as cc
    >>> b = cc.SystemBuilder(class_prior=0.5)
    >>> for m in ("a", "b", "c"):
    ...     _ = b.add_model(m, sensitivity=0.9, specificity=0.9)
    >>> net = b.set_fusioner("or", divorce=True).build().network
    >>> vote_inputs(net, "Fusioner", "Class")
    (('a', 'b', 'c'), ('Fusioner_count_1', 'Fusioner_count_2', 'Fusioner_count_3'))
    """
    class_states = {str(s) for s in states_of(network, class_node)}
    models: list[str] = []
    between: list[str] = []
    seen = {system_node}
    stack = [list(network.get_cpds(system_node).variables[1:])]
    while stack:
        if not stack[-1]:
            stack.pop()
            continue
        node = stack[-1].pop(0)
        if node == class_node or node in seen:
            continue
        seen.add(node)
        cpd = network.get_cpds(node)
        if (cpd is not None and {str(s) for s in cpd.state_names[node]} != class_states
                and is_deterministic(cpd) and len(cpd.variables) > 1):
            between.append(node)
            stack.append(list(cpd.variables[1:]))
        else:
            models.append(node)
    return tuple(models), tuple(reversed(between))  # upstream first


# -- internals ------------------------------------------------------------------------------
def _other(cpd: Any, node: str, positive: Any) -> Any:
    states = list(cpd.state_names[node])
    return next((s for s in states if s != positive), None)


def _is_vote_input(network: DiscreteBayesianNetwork, node: str, positive: Any) -> bool:
    states = states_of(network, node)
    return len(states) == 2 and positive in states


def _votes(network: DiscreteBayesianNetwork, parents: Sequence[str], positive: Any
           ) -> np.ndarray | None:
    """``votes[i, j]``: parent ``i`` says positive in column ``j`` of the child's table."""
    if not all(_is_vote_input(network, p, positive) for p in parents):
        return None
    k = len(parents)
    if 2**k > MAX_TABLE_COLUMNS:
        return None
    index = np.arange(2**k)
    rows = []
    for i, p in enumerate(parents):
        first_is_positive = states_of(network, p)[0] == positive
        bit = (index >> (k - 1 - i)) & 1  # 0: the parent's first state
        rows.append(bit == 0 if first_is_positive else bit == 1)
    return np.array(rows)


def _table_matches(network: DiscreteBayesianNetwork, node: str, fusioner: Fusioner,
                   positive: Any) -> bool:
    cpd = network.get_cpds(node)
    parents = list(cpd.variables[1:])
    votes = _votes(network, parents, positive)
    states = states_of(network, node)
    if votes is None or len(states) != 2 or positive not in states:
        return False
    k = len(parents)
    order = [parents.index(m) for m in fusioner.inputs]
    index = np.zeros(votes.shape[1], dtype=np.int64)
    for q, i in enumerate(order):  # the column of the rule's table for each column of ours
        index |= (~votes[i]).astype(np.int64) << (k - 1 - q)
    expected = decision_table(fusioner)[index]
    said = node_table(cpd)[states.index(positive)]
    return bool(np.abs(said - expected).max(initial=0.0) <= CPD_ATOL)  # NaN fails


def _counting_rule(network: DiscreteBayesianNetwork, node: str, parents: list[str],
                   positive: Any) -> Fusioner | None:
    """AND / OR / k-of-n if the output depends only on how many parents say positive."""
    votes = _votes(network, parents, positive)
    states = states_of(network, node)
    if votes is None or len(states) != 2 or positive not in states:
        return None
    said = node_table(network.get_cpds(node))[states.index(positive)] > 0.5
    yes = votes.sum(axis=0)
    k = len(parents)
    decided = [said[yes == c] for c in range(k + 1)]
    if any(d.size and d.any() != d.all() for d in decided):
        return None
    need = next((c for c, d in enumerate(decided) if d.size and d.all()), None)
    if need is None or need == 0 or any(not d.all() for d in decided[need:] if d.size):
        return None
    return _unit_vote(parents, need)


def _unit_vote(inputs: Sequence[str], need: int) -> Fusioner:
    k = len(inputs)
    if need == k:
        return make_fusioner("and", inputs)
    if need == 1:
        return make_fusioner("or", inputs)
    return make_fusioner("k_of_n", inputs, k=need)


#: Most candidate rules tried for one chain (weights that saturated counts leave open).
_MAX_CANDIDATES = 64


def _chain_rules(network: DiscreteBayesianNetwork, system_node: str, class_node: str,
                 positive: Any) -> list[Fusioner]:
    """Candidate weights and threshold of a count chain, read off its tables (to be verified):
    where saturation leaves a weight open within a short range, each value is a candidate."""
    chain: list[tuple[str, str]] = []  # (count, model), last first
    node = network.get_cpds(system_node).variables[1]
    for _ in range(len(network.nodes())):
        parents = list(network.get_cpds(node).variables[1:])
        if len(parents) == 2:
            chain.append((node, parents[1]))
            node = parents[0]
        elif len(parents) == 1:
            chain.append((node, parents[0]))
            break
        else:
            return []
    else:
        return []
    chain.reverse()
    inputs = [m for _, m in chain]
    if class_node in inputs or len(set(inputs)) != len(inputs):
        return []
    options: list[list[int]] = []
    previous: list[tuple[int, str]] = [(0, "")]  # (value, saturation) before the first input
    for count, _ in chain:
        cpd = network.get_cpds(count)
        labels = [_label(s) for s in cpd.state_names[count]]
        if None in labels:
            return []
        out = np.argmax(node_table(cpd), axis=0)
        if out.size != 2 * len(previous):
            return []
        weight = _weights(previous, [labels[int(j)] for j in out[0::2]],  # type: ignore[misc]
                          labels, sum(min(w[0], 0) for w in options),  # type: ignore[arg-type]
                          sum(max(w[0], 0) for w in options))
        if not weight:
            return []
        options.append(weight)
        previous = labels  # type: ignore[assignment]
    values = [v for v, _ in previous]
    states = states_of(network, system_node)
    said = node_table(network.get_cpds(system_node))[states.index(positive)] > 0.5
    reached = [v for v, s in zip(values, said) if s]
    if not reached:
        return []
    need = int(min(reached))  # type: ignore[type-var]
    rules = []
    for weights in itertools.islice(itertools.product(*options), _MAX_CANDIDATES):
        if all(w == 1 for w in weights) and 1 <= need <= len(inputs):
            rules.append(_unit_vote(inputs, need))
        else:
            rules.append(make_fusioner("weighted", inputs, weights=list(weights),
                                       threshold=need))
    return rules


def _label(label: Any) -> tuple[int, str] | None:
    """``(value, saturation)`` of a count state: ``"3"``, ``"at_most_3"``, ``"at_least_3"``."""
    match = _COUNT_LABEL.match(str(label))
    if not match:
        return None
    text = str(label)
    kind = "at_most" if text.startswith("at_most_") else (
        "at_least" if text.startswith("at_least_") else "")
    return int(match.group(1)), kind


def _weights(previous: list[tuple[int, str]], on_positive: list[tuple[int, str]],
             labels: list[tuple[int, str]], floor: int, ceiling: int) -> list[int]:
    """The possible weights of one input, from where a positive vote takes each previous
    count value.

    An exact value pins it (``v + w = u``); a saturated one bounds it (``v + w >= u`` at
    ``at_least_u``); saturated previous values are absorbing and say nothing. A saturated
    label at all means sums beyond it were merged, so the running extreme (``ceiling``, the
    sum of the positive weights so far, or ``floor``) passes it. Returns the exact weight, the
    values of a short bounded range, or the one finite bound (the tables are verified later).
    """
    exact, low, high = set(), -np.inf, np.inf
    for (v, v_kind), (u, u_kind) in zip(previous, on_positive):
        if v_kind:
            continue
        if u_kind == "at_least":
            low = max(low, u - v)
        elif u_kind == "at_most":
            high = min(high, u - v)
        else:
            exact.add(u - v)
    for u, kind in labels:
        if kind == "at_least" and u - ceiling + 1 > 0:  # ceiling + max(w, 0) > u
            low = max(low, u - ceiling + 1)
        elif kind == "at_most" and u - floor - 1 < 0:  # floor + min(w, 0) < u
            high = min(high, u - floor - 1)
    if len(exact) > 1:
        return []
    if exact:
        return [int(exact.pop())]
    if np.isfinite(low) and np.isfinite(high):
        return list(range(int(low), int(high) + 1))[:8]
    if np.isfinite(low):
        return [int(low)]
    return [int(high)] if np.isfinite(high) else [0]
