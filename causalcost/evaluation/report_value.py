"""The report on one candidate for the slot, for any number of labels: :class:`Report` (the
value object; :mod:`causalcost.evaluation.report` is its public import path).

:func:`~causalcost.evaluate` returns it; it holds

* **Eval1**, cost function 1: the expected system cost (exact when the candidate's errors are
  independent of the rest of the system given the class);
* **Eval2**, cost function 2: the cost of the system errors the candidate's mistakes add;
* the **perfect-slot cost**: the expected system cost with a perfect model in the slot, so that
  ``Eval1 = Eval2 + perfect-slot cost``;
* the **worst and best** system confusion and cost compatible with the sheet's assumption, in
  the form the report names (``Report.instances``: exact only for a candidate declared or
  proven counted on the sheet's own rows; equal class sizes prove nothing).

Confusions have rows the true class. For K = 2 (labels P, N) the confusions are
:class:`~causalcost.Confusion` values with their ``tp/fn/fp/tn`` views and the JSON form keeps
the binary keys; for K > 2 they are (K, K) arrays ``[true class, prediction or system
output]`` (:meth:`Report.to_numpy` reads either as a matrix).

Examples
--------
Thesis §4, example 1: AND fusioner, costs FN 5 / FP 1, a 50 %/50 % candidate:

>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
>>> [round(v, 9) for v in (report.eval1, report.eval2, report.perfect_slot_cost)]
[320.0, 220.0, 100.0]
>>> [round(v, 9) for v in (report.worst_cost, report.best_cost)]
[390.0, 250.0]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS, CLASSES, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.errors import OverflowInputError
from causalcost.evaluation.metrics import candidate_metrics
from causalcost.evaluation.ranking import COMPARE_COLUMNS, coverage_text
from causalcost.pricing.uncertainty import CostIntervals

#: The candidate's own metrics shown beside the system costs.
METRIC_COLUMNS = ("accuracy", "precision", "recall", "f1")

__all__ = ["METRIC_COLUMNS", "Report", "as_binary_confusion", "plain_matrix"]

_COSTS = COMPARE_COLUMNS[:-1]


def plain_matrix(m: Any) -> list[list[float]]:
    """A matrix as nested lists of JSON numbers (whole numbers as int).

    >>> plain_matrix(np.array([[1.0, 0.5], [2.0, 0.0]]))
    [[1, 0.5], [2, 0]]
    """
    return [[int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v) for v in row]
            for row in np.asarray(m, dtype=float).tolist()]


@dataclass(frozen=True)
class Report:
    """What a candidate for the slot would cost the system, by every measure the sheet allows
    (any number of labels K).

    Attributes
    ----------
    eval1, eval2, perfect_slot_cost : float
        Cost functions 1 and 2 and the perfect slot's cost (``eval1 - eval2``).
    expected, worst, best : Confusion or numpy.ndarray
        The system confusions ``[true class, system output]`` cost function 1 predicts, and
        the worst and best compatible with the sheet's assumption (Confusion for K = 2,
        (K, K) arrays for K > 2).
    expected_cost, worst_cost, best_cost : float
    assumption : str
        ``"monotone"`` or ``"none"``: what ``worst`` and ``best`` rest on.
    form : str
        ``"counts"``, ``"kinds"`` or ``"probability"``.
    slot : str
    model : Confusion or numpy.ndarray
        The candidate's confusion ``N[c, j]`` (rows the true class).
    witnesses : dict
        K = 2: ``{"worst": Witness, "best": Witness}`` (instance-level assignments).
    costs : CostMatrix or numpy.ndarray
        The system's costs ``C[c, s]``.
    system_name : str
    warnings : tuple of str
        Doubts that did not stop the evaluation.
    sheet_digest : str
        The SHA-256 of the sheet the report was computed on (``"sha256:<hex>"``).
    intervals : CostIntervals or None
        K = 2 with ``confidence``: intervals on the six costs (:func:`~causalcost.cost_intervals`).
    high_confidence, high_confidence_best : object or None
        With ``confidence``: the worst case (``worst``, ``worst_cost``) and the best case
        (``best_cost``) on the candidate's own instances with at least that probability each
        (on the sheet's own instances the exact cases, which hold with certainty).
    instances : str
        The form of the worst and best cases and why it was chosen.
    labels : tuple of str
        The K labels, in the order of every axis (``("P", "N")`` for two labels).
    confidence : float or None
    eval1_ci_low, eval1_ci_high : float or None
        With ``confidence``: an interval on Eval1.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    >>> report.eval1, report.worst_cost, report.best_cost  # thesis §4 example 1: Eval1 = 320
    (320.0, 390.0, 250.0)
    >>> report.to_numpy("worst").tolist()
    [[30.0, 70.0], [40.0, 160.0]]
    """

    eval1: float
    eval2: float
    perfect_slot_cost: float
    expected: Any
    expected_cost: float
    worst: Any
    worst_cost: float
    best: Any
    best_cost: float
    assumption: str
    form: str
    slot: str
    model: Any
    witnesses: Mapping[str, Any] = field(default_factory=dict, repr=False)
    costs: Any = field(default_factory=CostMatrix, repr=False)
    system_name: str = "system"
    warnings: tuple[str, ...] = ()
    sheet_digest: str = ""
    intervals: CostIntervals | None = field(default=None, repr=False)
    high_confidence: Any = field(default=None, repr=False)
    high_confidence_best: Any = field(default=None, repr=False)
    instances: str = ""
    labels: tuple[str, ...] = CLASSES
    confidence: float | None = None
    eval1_ci_low: float | None = None
    eval1_ci_high: float | None = None

    # -- general views ----------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    @property
    def binary(self) -> bool:
        """Two labels (P, N): the binary names and JSON keys apply."""
        return self.k == 2

    def to_numpy(self, case: str = "worst") -> np.ndarray:
        """``"model"``, ``"expected"``, ``"worst"``, ``"best"`` or ``"costs"`` as a (K, K)
        float matrix (rows the true class)."""
        if case not in ("model", "expected", "worst", "best", "costs"):
            raise ValueError(f"case must be model, expected, worst, best or costs, got {case!r}")
        value = getattr(self, case)
        if hasattr(value, "to_numpy"):
            value = value.to_numpy()
        return np.asarray(value, dtype=float).reshape(self.k, self.k)

    @property
    def high_confidence_best_cost(self) -> float | None:
        """The high-confidence best case's cost (None without a confidence level)."""
        h = self.high_confidence_best
        return None if h is None else float(h.best_cost)

    @property
    def coverage(self) -> str:
        """The high-confidence cases' coverage in words (empty without a confidence level)."""
        h = self.high_confidence
        if h is None or getattr(h, "confidence", None) is None:
            return ""
        return coverage_text(h.confidence, exact=h.form != "high-confidence")

    # -- tables -----------------------------------------------------------------------------
    def to_series(self) -> pd.Series:
        """The six costs: eval1, eval2, perfect_slot_cost, expected_cost, worst_cost, best_cost
        (K > 2 with a confidence level: also the interval and the high-confidence costs)."""
        out: dict[str, Any] = {k: getattr(self, k) for k in _COSTS}
        if not self.binary and self.high_confidence is not None:
            out.update(eval1_ci_low=self.eval1_ci_low, eval1_ci_high=self.eval1_ci_high,
                       high_confidence_worst_cost=self.high_confidence.worst_cost,
                       high_confidence_best_cost=self.high_confidence_best_cost)
            return pd.Series(out, name="cost", dtype=float)
        return pd.Series(out, dtype=float)

    def _rows(self) -> dict[str, dict[str, float]]:
        return {name: {**m.to_dict(), "cost": c} for name, m, c in (
            ("worst", self.worst, self.worst_cost), ("expected", self.expected, self.expected_cost),
            ("best", self.best, self.best_cost))}

    def _matrix_frame(self, case: str, columns: str = "system output",
                      matrix: Any = None) -> pd.DataFrame:
        frame = pd.DataFrame(self.to_numpy(case) if matrix is None else np.asarray(
            matrix, dtype=float), index=list(self.labels), columns=list(self.labels))
        frame.index.name, frame.columns.name = "true class", columns
        return frame

    def to_frame(self) -> pd.DataFrame:
        """K = 2: rows worst / expected / best, columns tp, fn, fp, tn, cost (``attrs`` hold
        ``eval1``, ``eval2``, ``perfect_slot_cost``, ``assumption``, ``form``, ``instances``,
        ``slot``). K > 2: the candidate's and the system's K x K tables, rows (table, true
        class), columns the labels."""
        if self.binary:
            frame = pd.DataFrame.from_dict(self._rows(), orient="index")[[*CELLS, "cost"]]
            frame.index.name = "system case"
        else:
            parts = {"candidate": self._matrix_frame("model", "prediction"),
                     "expected": self._matrix_frame("expected"),
                     "worst": self._matrix_frame("worst"), "best": self._matrix_frame("best")}
            if self.high_confidence is not None:
                parts["high_confidence_worst"] = self._matrix_frame(
                    "worst", matrix=self.high_confidence.worst)
            frame = pd.concat(parts, names=["table"])
        frame.attrs.update(eval1=self.eval1, eval2=self.eval2,
                           perfect_slot_cost=self.perfect_slot_cost, assumption=self.assumption,
                           form=self.form, instances=self.instances, slot=self.slot)
        return frame

    # -- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready report.

        K = 2: the keys ``eval1``, ``eval2``, ``perfect_slot_cost``, ``worst``, ``best`` (each
        ``{"tp", "fn", "fp", "tn", "cost"}``) and ``assumption`` are a public contract; also
        ``expected``, ``form``, ``slot``, ``system``, ``model``, ``costs``, ``warnings``,
        ``sheet_sha256``, ``instances``, ``metrics``, and as for K labels ``labels``,
        ``expected_cost``, ``worst_cost``, ``best_cost``; with a confidence level
        ``confidence``, ``intervals``, ``interval_method``, ``high_confidence_worst``,
        ``high_confidence_best`` and ``coverage``. K > 2: ``slot``, ``system``, ``labels``,
        the six costs by name, ``assumption``, ``form``, ``instances``, the K x K tables
        ``model``, ``expected``, ``worst``, ``best`` as nested lists, ``sheet_sha256``,
        ``warnings``; with a confidence level ``eval1_ci_low``, ``eval1_ci_high``,
        ``high_confidence_worst_cost``, ``high_confidence_best_cost``, ``confidence`` and
        ``high_confidence_worst`` (``cost``, ``method``, ``worst``).

        Raises
        ------
        OverflowInputError
            If a number is infinite or NaN (never written to JSON as ``Infinity``/``NaN``).
        """
        out = self._binary_dict() if self.binary else self._label_dict()
        _check_finite(out, "")
        return out

    def _label_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "slot": self.slot, "system": self.system_name, "labels": list(self.labels),
            **{k: float(v) for k, v in self.to_series().items()},
            "assumption": self.assumption, "form": self.form, "instances": self.instances,
            **{case: plain_matrix(self.to_numpy(case))
               for case in ("model", "expected", "worst", "best")},
            "sheet_sha256": self.sheet_digest, "warnings": list(self.warnings)}
        if self.high_confidence is not None:
            out["confidence"] = self.confidence
            out["high_confidence_worst"] = {"cost": float(self.high_confidence.worst_cost),
                                            "method": self.high_confidence.method,
                                            "worst": plain_matrix(self.high_confidence.worst)}
        return out

    def _binary_dict(self) -> dict[str, Any]:
        rows = self._rows()
        return {
            "eval1": self.eval1, "eval2": self.eval2,
            "perfect_slot_cost": self.perfect_slot_cost,
            "worst": rows["worst"], "best": rows["best"], "assumption": self.assumption,
            "expected": rows["expected"], "form": self.form, "slot": self.slot,
            "system": self.system_name, "model": self.model.to_dict(),
            "costs": self.costs.to_dict(), "warnings": list(self.warnings),
            "sheet_sha256": self.sheet_digest, "instances": self.instances,
            "metrics": {k: (None if v != v else float(v))
                        for k, v in candidate_metrics(self.model).items()},
            **self._uncertainty_dict(rows),
            # the names the K-label form uses, so one script reads every K
            "labels": list(self.labels), "expected_cost": self.expected_cost,
            "worst_cost": self.worst_cost, "best_cost": self.best_cost,
        }

    def _uncertainty_dict(self, rows: dict[str, dict[str, float]]) -> dict[str, Any]:
        """``ci_low`` / ``ci_high`` beside each cost, and the high-confidence cases (K = 2)."""
        if self.intervals is None:
            return {}
        f = self.intervals.frame
        for case in ("worst", "best", "expected"):
            rows[case].update(ci_low=float(f.loc[f"{case}_cost", "ci_low"]),
                              ci_high=float(f.loc[f"{case}_cost", "ci_high"]))
        out: dict[str, Any] = {
            "confidence": self.intervals.confidence,
            "intervals": {name: {"ci_low": float(f.loc[name, "ci_low"]),
                                 "ci_high": float(f.loc[name, "ci_high"])}
                          for name in ("eval1", "eval2", "perfect_slot_cost")},
            "interval_method": self.intervals.method,
        }
        if self.high_confidence is not None:
            h = self.high_confidence
            out["high_confidence_worst"] = {**h.worst.to_dict(), "cost": h.worst_cost,
                                            "confidence": h.confidence, "method": h.method}
        if self.high_confidence_best is not None:
            h = self.high_confidence_best
            out["high_confidence_best"] = {**h.best.to_dict(), "cost": h.best_cost,
                                           "confidence": h.confidence, "method": h.method}
        if self.high_confidence is not None or self.high_confidence_best is not None:
            out["coverage"] = self.coverage
        return out

    # -- display ----------------------------------------------------------------------------
    def __str__(self) -> str:
        from causalcost.evaluation.report_text import report_text

        return report_text(self)

    def __repr__(self) -> str:
        labels = "" if self.binary else f"labels={list(self.labels)}, "
        model = f"model={self.model!r}, " if self.binary else f"{self.k} labels, "
        return (f"Report(slot={self.slot!r}, {labels}eval1={_fmt(self.eval1)}, "
                f"eval2={_fmt(self.eval2)}, perfect_slot_cost={_fmt(self.perfect_slot_cost)}, "
                f"worst_cost={_fmt(self.worst_cost)}, best_cost={_fmt(self.best_cost)}, "
                f"assumption={self.assumption!r}, {model}"
                f"form={self.instances or self.form!r})")

    def _repr_html_(self) -> str:
        from causalcost.evaluation.report_text import report_html

        return report_html(self)


def _check_finite(value: Any, where: str) -> None:
    """Refuse an infinite or NaN number anywhere in a report's JSON form, naming its key."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_finite(v, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise OverflowInputError(f"the report's {where!r} is {value!r}: the numbers overflow "
                                 "float64; rescale the counts or the sheet's costs")


def as_binary_confusion(value: Any) -> Confusion:
    """A K = 2 matrix (or Confusion) as a :class:`~causalcost.Confusion` (positive first)."""
    if isinstance(value, Confusion):
        return value
    m = np.asarray(value, dtype=float)
    return Confusion(*(int(v) if v.is_integer() and abs(v) < 2**53 else v
                       for v in m.reshape(4).tolist()))
