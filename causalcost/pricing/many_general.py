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
from causalcost.pricing.chunks import Offences, check_output_size, chunk_spans, labels_of
from causalcost.pricing.general import _free_class, _rates, is_table
from causalcost.pricing.inputs import check_costs, check_counts, check_labels
from causalcost.pricing.programs import monotone_many

__all__ = ["general_bound_many"]


_NEGATIVE, _WHOLE, _SIZES, _OVERFLOW = range(4)  # Offences ranks, in the unchunked order
_CASES = ("worst", "expected", "best")
#: Distinct rows whose assumption-free extremes are remembered from one chunk to the next (per
#: call, all classes together; each about 300 bytes): a row that recurs in a later chunk is not
#: solved again.
MEMO_ROWS = 2**17


def _candidates(candidates: Any, k: int | None) -> np.ndarray:
    """The candidates as an (n, K, K) array, read in place if they are one (no float copy)."""
    arr = np.asarray(candidates.to_numpy() if hasattr(candidates, "to_numpy") else candidates)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or (k is not None and arr.shape[1] != k):
        raise InputTypeError(f"candidates must have shape (n, K, K) (one confusion N[c, j] per "
                             f"candidate), got {arr.shape}")
    return arr


def _check_chunk(n: np.ndarray, start: int, own: np.ndarray | None,
                 offences: Offences) -> None:
    """Record a chunk's rows with a negative or non-finite count and, with the forced runs'
    class sizes ``own`` (same instances), rows of fractional counts or other class sizes."""
    bad = (~np.isfinite(n) | (n < 0)).reshape(len(n), -1).any(axis=1)
    offences.add(_NEGATIVE, bad, start, lambda row, _: lambda _count: InfeasibleInputError(
        f"candidates[{row}] holds a negative or non-finite count"))
    if own is None or offences.blocking(_WHOLE):
        return
    offences.add(_WHOLE, (n != np.round(n)).reshape(len(n), -1).any(axis=1), start,
                 lambda _row, _local: lambda _count: InfeasibleInputError(
                     "candidates must hold whole numbers with same_instances=True"))
    sizes = n.sum(axis=2)  # [row, c]
    offences.add(_SIZES, (sizes != own[None, :]).any(axis=1), start,
                 lambda row, local: _sizes_error(row, sizes[local].tolist(), own.tolist()))


def _sizes_error(row: int, sizes: list[float], own: list[float]) -> Any:
    return lambda count: InfeasibleInputError(
        f"candidates[{row}] counts class sizes {sizes} but the forced runs {own}; with "
        f"same_instances=True every candidate is counted on the forced runs' instances "
        f"({count} row(s) differ)")


def general_bound_many(forced: Any, candidates: Any, costs: Any = None, *,
                       assumption: str = "none", same_instances: bool = False,
                       labels: list[str] | None = None,
                       max_candidates: int | None = None) -> pd.DataFrame:
    """Bounds of many K-label candidates (see the module). Assumes a checked ``assumption``.

    The candidates are priced :data:`~causalcost.pricing.chunks.CHUNK_CELLS` cells at a time
    into the preallocated frame (the memory beside it stays bounded); a frame above
    :data:`~causalcost.pricing.chunks.MAX_OUTPUT_BYTES` (or ``max_candidates`` rows) is
    refused before anything is allocated, as in :func:`~causalcost.bound_many`.

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
    check_output_size("candidates", candidates, k or labels_of(candidates), max_candidates)
    raw = _candidates(candidates, k)
    k = raw.shape[1]
    own = (np.asarray(f.sum(axis=2), dtype=float)[0]  # [c]: the forced runs' class sizes
           if same_instances and f is not None else None)
    offences = Offences()
    for start, stop in chunk_spans(len(raw), k * k):
        _check_chunk(raw[start:stop].astype(float), start, own, offences)
    offences.raise_first(below=_WHOLE)
    c_arr = check_costs(1 - np.eye(k) if costs is None else costs, k)
    names = check_labels(labels if labels is not None else getattr(forced, "labels", None), k)
    t = _rates(forced, k)
    if same_instances and table:
        raise InputTypeError("same_instances=True needs forced-run counts, not a table")
    offences.raise_first()
    columns = [f"{case}_cost" for case in _CASES] + [
        f"{case}_{a}_{b}" for case in _CASES for a in names for b in names]
    out = np.empty((len(columns), len(raw)))
    memo: dict[tuple[int, bytes], tuple[np.ndarray, np.ndarray]] = {}
    for start, stop in chunk_spans(len(raw), k * k):
        _price_chunk(raw[start:stop].astype(float), f, t, c_arr, assumption, same_instances,
                     out[:, start:stop], start, offences, memo)
        if offences.blocking(_OVERFLOW + 1):  # the worst case overflows: nothing ranks first
            break
    offences.raise_first()
    return pd.DataFrame(out.T, columns=columns, copy=False)


def _price_chunk(n: np.ndarray, f: Any, t: np.ndarray, c_arr: np.ndarray, assumption: str,
                 same_instances: bool, out: np.ndarray, start: int, offences: Offences,
                 memo: dict[tuple[int, bytes], tuple[np.ndarray, np.ndarray]]) -> None:
    """One chunk of candidates ``n`` (checked) into its columns of ``out`` (rows: the costs,
    then the worst, expected and best system confusions). ``memo`` holds the extremes of
    class rows solved one by one in earlier chunks (keyed by class and row)."""
    k = n.shape[1]
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
                key = (c, row.tobytes())
                if key in memo:
                    w_rows[i], b_rows[i] = memo[key]
                    continue
                m = mass if masses is None else masses[i]
                if assumption == "none":
                    w, b = _free_class(m, row, c_arr[c])
                else:
                    from causalcost.pricing.programs import monotone_class

                    (_, w), (_, b) = monotone_class(m, row, c_arr[c], c, integer=False)
                w_rows[i], b_rows[i] = np.asarray(w, float), np.asarray(b, float)
                if len(memo) < MEMO_ROWS:
                    memo[key] = (w_rows[i].copy(), b_rows[i].copy())
        worst[:, c, :] = w_rows[inverse]
        best[:, c, :] = b_rows[inverse]
    expected = np.einsum("ncj,cjs->ncs", n, t)
    with np.errstate(over="ignore", invalid="ignore"):
        for i, (case, m) in enumerate(zip(_CASES, (worst, expected, best), strict=True)):
            out[i] = np.einsum("ncs,cs->n", m, c_arr)
            offences.add(_OVERFLOW + i, ~np.isfinite(out[i]), start,
                         lambda row, _, case=case: lambda _count: OverflowInputError(
                             f"costs too large: the {case}-case system cost of candidate "
                             f"{row} overflows float64; rescale the costs (divide them all by "
                             "the same factor)"))
            out[3 + i * k * k: 3 + (i + 1) * k * k] = m.reshape(len(n), k * k).T
