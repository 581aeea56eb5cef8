"""Instance kinds for any K: every instance's response vector, counted per class.

An instance of true class ``c`` has the *response vector* ``r = (r(0), ..., r(K-1))``: the
system's output when the slot is forced to each label ``j`` (``r(j)`` is a label index). Its
*kind* is ``(c, r)``. Counting kinds on the candidate's instances (every forced run at hand,
per instance) makes the worst and best case exact with no assumption: assigning the
candidate's ``N[c, j]`` predictions of ``j`` to the instances is a transportation problem
(:mod:`causalcost.pricing.programs`). For K = 2 the four response vectors of a
class are the binary kinds ``never``, ``wrong_only``, ``always`` and ``right_only``.

**Accepted representations** (all mean the same thing; :func:`read_kinds` turns
each into a :class:`Kinds`):

* a :class:`Kinds` (what :func:`count_response_kinds` returns);
* a mapping ``{(c, r): count}`` with ``c`` a class and ``r`` a length-K tuple of outputs, each a
  label index ``0..K-1`` or a label name (names need ``labels=``);
* a :class:`pandas.DataFrame` with a column ``"class"``, one column per label (named by the
  label, in label order: the output with the slot forced to that label) and a column
  ``"count"``; one row per kind (rows of the same kind add up). The labels are the frame's
  columns other than ``class`` and ``count``, in order, so no label may be called ``class``
  or ``count`` in this form.

Counts are non-negative integers; kinds with count 0 may be listed or left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import CountError, InputTypeError, ValidationError

__all__ = ["Kinds", "count_response_kinds", "read_kinds"]


@dataclass(frozen=True)
class Kinds:
    """Counts of ``(true class, response vector)`` kinds, by label index.

    Attributes
    ----------
    labels : tuple of str
        The K labels.
    counts : dict
        ``{(c, (r(0), ..., r(K-1))): count}`` with indices into ``labels``; only positive
        counts are kept.

    Examples
    --------
    >>> k = count_response_kinds([0, 0, 1], [[0, 1, 1], [0, 1, 1], [2, 1, 2]],
    ...                            labels=["a", "b", "c"])
    >>> k.counts
    {(0, (0, 1, 1)): 2, (1, (2, 1, 2)): 1}
    >>> k.class_sizes().tolist(), k.forced()[2].tolist()
    ([2, 1, 0], [[0, 2, 0], [0, 0, 1], [0, 0, 0]])
    """

    labels: tuple[str, ...]
    counts: dict[tuple[int, tuple[int, ...]], int]

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def class_sizes(self) -> np.ndarray:
        """Instances per true class (exact ints)."""
        out = np.zeros(self.k, dtype=object)
        out[:] = 0
        for (c, _), n in self.counts.items():
            out[c] += n
        return out

    def forced(self) -> np.ndarray:
        """The forced runs these kinds imply, ``F[j, c, s]`` (exact ints)."""
        out = np.zeros((self.k,) * 3, dtype=object)
        out[...] = 0
        for (c, r), n in self.counts.items():
            for j, s in enumerate(r):
                out[j, c, s] += n
        return out

    def by_class(self, c: int) -> tuple[list[tuple[int, ...]], list[int]]:
        """Response vectors of class ``c`` and their counts (sorted by vector)."""
        items = sorted((r, n) for (cc, r), n in self.counts.items() if cc == c)
        return [r for r, _ in items], [n for _, n in items]

    def binary_frame(self) -> pd.DataFrame:
        """The K = 2 view: the four binary kinds per class (labels positive first).

        Class ``c`` (index 0 is the positive label) fails when the output is not ``c``; the
        slot is right when forced to ``c``. A response that fails only forced wrong is
        ``wrong_only``, only forced right ``right_only``.

        >>> Kinds(("P", "N"), {(0, (0, 1)): 3, (1, (1, 1)): 2}).binary_frame().loc["P"].tolist()
        [0, 3, 0, 0]
        """
        from causalcost.pricing.witness import KINDS

        if self.k != 2:
            raise ValidationError(f"the binary kinds view needs K = 2 labels, got {self.k}")
        rows = {"P": [0, 0, 0, 0], "N": [0, 0, 0, 0]}
        for (c, r), n in self.counts.items():
            fails_right, fails_wrong = r[c] != c, r[1 - c] != c
            kind = (2 if fails_wrong else 3) if fails_right else (1 if fails_wrong else 0)
            rows["PN"[c]][kind] += n
        frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(KINDS))
        frame.index.name = "class"
        return frame

    def to_frame(self) -> pd.DataFrame:
        """The frame representation: ``class``, one column per label, ``count``."""
        rows = [[self.labels[c], *(self.labels[s] for s in r), n]
                for (c, r), n in sorted(self.counts.items())]
        return pd.DataFrame(rows, columns=["class", *self.labels, "count"])


def _index(value: Any, labels: tuple[str, ...] | None, k: int, what: str) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        if 0 <= int(value) < k:
            return int(value)
        raise ValidationError(f"kinds: {what} {value!r} is not a label index 0..{k - 1}")
    if labels is not None and str(value) in labels:
        return labels.index(str(value))
    raise ValidationError(f"kinds: {what} {value!r} is not one of the labels "
                          f"{list(labels) if labels else list(range(k))}")


def _count(value: Any, where: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"kinds: the count of {where} must be a number, got {value!r}")
    if not np.isfinite(float(value)) or value < 0 or not float(value).is_integer():
        raise CountError(f"kinds: the count of {where} is {value!r}; counts must be whole "
                         "numbers >= 0")
    return int(value)


def _is_binary_frame(kinds: object) -> bool:
    from causalcost.pricing.witness import KINDS

    columns = getattr(kinds, "columns", None)
    return columns is not None and set(map(str, columns)) == set(KINDS)


def _from_binary_frame(kinds: object, names: tuple[str, ...]) -> Kinds:
    """Response vectors of the binary kinds frame (rows P, N; labels positive first)."""
    from causalcost.pricing.witness import _read_kinds

    counts = _read_kinds(kinds)
    out: dict[tuple[int, tuple[int, ...]], int] = {}
    for c, cls in enumerate(("P", "N")):
        right, wrong = c, 1 - c  # output c is right for class c
        for kind, (at_right, at_wrong) in zip(
                ("never", "wrong_only", "always", "right_only"),
                ((right, right), (right, wrong), (wrong, wrong), (wrong, right))):
            n = counts[cls][("never", "wrong_only", "always", "right_only").index(kind)]
            if n:  # r(c) = output forced to the right label, r(1 - c) forced to the wrong
                r = [0, 0]
                r[c], r[1 - c] = at_right, at_wrong
                out[(c, tuple(r))] = n
    return Kinds(names, out)


def read_kinds(kinds: object, k: int,
                          labels: Sequence[str] | None = None) -> Kinds:
    """Any accepted representation (see the module) as :class:`Kinds` over K labels.

    Raises
    ------
    ValidationError
        A class or output that is not a label, a vector of the wrong length, or labels that
        disagree with ``labels``.
    CountError
        A negative or fractional count.
    InputTypeError
        Anything else than the accepted representations.
    """
    names = tuple(map(str, labels)) if labels is not None else None
    if k == 2 and _is_binary_frame(kinds):  # the four binary kinds: the K = 2 view
        return _from_binary_frame(kinds, names or ("P", "N"))
    if isinstance(kinds, Kinds):
        if kinds.k != k or (names is not None and kinds.labels != names):
            raise ValidationError(f"kinds are over labels {list(kinds.labels)}, the other "
                                  f"inputs over {list(names) if names else k} labels")
        return kinds
    if isinstance(kinds, pd.DataFrame):
        missing = [c for c in ("class", "count") if c not in kinds.columns]
        if missing:
            raise ValidationError(f"the kinds frame needs the columns 'class' and 'count' "
                                  f"(missing {missing}) and one column per label")
        own = tuple(str(c) for c in kinds.columns if c not in ("class", "count"))
        if len(own) != k or (names is not None and own != names):
            raise ValidationError(f"the kinds frame's label columns {list(own)} must be the "
                                  f"{k} labels {list(names) if names else ''} in order")
        names = own
        cols = [c for c in kinds.columns if c not in ("class", "count")]
        pairs = [((row["class"], tuple(row[c] for c in cols)), row["count"])
                 for _, row in kinds.iterrows()]
    elif isinstance(kinds, Mapping):
        pairs = list(kinds.items())
    else:
        raise InputTypeError("kinds must be a Kinds, a mapping {(class, response "
                             "vector): count} or a frame with columns class, <labels>, count; "
                             f"got {type(kinds).__name__}")
    counts: dict[tuple[int, tuple[int, ...]], int] = {}
    for key, n in pairs:
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], Sequence)
                and not isinstance(key[1], str)):
            raise InputTypeError(f"kinds: key {key!r} must be (class, response vector)")
        c = _index(key[0], names, k, "class")
        if len(key[1]) != k:
            raise ValidationError(f"kinds: response vector {tuple(key[1])!r} must have one "
                                  f"output per label ({k})")
        r = tuple(_index(v, names, k, "output") for v in key[1])
        count = _count(n, f"{key!r}")
        if count:
            counts[(c, r)] = counts.get((c, r), 0) + count
    return Kinds(names or tuple(str(i) for i in range(k)), counts)


def count_response_kinds(true: Sequence[int], outputs: Sequence[Sequence[int]], *,
                           labels: Sequence[str]) -> Kinds:
    """Count kinds from per-instance data: ``true[i]`` and ``outputs[i][j]`` (label indices).

    ``outputs[i][j]`` is the system's output on instance ``i`` with the slot forced to label
    ``j``.

    Raises
    ------
    ValidationError
        Lengths that disagree or an index outside ``0..K-1``.
    """
    names = tuple(map(str, labels))
    k = len(names)
    out = np.asarray(outputs)
    true_arr = np.asarray(true)
    if out.ndim != 2 or out.shape[1] != k or len(true_arr) != len(out):
        raise ValidationError(f"outputs must have shape (len(true), {k}); got {out.shape} "
                              f"for {len(true_arr)} instances")
    mapping: dict[tuple[int, tuple[int, ...]], int] = {}
    for c, r in zip(true_arr.tolist(), out.tolist()):
        key = (c, tuple(r))
        mapping[key] = mapping.get(key, 0) + 1
    return read_kinds(mapping, k, names)
