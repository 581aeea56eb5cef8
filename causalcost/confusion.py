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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from causalcost.cells import (
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
    matrix_cost,
    parse_cells,
)
from causalcost.cost_matrix import CostMatrix, as_costs
from causalcost.display import EXACT_LIMIT, format_number
from causalcost.errors import CountError, InputTypeError, ValidationError
from causalcost.labelled import (
    _MISSING,
    LabelledMatrix,
    _cell_name,
    _Floats,
    _frame_matrix,
    _read_array,
    check_labels,
    plain_floats,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CELLS", "CLASSES", "OUTCOMES", "Confusion", "CostMatrix", "as_costs", "check_labels",
    "format_number", "parse_cells",
]
# the private helpers other modules import from here
_REEXPORTED = (_as_count, _as_real, _Cells, _check_real, _cost, _exact, _exact_cost, _num, _sum,
               EXACT_LIMIT)


# -------------------------------------------------------------------------- confusions
@dataclass(frozen=True, repr=False, init=False)
class Confusion(LabelledMatrix):
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
        quick = cells if isinstance(cells, _Floats) else plain_floats(cells)
        if quick is not None and all(v >= 0 for v in quick) and math.isfinite(sum(quick)):
            return quick  # else the loop names the bad cell
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
        out._store(tuple(tuple(row) for row in rows), tuple(labels))
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
        flat = c._flat

        def shown() -> str:
            if self.k == 2:
                return ", ".join(f"{k}={format_number(v)}" for k, v in zip(CELLS, flat) if v)
            return f"up to {format_number(max(abs(v) for v in flat))}"

        return matrix_cost(self._flat, flat, "cost", shown)

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
        cls, y_true: Iterable[Any], y_pred: Iterable[Any], positive: Any = 1
    ) -> Confusion:
        """Count outcomes of binary predictions against labels with scikit-learn, by position.

        For K labels, pandas Series aligned by index and the label rules of the data, use
        :func:`causalcost.count_confusion`.

        >>> Confusion.from_predictions([1, 1, 0, 0], [1, 0, 0, 1])
        Confusion(tp=1, fn=1, fp=1, tn=1)
        """
        from sklearn.metrics import confusion_matrix

        try:
            y_true = np.asarray(list(y_true))
            y_pred = np.asarray(list(y_pred))
            observed = set(np.unique(np.concatenate([y_true, y_pred])).tolist())
            others = observed - {positive}
        except (TypeError, ValueError) as exc:
            raise InputTypeError(f"y_true and y_pred must be sequences of hashable, comparable "
                                 f"labels and positive one such label ({exc})") from None
        if y_true.ndim != 1 or y_true.shape != y_pred.shape:
            raise ValidationError(f"y_true and y_pred must be flat sequences of the same length, "
                                  f"got shapes {y_true.shape} and {y_pred.shape}")
        if len(others) > 1:
            raise ValidationError(
                f"binary labels expected: besides the positive {positive!r} found "
                f"{sorted(map(str, others))}; for K labels use causalcost.count_confusion"
            )
        if not others:  # only positives were seen
            tp = int(np.sum((y_true == positive) & (y_pred == positive)))
            return cls(tp=tp, fn=0, fp=0, tn=0)
        cm = confusion_matrix(y_true, y_pred, labels=[positive, others.pop()])
        return cls.from_array(cm)


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
