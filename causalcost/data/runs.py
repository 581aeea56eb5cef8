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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion
from causalcost.data.run_counts import (
    AXES,
    LabelConfusion,
    N,
    P,
    VotePatterns,
    _confusion,
    binary_forced,
    cost_array,
    counts_digest,
    forced_digest,
    label_frame,
    labelled_forced,
    system_confusion,
)
from causalcost.data.runs_kinds import RunKinds
from causalcost.data.runs_output import RunsOutput
from causalcost.errors import DataError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable

__all__ = ["ForcedRuns", "AXES", "LabelConfusion", "VotePatterns", "counts_digest",
           "forced_digest", "label_frame", "system_confusion", "cost_array"]


@dataclass(frozen=True, eq=False, repr=False)
class ForcedRuns(RunKinds, RunsOutput):
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
            counts, forced = binary_forced(self.counts)
            object.__setattr__(self, "counts", counts)
        else:
            labels, patterns, forced = labelled_forced(self.labels, self.counts, self.patterns)
            object.__setattr__(self, "labels", labels)
            object.__setattr__(self, "patterns", patterns)
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
