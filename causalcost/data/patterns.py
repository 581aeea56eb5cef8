"""Counting by vote pattern: the K-label log, grouped on the engine, fused in numpy.

The engine holding the data counts the rows by *vote pattern*: one group-by on (truth, the
other models' columns [, extra columns such as the slot's own]), at most ``K ** (models + 1)``
groups. The fusioner then runs on that small table in numpy, once per forced label ``j``,
giving each pattern its response vector ``r = (r(0), ..., r(K-1))``: what
:func:`causalcost.forced_runs` with ``labels=`` turns into forced runs, kinds and the system
as logged. Values are matched to the labels exactly (strings or integers); any other value
(a null, an unknown string, ``1.5``) is refused with the column and the value named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.data.frames import (
    Frame,
    align_series,
    collect,
    is_lazy,
    require_columns,
)
from causalcost.errors import DataError
from causalcost.network.fusioners import Fusioner

__all__ = ["PatternCounter", "label_indices"]

_LEN = "__causalcost_len"


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


def label_indices(values: Sequence[Any], column: str, labels: tuple[Any, ...],
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
    """Rows counted by the values of ``columns`` (distinct names), in one engine group-by
    (:func:`causalcost.data.predictions.count_groups`)."""
    from causalcost.data.predictions import count_groups

    return count_groups(frame, columns)


@dataclass(frozen=True)
class PatternCounter:
    """What counting needs to see the data again (for candidates)."""

    frame: Frame
    truth: str
    models: tuple[str, ...]
    slot: str
    labels: tuple[Any, ...]
    fusioner: Fusioner
    engine: str
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def patterns(self, extra: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            list[np.ndarray]]:
        """(classes, responses (G, K), counts, extra columns' indices) of the vote patterns."""
        others = [m for m in self.models if m != self.slot]
        columns = list(dict.fromkeys([self.truth, *others, *extra]))
        values, sizes = _count_patterns(self.frame, columns)
        index = {c: label_indices(values[c], c, self.labels, sizes) for c in columns}
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

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row (eager frames): class index and response vector (computed once)."""
        if "rows" not in self.memo:
            self.memo["rows"] = self._rows()
        return self.memo["rows"]

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        others = [m for m in self.models if m != self.slot]
        columns = list(dict.fromkeys([self.truth, *others]))
        got = collect(self.frame.select(*columns))
        index = {c: label_indices(got.get_column(c).to_list(), c, self.labels) for c in columns}
        return index[self.truth], self.responses(index, len(got))

    def row_predictions(self, predictions: Any, rows: int) -> np.ndarray:
        if is_lazy(self.frame):
            raise DataError(
                f"a candidate array needs rows in a known order, which a lazy {self.engine} "
                "frame does not promise: pass the name of a column holding the candidate's "
                "predictions, or count the runs on an eager frame (pandas, polars DataFrame, "
                "pyarrow)")
        predictions = align_series(self.frame, predictions, self.engine)
        if hasattr(predictions, "to_list"):
            predictions = predictions.to_list()
        values = list(np.asarray(predictions, dtype=object).ravel()) if not isinstance(
            predictions, list) else predictions
        if len(values) != rows:
            raise DataError(f"predictions has {len(values)} values but the runs were counted "
                            f"on {rows} rows; align it with the data's rows")
        return label_indices(values, "predictions", self.labels)

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
