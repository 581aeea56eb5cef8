"""What forced runs are counted in, for any K: the digests, the binary counts' axes, K x K frames
and cost matrices by label, the vote patterns, and the checks that turn given counts or
patterns into the forced runs ``F[j, c, s]`` (:class:`~causalcost.data.runs.ForcedRuns` holds
them)."""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion
from causalcost.errors import CountError, ValidationError

__all__ = ["AXES", "LabelConfusion", "VotePatterns", "binary_forced", "cost_array",
           "counts_digest", "forced_digest", "label_frame", "labelled_forced",
           "system_confusion"]

#: Axes of :attr:`~causalcost.data.runs.ForcedRuns.counts`; along each, index 0 is P and 1 is N.
AXES = ("class", "forced_p", "forced_n", "slot")
P, N = 0, 1
#: The largest total the counts may reach: every sum over them then fits in int64 exactly.
_MAX_TOTAL = int(np.iinfo(np.int64).max)


def counts_digest(counts: np.ndarray) -> str:
    """sha256 of ``{"axes": [...], "counts": [...]}`` as compact JSON (keys in that order).

    >>> counts_digest(np.zeros((2, 2, 2, 1), dtype=int))[:12]
    '43aa7535b341'
    """
    text = json.dumps({"axes": list(AXES[: counts.ndim]), "counts": counts.tolist()},
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _confusion(by_class_and_vote: np.ndarray) -> Confusion:
    """From a (class, system vote) table of counts."""
    (tp, fn), (fp, tn) = by_class_and_vote.tolist()
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)


def system_confusion(counts: np.ndarray) -> Confusion:
    """The system's confusion when the slot votes as the last axis of ``counts`` says.

    ``counts`` has axes (class, forced-P vote, forced-N vote, slot vote): where the slot says
    P the system votes as in the forced-P run, where it says N as in the forced-N run.
    """
    return _confusion(counts[:, :, :, P].sum(axis=2) + counts[:, :, :, N].sum(axis=1))


def forced_digest(forced: np.ndarray, labels: Sequence[Any]) -> str:
    """sha256 of ``{"axes": ["forced", "class", "system"], "labels": [...], "forced": [...]}``
    as compact JSON: the digest of K-label forced runs (``provenance["forced_sha256"]``).

    >>> forced_digest(np.zeros((2, 2, 2), dtype=int), ["a", "b"])[:12]
    'b27c13dca0ac'
    """
    text = json.dumps({"axes": ["forced", "class", "system"], "labels": [str(v) for v in labels],
                       "forced": np.asarray(forced).tolist()}, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def label_frame(matrix: np.ndarray, labels: Sequence[Any], rows: str = "true",
                columns: str = "system") -> pd.DataFrame:
    """A (K, K) matrix as a frame with labelled rows and columns (rows: the true class).

    >>> label_frame(np.eye(2, dtype=int), ["a", "b"]).loc["a"].tolist()
    [1, 0]
    """
    names = [str(v) for v in labels]
    return pd.DataFrame(np.asarray(matrix), index=pd.Index(names, name=rows),
                        columns=pd.Index(names, name=columns))


def cost_array(costs: Any, labels: Sequence[Any]) -> np.ndarray:
    """A cost matrix ``C[c, s]`` as a float (K, K) array in the order of ``labels``.

    ``costs`` is a (K, K) array-like, or any object with ``to_numpy()`` (or a binary
    :class:`~causalcost.CostMatrix`, ``[[c_tp, c_fn], [c_fp, c_tn]]``); when it carries
    ``labels`` they are matched by name (reordered when the same set, refused otherwise).

    >>> cost_array(pd.DataFrame([[0, 1], [5, 0]], index=["b", "a"], columns=["b", "a"]),
    ...            ["a", "b"]).tolist()
    [[0.0, 5.0], [1.0, 0.0]]
    """
    names = tuple(str(v) for v in labels)
    own: tuple[str, ...] | None = None
    if isinstance(costs, pd.DataFrame):
        own = tuple(str(v) for v in costs.index)
        if tuple(str(v) for v in costs.columns) != own:
            raise ValidationError("a cost frame's rows and columns must be the same labels in "
                                  "the same order (rows: the true class)")
        matrix = costs.to_numpy()
    elif hasattr(costs, "to_numpy"):
        matrix = costs.to_numpy()
        found = getattr(costs, "labels", None)
        own = None if found is None else tuple(str(v) for v in found)
    elif hasattr(costs, "to_array"):  # a binary CostMatrix: (P, N)
        matrix = costs.to_array()
    else:
        matrix = costs
    try:
        arr = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"costs must be a {len(names)} x {len(names)} matrix of numbers "
                              f"(rows: the true class), got {costs!r}") from None
    if arr.shape != (len(names), len(names)) or not np.isfinite(arr).all():
        raise ValidationError(f"costs must be a finite {len(names)} x {len(names)} matrix "
                              f"(rows: the true class, labels {list(names)}), got shape "
                              f"{arr.shape}")
    if own is not None and own != names:
        if sorted(own) != sorted(names):
            raise ValidationError(f"the costs' labels {list(own)} are not the runs' labels "
                                  f"{list(names)}")
        order = [own.index(v) for v in names]
        arr = arr[np.ix_(order, order)]
    return arr


def LabelConfusion(matrix: Any, labels: Sequence[Any]) -> Confusion:  # noqa: N802
    """Deprecated: K-label runs return a :class:`~causalcost.Confusion`; this builds
    ``Confusion(matrix, labels=labels)`` and warns.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     LabelConfusion([[3, 1], [0, 4]], ["a", "b"]).cost([[0, 5], [1, 0]])
    5.0
    """
    warnings.warn("LabelConfusion is deprecated: use causalcost.Confusion(matrix, "
                  "labels=[...]) (.to_numpy(), .cost(C), .labels)", DeprecationWarning,
                  stacklevel=2)
    return Confusion(matrix, labels=labels)


@dataclass(frozen=True)
class VotePatterns:
    """Instances counted per pattern: class index, response vector and, optionally, the slot's
    own vote (label indices).

    Attributes
    ----------
    classes : numpy.ndarray
        ``(G,)`` class indices.
    responses : numpy.ndarray
        ``(G, K)``: ``responses[g, j]`` is the system's output with the slot forced to ``j``.
    sizes : numpy.ndarray
        ``(G,)`` instances per pattern.
    slot_votes : numpy.ndarray or None
        ``(G,)`` the slot's own vote, when its column was counted.
    """

    classes: np.ndarray
    responses: np.ndarray
    sizes: np.ndarray
    slot_votes: np.ndarray | None = None

    @classmethod
    def from_counts(cls, counts: np.ndarray) -> VotePatterns:
        """The patterns of binary counts with axes :data:`AXES`."""
        idx = np.argwhere(counts > 0)
        slot = idx[:, 3] if counts.shape[3] == 2 else None
        return cls(idx[:, 0], idx[:, 1:3], counts[tuple(idx.T)], slot)


def binary_forced(counts: Any) -> tuple[np.ndarray, np.ndarray]:
    """Binary counts (axes :data:`AXES`) checked and frozen, and their forced runs
    ``F[j, c, s]`` (j: forced to P, to N).

    Raises
    ------
    CountError
        Another shape, negative or fractional counts, or a total beyond 2**63 - 1.
    """
    counts = np.asarray(counts)
    if counts.shape not in ((2, 2, 2, 1), (2, 2, 2, 2)):
        raise CountError(f"forced-run counts must have shape (2, 2, 2, 1 or 2) over {AXES}, "
                         f"got {counts.shape}")
    if counts.dtype.kind not in "iu" or (counts < 0).any():
        raise CountError("forced-run counts must be non-negative integers")
    total = sum(int(v) for v in counts.ravel().tolist())  # exact: no wrap-around
    if total > _MAX_TOTAL:
        raise CountError(f"forced-run counts add up to {total} rows, more than 2**63 - 1; "
                         "counts that large are not rows of data (a wrapped-around "
                         "integer?): pass the true counts")
    counts = counts.astype(np.int64)
    counts.setflags(write=False)
    forced = np.stack([counts.sum(axis=(2, 3)), counts.sum(axis=(1, 3))])
    forced.setflags(write=False)
    return counts, forced


def labelled_forced(labels: Sequence[Any], counts: Any, patterns: VotePatterns | None
                    ) -> tuple[tuple[Any, ...], VotePatterns, np.ndarray]:
    """K-label patterns checked and frozen, and their forced runs ``F[j, c, s]``.

    Raises
    ------
    CountError
        Binary counts given with labels, no patterns, indices outside the labels or negative
        pattern counts.
    """
    labels = tuple(labels)
    k = len(labels)
    pat = patterns
    if counts is not None or pat is None:
        raise CountError("K-label runs are given by their patterns (labels= with "
                         "patterns=), not by binary counts")
    classes = np.asarray(pat.classes, dtype=np.int64)
    responses = np.asarray(pat.responses, dtype=np.int64).reshape(len(classes), k)
    sizes = np.asarray(pat.sizes, dtype=np.int64)
    votes = None if pat.slot_votes is None else np.asarray(pat.slot_votes, dtype=np.int64)
    for name, arr in (("classes", classes), ("responses", responses),
                      ("slot_votes", votes)):
        if arr is not None and arr.size and (arr.min() < 0 or arr.max() >= k):
            raise CountError(f"pattern {name} must be label indices 0..{k - 1}")
    if sizes.size and sizes.min() < 0:
        raise CountError("pattern counts must be non-negative integers")
    for arr in (classes, responses, sizes, votes):
        if arr is not None:
            arr.setflags(write=False)
    forced = np.zeros((k, k, k), dtype=np.int64)
    for j in range(k):
        np.add.at(forced[j], (classes, responses[:, j]), sizes)
    forced.setflags(write=False)
    return labels, VotePatterns(classes, responses, sizes, votes), forced
