"""Cost functions 1 and 2 for any number of labels K: the model cost matrix ``M[c, j]``.

With the interventional table ``T[c, j, s] = P(S = s | Class = c, do(M = j))`` and the
system's costs ``C[c, s]``:

* ``M1[c, j] = sum_s T[c, j, s] C[c, s]``: the expected system cost of the slot predicting
  ``j`` on a class-``c`` instance; ``Eval1 = sum_{c, j} N[c, j] M1[c, j]``;
* ``M2[c, j] = M1[c, j] - M1[c, c]``: the error transition (0 on the diagonal);
  ``Eval2 = Eval1 - sum_c n_c M1[c, c]`` (the perfect slot's cost taken off).

:class:`ModelCostMatrix` holds one of them with its labels, rows the true class, columns the
slot's prediction. For K = 2 (labels P, N) these are the thesis's cost functions 1 and 2, and
``tp, fn, fp, tn``, the binary constructor and repr are views of the same object.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.cells import CLASSES, _as_real, _cost, matrix_cost
from causalcost.confusion import Confusion
from causalcost.display import format_matrix, html_table
from causalcost.errors import CostMatrixError, InputTypeError, OverflowInputError, ValidationError
from causalcost.labelled import _MISSING, LabelledMatrix, _cell_name, _permutation, plain_floats
from causalcost.labelled import check_labels as _label_names
from causalcost.pricing.inputs import as_table_array, check_costs, check_counts

__all__ = ["MODEL_COST_KINDS", "ModelCostMatrices", "ModelCostMatrix", "model_cost_matrices"]

#: Kinds of model cost matrix: cost function 1 and cost function 2.
MODEL_COST_KINDS: tuple[str, str] = ("expected", "transition")


@dataclass(frozen=True, repr=False, init=False)
class ModelCostMatrix(LabelledMatrix):
    """A cost per outcome of the *slot model*, derived from the system's costs: ``M[c, j]``,
    rows the true class, columns the slot's prediction, for any number of labels K.

    Unlike :class:`~causalcost.confusion.CostMatrix` a hit may cost more than a mistake and a
    cell may be negative: a system that is not monotone in the slot produces such matrices,
    and that is information about the system, not an input error.

    Parameters
    ----------
    matrix : (K, K) array-like, DataFrame or object with ``to_numpy()``
        ``M[c, j]``; labelled inputs are matched to ``labels`` by name.
    kind : str
        ``"expected"`` (cost function 1) or ``"transition"`` (cost function 2).
    labels : sequence, optional
        The K labels in row order; ``("P", "N")`` for K = 2 when not given.
    tp, fn, fp, tn : float
        Instead of ``matrix``, the binary cells (also positionally, then ``kind`` fifth):
        the cost charged to one true positive, false negative, false positive, true negative
        of the model.

    Raises
    ------
    CostMatrixError
        If a cell is infinite or NaN.
    ValidationError
        If ``kind`` is unknown.
    InputTypeError
        If a cell is not a real number (also a ``TypeError``).

    Examples
    --------
    >>> m = ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind="expected")
    >>> m.evaluate(Confusion(tp=50, fn=50, fp=100, tn=100))
    320.0
    >>> m.to_array().tolist()
    [[1.0, 5.0], [0.2, 0.0]]
    >>> three = ModelCostMatrix([[0, 1, 1], [2, 0, 2], [3, 3, 0]], kind="transition",
    ...                         labels=["a", "b", "c"])
    >>> three.evaluate([[5, 1, 0], [0, 4, 0], [2, 0, 3]])
    7.0
    """

    matrix: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]
    kind: str
    _what = "model cost matrix"
    _error = CostMatrixError

    def __init__(self, *cells: Any, kind: Any = _MISSING, labels: Iterable[Any] | None = None,
                 matrix: Any = _MISSING, tp: Any = _MISSING, fn: Any = _MISSING,
                 fp: Any = _MISSING, tn: Any = _MISSING) -> None:
        if kind is _MISSING and cells and isinstance(cells[-1], str) and len(cells) in (2, 5):
            cells, kind = cells[:-1], cells[-1]  # the binary dataclass's positional kind
        if kind is _MISSING:
            raise InputTypeError("ModelCostMatrix() needs kind='expected' (cost function 1) or "
                                 "'transition' (cost function 2)")
        if not isinstance(kind, str) or kind not in MODEL_COST_KINDS:
            raise ValidationError(
                f"kind ({kind!r}) must be one of 'expected' (cost function 1) or "
                "'transition' (cost function 2)")
        object.__setattr__(self, "kind", kind)
        self._setup(cells, labels, matrix, {"tp": tp, "fn": fn, "fp": fp, "tn": tn}, None)

    def _check(self, cells: list[Any], labels: tuple[str, ...]) -> list[float | int]:
        quick = plain_floats(cells)
        if quick is not None:
            return quick  # type: ignore[return-value]
        return [_as_real(f"model cost {_cell_name(i, labels, 'predicted')}", v, CostMatrixError)
                for i, v in enumerate(cells)]

    @classmethod
    def trusted(cls, matrix: np.ndarray, labels: tuple[str, ...], kind: str) -> ModelCostMatrix:
        """A matrix of finite floats made by this package's own derivation, not checked
        again (assumes a finite float (K, K) array and K distinct label names)."""
        out = object.__new__(cls)
        object.__setattr__(out, "kind", kind)
        out._store(tuple(tuple(float(v) for v in row) for row in matrix), tuple(labels))
        return out

    def with_labels(self, labels: Iterable[Any]) -> ModelCostMatrix:
        """The same matrix under other label names (position by position)."""
        return type(self)(self.matrix, kind=self.kind, labels=labels)

    def reorder(self, labels: Iterable[Any]) -> ModelCostMatrix:
        """The same matrix with its labels in another order (matched by name)."""
        want = _label_names(labels, self.k, self._what)
        if want == self.labels:
            return self
        order = _permutation(self.labels, want, self._what)
        rows = [[self.matrix[i][j] for j in order] for i in order]
        return type(self)(rows, kind=self.kind, labels=want)

    def evaluate(self, model: Any) -> float:
        """``sum_{c, j} N[c, j] M[c, j]`` for the candidate's confusion ``N`` (the thesis's
        ``Eval``): a :class:`~causalcost.confusion.Confusion` (its labels matched by name;
        a binary one over other names is read positive first) or a (K, K) array of counts.

        Raises :class:`~causalcost.errors.OverflowInputError` if the sum overflows float64.

        >>> ModelCostMatrix(0, 4, 0.2, 0, kind="transition").evaluate(Confusion(50, 50, 100, 100))
        220.0
        """
        number = "1" if self.kind == "expected" else "2"
        what = f"evaluation with cost function {number}"
        if isinstance(model, Confusion):
            if model.k != self.k:
                raise ValidationError(f"model is a confusion over {model.k} labels, the cost "
                                      f"matrix has {self.k} ({list(self.labels)})")
            if model.labels != self.labels and not (
                    self.k == 2 and CLASSES in (model.labels, self.labels)
                    and set(model.labels) != set(self.labels)):
                model = model.reorder(self.labels)
            if self.k == 2:
                return _cost(model.cells(), self, what)
            counts: list[Any] = [v for row in model.matrix for v in row]
        else:
            if np.ndim(model) != 2:
                raise InputTypeError(f"model must be a Confusion or a (K, K) array of counts "
                                     f"(rows the true class), got {type(model).__name__}")
            counts = list(check_counts("model", model, 2, self.k).ravel())
        return matrix_cost(counts, self._flat, what, lambda: f"{self!r}")

    def __repr__(self) -> str:
        if self.k == 2 and self.labels == CLASSES:
            return f"{super().__repr__()[:-1]}, kind={self.kind!r})"
        name = type(self).__name__
        return (f"{name}({format_matrix(self.matrix, len(name) + 1)}, labels={self.labels!r}, "
                f"kind={self.kind!r})")

    def _repr_html_(self) -> str:
        label = "cost function 1 (expected)" if self.kind == "expected" else (
            "cost function 2 (transition)")
        return html_table(self.to_frame(), caption=f"Model cost matrix, {label}")


@dataclass(frozen=True)
class ModelCostMatrices:
    """Model-level costs ``M1`` (cost function 1) and ``M2`` (cost function 2), (K, K) each;
    :attr:`expected` and :attr:`transition` are the same as :class:`ModelCostMatrix`.

    Examples
    --------
    A system that outputs what the slot says, 0/1 costs: the slot's cost is its error.

    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1
    >>> m = model_cost_matrices(t, 1 - np.eye(3))
    >>> m.m1.tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    >>> m.evaluate([[5, 1, 0], [0, 4, 0], [2, 0, 3]])
    (3.0, 3.0)
    >>> m.transition.kind, m.transition.k
    ('transition', 3)
    """

    labels: tuple[str, ...]
    m1: np.ndarray
    m2: np.ndarray

    @property
    def expected(self) -> ModelCostMatrix:
        """``M1`` as a :class:`ModelCostMatrix` (cost function 1)."""
        return ModelCostMatrix.trusted(self.m1, self.labels, "expected")

    @property
    def transition(self) -> ModelCostMatrix:
        """``M2`` as a :class:`ModelCostMatrix` (cost function 2)."""
        return ModelCostMatrix.trusted(self.m2, self.labels, "transition")

    def evaluate(self, model: object) -> tuple[float, float]:
        """``(Eval1, Eval2)`` for the candidate's confusion ``N[c, j]``."""
        return self.expected.evaluate(model), self.transition.evaluate(model)

    def to_frame(self) -> pd.DataFrame:
        """Rows ``(function, true class)``, columns the slot's prediction."""
        idx = pd.MultiIndex.from_product([["M1", "M2"], list(self.labels)],
                                         names=["function", "class"])
        return pd.DataFrame(np.vstack([self.m1, self.m2]), index=idx, columns=list(self.labels))

    def __repr__(self) -> str:
        return (f"ModelCostMatrices(labels={list(self.labels)}, "
                f"m1={np.round(self.m1, 6).tolist()})")


def model_cost_matrices(table: object, costs: object,
                        labels: list[str] | None = None) -> ModelCostMatrices:
    """``M1`` and ``M2`` from the interventional table and the system's (K, K) costs.

    Parameters
    ----------
    table : array (K, K, K) or InterventionalTable
        ``T[c, j, s]``.
    costs : array (K, K) or CostMatrix
        ``C[c, s]`` (true class, system output).
    labels : list of str, optional
        Names; taken from ``table.labels`` when it has them (default ``("P", "N")`` for
        K = 2, ``("0", .., "K-1")`` otherwise).

    Returns
    -------
    ModelCostMatrices

    Raises
    ------
    OverflowInputError
        If cost function 1 overflows float64 (rescale the costs).
    """
    t = as_table_array(table)
    c = check_costs(costs, t.shape[0])
    names = _label_names(labels if labels is not None else getattr(table, "labels", None),
                         t.shape[0], "interventional table")
    with np.errstate(over="ignore", invalid="ignore"):
        m1 = np.einsum("cjs,cs->cj", t, c)
    if not np.all(np.isfinite(m1)):
        raise OverflowInputError("costs too large: cost function 1 overflows float64 with these "
                                 "costs; rescale them (divide them all by the same factor)")
    return ModelCostMatrices(names, m1, m1 - np.diag(m1)[:, None])
