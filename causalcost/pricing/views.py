"""K = 2 arrays as the binary values: the bridge from the general inputs to the closed forms.

A binary system is the case K = 2 with labels (P, N), positive first. Forced runs
``F[j, c, s]``, a candidate's confusion ``N[c, j]`` and costs ``C[c, s]`` (rows the true
class) read as the binary values::

    forced_p = F[P] = [[tp, fn], [fp, tn]]      model = N      costs = C = [[c_tp, c_fn],
    forced_n = F[N]                                                          [c_fp, c_tn]]

so :func:`~causalcost.pricing.bounds.bound` prices K = 2 arrays with the closed forms (its
fast path), which the tests check against the general route
(:func:`~causalcost.pricing.general.general_bound`). Assumes validated arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import InfeasibleInputError
from causalcost.inference.table import ErrorRates

__all__ = ["binary_confusion", "binary_costs", "binary_rates", "matrix_of"]


def matrix_of(value: Any) -> Any:
    """``value.to_numpy()`` for objects that have it (costs, confusions, tables), else
    ``value``; binary :class:`Confusion` / :class:`CostMatrix` as their 2 x 2 matrix."""
    if isinstance(value, (Confusion, CostMatrix)) and not hasattr(value, "to_numpy"):
        tp, fn, fp, tn = value.cells()
        return [[tp, fn], [fp, tn]]
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        return value.to_numpy()
    return value


def _cell(value: Any) -> Any:
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def binary_confusion(matrix: np.ndarray) -> Confusion:
    """``[[tp, fn], [fp, tn]]`` as a :class:`Confusion`.

    >>> binary_confusion(np.array([[3, 1], [2, 4]]))
    Confusion(tp=3, fn=1, fp=2, tn=4)
    """
    return Confusion(tp=_cell(matrix[0][0]), fn=_cell(matrix[0][1]), fp=_cell(matrix[1][0]),
                     tn=_cell(matrix[1][1]))


def binary_costs(matrix: Any) -> CostMatrix:
    """``[[c_tp, c_fn], [c_fp, c_tn]]`` as a :class:`CostMatrix` (a CostMatrix as it is)."""
    if isinstance(matrix, CostMatrix):
        return matrix
    m = np.asarray(matrix, dtype=float)
    return CostMatrix(tp=float(m[0, 0]), fn=float(m[0, 1]), fp=float(m[1, 0]),
                      tn=float(m[1, 1]))


def binary_rates(table: np.ndarray | None = None, forced: np.ndarray | None = None,
                 labels: tuple[str, ...] = ("P", "N"),
                 needed: tuple[bool, bool] = (True, True)) -> ErrorRates:
    """The four interventional error rates from a table ``T[c, j, s]`` or forced-run counts.

    >>> t = np.array([[[0.8, 0.2], [0.0, 1.0]], [[0.8, 0.2], [0.0, 1.0]]])
    >>> binary_rates(t)
    ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.8, e_N(N)=0)
    """
    if table is None:
        f = np.asarray(forced, dtype=float)
        sizes = f.sum(axis=2)  # [j, c]
        for j in range(2):
            for c in range(2):
                if sizes[j, c] == 0 and not needed[c]:
                    sizes[j, c] = 1  # the candidate has no such instance: its rate is unused
                elif sizes[j, c] == 0:
                    raise InfeasibleInputError(
                        f"forced[{j}] holds no instance of class {labels[c]!r}, so its rates "
                        "are unknown")
        table = np.transpose(f / sizes[:, :, None], (1, 0, 2))
    return ErrorRates(fn_forced_p=float(table[0, 0, 1]), fn_forced_n=float(table[0, 1, 1]),
                      fp_forced_p=float(table[1, 0, 0]), fp_forced_n=float(table[1, 1, 0]))
