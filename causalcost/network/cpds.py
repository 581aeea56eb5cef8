"""Conditional probability tables of a pgmpy network: reading, checking, the confusion node.

Helpers shared by :class:`~causalcost.System` and the vote recognition; every message prints
node and state names plainly (``['neg', 'pos']``, never numpy's ``np.str_('neg')``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.confusion import OUTCOMES
from causalcost.errors import CPDError, UnknownNameError
from causalcost.network.text import names, plain

if TYPE_CHECKING:
    from causalcost.network._pgmpy import DiscreteBayesianNetwork, TabularCPD

__all__ = [
    "CPD_ATOL", "check_cpd", "confusion_cpd", "confusion_values", "is_deterministic",
    "node_table", "outcome_index", "plain", "require_node", "states_of", "names",
]

#: Tolerance on CPD column sums.
CPD_ATOL = 1e-9


def require_node(network: DiscreteBayesianNetwork, node: str, role: str) -> None:
    """Raise :class:`UnknownNameError` listing valid nodes when ``node`` is not in ``network``."""
    if node not in network.nodes():
        raise UnknownNameError(
            f"{role} {node!r} is not a node of the network; valid nodes: {names(network.nodes())}"
        )


def states_of(network: DiscreteBayesianNetwork, node: str) -> list[Any]:
    """State names of ``node``, as its CPD lists them."""
    return list(network.get_cpds(node).state_names[node])


def node_table(cpd: TabularCPD) -> np.ndarray:
    """A CPD as a 2-D array: rows are the node's states, columns parent configurations.

    Columns follow ``itertools.product`` over the parents in ``cpd.variables[1:]`` order
    (first parent slowest), which is pgmpy's layout.
    """
    return np.asarray(cpd.get_values(), dtype=float)


def check_cpd(cpd: TabularCPD) -> None:
    """Raise :class:`CPDError` if any column of ``cpd`` is negative, non-finite or unnormalised."""
    table = node_table(cpd)
    if (np.isfinite(table) & (table >= 0)).all() and (
            np.abs(table.sum(axis=0) - 1.0) <= CPD_ATOL).all():
        return  # the common case, checked without locating anything
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
    return bool(((np.abs(table) < CPD_ATOL) | (np.abs(table - 1) < CPD_ATOL)).all())


def confusion_cpd(
    name: str, class_node: str, class_states: Sequence[Any], system_node: str,
    system_states: Sequence[Any], positive: Any,
) -> TabularCPD:
    """The deterministic confusion node: TP, FN, FP, TN from (class, system prediction)."""
    from causalcost.network._pgmpy import TabularCPD

    values = confusion_values(class_states, system_states, positive)
    return TabularCPD(
        name, 4, values, evidence=[class_node, system_node],
        evidence_card=[len(class_states), len(system_states)],
        state_names={name: list(OUTCOMES), class_node: list(class_states),
                     system_node: list(system_states)},
    )


def confusion_values(class_states: Sequence[Any], system_states: Sequence[Any],
                     positive: Any) -> np.ndarray:
    """The confusion node's table, ``(4, class states x system states)`` (OUTCOMES rows)."""
    values = np.zeros((4, len(class_states) * len(system_states)))
    for j, (c, s) in enumerate(itertools.product(class_states, system_states)):
        values[outcome_index(c == positive, s == positive), j] = 1.0
    return values


def outcome_index(true_positive: bool, predicted_positive: bool) -> int:
    """Index in ``OUTCOMES`` of (true class, prediction)."""
    return {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}[
        (bool(true_positive), bool(predicted_positive))
    ]
