"""The result of a worst/best-case bound: :class:`Bound`, one value type for every K.

Computed by :func:`~causalcost.pricing.bounds.bound` and its relatives (see the theory in
:mod:`causalcost.pricing.bounds` and :mod:`causalcost.pricing.general`); kept apart so that
the computing modules stay about computing. For K = 2 (labels P, N) the system confusions are
:class:`~causalcost.confusion.Confusion` values with their ``tp/fn/fp/tn`` views and a
:class:`~causalcost.pricing.witness.Witness`; for K > 2 they are (K, K) arrays
``[true class, system output]``. :meth:`Bound.to_numpy` reads either as a matrix.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.display import html_block, html_table
from causalcost.pricing.witness import Witness

__all__ = ["Bound"]

_ASSUMPTION_TEXT = {
    "monotone": "the system is monotone in the slot (per instance, the slot being right never "
                "makes the output dearer: C[c, r(c)] <= C[c, r(j)])",
    "none": "no assumption on how the system reacts to the slot",
}


_FORM_TEXT = {
    "counts": "counts from forced runs on the model's instances",
    "probability": "expected counts from interventional rates (may be fractional)",
    "high-confidence": "forced runs counted on other instances than the model's",
    "kinds": "exact for the instance kinds counted on the model's instances",
}


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def _matrix(value: Any) -> np.ndarray:
    """A (K, K) matrix from a Confusion / CostMatrix (rows the true class) or an array."""
    if isinstance(value, (Confusion, CostMatrix)):
        cells = value.cells()
        return np.array([[cells[0], cells[1]], [cells[2], cells[3]]], dtype=object)
    return np.asarray(value)


@dataclass(frozen=True)
class Bound:
    """Worst, expected (cost function 1) and best system confusion for one slot model, any K.

    Attributes
    ----------
    worst, best : Confusion or numpy.ndarray
        System confusion in the worst / best case compatible with the inputs and assumption
        (a :class:`Confusion` for K = 2, a (K, K) array ``[true class, system output]`` for
        K > 2: exact Python ints in an object array for the count and kinds forms).
    worst_cost, best_cost : float
        Their costs under ``costs``.
    expected : Confusion or numpy.ndarray
        Cost function 1's system confusion (exact under independent errors),
        ``E[c, s] = sum_j N[c, j] T[c, j, s]``.
    expected_cost : float
        Its cost, ``Eval1``.
    assumption : str
        ``"monotone"`` or ``"none"``: what the bounds rest on.
    form : str
        ``"counts"`` (forced runs on the model's instances), ``"probability"`` (``F = e n``;
        cells may be fractional), ``"kinds"`` (instance kinds counted on the model's
        instances: exact, no assumption) or ``"high-confidence"``.
    worst_witness, best_witness : Witness or None
        Instance-level assignments attaining the two cases (K = 2; ``None`` for K > 2).
    costs : CostMatrix or numpy.ndarray
        The system's cost matrix ``C[c, s]``.
    model : Confusion or numpy.ndarray
        The slot model's confusion ``N[c, j]``.
    confidence, method : float and str, or None
        For a high-confidence bound (:func:`~causalcost.high_confidence_bound`): the
        probability that the real system cost on the candidate's instances stays at or under
        ``worst_cost``, and the prediction limit used; ``None`` for the plain bounds.
    labels : tuple of str
        The K labels in the order of every matrix's axes (``("P", "N")`` for K = 2).
    notes : tuple of str
        Remarks printed with the bound.

    Examples
    --------
    Thesis §3.3: AND fusioner, model 1 right on 50 of 100 positives, slot model 50 %:

    >>> from causalcost.pricing.bounds import bound
    >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
    >>> b.worst_cost, b.expected_cost, b.best_cost
    (100.0, 75.0, 50.0)
    >>> b.to_dict()["worst"]
    {'tp': 0.0, 'fn': 100.0, 'fp': 0.0, 'tn': 0.0, 'cost': 100.0}
    """

    worst: Confusion
    best: Confusion
    worst_cost: float
    best_cost: float
    expected: Confusion
    expected_cost: float
    assumption: str
    form: str
    worst_witness: Witness | None
    best_witness: Witness | None
    costs: Any
    model: Any
    confidence: float | None = None
    method: str | None = None
    labels: tuple[str, ...] = ("P", "N")
    notes: tuple[str, ...] = ()

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def binary(self) -> bool:
        """Whether the cases are binary :class:`Confusion` values (K = 2)."""
        return isinstance(self.worst, Confusion)

    def to_numpy(self, case: str = "worst") -> np.ndarray:
        """The (K, K) system confusion of ``case`` (``"worst"``, ``"expected"``, ``"best"``),
        rows the true class; for K = 2 ``[[tp, fn], [fp, tn]]``."""
        if case not in ("worst", "expected", "best"):
            raise ValueError(f"case ({case!r}) must be one of 'worst', 'expected' or 'best'")
        return np.array(_matrix(getattr(self, case)))

    def _rows(self) -> dict[str, dict[str, float]]:
        return {name: {**m.to_dict(), "cost": c} for name, m, c in (
            ("worst", self.worst, self.worst_cost), ("expected", self.expected, self.expected_cost),
            ("best", self.best, self.best_cost))}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; keys ``assumption``, ``worst``, ``best``, ``expected`` are a contract."""
        if not self.binary:
            return self._dict_k()
        rows = self._rows()
        return {"assumption": self.assumption, "form": self.form, "worst": rows["worst"],
                "best": rows["best"], "expected": rows["expected"],
                "costs": self.costs.to_dict(), "model": self.model.to_dict(),
                "witnesses": {"worst": self.worst_witness.to_dict(),
                              "best": self.best_witness.to_dict()},
                "confidence": self.confidence, "method": self.method}

    def to_frame(self) -> pd.DataFrame:
        """Rows worst / expected / best; columns tp, fn, fp, tn, cost.

        Columns are float64, or ``object`` holding exact Python ints when a count exceeds
        ``2**53`` (see :class:`~causalcost.confusion.Confusion`).
        """
        if not self.binary:
            return self._frame_k()
        rows = self._rows()
        columns = [*CELLS, "cost"]
        values = [[row[c] for c in columns] for row in rows.values()]
        exact = any(isinstance(v, int) for row in values for v in row)
        return pd.DataFrame(values, index=list(rows), columns=columns,
                            dtype=object if exact else float)

    def _frame_k(self) -> pd.DataFrame:
        rows, index, cost = [], [], []
        costs = np.asarray(self.costs, dtype=float)
        for case in ("worst", "expected", "best"):
            m = getattr(self, case)
            for c, label in enumerate(self.labels):
                rows.append([_plain(v) for v in m[c]])
                index.append((case, label))
                cost.append(float(sum(float(w) * float(v) for w, v in zip(costs[c], rows[-1])
                                      if v)))
        frame = pd.DataFrame(rows, columns=list(self.labels),
                             index=pd.MultiIndex.from_tuples(index, names=["case", "class"]))
        frame["cost"] = cost
        return frame

    def _dict_k(self) -> dict[str, Any]:
        case = {name: {"confusion": [[_plain(v) for v in row] for row in getattr(self, name)],
                       "cost": getattr(self, f"{name}_cost")}
                for name in ("worst", "expected", "best")}
        return {"labels": list(self.labels), "assumption": self.assumption, "form": self.form,
                **case, "model": [[_plain(v) for v in r] for r in self.model],
                "costs": np.asarray(self.costs, dtype=float).tolist(),
                "confidence": self.confidence, "method": self.method, "notes": list(self.notes)}

    def __repr__(self) -> str:
        if not self.binary:
            return (f"Bound(labels={list(self.labels)}, assumption={self.assumption!r}, "
                    f"form={self.form!r}, worst_cost={_fmt(self.worst_cost)}, "
                    f"expected_cost={_fmt(self.expected_cost)}, "
                    f"best_cost={_fmt(self.best_cost)})")
        return (f"Bound(assumption={self.assumption!r}, form={self.form!r}, "
                f"worst_cost={_fmt(self.worst_cost)}, expected_cost={_fmt(self.expected_cost)}, "
                f"best_cost={_fmt(self.best_cost)}, worst={self.worst!r}, best={self.best!r})")

    def _header(self) -> str:
        form = _FORM_TEXT.get(self.form, self.form)
        if self.confidence is not None:
            form += (f"; the worst case holds on the candidate's instances with probability "
                     f"at least {self.confidence:.0%} ({self.method} prediction limits)")
        said = f"assumption {self.assumption!r}: {_ASSUMPTION_TEXT[self.assumption]}; {form}"
        if not self.binary:
            first = (f"System cost bounds for a {self.k}-label slot model (labels "
                     f"{', '.join(self.labels)})")
        else:
            first = (f"System cost bounds for model {_cells(self.model)} under costs "
                     f"{_cells(self.costs)}")
        return "\n".join([first, *textwrap.wrap(said, width=99, subsequent_indent="  "),
                          *self.notes])

    def __str__(self) -> str:
        if self.worst_witness is None or self.best_witness is None:
            return "\n".join([self._header(), self.to_frame().to_string(float_format=_fmt)])
        return "\n".join([
            self._header(), self.to_frame().to_string(float_format=_fmt),
            "How the worst case can happen:", _indent(self.worst_witness.describe()),
            "How the best case can happen:", _indent(self.best_witness.describe()),
        ])

    def _repr_html_(self) -> str:
        if self.worst_witness is None or self.best_witness is None:
            return html_block("System cost bounds", self._header().splitlines(),
                              html_table(self.to_frame()))
        return html_block(
            "System cost bounds", self._header().splitlines(), html_table(self.to_frame()),
            ["How the worst case can happen:", *self.worst_witness.describe().splitlines()],
            ["How the best case can happen:", *self.best_witness.describe().splitlines()])


def _cells(matrix: Confusion | CostMatrix) -> str:
    """``tp=50 fn=50 fp=100 tn=100``: counts whole, no Python repr in the text."""
    return " ".join(f"{k}={_fmt(v)}" for k, v in matrix.to_dict().items())


def _indent(text: str) -> str:
    """Each sentence indented, wrapped under 100 characters (continuations indented more)."""
    return "\n".join("\n".join(textwrap.wrap(line, width=99, initial_indent="  ",
                                             subsequent_indent="    "))
                     for line in text.splitlines()) or "  (no instances)"
