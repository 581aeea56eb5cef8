"""Confusion and cost matrices over K labels, as immutable, validated values.

Orientation, once for the whole package: **rows are the true class, columns the prediction**
(for a cost matrix, the system's output), both in the order of the matrix's ``labels``::

                  predicted a   predicted b   predicted c
    class a          N[a, a]       N[a, b]       N[a, c]
    class b          N[b, a]       N[b, b]       N[b, c]
    class c          N[c, a]       N[c, b]       N[c, c]

This is scikit-learn's ``confusion_matrix(y, y_hat, labels=labels)``. A binary matrix is the
case K = 2 with labels ``(positive, negative)``, ``("P", "N")`` unless named otherwise, and
its four cells have names::

                 predicted P   predicted N
    class P          tp            fn
    class N          fp            tn

``tp, fn, fp, tn``, ``positives``, ``negatives`` and the binary constructors (keywords,
``from_mapping``, ``parse``, ``from_array``, ``from_sklearn``) are views of the same object:
``Confusion(tp=80, fn=20, fp=40, tn=160) == Confusion([[80, 20], [40, 160]], labels=["P",
"N"])``. Asked of a matrix over more than two labels they raise
:class:`~causalcost.errors.NotBinaryError`, which names the general call.

Labels are names (strings). Where two labelled things meet (a confusion and its costs, a
labelled DataFrame and the labels asked for) they are matched **by name**: the same names in
another order are reordered, other names are refused; an unlabelled array is read in the
order of the labels it is given with.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.cells import (
    _REAL,
    CELLS,
    CLASSES,
    OUTCOMES,
    _as_count,
    _as_real,
    _Cells,
    _check_real,
    _cost,
    _exact,
    _exact_cost,
    _num,
    _show,
    _sum,
    cells_array,
    label_frame,
    matrix_cost,
    parse_cells,
)
from causalcost.display import EXACT_LIMIT, format_matrix, format_number, html_table
from causalcost.errors import (
    CostMatrixError,
    CountError,
    InputTypeError,
    NotBinaryError,
    ValidationError,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CELLS", "CLASSES", "OUTCOMES", "Confusion", "CostMatrix", "check_labels", "format_number",
    "parse_cells",
]
# the private helpers other modules import from here
_REEXPORTED = (_as_count, _as_real, _Cells, _check_real, _cost, _exact, _exact_cost, _num, _sum,
               EXACT_LIMIT)

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
        raise ValidationError(f"{what}: {len(names)} labels {_show(given)} for a {k} x {k} "
                              "matrix; give one label per row (rows the true class)")
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


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bytes, bool, np.bool_, *_REAL))


# ------------------------------------------------------------------------------ the base
class _Matrix:
    """What confusion and cost matrices share: a (K, K) matrix and its K label names.

    Cells are stored row by row as floats, or exact Python ints beyond ``2**53``.
    """

    matrix: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]
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
        object.__setattr__(self, "matrix", tuple(tuple(stored[i * k:(i + 1) * k])
                                                 for i in range(k)))
        object.__setattr__(self, "labels", names)

    _error: type[ValidationError] = ValidationError

    def _check(self, cells: list[Any], labels: tuple[str, ...]) -> list[float | int]:
        raise NotImplementedError

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
        (a, b), (c, d) = self.matrix
        return a, b, c, d

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


# -------------------------------------------------------------------------- confusions
@dataclass(frozen=True, repr=False, init=False)
class Confusion(_Matrix):
    """A confusion matrix: how often each (true class, prediction) pair occurred.

    Cells are non-negative finite numbers. They are usually integer counts; fractional
    values are allowed for expected counts (``rates x class sizes``), and
    :attr:`is_integral` says which kind a matrix is.

    Cells are stored as floats, which hold every integer up to ``2**53`` exactly. Integer
    counts beyond that (given as Python or numpy integers) are kept as exact Python ints, and
    the derived counts (``class_sizes``, ``errors``, ...) add them exactly, so the count form of
    the bounds stays exact at any size (``to_numpy`` then has dtype ``object``).

    Parameters
    ----------
    matrix : (K, K) array-like, DataFrame or object with ``to_numpy()``
        ``N[c, j]``, rows the true class (see the module). A labelled DataFrame or an object
        with ``labels`` is matched to ``labels`` by name.
    labels : sequence, optional
        The K labels in row order; ``("P", "N")`` for K = 2 when not given.
    tp, fn, fp, tn : float
        Instead of ``matrix``, the binary cells (also positionally, in this order): true
        positives (class P predicted P), false negatives, false positives, true negatives.

    Raises
    ------
    CountError
        If a cell is negative, infinite, NaN or beyond float64's range, or the cells' total
        overflows float64.
    ValidationError
        A matrix that is not square (K >= 2), or labels that are not K distinct names.
    InputTypeError
        If a cell is not a real number (a string, None, a bool, ...); also a ``TypeError``.

    Examples
    --------
    >>> m = Confusion(tp=80, fn=20, fp=40, tn=160)
    >>> m.positives, m.negatives, m.errors
    (100.0, 200.0, 60.0)
    >>> m.to_array().tolist()
    [[80.0, 20.0], [40.0, 160.0]]
    >>> m == Confusion([[80, 20], [40, 160]], labels=["P", "N"])
    True
    >>> three = Confusion.from_matrix([[5, 1, 0], [0, 4, 0], [2, 0, 3]], labels=["a", "b", "c"])
    >>> three
    Confusion([[5, 1, 0],
               [0, 4, 0],
               [2, 0, 3]], labels=('a', 'b', 'c'))
    >>> three.class_sizes, three.errors, three.total
    ((6.0, 4.0, 5.0), 3.0, 15.0)
    """

    matrix: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]
    _what = "confusion matrix"
    _error = CountError

    def __init__(self, *cells: Any, labels: Iterable[Any] | None = None, matrix: Any = _MISSING,
                 tp: Any = _MISSING, fn: Any = _MISSING, fp: Any = _MISSING,
                 tn: Any = _MISSING) -> None:
        self._setup(cells, labels, matrix, {"tp": tp, "fn": fn, "fp": fp, "tn": tn}, None)

    def _check(self, cells: list[Any], labels: tuple[str, ...]) -> list[float | int]:
        if isinstance(cells, _Floats) and all(0 <= v < math.inf for v in cells) and \
                math.isfinite(sum(cells)):
            return cells  # else the loop names the bad cell
        out = []
        for i, cell in enumerate(cells):
            name = _cell_name(i, labels, "predicted")
            value = _as_count(name if len(labels) == 2 else f"cell {name}", cell, CountError)
            if value < 0:
                raise CountError(f"confusion cell {name} must be >= 0, got {value!r}")
            out.append(value)
        total = _sum(*out)
        try:
            finite = math.isfinite(float(total))
        except OverflowError:
            finite = False
        if not finite:
            shown = ", ".join(format_number(v) for v in out[:9]) + (", ..." if len(out) > 9
                                                                     else "")
            raise CountError(f"confusion cells too large: their total overflows float64 "
                             f"(cells {shown}); rescale them")
        return out

    @classmethod
    def trusted(cls, rows: list[list[float]], labels: tuple[str, ...]) -> Confusion:
        """A confusion from counts valid by construction (non-negative floats, integral up to
        ``2**53``, rows the true class) and label names, without checking them again: for
        counting code that made them (assumes validated arguments)."""
        out = object.__new__(cls)
        object.__setattr__(out, "matrix", tuple(tuple(row) for row in rows))
        object.__setattr__(out, "labels", tuple(labels))
        return out

    # -- derived quantities -------------------------------------------------------------
    @property
    def class_sizes(self) -> tuple[float, ...]:
        """Instances of each true class (row totals), in label order."""
        return tuple(_sum(*row) for row in self.matrix)

    @property
    def predicted_sizes(self) -> tuple[float, ...]:
        """Instances predicted as each label (column totals), in label order."""
        return tuple(_sum(*col) for col in zip(*self.matrix))

    @property
    def positives(self) -> float:
        """Instances of class P (``tp + fn``; two labels only)."""
        tp, fn, _, _ = self._binary("positives")
        return _sum(tp, fn)

    @property
    def negatives(self) -> float:
        """Instances of class N (``fp + tn``; two labels only)."""
        _, _, fp, tn = self._binary("negatives")
        return _sum(fp, tn)

    @property
    def total(self) -> float:
        """All instances."""
        return _sum(*(v for row in self.matrix for v in row))

    @property
    def errors(self) -> float:
        """Mistakes: the cells off the diagonal (binary: ``fn + fp``)."""
        return _sum(*(v for i, row in enumerate(self.matrix) for j, v in enumerate(row)
                      if i != j))

    @property
    def is_integral(self) -> bool:
        """Whether every cell is a whole number (a count rather than an expectation)."""
        return all(float(v).is_integer() for row in self.matrix for v in row)

    def cost(self, costs: CostMatrix | Any) -> float:
        """Total cost of these outcomes under ``costs`` (element-wise product, summed).

        ``costs`` is a :class:`CostMatrix` (its labels matched to these by name) or a (K, K)
        array in this matrix's label order.

        >>> Confusion(tp=40, fn=60, fp=20, tn=180).cost(CostMatrix(fn=5, fp=1))
        320.0

        Raises
        ------
        OverflowInputError
            If the cost overflows float64 (it would be infinite or NaN); it is computed
            exactly when only an intermediate sum overflows.
        ValidationError
            Costs over other labels.
        """
        c = as_costs(costs, self.labels)
        flat = [v for row in c.matrix for v in row]
        if self.k == 2:
            shown = ", ".join(f"{k}={format_number(v)}" for k, v in zip(CELLS, flat) if v)
        else:
            shown = f"up to {format_number(max(abs(v) for v in flat))}"
        return matrix_cost([v for row in self.matrix for v in row], flat, "cost", shown)

    # -- conversions --------------------------------------------------------------------
    @classmethod
    def from_matrix(cls, matrix: Any, labels: Iterable[Any] | None = None) -> Confusion:
        """Build from a (K, K) matrix ``N[c, j]`` (rows the true class) and its K labels; the
        same as ``Confusion(matrix, labels=labels)``.

        >>> Confusion.from_matrix([[80, 20], [40, 160]])
        Confusion(tp=80, fn=20, fp=40, tn=160)
        """
        return cls(matrix, labels=labels)

    @classmethod
    def from_array(cls, array: Sequence[Sequence[float]] | np.ndarray) -> Confusion:
        """Build from a 2x2 array ``[[tp, fn], [fp, tn]]`` (rows true class, order P, N).

        Integer arrays (and object arrays of Python ints) keep counts beyond ``2**53`` exact.

        >>> Confusion.from_array([[80, 20], [40, 160]])
        Confusion(tp=80, fn=20, fp=40, tn=160)
        """
        arr = _read_array(array, "a confusion array", ValidationError)
        return cls(*(v.item() if isinstance(v, np.generic) else v for v in arr.ravel()))

    @classmethod
    def from_mapping(cls, cells: Mapping[str, float]) -> Confusion:
        """Build from a mapping with exactly the keys ``tp``, ``fn``, ``fp``, ``tn``."""
        if not isinstance(cells, Mapping):
            raise InputTypeError(f"cells must be a mapping such as {{'tp': 80, 'fn': 20, "
                                 f"'fp': 40, 'tn': 160}}, got {type(cells).__name__}")
        keys = set(cells)
        if keys != set(CELLS):
            missing = sorted(set(CELLS) - keys)
            unknown = sorted(map(str, keys - set(CELLS)))
            raise ValidationError(
                "a confusion matrix needs exactly the cells tp, fn, fp, tn"
                + (f"; missing {missing}" if missing else "")
                + (f"; unknown {unknown}" if unknown else "")
            )
        return cls(**{k: cells[k] for k in CELLS})

    @classmethod
    def parse(cls, text: str) -> Confusion:
        """Parse ``"tp=80,fn=20,fp=40,tn=160"``; all four cells are required."""
        return cls.from_mapping(parse_cells(text, what="confusion matrix"))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, labels: Iterable[Any] | None = None) -> Confusion:
        """Build from a DataFrame indexed by true class and with predictions as columns.

        Labels are looked up by name, so row/column order is free: ``"P"`` and ``"N"`` for a
        binary frame, else the frame's own K labels (in ``labels``' order when given).

        >>> import pandas as pd
        >>> f = pd.DataFrame([[1, 2], [3, 4]], index=["b", "a"], columns=["a", "b"])
        >>> Confusion.from_frame(f, labels=["a", "b"])
        Confusion(tp=3, fn=4, fp=1, tn=2, labels=('a', 'b'))
        """
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise InputTypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
        binary = labels is None and frame.shape == (2, 2) and {"P", "N"} <= set(frame.index)
        if binary or labels is None and _frame_matrix(frame, "frame")[1] is None:
            try:
                cells = {k: frame.loc[t, p] for k, (t, p) in
                         zip(CELLS, (("P", "P"), ("P", "N"), ("N", "P"), ("N", "N")))}
            except KeyError as exc:
                raise ValidationError(
                    "a confusion DataFrame needs index and columns labelled 'P' and 'N' "
                    f"(true class rows, prediction columns), or its K labels; missing {exc}"
                ) from None
            return cls(**{k: v.item() if isinstance(v, np.generic) else v
                          for k, v in cells.items()})
        return cls(frame, labels=labels)

    @classmethod
    def from_sklearn(
        cls, matrix: Sequence[Sequence[float]] | np.ndarray, labels: Sequence[Any] = (0, 1),
        positive: Any = 1,
    ) -> Confusion:
        """Build from scikit-learn's ``confusion_matrix`` output.

        scikit-learn orders rows and columns by ``labels`` (sorted labels by default), so
        for 0/1 targets with 1 positive its matrix is ``[[tn, fp], [fn, tp]]``. Pass the
        same ``labels`` you gave scikit-learn (or its sorted default) and the positive one.
        For K labels use :meth:`from_matrix` with the same ``labels``.

        >>> Confusion.from_sklearn([[160, 40], [20, 80]])  # labels (0, 1), positive 1
        Confusion(tp=80, fn=20, fp=40, tn=160)
        >>> Confusion.from_sklearn([[80, 20], [40, 160]], labels=["sick", "well"], positive="sick")
        Confusion(tp=80, fn=20, fp=40, tn=160)
        """
        arr = _read_array(matrix, "from_sklearn's matrix (a 2x2 matrix)", ValidationError)
        p, n = _label_positions(labels, positive)
        cells = [arr[p, p], arr[p, n], arr[n, p], arr[n, n]]
        return cls(*(v.item() if isinstance(v, np.generic) else v for v in cells))

    def to_sklearn(self, labels: Sequence[Any] = (0, 1), positive: Any = 1) -> np.ndarray:
        """The matrix as scikit-learn prints it for ``labels`` (inverse of ``from_sklearn``)."""
        p, n = _label_positions(labels, positive)
        out = np.empty((2, 2), dtype=self.to_array().dtype)
        out[p, p], out[p, n], out[n, p], out[n, n] = self.cells()
        return out

    @classmethod
    def from_predictions(
        cls, y_true: Iterable[Any], y_pred: Iterable[Any], positive: Any = 1, *,
        labels: Sequence[Any] | None = None,
    ) -> Confusion:
        """Count outcomes of predictions against labels.

        Two labels: ``positive`` and the one other label found (any values). With
        ``labels=[...]``, the K labels, counted by
        :func:`causalcost.data.predictions.count_confusion` (pandas Series aligned by index).

        >>> Confusion.from_predictions([1, 1, 0, 0], [1, 0, 0, 1])
        Confusion(tp=1, fn=1, fp=1, tn=1)
        >>> Confusion.from_predictions(["a", "b", "c"], ["a", "c", "c"], labels=["a", "b", "c"])
        Confusion([[1, 0, 0],
                   [0, 0, 1],
                   [0, 0, 1]], labels=('a', 'b', 'c'))
        """
        from causalcost.data.predictions import count_confusion

        if labels is not None:
            return count_confusion(y_true, y_pred, labels=labels)
        try:
            t = np.asarray(list(y_true))
            p = np.asarray(list(y_pred))
            observed = set(np.unique(np.concatenate([t, p])).tolist())
            others = observed - {positive}
        except (TypeError, ValueError) as exc:
            raise InputTypeError(f"y_true and y_pred must be sequences of hashable, comparable "
                                 f"labels and positive one such label ({exc})") from None
        if t.ndim != 1 or t.shape != p.shape:
            raise ValidationError(f"y_true and y_pred must be flat sequences of the same length, "
                                  f"got shapes {t.shape} and {p.shape}")
        if len(others) > 1:
            raise ValidationError(
                f"binary labels expected: besides the positive {positive!r} found "
                f"{sorted(map(str, others))}; give labels=[...] to count K labels"
            )
        if not others:  # only positives were seen
            tp = int(np.sum((t == positive) & (p == positive)))
            return cls(tp=tp, fn=0, fp=0, tn=0)
        both = count_confusion(y_true, y_pred, labels=[positive, others.pop()])
        return cls(both.matrix)


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


def _label_positions(labels: Any, positive: Any) -> tuple[int, int]:
    """Row of the positive and of the negative label in scikit-learn's order."""
    try:
        labels = list(labels)
    except TypeError:
        raise InputTypeError(f"labels must be a sequence of two labels, got "
                             f"{type(labels).__name__}") from None
    if len(labels) != 2 or _same(labels[0], labels[1]):
        raise ValidationError(f"labels must be two different labels (as given to scikit-learn), "
                              f"got {_show(labels)}")
    if not any(_same(label, positive) for label in labels):
        raise ValidationError(f"positive label {_show(positive)} is not among labels "
                              f"{_show(labels)}")
    p = 0 if _same(labels[0], positive) else 1
    return p, 1 - p


def _same(a: Any, b: Any) -> bool:
    """Whether two labels are equal (labels that cannot be compared are different)."""
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------------------- costs
@dataclass(frozen=True, repr=False, init=False)
class CostMatrix(_Matrix):
    """The price of each system outcome: a cost ``C[c, s]`` per (true class, system output).

    Costs are finite; a mistake never costs less than the hit of the same true class:
    ``C[c, c] <= C[c, s]`` (binary: ``tp <= fn`` and ``tn <= fp``). Binary hits default to 0
    and mistakes to 1.

    Parameters
    ----------
    matrix : (K, K) array-like, DataFrame or object with ``to_numpy()``
        ``C[c, s]``, rows the true class; labelled inputs are matched to ``labels`` by name.
    labels : sequence, optional
        The K labels in row order; ``("P", "N")`` for K = 2 when not given.
    tp, fn, fp, tn : float
        Instead of ``matrix``, the binary costs of a true positive, false negative, false
        positive and true negative.

    Raises
    ------
    CostMatrixError
        If a cost is not finite (or what a mistake adds, ``C[c, s] - C[c, c]``, overflows
        float64), or a hit costs more than a mistake of its class.
    InputTypeError
        If a cost is not a real number; also a ``TypeError``.

    Examples
    --------
    >>> CostMatrix(fn=5, fp=1)
    CostMatrix(tp=0, fn=5, fp=1, tn=0)
    >>> CostMatrix(fn=5, fp=1).to_array().tolist()
    [[0.0, 5.0], [1.0, 0.0]]
    >>> CostMatrix([[0, 1, 1], [5, 0, 5], [2, 2, 0]], labels=["ok", "flu", "covid"]).labels
    ('ok', 'flu', 'covid')
    """

    matrix: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]
    _what = "cost matrix"
    _error = CostMatrixError
    _defaults = {"tp": 0.0, "fn": 1.0, "fp": 1.0, "tn": 0.0}

    def __init__(self, *cells: Any, labels: Iterable[Any] | None = None, matrix: Any = _MISSING,
                 tp: Any = _MISSING, fn: Any = _MISSING, fp: Any = _MISSING,
                 tn: Any = _MISSING) -> None:
        self._setup(cells, labels, matrix, {"tp": tp, "fn": fn, "fp": fp, "tn": tn},
                    self._defaults)

    def _check(self, cells: list[Any], labels: tuple[str, ...]) -> list[float | int]:
        k = len(labels)
        out = [_as_real(f"cost {_cell_name(i, labels, 'output')}", v, CostMatrixError)
               for i, v in enumerate(cells)]
        for c in range(k):
            for s in range(k):
                if out[c * k + c] > out[c * k + s]:
                    raise CostMatrixError(_hit_message(c, s, out, labels))
        for c in range(k):
            for s in range(k):
                if s != c and not math.isfinite(out[c * k + s] - out[c * k + c]):
                    miss, hit = out[c * k + s], out[c * k + c]
                    if k == 2:
                        m, h = CELLS[c * 2 + s], CELLS[c * 3]
                        text = f"cost {m} - {h} (what a mistake adds) overflows float64 with " \
                               f"{m}={miss:g}, {h}={hit:g}"
                    else:
                        text = (f"cost (true {labels[c]!r}, output {labels[s]!r}) = {miss:g} "
                                f"minus the hit's cost {hit:g} (what a mistake adds) overflows "
                                "float64")
                    raise CostMatrixError(f"{text}; rescale the costs")
        return out

    @classmethod
    def from_matrix(cls, matrix: Any, labels: Iterable[Any] | None = None) -> CostMatrix:
        """Build from a (K, K) matrix ``C[c, s]`` and its K labels; the same as
        ``CostMatrix(matrix, labels=labels)``."""
        return cls(matrix, labels=labels)

    @classmethod
    def from_mapping(cls, costs: Mapping[str, float]) -> CostMatrix:
        """Build from a mapping of cell names; missing hits default to 0, mistakes are required."""
        if not isinstance(costs, Mapping):
            raise InputTypeError(f"costs must be a mapping such as {{'fn': 5, 'fp': 1}}, got "
                                 f"{type(costs).__name__}")
        unknown = sorted(map(str, set(costs) - set(CELLS)))
        if unknown:
            raise CostMatrixError(f"unknown cost cells {unknown}; valid cells are tp, fn, fp, tn")
        missing = [k for k in ("fn", "fp") if k not in costs]
        if missing:
            raise CostMatrixError(
                f"cost matrix needs the mistake costs fn and fp; missing {missing} "
                "(e.g. 'fn=5,fp=1')"
            )
        return cls(**dict(costs))

    @classmethod
    def parse(cls, text: str) -> CostMatrix:
        """Parse ``"fn=5,fp=1[,tp=0,tn=0]"``."""
        return cls.from_mapping(parse_cells(text, what="costs"))

    @classmethod
    def from_array(cls, array: Sequence[Sequence[float]] | np.ndarray) -> CostMatrix:
        """Build from ``[[tp, fn], [fp, tn]]``.

        >>> CostMatrix.from_array([[0, 5], [1, 0]])
        CostMatrix(tp=0, fn=5, fp=1, tn=0)
        """
        arr = _read_array(array, "a cost array", CostMatrixError)
        return cls(*(v.item() if isinstance(v, np.generic) else v for v in arr.ravel()))


def _hit_message(c: int, s: int, out: list[float], labels: tuple[str, ...]) -> str:
    k = len(labels)
    hit, miss = out[c * k + c], out[c * k + s]
    if k == 2 and c == 0:
        return (f"cost tp={hit:g} exceeds cost fn={miss:g}: a hit on a positive must not cost "
                "more than missing it; raise fn or lower tp")
    if k == 2:
        return (f"cost tn={hit:g} exceeds cost fp={miss:g}: a hit on a negative must not cost "
                "more than a false alarm; raise fp or lower tn")
    a, b = labels[c], labels[s]
    return (f"cost (true {a!r}, output {a!r}) = {hit:g} exceeds cost (true {a!r}, output "
            f"{b!r}) = {miss:g}: the right output must not cost more than a wrong one for the "
            "same true class (rows are the true class); lower the first or raise the second")


def as_costs(costs: Any, labels: Iterable[Any] | None = None) -> CostMatrix:
    """``costs`` as a :class:`CostMatrix` over ``labels``: a CostMatrix (reordered by name), a
    (K, K) array (read in ``labels``' order) or an object with ``to_numpy()`` and ``labels``.

    >>> as_costs([[0, 1], [4, 0]], ["b", "a"]).reorder(["a", "b"]).matrix
    ((0.0, 4.0), (1.0, 0.0))

    Raises
    ------
    InputTypeError
        Anything else (a string, a mapping, a number).
    ValidationError
        Costs over other label names, or of another size.
    """
    if isinstance(costs, CostMatrix):
        return costs if labels is None else costs.reorder(labels)
    if _scalar(costs) or isinstance(costs, Mapping):
        raise InputTypeError(f"costs must be a CostMatrix or a (K, K) array of costs (rows the "
                             f"true class), got {type(costs).__name__} {_show(costs)}")
    return CostMatrix(costs, labels=labels)
