"""K-label forced runs from logged predictions: the system with the slot forced to each label.

Given one row per instance (the true class and every model's vote, K labels), the engine
holding the data counts the rows by *vote pattern*: one group-by on (truth, the other models'
columns [, the slot's column]), at most ``K ** (models + 1)`` groups. The fusioner then runs
on that small table in numpy, once per forced label ``j``, giving each pattern its response
vector ``r = (r(0), ..., r(K-1))``. From it:

* ``forced[j, c, s]``: class-``c`` instances with system output ``s`` when the slot is forced
  to ``j`` (the K forced runs, as if the system had been run K times);
* ``kinds``: instances counted per (class, response vector), the input of the exact kinds
  bound (:func:`causalcost.multiclass_bound` with ``kinds=``);
* ``observed`` / ``slot_model``: the system as deployed and the slot's own confusion, when the
  slot's column is in the data.

Values are matched to ``labels`` exactly (strings or integers); any other value (a null, an
unknown string, ``1.5``) is refused with the column and the value named.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import narwhals as nw
import numpy as np
import pandas as pd

from causalcost.data.frames import (
    Frame,
    collect,
    engine_error,
    is_lazy,
    log_columns,
    require_columns,
)
from causalcost.data.multiclass_fusioners import (
    MULTICLASS_RULES,
    MulticlassFusioner,
    NetworkRule,
    make_multiclass_fusioner,
    plain_labels,
)
from causalcost.display import html_block, html_table
from causalcost.errors import DataError, ValidationError
from causalcost.pricing.responses import Kinds as MulticlassKinds

__all__ = ["MulticlassRuns", "multiclass_forced_runs", "label_frame"]

_LEN = "__causalcost_len"


def label_frame(matrix: np.ndarray, labels: Sequence[Any], rows: str = "true",
                columns: str = "system") -> pd.DataFrame:
    """A (K, K) matrix as a frame with labelled rows and columns (rows: the true class).

    >>> label_frame(np.eye(2, dtype=int), ["a", "b"]).loc["a"].tolist()
    [1, 0]
    """
    names = [str(v) for v in labels]
    return pd.DataFrame(np.asarray(matrix), index=pd.Index(names, name=rows),
                        columns=pd.Index(names, name=columns))


def _label_lookup(labels: tuple[Any, ...]) -> dict[Any, int]:
    return {v: i for i, v in enumerate(labels)}


def _refuse(column: str, value: Any, labels: tuple[Any, ...], rows: int | None = None) -> None:
    shown = "a null" if value is None or (isinstance(value, float) and value != value) \
        else repr(value)
    many = f" ({rows} row(s))" if rows is not None else ""
    raise DataError(f"column {column!r} holds {shown}{many}, which is not one of the labels "
                    f"{list(labels)}; give labels= every value the column holds (the same type: "
                    "1 and '1' differ), or clean the column")


def _index_of(value: Any, lookup: dict[Any, int]) -> int | None:
    if isinstance(value, (bool, np.bool_)) and not any(isinstance(v, bool) for v in lookup):
        return None
    try:
        return lookup.get(value)
    except TypeError:  # unhashable
        return None


def _indices(values: Sequence[Any], column: str, labels: tuple[Any, ...],
             counts: np.ndarray | None = None) -> np.ndarray:
    """Label indices of ``values`` (per distinct value), refusing anything else."""
    lookup = _label_lookup(labels)
    codes, uniques = pd.factorize(pd.Series(list(values), dtype=object), use_na_sentinel=True)
    if (codes < 0).any():
        rows = int(counts[codes < 0].sum()) if counts is not None else int((codes < 0).sum())
        _refuse(column, None, labels, rows)
    mapped = np.empty(len(uniques), dtype=np.int64)
    for i, v in enumerate(uniques):
        got = _index_of(v, lookup)
        if got is None:
            rows = int(counts[codes == i].sum()) if counts is not None else int(
                (codes == i).sum())
            _refuse(column, v, labels, rows)
        mapped[i] = got
    return mapped[codes]


def _count_patterns(frame: Frame, columns: list[str]) -> tuple[dict[str, list[Any]], np.ndarray]:
    """Rows counted by the values of ``columns`` (distinct names), in one engine group-by."""
    query = frame.lazy() if frame.implementation.is_polars() else frame
    try:
        result = collect(query.group_by(*columns, drop_null_keys=False).agg(
            nw.len().alias(_LEN)))
    except DataError:
        raise
    except Exception as exc:
        raise engine_error(frame, exc) from exc
    sizes = result.get_column(_LEN).to_numpy().astype(np.int64)
    return {c: result.get_column(c).to_list() for c in columns}, sizes


@dataclass(frozen=True)
class _Counter:
    """What counting needs to see the data again (for candidates)."""

    frame: Frame
    truth: str
    models: tuple[str, ...]
    slot: str
    labels: tuple[Any, ...]
    fusioner: MulticlassFusioner | NetworkRule
    engine: str

    def patterns(self, extra: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            list[np.ndarray]]:
        """(classes, responses (G, K), counts, extra columns' indices) of the vote patterns."""
        others = [m for m in self.models if m != self.slot]
        columns = list(dict.fromkeys([self.truth, *others, *extra]))
        values, sizes = _count_patterns(self.frame, columns)
        index = {c: _indices(values[c], c, self.labels, sizes) for c in columns}
        responses = self.responses(index, len(sizes))
        return index[self.truth], responses, sizes, [index[c] for c in extra]

    def responses(self, index: Mapping[str, np.ndarray], rows: int) -> np.ndarray:
        """``r[row, j]``: the system's output with the slot forced to label ``j``."""
        k = len(self.labels)
        out = np.empty((rows, k), dtype=np.int64)
        for j in range(k):
            votes = np.column_stack([np.full(rows, j, dtype=np.int64) if m == self.slot
                                     else index[m] for m in self.models])
            out[:, j] = self.fusioner.apply(votes.reshape(rows, len(self.models)),
                                            slot=self.slot)
        return out

    def rows(self, column_values: Mapping[str, Any] | None = None) -> tuple[np.ndarray,
                                                                             np.ndarray]:
        """Per row (eager frames): class index and response vector."""
        others = [m for m in self.models if m != self.slot]
        columns = list(dict.fromkeys([self.truth, *others]))
        got = collect(self.frame.select(*columns))
        index = {c: _indices(got.get_column(c).to_list(), c, self.labels) for c in columns}
        return index[self.truth], self.responses(index, len(got))

    def row_predictions(self, predictions: Any, rows: int) -> np.ndarray:
        if is_lazy(self.frame):
            raise DataError(
                f"a candidate array needs rows in a known order, which a lazy {self.engine} "
                "frame does not promise: pass the name of a column holding the candidate's "
                "predictions, or count the runs on an eager frame (pandas, polars DataFrame, "
                "pyarrow)")
        if hasattr(predictions, "to_list"):
            predictions = predictions.to_list()
        values = list(np.asarray(predictions, dtype=object).ravel()) if not isinstance(
            predictions, list) else predictions
        if len(values) != rows:
            raise DataError(f"predictions has {len(values)} values but the runs were counted "
                            f"on {rows} rows; align it with the data's rows")
        return _indices(values, "predictions", self.labels)

    def tables(self, predictions: Any) -> tuple[np.ndarray, np.ndarray]:
        """(system confusion, candidate confusion) with ``predictions`` in the slot."""
        k = len(self.labels)
        system = np.zeros((k, k), dtype=np.int64)
        model = np.zeros((k, k), dtype=np.int64)
        if isinstance(predictions, str):
            require_columns(self.frame, [predictions])
            classes, responses, sizes, (pred,) = self.patterns([predictions])
        else:
            classes, responses = self.rows()
            pred = self.row_predictions(predictions, len(classes))
            sizes = np.ones(len(classes), dtype=np.int64)
        outputs = responses[np.arange(len(classes)), pred]
        np.add.at(system, (classes, outputs), sizes)
        np.add.at(model, (classes, pred), sizes)
        return system, model


def _digest(forced: np.ndarray, labels: tuple[Any, ...]) -> str:
    text = json.dumps({"axes": ["forced", "class", "system"], "labels": [str(v) for v in labels],
                       "forced": forced.tolist()}, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, eq=False, repr=False)
class MulticlassRuns:
    """The system run with the slot forced to each of K labels on one data set.

    Runs keep a reference to the data (outside repr and equality) so that
    :meth:`with_candidate` can plug a candidate into the slot on the same rows.

    Attributes
    ----------
    labels : tuple
        The K labels, in the order of every axis.
    forced : numpy.ndarray
        ``forced[j, c, s]`` (int64, shape (K, K, K)): class-``c`` instances with system output
        ``s`` when the slot is forced to label ``j``.
    kinds : MulticlassKinds
        Instances per (class, response vector): the input of the exact kinds bound.
    observed : numpy.ndarray or None
        The system as deployed, ``[true, system output]`` (when the slot's column was counted).
    slot_model : numpy.ndarray or None
        The slot's own confusion ``[true, predicted]`` (when the slot's column was counted).
    slot : str
    models : tuple of str
    fusioner : MulticlassFusioner or NetworkRule
    provenance : dict
        ``engine``, ``lazy``, ``rows``, ``truth``, ``models``, ``slot``, ``slot_column``,
        ``labels``, ``fusioner``, ``forced_sha256`` (and ``file``).
    """

    labels: tuple[Any, ...]
    forced: np.ndarray
    kinds: MulticlassKinds
    slot: str
    models: tuple[str, ...]
    fusioner: MulticlassFusioner | NetworkRule
    observed: np.ndarray | None = None
    slot_model: np.ndarray | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    _counter: Any = field(default=None, repr=False)

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def n(self) -> int:
        """Rows counted."""
        return int(self.forced[0].sum())

    @property
    def class_sizes(self) -> np.ndarray:
        """Instances per true class."""
        return self.forced[0].sum(axis=1)

    def forced_frame(self, label: Any) -> pd.DataFrame:
        """The system's confusion with the slot forced to ``label`` (rows: true class)."""
        if label not in self.labels:
            raise ValidationError(f"label {label!r} is not one of {list(self.labels)}")
        return label_frame(self.forced[self.labels.index(label)], self.labels)

    def with_candidate(self, predictions: Any) -> np.ndarray:
        """The real system's (K, K) confusion ``[true, system output]`` with a candidate in
        the slot.

        Parameters
        ----------
        predictions : str or array-like
            The name of a column of the data (any engine; one more group-by), or an array of
            labels aligned with its rows (eager frames only).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"y": ["a", "b", "c", "c"], "m1": ["a", "b", "c", "a"],
        ...                    "m2": ["a", "c", "c", "b"], "m3": ["b", "b", "a", "c"]})
        >>> runs = multiclass_forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
        ...                               labels=["a", "b", "c"])
        >>> runs.with_candidate("y").tolist()  # the last row ties a, b, c: to a
        [[1, 0, 0], [0, 1, 0], [1, 0, 1]]
        >>> runs.with_candidate(["b", "b", "b", "b"]).tolist()
        [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
        """
        return self._tables(predictions)[0]

    def candidate_confusion(self, predictions: Any) -> np.ndarray:
        """The candidate's own (K, K) confusion ``N[c, j]`` on the same rows (column or array)."""
        return self._tables(predictions)[1]

    def _tables(self, predictions: Any) -> tuple[np.ndarray, np.ndarray]:
        if self._counter is None:
            raise DataError("with_candidate needs runs counted by forced_runs(...) on data")
        return self._counter.tables(predictions)

    def to_frame(self) -> pd.DataFrame:
        """Every forced run as rows (``forced``, ``true``), columns the system's output."""
        parts = {str(j): label_frame(self.forced[i], self.labels)
                 for i, j in enumerate(self.labels)}
        return pd.concat(parts, names=["forced"])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (labels as strings)."""
        def cells(m: np.ndarray | None) -> list[list[int]] | None:
            return None if m is None else np.asarray(m).tolist()

        return {"labels": [str(v) for v in self.labels], "slot": self.slot,
                "models": list(self.models), "fusioner": self.fusioner.description,
                "n": self.n, "forced": self.forced.tolist(), "observed": cells(self.observed),
                "slot_model": cells(self.slot_model),
                "kinds": self.kinds.to_frame().to_dict(orient="records"),
                "provenance": dict(self.provenance)}

    def _key(self) -> tuple[Any, ...]:
        return (self.labels, self.forced.tobytes(), tuple(sorted(self.kinds.counts.items())),
                self.slot, self.models, self.fusioner,
                None if self.observed is None else self.observed.tobytes())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MulticlassRuns):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        where = self.provenance.get("engine")
        sizes = ", ".join(f"{v} {lab}" for lab, v in zip(self.labels, self.class_sizes))
        head = (f"MulticlassRuns(slot={self.slot!r}, fusioner={self.fusioner.description}, "
                f"n={self.n} ({sizes}){f', engine={where}' if where else ''})")
        runs = "\n".join(f"  forced to {lab!r} (rows: true class, columns: system output):\n"
                         + _indent(label_frame(self.forced[j], self.labels).to_string())
                         for j, lab in enumerate(self.labels))
        return f"{head}\n{runs}\n  kinds: {len(self.kinds.counts)} response vectors"

    def _repr_html_(self) -> str:
        tables = [html_table(label_frame(self.forced[j], self.labels),
                             caption=f"Slot forced to {lab}") for j, lab in enumerate(self.labels)]
        return html_block(repr(self).splitlines()[0], *tables,
                          html_table(self.kinds.to_frame(), caption="Instance kinds"))


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def multiclass_forced_runs(
    data: Any, *, truth: str, slot: str, labels: Sequence[Any],
    models: Sequence[str] | None = None, fusioner: str | MulticlassFusioner = "plurality",
    observed: bool | None = None, tie: Any = None,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    order: Sequence[Any] | None = None, label: Any = None, k: int | None = None,
) -> MulticlassRuns:
    """Count the system's runs with the slot forced to each of K labels on logged predictions.

    Reached through :func:`causalcost.forced_runs` with ``labels=``.

    Parameters
    ----------
    data : data frame, mapping or path
        One row per instance (pandas, polars eager or lazy, pyarrow, DuckDB, Dask, a mapping,
        a ``.csv`` / ``.parquet`` path).
    truth, slot : str
        The true-class column and the model under evaluation.
    labels : sequence
        The K labels (strings or integers) in the order of every output axis; also the
        default tie order. Any other value in a column is refused.
    models : sequence of str
        The prediction columns in the fusioner's input order (default: the fusioner's inputs).
    fusioner : {"plurality", "weighted", "priority", "k_of_n"} or a fusioner
        A rule name (options below), or a fusioner built by
        :func:`causalcost.multiclass_fusioner` (any deterministic kind, a user function
        included: it runs on the counted vote patterns, so on every engine).
    observed : bool, optional
        Count the deployed system from the slot's column (``None``: when the column exists).
    tie, weights, order, label, k
        Options of the rule (see
        :func:`causalcost.data.multiclass_fusioners.make_multiclass_fusioner`).

    Returns
    -------
    MulticlassRuns

    Raises
    ------
    DataError
        A missing column, or a value that is not one of ``labels`` (column and value named).
    ValidationError
        Bad fusioner options, a slot that is not a model, a truth column among the models.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "m1": [0, 1, 2, 0], "m2": [0, 2, 2, 1],
    ...                    "m3": [1, 1, 0, 2]})
    >>> runs = multiclass_forced_runs(df, truth="y", models=["m1", "m2", "m3"], slot="m3",
    ...                               labels=[0, 1, 2])
    >>> runs.forced[2].tolist()  # slot forced to 2: a tie of three goes to the first label
    [[1, 0, 0], [0, 0, 1], [1, 0, 1]]
    >>> runs.kinds.counts[(2, (0, 1, 0))]  # the last row: forced to 1 the system says 1
    1
    """
    if labels is None or isinstance(labels, str):
        raise ValidationError("labels must list the K labels (e.g. labels=['a', 'b', 'c']); "
                              "their order fixes the axes and the default tie order")
    labels = plain_labels(labels)
    if isinstance(fusioner, MulticlassFusioner):
        if any(v is not None for v in (tie, weights, order, label, k)):
            raise ValidationError("fusioner options apply to a rule name; this "
                                  "MulticlassFusioner is already built")
        if fusioner.labels != labels:
            raise ValidationError(f"the fusioner's labels {list(fusioner.labels)} differ from "
                                  f"labels={list(labels)}")
        if models is not None and tuple(models) != fusioner.inputs:
            raise ValidationError(f"models {list(models)} must be the fusioner's inputs "
                                  f"{list(fusioner.inputs)}")
        fus = fusioner
    elif hasattr(fusioner, "output") and hasattr(fusioner, "models"):  # cc.multiclass_fusioner
        if any(v is not None for v in (tie, weights, order, label, k)):
            raise ValidationError("fusioner options apply to a rule name; this fusioner is "
                                  "already built")
        fus = NetworkRule.wrap(fusioner, labels)
        if models is not None and tuple(models) != fus.inputs:
            raise ValidationError(f"models {list(models)} must be the fusioner's models "
                                  f"{list(fus.inputs)}")
    elif isinstance(fusioner, str):
        if fusioner not in MULTICLASS_RULES:
            raise ValidationError(f"fusioner {fusioner!r} is not a K-label rule; with labels= "
                                  f"use one of {', '.join(MULTICLASS_RULES)}")
        if models is None or isinstance(models, str):
            raise ValidationError("models must list the prediction columns, e.g. "
                                  "models=['m1', 'm2', 'm3']")
        fus = make_multiclass_fusioner(fusioner, models, labels=labels, tie=tie,
                                       weights=weights, order=order, label=label, k=k)
    else:
        raise ValidationError(f"fusioner must be a rule name or a built fusioner, got "
                              f"{fusioner!r}")
    names = fus.inputs
    frame, source, use_slot, _ = log_columns(data, truth=truth, models=names, slot=slot,
                                             observed=observed)
    counter = _Counter(frame, truth, names, slot, labels, fus, source["engine"])
    classes, responses, sizes, extra = counter.patterns([slot] if use_slot else [])
    kk = len(labels)
    forced = np.zeros((kk, kk, kk), dtype=np.int64)
    for j in range(kk):
        np.add.at(forced[j], (classes, responses[:, j]), sizes)
    kind_counts: dict[tuple[int, tuple[int, ...]], int] = {}
    for c, r, n in zip(classes.tolist(), map(tuple, responses.tolist()), sizes.tolist()):
        kind_counts[(c, r)] = kind_counts.get((c, r), 0) + int(n)
    kinds = MulticlassKinds(tuple(str(v) for v in labels), dict(sorted(kind_counts.items())))
    seen = deployed = None
    if use_slot:
        (own,) = extra
        seen = np.zeros((kk, kk), dtype=np.int64)
        deployed = np.zeros((kk, kk), dtype=np.int64)
        np.add.at(seen, (classes, responses[np.arange(len(own)), own]), sizes)
        np.add.at(deployed, (classes, own), sizes)
    provenance = {**source, "rows": int(sizes.sum()), "truth": truth, "models": list(names),
                  "slot": slot, "slot_column": use_slot,
                  "labels": [v if isinstance(v, (str, int)) else repr(v) for v in labels],
                  "fusioner": fus.description, "forced_sha256": _digest(forced, labels)}
    for m in (forced, seen, deployed):
        if m is not None:
            m.setflags(write=False)
    return MulticlassRuns(labels, forced, kinds, slot, tuple(names), fus, seen, deployed,
                          provenance, counter)
