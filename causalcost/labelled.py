"""What confusion and cost matrices share: a (K, K) matrix with its K label names, read from
arrays, labelled DataFrames or anything with ``to_numpy()``, its labels matched by name.

The orientation (rows the true class) and the binary names are set out once, in
:mod:`causalcost.confusion`; :class:`~causalcost.confusion.Confusion` and
:class:`~causalcost.cost_matrix.CostMatrix` build on :class:`LabelledMatrix` here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.cells import _REAL, CELLS, CLASSES, _show, cells_array, label_frame
from causalcost.display import EXACT_LIMIT, format_matrix, format_number, html_table
from causalcost.errors import InputTypeError, NotBinaryError, ValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LabelledMatrix", "check_labels"]

_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "<missing>"})()


# ------------------------------------------------------------------------------- labels
def check_labels(labels: Iterable[Any] | None, k: int, what: str = "matrix") -> tuple[str, ...]:
    """The K label names of a (K, K) matrix: ``("P", "N")`` for K = 2 and ``("0", .., "K-1")``
    otherwise when not given; names are ``str(label)`` and must be distinct.

    >>> check_labels(None, 2), check_labels([0, 1, 2], 3)
    (('P', 'N'), ('0', '1', '2'))
    >>> check_labels([1, "1"], 2)
    Traceback (most recent call last):
    causalcost.errors.ValidationError: matrix: labels must have distinct names, got [1, '1']
    """
    if labels is None:
        return CLASSES if k == 2 else tuple(str(i) for i in range(k))
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise InputTypeError(f"{what}: labels must be a list of label names, got "
                             f"{type(labels).__name__} {_show(labels)}")
    given = list(labels)
    if any(v is None or (isinstance(v, float) and v != v) for v in given):
        raise ValidationError(f"{what}: a label may not be null, got {_show(given)}")
    names = tuple(str(v) for v in given)
    if len(names) != k:
        raise ValidationError(f"{what} is {k} x {k}, so it has {k} labels but the other inputs "
                              f"have {len(names)}: {_show(given)}; give one label per row (rows "
                              "the true class)")
    if len(set(names)) != k:
        raise ValidationError(f"{what}: labels must have distinct names, got {_show(given)}")
    return names


def _permutation(have: tuple[str, ...], want: tuple[str, ...], what: str) -> list[int]:
    """Positions in ``have`` of each name of ``want``; refuses other names."""
    if set(have) != set(want):
        raise ValidationError(
            f"{what} has the labels {list(have)}, not {list(want)}: labels are matched by "
            "name; give both over the same label names (or rename with .with_labels)")
    return [have.index(name) for name in want]


def _is_frame(value: Any) -> bool:
    pandas = sys.modules.get("pandas")  # not a DataFrame if pandas was never imported
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _frame_matrix(frame: pd.DataFrame, what: str) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """A labelled frame's matrix with its columns in its rows' order, and its labels (None for
    default integer axes 0..K-1, read as an array)."""
    import pandas as pd

    arr = frame.to_numpy(dtype=object)
    k = len(frame.index)
    default = pd.RangeIndex(k)
    if frame.index.equals(default) and frame.columns.equals(default):
        return arr, None
    rows = check_labels(list(frame.index), k, f"{what} (rows)")
    cols = check_labels(list(frame.columns), len(frame.columns), f"{what} (columns)")
    if set(rows) != set(cols):
        raise ValidationError(
            f"{what}: a labelled DataFrame needs the same labels on its rows (true class) and "
            f"columns (prediction), by name; rows {list(rows)}, columns {list(cols)}")
    return arr[:, [cols.index(name) for name in rows]], rows


def _read_matrix(value: Any, labels: Iterable[Any] | None, what: str,
                 error: type[ValidationError]) -> tuple[list[Any], tuple[str, ...]]:
    """The cells (row by row, unvalidated) and label names of a (K, K) matrix given as an
    array, a nested list, a labelled DataFrame or an object with ``to_numpy()`` (and
    optionally ``labels``); the object's labels are matched to ``labels`` by name."""
    given: Any = None
    if _is_frame(value):
        value, given = _frame_matrix(value, what)
    elif hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        given = getattr(value, "labels", None)
        value = value.to_numpy()
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        raise InputTypeError(f"{what} must be a (K, K) array of numbers (rows the true class), "
                             f"got {type(value).__name__} {_show(value)}")
    try:  # object dtype keeps each element's own type: a bool stays a bool (and is refused)
        arr = np.asarray(value, dtype=object)
    except (ValueError, TypeError) as exc:
        raise error(f"{what} must be a square (K, K) array (rows the true class); cannot read "
                    f"it ({exc})") from None
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 2:
        raise error(f"{what} must be a square (K, K) array with K >= 2 labels (rows the true "
                    f"class), got shape {arr.shape}")
    k = arr.shape[0]
    if given is None:
        names = check_labels(labels, k, what)
    else:
        have = check_labels(given, k, what)
        names = have if labels is None else check_labels(labels, k, what)
        if names != have:
            order = _permutation(have, names, what)
            arr = arr[np.ix_(order, order)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and (
            value.dtype.kind == "f" or value.size == 0
            or int(np.abs(value).max()) <= EXACT_LIMIT):
        return _Floats(np.asarray(arr, dtype=float).ravel().tolist()), names
    return [v.item() if isinstance(v, np.generic) else v for v in arr.ravel()], names


class _Floats(list):  # type: ignore[type-arg]
    """Cells read from a numeric numpy array: Python floats, integers exact (up to 2**53)."""


def plain_floats(cells: Iterable[Any]) -> list[float] | None:
    """``cells`` as finite floats when each is a plain ``float`` or an ``int`` within
    ``2**53`` (the common case, checked quickly); None otherwise, and the cell-by-cell check
    names the problem."""
    out = []
    for v in cells:
        kind = type(v)
        if kind is int and -EXACT_LIMIT <= v <= EXACT_LIMIT:
            v = float(v)
        elif kind is not float or v - v != 0:  # inf and nan: v - v is nan
            return None
        out.append(v)
    return out


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bytes, bool, np.bool_, *_REAL))


# ------------------------------------------------------------------------------ the base
class LabelledMatrix:
    """What confusion and cost matrices share: a (K, K) matrix and its K label names.

    Cells are stored row by row as floats, or exact Python ints beyond ``2**53``.
    """

    matrix: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]
    _flat: tuple[Any, ...]
    _what = "matrix"
    _columns = "predicted"

    def _setup(self, args: tuple[Any, ...], labels: Any, matrix: Any,
               binary: dict[str, Any], defaults: Mapping[str, float] | None) -> None:
        name = type(self).__name__
        if matrix is not _MISSING or (len(args) == 1 and not _scalar(args[0])):
            if matrix is _MISSING:
                matrix = args[0]
            elif args:
                raise InputTypeError(f"{name}() got the matrix twice (positionally and as "
                                     "matrix=)")
            if any(v is not _MISSING for v in binary.values()):
                raise InputTypeError(f"{name}(): give either a (K, K) matrix or the binary "
                                     "cells tp, fn, fp, tn, not both")
            cells, names = _read_matrix(matrix, labels, self._what, self._error)
        else:
            cells = _binary_cells(name, args, binary, defaults)
            names = check_labels(labels, 2, self._what)
        k = len(names)
        stored = self._check(cells, names)
        self._store(tuple(tuple(stored[i * k:(i + 1) * k]) for i in range(k)), names)

    def _store(self, matrix: tuple[tuple[Any, ...], ...], labels: tuple[str, ...]) -> None:
        """Set the fields (and the flat cells the binary views read), once."""
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "_flat", tuple(v for row in matrix for v in row))

    _error: type[ValidationError] = ValidationError

    def _check(self, cells: list[Any], labels: tuple[str, ...]) -> list[float | int]:
        """The cells validated for this kind of matrix (counts, costs): each concrete class
        (:class:`Confusion`, :class:`CostMatrix`) states its own rules here."""
        raise NotImplementedError(f"{type(self).__name__} must define _check: the base class "
                                  "holds no rule for its cells")

    # -- general ----------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The number of labels K."""
        return len(self.labels)

    def to_numpy(self) -> np.ndarray:
        """The (K, K) array, rows the true class in the order of :attr:`labels`; dtype
        ``float``, or ``object`` (exact Python ints) when a count is beyond ``2**53``."""
        return cells_array([v for row in self.matrix for v in row], self.k)

    def to_array(self) -> np.ndarray:
        """The same as :meth:`to_numpy` (for K = 2, ``[[tp, fn], [fp, tn]]``)."""
        return self.to_numpy()

    def to_frame(self) -> pd.DataFrame:
        """DataFrame with the labels on both axes: rows ``true``, columns ``predicted``."""
        return label_frame(self.to_numpy(), self.labels, columns=self._columns)

    def with_labels(self, labels: Iterable[Any]) -> Any:
        """The same matrix under other label names (position by position)."""
        return type(self)(self.matrix, labels=labels)

    def reorder(self, labels: Iterable[Any]) -> Any:
        """The same matrix with its labels in another order (matched by name).

        >>> from causalcost.confusion import Confusion
        >>> Confusion([[1, 2], [3, 4]], labels=["a", "b"]).reorder(["b", "a"]).matrix
        ((4.0, 3.0), (2.0, 1.0))
        """
        want = check_labels(labels, self.k, self._what)
        if want == self.labels:
            return self
        order = _permutation(self.labels, want, self._what)
        return type(self)([[self.matrix[i][j] for j in order] for i in order], labels=want)

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.k == 2:
            cells = ", ".join(f"{k}={format_number(v)}" for k, v in zip(CELLS, self.cells()))
            named = "" if self.labels == CLASSES else f", labels={self.labels!r}"
            return f"{name}({cells}{named})"
        return f"{name}({format_matrix(self.matrix, len(name) + 1)}, labels={self.labels!r})"

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=f"{type(self).__name__}: rows true class, "
                                                   "columns prediction")

    # -- binary views -----------------------------------------------------------------
    def _binary(self, what: str) -> tuple[Any, Any, Any, Any]:
        if self.k != 2:
            raise NotBinaryError(
                f"{type(self).__name__} over {self.k} labels {list(self.labels)} has no "
                f"{what!r}: tp, fn, fp, tn, positives and negatives name the cells of two "
                "labels (positive first); use .to_numpy() (rows the true class), .to_frame() "
                "or .class_sizes")
        return self._flat  # type: ignore[return-value]

    def cells(self) -> tuple[float, float, float, float]:
        """The cells as ``(tp, fn, fp, tn)`` (two labels only)."""
        return self._binary("cells")

    def to_dict(self) -> dict[str, float]:
        """``{"tp": .., "fn": .., "fp": .., "tn": ..}`` (two labels only)."""
        return dict(zip(CELLS, self._binary("to_dict")))

    @property
    def tp(self) -> float:
        """Cell (positive, positive): a true positive (two labels only)."""
        return self._binary("tp")[0]

    @property
    def fn(self) -> float:
        """Cell (positive, negative): a false negative (two labels only)."""
        return self._binary("fn")[1]

    @property
    def fp(self) -> float:
        """Cell (negative, positive): a false positive (two labels only)."""
        return self._binary("fp")[2]

    @property
    def tn(self) -> float:
        """Cell (negative, negative): a true negative (two labels only)."""
        return self._binary("tn")[3]


def _binary_cells(name: str, args: tuple[Any, ...], given: dict[str, Any],
                  defaults: Mapping[str, float] | None) -> list[Any]:
    if len(args) > 4:
        raise InputTypeError(f"{name}() takes the four cells tp, fn, fp, tn, got {len(args)} "
                             "values; give a (K, K) matrix as one argument")
    cells = dict(zip(CELLS, args))
    for key, value in given.items():
        if value is not _MISSING:
            if key in cells:
                raise InputTypeError(f"{name}() got two values for {key}")
            cells[key] = value
    missing = [k for k in CELLS if k not in cells and (defaults is None or k not in defaults)]
    if missing:
        raise InputTypeError(f"{name}() is missing the cell(s) {', '.join(missing)}: give tp, "
                             "fn, fp, tn, or a (K, K) matrix with labels=")
    return [cells[k] if k in cells else defaults[k] for k in CELLS]  # type: ignore[index]


def _cell_name(i: int, labels: tuple[str, ...], column: str) -> str:
    """A cell's name in messages: ``tp`` .. ``tn`` for two labels, else its two labels."""
    k = len(labels)
    if k == 2:
        return CELLS[i]
    return f"(true {labels[i // k]!r}, {column} {labels[i % k]!r})"



def _read_array(array: Any, what: str, error: type[ValidationError]) -> np.ndarray:
    """``array`` as a (2, 2) numpy array of its elements (validated later, cell by cell)."""
    try:  # object dtype keeps each element's own type: a bool stays a bool (and is refused)
        arr = np.asarray(array, dtype=object)
    except (ValueError, TypeError) as exc:
        raise error(f"{what} must be a 2x2 array [[tp, fn], [fp, tn]]; cannot read it ({exc})") \
            from None
    if arr.shape != (2, 2):
        raise error(f"{what} must have shape (2, 2) as [[tp, fn], [fp, tn]], got shape "
                    f"{arr.shape}")
    return arr
