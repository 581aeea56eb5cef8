"""Evaluate K-label candidates against a multi-class sheet: costs, bounds, a worst case with
stated confidence.

:func:`evaluate_multiclass` is what :func:`causalcost.evaluate` runs for a
:class:`~causalcost.sheet.multiclass_sheet.MulticlassSheet`. The candidate is its own K x K
confusion ``N[c, j]`` (rows the true class) or its predictions. The bound:

* the sheet's kinds, when the candidate was counted on the sheet's instances (same class
  sizes): exact, no assumption;
* the sheet's forced runs on the same class sizes: the count form, under the sheet's
  assumption;
* otherwise the probability form on the candidate's class sizes (with a warning).

**High-confidence worst case** (``confidence=``; needs the sheet's forced runs, the stage-1
counts): :func:`causalcost.multiclass_high_confidence_bound`, assumption-free (above the
monotone worst case, so valid for a monotone sheet too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.data.multiclass_runs import label_frame
from causalcost.display import format_number, html_block, html_table
from causalcost.errors import CountError, DataError, InfeasibleInputError, ValidationError
from causalcost.pricing.bound_result import Bound as MulticlassBound
from causalcost.pricing.bounds import bound as multiclass_bound
from causalcost.pricing.high_confidence import (
    high_confidence_bound as multiclass_high_confidence_bound,
)
from causalcost.pricing.inputs import check_counts
from causalcost.sheet.multiclass_sheet import MulticlassSheet

__all__ = ["MulticlassReport", "compare_multiclass", "evaluate_multiclass",
           "multiclass_confusion"]


# ----------------------------------------------------------------------------- candidates
def multiclass_confusion(candidate: Any, labels: Sequence[str]) -> np.ndarray:
    """The candidate's K x K confusion ``N[c, j]`` from any accepted form.

    Accepted: a (K, K) array or nested list (rows the true class, columns the prediction); a
    DataFrame labelled with the labels (reordered); a DataFrame with columns ``truth`` and
    ``prediction`` (one row per instance); a pair ``(truth, predictions)`` of sequences.
    Values of predictions are matched to the labels as strings.

    Examples
    --------
    >>> multiclass_confusion((["a", "b", "b"], ["a", "a", "b"]), ["a", "b"]).tolist()
    [[1, 0], [1, 1]]

    Raises
    ------
    DataError
        A prediction or truth value that is not a label (named).
    ValidationError, CountError
        A matrix of the wrong shape or with bad counts.
    """
    names = [str(v) for v in labels]
    k = len(names)
    if isinstance(candidate, pd.DataFrame):
        if {"truth", "prediction"} <= set(map(str, candidate.columns)):
            return _count(candidate["truth"].tolist(), candidate["prediction"].tolist(), names)
        rows, cols = [str(v) for v in candidate.index], [str(v) for v in candidate.columns]
        if sorted(rows) == sorted(names) and sorted(cols) == sorted(names):
            frame = candidate.copy()
            frame.index, frame.columns = rows, cols
            candidate = frame.loc[names, names].to_numpy()
        else:
            candidate = candidate.to_numpy()
    elif isinstance(candidate, tuple) and len(candidate) == 2 and not np.isscalar(candidate[0]) \
            and np.ndim(candidate[0]) == 1:
        return _count(list(candidate[0]), list(candidate[1]), names)
    return check_counts("candidate", candidate, 2, k)


def _count(truth: list[Any], pred: list[Any], names: list[str]) -> np.ndarray:
    if len(truth) != len(pred):
        raise DataError(f"truth has {len(truth)} values and prediction {len(pred)}; give one "
                        "prediction per instance")
    index = {n: i for i, n in enumerate(names)}
    out = np.zeros((len(names), len(names)), dtype=np.int64)
    for what, values in (("truth", truth), ("prediction", pred)):
        bad = next((v for v in values if str(v) not in index), None)
        if bad is not None or any(v is None for v in values):
            raise DataError(f"{what} holds {bad!r}, which is not one of the sheet's labels "
                            f"{names}")
    np.add.at(out, ([index[str(v)] for v in truth], [index[str(v)] for v in pred]), 1)
    return out


# ------------------------------------------------------------------------------ reports
@dataclass(frozen=True)
class MulticlassReport:
    """One K-label candidate priced against a multi-class sheet.

    Attributes
    ----------
    slot : str
    labels : tuple of str
    model : numpy.ndarray
        The candidate's confusion ``N[c, j]``.
    eval1, eval2, perfect_slot_cost : float
        Cost functions 1 and 2 and the perfect slot's cost.
    expected, worst, best : numpy.ndarray
        System confusions ``[true, system output]``.
    expected_cost, worst_cost, best_cost : float
    assumption, form : str
    high_confidence : MulticlassBound or None
        From :func:`causalcost.multiclass_high_confidence_bound` (its ``worst`` and
        ``worst_cost`` hold on the candidate's instances with ``confidence``).
    sheet_digest : str
    warnings : tuple of str
    """

    slot: str
    labels: tuple[str, ...]
    model: np.ndarray
    eval1: float
    eval2: float
    perfect_slot_cost: float
    expected: np.ndarray
    expected_cost: float
    worst: np.ndarray
    worst_cost: float
    best: np.ndarray
    best_cost: float
    assumption: str
    form: str
    sheet_digest: str
    high_confidence: MulticlassBound | None = None
    warnings: tuple[str, ...] = field(default=())

    def to_series(self) -> pd.Series:
        """The costs as one series."""
        out = {"eval1": self.eval1, "eval2": self.eval2,
               "perfect_slot_cost": self.perfect_slot_cost,
               "expected_cost": self.expected_cost, "worst_cost": self.worst_cost,
               "best_cost": self.best_cost}
        if self.high_confidence is not None:
            out["worst_high_confidence"] = self.high_confidence.worst_cost
        return pd.Series(out, name="cost")

    def to_frame(self) -> pd.DataFrame:
        """The candidate's and the system's K x K tables side by side: rows (table, true
        class), columns the labels."""
        parts = {"candidate": label_frame(self.model, self.labels, columns="label"),
                 "expected": label_frame(self.expected, self.labels, columns="label"),
                 "worst": label_frame(self.worst, self.labels, columns="label"),
                 "best": label_frame(self.best, self.labels, columns="label")}
        if self.high_confidence is not None:
            parts["worst_high_confidence"] = label_frame(self.high_confidence.worst,
                                                         self.labels, columns="label")
        return pd.concat({k: v.astype(float) for k, v in parts.items()}, names=["table"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: costs, the K x K tables as nested lists, labels, digest, warnings."""
        def plain(m: np.ndarray) -> list[list[float]]:
            return [[int(v) if float(v).is_integer() else float(v) for v in row] for row in
                    np.asarray(m).tolist()]

        out: dict[str, Any] = {
            "slot": self.slot, "labels": list(self.labels), **self.to_series().to_dict(),
            "assumption": self.assumption, "form": self.form, "model": plain(self.model),
            "expected": plain(self.expected), "worst": plain(self.worst),
            "best": plain(self.best), "sheet_sha256": self.sheet_digest,
            "warnings": list(self.warnings)}
        if self.high_confidence is not None:
            out["high_confidence"] = {"confidence": self.high_confidence.confidence,
                                      "method": self.high_confidence.method,
                                      "worst": plain(self.high_confidence.worst)}
        return out

    def __str__(self) -> str:
        def costs(name: str, value: float) -> str:
            return f"  {name:<24}{format_number(value)}"

        lines = [f"Multi-class report for slot {self.slot!r} (labels {list(self.labels)}; "
                 f"assumption {self.assumption}, form {self.form})",
                 costs("Eval1 (expected)", self.eval1), costs("Eval2", self.eval2),
                 costs("worst case", self.worst_cost), costs("best case", self.best_cost)]
        if self.high_confidence is not None:
            lines.append(costs(f"worst at {self.high_confidence.confidence:.0%}",
                               self.high_confidence.worst_cost))
        lines.append("  candidate (rows: true class, columns: prediction):")
        lines.append(_indent(_shown(label_frame(self.model, self.labels, columns="predicted"))))
        lines.append("  worst system confusion (columns: system output):")
        lines.append(_indent(_shown(label_frame(self.worst, self.labels))))
        lines += [f"  warning: {w}" for w in self.warnings]
        lines.append(f"  sheet: {self.sheet_digest}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"MulticlassReport(slot={self.slot!r}, eval1={format_number(self.eval1)}, "
                f"worst_cost={format_number(self.worst_cost)}, "
                f"best_cost={format_number(self.best_cost)}, form={self.form!r})")

    def _repr_html_(self) -> str:
        return html_block(
            repr(self), html_table(self.to_series().to_frame(), caption="Costs"),
            html_table(label_frame(self.model, self.labels, columns="predicted"),
                       caption="Candidate (rows: true class)"),
            html_table(label_frame(self.worst, self.labels), caption="Worst system confusion"),
            html_table(label_frame(self.best, self.labels), caption="Best system confusion"),
            notes=list(self.warnings))


def _shown(frame: pd.DataFrame) -> str:
    """A K x K frame as text, whole numbers whole and others to six digits."""
    return frame.map(lambda v: format_number(v if isinstance(v, int) else float(v))).to_string()


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def evaluate_multiclass(sheet: MulticlassSheet, candidate: Any, *,
                        confidence: float | None = None) -> MulticlassReport:
    """Price one K-label candidate against a multi-class sheet (see the module).

    Parameters
    ----------
    sheet : MulticlassSheet
    candidate : K x K confusion or predictions
        Any form :func:`multiclass_confusion` accepts.
    confidence : float, optional
        Add the high-confidence worst case (needs the sheet's forced runs).

    Returns
    -------
    MulticlassReport

    Raises
    ------
    ValidationError
        ``confidence`` with a sheet without forced runs.
    InfeasibleInputError
        A class the candidate has but the sheet never saw.

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.sheet.multiclass_sheet import multiclass_sheet
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1.0      # the system outputs what the slot says
    >>> sheet = multiclass_sheet(t, [[0, 1, 1], [1, 0, 1], [5, 5, 0]], slot="m",
    ...                          labels=["a", "b", "c"], created="2026-01-01T00:00:00+00:00")
    >>> r = evaluate_multiclass(sheet, [[8, 2, 0], [1, 9, 0], [1, 0, 9]])
    >>> r.eval1, r.worst_cost, r.best_cost
    (8.0, 8.0, 8.0)
    """
    n = multiclass_confusion(candidate, sheet.labels)
    k = sheet.k
    sizes = [sum(float(v) for v in row) for row in n.tolist()]
    warnings: list[str] = []
    own = sheet.class_sizes
    same = own is not None and all(float(a) == float(b) for a, b in zip(own, sizes))
    labels = list(sheet.labels)
    m = np.asarray(n.tolist(), dtype=float)
    eval1 = float((m * sheet.m1).sum())
    eval2 = float((m * sheet.m2).sum())
    if same and sheet.kinds is not None:
        if not all(float(v).is_integer() for v in m.flat):
            raise CountError("candidate cells must be whole numbers on the sheet's instances")
        b = multiclass_bound(kinds=sheet.kinds, model=[[int(v) for v in r] for r in m.tolist()],
                             costs=sheet.costs)
    elif same and sheet.forced is not None:
        b = multiclass_bound(sheet.forced.tolist(), n, sheet.costs, same_instances=True,
                             assumption=sheet.assumption, labels=labels)
    else:
        if own is not None:
            warnings.append("the candidate's class sizes differ from the sheet's: the worst and "
                            "best cases use the probability form (the sheet's rates on the "
                            "candidate's class sizes), exact only up to sampling; pass "
                            "confidence= for a worst case that holds with a stated probability")
        rates = np.transpose(sheet.table, (1, 0, 2))  # as forced runs [j, c, s] of one each
        b = multiclass_bound(rates, n, sheet.costs, assumption=sheet.assumption, labels=labels)
    high = None
    if confidence is not None:
        if sheet.forced is None:
            raise ValidationError("confidence= needs a sheet counted on data (forced runs): "
                                  "this sheet holds a table only")
        high = multiclass_high_confidence_bound(sheet.forced.tolist(), n, sheet.costs,
                                                confidence=confidence, labels=labels)
    perfect = float(sum(sizes[c] * sheet.m1[c, c] for c in range(k)))
    return MulticlassReport(
        slot=sheet.slot, labels=sheet.labels, model=np.asarray(n), eval1=eval1, eval2=eval2,
        perfect_slot_cost=perfect, expected=np.asarray(b.to_numpy("expected"), dtype=float),
        expected_cost=float(b.expected_cost), worst=b.to_numpy("worst"),
        worst_cost=float(b.worst_cost), best=b.to_numpy("best"), best_cost=float(b.best_cost),
        assumption=b.assumption, form=b.form, sheet_digest=sheet.digest,
        high_confidence=high, warnings=tuple(warnings))


def compare_multiclass(sheet: MulticlassSheet, candidates: Mapping[str, Any], *,
                       confidence: float | None = None) -> pd.DataFrame:
    """Evaluate several K-label candidates and rank them by Eval1, ties by the worst case.

    Returns
    -------
    pandas.DataFrame
        One row per candidate (index ``candidate``), best first: ``eval1``, ``eval2``,
        ``perfect_slot_cost``, ``expected_cost``, ``worst_cost``, ``best_cost``
        (``worst_high_confidence`` with ``confidence``), ``accuracy`` and ``rank``; ``attrs``
        hold the slot, labels, the sheet's digest and the warnings.

    Examples
    --------
    >>> from causalcost.sheet.multiclass_sheet import multiclass_sheet
    >>> t = np.zeros((2, 2, 2))
    >>> t[:, 0, 0] = t[:, 1, 1] = 1.0
    >>> sheet = multiclass_sheet(t, [[0, 1], [4, 0]], slot="m", labels=["a", "b"],
    ...                          created="2026-01-01T00:00:00+00:00")
    >>> table = compare_multiclass(sheet, {"x": [[5, 5], [0, 10]], "y": [[10, 0], [5, 5]]})
    >>> table.index.tolist(), table["eval1"].tolist()
    (['x', 'y'], [5.0, 20.0])
    """
    if not isinstance(candidates, Mapping) or not candidates:
        raise ValidationError("candidates must be a non-empty mapping name -> confusion or "
                              "predictions")
    rows, warnings = {}, []
    for name, cand in candidates.items():
        try:
            r = evaluate_multiclass(sheet, cand, confidence=confidence)
        except (DataError, ValidationError, CountError, InfeasibleInputError) as exc:
            raise type(exc)(f"candidate {name!r}: {exc}") from None
        row = r.to_series().to_dict()
        m = np.asarray(r.model, dtype=float)
        row["accuracy"] = float(np.trace(m) / m.sum()) if m.sum() else float("nan")
        rows[str(name)] = row
        warnings += [f"{name}: {w}" for w in r.warnings]
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "candidate"
    frame = frame.sort_values(["eval1", "worst_cost"], kind="mergesort")
    keys = list(zip(frame["eval1"], frame["worst_cost"]))
    frame["rank"] = [keys.index(key) + 1 for key in keys]  # sorted: equal keys share a rank
    frame.attrs.update(slot=sheet.slot, labels=list(sheet.labels), assumption=sheet.assumption,
                       sheet_sha256=sheet.digest, warnings=warnings)
    return frame
