"""Cost functions 1 and 2 for any number of labels K, as (K, K) matrices.

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

from causalcost.errors import OverflowInputError
from causalcost.pricing.inputs import as_table_array, check_costs, check_counts, check_labels

__all__ = ["LabelCostMatrix", "ModelCostMatrices", "label_cost_matrix", "model_cost_matrices"]


@dataclass(frozen=True)
class ModelCostMatrices:
    """Model-level costs ``M1`` (cost function 1) and ``M2`` (cost function 2), (K, K) each.

    Examples
    --------
    A system that outputs what the slot says, 0/1 costs: the slot's cost is its error.

    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1
    >>> m = model_cost_matrices(t, 1 - np.eye(3))
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
        with np.errstate(over="ignore", invalid="ignore"):
            out = (float((n * self.m1).sum()), float((n * self.m2).sum()))
        if not all(np.isfinite(out)):
            raise OverflowInputError(
                "costs too large: Eval1 or Eval2 overflows float64 for this candidate; rescale "
                "the costs (divide them all by the same factor)")
        return out

    def to_frame(self) -> pd.DataFrame:
        """Rows ``(function, true class)``, columns the slot's prediction."""
        idx = pd.MultiIndex.from_product([["M1", "M2"], list(self.labels)],
                                         names=["function", "class"])
        return pd.DataFrame(np.vstack([self.m1, self.m2]), index=idx, columns=list(self.labels))

    def __repr__(self) -> str:
        return (f"ModelCostMatrices(labels={list(self.labels)}, "
                f"m1={np.round(self.m1, 6).tolist()})")


def model_cost_matrices(table: object, costs: object,
                           labels: list[str] | None = None) -> ModelCostMatrices:
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
    ModelCostMatrices
    """
    t = as_table_array(table)
    c = check_costs(costs, t.shape[0])
    names = check_labels(labels if labels is not None else getattr(table, "labels", None),
                         t.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):
        m1 = np.einsum("cjs,cs->cj", t, c)
    if not np.all(np.isfinite(m1)):
        raise OverflowInputError("costs too large: cost function 1 overflows float64 with these "
                                 "costs; rescale them (divide them all by the same factor)")
    return ModelCostMatrices(names, m1, m1 - np.diag(m1)[:, None])


@dataclass(frozen=True)
class LabelCostMatrix:
    """One model-level cost matrix for K labels: ``M1`` (``kind="expected"``, cost function 1)
    or ``M2`` (``kind="transition"``, cost function 2), rows the true class, columns the
    slot's prediction. The K = 2 binary matrices are
    :class:`~causalcost.pricing.costs.ModelCostMatrix`.

    Examples
    --------
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1
    >>> m = label_cost_matrix(t, 1 - np.eye(3), "transition")
    >>> m.evaluate([[5, 1, 0], [0, 4, 0], [2, 0, 3]])
    3.0
    """

    labels: tuple[str, ...]
    matrix: np.ndarray
    kind: str

    def to_numpy(self) -> np.ndarray:
        """The (K, K) matrix."""
        return np.array(self.matrix)

    def evaluate(self, model: object) -> float:
        """``sum_{c, j} N[c, j] M[c, j]`` for the candidate's confusion ``N``; refused
        (:class:`~causalcost.errors.OverflowInputError`) if it overflows float64."""
        n = check_counts("model", model, 2, len(self.labels)).astype(float)
        with np.errstate(over="ignore", invalid="ignore"):
            value = float((n * self.matrix).sum())
        if not np.isfinite(value):
            raise OverflowInputError("costs too large: the evaluation overflows float64; "
                                     "rescale the costs (divide them all by the same factor)")
        return value

    def to_frame(self) -> pd.DataFrame:
        """Rows the true class, columns the slot's prediction."""
        return pd.DataFrame(self.matrix, index=pd.Index(list(self.labels), name="class"),
                            columns=list(self.labels))

    def __repr__(self) -> str:
        return (f"LabelCostMatrix(labels={list(self.labels)}, kind={self.kind!r}, "
                f"matrix={np.round(self.matrix, 6).tolist()})")


def label_cost_matrix(table: object, costs: object, kind: str = "expected",
                      labels: list[str] | None = None) -> LabelCostMatrix:
    """Cost function 1 (``kind="expected"``) or 2 (``"transition"``) for a K-label table."""
    both = model_cost_matrices(table, costs, labels)
    return LabelCostMatrix(both.labels, both.m1 if kind == "expected" else both.m2, kind)
