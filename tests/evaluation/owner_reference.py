"""Shared pieces of the evaluation tests (a plain module, not a conftest: ``tests/conftest.py``
is imported as ``conftest`` by other tests): an independent numpy fusioner and random logs.

The reference fusioner re-implements each rule from its definition (``make_fusioner``'s
docstring) on a boolean matrix of votes, without going through causalcost's vote code, so the
backtest's and the slot importance's costs are checked against a computation that shares
nothing with them but the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Fusioner specifications the tests draw from: (rule, options for forced_runs / make_fusioner).
SPECS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("and", {}),
    ("or", {}),
    ("majority", {}),
    ("majority", {"tie": "positive"}),
    ("k_of_n", {"k": 2}),
    ("weighted", {"weights": [1.0, 2.0, 0.5, 1.5], "threshold": 2.0}),
)


def reference_fuse(votes: Mapping[str, np.ndarray], models: Sequence[str], rule: str,
                   **options: Any) -> np.ndarray:
    """The system's vote per row, from the rule's definition (True = P)."""
    matrix = np.column_stack([np.asarray(votes[m], dtype=bool) for m in models])
    positives = matrix.sum(axis=1)
    n = len(models)
    if rule == "and":
        return positives == n
    if rule == "or":
        return positives >= 1
    if rule == "majority":
        tie_positive = options.get("tie", "negative") == "positive"
        return (2 * positives > n) | ((2 * positives == n) & tie_positive)
    if rule == "k_of_n":
        return positives >= options["k"]
    if rule == "weighted":
        weights = np.asarray(options["weights"][:n], dtype=float)
        return matrix @ weights >= options["threshold"]
    raise AssertionError(rule)


def confusion_cells(y: np.ndarray, vote: np.ndarray) -> tuple[int, int, int, int]:
    y, vote = np.asarray(y, dtype=bool), np.asarray(vote, dtype=bool)
    return (int((y & vote).sum()), int((y & ~vote).sum()), int((~y & vote).sum()),
            int((~y & ~vote).sum()))


def cost_of(cells: tuple[int, int, int, int], costs: Any) -> float:
    tp, fn, fp, tn = cells
    return tp * costs.tp + fn * costs.fn + fp * costs.fp + tn * costs.tn


def random_log(rng: np.random.Generator, n: int, models: Sequence[str],
               prior: float = 0.4) -> pd.DataFrame:
    """Truth ``y`` and one column per model, each right with its own random accuracy, with a
    shared hard subset so errors are correlated (the bounds then matter)."""
    y = rng.random(n) < prior
    hard = rng.random(n) < 0.2
    columns = {"y": y.astype(int)}
    for m in models:
        accuracy = rng.uniform(0.55, 0.95)
        right = np.where(hard, rng.random(n) < 0.35, rng.random(n) < accuracy)
        columns[m] = np.where(right, y, ~y).astype(int)
    return pd.DataFrame(columns)
