"""Many candidates in bounded memory: the ceiling on a result frame, and chunks of candidates.

:func:`~causalcost.bound_many` returns one row of float64 columns per candidate: 15 columns for
a binary candidate, ``3 + 3 K**2`` for a K-label one. That frame is the one allocation that
must hold every candidate at once, so a call whose frame would weigh more than
:data:`MAX_OUTPUT_BYTES` (2 GiB, about 17.9 million binary candidates) is refused before
anything is allocated (:func:`check_output_size`), unless the caller raises the ceiling with
``max_candidates=``. Everything else (the float copy of the counts, the checks, the closed
forms' intermediate arrays) is computed :data:`CHUNK_CELLS` candidate cells at a time
(:func:`chunk_spans`) and written into the preallocated frame, so the working memory beside the
frame stays near a hundred megabytes however many candidates there are.

A chunk's checks find the offending rows of that chunk; :class:`Offences` keeps, over every
chunk, the first offending row and the number of offending rows of each check, so the error
raised is the one the whole input would raise at once, whatever the chunk size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from causalcost.errors import CausalCostError, InputTypeError, ValidationError

__all__ = ["CHUNK_CELLS", "MAX_OUTPUT_BYTES", "Offences", "check_output_size", "chunk_spans",
           "labels_of", "output_columns", "weight"]

#: The ceiling on a :func:`~causalcost.bound_many` result frame, in bytes: 2 GiB, that is
#: 17,895,697 binary candidates (15 float64 columns, 120 bytes a row) or 8,947,848 candidates
#: of K = 3 labels (30 columns). Beyond, pass the candidates in batches (or raise
#: ``max_candidates=``).
MAX_OUTPUT_BYTES = 2 * 2**30

#: Candidate cells priced at once: 2**22, that is 2**20 (1,048,576) binary candidates of 4
#: cells, 466,033 of K = 3 labels (9 cells). The working memory beside the result frame is a
#: few hundred bytes per binary candidate of a chunk (about 100 MB).
CHUNK_CELLS = 2**22


def output_columns(k: int) -> int:
    """float64 columns of the frame for K-label candidates: three costs and three K x K
    system confusions (worst, expected, best); 15 for K = 2.

    >>> output_columns(2), output_columns(3)
    (15, 30)
    """
    return 3 + 3 * k * k


def _rows_of(candidates: object) -> int:
    """How many candidates, read from the shape (or length) alone: nothing is converted."""
    shape = getattr(candidates, "shape", None)
    if shape is not None and len(shape):
        return int(shape[0])
    try:
        return len(candidates)  # type: ignore[arg-type]
    except TypeError:
        return 0  # not a sequence: the shape check that follows names it


def labels_of(candidates: object) -> int:
    """K of candidates shaped (n, K, K), read without converting them; 2 when it cannot be
    read (the shape check that follows names the problem).

    >>> labels_of(np.zeros((5, 3, 3))), labels_of([[[1, 0], [0, 1]]])
    (3, 2)
    """
    shape = getattr(candidates, "shape", None)
    if shape is not None:
        return int(shape[-1]) if len(shape) == 3 else 2
    try:
        return len(candidates[0])  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return 2


def check_output_size(name: str, candidates: object, k: int,
                      max_candidates: int | None = None) -> None:
    """Refuse, before anything is allocated, candidates whose result frame would weigh more
    than :data:`MAX_OUTPUT_BYTES` (or than ``max_candidates`` rows, if given).

    Only the shape (or length) of ``candidates`` is read, so a lazy or broadcast array of any
    size is refused at once.

    Raises
    ------
    ValidationError
        One line naming the argument, the count, the ceiling and the fix (batches, or
        ``max_candidates=``).
    InputTypeError
        ``max_candidates`` is not a whole number >= 1.

    Examples
    --------
    >>> big = np.broadcast_to(np.array([5, 5, 0, 0]), (10**9, 4))  # costs no memory
    >>> check_output_size("models", big, 2)
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: models has 1,000,000,000 candidates, more than ...
    """
    if max_candidates is not None and (isinstance(max_candidates, bool) or not isinstance(
            max_candidates, (int, np.integer)) or max_candidates < 1):
        raise InputTypeError(f"max_candidates ({max_candidates!r}) must be a whole number >= 1 "
                             "(the most candidates one call prices) or None (the 2 GiB "
                             "ceiling on the result frame)")
    rows = _rows_of(candidates)
    row_bytes = 8 * output_columns(k)
    limit = int(max_candidates) if max_candidates is not None else MAX_OUTPUT_BYTES // row_bytes
    if rows > limit:
        raise ValidationError(
            f"{name} has {rows:,} candidates, more than bound_many prices at once ({limit:,}: "
            f"the result frame of {output_columns(k)} float64 columns would weigh "
            f"{weight(rows * row_bytes)}, the ceiling is {weight(limit * row_bytes)}); split "
            f"the candidates into batches of at most {limit:,} rows and concatenate the frames, "
            "or raise max_candidates= if the memory is there")


def weight(size: int) -> str:
    """A size in bytes for a message, in the unit that reads best.

    >>> weight(360), weight(3 * 2**20), weight(120 * 10**9)
    ('360 bytes', '3.0 MiB', '111.8 GiB')
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:,.1f} {unit}"
    return f"{size:,} bytes"


def chunk_spans(rows: int, cells_per_row: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive chunks of at most :data:`CHUNK_CELLS` cells (at least
    one row each) covering ``rows`` rows; one empty span for no rows.

    >>> list(chunk_spans(10, 2**21))
    [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    """
    step = max(1, CHUNK_CELLS // max(1, cells_per_row))
    if rows == 0:
        yield 0, 0
    for start in range(0, rows, step):
        yield start, min(rows, start + step)


class Offences:
    """Offending rows of each check over every chunk: the first one and how many.

    ``add(rank, bad, start, error)`` records the rows of a chunk where ``bad`` holds (``start``
    is the chunk's first row). For the first offending row of a check it calls
    ``error(row, local)`` at once (the row's index over the whole input and within the chunk,
    while the chunk is at hand), which returns the exception to raise given the number of
    offending rows over every chunk. :meth:`raise_first` raises the error of the lowest rank
    found: checks are ranked in the order the unchunked computation makes them, so the error
    does not depend on the chunk size.
    """

    def __init__(self) -> None:
        self._found: dict[int, list[Any]] = {}

    def add(self, rank: int, bad: np.ndarray, start: int,
            error: Callable[[int, int], Callable[[int], CausalCostError]]) -> bool:
        """Record the ``bad`` rows of the chunk starting at ``start``; True if there are any."""
        rows = np.flatnonzero(bad)
        if not rows.size:
            return False
        if rank in self._found:
            self._found[rank][0] += int(rows.size)
        else:
            self._found[rank] = [int(rows.size), error(start + int(rows[0]), int(rows[0]))]
        return True

    def blocking(self, below: int) -> bool:
        """Whether a check ranked below ``below`` has failed (the rest is then not priced)."""
        return any(rank < below for rank in self._found)

    def raise_first(self, below: int | None = None) -> None:
        """Raise the error of the lowest rank found, if any (and if ranked below ``below``)."""
        if self._found and (below is None or min(self._found) < below):
            count, make = self._found[min(self._found)]
            raise make(count)
