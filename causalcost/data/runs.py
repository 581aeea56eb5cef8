"""The :class:`ForcedRuns` value: the system run with the slot forced to each label, for any K.

Runs are counted per instance *pattern*: the true class ``c``, the response vector
``r = (r(0), ..., r(K-1))`` (the system's output with the slot forced to each label) and,
when counted, the slot's own vote. Everything else is a sum over those counts:

* ``forced[j, c, s]``: class-``c`` instances with system output ``s`` when the slot is forced
  to label ``j`` (the K forced runs, as if the system had been run K times);
* ``observed[c, s]``: the system as logged (the slot voting as in its column);
* the instance kinds: instances per (class, response vector), the input of the exact bound.

Rows are the true class everywhere. A binary log read with a positive label is the case K = 2
with labels (P, N): its counts keep the axes :data:`AXES` ``(class, forced_p, forced_n, slot)``
(a response vector is the pair (forced-P vote, forced-N vote)), and the binary names
(``forced_p``, ``forced_n``, ``observed`` as a :class:`~causalcost.Confusion`, the four kinds
``never`` / ``wrong_only`` / ``always`` / ``right_only``) are views of the same runs.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion
from causalcost.display import html_block, html_table
from causalcost.errors import CountError, DataError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.responses import Kinds
from causalcost.pricing.witness import KINDS

__all__ = ["ForcedRuns", "AXES", "LabelConfusion", "VotePatterns", "counts_digest",
           "forced_digest", "label_frame", "system_confusion"]

#: Axes of :attr:`ForcedRuns.counts`; along each, index 0 is P and 1 is N.
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


@dataclass(frozen=True, eq=False, repr=False)
class ForcedRuns:
    """The system run with the slot forced to each label on one data set, and what follows.

    One type for any number of labels K. A binary log read with a positive label holds its
    counts in :attr:`counts` (axes :data:`AXES`); a log read with ``labels=[...]`` holds
    :attr:`patterns`. Either way the general views read the same numbers: :attr:`forced`
    ``F[j, c, s]``, :attr:`observed` (the system as logged), :attr:`response_kinds`,
    :meth:`with_candidate`, :meth:`to_frame`, :meth:`picture`.

    Attributes
    ----------
    counts : numpy.ndarray or None
        Binary runs: integer counts with axes :data:`AXES` ``(class, forced_p, forced_n,
        slot)``: true class, the system's vote with the slot forced to P, with it forced to
        N, and the slot's own vote; along each axis index 0 is P and 1 is N. The last axis
        has length 1 when the slot's column was not counted. ``None`` for K-label runs.
    slot : str
    models : tuple of str
        The fusioner's inputs (the prediction columns), in input order.
    fusioner : Fusioner
    provenance : dict
        Where the counts came from: ``engine``, ``lazy``, ``rows``, ``truth``, ``models``,
        ``slot``, ``slot_column``, ``columns``, ``positive`` (binary) or ``labels``,
        ``fusioner``, ``counts_sha256`` (:func:`counts_digest`, binary) or ``forced_sha256``
        (:func:`forced_digest`), and ``file`` when read from a path.
    labels : tuple or None
        The K labels of runs counted with ``labels=`` (``None``: binary, labels (P, N)).
    patterns : VotePatterns or None
        The counted patterns of K-label runs.

    Runs made by :func:`~causalcost.data.forced_runs.forced_runs` also keep a reference to the
    data they were counted on (outside repr and equality), so that :meth:`with_candidate` can
    plug a candidate into the slot on the same rows. Equality compares the counts, slot, models
    and fusioner rule, not the engine: the same table on pandas and on DuckDB gives equal runs.

    Examples
    --------
    Thesis §3.3: AND fusioner; the other model is right on half of 100 positives.

    >>> from causalcost.network.fusioners import make_fusioner
    >>> counts = np.zeros((2, 2, 2, 1), dtype=int)
    >>> counts[P, P, N, 0] = 50   # the other model says P: the system follows the slot
    >>> counts[P, N, N, 0] = 50   # the other model says N: the system always misses
    >>> runs = ForcedRuns(counts, slot="m2", models=("m1", "m2"),
    ...                   fusioner=make_fusioner("and", ["m1", "m2"]))
    >>> runs.forced_p, runs.forced_n, runs.observed
    (Confusion(tp=50, fn=50, fp=0, tn=0), Confusion(tp=0, fn=100, fp=0, tn=0), None)
    >>> runs.kinds.loc["P"].to_dict()
    {'never': 0, 'wrong_only': 50, 'always': 50, 'right_only': 0}
    >>> runs.forced[0].tolist(), runs.label_names   # F[j = P]: the forced-P run
    ([[50, 50], [0, 0]], ('P', 'N'))
    """

    counts: np.ndarray | None
    slot: str
    models: tuple[str, ...]
    fusioner: Any
    provenance: dict[str, Any] = field(default_factory=dict)
    _counter: Any = field(default=None, repr=False)
    labels: tuple[Any, ...] | None = None
    patterns: VotePatterns | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", tuple(self.models))
        if self.labels is None:
            self._init_binary()
        else:
            self._init_labelled()

    def _init_binary(self) -> None:
        counts = np.asarray(self.counts)
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
        object.__setattr__(self, "counts", counts)
        forced = np.stack([counts.sum(axis=(2, 3)), counts.sum(axis=(1, 3))])
        forced.setflags(write=False)
        object.__setattr__(self, "_forced", forced)

    def _init_labelled(self) -> None:
        labels = tuple(self.labels)  # type: ignore[arg-type]
        k = len(labels)
        pat = self.patterns
        if self.counts is not None or pat is None:
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
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "patterns", VotePatterns(classes, responses, sizes, votes))
        forced = np.zeros((k, k, k), dtype=np.int64)
        for j in range(k):
            np.add.at(forced[j], (classes, responses[:, j]), sizes)
        forced.setflags(write=False)
        object.__setattr__(self, "_forced", forced)

    # -- the general views --------------------------------------------------------------------
    @property
    def binary(self) -> bool:
        """Whether these are binary runs read with a positive label (labels (P, N))."""
        return self.labels is None

    @property
    def label_names(self) -> tuple[str, ...]:
        """The K labels as strings (``("P", "N")`` for binary runs)."""
        return CLASSES if self.labels is None else tuple(str(v) for v in self.labels)

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.label_names)

    @property
    def forced(self) -> np.ndarray:
        """``F[j, c, s]`` (int64, shape (K, K, K)): class-``c`` instances with system output
        ``s`` when the slot is forced to label ``j``."""
        return self._forced  # type: ignore[attr-defined,no-any-return]

    @property
    def n(self) -> int:
        """Rows counted."""
        return int(self.forced[0].sum())

    @property
    def class_sizes(self) -> np.ndarray:
        """Instances per true class."""
        return self.forced[0].sum(axis=1)

    def rates(self) -> np.ndarray:
        """The interventional table ``T[c, j, s] = F[j, c, s] / n_c`` (a class never seen has
        rows of NaN)."""
        sizes = self.class_sizes.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.transpose(self.forced / sizes[None, :, None], (1, 0, 2))

    def forced_frame(self, label: Any) -> pd.DataFrame:
        """The system's confusion with the slot forced to ``label`` (rows: true class)."""
        names = self.label_names
        given = [v for v in (self.labels or names)]
        if label in given:
            j = given.index(label)
        elif str(label) in names:
            j = names.index(str(label))
        else:
            raise ValidationError(f"label {label!r} is not one of {list(given)}")
        return label_frame(self.forced[j], names)

    @property
    def has_slot_column(self) -> bool:
        """Whether the slot's own votes were counted."""
        if self.labels is None:
            return self.counts.shape[3] == 2  # type: ignore[union-attr]
        return self.patterns.slot_votes is not None  # type: ignore[union-attr]

    def _patterns(self) -> VotePatterns:
        if self.patterns is not None:
            return self.patterns
        return VotePatterns.from_counts(self.counts)  # type: ignore[arg-type]

    @property
    def observed(self) -> Confusion | None:
        """The system as logged (the slot voting as in its column), rows the true class, or
        ``None``: a :class:`~causalcost.Confusion` (binary runs: labels P, N; K-label runs: the
        runs' labels; ``.to_numpy()`` is the K x K counts)."""
        if not self.has_slot_column:
            return None
        if self.labels is None:
            return system_confusion(self.counts)  # type: ignore[arg-type]
        pat = self._patterns()
        out = np.zeros((self.k, self.k), dtype=np.int64)
        rows = np.arange(len(pat.classes))
        np.add.at(out, (pat.classes, pat.responses[rows, pat.slot_votes]), pat.sizes)
        return Confusion(out, labels=self.label_names)

    @property
    def slot_model(self) -> Confusion | None:
        """The deployed slot model's own confusion on the same rows, or ``None``."""
        if not self.has_slot_column:
            return None
        if self.labels is None:
            return _confusion(self.counts.sum(axis=(1, 2)))  # type: ignore[union-attr]
        pat = self._patterns()
        out = np.zeros((self.k, self.k), dtype=np.int64)
        np.add.at(out, (pat.classes, pat.slot_votes), pat.sizes)
        return Confusion(out, labels=self.label_names)

    @property
    def slot_confusion(self) -> Confusion | None:
        """The deployed slot model's own confusion (as :attr:`slot_model`)."""
        return self.slot_model

    # -- binary views -------------------------------------------------------------------------
    def _binary_view(self, name: str) -> None:
        if self.k != 2:
            raise ValidationError(f"{name} is a view of binary runs (K = 2); these runs have "
                                  f"{self.k} labels: read .forced[j] (F[j, c, s]) or "
                                  "forced_frame(label)")

    @property
    def forced_p(self) -> Confusion:
        """The system's confusion with the slot forced to P (the first label), K = 2."""
        self._binary_view("forced_p")
        return _confusion(self.forced[P])

    @property
    def forced_n(self) -> Confusion:
        """The system's confusion with the slot forced to N (the second label), K = 2."""
        self._binary_view("forced_n")
        return _confusion(self.forced[N])

    def error_rates(self) -> ErrorRates:
        """The slot's interventional error rates counted from the two runs (K = 2)."""
        return ErrorRates.from_forced(self.forced_p, self.forced_n)

    def table(self, **kwargs: Any) -> InterventionalTable:
        """The binary interventional table with binomial intervals (K = 2, see
        ``InterventionalTable``); for any K, :meth:`rates` is ``T[c, j, s]``."""
        return InterventionalTable.from_forced(self.slot, self.forced_p, self.forced_n, **kwargs)

    # -- kinds --------------------------------------------------------------------------------
    def _kind_counts(self) -> dict[str, list[int]]:
        c = self.forced_kinds_array()
        # class P: the slot is right when forced to P, and the system right when it votes P;
        # class N: right when forced to N, the system right when it votes N.
        out = {"P": [c[P, P, P], c[P, P, N], c[P, N, N], c[P, N, P]],
               "N": [c[N, N, N], c[N, P, N], c[N, P, P], c[N, N, P]]}
        return {k: [int(v) for v in vs] for k, vs in out.items()}

    def forced_kinds_array(self) -> np.ndarray:
        """K = 2: instances by (class, forced-P vote, forced-N vote)."""
        self._binary_view("the binary kinds")
        if self.counts is not None:
            return self.counts.sum(axis=3)
        out = np.zeros((2, 2, 2), dtype=np.int64)
        pat = self._patterns()
        np.add.at(out, (pat.classes, pat.responses[:, 0], pat.responses[:, 1]), pat.sizes)
        return out

    @property
    def response_kinds(self) -> Kinds:
        """Instances per (class, response vector), for any K: the input of the exact kinds
        bound (``cc.bound(kinds=...)``)."""
        pat = self._patterns()
        found: dict[tuple[int, tuple[int, ...]], int] = {}
        for c, r, n in zip(pat.classes.tolist(), map(tuple, pat.responses.tolist()),
                           pat.sizes.tolist()):
            if n:
                found[(c, r)] = found.get((c, r), 0) + int(n)
        return Kinds(self.label_names, dict(sorted(found.items())))

    @property
    def kinds(self) -> pd.DataFrame | Kinds:
        """The instance kinds. Binary runs: a frame (index ``class``: P, N; columns
        ``never``, ``wrong_only``, ``always``, ``right_only``: never fails, fails only when the
        slot is wrong, always fails, fails only when the slot is right). K-label runs: the
        response vectors (:attr:`response_kinds`)."""
        if self.labels is not None:
            return self.response_kinds
        counts = self._kind_counts()
        return pd.DataFrame([counts[c] for c in CLASSES],
                            index=pd.Index(list(CLASSES), name="class"),
                            columns=list(KINDS), dtype=np.int64)

    def monotone_for(self, costs: Any) -> bool:
        """Whether, on these rows, no instance costs more with the slot forced to its true
        class than forced to some other label: ``C[c, r(c)] <= C[c, r(j)]`` for every ``j``
        (the monotone assumption, per instance, for these costs)."""
        arr = cost_array(costs, self.label_names)
        pat = self._patterns()
        own = arr[pat.classes, pat.responses[np.arange(len(pat.classes)), pat.classes]]
        cheapest = arr[pat.classes[:, None], pat.responses].min(axis=1)
        return bool(((own <= cheapest) | (pat.sizes == 0)).all())

    @property
    def monotone_on_data(self) -> bool:
        """No instance fails only when the slot is right (the specification holds on these
        rows): :meth:`monotone_for` with 0/1 costs."""
        if self.labels is None:
            return all(v[3] == 0 for v in self._kind_counts().values())
        return self.monotone_for(1 - np.eye(self.k))

    # -- candidates ---------------------------------------------------------------------------
    def with_candidate(self, predictions: Any, *, positive: Any = None,
                       ) -> Confusion:
        """The real system's confusion with a candidate's predictions plugged into the slot.

        Parameters
        ----------
        predictions : str or array-like
            The name of a column of the data the runs were counted on (any engine; counted by
            one more group-by), or an array aligned with its rows (eager frames only: pandas,
            polars DataFrame, pyarrow, a mapping; lazy frames do not promise a row order). A
            pandas Series is aligned by its index (a permutation of the data's index is
            reordered; other labels are refused).
        positive : optional
            Binary runs: the candidate's positive label (default: the runs' ``positive``).

        Returns
        -------
        Confusion
            The system's confusion, rows the true class (K-label runs: over the runs'
            labels; ``.to_numpy()``, ``.cost(C)``).

        Examples
        --------
        >>> import pandas as pd
        >>> from causalcost.data.forced_runs import forced_runs
        >>> df = pd.DataFrame({"y": [1, 1, 0, 0], "a": [1, 0, 1, 0], "b": [1, 1, 0, 0]})
        >>> runs = forced_runs(df, truth="y", models=["a", "b"], slot="b", fusioner="and")
        >>> runs.with_candidate([1, 1, 1, 1]), runs.with_candidate("y")
        (Confusion(tp=1, fn=1, fp=1, tn=1), Confusion(tp=1, fn=1, fp=0, tn=2))
        >>> df = pd.DataFrame({"y": ["a", "b", "c", "c"], "m1": ["a", "b", "c", "a"],
        ...                    "m2": ["a", "c", "c", "b"], "m3": ["b", "b", "a", "c"]})
        >>> runs = forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
        ...                    fusioner="plurality", labels=["a", "b", "c"])
        >>> runs.with_candidate("y").to_numpy().tolist()  # the last row ties a, b, c: to a
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
        >>> runs.with_candidate(["b", "b", "b", "b"]).cost(1 - np.eye(3))
        1.0
        """
        counter = self._require_counter()
        if self.labels is None:
            return counter.candidate(predictions, positive)  # type: ignore[no-any-return]
        if positive is not None:
            raise ValidationError("positive= is a binary option; K-label runs read the "
                                  "candidate's labels by name")
        return Confusion(counter.tables(predictions)[0], labels=self.label_names)

    def candidate_confusion(self, predictions: Any, *, positive: Any = None,
                            ) -> Confusion:
        """The candidate's own confusion ``N[c, j]`` on the same rows (column or array)."""
        counter = self._require_counter()
        if self.labels is None:
            return counter.own(predictions, positive)  # type: ignore[no-any-return]
        return Confusion(counter.tables(predictions)[1], labels=self.label_names)

    def _require_counter(self) -> Any:
        if self._counter is None:
            raise DataError("with_candidate needs runs counted by forced_runs(...) on data; "
                            "these were built from counts alone")
        return self._counter

    # -- output -------------------------------------------------------------------------------
    def picture(self, *, intervention: str | None = None, title: str | None = None) -> Any:
        """The system behind these runs, drawn as a network picture (a
        :class:`~causalcost.network.picture.SystemPicture`, SVG): truth column -> models ->
        fusioner (labelled with its rule) -> confusion, the slot highlighted; with
        ``intervention`` a label (``"P"`` or ``"N"`` for binary runs), the graph of
        ``do(slot = intervention)``. The title says what the system is (rule, models, data
        source and rows); K-label runs show their labels under the class and the output.

        >>> from causalcost.network.fusioners import make_fusioner
        >>> runs = ForcedRuns(np.ones((2, 2, 2, 1), dtype=int), slot="a", models=("a", "b"),
        ...                   fusioner=make_fusioner("and", ["a", "b"]))
        >>> runs.picture().title
        'system from data: AND over a, b'
        """
        from causalcost.network.sketch import data_picture

        return data_picture(self.models, self.fusioner, slot=self.slot,
                            provenance=self.provenance, intervention=intervention, title=title)

    def to_frame(self) -> pd.DataFrame:
        """Binary runs: rows ``forced_p``, ``forced_n`` (and ``observed``, ``slot_model`` when
        the slot's column was counted); columns ``tp, fn, fp, tn`` (integers). K-label runs:
        every forced run as rows (``forced``, ``true``), columns the system's output."""
        if self.labels is not None:
            parts = {name: label_frame(self.forced[i], self.label_names)
                     for i, name in enumerate(self.label_names)}
            return pd.concat(parts, names=["forced"])
        rows = {"forced_p": self.forced_p, "forced_n": self.forced_n}
        if self.has_slot_column:
            rows.update(observed=self.observed, slot_model=self.slot_confusion)  # type: ignore[arg-type]
        return pd.DataFrame([[int(v) for v in m.cells()] for m in rows.values()],  # type: ignore[union-attr]
                            index=pd.Index(list(rows), name="run"), columns=list(CELLS))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: runs (integer cells), kinds, monotone_on_data, provenance."""
        if self.labels is not None:
            def rows(m: Any) -> list[list[int]] | None:
                return None if m is None else m.to_numpy().astype(np.int64).tolist()

            return {"labels": list(self.label_names), "slot": self.slot,
                    "models": list(self.models), "fusioner": self.fusioner.description,
                    "n": self.n, "forced": self.forced.tolist(), "observed": rows(self.observed),
                    "slot_model": rows(self.slot_model),
                    "kinds": self.response_kinds.to_frame().to_dict(orient="records"),
                    "monotone_on_data": self.monotone_on_data,
                    "provenance": dict(self.provenance)}

        def cells(m: Any) -> dict[str, int] | None:
            return None if m is None else {k: int(v) for k, v in m.to_dict().items()}

        return {
            "slot": self.slot, "models": list(self.models), "fusioner": self.fusioner.description,
            "n": self.n, "forced_p": cells(self.forced_p), "forced_n": cells(self.forced_n),
            "observed": cells(self.observed), "slot_model": cells(self.slot_confusion),
            "kinds": {c: dict(zip(KINDS, v)) for c, v in self._kind_counts().items()},
            "monotone_on_data": self.monotone_on_data, "provenance": dict(self.provenance),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ForcedRuns):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        f = self.fusioner
        if self.labels is None:
            return (self.counts.shape, self.counts.tobytes(), self.slot, self.models,  # type: ignore[union-attr]
                    (f.rule, f.inputs, f.weights, f.threshold, f.description))
        observed = self.observed
        return (self.labels, self.forced.tobytes(),
                tuple(sorted(self.response_kinds.counts.items())), self.slot, self.models, f,
                None if observed is None else observed.matrix)

    def __repr__(self) -> str:
        where = self.provenance.get("engine")
        engine = f", engine={where}" if where else ""
        if self.labels is not None:
            sizes = ", ".join(f"{v} {lab}" for lab, v in zip(self.label_names,
                                                              self.class_sizes))
            head = (f"ForcedRuns(slot={self.slot!r}, fusioner={self.fusioner.description}, "
                    f"labels={list(self.label_names)}, n={self.n} ({sizes}){engine})")
            runs = "\n".join(f"  forced to {lab!r} (rows: true class, columns: system output):\n"
                             + _indent(label_frame(self.forced[j], self.label_names).to_string())
                             for j, lab in enumerate(self.label_names))
            observed = (f"None (no column {self.slot!r} counted)"
                        if self.observed is None else "\n" + _indent(
                            label_frame(self.observed.to_numpy().astype(np.int64),
                                        self.label_names).to_string()))
            return (f"{head}\n{runs}\n  observed: {observed}\n"
                    f"  kinds: {len(self.response_kinds.counts)} response vectors; "
                    f"monotone_on_data: {self.monotone_on_data}")
        pos, neg = self.forced_p.positives, self.forced_p.negatives
        head = (f"ForcedRuns(slot={self.slot!r}, fusioner={self.fusioner.description}, "
                f"n={self.n} ({pos:.0f} P, {neg:.0f} N){engine})")
        observed_text = (repr(self.observed) if self.has_slot_column
                         else f"None (no column {self.slot!r} counted)")
        kinds = "\n".join(f"  kinds {c}:  " + ", ".join(f"{k}={v}" for k, v in zip(KINDS, vs))
                          for c, vs in self._kind_counts().items())
        return (f"{head}\n  forced_p: {self.forced_p!r}\n  forced_n: {self.forced_n!r}\n"
                f"  observed: {observed_text}\n{kinds}\n  monotone_on_data: "
                f"{self.monotone_on_data}")

    def _repr_html_(self) -> str:
        if self.labels is not None:
            tables = [html_table(label_frame(self.forced[j], self.label_names),
                                 caption=f"Slot forced to {lab}")
                      for j, lab in enumerate(self.label_names)]
            return html_block(repr(self).splitlines()[0], *tables,
                              html_table(self.response_kinds.to_frame(),
                                         caption="Instance kinds"))
        return html_block(repr(self), html_table(self.to_frame(), caption="Forced runs"),
                          html_table(self.kinds, caption="How each instance reacts to the slot"))


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
