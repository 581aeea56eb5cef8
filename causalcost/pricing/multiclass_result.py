"""The result of a K-label bound: :class:`MulticlassBound`, a value with its views.

Computed by :func:`~causalcost.pricing.multiclass.multiclass_bound` (the theory is there);
kept apart so that the computing module stays about computing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import format_number as _fmt
from causalcost.display import html_block, html_table

__all__ = ["MulticlassBound"]

_FORM_TEXT = {
    "counts": "forced runs counted on the candidate's own instances (exact integer optimum)",
    "probability": "expected counts from interventional rates on the candidate's class sizes",
    "kinds": "exact for the response vectors counted on the candidate's instances",
    "high-confidence": "forced runs counted on other instances than the candidate's",
}
_ASSUMPTION_TEXT = {
    "monotone": "the slot being right never makes an instance dearer "
                "(C[c, r(c)] <= C[c, r(j)] for every instance and label j)",
    "none": "no assumption on how the system reacts to the slot",
}


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


@dataclass(frozen=True)
class MulticlassBound:
    """Worst, expected (cost function 1) and best system confusion for a K-label slot model.

    Attributes
    ----------
    labels : tuple of str
        The K labels, in the order of every array's axes.
    worst, best : numpy.ndarray
        The (K, K) system confusions ``[true class, system output]`` in the worst / best case
        (exact Python ints in an object array for the count and kinds forms).
    worst_cost, best_cost : float
        Their costs.
    expected : numpy.ndarray
        Cost function 1's system confusion ``E[c, s] = sum_j N[c, j] T[c, j, s]``.
    expected_cost : float
        ``Eval1``.
    assumption, form : str
        ``"monotone"`` or ``"none"``; ``"counts"``, ``"probability"``, ``"kinds"`` or
        ``"high-confidence"``.
    model, costs : numpy.ndarray
        The candidate's confusion ``N[c, j]`` and the costs ``C[c, s]``.
    confidence, method : float and str, or None
        For a high-confidence bound: the probability that the real cost stays at or under
        ``worst_cost``, and the prediction limit used.

    Examples
    --------
    >>> from causalcost.pricing.multiclass import multiclass_bound
    >>> forced = np.zeros((3, 3, 3), dtype=int)
    >>> for j in range(3):
    ...     forced[j, :, j] = 2  # the system repeats the slot: output = forced label
    >>> b = multiclass_bound(forced, np.eye(3, dtype=int) * 2, 1 - np.eye(3),
    ...                      same_instances=True)
    >>> b.worst_cost, b.best_cost, b.expected_cost
    (0.0, 0.0, 0.0)
    >>> b.to_numpy("worst").tolist()
    [[2, 0, 0], [0, 2, 0], [0, 0, 2]]
    """

    labels: tuple[str, ...]
    worst: np.ndarray
    best: np.ndarray
    worst_cost: float
    best_cost: float
    expected: np.ndarray
    expected_cost: float
    assumption: str
    form: str
    model: np.ndarray = field(repr=False)
    costs: np.ndarray = field(repr=False)
    confidence: float | None = None
    method: str | None = None
    notes: tuple[str, ...] = ()

    def to_numpy(self, case: str = "worst") -> np.ndarray:
        """The (K, K) system confusion of ``case`` (``"worst"``, ``"expected"``, ``"best"``)."""
        if case not in ("worst", "expected", "best"):
            raise ValueError(f"case ({case!r}) must be one of 'worst', 'expected' or 'best'")
        return np.array(getattr(self, case))

    def to_frame(self) -> pd.DataFrame:
        """One row per case and true class; columns the system outputs and the cost."""
        rows, index, cost = [], [], []
        for case in ("worst", "expected", "best"):
            m = getattr(self, case)
            for c, label in enumerate(self.labels):
                rows.append([_plain(v) for v in m[c]])
                index.append((case, label))
                cost.append(float(self.costs[c] @ np.array(rows[-1], dtype=float)))
        frame = pd.DataFrame(rows, columns=list(self.labels),
                             index=pd.MultiIndex.from_tuples(index, names=["case", "class"]))
        frame["cost"] = cost
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: labels, assumption, form, the three cases with their costs."""
        case = {name: {"confusion": [[_plain(v) for v in row] for row in getattr(self, name)],
                       "cost": getattr(self, f"{name}_cost")}
                for name in ("worst", "expected", "best")}
        return {"labels": list(self.labels), "assumption": self.assumption, "form": self.form,
                **case, "model": [[_plain(v) for v in r] for r in self.model],
                "costs": self.costs.tolist(), "confidence": self.confidence,
                "method": self.method, "notes": list(self.notes)}

    def _header(self) -> list[str]:
        lines = [f"System cost bounds for a {len(self.labels)}-label slot model "
                 f"(labels {', '.join(self.labels)})",
                 f"assumption {self.assumption!r}: {_ASSUMPTION_TEXT[self.assumption]}; "
                 f"{_FORM_TEXT.get(self.form, self.form)}"]
        if self.confidence is not None:
            lines.append(f"the worst case holds with probability at least "
                         f"{self.confidence:.0%} ({self.method} prediction limits)")
        return lines + list(self.notes)

    def __repr__(self) -> str:
        return (f"MulticlassBound(labels={list(self.labels)}, assumption={self.assumption!r}, "
                f"form={self.form!r}, worst_cost={_fmt(self.worst_cost)}, "
                f"expected_cost={_fmt(self.expected_cost)}, best_cost={_fmt(self.best_cost)})")

    def __str__(self) -> str:
        return "\n".join([*self._header(), self.to_frame().to_string(float_format=_fmt)])

    def _repr_html_(self) -> str:
        return html_block("System cost bounds", self._header(), html_table(self.to_frame()))
