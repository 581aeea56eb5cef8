"""The :class:`ForcedRuns` value: counts by (class, forced-P vote, forced-N vote, slot vote).

Everything else (the two forced confusions, the system as deployed, the slot model's own
confusion, the instance kinds) is a sum over that small table of counts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion
from causalcost.display import html_block, html_table
from causalcost.errors import CountError, DataError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.network.fusioners import Fusioner
from causalcost.pricing.witness import KINDS

__all__ = ["ForcedRuns", "AXES", "counts_digest", "system_confusion"]

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


@dataclass(frozen=True, eq=False, repr=False)
class ForcedRuns:
    """The system run with the slot forced to P and to N on one data set, and what follows.

    Attributes
    ----------
    counts : numpy.ndarray
        Integer counts with axes :data:`AXES` ``(class, forced_p, forced_n, slot)``: true class,
        the system's vote with the slot forced to P, with it forced to N, and the slot's own
        vote; along each axis index 0 is P and 1 is N. The last axis has length 1 when the
        slot's column was not counted.
    slot : str
    models : tuple of str
        The fusioner's inputs (the prediction columns), in input order.
    fusioner : Fusioner
    provenance : dict
        Where the counts came from: ``engine``, ``lazy``, ``rows``, ``truth``, ``models``,
        ``slot``, ``slot_column``, ``columns``, ``positive``, ``fusioner``, ``counts_sha256``
        (:func:`counts_digest`) and ``file`` when read from a path.

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
    """

    counts: np.ndarray
    slot: str
    models: tuple[str, ...]
    fusioner: Fusioner
    provenance: dict[str, Any] = field(default_factory=dict)
    _counter: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
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
        object.__setattr__(self, "models", tuple(self.models))

    # -- runs ---------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Rows counted."""
        return int(self.counts.sum())

    @property
    def forced_p(self) -> Confusion:
        """The system's confusion with the slot forced to P."""
        return _confusion(self.counts.sum(axis=(2, 3)))

    @property
    def forced_n(self) -> Confusion:
        """The system's confusion with the slot forced to N."""
        return _confusion(self.counts.sum(axis=(1, 3)))

    @property
    def has_slot_column(self) -> bool:
        """Whether the slot's own votes were counted."""
        return self.counts.shape[3] == 2

    @property
    def observed(self) -> Confusion | None:
        """The system as deployed (the slot voting as in its column), or ``None``."""
        return system_confusion(self.counts) if self.has_slot_column else None

    @property
    def slot_confusion(self) -> Confusion | None:
        """The deployed slot model's own confusion on the same rows, or ``None``."""
        return _confusion(self.counts.sum(axis=(1, 2))) if self.has_slot_column else None

    def error_rates(self) -> ErrorRates:
        """The slot's interventional error rates counted from the two runs."""
        return ErrorRates.from_forced(self.forced_p, self.forced_n)

    def table(self, **kwargs: Any) -> InterventionalTable:
        """The interventional table with binomial intervals (see ``InterventionalTable``)."""
        return InterventionalTable.from_forced(self.slot, self.forced_p, self.forced_n, **kwargs)

    # -- kinds --------------------------------------------------------------------------------
    def _kind_counts(self) -> dict[str, list[int]]:
        c = self.counts.sum(axis=3)
        # class P: the slot is right when forced to P, and the system right when it votes P;
        # class N: right when forced to N, the system right when it votes N.
        out = {"P": [c[P, P, P], c[P, P, N], c[P, N, N], c[P, N, P]],
               "N": [c[N, N, N], c[N, P, N], c[N, P, P], c[N, N, P]]}
        return {k: [int(v) for v in vs] for k, vs in out.items()}

    @property
    def kinds(self) -> pd.DataFrame:
        """Instances per class (index ``class``: P, N) and kind (columns ``never``,
        ``wrong_only``, ``always``, ``right_only``: never fails, fails only when the slot is
        wrong, always fails, fails only when the slot is right)."""
        counts = self._kind_counts()
        return pd.DataFrame([counts[c] for c in CLASSES],
                            index=pd.Index(list(CLASSES), name="class"),
                            columns=list(KINDS), dtype=np.int64)

    @property
    def monotone_on_data(self) -> bool:
        """No instance fails only when the slot is right (the specification holds on these rows)."""
        return all(v[3] == 0 for v in self._kind_counts().values())

    # -- candidates ---------------------------------------------------------------------------
    def with_candidate(self, predictions: Any, *, positive: Any = None) -> Confusion:
        """The real system's confusion with a candidate's predictions plugged into the slot.

        Parameters
        ----------
        predictions : str or array-like
            The name of a column of the data the runs were counted on (any engine; counted by
            one more group-by), or an array aligned with its rows (eager frames only: pandas,
            polars DataFrame, pyarrow, a mapping; lazy frames do not promise a row order).
        positive : optional
            The candidate's positive label (default: the runs' ``positive``).

        Examples
        --------
        >>> import pandas as pd
        >>> from causalcost.data.forced_runs import forced_runs
        >>> df = pd.DataFrame({"y": [1, 1, 0, 0], "a": [1, 0, 1, 0], "b": [1, 1, 0, 0]})
        >>> runs = forced_runs(df, truth="y", models=["a", "b"], slot="b", fusioner="and")
        >>> runs.with_candidate([1, 1, 1, 1]), runs.with_candidate("y")
        (Confusion(tp=1, fn=1, fp=1, tn=1), Confusion(tp=1, fn=1, fp=0, tn=2))
        """
        if self._counter is None:
            raise DataError("with_candidate needs runs counted by forced_runs(...) on data; "
                            "these were built from counts alone")
        return self._counter.candidate(predictions, positive)

    # -- output -------------------------------------------------------------------------------
    def picture(self, *, intervention: str | None = None, title: str | None = None) -> Any:
        """The system behind these runs, drawn as a network picture (a
        :class:`~causalcost.network.picture.SystemPicture`, SVG): truth column -> models ->
        fusioner (labelled with its rule) -> confusion, the slot highlighted; with
        ``intervention="P"`` or ``"N"``, the graph of ``do(slot = intervention)``. The title
        says what the system is (rule, models, data source and rows).

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
        """Rows ``forced_p``, ``forced_n`` (and ``observed``, ``slot_model`` when the slot's
        column was counted); columns ``tp, fn, fp, tn`` (integers)."""
        rows = {"forced_p": self.forced_p, "forced_n": self.forced_n}
        if self.has_slot_column:
            rows.update(observed=self.observed, slot_model=self.slot_confusion)
        return pd.DataFrame([[int(v) for v in m.cells()] for m in rows.values()],  # type: ignore[union-attr]
                            index=pd.Index(list(rows), name="run"), columns=list(CELLS))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: runs (integer cells), kinds, monotone_on_data, provenance."""
        def cells(m: Confusion | None) -> dict[str, int] | None:
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
        return (self.counts.shape, self.counts.tobytes(), self.slot, self.models,
                (f.rule, f.inputs, f.weights, f.threshold, f.description))

    def __repr__(self) -> str:
        pos, neg = self.forced_p.positives, self.forced_p.negatives
        where = self.provenance.get("engine")
        head = (f"ForcedRuns(slot={self.slot!r}, fusioner={self.fusioner.description}, "
                f"n={self.n} ({pos:.0f} P, {neg:.0f} N){f', engine={where}' if where else ''})")
        observed = (repr(self.observed) if self.has_slot_column
                    else f"None (no column {self.slot!r} counted)")
        kinds = "\n".join(f"  kinds {c}:  " + ", ".join(f"{k}={v}" for k, v in zip(KINDS, vs))
                          for c, vs in self._kind_counts().items())
        return (f"{head}\n  forced_p: {self.forced_p!r}\n  forced_n: {self.forced_n!r}\n"
                f"  observed: {observed}\n{kinds}\n  monotone_on_data: {self.monotone_on_data}")

    def _repr_html_(self) -> str:
        return html_block(repr(self), html_table(self.to_frame(), caption="Forced runs"),
                          html_table(self.kinds, caption="How each instance reacts to the slot"))
