""":func:`~causalcost.bound_many` for K-label candidates: many confusions ``N[c, j]`` at once.

The classes are independent and a class's bound depends on a candidate only through its row
``N[c, :]``, so each class is priced once per distinct row. Assumption-free: the greedy of
:mod:`~causalcost.pricing.general` per distinct row. Monotone: the program's optimal bases are
shared between rows (:func:`~causalcost.pricing.programs.monotone_many`), so only a few
programs are solved for thousands of candidates. K = 2 takes the binary vectorised closed
forms (:mod:`~causalcost.pricing.bounds_many`). Results: one row per candidate, columns
``worst_cost, expected_cost, best_cost`` and the system confusions
``{case}_{true}_{output}`` (labels by name).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import InfeasibleInputError, InputTypeError, OverflowInputError
from causalcost.pricing.general import _free_class, _rates, is_table
from causalcost.pricing.inputs import check_costs, check_counts, check_labels
from causalcost.pricing.programs import monotone_many

__all__ = ["general_bound_many"]


def _candidates(candidates: Any, k: int | None) -> np.ndarray:
    arr = np.asarray(candidates.to_numpy() if hasattr(candidates, "to_numpy") else candidates,
                     dtype=float)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or (k is not None and arr.shape[1] != k):
        raise InputTypeError(f"candidates must have shape (n, K, K) (one confusion N[c, j] per "
                             f"candidate), got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        raise InfeasibleInputError(f"candidates[{row}] holds a negative or non-finite count")
    return arr


def general_bound_many(forced: Any, candidates: Any, costs: Any = None, *,
                       assumption: str = "none", same_instances: bool = False,
                       labels: list[str] | None = None) -> pd.DataFrame:
    """Bounds of many K-label candidates (see the module). Assumes a checked ``assumption``.

    Examples
    --------
    >>> forced = np.zeros((3, 3, 3), dtype=int)
    >>> for j in range(3):
    ...     forced[j, :, 0] += 2
    ...     forced[j, :, j] += 1
    >>> many = general_bound_many(forced, [[[3, 0, 0], [1, 2, 0], [0, 1, 2]]] * 2,
    ...                           1 - np.eye(3), same_instances=True)
    >>> many[["worst_cost", "best_cost"]].values.tolist()
    [[6.0, 4.0], [6.0, 4.0]]
    """
    table = is_table(forced)
    f = None if table else check_counts("forced", forced, 3, integer=same_instances)
    k = f.shape[0] if f is not None else None
    n = _candidates(candidates, k)
    k = n.shape[1]
    c_arr = check_costs(1 - np.eye(k) if costs is None else costs, k)
    names = check_labels(labels if labels is not None else getattr(forced, "labels", None), k)
    t = _rates(forced, k)
    sizes = n.sum(axis=2)  # [row, c]
    if same_instances:
        if table:
            raise InputTypeError("same_instances=True needs forced-run counts, not a table")
        if (n != np.round(n)).any():
            raise InfeasibleInputError("candidates must hold whole numbers with "
                                       "same_instances=True")
        own = np.asarray(f.sum(axis=2), dtype=float)  # [j, c]
        bad = np.flatnonzero((sizes != own[0][None, :]).any(axis=1))
        if bad.size:
            raise InfeasibleInputError(
                f"candidates[{bad[0]}] counts class sizes {sizes[bad[0]].tolist()} but the "
                f"forced runs {own[0].tolist()}; with same_instances=True every candidate is "
                f"counted on the forced runs' instances ({bad.size} row(s) differ)")
    worst = np.zeros_like(n)
    best = np.zeros_like(n)
    for c in range(k):
        rows, inverse = np.unique(n[:, c, :], axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        w_rows = np.zeros_like(rows)
        b_rows = np.zeros_like(rows)
        if same_instances:
            mass = np.asarray(f[:, c, :], dtype=float)
            masses = None
        else:
            masses = t[c][None, :, :] * rows.sum(axis=1)[:, None, None]
        if assumption == "monotone" and same_instances:
            w_rows, b_rows = monotone_many(np.asarray(f[:, c, :], dtype=object), rows.astype(int),
                                           c_arr[c], c, integer=True)
        elif assumption == "monotone":
            # the program is homogeneous: a row of n_c instances is n_c times the row of
            # proportions against the rates, so one set of bases serves every candidate
            size = rows.sum(axis=1).astype(float)
            some = size > 0
            if some.any():
                w, b = monotone_many(np.asarray(t[c], dtype=float), rows[some] / size[some, None],
                                     c_arr[c], c, integer=False)
                w_rows = w_rows.astype(float)
                b_rows = b_rows.astype(float)
                w_rows[some] = w * size[some, None]
                b_rows[some] = b * size[some, None]
        else:
            for i, row in enumerate(rows):
                if row.sum() == 0:
                    continue
                m = mass if masses is None else masses[i]
                if assumption == "none":
                    w, b = _free_class(m, row, c_arr[c])
                else:
                    from causalcost.pricing.programs import monotone_class

                    (_, w), (_, b) = monotone_class(m, row, c_arr[c], c, integer=False)
                w_rows[i], b_rows[i] = np.asarray(w, float), np.asarray(b, float)
        worst[:, c, :] = w_rows[inverse]
        best[:, c, :] = b_rows[inverse]
    expected = np.einsum("ncj,cjs->ncs", n, t)
    out: dict[str, Any] = {}
    with np.errstate(over="ignore", invalid="ignore"):
        for case, m in (("worst", worst), ("expected", expected), ("best", best)):
            cost = np.einsum("ncs,cs->n", m, c_arr)
            if not np.isfinite(cost).all():
                raise OverflowInputError(
                    f"costs too large: the {case}-case system cost of candidate "
                    f"{int(np.flatnonzero(~np.isfinite(cost))[0])} overflows float64; rescale "
                    "the costs (divide them all by the same factor)")
            out[f"{case}_cost"] = cost
    for case, m in (("worst", worst), ("expected", expected), ("best", best)):
        for c, a in enumerate(names):
            for s, b in enumerate(names):
                out[f"{case}_{a}_{b}"] = m[:, c, s]
    return pd.DataFrame(out)
