"""A declared node checked on its own: names, states, and one distribution per table row.

Rows are written the way people read tables: one row per configuration of the parents
(``itertools.product`` order, first parent slowest), each a distribution over the node's
states. These checks need nothing but the declaration (and, once known, the parents' states);
:class:`~causalcost.SystemBuilder` runs them as each node is added.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from decimal import Decimal

import numpy as np

from causalcost.errors import CPDError, InputTypeError, ValidationError
from causalcost.network.text import plain

__all__ = ["check_distributions", "check_row_count", "complement", "declaration", "pair",
           "probability"]


def probability(name: str, value: object) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a number in [0, 1], got {value!r}")
    try:
        v = float(value)
    except OverflowError:
        v = float("inf")
    if not 0.0 <= v <= 1.0:
        raise CPDError(f"{name} must be a probability in [0, 1], got {v!r}")
    return v


def complement(p: float) -> float:
    """``1 - p`` computed on the decimal the user wrote, then rounded once.

    In binary floating point ``1 - 0.8`` is 0.19999999999999996; working on the shortest
    decimal that round-trips (``repr``) gives the double nearest to 0.2, so the thesis's
    numbers come out as printed.
    """
    return float(Decimal(1) - Decimal(repr(float(p))))


def pair(label: str, value: object) -> tuple[float, float]:
    """A (first model, second model) pair of rates; never truncated."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ValidationError(
            f"{label} must be a pair (first model, second model), got {value!r}")
    values = list(value)
    if len(values) != 2:
        raise ValidationError(
            f"{label} needs two values (first model, second model), got {len(values)}: "
            f"{plain(values)}")
    return (probability(f"{label}[0]", values[0]), probability(f"{label}[1]", values[1]))


def table_rows(name: str, cpd: object, n_states: int) -> np.ndarray:
    """``cpd`` as a 2-D float array of rows (a flat list is one row); ragged rows refused."""
    try:
        rows = np.asarray(cpd, dtype=float)
    except (ValueError, TypeError, OverflowError):
        raise CPDError(
            f"CPD of {name!r} must be rows of {n_states} numbers each (one row per parent "
            f"configuration); got rows of different lengths or non-numbers: {cpd!r}"[:400]
        ) from None
    if rows.ndim == 1:
        rows = rows[None, :]
    if rows.ndim != 2 or rows.shape[1] != n_states:
        raise CPDError(
            f"CPD of {name!r} needs rows of {n_states} probabilities (one per state), got shape "
            f"{rows.shape}"
        )
    return rows


def declaration(name: object, states: object, cpd: object, parents: object
                ) -> tuple[str, tuple[str, ...], tuple[str, ...], np.ndarray]:
    """``(name, states, parents, rows)`` of a node declaration, checked for form: a non-empty
    name, at least two distinct states, distinct parents, rows of one number per state. Names
    come back as plain ``str`` (numpy strings would print as ``np.str_('a')`` in messages)."""
    if not isinstance(name, str) or not name:
        raise ValidationError(f"node names must be non-empty strings, got {name!r}")
    name = str(name)
    if isinstance(states, (str, bytes)) or not isinstance(states, (Sequence, np.ndarray)):
        raise ValidationError(f"states of {name!r} must be a list of names, got {states!r}")
    names = tuple(str(s) for s in states)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValidationError(
            f"node {name!r} needs at least two distinct states, got {list(names)}")
    if isinstance(parents, (str, bytes)) or not isinstance(parents, (Sequence, np.ndarray)):
        raise ValidationError(f"parents of {name!r} must be a list of names, got {parents!r}")
    parent_names = tuple(str(p) for p in parents)
    repeated = sorted({str(p) for p in parent_names if parent_names.count(p) > 1})
    if repeated:
        raise ValidationError(f"parents of {name!r} name {repeated} more than once")
    return name, names, parent_names, table_rows(name, cpd, len(names))


def check_row_count(name: str, rows: np.ndarray, parents: Sequence[str],
                    parent_states: Sequence[Sequence[str]]) -> None:
    """One row per configuration of the parents."""
    n_configs = math.prod(len(s) for s in parent_states)
    if rows.shape[0] != n_configs:
        raise CPDError(
            f"CPD of {name!r} needs {n_configs} row(s) (one per configuration of "
            f"{list(parents) or 'no parents'}), got {rows.shape[0]}"
        )


def check_distributions(name: str, rows: np.ndarray, parents: Sequence[str],
                        parent_states: Sequence[Sequence[str]] | None) -> None:
    """Every row a distribution; the message names the parent configuration when known."""
    bad_value = ~np.all(np.isfinite(rows) & (rows >= 0) & (rows <= 1), axis=1)
    bad_sum = np.abs(rows.sum(axis=1) - 1.0) > 1e-9
    bad = np.flatnonzero(bad_value | bad_sum)
    if not bad.size:
        return
    i = int(bad[0])
    if parent_states is not None:
        config = next(itertools.islice(itertools.product(*parent_states), i, None))
        where = ", ".join(f"{p}={s}" for p, s in zip(parents, config)) or "no parents"
    else:
        where = f"row {i}"
    row = rows[i]
    if bad_value[i]:
        raise CPDError(
            f"CPD of {name!r} at ({where}) has a probability outside [0, 1]: {row.tolist()}")
    raise CPDError(f"CPD of {name!r} at ({where}) sums to {row.sum():.12g}, not 1: {row.tolist()}")
