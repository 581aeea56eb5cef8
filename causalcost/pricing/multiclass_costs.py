"""Cost functions 1 and 2 for a K-label system (MULTICLASS.md, "Cost functions 1 and 2").

With the interventional table ``T[c, j, s] = P(S = s | Class = c, do(M = j))`` and the
system's costs ``C[c, s]``:

* ``M1[c, j] = sum_s T[c, j, s] C[c, s]``: the expected system cost of the slot predicting
  ``j`` on a class-``c`` instance; ``Eval1 = sum_{c, j} N[c, j] M1[c, j]``;
* ``M2[c, j] = M1[c, j] - M1[c, c]``: the error transition (0 on the diagonal);
  ``Eval2 = Eval1 - sum_c n_c M1[c, c]`` (the perfect slot's cost taken off).

For K = 2 (labels P, N) these are the thesis's cost functions 1 and 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from causalcost.errors import ValidationError
from causalcost.pricing.multiclass_inputs import check_costs, check_counts, check_labels

__all__ = ["MulticlassCostMatrix", "multiclass_cost_matrix", "as_table_array"]


def as_table_array(table: object) -> np.ndarray:
    """A (K, K, K) table ``T[c, j, s]`` from an array or anything with ``to_numpy()``.

    Raises
    ------
    ValidationError
        A wrong shape, or a row ``T[c, j, :]`` that is not a distribution.
    """
    arr = np.asarray(table.to_numpy() if hasattr(table, "to_numpy") else table, dtype=float)
    if arr.ndim != 3 or len(set(arr.shape)) != 1 or arr.shape[0] < 2:
        raise ValidationError(f"the interventional table must have shape (K, K, K), got "
                              f"{arr.shape}")
    if not np.all(np.isfinite(arr)) or arr.min() < 0 or not np.allclose(arr.sum(axis=2), 1,
                                                                        atol=1e-9):
        raise ValidationError("every row T[c, j, :] of the interventional table must be a "
                              "probability distribution over the system outputs")
    return arr


@dataclass(frozen=True)
class MulticlassCostMatrix:
    """Model-level costs ``M1`` (cost function 1) and ``M2`` (cost function 2), (K, K) each.

    Examples
    --------
    A system that outputs what the slot says, 0/1 costs: the slot's cost is its error.

    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1
    >>> m = multiclass_cost_matrix(t, 1 - np.eye(3))
    >>> m.m1.tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    >>> m.evaluate([[5, 1, 0], [0, 4, 0], [2, 0, 3]])
    (3.0, 3.0)
    """

    labels: tuple[str, ...]
    m1: np.ndarray
    m2: np.ndarray

    def evaluate(self, model: object) -> tuple[float, float]:
        """``(Eval1, Eval2)`` for the candidate's confusion ``N[c, j]``."""
        n = check_counts("model", model, 2, len(self.labels)).astype(float)
        eval1 = float((n * self.m1).sum())
        return eval1, float((n * self.m2).sum())

    def to_frame(self) -> pd.DataFrame:
        """Rows ``(function, true class)``, columns the slot's prediction."""
        idx = pd.MultiIndex.from_product([["M1", "M2"], list(self.labels)],
                                         names=["function", "class"])
        return pd.DataFrame(np.vstack([self.m1, self.m2]), index=idx, columns=list(self.labels))

    def __repr__(self) -> str:
        return (f"MulticlassCostMatrix(labels={list(self.labels)}, "
                f"m1={np.round(self.m1, 6).tolist()})")


def multiclass_cost_matrix(table: object, costs: object,
                           labels: list[str] | None = None) -> MulticlassCostMatrix:
    """``M1`` and ``M2`` from the interventional table and the system's (K, K) costs.

    Parameters
    ----------
    table : array (K, K, K) or MulticlassTable
        ``T[c, j, s]``.
    costs : array (K, K)
        ``C[c, s]`` (true class, system output).
    labels : list of str, optional
        Names; taken from ``table.labels`` when it has them.

    Returns
    -------
    MulticlassCostMatrix
    """
    t = as_table_array(table)
    c = check_costs(costs, t.shape[0])
    names = check_labels(labels if labels is not None else getattr(table, "labels", None),
                         t.shape[0])
    m1 = np.einsum("cjs,cs->cj", t, c)
    return MulticlassCostMatrix(names, m1, m1 - np.diag(m1)[:, None])
